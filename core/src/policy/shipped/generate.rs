//! Writes `rules.rs`, and checks that it holds what parsing the shipped policies gives.
//!
//! `UPDATE_SHIPPED=1 cargo test -p harness9-core shipped` writes it again.

use super::super::ast::*;
use super::super::{parse::parse_policy_without_expects, EMBEDDED};
use super::{fnv1a, tree, SHIPPED};
use crate::diag::Source;
use std::fmt::Write as _;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/policy/shipped/rules.rs");

/// The constant and function names of each shipped policy in `rules.rs`, in EMBEDDED's order.
const NAMES: [(&str, &str); 7] = [
    ("BUILTIN_HASH", "builtin"),
    ("DEFAULT_HASH", "default"),
    ("READONLY_HASH", "readonly"),
    ("CLAUDE_CODE_HASH", "claude_code"),
    ("GEMINI_CLI_HASH", "gemini_cli"),
    ("CODEX_HASH", "codex"),
    ("COPILOT_HASH", "copilot"),
];

fn parsed(name: &str, text: &str) -> Vec<Statement> {
    let (file, diags) = parse_policy_without_expects(&Source::new(name, text));
    assert!(diags.is_empty(), "{name} does not parse: {diags:?}");
    file.statements
}

fn generate() -> String {
    let mut out = String::from(
        "// @generated from policies/*.policy by `UPDATE_SHIPPED=1 cargo test -p harness9-core \
         shipped`.\n// Do not edit: edit the policy and generate this again.\n\n\
         //! The shipped policies' statements (`expect`s left out), one function each.\n\n\
         use crate::policy::ast::*;\nuse Action::*;\nuse MatcherKind::*;\nuse Risk::*;\n\n\
         fn sp(start: usize, end: usize) -> Span {\n    Span::new(start, end)\n}\n\n\
         fn st(value: &'static str, start: usize, end: usize) -> Spanned<Text> {\n    \
         Spanned::new(Text::Borrowed(value), sp(start, end))\n}\n",
    );
    for ((name, text), (hash, function)) in EMBEDDED.iter().zip(NAMES) {
        let statements = parsed(name, text);
        let _ = write!(
            out,
            "\npub(super) const {hash}: u64 = {:#018x};\n\npub(super) fn {function}(keep: &dyn Fn(&str) -> bool) -> Vec<Statement> {{\n    let mut s = Vec::with_capacity({});\n",
            fnv1a(text),
            statements.len()
        );
        for st in &statements {
            match st {
                Statement::Rule(r) => {
                    let _ = writeln!(
                        out,
                        "    if keep({:?}) {{ s.push({}); }}",
                        r.tool.value,
                        statement(st)
                    );
                }
                _ => {
                    let _ = writeln!(out, "    s.push({});", statement(st));
                }
            }
        }
        out.push_str("    s\n}\n");
    }
    out
}

fn statement(s: &Statement) -> String {
    match s {
        Statement::Rule(r) => format!(
            "Statement::Rule(Rule {{ action: {}, tool: {}, matchers: {}, unless: vec![{}], risk: {}, reason: {}, profile: {}, span: {} }})",
            spanned(&r.action),
            string(&r.tool),
            r.matchers.as_ref().map_or("None".into(), |m| format!("Some({})", matchers(m))),
            r.unless.iter().map(|g| matchers(g)).collect::<Vec<_>>().join(", "),
            option(r.risk.as_ref(), spanned),
            option(r.reason.as_ref(), string),
            option(r.profile.as_ref(), string),
            span(r.span),
        ),
        Statement::Default(d) => format!("Statement::Default({})", default(d)),
        Statement::Headless(d) => format!("Statement::Headless({})", default(d)),
        Statement::Include(i) => format!("Statement::Include({})", include(i)),
        Statement::Replace(i) => format!("Statement::Replace({})", include(i)),
        Statement::Protect(p) => format!(
            "Statement::Protect(Protect {{ path: {}, reason: {}, span: {} }})",
            string(&p.path),
            option(p.reason.as_ref(), string),
            span(p.span)
        ),
        Statement::Expect(_) => unreachable!("expects are left out"),
    }
}

fn matchers(ms: &[Matcher]) -> String {
    let each: Vec<String> = ms
        .iter()
        .map(|m| {
            format!(
                "Matcher {{ kind: {:?}, arg: {}, values: vec![{}], list: {}, span: {} }}",
                m.kind,
                option(m.arg.as_ref(), string),
                m.values.iter().map(string).collect::<Vec<_>>().join(", "),
                m.list,
                span(m.span)
            )
        })
        .collect();
    format!("vec![{}]", each.join(", "))
}

fn default(d: &DefaultStmt) -> String {
    format!(
        "DefaultStmt {{ action: {}, risk: {}, reason: {}, span: {} }}",
        spanned(&d.action),
        option(d.risk.as_ref(), spanned),
        option(d.reason.as_ref(), string),
        span(d.span)
    )
}

fn include(i: &Include) -> String {
    format!(
        "Include {{ path: {}, span: {} }}",
        string(&i.path),
        span(i.span)
    )
}

fn span(s: Span) -> String {
    format!("sp({}, {})", s.start, s.end)
}

fn spanned<T: std::fmt::Debug>(s: &Spanned<T>) -> String {
    format!("Spanned::new({:?}, {})", s.value, span(s.span))
}

fn string(s: &Spanned<Text>) -> String {
    format!("st({:?}, {}, {})", s.value, s.span.start, s.span.end)
}

fn option<T>(value: Option<&T>, show: fn(&T) -> String) -> String {
    value.map_or("None".into(), |v| format!("Some({})", show(v)))
}

#[test]
fn shipped_rules_are_generated_from_the_policies_compiled_in() {
    let want = generate();
    let have = std::fs::read_to_string(FILE).unwrap_or_default();
    if have != want && std::env::var_os("UPDATE_SHIPPED").is_some() {
        std::fs::write(FILE, &want).unwrap();
        return;
    }
    assert!(
        have == want && SHIPPED.iter().all(|(_, _, fresh, _)| *fresh),
        "core/src/policy/shipped/rules.rs is not what policies/*.policy give: run \
         `UPDATE_SHIPPED=1 cargo test -p harness9-core shipped` to write it again"
    );
}

/// Spans do not take part in equality, so the trees are compared with them written out.
#[test]
fn each_shipped_tree_is_the_parse_of_its_text_spans_included() {
    for (name, text) in EMBEDDED {
        let tree = tree(name, text, None).unwrap().statements;
        assert_eq!(
            format!("{tree:#?}"),
            format!("{:#?}", parsed(name, text)),
            "{name}"
        );
    }
}

#[test]
fn a_tree_for_one_tool_leaves_out_exactly_the_rules_no_call_of_it_meets() {
    for (name, text) in EMBEDDED {
        for tool in [
            "bash",
            "read_file",
            "edit_file",
            "mcp__github__create_issue",
        ] {
            let tree = tree(name, text, Some(tool)).unwrap().statements;
            let mut want = parsed(name, text);
            want.retain(|s| match s {
                Statement::Rule(r) => super::super::rule_meets(&r.tool.value, Some(tool)),
                _ => true,
            });
            assert_eq!(
                format!("{tree:#?}"),
                format!("{want:#?}"),
                "{name} for {tool}"
            );
        }
    }
}

#[test]
fn an_edited_text_gets_no_tree() {
    let (name, text) = EMBEDDED[0];
    let edited = format!("{text}\ndeny bash(\"x\");\n");
    assert!(tree(name, &edited, None).is_none());
    assert!(tree("team.policy", text, None).is_none());
    assert!(tree(name, text, None).is_some());
}
