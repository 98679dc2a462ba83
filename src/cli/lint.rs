//! `harness9 lint` and `harness9 test`.

use std::path::PathBuf;

use clap::Args;

use super::{plain_output, report_load_error, EXIT_USAGE};
use harness9::diag;
use harness9::lint::{self, Options};
use harness9::{Engine, PathContext};

#[derive(Args, Debug)]
pub struct LintArgs {
    /// Policy files to check.
    #[arg(required = true)]
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
    /// Policy files whose `expect` statements to run.
    #[arg(required = true)]
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

pub fn lint(a: LintArgs) -> i32 {
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

pub fn test(a: TestArgs) -> i32 {
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
