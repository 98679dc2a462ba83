//! Glob patterns compiled to the cheapest strategy that gives the same answer: equality, prefix,
//! suffix, substring, or (only for what is left) a glob matcher from `globset`, built on first use
//! so that loading a large policy never compiles thousands of regexes up front.

use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};

use super::paths::has_meta;
use crate::policy::ast::Text;

/// A compiled glob. `paths` globs keep `*` inside one path component; command globs let `*`
/// match anything, `/` included (`git *` matches `git add src/x`). A command glob ending in
/// ` *` also matches the words before it alone: `git commit *` matches `git commit`.
#[derive(Debug)]
pub struct Pattern {
    /// As written: borrowed from the binary for a shipped policy's word (see
    /// [`Pattern::of_word`]).
    pub text: Text,
    own: Strategy,
    /// For a command glob ending in ` *`: how the words before it alone match, and for words
    /// that end in ` *` again how theirs do (`a * *` matches `a *`, so `a`), innermost last.
    /// Their literals are in `text` too, which starts with those words.
    bare: Vec<Strategy>,
}

/// How one glob is matched: its literal parts are places in the pattern's text, not copies.
#[derive(Debug)]
struct Strategy {
    fast: Fast,
    /// Only for `Fast::Slow`: the parsed glob and its matcher, compiled on first use.
    slow: Option<Box<(Glob, OnceLock<GlobMatcher>)>>,
}

/// Where a literal is in the pattern's text: `start..end`.
type Span = (usize, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fast {
    Exact(Span),
    Prefix(Span),
    /// A path glob's literal and `*`: the literal, then anything but `/` (`/dev/sd*`).
    PrefixName(Span),
    Suffix(Span),
    Contains(Span),
    Any,
    Slow,
}

impl Strategy {
    /// The strategy for `glob`, with its literals placed in a text that starts with it.
    fn new(glob: &str, paths: bool) -> Result<Strategy, globset::Error> {
        let fast = classify(glob, paths);
        // Parsed when it is matched by globset, and when it holds a `}`, so that an invalid
        // pattern is an error either way: text and `*` alone is always a valid glob, unless a
        // `}` closes alternatives none opened (`test_fast_patterns_are_valid_globs` checks it).
        let slow = if fast == Fast::Slow || glob.contains('}') {
            let parsed = GlobBuilder::new(glob)
                .literal_separator(paths)
                .backslash_escape(true)
                .build()?;
            (fast == Fast::Slow).then(|| Box::new((parsed, OnceLock::new())))
        } else {
            None
        };
        Ok(Strategy { fast, slow })
    }

    fn is_match(&self, text: &str, s: &str) -> bool {
        let lit = |span: Span| literal(text, span);
        match self.fast {
            Fast::Exact(x) => lit(x).is_some_and(|x| s == x),
            Fast::Prefix(x) => lit(x).is_some_and(|x| s.starts_with(x)),
            Fast::PrefixName(x) => lit(x)
                .and_then(|x| s.strip_prefix(x))
                .is_some_and(|rest| !rest.contains('/')),
            Fast::Suffix(x) => lit(x).is_some_and(|x| s.ends_with(x)),
            Fast::Contains(x) => lit(x).is_some_and(|x| s.contains(x)),
            Fast::Any => true,
            Fast::Slow => match &self.slow {
                Some(slow) => slow.1.get_or_init(|| slow.0.compile_matcher()).is_match(s),
                None => false,
            },
        }
    }

    /// Literal text every match must contain (the longest run), for the substring index.
    fn required_literal<'t>(&self, text: &'t str, glob_len: usize) -> Option<&'t str> {
        match self.fast {
            Fast::Exact(x)
            | Fast::Prefix(x)
            | Fast::PrefixName(x)
            | Fast::Suffix(x)
            | Fast::Contains(x) => literal(text, x),
            Fast::Any => None,
            Fast::Slow => longest_literal(text.get(..glob_len)?),
        }
    }

    /// Literal text every match starts with.
    fn anchored_prefix<'t>(&self, text: &'t str) -> Option<&'t str> {
        match self.fast {
            Fast::Exact(x) | Fast::Prefix(x) | Fast::PrefixName(x) => literal(text, x),
            _ => None,
        }
    }

    fn exact<'t>(&self, text: &'t str) -> Option<&'t str> {
        match self.fast {
            Fast::Exact(x) => literal(text, x),
            _ => None,
        }
    }

    fn as_prefix<'t>(&self, text: &'t str) -> Option<&'t str> {
        match self.fast {
            Fast::Prefix(x) => literal(text, x),
            Fast::Any => Some(""),
            _ => None,
        }
    }
}

/// The literal at `span` of a pattern's text (always there: spans are found at `*` and `/`,
/// which are one byte each).
fn literal(text: &str, (start, end): Span) -> Option<&str> {
    text.get(start..end)
}

impl Pattern {
    /// A glob over command text.
    pub fn command(text: &str) -> Result<Pattern, globset::Error> {
        Pattern::new(text, false)
    }

    /// A glob over absolute paths (already anchored, see `PathGlob`).
    pub fn path(text: &str) -> Result<Pattern, globset::Error> {
        Pattern::new(text, true)
    }

    /// `part` of this pattern's text (a slice [`Pattern::exact`], [`Pattern::anchored_prefix`]
    /// or [`Pattern::required_literal`] gave) as a `Text`: borrowed from the binary when the
    /// pattern's text is, for the index's keys.
    pub fn text_of(&self, part: &str) -> Text {
        if let Text::Borrowed(all) = self.text {
            let start = (part.as_ptr() as usize).wrapping_sub(all.as_ptr() as usize);
            if let Some(s) = all.get(start..start.wrapping_add(part.len())) {
                if std::ptr::eq(s, part) {
                    return Text::Borrowed(s);
                }
            }
        }
        Text::Owned(part.to_string())
    }

    /// A glob over command text, from a policy's word: a shipped policy's is not copied.
    pub fn of_word(text: &Text) -> Result<Pattern, globset::Error> {
        Pattern::from_text(text.clone(), false)
    }

    fn new(text: &str, paths: bool) -> Result<Pattern, globset::Error> {
        Pattern::from_text(Text::Owned(text.to_string()), paths)
    }

    fn from_text(owned: Text, paths: bool) -> Result<Pattern, globset::Error> {
        let text: &str = &owned;
        let own = Strategy::new(text, paths)?;
        let mut bare = Vec::new();
        let mut glob = text;
        while let Some(words) = glob.strip_suffix(" *") {
            if paths || words.trim().is_empty() {
                break;
            }
            bare.push(Strategy::new(words, false)?);
            glob = words;
        }
        Ok(Pattern {
            own,
            bare,
            text: owned,
        })
    }

    pub fn is_match(&self, s: &str) -> bool {
        self.is_match_self(s) || self.bare.iter().any(|b| b.is_match(&self.text, s))
    }

    fn is_match_self(&self, s: &str) -> bool {
        self.own.is_match(&self.text, s)
    }

    pub fn is_match_path(&self, p: &Path) -> bool {
        self.is_match(&p.to_string_lossy())
    }

    /// Literal text every match must contain (the longest run), for the substring index.
    pub fn required_literal(&self) -> Option<&str> {
        // The innermost words' literal: every match holds those words.
        match self.bare.last() {
            Some(b) => b.required_literal(&self.text, self.text.len() - 2 * self.bare.len()),
            None => self.own.required_literal(&self.text, self.text.len()),
        }
    }

    /// Literal text every match starts with (for the prefix index), when there is some: the
    /// prefix of a `git *` glob, an exact value, and for a command glob ending in ` *` what it
    /// shares with the words alone (`git commit *` matches `git commit` too: `git commit`).
    pub fn anchored_prefix(&self) -> Option<&str> {
        let mut shared = self.own.anchored_prefix(&self.text)?;
        for b in &self.bare {
            let theirs = b.anchored_prefix(&self.text)?;
            let n = shared
                .char_indices()
                .zip(theirs.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, a), _)| i + a.len_utf8());
            shared = &shared[..n];
        }
        (!shared.is_empty()).then_some(shared)
    }

    /// Whether this pattern matches a whole string exactly (no wildcards).
    pub fn exact(&self) -> Option<&str> {
        self.own.exact(&self.text)
    }

    /// The prefix when the pattern is a literal prefix and `*` (`""` for `*` alone).
    pub fn as_prefix(&self) -> Option<&str> {
        match self.bare.last() {
            Some(b) => b.as_prefix(&self.text).or(b.exact(&self.text)),
            None => self.own.as_prefix(&self.text),
        }
    }
}

/// The cheapest strategy that matches as `text` does, its literals placed in `text`.
fn classify(text: &str, paths: bool) -> Fast {
    let len = text.len();
    if !has_meta(text) {
        return Fast::Exact((0, len));
    }
    if text.contains(['?', '[', '{', '\\']) {
        return Fast::Slow;
    }
    if paths {
        // `dir/**`: everything below a literal folder.
        if let Some(base) = text.strip_suffix("/**") {
            if !has_meta(base) {
                return Fast::Prefix((0, len - 2));
            }
        }
        // `/dev/sd*`: a literal, then one name's rest.
        if let Some(base) = text.strip_suffix('*') {
            if !has_meta(base) {
                return Fast::PrefixName((0, len - 1));
            }
        }
        // `**/name` and `**/*.ext`: a literal last component or file-name suffix, anywhere.
        if let Some(last) = text.strip_prefix("**/") {
            if !has_meta(last) && !last.is_empty() && !last.starts_with('/') {
                return Fast::Suffix((2, len));
            }
            if let Some(ext) = last.strip_prefix('*') {
                if !has_meta(ext) && !ext.contains('/') {
                    return Fast::Suffix((4, len));
                }
            }
        }
        return Fast::Slow;
    }
    // globset reads `**` beside a `/` as folders: `**/x` matches `x` too, which no suffix says.
    if text.contains("**/") || text.contains("/**") {
        return Fast::Slow;
    }
    let start = len - text.trim_start_matches('*').len();
    let end = text.trim_end_matches('*').len();
    if start >= end {
        return Fast::Any;
    }
    if has_meta(&text[start..end]) {
        return Fast::Slow;
    }
    let inner = (start, end);
    match (start > 0, end < len) {
        (false, true) => Fast::Prefix(inner),
        (true, false) => Fast::Suffix(inner),
        (true, true) => Fast::Contains(inner),
        (false, false) => Fast::Exact(inner),
    }
}

/// The longest run of text without glob syntax (only outside `[...]` and `{...}`): text every
/// match holds.
fn longest_literal(text: &str) -> Option<&str> {
    let mut best: Option<&str> = None;
    let mut braces = 0usize;
    // Inside `[...]`, and whether a `]` there would still be a member (first, or after `!`).
    let mut class = false;
    let mut class_fresh = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let meta = if escaped {
            escaped = false;
            true
        } else if class {
            class = c != ']' || class_fresh;
            class_fresh = class_fresh && matches!(c, '!' | '^') && text[..i].ends_with('[');
            true
        } else {
            match c {
                '[' => (class, class_fresh) = (true, true),
                '\\' => escaped = true,
                '{' => braces += 1,
                '}' => braces = braces.saturating_sub(1),
                _ => {}
            }
            // A `/` after `**` may be absent from a match (`**/x` matches `x`).
            matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | ',')
                || (c == '/' && text[..i].ends_with("**"))
                || braces > 0
        };
        if meta {
            let run = &text[start..i];
            if best.is_none_or(|b| run.len() > b.len()) && !run.is_empty() {
                best = Some(run);
            }
            start = i + c.len_utf8();
        }
    }
    let run = &text[start..];
    if best.is_none_or(|b| run.len() > b.len()) && !run.is_empty() {
        best = Some(run);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a pattern is valid when globset parses every one: the pattern, and for a
    /// command glob ending in ` *` the words before it too (see [`Pattern::new`]).
    fn valid_when_all_parsed(text: &str, paths: bool) -> bool {
        let parsed = GlobBuilder::new(text)
            .literal_separator(paths)
            .backslash_escape(true)
            .build()
            .is_ok();
        parsed
            && match text.strip_suffix(" *") {
                Some(words) if !paths && !words.trim().is_empty() => {
                    valid_when_all_parsed(words, false)
                }
                _ => true,
            }
    }

    proptest::proptest! {
        /// A pattern left unparsed (matched by equality, prefix, suffix or substring) is valid
        /// exactly when parsing it with globset says so.
        #[test]
        fn test_fast_patterns_are_valid_globs(text in "[a/ *?\\[\\]{},\\\\!^-]{0,8}") {
            for paths in [false, true] {
                let parsed = valid_when_all_parsed(&text, paths);
                proptest::prop_assert_eq!(Pattern::new(&text, paths).is_ok(), parsed, "{}", text);
            }
        }
    }

    proptest::proptest! {
        /// Whatever strategy a pattern gets, it matches what globset's glob matches (a command
        /// glob's words alone aside, which ` *` adds on purpose), on any command text and on
        /// any absolute path (the only paths the engine asks about).
        #[test]
        fn test_every_strategy_matches_what_the_glob_matches(
            text in "[a/*.?{},\\[\\]!\\\\ ]{0,8}",
            subject in "[a/.!,{}\\[\\]\\\\ ]{0,7}",
        ) {
            for paths in [false, true] {
                let subject = if paths { format!("/{subject}") } else { subject.clone() };
                let Ok(glob) = GlobBuilder::new(&text)
                    .literal_separator(paths)
                    .backslash_escape(true)
                    .build()
                else {
                    continue;
                };
                let Ok(pattern) = Pattern::new(&text, paths) else {
                    continue;
                };
                let matched = glob.compile_matcher().is_match(&subject);
                // What the index looks a subject up by is in every subject the pattern matches.
                if pattern.is_match(&subject) {
                    let literal = pattern.required_literal().unwrap_or_default();
                    let prefix = pattern.anchored_prefix().unwrap_or_default();
                    proptest::prop_assert!(subject.contains(literal), "{} needs {:?} in {}", text, literal, subject);
                    proptest::prop_assert!(subject.starts_with(prefix), "{} starts {:?}: {}", text, prefix, subject);
                }
                proptest::prop_assert_eq!(
                    pattern.is_match_self(&subject),
                    matched,
                    "{} ({:?}) on {}",
                    text,
                    pattern.own.fast,
                    subject
                );
            }
        }
    }

    /// `{}\ *` is a valid glob, but the words before its ` *` end in a lone backslash.
    #[test]
    fn a_command_glob_whose_words_end_in_a_backslash_is_an_error() {
        assert!(Pattern::command("{}\\ *").is_err());
        assert!(Pattern::command("a\\ *").is_err());
    }

    #[test]
    fn the_anchored_prefix_is_what_every_match_starts_with() {
        let p = |t: &str| Pattern::command(t).unwrap();
        assert_eq!(p("git commit *").anchored_prefix(), Some("git commit"));
        assert_eq!(p("git*").anchored_prefix(), Some("git"));
        assert_eq!(p("make dist").anchored_prefix(), Some("make dist"));
        assert_eq!(p("*rm*").anchored_prefix(), None);
        assert_eq!(p("* x").anchored_prefix(), None);
        assert_eq!(p("é?x *").anchored_prefix(), None);
        for (glob, text) in [
            ("git commit *", "git commit"),
            ("git commit *", "git commit -m x"),
        ] {
            let pattern = p(glob);
            let prefix = pattern.anchored_prefix().unwrap();
            assert!(pattern.is_match(text) && text.starts_with(prefix));
        }
    }

    #[test]
    fn command_globs_use_cheap_strategies_with_glob_meaning() {
        for (pat, yes, no) in [
            ("git *", "git add src/x.rs", "gitx status"),
            ("*go test*", "cd x && go test ./...", "go build"),
            ("*.sh", "run.sh", "run.shx"),
            ("ls", "ls", "ls -la"),
            ("git [cp]*", "git commit", "git status"),
            ("a*b*c", "a--b--c", "a--c"),
            ("*", "", "\u{0}never-fails"),
        ] {
            let p = Pattern::command(pat).unwrap();
            let g = GlobBuilder::new(pat)
                .literal_separator(false)
                .build()
                .unwrap()
                .compile_matcher();
            assert!(p.is_match(yes), "{pat} should match {yes}");
            assert_eq!(p.is_match(yes), g.is_match(yes), "{pat} vs {yes}");
            assert_eq!(p.is_match(no), g.is_match(no), "{pat} vs {no}");
        }
    }

    #[test]
    fn path_globs_keep_star_in_one_component() {
        let p = Pattern::path("/w/src/*.rs").unwrap();
        assert!(p.is_match("/w/src/a.rs"));
        assert!(!p.is_match("/w/src/x/a.rs"));
        let p = Pattern::path("/w/secrets/**").unwrap();
        assert!(p.is_match("/w/secrets/a/b"));
        assert!(!p.is_match("/w/secretsx/a"));
        let p = Pattern::path("**/*.pem").unwrap();
        assert!(p.is_match("/a/b/key.pem"));
        assert!(!p.is_match("/a/b.pem/key"));
    }

    #[test]
    fn a_part_of_a_borrowed_pattern_is_borrowed_and_of_any_other_owned() {
        let word: Text = Text::Borrowed("git push *");
        let p = Pattern::of_word(&word).expect("a glob");
        let prefix = p.anchored_prefix().expect("a prefix");
        assert!(matches!(p.text_of(prefix), Text::Borrowed(_)), "{prefix:?}");
        assert_eq!(p.text_of(prefix), prefix);
        // Equal text elsewhere is copied, never mistaken for a part.
        let elsewhere = prefix.to_string();
        assert!(matches!(p.text_of(&elsewhere), Text::Owned(ref t) if *t == elsewhere));
        let owned = Pattern::command("git push *").expect("a glob");
        let prefix = owned.anchored_prefix().expect("a prefix");
        assert!(matches!(owned.text_of(prefix), Text::Owned(ref t) if t == prefix));
    }

    #[test]
    fn invalid_globs_are_errors_whatever_the_strategy() {
        assert!(Pattern::command("a[").is_err());
        assert!(Pattern::path("/x/{a,b").is_err());
    }

    #[test]
    fn required_literal_is_the_longest_plain_run() {
        assert_eq!(
            Pattern::command("a*terraform?x")
                .unwrap()
                .required_literal(),
            Some("terraform")
        );
        // `git *` also matches `git` alone, so only `git` is required.
        assert_eq!(
            Pattern::command("git *").unwrap().required_literal(),
            Some("git")
        );
        assert_eq!(
            Pattern::command("git push*").unwrap().required_literal(),
            Some("git push")
        );
        assert_eq!(Pattern::command("*").unwrap().required_literal(), None);
    }

    #[test]
    fn a_trailing_space_star_also_matches_the_words_alone() {
        let p = Pattern::command("git commit *").unwrap();
        assert!(p.is_match("git commit"));
        assert!(p.is_match("git commit -m x"));
        assert!(!p.is_match("git commitx"));
        assert!(!p.is_match("git"));
        let slow = Pattern::command("git [c]ommit *").unwrap();
        assert!(slow.is_match("git commit") && slow.is_match("git commit --amend"));
        // The words before ` *` end in ` *` again: they match their own words alone too.
        let twice = Pattern::command("git * *").unwrap();
        assert!(["git", "git a", "git a b"]
            .iter()
            .all(|s| twice.is_match(s)));
        assert_eq!(twice.required_literal(), Some("git"));
        // Path globs keep their meaning.
        assert!(!Pattern::path("/a/b *").unwrap().is_match("/a/b"));
    }
}
