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
}

#[derive(Args, Debug)]
pub struct TestArgs {
    /// Policy files whose `expect` statements to run.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Run without the built-in danger rules (the hard protections always apply).
    #[arg(long)]
    no_builtin: bool,
}

pub fn lint(a: LintArgs) -> i32 {
    let opts = Options {
        builtin: !a.no_builtin,
        ctx: PathContext::from_env(),
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
    for f in &a.files {
        let engine = match Engine::builder()
            .builtin(!a.no_builtin)
            .policy_file(f)
            .build()
        {
            Ok(e) => e,
            Err(e) => {
                report_load_error(&e);
                return EXIT_USAGE;
            }
        };
        for r in lint::run_expects(&engine) {
            match &r.failure {
                None => passed += 1,
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
    println!("{passed} passed, {failed} failed");
    i32::from(failed > 0)
}
