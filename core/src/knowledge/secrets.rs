//! The catalogue of secrets, `policies/secrets.toml`, as read: the credential stores in the home
//! folder (hard protections), secret files by kind wherever they are, the first lines that mark
//! a secret file whatever its name, the commands whose job is to print a credential, and the
//! places outside the project that hold nothing secret.
//!
//! The file is packed at build time (`build.rs`) and read once per process; its file-name
//! globs are compiled into one set, so a path is looked up once, never against the list.

use std::io::Read as _;
use std::path::Path;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobMatcher};

use crate::command::SimpleCommand;
use crate::knowledge::load::{
    CONTENTS, ENVIRONMENT, KINDS, NAMES, NAME_ANY, NAME_BY_FIRST, NAME_BY_LAST, NAME_LITERALS,
    PUBLIC, REVEALS, STORES, STORE_GROUPS, STORE_PATHS,
};
use crate::knowledge::wild::{self, Wild, WildSet};

// The catalogue (`policies/secrets.toml`) as `build.rs` writes it: constants, read without
// deserializing anything (a hook process reads a few entries of some 600). The tests read the
// packed catalogue with types that check every field (`the_constants_are_the_catalogue`).

/// A credential store of the catalogue (`[[store]]`): a tool's store in the home folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    pub tool: &'static str,
    /// Paths from home (`~/.docker/config.json`); a folder covers what is below it; `*` and
    /// `**` as in globs.
    pub paths: &'static [&'static str],
    /// Finishes "`PATH` holds …".
    pub holds: &'static str,
    /// File names inside a folder that may be read (never written): `*.pub` in `~/.ssh`.
    pub readable: &'static [&'static str],
}

/// A kind of secret file (`[[kind]]`): the names it has, and its harmless twins.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct KindData {
    pub(crate) name: &'static str,
    pub(crate) files: &'static [&'static str],
    pub(crate) except: &'static [&'static str],
    pub(crate) holds: &'static str,
}

/// First lines that mark a secret file (`[[content]]`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Content {
    pub(crate) name: &'static str,
    pub(crate) starts: &'static [&'static str],
    pub(crate) holds: &'static str,
}

/// A command that prints a credential (`[[reveal]]`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reveal {
    pub(crate) program: &'static str,
    pub(crate) commands: &'static [&'static str],
    pub(crate) flags: &'static [&'static str],
    pub(crate) holds: &'static str,
}

/// The environment's secrets: what prints every variable, what prints its words, and the words
/// of a variable's name that say it holds a credential.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Environment {
    pub(crate) listers: &'static [&'static str],
    pub(crate) dumps: &'static [&'static str],
    pub(crate) printers: &'static [&'static str],
    pub(crate) names: &'static [&'static str],
    pub(crate) public_ends: &'static [&'static str],
    pub(crate) public: &'static [&'static str],
}

/// Places outside the project that hold nothing secret.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Public {
    pub(crate) paths: &'static [&'static str],
}

/// A kind of secret file: its name and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretKind {
    pub name: &'static str,
    /// Finishes "… holds …".
    pub holds: &'static str,
}

/// The catalogue, compiled: its glob sets only when first asked (a hook process deciding
/// `git status` needs none of them).
struct Catalogue {
    /// Every kind's file-name patterns (those without a `/`) that are globs, as written (for
    /// [`name_may_match`]), with the kind of each: put together when first asked (a path is
    /// looked up by `names_matching`, which needs none of it).
    name_patterns: OnceLock<(Vec<usize>, Vec<&'static str>)>,
    /// Patterns with a `/` (`config/master.key`), matched against the path's last parts: the
    /// parts, the pattern, the kind.
    tails: Vec<(Vec<&'static str>, &'static str, usize)>,
    tail_matchers: Vec<OnceLock<Option<GlobMatcher>>>,
    /// The same, folded, for those [`wild`] matches without a regular expression.
    tail_wilds: Vec<OnceLock<Option<Wild>>>,
    /// The last part of each of `tails`, folded, when it is written out (`environ`).
    tail_last: Vec<Option<String>>,
    /// The tails by the folder each names its file in, folded, when written out (`private` of
    /// `ssl/private/*`), and those whose folder is a wildcard (`proc/*/environ`): a path is
    /// compared with the tails of its folder and those.
    tails_by_parent: std::collections::HashMap<String, Vec<usize>, foldhash::fast::RandomState>,
    tails_any_parent: Vec<usize>,
    /// The last part of each of `tails`, in order: the tails a name may end.
    tail_names: OnceLock<WildSet>,
    /// Per kind, the set of the names that are not secret (`*.example`).
    except: Vec<OnceLock<WildSet>>,
    kinds: Vec<SecretKind>,
    /// Public places: absolute globs, and those from home (`~/` stripped).
    public_abs: OnceLock<WildSet>,
    public_home: OnceLock<WildSet>,
}

impl Catalogue {
    /// The matcher of tail `i` (folded: see [`fold`]), compiled when first asked.
    fn tail_matcher(&self, i: usize) -> Option<&GlobMatcher> {
        self.tail_matchers
            .get(i)?
            .get_or_init(|| {
                let (_, f, _) = self.tails.get(i)?;
                folded_glob(f).ok().map(|g| g.compile_matcher())
            })
            .as_ref()
    }

    /// Whether tail `i` matches `tail` (the path's last parts, folded).
    fn tail_hit(&self, i: usize, tail: &str) -> bool {
        let wild = self.tail_wilds.get(i).and_then(|w| {
            w.get_or_init(|| {
                let (_, f, _) = self.tails.get(i)?;
                wild::simple(f).then(|| Wild::new(&fold(f)))
            })
            .as_ref()
        });
        match wild {
            Some(w) => w.is_match(tail),
            _ => self.tail_matcher(i).is_some_and(|m| m.is_match(tail)),
        }
    }

    /// The last part of each of `tails`, in order: the tails a name may end.
    fn tail_names(&self) -> &WildSet {
        self.tail_names.get_or_init(|| {
            WildSet::folded(
                self.tails
                    .iter()
                    .map(|(parts, _, _)| parts.last().copied().unwrap_or("*")),
            )
        })
    }

    /// The kinds' name patterns (see `name_patterns`): the kind of each, and each as written.
    fn name_patterns(&self) -> &(Vec<usize>, Vec<&'static str>) {
        self.name_patterns.get_or_init(|| {
            let mut kinds = Vec::new();
            let mut patterns = Vec::new();
            for (i, k) in KINDS.iter().enumerate() {
                for f in k.files.iter().filter(|f| !f.contains('/')) {
                    if wild::simple(f) || folded_glob(f).is_ok() {
                        kinds.push(i);
                        patterns.push(*f);
                    }
                }
            }
            (kinds, patterns)
        })
    }

    fn except(&self, kind: usize) -> Option<&WildSet> {
        let set = self.except.get(kind)?;
        let patterns = KINDS.get(kind).map_or(&[][..], |k| k.except);
        Some(set.get_or_init(|| WildSet::folded(patterns.iter().copied())))
    }

    fn public_abs(&self) -> &WildSet {
        self.public_abs.get_or_init(|| {
            WildSet::folded(
                public_paths()
                    .iter()
                    .copied()
                    .filter(|p| p.starts_with('/')),
            )
        })
    }

    fn public_home(&self) -> &WildSet {
        self.public_home.get_or_init(|| {
            WildSet::folded(public_paths().iter().filter_map(|p| p.strip_prefix("~/")))
        })
    }
}

/// Whether a part of a tail is written out: no wildcard in it (`environ`, not `*`).
fn written_out(part: &str) -> bool {
    !part.contains(['*', '?', '[', '{', '\\'])
}

fn glob(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

fn folded_glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(&fold(pattern))
        .literal_separator(true)
        .build()
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut tails = Vec::new();
        for (i, k) in KINDS.iter().enumerate() {
            for f in k.files.iter().filter(|f| f.contains('/')) {
                tails.push((f.split('/').collect::<Vec<_>>(), *f, i));
            }
        }
        let kinds = KINDS
            .iter()
            .map(|k| SecretKind {
                name: k.name,
                holds: k.holds,
            })
            .collect();
        let tail_count = tails.len();
        let tail_last = tails
            .iter()
            .map(|(parts, _, _)| parts.last().filter(|l| written_out(l)).map(|l| fold(l)))
            .collect();
        let tail_parents: Vec<Option<String>> = tails
            .iter()
            .map(|(parts, _, _)| {
                let parent = parts.len().checked_sub(2).and_then(|i| parts.get(i))?;
                written_out(parent).then(|| fold(parent))
            })
            .collect();
        let mut tails_by_parent =
            std::collections::HashMap::<String, Vec<usize>, _>::with_hasher(Default::default());
        let mut tails_any_parent = Vec::new();
        for (i, parent) in tail_parents.iter().enumerate() {
            match parent {
                Some(p) => tails_by_parent.entry(p.clone()).or_default().push(i),
                None => tails_any_parent.push(i),
            }
        }
        Catalogue {
            tails_by_parent,
            tails_any_parent,
            name_patterns: OnceLock::new(),
            tails,
            tail_matchers: (0..tail_count).map(|_| OnceLock::new()).collect(),
            tail_wilds: (0..tail_count).map(|_| OnceLock::new()).collect(),
            tail_last,
            tail_names: OnceLock::new(),
            except: KINDS.iter().map(|_| OnceLock::new()).collect(),
            kinds,
            public_abs: OnceLock::new(),
            public_home: OnceLock::new(),
        }
    })
}

/// The commands whose program is a glob (`docker-credential-*`): each entry's index in
/// `REVEALS`, the others being found there by name.
#[derive(Default)]
struct RevealGlobs {
    /// Folded, matched without compiling anything.
    simple: Vec<(Wild, usize)>,
    complex: Vec<(GlobMatcher, usize)>,
}

fn reveal_globs() -> &'static RevealGlobs {
    static GLOBS: OnceLock<RevealGlobs> = OnceLock::new();
    GLOBS.get_or_init(|| {
        let mut r = RevealGlobs::default();
        for (i, e) in REVEALS.iter().enumerate() {
            if wild::simple(e.program) && e.program.contains('*') {
                r.simple.push((Wild::new(&fold(e.program)), i));
            } else if e.program.contains(['*', '?', '[']) {
                if let Some(m) = glob(e.program) {
                    r.complex.push((m, i));
                }
            }
        }
        r
    })
}

/// The entries of `REVEALS` (sorted by program) whose program is `program`, in the
/// catalogue's order.
fn reveals_of(program: &str) -> &'static [Reveal] {
    let start = REVEALS.partition_point(|r| r.program < program);
    let rest = REVEALS.get(start..).unwrap_or_default();
    let len = rest.iter().take_while(|r| r.program == program).count();
    rest.get(..len).unwrap_or_default()
}

fn environment() -> &'static Environment {
    static NONE: Environment = Environment {
        listers: &[],
        dumps: &[],
        printers: &[],
        names: &[],
        public_ends: &[],
        public: &[],
    };
    ENVIRONMENT.first().unwrap_or(&NONE)
}

/// The places outside the project that hold nothing secret (globs).
fn public_paths() -> &'static [&'static str] {
    PUBLIC.first().map_or(&[], |p| p.paths)
}

/// The credential stores of the home folder (hard protections), as `build.rs` wrote them
/// (checked by the tests: `every_store_reads`).
pub fn stores() -> &'static [Store] {
    STORES
}

/// The groups of the catalogue's store paths, one per first part below home, case-folded
/// (`""` for the paths without one: see `build.rs`), sorted by it.
pub fn store_group_count() -> usize {
    STORE_GROUPS.len()
}

/// The group of store paths whose first part below home is `first` (folded), if any.
pub fn store_group(first: &str) -> Option<usize> {
    STORE_GROUPS.binary_search_by(|g| g.0.cmp(first)).ok()
}

/// Group `g`'s first part, and each of its paths with its store, in the catalogue's order.
pub fn store_group_paths(
    g: usize,
) -> (
    &'static str,
    impl Iterator<Item = (&'static Store, &'static str)>,
) {
    let (first, start, end) = STORE_GROUPS.get(g).copied().unwrap_or(("", 0, 0));
    let paths = STORE_PATHS
        .get(usize::from(start)..usize::from(end))
        .unwrap_or_default();
    let paths = paths.iter().filter_map(|&(i, j)| {
        let store = STORES.get(usize::from(i))?;
        Some((store, *store.paths.get(usize::from(j))?))
    });
    // Every index is checked by the tests (`every_store_path_is_in_the_group_…`).
    (first, paths)
}

/// The kind of secret file `path` is by its name (`.env`, `server.key`, `config/master.key`),
/// unless its name is one of the kind's harmless twins (`.env.example`).
pub fn kind_by_name(path: &Path) -> Option<SecretKind> {
    let c = catalogue();
    let text = path.to_str()?;
    // The path folded once; its parts are then slices of it. A path whose string is not its
    // parts joined by `/` (`a//b`, `a/./b`, a trailing `/`), or whose folding may change its
    // length, is taken apart by `components` instead.
    let Some(upper) = plain_path(text) else {
        return kind_by_parts(c, path);
    };
    // Most paths are lower case already: folded, they are themselves.
    let folded: std::borrow::Cow<str> = match upper {
        true => fold(text).into(),
        false => text.into(),
    };
    // The last part and the one before it, found by bytes (see `last_parts`); the path is
    // plain, so no part is empty but a leading root's.
    let bytes = folded.as_bytes();
    let cut = bytes.iter().rposition(|&b| b == b'/');
    let name = cut.map_or(&*folded, |i| &folded[i + 1..]);
    if matches!(name, "" | "." | "..") {
        return None;
    }
    let parent = match cut {
        Some(i) => {
            let head = &folded[..i];
            let from = head.as_bytes().iter().rposition(|&b| b == b'/');
            from.map_or(head, |j| &head[j + 1..])
        }
        None => "",
    };
    let by_name = names_matching(name).into_iter().map(kind_of_name);
    // A tail is compared only with the paths in its folder (`ssl/private/*`: `private`), and
    // only when its name is the path's when written out (`environ` of `proc/*/environ`).
    let of_parent = c.tails_by_parent.get(parent).map_or(&[][..], Vec::as_slice);
    let by_tail = of_parent
        .iter()
        .chain(&c.tails_any_parent)
        .filter(|&&i| {
            c.tail_last
                .get(i)
                .is_none_or(|last| last.as_deref().is_none_or(|l| l == name))
        })
        .filter_map(|&i| {
            let (pattern, _, kind) = c.tails.get(i)?;
            let tail = last_parts(&folded, pattern.len())?;
            c.tail_hit(i, tail).then_some(*kind)
        });
    by_name
        .chain(by_tail)
        .find(|k| !c.except(*k).is_some_and(|e| e.is_match(name)))
        .and_then(|k| c.kinds.get(k).copied())
}

/// Whether `text` is a path written plainly, its parts joined by single `/`s: ASCII, no `//`,
/// no `/./`, not ending in `/` or `/.`; and then whether it has an upper-case letter. One pass
/// over the bytes (it is asked of every path of every call).
pub(crate) fn plain_path(text: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    if bytes.ends_with(b"/") || bytes.ends_with(b"/.") {
        return None;
    }
    let mut upper = false;
    // The two bytes before the one looked at.
    let (mut before, mut last) = (0u8, 0u8);
    for &b in bytes {
        if !b.is_ascii() || (b == b'/' && (last == b'/' || (last == b'.' && before == b'/'))) {
            return None;
        }
        upper |= b.is_ascii_uppercase();
        (before, last) = (last, b);
    }
    Some(upper)
}

/// The indices in `NAMES` of the kinds' name patterns that `name` (one part, folded) matches,
/// in order: by the index `build.rs` wrote, comparing a few patterns, building nothing but
/// the globs of other wildcards than `*` (none is shipped).
fn names_matching(name: &str) -> Vec<usize> {
    let bucket = |table: &'static [(u8, u16)], byte: Option<u8>| {
        let start = byte.map_or(table.len(), |b| table.partition_point(|e| e.0 < b));
        let rest = table.get(start..).unwrap_or_default();
        rest.iter().take_while(move |e| Some(e.0) == byte)
    };
    let start = NAME_LITERALS.partition_point(|e| e.0 < name);
    let literal = NAME_LITERALS.get(start..).unwrap_or_default();
    let mut out: Vec<usize> = literal
        .iter()
        .take_while(|e| e.0 == name)
        .map(|e| usize::from(e.1))
        .collect();
    let globs = bucket(NAME_BY_LAST, name.bytes().last())
        .chain(bucket(NAME_BY_FIRST, name.bytes().next()))
        .map(|e| usize::from(e.1))
        .filter(|&i| NAMES.get(i).is_some_and(|p| wild::name_matches(p.0, name)));
    out.extend(globs);
    out.extend(
        NAME_ANY
            .iter()
            .map(|&i| usize::from(i))
            .filter(|&i| any_name_matches(i, name)),
    );
    out.sort_unstable();
    out
}

/// Whether the pattern `NAMES[i]` of `NAME_ANY` matches `name`: one of `*` alone is compared,
/// any other compiled when first asked (one that does not compile matches nothing).
fn any_name_matches(i: usize, name: &str) -> bool {
    static COMPILED: OnceLock<Vec<Option<GlobMatcher>>> = OnceLock::new();
    let Some(&(pattern, _)) = NAMES.get(i) else {
        return false;
    };
    if !pattern.contains(['?', '[', ']', '{', '}', '\\']) {
        return wild::name_matches(pattern, name);
    }
    let compiled = COMPILED.get_or_init(|| {
        NAMES
            .iter()
            .map(|(p, _)| {
                let glob = GlobBuilder::new(p).literal_separator(true).build();
                glob.ok().map(|g| g.compile_matcher())
            })
            .collect()
    });
    compiled
        .get(i)
        .and_then(Option::as_ref)
        .is_some_and(|m| m.is_match(name))
}

/// The kind of name pattern `i` of `NAMES`.
fn kind_of_name(i: usize) -> usize {
    NAMES.get(i).map_or(usize::MAX, |p| usize::from(p.1))
}

/// The last `n` parts of `path` (a path written plainly: see [`kind_by_name`]), as a slice
/// of it; `None` when it has fewer parts (the root is not one).
fn last_parts(path: &str, n: usize) -> Option<&str> {
    let body = path.strip_prefix('/').unwrap_or(path);
    let mut start = body.len();
    for i in 0..n {
        // By bytes: `str::rfind` sets up a searcher per call, which costs more than these
        // short paths take.
        match body.as_bytes()[..start].iter().rposition(|&b| b == b'/') {
            Some(j) => start = j,
            None if i + 1 == n => return Some(body),
            None => return None,
        }
    }
    body.get(start + 1..).filter(|_| n > 0)
}

/// [`kind_by_name`] for a path that is not written plainly: part by part.
fn kind_by_parts(c: &Catalogue, path: &Path) -> Option<SecretKind> {
    let name = path.file_name()?.to_str()?;
    let folded = fold(name);
    let by_name = names_matching(&folded).into_iter().map(kind_of_name);
    let parts: Vec<&str> = path
        .components()
        .filter_map(|p| p.as_os_str().to_str())
        .collect();
    let ending = c.tail_names().matches(&folded);
    let by_tail = ending.into_iter().filter_map(|i| {
        let (pattern, _, kind) = &c.tails[i];
        let n = pattern.len();
        let tail = fold(&parts.get(parts.len().checked_sub(n)?..)?.join("/"));
        c.tail_hit(i, &tail).then_some(*kind)
    });
    by_name
        .chain(by_tail)
        .find(|k| !c.except(*k).is_some_and(|e| e.is_match(&folded)))
        .and_then(|k| c.kinds.get(k).copied())
}

/// The kind of secret a file holds by its first bytes (a PEM private key saved under any
/// name), when it is a file that exists and can be read; `None` otherwise.
pub fn kind_by_content(path: &Path) -> Option<SecretKind> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    kind_of_file(path)
}

/// [`kind_by_content`] for a path an `lstat` has just found to be a regular file (no link):
/// opened without a `stat` of its own. Opened so that it never waits (a pipe swapped in
/// meanwhile), and looked at again through the open file before it is read.
pub fn kind_of_file(path: &Path) -> Option<SecretKind> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let mut file = options.open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 128];
    let n = file.read(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    CONTENTS
        .iter()
        .find(|k| k.starts.iter().any(|s| text.starts_with(s)))
        .map(|k| SecretKind {
            name: k.name,
            holds: k.holds,
        })
}

/// The most directory entries [`kind_in_glob`] looks at before it judges the pattern alone.
const MAX_GLOB_ENTRIES: usize = 4096;

/// The most files a glob matches whose first bytes [`kind_in_glob`] reads.
const MAX_GLOB_CONTENT: usize = 16;

/// The secret file a glob the shell expands (`cat config/*`, `head .e*`) reaches, if any: the
/// files that exist and match it, by name and by first bytes. `path` is absolute, with the
/// pattern in any of its parts. When the folders hold more than the analysis looks at, the
/// pattern's file name is judged alone: a secret kind's name it may match is reached.
pub fn kind_in_glob(path: &Path) -> Option<(std::path::PathBuf, SecretKind)> {
    let parts: Vec<&str> = path
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    let first_glob = parts.iter().position(|p| is_glob(p))?;
    let mut base = std::path::PathBuf::new();
    for p in &parts[..first_glob] {
        base.push(p);
    }
    let mut found = Vec::new();
    let mut budget = MAX_GLOB_ENTRIES;
    let complete = expand(&base, &parts[first_glob..], &mut found, &mut budget);
    let mut contents = MAX_GLOB_CONTENT;
    for f in &found {
        if let Some(k) = kind_by_name(f) {
            return Some((f.clone(), k));
        }
        if contents > 0 {
            contents -= 1;
            if let Some(k) = kind_by_content(f) {
                return Some((f.clone(), k));
            }
        }
    }
    if complete {
        return None;
    }
    let name = parts.last()?;
    let c = catalogue();
    let (kinds, patterns) = c.name_patterns();
    patterns
        .iter()
        .position(|k| name_may_match(name, k))
        .and_then(|i| Some((path.to_path_buf(), *c.kinds.get(*kinds.get(i)?)?)))
}

/// Whether a path part is a pattern the shell expands.
pub fn is_glob(part: &str) -> bool {
    part.contains(['*', '?', '['])
}

/// The paths below `base` that match `rest` part by part (a `*` never matches a leading `.`,
/// as in the shell), into `found`; `false` when the entries looked at ran past `budget`.
fn expand(
    base: &Path,
    rest: &[&str],
    found: &mut Vec<std::path::PathBuf>,
    budget: &mut usize,
) -> bool {
    let Some((part, more)) = rest.split_first() else {
        if base.symlink_metadata().is_ok() {
            found.push(base.to_path_buf());
        }
        return true;
    };
    if !is_glob(part) {
        return expand(&base.join(part), more, found, budget);
    }
    let Some(m) = glob(part) else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(base) else {
        return true;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.starts_with('.') && !part.starts_with('.') {
            continue;
        }
        if m.is_match(name) && !expand(&base.join(name), more, found, budget) {
            return false;
        }
    }
    true
}

/// Whether a file selected by every one of `patterns` (find's `-name` tests) may be a secret
/// by its name: it may be named as a kind of secret file is, or as a credential store's file
/// (`config` of `~/.kube/config`).
pub fn may_name_secret(patterns: &[&str]) -> bool {
    let globs: Vec<globset::GlobMatcher> = patterns.iter().filter_map(|p| glob(p)).collect();
    if globs.len() != patterns.len() {
        return true;
    }
    may_name_secret_with(patterns, &globs)
}

/// [`may_name_secret`] with the patterns compiled already (case-insensitive, one each).
pub fn may_name_secret_with(patterns: &[&str], globs: &[globset::GlobMatcher]) -> bool {
    let c = catalogue();
    if globs.len() != patterns.len() {
        return true;
    }
    // Against the names as they are written, with a `*` as one letter (`*.key` is `x.key`):
    // a pattern that only meets a kind's wildcard with its own (`*.log` and `krb5cc_*` both
    // match `krb5cc_1.log`) names no secret anyone keeps. The files that exist are looked at
    // on their own (see `holds_named` in the engine).
    // What every pattern's text starts and ends with: a sample without them cannot match, and
    // most are ruled out so, before any glob is run.
    let ends: Vec<(String, String)> = patterns.iter().map(|p| literal_ends(p)).collect();
    name_samples(c)
        .iter()
        .any(|(sample, k, (khead, ktail))| match sample {
            Some(sample) => {
                ends.iter().all(|(head, tail)| {
                    sample.starts_with(head.as_str()) && sample.ends_with(tail.as_str())
                }) && globs.iter().all(|g| g.is_match(sample))
            }
            // Two patterns meet only where their written-out starts and ends agree.
            None => {
                ends.iter().all(|(head, tail)| {
                    (head.starts_with(khead.as_str()) || khead.starts_with(head.as_str()))
                        && (tail.ends_with(ktail.as_str()) || ktail.ends_with(tail.as_str()))
                }) && patterns.iter().all(|p| name_may_match(p, k))
            }
        })
}

/// What a pattern starts and ends with before its first and after its last wildcard, folded.
fn literal_ends(pattern: &str) -> (String, String) {
    let p = fold(pattern);
    let meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
    let head: String = p.chars().take_while(|&c| !meta(c)).collect();
    let tail: String = p.rsplit(meta).next().unwrap_or("").to_string();
    (head, tail)
}

/// The catalogue's file names (kinds, tails' last parts, stores' last parts), each with a
/// sample name it matches (a `*` or `?` as the letter `x`, folded), or `None` when it has a
/// class or alternatives, which are compared as globs.
#[allow(clippy::type_complexity)]
fn name_samples(
    c: &'static Catalogue,
) -> &'static [(Option<String>, &'static str, (String, String))] {
    static SAMPLES: OnceLock<Vec<(Option<String>, &'static str, (String, String))>> =
        OnceLock::new();
    SAMPLES.get_or_init(|| {
        let names = c
            .name_patterns()
            .1
            .iter()
            .copied()
            .chain(
                c.tails
                    .iter()
                    .filter_map(|(parts, _, _)| parts.last().copied()),
            )
            .chain(
                stores()
                    .iter()
                    .flat_map(|s| s.paths)
                    .filter_map(|p| p.rsplit('/').next()),
            );
        names
            .map(|k| {
                let sample = (!k.contains(['[', '{'])).then(|| fold(&k.replace(['*', '?'], "x")));
                (sample, k, literal_ends(k))
            })
            .collect()
    })
}

/// Whether some file name matches both globs (`*`, `?`, `[…]`, `{a,b}`), compared without
/// case. A class is read as any character, so the answer errs towards yes.
pub fn name_may_match(a: &str, b: &str) -> bool {
    let (a, b) = (fold(a), fold(b));
    alternatives(&a)
        .iter()
        .any(|x| alternatives(&b).iter().any(|y| globs_meet(x, y)))
}

/// A glob's `{a,b}` alternatives spelled out (one level, as the catalogue writes them).
fn alternatives(glob: &str) -> Vec<String> {
    match (glob.find('{'), glob.find('}')) {
        (Some(open), Some(close)) if open < close => glob[open + 1..close]
            .split(',')
            .flat_map(|alt| alternatives(&format!("{}{alt}{}", &glob[..open], &glob[close + 1..])))
            .collect(),
        _ => vec![glob.to_string()],
    }
}

/// One unit of a glob: any run, any one character, or a character.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Star,
    Any,
    Char(char),
}

fn units(glob: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' => Unit::Star,
            '?' => Unit::Any,
            '[' => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
                Unit::Any
            }
            '\\' => chars.next().map_or(Unit::Char('\\'), Unit::Char),
            c => Unit::Char(c),
        });
    }
    out
}

/// Whether two globs without alternatives match a common name: a walk over pairs of
/// positions, a star staying put or moving on.
fn globs_meet(a: &str, b: &str) -> bool {
    let (a, b) = (units(a), units(b));
    let mut seen = vec![false; (a.len() + 1) * (b.len() + 1)];
    let mut todo = vec![(0, 0)];
    while let Some((i, j)) = todo.pop() {
        let at = i * (b.len() + 1) + j;
        if seen[at] {
            continue;
        }
        seen[at] = true;
        if i == a.len() && j == b.len() {
            return true;
        }
        // A star matches nothing more.
        if a.get(i) == Some(&Unit::Star) {
            todo.push((i + 1, j));
        }
        if b.get(j) == Some(&Unit::Star) {
            todo.push((i, j + 1));
        }
        // Both take one character.
        if let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
            let meet = match (x, y) {
                (Unit::Char(p), Unit::Char(q)) => p == q,
                _ => true,
            };
            if meet {
                let ni = if *x == Unit::Star { i } else { i + 1 };
                let nj = if *y == Unit::Star { j } else { j + 1 };
                todo.push((ni, nj));
            }
        }
    }
    false
}

/// The kind of secret `path` is, by its name or its first bytes.
pub fn kind_of(path: &Path) -> Option<SecretKind> {
    kind_by_name(path).or_else(|| kind_by_content(path))
}

/// What a command prints when its job is to print a credential (`gcloud auth
/// print-access-token`: "a Google Cloud access token"): the `reveal-secret` effect.
pub fn revealed_by(cmd: &SimpleCommand) -> Option<&'static str> {
    // Asked of every command a read-only reading allows: one that no entry names costs a
    // lookup and nothing is put together.
    let program = cmd.program();
    let globs = reveal_globs();
    let by_glob = || {
        let plain = program.is_ascii() && !program.bytes().any(|b| b.is_ascii_uppercase());
        let folded: std::borrow::Cow<str> = match plain {
            true => program.into(),
            false => fold(program).into(),
        };
        let simple = globs
            .simple
            .iter()
            .filter(move |(m, _)| m.is_match(&folded))
            .map(|(_, i)| *i);
        let complex = globs
            .complex
            .iter()
            .filter(|(m, _)| m.is_match(program))
            .map(|(_, i)| *i);
        simple.chain(complex).filter_map(|i| REVEALS.get(i))
    };
    let named = reveals_of(program);
    let may_glob = !globs.simple.is_empty() || !globs.complex.is_empty();
    if named.is_empty() && !may_glob {
        return None;
    }
    let words = || cmd.argv.iter().skip(1).map(|w| w.value.as_str());
    let operands = || words().filter(|w| !w.starts_with('-'));
    let first = operands().next();
    let found = named
        .iter()
        .chain(may_glob.then(by_glob).into_iter().flatten())
        .find(|r| {
            // A command prefix is the first operands, word for word: most commands of a
            // program that has entries are none of them, and are passed over by their first.
            let commanded = r.commands.iter().any(|prefix| {
                let mut wants = prefix.split_whitespace();
                match wants.next() {
                    None => true,
                    Some(want) if Some(want) != first => false,
                    Some(_) => {
                        let mut ops = operands().skip(1);
                        wants.all(|want| ops.next() == Some(want))
                    }
                }
            });
            commanded
                && (r.flags.is_empty()
                    || r.flags.iter().any(|f| {
                        words().any(|w| {
                            w == *f
                                || (f.starts_with("--")
                                    && w.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
                                || (!f.starts_with("--")
                                    && w.starts_with(f)
                                    && w.len() > f.len()
                                    && !w.starts_with("--"))
                        })
                    }))
        });
    found.map(|r| r.holds)
}

/// What a command prints of the environment that holds a credential: every variable
/// (`env`, `printenv`, `export -p`), or a variable whose name says it holds one (`printenv
/// GITHUB_TOKEN`, `echo "$OPENAI_API_KEY"`). Output sent to a file is not printed: `echo
/// "TOKEN=$TOKEN" >> .env` stays in the project. `None` otherwise.
pub fn environment_revealed(cmd: &SimpleCommand) -> Option<String> {
    let env = environment();
    let program = cmd.program();
    // Asked of every command: one that neither lists, dumps nor prints variables is passed
    // over before anything is put together.
    let lister = env.listers.contains(&program);
    let printer = env.printers.contains(&program);
    // A dump's first word, compared without splitting it (`export` of `export -p`).
    let dumper = env.dumps.iter().any(|d| {
        d.strip_prefix(program)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    });
    if !(lister || printer || dumper) {
        return None;
    }
    let to_file = cmd.redirects.iter().any(|r| {
        r.fd.is_none_or(|fd| fd == 1) && r.op.writes_output() && r.target.value != "/dev/stdout"
    });
    if to_file {
        return None;
    }
    let words: Vec<&str> = cmd.argv.iter().skip(1).map(|w| w.value.as_str()).collect();
    const EVERY: &str = "every environment variable, the host's API keys and tokens among them";
    let named: Vec<&str> = if lister {
        let operands = listed(&words)?;
        // `env FOO=1` prints the environment with FOO in it; `printenv A B` prints A and B.
        if operands.iter().all(|o| program == "env" && o.contains('=')) {
            return Some(EVERY.into());
        }
        if program != "printenv" {
            return None;
        }
        operands
    } else if env.dumps.iter().any(|d| {
        let mut parts = d.split_whitespace();
        parts.next() == Some(program) && parts.eq(words.iter().copied())
    }) {
        return Some(EVERY.into());
    } else if printer {
        words.iter().flat_map(|w| variables(w)).collect()
    } else {
        Vec::new()
    };
    named
        .into_iter()
        .find(|n| secret_variable(env, n))
        .map(|n| format!("`{n}`, a variable whose name says it holds a credential"))
}

/// The operands of `env` or `printenv` (options and their values left out), or `None` when
/// it prints no variable: an emptied environment (`-i`, `-`), its help or version.
fn listed<'w>(words: &[&'w str]) -> Option<Vec<&'w str>> {
    // A long option as given whole or abbreviated (`--ig`).
    let long = |w: &str, names: &[&str]| {
        w.len() > 3
            && w.starts_with("--")
            && names
                .iter()
                .any(|n| n.starts_with(w.split('=').next().unwrap_or(w)))
    };
    let mut operands = Vec::new();
    let mut it = words.iter();
    while let Some(&w) = it.next() {
        // An emptied environment, help, a version; or a command to run (`-S`): nothing of
        // the environment printed.
        let quiet = [
            "--ignore-environment",
            "--help",
            "--version",
            "--split-string",
        ];
        if w == "-" || long(w, &quiet) {
            return None;
        }
        if let Some(short) = w
            .strip_prefix('-')
            .filter(|s| !s.starts_with('-') && !s.is_empty())
        {
            for (at, c) in short.char_indices() {
                match c {
                    'i' | 'S' => return None,
                    // `-u NAME`, `-C DIR`: the rest of the word is the value, or the next word.
                    'u' | 'C' => {
                        if at + 1 == short.len() {
                            it.next();
                        }
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        if w == "--unset" || w == "--chdir" {
            it.next();
            continue;
        }
        if w.starts_with("--") {
            continue;
        }
        operands.push(w);
    }
    Some(operands)
}

/// The names of the variables whose values a word expands (`$A`, `${B:-x}`, `${!C}`; not
/// `${#D}`, a length).
fn variables(word: &str) -> impl Iterator<Item = &str> {
    word.split('$').skip(1).filter_map(|rest| {
        if rest.starts_with("{#") {
            return None;
        }
        let rest = rest
            .strip_prefix('{')
            .map_or(rest, |r| r.trim_start_matches('!'));
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
    })
}

/// Whether a variable's name says it holds a credential: a run of its words (split at `_`, any
/// case) is one of the catalogue's, and its last word does not say it names a place.
fn secret_variable(env: &Environment, name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if env.public.contains(&upper.as_str()) {
        return false;
    }
    let parts: Vec<&str> = upper.split('_').filter(|p| !p.is_empty()).collect();
    if parts
        .last()
        .is_some_and(|last| parts.len() > 1 && env.public_ends.contains(last))
    {
        return false;
    }
    env.names.iter().any(|n| {
        let want: Vec<&str> = n.split_whitespace().collect();
        parts.windows(want.len()).any(|w| w == want.as_slice())
    })
}

/// Whether a path outside the project is in a place that holds nothing secret (system folders,
/// toolchains, package caches: the catalogue's `[public]`), `home` being the home folder.
pub fn public(path: &Path, home: Option<&Path>) -> bool {
    let c = catalogue();
    if let Some(rest) = home.and_then(|h| path.strip_prefix(h).ok()) {
        return c.public_home().is_match(&fold(&rest.to_string_lossy()));
    }
    c.public_abs().is_match(&fold(&path.to_string_lossy()))
}

/// Folds a path's case as case-insensitive file systems (macOS, Windows) compare names: the
/// protections and the catalogue compare paths folded, so that `~/.SSH/id_rsa` is the key.
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.to_uppercase().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::load::SECRETS;
    use crate::knowledge::packed::from_packed;
    use crate::shell::analyse;

    #[test]
    fn globs_meet_when_some_name_matches_both() {
        assert!(name_may_match(".e*", ".env"));
        assert!(name_may_match("*", "*.pem"));
        assert!(name_may_match("*.p?m", "*.pem"));
        assert!(name_may_match("server.*", "*.key"));
        assert!(name_may_match("*.{rs,key}", "*.key"));
        assert!(name_may_match("[abc]*.KEY", "*.key"));
        assert!(!name_may_match("*.rs", "*.pem"));
        assert!(!name_may_match("src*", ".env"));
        assert!(!name_may_match("a?c", "abcd"));
    }

    #[test]
    fn a_glob_reaches_the_secret_files_it_matches() {
        let dir = std::env::temp_dir().join(format!("h9-glob-{}", std::process::id()));
        let config = dir.join("config");
        std::fs::create_dir_all(&config).expect("a temporary folder");
        std::fs::write(dir.join(".env"), "A=1\n").expect("a file");
        std::fs::write(dir.join("main.rs"), "fn main() {}\n").expect("a file");
        std::fs::write(config.join("master.key"), "x\n").expect("a file");
        std::fs::write(
            config.join("notes.txt"),
            "-----BEGIN OPENSSH PRIVATE KEY-----\n",
        )
        .expect("a file");
        let hit = |p: &str| kind_in_glob(&dir.join(p)).map(|(p, _)| p);
        assert_eq!(hit(".e*"), Some(dir.join(".env")));
        assert_eq!(hit("*/master*"), Some(config.join("master.key")));
        assert!(hit("config/*.txt").is_some(), "a key by its first line");
        // `*` does not match a leading dot, as in the shell.
        assert_eq!(hit("*"), None);
        assert_eq!(hit("*.rs"), None);
        assert_eq!(hit("nowhere/*"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_catalogue_loads_whole() {
        assert!(stores().len() >= 100, "{} stores", stores().len());
        assert!(KINDS.len() >= 20);
        assert!(!CONTENTS.is_empty() && !public_paths().is_empty());
        assert!(!reveals_of("gh").is_empty() && !reveal_globs().simple.is_empty());
        let env = environment();
        assert!(!env.dumps.is_empty() && !env.printers.is_empty() && !env.names.is_empty());
        for s in stores() {
            assert!(!s.paths.is_empty() && !s.holds.is_empty(), "{}", s.tool);
            for p in s.paths {
                assert!(
                    p.starts_with("~/"),
                    "{}: {p} is not in the home folder",
                    s.tool
                );
                assert!(glob(p).is_some(), "{}: {p} is not a glob", s.tool);
            }
        }
        let c = catalogue();
        let patterns: usize = KINDS.iter().map(|k| k.files.len()).sum();
        assert_eq!(
            c.name_patterns().0.len() + c.tails.len(),
            patterns,
            "a kind's glob did not compile"
        );
    }

    /// The catalogue as the crate's types read it from the packed file, every field checked
    /// (`deny_unknown_fields`, and the types of each): what `build.rs` wrote as constants must
    /// be the same.
    mod read {
        use serde::Deserialize;

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
        pub struct Data {
            pub store: Vec<Store>,
            pub kind: Vec<Kind>,
            pub content: Vec<Content>,
            pub reveal: Vec<Reveal>,
            pub public: Public,
            pub environment: Environment,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Store {
            pub tool: &'static str,
            pub paths: Vec<&'static str>,
            pub holds: &'static str,
            #[serde(default)]
            pub readable: Vec<&'static str>,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Kind {
            pub name: &'static str,
            pub files: Vec<&'static str>,
            #[serde(default)]
            pub except: Vec<&'static str>,
            pub holds: &'static str,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Content {
            pub name: &'static str,
            pub starts: Vec<&'static str>,
            pub holds: &'static str,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Reveal {
            pub program: &'static str,
            pub commands: Vec<&'static str>,
            #[serde(default)]
            pub flags: Vec<&'static str>,
            pub holds: &'static str,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
        pub struct Public {
            pub paths: Vec<&'static str>,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
        pub struct Environment {
            #[serde(default)]
            pub listers: Vec<&'static str>,
            #[serde(default)]
            pub dumps: Vec<&'static str>,
            #[serde(default)]
            pub printers: Vec<&'static str>,
            #[serde(default)]
            pub names: Vec<&'static str>,
            #[serde(default)]
            pub public_ends: Vec<&'static str>,
            #[serde(default)]
            pub public: Vec<&'static str>,
        }
    }

    #[test]
    fn the_name_index_finds_what_a_set_of_every_name_pattern_finds() {
        let set = WildSet::new(NAMES.iter().map(|p| p.0));
        let mut names: Vec<String> = [
            "",
            "a",
            ".",
            "readme.md",
            "main.rs",
            ".env",
            ".env.example",
            "id_rsa.pub",
            "server.key",
            "x_rsa",
            "krb5cc_1000",
            "login data",
            "cookies",
            "a.json",
        ]
        .map(String::from)
        .to_vec();
        for (pattern, _) in NAMES {
            for fill in ["", "x", "x.y", ".env", "_rsa", "*"] {
                let name = pattern.replace('*', fill);
                names.push(format!("a{name}"));
                names.push(format!("{name}.b"));
                names.push(name);
            }
        }
        for name in &names {
            let mut want = set.matches(name);
            want.sort_unstable();
            assert_eq!(names_matching(name), want, "{name:?}");
        }
    }

    #[test]
    fn the_constants_are_the_catalogue() {
        let d: read::Data = from_packed(SECRETS).expect("policies/secrets.toml reads");
        let l = |v: &Vec<&'static str>| -> &'static [&'static str] { v.clone().leak() };
        let stores: Vec<Store> = d
            .store
            .iter()
            .map(|s| Store {
                tool: s.tool,
                paths: l(&s.paths),
                holds: s.holds,
                readable: l(&s.readable),
            })
            .collect();
        assert_eq!(STORES, stores);
        let kinds: Vec<KindData> = d
            .kind
            .iter()
            .map(|k| KindData {
                name: k.name,
                files: l(&k.files),
                except: l(&k.except),
                holds: k.holds,
            })
            .collect();
        assert_eq!(KINDS, kinds);
        // The name index holds each kind's names folded as `fold` folds them (build.rs has
        // its own copy of the folding).
        let names: Vec<(String, u16)> = d
            .kind
            .iter()
            .enumerate()
            .flat_map(|(i, k)| k.files.iter().map(move |f| (f, i)))
            .filter(|(f, _)| !f.contains('/'))
            .map(|(f, i)| (fold(f), u16::try_from(i).expect("few kinds")))
            .collect();
        let written: Vec<(String, u16)> = NAMES.iter().map(|&(p, k)| (p.to_string(), k)).collect();
        assert_eq!(written, names);
        let contents: Vec<Content> = d
            .content
            .iter()
            .map(|c| Content {
                name: c.name,
                starts: l(&c.starts),
                holds: c.holds,
            })
            .collect();
        assert_eq!(CONTENTS, contents);
        let mut reveals: Vec<Reveal> = d
            .reveal
            .iter()
            .map(|r| Reveal {
                program: r.program,
                commands: l(&r.commands),
                flags: l(&r.flags),
                holds: r.holds,
            })
            .collect();
        // Sorted by program, each program's entries in the catalogue's order.
        reveals.sort_by_key(|r| r.program);
        assert_eq!(REVEALS, reveals);
        assert_eq!(public_paths(), d.public.paths);
        let e = &d.environment;
        let env = Environment {
            listers: l(&e.listers),
            dumps: l(&e.dumps),
            printers: l(&e.printers),
            names: l(&e.names),
            public_ends: l(&e.public_ends),
            public: l(&e.public),
        };
        assert_eq!(environment(), &env);
    }

    #[test]
    fn secret_files_are_known_by_name_and_their_twins_are_not() {
        for (path, kind) in [
            (".env", "dotenv"),
            ("/work/p/.env.local", "dotenv"),
            ("secrets/prod.env", "dotenv"),
            ("certs/server.key", "private-key"),
            ("/work/p/config/master.key", "private-key"),
            ("config/secrets.yml", "secrets-file"),
            ("google-credentials.json", "service-account-key"),
            ("infra/terraform.tfstate", "terraform-state"),
            ("a/B.P12", "keystore"),
        ] {
            let got = kind_by_name(Path::new(path)).map(|k| k.name);
            assert_eq!(got, Some(kind), "{path}");
        }
        for path in [
            ".env.example",
            "x/.env.sample",
            "README.md",
            "public-cert.pem",
            "src/main.rs",
        ] {
            assert_eq!(kind_by_name(Path::new(path)), None, "{path}");
        }
    }

    #[test]
    fn a_private_key_is_known_by_its_first_line_whatever_its_name() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let key = dir.path().join("notes.txt");
        std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n")
            .expect("written");
        let cert = dir.path().join("cert.pem");
        std::fs::write(&cert, "-----BEGIN CERTIFICATE-----\nMIIB\n").expect("written");
        assert!(kind_by_content(&key).is_some());
        assert_eq!(kind_by_content(&cert), None);
        assert_eq!(kind_by_content(dir.path()), None);
    }

    #[test]
    fn printing_the_environment_or_a_credential_variable_reveals_it() {
        let revealed = |line: &str| analyse(line).commands.iter().find_map(environment_revealed);
        for line in [
            "env",
            "printenv",
            "env -0",
            "env --nu",
            "env -u HOME",
            "env -Cdist",
            "env FOO=1",
            "printenv --nu",
            "export -p",
            "export",
            "set",
            "declare -p",
            "printenv AWS_SECRET_ACCESS_KEY",
            "printenv HOME GH_TOKEN",
            "echo $GITHUB_TOKEN",
            "echo \"token: ${OPENAI_API_KEY:-none}\"",
            "printf '%s' \"$STRIPE_SECRET_KEY\"",
            "echo $DATABASE_URL | base64",
            "echo $db_password",
            "echo ${!NPM_TOKEN}",
        ] {
            assert!(revealed(line).is_some(), "{line}");
        }
        for line in [
            "printenv PATH",
            "echo $HOME",
            "echo ${#GITHUB_TOKEN}",
            "echo $SSH_AUTH_SOCK",
            "echo $GOOGLE_APPLICATION_CREDENTIALS",
            "echo $SSH_KEY_PATH",
            "echo \"GITHUB_TOKEN=$GITHUB_TOKEN\" >> .env.local",
            "set -e",
            "export FOO=1",
            "env -i",
            "env --ignore-env",
            "env --sp='rm -rf x'",
            "env -S'make test'",
            "printenv --version",
            "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user",
        ] {
            assert!(revealed(line).is_none(), "{line}");
        }
    }

    #[test]
    fn commands_that_print_a_credential_reveal_it() {
        let reveals = |line: &str| {
            analyse(line)
                .commands
                .iter()
                .any(|c| revealed_by(c).is_some())
        };
        for line in [
            "gcloud auth print-access-token",
            "aws configure export-credentials",
            "az account get-access-token",
            "heroku auth:token",
            "vault kv get secret/prod",
            "bw get password github",
            "secret-tool lookup service github",
            "aws ssm get-parameter --name x --with-decryption",
            "gh auth token",
        ] {
            assert!(reveals(line), "{line}");
        }
        for line in [
            "gcloud auth list",
            "aws ssm get-parameter --name x",
            "gh auth status",
            "ls",
        ] {
            assert!(!reveals(line), "{line}");
        }
    }

    #[test]
    fn system_folders_and_package_caches_are_public_and_home_is_not() {
        let home = Path::new("/home/u");
        for p in [
            "/usr/include/stdio.h",
            "/home/u/.cargo/registry/src/x/lib.rs",
            "/tmp/x",
        ] {
            assert!(public(Path::new(p), Some(home)), "{p}");
        }
        for p in [
            "/home/u/notes.txt",
            "/srv/app/config.yml",
            "/home/u/.config/gh/hosts.yml",
        ] {
            assert!(!public(Path::new(p), Some(home)), "{p}");
        }
    }

    #[test]
    fn case_is_folded_as_case_insensitive_file_systems_fold_it() {
        assert_eq!(fold("/home/u/.SSH/Id_Rsa"), "/home/u/.ssh/id_rsa");
        assert_eq!(fold(".ſsh"), ".ssh");
    }

    proptest::proptest! {
        /// Slicing the folded path is only a faster way to the answer the parts give.
        #[test]
        fn a_plain_path_is_judged_as_its_parts_judge_it(
            root in proptest::sample::select(vec!["", "/", "./", "../"]),
            parts in proptest::collection::vec(proptest::sample::select(vec![
                ".aws", "credentials", "config", "master.key", ".env", ".ENV.local", "ssl",
                "private", "x.pem", "etc", "shadow", "proc", "1", "environ", "git-crypt",
                "keys", "k", ".docker", "config.json", "src", "lib.rs", "..", "id_rsa",
                "id_rsa.pub", ".env.example", "credstore", "Secrets", "prod.env",
            ]), 1..6),
        ) {
            let text = format!("{root}{}", parts.join("/"));
            let path = Path::new(&text);
            proptest::prop_assert_eq!(kind_by_name(path), kind_by_parts(catalogue(), path), "{}", text);
        }

        /// The one pass over a path's bytes says what the whole-string searches say.
        #[test]
        fn a_path_is_plain_as_the_searches_find_it(text in "[/.aZé]{0,12}") {
            let by_searches = text.is_ascii()
                && !text.contains("//")
                && !text.contains("/./")
                && !text.ends_with('/')
                && !text.ends_with("/.");
            let upper = text.bytes().any(|b| b.is_ascii_uppercase());
            proptest::prop_assert_eq!(plain_path(&text), by_searches.then_some(upper), "{}", text);
        }
    }

    #[test]
    fn every_store_path_is_in_the_group_of_its_first_part_below_home_folded() {
        let mut seen = std::collections::HashSet::new();
        let mut firsts = Vec::new();
        for g in 0..store_group_count() {
            let (first, paths) = store_group_paths(g);
            assert_eq!(store_group(first), Some(g), "{first}");
            firsts.push(first);
            for (store, path) in paths {
                assert!(seen.insert((store.tool, path)), "{path} is in two groups");
                let own = path
                    .strip_prefix("~/")
                    .and_then(|rel| rel.split('/').next())
                    .filter(|f| !f.contains(['*', '?', '[', '{', '\\']))
                    .map(fold)
                    .unwrap_or_default();
                assert_eq!(first, own, "{path}");
            }
        }
        let all: usize = stores().iter().map(|s| s.paths.len()).sum();
        assert_eq!(seen.len(), all, "every store path is in a group");
        assert!(
            firsts.windows(2).all(|w| w[0] < w[1]),
            "groups sorted, each once"
        );
    }

    #[test]
    fn the_last_parts_of_a_path_are_sliced_from_its_end() {
        assert_eq!(last_parts("/a/b/c", 1), Some("c"));
        assert_eq!(last_parts("/a/b/c", 2), Some("b/c"));
        assert_eq!(last_parts("/a/b/c", 3), Some("a/b/c"));
        assert_eq!(last_parts("/a/b/c", 4), None);
        assert_eq!(last_parts("a/b", 2), Some("a/b"));
        assert_eq!(last_parts("a/b", 3), None);
    }
}
