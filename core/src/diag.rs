//! Diagnostics about text a person wrote: a policy file or a settings.json. Each one carries the
//! source, a labelled span, and usually a help line; miette renders them.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, SourceCode};

use crate::policy::ast::Span;

/// A source's text: read at run time and shared, or compiled into the binary and borrowed
/// from it (a hook process reads the shipped policies without copying them).
#[derive(Debug, Clone)]
pub enum Text {
    Shared(Arc<str>),
    Static(&'static str),
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Shared(t) => t,
            Text::Static(t) => t,
        }
    }
}

impl SourceCode for Text {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        (**self).read_span(span, context_lines_before, context_lines_after)
    }
}

/// A named source text (a file, or an embedded policy).
#[derive(Debug, Clone)]
pub struct Source {
    pub name: Arc<str>,
    pub text: Text,
    named: NamedSource<Text>,
    /// Byte offset where each line starts, for `line_col` in logarithmic time: worked out
    /// when the source is made, or by the compiler for a text compiled in.
    line_starts: Cow<'static, [usize]>,
}

impl Source {
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> Arc<Source> {
        let name = name.into();
        let text = Text::Shared(text.into());
        let named = NamedSource::new(&*name, text.clone());
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Arc::new(Source {
            name,
            text,
            named,
            line_starts: Cow::Owned(line_starts),
        })
    }

    /// A text compiled into the binary, with where its lines start as [`line_starts`] worked
    /// them out when it was compiled (a hook process builds one per shipped policy it reads:
    /// a scan of the text per process is what this saves).
    pub fn embedded(
        name: &'static str,
        text: &'static str,
        lines: &'static [usize],
    ) -> Arc<Source> {
        debug_assert_eq!(lines.len(), line_count(text));
        let text = Text::Static(text);
        Arc::new(Source {
            name: name.into(),
            named: NamedSource::new(name, text.clone()),
            text,
            line_starts: Cow::Borrowed(lines),
        })
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let col = self.text[start..offset].chars().count() + 1;
        (line, col)
    }

    /// The 1-based line of a byte offset, in logarithmic time whatever the line's length (a
    /// rule's label needs no column: a settings.json of 100,000 rules on one line stays fast).
    pub fn line(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// The text under a span.
    pub fn slice(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start.min(self.text.len()));
        let end = floor_char_boundary(&self.text, span.end.min(self.text.len()));
        &self.text[start..end.max(start)]
    }
}

/// Byte offset of a 1-based line and column (columns count characters), as serde_json reports
/// them.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col = l
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(l.len(), |(b, _)| b);
            return (offset + col).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// How many lines a text has (one more than its newlines), for [`line_starts`]'s length.
pub(crate) const fn line_count(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut n, mut i) = (1, 0);
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Where each of a text's `N` lines starts ([`line_count`] of them), as [`Source::new`] finds
/// them: a `const fn`, so that a text compiled in has them compiled in too.
pub(crate) const fn line_starts<const N: usize>(text: &str) -> [usize; N] {
    let bytes = text.as_bytes();
    let mut out = [0; N];
    let (mut n, mut i) = (1, 0);
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            out[n] = i + 1;
            n += 1;
        }
        i += 1;
    }
    out
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem in a source, with where it is and what to do about it.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable code, e.g. `syntax`, `unknown-risk`, `shadowed-rule`.
    pub code: &'static str,
    /// Short, lowercase, no trailing period; the user's text in backticks.
    pub message: String,
    /// The first label is the primary one.
    pub labels: Vec<(Span, String)>,
    pub help: Option<String>,
    pub source: Arc<Source>,
}

impl Diagnostic {
    pub fn error(
        source: &Arc<Source>,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: vec![(span, String::new())],
            help: None,
            source: source.clone(),
        }
    }

    pub fn warning(
        source: &Arc<Source>,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(source, code, span, message)
        }
    }

    /// Sets the primary label's text.
    pub fn label(mut self, text: impl Into<String>) -> Self {
        if let Some(first) = self.labels.first_mut() {
            first.1 = text.into();
        }
        self
    }

    /// Adds a secondary label.
    pub fn also(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The primary span.
    pub fn span(&self) -> Span {
        self.labels.first().map(|l| l.0).unwrap_or_default()
    }

    /// `file:line:column`, for one-line summaries.
    pub fn location(&self) -> String {
        let (line, col) = self.source.line_col(self.span().start);
        format!("{}:{}:{}", self.source.name, line, col)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("harness9::{}", self.code)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h.as_str()) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source.named)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().enumerate().map(
            |(i, (span, text))| {
                let label = (!text.is_empty()).then(|| text.clone());
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, *span)
                } else {
                    LabeledSpan::new_with_span(label, *span)
                }
            },
        )))
    }
}

/// Renders diagnostics the way the command line prints them (no colours when `plain`).
pub fn render(diags: &[Diagnostic], plain: bool) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme};
    let handler = if plain {
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
    } else {
        GraphicalReportHandler::new()
    }
    .with_width(100)
    // A path or a rule is one word: split, it can no longer be copied or clicked.
    .with_break_words(false)
    .with_word_separator(textwrap::WordSeparator::AsciiSpace)
    .with_word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut out = String::new();
    for d in diags {
        let shown;
        let d = if on_a_long_line(d) {
            shown = without_snippet(d);
            &shown
        } else {
            d
        };
        if handler.render_report(&mut out, d).is_err() {
            out.push_str(&format!("{}: {}\n", d.location(), d.message));
        }
    }
    out
}

/// Source lines longer than this are not quoted in a diagnostic: a minified, binary or
/// generated file would flood the terminal (and take seconds to lay out).
const MAX_QUOTED_LINE: usize = 1000;

fn on_a_long_line(d: &Diagnostic) -> bool {
    let bytes = d.source.text.as_bytes();
    d.labels.iter().any(|(span, _)| {
        let at = span.start.min(bytes.len());
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| at + i);
        end - start > MAX_QUOTED_LINE
    })
}

/// The diagnostic with its place in the message instead of a quoted source line, and its
/// message cut short.
fn without_snippet(d: &Diagnostic) -> Diagnostic {
    let mut message: String = d.message.chars().take(200).collect();
    if message.len() < d.message.len() {
        message.push('…');
    }
    Diagnostic {
        message: format!("{message} (at {}, a line too long to show)", d.location()),
        labels: Vec::new(),
        source: Source::new(d.source.name.to_string(), ""),
        ..d.clone()
    }
}

/// The closest candidate to a misspelled word, when it is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3) && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let s = Source::new("x", "ab\ncd");
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(4), (2, 2));
        assert_eq!(s.line_col(3), (2, 1));
        assert_eq!(s.line_col(2), (1, 3), "the newline belongs to its line");
        for offset in 0..=s.text.len() + 2 {
            assert_eq!(s.line(offset), s.line_col(offset).0, "at {offset}");
        }
        let u = Source::new("u", "é\nx");
        assert_eq!(u.line_col(2), (1, 2), "columns count characters");
    }

    #[test]
    fn did_you_mean_finds_close_words_only() {
        assert_eq!(
            did_you_mean("alow", ["allow", "deny", "ask"]),
            Some("allow")
        );
        assert_eq!(
            did_you_mean("hgih", ["high", "medium", "low"]),
            Some("high")
        );
        assert_eq!(did_you_mean("banana", ["allow", "deny", "ask"]), None);
    }

    // Found by the bad-input sweep: a diagnostic on a 10 MB line printed the line.
    #[test]
    fn a_diagnostic_on_a_huge_line_names_its_place_instead_of_quoting_it() {
        let text = format!("allow x;\n{}\n", "(".repeat(MAX_QUOTED_LINE + 1));
        let src = Source::new("big.policy", text);
        let d = Diagnostic::error(&src, "syntax", Span::new(10, 11), "expected `;`").help("end it");
        let out = render(&[d], true);
        assert!(out.len() < 500, "{out}");
        assert!(
            out.contains("expected `;` (at big.policy:2:2, a line too long to show)"),
            "{out}"
        );
        assert!(out.contains("end it"), "{out}");
        let short = Diagnostic::error(&src, "syntax", Span::new(0, 5), "short line");
        assert!(
            render(&[short], true).contains("allow x;"),
            "short lines are quoted"
        );
    }

    // Found by CI: in a deeper checkout the location was wrapped at a hyphen.
    #[test]
    fn a_long_hyphenated_path_is_never_split_across_lines() {
        let name = format!("/{}/nested-parentheses.policy", "deep-folder".repeat(12));
        let text = format!("{}\n", "(".repeat(MAX_QUOTED_LINE + 1));
        let src = Source::new(name.as_str(), text);
        let d = Diagnostic::error(&src, "syntax", Span::new(0, 1), "expected a matcher");
        let out = render(&[d], true);
        assert!(out.contains(&format!("{name}:1:1")), "{out}");
        let long = Diagnostic::error(&src, "syntax", Span::new(0, 1), name.clone());
        assert!(render(&[long], true).contains(&name));
    }
}
