//! The arguments of a call in interpreter code: string literals, lists, objects, and
//! anything else as written.

use super::lex::{is_delimiter, is_ident, lex_quoted, quote_kind, Lit, Quote};
use super::Lang;

/// One argument of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Arg {
    Str(Lit),
    /// `[…]`, `qw(…)`, `%w(…)`: its elements.
    List(Vec<Arg>),
    /// `{…}` (a hash or object): its elements, keys and values alike.
    Object(Vec<Arg>),
    /// Anything else, as written.
    Other(String),
}

/// Deepest nesting of brackets followed inside call arguments.
const MAX_NESTING: usize = 16;

/// A call's arguments, with the source text of each.
#[derive(Debug, Clone, Default)]
pub(super) struct Call {
    pub(super) args: Vec<Arg>,
    /// The source text of each argument, trimmed (as many as `args`).
    pub(super) texts: Vec<String>,
    /// The byte after the arguments (after the closing parenthesis).
    pub(super) end: usize,
}

/// The arguments of the call whose name ends at byte `after_name`: `(…)`, or for perl and
/// ruby a list without parentheses (`system "…"`, `system 'rm', '-rf'`); with `bare`, also
/// one that starts with a name or a perl glob (`unlink glob(…)`, `FileUtils.rm_rf Dir.home`).
pub(super) fn call_args(lang: Lang, code: &str, after_name: usize, bare: bool) -> Option<Call> {
    let bytes = code.as_bytes();
    let mut i = after_name;
    while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    let listed = matches!(lang, Lang::Perl | Lang::Ruby);
    let (pos, close) = match bytes.get(i) {
        Some(b'(') => (i + 1, Some(b')')),
        Some(b'\'' | b'"' | b'`' | b'$' | b'@' | b'[' | b'%') if listed => (i, None),
        Some(b'q') if lang == Lang::Perl => (i, None),
        // (Not after blanks that end the name: `rm_rf\nputs`, `rmtree;`.)
        Some(b) if bare && listed && i > after_name && (is_ident(*b) || *b == b'<') => (i, None),
        _ => return None,
    };
    let mut lexer = Lexer { lang, code, pos };
    let (args, texts) = lexer.args(close, 0);
    Some(Call {
        args,
        texts,
        end: lexer.pos,
    })
}

/// The arguments of a call read so far, and the pieces of the one being read.
struct ArgList {
    args: Vec<Arg>,
    /// The pieces of the argument being read.
    items: Vec<Arg>,
    /// Text of the piece being read that is no literal, list or object.
    other: String,
    /// Python: a keyword argument (`args="…"`) is its value.
    python: bool,
    /// An object (`{…}`): a `key: value` (`"key" => value`) is its value.
    object: bool,
    /// The source text of each argument, when they are kept (the call's own arguments).
    texts: Option<Vec<String>>,
    /// Where the argument being read starts.
    start: usize,
}

impl ArgList {
    /// Ends the text piece being read.
    fn flush_other(&mut self) {
        if !self.other.trim().is_empty() {
            self.items.push(Arg::Other(self.other.trim().to_string()));
        }
        self.other.clear();
    }

    /// Ends the argument being read, whose text ends at byte `end` of `code`: its pieces make
    /// one argument.
    fn finish(&mut self, code: &str, end: usize) {
        if let Some(texts) = self.texts.as_mut() {
            if !self.items.is_empty() {
                let text = code.get(self.start..end.max(self.start)).unwrap_or("");
                texts.push(text.trim().to_string());
            }
        }
        let items = &mut self.items;
        // A python keyword argument (`args="…"`) is its value.
        if self.python
            && items.len() == 2
            && matches!(items.first(), Some(Arg::Other(k)) if k.ends_with('=') && !k.ends_with("=="))
        {
            items.remove(0);
        }
        // An object's `key: value` (`"key" => value`) is its value.
        if self.object && items.len() >= 2 {
            let key_end = items
                .iter()
                .rposition(|i| matches!(i, Arg::Other(k) if k.ends_with(':') || k.ends_with("=>")));
            if let Some(k) = key_end {
                items.drain(..=k);
            }
        }
        let item = match items.len() {
            0 => None,
            1 => items.pop(),
            _ => Some(Arg::Other(String::from("…"))),
        };
        self.args.extend(item);
        items.clear();
    }
}

struct Lexer<'a> {
    lang: Lang,
    code: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.code.as_bytes().get(self.pos).copied()
    }

    /// Arguments up to `close` (or, without, to the end of the statement), with their source
    /// texts for the call's own (`depth` 0).
    fn args(&mut self, close: Option<u8>, depth: usize) -> (Vec<Arg>, Vec<String>) {
        let mut list = ArgList {
            args: Vec::new(),
            items: Vec::new(),
            other: String::new(),
            python: self.lang == Lang::Python,
            object: close == Some(b'}'),
            texts: (depth == 0).then(Vec::new),
            start: self.pos,
        };
        // Where the last argument's text ends: the closer, or where the statement ends.
        let mut end = None;
        while let Some(b) = self.peek() {
            if Some(b) == close {
                end = Some(self.pos);
                self.pos += 1;
                break;
            }
            match b {
                b')' | b']' | b'}' => {
                    if close.is_none() {
                        break;
                    }
                    // An unbalanced closer: stop here.
                    end = Some(self.pos);
                    self.pos += 1;
                    break;
                }
                b';' | b'\n' if close.is_none() => break,
                b'#' if self.lang == Lang::Python => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                b',' => {
                    list.flush_other();
                    list.finish(self.code, self.pos);
                    self.pos += 1;
                    list.start = self.pos;
                }
                b'(' | b'[' | b'{' => self.bracketed(b, depth, &mut list),
                b'\'' | b'"' | b'`' => self.quoted(b, &mut list),
                _ if is_ident(b) => {
                    if self.word(close, &mut list) {
                        break;
                    }
                }
                b'%' if self.lang == Lang::Ruby => self.percent(&mut list),
                b'|' | b'&'
                    if close.is_none()
                        && matches!(self.code.get(self.pos..self.pos + 2), Some("||" | "&&")) =>
                {
                    break;
                }
                _ => self.other_char(&mut list),
            }
        }
        list.flush_other();
        list.finish(self.code, end.unwrap_or(self.pos));
        (list.args, list.texts.unwrap_or_default())
    }

    /// The argument opened by the bracket `open` at the cursor: a list, an object, or a
    /// parenthesised value.
    fn bracketed(&mut self, open: u8, depth: usize, list: &mut ArgList) {
        self.pos += 1;
        list.flush_other();
        let closer = match open {
            b'(' => b')',
            b'[' => b']',
            _ => b'}',
        };
        if depth >= MAX_NESTING {
            self.skip_to_end();
            list.items.push(Arg::Other(String::from("…")));
            return;
        }
        let (inner, _) = self.args(Some(closer), depth + 1);
        list.items.push(match open {
            b'[' => Arg::List(inner),
            b'{' => Arg::Object(inner),
            // A parenthesised single value is that value.
            _ if inner.len() == 1 => inner.into_iter().next().unwrap_or_default(),
            _ => Arg::Other(String::from("(…)")),
        });
    }

    /// The string literal opened by `quote` at the cursor.
    fn quoted(&mut self, quote: u8, list: &mut ArgList) {
        list.flush_other();
        let kind = self.quote_kind(quote, None);
        match lex_quoted(self.lang, self.code, self.pos, quote, kind) {
            Some((lit, end)) => {
                self.pos = end;
                self.push_literal(&mut list.items, lit, kind);
            }
            None => {
                self.pos = self.code.len();
                list.items.push(Arg::Other(String::from("…")));
            }
        }
    }

    /// The word at the cursor: a string prefix or quote-like operator with its literal, or
    /// text. Returns whether it ends a list without parentheses (`system "…" or die`).
    fn word(&mut self, close: Option<u8>, list: &mut ArgList) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        let word = &self.code[start..self.pos];
        if close.is_none()
            && list.other.trim().is_empty()
            && matches!(word, "or" | "and" | "if" | "unless" | "do")
        {
            self.pos = start;
            return true;
        }
        if let Some(arg) = self.quote_like(word, &mut list.items) {
            list.flush_other();
            list.items.push(arg);
            return false;
        }
        list.other.push_str(word);
        false
    }

    /// Ruby's `%…` at the cursor: a literal, or text.
    fn percent(&mut self, list: &mut ArgList) {
        match self.ruby_percent() {
            Some(arg) => {
                list.flush_other();
                list.items.push(arg);
            }
            None => {
                list.other.push('%');
                self.pos += 1;
            }
        }
    }

    /// The character at the cursor, as text (blanks inside it kept as one).
    fn other_char(&mut self, list: &mut ArgList) {
        let c = self.code[self.pos..].chars().next().unwrap_or(' ');
        if !c.is_whitespace() {
            list.other.push(c);
        } else if !list.other.is_empty() {
            list.other.push(' ');
        }
        self.pos += c.len_utf8();
    }

    /// Adds a literal to the current argument: adjacent python literals concatenate.
    fn push_literal(&self, items: &mut Vec<Arg>, lit: Lit, kind: Quote) {
        if let (Quote::Python { .. }, Some(Arg::Str(prev))) = (kind, items.last_mut()) {
            prev.text.push_str(&lit.text);
            prev.dynamic |= lit.dynamic;
            return;
        }
        items.push(Arg::Str(lit));
    }

    fn skip_to_end(&mut self) {
        self.pos = self.code.len();
    }

    /// The quoting of a literal opened by `quote` (after a python prefix, if any).
    fn quote_kind(&self, quote: u8, prefix: Option<&str>) -> Quote {
        quote_kind(self.lang, quote, prefix)
    }

    /// A python string prefix (`f"…"`, `rb'…'`) or a perl quote-like operator (`q(…)`,
    /// `qq{…}`, `qw(…)`) whose name `word` was just read.
    fn quote_like(&mut self, word: &str, items: &mut Vec<Arg>) -> Option<Arg> {
        let bytes = self.code.as_bytes();
        match self.lang {
            Lang::Python => {
                let quote = *bytes.get(self.pos)?;
                let prefix_ok = word.len() <= 2
                    && word
                        .chars()
                        .all(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f'));
                if !matches!(quote, b'\'' | b'"') || !prefix_ok {
                    return None;
                }
                let kind = self.quote_kind(quote, Some(word));
                match lex_quoted(self.lang, self.code, self.pos, quote, kind) {
                    Some((lit, end)) => {
                        self.pos = end;
                        self.push_literal(items, lit, kind);
                        // Already added (concatenated): give back nothing new.
                        items.pop()
                    }
                    None => {
                        self.pos = self.code.len();
                        Some(Arg::Other(String::from("…")))
                    }
                }
            }
            Lang::Perl if matches!(word, "q" | "qq" | "qw" | "qx") => {
                let mut j = self.pos;
                while bytes.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
                    j += 1;
                }
                let open = *bytes.get(j)?;
                if !is_delimiter(open) || matches!(open, b'=' | b',' | b';' | b')') {
                    return None;
                }
                let kind = if word == "q" || word == "qw" || open == b'\'' {
                    Quote::Single
                } else {
                    Quote::Double
                };
                let (lit, end) = lex_quoted(self.lang, self.code, j, open, kind)?;
                self.pos = end;
                Some(match word {
                    "qw" => Arg::List(
                        lit.text
                            .split_whitespace()
                            .map(|w| {
                                Arg::Str(Lit {
                                    text: w.to_string(),
                                    dynamic: false,
                                })
                            })
                            .collect(),
                    ),
                    "qx" => Arg::Other(lit.text),
                    _ => Arg::Str(lit),
                })
            }
            _ => None,
        }
    }

    /// Ruby's `%q(…)`, `%Q(…)`, `%(…)`, `%w(…)` at the cursor.
    fn ruby_percent(&mut self) -> Option<Arg> {
        let bytes = self.code.as_bytes();
        let mut j = self.pos + 1;
        let letter = bytes.get(j).copied().filter(|b| b.is_ascii_alphabetic());
        if letter.is_some() {
            j += 1;
        }
        let open = *bytes.get(j)?;
        if !is_delimiter(open) || open == b'=' {
            return None;
        }
        let kind = match letter {
            Some(b'q' | b'w') => Quote::Single,
            _ => Quote::Double,
        };
        let (lit, end) = lex_quoted(self.lang, self.code, j, open, kind)?;
        self.pos = end;
        Some(match letter {
            Some(b'w' | b'W' | b'i' | b'I') => Arg::List(
                lit.text
                    .split_whitespace()
                    .map(|w| {
                        Arg::Str(Lit {
                            text: w.to_string(),
                            dynamic: lit.dynamic,
                        })
                    })
                    .collect(),
            ),
            Some(b'x') => Arg::Other(lit.text),
            _ => Arg::Str(lit),
        })
    }
}

impl Default for Arg {
    fn default() -> Self {
        Arg::Other(String::new())
    }
}
