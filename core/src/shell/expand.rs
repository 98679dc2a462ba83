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
//! [`MAX_DEPTH`]; deeper is a failure of the whole analysis.

use std::cell::Cell;
use std::collections::VecDeque;

use super::driver::{self, too_deep, UNPARSABLE};
use super::fast;
use super::interp::{self, Lang, ShellOut};
use super::options::{self, Parsed, Spec};
use super::walk::Ctx;
use super::{Origin, SimpleCommand, Word, MAX_COMMAND_LEN, MAX_DEPTH};

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
    kind(program).is_some() || crate::knowledge::registry().carries_code(program)
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
    let kind_known = kind(cmd.program()).is_some();
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
    let Some(kind) = kind(cmd.program()) else {
        return Ok(());
    };
    let runs = match kind {
        Kind::Wrapper(w) => wrapper_runs(w, cmd, env)?,
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
    };
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

fn emit(
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
            let mut all = cmd.assignments.clone();
            all.extend(assignments);
            let self_call = argv
                .first()
                .is_some_and(|w| !w.dynamic && env.functions.contains(&w.value));
            let inner = SimpleCommand {
                assignments: all,
                argv,
                redirects: cmd.redirects.clone(),
                origin,
                piped,
                self_call,
                span: cmd.span,
            };
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
            let ctx = Ctx {
                origin,
                piped,
                depth,
            };
            let functions = if same_shell {
                env.functions.to_vec()
            } else {
                Vec::new()
            };
            // Its commands read what the command reads: here-documents and here-strings.
            let herestrings: Vec<Script> = cmd
                .redirects
                .iter()
                .filter(|r| stdin && r.op == "<<<" && r.fd.is_none_or(|fd| fd == 0))
                .map(|r| Script {
                    text: r.target.value.clone(),
                    dynamic: r.target.dynamic,
                })
                .collect();
            let mut inherited: Vec<&Script> = if stdin {
                env.stdin.to_vec()
            } else {
                Vec::new()
            };
            inherited.extend(herestrings.iter());
            // A plain payload (`bash -c 'ls -la && make'`) needs no parse: the fast path
            // gives the commands the walk would, expanded the same way.
            if let Some(plain) = fast::plain_commands(&text, ctx, &functions).filter(|_| !dynamic) {
                let pending = driver::plain_pending(&plain, depth, &functions);
                let commands = driver::expand_commands(
                    plain,
                    pending,
                    &[],
                    &inherited,
                    env.frames + 1,
                    env.budget,
                )?;
                out.extend(commands.into_iter().map(|mut c| {
                    c.span = cmd.span;
                    c
                }));
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
                    out.extend(commands.into_iter().map(|mut c| {
                        c.span = cmd.span;
                        c
                    }));
                }
                // A dynamic payload's text is not what runs; what it gives is only a hint,
                // and the payload is asked about below anyway.
                Err(reason) if dynamic && reason == UNPARSABLE => {}
                Err(reason) => return Err(reason),
            }
            // (`sh -c "$CMD"` already gave a command whose program is computed.)
            if dynamic && !asked {
                out.push(unknown(text, origin, cmd));
            }
            Ok(())
        }
        Run::Unknown { source, origin } => {
            out.push(unknown(source, origin, cmd));
            Ok(())
        }
    }
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

// ----- the programs -----

#[derive(Clone, Copy)]
enum Kind {
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

fn kind(program: &str) -> Option<Kind> {
    let wrapper = match program {
        "sudo" => Some(&SUDO),
        "doas" => Some(&DOAS),
        "command" => Some(&COMMAND),
        "builtin" | "nohup" | "coproc" | "eatmydata" | "catchsegv" | "nocache" | "firejail" => {
            Some(&PLAIN)
        }
        "exec" => Some(&EXEC),
        "nice" => Some(&NICE),
        "ionice" => Some(&IONICE),
        "time" => Some(&TIME),
        "timeout" => Some(&TIMEOUT),
        "stdbuf" => Some(&STDBUF),
        "chroot" => Some(&CHROOT),
        "strace" => Some(&STRACE),
        "ltrace" => Some(&LTRACE),
        "unbuffer" => Some(&UNBUFFER),
        "setsid" => Some(&SETSID),
        "taskset" => Some(&TASKSET),
        "pkexec" => Some(&PKEXEC),
        "gosu" | "su-exec" => Some(&GOSU),
        "chrt" => Some(&CHRT),
        "fakeroot" => Some(&FAKEROOT),
        "proxychains" | "proxychains4" => Some(&PROXYCHAINS),
        "torsocks" => Some(&TORSOCKS),
        "caffeinate" => Some(&CAFFEINATE),
        "xvfb-run" => Some(&XVFB_RUN),
        "dbus-run-session" => Some(&DBUS_RUN_SESSION),
        "unshare" => Some(&UNSHARE),
        "nsenter" => Some(&NSENTER),
        _ => None,
    };
    if let Some(w) = wrapper {
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

/// A program that runs the command written after its options (and `positional` operands).
struct Wrapper {
    spec: Spec,
    /// Operands before the command: `timeout DURATION`, `chroot DIR`, `taskset MASK`.
    positional: usize,
    /// Options with which nothing is run: `sudo -l`, `command -v`, `ionice -p`.
    no_run: &'static [&'static str],
    /// Options with which, given no command, it runs a shell reading its standard input
    /// (`sudo -s <<EOF`); `&[""]`: always (`chroot DIR <<EOF`).
    shell: &'static [&'static str],
}

const fn spec(
    short_value: &'static str,
    short_flags: &'static str,
    long_value: &'static [&'static str],
    long_flags: &'static [&'static str],
) -> Spec {
    Spec {
        short_value,
        short_optional: "",
        short_flags,
        short_ambiguous: "",
        long_value,
        long_optional: &[],
        long_flags,
        numeric: false,
    }
}

const fn wrapper(spec: Spec, positional: usize, no_run: &'static [&'static str]) -> Wrapper {
    Wrapper {
        spec,
        positional,
        no_run,
        shell: &[],
    }
}

const HELP: &[&str] = &["help", "version"];

static PLAIN: Wrapper = wrapper(spec("", "", &[], HELP), 0, &["help", "version"]);

static SUDO: Wrapper = Wrapper {
    spec: Spec {
        short_value: "aCcDgpRrTtUu",
        short_optional: "",
        short_flags: "ABbEeHiKklnPSsVv",
        short_ambiguous: "h",
        long_value: &[
            "auth-type",
            "close-from",
            "chdir",
            "group",
            "host",
            "login-class",
            "prompt",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "user",
        ],
        long_optional: &["preserve-env"],
        long_flags: &[
            "askpass",
            "background",
            "bell",
            "edit",
            "set-home",
            "help",
            "login",
            "remove-timestamp",
            "reset-timestamp",
            "list",
            "non-interactive",
            "preserve-groups",
            "stdin",
            "shell",
            "version",
            "validate",
        ],
        numeric: false,
    },
    positional: 0,
    shell: &["s", "i", "shell", "login"],
    no_run: &[
        "e",
        "l",
        "v",
        "V",
        "K",
        "edit",
        "list",
        "validate",
        "version",
        "remove-timestamp",
        "help",
    ],
};

static DOAS: Wrapper = Wrapper {
    shell: &["s"],
    ..wrapper(spec("Cu", "Lns", &[], &[]), 0, &["C", "L"])
};

static COMMAND: Wrapper = wrapper(spec("", "pVv", &[], &[]), 0, &["v", "V"]);

static EXEC: Wrapper = wrapper(spec("a", "cl", &[], &[]), 0, &[]);

static NICE: Wrapper = Wrapper {
    spec: Spec {
        short_value: "n",
        short_optional: "",
        short_flags: "",
        short_ambiguous: "",
        long_value: &["adjustment"],
        long_optional: &[],
        long_flags: HELP,
        numeric: true,
    },
    positional: 0,
    shell: &[],
    no_run: HELP,
};

static IONICE: Wrapper = wrapper(
    spec(
        "cnpPu",
        "tVh",
        &["class", "classdata", "pid", "pgid", "uid"],
        &["ignore", "help", "version"],
    ),
    0,
    &[
        "p", "P", "u", "pid", "pgid", "uid", "V", "h", "help", "version",
    ],
);

static TIME: Wrapper = wrapper(
    spec(
        "fo",
        "apqv",
        &["format", "output"],
        &[
            "append",
            "verbose",
            "quiet",
            "portability",
            "help",
            "version",
        ],
    ),
    0,
    HELP,
);

static TIMEOUT: Wrapper = wrapper(
    spec(
        "sk",
        "v",
        &["signal", "kill-after"],
        &[
            "foreground",
            "preserve-status",
            "verbose",
            "help",
            "version",
        ],
    ),
    1,
    HELP,
);

static STDBUF: Wrapper = wrapper(
    spec("ioe", "", &["input", "output", "error"], HELP),
    0,
    HELP,
);

static CHROOT: Wrapper = Wrapper {
    shell: &[""],
    ..wrapper(
        spec(
            "",
            "",
            &["userspec", "groups"],
            &["skip-chdir", "help", "version"],
        ),
        1,
        HELP,
    )
};

static STRACE: Wrapper = wrapper(
    spec(
        "abeEIoOpPsSuUX",
        "cCdDfFhikNqrtTvVwxyYzZ",
        &[
            "output",
            "trace",
            "signal",
            "status",
            "attach",
            "user",
            "string-limit",
            "env",
            "trace-path",
            "summary-sort-by",
        ],
        &[],
    ),
    0,
    &["h", "V"],
);

static LTRACE: Wrapper = wrapper(
    spec("aAeFlnopsuwxD", "bcCfhiLrStTV", &["output", "library"], &[]),
    0,
    &["h", "V"],
);

static UNBUFFER: Wrapper = wrapper(spec("", "p", &[], &[]), 0, &[]);

static SETSID: Wrapper = wrapper(
    spec(
        "",
        "cfwhV",
        &[],
        &["ctty", "fork", "wait", "help", "version"],
    ),
    0,
    &["h", "V", "help", "version"],
);

static TASKSET: Wrapper = wrapper(
    spec(
        "",
        "acphV",
        &[],
        &["all-tasks", "cpu-list", "pid", "help", "version"],
    ),
    1,
    &["p", "pid", "h", "V", "help", "version"],
);

static PKEXEC: Wrapper = wrapper(
    spec(
        "",
        "",
        &["user"],
        &["disable-internal-agent", "keep-cwd", "help", "version"],
    ),
    0,
    HELP,
);

static GOSU: Wrapper = wrapper(spec("", "", &[], &[]), 1, &[]);

static CHRT: Wrapper = wrapper(
    spec(
        "TPD",
        "abdefiImoprRvhV",
        &["sched-runtime", "sched-period", "sched-deadline"],
        &[
            "all-tasks",
            "batch",
            "deadline",
            "fifo",
            "idle",
            "max",
            "other",
            "pid",
            "rr",
            "reset-on-fork",
            "verbose",
            "help",
            "version",
        ],
    ),
    1,
    &["p", "m", "pid", "max", "h", "V", "help", "version"],
);

static FAKEROOT: Wrapper = wrapper(
    spec(
        "lsi",
        "uhv",
        &["lib", "faked"],
        &["unknown-is-real", "help", "version"],
    ),
    0,
    &["h", "v", "help", "version"],
);

static PROXYCHAINS: Wrapper = wrapper(spec("f", "q", &[], &[]), 0, &[]);

static TORSOCKS: Wrapper = wrapper(
    spec(
        "uapP",
        "idqh",
        &["user", "pass", "address", "port"],
        &["shell", "isolate", "debug", "quiet", "help", "version"],
    ),
    0,
    &["h", "help", "version"],
);

static CAFFEINATE: Wrapper = wrapper(spec("tw", "dimsu", &[], &[]), 0, &[]);

static XVFB_RUN: Wrapper = wrapper(
    spec(
        "efnpsw",
        "ah",
        &[
            "error-file",
            "auth-file",
            "server-num",
            "xauth-protocol",
            "server-args",
            "wait",
        ],
        &["auto-servernum", "help"],
    ),
    0,
    &["h", "help"],
);

static DBUS_RUN_SESSION: Wrapper = wrapper(
    spec(
        "",
        "",
        &["config-file", "dbus-daemon"],
        &["help", "version"],
    ),
    0,
    HELP,
);

static UNSHARE: Wrapper = Wrapper {
    spec: Spec {
        short_value: "SGRw",
        short_optional: "",
        short_flags: "muinpUCTfrcKlh",
        short_ambiguous: "",
        long_value: &[
            "propagation",
            "setgroups",
            "setuid",
            "setgid",
            "root",
            "wd",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
            "monotonic",
            "boottime",
        ],
        long_optional: &[
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "user",
            "cgroup",
            "time",
            "kill-child",
        ],
        long_flags: &[
            "fork",
            "map-root-user",
            "map-current-user",
            "map-auto",
            "mount-proc",
            "keep-caps",
            "load-interp",
            "help",
            "version",
        ],
        numeric: false,
    },
    positional: 0,
    shell: &[],
    no_run: &["h", "help", "version"],
};

static NSENTER: Wrapper = Wrapper {
    spec: Spec {
        short_value: "tSGrw",
        short_optional: "mutinpUCT",
        short_flags: "FZaeh",
        short_ambiguous: "",
        long_value: &["target", "setuid", "setgid", "root", "wd"],
        long_optional: &[
            "mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time",
        ],
        long_flags: &[
            "all",
            "no-fork",
            "follow-context",
            "preserve-credentials",
            "env",
            "help",
            "version",
        ],
        numeric: false,
    },
    positional: 0,
    shell: &[],
    no_run: &["h", "help", "version"],
};

/// The command of a wrapper, read both ways when an option is unknown.
fn wrapper_runs(w: &Wrapper, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let parsed = options::parse(&w.spec, &cmd.argv, 1);
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

// ----- env -----

const ENV: Spec = Spec {
    short_value: "uCPa",
    short_optional: "",
    short_flags: "i0v",
    short_ambiguous: "",
    long_value: &["unset", "chdir", "argv0"],
    long_optional: &["block-signal", "default-signal", "ignore-signal"],
    long_flags: &[
        "ignore-environment",
        "null",
        "debug",
        "list-signal-handling",
        "help",
        "version",
    ],
    numeric: false,
};

/// `env [options] [NAME=value]… [command [args]…]`, with `-S STRING` split into words.
fn env_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let argv = split_env_strings(&cmd.argv)?;
    let parsed = options::parse(&ENV, &argv, 1);
    if parsed.has("help") || parsed.has("version") || parsed.has("list-signal-handling") {
        return Ok(Vec::new());
    }
    let mut runs = Vec::new();
    for start in starts(&parsed, env.budget)? {
        let mut i = start;
        // `env -` is `env -i`.
        if argv.get(i).is_some_and(|w| w.value == "-") {
            i += 1;
        }
        let mut assignments = Vec::new();
        // Every word with a `=` is an assignment for env.
        while let Some(w) = argv.get(i).filter(|w| w.value.contains('=')) {
            assignments.push(w.value.clone());
            i += 1;
        }
        runs.push(Run::Argv {
            argv: argv.get(i..).unwrap_or_default().to_vec(),
            assignments,
            piped: cmd.piped,
            stdin: true,
            origin: Origin::Wrapped,
        });
    }
    Ok(runs)
}

/// The words of env's command line with each `-S STRING` (`--split-string`) replaced by the
/// words of the string, as env does before reading on.
fn split_env_strings(argv: &[Word]) -> Res<Vec<Word>> {
    let mut out: Vec<Word> = argv.iter().take(1).cloned().collect();
    let mut rest: VecDeque<Word> = argv.iter().skip(1).cloned().collect();
    let mut splits = 0;
    while let Some(w) = rest.pop_front() {
        let a = w.value.clone();
        if a == "--" || !a.starts_with('-') {
            out.push(w);
            out.extend(rest);
            return Ok(out);
        }
        // The string to split, if this word gives one.
        let mut split: Option<Word> = None;
        if let Some(long) = a.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if !name.is_empty() && "split-string".starts_with(name) {
                split = match attached {
                    Some(v) => Some(Word {
                        value: v.to_string(),
                        dynamic: w.dynamic,
                        path: None,
                    }),
                    None => rest.pop_front(),
                };
            } else {
                let takes_next =
                    attached.is_none() && ENV.long_value.iter().any(|l| l.starts_with(name));
                out.push(w);
                if takes_next {
                    out.extend(rest.pop_front());
                }
                continue;
            }
        } else {
            let cluster = &a[1..];
            let mut flags = String::new();
            let mut takes_next = false;
            for (pos, c) in cluster.char_indices() {
                let after = &cluster[pos + c.len_utf8()..];
                if c == 'S' {
                    split = if after.is_empty() {
                        rest.pop_front()
                    } else {
                        Some(Word {
                            value: after.to_string(),
                            dynamic: w.dynamic,
                            path: None,
                        })
                    };
                    break;
                }
                flags.push(c);
                if ENV.short_value.contains(c) {
                    flags.push_str(after);
                    takes_next = after.is_empty();
                    break;
                }
            }
            if split.is_none() {
                out.push(w);
                if takes_next {
                    out.extend(rest.pop_front());
                }
                continue;
            }
            if !flags.is_empty() {
                out.push(Word {
                    value: format!("-{flags}"),
                    dynamic: w.dynamic,
                    path: None,
                });
            }
        }
        if let Some(s) = split {
            splits += 1;
            if splits > MAX_SPLITS {
                return Err(too_complex());
            }
            for word in split_string(&s).into_iter().rev() {
                rest.push_front(word);
            }
        }
    }
    Ok(out)
}

/// The words of an `env -S` string: blanks separate, quotes group, `\` escapes (`\_` is a
/// blank), `#` at the start of a word begins a comment, `${NAME}` is dynamic.
fn split_string(s: &Word) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut dynamic = s.dynamic;
    let mut chars = s.value.chars().peekable();
    let finish =
        |current: &mut String, in_word: &mut bool, dynamic: &mut bool, words: &mut Vec<Word>| {
            if *in_word {
                words.push(Word {
                    path: (!*dynamic).then(|| current.clone()),
                    value: std::mem::take(current),
                    dynamic: *dynamic,
                });
            }
            *in_word = false;
            *dynamic = s.dynamic;
        };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' => {
                finish(&mut current, &mut in_word, &mut dynamic, &mut words)
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    current.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                current.push(unescape_split(e));
                            }
                        }
                        '$' if chars.peek() == Some(&'{') => {
                            dynamic = true;
                            current.push('$');
                        }
                        _ => current.push(q),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('c') => break,
                Some(e) => {
                    in_word = true;
                    current.push(unescape_split(e));
                }
                None => {}
            },
            '$' if chars.peek() == Some(&'{') => {
                in_word = true;
                dynamic = true;
                current.push('$');
            }
            _ => {
                in_word = true;
                current.push(c);
            }
        }
    }
    finish(&mut current, &mut in_word, &mut dynamic, &mut words);
    words
}

fn unescape_split(e: char) -> char {
    match e {
        '_' => ' ',
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'f' => '\x0c',
        'v' => '\x0b',
        other => other,
    }
}

// ----- other wrappers -----

/// `busybox APPLET args…`.
fn busybox_runs(cmd: &SimpleCommand) -> Vec<Run> {
    match cmd.argv.get(1) {
        Some(w) if !w.value.starts_with('-') => vec![wrapped(cmd, 1)],
        _ => Vec::new(),
    }
}

const XARGS: Spec = Spec {
    short_value: "aEIdLnPsJRS",
    short_optional: "eil",
    short_flags: "0oprtx",
    short_ambiguous: "",
    long_value: &[
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
    ],
    long_optional: &["eof", "replace", "max-lines"],
    long_flags: &[
        "null",
        "interactive",
        "no-run-if-empty",
        "verbose",
        "exit",
        "show-limits",
        "open-tty",
        "help",
        "version",
    ],
    numeric: false,
};

/// `xargs [options] [command [args]…]`: the command (`echo` by default) reads no pipe.
fn xargs_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let parsed = options::parse(&XARGS, &cmd.argv, 1);
    if parsed.has("help") || parsed.has("version") || parsed.has("show-limits") {
        return Ok(Vec::new());
    }
    let run = |from: usize| {
        let argv = match cmd.argv.get(from..) {
            Some(words) if !words.is_empty() => words.to_vec(),
            _ => vec![Word {
                value: "echo".to_string(),
                dynamic: false,
                path: Some("echo".to_string()),
            }],
        };
        Run::Argv {
            argv,
            assignments: Vec::new(),
            piped: false,
            stdin: false,
            origin: Origin::Wrapped,
        }
    };
    Ok(starts(&parsed, env.budget)?.into_iter().map(run).collect())
}

/// `find … -exec CMD … ;` (and `+`, `-execdir`, `-ok`, `-okdir`): each clause runs a command.
fn find_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let argv = &cmd.argv;
    let mut runs = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        if !matches!(
            argv[i].value.as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while let Some(w) = argv.get(end) {
            // `+` ends the clause only right after `{}`.
            if w.value == ";" || (w.value == "+" && end > start && argv[end - 1].value == "{}") {
                break;
            }
            end += 1;
        }
        runs.push(Run::Argv {
            argv: argv[start..end.min(argv.len())].to_vec(),
            assignments: Vec::new(),
            piped: cmd.piped,
            stdin: true,
            origin: Origin::Wrapped,
        });
        i = end + 1;
    }
    runs
}

const WATCH: Spec = Spec {
    short_value: "nq",
    short_optional: "d",
    short_flags: "bceCghprstwx",
    short_ambiguous: "",
    long_value: &["interval", "equexit", "shotsfile"],
    long_optional: &["differences"],
    long_flags: &[
        "beep", "color", "no-color", "errexit", "chgexit", "precise", "no-rerun", "no-title",
        "no-wrap", "exec", "help", "version",
    ],
    numeric: false,
};

/// `watch [options] command…`: the words joined are run by `sh -c`, or with `-x` as they are.
fn watch_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let parsed = options::parse(&WATCH, &cmd.argv, 1);
    if parsed.has("help") || parsed.has("version") {
        return Ok(Vec::new());
    }
    let mut runs = Vec::new();
    for start in starts(&parsed, env.budget)? {
        if parsed.has("x") || parsed.has("exec") {
            runs.push(wrapped(cmd, start));
        } else {
            let words = cmd.argv.get(start..).unwrap_or_default();
            runs.extend(joined(words, Origin::Payload, cmd.piped, false));
        }
    }
    Ok(runs)
}

const FLOCK: Spec = Spec {
    short_value: "wE",
    short_optional: "",
    short_flags: "sexnouFhV",
    short_ambiguous: "",
    long_value: &["timeout", "wait", "conflict-exit-code"],
    long_optional: &[],
    long_flags: &[
        "shared",
        "exclusive",
        "nonblock",
        "nb",
        "close",
        "unlock",
        "no-fork",
        "verbose",
        "help",
        "version",
    ],
    numeric: false,
};

/// `flock [options] FILE command…` or `flock [options] FILE -c STRING`.
fn flock_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let parsed = options::parse(&FLOCK, &cmd.argv, 1);
    let after_file = parsed.operands + 1;
    match cmd.argv.get(after_file).map(|w| w.value.as_str()) {
        Some("-c" | "--command") => cmd
            .argv
            .get(after_file + 1)
            .map(|w| script_of(w, Origin::Payload, cmd.piped))
            .into_iter()
            .collect(),
        Some(_) => vec![wrapped(cmd, after_file)],
        None => Vec::new(),
    }
}

/// The `-c` strings of `su`/`runuser` (options may follow the user name:
/// `su root -c 'id'`, `su -l deploy -c …`, `--command=…`, `--session-command …`).
fn su_commands(cmd: &SimpleCommand) -> Vec<Run> {
    let argv = &cmd.argv;
    let mut runs = Vec::new();
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let a = w.value.as_str();
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let command = name.len() >= 3
                && ("command".starts_with(name) || "session-command".starts_with(name));
            let valued = [
                "group",
                "supp-group",
                "shell",
                "whitelist-environment",
                "user",
            ]
            .iter()
            .any(|l| name.len() >= 2 && l.starts_with(name));
            match attached {
                Some(v) if command => runs.push(script_of(
                    &Word {
                        value: v.to_string(),
                        dynamic: w.dynamic,
                        path: None,
                    },
                    Origin::Payload,
                    cmd.piped,
                )),
                None if command => {
                    runs.extend(
                        argv.get(i + 1)
                            .map(|v| script_of(v, Origin::Payload, cmd.piped)),
                    );
                    i += 1;
                }
                None if valued => i += 1,
                _ => {}
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            let cluster = &a[1..];
            for (pos, c) in cluster.char_indices() {
                let rest = &cluster[pos + c.len_utf8()..];
                if "cgGswCu".contains(c) {
                    let value = if rest.is_empty() {
                        i += 1;
                        argv.get(i).cloned()
                    } else {
                        Some(Word {
                            value: rest.to_string(),
                            dynamic: w.dynamic,
                            path: None,
                        })
                    };
                    if c == 'c' {
                        runs.extend(value.map(|v| script_of(&v, Origin::Payload, cmd.piped)));
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    runs
}

/// `su [options] [-] [user]`: the `-c` strings, or the shell reading its standard input.
fn su_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
    let runs = su_commands(cmd);
    if runs.is_empty() {
        return stdin_scripts(cmd, env, Origin::Payload);
    }
    runs
}

const RUNUSER: Spec = Spec {
    short_value: "cgGsuwC",
    short_optional: "",
    short_flags: "flmpPhV",
    short_ambiguous: "",
    long_value: &[
        "command",
        "session-command",
        "group",
        "supp-group",
        "shell",
        "user",
        "whitelist-environment",
    ],
    long_optional: &[],
    long_flags: &[
        "fast",
        "login",
        "preserve-environment",
        "pty",
        "help",
        "version",
    ],
    numeric: false,
};

/// `runuser -u USER [--] command…`, or like `su`: `runuser USER -c STRING`.
fn runuser_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
    let parsed: Parsed = options::parse(&RUNUSER, &cmd.argv, 1);
    let mut runs = su_commands(cmd);
    if (parsed.has("u") || parsed.has("user")) && parsed.operands < cmd.argv.len() {
        runs.push(wrapped(cmd, parsed.operands));
    }
    if runs.is_empty() {
        return stdin_scripts(cmd, env, Origin::Payload);
    }
    runs
}

/// `sg [-] GROUP [-c] COMMAND`: the command is a shell string.
fn sg_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let mut i = 1;
    if cmd.argv.get(i).is_some_and(|w| w.value == "-") {
        i += 1;
    }
    i += 1; // the group
    if cmd.argv.get(i).is_some_and(|w| w.value == "-c") {
        i += 1;
    }
    joined(
        cmd.argv.get(i..).unwrap_or_default(),
        Origin::Payload,
        cmd.piped,
        false,
    )
    .into_iter()
    .collect()
}

const TYPESCRIPT: Spec = Spec {
    short_value: "cEIOBTmL",
    short_optional: "t",
    short_flags: "aefqhV",
    short_ambiguous: "",
    long_value: &[
        "command",
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
    ],
    long_optional: &["timing"],
    long_flags: &[
        "append", "return", "flush", "force", "quiet", "help", "version",
    ],
    numeric: false,
};

/// util-linux `script [options] -c COMMAND [file]`.
fn typescript_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let parsed = options::parse(&TYPESCRIPT, &cmd.argv, 1);
    parsed
        .value(&["c", "command"])
        .map(|w| script_of(w, Origin::Payload, cmd.piped))
        .into_iter()
        .collect()
}

// ----- shells -----

/// `bash [options] -c STRING`, `bash [options] FILE`, or a shell reading its standard input
/// (a here-document or here-string is then its script).
fn shell_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
    let argv = &cmd.argv;
    let mut command_mode = false;
    let mut stdin_mode = false;
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let a = w.value.as_str();
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file" | "emulate") {
                2
            } else {
                1
            };
            continue;
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            let mut takes = 0;
            for c in a[1..].chars() {
                match c {
                    'c' => command_mode = true,
                    's' => stdin_mode = true,
                    'o' | 'O' => takes += 1,
                    _ => {}
                }
            }
            i += 1 + takes;
            continue;
        }
        break;
    }
    let operand = argv.get(i);
    if command_mode {
        // `bash -c 'rm "$@"' _ -rf /`: the words after the code are `$0`, `$1`, …
        return operand
            .map(|w| {
                // A wrapper may add words when it runs (`xargs sh -c '…' _`).
                let more = cmd.origin == Origin::Wrapped;
                let code = with_positionals(w, argv.get(i + 1..).unwrap_or_default(), more);
                script_of(&code, Origin::Payload, cmd.piped)
            })
            .into_iter()
            .collect();
    }
    if let (false, Some(file)) = (stdin_mode, operand) {
        // `bash <(curl …)`, `sh "$f"`: a script that is only known when it runs.
        return if file.dynamic {
            vec![Run::Unknown {
                source: file.value.clone(),
                origin: Origin::Payload,
            }]
        } else {
            Vec::new()
        };
    }
    stdin_scripts(cmd, env, Origin::Payload)
}

/// The code of `sh -c CODE NAME ARG…` with its positional parameters (`$0`, `$1`…`$9`,
/// `${N}`, `$@`, `$*`) replaced by those words, each quoted, as the shell would give them. A
/// parameter with no word, or with a word a wrapper fills in (`{}` of `find -exec`), stays
/// as written: unknown; with `more`, words may follow the given ones (`"$@"` keeps a tail).
fn with_positionals(code: &Word, args: &[Word], more: bool) -> Word {
    if !code.value.contains('$') || args.is_empty() {
        return code.clone();
    }
    let quote = |w: &Word| -> String {
        let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%~".contains(c);
        if w.dynamic {
            // Its source text stays an expansion: the analysis sees it as unknown.
            format!("\"{}\"", w.value)
        } else if !w.value.is_empty()
            && w.value.chars().all(plain)
            && w.path.as_deref().is_some_and(|p| !p.starts_with("./~"))
        {
            // `~/x` stays a path from home, as the shell gave it.
            w.value.clone()
        } else {
            format!("'{}'", w.value.replace('\'', r"'\''"))
        }
    };
    let placeholder = |w: &Word| w.value.contains("{}");
    let mut text = code.value.clone();
    if !args.iter().skip(1).any(placeholder) {
        let mut given: Vec<String> = args.iter().skip(1).map(quote).collect();
        if more {
            given.push("\"$@\"".to_string());
        }
        // One pass: the words put in are not read again.
        for form in [
            "\"$@\"", "\"${@}\"", "\"$*\"", "\"${*}\"", "$@", "${@}", "$*", "${*}",
        ] {
            text = text.replace(form, "\u{1}");
        }
        text = text.replace('\u{1}', &given.join(" "));
    }
    for n in (0..=9).rev() {
        let Some(value) = args.get(n).filter(|w| !placeholder(w)).map(quote) else {
            continue;
        };
        for form in [
            format!("\"${n}\""),
            format!("\"${{{n}}}\""),
            format!("${{{n}}}"),
            format!("${n}"),
        ] {
            text = text.replace(&form, &value);
        }
    }
    Word {
        value: text,
        dynamic: code.dynamic || args.iter().any(|w| w.dynamic),
        path: None,
    }
}

/// The scripts a command reads on its standard input: here-documents, here-strings, and a
/// redirection from a file only known at run time (`bash < <(curl …)`).
fn stdin_scripts(cmd: &SimpleCommand, env: &Env<'_>, origin: Origin) -> Vec<Run> {
    let mut runs: Vec<Run> = env
        .stdin
        .iter()
        .map(|s| Run::Script {
            text: s.text.clone(),
            dynamic: s.dynamic,
            origin,
            piped: false,
            same_shell: false,
            stdin: false,
        })
        .collect();
    for r in &cmd.redirects {
        if r.fd.is_some_and(|fd| fd != 0) {
            continue;
        }
        match r.op.as_str() {
            "<<<" => runs.push(Run::Script {
                text: r.target.value.clone(),
                dynamic: r.target.dynamic,
                origin,
                piped: false,
                same_shell: false,
                stdin: false,
            }),
            "<" | "<>" if r.target.dynamic => runs.push(Run::Unknown {
                source: r.target.value.clone(),
                origin,
            }),
            _ => {}
        }
    }
    runs
}

/// `eval ARGS…`: the arguments joined, run by the same shell.
fn eval_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let mut words = cmd.argv.get(1..).unwrap_or_default();
    if words.first().is_some_and(|w| w.value == "--") {
        words = &words[1..];
    }
    joined(words, Origin::Payload, cmd.piped, true)
        .into_iter()
        .collect()
}

/// `source FILE`, `. FILE`: a file only known at run time (`<(curl …)`, `"$X"`) is asked about.
fn source_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let mut file = cmd.argv.get(1);
    if file.is_some_and(|w| w.value == "--") {
        file = cmd.argv.get(2);
    }
    match file {
        Some(w) if w.dynamic => vec![Run::Unknown {
            source: w.value.clone(),
            origin: Origin::Payload,
        }],
        _ => Vec::new(),
    }
}

const SSH: Spec = Spec {
    short_value: "BbcDEeFIiJLlmOoPpQRSWw",
    short_optional: "",
    short_flags: "46AaCfGgKkMNnqsTtVvXxYy",
    short_ambiguous: "",
    long_value: &[],
    long_optional: &[],
    long_flags: &[],
    numeric: false,
};

/// `ssh [options] HOST [command…]`: the words after the host (and options after it, which
/// OpenSSH also reads) joined are a command line for the remote shell.
fn ssh_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let first = options::parse(&SSH, &cmd.argv, 1);
    let host = first.operands;
    if host >= cmd.argv.len() {
        return Ok(Vec::new());
    }
    let after = options::parse(&SSH, &cmd.argv, host + 1);
    if [&first, &after]
        .iter()
        .any(|p| p.has("s") || p.has("N") || p.has("V") || p.has("G"))
    {
        return Ok(Vec::new());
    }
    if after.operands >= cmd.argv.len() {
        // No command: the remote shell reads its script from standard input.
        return Ok(stdin_scripts(cmd, env, Origin::Remote));
    }
    let mut runs = Vec::new();
    for start in starts(&after, env.budget)? {
        let words = cmd.argv.get(start..).unwrap_or_default();
        runs.extend(joined(words, Origin::Remote, cmd.piped, false));
    }
    Ok(runs)
}

// ----- interpreters -----

/// The shell-outs of an interpreter's code (`-c`, `-e`, …, or a script on its standard input).
fn interpreter_runs(lang: Lang, cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
    let inv = interp::invocation(lang, &cmd.argv);
    let mut codes: Vec<(String, bool)> = inv
        .codes
        .iter()
        .map(|w| (w.value.clone(), w.dynamic))
        .collect();
    if let Some(script) = &inv.script {
        // `python3 <(curl …)`: code only known when it runs.
        if script.dynamic && script.value.starts_with("<(") {
            return vec![Run::Unknown {
                source: script.value.clone(),
                origin: Origin::Interpreter,
            }];
        }
    }
    if inv.stdin {
        for run in stdin_scripts(cmd, env, Origin::Interpreter) {
            match run {
                Run::Script { text, dynamic, .. } => codes.push((text, dynamic)),
                other => return vec![other],
            }
        }
    }
    // Perl's and ruby's `-e` codes are lines of one program.
    if matches!(lang, Lang::Perl | Lang::Ruby) && codes.len() > 1 {
        let dynamic = codes.iter().any(|(_, d)| *d);
        let joined: Vec<String> = codes.drain(..).map(|(code, _)| code).collect();
        codes.push((joined.join("\n"), dynamic));
    }
    let mut runs = Vec::new();
    for (code, dynamic) in codes {
        let found = interp::shell_outs(lang, &code);
        // Code only known when it runs (`python -c "$(curl …)"`), or shell-outs in code the
        // shell changes before the interpreter reads it (`-e "system('rm $D')"`).
        let starts_dynamic = code.trim_start().starts_with(['$', '`']);
        if dynamic && (!found.is_empty() || starts_dynamic) {
            runs.push(Run::Unknown {
                source: code.clone(),
                origin: Origin::Interpreter,
            });
        }
        for shell_out in found {
            runs.push(match shell_out {
                ShellOut::Shell { text, dynamic } => Run::Script {
                    text,
                    dynamic,
                    origin: Origin::Interpreter,
                    piped: false,
                    same_shell: false,
                    stdin: !inv.stdin,
                },
                ShellOut::Argv(argv) => Run::Argv {
                    argv,
                    assignments: Vec::new(),
                    piped: false,
                    stdin: !inv.stdin,
                    origin: Origin::Interpreter,
                },
                ShellOut::Unknown(source) => Run::Unknown {
                    source,
                    origin: Origin::Interpreter,
                },
            });
        }
    }
    runs
}
