//! Which kind of program a command runs, and so how the command it runs is read.

use super::env::env_runs;
use super::interpreters::interpreter_runs;
use super::launchers::{
    busybox_runs, find_runs, flock_runs, runuser_runs, sg_runs, su_runs, typescript_runs,
    watch_runs, xargs_runs,
};
use super::shells::{eval_runs, shell_runs, source_runs, ssh_runs};
use super::wrappers::{self, Wrapper};
use super::{Env, Res, Run};
use crate::shell::interp::Lang;
use crate::shell::SimpleCommand;

/// A program that may run more than itself, by how it says what it runs.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Wrapper(&'static Wrapper),
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

/// The kind of `program` (its directory stripped), if it runs more than itself.
pub(super) fn kind(program: &str) -> Option<Kind> {
    if let Some(w) = wrappers::of(program) {
        return Some(Kind::Wrapper(w));
    }
    Some(match program {
        "env" => Kind::Env,
        "busybox" => Kind::Busybox,
        "xargs" => Kind::Xargs,
        "find" => Kind::Find,
        "watch" => Kind::Watch,
        "flock" => Kind::Flock,
        "su" => Kind::Su,
        "runuser" => Kind::Runuser,
        "sg" => Kind::Sg,
        "script" => Kind::TypeScript,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "pdksh" | "yash" | "rbash"
        | "fish" | "csh" | "tcsh" => Kind::Shell,
        "eval" => Kind::Eval,
        "source" | "." => Kind::Source,
        "ssh" => Kind::Ssh,
        _ => Kind::Interpreter(Lang::of(program)?),
    })
}

/// What `cmd`, a program of kind `kind`, runs.
pub(super) fn runs(kind: Kind, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    Ok(match kind {
        Kind::Wrapper(w) => wrappers::wrapper_runs(w, cmd, env)?,
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
