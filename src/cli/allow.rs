//! `harness9 allow RULE...`: adds allow rules to `.harness9/settings.json` the way the TUI's
//! "always allow" does — checked, atomic, under a lock, other content kept, no duplicates.

use std::path::PathBuf;

use clap::Args;

use super::EXIT_USAGE;
use harness9::rule_ref::Held;
use harness9::runtime::allowlist::{add_allow_rules, SettingsError};
use harness9::settings::SETTINGS_PATH;
use harness9::Engine;

#[derive(Args, Debug)]
pub struct AllowArgs {
    /// The settings file to add to.
    #[arg(long, value_name = "FILE", default_value = SETTINGS_PATH)]
    settings: PathBuf,
    /// Rules in settings.json's format: `bash(git commit *)`, `bash(exact 'make dist')`.
    #[arg(required = true, value_name = "RULE")]
    rules: Vec<String>,
}

pub fn allow(a: AllowArgs) -> i32 {
    // A rule that does not compile is refused before the file is touched.
    let engine = match Engine::builder().builtin(false).build() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    for r in &a.rules {
        let tool = r.split('(').next().unwrap_or(r).trim();
        // A rule that never matches would be written and do nothing: refused, with the fix.
        if let Some(t) = harness9::call::likely_tool(tool) {
            let fixed = format!("{t}{}", &r.trim_start()[tool.len()..]);
            eprintln!(
                "error: no call names the tool `{tool}`, so `{r}` would never match; nothing \
                 was written\n  help: did you mean `{fixed}`?"
            );
            return EXIT_USAGE;
        }
        if let Err(e) = engine.compile_allow_rules(Held::Proposal, std::slice::from_ref(r)) {
            eprintln!("error: `{r}` is not a valid rule: {e}");
            return EXIT_USAGE;
        }
    }
    report_added(&a.rules, add_allow_rules(&a.settings, &a.rules))
}

/// Says of each rule whether it was added or already there; exit 0, or 1 when the settings
/// file could not be written.
pub fn report_added(rules: &[String], result: Result<Vec<String>, SettingsError>) -> i32 {
    match result {
        Ok(added) => {
            for r in rules {
                let what = if added.contains(r) {
                    "added"
                } else {
                    "already allowed"
                };
                println!("{what}: {r}");
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
