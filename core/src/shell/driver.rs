//! The driver of the analysis: the only place that parses a text and recurses into nested
//! text (substitutions, payloads). The walk collects the simple commands of one parsed text;
//! the expansion (see `expand.rs`) adds what each runs beyond itself.

use super::coverage;
use super::evaluated;
use super::expand::{self, Budget, Env, Script};
use super::misread::misread;
use super::parse::{crashes_tree_sitter, parse};
use super::walk::{Ctx, Walker};
use super::{Analysis, Origin, SimpleCommand, MAX_COMMAND_LEN, MAX_DEPTH};
use crate::shell::RedirectOp;

/// The reason given for any line tree-sitter cannot parse or the walk does not understand.
pub(super) const UNPARSABLE: &str = "the command could not be parsed";

/// Hard cap on the recursion of the walk itself (statements and word parts), whatever the
/// nesting counted by `MAX_DEPTH`: a guard against stack exhaustion on hostile input.
pub(super) const MAX_FRAMES: usize = 12 * MAX_DEPTH;

/// `Err` is the reason a person reads for why the line is not understood; it becomes the
/// decision's reason, and nothing tells one reason from another, so it stays text.
pub(super) type Res<T> = Result<T, String>;

pub(super) fn unparsable() -> String {
    UNPARSABLE.to_string()
}

pub(super) fn too_long() -> String {
    format!("the command is longer than {MAX_COMMAND_LEN} bytes")
}

pub(super) fn too_deep() -> String {
    format!("the command nests deeper than {MAX_DEPTH} levels")
}

/// Analyses one bash command line: every simple command it would execute, in source order.
///
/// Never panics. An empty (or comment-only) line gives no commands and no failure; a line that
/// cannot be analysed gives a `failure` (and no commands).
pub fn analyse(command: &str) -> Analysis {
    analyse_at_depth(command, 0, Origin::TopLevel)
}

/// [`analyse`] for text found at nesting `depth` (a `bash -c` payload, say), whose top-level
/// commands get `origin`. Spans are relative to `text`.
pub(crate) fn analyse_at_depth(text: &str, depth: usize, origin: Origin) -> Analysis {
    let ctx = Ctx {
        origin,
        piped: false,
        depth,
    };
    let budget = Budget::default();
    match walk_text(text, 0, ctx, Vec::new(), 0, &budget, &[]) {
        Ok((commands, _)) => Analysis {
            commands,
            failure: None,
        },
        Err(reason) => Analysis {
            commands: Vec::new(),
            failure: Some(reason),
        },
    }
}

/// Parses `text` and walks it; `base` is added to every span, `functions` are the functions
/// being defined around it (given back), `frames` the recursion already spent, `budget` the
/// work spent on the whole line, `inherited` the here-documents its commands read unless
/// redirected (those of the shell running `text`). The commands found are followed by what
/// they run (see `expand.rs`).
pub(super) fn walk_text(
    text: &str,
    base: usize,
    ctx: Ctx,
    functions: Vec<String>,
    frames: usize,
    budget: &Budget,
    inherited: &[&Script],
) -> Res<(Vec<SimpleCommand>, Vec<String>)> {
    if text.len() > MAX_COMMAND_LEN {
        return Err(too_long());
    }
    if ctx.depth > MAX_DEPTH {
        return Err(too_deep());
    }
    if crashes_tree_sitter(text) {
        return Err(unparsable());
    }
    let tree = parse(text).ok_or_else(unparsable)?;
    let root = tree.root_node();
    if root.has_error() || root.is_missing() || misread(root, text) {
        return Err(unparsable());
    }
    let mut walker = Walker {
        src: text,
        base,
        out: Vec::new(),
        functions,
        frames,
        watch: None,
        watch_start: None,
        bad_slice: false,
        seen: Vec::new(),
        evaluated: Vec::new(),
        pending: Vec::new(),
        stdin: Vec::new(),
        budget,
    };
    walker.block(root, ctx)?;
    if walker.bad_slice {
        return Err(unparsable());
    }
    coverage::check(root, text, &walker.seen)?;
    walker.attach_evaluated();
    let out = expand_commands(
        walker.out,
        walker.pending,
        &walker.stdin,
        inherited,
        frames,
        budget,
    )?;
    evaluated::check(&out)?;
    Ok((out, walker.functions))
}

/// What the walk of a line of plain simple commands (found at nesting `depth`, see
/// `fast.rs`) gives: the commands, each followed by what it runs.
pub(super) fn expand_plain(commands: Vec<SimpleCommand>, depth: usize) -> Analysis {
    let budget = Budget::default();
    let pending = plain_pending(&commands, depth, &[]);
    match expand_commands(commands, pending, &[], &[], 0, &budget) {
        Ok(commands) => Analysis {
            commands,
            failure: None,
        },
        Err(reason) => Analysis {
            commands: Vec::new(),
            failure: Some(reason),
        },
    }
}

/// The pending expansions of plain simple commands, as the walk records them.
pub(super) fn plain_pending(
    commands: &[SimpleCommand],
    depth: usize,
    functions: &[String],
) -> Vec<Pending> {
    commands
        .iter()
        .enumerate()
        .map(|(index, c)| Pending {
            index,
            ctx: Ctx {
                origin: c.origin,
                piped: c.piped,
                depth,
            },
            functions: functions.to_vec(),
        })
        .collect()
}

/// A simple command of the walk, to be expanded once the walk is done (its words and
/// redirections are only complete then: `rm > f -rf /`, `{ …; } > f`).
pub(super) struct Pending {
    pub(super) index: usize,
    pub(super) ctx: Ctx,
    /// The functions whose definitions enclose it.
    pub(super) functions: Vec<String>,
}

/// Inserts after each pending command what it runs beyond itself (wrapped commands,
/// payloads, shell-outs).
pub(super) fn expand_commands(
    out: Vec<SimpleCommand>,
    mut pending: Vec<Pending>,
    stdin: &[(usize, usize, Script)],
    inherited: &[&Script],
    frames: usize,
    budget: &Budget,
) -> Res<Vec<SimpleCommand>> {
    pending.retain(|p| {
        out.get(p.index).is_some_and(|c| {
            c.argv.first().is_some_and(|w| !w.dynamic) && expand::special(c.program())
        })
    });
    if pending.is_empty() {
        return Ok(out);
    }
    pending.sort_by_key(|p| p.index);
    let mut inserts: Vec<(usize, Vec<SimpleCommand>)> = Vec::new();
    for p in &pending {
        let Some(cmd) = out.get(p.index) else {
            continue;
        };
        // After the commands of its own words (`$(…)`), which the shell runs first.
        let mut at = p.index;
        while out
            .get(at + 1)
            .is_some_and(|c| c.span.0 >= cmd.span.0 && c.span.1 <= cmd.span.1)
        {
            at += 1;
        }
        let mut scripts: Vec<&Script> = stdin
            .iter()
            .filter(|(start, end, _)| (*start..*end).contains(&p.index))
            .map(|(_, _, script)| script)
            .collect();
        let own_input = cmd.piped
            || cmd.redirects.iter().any(|r| {
                r.fd.is_none_or(|fd| fd == 0)
                    && (r.op.is_here() || matches!(r.op, RedirectOp::In | RedirectOp::ReadWrite))
            });
        if !own_input {
            scripts.extend(inherited.iter().copied());
        }
        let env = Env {
            frames,
            budget,
            functions: &p.functions,
            stdin: &scripts,
        };
        let mut extra = Vec::new();
        expand::expand(cmd, p.ctx.depth, &env, &mut extra)?;
        if !extra.is_empty() {
            inserts.push((at, extra));
        }
    }
    if inserts.is_empty() {
        return Ok(out);
    }
    inserts.sort_by_key(|(at, _)| *at);
    let added: usize = inserts.iter().map(|(_, extra)| extra.len()).sum();
    let mut merged = Vec::with_capacity(out.len() + added);
    let mut inserts = inserts.into_iter().peekable();
    for (i, cmd) in out.into_iter().enumerate() {
        merged.push(cmd);
        while let Some((_, mut extra)) = inserts.next_if(|(at, _)| *at == i) {
            merged.append(&mut extra);
        }
    }
    Ok(merged)
}
