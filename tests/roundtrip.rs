//! The canonical printer and the parser agree: printing any valid policy and parsing the text
//! gives the same syntax tree back, with no diagnostics. Spans are ignored by the tree's
//! equality, so the generated trees use `Span::default()` everywhere.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use harness9::diag::Source;
use harness9::policy::{parse_policy, print_policy};
use proptest::prelude::*;

mod policy_gen;
use policy_gen::policy;

/// Words of the language and bits of its syntax, whitespace-separated.
const WORDS: &str = r#"allow deny ask default headless expect include replace protect risk reason unless low high arg prefix
    glob contains regex exact path program flag argument redirect piped self_call host bash mcp__x__*
    "git_*" '^a\s' {"url":1} -1.5e3 null"#;

/// Punctuation, and whitespace of every kind (a pasted no-break space included).
const PIECES: [&str; 18] = [
    "(", ")", "[", "]", "{", "}", ",", ":", ";", "\"", "'", "\\", "#", "\n", " ", "\t", "\u{a0}",
    "\u{2028}",
];

/// A soup of the language's tokens, to reach deeper into the parser than random text does.
fn policy_like_text() -> impl Strategy<Value = String> {
    let tokens: Vec<&str> = WORDS.split_whitespace().chain(PIECES).collect();
    let token = prop_oneof![
        3 => prop::sample::select(tokens).prop_map(str::to_string),
        1 => any::<String>(),
    ];
    prop::collection::vec(token, 0..40).prop_map(|ts| ts.concat())
}

// 256 cases each, proptest's default; `PROPTEST_CASES=100000` searches harder.
proptest! {
    #[test]
    fn printing_then_parsing_gives_the_same_policy(file in policy()) {
        let printed = print_policy(&file);
        let (parsed, diags) = parse_policy(&Source::new("roundtrip.policy", printed.as_str()));
        let messages: Vec<_> = diags.iter().map(|d| format!("{}: {}", d.location(), d.message)).collect();
        prop_assert!(messages.is_empty(), "diagnostics for\n{printed}\n{messages:#?}");
        prop_assert_eq!(parsed, file, "printed as\n{}", printed);
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in prop_oneof![any::<String>(), policy_like_text()]) {
        let _ = parse_policy(&Source::new("arbitrary.policy", text.as_str()));
    }
}
