//! Shell analysis: a bash command line in, the simple commands it would execute out.
//!
//! The policy engine never looks at raw command text: it matches rules against the
//! [`SimpleCommand`]s produced here, one at a time, and combines their decisions strictly.
//! A command line that cannot be analysed is an [`Analysis`] with a `failure`, which the engine
//! turns into a high-risk ask — never an allow.
//!
//! The commands a line really runs are all there: besides the simple commands as written, the
//! command a wrapper runs (`sudo`, `env`, `nice`, `timeout`, `xargs`, `find -exec`, …), the
//! strings a shell executes (`bash -c`, `eval`, `su -c`, `ssh host '…'`, `watch`, a
//! here-document fed to `sh`) and the shell-outs of interpreter one-liners (`python -c
//! 'os.system("…")'`) — see `expand.rs`. Since the engine keeps the strictest decision of all
//! the commands, an extra command can only make a decision stricter. A payload whose text is
//! only known at run time (`sh -c "$(curl …)"`) is a command whose program is dynamic, which
//! the engine asks about.

mod brace;
mod compound;
mod coverage;
mod driver;
mod evaluated;
mod expand;
mod fast;
mod misread;
mod parse;
mod unescape;
mod walk;
mod words;

use crate::command::assigned_name;
pub use crate::command::{
    assigned_value, Analysis, Origin, Redirect, RedirectOp, SimpleCommand, View, Word,
    HARMLESS_DEVICES,
};

/// Analyses a command line. A line of plain words takes a fast path that gives exactly what
/// the parser would; everything else is parsed.
pub fn analyse(command: &str) -> Analysis {
    // A NUL ends the string a shell is given (`bash -c`, `execve`): what follows it would be
    // read here but never run, and what runs is not what was read.
    if command.contains('\0') {
        return Analysis {
            commands: Vec::new(),
            failure: Some("the command holds a NUL byte, where a shell stops reading".into()),
        };
    }
    fast::plain_command(command).unwrap_or_else(|| driver::analyse(command))
}

/// Longest command line analysed; longer ones are refused (and asked about).
pub const MAX_COMMAND_LEN: usize = 64 * 1024;
/// Deepest nesting of substitutions, subshells, wrappers (`sudo env nice …`) and payloads
/// (`bash -c`, `eval`, interpreter shell-outs) followed.
pub const MAX_DEPTH: usize = 16;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod walk_tests;
