//! Completion in a policy file: the words the language has, taken from where they are
//! defined (the grammar's keywords, the actions and risks of the syntax tree, the matcher
//! table, harness9's tools, the effects model), offered by what the cursor follows.

use lsp_types::{CompletionItem, CompletionItemKind, Documentation};

use super::hover::matcher_summary;
use crate::call::tool_names;
use crate::knowledge::effects::Kind;
use crate::policy::ast::{Action, MatcherKind, Risk};

/// The policy grammar, whose keyword rules name the statement and option keywords.
const GRAMMAR: &str = include_str!("../../grammar/policy.pest");

/// A keyword of the grammar and the rule it starts (`("include", "include_stmt")`).
fn grammar_keywords() -> Vec<(&'static str, &'static str)> {
    // `kw_include = @{ "include" ~ !ident_char }` defines a keyword; a rule whose body starts
    // with it (`include_stmt = { kw_include ~ string }`) is where the keyword begins.
    let mut keywords: Vec<(&str, &str)> = Vec::new();
    for line in GRAMMAR.lines() {
        let Some((name, body)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim();
        if let Some(rule) = name.strip_prefix("kw_") {
            let word = body.split('"').nth(1).unwrap_or(rule);
            keywords.push((word, name));
        }
    }
    let mut out = Vec::new();
    for line in GRAMMAR.lines() {
        let Some((name, body)) = line.split_once('=') else {
            continue;
        };
        let first = body
            .trim_start()
            .trim_start_matches(['_', '@', '$', '!'])
            .trim_start_matches('{')
            .split_whitespace()
            .next()
            .unwrap_or("");
        if let Some((word, _)) = keywords.iter().find(|(_, kw)| *kw == first) {
            out.push((*word, name.trim()));
        }
    }
    out
}

/// The keywords that begin a statement (`include`, `default`, `expect`, …).
pub fn statement_keywords() -> Vec<&'static str> {
    grammar_keywords()
        .into_iter()
        .filter(|(_, rule)| rule.ends_with("_stmt"))
        .map(|(w, _)| w)
        .collect()
}

/// The keywords of a rule's options (`unless`, `risk`, `reason`).
pub fn option_keywords() -> Vec<&'static str> {
    grammar_keywords()
        .into_iter()
        .filter(|(_, rule)| rule.ends_with("_opt"))
        .map(|(w, _)| w)
        .collect()
}

/// Where the cursor is, as far as completion cares.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    /// Where a statement starts.
    Statement,
    /// After an action or `expect`: a tool (after `sandbox`, `bash` only).
    Tool { bash_only: bool },
    /// After `expect`: an action.
    Action,
    /// After `default`, `headless`: an action a default can be (not `sandbox`).
    DefaultAction,
    /// After `risk`.
    Risk,
    /// Inside a rule's parentheses or after `unless`: a matcher.
    Matcher,
    /// After `arg NAME`: a matcher that may follow it.
    ArgMatcher,
    /// After a rule's head: its options (`profile` after a `sandbox` rule's only).
    Option { sandbox: bool },
    /// Inside the string of an `effect` matcher.
    Effect,
    /// Inside the string after `profile`: a sandbox profile's name.
    Profile,
    /// Nothing to offer (inside another string, a comment, an argument's name).
    Nothing,
}

/// The completions at a byte offset of a policy's text.
pub fn complete(text: &str, offset: usize) -> Vec<CompletionItem> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    match place(&text[..offset]) {
        Place::Statement => actions()
            .chain(
                statement_keywords()
                    .into_iter()
                    .map(|k| keyword(k, "statement")),
            )
            .collect(),
        Place::Tool { bash_only: false } => tools().collect(),
        Place::Tool { bash_only: true } => tools().filter(|t| t.label == "bash").collect(),
        Place::Action => actions().collect(),
        Place::DefaultAction => actions().filter(|a| a.label != "sandbox").collect(),
        Place::Risk => Risk::ALL
            .iter()
            .map(|r| item(r.as_str(), CompletionItemKind::ENUM_MEMBER, "risk", None))
            .collect(),
        Place::Matcher => matchers(false).collect(),
        Place::ArgMatcher => matchers(true).collect(),
        Place::Option { sandbox } => option_keywords()
            .into_iter()
            .filter(|k| sandbox || *k != "profile")
            .map(|k| keyword(k, "option"))
            .collect(),
        Place::Profile => crate::sandbox::PROFILES
            .iter()
            .map(|p| {
                item(
                    p.name,
                    CompletionItemKind::ENUM_MEMBER,
                    "sandbox profile",
                    Some(p.about),
                )
            })
            .collect(),
        Place::Effect => Kind::ALL
            .iter()
            .map(|(_, name, what)| {
                item(name, CompletionItemKind::ENUM_MEMBER, "effect", Some(what))
            })
            .collect(),
        Place::Nothing => Vec::new(),
    }
}

fn item(label: &str, kind: CompletionItemKind, detail: &str, doc: Option<&str>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail.to_string()),
        documentation: doc.map(|d| Documentation::String(d.to_string())),
        ..CompletionItem::default()
    }
}

fn keyword(k: &str, detail: &str) -> CompletionItem {
    item(k, CompletionItemKind::KEYWORD, detail, None)
}

fn actions() -> impl Iterator<Item = CompletionItem> {
    Action::ALL
        .into_iter()
        .map(|a| keyword(a.as_str(), "action"))
}

fn tools() -> impl Iterator<Item = CompletionItem> {
    tool_names().map(|t| item(t, CompletionItemKind::FUNCTION, "tool", None))
}

/// The matcher keywords (and `arg`), or those that may follow `arg NAME`.
fn matchers(after_arg: bool) -> impl Iterator<Item = CompletionItem> {
    MatcherKind::TABLE
        .into_iter()
        .filter(move |(_, kw, _, with_arg)| !kw.is_empty() && (!after_arg || *with_arg))
        .map(|(kind, kw, ..)| {
            item(
                kw,
                CompletionItemKind::OPERATOR,
                "matcher",
                Some(matcher_summary(kind)),
            )
        })
        .chain(
            MatcherKind::keywords()
                .filter(move |k| !after_arg && MatcherKind::from_keyword(k).is_none())
                .map(|k| {
                    item(
                        k,
                        CompletionItemKind::OPERATOR,
                        "matcher",
                        Some("a JSON argument of the call: `arg NAME [kind] \"…\"`"),
                    )
                }),
        )
}

/// The current statement as read so far: its words (strings as `"`), its parenthesis depth,
/// and whether the cursor is inside a string or a comment.
#[derive(Default)]
struct Scan {
    words: Vec<String>,
    /// The word being typed.
    word: String,
    depth: usize,
    /// A rule's parentheses were closed.
    closed: bool,
    in_string: Option<char>,
    in_comment: bool,
}

impl Scan {
    /// Reads the text before the cursor.
    fn of(before: &str) -> Scan {
        let mut s = Scan::default();
        let mut chars = before.chars().peekable();
        while let Some(c) = chars.next() {
            if s.in_comment {
                s.in_comment = c != '\n';
                continue;
            }
            if let Some(q) = s.in_string {
                if c == '\\' && q == '"' {
                    chars.next();
                } else if c == q {
                    s.in_string = None;
                    s.words.push("\"".to_string());
                }
                continue;
            }
            s.code_char(c);
        }
        s
    }

    fn flush(&mut self) {
        if !self.word.is_empty() {
            self.words.push(std::mem::take(&mut self.word));
        }
    }

    /// A character outside strings and comments.
    fn code_char(&mut self, c: char) {
        match c {
            '#' => {
                self.flush();
                self.in_comment = true;
            }
            '"' | '\'' => {
                self.flush();
                self.in_string = Some(c);
            }
            ';' => {
                self.word.clear();
                self.words.clear();
                self.depth = 0;
                self.closed = false;
            }
            '(' | '[' => {
                self.flush();
                if c == '(' {
                    self.depth += 1;
                }
                self.words.push(c.to_string());
            }
            ')' | ']' | ',' => {
                self.flush();
                if c == ')' {
                    self.depth = self.depth.saturating_sub(1);
                    self.closed = self.depth == 0;
                }
                self.words.push(c.to_string());
            }
            c if c.is_whitespace() => self.flush(),
            c => self.word.push(c),
        }
    }
}

/// Reads the text before the cursor: strings, comments and parentheses of the current
/// statement, and the words since it began.
fn place(before: &str) -> Place {
    let s = Scan::of(before);
    if s.in_comment {
        return Place::Nothing;
    }
    if s.in_string.is_some() {
        return string_place(&s.words);
    }
    // The word being typed is not context; the one before it is.
    let done: Vec<&str> = s.words.iter().map(String::as_str).collect();
    word_place(&done, s.depth, s.closed)
}

/// Inside a string: an effect's name after `effect`, else nothing.
fn string_place(words: &[String]) -> Place {
    // The matcher keyword before the string (or before the list it is in).
    let kw = words
        .iter()
        .rev()
        .find(|w| !matches!(w.as_str(), "[" | "," | "\""));
    match kw.map(String::as_str) {
        Some("effect") => Place::Effect,
        Some("profile") => Place::Profile,
        _ => Place::Nothing,
    }
}

/// Outside strings and comments: by the words `done` of the statement so far, the depth of
/// its parentheses, and whether they were closed.
fn word_place(done: &[&str], depth: usize, closed: bool) -> Place {
    let last = done.last().copied();
    let first = done.first().copied();
    let is_action = |w: &str| Action::parse(w).is_some();
    if done.is_empty() {
        return Place::Statement;
    }
    if last == Some("risk") {
        return Place::Risk;
    }
    if matches!(last, Some("default" | "headless")) {
        return Place::DefaultAction;
    }
    if first == Some("expect") {
        return match done.len() {
            1 => Place::Action,
            _ if !done.contains(&"(") => Place::Tool { bash_only: false },
            _ => Place::Nothing,
        };
    }
    if !first.is_some_and(is_action) {
        return Place::Nothing;
    }
    let sandbox = first == Some("sandbox");
    if done.len() == 1 {
        return Place::Tool { bash_only: sandbox };
    }
    let in_group = depth > 0;
    if in_group || last == Some("unless") {
        // `arg NAME` then a matcher; right after `arg`, a name nobody can guess.
        return match done.iter().rposition(|w| *w == "arg") {
            Some(i) if i + 1 == done.len() => Place::Nothing,
            Some(i) if i + 2 == done.len() => Place::ArgMatcher,
            _ if matches!(last, Some("(" | "," | "unless")) => Place::Matcher,
            _ => Place::Nothing,
        };
    }
    if closed || done.len() >= 2 {
        return Place::Option { sandbox };
    }
    Place::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        complete(text, text.len())
            .into_iter()
            .map(|i| i.label)
            .collect()
    }

    #[test]
    fn keywords_come_from_the_grammar() {
        let st = statement_keywords();
        for k in ["include", "default", "headless", "expect", "protect"] {
            assert!(st.contains(&k), "{k} in {st:?}");
        }
        assert!(!st.contains(&"risk"));
        assert_eq!(option_keywords(), ["risk", "reason", "profile", "unless"]);
    }

    #[test]
    fn a_statement_starts_with_an_action_or_a_keyword() {
        let l = labels("allow bash;\n");
        assert!(
            l.contains(&"allow".into()) && l.contains(&"deny".into()),
            "{l:?}"
        );
        assert!(
            l.contains(&"include".into()) && l.contains(&"protect".into()),
            "{l:?}"
        );
        assert_eq!(
            labels("allow bash;\nde"),
            l,
            "a word being typed is not context"
        );
    }

    #[test]
    fn after_an_action_come_the_tools() {
        assert_eq!(
            labels("deny "),
            ["bash", "read_file", "write_file", "edit_file", "list_dir"]
        );
        assert_eq!(labels("expect allow risk low "), labels("deny "));
    }

    #[test]
    fn inside_a_rule_come_the_matchers_and_after_it_the_options() {
        let l = labels("allow bash(");
        assert!(
            l.contains(&"prefix".into()) && l.contains(&"effect".into()),
            "{l:?}"
        );
        assert!(
            l.contains(&"arg".into()) && l.contains(&"read_only".into()),
            "{l:?}"
        );
        assert_eq!(labels("allow bash(prefix \"git\", "), l);
        assert_eq!(labels("allow bash(prefix \"git\") unless "), l);
        let after_arg = labels("allow mcp__x(arg url ");
        assert!(after_arg.contains(&"host".into()), "{after_arg:?}");
        assert!(!after_arg.contains(&"flag".into()), "{after_arg:?}");
        assert_eq!(
            labels("allow bash(\"git *\") "),
            ["risk", "reason", "unless"]
        );
        assert_eq!(labels("ask bash(\"x\") risk "), ["high", "medium", "low"]);
        assert_eq!(labels("default "), ["allow", "deny", "ask"]);
        assert_eq!(labels("expect "), ["allow", "deny", "ask", "sandbox"]);
    }

    #[test]
    fn a_sandbox_rule_is_about_bash_and_takes_a_profile() {
        assert_eq!(labels("sandbox "), ["bash"]);
        assert_eq!(
            labels("sandbox bash(prefix \"cargo test\") "),
            ["risk", "reason", "profile", "unless"]
        );
        let profiles = labels("sandbox bash(prefix \"cargo\") profile \"ca");
        assert_eq!(profiles.len(), crate::sandbox::PROFILES.len());
        assert!(profiles.contains(&"cargo".into()), "{profiles:?}");
        assert!(labels("allow bash;\n").contains(&"sandbox".into()));
    }

    #[test]
    fn inside_an_effect_string_come_the_effect_names() {
        let l = labels("ask bash(effect \"net");
        assert_eq!(l.len(), Kind::ALL.len());
        assert!(l.contains(&"network-upload".into()), "{l:?}");
        assert_eq!(labels("ask bash(effect [\"install\", \""), l);
        assert!(labels("ask bash(prefix \"net").is_empty());
        assert!(labels("# allow bash(").is_empty(), "nothing in a comment");
    }

    #[test]
    fn an_offset_inside_a_character_or_past_the_end_does_not_panic() {
        let t = "allow bash(\"é😀\"";
        for i in 0..t.len() + 3 {
            let _ = complete(t, i);
        }
    }
}
