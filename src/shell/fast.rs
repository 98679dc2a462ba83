//! The fast path: a command made only of plain words (letters, digits and a few punctuation
//! marks, no quotes, expansions, operators or reserved words) is one simple command whose words
//! are its blank-separated fields — exactly what the full parse would give, without building a
//! tree. Anything else goes to the parser.

use super::{Analysis, Origin, SimpleCommand, Word};

/// Reserved words that make a line more than a simple command.
const RESERVED: [&str; 22] = [
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
];

fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b' ' | b'\t' | b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',' | b'+'
        )
}

/// The analysis of a plain command line, or `None` when it needs the parser.
pub fn plain_command(command: &str) -> Option<Analysis> {
    if command.len() > 4096 || !command.bytes().all(plain) {
        return None;
    }
    let fields: Vec<&str> = command.split_ascii_whitespace().collect();
    let first = fields.first()?;
    // Reserved words make a compound command.
    if RESERVED.contains(first) || !fields.iter().all(|f| plain_equals(f)) {
        return None;
    }
    let mut assignments = Vec::new();
    let mut argv = Vec::new();
    for f in &fields {
        if argv.is_empty() && is_assignment(f) {
            assignments.push(f.to_string());
        } else if argv.is_empty() && f.contains('=') {
            return None; // `_=`, `1a=b`: the parser decides what these are.
        } else {
            argv.push(Word {
                value: f.to_string(),
                dynamic: false,
                path: Some(f.to_string()),
            });
        }
    }
    // Program names with other characters (`a@b`, `x%`) are left to the parser, which is the
    // reference for what this path returns.
    let program_ok = argv.first().is_none_or(|w| {
        w.value
            .starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/'))
            && w.value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-' | b'+'))
    });
    if !program_ok {
        return None;
    }
    let start = command.len() - command.trim_start().len();
    let cmd = SimpleCommand {
        assignments,
        argv,
        redirects: Vec::new(),
        origin: Origin::TopLevel,
        piped: false,
        self_call: false,
        span: (start, command.trim_end().len()),
    };
    Some(Analysis {
        commands: vec![cmd],
        failure: None,
    })
}

/// A word with `=` is plain only as `name=…`, `-n=…` or `--name=…` (the parser reads other
/// shapes, like `==` or `1=`, as test operators or fails on them).
fn plain_equals(word: &str) -> bool {
    match word.split_once('=') {
        None => true,
        Some((before, _)) => {
            let name = before.trim_start_matches('-');
            before.len() - name.len() <= 2
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_commands_skip_the_parser_and_agree_with_it() {
        for cmd in [
            "git status",
            "ls -la src/",
            "  cargo test --workspace  ",
            "FOO=1 BAR=x:y npm run test",
            "git commit -m fix",
            "rm -rf /",
            "kill -9 1234",
            "a=b",
            "x a=b",
            "python3 -m http.server 8080",
        ] {
            let fast = plain_command(cmd).expect("plain");
            let full = super::super::analyse::analyse(cmd);
            assert_eq!(full.failure, None, "{cmd}");
            assert_eq!(fast.commands.len(), full.commands.len(), "{cmd}");
            for (a, b) in fast.commands.iter().zip(&full.commands) {
                assert_eq!(a.argv, b.argv, "{cmd}");
                assert_eq!(a.assignments, b.assignments, "{cmd}");
                assert_eq!(a.redirects, b.redirects, "{cmd}");
                assert_eq!(a.piped, b.piped, "{cmd}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_parser_on_any_plain_line(line in "[a-zA-Z0-9 =_./:,+@%-]{0,40}") {
            if let Some(fast) = plain_command(&line) {
                let full = super::super::analyse::analyse(&line);
                proptest::prop_assert_eq!(&full.failure, &None);
                proptest::prop_assert_eq!(fast.commands.len(), full.commands.len());
                for (a, b) in fast.commands.iter().zip(&full.commands) {
                    proptest::prop_assert_eq!(&a.argv, &b.argv);
                    proptest::prop_assert_eq!(&a.assignments, &b.assignments);
                    proptest::prop_assert_eq!(&a.redirects, &b.redirects);
                }
            }
        }
    }

    #[test]
    fn anything_shell_syntax_goes_to_the_parser() {
        for cmd in [
            "a && b",
            "a | b",
            "echo 'x'",
            "echo $HOME",
            "ls ~",
            "ls *.rs",
            "a > b",
            "if x",
            "echo `x`",
            "a;b",
            "a\nb",
            "# c",
            "",
        ] {
            assert!(plain_command(cmd).is_none(), "{cmd:?}");
        }
    }
}
