//! `harness9 fmt`: the canonical layout of a policy file, comments kept.
//!
//! Every statement is printed by the canonical printer ([`super::print`]): one spelling for
//! everything, one statement a line. Around the statements:
//!
//! - a comment on a line of its own stays before the statement that follows it; a comment after
//!   a statement's `;` stays on that line (consecutive one-line statements with such comments
//!   get them aligned); a comment inside a statement moves to its own line before it;
//! - paragraphs are kept: one blank line where the file had one or more, none at the start or
//!   the end;
//! - a statement longer than [`WIDTH`] characters, or one its author wrote over several lines,
//!   is laid out over several lines: `action tool(matchers)` first, then each `unless` on an
//!   indented line of its own, then `risk … reason …` on one indented line. A `[…]` list that
//!   would pass [`WIDTH`] continues on the next line, aligned after its `[`.
//!
//! The one choice kept from the author is whether a short rule's options go on continuation
//! lines: tables of rules with their reasons under them read well, and so do one-line rules.
//! Everything else is a function of the syntax tree, so formatting is deterministic, idempotent,
//! and never changes what the file means (a property test checks all three).
//!
//! A file with syntax errors is not formatted: its diagnostics are returned instead.

use std::sync::Arc;

use super::ast::{Matcher, Rule, Statement};
use super::parse::parse_policy;
use super::print::{print_matcher, print_statement, quote};
use crate::diag::{Diagnostic, Source};

/// Lines longer than this are wrapped where the language allows.
pub const WIDTH: usize = 100;
/// The indentation of continuation lines.
pub const INDENT: &str = "    ";

/// Formats a policy file. `Err` holds the diagnostics of a file that does not parse.
pub fn format_policy(source: &Arc<Source>) -> Result<String, Vec<Diagnostic>> {
    let (file, diags) = parse_policy(source);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let text: &str = &source.text;
    let lexed = scan(text);
    let line = |offset: usize| source.line(offset);

    let mut blocks: Vec<Block> = Vec::new();
    let mut comments = lexed.comments.iter().peekable();
    let mut semis = lexed.semicolons.iter().copied();
    // The line of the previous statement's `;`, while a comment may still trail it.
    let mut trail_line: Option<usize> = None;
    for stmt in &file.statements {
        let span = stmt.span();
        let Some(semi) = semis.find(|&s| s >= span.end) else {
            return Err(vec![internal(source, "a statement without its `;`")]);
        };
        while let Some(c) = comments.next_if(|c| c.start < span.start) {
            push_comment(&mut blocks, &mut trail_line, text, c, line(c.start));
        }
        let mut lines: Vec<Line> = Vec::new();
        while let Some(c) = comments.next_if(|c| c.start < semi) {
            lines.push(Line::plain(comment_text(text, c)));
        }
        let written_over_lines = text[span.start..semi].contains('\n');
        let printed = statement_lines(stmt, written_over_lines);
        let single = printed.len() == 1;
        lines.extend(printed.into_iter().map(Line::plain));
        blocks.push(Block {
            first: line(span.start),
            last: line(semi),
            lines,
            single_statement: single,
        });
        trail_line = Some(line(semi));
    }
    for c in comments {
        push_comment(&mut blocks, &mut trail_line, text, c, line(c.start));
    }
    Ok(render(&blocks))
}

/// A file's statements and comments as located by [`scan`].
struct Lexed {
    comments: Vec<Comment>,
    semicolons: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Comment {
    start: usize,
    end: usize,
}

/// Finds the comments and the statement-ending `;` of a file, skipping strings (as the
/// parser's statement splitter does).
fn scan(text: &str) -> Lexed {
    let bytes = text.as_bytes();
    let mut comments = Vec::new();
    let mut semicolons = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                comments.push(Comment { start, end: i });
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q && bytes[i] != b'\n' {
                    if q == b'"' && bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b';' => semicolons.push(i),
            _ => {}
        }
        i += 1;
    }
    Lexed {
        comments,
        semicolons,
    }
}

fn comment_text(text: &str, c: &Comment) -> String {
    text[c.start..c.end].trim_end().to_string()
}

/// A comment between statements: it trails the previous statement when it is on the line of
/// that statement's `;`, else it stands on its own line (a block of its own, so blank lines
/// around it are kept).
fn push_comment(
    blocks: &mut Vec<Block>,
    trail_line: &mut Option<usize>,
    text: &str,
    c: &Comment,
    line: usize,
) {
    let body = comment_text(text, c);
    let trails = trail_line.take() == Some(line);
    if trails {
        if let Some(last) = blocks.last_mut().and_then(|b| b.lines.last_mut()) {
            last.trailing = Some(body);
            return;
        }
    }
    blocks.push(Block {
        first: line,
        last: line,
        lines: vec![Line::plain(body)],
        single_statement: false,
    });
}

/// One statement (with the comments that were inside it) or one own-line comment, with the
/// lines of the source it spanned.
struct Block {
    first: usize,
    last: usize,
    lines: Vec<Line>,
    /// A statement printed on one line (its trailing comment may be aligned with neighbours').
    single_statement: bool,
}

struct Line {
    text: String,
    trailing: Option<String>,
}

impl Line {
    fn plain(text: String) -> Line {
        Line {
            text,
            trailing: None,
        }
    }
}

fn internal(source: &Arc<Source>, what: &str) -> Diagnostic {
    Diagnostic::error(
        source,
        "fmt",
        Default::default(),
        format!("cannot format: {what}"),
    )
    .help("this is a bug in `harness9 fmt`; the file was left as it is")
}

/// Joins the blocks: one blank line where the source had at least one, trailing comments of
/// adjacent one-line statements aligned.
fn render(blocks: &[Block]) -> String {
    // Each output line, with whether it is a whole statement (whose trailing comment aligns).
    let mut lines: Vec<(&Line, bool)> = Vec::new();
    let mut blank_before: Vec<bool> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let gap = i > 0 && b.first > blocks[i - 1].last + 1;
        for (k, l) in b.lines.iter().enumerate() {
            let whole_statement = b.single_statement && k + 1 == b.lines.len();
            lines.push((l, whole_statement));
            blank_before.push(gap && k == 0);
        }
    }
    let aligned = |i: usize| lines[i].1 && lines[i].0.trailing.is_some();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        // A run of adjacent whole-statement lines with trailing comments.
        let mut j = i;
        if aligned(i) {
            while j + 1 < lines.len() && aligned(j + 1) && !blank_before[j + 1] {
                j += 1;
            }
        }
        let column = (i..=j).map(|k| width(&lines[k].0.text)).max().unwrap_or(0);
        for k in i..=j {
            if blank_before[k] {
                out.push('\n');
            }
            let l = lines[k].0;
            out.push_str(&l.text);
            if let Some(t) = &l.trailing {
                let pad = if j > i {
                    column - width(&l.text) + 1
                } else {
                    1
                };
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(t);
            }
            out.push('\n');
        }
        i = j + 1;
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// A statement's lines: the canonical one-line form when it fits and was written on one line,
/// else the wrapped layout.
pub fn statement_lines(stmt: &Statement, written_over_lines: bool) -> Vec<String> {
    let one = print_statement(stmt);
    if !written_over_lines && width(&one) <= WIDTH {
        return vec![one];
    }
    match stmt {
        Statement::Rule(r) => rule_lines(r),
        Statement::Default(d) | Statement::Headless(d) => {
            let keyword = match stmt {
                Statement::Headless(_) => "headless",
                _ => "default",
            };
            let mut opts = Vec::new();
            if let Some(r) = &d.risk {
                opts.push(format!("risk {}", r.value));
            }
            if let Some(r) = &d.reason {
                opts.push(format!("reason {}", quote(&r.value)));
            }
            head_and_options(format!("{keyword} {}", d.action.value), opts)
        }
        Statement::Protect(p) => {
            let opts = p
                .reason
                .iter()
                .map(|r| format!("reason {}", quote(&r.value)))
                .collect();
            head_and_options(format!("protect {}", quote(&p.path.value)), opts)
        }
        Statement::Expect(_) | Statement::Include(_) | Statement::Replace(_) => vec![one],
    }
}

fn head_and_options(head: String, opts: Vec<String>) -> Vec<String> {
    if opts.is_empty() {
        return vec![head + ";"];
    }
    vec![head, format!("{INDENT}{};", opts.join(" "))]
}

/// A piece of a line to lay out: text that stays together, a place where the line may break
/// (printed as one space when it does not), and the columns that continuation lines align to.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    /// The current column is where lines broken until the matching `Close` continue.
    Open,
    Close,
    Break,
}

fn rule_lines(r: &Rule) -> Vec<String> {
    let mut head = vec![Piece::Text(format!("{} {}", r.action.value, r.tool.value))];
    if let Some(ms) = &r.matchers {
        head.push(Piece::Text("(".into()));
        head.push(Piece::Open);
        matcher_list(&mut head, ms);
        head.push(Piece::Close);
        head.push(Piece::Text(")".into()));
    }
    let mut lines: Vec<Vec<Piece>> = vec![head];
    for group in &r.unless {
        let mut l = vec![Piece::Text(format!("{INDENT}unless "))];
        if group.len() == 1 && group[0].kind.takes_value() {
            matcher(&mut l, &group[0]);
        } else {
            l.push(Piece::Text("(".into()));
            l.push(Piece::Open);
            matcher_list(&mut l, group);
            l.push(Piece::Close);
            l.push(Piece::Text(")".into()));
        }
        lines.push(l);
    }
    let mut opts = Vec::new();
    if let Some(risk) = &r.risk {
        opts.push(format!("risk {}", risk.value));
    }
    if let Some(profile) = &r.profile {
        opts.push(format!("profile {}", quote(&profile.value)));
    }
    if let Some(reason) = &r.reason {
        opts.push(format!("reason {}", quote(&reason.value)));
    }
    if !opts.is_empty() {
        lines.push(vec![Piece::Text(format!("{INDENT}{}", opts.join(" ")))]);
    }
    if let Some(last) = lines.last_mut() {
        last.push(Piece::Text(";".into()));
    }
    lines.iter().flat_map(|l| fill(l)).collect()
}

fn matcher_list(out: &mut Vec<Piece>, ms: &[Matcher]) {
    for (i, m) in ms.iter().enumerate() {
        if i > 0 {
            out.push(Piece::Text(",".into()));
            out.push(Piece::Break);
        }
        matcher(out, m);
    }
}

fn matcher(out: &mut Vec<Piece>, m: &Matcher) {
    let printed = print_matcher(m);
    if !m.list {
        out.push(Piece::Text(printed));
        return;
    }
    // The text before the list (`arg url host `), which holds no `[`.
    let prefix = printed.split('[').next().unwrap_or_default();
    out.push(Piece::Text(format!("{prefix}[")));
    out.push(Piece::Open);
    for (i, v) in m.values.iter().enumerate() {
        if i > 0 {
            out.push(Piece::Text(",".into()));
            out.push(Piece::Break);
        }
        out.push(Piece::Text(quote(&v.value)));
    }
    out.push(Piece::Text("]".into()));
    out.push(Piece::Close);
}

/// Lays pieces out greedily. At a break, what follows is measured twice: up to the next break
/// of the same or an outer level (a whole matcher, list included: its *group*), and up to the
/// next break of any level (its first *chunk*). The line goes on when the group fits; it breaks
/// when the group would fit on a line of its own; else it goes on while the first chunk fits,
/// and the group's own breaks share it out. A break never moves text to the right.
fn fill(pieces: &[Piece]) -> Vec<String> {
    let mut lines = vec![String::new()];
    let mut col = 0usize;
    let mut stack: Vec<usize> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let Some(cur) = lines.last_mut() else {
            break;
        };
        match p {
            Piece::Text(t) => {
                cur.push_str(t);
                col += width(t);
            }
            Piece::Open => stack.push(col),
            Piece::Close => {
                stack.pop();
            }
            Piece::Break => {
                let (group, chunk) = lookahead(&pieces[i + 1..]);
                let indent = stack.last().copied().unwrap_or(0);
                let fits = |w: usize| col + 1 + w <= WIDTH;
                let wrap =
                    indent < col && !fits(group) && (indent + group <= WIDTH || !fits(chunk));
                if wrap {
                    lines.push(" ".repeat(indent));
                    col = indent;
                } else {
                    cur.push(' ');
                    col += 1;
                }
            }
        }
    }
    lines
}

/// The widths of the text after a break up to the next break of the same or an outer level,
/// and up to the next break of any level.
fn lookahead(rest: &[Piece]) -> (usize, usize) {
    let (mut group, mut chunk) = (0, None);
    let mut depth = 0i32;
    for p in rest {
        match p {
            Piece::Text(t) => group += width(t),
            Piece::Open => depth += 1,
            Piece::Close => depth -= 1,
            Piece::Break => {
                chunk.get_or_insert(group);
                if depth <= 0 {
                    break;
                }
            }
        }
    }
    (group, chunk.unwrap_or(group))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str) -> String {
        match format_policy(&Source::new("t.policy", text)) {
            Ok(s) => s,
            Err(d) => panic!(
                "diagnostics: {:?}",
                d.iter().map(|d| &d.message).collect::<Vec<_>>()
            ),
        }
    }

    #[test]
    fn statements_get_their_canonical_spelling_one_a_line() {
        assert_eq!(
            fmt("allow   bash( \"git *\" ) ;deny read_file(\"x\")reason \"r\" ;"),
            "allow bash(\"git *\");\ndeny read_file(\"x\") reason \"r\";\n"
        );
    }

    #[test]
    fn comments_stay_before_or_after_their_statement() {
        let src = "# head\n\n\n# about a\nallow bash(\"a\");   # after a\n  # about b\nallow bash( \"b\" );\n# tail\n";
        assert_eq!(
            fmt(src),
            "# head\n\n# about a\nallow bash(\"a\"); # after a\n# about b\nallow bash(\"b\");\n# tail\n"
        );
    }

    #[test]
    fn a_comment_inside_a_statement_moves_before_it() {
        assert_eq!(
            fmt("allow bash(program [\"ls\", # list\n \"cat\"]);"),
            "# list\nallow bash(program [\"ls\", \"cat\"]);\n"
        );
    }

    #[test]
    fn trailing_comments_of_adjacent_one_line_statements_align() {
        assert_eq!(
            fmt("allow a; # one\nallow bcd; # two\n\nallow e; # three\n"),
            "allow a;   # one\nallow bcd; # two\n\nallow e; # three\n"
        );
    }

    #[test]
    fn a_rule_written_over_lines_keeps_its_options_on_continuation_lines() {
        let src = "ask bash(program \"pkill\")\n  risk medium reason \"kills\";\nask bash(program \"x\") risk low;";
        assert_eq!(
            fmt(src),
            "ask bash(program \"pkill\")\n    risk medium reason \"kills\";\nask bash(program \"x\") risk low;\n"
        );
    }

    #[test]
    fn each_unless_gets_its_own_line_when_wrapped() {
        let src = "allow bash(program \"find\")\n unless flag \"-delete\" unless redirect \"/**\";";
        assert_eq!(
            fmt(src),
            "allow bash(program \"find\")\n    unless flag \"-delete\"\n    unless redirect \"/**\";\n"
        );
    }

    #[test]
    fn long_lists_continue_aligned_after_their_bracket() {
        let items: Vec<String> = (0..30).map(|i| format!("\"item{i}\"")).collect();
        let src = format!("allow bash(program [{}]);", items.join(","));
        let out = fmt(&src);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 1, "{out}");
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{out}");
        let col = lines[0].find('[').unwrap() + 1;
        assert!(lines[1..].iter().all(|l| l.find('"') == Some(col)), "{out}");
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn a_long_rule_moves_its_options_to_continuation_lines() {
        let reason = "r".repeat(80);
        let out = fmt(&format!(
            "ask bash(prefix \"terraform apply\") risk high reason \"{reason}\";"
        ));
        assert_eq!(
            out,
            format!("ask bash(prefix \"terraform apply\")\n    risk high reason \"{reason}\";\n")
        );
    }

    #[test]
    fn semicolons_and_hashes_in_strings_are_not_comments() {
        assert_eq!(
            fmt("allow bash(\"a; # b\"); # c\n"),
            "allow bash(\"a; # b\"); # c\n"
        );
    }

    #[test]
    fn syntax_errors_are_returned_not_formatted() {
        let e = format_policy(&Source::new("t.policy", "alow bash;")).unwrap_err();
        assert!(e.iter().any(|d| d.message.contains("alow")));
    }

    #[test]
    fn empty_and_comment_only_files() {
        assert_eq!(fmt(""), "");
        assert_eq!(fmt("\n\n"), "");
        assert_eq!(fmt("\n# only\n\n"), "# only\n");
    }
}
