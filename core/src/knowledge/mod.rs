//! Program knowledge: what the programs a command line runs do with their options and
//! operands, kept as data in `policies/programs/*.toml` (one file per family of programs).
//!
//! The engine asks it one question above all: does this simple command only read? A program
//! is read-only only when its table says so, and a command only when every option it gives is
//! one the table knows to only read (long options read the way the program reads them: any
//! unambiguous prefix), every operand is in a role that only reads, and every path it reads
//! is known before it runs. Whatever the table does not know is not read-only.

mod carried;
pub mod effects;
#[cfg(test)]
mod entries;
pub(crate) mod interp;
mod load;
mod packed;
mod reading;
pub mod secrets;
mod sed;
mod state;
mod table;
mod values;
pub mod verbs;
pub mod wild;

pub use carried::{config_code, Carried};
pub use interp::Lang;
pub use load::{registry, Registry};
pub use reading::{Operand, Reading, Used, Value};
pub use sed::{awk_program, awk_writes, sed_io, SedIo};
pub use state::{changes_shell_state, line_values, STATE_VARIABLES};
pub use table::{
    Effect, Follow, Long, Operands, OptSpec, Program, Propose, Role, Runs, Style, Takes, Traits,
    WrapperTable,
};
pub use values::LineValues;

use crate::command::{Redirect, SimpleCommand, Word};

/// Whether a simple command only reads: its program is named literally (`ls`, not `./ls` or
/// `$X`) and its table says it is read-only with every option and operand given (see
/// [`Reading::reads_only`]); it assigns nothing but locale and display settings; and its
/// redirections only read known files or write to devices that show or discard output.
pub fn reads_only(cmd: &SimpleCommand) -> bool {
    reads_only_as(cmd, &Reading::of(cmd))
}

/// [`reads_only`] with the command's reading already made.
pub fn reads_only_as(cmd: &SimpleCommand, reading: &Reading<'_>) -> bool {
    if cmd.argv.is_empty() {
        return only_assigns(cmd);
    }
    plain_invocation(cmd)
        && cmd.redirects.iter().all(redirect_reads_only)
        && (reading.reads_only() || only_asks_version(cmd))
        // Printing a credential reads nothing but is no harmless read (`printenv`, `echo
        // "$GITHUB_TOKEN"`): the built-in rules deny it.
        && reading.prints(cmd).is_none()
        // `git blame ::ext::CMD`: a word the effects model reads as a URL that runs CMD.
        && effects::git_ext_url(cmd).is_none()
}

/// `x=1`, `n=$((n+1))`, a loop's variable: assignments alone change only the shell's variables,
/// which matter where a later word reads them (the line's values follow them there). Those that
/// change what names run or where paths lead are the shell state the line may not change (see
/// [`changes_shell_state`]); those bash runs as code (`PS4`, `PROMPT_COMMAND`) are not read-only.
fn only_assigns(cmd: &SimpleCommand) -> bool {
    !cmd.assignments.is_empty()
        && cmd.redirects.iter().all(redirect_reads_only)
        && cmd.assignments.iter().all(|a| {
            let name = a.split(['=', '+', '[']).next().unwrap_or(a);
            !STATE_VARIABLES.contains(&name) && !state::runs_code(name)
        })
}

/// The program named literally, with nothing but locale and display settings before it.
fn plain_invocation(cmd: &SimpleCommand) -> bool {
    cmd.argv
        .first()
        .is_some_and(|w| !w.dynamic && !w.value.contains('/'))
        && cmd.assignments.iter().all(|a| harmless_assignment(a))
}

/// Why the analysis cannot say what a command does whole, if it cannot: its program has no
/// table, its subcommand is no verb its table or the lexicon knows, an option its table does
/// not know is given, or it is a program run by a path outside the project. What the
/// knowledge reads whole (a read-only command, a table's verb, a grammar table's options and
/// operands, a program the effects model or the shell analysis reads) is known.
pub fn unknown_reason(
    cmd: &SimpleCommand,
    reading: &Reading<'_>,
    cwd: &std::path::Path,
) -> Option<String> {
    let first = cmd.argv.first()?;
    if first.dynamic || reads_only_as(cmd, reading) {
        return None;
    }
    let program = cmd.program();
    let shown = || {
        let words: Vec<&str> = cmd
            .argv
            .iter()
            .skip(1)
            .map(|w| w.value.as_str())
            .filter(|v| !v.starts_with('-'))
            .take(2)
            .collect();
        let more = cmd.argv.len() > 1 + words.len();
        let mut s = std::iter::once(program)
            .chain(words)
            .collect::<Vec<_>>()
            .join(" ");
        if more {
            s.push_str(" …");
        }
        s
    };
    if reading.verbs(cmd).is_some() {
        return None;
    }
    if verbs::table(program).is_some() {
        return Some(format!("harness9 does not know what `{}` does", shown()));
    }
    // A program that runs a command it is given (`find -exec`, `xargs`, `sudo`, a shell):
    // what it runs is judged on its own.
    if runs_other_code(program) {
        return None;
    }
    // A table that lists every option of a read-only program: what it does not know is not
    // known. (The tables of other programs list only the options that matter to them.)
    if let Some(table) = reading.program {
        if table.grammar && table.readonly {
            return reading
                .unknown
                .first()
                .map(|u| format!("{u} (`{}`)", shown()));
        }
        if table.grammar {
            return None;
        }
    }
    // A table of facts (`cp`, `mkdir`, `dd`): its files are read by their spelling, as the
    // effects model's file tools are (`tee`, `rm`).
    if registry().entry(program).is_some() || effects::targets::files_by_spelling(program) {
        return None;
    }
    // A program run by its path: the project's own (a script, a build's tool), or not known.
    if first.value.contains('/') {
        let at = std::path::Path::new(&first.value);
        let inside =
            at.is_relative() && !first.value.starts_with('~') && !first.value.contains("..")
                || at.starts_with(cwd);
        return (!inside).then(|| format!("harness9 does not know the program `{}`", first.value));
    }
    if SHELL_BUILTINS.contains(&program) || effects::knows(program) || runs_other_code(program) {
        return None;
    }
    Some(format!("harness9 does not know what `{}` does", shown()))
}

/// Whether `program` (its folder stripped) runs other commands or code it is given, as its
/// table's `runs` says: wrappers (`sudo`, `timeout`, …), `env`, `xargs`, `find`, shells,
/// `eval`, `source`, `ssh`, and the interpreters whose one-liners the analysis reads
/// (python, perl, ruby, node, deno, php). What it runs is decided on its own.
pub fn runs_other_code(program: &str) -> bool {
    registry().runs(program).is_some()
}

/// Whether knowledge other than the verb tables reads `program`: a table of the program
/// tables, the effects model's data, the shell analysis (wrappers, shells, interpreters), a
/// shell builtin, or the effects model's file tools.
pub fn read_otherwise(program: &str) -> bool {
    registry().entry(program).is_some()
        || effects::knows(program)
        || runs_other_code(program)
        || SHELL_BUILTINS.contains(&program)
        || effects::targets::files_by_spelling(program)
}

/// Builtins of bash that only change the shell itself (its options, its jobs, its loop), as far
/// as a single command line goes.
const SHELL_BUILTINS: [&str; 22] = [
    ":", "set", "shopt", "exit", "return", "break", "continue", "shift", "wait", "umask", "ulimit",
    "unalias", "jobs", "fg", "bg", "disown", "times", "caller", "history", "local", "readonly",
    "unset",
];

/// `PROG --version` prints what the program is, whatever program it is (named literally: a
/// program the line or the project put on `PATH` is caught by the analysis of shell state).
fn only_asks_version(cmd: &SimpleCommand) -> bool {
    matches!(cmd.argv.as_slice(), [_, v] if v.value == "--version" && !v.dynamic)
}

/// Whether a simple command writes no file, whatever its computed words turn out to be (see
/// [`Reading::writes_nothing`]): the guard on the policy's own files need not look at it.
pub fn writes_nothing(cmd: &SimpleCommand) -> bool {
    writes_nothing_as(cmd, &Reading::of(cmd))
}

/// [`writes_nothing`] with the command's reading already made.
pub fn writes_nothing_as(cmd: &SimpleCommand, reading: &Reading<'_>) -> bool {
    plain_invocation(cmd)
        && cmd
            .redirects
            .iter()
            .all(|r| !r.writes() || redirect_reads_only(r))
        && reading.writes_nothing()
}

/// What the tables say of `program` as a whole (its [`Traits`]), whether or not they describe
/// its command line; `None` for a program they do not name.
pub fn traits(program: &str) -> Option<Traits> {
    registry().entry(program).map(|p| p.traits)
}

/// How an "always allow" proposal may name `program` (its table's `propose` field): the exact
/// command only (`make`, `tmux`), the program alone (`mkdir`), or as the proposals' own rules
/// say.
pub fn propose(program: &str) -> Propose {
    traits(program).map(|t| t.propose).unwrap_or_default()
}

/// Whether every use of `program` runs code it is given that the shell analysis does not read
/// (its table's `runs_code` field: `awk`, `sed`, `lua`, `npx`).
pub fn runs_unread_code(program: &str) -> bool {
    traits(program).is_some_and(|t| t.runs_code)
}

/// Whether a program reads its `name=value` operands as a name and a value (`dd of=out.img`,
/// `make CC=clang`, `export X=1`: its table's `assignments` field). Every other program takes
/// such a word as it is written: `cp evil x=/tmp/.bashrc` writes `./x=/tmp/.bashrc`, which a
/// link named `x=` can send anywhere.
pub fn reads_assignments(program: &str) -> bool {
    traits(program).is_some_and(|t| t.assignments)
}

/// An operand of `cmd` with its path as the program reads it (see [`reads_assignments`]).
pub fn operand(cmd: &SimpleCommand, w: &Word) -> Word {
    if reads_assignments(cmd.program()) {
        w.clone()
    } else {
        w.clone().as_written()
    }
}

/// `LC_ALL=C`, `TZ=UTC`: settings that change how output looks, never what runs or is touched.
fn harmless_assignment(a: &str) -> bool {
    let Some((name, value)) = a.split_once('=') else {
        return false;
    };
    let known = matches!(
        name,
        "LANG" | "LANGUAGE" | "TZ" | "NO_COLOR" | "COLUMNS" | "LINES"
    ) || name.starts_with("LC_");
    known && !value.contains(['$', '`'])
}

fn redirect_reads_only(r: &Redirect) -> bool {
    let target = r.target.value.as_str();
    if r.op.is_here() {
        return true;
    }
    if r.duplicates_fd() {
        return true;
    }
    if r.target.dynamic || r.op == crate::command::RedirectOp::ReadWrite {
        return false;
    }
    if r.writes() {
        return r.writes_no_file();
    }
    plain_path(target)
}

/// Whether a static path names a file rather than something computed when the command runs:
/// `~+` and `~-` are the working folders, `/proc/*/cwd` and `/dev/fd/*` lead wherever a process
/// is, `/dev/tcp/…` opens a connection.
pub(crate) fn plain_path(p: &str) -> bool {
    let computed = ["~+", "~-"].iter().any(|t| {
        p.strip_prefix(t)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }) || ["/dev/fd/", "/dev/tcp/", "/dev/udp/", "/dev/stdin"]
        .iter()
        .any(|d| p.starts_with(d))
        || p.strip_prefix("/proc/").is_some_and(|rest| {
            rest.split('/')
                .any(|part| matches!(part, "cwd" | "root" | "fd" | "exe" | "map_files" | "fdinfo"))
        });
    !computed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::analyse;

    fn line_reads_only(line: &str) -> bool {
        let a = analyse(line);
        a.failure.is_none()
            && !a.commands.is_empty()
            && a.commands.iter().all(reads_only)
            && changes_shell_state(&a.commands).is_none()
    }

    /// The programs whose tables say `assignments`, and no others: `cp x=/tmp/a` is the path
    /// `./x=/tmp/a`, `dd of=/tmp/a` the path `/tmp/a`.
    #[test]
    fn only_the_tables_assignment_programs_read_name_value_operands_as_values() {
        let mut names: Vec<&str> = registry()
            .names()
            .filter(|n| reads_assignments(n))
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["dd", "declare", "env", "export", "gmake", "local", "make", "readonly", "typeset"]
        );
        for other in [
            "cp", "mv", "ln", "tee", "install", "tar", "sudo", "bash", "nosuch",
        ] {
            assert!(!reads_assignments(other), "{other}");
        }
    }

    /// Every table pins commands beside its entries: the read-only examples must read as
    /// read-only, the others not. This is where a table's mistakes show.
    #[test]
    fn every_table_example_reads_as_the_table_says() {
        let mut wrong = Vec::new();
        let mut count = 0;
        fn walk<'p>(p: &'p Program, out: &mut Vec<&'p Program>) {
            out.push(p);
            for s in p.sub.values() {
                walk(s, out);
            }
        }
        for program in registry().programs() {
            let mut nodes = Vec::new();
            walk(program, &mut nodes);
            for node in nodes {
                for e in &node.examples.readonly {
                    count += 1;
                    if !line_reads_only(e) {
                        wrong.push(format!(
                            "{}: `{e}` should be read-only: {:?}",
                            node.family,
                            why(e)
                        ));
                    }
                }
                for e in &node.examples.not_readonly {
                    count += 1;
                    if line_reads_only(e) {
                        wrong.push(format!("{}: `{e}` should not be read-only", node.family));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert!(count > 0);
    }

    fn why(line: &str) -> Vec<String> {
        analyse(line)
            .commands
            .iter()
            .flat_map(|c| Reading::of(c).unknown)
            .collect()
    }

    #[test]
    fn redirections_and_assignments_decide_too() {
        assert!(line_reads_only("pwd"));
        assert!(line_reads_only("LC_ALL=C pwd 2>/dev/null"));
        assert!(!line_reads_only("pwd > out.txt"));
        assert!(!line_reads_only("PATH=/tmp pwd"));
        assert!(!line_reads_only("./pwd"));
        assert!(!line_reads_only("pwd -x"));
        assert!(!line_reads_only("pwd < /dev/tcp/example.com/80"));
        assert!(line_reads_only("cat /proc/cpuinfo"));
        assert!(!line_reads_only("cat /proc/self/cwd/x"));
        assert!(!line_reads_only("cat /proc/1/root/etc/x"));
        assert!(line_reads_only("diff <(sort a.txt) <(sort b.txt)"));
        assert!(!line_reads_only("cat >(tee x)"));
        assert!(!line_reads_only("cat $(echo x)"));
    }
}
