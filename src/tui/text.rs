//! Text helpers for drawing: display widths, wrapping, and making untrusted text safe to put
//! on a terminal.

use ratatui::text::Span;

/// The display width of one character (0, 1 or 2 columns).
pub fn char_width(c: char) -> usize {
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

/// The display width of a string.
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Text from a model, a tool or a command, made safe for a terminal: control characters
/// (escape sequences included) become visible symbols, tabs become spaces, `\r` goes.
/// Line breaks stay.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            '\r' => {}
            c if (c as u32) < 0x20 => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
            }
            '\u{7f}' => out.push('\u{2421}'),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Wraps `text` to lines of at most `width` columns: at spaces when it can, inside a word when
/// a word is longer than a line. Line breaks in the text start new lines. Never returns an
/// empty list; a width of 0 is taken as 1.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let text = sanitize(text);
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut line_w = 0usize;
        // Byte index and width of the line just before its last space.
        let mut last_space: Option<(usize, usize)> = None;
        for c in para.chars() {
            let cw = char_width(c);
            if line_w + cw > width && !line.is_empty() {
                if c == ' ' {
                    // A space at a break disappears.
                    lines.push(std::mem::take(&mut line));
                    line_w = 0;
                    last_space = None;
                    continue;
                }
                match last_space {
                    // Not at the indentation: that would leave a row of blanks.
                    Some((at, w_before)) if !line[..at].trim().is_empty() => {
                        let rest = line[at + 1..].to_string();
                        line.truncate(at);
                        lines.push(std::mem::take(&mut line));
                        line = rest;
                        line_w -= w_before + 1;
                    }
                    _ => {
                        lines.push(std::mem::take(&mut line));
                        line_w = 0;
                    }
                }
                last_space = None;
            }
            if c == ' ' {
                last_space = Some((line.len(), line_w));
            }
            line.push(c);
            line_w += cw;
        }
        lines.push(line);
    }
    lines
}

/// Cuts `s` to at most `width` columns, ending with `…` when something was cut.
pub fn truncate(s: &str, width: usize) -> String {
    if self::width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw > width - 1 {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// The end of `s` that fits in `width` columns (for an input line longer than the screen).
pub fn tail(s: &str, width: usize) -> &str {
    let mut w = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let cw = char_width(c);
        if w + cw > width {
            break;
        }
        w += cw;
        start = i;
    }
    &s[start..]
}

/// `s` padded with spaces to `width` columns.
pub fn pad(s: &str, width: usize) -> String {
    let w = self::width(s);
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    out
}

/// A reason as the person's language has it: the built-in reasons (the engine's and the shipped
/// policies') are translated; a reason a project's policy wrote is shown as written.
pub fn localize(lang: super::i18n::Lang, reason: &str) -> String {
    match lang {
        super::i18n::Lang::En => reason.to_string(),
        super::i18n::Lang::Zh => super::zh::reason(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("git commit -m hello", 10), ["git commit", "-m hello"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\nb", 10), ["a", "b"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("abc", 0), ["a", "b", "c"]);
    }

    #[test]
    fn an_indented_long_word_does_not_leave_a_row_of_blanks() {
        assert_eq!(wrap("  abcdefgh", 6), ["  abcd", "efgh"]);
    }

    #[test]
    fn wrap_counts_wide_characters_as_two_columns() {
        assert_eq!(wrap("工具审批请求", 4), ["工具", "审批", "请求"]);
        assert_eq!(width("工具：bash"), 10);
    }

    #[test]
    fn escape_sequences_never_reach_the_terminal() {
        let s = sanitize("a\x1b[2Jb\tc\r\n");
        assert!(!s.contains('\x1b'));
        assert_eq!(s, "a\u{241b}[2Jb    c\n");
    }

    #[test]
    fn truncate_and_tail_fit_the_width() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("工具审批", 5), "审批");
    }
}
