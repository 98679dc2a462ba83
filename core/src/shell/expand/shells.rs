//! Shells and what they read: `bash -c STRING` (with its positional parameters), a script
//! on standard input, `eval`, `source`, and the remote command line of `ssh`.

use super::{joined, script_of, starts, Env, Res, Run};
use crate::command::options::{self, Spec};
use crate::shell::RedirectOp;
use crate::shell::{Origin, SimpleCommand, Word};

/// `bash [options] -c STRING`, `bash [options] FILE`, or a shell reading its standard input
/// (a here-document or here-string is then its script).
pub(super) fn shell_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
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
/// parameter with no word, or with a word a wrapper fills in (`{}` of `find -exec`, what
/// `xargs` reads), stays
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
    let placeholder = |w: &Word| w.value.contains("{}") || w.value == super::launchers::XARGS_INPUT;
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
        // A word left as its parameter (`$1`) is an expansion in the code, read as such.
        dynamic: code.dynamic || args.iter().any(|w| w.dynamic && !placeholder(w)),
        path: None,
    }
}

/// The scripts a command reads on its standard input: here-documents, here-strings, and a
/// redirection from a file only known at run time (`bash < <(curl …)`).
pub(super) fn stdin_scripts(cmd: &SimpleCommand, env: &Env<'_>, origin: Origin) -> Vec<Run> {
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
        match r.op {
            RedirectOp::HereString => runs.push(Run::Script {
                text: r.target.value.clone(),
                dynamic: r.target.dynamic,
                origin,
                piped: false,
                same_shell: false,
                stdin: false,
            }),
            RedirectOp::In | RedirectOp::ReadWrite if r.target.dynamic => runs.push(Run::Unknown {
                source: r.target.value.clone(),
                origin,
            }),
            _ => {}
        }
    }
    runs
}

/// `eval ARGS…`: the arguments joined, run by the same shell.
pub(super) fn eval_runs(cmd: &SimpleCommand) -> Vec<Run> {
    let mut words = cmd.argv.get(1..).unwrap_or_default();
    if words.first().is_some_and(|w| w.value == "--") {
        words = &words[1..];
    }
    joined(words, Origin::Payload, cmd.piped, true)
        .into_iter()
        .collect()
}

/// `source FILE`, `. FILE`: a file only known at run time (`<(curl …)`, `"$X"`) is asked about.
pub(super) fn source_runs(cmd: &SimpleCommand) -> Vec<Run> {
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
pub(super) fn ssh_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
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
