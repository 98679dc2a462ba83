//! What a command really runs, beyond itself: the command a wrapper runs (`sudo rm -rf /`
//! runs `rm -rf /`), the strings a shell executes (`bash -c '…'`, `eval …`, `su -c '…'`,
//! `ssh host '…'`, `watch '…'`, a here-document fed to `sh`), and the shell-outs of
//! interpreter one-liners (`python -c 'os.system("…")'`).
//!
//! Each is emitted as one more [`SimpleCommand`] after the command it came from, which is
//! kept as it is (`sudo` stays a `sudo` command). The engine decides every command and keeps
//! the strictest decision, so emitting a command can only make a decision stricter: where a
//! reading is uncertain (an option these tables do not know), both readings are emitted.
//! What cannot be known (`sh -c "$(curl …)"`, `eval "$X"`, `bash <(curl …)`,
//! `os.system(cmd)`) is emitted as a command whose program is dynamic, which the engine asks
//! about. Nesting (`sudo env X=1 nice timeout 5 bash -c '…'`) is followed to the end, within
//! [`MAX_DEPTH`](super::MAX_DEPTH); deeper is a failure of the whole analysis.
//!
//! Which kind a program is, the program tables say (`runs = "…"`, see
//! [`crate::knowledge::Runs`]); reading each kind is code, one file per kind: `programs.rs`
//! maps a kind to its reader, `wrappers.rs` reads the wrappers by their tables' option specs
//! (`sudo`, `nice`, `timeout`, …), `env.rs`
//! reads `env` (and splits its `-S` strings), `launchers.rs` the other programs that run a
//! command given their own way (`xargs`, `find -exec`, `su -c`, `watch`, …), `shells.rs` the
//! shells, `eval`, `source` and `ssh`, and `interpreters.rs` the shell-outs of interpreter
//! code. `emit.rs` turns what they find into commands, analysing shell strings on the way.

mod emit;
mod env;
mod interpreters;
mod launchers;
mod programs;
mod shells;
mod wrappers;

use std::cell::Cell;

use self::emit::emit;
use super::{Origin, SimpleCommand, Word, MAX_COMMAND_LEN};
use crate::command::options::Parsed;

/// As the walk's: `Err` is the reason the line is not understood, carried into the decision.
type Res<T> = Result<T, String>;

/// Most payload text (shell strings, interpreter shell-outs) analysed for one line. Nested
/// payloads are substrings of the line, so this is only reached by lines built to multiply
/// work (a dynamic payload is read again inside the payload that holds it).
const MAX_PAYLOAD_BYTES: usize = 4 * MAX_COMMAND_LEN;
/// Most alternative readings of unknown wrapper options followed for one line.
const MAX_ALTERNATIVES: usize = 64;
/// Most `env -S` strings split for one command.
const MAX_SPLITS: usize = 16;

pub(super) fn too_complex() -> String {
    "the command is too complex to analyse".to_string()
}

/// Work spent on one line, shared by all its nested analyses.
#[derive(Debug, Default)]
pub(super) struct Budget {
    payload: Cell<usize>,
    alternatives: Cell<usize>,
}

impl Budget {
    fn payload(&self, bytes: usize) -> Res<()> {
        let spent = self.payload.get().saturating_add(bytes);
        self.payload.set(spent);
        if spent > MAX_PAYLOAD_BYTES {
            return Err(too_complex());
        }
        Ok(())
    }

    fn alternative(&self) -> Res<()> {
        let spent = self.alternatives.get() + 1;
        self.alternatives.set(spent);
        if spent > MAX_ALTERNATIVES {
            return Err(too_complex());
        }
        Ok(())
    }
}

/// A script fed to a command's standard input by a here-document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Script {
    /// The body as the command reads it (quoted: literal; unquoted: unescaped).
    pub text: String,
    /// The body holds expansions (unquoted `$X`, `$(…)`): its text is known only at run time.
    pub dynamic: bool,
}

/// What expanding a command needs from the walk it came from.
#[derive(Clone, Copy)]
pub(super) struct Env<'a> {
    /// The walk's recursion so far (see `driver::MAX_FRAMES`).
    pub frames: usize,
    pub budget: &'a Budget,
    /// The functions whose definitions enclose the command (for `eval f`, `command f`).
    pub functions: &'a [String],
    /// Here-documents the command reads on its standard input.
    pub stdin: &'a [&'a Script],
}

/// Whether a command whose program is `program` (its directory stripped) may run more than
/// itself, and so needs more than the plain reading of its words.
pub(super) fn special(program: &str) -> bool {
    programs::kind(program).is_some() || crate::knowledge::registry().carries_code(program)
}

/// Emits into `out` what `cmd` (found at nesting `depth`) runs beyond itself.
pub(super) fn expand(
    cmd: &SimpleCommand,
    depth: usize,
    env: &Env<'_>,
    out: &mut Vec<SimpleCommand>,
) -> Res<()> {
    if cmd.argv.first().is_none_or(|w| w.dynamic) {
        return Ok(());
    }
    // Code its options carry (`sort --compress-program=sh`, `git -c core.pager=…`), and the
    // command its operands make, unless the analysis below reads the program itself (`time`,
    // `sudo`, `ssh` are wrappers it knows).
    let reading = crate::knowledge::Reading::of(cmd);
    let kind_known = programs::kind(cmd.program()).is_some();
    let command = reading.carried_command().filter(|_| !kind_known);
    for carried in reading.carried().into_iter().chain(command) {
        let run = Run::Script {
            text: carried.text,
            dynamic: carried.dynamic,
            origin: Origin::Payload,
            piped: carried.piped,
            same_shell: false,
            stdin: false,
        };
        emit(run, cmd, depth, env, out)?;
    }
    let Some(kind) = programs::kind(cmd.program()) else {
        return Ok(());
    };
    let runs = programs::runs(kind, cmd, env)?;
    for run in runs {
        emit(run, cmd, depth, env, out)?;
    }
    Ok(())
}

/// One thing a command runs.
#[derive(Debug)]
enum Run {
    /// A program and its arguments.
    Argv {
        argv: Vec<Word>,
        /// `NAME=value` given to it (`env X=1 cmd`).
        assignments: Vec<String>,
        /// It reads the wrapper's standard input (not so for `xargs`).
        piped: bool,
        /// It reads the here-documents the wrapper reads (not so for `xargs`, nor for what
        /// an interpreter reading its code from them runs).
        stdin: bool,
        origin: Origin,
    },
    /// A shell command line.
    Script {
        text: String,
        dynamic: bool,
        origin: Origin,
        piped: bool,
        /// Run by the same shell (`eval`): the enclosing functions are in scope.
        same_shell: bool,
        /// Its commands read the here-documents the command reads (`bash -c 'sh' <<EOF`).
        stdin: bool,
    },
    /// A command known only when it runs (its source text).
    Unknown { source: String, origin: Origin },
}

/// Where the operands of a command start: the first reading of its options, and a second one
/// when an unknown option may have taken the next word as its value (both are followed; the
/// second is charged to the budget).
fn starts(parsed: &Parsed, budget: &Budget) -> Res<Vec<usize>> {
    let mut starts = vec![parsed.operands];
    if let Some(alternative) = parsed.alternative {
        budget.alternative()?;
        starts.push(alternative);
    }
    Ok(starts)
}

/// The run of the words `argv[from..]` of a wrapper.
fn wrapped(cmd: &SimpleCommand, from: usize) -> Run {
    Run::Argv {
        argv: cmd.argv.get(from..).unwrap_or_default().to_vec(),
        assignments: Vec::new(),
        piped: cmd.piped,
        stdin: true,
        origin: Origin::Wrapped,
    }
}

/// A shell command line given as one word, run with the command's standard input.
fn script_of(word: &Word, origin: Origin, piped: bool) -> Run {
    Run::Script {
        text: word.value.clone(),
        dynamic: word.dynamic,
        origin,
        piped,
        same_shell: false,
        stdin: true,
    }
}

/// A shell command line made of words joined by blanks (`eval a b`, `ssh host a b`).
fn joined(words: &[Word], origin: Origin, piped: bool, same_shell: bool) -> Option<Run> {
    if words.is_empty() {
        return None;
    }
    let text = words
        .iter()
        .map(|w| w.value.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Some(Run::Script {
        text,
        dynamic: words.iter().any(|w| w.dynamic),
        origin,
        piped,
        same_shell,
        stdin: true,
    })
}
