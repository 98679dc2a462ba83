//! Stand-ins for a command line that could not be parsed: its words and pieces, judged so that
//! a deny rule or a protected path still holds.

use crate::shell::{self, SimpleCommand, Word};

/// The most words of a command that could not be analysed judged one by one: as many as the
/// longest line the analysis takes can hold.
pub const MAX_PSEUDO_WORDS: usize = shell::MAX_COMMAND_LEN / 2;

/// Stand-ins for a command line that could not be analysed, judged like commands so that a
/// deny rule or a protected path still holds: its blank-separated words as written, and (when
/// they differ) the words as a shell would split them, quotes removed (`cat '~/.ssh/id_rsa'`
/// before a syntax error still names `~/.ssh`). Bash runs the lines before a syntax error.
///
/// A line of more words than [`MAX_PSEUDO_WORDS`] (a 10 MB line) keeps each word once, in the
/// order they first appear, so every path in it is still checked at the cost of its different
/// words; `None` when even those are too many to judge.
///
/// The line's pieces between `;`, `&`, `|`, parentheses, back-ticks and newlines are judged
/// too, each as the commands it parses into (or by its words when it does not parse), with
/// leading keywords and braces (`then`, `do`, `{`) dropped: a deny rule for one part of a
/// compound line still holds when the whole line cannot be parsed. So is the text inside each
/// pair of quotes, where code carried by `sh -c '…'`, `ssh host "…"` or `eval '…'` lives: a
/// deny rule for that code holds as it does when the code is written bare. Splitting ignores
/// quotes (and quotes ignore escapes), so it may find more pieces than the shell would; each
/// only adds a part to judge, and the strictest decision wins, so a piece can make a line
/// stricter, never looser.
pub fn pseudo_commands(command: &str) -> Option<Vec<SimpleCommand>> {
    let mut out = words_of(command)?;
    if command.len() <= MAX_PIECES_LEN {
        for piece in pieces(command).chain(quoted(command)).take(MAX_PIECES) {
            let analysis = shell::analyse(piece);
            match analysis.failure {
                None => out.extend(analysis.commands),
                Some(_) => out.extend(words_of(piece)?),
            }
        }
    }
    Some(out)
}

/// Lines longer than this are judged by their words only (analysing every piece of a huge
/// line would cost more than a decision may).
const MAX_PIECES_LEN: usize = 64 * 1024;
/// At most this many pieces of a line are analysed.
const MAX_PIECES: usize = 256;

/// A line's words as written, and (when they differ) as a shell would split them.
fn words_of(command: &str) -> Option<Vec<SimpleCommand>> {
    let as_written = pseudo_command(command.split_whitespace().map(str::to_string))?;
    let dequoted = pseudo_command(ShellWords {
        chars: command.chars(),
    })?;
    Some(if dequoted.argv == as_written.argv {
        vec![as_written]
    } else {
        vec![as_written, dequoted]
    })
}

/// The non-empty pieces of a line between control characters, keywords and braces dropped
/// from their start.
fn pieces(command: &str) -> impl Iterator<Item = &str> {
    const LEADING: [&str; 12] = [
        "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "coproc",
    ];
    command
        .split([';', '&', '|', '(', ')', '`', '\n'])
        .map(|piece| {
            let mut p = piece.trim();
            while let Some(k) = LEADING.iter().find(|k| {
                p.strip_prefix(**k)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
            }) {
                p = p[k.len()..].trim_start();
            }
            p.trim_end_matches(['{', '}', ' ', '\t'])
        })
        .filter(|p| !p.is_empty() && !matches!(*p, "fi" | "done" | "esac"))
}

/// The text between each pair of single or double quotes, trimmed, when not empty.
fn quoted(command: &str) -> impl Iterator<Item = &str> {
    let mut rest = command;
    std::iter::from_fn(move || loop {
        let open = rest.find(['\'', '"'])?;
        let q = rest[open..].chars().next()?;
        let inner = &rest[open + 1..];
        let close = inner.find(q)?;
        let text = inner[..close].trim();
        rest = &inner[close + 1..];
        if !text.is_empty() {
            return Some(text);
        }
    })
}

fn pseudo_command(words: impl Iterator<Item = String>) -> Option<SimpleCommand> {
    let mut argv: Vec<String> = Vec::new();
    let mut seen: Option<std::collections::HashSet<String>> = None;
    for w in words {
        match &mut seen {
            None => {
                argv.push(w);
                if argv.len() > MAX_PSEUDO_WORDS {
                    let mut set = std::collections::HashSet::new();
                    argv.retain(|w| set.insert(w.clone()));
                    seen = Some(set);
                }
            }
            Some(set) => {
                if set.insert(w.clone()) {
                    argv.push(w);
                }
            }
        }
        if seen.is_some() && argv.len() > MAX_PSEUDO_WORDS {
            return None;
        }
    }
    let argv: Vec<Word> = argv
        .into_iter()
        .map(|w| Word {
            path: Some(w.clone()),
            value: w,
            dynamic: false,
        })
        .collect();
    // Any word of a line that does not parse may be a file the line opens, whatever its
    // program (`echo k >> ~/.ssh/authorized_keys`, whose words `echo` would not have read as
    // paths): each is also read as a redirection's source.
    let redirects = argv
        .iter()
        .map(|w| shell::Redirect {
            op: shell::RedirectOp::In,
            fd: None,
            target: w.clone(),
            body: None,
        })
        .collect();
    Some(SimpleCommand {
        argv,
        redirects,
        ..Default::default()
    })
}

/// The words of a line as far as a shell would split them without a parse: quotes removed
/// (`'…'`, `"…"`, a backslash escapes the next character), split at unquoted blanks and at the
/// operators `;`, `&`, `|`, `(`, `)`, `<`, `>`.
struct ShellWords<'a> {
    chars: std::str::Chars<'a>,
}

impl Iterator for ShellWords<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let mut word = String::new();
        let mut started = false;
        let mut quote: Option<char> = None;
        while let Some(c) = self.chars.next() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"'), '\\') => word.extend(self.chars.next()),
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    started = true;
                }
                (None, '\\') => {
                    word.extend(self.chars.next());
                    started = true;
                }
                (None, c) if c.is_whitespace() || ";&|()<>".contains(c) => {
                    if started {
                        return Some(word);
                    }
                }
                (None, c) => {
                    word.push(c);
                    started = true;
                }
            }
        }
        started.then_some(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_inside_each_pair_of_quotes_is_a_piece() {
        let got: Vec<&str> = quoted(r#"sh -c 'a b' "c d" '' "open"#).collect();
        assert_eq!(
            got,
            ["a b", "c d"],
            "an empty pair is skipped, an open one ends the scan"
        );
        assert_eq!(quoted("x 'it''s'").collect::<Vec<_>>(), ["it", "s"]);
    }

    #[test]
    fn code_carried_in_quotes_is_judged_as_a_command_of_its_own() {
        // `{} reset` makes the line unparseable; the carried `ssh …` must still be judged
        // with `ssh` as its program, as it is when written bare.
        let parts = pseudo_commands("sh -c 'ssh reset {} reset'").expect("few words");
        assert!(
            parts.iter().any(|c| c.program() == "ssh"),
            "{:?}",
            parts
                .iter()
                .map(|c| c.program().to_string())
                .collect::<Vec<_>>()
        );
    }
}
