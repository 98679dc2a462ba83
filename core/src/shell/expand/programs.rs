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
use crate::knowledge::Runs;
use crate::shell::SimpleCommand;

/// How `program` (its directory stripped) runs more than itself, if it does: as its table's
/// `runs` says (`policies/programs/launch.toml`).
pub(super) fn kind(program: &str) -> Option<Runs> {
    crate::knowledge::registry().runs(program)
}

/// What `cmd`, a program of kind `kind`, runs. A wrapper is read by its table's `wrapper`
/// options (a wrapper without them does not load; were one read without them, the analysis
/// would fail and the command be asked about).
pub(super) fn runs(kind: Runs, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    Ok(match kind {
        Runs::Wrapper => {
            let table = crate::knowledge::registry()
                .entry(cmd.program())
                .and_then(|p| p.wrapper.as_ref());
            match table {
                Some(w) => wrappers::wrapper_runs(w, cmd, env)?,
                None => {
                    return Err(format!(
                        "harness9 cannot read what the wrapper `{}` runs",
                        cmd.program()
                    ))
                }
            }
        }
        Runs::Env => env_runs(cmd, env)?,
        Runs::Busybox => busybox_runs(cmd),
        Runs::Xargs => xargs_runs(cmd, env)?,
        Runs::Find => find_runs(cmd),
        Runs::Watch => watch_runs(cmd, env)?,
        Runs::Flock => flock_runs(cmd),
        Runs::Su => su_runs(cmd, env),
        Runs::Runuser => runuser_runs(cmd, env),
        Runs::Sg => sg_runs(cmd),
        Runs::Script => typescript_runs(cmd),
        Runs::Shell => shell_runs(cmd, env),
        Runs::Eval => eval_runs(cmd),
        Runs::Source => source_runs(cmd),
        Runs::Ssh => ssh_runs(cmd, env)?,
        Runs::Interpreter(lang) => interpreter_runs(lang, cmd, env),
    })
}
