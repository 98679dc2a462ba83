//! Which kind of program a command runs, and so how the command it runs is read.

use super::env::env_runs;
use super::interpreters::interpreter_runs;
use super::launchers::{
    busybox_runs, find_runs, flock_runs, runuser_runs, sg_runs, su_runs, typescript_runs,
    watch_runs, xargs_runs,
};
use super::shells::{eval_runs, shell_runs, source_runs, ssh_runs};
use super::wrappers;
use super::{Env, Res, Run};
use crate::knowledge::Lang;
use crate::knowledge::WrapperTable;
use crate::shell::SimpleCommand;

/// A program that may run more than itself, by how it says what it runs.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// A wrapper, with its option table (`None`: a table calls it a wrapper, but the analysis
    /// has no option table to read it by, so what it runs is not known).
    Wrapper(Option<&'static WrapperTable>),
    Env,
    Busybox,
    Xargs,
    Find,
    Watch,
    Flock,
    Su,
    Runuser,
    Sg,
    /// util-linux `script -c CMD`.
    TypeScript,
    Shell,
    Eval,
    Source,
    Ssh,
    Interpreter(Lang),
}

/// The kind of `program` (its directory stripped), if it runs more than itself: as its
/// table's `runs` says (`policies/programs/launch.toml`), a wrapper by its table's `wrapper`
/// options. (A wrapper without them does not load; were one read without them, the analysis
/// would fail and the command be asked about.)
pub(super) fn kind(program: &str) -> Option<Kind> {
    use crate::knowledge::Runs;
    let registry = crate::knowledge::registry();
    Some(match registry.runs(program)? {
        Runs::Wrapper => Kind::Wrapper(registry.entry(program).and_then(|p| p.wrapper.as_ref())),
        Runs::Env => Kind::Env,
        Runs::Busybox => Kind::Busybox,
        Runs::Xargs => Kind::Xargs,
        Runs::Find => Kind::Find,
        Runs::Watch => Kind::Watch,
        Runs::Flock => Kind::Flock,
        Runs::Su => Kind::Su,
        Runs::Runuser => Kind::Runuser,
        Runs::Sg => Kind::Sg,
        Runs::Script => Kind::TypeScript,
        Runs::Shell => Kind::Shell,
        Runs::Eval => Kind::Eval,
        Runs::Source => Kind::Source,
        Runs::Ssh => Kind::Ssh,
        Runs::Interpreter(lang) => Kind::Interpreter(lang),
    })
}

/// What `cmd`, a program of kind `kind`, runs.
pub(super) fn runs(kind: Kind, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    Ok(match kind {
        Kind::Wrapper(Some(w)) => wrappers::wrapper_runs(w, cmd, env)?,
        Kind::Wrapper(None) => {
            return Err(format!(
                "harness9 cannot read what the wrapper `{}` runs",
                cmd.program()
            ))
        }
        Kind::Env => env_runs(cmd, env)?,
        Kind::Busybox => busybox_runs(cmd),
        Kind::Xargs => xargs_runs(cmd, env)?,
        Kind::Find => find_runs(cmd),
        Kind::Watch => watch_runs(cmd, env)?,
        Kind::Flock => flock_runs(cmd),
        Kind::Su => su_runs(cmd, env),
        Kind::Runuser => runuser_runs(cmd, env),
        Kind::Sg => sg_runs(cmd),
        Kind::TypeScript => typescript_runs(cmd),
        Kind::Shell => shell_runs(cmd, env),
        Kind::Eval => eval_runs(cmd),
        Kind::Source => source_runs(cmd),
        Kind::Ssh => ssh_runs(cmd, env)?,
        Kind::Interpreter(lang) => interpreter_runs(lang, cmd, env),
    })
}
