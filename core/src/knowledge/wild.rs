//! Globs of `*` and `**` alone, matched without a regular expression: the catalogue of secrets
//! is written in them (`*.pem`, `client_secret*.json`, `/usr/**`), and a hook process that asks
//! about one file must not compile a few hundred patterns first. The meaning is globset's with
//! `literal_separator`: `*` matches within one part of a path, a part that is `**` matches any
//! number of parts (the property test below holds the two to it).

use std::collections::HashMap as StdMap;

/// The indexes' maps: looked up per path of every call.
type HashMap<K, V> = StdMap<K, V, foldhash::fast::RandomState>;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use memchr::memmem;

/// Whether `pattern` is a glob [`matches`] reads as globset would: no wildcard but `*`, a
/// `**` only as a whole part, and no empty part (`a//b`, a trailing `/`).
pub fn simple(pattern: &str) -> bool {
    // One pass over the bytes (it is asked of every glob of the catalogue as it loads): every
    // byte these look for is ASCII, so a multi-byte character never matches one.
    let bytes = pattern.as_bytes();
    let part_ok = |part: &[u8]| part == b"**" || !part.windows(2).any(|w| w == b"**");
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'?' | b'[' | b']' | b'{' | b'}' | b'\\' => return false,
            b'/' => {
                if (i > 0 && bytes[i - 1] == b'/') || !part_ok(&bytes[start..i]) {
                    return false;
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    bytes.last() != Some(&b'/') && part_ok(&bytes[start..])
}

/// Whether `text` matches `pattern`, a glob of `*` and `**` (see [`simple`]).
pub fn matches(pattern: &str, text: &str) -> bool {
    Wild::new(pattern).is_match(text)
}

/// Whether `name` matches `pattern`, both one part of a path (no `/`), the pattern's only
/// wildcard `*`: compared byte by byte, nothing built (a name is compared with a few of the
/// catalogue's patterns for each path of a call). Each `*` is tried at its first place first,
/// and moved on by one byte when the rest fails.
pub fn name_matches(pattern: &str, name: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen, and where in `name` its match ends for now.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&b) if b == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

/// A glob of `*` and `**` (see [`simple`]), split once into what matching compares.
#[derive(Debug, Clone)]
pub struct Wild {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    /// `**`: any number of parts.
    Any,
    /// A name with `*` in it: what it starts with, the pieces between stars in order, what it
    /// ends with.
    Stars {
        first: String,
        middle: Vec<String>,
        last: String,
    },
    /// A name written out.
    Name(String),
}

impl Part {
    fn new(part: &str) -> Part {
        if part == "**" {
            return Part::Any;
        }
        let Some((first, rest)) = part.split_once('*') else {
            return Part::Name(part.to_string());
        };
        let (middle, last) = rest.rsplit_once('*').unwrap_or(("", rest));
        Part::Stars {
            first: first.to_string(),
            middle: middle
                .split('*')
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect(),
            last: last.to_string(),
        }
    }

    /// Whether one part of a path (never `**` here) matches.
    fn matches(&self, name: &str) -> bool {
        match self {
            Part::Any => true,
            Part::Name(n) => n == name,
            Part::Stars {
                first,
                middle,
                last,
            } => {
                // Compared as bytes: `str::strip_prefix` and `find` set up a substring
                // searcher per call, which costs more than these short names take.
                let name = name.as_bytes();
                // (An empty piece is not compared: a comparison with an empty string still
                // calls `memcmp`, at a cost out of all proportion here.)
                if !first.is_empty() && !name.starts_with(first.as_bytes()) {
                    return false;
                }
                let mut rest = &name[first.len()..];
                for piece in middle {
                    let piece = piece.as_bytes();
                    match rest.windows(piece.len()).position(|w| w == piece) {
                        Some(i) => rest = &rest[i + piece.len()..],
                        None => return false,
                    }
                }
                last.is_empty() || rest.ends_with(last.as_bytes())
            }
        }
    }
}

impl Wild {
    pub fn new(pattern: &str) -> Wild {
        Wild {
            parts: pattern.split('/').map(Part::new).collect(),
        }
    }

    /// The extension every name this glob matches ends with, when it is one name ending in a
    /// written-out `.EXT` (`*.pem`, `client_secret*.json`): what a set indexes it by.
    fn extension(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Stars { last, .. }] => last.rsplit_once('.').map(|(_, ext)| ext),
            _ => None,
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        match self.parts.as_slice() {
            // `**` alone matches every path.
            [Part::Any] => return true,
            [one] => return !text.contains('/') && one.matches(text),
            _ => {}
        }
        // The parts on the stack: a path of a call is matched against several globs, and a
        // vector per match was most of what matching cost.
        let mut parts = [""; 24];
        let mut n = 0;
        for part in text.split('/') {
            let Some(slot) = parts.get_mut(n) else {
                let parts: Vec<&str> = text.split('/').collect();
                return parts_match(&self.parts, &parts);
            };
            *slot = part;
            n += 1;
        }
        parts_match(&self.parts, &parts[..n])
    }
}

/// Matching part by part: a `**` part takes any number of parts (as globset reads it: a
/// leading `**/` may take none, a trailing `/**` at least one, even an empty one).
fn parts_match(pat: &[Part], parts: &[&str]) -> bool {
    match pat.split_first() {
        None => parts.is_empty(),
        Some((Part::Any, rest)) => {
            if rest.is_empty() {
                // `a/**` matches what is below `a` (`a/` and `a/b/c`), not `a` itself.
                return !parts.is_empty();
            }
            (0..=parts.len()).any(|skip| parts_match(rest, &parts[skip..]))
        }
        Some((first, rest)) => parts
            .split_first()
            .is_some_and(|(p, more)| first.matches(p) && parts_match(rest, more)),
    }
}

/// The longest piece of a glob of `*` and `**` without a wildcard or a `/`: every path it
/// matches contains it.
fn needed_piece(pattern: &str) -> &str {
    pattern
        .split(['*', '/'])
        .max_by_key(|piece| piece.len())
        .unwrap_or("")
}

/// A set of globs, indexed: written-out names by a hash, folders ending in `/**` by the
/// folders above a path, names ending in `.EXT` by EXT, paths whose last part is written out
/// by that part, the other globs of `*` and `**` tried one by one, and any other glob
/// by a globset compiled when first needed. `matches` gives the indices of every pattern that
/// matches, in order.
#[derive(Debug, Default)]
pub struct WildSet {
    literal: HashMap<String, Vec<usize>>,
    below: HashMap<String, Vec<usize>>,
    /// Names with `*` ending in `.EXT`, by EXT (see [`Wild::extension`]).
    by_ext: HashMap<String, Vec<(Wild, usize)>>,
    /// Paths whose last part is written out (`**/.git/config`), by that part: a path matches
    /// one only if it ends with that part.
    by_last: HashMap<String, Vec<(Wild, usize)>>,
    rest: Vec<(Wild, usize)>,
    /// For each of `rest`, a piece of it without wildcards that a match must contain: most
    /// paths are passed over by a substring search (`**/.git/config` needs `config`).
    rest_needs: Vec<String>,
    /// A searcher for each of `rest_needs`, made when first asked: `str::contains` set one up
    /// on every call, and a path is compared with every one of `rest`.
    rest_finders: OnceLock<Vec<memmem::Finder<'static>>>,
    /// Globs [`simple`] does not take.
    complex: Vec<(String, usize)>,
    complex_set: OnceLock<(GlobSet, Vec<usize>)>,
}

impl WildSet {
    /// The set of `patterns` (globs, with `*` within a part of a path).
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> WildSet {
        let mut set = WildSet::default();
        for (i, p) in patterns.into_iter().enumerate() {
            if !simple(p) {
                set.complex.push((p.to_string(), i));
                continue;
            }
            match p.strip_suffix("/**") {
                _ if !p.contains('*') => set.literal.entry(p.to_string()).or_default().push(i),
                Some(folder) if !folder.contains('*') => {
                    set.below.entry(folder.to_string()).or_default().push(i)
                }
                _ => {
                    let w = Wild::new(p);
                    let last = p.rsplit('/').next().unwrap_or(p);
                    match w.extension() {
                        Some(ext) => set.by_ext.entry(ext.to_string()).or_default().push((w, i)),
                        None if p.contains('/') && !last.contains('*') => set
                            .by_last
                            .entry(last.to_string())
                            .or_default()
                            .push((w, i)),
                        None => {
                            set.rest_needs.push(needed_piece(p).to_string());
                            set.rest.push((w, i));
                        }
                    }
                }
            }
        }
        set
    }

    /// The set of `patterns` folded (see [`crate::knowledge::secrets::fold`]): matched against
    /// folded text, as case-insensitive file systems compare names.
    pub fn folded<'a>(patterns: impl IntoIterator<Item = &'a str>) -> WildSet {
        let folded: Vec<String> = patterns
            .into_iter()
            .map(crate::knowledge::secrets::fold)
            .collect();
        WildSet::new(folded.iter().map(String::as_str))
    }

    /// Whether any pattern matches `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.literal.contains_key(text)
            || self.is_below(text)
            || self.of_extension(text).any(|(p, _)| p.is_match(text))
            || self.of_last(text).any(|(p, _)| p.is_match(text))
            || self.rest_matching(text).next().is_some()
            || (!self.complex.is_empty() && self.complex_set().0.is_match(text))
    }

    /// The set of the complex globs that build, and each one's index (one that does not
    /// build matches nothing, as globset has it).
    fn complex_set(&self) -> &(GlobSet, Vec<usize>) {
        self.complex_set.get_or_init(|| {
            let mut b = GlobSetBuilder::new();
            let mut indices = Vec::new();
            for (p, i) in &self.complex {
                if let Ok(g) = GlobBuilder::new(p).literal_separator(true).build() {
                    b.add(g);
                    indices.push(*i);
                }
            }
            (b.build().unwrap_or_else(|_| GlobSet::empty()), indices)
        })
    }

    /// The indices of the unindexed globs that match `text`.
    fn rest_matching<'s>(&'s self, text: &'s str) -> impl Iterator<Item = usize> + 's {
        let finders = self.rest_finders.get_or_init(|| {
            self.rest_needs
                .iter()
                .map(|need| memmem::Finder::new(need.as_bytes()).into_owned())
                .collect()
        });
        self.rest
            .iter()
            .zip(finders)
            .filter(move |((p, _), need)| need.find(text.as_bytes()).is_some() && p.is_match(text))
            .map(|((_, i), _)| *i)
    }

    /// The globs indexed by the extension `text` (a name) ends with.
    fn of_extension(&self, text: &str) -> impl Iterator<Item = &(Wild, usize)> {
        let ext = (!text.contains('/'))
            .then(|| text.rsplit_once('.'))
            .flatten()
            .and_then(|(_, ext)| self.by_ext.get(ext));
        ext.into_iter().flatten()
    }

    /// The globs indexed by the last part of `text` (see `by_last`).
    fn of_last(&self, text: &str) -> impl Iterator<Item = &(Wild, usize)> {
        let last = match self.by_last.is_empty() {
            true => None,
            false => self.by_last.get(text.rsplit('/').next().unwrap_or(text)),
        };
        last.into_iter().flatten()
    }

    fn folders_above(text: &str) -> impl Iterator<Item = &str> {
        text.match_indices('/').map(move |(i, _)| &text[..i])
    }

    fn is_below(&self, text: &str) -> bool {
        !self.below.is_empty() && Self::folders_above(text).any(|f| self.below.contains_key(f))
    }

    /// The indices of the patterns that match `text`, in order.
    pub fn matches(&self, text: &str) -> Vec<usize> {
        let mut out: Vec<usize> = self.literal.get(text).cloned().unwrap_or_default();
        if !self.below.is_empty() {
            for f in Self::folders_above(text) {
                out.extend(self.below.get(f).into_iter().flatten());
            }
        }
        out.extend(
            self.of_extension(text)
                .chain(self.of_last(text))
                .filter(|(p, _)| p.is_match(text))
                .map(|&(_, i)| i)
                .chain(self.rest_matching(text)),
        );
        if !self.complex.is_empty() {
            let (set, indices) = self.complex_set();
            out.extend(
                set.matches(text)
                    .into_iter()
                    .filter_map(|j| indices.get(j).copied()),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn globset_matches(pattern: &str, text: &str) -> bool {
        globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher().is_match(text))
            .unwrap_or(false)
    }

    #[test]
    fn stars_match_within_a_name_and_double_stars_across_folders() {
        assert!(matches("*.pem", "server.pem"));
        assert!(matches("*.pem", ".pem"));
        assert!(!matches("*.pem", "server.pem.pub"));
        assert!(matches("client_secret*.json", "client_secret_12.apps.json"));
        assert!(!matches("client_secret*.json", "client_secret.js"));
        assert!(matches(
            "*service-account*.json",
            "my-service-account-1.json"
        ));
        assert!(matches("a*b*b", "abbb"));
        assert!(!matches("a*bb*b", "abb"));
        assert!(matches("/usr/**", "/usr/include/stdio.h"));
        assert!(!matches("/usr/**", "/usr"));
        assert!(!matches("/usr/**", "/usrx/a"));
        assert!(matches("sdk/go*/**", "sdk/go1.22/bin/go"));
        assert!(!matches("proc/*/environ", "proc/1/2/environ"));
        assert!(matches("**/.git/hooks/**", "a/b/.git/hooks/pre-commit"));
        assert!(matches("**/.envrc", ".envrc"));
    }

    #[test]
    fn a_path_deeper_than_the_parts_kept_on_the_stack_matches_as_globset_has_it() {
        let deep = format!("/usr/{}x.h", "d/".repeat(40));
        for pattern in [
            "/usr/**",
            "/usr/**/x.h",
            "**/d/x.h",
            "/usr/*/x.h",
            "/opt/**",
        ] {
            assert_eq!(
                matches(pattern, &deep),
                globset_matches(pattern, &deep),
                "{pattern}"
            );
        }
        assert!(matches("/usr/**/x.h", &deep));
    }

    #[test]
    fn a_set_finds_every_pattern_that_matches_in_order() {
        let set = WildSet::new(["*.key", "/usr/**", "server.key", "/usr/lib/**", "x[ab]"]);
        assert_eq!(set.matches("server.key"), vec![0, 2]);
        assert_eq!(set.matches("/usr/lib/x.so"), vec![1, 3]);
        assert!(set.is_match("/usr/share/doc"));
        assert!(!set.is_match("/usrlocal"));
        // A pattern of other wildcards is matched by globset.
        assert_eq!(set.matches("xa"), vec![4]);
        assert!(set.matches("xc").is_empty());
    }

    fn pattern() -> impl Strategy<Value = String> {
        let part = prop::sample::select(vec![
            "**", "*", "a", "b", "ab", "*.", ".*", "a*b", "*b*", "x.y", "-", "*a*a", ".",
        ]);
        (any::<bool>(), prop::collection::vec(part, 1..5))
            .prop_map(|(root, parts)| format!("{}{}", if root { "/" } else { "" }, parts.join("/")))
    }

    fn text() -> impl Strategy<Value = String> {
        let part =
            prop::sample::select(vec!["", "a", "b", "ab", ".", "x.y", "-", "ba", "aba", ".b"]);
        (any::<bool>(), prop::collection::vec(part, 0..6))
            .prop_map(|(root, parts)| format!("{}{}", if root { "/" } else { "" }, parts.join("/")))
    }

    /// What [`simple`] says, as first written: by whole-string searches.
    fn simple_by_searches(pattern: &str) -> bool {
        !pattern.contains(['?', '[', ']', '{', '}', '\\'])
            && !pattern.contains("//")
            && !pattern.ends_with('/')
            && pattern
                .split('/')
                .all(|part| part == "**" || !part.contains("**"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// A name, and a glob of one part, are compared as `Wild` compares them.
        #[test]
        fn a_name_is_matched_byte_by_byte_as_a_glob_matches_it(
            pattern in "[ab.*]{0,7}",
            name in "[ab.]{0,9}",
        ) {
            // A part's `**` is another wildcard (across folders): one `*` at a time here.
            let mut pattern = pattern;
            while pattern.contains("**") {
                pattern = pattern.replace("**", "*");
            }
            prop_assert!(simple(&pattern));
            prop_assert_eq!(
                name_matches(&pattern, &name),
                Wild::new(&pattern).is_match(&name),
                "{:?} {:?}", pattern, name
            );
        }

        /// The one-pass check says what the searches say, of any text.
        #[test]
        fn the_one_pass_check_of_a_simple_glob_says_what_the_searches_say(
            pattern in "[a-z*/?\\[\\]{}\\\\é.]{0,12}",
        ) {
            prop_assert_eq!(simple(&pattern), simple_by_searches(&pattern), "{:?}", pattern);
        }

        /// The hand matcher and globset agree on every glob of `*` and `**`.
        #[test]
        fn matching_agrees_with_globset(
            pattern in pattern(),
            text in text(),
        ) {
            // A part's `**` is another wildcard (across folders): one `*` at a time here.
            let mut pattern = pattern;
            while pattern.contains("**") {
                pattern = pattern.replace("**", "*");
            }
            prop_assert!(simple(&pattern));
            prop_assert_eq!(
                matches(&pattern, &text),
                globset_matches(&pattern, &text),
                "pattern {:?} text {:?}", pattern, text
            );
        }

        /// A set finds, in order, exactly the patterns globset matches one by one.
        #[test]
        fn a_set_agrees_with_globset(
            patterns in prop::collection::vec(pattern(), 1..8),
            text in text(),
        ) {
            let set = WildSet::new(patterns.iter().map(String::as_str));
            let one_by_one: Vec<usize> = patterns
                .iter()
                .enumerate()
                .filter(|(_, p)| globset_matches(p, &text))
                .map(|(i, _)| i)
                .collect();
            prop_assert_eq!(set.matches(&text), one_by_one.clone());
            prop_assert_eq!(set.is_match(&text), !one_by_one.is_empty());
        }
    }
}
