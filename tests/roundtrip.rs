//! The canonical printer and the parser agree: printing any valid policy and parsing the text
//! gives the same syntax tree back, with no diagnostics. Spans are ignored by the tree's
//! equality, so the generated trees use `Span::default()` everywhere.

use harness9::diag::Source;
use harness9::policy::ast::{
    Action, DefaultStmt, Expect, ExpectArg, ExpectCall, Include, Matcher, MatcherKind, PolicyFile,
    Protect, Risk, Rule, Span, Spanned, Statement,
};
use harness9::policy::{parse_policy, print_policy};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn spanned<T>(value: T) -> Spanned<T> {
    Spanned::new(value, Span::default())
}

fn action() -> impl Strategy<Value = Action> {
    prop::sample::select(Action::ALL.to_vec())
}

fn risk() -> impl Strategy<Value = Risk> {
    prop::sample::select(Risk::ALL.to_vec())
}

/// Text that is awkward to quote: quotes of both kinds, backslashes, newlines, `;` and `#`
/// (which the statement splitter must skip inside strings), non-ASCII, and any other char.
fn text() -> impl Strategy<Value = String> {
    let awkward = prop::sample::select(vec![
        '"', '\'', '\\', '\n', '\r', '\t', ';', '#', ' ', '*', '/', 'é', '→', '😀', '\u{2028}',
        '\0', '\u{7f}',
    ]);
    let ch = prop_oneof![3 => awkward, 3 => proptest::char::range('a', 'z'), 1 => any::<char>()];
    prop::collection::vec(ch, 0..12).prop_map(|cs| cs.into_iter().collect())
}

/// Words of the language, which names may also be.
fn keyword() -> impl Strategy<Value = String> {
    prop::sample::select(
        [
            "allow", "default", "expect", "include", "protect", "risk", "reason", "unless", "arg",
            "prefix", "piped", "high",
        ]
        .to_vec(),
    )
    .prop_map(str::to_string)
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![4 => "[a-z_][a-z0-9_]{0,12}", 1 => keyword()]
}

fn tool_pattern() -> impl Strategy<Value = String> {
    prop_oneof![3 => tool_name(), 1 => "[a-z_*][a-z0-9_*]{0,12}"]
}

/// Argument names, some spelled like keywords (`arg prefix …`, `arg reason.code …`).
fn arg_name() -> impl Strategy<Value = String> {
    let dotted = (keyword(), "(\\.[a-z_][a-z0-9_]{0,4})?").prop_map(|(k, rest)| k + &rest);
    prop_oneof![4 => "[a-z_][a-z0-9_.]{0,10}", 1 => dotted]
}

fn matcher() -> impl Strategy<Value = Matcher> {
    let kind = prop::sample::select(
        MatcherKind::TABLE
            .iter()
            .map(|(k, ..)| *k)
            .collect::<Vec<_>>(),
    );
    (
        kind,
        arg_name(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(text(), 1..4),
    )
        .prop_map(|(kind, name, with_arg, list, values)| {
            let after_arg = MatcherKind::TABLE
                .iter()
                .any(|(k, _, _, a)| *k == kind && *a);
            let arg = (with_arg && after_arg).then(|| spanned(name));
            let (values, list) = match (kind.takes_value(), list) {
                (false, _) => (Vec::new(), false),
                (true, true) => (values, true),
                (true, false) => (values[..1].to_vec(), false),
            };
            let values = values.into_iter().map(spanned).collect();
            Matcher {
                kind,
                arg,
                values,
                list,
                span: Span::default(),
            }
        })
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        action(),
        tool_pattern(),
        prop::option::of(prop::collection::vec(matcher(), 0..4)),
        prop::collection::vec(prop::collection::vec(matcher(), 1..3), 0..3),
        prop::option::of(risk()),
        prop::option::of(text()),
    )
        .prop_map(|(action, tool, matchers, unless, risk, reason)| Rule {
            action: spanned(action),
            tool: spanned(tool),
            matchers,
            unless,
            risk: risk.map(spanned),
            reason: reason.map(spanned),
            span: Span::default(),
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        short_float().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Any finite float: printed and read back exactly (serde_json's `float_roundtrip`).
fn short_float() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |f| f.is_finite())
}

fn expect_arg() -> impl Strategy<Value = ExpectArg> {
    prop_oneof![
        Just(ExpectArg::None),
        text().prop_map(ExpectArg::Primary),
        prop::collection::vec((text(), json_value()), 0..4)
            .prop_map(|kv| ExpectArg::Json(kv.into_iter().collect::<Map<_, _>>())),
    ]
}

fn statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        4 => rule().prop_map(Statement::Rule),
        1 => (action(), prop::option::of(risk()), prop::option::of(text())).prop_map(|(a, r, why)| {
            Statement::Default(DefaultStmt {
                action: spanned(a),
                risk: r.map(spanned),
                reason: why.map(spanned),
                span: Span::default(),
            })
        }),
        2 => (action(), prop::option::of(risk()), tool_name(), expect_arg()).prop_map(|(a, r, tool, arg)| {
            Statement::Expect(Expect {
                action: spanned(a),
                risk: r.map(spanned),
                call: spanned(ExpectCall { tool, arg }),
                span: Span::default(),
            })
        }),
        1 => text().prop_map(|p| Statement::Include(Include { path: spanned(p), span: Span::default() })),
        1 => (text(), prop::option::of(text())).prop_map(|(p, why)| {
            Statement::Protect(Protect { path: spanned(p), reason: why.map(spanned), span: Span::default() })
        }),
    ]
}

fn policy() -> impl Strategy<Value = PolicyFile> {
    prop::collection::vec(statement(), 0..6).prop_map(|statements| PolicyFile { statements })
}

/// Words of the language and bits of its syntax, whitespace-separated.
const WORDS: &str = r#"allow deny ask default expect include protect risk reason unless low high arg prefix
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
