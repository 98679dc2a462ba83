//! The index only narrows which rules are checked: on random policies and random calls, the
//! indexed first match must be the rule a plain scan over every rule finds.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use harness9::engine::rule::{CommandView, FileView, Subject, Target};
use harness9::{Engine, PathContext};
use proptest::prelude::*;
use serde_json::Map;

const WORDS: [&str; 12] = [
    "git", "status", "log", "-p", "rm", "-rf", "x", "/bin/rm", "FOO=1", "sub/dir", "a.rs", "push",
];

fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(WORDS.to_vec())
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..=max).prop_map(|w| w.join(" "))
}

/// One matcher in the policy language, over the same small vocabulary as the calls.
fn matcher() -> impl Strategy<Value = String> {
    prop_oneof![
        text(2).prop_map(|t| format!("{t:?}")),
        text(2).prop_map(|t| format!("\"{t}*\"")),
        text(1).prop_map(|t| format!("\"*{t}*\"")),
        text(2).prop_map(|t| format!("prefix {t:?}")),
        text(2).prop_map(|t| format!("glob \"{t} *\"")),
        text(1).prop_map(|t| format!("contains {t:?}")),
        text(2).prop_map(|t| format!("exact {t:?}")),
        word().prop_map(|w| format!("program {w:?}")),
        word().prop_map(|w| format!("regex '^{}'", regex_escape(w))),
        prop::collection::vec(text(2), 1..3).prop_map(|v| format!(
            "prefix [{}]",
            v.iter()
                .map(|t| format!("{t:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Just("flag \"-r\"".to_string()),
        Just("path \"sub/**\"".to_string()),
        Just("\"*.rs\"".to_string()),
    ]
}

fn regex_escape(w: &str) -> String {
    w.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

fn rule() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["allow", "deny", "ask"]),
        prop::sample::select(vec!["bash", "read_file", "*", "ba*"]),
        prop::collection::vec(matcher(), 0..3),
        prop::option::of(matcher()),
    )
        .prop_map(|(a, tool, ms, unless)| {
            let args = if ms.is_empty() {
                String::new()
            } else {
                format!("({})", ms.join(", "))
            };
            let unless = unless.map(|u| format!(" unless {u}")).unwrap_or_default();
            format!("{a} {tool}{args}{unless};")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn indexed_first_match_equals_a_linear_scan(
        rules in prop::collection::vec(rule(), 1..40),
        commands in prop::collection::vec(text(4), 1..8),
        paths in prop::collection::vec(text(1), 1..4),
    ) {
        let ctx = PathContext::new("/w", Some("/h".into()));
        let policy = rules.join("\n");
        let engine = Engine::builder().context(ctx.clone()).builtin(false).policy_text("p.policy", policy.as_str()).build();
        let engine = match engine {
            Ok(e) => e,
            Err(e) => return Err(TestCaseError::fail(format!("generated policy did not load: {e}\n{policy}"))),
        };
        let chain = &engine.user_chains()[0];
        let args = Map::new();
        let mut scratch = Vec::new();
        for c in &commands {
            let analysis = harness9::shell::analyse(c);
            for cmd in &analysis.commands {
                let s = Subject { tool: "bash", args: &args, target: Target::Command(CommandView::new(cmd, &ctx)), ctx: Some(&ctx) };
                let fast = chain.first_match(&s, &mut scratch).map(|r| r.origin.rule.clone());
                let slow = chain.first_match_linear(&s).map(|r| r.origin.rule.clone());
                prop_assert_eq!(fast, slow, "command {:?}\npolicy:\n{}", c, policy);
            }
        }
        for p in &paths {
            let s = Subject { tool: "read_file", args: &args, target: Target::File(FileView::new(ctx.resolve(&p.replace(' ', "/")))), ctx: Some(&ctx) };
            let fast = chain.first_match(&s, &mut scratch).map(|r| r.origin.rule.clone());
            let slow = chain.first_match_linear(&s).map(|r| r.origin.rule.clone());
            prop_assert_eq!(fast, slow, "path {:?}\npolicy:\n{}", p, policy);
        }
    }
}
