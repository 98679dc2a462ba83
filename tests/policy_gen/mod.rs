//! Random policies as syntax trees, for the printer, parser and formatter tests
//! (`tests/roundtrip.rs`, `tests/fmt.rs`). Spans are ignored by the tree's equality, so every
//! node carries `Span::default()`.

#![allow(dead_code)]

use harness9::policy::ast::{
    Action, DefaultStmt, Expect, ExpectArg, ExpectCall, Include, Matcher, MatcherKind, PolicyFile,
    Protect, Risk, Rule, Span, Spanned, Statement,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// A value with no place in a source, as the type the syntax tree holds (a `String` as its
/// `Text`).
pub fn spanned<T, U: From<T>>(value: T) -> Spanned<U> {
    Spanned::new(value.into(), Span::default())
}

pub fn action() -> impl Strategy<Value = Action> {
    prop::sample::select(Action::ALL.to_vec())
}

/// The decision of a `default` or `headless` statement: not `sandbox` (only a rule contains).
pub fn default_action() -> impl Strategy<Value = Action> {
    prop::sample::select(vec![Action::Allow, Action::Deny, Action::Ask])
}

/// A sandbox profile's name.
pub fn profile() -> impl Strategy<Value = String> {
    prop::sample::select(
        harness9::sandbox::PROFILES
            .iter()
            .map(|p| p.name.to_string())
            .collect::<Vec<_>>(),
    )
}

pub fn risk() -> impl Strategy<Value = Risk> {
    prop::sample::select(Risk::ALL.to_vec())
}

/// Text that is awkward to quote and to scan: quotes of both kinds, backslashes, newlines, `;`
/// and `#` (which the statement splitter must skip inside strings), brackets, control
/// characters, non-ASCII, and any other char; sometimes long, so that lines wrap.
pub fn text() -> impl Strategy<Value = String> {
    let awkward = prop::sample::select(vec![
        '"', '\'', '\\', '\n', '\r', '\t', ';', '#', ' ', '*', '/', 'é', '→', '😀', '\u{2028}',
        '[', ']', '(', ')', ',', '\0', '\u{7f}',
    ]);
    let ch = prop_oneof![3 => awkward, 3 => proptest::char::range('a', 'z'), 1 => any::<char>()];
    prop_oneof![
        4 => prop::collection::vec(ch.clone(), 0..12),
        1 => prop::collection::vec(ch, 20..60),
    ]
    .prop_map(|cs| cs.into_iter().collect())
}

/// Words of the language, which names may also be.
pub fn keyword() -> impl Strategy<Value = String> {
    prop::sample::select(
        [
            "allow", "default", "headless", "expect", "include", "protect", "risk", "reason",
            "unless", "arg", "prefix", "piped", "high",
        ]
        .to_vec(),
    )
    .prop_map(str::to_string)
}

pub fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![4 => "[a-z_][a-z0-9_]{0,12}", 1 => keyword()]
}

pub fn tool_pattern() -> impl Strategy<Value = String> {
    prop_oneof![3 => tool_name(), 1 => "[a-z_*][a-z0-9_*]{0,12}"]
}

/// Argument names, some spelled like keywords (`arg prefix …`, `arg reason.code …`).
pub fn arg_name() -> impl Strategy<Value = String> {
    let dotted = (keyword(), "(\\.[a-z_][a-z0-9_]{0,4})?").prop_map(|(k, rest)| k + &rest);
    prop_oneof![4 => "[a-z_][a-z0-9_.]{0,10}", 1 => dotted]
}

pub fn matcher() -> impl Strategy<Value = Matcher> {
    let kind = prop::sample::select(
        MatcherKind::TABLE
            .iter()
            .map(|(k, ..)| *k)
            .collect::<Vec<_>>(),
    );
    // Mostly short lists; sometimes long ones, so that lists wrap.
    let values = prop_oneof![
        3 => prop::collection::vec(text(), 1..4),
        1 => prop::collection::vec(text(), 4..12),
    ];
    (kind, arg_name(), any::<bool>(), any::<bool>(), values).prop_map(
        |(kind, name, with_arg, list, values)| {
            let after_arg = MatcherKind::TABLE
                .iter()
                .any(|(k, _, _, a)| *k == kind && *a);
            let arg = (with_arg && after_arg).then(|| spanned(name));
            let (values, list) = match (kind.takes_value(), list) {
                (false, _) => (Vec::new(), false),
                (true, true) => (values, true),
                (true, false) => (values[..1].to_vec(), false),
            };
            Matcher {
                kind,
                arg,
                values: values.into_iter().map(spanned).collect(),
                list,
                span: Span::default(),
            }
        },
    )
}

pub fn rule() -> impl Strategy<Value = Rule> {
    (
        action(),
        tool_pattern(),
        prop::option::of(prop::collection::vec(matcher(), 0..4)),
        prop::collection::vec(prop::collection::vec(matcher(), 1..3), 0..3),
        prop::option::of(risk()),
        prop::option::of(text()),
        prop::option::of(profile()),
    )
        .prop_map(|(action, tool, matchers, unless, risk, reason, profile)| {
            // A `sandbox` rule is about `bash`, and only it names a profile.
            let sandbox = action == Action::Sandbox;
            Rule {
                action: spanned(action),
                tool: spanned(if sandbox { "bash".to_string() } else { tool }),
                matchers,
                unless,
                risk: risk.map(spanned),
                reason: reason.map(spanned),
                profile: profile.filter(|_| sandbox).map(spanned),
                span: Span::default(),
            }
        })
}

/// Any finite float: printed and read back exactly (serde_json's `float_roundtrip`).
fn finite_float() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |f| f.is_finite())
}

pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        finite_float().prop_map(Value::from),
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

pub fn expect_arg() -> impl Strategy<Value = ExpectArg> {
    prop_oneof![
        Just(ExpectArg::None),
        text().prop_map(ExpectArg::Primary),
        prop::collection::vec((text(), json_value()), 0..4)
            .prop_map(|kv| ExpectArg::Json(kv.into_iter().collect::<Map<_, _>>())),
    ]
}

/// `default …;` and `headless …;` share a shape.
fn default_like() -> impl Strategy<Value = DefaultStmt> {
    (
        default_action(),
        prop::option::of(risk()),
        prop::option::of(text()),
    )
        .prop_map(|(a, r, why)| DefaultStmt {
            action: spanned(a),
            risk: r.map(spanned),
            reason: why.map(spanned),
            span: Span::default(),
        })
}

pub fn statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        5 => rule().prop_map(Statement::Rule),
        1 => default_like().prop_map(Statement::Default),
        // A `headless` statement without its risk is an error.
        1 => (default_like(), risk()).prop_map(|(mut d, r)| {
            d.risk = Some(spanned(r));
            Statement::Headless(d)
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
        1 => Just(Statement::Replace(Include {
            path: spanned("default.policy".to_string()),
            span: Span::default(),
        })),
        1 => (text(), prop::option::of(text())).prop_map(|(p, why)| {
            Statement::Protect(Protect { path: spanned(p), reason: why.map(spanned), span: Span::default() })
        }),
    ]
}

pub fn policy() -> impl Strategy<Value = PolicyFile> {
    prop::collection::vec(statement(), 0..6).prop_map(|statements| PolicyFile { statements })
}
