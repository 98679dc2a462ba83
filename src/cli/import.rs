//! `harness9 import claude-code FILE`: another agent's permission rules as a policy file.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::{print_diags, EXIT_USAGE};
use harness9::diag::Source;
use harness9::import::Scope;

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(subcommand)]
    from: From,
}

#[derive(Subcommand, Debug)]
enum From {
    /// The `permissions` (allow, deny, ask) of a Claude Code settings file, e.g.
    /// `.claude/settings.json`: the policy goes to standard output.
    ClaudeCode {
        /// The Claude Code settings file.
        file: PathBuf,
    },
}

pub fn import(a: ImportArgs) -> i32 {
    match a.from {
        From::ClaudeCode { file } => claude_code(&file),
    }
}

fn claude_code(file: &Path) -> i32 {
    let text = match std::fs::read(file) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => {
                eprintln!("error: `{}` is not UTF-8 text", file.display());
                return EXIT_USAGE;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", file.display());
            return EXIT_USAGE;
        }
    };
    let source = Source::new(file.to_string_lossy(), text);
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    let scope = Scope::of(file, home.as_deref());
    match harness9::import::claude_code(&source, scope) {
        Ok(imported) => {
            print!("{}", imported.policy);
            for n in &imported.notes {
                eprintln!("note: {n}");
            }
            eprintln!(
                "imported {} rule(s) from `{}`",
                imported.rules,
                file.display()
            );
            0
        }
        Err(diags) => {
            print_diags(diags.iter());
            eprintln!("error: nothing was imported from `{}`", file.display());
            EXIT_USAGE
        }
    }
}
