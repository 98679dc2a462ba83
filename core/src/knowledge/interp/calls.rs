//! What one call runs, by how its arguments name the command (its [`Shape`]).

use super::args::Arg;
use super::lex::Lit;
use super::names::Shape::{self, *};
use super::{Lang, ShellOut};
use crate::command::Word;

/// The shell command line of a string literal.
pub(super) fn shell_of(lit: Lit) -> ShellOut {
    ShellOut::Shell {
        text: lit.text,
        dynamic: lit.dynamic,
    }
}

/// Adds what one call runs.
pub(super) fn shell_outs_of_call(
    lang: Lang,
    shape: Shape,
    strong: bool,
    args: &[Arg],
    out: &mut Vec<ShellOut>,
) {
    let mut args: &[Arg] = args;
    // Ruby's environment hash before the command: `system({"A" => "1"}, "ls")`.
    if lang == Lang::Ruby {
        if let Some((Arg::Object(_), rest)) = args.split_first() {
            args = rest;
        }
    }
    let Some(first) = args.first() else {
        return;
    };
    match shape {
        Shell | StringOrList => match first {
            Arg::Str(lit) => out.push(shell_of(lit.clone())),
            Arg::List(items) => out.push(argv_of(items)),
            other => unknown(strong, other, out),
        },
        ShellOrArgv => shell_or_argv(strong, args, out),
        ProgramThenList => program_then_list(strong, args, out),
        // Calls that change files are read by `changes.rs`.
        Like(_) => {}
        Flatten => {
            let all: Vec<Arg> = args
                .iter()
                .filter(|a| !matches!(a, Arg::Other(_)))
                .flat_map(flatten)
                .collect();
            if all.is_empty() {
                unknown(strong, first, out);
            } else {
                out.push(argv_of(&all));
            }
        }
        Exec => {
            let mut all: Vec<Arg> = args
                .iter()
                .filter(|a| !matches!(a, Arg::Other(_)))
                .flat_map(flatten)
                .collect();
            if all.len() > 1 {
                all.remove(1);
            }
            if all.is_empty() {
                unknown(strong, first, out);
            } else {
                out.push(argv_of(&all));
            }
        }
        Open => pipe_open(args, out),
    }
}

/// Adds a shell-out whose command is `arg`, not a literal, when the call counts as one
/// (`strong`).
fn unknown(strong: bool, arg: &Arg, out: &mut Vec<ShellOut>) {
    if strong {
        out.push(ShellOut::Unknown(match arg {
            Arg::Other(text) => text.clone(),
            _ => String::from("…"),
        }));
    }
}

/// Perl and Ruby `system`/`exec` (`args` not empty): one string is a shell command line,
/// several are a program and its arguments.
fn shell_or_argv(strong: bool, args: &[Arg], out: &mut Vec<ShellOut>) {
    let Some(first) = args.first() else {
        return;
    };
    match (first, args.len()) {
        (Arg::Str(lit), 1) => out.push(shell_of(lit.clone())),
        (Arg::List(items), 1) => out.push(argv_of(items)),
        (Arg::Other(_), 1) => unknown(strong, first, out),
        (Arg::Str(_) | Arg::Other(_), _) => {
            if matches!(first, Arg::Other(_)) && !strong {
                return;
            }
            let all: Vec<Arg> = args.iter().flat_map(flatten).collect();
            out.push(argv_of(&all));
        }
        (other, _) => unknown(strong, other, out),
    }
}

/// Node's `spawn('rm', ['-rf', '/'])` (`args` not empty): a program, then a list.
fn program_then_list(strong: bool, args: &[Arg], out: &mut Vec<ShellOut>) {
    let Some(first) = args.first() else {
        return;
    };
    match (first, args.get(1)) {
        (Arg::Str(lit), Some(Arg::List(items))) => {
            let mut all = vec![Arg::Str(lit.clone())];
            all.extend(items.iter().flat_map(flatten));
            out.push(argv_of(&all));
        }
        (Arg::Str(lit), _) => out.push(shell_of(lit.clone())),
        (Arg::List(items), _) => out.push(argv_of(items)),
        (other, _) => unknown(strong, other, out),
    }
}

/// Perl and Ruby `open`: a pipe open (`"cmd |"`, `"| cmd"`, `"-|", "cmd"`) runs a command.
fn pipe_open(args: &[Arg], out: &mut Vec<ShellOut>) {
    let strs: Vec<&Lit> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Str(lit) => Some(lit),
            _ => None,
        })
        .collect();
    if let Some(k) = args
        .iter()
        .position(|a| matches!(a, Arg::Str(l) if matches!(l.text.trim(), "-|" | "|-")))
    {
        let rest: Vec<Arg> = args.iter().skip(k + 1).flat_map(flatten).collect();
        match rest.as_slice() {
            [Arg::Str(lit)] => out.push(shell_of(lit.clone())),
            [] => {}
            _ => out.push(argv_of(&rest)),
        }
        return;
    }
    for lit in strs {
        let t = lit.text.trim();
        if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
            out.push(ShellOut::Shell {
                text: cmd.trim().to_string(),
                dynamic: lit.dynamic,
            });
        }
    }
}

/// The elements of lists and objects, in order; other arguments as they are.
fn flatten(arg: &Arg) -> Vec<Arg> {
    match arg {
        Arg::List(items) | Arg::Object(items) => items.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}

/// A program and its arguments from literal items (others are dynamic words).
fn argv_of(items: &[Arg]) -> ShellOut {
    let words = items
        .iter()
        .flat_map(flatten)
        .map(|item| match item {
            Arg::Str(lit) => Word {
                path: (!lit.dynamic).then(|| lit.text.clone()),
                value: lit.text,
                dynamic: lit.dynamic,
            },
            Arg::Other(text) => Word {
                value: text,
                dynamic: true,
                path: None,
            },
            Arg::List(_) | Arg::Object(_) => Word::default(),
        })
        .collect();
    ShellOut::Argv(words)
}
