//! Interpreter one-liners: the code given to `python -c`, `perl -e`, `ruby -e`, `node -e`,
//! `deno eval`, `php -r` (or fed to them on standard input) is data, except for the commands
//! it shells out to. Those are found with a small tolerant scanner, not a parser of each
//! language: calls of the functions that run commands (`os.system("…")`,
//! `subprocess.run([…])`, `system "…"`, `` `…` ``, `qx(…)`, `%x(…)`,
//! `require('child_process').execSync('…')`, …) whose arguments are string literals.
//!
//! A call whose command is not a literal (`os.system(cmd)`, an f-string, a concatenation) is
//! reported as [`ShellOut::Unknown`]: what it runs cannot be known. Mentions of these names in
//! text (`print("os.system")`) are mostly harmless to over-read: at worst they add a command
//! that is judged on its own.
//!
//! `invocation.rs` reads an interpreter's command line for its code; `scan.rs` finds the calls
//! in the code, named in the tables of `names.rs`; `args.rs` reads a call's arguments, with
//! the string literals of `lex.rs`; `calls.rs` turns the arguments into what the call runs.

mod args;
mod calls;
mod changes;
mod files;
mod imports;
mod invocation;
mod lex;
mod names;
mod paths;
mod scan;
#[cfg(test)]
mod tests;

pub(super) use self::invocation::invocation;
pub(super) use self::scan::shell_outs;
use super::Word;

/// The languages whose one-liners are scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Python,
    Perl,
    Ruby,
    /// Node.js and Bun (`-e`, `--eval`, `-p`).
    Node,
    /// `deno eval CODE`.
    Deno,
    Php,
}

impl Lang {
    /// The language of a program name (`python3.12`, `pypy3`, `perl5.36`, `nodejs`, …).
    pub(super) fn of(program: &str) -> Option<Lang> {
        let versioned = |prefix: &str| {
            program
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        };
        if versioned("python") || versioned("pypy") {
            Some(Lang::Python)
        } else if versioned("perl") {
            Some(Lang::Perl)
        } else if versioned("ruby") {
            Some(Lang::Ruby)
        } else if matches!(program, "node" | "nodejs" | "bun") {
            Some(Lang::Node)
        } else if program == "deno" {
            Some(Lang::Deno)
        } else if versioned("php") {
            Some(Lang::Php)
        } else {
            None
        }
    }
}

/// A command found in interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ShellOut {
    /// A command line run by a shell (`os.system("…")`, back-ticks); `dynamic` when its text
    /// is interpolated or built at run time.
    Shell { text: String, dynamic: bool },
    /// A program run with arguments (`subprocess.run(["rm", "-rf", "/"])`); a word not given
    /// as a literal is dynamic.
    Argv(Vec<Word>),
    /// A shell-out whose command is not a literal (`os.system(cmd)`): its source text.
    Unknown(String),
}
