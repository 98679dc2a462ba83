//! `env [options] [NAME=value]… [command [args]…]`: the command it runs, with each
//! `-S STRING` split into words as env splits it.

use std::collections::VecDeque;

use super::{starts, too_complex, Env, Res, Run, MAX_SPLITS};
use crate::command::options::{self, Spec};
use crate::shell::{Origin, SimpleCommand, Word};

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
pub(super) fn env_runs(cmd: &SimpleCommand, env: &Env<'_>) -> Res<Vec<Run>> {
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
        let option = match a.strip_prefix("--") {
            Some(long) => long_option(long, &w, &mut rest),
            None => short_options(&a[1..], &w, &mut rest),
        };
        match option {
            EnvOption::Keep { takes_next } => {
                out.push(w);
                if takes_next {
                    out.extend(rest.pop_front());
                }
            }
            EnvOption::Split { string, flags } => {
                out.extend(flags);
                if let Some(s) = string {
                    splits += 1;
                    if splits > MAX_SPLITS {
                        return Err(too_complex());
                    }
                    for word in split_string(&s).into_iter().rev() {
                        rest.push_front(word);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// What one option word of env's command line gives.
enum EnvOption {
    /// The word stays as it is, followed by its value when `takes_next`.
    Keep { takes_next: bool },
    /// `-S`/`--split-string`: the string to split (taken from the next word when not
    /// attached), and the options clustered before it (`-iS…` keeps `-i`).
    Split {
        string: Option<Word>,
        flags: Option<Word>,
    },
}

/// The long option `--long` (the word `w`); a value in the next word is taken from `rest`
/// when it is the string to split.
fn long_option(long: &str, w: &Word, rest: &mut VecDeque<Word>) -> EnvOption {
    let (name, attached) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    if !name.is_empty() && "split-string".starts_with(name) {
        let string = match attached {
            Some(v) => Some(Word {
                value: v.to_string(),
                dynamic: w.dynamic,
                path: None,
            }),
            None => rest.pop_front(),
        };
        return EnvOption::Split {
            string,
            flags: None,
        };
    }
    let takes_next = attached.is_none() && ENV.long_value.iter().any(|l| l.starts_with(name));
    EnvOption::Keep { takes_next }
}

/// The cluster of short options `-cluster` (the word `w`); a string to split in the next
/// word is taken from `rest`.
fn short_options(cluster: &str, w: &Word, rest: &mut VecDeque<Word>) -> EnvOption {
    let mut flags = String::new();
    let mut takes_next = false;
    let mut split: Option<Word> = None;
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
        return EnvOption::Keep { takes_next };
    }
    let flags = (!flags.is_empty()).then(|| Word {
        value: format!("-{flags}"),
        dynamic: w.dynamic,
        path: None,
    });
    EnvOption::Split {
        string: split,
        flags,
    }
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
