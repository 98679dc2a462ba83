//! `harness9 fmt`: formatting never changes what a policy means, formatting twice changes
//! nothing more, comments survive, and the shipped policies are formatted.
//!
//! Generated policies are printed in the canonical form, then messed up — random whitespace,
//! line breaks and comments between tokens, comments and blank lines between statements — and
//! formatted.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output, Stdio};

use harness9::diag::Source;
use harness9::policy::ast::{PolicyFile, Statement};
use harness9::policy::fmt::{format_policy, WIDTH};
use harness9::policy::parse_policy;
use harness9::policy::print::print_statement;
use proptest::prelude::*;

mod policy_gen;
use policy_gen::statement;

// ---- messing a policy up ------------------------------------------------------------------

/// The tokens of a canonically printed statement: strings, JSON objects (kept whole), words,
/// and punctuation, each with whether blank space separated it from the token before.
fn tokens(s: &str) -> Vec<(String, bool)> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut spaced = false;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        match c {
            ' ' => {
                spaced = true;
                i += 1;
                continue;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            '{' => {
                // A JSON object: whole, as whitespace or comments inside would reach serde_json.
                let mut depth = 0;
                while i < chars.len() {
                    match chars[i] {
                        '"' => {
                            i += 1;
                            while i < chars.len() && chars[i] != '"' {
                                if chars[i] == '\\' {
                                    i += 1;
                                }
                                i += 1;
                            }
                        }
                        '{' | '[' => depth += 1,
                        '}' | ']' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            '(' | ')' | '[' | ']' | ',' | ';' => i += 1,
            _ => {
                while i < chars.len() && !" \"'(){}[],;".contains(chars[i]) {
                    i += 1;
                }
            }
        }
        out.push((chars[start..i.min(chars.len())].iter().collect(), spaced));
        spaced = false;
    }
    out
}

const SEPARATORS: [&str; 7] = [
    " ",
    "  ",
    "\n",
    "\n    ",
    "\t",
    " # inner; 'note'\n",
    "\r\n",
];

/// A statement's text with each separator between its tokens chosen by `picks`: kept (one
/// space, or nothing), or any whitespace or a comment.
fn messy_statement(s: &Statement, picks: &[u8]) -> String {
    let printed = print_statement(s);
    let mut out = String::new();
    for (i, (tok, spaced)) in tokens(&printed).into_iter().enumerate() {
        if i > 0 {
            let p = picks.get(i % picks.len().max(1)).copied().unwrap_or(0) as usize;
            if p < SEPARATORS.len() && (spaced || p.is_multiple_of(2)) {
                out.push_str(SEPARATORS[p]);
            } else if spaced {
                out.push(' ');
            }
        }
        out.push_str(&tok);
    }
    out
}

/// Comments and blank lines between statements, and statements sharing a line.
fn between(pick: u8) -> &'static str {
    match pick % 8 {
        0 => "\n",
        1 => " ",
        2 => "\n\n\n",
        3 => " # trailing # comment\n",
        4 => "\n# own line\n",
        5 => "\n\n# paragraph\n\n",
        6 => "   \t\n",
        _ => "\n",
    }
}

fn messy_policy() -> impl Strategy<Value = (PolicyFile, String)> {
    prop::collection::vec(
        (
            statement(),
            prop::collection::vec(any::<u8>(), 1..24),
            any::<u8>(),
        ),
        0..7,
    )
    .prop_map(|items| {
        let mut text = String::new();
        let mut statements = Vec::new();
        for (s, picks, sep) in items {
            text.push_str(&messy_statement(&s, &picks));
            text.push_str(between(sep));
            statements.push(s);
        }
        (PolicyFile { statements }, text)
    })
}

fn parse_clean(text: &str) -> PolicyFile {
    let (file, diags) = parse_policy(&Source::new("t.policy", text));
    let msgs: Vec<_> = diags
        .iter()
        .map(|d| format!("{}: {}", d.location(), d.message))
        .collect();
    assert!(msgs.is_empty(), "diagnostics for\n{text}\n{msgs:#?}");
    file
}

fn fmt(text: &str) -> String {
    match format_policy(&Source::new("t.policy", text)) {
        Ok(s) => s,
        Err(d) => panic!(
            "not formatted:\n{text}\n{:#?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        ),
    }
}

/// Every comment of a text, in order (found by the formatter's own rules: `#` outside strings).
fn comments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '#' => {
                let start = i;
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
                out.push(
                    b[start..i]
                        .iter()
                        .collect::<String>()
                        .trim_end()
                        .to_string(),
                );
            }
            q @ ('"' | '\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != '\n' {
                    if q == '"' && b[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

// 256 cases each, proptest's default; `PROPTEST_CASES=100000` searches harder.
proptest! {
    #[test]
    fn formatting_keeps_the_meaning_and_is_idempotent((file, text) in messy_policy()) {
        let parsed = parse_clean(&text);
        prop_assert_eq!(&parsed, &file, "the messy text parses back: {}", text);
        let once = fmt(&text);
        prop_assert_eq!(parse_clean(&once), file, "formatted as\n{}", once);
        let twice = fmt(&once);
        prop_assert_eq!(&twice, &once, "formatting is idempotent");
        let mut before = comments(&text);
        let mut after = comments(&once);
        before.sort();
        after.sort();
        prop_assert_eq!(before, after, "every comment survives:\n{}", once);
        prop_assert!(!once.contains("\n\n\n"), "at most one blank line in a row:\n{}", once);
        prop_assert!(!once.starts_with('\n') && (once.is_empty() || once.ends_with('\n')));
        prop_assert!(!once.lines().any(|l| l.ends_with(' ')), "no trailing blanks:\n{}", once);
    }

    #[test]
    fn formatting_never_panics_on_arbitrary_text(text in any::<String>()) {
        let _ = format_policy(&Source::new("t.policy", text.as_str()));
    }
}

// ---- the command ----------------------------------------------------------------------------

fn run(args: &[&str], dir: &std::path::Path, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn fmt_rewrites_files_in_place_and_check_shows_the_diff_of_what_would_change() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.policy");
    let tidy = dir.path().join("tidy.policy");
    std::fs::write(
        &messy,
        "# team rules\nallow   bash( \"git *\" ) ; # git\n\n\n\ndeny read_file(\"x\");",
    )
    .unwrap();
    std::fs::write(&tidy, "allow read_file;\n").unwrap();
    let o = run(
        &["fmt", "--check", "messy.policy", "tidy.policy"],
        dir.path(),
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "--- messy.policy\n+++ messy.policy (formatted)\n@@ -1,6 +1,4 @@\n # team rules\n\
         -allow   bash( \"git *\" ) ; # git\n+allow bash(\"git *\"); # git\n \n-\n-\n\
         -deny read_file(\"x\");\n\\ No newline at end of file\n+deny read_file(\"x\");\n",
        "a unified diff of the file that would change, nothing of the tidy one"
    );
    assert!(
        std::fs::read_to_string(&messy)
            .unwrap()
            .contains("allow   bash"),
        "--check changes nothing"
    );
    let o = run(&["fmt", "messy.policy", "tidy.policy"], dir.path(), "");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "# team rules\nallow bash(\"git *\"); # git\n\ndeny read_file(\"x\");\n"
    );
    let o = run(
        &["fmt", "--check", "messy.policy", "tidy.policy"],
        dir.path(),
        "",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
}

#[test]
fn fmt_of_a_file_with_syntax_errors_changes_nothing_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.policy");
    let text = "allow  bash(\"ls\");\nalow bash(\"x\");\n";
    std::fs::write(&bad, text).unwrap();
    for args in [
        &["fmt", "bad.policy"][..],
        &["fmt", "--check", "bad.policy"],
    ] {
        let o = run(args, dir.path(), "");
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("unknown statement `alow`") && err.contains("not formatted"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&bad).unwrap(), text);
    }
    let o = run(&["fmt", "missing.policy"], dir.path(), "");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn fmt_dash_formats_standard_input_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        &["fmt", "-"],
        dir.path(),
        "allow bash( prefix \"ls\" )risk low;",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "allow bash(prefix \"ls\") risk low;\n"
    );
}

#[test]
fn long_rules_wrap_within_the_width() {
    let programs: Vec<String> = (0..40).map(|i| format!("\"prog{i}\"")).collect();
    let text = format!(
        "ask bash(program [{}], flag \"-r\") unless redirect \"/dev/null\" risk high reason \"a reason\";",
        programs.join(", ")
    );
    let out = fmt(&text);
    assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
    assert!(
        out.contains("\n    unless redirect \"/dev/null\"\n    risk high reason \"a reason\";\n"),
        "{out}"
    );
    assert_eq!(parse_clean(&out), parse_clean(&text));
}

/// The shipped policies are formatted: `harness9 fmt --check policies/*.policy` passes.
#[test]
fn the_shipped_policies_are_formatted() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut unformatted = Vec::new();
    for entry in std::fs::read_dir(format!("{root}/policies")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "policy") {
            let text = std::fs::read_to_string(&path).unwrap();
            if fmt(&text) != text {
                unformatted.push(path.display().to_string());
            }
        }
    }
    assert!(
        unformatted.is_empty(),
        "run `harness9 fmt` on: {unformatted:?}"
    );
}

/// Whatever their layout, formatting the shipped policies keeps their meaning and settles.
#[test]
fn formatting_the_shipped_policies_keeps_their_meaning() {
    for (name, text) in harness9::policy::EMBEDDED {
        let once = fmt(text);
        assert_eq!(parse_clean(&once), parse_clean(text), "{name}");
        assert_eq!(fmt(&once), once, "{name}");
        assert_eq!(comments(&once).len(), comments(text).len(), "{name}");
    }
}
