//! `harness9 import claude-code`: Claude Code's permission rules (`permissions.allow`, `deny`,
//! `ask` of a settings file) as a harness9 policy file.
//!
//! Claude Code's rules (see its IAM documentation) and what they become:
//!
//! | Claude Code | harness9 |
//! |---|---|
//! | `Bash`, `Bash(*)` | `bash` |
//! | `Bash(npm run build)` (exact command) | `bash(exact "npm run build")` |
//! | `Bash(npm run test:*)`, `Bash(npm run test *)` | `bash(prefix "npm run test")` |
//! | `Bash(git * main)` | `bash("git * main")` (a glob over the command) |
//! | `Read(p)` | `read_file("p")` |
//! | `Edit(p)` | `write_file("p")` and `edit_file("p")` |
//! | `Write(p)`, `MultiEdit(p)`, `NotebookEdit(p)` | `write_file("p")`, `edit_file("p")` |
//! | `WebFetch(domain:x)` | `WebFetch(arg url host "x")` |
//! | `mcp__server` | `mcp__server__*` |
//! | `mcp__server__tool`, `WebSearch`, other bare tools | the same name |
//!
//! Paths of `Read`/`Edit` rules: `//abs` is the absolute `/abs`; `~/p` stays; `/p` (relative to
//! the project in Claude Code) and `./p` become `p`, which harness9 anchors at the working
//! folder. A rule whose meaning changes gets a `#` comment saying how; a rule that cannot be
//! translated is left out, with a comment and a note.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::diag::{Diagnostic, Source};
use crate::engine::Engine;
use crate::policy::ast::{Action, Span};
use crate::policy::fmt::format_policy;
use crate::policy::print::quote;

/// The policy text and what the user should know about it.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The policy file, formatted.
    pub policy: String,
    /// Entries left out and settings not imported, one message each.
    pub notes: Vec<String>,
    /// How many rules were written.
    pub rules: usize,
}

/// Claude Code's lists, in the order their rules are written (its own precedence).
const LISTS: [(&str, Action); 3] = [
    ("deny", Action::Deny),
    ("ask", Action::Ask),
    ("allow", Action::Allow),
];

/// One translated rule: `tool(matchers)` and, when its meaning changes, why.
#[derive(Debug, Clone, PartialEq)]
struct Translated {
    head: String,
    comment: Option<String>,
}

impl Translated {
    fn plain(head: impl Into<String>) -> Self {
        Translated {
            head: head.into(),
            comment: None,
        }
    }

    fn noted(head: impl Into<String>, comment: impl Into<String>) -> Self {
        Translated {
            head: head.into(),
            comment: Some(comment.into()),
        }
    }
}

/// Where the settings file is, which decides what its `/path` patterns mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// A project's settings (`.claude/settings.json`): `/path` is in the project's folder,
    /// which is the working folder when Claude Code runs there.
    #[default]
    Project,
    /// The user's settings (`~/.claude/settings.json`): `/path` is in the home folder.
    User,
}

impl Scope {
    /// The scope of a settings file: `User` for the one in `<home>/.claude/`.
    pub fn of(settings_file: &Path, home: Option<&Path>) -> Scope {
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let dir = settings_file.parent().map(real);
        match (dir, home) {
            (Some(d), Some(h)) if d == real(&h.join(".claude")) => Scope::User,
            _ => Scope::Project,
        }
    }
}

/// Translates the `permissions` of a Claude Code settings file. `Err` holds the diagnostics of
/// a file that is not JSON or whose `permissions` have the wrong shape.
pub fn claude_code(source: &Arc<Source>, scope: Scope) -> Result<Imported, Vec<Diagnostic>> {
    let root = parse_json(source)?;
    let Value::Object(root) = root else {
        return Err(shape_error(source, "the settings must be a JSON object"));
    };
    let empty = serde_json::Map::new();
    let perms = match root.get("permissions") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(shape_error(source, "`permissions` must be an object")),
    };

    let mut t = Translation {
        out: String::new(),
        notes: Vec::new(),
        rules: 0,
        seen: HashSet::new(),
    };
    t.out.push_str(&header(source));
    t.note_settings_not_imported(perms);
    for (list, action) in LISTS {
        let entries = match perms.get(list) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(shape_error(
                    source,
                    &format!("`permissions.{list}` must be an array of strings"),
                ))
            }
        };
        if entries.is_empty() {
            continue;
        }
        t.out
            .push_str(&format!("\n# Claude Code's `{list}` rules.\n"));
        for entry in entries {
            let Value::String(entry) = entry else {
                return Err(shape_error(
                    source,
                    &format!("`permissions.{list}` must hold strings, not {entry}"),
                ));
            };
            t.entry(entry, list, action, scope);
        }
    }
    let formatted = format_policy(&Source::new(source.name.to_string(), t.out.as_str()))?;
    Ok(Imported {
        policy: formatted,
        notes: t.notes,
        rules: t.rules,
    })
}

/// The settings file as JSON, or the diagnostic of where it is not.
fn parse_json(source: &Arc<Source>) -> Result<Value, Vec<Diagnostic>> {
    let text: &str = &source.text;
    serde_json::from_str(text).map_err(|e| {
        let at = crate::diag::offset_of(text, e.line(), e.column());
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        vec![Diagnostic::error(
            source,
            "claude-settings",
            Span::new(at, (at + 1).min(text.len())),
            format!("invalid JSON: {msg}"),
        )
        .help("a Claude Code settings file is strict JSON")]
    })
}

/// The diagnostic of settings whose `permissions` have the wrong shape.
fn shape_error(source: &Arc<Source>, what: &str) -> Vec<Diagnostic> {
    vec![
        Diagnostic::error(source, "claude-settings", Span::default(), what.to_string()).help(
            "expected `{\"permissions\": {\"allow\": [...], \"deny\": [...], \"ask\": [...]}}`",
        ),
    ]
}

/// The policy being written from the settings: its text, the notes on what is not
/// imported, the rules written and the ones already written.
struct Translation {
    out: String,
    notes: Vec<String>,
    rules: usize,
    seen: HashSet<(Action, String)>,
}

impl Translation {
    /// A note on what is not imported, in the policy as a comment and in the notes.
    fn note(&mut self, note: String) {
        self.out.push_str(&format!("# {note}\n"));
        self.notes.push(note);
    }

    /// Notes the `permissions` settings other than the rule lists, which are not imported.
    fn note_settings_not_imported(&mut self, perms: &serde_json::Map<String, Value>) {
        for key in perms.keys() {
            if !LISTS.iter().any(|(l, _)| l == key) {
                let note = format!(
                    "`permissions.{key}` is not imported ({})",
                    match key.as_str() {
                        "defaultMode" => "`harness9 hook claude-code` reads the session's permission mode from each event",
                        "additionalDirectories" => "harness9 has no list of working folders",
                        _ => "harness9 has no such setting",
                    }
                );
                self.note(note);
            }
        }
    }

    /// Writes the rules of one entry of the `list` rules, or a note on why it is not imported.
    fn entry(&mut self, entry: &str, list: &str, action: Action, scope: Scope) {
        if entry.contains(char::is_control) {
            self.note(format!(
                "{:?} ({list}) is not imported: a rule cannot hold control characters",
                entry
            ));
            return;
        }
        match translate(entry.trim(), scope) {
            Ok(parts) => {
                for t in parts {
                    if !self.seen.insert((action, t.head.clone())) {
                        continue;
                    }
                    let rule = format!("{action} {};", t.head);
                    if let Err(why) = compiles(&rule) {
                        self.note(format!("`{entry}` ({list}) is not imported: {why}"));
                        continue;
                    }
                    if let Some(c) = &t.comment {
                        for line in c.lines() {
                            self.out.push_str(&format!("# {line}\n"));
                        }
                    }
                    let reason = format!("Claude Code: {list} {entry}");
                    self.out
                        .push_str(&format!("{action} {} reason {};\n", t.head, quote(&reason)));
                    self.rules += 1;
                }
            }
            Err(why) => self.note(format!("`{entry}` ({list}) is not imported: {why}")),
        }
    }
}

/// Whether a translated rule compiles (a Claude Code pattern may be an invalid glob here).
fn compiles(rule: &str) -> Result<(), NotImported> {
    match Engine::builder()
        .builtin(false)
        .policy_text("rule", rule)
        .build()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(NotImported::DoesNotCompile(
            e.diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.message.clone())
                .or_else(|| e.messages.first().cloned())
                .unwrap_or_else(|| "it does not compile".into()),
        )),
    }
}

fn header(source: &Source) -> String {
    format!(
        "# Imported from Claude Code's permission rules in `{}` by `harness9 import claude-code`.\n\
         #\n\
         # Claude Code decides deny > ask > allow, whatever the order of its lists. Here the first\n\
         # rule that matches wins, so the deny rules come first, then the ask rules, then the allow\n\
         # rules: the same precedence.\n\
         #\n\
         # What differs for every rule: each part of a compound command (`a && b`, `$(…)`, pipes)\n\
         # is judged on its own, and deny and ask rules see through re-spellings (`/bin/rm`, `\\rm`).\n\
         # Claude Code also applies Read rules to Grep, Glob and LS as far as it can; here they\n\
         # apply to read_file (Claude Code's Read). To keep a path from every tool, shell commands\n\
         # included, write `deny *(path \"…\");`. A call no rule matches gets harness9's default\n\
         # (ask), not Claude Code's per-tool default.\n",
        source.name
    )
}

/// Why a Claude Code rule is not imported (written into the imported policy as a note).
#[derive(Debug, thiserror::Error)]
enum NotImported {
    #[error("it has no closing `)`")]
    NoClosingParen,
    #[error("`{0}` is not a tool name")]
    NotAToolName(String),
    #[error("a path pattern cannot hold a line break")]
    LineBreak,
    /// A WebFetch pattern other than `domain:HOST`.
    #[error("harness9 does not know what `{0}` means for WebFetch")]
    UnknownWebFetch(String),
    /// A pattern of a tool whose patterns are not translated.
    #[error("harness9 does not know what `{spec}` means for {tool}; write the rule by hand")]
    UnknownPattern { tool: String, spec: String },
    /// The translated rule does not compile; the reason is the engine's.
    #[error("{0}")]
    DoesNotCompile(String),
}

/// One Claude Code rule as harness9 rule heads (`tool(matchers)`), or why it cannot be.
fn translate(entry: &str, scope: Scope) -> Result<Vec<Translated>, NotImported> {
    let (tool, spec) = match entry.find('(') {
        Some(open) => {
            let Some(inner) = entry[open + 1..].strip_suffix(')') else {
                return Err(NotImported::NoClosingParen);
            };
            (&entry[..open], Some(inner))
        }
        None => (entry, None),
    };
    let tool = tool.trim();
    if tool.is_empty()
        || !tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '?'))
    {
        return Err(NotImported::NotAToolName(tool.to_string()));
    }
    let spec = spec.filter(|s| !s.is_empty());
    match (tool, spec) {
        ("Bash", None) => Ok(vec![Translated::plain("bash")]),
        ("Bash", Some(s)) => Ok(vec![bash(s)]),
        ("Read", s) => Ok(vec![file_rule("read_file", s, scope)?]),
        ("Edit", s) => {
            let mut w = file_rule("write_file", s, scope)?;
            let e = file_rule("edit_file", s, scope)?;
            let note = "Claude Code's Edit rules cover every tool that changes files: write_file and\nedit_file here.";
            w.comment = Some(match w.comment {
                Some(c) => format!("{note}\n{c}"),
                None => note.to_string(),
            });
            Ok(vec![w, Translated { comment: None, ..e }])
        }
        ("Write", s) => Ok(vec![file_rule("write_file", s, scope)?]),
        ("MultiEdit" | "NotebookEdit", s) => Ok(vec![file_rule("edit_file", s, scope)?]),
        ("NotebookRead", s) => Ok(vec![file_rule("read_file", s, scope)?]),
        ("LS", None) => Ok(vec![Translated::plain("list_dir")]),
        ("WebFetch", None) => Ok(vec![Translated::plain("WebFetch")]),
        ("WebFetch", Some(s)) => match s.strip_prefix("domain:") {
            Some(host) if !host.is_empty() => Ok(vec![Translated::noted(
                format!("WebFetch(arg url host {})", quote(host)),
                format!(
                    "`domain:{host}` becomes a match on the host of the `url` argument: exactly\n`{host}` (add `*.{host}` for its subdomains)."
                ),
            )]),
            _ => Err(NotImported::UnknownWebFetch(s.to_string())),
        },
        (t, None) if t.starts_with("mcp__") => {
            let server = &t["mcp__".len()..];
            if server.contains("__") || t.ends_with('*') {
                Ok(vec![Translated::plain(t)])
            } else {
                Ok(vec![Translated::noted(
                    format!("{t}__*"),
                    format!("`{t}` means every tool of the MCP server `{server}`."),
                )])
            }
        }
        (t, None) => Ok(vec![Translated::plain(t)]),
        (t, Some(s)) => Err(NotImported::UnknownPattern {
            tool: t.to_string(),
            spec: s.to_string(),
        }),
    }
}

/// `Bash(spec)`: an exact command, a `:*` or ` *` prefix, or a glob.
fn bash(spec: &str) -> Translated {
    const GLOB: &str = "a glob over the command text, where `*` matches anything.";
    if spec.trim() == "*" {
        return Translated::plain("bash");
    }
    if let Some(prefix) = spec.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        if prefix.is_empty() {
            return Translated::plain("bash");
        }
        if prefix.contains('*') {
            return Translated::noted(format!("bash({})", quote(&format!("{prefix}*"))), GLOB);
        }
        return Translated::noted(
            format!("bash(prefix {})", quote(prefix)),
            format!(
                "Claude Code's `{prefix}:*` matches command text that starts with `{prefix}`;\n`prefix` matches whole words: `{prefix} …` but not `{prefix}x…`."
            ),
        );
    }
    if let Some(prefix) = spec.strip_suffix(" *") {
        let prefix = prefix.trim_end();
        if !prefix.contains('*') && !prefix.is_empty() {
            return Translated::plain(format!("bash(prefix {})", quote(prefix)));
        }
    }
    if spec.contains('*') {
        return Translated::noted(format!("bash({})", quote(spec)), GLOB);
    }
    Translated::plain(format!("bash(exact {})", quote(spec)))
}

/// A file tool rule from a Read/Edit path pattern (gitignore-like, as Claude Code reads it).
fn file_rule(tool: &str, spec: Option<&str>, scope: Scope) -> Result<Translated, NotImported> {
    let Some(spec) = spec else {
        return Ok(Translated::plain(tool));
    };
    if spec.contains(['\n', '\r']) {
        return Err(NotImported::LineBreak);
    }
    let (pattern, comment) = if let Some(abs) = spec.strip_prefix("//") {
        (
            format!("/{abs}"),
            Some(format!(
                "Claude Code's `//{abs}` is the absolute path `/{abs}`."
            )),
        )
    } else if spec.starts_with("~/") || spec == "~" {
        (spec.to_string(), None)
    } else if let Some(rel) = spec.strip_prefix('/') {
        match scope {
            Scope::User => (
                format!("~/{rel}"),
                Some(format!(
                    "In the user's settings, Claude Code reads `/{rel}` from the home folder."
                )),
            ),
            Scope::Project => (
                rel.to_string(),
                Some(format!(
                    "Claude Code reads `/{rel}` from the folder of the settings (the project);\nharness9 anchors `{rel}` at the working folder, the project's when Claude Code runs there."
                )),
            ),
        }
    } else if let Some(rel) = spec.strip_prefix("./") {
        (rel.to_string(), None)
    } else {
        (spec.to_string(), None)
    };
    if pattern.is_empty() {
        return Ok(Translated::plain(tool));
    }
    Ok(Translated {
        head: format!("{tool}({})", quote(&pattern)),
        comment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(entry: &str) -> Vec<String> {
        translate(entry, Scope::Project)
            .unwrap()
            .into_iter()
            .map(|t| t.head)
            .collect()
    }

    #[test]
    fn bash_rules_become_exact_prefix_or_glob_matchers() {
        assert_eq!(heads("Bash"), ["bash"]);
        assert_eq!(heads("Bash(ls)"), ["bash(exact \"ls\")"]);
        assert_eq!(
            heads("Bash(npm run test:*)"),
            ["bash(prefix \"npm run test\")"]
        );
        assert_eq!(heads("Bash(git diff *)"), ["bash(prefix \"git diff\")"]);
        assert_eq!(heads("Bash(git * main)"), ["bash(\"git * main\")"]);
        assert!(
            translate("Bash(npm run test:*)", Scope::Project).unwrap()[0]
                .comment
                .is_some()
        );
        assert!(translate("Bash(ls)", Scope::Project).unwrap()[0]
            .comment
            .is_none());
    }

    #[test]
    fn path_rules_are_anchored_as_claude_code_anchors_them() {
        assert_eq!(heads("Read(./secrets/**)"), ["read_file(\"secrets/**\")"]);
        assert_eq!(heads("Read(~/.zshrc)"), ["read_file(\"~/.zshrc\")"]);
        assert_eq!(heads("Read(//etc/passwd)"), ["read_file(\"/etc/passwd\")"]);
        assert_eq!(
            heads("Edit(/src/**)"),
            ["write_file(\"src/**\")", "edit_file(\"src/**\")"]
        );
        assert!(translate("Read(//etc/passwd)", Scope::Project).unwrap()[0]
            .comment
            .is_some());
    }

    #[test]
    fn slash_paths_of_the_users_settings_are_in_the_home_folder() {
        let t = translate("Read(/notes/**)", Scope::User).unwrap();
        assert_eq!(t[0].head, "read_file(\"~/notes/**\")");
        let home = std::path::Path::new("/home/u");
        assert_eq!(
            Scope::of(&home.join(".claude/settings.json"), Some(home)),
            Scope::User
        );
        assert_eq!(
            Scope::of(std::path::Path::new("/p/.claude/settings.json"), Some(home)),
            Scope::Project
        );
    }

    #[test]
    fn web_and_mcp_rules() {
        assert_eq!(
            heads("WebFetch(domain:example.com)"),
            ["WebFetch(arg url host \"example.com\")"]
        );
        assert_eq!(heads("WebSearch"), ["WebSearch"]);
        assert_eq!(heads("mcp__github"), ["mcp__github__*"]);
        assert_eq!(
            heads("mcp__github__create_issue"),
            ["mcp__github__create_issue"]
        );
    }

    #[test]
    fn rules_that_cannot_be_translated_say_why() {
        let e = translate("Bash(ls", Scope::Project).unwrap_err();
        assert!(matches!(e, NotImported::NoClosingParen), "{e:?}");
        assert!(e.to_string().contains("closing"), "{e}");
        let e = translate("Task(reviewer)", Scope::Project).unwrap_err();
        assert!(matches!(e, NotImported::UnknownPattern { .. }), "{e:?}");
        assert!(e.to_string().contains("reviewer"), "{e}");
        let e = translate("Bad Tool", Scope::Project).unwrap_err();
        assert!(matches!(e, NotImported::NotAToolName(_)), "{e:?}");
        assert!(e.to_string().contains("tool name"), "{e}");
    }
}
