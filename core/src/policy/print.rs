//! The canonical printer: one statement a line, one spelling for everything. Parsing what it
//! prints gives the same syntax tree (a property test checks it); `harness9 fmt` builds on it.

use std::fmt::Write;

use super::ast::*;

/// Prints a whole file. Comments are not part of the syntax tree; `fmt` keeps them itself.
pub fn print_policy(file: &PolicyFile) -> String {
    let mut out = String::new();
    for s in &file.statements {
        out.push_str(&print_statement(s));
        out.push('\n');
    }
    out
}

pub fn print_statement(s: &Statement) -> String {
    let mut out = String::new();
    match s {
        Statement::Rule(r) => print_rule(&mut out, r),
        Statement::Default(d) | Statement::Headless(d) => {
            let keyword = match s {
                Statement::Headless(_) => "headless",
                _ => "default",
            };
            let _ = write!(out, "{keyword} {}", d.action.value);
            if let Some(r) = &d.risk {
                let _ = write!(out, " risk {}", r.value);
            }
            if let Some(r) = &d.reason {
                let _ = write!(out, " reason {}", quote(&r.value));
            }
        }
        Statement::Expect(e) => {
            let _ = write!(out, "expect {}", e.action.value);
            if let Some(r) = &e.risk {
                let _ = write!(out, " risk {}", r.value);
            }
            let _ = write!(out, " {}(", e.call.value.tool);
            match &e.call.value.arg {
                ExpectArg::None => {}
                ExpectArg::Primary(p) => out.push_str(&quote(p)),
                ExpectArg::Json(m) => {
                    out.push_str(&serde_json::Value::Object(m.clone()).to_string())
                }
            }
            out.push(')');
        }
        Statement::Include(i) => {
            let _ = write!(out, "include {}", quote(&i.path.value));
        }
        Statement::Replace(i) => {
            let _ = write!(out, "replace {}", quote(&i.path.value));
        }
        Statement::Protect(p) => {
            let _ = write!(out, "protect {}", quote(&p.path.value));
            if let Some(r) = &p.reason {
                let _ = write!(out, " reason {}", quote(&r.value));
            }
        }
    }
    out.push(';');
    out
}

fn print_rule(out: &mut String, r: &Rule) {
    let _ = write!(out, "{} {}", r.action.value, r.tool.value);
    if let Some(ms) = &r.matchers {
        out.push('(');
        out.push_str(&ms.iter().map(print_matcher).collect::<Vec<_>>().join(", "));
        out.push(')');
    }
    for group in &r.unless {
        out.push_str(" unless ");
        if group.len() == 1 && !needs_group(&group[0]) {
            out.push_str(&print_matcher(&group[0]));
        } else {
            out.push('(');
            out.push_str(
                &group
                    .iter()
                    .map(print_matcher)
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            out.push(')');
        }
    }
    if let Some(risk) = &r.risk {
        let _ = write!(out, " risk {}", risk.value);
    }
    if let Some(profile) = &r.profile {
        let _ = write!(out, " profile {}", quote(&profile.value));
    }
    if let Some(reason) = &r.reason {
        let _ = write!(out, " reason {}", quote(&reason.value));
    }
}

/// A matcher without a value would swallow the option keywords after it outside parentheses.
fn needs_group(m: &Matcher) -> bool {
    !m.kind.takes_value()
}

pub fn print_matcher(m: &Matcher) -> String {
    let mut out = String::new();
    if let Some(a) = &m.arg {
        let _ = write!(out, "arg {} ", a.value);
    }
    let kw = m.kind.keyword();
    if !kw.is_empty() {
        out.push_str(kw);
        if m.kind.takes_value() {
            out.push(' ');
        }
    }
    if m.list {
        out.push('[');
        out.push_str(
            &m.values
                .iter()
                .map(|v| quote(&v.value))
                .collect::<Vec<_>>()
                .join(", "),
        );
        out.push(']');
    } else if let Some(v) = m.values.first() {
        out.push_str(&quote(&v.value));
    }
    out.trim_end().to_string()
}

/// A string literal that reads well inside JSON (a settings.json rule): single-quoted raw text
/// unless it holds a single quote or a line break (which raw text cannot), then a JSON string.
pub fn quote_raw(s: &str) -> String {
    if s.contains(['\'', '\n']) {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    } else {
        format!("'{s}'")
    }
}

/// A string literal: single-quoted raw text when that avoids escaping backslashes, else JSON.
pub fn quote(s: &str) -> String {
    if s.contains('\\') && !s.contains(['\'', '\n', '\r']) {
        format!("'{s}'")
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Source;
    use crate::policy::parse::parse_policy;

    #[test]
    fn printing_normalises_spacing_and_order() {
        let src = r#"ask   bash( prefix  "sudo" )reason "root" risk high ;"#;
        let (f, d) = parse_policy(&Source::new("t", src));
        assert!(d.is_empty());
        assert_eq!(
            print_policy(&f),
            "ask bash(prefix \"sudo\") risk high reason \"root\";\n"
        );
    }

    #[test]
    fn valueless_unless_matchers_are_grouped() {
        let src = r#"allow bash(program "cat") unless (piped) risk low;"#;
        let (f, d) = parse_policy(&Source::new("t", src));
        assert!(d.is_empty());
        let printed = print_policy(&f);
        assert_eq!(
            printed,
            "allow bash(program \"cat\") unless (piped) risk low;\n"
        );
        let (g, d) = parse_policy(&Source::new("t", printed.as_str()));
        assert!(d.is_empty());
        assert_eq!(f, g);
    }
}
