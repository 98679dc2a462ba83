//! `.harness9/settings.json`, the seed's format: `{"permissions": {"allow": [...], "deny": [...],
//! "ask": [...]}}` with entries like `"bash(git *)"`, `"read_file"`, `"bash(sudo *) risk high"`.
//!
//! Entries become ordinary rules of the policy language (a shorthand matcher), in the order deny,
//! allow, ask, with spans pointing into the JSON, so diagnostics, `explain` and lints treat them
//! like any other rule. An allow entry with a pattern does not cover a command that writes
//! through an output redirection to a file (see [`writes_a_file`]).

use std::sync::Arc;

use jsonc_parser::ast::{Array, Object, Value as JValue};

use crate::diag::{did_you_mean, Diagnostic, Source};
use crate::policy::ast::{Action, Matcher, MatcherKind, Risk, Rule, Span, Spanned};

/// Where the settings file lives, relative to the working folder.
pub const SETTINGS_PATH: &str = ".harness9/settings.json";

const LISTS: [(&str, Action); 3] = [
    ("deny", Action::Deny),
    ("allow", Action::Allow),
    ("ask", Action::Ask),
];

/// Parses a settings file into rules (deny, then allow, then ask) and every problem found.
pub fn parse_settings(source: &Arc<Source>) -> (Vec<Rule>, Vec<Diagnostic>) {
    let text = &*source.text;
    let mut diags = Vec::new();
    if text.trim().is_empty() {
        return (Vec::new(), diags);
    }
    // serde_json is the judge of what is valid JSON; jsonc-parser only locates the entries.
    if let Some(d) = strict_json_error(source) {
        diags.push(d);
        return (Vec::new(), diags);
    }
    let parsed = match jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()) {
        Ok(p) => p,
        Err(e) => {
            let r = e.range();
            diags.push(Diagnostic::error(
                source,
                "settings-json",
                Span::new(r.start, r.end),
                format!("invalid JSON: {}", e.kind()),
            ));
            return (Vec::new(), diags);
        }
    };
    let Some(root) = parsed.value.as_ref() else {
        return (Vec::new(), diags);
    };
    let Some(root) = root.as_object() else {
        diags.push(
            Diagnostic::error(
                source,
                "settings-shape",
                range(root),
                "settings must be a JSON object",
            )
            .help(
                "expected `{\"permissions\": {\"allow\": [...], \"deny\": [...], \"ask\": [...]}}`",
            ),
        );
        return (Vec::new(), diags);
    };
    // A misspelt `permissions` loses every rule under it: an error, not silence.
    if misspelt_permissions(source, root, &mut diags) {
        return (Vec::new(), diags);
    }
    let Some(perms) = root.get("permissions") else {
        return (Vec::new(), diags);
    };
    let Some(perms_obj) = perms.value.as_object() else {
        diags.push(
            Diagnostic::error(
                source,
                "settings-shape",
                range(&perms.value),
                "`permissions` must be an object",
            )
            .help(
                "expected `\"permissions\": {\"allow\": [...], \"deny\": [...], \"ask\": [...]}`",
            ),
        );
        return (Vec::new(), diags);
    };
    unknown_lists(source, perms_obj, &mut diags);
    let rules = rules_of_lists(source, perms_obj, &mut diags);
    (rules, diags)
}

/// The error serde_json reports when `source` is not strict JSON, pointing at where it stopped.
fn strict_json_error(source: &Arc<Source>) -> Option<Diagnostic> {
    let text = &*source.text;
    let e = serde_json::from_str::<serde_json::Value>(text).err()?;
    let offset = crate::diag::offset_of(text, e.line(), e.column());
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    Some(
        Diagnostic::error(
            source,
            "settings-json",
            Span::new(offset, (offset + 1).min(text.len())),
            format!("invalid JSON: {msg}"),
        )
        .help("settings.json is strict JSON: no comments, no trailing commas"),
    )
}

/// Says every top-level key but `permissions`; true when one is a misspelt `permissions`.
fn misspelt_permissions(source: &Arc<Source>, root: &Object, diags: &mut Vec<Diagnostic>) -> bool {
    // Other keys (a file shared with another tool: `model`, `env`) are said and left alone.
    let mut misspelt = false;
    for prop in &root.properties {
        let name = prop.name.as_str();
        if name == "permissions" || name == "$schema" {
            continue;
        }
        let span = Span::new(prop.range.start, prop.range.start + name.len() + 2);
        match did_you_mean(name, ["permissions"]) {
            Some(s) => {
                misspelt = true;
                diags.push(
                    Diagnostic::error(
                        source,
                        "settings-key",
                        span,
                        format!("unknown key `{name}`: its rules would be lost"),
                    )
                    .help(format!("did you mean `{s}`?")),
                );
            }
            None => diags.push(
                Diagnostic::warning(
                    source,
                    "settings-key",
                    span,
                    format!("harness9 ignores the key `{name}`"),
                )
                .help("harness9 reads `permissions` (`allow`, `deny` and `ask` lists)"),
            ),
        }
    }
    misspelt
}

/// Says every key under `permissions` that is not one of the lists.
fn unknown_lists(source: &Arc<Source>, perms_obj: &Object, diags: &mut Vec<Diagnostic>) {
    // Claude Code's own keys under `permissions` (a file copied from `.claude/`): said, and
    // left alone; any other unknown list would lose its rules, so it is an error.
    const CLAUDE_KEYS: [&str; 4] = [
        "defaultMode",
        "additionalDirectories",
        "disableBypassPermissionsMode",
        "disableAutoMode",
    ];
    for prop in &perms_obj.properties {
        let name = prop.name.as_str();
        if LISTS.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let span = Span::new(prop.range.start, prop.range.start + name.len() + 2);
        if CLAUDE_KEYS.contains(&name) {
            diags.push(
                Diagnostic::warning(
                    source,
                    "settings-key",
                    span,
                    format!("`{name}` is Claude Code's setting; harness9 ignores it"),
                )
                .help("harness9's modes are chosen with `--mode` (or Claude Code's own mode)"),
            );
            continue;
        }
        let help = match did_you_mean(name, LISTS.iter().map(|(n, _)| *n)) {
            Some(s) => format!("did you mean `{s}`?"),
            None => "the lists are `allow`, `deny` and `ask`".to_string(),
        };
        diags.push(
            Diagnostic::error(
                source,
                "settings-key",
                span,
                format!("unknown list `{name}`: its rules would be lost"),
            )
            .help(help),
        );
    }
}

/// The rules of the `deny`, `allow` and `ask` lists, in that order.
fn rules_of_lists(
    source: &Arc<Source>,
    perms_obj: &Object,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rule> {
    let mut rules = Vec::new();
    for (list, action) in LISTS {
        let Some(prop) = perms_obj.get(list) else {
            continue;
        };
        let Some(arr) = prop.value.as_array() else {
            diags.push(
                Diagnostic::error(
                    source,
                    "settings-shape",
                    range(&prop.value),
                    format!("`{list}` must be an array of strings"),
                )
                .help(format!(
                    "for example `\"{list}\": [\"bash(git *)\", \"read_file\"]`"
                )),
            );
            continue;
        };
        entries(source, arr, action, &mut rules, diags);
    }
    rules
}

fn entries(
    source: &Arc<Source>,
    arr: &Array,
    action: Action,
    rules: &mut Vec<Rule>,
    diags: &mut Vec<Diagnostic>,
) {
    for el in &arr.elements {
        let Some(s) = el.as_string_lit() else {
            diags.push(
                Diagnostic::error(
                    source,
                    "settings-shape",
                    range(el),
                    "a rule must be a string",
                )
                .help("write rules like `\"bash(git *)\"` or `\"read_file\"`"),
            );
            continue;
        };
        let span = Span::new(s.range.start, s.range.end);
        // Offsets inside the string are exact when it has no escapes; otherwise point at it whole.
        let raw = &source.text[(s.range.start + 1).min(s.range.end)
            ..s.range.end.saturating_sub(1).max(s.range.start)];
        let exact = raw == s.value;
        let at = |a: usize, b: usize| {
            if exact {
                Span::new(span.start + 1 + a, span.start + 1 + b)
            } else {
                span
            }
        };
        match parse_entry(&s.value) {
            Ok(e) => {
                let matchers = match e.pattern {
                    None => None,
                    Some((p, a, b)) => match keyword_matchers(&p, at(a, b)) {
                        Some(Ok(ms)) => Some(ms),
                        Some(Err(msg)) => {
                            diags.push(
                                Diagnostic::error(source, "settings-rule", at(a, b), msg).help(
                                    "write `exact 'the command'` or `prefix 'git commit'` in the parentheses",
                                ),
                            );
                            continue;
                        }
                        None => Some(vec![Matcher {
                            kind: MatcherKind::Shorthand,
                            arg: None,
                            values: vec![Spanned::new(p.into(), at(a, b))],
                            list: false,
                            span: at(a, b),
                        }]),
                    },
                };
                let unless = match &matchers {
                    Some(ms)
                        if action == Action::Allow
                            && !crate::call::is_file_tool(&e.tool)
                            && !allows_everything(ms) =>
                    {
                        vec![vec![writes_a_file(span)]]
                    }
                    _ => Vec::new(),
                };
                rules.push(Rule {
                    action: Spanned::new(action, span),
                    tool: Spanned::new(e.tool.into(), at(0, e.tool_end)),
                    matchers,
                    unless,
                    risk: e.risk.map(|(r, a, b)| Spanned::new(r, at(a, b))),
                    reason: None,
                    profile: None,
                    span,
                });
            }
            Err((msg, help, a, b)) => {
                diags.push(Diagnostic::error(source, "settings-rule", at(a, b), msg).help(help))
            }
        }
    }
}

/// An allow entry with a pattern (`bash(mkdir *)`, `bash(exact 'make dist')`) allows the
/// command, not a write through an output redirection to a file: `mkdir x > ~/.bashrc` is not
/// `mkdir x`, so it goes on to the other rules (the same `unless redirect "/**"` that
/// `readonly.policy` writes out). Redirections to `/dev/null` and the like write nothing and
/// do not count. An entry that allows everything (`bash`, `bash(*)`) keeps allowing everything.
fn writes_a_file(span: Span) -> Matcher {
    Matcher {
        kind: MatcherKind::Redirect,
        arg: None,
        values: vec![Spanned::new("/**".into(), span)],
        list: false,
        span,
    }
}

fn allows_everything(ms: &[Matcher]) -> bool {
    ms.iter().all(|m| {
        m.kind == MatcherKind::Shorthand
            && m.arg.is_none()
            && m.values.iter().all(|v| v.value.trim() == "*")
    })
}

/// The keyword forms `exact '…'` and `prefix '…'` of a pattern (the policy language's matchers,
/// for rules a shorthand cannot say: a substring is not an exact command). `None` for a plain
/// shorthand pattern.
fn keyword_matchers(pattern: &str, span: Span) -> Option<Result<Vec<Matcher>, String>> {
    let t = pattern.trim_start();
    let keyword = ["exact", "prefix"].into_iter().find(|k| {
        t.strip_prefix(k).is_some_and(|rest| {
            rest.trim_start().starts_with(['\'', '"']) && rest.starts_with(char::is_whitespace)
        })
    })?;
    let text = format!("allow x({pattern});");
    let source = Source::new("settings entry", text);
    let (file, diags) = crate::policy::parse::parse_policy(&source);
    if let Some(d) = diags.first() {
        return Some(Err(format!(
            "`{keyword}` needs one quoted string: {}",
            d.message
        )));
    }
    let Some(crate::policy::ast::Statement::Rule(rule)) = file.statements.into_iter().next() else {
        return Some(Err(format!("`{keyword}` needs one quoted string")));
    };
    let mut ms = rule.matchers.unwrap_or_default();
    for m in &mut ms {
        m.span = span;
        for v in &mut m.values {
            v.span = span;
        }
    }
    Some(Ok(ms))
}

struct Entry {
    tool: String,
    tool_end: usize,
    /// The pattern inside the parentheses with its offsets in the entry.
    pattern: Option<(String, usize, usize)>,
    risk: Option<(Risk, usize, usize)>,
}

/// `tool`, `tool(pattern)`, either followed by `risk <level>`.
fn parse_entry(s: &str) -> Result<Entry, (String, String, usize, usize)> {
    let lead = s.len() - s.trim_start().len();
    let body = s.trim();
    let (tool_end, pattern, rest_start) = match body.find('(') {
        Some(open) => {
            let close = body.rfind(')').filter(|c| *c > open).ok_or_else(|| {
                (
                    format!("`{body}` has no closing `)`"),
                    "write `tool(pattern)`, e.g. `bash(git *)`".to_string(),
                    lead + open,
                    lead + body.len(),
                )
            })?;
            let inner = &body[open + 1..close];
            let pattern =
                (!inner.is_empty()).then(|| (inner.to_string(), lead + open + 1, lead + close));
            (open, pattern, close + 1)
        }
        None => {
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            (end, None, end)
        }
    };
    let tool = body[..tool_end].trim_end().to_string();
    let tool_ok = !tool.is_empty()
        && tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '?'));
    if !tool_ok {
        return Err((
            format!("`{tool}` is not a tool name"),
            "a rule starts with a tool name: `bash`, `read_file`, `mcp__github__*`".into(),
            lead,
            lead + tool_end,
        ));
    }
    let rest = &body[rest_start..];
    let mut risk = None;
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        [] => {}
        ["risk", level] => {
            let a = lead + rest_start + rest.find(level).unwrap_or(0);
            match Risk::parse(level) {
                Some(r) => risk = Some((r, a, a + level.len())),
                None => {
                    let help = match did_you_mean(level, ["high", "medium", "low"]) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "a risk is `high`, `medium` or `low`".into(),
                    };
                    return Err((format!("unknown risk `{level}`"), help, a, a + level.len()));
                }
            }
        }
        _ => {
            let a = lead + rest_start + (rest.len() - rest.trim_start().len());
            return Err((
                format!("unexpected `{}` after the rule", rest.trim()),
                "only `risk high|medium|low` may follow a rule".into(),
                a,
                lead + body.len(),
            ));
        }
    }
    Ok(Entry {
        tool,
        tool_end: lead + tool_end,
        pattern,
        risk,
    })
}

fn range(v: &JValue) -> Span {
    let r = match v {
        JValue::StringLit(x) => x.range,
        JValue::NumberLit(x) => x.range,
        JValue::BooleanLit(x) => x.range,
        JValue::Object(x) => x.range,
        JValue::Array(x) => x.range,
        JValue::NullKeyword(x) => x.range,
    };
    Span::new(r.start, r.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ast::Statement;
    use crate::policy::print::print_statement;

    fn rules(json: &str) -> (Vec<String>, Vec<Diagnostic>) {
        let (rules, diags) = parse_settings(&Source::new("settings.json", json));
        (
            rules
                .into_iter()
                .map(|r| print_statement(&Statement::Rule(r)))
                .collect(),
            diags,
        )
    }

    #[test]
    fn lists_become_rules_in_deny_allow_ask_order() {
        let (r, d) = rules(
            r#"{"permissions": {"allow": ["bash(git *)", "read_file"], "ask": ["bash(sudo *) risk high"], "deny": ["bash(rm -rf *)"]}}"#,
        );
        assert!(d.is_empty());
        assert_eq!(
            r,
            [
                "deny bash(\"rm -rf *\");",
                "allow bash(\"git *\") unless redirect \"/**\";",
                "allow read_file;",
                "ask bash(\"sudo *\") risk high;"
            ]
        );
    }

    #[test]
    fn allow_entries_with_a_pattern_do_not_cover_writes_through_a_redirection() {
        let (r, d) = rules(
            r#"{"permissions": {"allow": ["bash", "bash(*)", "bash(exact 'make')", "read_file(src/**)"], "deny": ["bash(rm *)"]}}"#,
        );
        assert!(d.is_empty());
        assert_eq!(
            r,
            [
                "deny bash(\"rm *\");",
                "allow bash;",
                "allow bash(\"*\");",
                "allow bash(exact \"make\") unless redirect \"/**\";",
                "allow read_file(\"src/**\");"
            ]
        );
    }

    #[test]
    fn other_keys_are_said_and_a_missing_permissions_is_fine() {
        let (r, d) = rules(r#"{"model": "x", "env": {"A": "1"}}"#);
        assert!(r.is_empty());
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        let (r, d) = rules(r#"{"$schema": "x"}"#);
        assert!(r.is_empty() && d.is_empty());
    }

    #[test]
    fn a_misspelled_permissions_is_an_error_that_loses_no_rule_silently() {
        let (r, d) = rules(r#"{"permisions": {"allow": ["bash(ls)"]}}"#);
        assert!(r.is_empty());
        assert_eq!(d.len(), 1);
        assert!(d[0].is_error());
        assert_eq!(d[0].help.as_deref(), Some("did you mean `permissions`?"));
    }

    #[test]
    fn invalid_json_points_at_line_and_column() {
        let src = "{\n  \"permissions\": {\n    \"allow\": [\"bash(ls)\",]\n  }\n}";
        let (_, d) = rules(src);
        assert_eq!(d.len(), 1);
        assert!(d[0].message.starts_with("invalid JSON"), "{}", d[0].message);
        let line = d[0].source.line(d[0].span().start);
        assert_eq!(line, 3);
    }

    #[test]
    fn bad_entries_are_reported_at_their_string() {
        let src = r#"{"permissions": {"ask": ["bash(sudo *) risk hgh", 7, "bash(oops"], "allow": "bash"}}"#;
        let (r, d) = rules(src);
        assert!(r.is_empty());
        let msgs: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "`allow` must be an array of strings",
                "unknown risk `hgh`",
                "a rule must be a string",
                "`bash(oops` has no closing `)`"
            ]
        );
        assert_eq!(d[1].source.slice(d[1].span()), "hgh");
        assert_eq!(d[1].help.as_deref(), Some("did you mean `high`?"));
    }

    #[test]
    fn a_misspelled_list_name_is_an_error() {
        let (_, d) = rules(r#"{"permissions": {"alow": ["bash(ls)"]}}"#);
        assert_eq!(d.len(), 1);
        assert!(d[0].is_error());
        assert_eq!(d[0].help.as_deref(), Some("did you mean `allow`?"));
        // Claude Code's own keys are said and left alone.
        let (r, d) = rules(r#"{"permissions": {"defaultMode": "plan", "allow": ["bash(ls)"]}}"#);
        assert_eq!(r.len(), 1);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    }
}
