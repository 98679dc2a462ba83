//! Glob patterns compiled to the cheapest strategy that gives the same answer: equality, prefix,
//! suffix, substring, or (only for what is left) a glob matcher from `globset`, built on first use
//! so that loading a large policy never compiles thousands of regexes up front.

use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};

use super::paths::has_meta;

/// A compiled glob. `paths` globs keep `*` inside one path component; command globs let `*`
/// match anything, `/` included (`git *` matches `git add src/x`). A command glob ending in
/// ` *` also matches the words before it alone: `git commit *` matches `git commit`.
#[derive(Debug)]
pub struct Pattern {
    pub text: String,
    fast: Fast,
    /// For a command glob ending in ` *`: the glob without it.
    bare: Option<Box<Pattern>>,
    /// Only for `Fast::Slow`: the parsed glob and its matcher, compiled on first use.
    slow: Option<Box<(Glob, OnceLock<GlobMatcher>)>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Fast {
    Exact(String),
    Prefix(String),
    /// A path glob's literal and `*`: the literal, then anything but `/` (`/dev/sd*`).
    PrefixName(String),
    Suffix(String),
    Contains(String),
    Any,
    Slow,
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

    fn new(text: &str, paths: bool) -> Result<Pattern, globset::Error> {
        let fast = classify(text, paths);
        // Parsed when it is matched by globset, and when it holds a `}`, so that an invalid
        // pattern is an error either way: text and `*` alone is always a valid glob, unless a
        // `}` closes alternatives none opened (`test_fast_patterns_are_valid_globs` checks it).
        let slow = if fast == Fast::Slow || text.contains('}') {
            let glob = GlobBuilder::new(text)
                .literal_separator(paths)
                .backslash_escape(true)
                .build()?;
            (fast == Fast::Slow).then(|| Box::new((glob, OnceLock::new())))
        } else {
            None
        };
        let bare = match text.strip_suffix(" *") {
            Some(words) if !paths && !words.trim().is_empty() => {
                Some(Box::new(Pattern::new(words, false)?))
            }
            _ => None,
        };
        Ok(Pattern {
            text: text.to_string(),
            fast,
            bare,
            slow,
        })
    }

    pub fn is_match(&self, s: &str) -> bool {
        self.is_match_self(s) || self.bare.as_ref().is_some_and(|b| b.is_match(s))
    }

    fn is_match_self(&self, s: &str) -> bool {
        match &self.fast {
            Fast::Exact(x) => s == x,
            Fast::Prefix(x) => s.starts_with(x.as_str()),
            Fast::PrefixName(x) => s.strip_prefix(x.as_str()).is_some_and(|r| !r.contains('/')),
            Fast::Suffix(x) => s.ends_with(x.as_str()),
            Fast::Contains(x) => s.contains(x.as_str()),
            Fast::Any => true,
            Fast::Slow => match &self.slow {
                Some(slow) => slow.1.get_or_init(|| slow.0.compile_matcher()).is_match(s),
                None => false,
            },
        }
    }

    pub fn is_match_path(&self, p: &Path) -> bool {
        self.is_match(&p.to_string_lossy())
    }

    /// Literal text every match must contain (the longest run), for the substring index.
    pub fn required_literal(&self) -> Option<&str> {
        if let Some(b) = &self.bare {
            return b.required_literal();
        }
        match &self.fast {
            Fast::Exact(x)
            | Fast::Prefix(x)
            | Fast::PrefixName(x)
            | Fast::Suffix(x)
            | Fast::Contains(x) => Some(x.as_str()),
            Fast::Any => None,
            Fast::Slow => longest_literal(&self.text),
        }
    }

    /// Literal text every match starts with (for the prefix index), when there is some: the
    /// prefix of a `git *` glob, an exact value, and for a command glob ending in ` *` what it
    /// shares with the words alone (`git commit *` matches `git commit` too: `git commit`).
    pub fn anchored_prefix(&self) -> Option<&str> {
        let own = match &self.fast {
            Fast::Exact(x) | Fast::Prefix(x) | Fast::PrefixName(x) => x.as_str(),
            _ => return None,
        };
        let shared = match &self.bare {
            None => own,
            Some(b) => {
                let theirs = b.anchored_prefix()?;
                let n = own
                    .char_indices()
                    .zip(theirs.chars())
                    .take_while(|((_, a), b)| a == b)
                    .last()
                    .map_or(0, |((i, a), _)| i + a.len_utf8());
                &own[..n]
            }
        };
        (!shared.is_empty()).then_some(shared)
    }

    /// Whether this pattern matches a whole string exactly (no wildcards).
    pub fn exact(&self) -> Option<&str> {
        match &self.fast {
            Fast::Exact(x) => Some(x.as_str()),
            _ => None,
        }
    }

    /// The prefix when the pattern is a literal prefix and `*` (`""` for `*` alone).
    pub fn as_prefix(&self) -> Option<&str> {
        if let Some(b) = &self.bare {
            return b.as_prefix().or(b.exact());
        }
        match &self.fast {
            Fast::Prefix(x) => Some(x.as_str()),
            Fast::Any => Some(""),
            _ => None,
        }
    }
}

fn classify(text: &str, paths: bool) -> Fast {
    if !has_meta(text) {
        return Fast::Exact(text.to_string());
    }
    if text.contains(['?', '[', '{', '\\']) {
        return Fast::Slow;
    }
    if paths {
        // `dir/**`: everything below a literal folder.
        if let Some(base) = text.strip_suffix("/**") {
            if !has_meta(base) {
                return Fast::Prefix(format!("{base}/"));
            }
        }
        // `/dev/sd*`: a literal, then one name's rest.
        if let Some(base) = text.strip_suffix('*') {
            if !has_meta(base) {
                return Fast::PrefixName(base.to_string());
            }
        }
        // `**/name` and `**/*.ext`: a literal last component or file-name suffix, anywhere.
        if let Some(last) = text.strip_prefix("**/") {
            if !has_meta(last) && !last.is_empty() && !last.starts_with('/') {
                return Fast::Suffix(format!("/{last}"));
            }
            if let Some(ext) = last.strip_prefix('*') {
                if !has_meta(ext) && !ext.contains('/') {
                    return Fast::Suffix(ext.to_string());
                }
            }
        }
        return Fast::Slow;
    }
    // globset reads `**` beside a `/` as folders: `**/x` matches `x` too, which no suffix says.
    if text.contains("**/") || text.contains("/**") {
        return Fast::Slow;
    }
    let inner = text.trim_matches('*');
    if inner.is_empty() {
        return Fast::Any;
    }
    if has_meta(inner) {
        return Fast::Slow;
    }
    match (text.starts_with('*'), text.ends_with('*')) {
        (false, true) => Fast::Prefix(inner.to_string()),
        (true, false) => Fast::Suffix(inner.to_string()),
        (true, true) => Fast::Contains(inner.to_string()),
        (false, false) => Fast::Exact(inner.to_string()),
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
                    pattern.fast,
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
        // Path globs keep their meaning.
        assert!(!Pattern::path("/a/b *").unwrap().is_match("/a/b"));
    }
}
