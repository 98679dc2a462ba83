//! The wrappers an option table describes: `sudo`, `nice`, `timeout`, `chroot`, `strace`, …
//! run the command written after their options (and a fixed number of operands).

use super::shells::stdin_scripts;
use super::{starts, wrapped, Env, Res, Run};
use crate::command::options::{self, Spec};
use crate::shell::{Origin, SimpleCommand};

/// The wrapper `program` is, if it is one.
pub(super) fn of(program: &str) -> Option<&'static Wrapper> {
    match program {
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
    }
}

/// A program that runs the command written after its options (and `positional` operands).
pub(super) struct Wrapper {
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
pub(super) fn wrapper_runs(w: &Wrapper, cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
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
