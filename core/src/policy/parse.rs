//! Text → syntax tree. A file is cut into statements at top-level `;` first, and each statement
//! is parsed on its own, so a file with five mistakes gets five diagnostics.

use std::sync::Arc;

use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;

use super::ast::*;
use crate::diag::{did_you_mean, Diagnostic, Source};

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/policy.pest"]
struct PolicyParser;

const STATEMENT_KEYWORDS: [&str; 9] = [
    "allow", "deny", "ask", "sandbox", "default", "headless", "expect", "include", "protect",
];
const OPTION_KEYWORDS: [&str; 4] = ["risk", "reason", "unless", "profile"];

/// Parses a whole policy file. Returns the statements that parsed and every problem found.
pub fn parse_policy(source: &Arc<Source>) -> (PolicyFile, Vec<Diagnostic>) {
    let mut file = PolicyFile::default();
    let mut diags = Vec::new();
    if let Ok(pairs) = PolicyParser::parse(Rule::file, &source.text) {
        let mut lower = Lower {
            source,
            offset: 0,
            diags: &mut diags,
        };
        for p in pairs.flat_map(|f| f.into_inner()) {
            if p.as_rule() != Rule::EOI {
                file.statements.extend(lower.statement(p));
            }
        }
        return (file, diags);
    }
    let file = parse_each(source, |_| true, &mut diags);
    (file, diags)
}

/// [`parse_policy`] but for the `expect` statements, which only `harness9 test` and lint
/// read: what an engine needs of a shipped policy, whose expects its tests run. An `expect`
/// is left out unparsed, so a mistake in one is not found here.
pub fn parse_policy_without_expects(source: &Arc<Source>) -> (PolicyFile, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let file = parse_each(source, |text| !is_expect(text), &mut diags);
    (file, diags)
}

/// Whether a statement's text (blanks and comments first, as cut) is an `expect`.
fn is_expect(text: &str) -> bool {
    let mut rest = text.trim_start();
    while let Some(comment) = rest.strip_prefix('#') {
        rest = comment
            .split_once('\n')
            .map_or("", |(_, after)| after)
            .trim_start();
    }
    rest.strip_prefix("expect").is_some_and(|after| {
        !after.starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    })
}

/// Parses the statements of a file one by one, those `keep` accepts, so that every mistake
/// is reported.
fn parse_each(
    source: &Arc<Source>,
    keep: impl Fn(&str) -> bool,
    diags: &mut Vec<Diagnostic>,
) -> PolicyFile {
    let mut file = PolicyFile::default();
    for (start, end) in split_statements(&source.text) {
        if !keep(&source.text[start..end]) {
            continue;
        }
        // The blanks and comments before a statement, skipped here rather than by the grammar,
        // which reads a comment a character at a time: most of the shipped policies' text.
        let start = start + leading_trivia(&source.text[start..end]);
        parse_one(source, start, end, &mut file, diags);
    }
    file
}

/// Parses the statement at `start..end` of the source into `file`. One that does not parse
/// and has a statement word at the start of a later line (`allow bash("a")⏎deny …;`) lacks
/// the `;` of its first line: that is said once, and both parts are parsed on their own.
fn parse_one(
    source: &Arc<Source>,
    start: usize,
    end: usize,
    file: &mut PolicyFile,
    diags: &mut Vec<Diagnostic>,
) {
    let text = &source.text[start..end];
    let lower_into = |pairs: pest::iterators::Pairs<'_, Rule>,
                      file: &mut PolicyFile,
                      diags: &mut Vec<Diagnostic>| {
        let mut lower = Lower {
            source,
            offset: start,
            diags,
        };
        let body = pairs
            .flat_map(|p| p.into_inner())
            .find(|p| p.as_rule() != Rule::EOI);
        file.statements
            .extend(body.and_then(|b| lower.statement(b)));
    };
    match PolicyParser::parse(Rule::statement, text) {
        Ok(pairs) => lower_into(pairs, file, diags),
        Err(err) => {
            let at = match err.location {
                InputLocation::Pos(p) => p,
                InputLocation::Span((s, _)) => s,
            };
            let Some(next) = next_statement_line(text).filter(|&n| n <= at) else {
                diags.push(syntax_error(source, start, text, err));
                return;
            };
            diags.push(missing_semicolon(source, start + next));
            // The first part as if it had its `;` (the spans stay those of the file).
            if let Some(after) = previous_content_end(&source.text, start + next) {
                let mut first = source.text[start..after.max(start)].to_string();
                first.push(';');
                match PolicyParser::parse(Rule::statement, &first) {
                    Ok(pairs) => lower_into(pairs, file, diags),
                    Err(err) => diags.push(syntax_error(source, start, &first, err)),
                }
            }
            parse_one(source, start + next, end, file, diags);
        }
    }
}

/// Where, in a statement's text, a later line starts with a statement word (`allow`, `deny`,
/// `default`, …) followed by a blank: the start of a statement whose previous one lacks its
/// `;`.
fn next_statement_line(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let here = at;
        at += line.len();
        if here == 0 {
            continue;
        }
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let rest = &line[indent..];
        let starts = STATEMENT_KEYWORDS.iter().any(|k| {
            rest.strip_prefix(k)
                .is_some_and(|after| after.starts_with([' ', '\t']))
        });
        if starts {
            return Some(here + indent);
        }
    }
    None
}

/// The text of a line without its comment (a `#` outside quotes starts one).
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return &line[..i],
            None => {}
        }
    }
    line
}

/// Where the text before the line of `next` ends, comments and blank lines skipped: after the
/// last character of the last line with something on it; `None` when there is none.
fn previous_content_end(text: &str, next: usize) -> Option<usize> {
    let mut line_end = text[..next].rfind('\n')?;
    loop {
        let line_start = text[..line_end].rfind('\n').map_or(0, |i| i + 1);
        let code = without_comment(&text[line_start..line_end]).trim_end();
        if !code.trim().is_empty() {
            return Some(line_start + code.len());
        }
        if line_start == 0 {
            return None;
        }
        line_end = line_start - 1;
    }
}

/// "Expected `;` at the end of line N": the statement starting at `next` (a statement word at
/// the start of its line) follows one that lacks its `;`. Points at the last character of the
/// previous statement's last line (comments and blank lines skipped), and at the word.
fn missing_semicolon(source: &Arc<Source>, next: usize) -> Diagnostic {
    let text = &source.text;
    let word_end = text[next..]
        .find(|c: char| c.is_whitespace())
        .map_or(text.len(), |i| next + i);
    let word = Span::new(next, word_end);
    let Some(after) = previous_content_end(text, next) else {
        return Diagnostic::error(
            source,
            "missing-semicolon",
            word,
            "expected `;` before this statement",
        )
        .help("every statement ends with `;`");
    };
    let before = text[..after].chars().next_back().map_or(0, char::len_utf8);
    let line = source.line(after - before);
    Diagnostic::error(
        source,
        "missing-semicolon",
        Span::new(after - before, after),
        format!("expected `;` at the end of line {line}"),
    )
    .label("add `;` after this")
    .also(word, "the next statement starts here")
    .help(format!(
        "add `;` at the end of line {line}: every statement ends with `;`"
    ))
}

/// The length of the blanks and comments a statement's text starts with, as the grammar's
/// `WHITESPACE` and `COMMENT` read them (a comment runs to the end of its line).
fn leading_trivia(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => {
                i = bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(bytes.len(), |n| i + n)
            }
            _ => break,
        }
    }
    i
}

/// Byte ranges of the statements of a file: each ends after its `;` (or at the end of the text
/// for a last statement that lacks one). Strings and comments are skipped over; a string ends at
/// its closing quote or, unterminated, at the end of its line. Ranges that hold only blanks and
/// comments are dropped.
fn split_statements(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut meaningful = false;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            q @ (b'"' | b'\'') => {
                meaningful = true;
                i += 1;
                while i < bytes.len() && bytes[i] != q && bytes[i] != b'\n' {
                    if q == b'"' && bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i < bytes.len() && bytes[i] == q {
                    i += 1;
                } else if i < bytes.len() {
                    // Unterminated: end the statement with its line, so the next line parses.
                    out.push((start, i));
                    start = i;
                    meaningful = false;
                }
                continue;
            }
            b';' => {
                out.push((start, i + 1));
                start = i + 1;
                meaningful = false;
            }
            b if !b.is_ascii_whitespace() => meaningful = true,
            _ => {}
        }
        i += 1;
    }
    if meaningful {
        out.push((start, bytes.len()));
    }
    out
}

/// The most of an unexpected token a syntax error shows, in bytes.
const MAX_SHOWN_TOKEN: usize = 60;

fn syntax_error(
    source: &Arc<Source>,
    offset: usize,
    text: &str,
    err: pest::error::Error<Rule>,
) -> Diagnostic {
    let (at, end) = match err.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((s, e)) => (s, e),
    };
    // Point at the offending token rather than at an empty position; never inside a character.
    let at = floor_boundary(text, at.min(text.len()));
    let rest = &text[at..];
    let first_len = rest.chars().next().map_or(0, char::len_utf8);
    let token_len = rest
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '(' | ')' | ';' | ','))
        .map_or(rest.len(), |(i, _)| i)
        .max(first_len);
    let end = floor_boundary(text, end.max(at + token_len).min(text.len()));
    // A token can be a whole 10 MB line: show and underline its start only.
    let cut = end - at > MAX_SHOWN_TOKEN;
    let end = if cut {
        floor_boundary(text, at + MAX_SHOWN_TOKEN).max(at + first_len)
    } else {
        end
    };
    let span = Span::new(offset + at, offset + end);
    let expected = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => describe_expected(positives),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let found = text[at..end].trim();
    let more = if cut { "…" } else { "" };
    let message = if found.is_empty() {
        format!("expected {expected}")
    } else {
        format!("expected {expected}, found `{found}{more}`")
    };
    let mut d =
        Diagnostic::error(source, "syntax", span, message).label(format!("expected {expected}"));
    d = d.help(match &err.variant {
        ErrorVariant::ParsingError { positives, .. }
            if positives.contains(&Rule::EOI) || at >= text.trim_end().len() =>
        {
            "every statement ends with `;`".to_string()
        }
        _ => "a rule looks like `allow bash(\"git *\") risk low reason \"…\";`".to_string(),
    });
    d
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn describe_expected(rules: &[Rule]) -> String {
    let mut words: Vec<&str> = rules
        .iter()
        .filter_map(|r| {
            Some(match r {
                Rule::ident => "a word",
                Rule::tool_pattern => "a tool name",
                Rule::string | Rule::json_string | Rule::raw_string => "a quoted string",
                Rule::matchers => "`(`",
                Rule::arg_matcher | Rule::plain_matcher | Rule::kw_arg => "a matcher",
                Rule::matcher => "a matcher",
                Rule::list => "`[`",
                Rule::group => "`(`",
                Rule::risk_opt | Rule::kw_risk => "`risk`",
                Rule::reason_opt | Rule::kw_reason => "`reason`",
                Rule::profile_opt | Rule::kw_profile => "`profile`",
                Rule::unless_opt | Rule::kw_unless => "`unless`",
                Rule::bad_option => "an option",
                Rule::json_object => "a JSON object",
                Rule::json_value => "a JSON value",
                Rule::json_pair => "a JSON key",
                Rule::call => "a tool call",
                Rule::EOI => "`;`",
                Rule::kw_include
                | Rule::kw_replace
                | Rule::replace_stmt
                | Rule::body
                | Rule::kw_default
                | Rule::kw_headless
                | Rule::headless_stmt
                | Rule::kw_expect
                | Rule::kw_protect
                | Rule::rule_stmt
                | Rule::default_stmt
                | Rule::expect_stmt
                | Rule::include_stmt
                | Rule::protect_stmt => "a statement",
                _ => return None,
            })
        })
        .collect();
    words.dedup();
    let mut seen = Vec::new();
    words.retain(|w| {
        let fresh = !seen.contains(w);
        seen.push(*w);
        fresh
    });
    match words.len() {
        0 => "`;`".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

/// Lowers pest pairs of one statement into the syntax tree, checking the words the grammar left
/// open (decisions, risks, options, matcher keywords).
struct Lower<'a> {
    source: &'a Arc<Source>,
    offset: usize,
    diags: &'a mut Vec<Diagnostic>,
}

impl Lower<'_> {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.offset + s.start(), self.offset + s.end())
    }

    fn error(&mut self, span: Span, code: &'static str, message: String, help: Option<String>) {
        let mut d = Diagnostic::error(self.source, code, span, message);
        if let Some(h) = help {
            d = d.help(h);
        }
        self.diags.push(d);
    }

    fn statement(&mut self, inner: Pair<Rule>) -> Option<Statement> {
        match inner.as_rule() {
            Rule::rule_stmt => self.rule(inner).map(Statement::Rule),
            Rule::default_stmt => self.default(inner, "default").map(Statement::Default),
            Rule::headless_stmt => {
                let span = self.span(&inner);
                let d = self.default(inner, "headless")?;
                if d.risk.is_none() {
                    self.diags.push(
                        Diagnostic::error(
                            self.source,
                            "headless-risk",
                            span,
                            "`headless` needs the risk it is about",
                        )
                        .help("write `headless deny risk high;` or `headless allow risk low;`"),
                    );
                    return None;
                }
                Some(Statement::Headless(d))
            }
            Rule::expect_stmt => self.expect(inner).map(Statement::Expect),
            Rule::include_stmt => {
                let span = self.span(&inner);
                let s = inner.into_inner().find(|p| p.as_rule() == Rule::string)?;
                let path = self.string(s)?;
                Some(Statement::Include(Include { path, span }))
            }
            Rule::replace_stmt => {
                let span = self.span(&inner);
                let s = inner.into_inner().find(|p| p.as_rule() == Rule::string)?;
                let path = self.string(s)?;
                if path.value != super::DEFAULT_POLICY {
                    self.diags.push(
                        Diagnostic::error(
                            self.source,
                            "replace",
                            path.span,
                            format!("`{}` is not a policy that can be replaced", path.value),
                        )
                        .label("only the shipped default policy sits under other policies")
                        .help(format!("write `replace \"{}\";`", super::DEFAULT_POLICY)),
                    );
                    return None;
                }
                Some(Statement::Replace(Include { path, span }))
            }
            Rule::protect_stmt => {
                let span = self.span(&inner);
                let mut it = inner
                    .into_inner()
                    .filter(|p| p.as_rule() != Rule::kw_protect);
                let path = self.string(it.next()?)?;
                let mut reason = None;
                for opt in it {
                    match opt.as_rule() {
                        Rule::reason_opt => reason = self.reason(opt),
                        _ => self.misplaced_option(&opt, "protect", &["reason"]),
                    }
                }
                Some(Statement::Protect(Protect { path, reason, span }))
            }
            _ => None,
        }
    }

    fn action(&mut self, p: &Pair<Rule>, statement_word: bool) -> Option<Spanned<Action>> {
        let span = self.span(p);
        let word = p.as_str();
        if let Some(a) = Action::parse(word) {
            return Some(Spanned::new(a, span));
        }
        let candidates: &[&str] = if statement_word {
            &STATEMENT_KEYWORDS
        } else {
            &["allow", "deny", "ask", "sandbox"]
        };
        let what = if statement_word {
            "statement"
        } else {
            "decision"
        };
        let help = match did_you_mean(word, candidates.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None if statement_word => {
                "a statement starts with `allow`, `deny`, `ask`, `sandbox`, `default`, `expect`, `include` or `protect`".into()
            }
            None => "a decision is `allow`, `deny`, `ask` or `sandbox`".into(),
        };
        self.error(
            span,
            "unknown-decision",
            format!("unknown {what} `{word}`"),
            Some(help),
        );
        None
    }

    fn risk(&mut self, p: Pair<Rule>) -> Option<Spanned<Risk>> {
        let word = p.into_inner().find(|p| p.as_rule() == Rule::ident)?;
        let span = self.span(&word);
        match Risk::parse(word.as_str()) {
            Some(r) => Some(Spanned::new(r, span)),
            None => {
                let help = match did_you_mean(word.as_str(), ["high", "medium", "low"]) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "a risk is `high`, `medium` or `low`".into(),
                };
                self.error(
                    span,
                    "unknown-risk",
                    format!("unknown risk `{}`", word.as_str()),
                    Some(help),
                );
                None
            }
        }
    }

    fn reason(&mut self, p: Pair<Rule>) -> Option<Spanned<Text>> {
        let s = p.into_inner().find(|p| p.as_rule() == Rule::string)?;
        self.string(s)
    }

    fn string(&mut self, p: Pair<Rule>) -> Option<Spanned<Text>> {
        let span = self.span(&p);
        let inner = p.into_inner().next()?;
        let text = inner.as_str();
        match inner.as_rule() {
            Rule::raw_string => Some(Spanned::new(
                text[1..text.len() - 1].to_string().into(),
                span,
            )),
            _ => match serde_json::from_str::<String>(text) {
                Ok(s) => Some(Spanned::new(s.into(), span)),
                Err(e) => {
                    self.error(
                        span,
                        "bad-string",
                        format!("invalid escape in string: {e}"),
                        Some("escapes are JSON's (`\\\"`, `\\\\`, `\\n`, `\\u00e9`); 'single quotes' take text as it is".into()),
                    );
                    None
                }
            },
        }
    }

    fn misplaced_option(&mut self, opt: &Pair<Rule>, statement: &str, allowed: &[&str]) {
        let span = self.span(opt);
        let word = opt.as_str().split_whitespace().next().unwrap_or("");
        if STATEMENT_KEYWORDS.contains(&word) && self.starts_line(span.start) {
            // `allow bash("a")⏎allow read_file;` reads as one rule with an option `allow`.
            self.diags.push(missing_semicolon(self.source, span.start));
            return;
        }
        if allowed.contains(&word) {
            let value = opt.clone().into_inner().nth(1);
            return self.bad_option_value(word, value, span);
        }
        let help = if OPTION_KEYWORDS.contains(&word) {
            if allowed.is_empty() {
                format!("`{statement}` takes no options")
            } else {
                format!(
                    "`{statement}` takes only {}",
                    backticked(allowed.iter().copied())
                )
            }
        } else {
            match did_you_mean(word, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("options are {}", backticked(allowed.iter().copied())),
            }
        };
        let message = if OPTION_KEYWORDS.contains(&word) {
            format!("`{word}` is not allowed here")
        } else {
            format!("unknown option `{word}`")
        };
        self.error(span, "unknown-option", message, Some(help));
    }

    /// Whether only blanks stand between the start of its line and `at` (and it is not on the
    /// first line of the file).
    fn starts_line(&self, at: usize) -> bool {
        let before = &self.source.text[..at];
        before.trim_end_matches([' ', '\t']).ends_with('\n')
    }

    /// An option this statement takes, with a value of the wrong shape (`risk "high"`,
    /// `reason secrets`) or none (`reason;`, `unless;`): what it takes, and the fix.
    fn bad_option_value(&mut self, word: &str, value: Option<Pair<Rule>>, span: Span) {
        let value_text = value.as_ref().map(|v| v.as_str().to_string());
        let quoted = value.as_ref().is_some_and(|v| v.as_rule() == Rule::string);
        let (message, help) = match (word, value_text) {
            ("risk", Some(v)) if quoted => {
                let bare = v.trim_matches(['"', '\'']);
                let help = match Risk::parse(bare) {
                    Some(_) => format!("write `risk {bare}`, without quotes"),
                    None => "write `risk low`, `risk medium` or `risk high`, without quotes".into(),
                };
                ("`risk` takes a bare word, not a quoted string".to_string(), help)
            }
            ("reason", Some(v)) => (
                "`reason` takes a quoted string".to_string(),
                format!("write `reason \"{v}\"`"),
            ),
            ("risk", _) => (
                "`risk` needs a level after it".to_string(),
                "write `risk low`, `risk medium` or `risk high`".to_string(),
            ),
            ("reason", None) => (
                "`reason` needs a quoted string after it".to_string(),
                "write `reason \"why this rule exists\"`".to_string(),
            ),
            ("unless", _) => (
                "`unless` needs a matcher after it".to_string(),
                "write `unless contains \"--force\"`, or a group: `unless (prefix \"git push\", flag \"-f\")`".to_string(),
            ),
            (w, _) => (format!("`{w}` is not written this way"), format!("see how `{w}` is written in docs/policy-language.md")),
        };
        self.error(span, "bad-option", message, Some(help));
    }

    fn rule(&mut self, pair: Pair<Rule>) -> Option<Rule_> {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let action_pair = it.next()?;
        let tool_pair = it.next()?;
        let action = self.action(&action_pair, true);
        let tool = Spanned::new(tool_pair.as_str().to_string().into(), self.span(&tool_pair));
        let mut ok = action.is_some();
        let mut matchers = None;
        let mut unless = Vec::new();
        let mut risk = None;
        let mut reason = None;
        let mut profile = None;
        for p in it {
            match p.as_rule() {
                Rule::matchers => {
                    let mut list = Vec::new();
                    for m in p.into_inner() {
                        match self.matcher(m) {
                            Some(m) => list.push(m),
                            None => ok = false,
                        }
                    }
                    matchers = Some(list);
                }
                Rule::risk_opt => {
                    if risk.is_some() {
                        self.duplicate_option(&p, "risk");
                    }
                    risk = self.risk(p);
                    ok &= risk.is_some();
                }
                Rule::reason_opt => {
                    if reason.is_some() {
                        self.duplicate_option(&p, "reason");
                    }
                    reason = self.reason(p);
                    ok &= reason.is_some();
                }
                Rule::unless_opt => {
                    let mut group = Vec::new();
                    for q in p.into_inner().filter(|q| q.as_rule() != Rule::kw_unless) {
                        let ms: Vec<Pair<Rule>> = match q.as_rule() {
                            Rule::group => q.into_inner().collect(),
                            _ => vec![q],
                        };
                        for m in ms {
                            match self.matcher(m) {
                                Some(m) => group.push(m),
                                None => ok = false,
                            }
                        }
                    }
                    unless.push(group);
                }
                Rule::profile_opt => {
                    if profile.is_some() {
                        self.duplicate_option(&p, "profile");
                    }
                    profile = self.profile(p);
                    ok &= profile.is_some();
                }
                Rule::bad_option => {
                    self.misplaced_option(&p, "a rule", &OPTION_KEYWORDS);
                    ok = false;
                }
                _ => {}
            }
        }
        let action = action?;
        ok &= self.sandbox_parts(&action, &tool, profile.as_ref());
        ok.then_some(Rule_ {
            action,
            tool,
            matchers,
            unless,
            risk,
            reason,
            profile,
            span,
        })
    }

    /// `profile "cargo"`: one of the sandbox's profiles.
    fn profile(&mut self, p: Pair<Rule>) -> Option<Spanned<Text>> {
        let s = p.into_inner().find(|p| p.as_rule() == Rule::string)?;
        let name = self.string(s)?;
        if crate::sandbox::profile(&name.value).is_some() {
            return Some(name);
        }
        let names = backticked(crate::sandbox::profile_names());
        let help = match did_you_mean(&name.value, crate::sandbox::profile_names()) {
            Some(s) => format!("did you mean `{s}`? The profiles are {names}"),
            None => format!("the profiles are {names}"),
        };
        self.error(
            name.span,
            "unknown-profile",
            format!("no sandbox profile `{}`", name.value),
            Some(help),
        );
        None
    }

    /// A `sandbox` rule contains commands, so it is about `bash`; a `profile` belongs to one.
    fn sandbox_parts(
        &mut self,
        action: &Spanned<Action>,
        tool: &Spanned<Text>,
        profile: Option<&Spanned<Text>>,
    ) -> bool {
        if action.value == Action::Sandbox && tool.value != "bash" {
            self.error(
                tool.span,
                "sandbox-tool",
                format!(
                    "`sandbox` runs commands contained: it cannot decide `{}` calls",
                    tool.value
                ),
                Some(
                    "write `sandbox bash(…)`; for other tools use `allow`, `ask` or `deny`".into(),
                ),
            );
            return false;
        }
        match profile {
            Some(p) if action.value != Action::Sandbox => {
                self.error(
                    p.span,
                    "profile-without-sandbox",
                    format!(
                        "`profile` belongs to a `sandbox` rule, not to `{}`",
                        action.value
                    ),
                    Some(format!(
                        "write `sandbox {}(…) profile \"{}\"`, or leave `profile` out",
                        tool.value, p.value
                    )),
                );
                false
            }
            _ => true,
        }
    }

    fn duplicate_option(&mut self, p: &Pair<Rule>, word: &str) {
        let span = self.span(p);
        self.error(
            span,
            "duplicate-option",
            format!("`{word}` is given twice"),
            Some("keep one; the last one would win".into()),
        );
    }

    fn matcher(&mut self, pair: Pair<Rule>) -> Option<Matcher> {
        let span = self.span(&pair);
        let MatcherParts {
            words,
            values,
            list,
        } = self.matcher_parts(pair)?;
        let has_value = list || !values.is_empty();
        let (kind, arg) = self.matcher_kind_and_arg(words, has_value)?;
        self.check_matcher_value(kind, span, has_value, list && values.is_empty())?;
        Some(Matcher {
            kind,
            arg,
            values,
            list,
            span,
        })
    }

    /// A matcher's words, values and list; `None` for a string that does not parse.
    fn matcher_parts(&mut self, pair: Pair<Rule>) -> Option<MatcherParts> {
        let mut words = Vec::new();
        let mut values = Vec::new();
        let mut list = false;
        let parts = pair.into_inner().flat_map(|p| match p.as_rule() {
            Rule::arg_matcher | Rule::plain_matcher => p.into_inner().collect::<Vec<_>>(),
            _ => vec![p],
        });
        for p in parts {
            match p.as_rule() {
                Rule::ident | Rule::kw_arg => words.push((p.as_str().to_string(), self.span(&p))),
                Rule::string => values.push(self.string(p)?),
                Rule::list => {
                    list = true;
                    for s in p.into_inner() {
                        values.push(self.string(s)?);
                    }
                }
                _ => {}
            }
        }
        Some(MatcherParts {
            words,
            values,
            list,
        })
    }

    /// The kind a matcher's words name, and the JSON argument after `arg`; `None` (an error
    /// reported) for words that name none.
    fn matcher_kind_and_arg(
        &mut self,
        words: Vec<(String, Span)>,
        has_value: bool,
    ) -> Option<(MatcherKind, Option<Spanned<Text>>)> {
        let mut words = words.into_iter();
        let (kind, arg) = match words.next() {
            None => (MatcherKind::Shorthand, None),
            Some((w, wspan)) if w == "arg" => {
                let Some((name, nspan)) = words.next() else {
                    return self.bad_matcher(
                        wspan,
                        "`arg` needs the name of an argument".into(),
                        "for example `arg url host \"github.com\"`".into(),
                    );
                };
                let kind = match words.next() {
                    None => MatcherKind::Shorthand,
                    Some((k, kspan)) => self.matcher_kind(&k, kspan, true)?,
                };
                (kind, Some(Spanned::new(name.into(), nspan)))
            }
            Some((w, wspan)) => (self.matcher_kind(&w, wspan, false)?, None),
        };
        if let Some((extra, espan)) = words.next() {
            if kind.takes_value() && !has_value {
                // `prefix rm`: the value written without its quotes.
                let rest: Vec<(String, Span)> = words.collect();
                let end = rest.last().map_or(espan.end, |(_, s)| s.end);
                let mut bare = extra;
                for (w, _) in &rest {
                    bare.push(' ');
                    bare.push_str(w);
                }
                return self.bad_matcher(
                    Span::new(espan.start, end),
                    format!("`{}` takes a quoted value", kind.keyword()),
                    format!("write `{} \"{bare}\"`", kind.keyword()),
                );
            }
            return self.bad_matcher(
                espan,
                format!("unexpected `{extra}` in a matcher"),
                "separate matchers with `,`".into(),
            );
        }
        Some((kind, arg))
    }

    /// Whether a matcher of `kind` has a value when, and only when, it takes one, and its
    /// list (if any) is not empty; `None` (an error reported) when not.
    fn check_matcher_value(
        &mut self,
        kind: MatcherKind,
        span: Span,
        has_value: bool,
        empty_list: bool,
    ) -> Option<()> {
        if kind.takes_value() && !has_value {
            return self.bad_matcher(
                span,
                format!("`{}` needs a quoted value", kind.keyword()),
                format!("for example `{} \"…\"`", kind.keyword()),
            );
        }
        if !kind.takes_value() && has_value {
            return self.bad_matcher(
                span,
                format!("`{}` takes no value", kind.keyword()),
                format!("write `{}` alone", kind.keyword()),
            );
        }
        if empty_list {
            return self.bad_matcher(
                span,
                "empty list matches nothing".into(),
                "give at least one value".into(),
            );
        }
        Some(())
    }

    /// Reports a matcher that does not make sense (`bad-matcher`); always `None`.
    fn bad_matcher<T>(&mut self, span: Span, message: String, help: String) -> Option<T> {
        self.error(span, "bad-matcher", message, Some(help));
        None
    }

    fn matcher_kind(&mut self, word: &str, span: Span, after_arg: bool) -> Option<MatcherKind> {
        match MatcherKind::from_keyword(word) {
            Some(k)
                if !after_arg
                    || MatcherKind::TABLE
                        .iter()
                        .any(|(kk, _, _, a)| *kk == k && *a) =>
            {
                Some(k)
            }
            Some(k) => self.bad_matcher(
                span,
                format!("`{}` does not apply to a JSON argument", k.keyword()),
                "after `arg NAME` use a string, `prefix`, `glob`, `contains`, `regex`, `exact`, `path` or `host`".into(),
            ),
            None => {
                let help = match did_you_mean(word, MatcherKind::keywords()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!(
                        "matchers are a quoted string or one of {}",
                        backticked(MatcherKind::keywords())
                    ),
                };
                self.error(
                    span,
                    "unknown-matcher",
                    format!("unknown matcher `{word}`"),
                    Some(help),
                );
                None
            }
        }
    }

    fn default(&mut self, pair: Pair<Rule>, keyword: &str) -> Option<DefaultStmt> {
        let span = self.span(&pair);
        let mut reason = None;
        let keywords = [Rule::kw_default, Rule::kw_headless];
        let (action, risk, ok) = self.action_and_risk(pair, &keywords, |this, p| {
            if p.as_rule() == Rule::reason_opt {
                reason = this.reason(p);
                reason.is_some()
            } else {
                this.misplaced_option(&p, keyword, &["risk", "reason"]);
                false
            }
        });
        let action = action?;
        if action.value == Action::Sandbox {
            self.error(
                action.span,
                "sandbox-default",
                format!(
                    "`{keyword} sandbox` is not a thing: only `sandbox` rules contain commands"
                ),
                Some(format!(
                    "write `{keyword} ask` (or `allow`, `deny`) and `sandbox bash(…)` rules for \
                     what may run contained"
                )),
            );
            return None;
        }
        ok.then_some(DefaultStmt {
            action,
            risk,
            reason,
            span,
        })
    }

    fn expect(&mut self, pair: Pair<Rule>) -> Option<Expect> {
        let span = self.span(&pair);
        let mut call = None;
        let (action, risk, ok) = self.action_and_risk(pair, &[Rule::kw_expect], |this, p| {
            if p.as_rule() == Rule::call {
                call = this.call(p);
            }
            true
        });
        let (action, call) = (action?, call?);
        ok.then_some(Expect {
            action,
            risk,
            call,
            span,
        })
    }

    /// The action after the `keywords` of a `default` or `expect` statement, its `risk`
    /// option, and whether every option parsed. Each other part goes to `other`, which says
    /// whether it parsed (having reported its error when not).
    fn action_and_risk(
        &mut self,
        pair: Pair<Rule>,
        keywords: &[Rule],
        mut other: impl FnMut(&mut Self, Pair<Rule>) -> bool,
    ) -> (Option<Spanned<Action>>, Option<Spanned<Risk>>, bool) {
        let mut it = pair
            .into_inner()
            .filter(|p| !keywords.contains(&p.as_rule()));
        let action = it.next().and_then(|p| self.action(&p, false));
        let mut risk = None;
        let mut ok = true;
        for p in it {
            if p.as_rule() == Rule::risk_opt {
                risk = self.risk(p);
                ok &= risk.is_some();
            } else {
                ok &= other(self, p);
            }
        }
        (action, risk, ok)
    }

    fn call(&mut self, pair: Pair<Rule>) -> Option<Spanned<ExpectCall>> {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let tool_pair = it.next()?;
        let tool = tool_pair.as_str().to_string();
        if tool.contains(['*', '?']) {
            let s = self.span(&tool_pair);
            self.error(
                s,
                "bad-expect",
                format!("`{tool}` is a pattern, not a tool"),
                Some("an `expect` names one tool call, e.g. `expect allow bash(\"ls\");`".into()),
            );
            return None;
        }
        let arg = match it.next() {
            None => ExpectArg::None,
            Some(p) if p.as_rule() == Rule::string => {
                ExpectArg::Primary(self.string(p)?.value.into_owned())
            }
            Some(p) => {
                let pspan = self.span(&p);
                match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(p.as_str())
                {
                    Ok(m) => ExpectArg::Json(m),
                    Err(e) => {
                        self.error(
                            pspan,
                            "bad-expect",
                            format!("invalid JSON arguments: {e}"),
                            None,
                        );
                        return None;
                    }
                }
            }
        };
        Some(Spanned::new(ExpectCall { tool, arg }, span))
    }
}

/// The rule node's name clashes with pest's `Rule` enum inside this module.
type Rule_ = super::ast::Rule;

/// Words in back-ticks, separated by commas (`` `a`, `b` ``).
fn backticked<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A matcher as written: its words (`arg url host`), its quoted values, and whether they are
/// a list.
struct MatcherParts {
    words: Vec<(String, Span)>,
    values: Vec<Spanned<Text>>,
    list: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shipped_policy_without_its_expects_is_the_same_statements_at_the_same_places() {
        for (name, text) in crate::policy::EMBEDDED {
            let source = Arc::new(Source::new(name, text));
            let (all, diags) = parse_policy(&source);
            assert!(diags.is_empty(), "{name}");
            let (rules, diags) = parse_policy_without_expects(&source);
            assert!(diags.is_empty(), "{name}");
            let kept: Vec<&Statement> = all
                .statements
                .iter()
                .filter(|s| !matches!(s, Statement::Expect(_)))
                .collect();
            assert!(kept.len() < all.statements.len() || !text.contains("expect"));
            assert_eq!(kept.len(), rules.statements.len(), "{name}");
            for (a, b) in kept.iter().zip(&rules.statements) {
                assert_eq!(*a, b, "{name}");
                assert_eq!(
                    (a.span().start, a.span().end),
                    (b.span().start, b.span().end)
                );
            }
        }
    }

    #[test]
    fn only_an_expect_statement_is_left_out() {
        for text in [
            "expect deny bash(\"rm -rf /\");",
            "  # a comment\n# another\n  expect allow read_file(\"a\");",
            "expect\tallow read_file;",
        ] {
            assert!(is_expect(text), "{text:?}");
        }
        for text in [
            "expects allow read_file;",
            "expect-x allow read_file;",
            "allow bash(\"expect *\");",
            "# expect deny bash(\"x\");\nallow read_file;",
        ] {
            assert!(!is_expect(text), "{text:?}");
        }
        let source = Arc::new(Source::new(
            "t.policy",
            "allow read_file; expect allow read_file(\"a\"); deny bash(\"rm *\");",
        ));
        let (file, diags) = parse_policy_without_expects(&source);
        assert!(diags.is_empty());
        assert_eq!(file.statements.len(), 2);
    }

    fn parse(text: &str) -> (PolicyFile, Vec<Diagnostic>) {
        parse_policy(&Source::new("t.policy", text))
    }

    fn ok(text: &str) -> PolicyFile {
        let (f, d) = parse(text);
        assert!(
            d.is_empty(),
            "unexpected diagnostics: {:?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        f
    }

    #[test]
    fn parses_the_core_syntax_of_the_spec() {
        let f = ok(r#"
            # comment
            allow bash("git *");
            deny  read_file("secrets/**") reason "team secrets";
            ask   bash("terraform apply*") risk high reason "changes production";
            ask   bash(prefix "sudo") risk medium;
            allow mcp__github__*;
            default ask risk low;
            expect allow bash("git status");
        "#);
        assert_eq!(f.statements.len(), 7);
        let Statement::Rule(r) = &f.statements[2] else {
            panic!("not a rule")
        };
        assert_eq!(r.action.value, Action::Ask);
        assert_eq!(r.tool.value, "bash");
        assert_eq!(r.risk.as_ref().map(|r| r.value), Some(Risk::High));
        assert_eq!(
            r.reason.as_ref().map(|r| &*r.value),
            Some("changes production")
        );
        let Statement::Rule(r) = &f.statements[4] else {
            panic!("not a rule")
        };
        assert_eq!(r.tool.value, "mcp__github__*");
        assert!(r.matchers.is_none());
    }

    #[test]
    fn spans_point_at_the_written_text() {
        let src = "allow bash(prefix \"git log\") risk low;";
        let f = ok(src);
        let Statement::Rule(r) = &f.statements[0] else {
            panic!("not a rule")
        };
        let m = &r.matchers.as_ref().unwrap()[0];
        assert_eq!(&src[m.span.start..m.span.end], "prefix \"git log\"");
        assert_eq!(
            &src[m.values[0].span.start..m.values[0].span.end],
            "\"git log\""
        );
        let risk = r.risk.as_ref().unwrap();
        assert_eq!(&src[risk.span.start..risk.span.end], "low");
    }

    #[test]
    fn unless_groups_and_arg_matchers_parse() {
        let f = ok(
            r#"allow bash("git *") unless contains "--force" unless (prefix "git push", flag "-f");
                      allow mcp__fetch__fetch(arg url host ["github.com", "*.github.com"]);
                      ask bash(piped, program ["bash", "sh"]) risk high;"#,
        );
        let Statement::Rule(r) = &f.statements[0] else {
            panic!("not a rule")
        };
        assert_eq!(r.unless.len(), 2);
        assert_eq!(r.unless[1].len(), 2);
        let Statement::Rule(r) = &f.statements[1] else {
            panic!("not a rule")
        };
        let m = &r.matchers.as_ref().unwrap()[0];
        assert_eq!(m.kind, MatcherKind::Host);
        assert_eq!(m.arg.as_ref().unwrap().value, "url");
        assert_eq!(m.values.len(), 2);
    }

    #[test]
    fn argument_names_may_be_option_keywords() {
        let f = ok(
            r#"allow x(arg risk "v", arg reason.code prefix "a") unless arg unless-x "w" risk low;"#,
        );
        let Statement::Rule(r) = &f.statements[0] else {
            panic!("not a rule")
        };
        let ms = r.matchers.as_ref().unwrap();
        assert_eq!(ms[0].arg.as_ref().unwrap().value, "risk");
        assert_eq!(ms[1].arg.as_ref().unwrap().value, "reason.code");
        assert_eq!(r.unless[0][0].arg.as_ref().unwrap().value, "unless-x");
        assert_eq!(r.risk.as_ref().unwrap().value, Risk::Low);
    }

    #[test]
    fn every_broken_statement_of_a_file_is_reported() {
        let (f, d) = parse("alow bash(\"x\");\nallow bash(\"y\") risk hgh;\nallow bash(\"z\")\ndeny bash(\"w\");\nallow read_file;");
        let msgs: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert!(msgs.contains(&"unknown statement `alow`"), "{msgs:?}");
        assert!(msgs.contains(&"unknown risk `hgh`"), "{msgs:?}");
        assert_eq!(d[0].help.as_deref(), Some("did you mean `allow`?"));
        assert_eq!(d[1].help.as_deref(), Some("did you mean `high`?"));
        // `allow bash("z")\ndeny bash("w");` lacks a `;`, said once; both parts are read, and
        // so is the last statement.
        assert!(
            msgs.contains(&"expected `;` at the end of line 3"),
            "{msgs:?}"
        );
        assert_eq!(f.statements.len(), 3);
    }

    #[test]
    fn missing_semicolon_at_the_end_says_so() {
        let (_, d) = parse("allow bash(\"x\")");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].help.as_deref(), Some("every statement ends with `;`"));
    }

    #[test]
    fn misspelled_matcher_and_option_get_suggestions() {
        let (_, d) = parse("allow bash(prefx \"git\");\nallow bash(\"x\") reasn \"y\";");
        assert_eq!(d[0].message, "unknown matcher `prefx`");
        assert_eq!(d[0].help.as_deref(), Some("did you mean `prefix`?"));
        assert_eq!(d[1].message, "unknown option `reasn`");
        assert_eq!(d[1].help.as_deref(), Some("did you mean `reason`?"));
    }

    #[test]
    fn a_sandbox_rule_parses_with_its_profile_and_prints_back() {
        let f = ok("sandbox bash(prefix \"cargo test\") profile \"cargo\" reason \"tests\";");
        let Statement::Rule(r) = &f.statements[0] else {
            panic!("{f:?}");
        };
        assert_eq!(r.action.value, Action::Sandbox);
        assert_eq!(r.profile.as_ref().map(|p| &*p.value), Some("cargo"));
        let printed = crate::policy::print::print_policy(&f);
        assert_eq!(
            printed,
            "sandbox bash(prefix \"cargo test\") profile \"cargo\" reason \"tests\";\n"
        );
        assert_eq!(ok(&printed), f);
        // After a matcher without a value, `profile` is still an option.
        let g = ok("sandbox bash unless piped profile \"npm\";");
        let Statement::Rule(r) = &g.statements[0] else {
            panic!("{g:?}");
        };
        assert_eq!(r.profile.as_ref().map(|p| &*p.value), Some("npm"));
    }

    #[test]
    fn a_misspelled_sandbox_word_or_profile_gets_a_suggestion_naming_the_profiles() {
        let (_, d) = parse("sandbx bash(\"make\");");
        assert_eq!(d[0].message, "unknown statement `sandbx`");
        assert_eq!(d[0].help.as_deref(), Some("did you mean `sandbox`?"));
        let text = "sandbox bash(\"make\") profile \"carg\";";
        let (_, d) = parse(text);
        assert_eq!(d[0].message, "no sandbox profile `carg`");
        assert_eq!(&text[d[0].span().start..d[0].span().end], "\"carg\"");
        let help = d[0].help.as_deref().unwrap_or_default();
        assert!(help.starts_with("did you mean `cargo`?"), "{help}");
        assert!(
            help.contains("`default`, `cargo`, `npm`, `pip`, `go`, `build`"),
            "{help}"
        );
        let (_, d) = parse("expect sandbx bash(\"make\");");
        assert_eq!(d[0].help.as_deref(), Some("did you mean `sandbox`?"));
    }

    #[test]
    fn a_sandbox_rule_is_for_bash_and_a_profile_for_a_sandbox_rule() {
        let text = "sandbox read_file(\"src/**\");";
        let (f, d) = parse(text);
        assert!(f.statements.is_empty());
        assert_eq!(d[0].code, "sandbox-tool");
        assert_eq!(&text[d[0].span().start..d[0].span().end], "read_file");
        let text = "allow bash(\"make\") profile \"build\";";
        let (_, d) = parse(text);
        assert_eq!(d[0].code, "profile-without-sandbox");
        assert_eq!(&text[d[0].span().start..d[0].span().end], "\"build\"");
        for text in ["default sandbox;", "headless sandbox risk low;"] {
            let (f, d) = parse(text);
            assert!(f.statements.is_empty(), "{text}");
            assert_eq!(d[0].code, "sandbox-default", "{text}");
        }
        let (_, d) = parse("sandbox bash(\"make\") profile \"go\" profile \"npm\";");
        assert_eq!(d[0].message, "`profile` is given twice");
    }

    #[test]
    fn semicolons_inside_strings_and_comments_do_not_split() {
        let f = ok("allow bash(\"a; b\"); # c; d\nallow bash('e;f');");
        assert_eq!(f.statements.len(), 2);
    }

    #[test]
    fn expect_takes_json_arguments() {
        let f = ok(r#"expect deny risk high mcp__x__y({"url": "https://a.b/c", "n": 1});"#);
        let Statement::Expect(e) = &f.statements[0] else {
            panic!("not an expect")
        };
        assert_eq!(e.risk.as_ref().unwrap().value, Risk::High);
        let ExpectArg::Json(m) = &e.call.value.arg else {
            panic!("not json")
        };
        assert_eq!(m["n"], 1);
    }

    #[test]
    fn raw_strings_keep_backslashes() {
        let f = ok(r"deny bash(regex '^rm\s+-rf');");
        let Statement::Rule(r) = &f.statements[0] else {
            panic!("not a rule")
        };
        assert_eq!(
            r.matchers.as_ref().unwrap()[0].values[0].value,
            r"^rm\s+-rf"
        );
    }

    #[test]
    fn unicode_whitespace_is_a_diagnostic_not_a_panic() {
        for text in [
            "\u{a0}",
            "allow bash(\"x\")\u{a0};",
            "allow\u{3000}bash;",
            "\u{2028}",
        ] {
            let (_, d) = parse(text);
            assert!(!d.is_empty(), "{text:?}");
            let span = d[0].span();
            assert!(
                text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                "{text:?}"
            );
        }
    }

    #[test]
    fn unterminated_string_does_not_swallow_the_file() {
        let (f, d) = parse("allow bash(\"oops);\nallow read_file;\n");
        assert!(!d.is_empty());
        assert_eq!(f.statements.len(), 1);
    }

    // Found by the bad-input sweep: a 10 MB unterminated string was quoted whole in the
    // message (55 MB of `lint` output).
    #[test]
    fn a_syntax_error_quotes_only_the_start_of_a_huge_token() {
        let text = format!("allow bash(\"{}", "é".repeat(100_000));
        let (_, d) = parse(&text);
        let e = d
            .iter()
            .find(|d| d.code == "syntax")
            .expect("a syntax error");
        assert!(e.message.len() < 200, "{}", e.message);
        assert!(e.message.ends_with("…`"), "{}", e.message);
        assert!(e.span().end - e.span().start <= MAX_SHOWN_TOKEN);
        let (_, d) = parse("allow bash(\"abc");
        assert!(d[0].message.ends_with("found `\"abc`"), "{}", d[0].message);
    }
}
