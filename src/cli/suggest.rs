//! `harness9 suggest`: the calls a person approved again and again, from the audit log, as the
//! narrow rules "always allow" would write, with counts; `--apply` adds the chosen ones to
//! `.harness9/settings.json` through the same locked writer.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::check::Format;
use super::EXIT_USAGE;
use harness9::audit::{audit_path, read_log};
use harness9::hooks::{self, claude_code, Project};
use harness9::runtime::allowlist::SettingsWriter;
use harness9::runtime::propose::texts;
use harness9::runtime::suggest::{approved_calls, suggest as suggestions, Suggestion};
use harness9::settings::SETTINGS_PATH;

#[derive(Args, Debug)]
pub struct SuggestArgs {
    /// The project folder (default: the working folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The audit log to read (default: the project's, in the state folder:
    /// `$XDG_STATE_HOME/harness9/<project>/audit.jsonl`, `harness9 doctor` names it).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Suggest only calls approved at least this many times.
    #[arg(long, value_name = "N", default_value_t = 2)]
    min: usize,
    /// Add suggestions to the project's `.harness9/settings.json`: the numbered ones given, or
    /// all of them.
    #[arg(long, value_name = "N", num_args = 0..)]
    apply: Option<Vec<usize>>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn suggest(a: SuggestArgs) -> i32 {
    let cwd = match &a.cwd {
        Some(d) => std::env::current_dir().map(|c| c.join(d)),
        None => std::env::current_dir(),
    };
    let cwd = match cwd {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: the working folder is unknown: {e}");
            return EXIT_USAGE;
        }
    };
    let log = match a.log.clone().map_or_else(|| audit_path(&cwd), Ok) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot tell where the audit log is: {e}");
            return EXIT_USAGE;
        }
    };
    let (records, bad) = match read_log(&log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot read the audit log `{}`: {e}", log.display());
            return EXIT_USAGE;
        }
    };
    if bad > 0 {
        eprintln!(
            "warning: {bad} line(s) of `{}` are not audit records and were skipped",
            log.display()
        );
    }
    // The policy as the hook decides today: what it allows already is not suggested.
    let project = Project::from_env(cwd.clone());
    let engine = match hooks::project_engine(&project, Some(claude_code::POLICY), None) {
        Ok((e, _)) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let approved = approved_calls(&records);
    let found = suggestions(&engine, &approved, a.min.max(1));
    match a.format {
        Format::Json => println!(
            "{}",
            json!({
                "log": log,
                "approved": approved.len(),
                "suggestions": found,
            })
        ),
        Format::Text => print_text(&found, approved.len(), a.min),
    }
    match &a.apply {
        None => 0,
        Some(chosen) => apply(&cwd, &found, chosen),
    }
}

fn print_text(found: &[Suggestion], approved: usize, min: usize) {
    if found.is_empty() {
        println!(
            "nothing to suggest: no call the policy still asks about was approved {min} time(s) \
             or more ({approved} approval(s) in the log)"
        );
        return;
    }
    for (i, s) in found.iter().enumerate() {
        println!(
            "[{}] {}  approved {} time(s): {}",
            i + 1,
            texts(&s.rules).join(", "),
            s.count,
            s.examples.join(" · ")
        );
    }
    println!("add them with `harness9 suggest --apply` (all) or `--apply 1 3` (the numbered ones)");
}

fn apply(cwd: &std::path::Path, found: &[Suggestion], chosen: &[usize]) -> i32 {
    let picked: Vec<&Suggestion> = if chosen.is_empty() {
        found.iter().collect()
    } else {
        let mut v = Vec::new();
        for &n in chosen {
            match n.checked_sub(1).and_then(|i| found.get(i)) {
                Some(s) => v.push(s),
                None => {
                    eprintln!(
                        "error: there is no suggestion {n} (there are {}); nothing was added",
                        found.len()
                    );
                    return EXIT_USAGE;
                }
            }
        }
        v
    };
    let rules: Vec<String> = picked.iter().flat_map(|s| texts(&s.rules)).collect();
    if rules.is_empty() {
        return 0;
    }
    // The TUI's "always allow" writer: locked, atomic, other content kept, inside the project.
    let writer = SettingsWriter::new(cwd.join(SETTINGS_PATH)).within(cwd);
    super::allow::report_added(&rules, writer.add(&rules))
}
