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

pub(crate) use self::invocation::invocation;
pub(crate) use self::scan::shell_outs;
use crate::command::{SimpleCommand, Word};

/// The languages whose one-liners are scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
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
    /// The language of a program name (`python3.12`, `pypy3`, `perl5.36`, `nodejs`, …), as
    /// its table's `runs` says.
    pub(crate) fn of(program: &str) -> Option<Lang> {
        match crate::knowledge::registry().runs(program) {
            Some(crate::knowledge::Runs::Interpreter(lang)) => Some(lang),
            _ => None,
        }
    }
}

impl Lang {
    /// The language's name in decisions: `python`, `perl`, `ruby`, `node`, `deno`, `php`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Perl => "perl",
            Lang::Ruby => "ruby",
            Lang::Node => "node",
            Lang::Deno => "deno",
            Lang::Php => "php",
        }
    }
}

/// The code an interpreter one-liner is given on its command line (`python3 -c CODE`,
/// `node -e CODE`, `perl -e CODE`, …) and the language's name (see [`Lang::name`]); `None`
/// for a program that is not one of these interpreters.
pub fn interpreter_code(cmd: &SimpleCommand) -> Option<(&'static str, Vec<Word>)> {
    let lang = Lang::of(cmd.program())?;
    Some((lang.name(), invocation(lang, &cmd.argv).codes))
}

/// The script file an interpreter runs (`python3 tool.py`, `node x`, `perl -w x.pl`); `None`
/// when it runs code it is given, a module or its standard input, or is no interpreter.
pub fn interpreter_script(cmd: &SimpleCommand) -> Option<Word> {
    let lang = Lang::of(cmd.program())?;
    invocation(lang, &cmd.argv).script
}

/// A command found in interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellOut {
    /// A command line run by a shell (`os.system("…")`, back-ticks); `dynamic` when its text
    /// is interpolated or built at run time.
    Shell { text: String, dynamic: bool },
    /// A program run with arguments (`subprocess.run(["rm", "-rf", "/"])`); a word not given
    /// as a literal is dynamic.
    Argv(Vec<Word>),
    /// A shell-out whose command is not a literal (`os.system(cmd)`): its source text.
    Unknown(String),
}
