//! The fast path: a line made only of plain words (letters, digits and a few punctuation
//! marks: no quotes, expansions, redirections or reserved words), alone or joined by blank-
//! separated `&&`, `||`, `;`, `&` and `|`, is simple commands whose words are its fields —
//! exactly what the full parse would give, without building a tree. What those commands run
//! beyond themselves (a wrapper's command, a payload: see [`super::expand`]) is added by the
//! same code the full analysis uses. Anything else goes to the parser.

use super::driver;
use super::walk::Ctx;
use super::{Analysis, Origin, SimpleCommand, Word};

/// Reserved words that make a line more than a simple command.
const RESERVED: [&str; 22] = [
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
];

/// Longest line the fast path reads: any line the analysis takes (it is linear in the line).
const MAX_PLAIN_LEN: usize = super::MAX_COMMAND_LEN;

fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b' ' | b'\t' | b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',' | b'+'
        )
}

/// The analysis of a plain command line, or `None` when it needs the parser.
pub fn plain_command(command: &str) -> Option<Analysis> {
    let top = Ctx {
        origin: Origin::TopLevel,
        piped: false,
        depth: 0,
    };
    let commands = plain_commands(command, top, &[])?;
    Some(driver::expand_plain(commands, top.depth))
}

/// The simple commands of a plain line found in `ctx` (as the walk would give them, before
/// their expansion), or `None` when it needs the parser. `functions` are the functions whose
/// definitions enclose it (for `self_call`).
pub(super) fn plain_commands(
    command: &str,
    ctx: Ctx,
    functions: &[String],
) -> Option<Vec<SimpleCommand>> {
    if command.len() > MAX_PLAIN_LEN
        || !command
            .bytes()
            .all(|b| plain(b) || matches!(b, b'|' | b'&' | b';' | b'~'))
    {
        return None;
    }
    let mut out = Vec::new();
    // The pipeline being read, and the words of its last command (with their offsets).
    let mut stages: Vec<SimpleCommand> = Vec::new();
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut ended = false;
    for (at, field) in fields(command) {
        if !field.contains(['|', '&', ';']) {
            words.push((at, field));
            continue;
        }
        match field {
            "|" => stages.push(simple(&words, ctx, functions)?),
            "&&" | "||" | ";" | "&" => {
                if words.is_empty() && stages.is_empty() {
                    return None;
                }
                stages.push(simple(&words, ctx, functions)?);
                end_pipeline(&mut stages, ctx, &mut out);
                ended = matches!(field, ";" | "&");
            }
            _ => return None,
        }
        words.clear();
    }
    if !words.is_empty() {
        stages.push(simple(&words, ctx, functions)?);
        end_pipeline(&mut stages, ctx, &mut out);
    } else if !stages.is_empty() || !ended {
        // A dangling `|`, `&&` or `||`, or nothing at all.
        return None;
    }
    Some(out)
}

/// The blank-separated fields of `line`, with their byte offsets.
fn fields(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        line.get(start..i).map(|f| (start, f))
    })
}

/// A finished pipeline: its commands, each a stage (`Pipeline`, piped after the first) when
/// there are several.
fn end_pipeline(stages: &mut Vec<SimpleCommand>, ctx: Ctx, out: &mut Vec<SimpleCommand>) {
    let several = stages.len() > 1;
    for (i, mut cmd) in stages.drain(..).enumerate() {
        if several {
            cmd.origin = Origin::Pipeline;
            cmd.piped = ctx.piped || i > 0;
        }
        out.push(cmd);
    }
}

/// One simple command of plain words (with their offsets), or `None` when the parser may read
/// them otherwise.
fn simple(words: &[(usize, &str)], ctx: Ctx, functions: &[String]) -> Option<SimpleCommand> {
    let (first_at, first) = *words.first()?;
    let (last_at, last) = *words.last()?;
    // Reserved words make a compound command.
    if RESERVED.contains(&first) || !words.iter().all(|(_, f)| plain_equals(f) && plain_tilde(f)) {
        return None;
    }
    let mut assignments = Vec::new();
    let mut argv = Vec::new();
    for (_, f) in words {
        if argv.is_empty() && is_assignment(f) {
            assignments.push(f.to_string());
        } else if argv.is_empty() && f.contains('=') {
            return None; // `_=`, `1a=b`: the parser decides what these are.
        } else {
            argv.push(Word {
                value: f.to_string(),
                dynamic: false,
                path: Some(plain_path(f).to_string()),
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
    let self_call = argv
        .first()
        .is_some_and(|w: &Word| functions.contains(&w.value));
    Some(SimpleCommand {
        assignments,
        argv,
        redirects: Vec::new(),
        origin: ctx.origin,
        piped: ctx.piped,
        self_call,
        span: (first_at, last_at + last.len()),
        evaluates: Vec::new(),
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

/// A `~` is plain only as the home folder the parser reads the same way: a word that is `~`
/// or starts with `~/`, with no other `~` in it (the parser keeps such a word as written, its
/// path the word itself). `~user`, `~+`, `a~` and `x=~/a` are left to the parser.
fn plain_tilde(word: &str) -> bool {
    match word.as_bytes() {
        [b'~'] => true,
        [b'~', b'/', rest @ ..] => !rest.contains(&b'~'),
        bytes => !bytes.contains(&b'~'),
    }
}

/// The path reading of a plain word: the value of `name=value` and `--flag=value` (see
/// [`super::Word::path`]).
fn plain_path(word: &str) -> &str {
    match word.split_once('=') {
        Some((name, value)) if super::assigned_name(name) => value,
        _ => word,
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
    use proptest::strategy::Strategy;

    /// The parser's analysis (no fast path).
    fn full(line: &str) -> Analysis {
        super::super::driver::analyse(line)
    }

    #[test]
    fn plain_lines_skip_the_parser_and_agree_with_it() {
        // The value of `name=value` is its path.
        let fast = plain_command("dd if=in.img of=/dev/null").expect("plain");
        assert_eq!(fast.commands[0].argv[1].path.as_deref(), Some("in.img"));
        assert_eq!(fast.commands[0].argv[2].path.as_deref(), Some("/dev/null"));
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
            "make PREFIX=/usr install",
            "cargo run --bin=x",
            "git status && git diff --stat",
            "cargo build && cargo test || echo failed",
            "ls -la | grep src | wc -l",
            "make clean ; make",
            "make ;",
            "sleep 5 &",
            "server & client",
            "a | b && c | d e ; f &",
            "A=1 x | B=2 y",
            "ls ~",
            "ls ~/",
            "cat ~/.ssh/id_rsa",
            "head -n 5 ~/notes.txt",
            "rm -rf ~/work",
            "cp ~/a ~/b/c.txt",
            "ls -la ~ && cat ~/.bashrc | wc -l",
            "cat ~//x ~/. ~/..",
            "git -C ~/src status",
            "sudo rm -rf ~/",
            "find ~ -name x",
        ] {
            let fast = plain_command(cmd).unwrap_or_else(|| panic!("plain: {cmd:?}"));
            assert_eq!(fast, full(cmd), "{cmd:?}");
        }
        let fast = plain_command("a | b && c").expect("plain");
        let origins: Vec<(Origin, bool)> =
            fast.commands.iter().map(|c| (c.origin, c.piped)).collect();
        assert_eq!(
            origins,
            vec![
                (Origin::Pipeline, false),
                (Origin::Pipeline, true),
                (Origin::TopLevel, false)
            ]
        );
        assert_eq!(fast.commands[2].span, (9, 10));
    }

    proptest::proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_parser_on_any_plain_line(line in "[a-zA-Z0-9 =_./:,+@%~-]{0,40}") {
            if let Some(fast) = plain_command(&line) {
                proptest::prop_assert_eq!(&fast, &full(&line));
            }
        }
    }

    /// Program names the full analysis treats specially, and ordinary ones.
    const PROGRAMS: &[&str] = &[
        "sudo",
        "doas",
        "env",
        "/usr/bin/env",
        "nice",
        "nohup",
        "timeout",
        "time",
        "command",
        "builtin",
        "exec",
        "xargs",
        "find",
        "watch",
        "ssh",
        "su",
        "bash",
        "sh",
        "eval",
        "source",
        ".",
        "python3",
        "python3.12",
        "perl",
        "node",
        "busybox",
        "flock",
        "git",
        "ls",
        "rm",
        "make",
        "cargo",
        "dd",
        "a",
        "x1",
    ];

    proptest::proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_parser_after_any_program(
            program in proptest::sample::select(PROGRAMS),
            rest in "[a-zA-Z0-9 =_./:,+~-]{0,30}",
        ) {
            let line = format!("{program} {rest}");
            if let Some(fast) = plain_command(&line) {
                proptest::prop_assert_eq!(&fast, &full(&line));
            }
        }

        #[test]
        fn the_fast_path_agrees_with_the_parser_on_plain_lists_and_pipelines(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(PROGRAMS).prop_map(str::to_string),
                    "[a-zA-Z0-9=_./:,+~-]{1,8}",
                    proptest::sample::select(&["~", "~/", "~/x", "~/.ssh/id_rsa", "~x", "~/a~"][..])
                        .prop_map(str::to_string),
                    proptest::sample::select(
                        &["|", "&&", "||", ";", "&", "|", "&&", "do", "!", ";;", "|&", "&&&"][..]
                    )
                    .prop_map(str::to_string),
                ],
                0..10,
            ),
            blanks in proptest::collection::vec(proptest::sample::select(&[" ", "  ", "\t"][..]), 10),
        ) {
            let mut line = String::new();
            for (i, part) in parts.iter().enumerate() {
                line.push_str(blanks[i % blanks.len()]);
                line.push_str(part);
            }
            if let Some(fast) = plain_command(&line) {
                proptest::prop_assert_eq!(&fast, &full(&line));
            }
        }
    }

    #[test]
    fn anything_shell_syntax_goes_to_the_parser() {
        for cmd in [
            "echo 'x'",
            "echo $HOME",
            "ls ~root",
            "ls ~+",
            "ls ~-",
            "ls ~~",
            "ls a~",
            "ls ~/a~b",
            "ls ~x/y",
            "x=~/a ls",
            "ls --dir=~/a",
            "~/bin/tool x",
            "ls *.rs",
            "a > b",
            "if x",
            "echo `x`",
            "a;b",
            "a&&b",
            "a |& b",
            "a && ",
            "| a",
            "a |",
            "; a",
            "a ; ; b",
            "a & ; b",
            ";",
            "a ;;",
            "a\nb",
            "# c",
            "",
            "a && done",
        ] {
            assert!(plain_command(cmd).is_none(), "{cmd:?}");
        }
    }

    #[test]
    fn what_plain_commands_run_is_added_as_the_parser_does() {
        for cmd in [
            "sudo rm -rf /",
            "/usr/bin/env X=1 rm",
            "nice -n 5 make",
            "timeout 10 cargo test",
            "xargs rm",
            "find . -exec rm x +",
            "bash script.sh",
            "sh -c ls",
            "eval ls",
            "eval rm -rf / && ls",
            "source venv/bin/activate",
            ". venv/bin/activate",
            "python3 -m http.server 8080",
            "python3.12 x.py",
            "perl -e print",
            "node x.js",
            "ssh host ls",
            "ssh host sudo rm -rf /",
            "watch ls",
            "su root",
            "busybox rm -rf /",
            "command rm x",
            "exec rm x",
            "ls | xargs rm -rf",
            "sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo sudo rm",
        ] {
            let fast = plain_command(cmd).unwrap_or_else(|| panic!("plain: {cmd:?}"));
            assert_eq!(fast, full(cmd), "{cmd:?}");
        }
        assert_eq!(
            plain_command("sudo rm -rf /").map(|a| a.commands.len()),
            Some(2)
        );
    }
}
