//! The lexical pieces of interpreter code: identifiers, delimiters, and string literals
//! decoded as each language reads them.

use super::Lang;

/// A byte of an identifier (`system`, `check_output`).
pub(super) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A delimiter of a quote-like operator (`qx{…}`, `%x(…)`, `q!…!`).
pub(super) fn is_delimiter(b: u8) -> bool {
    b.is_ascii_punctuation() && b != b'_'
}

/// A string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Lit {
    pub(super) text: String,
    /// Interpolated (`"$x"`, `f"{x}"`, `` `${x}` ``, `"#{x}"`).
    pub(super) dynamic: bool,
}

/// How a literal is quoted, and so how its text is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// No escapes but `\\` and the quote (`'…'` in perl, ruby, php).
    Single,
    /// Escapes and, per language, interpolation.
    Double,
    /// A command literal (back-ticks): interpolating.
    Command,
    /// A JavaScript template literal.
    Template,
    /// Python, with its prefix flags.
    Python { raw: bool, format: bool },
}

/// The quoting of a literal of `lang` opened by `quote` (after a python prefix, if any).
pub(super) fn quote_kind(lang: Lang, quote: u8, prefix: Option<&str>) -> Quote {
    match (lang, quote) {
        (Lang::Python, _) => {
            let p = prefix.unwrap_or("").to_ascii_lowercase();
            Quote::Python {
                raw: p.contains('r'),
                format: p.contains('f'),
            }
        }
        (Lang::Node | Lang::Deno, b'`') => Quote::Template,
        (Lang::Node | Lang::Deno, _) => Quote::Double,
        (_, b'\'') => Quote::Single,
        (_, b'`') => Quote::Command,
        _ => Quote::Double,
    }
}

/// The closing delimiter of an opening one (brackets pair, others close themselves).
fn closer_of(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        other => other,
    }
}

/// The literal opened at byte `open_at` by `open`: its decoded text and the index after it.
/// `None` when it is not closed.
pub(super) fn lex_quoted(
    lang: Lang,
    code: &str,
    open_at: usize,
    open: u8,
    kind: Quote,
) -> Option<(Lit, usize)> {
    let bytes = code.as_bytes();
    let close = closer_of(open);
    let nests = close != open;
    // Python triple quotes.
    let triple = matches!(kind, Quote::Python { .. })
        && bytes.get(open_at + 1) == Some(&open)
        && bytes.get(open_at + 2) == Some(&open);
    let mut i = open_at + if triple { 3 } else { 1 };
    let mut text = String::new();
    let mut dynamic = false;
    let mut level = 0usize;
    loop {
        let c = code.get(i..)?.chars().next()?;
        let b = bytes[i];
        if b == close && level == 0 {
            if !triple {
                return Some((Lit { text, dynamic }, i + 1));
            }
            if bytes.get(i + 1) == Some(&close) && bytes.get(i + 2) == Some(&close) {
                return Some((Lit { text, dynamic }, i + 3));
            }
        }
        if nests && b == open {
            level += 1;
        } else if nests && b == close {
            level = level.saturating_sub(1);
        }
        if b == b'\\' {
            i += escape(code, i, kind, close, &mut text)?;
            continue;
        }
        // Interpolation.
        let after = bytes.get(i + 1).copied();
        if matches!(kind, Quote::Python { format: true, .. })
            && matches!(b, b'{' | b'}')
            && after == Some(b)
        {
            text.push(char::from(b));
            i += 2;
            continue;
        }
        let interpolation = interpolates(lang, kind, b, after);
        dynamic |= interpolation;
        // A ruby `#{…}` or a template's `${…}` is code: its quotes do not end the literal
        // (`"#{ENV["HOME"]}/x"`).
        if interpolation && after == Some(b'{') && b != b'{' {
            let end = interpolation_end(code, i + 2)?;
            text.push_str(&code[i..end]);
            i = end;
            continue;
        }
        text.push(c);
        i += c.len_utf8();
    }
}

/// The byte after the `}` that closes an interpolation whose code starts at `from`, its
/// strings skipped.
fn interpolation_end(code: &str, from: usize) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i + 1),
            b'}' => depth -= 1,
            b'\'' | b'"' | b'`' => {
                i += 1;
                while bytes.get(i).is_some_and(|c| *c != b) {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Decodes into `text` the escape whose `\` is at byte `i` of a literal of `kind` closed by
/// `close`; returns the bytes it takes (`None` when the code ends).
fn escape(code: &str, i: usize, kind: Quote, close: u8, text: &mut String) -> Option<usize> {
    let next = code.get(i + 1..)?.chars().next()?;
    let raw = matches!(kind, Quote::Python { raw: true, .. });
    let single = kind == Quote::Single;
    if raw || (single && next != '\\' && u32::from(next) != u32::from(close)) {
        text.push('\\');
        if raw && (u32::from(next) == u32::from(close) || next == '\\') {
            text.push(next);
            return Some(1 + next.len_utf8());
        }
        return Some(1);
    }
    match next {
        'n' if !single => text.push('\n'),
        't' if !single => text.push('\t'),
        'r' if !single => text.push('\r'),
        '\n' => {}
        '\\' | '\'' | '"' | '`' | '$' | '@' | '#' | '{' | '}' => text.push(next),
        _ if u32::from(next) == u32::from(close) => text.push(next),
        _ => {
            text.push('\\');
            text.push(next);
        }
    }
    Some(1 + next.len_utf8())
}

/// Whether byte `b` (followed by `after`) begins an interpolation in a literal of `kind`
/// (`"$x"` in perl and php, `"#{x}"` in ruby, `` `${x}` ``, `f"{x}"`).
fn interpolates(lang: Lang, kind: Quote, b: u8, after: Option<u8>) -> bool {
    let name_start =
        |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'{');
    match kind {
        Quote::Double | Quote::Command => match lang {
            Lang::Perl => (b == b'$' || b == b'@') && name_start(after),
            Lang::Php => b == b'$' && name_start(after),
            Lang::Ruby => b == b'#' && matches!(after, Some(b'{' | b'@' | b'$')),
            _ => false,
        },
        Quote::Template => b == b'$' && after == Some(b'{'),
        Quote::Python { format: true, .. } => b == b'{',
        _ => false,
    }
}
