//! The wrappers a program table describes (`runs = "wrapper"`, with its `wrapper` table:
//! `sudo`, `nice`, `timeout`, `chroot`, `strace`, …) run the command written after their
//! options (and a fixed number of operands).

use super::shells::stdin_scripts;
use super::{starts, wrapped, Env, Res, Run};
use crate::command::options::{self, Spec};
use crate::knowledge::WrapperTable;
use crate::shell::{Origin, SimpleCommand};

/// The command of a wrapper, read both ways when an option is unknown.
pub(super) fn wrapper_runs(w: &WrapperTable, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let spec = Spec {
        short_value: &w.short_value,
        short_optional: &w.short_optional,
        short_flags: &w.short_flags,
        short_ambiguous: &w.short_ambiguous,
        long_value: &w.long_value,
        long_optional: &w.long_optional,
        long_flags: &w.long_flags,
        numeric: w.numeric,
    };
    let parsed = options::parse(&spec, &cmd.argv, 1);
    if w.no_run.iter().any(|o| parsed.has(o)) {
        return Ok(Vec::new());
    }
    let start = parsed.operands + w.positional;
    if start >= cmd.argv.len() && w.shell.iter().any(|o| o.is_empty() || parsed.has(o)) {
        return Ok(stdin_scripts(cmd, env, Origin::Payload));
    }
    Ok(starts(&parsed, env.budget)?
        .into_iter()
        .map(|s| wrapped(cmd, s + w.positional))
        .collect())
}
