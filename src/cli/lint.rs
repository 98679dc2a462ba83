//! `harness9 lint` and `harness9 test`.

use std::path::PathBuf;

use clap::Args;

use super::{plain_output, report_load_error, EXIT_USAGE};
use harness9::diag;
use harness9::lint::{self, Options};
use harness9::{Engine, PathContext};

#[derive(Args, Debug)]
pub struct LintArgs {
    /// Policy files (or settings.json files) to check. Without any, the project's, as `check`
    /// and the hook read them: `.harness9/*.policy`, the user's policy files, and
    /// `.harness9/settings.json` when present.
    files: Vec<PathBuf>,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Check `expect`s without the built-in danger rules.
    #[arg(long)]
    no_builtin: bool,
    /// Every rule must be exercised by an `expect` (an error for each one that is not).
    #[arg(long)]
    strict: bool,
    /// Report a rule that can never match (a tool name no call has, like `read_flie` or
    /// `Bash`; `path` where no path is compared) as a warning instead of an error.
    #[arg(long)]
    allow_dead: bool,
}

#[derive(Args, Debug)]
pub struct TestArgs {
    /// Policy files whose `expect` statements to run. Without any, the project's, as `check`
    /// and the hook read them: `.harness9/*.policy` and the user's policy files.
    files: Vec<PathBuf>,
    /// Run without the built-in danger rules (the hard protections always apply).
    #[arg(long)]
    no_builtin: bool,
    /// Also say which rules no `expect` exercises, per file, with a summary line.
    #[arg(long)]
    coverage: bool,
    /// The output of `--coverage`.
    #[arg(long, value_enum, default_value = "text")]
    format: super::check::Format,
}

/// The files to read when none is named: the policy files the hook reads for the working
/// folder (`.harness9/*.policy`, the user's), shown relative to it, and with `settings` its
/// `.harness9/settings.json` when present. `Err` (with the message printed) when they cannot
/// be listed or there are none.
fn project_files(settings: bool) -> Result<Vec<PathBuf>, i32> {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot read the current folder: {e}");
            return Err(EXIT_USAGE);
        }
    };
    let project = harness9::hooks::Project::from_env(cwd.clone());
    let mut files = match harness9::hooks::discovered_policies(&project) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(EXIT_USAGE);
        }
    };
    let settings_file = cwd.join(harness9::settings::SETTINGS_PATH);
    if settings && settings_file.is_file() {
        files.push(settings_file);
    }
    if files.is_empty() {
        eprintln!(
            "error: no policy files here: none in .harness9/ nor in the user's policy folder{}; \
             name the files to read",
            project
                .user_dir
                .as_deref()
                .map(|d| format!(" ({})", d.display()))
                .unwrap_or_default()
        );
        return Err(EXIT_USAGE);
    }
    Ok(files
        .into_iter()
        .map(|p| p.strip_prefix(&cwd).map(PathBuf::from).unwrap_or(p))
        .collect())
}

pub fn lint(mut a: LintArgs) -> i32 {
    if a.files.is_empty() {
        match project_files(true) {
            Ok(f) => a.files = f,
            Err(code) => return code,
        }
    }
    let opts = Options {
        builtin: !a.no_builtin,
        ctx: PathContext::from_env(),
        strict: a.strict,
        managed: harness9::hooks::managed_policies().unwrap_or_default(),
        allow_dead: a.allow_dead,
    };
    let (mut errors, mut warnings) = (0, 0);
    for f in &a.files {
        let report = lint::lint_file(f, &opts);
        for d in &report.diagnostics {
            if d.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
        }
        if !report.diagnostics.is_empty() {
            print!("{}", diag::render(&report.diagnostics, plain_output(true)));
        }
    }
    println!(
        "{errors} error(s), {warnings} warning(s) in {} file(s)",
        a.files.len()
    );
    i32::from(errors > 0 || (a.deny_warnings && warnings > 0))
}

pub fn test(mut a: TestArgs) -> i32 {
    if a.files.is_empty() {
        match project_files(false) {
            Ok(f) => a.files = f,
            Err(code) => return code,
        }
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut covered: Vec<lint::Covered> = Vec::new();
    let json = a.format == super::check::Format::Json;
    for f in &a.files {
        let engine = match Engine::builder()
            .builtin(!a.no_builtin)
            .default_policy()
            .policy_file(f)
            .build()
        {
            Ok(e) => e,
            Err(e) => {
                report_load_error(&e);
                return EXIT_USAGE;
            }
        };
        if a.coverage {
            covered.extend(lint::coverage(&engine));
        }
        for r in lint::run_expects(&engine) {
            match &r.failure {
                None => passed += 1,
                Some(_) if json => failed += 1,
                Some(d) => {
                    failed += 1;
                    println!(
                        "FAIL {}: {}",
                        d.location(),
                        harness9::policy::print::print_statement(
                            &harness9::policy::ast::Statement::Expect(r.expect.clone())
                        )
                    );
                    println!("     {}", d.message);
                    if let Some(h) = &d.help {
                        println!(
                            "     {h} ({})",
                            d.labels.first().map(|l| l.1.as_str()).unwrap_or("")
                        );
                    }
                }
            }
        }
    }
    if a.coverage {
        print_coverage(&covered, passed, failed, json);
    } else {
        println!("{passed} passed, {failed} failed");
    }
    i32::from(failed > 0)
}

/// The coverage report: per file, the rules no `expect` exercises, then a summary line (or one
/// JSON object).
fn print_coverage(rules: &[lint::Covered], passed: usize, failed: usize, json: bool) {
    let mut files: Vec<(String, Vec<&lint::Covered>)> = Vec::new();
    for r in rules {
        let file = r.source.name.to_string();
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, v)) => v.push(r),
            None => files.push((file, vec![r])),
        }
    }
    let total = rules.len();
    let hit = rules.iter().filter(|r| r.covered).count();
    if json {
        let per_file: Vec<serde_json::Value> = files
            .iter()
            .map(|(f, rs)| {
                serde_json::json!({
                    "file": f,
                    "rules": rs.len(),
                    "covered": rs.iter().filter(|r| r.covered).count(),
                    "uncovered": rs.iter().filter(|r| !r.covered).map(|r| serde_json::json!({
                        "rule": r.label,
                        "text": r.text,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "passed": passed,
                "failed": failed,
                "rules": total,
                "covered": hit,
                "files": per_file,
            })
        );
        return;
    }
    for (f, rs) in &files {
        let n = rs.iter().filter(|r| r.covered).count();
        println!("{f}: {n} of {} rules exercised", rs.len());
        for r in rs.iter().filter(|r| !r.covered) {
            println!("  not exercised: {}: {}", r.label, r.text);
        }
    }
    let percent = (hit * 100).checked_div(total).unwrap_or(100);
    println!("{passed} passed, {failed} failed; {hit} of {total} rules exercised ({percent}%)");
}
