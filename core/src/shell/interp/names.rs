//! The functions that run commands, per language, and how each names what it runs.

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
    /// arguments (`os.execvp`, `Deno.Command`, `proc_open`).
    Flatten,
    /// Perl and Ruby `open`: a pipe open (`"cmd |"`, `"| cmd"`, `"-|", "cmd"`) runs a command.
    Open,
    /// A call that does what a shell command does to its first argument, judged as that
    /// command: `shutil.rmtree(X)` as `rm -rf X`, `os.remove(X)` as `rm X`.
    Like(&'static [&'static str]),
}

/// When a call whose command is not a literal counts as a shell-out (not, say,
/// `asyncio.run(main())`).
#[derive(Debug, Clone, Copy)]
pub(super) enum Strength {
    Always,
    /// Only when called on one of these names (`subprocess.run`).
    Qualified(&'static [&'static str]),
    /// Literals only.
    Never,
}

/// A function that runs a command, by its name.
pub(super) struct CallName {
    pub(super) name: &'static str,
    pub(super) shape: Shape,
    pub(super) strength: Strength,
}

const fn call(name: &'static str, shape: Shape, strength: Strength) -> CallName {
    CallName {
        name,
        shape,
        strength,
    }
}

use Shape::*;
use Strength::*;

const OS: &[&str] = &["os", "posix"];
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
    call("execl", Flatten, Qualified(OS)),
    call("execle", Flatten, Qualified(OS)),
    call("execlp", Flatten, Qualified(OS)),
    call("execlpe", Flatten, Qualified(OS)),
    call("execv", Flatten, Qualified(OS)),
    call("execve", Flatten, Qualified(OS)),
    call("execvp", Flatten, Qualified(OS)),
    call("execvpe", Flatten, Qualified(OS)),
    call("spawnl", Flatten, Qualified(OS)),
    call("spawnle", Flatten, Qualified(OS)),
    call("spawnlp", Flatten, Qualified(OS)),
    call("spawnlpe", Flatten, Qualified(OS)),
    call("spawnv", Flatten, Qualified(OS)),
    call("spawnve", Flatten, Qualified(OS)),
    call("spawnvp", Flatten, Qualified(OS)),
    call("spawnvpe", Flatten, Qualified(OS)),
    call("posix_spawn", Flatten, Qualified(OS)),
    call("posix_spawnp", Flatten, Qualified(OS)),
    call("rmtree", Like(&["rm", "-rf"]), Always),
    call("remove", Like(&["rm"]), Qualified(OS)),
    call("unlink", Like(&["rm"]), Qualified(OS)),
    call("removedirs", Like(&["rm", "-r"]), Qualified(OS)),
    call("chmod", Like(&["chmod"]), Qualified(OS)),
];

const PERL_CALLS: &[CallName] = &[
    call("system", ShellOrArgv, Always),
    call("exec", ShellOrArgv, Always),
    call("readpipe", Shell, Always),
    call("open", Open, Never),
    call("rmtree", Like(&["rm", "-rf"]), Always),
    call("remove_tree", Like(&["rm", "-rf"]), Always),
    call("unlink", Like(&["rm"]), Always),
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
    call("rm_rf", Like(&["rm", "-rf"]), Always),
    call("rm_r", Like(&["rm", "-r"]), Always),
    call("remove_dir", Like(&["rm", "-r"]), Always),
    call("remove_entry", Like(&["rm", "-rf"]), Always),
    call("rmtree", Like(&["rm", "-rf"]), Always),
];

const NODE_CALLS: &[CallName] = &[
    call("exec", Shell, Always),
    call("execSync", Shell, Always),
    call("execFile", ProgramThenList, Always),
    call("execFileSync", ProgramThenList, Always),
    call("spawn", ProgramThenList, Always),
    call("spawnSync", ProgramThenList, Always),
];

/// Node's file system calls that delete, wherever `fs` came from (`require("fs").rmSync`).
const NODE_FS_CALLS: &[CallName] = &[
    call("rmSync", Like(&["rm", "-rf"]), Always),
    call("rmdirSync", Like(&["rm", "-rf"]), Always),
    call(
        "rm",
        Like(&["rm", "-rf"]),
        Qualified(&["fs", "fsp", "promises"]),
    ),
    call(
        "rmdir",
        Like(&["rm", "-rf"]),
        Qualified(&["fs", "fsp", "promises"]),
    ),
    call("unlinkSync", Like(&["rm"]), Always),
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

/// The tables of the functions that run commands in `code`, written in `lang`.
pub(super) fn tables(lang: Lang, code: &str) -> Vec<&'static [CallName]> {
    match lang {
        Lang::Python => vec![PYTHON_CALLS],
        Lang::Perl => vec![PERL_CALLS],
        Lang::Ruby => vec![RUBY_CALLS],
        // `exec` is also `RegExp.prototype.exec`: node's names count only with
        // `child_process` in sight.
        Lang::Node | Lang::Deno if code.contains("child_process") => {
            vec![NODE_CALLS, RUNTIME_CALLS, NODE_FS_CALLS]
        }
        Lang::Node | Lang::Deno => vec![RUNTIME_CALLS, NODE_FS_CALLS],
        Lang::Php => vec![PHP_CALLS],
    }
}
