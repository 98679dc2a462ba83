//! Bash's brace expansion of a word: `{a,b}` alternatives and `{1..3}` sequences.

use super::words::{word_of, Seg, WordAcc};
use super::Word;

/// Most words one argument may expand to; beyond, the word is kept whole and dynamic.
pub(super) const MAX_BRACE_WORDS: usize = 256;
/// Most brace groups followed in one word.
pub(super) const MAX_BRACE_GROUPS: usize = 32;

/// One character of a word (with whether it was quoted), or an expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Ch(char, bool),
    /// An empty quoted part (`""`): a word made only of it is kept.
    Quoted,
    Home(String),
    Dyn(String),
}

/// Bash's brace expansion of one word: `{a,b}` alternatives and `{1..3}` / `{a..c}`
/// sequences, on unquoted braces only.
pub(super) fn brace_expand_word(segs: Vec<Seg>) -> Vec<Word> {
    let eligible = segs
        .iter()
        .any(|s| matches!(s, Seg::Lit(t, false) if t.contains('{')));
    if !eligible {
        return vec![word_of(&segs, false)];
    }
    let mut toks = Vec::new();
    for seg in &segs {
        match seg {
            Seg::Lit(text, true) if text.is_empty() => toks.push(Tok::Quoted),
            Seg::Lit(text, quoted) => toks.extend(text.chars().map(|c| Tok::Ch(c, *quoted))),
            Seg::Home(source) => toks.push(Tok::Home(source.clone())),
            Seg::Dyn(source) | Seg::Computed(source, _) => toks.push(Tok::Dyn(source.clone())),
        }
    }
    let mut expanded = Vec::new();
    if !expand_toks(&toks, 0, &mut expanded) {
        return vec![word_of(&segs, true)];
    }
    if expanded.len() == 1 && expanded[0] == toks {
        return vec![word_of(&segs, false)];
    }
    expanded
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| word_of(&segs_of(t), false))
        .collect()
}

pub(super) fn segs_of(toks: &[Tok]) -> Vec<Seg> {
    let mut acc = WordAcc::default();
    for tok in toks {
        match tok {
            Tok::Ch(c, quoted) => {
                let mut buf = [0u8; 4];
                acc.literal(c.encode_utf8(&mut buf), *quoted);
            }
            Tok::Quoted => acc.literal("", true),
            Tok::Home(source) => acc.segs.push(Seg::Home(source.clone())),
            Tok::Dyn(source) => acc.segs.push(Seg::Dyn(source.clone())),
        }
    }
    acc.segs
}

/// Expands the first brace group of `toks` and recurses on the results; false when the
/// expansion is too large.
pub(super) fn expand_toks(toks: &[Tok], groups: usize, out: &mut Vec<Vec<Tok>>) -> bool {
    if groups > MAX_BRACE_GROUPS || out.len() > MAX_BRACE_WORDS {
        return false;
    }
    let Some((open, close, alternatives)) = first_brace_group(toks) else {
        out.push(toks.to_vec());
        return out.len() <= MAX_BRACE_WORDS;
    };
    // A group too long or too intricate to follow.
    let Some(alternatives) = alternatives else {
        return false;
    };
    for alternative in alternatives {
        let mut word = toks[..open].to_vec();
        word.extend(alternative);
        word.extend_from_slice(toks.get(close + 1..).unwrap_or(&[]));
        if !expand_toks(&word, groups + 1, out) {
            return false;
        }
    }
    true
}

/// The first expandable brace group: its braces and its alternatives (`None`: a group too
/// long or too intricate to follow).
pub(super) type BraceGroup = (usize, usize, Option<Vec<Vec<Tok>>>);

pub(super) fn first_brace_group(toks: &[Tok]) -> Option<BraceGroup> {
    for open in 0..toks.len() {
        if toks.get(open) != Some(&Tok::Ch('{', false)) {
            continue;
        }
        if open > 0 && toks.get(open - 1) == Some(&Tok::Ch('$', false)) {
            continue; // `${` is not a brace group
        }
        if open == 0 && toks.get(1) == Some(&Tok::Ch('}', false)) {
            continue; // nor is a word-initial `{}` (`find -exec rm {} +`)
        }
        // As bash's `brace_gobbler`: nested braces are skipped, and a closing brace with no
        // comma or `..` before it is text (`{""},}` is the group `{"}",}`, not `{""}`).
        let mut level = 0usize;
        let mut commas = Vec::new();
        let mut sequence = false;
        let mut close = None;
        for (k, tok) in toks.iter().enumerate().skip(open + 1) {
            match tok {
                Tok::Ch('{', false) => level += 1,
                Tok::Ch('}', false) if level > 0 => level -= 1,
                Tok::Ch('}', false) if !commas.is_empty() || sequence => {
                    close = Some(k);
                    break;
                }
                Tok::Ch(',', false) if level == 0 => commas.push(k),
                Tok::Ch('.', false)
                    if level == 0
                        && toks.get(k + 1) == Some(&Tok::Ch('.', false))
                        && toks.get(k + 2) != Some(&Tok::Ch('}', false)) =>
                {
                    sequence = true
                }
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        // A quoted comma in a `..` group: bash's rules there are intricate (`{..','}` loses
        // its braces, `{aa..c}` does not); not followed.
        let inner = toks.get(open + 1..close).unwrap_or(&[]);
        if commas.is_empty() && inner.contains(&Tok::Ch(',', true)) {
            return Some((open, close, None));
        }
        if !commas.is_empty() {
            let mut alternatives = Vec::new();
            let mut start = open + 1;
            for comma in commas.into_iter().chain(std::iter::once(close)) {
                alternatives.push(toks.get(start..comma).unwrap_or(&[]).to_vec());
                start = comma + 1;
            }
            return Some((open, close, Some(alternatives)));
        }
        match brace_sequence(toks.get(open + 1..close).unwrap_or(&[])) {
            Sequence::Not => {}
            Sequence::TooLong => return Some((open, close, None)),
            Sequence::Words(words) => return Some((open, close, Some(words))),
        }
    }
    None
}

pub(super) enum Sequence {
    Not,
    TooLong,
    Words(Vec<Vec<Tok>>),
}

/// `1..5`, `1..10..2`, `05..10`, `a..e`: the words of a sequence expression.
pub(super) fn brace_sequence(inner: &[Tok]) -> Sequence {
    let mut text = String::new();
    for tok in inner {
        match tok {
            Tok::Ch(c, false) => text.push(*c),
            _ => return Sequence::Not,
        }
    }
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, None),
        [from, to, step] => (*from, *to, Some(*step)),
        _ => return Sequence::Not,
    };
    let step = match step.map(str::parse::<i64>) {
        Some(Ok(step)) => step.unsigned_abs().max(1),
        Some(Err(_)) => return Sequence::Not,
        None => 1,
    };
    let chars = |t: Vec<String>| -> Vec<Vec<Tok>> {
        t.into_iter()
            .map(|s| s.chars().map(|c| Tok::Ch(c, false)).collect())
            .collect()
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = (a.abs_diff(b) / step).saturating_add(1);
        if count > MAX_BRACE_WORDS as u64 {
            return Sequence::TooLong;
        }
        let padded = |s: &str| {
            let digits = s.trim_start_matches(['-', '+']);
            digits.len() > 1 && digits.starts_with('0')
        };
        let width = if padded(from) || padded(to) {
            from.len().max(to.len())
        } else {
            0
        };
        let step = i64::try_from(step).unwrap_or(i64::MAX);
        let mut out = Vec::new();
        let mut n = a;
        for _ in 0..count {
            out.push(format!("{n:0width$}"));
            n = if a <= b {
                n.saturating_add(step)
            } else {
                n.saturating_sub(step)
            };
        }
        return Sequence::Words(chars(out));
    }
    let mut from_chars = from.chars();
    let mut to_chars = to.chars();
    match (
        from_chars.next(),
        from_chars.next(),
        to_chars.next(),
        to_chars.next(),
    ) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            let (a, b) = (a as u8, b as u8);
            let count = (u64::from(a.abs_diff(b)) / step).saturating_add(1);
            let step = i64::try_from(step).unwrap_or(i64::MAX);
            let mut out = Vec::new();
            let mut n = i64::from(a);
            for _ in 0..count {
                out.push(char::from(u8::try_from(n).unwrap_or(b'?')).to_string());
                n = if a <= b {
                    n.saturating_add(step)
                } else {
                    n.saturating_sub(step)
                };
            }
            Sequence::Words(chars(out))
        }
        _ => Sequence::Not,
    }
}
