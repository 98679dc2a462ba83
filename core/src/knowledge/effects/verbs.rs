//! Verb patterns of the data (`s3 rm`, `delete-*`) matched against the words of a command
//! that are not options.

/// The pattern of `patterns` that the command's words match (see `policies/programs/
/// effects.toml`): words in order from one of the first three operands, `*` any one word,
/// `**` any number; a pattern starting with `-` matches an option word.
pub(super) fn verb_match<'p>(pos: &[&str], patterns: &[&'p str]) -> Option<&'p str> {
    const STOP: [&str; 6] = ["run", "exec", "create", "debug", "x", "dlx"];
    let mut buf = [""; 8];
    for &pattern in patterns {
        let mut n = 0;
        for w in pattern.split_whitespace().take(buf.len()) {
            buf[n] = w;
            n += 1;
        }
        let pat = &buf[..n];
        for start in 0..pos.len().min(3) {
            if matches_words(pat, &pos[start..]) {
                return Some(pattern);
            }
            if STOP.contains(&pos[start]) {
                break;
            }
        }
    }
    None
}

fn matches_words(pat: &[&str], words: &[&str]) -> bool {
    matches_after(pat, words, 0)
}

/// [`matches_words`], where up to `gap` words may come before the next pattern word: after the
/// first, two (the value of an option between them: `aws s3 --region r rm`).
fn matches_after(pat: &[&str], words: &[&str], gap: usize) -> bool {
    match pat.split_first() {
        None => true,
        Some((&"**", rest)) => (0..=words.len()).any(|i| matches_after(rest, &words[i..], 0)),
        Some((p, rest)) => (0..=gap.min(words.len().saturating_sub(1))).any(|skip| {
            words.get(skip).is_some_and(|w| word_glob(p, w))
                && matches_after(rest, &words[skip + 1..], 2)
        }),
    }
}

/// `*` matches any run of characters; case is ignored.
pub(super) fn word_glob(pattern: &str, word: &str) -> bool {
    let (p, w) = (pattern.as_bytes(), word.as_bytes());
    let Some(star) = p.iter().position(|&b| b == b'*') else {
        return p.eq_ignore_ascii_case(w);
    };
    let (head, tail) = (&p[..star], &p[star + 1..]);
    if w.len() < head.len() || !w[..head.len()].eq_ignore_ascii_case(head) {
        return false;
    }
    let rest = &w[head.len()..];
    // The rest of the pattern against every suffix: patterns are short, words too.
    (0..=rest.len()).any(|i| {
        std::str::from_utf8(tail)
            .ok()
            .zip(std::str::from_utf8(&rest[i..]).ok())
            .is_some_and(|(t, r)| word_glob(t, r))
    })
}
