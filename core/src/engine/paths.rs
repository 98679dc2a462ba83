//! Paths as the engine sees them: absolute, with `~`, `$HOME`, `.` and `..` resolved, and, for
//! the hard protections, symlinks followed.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use super::pattern::Pattern;

/// Where relative paths start and what `~` means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathContext {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// The first working folder and where it really is (symlinks followed), looked up once;
    /// kept by [`with_cwd`](Self::with_cwd), so that walks from other folders stop there too.
    known: Option<(PathBuf, PathBuf)>,
    /// Home and where it really is (`/home` may be a link to `/var/home`), looked up once.
    known_home: Option<(PathBuf, PathBuf)>,
}

impl PathContext {
    pub fn new(cwd: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        let cwd = normalize(&cwd.into());
        let known = cwd.canonicalize().ok().map(|real| (cwd.clone(), real));
        let home = home.map(|h| normalize(&h));
        let known_home = home
            .as_ref()
            .and_then(|h| Some((h.clone(), h.canonicalize().ok()?)));
        PathContext {
            cwd,
            home,
            known,
            known_home,
        }
    }

    /// The same home, another working folder (not looked up).
    pub fn with_cwd(&self, cwd: PathBuf) -> Self {
        PathContext {
            cwd,
            home: self.home.clone(),
            known: self.known.clone(),
            known_home: self.known_home.clone(),
        }
    }

    /// The same context with another home folder (a line that sets `HOME`).
    pub fn with_home(&self, home: PathBuf) -> Self {
        PathContext {
            cwd: self.cwd.clone(),
            home: Some(normalize(&home)),
            known: self.known.clone(),
            known_home: None,
        }
    }

    /// The current process's working folder and `$HOME`.
    pub fn from_env() -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        PathContext::new(cwd, home)
    }

    /// Expands a leading `~`, `$HOME` or `${HOME}` and joins relative paths to the working
    /// folder, keeping `.` and `..` as written. Without a known home, `~` stays a folder named
    /// `~` under the root, which matches nothing real.
    pub fn join(&self, raw: &str) -> PathBuf {
        let home = self.home.as_deref().unwrap_or(Path::new("/~"));
        if let Some(at) = self.working_folder(raw) {
            return at;
        }
        match strip_home(raw) {
            Some(rest) => home.join(rest.trim_start_matches('/')),
            None if raw.starts_with('/') => PathBuf::from(raw),
            None => match self.user_home(raw) {
                Some((dir, rest)) => dir.join(rest.trim_start_matches('/')),
                None => self.cwd.join(raw),
            },
        }
    }

    /// Paths that lead through a working folder: `~+` (and `$PWD`, which the analysis writes
    /// so) is this one; `/proc/PID/cwd` is a process's, here taken as this one too;
    /// `/proc/PID/root` is the root; `~-` (`$OLDPWD`) is the one before the last `cd`, which
    /// may be anywhere: when the rest names a hidden file or folder (`~-/.aws/credentials`),
    /// a wildcard (`/**/rest`) that may reach any protected path; otherwise it is left as
    /// written (never read-only, see `knowledge::plain_path`).
    fn working_folder(&self, raw: &str) -> Option<PathBuf> {
        let under = |prefix: &str| {
            raw.strip_prefix(prefix)
                .filter(|rest| rest.is_empty() || rest.starts_with('/'))
                .map(|rest| rest.trim_start_matches('/'))
        };
        if let Some(rest) = under("~+") {
            return Some(self.cwd.join(rest));
        }
        if let Some(rest) = under("~-").filter(|r| !r.is_empty()) {
            return Some(Path::new("/**").join(rest));
        }
        let proc = raw.strip_prefix("/proc/")?;
        let (_pid, rest) = proc.split_once('/')?;
        let (what, rest) = rest.split_once('/').unwrap_or((rest, ""));
        match what {
            "cwd" => Some(self.cwd.join(rest)),
            "root" => Some(Path::new("/").join(rest)),
            _ => None,
        }
    }

    /// `~name/…`: that user's home. The current user's when `name` is the last part of `$HOME`;
    /// `/root` for root; `/home/name` otherwise (the usual layout).
    fn user_home<'r>(&self, raw: &'r str) -> Option<(PathBuf, &'r str)> {
        let rest = raw.strip_prefix('~')?;
        let end = rest.find('/').unwrap_or(rest.len());
        let name = &rest[..end];
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !valid {
            return None;
        }
        let dir = match &self.home {
            Some(h) if h.file_name().is_some_and(|f| f == name) => h.clone(),
            _ if name == "root" => PathBuf::from("/root"),
            _ => Path::new("/home").join(name),
        };
        Some((dir, &rest[end..]))
    }

    /// [`join`](Self::join), then `.` and `..` removed lexically (never above the root).
    pub fn resolve(&self, raw: &str) -> PathBuf {
        normalize(&self.join(raw))
    }

    /// Where a written path really leads, with symlinks followed as far as it exists, the way
    /// the kernel resolves it (`link/..` is the parent of the link's target). Costs one `lstat`
    /// per component below the working folder; paths with `..` take a full `realpath`.
    pub fn real(&self, raw: &str) -> Option<PathBuf> {
        self.real_path(&self.join(raw))
    }

    /// [`real`](Self::real), with what its first `lstat` found at the path itself: a check
    /// that would look at the file again (its first bytes) needs no `stat` of its own.
    pub fn follow(&self, raw: &str) -> Real {
        let mut leaf = Leaf::Unseen;
        let path = self.real_path_seen(&self.join(raw), &mut leaf);
        Real { path, leaf }
    }

    /// [`real`](Self::real) for a path already joined: the working folder and home, whose real
    /// paths are known, end the walk.
    /// Home, when it is where it is written (no symlink leads to it): below it, a path with
    /// no symlink on its way is where it is written.
    pub(crate) fn home_as_written(&self) -> Option<&Path> {
        let (home, real) = self.known_home.as_ref()?;
        (home == real).then_some(home.as_path())
    }

    pub fn real_path(&self, joined: &Path) -> Option<PathBuf> {
        self.real_path_seen(joined, &mut Leaf::Unseen)
    }

    /// [`real_path`](Self::real_path), telling `leaf` what the `lstat` of the path itself
    /// found, when it made one.
    fn real_path_seen(&self, joined: &Path, leaf: &mut Leaf) -> Option<PathBuf> {
        if joined.components().any(|c| c == Component::ParentDir) {
            return self.canonical(joined);
        }
        let mut cur = normalize(joined);
        let mut below: Vec<OsString> = Vec::new();
        loop {
            // Both spellings are normal (see `normalize`), so their bytes compare: `Path`'s
            // `==` walks both paths' parts from the end, a cost paid at every step up.
            let mut known = self.known.iter().chain(&self.known_home);
            if let Some((_, real)) = known.find(|(folder, _)| cur.as_os_str() == folder.as_os_str())
            {
                return Some(rebuild(real.clone(), &below));
            }
            let seen = std::fs::symlink_metadata(&cur);
            if below.is_empty() {
                *leaf = Leaf::of(&seen);
            }
            match seen {
                Ok(m) if m.file_type().is_symlink() => {
                    let target = self.canonical(&cur)?;
                    return Some(normalize(&rebuild(target, &below)));
                }
                _ => {}
            }
            match cur.file_name() {
                Some(name) => below.push(name.to_os_string()),
                None => return Some(rebuild(cur, &below)),
            }
            if !cur.pop() {
                return Some(rebuild(cur, &below));
            }
        }
    }

    /// A real path (see [`real`](Self::real)) spelled from the working folder or home as they
    /// are written, when it lies inside them: without the links that lead to the working
    /// folder or home themselves (a project opened through `/home` → `/var/home`), it compares
    /// with rules anchored there.
    pub fn logical(&self, real: PathBuf) -> PathBuf {
        let bases = self.known.iter().chain(&self.known_home);
        for (written, actual) in bases {
            if written != actual {
                if let Ok(rest) = real.strip_prefix(actual) {
                    return written.join(rest);
                }
            }
        }
        real
    }

    /// A path with symlinks followed as far as the path exists (`realpath` on the longest
    /// existing prefix), and through a link whose target does not exist yet: writing through
    /// it creates the target (`evil -> ~/.ssh/authorized_keys`). `None` after 40 links, where
    /// the kernel gives up too.
    pub fn canonical(&self, path: &Path) -> Option<PathBuf> {
        canonical_within(path, 40)
    }
}

/// Where a written path leads ([`PathContext::follow`]), and what was found at the path itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Real {
    /// [`PathContext::real`] of the path.
    pub path: Option<PathBuf>,
    pub leaf: Leaf,
}

/// What the `lstat` of a path found at the path itself, when one was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Leaf {
    /// Not looked at, or a symlink (what it leads to was not looked at).
    #[default]
    Unseen,
    /// Nothing is there.
    Missing,
    /// A regular file.
    File,
    /// A folder, a device, a pipe or a socket: nothing whose first bytes a read shows.
    Other,
}

impl Leaf {
    fn of(seen: &std::io::Result<std::fs::Metadata>) -> Leaf {
        match seen {
            Ok(m) if m.file_type().is_symlink() => Leaf::Unseen,
            Ok(m) if m.is_file() => Leaf::File,
            Ok(_) => Leaf::Other,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Leaf::Missing,
            Err(_) => Leaf::Unseen,
        }
    }
}

fn canonical_within(path: &Path, links: u8) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            return Some(normalize(&rebuild(c, &rest)));
        }
        if let Ok(target) = std::fs::read_link(&existing) {
            let from = existing.parent().unwrap_or(Path::new("/"));
            let next = rebuild(from.join(target), &rest);
            return canonical_within(&next, links.checked_sub(1)?);
        }
        rest.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    }
}

/// `base` with the names `below` holds (innermost first) put back under it.
fn rebuild(mut base: PathBuf, below: &[OsString]) -> PathBuf {
    for part in below.iter().rev() {
        base.push(part);
    }
    base
}

/// The part after a leading home reference (`~`, `~/…`, `$HOME…`, `${HOME}…`), if any.
fn strip_home(raw: &str) -> Option<&str> {
    for prefix in ["${HOME}", "$HOME", "~"] {
        if let Some(rest) = raw.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with('/') {
                return Some(rest);
            }
        }
    }
    None
}

/// Lexical normalisation: drops `.`, resolves `..` against the path so far (never above `/`).
pub fn normalize(p: &Path) -> PathBuf {
    // Most paths are normal already: looked at as text, they need no rebuilding.
    if is_normal(p.as_os_str().as_encoded_bytes()) {
        return p.to_path_buf();
    }
    rebuilt(p)
}

/// [`normalize`] part by part.
fn rebuilt(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Whether an absolute path is what [`normalize`] makes of it: `/`, or parts after a `/` none
/// of which is empty, `.` or `..`.
fn is_normal(p: &[u8]) -> bool {
    // Looked at byte by byte (every path of a call is), whatever its encoding: rebuilt, a
    // normal path is itself.
    let Some(mut rest) = p.strip_prefix(b"/") else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    loop {
        let end = rest.iter().position(|&b| b == b'/');
        let part = end.map_or(rest, |e| &rest[..e]);
        if matches!(part, b"" | b"." | b"..") {
            return false;
        }
        match end {
            Some(e) => rest = &rest[e + 1..],
            None => return true,
        }
    }
}

/// A compiled path pattern: a glob over absolute, normalised paths.
#[derive(Debug)]
pub struct PathGlob {
    /// The absolute pattern the written one was anchored to.
    pub anchored: String,
    matcher: Pattern,
    /// `dir/**` also matches `dir` itself.
    base: Option<PathBuf>,
    /// The literal folder the pattern is confined to (before its first wildcard), for indexing.
    pub literal_prefix: Option<PathBuf>,
}

impl PathGlob {
    /// Anchors a written pattern: `~/…` and `$HOME/…` under home, `/…` as is, a pattern
    /// without `/` (`*.pem`) or starting with `**/` anywhere, other relative patterns under the
    /// working folder (like .gitignore). A trailing `/` means the folder and all below it.
    ///
    /// `within_cwd` anchors a pattern without `/` under the working folder instead of anywhere:
    /// allow rules use it, so that `allow write_file("*.md")` never reaches outside the project
    /// while `deny read_file("*.pem")` catches every key file.
    pub fn new(
        pattern: &str,
        ctx: &PathContext,
        within_cwd: bool,
    ) -> Result<PathGlob, globset::Error> {
        let mut p = pattern.to_string();
        if p.ends_with('/') && p.len() > 1 {
            p.push_str("**");
        }
        let anchored = if let Some(rest) = strip_home(&p) {
            let home = ctx.home.as_deref().unwrap_or(Path::new("/~"));
            join_pattern(&escape_glob(&home.to_string_lossy()), rest)
        } else if p.starts_with('/') {
            p.clone()
        } else if p.starts_with("**") {
            format!("**/{}", p.trim_start_matches("**/"))
        } else if !p.trim_end_matches('/').contains('/') {
            if within_cwd {
                join_pattern(&escape_glob(&ctx.cwd.to_string_lossy()), &format!("**/{p}"))
            } else {
                format!("**/{p}")
            }
        } else {
            join_pattern(
                &escape_glob(&ctx.cwd.to_string_lossy()),
                p.trim_start_matches("./"),
            )
        };
        let anchored = normalize_pattern(&anchored);
        let matcher = Pattern::path(&anchored)?;
        let base = anchored
            .strip_suffix("/**")
            .filter(|b| !b.is_empty())
            .and_then(literal_path);
        let literal_prefix = literal_dir_prefix(&anchored);
        Ok(PathGlob {
            anchored,
            matcher,
            base,
            literal_prefix,
        })
    }

    pub fn is_match(&self, path: &Path) -> bool {
        self.matcher.is_match_path(path) || self.base.as_deref() == Some(path)
    }

    /// The one path this pattern matches, when it has no wildcard.
    pub fn literal(&self) -> Option<PathBuf> {
        literal_path(&self.anchored)
    }
}

fn join_pattern(base: &str, rest: &str) -> String {
    let rest = rest.trim_start_matches('/');
    if rest.is_empty() {
        base.to_string()
    } else if base.ends_with('/') {
        format!("{base}{rest}")
    } else {
        format!("{base}/{rest}")
    }
}

/// Whether a path pattern holds glob syntax (`*`, `?`, `[`, `{`, an escape).
pub fn has_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', '{', '\\'])
}

/// The characters a glob reads as syntax.
const GLOB_SYNTAX: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

/// A literal path as glob text: a home or project folder named `a[1]` or `p*` stands for
/// itself in the patterns anchored to it, never for `a1` or `pother`.
pub(crate) fn escape_glob(literal: &str) -> String {
    let mut out = String::with_capacity(literal.len());
    for c in literal.chars() {
        if GLOB_SYNTAX.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The name one component of a pattern stands for, when it holds no wildcard: `p\*` → `p*`.
fn literal_component(c: &str) -> Option<Cow<'_, str>> {
    if !c.contains(GLOB_SYNTAX) {
        return Some(Cow::Borrowed(c));
    }
    let mut out = String::with_capacity(c.len());
    let mut chars = c.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => out.push(chars.next()?),
            '*' | '?' | '[' | ']' | '{' | '}' => return None,
            _ => out.push(ch),
        }
    }
    Some(Cow::Owned(out))
}

/// The path an absolute pattern stands for, when no part of it is a wildcard.
fn literal_path(pattern: &str) -> Option<PathBuf> {
    // `/` is no glob syntax: a whole path reads as one component does.
    literal_component(pattern).map(|p| PathBuf::from(p.into_owned()))
}

/// Resolves `.` and `..` in the literal components that come before the first wildcard.
fn normalize_pattern(p: &str) -> String {
    if !p.starts_with('/') {
        return p.to_string();
    }
    let parts: Vec<&str> = p.split('/').collect();
    // Escaped names (`pq\*`, a folder's own name) are literal: `..` after them still resolves.
    let first_meta = parts
        .iter()
        .position(|c| literal_component(c).is_none())
        .unwrap_or(parts.len());
    let literal = normalize(Path::new(&parts[..first_meta].join("/")));
    let mut out = literal.to_string_lossy().into_owned();
    for c in &parts[first_meta..] {
        if !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(c);
    }
    out
}

/// `/work/p/secrets/**` → `/work/p/secrets`; `**/*.pem` → none.
fn literal_dir_prefix(anchored: &str) -> Option<PathBuf> {
    if !anchored.starts_with('/') {
        return None;
    }
    let parts: Vec<&str> = anchored.split('/').collect();
    let first_meta = parts.iter().position(|c| literal_component(c).is_none())?;
    let prefix = literal_path(&parts[..first_meta].join("/"))?;
    Some(if prefix.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        prefix
    })
}

/// Whether a path written with shell wildcards (`~/.s*/id_*`) may name `target` or a path below
/// it: every component of the written path matches the corresponding component of `target`,
/// as far as both go, and the written path is at least as deep. `**` may match anything.
pub fn wildcard_may_reach(written: &Path, target: &Path) -> bool {
    let w: Vec<_> = written.components().collect();
    let t: Vec<_> = target.components().collect();
    // `/**/tail`: a path below a folder that is not known (`$X/.ssh/id_rsa`, `~-/.aws`). It
    // reaches `target` when the tail goes through it: the tail starts with the last parts of
    // `target`, written out (`.ssh/…` for `~/.ssh`). Any tail could lie somewhere inside it;
    // only one that names it counts (`$X/*` does not).
    if w.len() > 2 && w[0] == Component::RootDir && w[1].as_os_str() == "**" {
        let tail = &w[2..];
        return (1..t.len()).any(|k| {
            let suffix = &t[t.len() - k..];
            suffix.len() <= tail.len()
                && suffix
                    .iter()
                    .zip(tail)
                    .all(|(tc, wc)| tc.as_os_str() == wc.as_os_str())
        });
    }
    components_may_reach(&w, &t)
}

/// [`wildcard_may_reach`] part by part: the written parts `w` reach the target's parts `t`
/// when they match its first parts (or run out below it).
fn components_may_reach(w: &[Component], t: &[Component]) -> bool {
    for (i, tc) in t.iter().enumerate() {
        let Some(wc) = w.get(i) else {
            return false;
        };
        let ws = wc.as_os_str().to_string_lossy();
        let ts = tc.as_os_str().to_string_lossy();
        // Like bash without `dotglob`, a wildcard never matches a leading dot; a computed part
        // (`{.,}*`, see `wildcard_template`) may hold one.
        let dot_hidden = ts.starts_with('.') && !ws.starts_with('.') && !ws.starts_with("{.,}");
        if ws == "**" {
            // Any folders, none of them hidden: or none at all.
            return !dot_hidden || components_may_reach(&w[i + 1..], &t[i..]);
        }
        if !has_meta(&ws) {
            if ws != ts {
                return false;
            }
            continue;
        }
        // `{.,}` marks a computed start, any text: the rest is the pattern.
        let pattern = ws.strip_prefix("{.,}").unwrap_or(&ws);
        if dot_hidden || !component_matches(pattern, &ts) {
            return false;
        }
    }
    true
}

/// Whether one wildcard component (`id_*`, `.s?h`) matches one path component; a pattern
/// that does not compile may match anything. Compiled patterns are kept per thread, since a
/// line of 2,000 globs checks each against every protected path.
fn component_matches(pattern: &str, text: &str) -> bool {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Option<globset::GlobMatcher>>> =
            RefCell::new(HashMap::new());
    }
    COMPILED.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 4096 {
            cache.clear();
        }
        let matcher = cache.entry(pattern.to_string()).or_insert_with(|| {
            GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .ok()
                .map(|g| g.compile_matcher())
        });
        matcher.as_ref().is_none_or(|m| m.is_match(text))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> PathContext {
        PathContext::new("/work/proj", Some(PathBuf::from("/home/u")))
    }

    proptest::proptest! {
        /// A path taken as normal as it is is what rebuilding it part by part makes.
        #[test]
        fn a_normal_path_is_kept_as_rebuilding_would_make_it(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["", ".", "..", "a", "b.c", "~", " "]),
                0..6,
            ),
            lead in proptest::sample::select(vec!["/", "", "//"]),
        ) {
            let p = PathBuf::from(format!("{lead}{}", parts.join("/")));
            proptest::prop_assert_eq!(normalize(&p), rebuilt(&p));
        }
    }

    proptest::proptest! {
        /// The folder the index files a path rule under holds every path the rule matches:
        /// the index never hides a path rule (`ChainIndex`'s `path_dirs`).
        #[test]
        fn test_every_path_a_glob_matches_is_under_its_literal_folder(
            text in "/[a/*?{},\\[\\]!\\\\]{0,9}",
            subject in "/[a/.]{0,7}",
        ) {
            let Ok(glob) = PathGlob::new(&text, &ctx(), false) else {
                return Ok(());
            };
            let path = Path::new(&subject);
            if glob.is_match(path) {
                if let Some(folder) = &glob.literal_prefix {
                    proptest::prop_assert!(
                        path.starts_with(folder),
                        "{} ({}) matches {} outside {}",
                        text,
                        glob.anchored,
                        subject,
                        folder.display()
                    );
                }
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn real_follows_symlinks_the_way_the_kernel_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secret/inner")).unwrap();
        std::fs::create_dir(root.join("proj")).unwrap();
        std::os::unix::fs::symlink(root.join("secret/inner"), root.join("proj/link")).unwrap();
        let c = PathContext::new(root.join("proj"), None);
        assert_eq!(c.real("link/key"), Some(root.join("secret/inner/key")));
        assert_eq!(
            c.real("link/../key"),
            Some(root.join("secret/key")),
            "`..` applies after the link"
        );
        assert_eq!(c.real("plain/file"), Some(root.join("proj/plain/file")));
        assert_eq!(
            c.real("/nonexistent/x"),
            Some(PathBuf::from("/nonexistent/x"))
        );
    }

    #[test]
    fn resolve_expands_home_and_dotdot() {
        let c = ctx();
        assert_eq!(
            c.resolve("~/.ssh/id_rsa"),
            PathBuf::from("/home/u/.ssh/id_rsa")
        );
        assert_eq!(c.resolve("$HOME/.aws"), PathBuf::from("/home/u/.aws"));
        assert_eq!(c.resolve("${HOME}"), PathBuf::from("/home/u"));
        assert_eq!(
            c.resolve("src/../../../home/u/.ssh"),
            PathBuf::from("/home/u/.ssh")
        );
        assert_eq!(c.resolve("/../../etc/passwd"), PathBuf::from("/etc/passwd"));
        assert_eq!(c.resolve("./~/x"), PathBuf::from("/work/proj/~/x"));
        assert_eq!(
            c.resolve("~u/.ssh"),
            PathBuf::from("/home/u/.ssh"),
            "`~name` of the current user"
        );
        assert_eq!(c.resolve("~root/x"), PathBuf::from("/root/x"));
        assert_eq!(c.resolve("~bob"), PathBuf::from("/home/bob"));
        assert_eq!(c.resolve("./~user/x"), PathBuf::from("/work/proj/~user/x"));
    }

    #[test]
    fn path_globs_anchor_like_gitignore() {
        let c = ctx();
        let g = PathGlob::new("secrets/**", &c, false).unwrap();
        assert!(g.is_match(Path::new("/work/proj/secrets/a/b.txt")));
        assert!(g.is_match(Path::new("/work/proj/secrets")));
        assert!(!g.is_match(Path::new("/work/other/secrets/a")));
        let g = PathGlob::new("*.pem", &c, false).unwrap();
        assert!(g.is_match(Path::new("/anywhere/deep/key.pem")));
        let g = PathGlob::new("*.md", &c, true).unwrap();
        assert!(g.is_match(Path::new("/work/proj/docs/a.md")));
        assert!(
            !g.is_match(Path::new("/etc/a.md")),
            "allow patterns stay in the project"
        );
        let g = PathGlob::new("~/.ssh/**", &c, false).unwrap();
        assert!(g.is_match(Path::new("/home/u/.ssh/id_rsa")));
        assert_eq!(g.literal_prefix.as_deref(), Some(Path::new("/home/u/.ssh")));
        let g = PathGlob::new("src/*.rs", &c, false).unwrap();
        assert!(g.is_match(Path::new("/work/proj/src/a.rs")));
        assert!(!g.is_match(Path::new("/work/proj/src/x/a.rs")));
    }

    #[test]
    fn test_folders_named_with_glob_characters_stand_for_themselves() {
        let c = PathContext::new("/tmp/p*", Some(PathBuf::from("/home/u[1]")));
        let g = PathGlob::new("*.md", &c, true).unwrap();
        assert!(g.is_match(Path::new("/tmp/p*/docs/a.md")));
        assert!(
            !g.is_match(Path::new("/tmp/pother/a.md")),
            "an allow in a project named `p*` stays in that project"
        );
        assert_eq!(g.literal_prefix.as_deref(), Some(Path::new("/tmp/p*")));
        let g = PathGlob::new("~/.ssh/**", &c, false).unwrap();
        assert!(g.is_match(Path::new("/home/u[1]/.ssh/id_rsa")));
        assert!(
            g.is_match(Path::new("/home/u[1]/.ssh")),
            "the folder itself"
        );
        assert!(!g.is_match(Path::new("/home/u1/.ssh/id_rsa")));
        assert_eq!(
            g.literal_prefix.as_deref(),
            Some(Path::new("/home/u[1]/.ssh"))
        );
        let g = PathGlob::new("../shared/x", &c, false).unwrap();
        assert_eq!(g.literal(), Some(PathBuf::from("/tmp/shared/x")));
        // A name that would not even parse as a glob (`{` never closed) loads and matches.
        let c = PathContext::new("/tmp/a{b", None);
        let g = PathGlob::new("src/**", &c, true).unwrap();
        assert!(g.is_match(Path::new("/tmp/a{b/src/main.rs")));
    }

    #[test]
    fn wildcards_that_may_reach_a_protected_folder_are_seen() {
        let t = Path::new("/home/u/.ssh");
        assert!(wildcard_may_reach(Path::new("/home/u/.s*/id_rsa"), t));
        assert!(wildcard_may_reach(Path::new("/home/u/.ss?"), t));
        assert!(wildcard_may_reach(Path::new("/home/**"), t));
        // Below a folder that is not known: only a tail that goes through the target.
        assert!(wildcard_may_reach(Path::new("/**/.ssh/id_rsa"), t));
        assert!(wildcard_may_reach(Path::new("/**/u/.ssh"), t));
        assert!(!wildcard_may_reach(Path::new("/**/*"), t));
        assert!(!wildcard_may_reach(Path::new("/**/notes.txt"), t));
        assert!(!wildcard_may_reach(Path::new("/**/.sshx/id_rsa"), t));
        assert!(!wildcard_may_reach(Path::new("/home/u/*.txt"), t));
        assert!(!wildcard_may_reach(Path::new("/home/u"), t));
        // Like bash without `dotglob`, `**` passes no hidden folder; a computed start of a
        // name (`{.,}`, from `~/${X}sh`) may be one.
        assert!(!wildcard_may_reach(Path::new("/home/u/**/*.md"), t));
        assert!(wildcard_may_reach(Path::new("/home/u/{.,}*sh/id_rsa"), t));
        assert!(wildcard_may_reach(Path::new("/home/u/{.,}*"), t));
        assert!(!wildcard_may_reach(Path::new("/home/u/{.,}*.txt"), t));
        assert!(
            !wildcard_may_reach(Path::new("/home/u/*"), t),
            "bash globs skip dotfiles"
        );
    }
}
