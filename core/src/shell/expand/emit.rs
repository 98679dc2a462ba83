//! Turns what a command runs into commands: a program and its arguments is one more
//! command (expanded in turn), a shell string is analysed (by the fast path when it is
//! plain words), and what is only known at run time is a command whose program is dynamic.

use super::{expand, Env, Res, Run, Script};
use crate::shell::driver::{self, too_deep, UNPARSABLE};
use crate::shell::fast;
use crate::shell::walk::Ctx;
use crate::shell::RedirectOp;
use crate::shell::{Origin, SimpleCommand, Word, MAX_DEPTH};

/// Emits into `out` the commands of `run`, one thing `cmd` (found at nesting `depth`) runs.
pub(super) fn emit(
    run: Run,
    cmd: &SimpleCommand,
    depth: usize,
    env: &Env<'_>,
    out: &mut Vec<SimpleCommand>,
) -> Res<()> {
    match run {
        Run::Argv {
            argv,
            assignments,
            piped,
            stdin,
            origin,
        } => {
            if argv.is_empty() {
                return Ok(());
            }
            let depth = depth + 1;
            if depth > MAX_DEPTH {
                return Err(too_deep());
            }
            let inner = nested_command(cmd, argv, assignments, piped, origin, env.functions);
            let inner_env = Env {
                stdin: if stdin { env.stdin } else { &[] },
                ..*env
            };
            let mut extra = Vec::new();
            expand(&inner, depth, &inner_env, &mut extra)?;
            out.push(inner);
            out.append(&mut extra);
            Ok(())
        }
        Run::Script {
            text,
            dynamic,
            origin,
            piped,
            same_shell,
            stdin,
        } => {
            let depth = depth + 1;
            if depth > MAX_DEPTH {
                return Err(too_deep());
            }
            env.budget.payload(text.len())?;
            let functions = if same_shell {
                env.functions.to_vec()
            } else {
                Vec::new()
            };
            // Its commands read what the command reads: here-documents and here-strings.
            let herestrings = herestrings(cmd, stdin);
            let inherited = env.stdin.iter().copied().filter(|_| stdin);
            let inherited = inherited.chain(herestrings.iter()).collect();
            let payload = Payload {
                text,
                dynamic,
                ctx: Ctx {
                    origin,
                    piped,
                    depth,
                },
                functions,
                inherited,
            };
            emit_payload(payload, cmd, env, out)
        }
        Run::Unknown { source, origin } => {
            out.push(unknown(source, origin, cmd));
            Ok(())
        }
    }
}

/// The command `cmd` runs as `argv`: it keeps the assignments and redirections of `cmd`,
/// and calls a function it is defined in when its program is one of `functions`.
fn nested_command(
    cmd: &SimpleCommand,
    argv: Vec<Word>,
    assignments: Vec<String>,
    piped: bool,
    origin: Origin,
    functions: &[String],
) -> SimpleCommand {
    let mut all = cmd.assignments.clone();
    all.extend(assignments);
    let self_call = argv
        .first()
        .is_some_and(|w| !w.dynamic && functions.contains(&w.value));
    SimpleCommand {
        assignments: all,
        argv,
        redirects: cmd.redirects.clone(),
        origin,
        piped,
        self_call,
        span: cmd.span,
        evaluates: Vec::new(),
    }
}

/// The here-strings on the standard input of `cmd`, when what it runs reads that (`stdin`).
fn herestrings(cmd: &SimpleCommand, stdin: bool) -> Vec<Script> {
    cmd.redirects
        .iter()
        .filter(|r| stdin && r.op == RedirectOp::HereString && r.fd.is_none_or(|fd| fd == 0))
        .map(|r| Script {
            text: r.target.value.clone(),
            dynamic: r.target.dynamic,
        })
        .collect()
}

/// A shell command line a command runs, with what its commands inherit.
struct Payload<'a> {
    text: String,
    /// The text is only known at run time.
    dynamic: bool,
    ctx: Ctx,
    /// The functions in scope (those enclosing the command, for `eval`).
    functions: Vec<String>,
    /// The here-documents and here-strings its commands read.
    inherited: Vec<&'a Script>,
}

/// Emits the commands of a shell command line `cmd` runs, each at the place of `cmd`.
fn emit_payload(
    payload: Payload<'_>,
    cmd: &SimpleCommand,
    env: &Env<'_>,
    out: &mut Vec<SimpleCommand>,
) -> Res<()> {
    let Payload {
        text,
        dynamic,
        ctx,
        functions,
        inherited,
    } = payload;
    let at_cmd = |mut c: SimpleCommand| {
        c.span = cmd.span;
        c
    };
    // A plain payload (`bash -c 'ls -la && make'`) needs no parse: the fast path
    // gives the commands the walk would, expanded the same way.
    if let Some(plain) = fast::plain_commands(&text, ctx, &functions).filter(|_| !dynamic) {
        let pending = driver::plain_pending(&plain, ctx.depth, &functions);
        let commands =
            driver::expand_commands(plain, pending, &[], &inherited, env.frames + 1, env.budget)?;
        out.extend(commands.into_iter().map(at_cmd));
        return Ok(());
    }
    let mut asked = false;
    match driver::walk_text(
        &text,
        0,
        ctx,
        functions,
        env.frames + 1,
        env.budget,
        &inherited,
    ) {
        Ok((commands, _)) => {
            asked = commands.iter().any(SimpleCommand::computed_program);
            out.extend(commands.into_iter().map(at_cmd));
        }
        // A dynamic payload's text is not what runs; what it gives is only a hint,
        // and the payload is asked about below anyway.
        Err(reason) if dynamic && reason == UNPARSABLE => {}
        Err(reason) => return Err(reason),
    }
    // (`sh -c "$CMD"` already gave a command whose program is computed.)
    if dynamic && !asked {
        out.push(unknown(text, ctx.origin, cmd));
    }
    Ok(())
}

/// A command whose program is only known when it runs: the engine asks about it.
fn unknown(source: String, origin: Origin, cmd: &SimpleCommand) -> SimpleCommand {
    SimpleCommand {
        argv: vec![Word {
            value: source,
            dynamic: true,
            path: None,
        }],
        origin,
        piped: cmd.piped,
        span: cmd.span,
        ..SimpleCommand::default()
    }
}
