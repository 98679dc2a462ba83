//! Text helpers of the walk: quote and escape removal, ANSI-C strings, here-document
//! delimiters and bodies.

use super::expand::Script;

/// The delimiter of a here-document as bash reads it (quotes removed), and whether any of
/// it was quoted (which makes the body literal).
pub(super) fn heredoc_delimiter(raw: &str) -> Option<(String, bool)> {
    if raw.contains("$'") || raw.contains("$\"") {
        return None;
    }
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                quoted = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(next) => out.push(next),
                }
            }
            '\'' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(next) => out.push(next),
                        None => return None,
                    }
                }
            }
            '"' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.peek() {
                            Some(&next @ ('$' | '`' | '"' | '\\')) => {
                                chars.next();
                                out.push(next);
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => out.push('\\'),
                        },
                        Some(next) => out.push(next),
                        None => return None,
                    }
                }
            }
            _ => out.push(c),
        }
    }
    Some((out, quoted))
}

/// A here-document body as the command reading it sees it: a quoted delimiter keeps it as
/// written; otherwise `\$`, `` \` ``, `\\` and `\<newline>` are unescaped and any `$` or
/// back-tick left makes it dynamic (expanded when it runs). `<<-` strips leading tabs.
pub(super) fn heredoc_script(body: &str, quoted: bool, strip_tabs: bool) -> Script {
    let stripped;
    let body = if strip_tabs {
        stripped = body
            .split_inclusive('\n')
            .map(|line| line.trim_start_matches('\t'))
            .collect::<String>();
        stripped.as_str()
    } else {
        body
    };
    if quoted {
        return Script {
            text: body.to_string(),
            dynamic: false,
        };
    }
    let mut text = String::with_capacity(body.len());
    let mut dynamic = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '\\')) => {
                    chars.next();
                    text.push(next);
                }
                _ => text.push('\\'),
            },
            '$' | '`' => {
                dynamic = true;
                text.push(c);
            }
            _ => text.push(c),
        }
    }
    Script { text, dynamic }
}

/// Whether bash ends a here-document whose body tree-sitter read as `body` at the line
/// `end_text` (its last, unterminated piece of `body` included): no earlier line of the
/// body is the delimiter for bash, and the end line is.
pub(super) fn heredoc_ends_as_bash_does(
    body: &str,
    end_text: &str,
    delimiter: &str,
    quoted: bool,
    strip_tabs: bool,
) -> bool {
    let is_delimiter = |line: &str| {
        line == delimiter || (strip_tabs && line.trim_start_matches('\t') == delimiter)
    };
    // The complete lines of the body, and the start of the end line.
    let (lines, last) = match body.rfind('\n') {
        Some(i) => (body.get(..i), body.get(i + 1..).unwrap_or("")),
        None => (None, body),
    };
    let mut logical = String::new();
    for line in lines.into_iter().flat_map(|lines| lines.split('\n')) {
        // In an unquoted body, a backslash-newline joins lines before the check.
        let trailing = line.len() - line.trim_end_matches('\\').len();
        if !quoted && trailing % 2 == 1 {
            logical.push_str(line.get(..line.len() - 1).unwrap_or(""));
            continue;
        }
        logical.push_str(line);
        if is_delimiter(&logical) {
            return false;
        }
        logical.clear();
    }
    if !logical.is_empty() {
        return false;
    }
    let mut end_line = String::from(last);
    end_line.push_str(end_text);
    is_delimiter(&end_line)
}

/// The inside of `$'…'`, if the node really is one ANSI-C string: tree-sitter-bash's token
/// (`/\$'([^']|\\')*'/`) runs past the real end of `$'\\'`, swallowing what follows.
pub(super) fn ansi_c_inner(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix("$'")?;
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => return (i + 1 == bytes.len()).then(|| &inner[..i]),
            _ => i += 1,
        }
    }
    None
}

/// Unquoted text: `\x` is `x`, a backslash-newline disappears.
pub(super) fn unescape_unquoted(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(next) => out.push(next),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Text inside double quotes: a backslash escapes only `$`, back-tick, `"`, `\` and newline.
pub(super) fn unescape_double_quoted(text: &str) -> String {
    unescape_only(text, &['$', '`', '"', '\\'], true)
}

/// Text between back-ticks as bash reads it: a backslash escapes only `$`, back-tick and `\`.
pub(super) fn unescape_backticks(text: &str) -> String {
    unescape_only(text, &['$', '`', '\\'], false)
}

/// `text` with the backslash before the characters of `escaped` removed (and, with
/// `line_joins`, each backslash-newline removed whole); any other backslash stays.
fn unescape_only(text: &str, escaped: &[char], line_joins: bool) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') if line_joins => {
                    chars.next();
                }
                Some(&next) if escaped.contains(&next) => {
                    chars.next();
                    out.push(next);
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The index of the back-tick closing the one before `from`, skipping escaped characters.
pub(super) fn closing_backtick(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The inside of `$'…'` with its C escapes decoded. A NUL ends the string, as in bash.
pub(super) fn decode_ansi_c(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        if let Some(byte) = simple_escape(e) {
            out.push(byte);
            continue;
        }
        if !decode_escape(e, bytes, &mut i, &mut out) {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The byte of a one-letter C escape (`\n` is a newline), if `e` is one.
fn simple_escape(e: u8) -> Option<u8> {
    match e {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'\'' => Some(b'\''),
        b'"' => Some(b'"'),
        b'?' => Some(b'?'),
        _ => None,
    }
}

/// Decodes the escape `\e` (octal, `\x`, `\u`, `\U`, `\c` or an unknown one kept as written)
/// whose operands start at `bytes[*i]` into `out`, moving `i` past them; false when it is a
/// NUL, which ends the string.
fn decode_escape(e: u8, bytes: &[u8], i: &mut usize, out: &mut Vec<u8>) -> bool {
    match e {
        b'0'..=b'7' => {
            let mut value: u32 = u32::from(e - b'0');
            let mut taken = 0;
            while taken < 2 && *i < bytes.len() && (b'0'..=b'7').contains(&bytes[*i]) {
                value = value * 8 + u32::from(bytes[*i] - b'0');
                *i += 1;
                taken += 1;
            }
            let byte = (value & 0xff) as u8;
            if byte == 0 {
                return false;
            }
            out.push(byte);
        }
        b'x' => {
            let (value, used) = hex_value(&bytes[*i..], 2);
            if used == 0 {
                out.extend_from_slice(b"\\x");
                return true;
            }
            *i += used;
            let byte = (value & 0xff) as u8;
            if byte == 0 {
                return false;
            }
            out.push(byte);
        }
        b'u' | b'U' => {
            let (value, used) = hex_value(&bytes[*i..], if e == b'u' { 4 } else { 8 });
            if used == 0 {
                out.push(b'\\');
                out.push(e);
                return true;
            }
            *i += used;
            if value == 0 {
                return false;
            }
            let c = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        b'c' => {
            // Control character: `\cA` is 0x01.
            match bytes.get(*i) {
                Some(&c) => {
                    *i += 1;
                    let byte = c.to_ascii_uppercase() ^ 0x40;
                    if byte == 0 {
                        return false;
                    }
                    out.push(byte);
                }
                None => out.extend_from_slice(b"\\c"),
            }
        }
        _ => {
            out.push(b'\\');
            out.push(e);
        }
    }
    true
}

/// Up to `max` hexadecimal digits at the start of `bytes`: their value and how many.
pub(super) fn hex_value(bytes: &[u8], max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    for &b in bytes.iter().take(max) {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => break,
        };
        value = value * 16 + u32::from(digit);
        used += 1;
    }
    (value, used)
}
