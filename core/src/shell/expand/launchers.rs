//! Programs that run a command given their own way: `busybox`, `xargs`, `find -exec`,
//! `watch`, `flock`, `su -c`, `runuser`, `sg` and util-linux `script -c`.

use super::shells::stdin_scripts;
use super::{joined, script_of, starts, wrapped, Env, Res, Run};
use crate::command::options::{self, Parsed, Spec};
use crate::shell::{Origin, SimpleCommand, Word};

/// `busybox APPLET args…`.
pub(super) fn busybox_runs(cmd: &SimpleCommand) -> Vec<Run> {
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

/// The word that stands for what xargs reads and puts after its command's words.
pub(super) const XARGS_INPUT: &str = "<its input>";

/// `xargs [options] [command [args]…]`: the command (`echo` by default) reads no pipe.
pub(super) fn xargs_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
    let parsed = options::parse(&XARGS, &cmd.argv, 1);
    if parsed.has("help") || parsed.has("version") || parsed.has("show-limits") {
        return Ok(Vec::new());
    }
    // The items it reads go where the replacement string is (`-I {}`), or after the words:
    // they are known only when it runs, so the command is read with them as such.
    let replace = parsed
        .value(&["I", "replace"])
        .map(|w| w.value.clone())
        .or_else(|| (parsed.has("i") || parsed.has("replace")).then(|| "{}".to_string()));
    let input = Word {
        value: XARGS_INPUT.to_string(),
        dynamic: true,
        path: None,
    };
    let run = |from: usize| {
        let mut argv = match cmd.argv.get(from..) {
            Some(words) if !words.is_empty() => words.to_vec(),
            _ => vec![Word {
                value: "echo".to_string(),
                dynamic: false,
                path: Some("echo".to_string()),
            }],
        };
        match replace.as_deref().filter(|r| !r.is_empty()) {
            Some(r) => {
                for w in argv.iter_mut().skip(1) {
                    if w.value.contains(r) {
                        w.dynamic = true;
                        w.path = None;
                    }
                }
            }
            None => argv.push(input.clone()),
        }
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
pub(super) fn find_runs(cmd: &SimpleCommand) -> Vec<Run> {
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
pub(super) fn watch_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
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
pub(super) fn flock_runs(cmd: &SimpleCommand) -> Vec<Run> {
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
pub(super) fn su_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
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
pub(super) fn runuser_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
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
pub(super) fn sg_runs(cmd: &SimpleCommand) -> Vec<Run> {
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
pub(super) fn typescript_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let parsed = options::parse(&TYPESCRIPT, &cmd.argv, 1);
    parsed
        .value(&["c", "command"])
        .map(|w| script_of(w, Origin::Payload, cmd.piped))
        .into_iter()
        .collect()
}
