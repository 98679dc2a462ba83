//! The functions that run commands, per language, and how each names what it runs; the
//! functions that change files are in `files.rs`.

use super::files::{DENO_FILES, NODE_FILES, PERL_FILES, PHP_FILES, PYTHON_FILES, RUBY_FILES};
use super::Lang;

/// How a call's arguments name the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// A shell command line (a list is a program and its arguments).
    Shell,
    /// Perl and Ruby `system`/`exec`: one string is a shell command line, several are a
    /// program and its arguments.
    ShellOrArgv,
    /// Python's `subprocess` functions: a string is a command line, a list a program and its
    /// arguments (`shell=True` or not).
    StringOrList,
    /// Node's `spawn('rm', ['-rf', '/'])`, `execFile(…)`: a program, then a list.
    ProgramThenList,
    /// The strings of all the arguments, lists and objects flattened, are the program and its
    /// arguments (`Deno.Command`, `proc_open`).
    Flatten,
    /// As `Flatten`, but the second string is the program's own name (`argv[0]`), not an
    /// argument: `os.execl("/bin/sh", "sh", "-c", cmd)`, `os.execv(path, [name, …])`.
    Exec,
    /// Perl and Ruby `open`: a pipe open (`"cmd |"`, `"| cmd"`, `"-|", "cmd"`) runs a command;
    /// one for writing (`open(F, ">", P)`, `open(P, "w")`) changes a file.
    Open,
    /// A call that changes files as a shell command does, judged as that command:
    /// `shutil.rmtree(X)` as `rm -rf X`, `os.rename(A, B)` as `mv A B`, `open(P, "w")` as
    /// `tee P`.
    Like(Change),
}

/// A call that changes files: the shell command it equals, and where that command's operands
/// come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Change {
    /// The command before its operands (`rm -rf`, `chmod`, `tee`).
    pub(super) command: &'static [&'static str],
    /// The command's operands, in order.
    pub(super) operands: &'static [Operand],
    /// For a call that opens a file, the argument that says whether it writes: without a
    /// mode for writing it changes nothing.
    pub(super) mode: Option<Mode>,
}

/// Where one operand (or several) of the command a call equals comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operand {
    /// The argument at this position (keyword arguments and options objects aside).
    Arg(usize),
    /// Every argument from this position on, lists flattened: `unlink @files`,
    /// `FileUtils.rm_rf([a, b])`.
    From(usize),
    /// What the method is called on: `Path(X).unlink()`.
    Receiver,
}

/// How the call that opens a file says it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// A mode string at this position or under this keyword (`open(P, "w")`,
    /// `open(P, mode="a")`, `fopen($p, "w")`).
    Str(usize, &'static str),
    /// Flags at this position (`os.open(P, os.O_WRONLY)`, `fs.openSync(P, "w")`,
    /// `Deno.open(P, {write: true})`), a mode string too.
    Flags(usize),
    /// Always writes; appends when the argument at this position says so
    /// (`file_put_contents($p, $d, FILE_APPEND)`).
    AppendIf(usize),
}

/// The operands of the commonest shapes.
pub(super) const FIRST: &[Operand] = &[Operand::Arg(0)];
pub(super) const ALL: &[Operand] = &[Operand::From(0)];
pub(super) const TWO: &[Operand] = &[Operand::Arg(0), Operand::Arg(1)];
/// `os.chmod(P, M)` as `chmod M P`, `chown($p, $user)` as `chown USER P`.
pub(super) const SWAPPED: &[Operand] = &[Operand::Arg(1), Operand::Arg(0)];
/// Perl's and ruby's `chown UID, GID, FILES` as `chown UID FILES`.
pub(super) const OWNER_FILES: &[Operand] = &[Operand::Arg(0), Operand::From(2)];
/// `utime ATIME, MTIME, FILES` as `touch FILES`.
pub(super) const AFTER_TWO: &[Operand] = &[Operand::From(2)];
pub(super) const RECEIVER: &[Operand] = &[Operand::Receiver];
/// `Path(L).symlink_to(T)` as `ln -s T L`, `Path(P).chmod(M)` as `chmod M P`.
pub(super) const ARG_RECEIVER: &[Operand] = &[Operand::Arg(0), Operand::Receiver];
/// `Path(A).rename(B)` as `mv A B`.
pub(super) const RECEIVER_ARG: &[Operand] = &[Operand::Receiver, Operand::Arg(0)];

/// A file-changing call equal to `command` with `operands`.
pub(super) const fn like(command: &'static [&'static str], operands: &'static [Operand]) -> Shape {
    Shape::Like(Change {
        command,
        operands,
        mode: None,
    })
}

/// A call that opens the file its `operands` name, for writing when `mode` says so: `tee`.
pub(super) const fn opens(operands: &'static [Operand], mode: Mode) -> Shape {
    Shape::Like(Change {
        command: &["tee"],
        operands,
        mode: Some(mode),
    })
}

/// When a call whose command is not a literal counts as a shell-out (not, say,
/// `asyncio.run(main())`); a call that changes files counts only when it is strong.
#[derive(Debug, Clone, Copy)]
pub(super) enum Strength {
    Always,
    /// Only when called on one of these names (`subprocess.run`, `os.remove`), or by a name
    /// imported from one of them (`from os import remove`).
    Qualified(&'static [&'static str]),
    /// Literals only.
    Never,
    /// A function called by its name alone or on one of these names (php's `unlink(…)`, perl's
    /// `File::Copy::move`), not a method of something else (`$fs->remove(…)`).
    Function(&'static [&'static str]),
    /// A method of what it is called on (`Path(X).unlink()`), given `args` arguments by
    /// position (any number: `None`); with `path`, only on what is seen to be a path
    /// (`Path(…)`, `Pathname.new(…)`, a name given one): other objects have methods of the
    /// name (`str.replace`, `DataFrame.rename`, `Hash#delete`).
    Method {
        args: Option<usize>,
        path: bool,
    },
}

/// A function that runs a command, by its name.
pub(super) struct CallName {
    pub(super) name: &'static str,
    pub(super) shape: Shape,
    pub(super) strength: Strength,
}

pub(super) const fn call(name: &'static str, shape: Shape, strength: Strength) -> CallName {
    CallName {
        name,
        shape,
        strength,
    }
}

use Shape::*;
use Strength::*;

pub(super) const OS: &[&str] = &["os", "posix"];
const SUBPROCESS: &[&str] = &["subprocess", "sp"];

const PYTHON_CALLS: &[CallName] = &[
    call("system", Shell, Always),
    call("popen", Shell, Always),
    call("popen2", Shell, Always),
    call("popen3", Shell, Always),
    call("popen4", Shell, Always),
    call("getoutput", Shell, Always),
    call("getstatusoutput", Shell, Always),
    call("check_output", StringOrList, Always),
    call("check_call", StringOrList, Always),
    call("Popen", StringOrList, Always),
    call("run", StringOrList, Qualified(SUBPROCESS)),
    call("call", StringOrList, Qualified(SUBPROCESS)),
    call("spawn", Flatten, Qualified(&["pty"])),
    call("execl", Exec, Qualified(OS)),
    call("execle", Exec, Qualified(OS)),
    call("execlp", Exec, Qualified(OS)),
    call("execlpe", Exec, Qualified(OS)),
    call("execv", Exec, Qualified(OS)),
    call("execve", Exec, Qualified(OS)),
    call("execvp", Exec, Qualified(OS)),
    call("execvpe", Exec, Qualified(OS)),
    call("spawnl", Exec, Qualified(OS)),
    call("spawnle", Exec, Qualified(OS)),
    call("spawnlp", Exec, Qualified(OS)),
    call("spawnlpe", Exec, Qualified(OS)),
    call("spawnv", Exec, Qualified(OS)),
    call("spawnve", Exec, Qualified(OS)),
    call("spawnvp", Exec, Qualified(OS)),
    call("spawnvpe", Exec, Qualified(OS)),
    call("posix_spawn", Flatten, Qualified(OS)),
    call("posix_spawnp", Flatten, Qualified(OS)),
];

const PERL_CALLS: &[CallName] = &[
    call("system", ShellOrArgv, Always),
    call("exec", ShellOrArgv, Always),
    call("readpipe", Shell, Always),
    call("open", Open, Never),
];

const RUBY_CALLS: &[CallName] = &[
    call("system", ShellOrArgv, Always),
    call("exec", ShellOrArgv, Always),
    call("spawn", ShellOrArgv, Always),
    call("popen", ShellOrArgv, Always),
    call("popen2", ShellOrArgv, Always),
    call("popen2e", ShellOrArgv, Always),
    call("popen3", ShellOrArgv, Always),
    call("capture2", ShellOrArgv, Always),
    call("capture2e", ShellOrArgv, Always),
    call("capture3", ShellOrArgv, Always),
    call("pipeline", ShellOrArgv, Qualified(&["Open3"])),
    call("open", Open, Never),
];

const NODE_CALLS: &[CallName] = &[
    call("exec", Shell, Always),
    call("execSync", Shell, Always),
    call("execFile", ProgramThenList, Always),
    call("execFileSync", ProgramThenList, Always),
    call("spawn", ProgramThenList, Always),
    call("spawnSync", ProgramThenList, Always),
];

const RUNTIME_CALLS: &[CallName] = &[
    call("Command", Flatten, Qualified(&["Deno"])),
    call("run", Flatten, Qualified(&["Deno"])),
    call("spawn", Flatten, Qualified(&["Bun"])),
    call("spawnSync", Flatten, Qualified(&["Bun"])),
];

const PHP_CALLS: &[CallName] = &[
    call("system", Shell, Always),
    call("exec", Shell, Always),
    call("shell_exec", Shell, Always),
    call("passthru", Shell, Always),
    call("popen", Shell, Always),
    call("proc_open", Shell, Always),
    call("pcntl_exec", Flatten, Always),
];

/// The tables of the functions that run commands or change files in `code`, written in
/// `lang`.
pub(super) fn tables(lang: Lang, code: &str) -> Vec<&'static [CallName]> {
    match lang {
        Lang::Python => vec![PYTHON_CALLS, PYTHON_FILES],
        Lang::Perl => vec![PERL_CALLS, PERL_FILES],
        Lang::Ruby => vec![RUBY_CALLS, RUBY_FILES],
        // `exec` is also `RegExp.prototype.exec`: node's names count only with
        // `child_process` in sight.
        Lang::Node | Lang::Deno if code.contains("child_process") => {
            vec![NODE_CALLS, RUNTIME_CALLS, NODE_FILES, DENO_FILES]
        }
        Lang::Node | Lang::Deno => vec![RUNTIME_CALLS, NODE_FILES, DENO_FILES],
        Lang::Php => vec![PHP_CALLS, PHP_FILES],
    }
}
