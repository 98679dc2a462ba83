//! The hard-protected paths, indexed: the catalogue's credential stores (`policies/secrets.toml`)
//! and every `protect` statement. A path is looked up by its first part below the home folder,
//! never against the whole list, and compared case-folded, as case-insensitive file systems
//! (macOS, Windows) compare names: `~/.SSH/id_rsa` is the key there, and on a file system that
//! tells them apart, denying a look-alike costs nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobMatcher};

use super::paths::{escape_glob, has_meta, PathContext};
use crate::call::{Action, Decision, Risk};
use crate::knowledge::secrets::{self, fold};
use crate::knowledge::wild::{self, Wild};
use crate::rule_ref::RuleRef;

/// A hard-protected path.
#[derive(Debug)]
pub struct Protection {
    /// As written (`~/.ssh`).
    pub written: String,
    pub resolved: PathBuf,
    reason: Reason,
    /// `resolved`, case-folded.
    folded: String,
    /// For a path with wildcards (`~/.azure/msal_token_cache.*`): the glob over folded paths,
    /// and the folder before the first wildcard (what a walk or a wildcard must reach).
    glob: Option<LazyGlob>,
    base: PathBuf,
    /// `base`, folded: what a wildcard is compared with (see `paths::wildcard_may_reach`).
    folded_base: PathBuf,
    /// File names inside a protected folder that may be read, never written (`*.pub` in
    /// `~/.ssh`).
    readable: Vec<LazyGlob>,
    /// Where `resolved` really is, when a symlink on the way leads elsewhere (looked up once,
    /// when first needed).
    canonical: OnceLock<Option<PathBuf>>,
}

impl Clone for Protection {
    fn clone(&self) -> Self {
        Protection {
            written: self.written.clone(),
            resolved: self.resolved.clone(),
            reason: self.reason.clone(),
            folded: self.folded.clone(),
            glob: self.glob.clone(),
            base: self.base.clone(),
            folded_base: self.folded_base.clone(),
            readable: self.readable.clone(),
            canonical: match self.canonical.get() {
                Some(c) => OnceLock::from(c.clone()),
                None => OnceLock::new(),
            },
        }
    }
}

/// Why a path is protected, said when a call reaches it: the words of a `protect` statement,
/// or a catalogue store's, put together only then (a hook builds some 300 and says one).
#[derive(Debug, Clone)]
enum Reason {
    Text(String),
    /// "`PATH` holds HOLDS (TOOL): it is protected".
    Store {
        path: &'static str,
        holds: &'static str,
        tool: &'static str,
    },
}

impl Reason {
    fn text(&self) -> String {
        match self {
            Reason::Text(t) => t.clone(),
            Reason::Store { path, holds, tool } => {
                format!("`{path}` holds {holds} ({tool}): it is protected")
            }
        }
    }
}

/// A glob compiled when first used: a hook process builds some 300 protections and asks one
/// or two of them. One of `*` and `**` alone over ASCII is matched without compiling anything
/// ([`wild`]): the paths it is matched with are folded as it is, so that matching it as written
/// is matching it in any case.
#[derive(Debug)]
struct LazyGlob {
    pattern: String,
    wild: Option<Wild>,
    compiled: OnceLock<Option<GlobMatcher>>,
}

impl LazyGlob {
    fn new(pattern: String) -> LazyGlob {
        LazyGlob {
            wild: (pattern.is_ascii() && wild::simple(&pattern)).then(|| Wild::new(&pattern)),
            pattern,
            compiled: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&GlobMatcher> {
        self.compiled
            .get_or_init(|| matcher(&self.pattern))
            .as_ref()
    }

    /// Whether the glob builds (one that does not is read as the path it spells).
    fn builds(&self) -> bool {
        self.wild.is_some() || self.get().is_some()
    }

    /// Whether folded `text` matches (never, when the glob does not build).
    fn is_match(&self, text: &str) -> bool {
        match &self.wild {
            Some(w) if text.is_ascii() => w.is_match(text),
            _ => self.get().is_some_and(|g| g.is_match(text)),
        }
    }
}

impl Clone for LazyGlob {
    fn clone(&self) -> Self {
        LazyGlob {
            pattern: self.pattern.clone(),
            wild: self.wild.clone(),
            compiled: match self.compiled.get() {
                Some(c) => OnceLock::from(c.clone()),
                None => OnceLock::new(),
            },
        }
    }
}

fn matcher(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// Whether a relative path is parts none of which is empty, `.` or `..` (`a/b`, not `a//b`,
/// `./a`, `a/..` or `a/`).
fn plain_parts(rel: &str) -> bool {
    // By bytes: asked of every store path of the catalogue when a hook process starts.
    !rel.is_empty()
        && rel
            .as_bytes()
            .split(|&b| b == b'/')
            .all(|part| !matches!(part, b"" | b"." | b".."))
}

/// A store path's part below home (`.docker/config.json` of `~/.docker/config.json`) when it
/// is plain ASCII parts without a wildcard: what [`Protection::store`] puts together as text.
fn plain_below_home(written: &str) -> Option<&str> {
    written
        .strip_prefix("~/")
        .filter(|rel| rel.is_ascii() && plain_parts(rel) && !has_meta(rel))
}

/// The folder a store path starts at below home (the path itself, or the folder before its
/// first wildcard: see [`Protection::base`]), as text there, when its parts are plain ASCII
/// (`.config/chromium` of `~/.config/chromium/*/Cookies`; `""` of `~/*`).
fn store_base_below_home(written: &str) -> Option<&str> {
    let rel = written.strip_prefix("~/").filter(|rel| rel.is_ascii())?;
    let end = rel
        .split('/')
        .take_while(|part| !has_meta(part))
        .map(|part| part.len() + 1)
        .sum::<usize>();
    let base = rel.get(..end.saturating_sub(1))?;
    (base.is_empty() || plain_parts(base)).then_some(base)
}

/// The folder a wildcard path (folded) writes out before its first wildcard, with its
/// trailing `/` (`/work/p/` of `/work/p/*.rs`; `` of `*.rs`): every match lies in it.
pub fn wild_literal(text: &str) -> &str {
    match text.find(['*', '?', '[', '{', '\\']) {
        Some(i) => &text[..text[..i].rfind('/').map_or(0, |j| j + 1)],
        None => text,
    }
}

/// Whether `p` (folded) is `base` (folded) or below it.
fn below_folded(p: &str, base: &str) -> bool {
    let base = base.trim_end_matches('/');
    p.strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/') || base.is_empty())
}

impl Protection {
    /// A protected path as written (`~/.ssh`, `~/.azure/msal_token_cache.*`), resolved in
    /// `ctx`; `readable` names the files inside it that may be read.
    pub fn new(ctx: &PathContext, written: &str, reason: String, readable: &[&str]) -> Protection {
        let resolved = ctx.resolve(written);
        let folded = fold(&resolved.to_string_lossy());
        // Wildcards are what the path is written with after home or the working folder, whose
        // own names stand for themselves (a home named `u*`).
        let (root, rest) = match written.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                (ctx.home.clone().unwrap_or_default(), rest.to_string())
            }
            _ if written.starts_with('/') => (PathBuf::new(), written.to_string()),
            _ => (ctx.cwd.clone(), format!("/{written}")),
        };
        let (glob, base) = if has_meta(&rest) {
            let pattern = format!(
                "{}{}",
                escape_glob(&fold(&root.to_string_lossy())),
                fold(&rest)
            );
            let literal: String = rest
                .split('/')
                .take_while(|part| !has_meta(part))
                .collect::<Vec<_>>()
                .join("/");
            (
                Some(LazyGlob::new(pattern)),
                super::paths::normalize(&root.join(literal.trim_start_matches('/'))),
            )
        } else {
            (None, resolved.clone())
        };
        Protection {
            written: written.to_string(),
            folded,
            glob,
            folded_base: PathBuf::from(fold(&base.to_string_lossy())),
            base,
            readable: readable.iter().map(|r| LazyGlob::new(fold(r))).collect(),
            canonical: OnceLock::new(),
            resolved,
            reason: Reason::Text(reason),
        }
    }

    /// A catalogue store's path below home (`~/.docker/config.json`), as [`Protection::new`]
    /// builds it, with its reason said when a call reaches it. `home` is home normalised and
    /// folded, once for all the stores. A path written with wildcards, or one that is not
    /// plain parts below home, is built by [`Protection::new`].
    pub fn store(
        ctx: &PathContext,
        home: Option<(&Path, &str)>,
        written: &'static str,
        holds: &'static str,
        tool: &'static str,
        readable: &[&str],
    ) -> Protection {
        let reason = Reason::Store {
            path: written,
            holds,
            tool,
        };
        let plain = plain_below_home(written);
        let home = home.and_then(|(h, f)| Some((h.to_str()?, f)));
        let (Some(rel), Some((home, home_folded))) = (plain, home) else {
            let mut p = Protection::new(ctx, written, String::new(), readable);
            p.reason = reason;
            return p;
        };
        // Put together as text: the parts are plain, so this is the path `new` resolves.
        let (home, home_folded) = (
            home.trim_end_matches('/'),
            home_folded.trim_end_matches('/'),
        );
        let mut resolved = String::with_capacity(home.len() + 1 + rel.len());
        resolved.push_str(home);
        resolved.push('/');
        resolved.push_str(rel);
        let mut folded = String::with_capacity(home_folded.len() + 1 + rel.len());
        folded.push_str(home_folded);
        folded.push('/');
        folded.extend(rel.chars().map(|c| c.to_ascii_lowercase()));
        let resolved = PathBuf::from(resolved);
        Protection {
            written: written.to_string(),
            folded_base: PathBuf::from(folded.clone()),
            folded,
            glob: None,
            base: resolved.clone(),
            readable: readable.iter().map(|r| LazyGlob::new(fold(r))).collect(),
            canonical: OnceLock::new(),
            resolved,
            reason,
        }
    }

    /// Why the path is protected.
    pub fn reason(&self) -> String {
        self.reason.text()
    }

    /// The decision on a call that reaches this path: denied at high risk, with its reason.
    pub fn decision(&self) -> Decision {
        Decision::new(
            Action::Deny,
            Risk::High,
            self.reason.text(),
            RuleRef::Protected(self.written.as_str().into()),
        )
    }

    /// Where the protected path really is when a symlink on its way leads elsewhere (`~/.aws
    /// -> /data/aws`), looked up once; `None` when it is where it is written, or not there.
    pub fn canonical(&self, ctx: &PathContext) -> Option<&Path> {
        self.canonical
            .get_or_init(|| {
                let c = ctx.real_path(&self.base)?;
                (c != self.base).then_some(c)
            })
            .as_deref()
    }

    /// The folder the protection starts at (the path itself, or the folder before its first
    /// wildcard): what a walk, a wildcard or a link must reach to reach it.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// [`Protection::base`], case-folded.
    pub fn folded_base(&self) -> &Path {
        &self.folded_base
    }

    /// Whether `p` (folded: see [`fold`]) is the protected path or below it.
    fn covers_folded(&self, p: &str) -> bool {
        // A pattern that does not build is read as the path it spells.
        match self.glob.as_ref().filter(|g| g.builds()) {
            None => below_folded(p, &self.folded),
            Some(g) => {
                // The glob names the protected files or folders; what is below them counts.
                let mut cur = Some(Path::new(p));
                while let Some(q) = cur {
                    if g.is_match(&q.to_string_lossy()) {
                        return true;
                    }
                    if !below_folded(&q.to_string_lossy(), &self.folded_base.to_string_lossy()) {
                        return false;
                    }
                    cur = q.parent();
                }
                false
            }
        }
    }

    /// Whether `p` is the protected path or below it, as written or where the protected path
    /// really is; a `read` of a file the protection lets be read (`~/.ssh/id_rsa.pub`) is not.
    pub fn covers(&self, p: &Path, read: bool, ctx: &PathContext) -> bool {
        self.covers_as_folded(&fold(&p.to_string_lossy()), read, ctx)
    }

    /// [`Protection::covers`] for a path already folded.
    fn covers_as_folded(&self, folded: &str, read: bool, ctx: &PathContext) -> bool {
        let hit = self.covers_folded(folded)
            || self.canonical(ctx).is_some_and(|c| {
                let rest = self
                    .resolved
                    .strip_prefix(&self.base)
                    .unwrap_or(Path::new(""));
                below_folded(folded, &fold(&c.join(rest).to_string_lossy()))
            });
        hit && !(read && self.lets_read(folded))
    }

    /// Whether the folded path `p` is a file inside the protected folder that may be read.
    fn lets_read(&self, p: &str) -> bool {
        if self.readable.is_empty() {
            return false;
        }
        let inside = p
            .strip_prefix(self.folded.trim_end_matches('/'))
            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('/'));
        let name = Path::new(p).file_name().map(|n| n.to_string_lossy());
        inside && name.is_some_and(|n| self.readable.iter().any(|g| g.is_match(n.as_ref())))
    }

    /// Whether the protected path (or where it really is) is `dir` or below it: a command that
    /// walks `dir` reaches it. (Whether it is there yet does not matter: a walk of the home
    /// folder is denied wherever the catalogue's stores are, on every machine alike.)
    pub fn inside(&self, dir: &Path, ctx: &PathContext) -> bool {
        let d = fold(&dir.to_string_lossy());
        below_folded(&self.folded_base.to_string_lossy(), &d)
            || self
                .canonical(ctx)
                .is_some_and(|c| below_folded(&fold(&c.to_string_lossy()), &d))
    }
}

/// The protections, indexed by the first part of their path below the home folder. The
/// catalogue's stores are built a group at a time, the first time a path reaches their first
/// part there: a hook process that decides `git status` builds none of some 300.
#[derive(Debug, Default, Clone)]
pub struct Protections {
    /// The `protect` statements' paths (and the stores, when there is no home folder).
    list: Vec<Protection>,
    home: Option<String>,
    /// `list` below home by its first part there (folded); the others (outside home, or with
    /// a wildcard in that part) are always looked at.
    by_first: HashMap<String, Vec<usize>, foldhash::fast::RandomState>,
    others: Vec<usize>,
    stores: Option<Stores>,
    /// The names in the home folder (folded), read once: a protection below a name that is not
    /// there does not exist, and has no real path elsewhere to look up.
    home_names: OnceLock<Option<HashSet<String, foldhash::fast::RandomState>>>,
    /// The protections whose path really is elsewhere, a symlink on its way leading there
    /// (found once, when first needed; see [`Protection::canonical`]).
    linked: OnceLock<Vec<At>>,
}

/// The catalogue's stores below a home folder, by the groups of `secrets::store_group_count`:
/// each group's protections are built when first asked.
#[derive(Debug, Clone)]
struct Stores {
    ctx: PathContext,
    /// Home, normalised and folded (see [`Protection::store`]).
    home: (PathBuf, String),
    groups: Box<[OnceLock<Vec<Protection>>]>,
    /// The groups found with no symlink on the way to any of their paths before they were
    /// built (see [`Protections::linked`]): built later, they look no real path up.
    unlinked: Box<[OnceLock<()>]>,
    /// The group of the store paths that have no first part below home (see `build.rs`).
    others: Option<usize>,
}

impl Stores {
    fn group(&self, g: usize) -> &[Protection] {
        let Some(cell) = self.groups.get(g) else {
            return &[];
        };
        cell.get_or_init(|| {
            let unlinked = self.unlinked.get(g).is_some_and(|u| u.get().is_some());
            secrets::store_group_paths(g)
                .1
                .map(|(store, path)| {
                    let p = Protection::store(
                        &self.ctx,
                        self.home(),
                        path,
                        store.holds,
                        store.tool,
                        store.readable,
                    );
                    if unlinked {
                        let _ = p.canonical.set(None);
                    }
                    p
                })
                .collect()
        })
    }

    /// Whether every path of group `g` starts at a plain folder below home that is surely
    /// where it is written (no symlink on its way), told from the catalogue's text without
    /// building the group.
    fn surely_unlinked(&self, g: usize, walk: &mut LinkWalk) -> bool {
        secrets::store_group_paths(g).1.all(|(_, path)| {
            store_base_below_home(path).is_some_and(|rel| walk.no_link_below_home(rel))
        })
    }

    /// Home as [`Protection::store`] takes it.
    fn home(&self) -> Option<(&Path, &str)> {
        Some((self.home.0.as_path(), self.home.1.as_str()))
    }

    fn others(&self) -> &[Protection] {
        self.others.map_or(&[], |g| self.group(g))
    }

    /// Whether group `g` has a store at `folded` (a path folded), without building the group:
    /// a plain path is compared as text, as [`Protection::store`] puts it together, any other
    /// is built alone.
    fn has(&self, g: usize, folded: &str) -> bool {
        let home = self.home.1.trim_end_matches('/');
        let rest = folded.strip_prefix(home).and_then(|r| r.strip_prefix('/'));
        secrets::store_group_paths(g)
            .1
            .any(|(store, path)| match plain_below_home(path) {
                Some(rel) => rest.is_some_and(|rest| rel.eq_ignore_ascii_case(rest)),
                None => {
                    let p = Protection::store(&self.ctx, self.home(), path, "", store.tool, &[]);
                    p.folded == folded
                }
            })
    }
}

/// Where a protection is kept: in the list, or in a group of stores.
#[derive(Debug, Clone, Copy)]
enum At {
    List(usize),
    Store(usize, usize),
}

impl Protections {
    pub fn new(home: Option<&Path>) -> Protections {
        Protections {
            home: home.map(|h| fold(&h.to_string_lossy())),
            ..Protections::default()
        }
    }

    /// Adds the catalogue's credential stores in the home folder (`policies/secrets.toml`):
    /// "`~/.docker/config.json` holds container registry login tokens (Docker)". They are
    /// built when a path first reaches them; without a home folder, at once.
    pub fn add_stores(&mut self, ctx: &PathContext) {
        let home = ctx.home.as_deref().map(super::paths::normalize);
        let Some(home) = home else {
            for g in 0..secrets::store_group_count() {
                for (store, path) in secrets::store_group_paths(g).1 {
                    self.push(Protection::store(
                        ctx,
                        None,
                        path,
                        store.holds,
                        store.tool,
                        store.readable,
                    ));
                }
            }
            return;
        };
        let folded = fold(&home.to_string_lossy());
        self.stores = Some(Stores {
            ctx: ctx.clone(),
            home: (home, folded),
            groups: (0..secrets::store_group_count())
                .map(|_| OnceLock::new())
                .collect(),
            unlinked: (0..secrets::store_group_count())
                .map(|_| OnceLock::new())
                .collect(),
            others: secrets::store_group(""),
        });
        self.linked = OnceLock::new();
    }

    /// Every protection: the stores' (each group built), then the list's.
    pub fn iter(&self) -> impl Iterator<Item = &Protection> {
        let stores = self
            .stores
            .iter()
            .flat_map(|s| (0..s.groups.len()).flat_map(move |g| s.group(g)));
        stores.chain(&self.list)
    }

    /// Whether nothing is protected.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.stores.is_none()
    }

    fn get(&self, at: At) -> Option<&Protection> {
        match at {
            At::List(i) => self.list.get(i),
            At::Store(g, i) => self.stores.as_ref()?.group(g).get(i),
        }
    }

    /// Adds a protection, unless the same path is protected already (in its part of the
    /// index: the same path always falls in the same part).
    pub fn push(&mut self, p: Protection) {
        let first = self
            .first_below_home(&p.folded)
            .filter(|first| !has_meta(first));
        if let Some(stores) = &self.stores {
            let group = first.and_then(secrets::store_group).or(stores.others);
            let others = stores.others.filter(|&o| Some(o) != group);
            if group
                .into_iter()
                .chain(others)
                .any(|g| stores.has(g, &p.folded))
            {
                return;
            }
        }
        let part = match first {
            Some(first) => self.by_first.get(first),
            None => Some(&self.others),
        };
        let list = &self.list;
        if part.is_some_and(|part| part.iter().any(|&i| list[i].folded == p.folded)) {
            return;
        }
        let i = self.list.len();
        self.linked = OnceLock::new();
        match first {
            Some(first) => match self.by_first.get_mut(first) {
                Some(part) => part.push(i),
                None => {
                    self.by_first.insert(first.to_string(), vec![i]);
                }
            },
            None => self.others.push(i),
        }
        self.list.push(p);
    }

    /// The first part of a folded path below home, when it is below home.
    fn first_below_home<'a>(&self, folded: &'a str) -> Option<&'a str> {
        let home = self.home.as_deref()?;
        let rest = folded
            .strip_prefix(home.trim_end_matches('/'))?
            .strip_prefix('/')?;
        Some(rest.split('/').next().unwrap_or(rest))
    }

    /// The protections a path may fall under: the stores and the list's of its first part
    /// below home, and the others. (A path whose protection is only reached where a symlink
    /// leads is found by the caller's following of the path, or by [`Protections::linked`].)
    fn candidates<'p>(&'p self, folded: &str) -> impl Iterator<Item = &'p Protection> + 'p {
        let first = self.first_below_home(folded);
        let stores = self.stores.as_ref();
        let keyed_stores = stores
            .zip(first.and_then(secrets::store_group))
            .map_or(&[][..], |(s, g)| s.group(g));
        let keyed = first
            .and_then(|f| self.by_first.get(f))
            .into_iter()
            .flatten()
            .map(|&i| &self.list[i]);
        let other_stores = stores.map_or(&[][..], Stores::others);
        keyed_stores
            .iter()
            .chain(keyed)
            .chain(other_stores)
            .chain(self.others.iter().map(|&i| &self.list[i]))
    }

    /// The protections a wildcard path (folded) may reach: those of its first part below home
    /// when that part is written out, and the others; every one when it is not (`~/.*`,
    /// `/**/x`, `/h*/u/…`).
    pub fn wild_candidates<'p>(
        &'p self,
        folded: &str,
    ) -> Box<dyn Iterator<Item = &'p Protection> + 'p> {
        match self.first_below_home(folded) {
            Some(first) if !has_meta(first) => Box::new(self.candidates(folded)),
            Some(_) => Box::new(self.iter()),
            // Outside home (`/work/p/*.rs`), the folder written out before the first wildcard
            // is where every match lies: only one that holds home reaches home's protections.
            None => self.at_or_below(wild_literal(folded)),
        }
    }

    /// The protection `p` falls under, if any (see [`Protection::covers`]).
    pub fn covering(&self, p: &Path, read: bool, ctx: &PathContext) -> Option<&Protection> {
        let folded = fold(&p.to_string_lossy());
        self.candidates(&folded)
            .find(|prot| prot.covers_as_folded(&folded, read, ctx))
            // Where a protected path really is may be anywhere (`~/.aws -> /data/aws`).
            .or_else(|| {
                self.linked(ctx)
                    .find(|prot| prot.covers_as_folded(&folded, read, ctx))
            })
    }

    /// The protections whose path really is elsewhere (see [`Protection::canonical`]), found
    /// once: one below a name home does not hold leads nowhere and is not looked up (nor is
    /// its group of stores built).
    pub fn linked<'p>(&'p self, ctx: &PathContext) -> impl Iterator<Item = &'p Protection> + 'p {
        let linked = self.linked.get_or_init(|| {
            let mut walk = LinkWalk::new(ctx);
            let is_linked = |walk: &mut LinkWalk, prot: &Protection, may_exist: bool| {
                if prot.canonical.get().is_none()
                    && (!may_exist || walk.no_link_on_the_way(&prot.base))
                {
                    let _ = prot.canonical.set(None);
                }
                prot.canonical(ctx).is_some()
            };
            let mut out = Vec::new();
            if let Some(stores) = &self.stores {
                for g in 0..stores.groups.len() {
                    let first = secrets::store_group_paths(g).0;
                    if !first.is_empty() && !self.may_exist(first) {
                        continue;
                    }
                    // A group not built yet is looked at in the catalogue's text: one with no
                    // link on the way to any of its paths is not built for this.
                    let built = stores.groups.get(g).is_some_and(|c| c.get().is_some());
                    if !built && stores.surely_unlinked(g, &mut walk) {
                        if let Some(u) = stores.unlinked.get(g) {
                            let _ = u.set(());
                        }
                        continue;
                    }
                    for (i, prot) in stores.group(g).iter().enumerate() {
                        if is_linked(&mut walk, prot, true) {
                            out.push(At::Store(g, i));
                        }
                    }
                }
            }
            for (i, prot) in self.list.iter().enumerate() {
                let may_exist = self
                    .first_below_home(&prot.folded)
                    .is_none_or(|first| has_meta(first) || self.may_exist(first));
                if is_linked(&mut walk, prot, may_exist) {
                    out.push(At::List(i));
                }
            }
            out
        });
        linked.iter().filter_map(|&at| self.get(at))
    }

    /// Whether a name may be in the home folder (folded): one of its names, when they can be
    /// read.
    fn may_exist(&self, first: &str) -> bool {
        let names = self.home_names.get_or_init(|| {
            let home = self.home.as_deref()?;
            let entries = std::fs::read_dir(home).ok()?;
            Some(
                entries
                    .flatten()
                    .map(|e| fold(&e.file_name().to_string_lossy()))
                    .collect(),
            )
        });
        names.as_ref().is_none_or(|n| n.contains(first))
    }

    /// The protections that may lie at `dir` or below it as written: those of its first part
    /// below home, and the others; every one when `dir` holds home (`/`, `/home`, `~`).
    fn at_or_below<'p>(
        &'p self,
        folded_dir: &str,
    ) -> Box<dyn Iterator<Item = &'p Protection> + 'p> {
        match self.first_below_home(folded_dir) {
            Some(first) if !has_meta(first) => Box::new(self.candidates(folded_dir)),
            _ => {
                let holds_home = self
                    .home
                    .as_deref()
                    .is_some_and(|h| below_folded(h, folded_dir));
                if holds_home {
                    Box::new(self.iter())
                } else {
                    let other_stores = self.stores.as_ref().map_or(&[][..], Stores::others);
                    Box::new(
                        other_stores
                            .iter()
                            .chain(self.others.iter().map(|&i| &self.list[i])),
                    )
                }
            }
        }
    }

    /// The first protection at `dir` or below it (as written; see [`Protection::inside`] for
    /// where it really is), looked up by the index: only home and the folders above it hold
    /// every protection of home.
    pub fn below(&self, dir: &Path) -> Option<&Protection> {
        let folded = fold(&dir.to_string_lossy());
        self.at_or_below(&folded)
            .find(|p| below_folded(&p.folded_base.to_string_lossy(), &folded))
    }

    /// The protections that may be inside `dir`, as written or where they really are: a
    /// superset of those [`Protection::inside`] holds for, found by the index.
    pub fn within<'p>(
        &'p self,
        dir: &Path,
        ctx: &PathContext,
    ) -> impl Iterator<Item = &'p Protection> + 'p {
        let folded = fold(&dir.to_string_lossy());
        self.at_or_below(&folded).chain(self.linked(ctx))
    }

    /// The first protection inside `dir` (a folder a command walks).
    pub fn inside(&self, dir: &Path, ctx: &PathContext) -> Option<&Protection> {
        self.within(dir, ctx).find(|p| p.inside(dir, ctx))
    }
}

/// The folders below home looked at once for all the protections (most of the catalogue's
/// stores share `~/.config` or `~/.local`): from home down, a path stops at its first part that
/// is not there, and is known to be where it is written when no part on the way is a symlink.
struct LinkWalk<'c> {
    home: Option<&'c Path>,
    /// What is at each path looked at, so that the paths' common folders are
    /// looked at once.
    seen: HashMap<Box<str>, Seen, foldhash::fast::RandomState>,
    /// The names in each folder below home a path went into (folded), read once: a name not
    /// among them is not there, and is not looked up on its own (most of the catalogue's
    /// stores under `~/.config` are of tools a person does not have). `None`: the folder could
    /// not be read whole.
    listed: HashMap<
        Box<str>,
        Option<HashSet<String, foldhash::fast::RandomState>>,
        foldhash::fast::RandomState,
    >,
}

/// The most names [`LinkWalk`] reads of one folder; a folder holding more is looked into name
/// by name.
const MAX_LISTED: usize = 4096;

#[derive(Clone, Copy)]
enum Seen {
    Missing,
    Link,
    Plain,
}

impl<'c> LinkWalk<'c> {
    fn new(ctx: &'c PathContext) -> LinkWalk<'c> {
        LinkWalk {
            home: ctx.home_as_written(),
            seen: HashMap::default(),
            listed: HashMap::default(),
        }
    }

    /// Whether `path` is surely where it is written, or not there at all (`false`: not sure;
    /// [`Protection::canonical`] then looks it up).
    fn no_link_on_the_way(&mut self, path: &Path) -> bool {
        let Some(home) = self.home else {
            return false;
        };
        match path.strip_prefix(home).ok().and_then(Path::to_str) {
            Some(rel) => self.no_link_below_home(rel),
            None => false,
        }
    }

    /// [`LinkWalk::no_link_on_the_way`] of a path below home, given as its text there
    /// (`.config/gh/hosts.yml`; `""` is home itself).
    fn no_link_below_home(&mut self, rel: &str) -> bool {
        let Some(home) = self.home.and_then(Path::to_str) else {
            return false;
        };
        // By bytes, and looked up by the part below home: asked of every store path of the
        // catalogue, most of which share their first folders; only what is looked at on disk
        // is put together.
        if rel
            .as_bytes()
            .split(|&b| b == b'/')
            .any(|part| matches!(part, b"." | b".."))
            || rel.starts_with('/')
        {
            return false;
        }
        let rel = rel.trim_end_matches('/');
        if rel.is_empty() {
            return true;
        }
        let home = home.trim_end_matches('/');
        // Each folder on the way below home, then the path itself.
        let ends = rel
            .match_indices('/')
            .map(|(i, _)| i)
            .chain(std::iter::once(rel.len()));
        for end in ends {
            let prefix = &rel[..end];
            let seen = match self.seen.get(prefix).copied() {
                Some(seen) => seen,
                // (Told by the folder's names, it is not kept: they are.)
                None if self.surely_missing(home, prefix) => Seen::Missing,
                None => {
                    let mut path = String::with_capacity(home.len() + 1 + prefix.len());
                    path.push_str(home);
                    path.push('/');
                    path.push_str(prefix);
                    let seen = match std::fs::symlink_metadata(path) {
                        Err(_) => Seen::Missing,
                        Ok(m) if m.file_type().is_symlink() => Seen::Link,
                        Ok(_) => Seen::Plain,
                    };
                    self.seen.insert(prefix.into(), seen);
                    seen
                }
            };
            match seen {
                Seen::Missing => return true,
                Seen::Link => return false,
                Seen::Plain => {}
            }
        }
        true
    }
}

impl LinkWalk<'_> {
    /// Whether `rel` (below `home`, in a folder below home that was found plain) is surely
    /// not there: its folder, read whole, holds no name that folds as its name does. (One
    /// that does is looked up as written, as a case-insensitive file system would.)
    fn surely_missing(&mut self, home: &str, rel: &str) -> bool {
        let Some(cut) = rel.rfind('/') else {
            // Home's own names are looked up one by one: the callers ask of those it holds.
            return false;
        };
        let (folder, name) = (&rel[..cut], &rel[cut + 1..]);
        if !self.listed.contains_key(folder) {
            let names = Self::names_in(&format!("{home}/{folder}"));
            self.listed.insert(folder.into(), names);
        }
        let name: std::borrow::Cow<str> = match name.bytes().any(|b| !b.is_ascii_lowercase()) {
            true => fold(name).into(),
            false => name.into(),
        };
        self.listed
            .get(folder)
            .and_then(Option::as_ref)
            .is_some_and(|n| !n.contains(name.as_ref()))
    }

    /// The names a folder holds, folded; `None` when it cannot be read whole (see
    /// [`MAX_LISTED`]).
    fn names_in(folder: &str) -> Option<HashSet<String, foldhash::fast::RandomState>> {
        let entries = std::fs::read_dir(folder).ok()?;
        let mut names = HashSet::default();
        for e in entries {
            if names.len() == MAX_LISTED {
                return None;
            }
            names.insert(fold(&e.ok()?.file_name().to_string_lossy()));
        }
        Some(names)
    }
}

/// Whether `p` has a `..` part (such paths are resolved before they are looked up).
#[allow(dead_code)]
fn has_parent(p: &Path) -> bool {
    p.components().any(|c| c == Component::ParentDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> PathContext {
        PathContext::new("/work/p", Some("/home/u".into()))
    }

    #[test]
    fn a_store_is_built_as_the_general_constructor_builds_its_path() {
        let stores = crate::knowledge::secrets::stores();
        assert!(stores.len() > 100);
        for home in ["/home/u", "/home/u/", "/", "/tmp/a/../Hé Σ", "/Users/Dev"] {
            let ctx = PathContext::new("/work/p", Some(home.into()));
            let normal = ctx.home.as_deref().map(super::super::paths::normalize);
            let folded = normal.as_deref().map(|h| fold(&h.to_string_lossy()));
            let h = normal.as_deref().zip(folded.as_deref());
            for store in stores {
                for path in store.paths {
                    let fast =
                        Protection::store(&ctx, h, path, store.holds, store.tool, store.readable);
                    let reason = format!(
                        "`{path}` holds {} ({}): it is protected",
                        store.holds, store.tool
                    );
                    let slow = Protection::new(&ctx, path, reason.clone(), store.readable);
                    let what = format!("{path} in {home}");
                    assert_eq!(fast.written, slow.written, "{what}");
                    assert_eq!(fast.resolved, slow.resolved, "{what}");
                    assert_eq!(fast.folded, slow.folded, "{what}");
                    assert_eq!(fast.base, slow.base, "{what}");
                    assert_eq!(fast.folded_base, slow.folded_base, "{what}");
                    assert_eq!(
                        fast.glob.as_ref().map(|g| &g.pattern),
                        slow.glob.as_ref().map(|g| &g.pattern),
                        "{what}"
                    );
                    let patterns = |p: &Protection| -> Vec<String> {
                        p.readable.iter().map(|g| g.pattern.clone()).collect()
                    };
                    assert_eq!(patterns(&fast), patterns(&slow), "{what}");
                    assert_eq!(fast.reason(), reason, "{what}");
                }
            }
        }
    }

    #[test]
    fn a_protection_reached_through_a_symlink_below_home_is_linked_the_others_not() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let home = dir.path().join("home");
        let elsewhere = dir.path().join("data");
        std::fs::create_dir_all(home.join(".config/plain")).expect("folders");
        std::fs::create_dir_all(elsewhere.join("aws")).expect("folders");
        std::os::unix::fs::symlink(elsewhere.join("aws"), home.join(".aws")).expect("a link");
        std::os::unix::fs::symlink(elsewhere.join("aws"), home.join(".config/linked"))
            .expect("a link");
        let ctx = PathContext::new(dir.path().join("work"), Some(home.clone()));
        let mut all = Protections::new(ctx.home.as_deref());
        for path in [
            "~/.aws/credentials",
            "~/.config/linked/token",
            "~/.config/plain/token",
            "~/.config/missing/token",
            "~/.nothing/token",
        ] {
            all.push(Protection::new(&ctx, path, path.into(), &[]));
        }
        let linked: Vec<&str> = all.linked(&ctx).map(|p| p.written.as_str()).collect();
        assert_eq!(linked, ["~/.aws/credentials", "~/.config/linked/token"]);
    }

    #[test]
    fn a_store_folder_that_is_a_symlink_is_linked_and_a_plain_one_is_not_built_to_know_it() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let home = dir.path().join("home");
        let elsewhere = dir.path().join("data");
        std::fs::create_dir_all(home.join(".docker")).expect("folders");
        std::fs::create_dir_all(elsewhere.join("aws")).expect("folders");
        std::os::unix::fs::symlink(elsewhere.join("aws"), home.join(".aws")).expect("a link");
        let ctx = PathContext::new(dir.path().join("work"), Some(home.clone()));
        let mut all = Protections::new(ctx.home.as_deref());
        all.add_stores(&ctx);
        let stores = all.stores.as_ref().expect("the stores below home");
        let (aws, docker) = (
            secrets::store_group(".aws").expect("a group of ~/.aws"),
            secrets::store_group(".docker").expect("a group of ~/.docker"),
        );
        let linked: Vec<&str> = all.linked(&ctx).map(|p| p.written.as_str()).collect();
        assert!(!linked.is_empty());
        assert!(linked.iter().all(|p| p.starts_with("~/.aws")), "{linked:?}");
        assert!(stores.groups[aws].get().is_some());
        assert!(
            stores.groups[docker].get().is_none(),
            "built to find no link"
        );
        // Where the link leads is protected as the store is.
        let real = elsewhere.join("aws/credentials");
        assert!(all.covering(&real, true, &ctx).is_some());
        // Built later, the plain group's stores look no real path up.
        let config = home.join(".docker/config.json");
        assert!(all.covering(&config, true, &ctx).is_some());
        assert!(stores
            .group(docker)
            .iter()
            .all(|p| p.canonical.get() == Some(&None)));
    }

    #[test]
    fn a_store_below_a_folder_read_whole_is_found_linked_and_its_neighbours_missing() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let home = dir.path().join("home");
        let elsewhere = dir.path().join("data/gh");
        std::fs::create_dir_all(home.join(".config/Code")).expect("folders");
        std::fs::create_dir_all(&elsewhere).expect("folders");
        std::os::unix::fs::symlink(&elsewhere, home.join(".config/gh")).expect("a link");
        let ctx = PathContext::new(dir.path().join("work"), Some(home.clone()));
        let mut walk = LinkWalk::new(&ctx);
        // `gh` is in the folder's names: looked up, and found to be a link.
        assert!(!walk.no_link_below_home(".config/gh/hosts.yml"));
        // A name the folder does not hold is not there, without a look of its own.
        assert!(walk.no_link_below_home(".config/doctl/config.yaml"));
        assert!(walk.no_link_below_home(".config/Code/User/settings.json"));
        assert_eq!(walk.listed.len(), 2, "{:?}", walk.listed.keys());
        let mut all = Protections::new(ctx.home.as_deref());
        all.add_stores(&ctx);
        let linked: Vec<&str> = all.linked(&ctx).map(|p| p.written.as_str()).collect();
        assert!(
            linked.iter().any(|p| p.starts_with("~/.config/gh")),
            "{linked:?}"
        );
        assert!(all
            .covering(&elsewhere.join("hosts.yml"), true, &ctx)
            .is_some());
    }

    #[test]
    fn a_path_protected_twice_is_kept_once_the_first_reason_with_it() {
        let ctx = ctx();
        let mut all = Protections::new(ctx.home.as_deref());
        for (path, reason) in [
            ("~/.aws", "first"),
            ("~/.AWS", "again"),
            ("/etc/shadow", "first"),
            ("/etc/Shadow", "again"),
            ("~/.*rc", "first"),
            ("~/.*RC", "again"),
            ("~/.aws/credentials", "below"),
        ] {
            all.push(Protection::new(&ctx, path, reason.into(), &[]));
        }
        assert_eq!(all.iter().count(), 4);
        assert!(all.iter().all(|p| p.reason() != "again"));
    }

    #[test]
    fn a_protected_folder_covers_what_is_below_it_in_any_case() {
        let ctx = ctx();
        let p = Protection::new(&ctx, "~/.ssh", "keys".into(), &["*.pub", "known_hosts"]);
        assert!(p.covers(Path::new("/home/u/.ssh/id_rsa"), true, &ctx));
        assert!(p.covers(Path::new("/home/u/.SSH/Id_Rsa"), true, &ctx));
        assert!(p.covers(Path::new("/home/u/.ssh"), true, &ctx));
        assert!(!p.covers(Path::new("/home/u/.sshx"), true, &ctx));
        // A public key may be read, never written; the folder itself is not a file in it.
        assert!(!p.covers(Path::new("/home/u/.ssh/id_rsa.pub"), true, &ctx));
        assert!(p.covers(Path::new("/home/u/.ssh/id_rsa.pub"), false, &ctx));
        assert!(!p.covers(Path::new("/home/u/.ssh/known_hosts"), true, &ctx));
        assert!(p.covers(Path::new("/home/u/.ssh/config"), true, &ctx));
    }

    #[test]
    fn a_protected_glob_covers_its_matches_and_what_is_below_them() {
        let ctx = ctx();
        let p = Protection::new(&ctx, "~/.azure/msal_token_cache.*", "tokens".into(), &[]);
        assert!(p.covers(
            Path::new("/home/u/.azure/msal_token_cache.json"),
            true,
            &ctx
        ));
        assert!(p.covers(Path::new("/home/u/.Azure/MSAL_token_cache.bin"), true, &ctx));
        assert!(!p.covers(Path::new("/home/u/.azure/config"), true, &ctx));
        assert!(p.inside(Path::new("/home/u"), &ctx));
        assert!(p.inside(Path::new("/home/u/.azure"), &ctx));
        assert!(!p.inside(Path::new("/home/u/.config"), &ctx));
    }

    #[test]
    fn the_index_finds_what_a_scan_finds() {
        let ctx = ctx();
        let mut all = Protections::new(ctx.home.as_deref());
        for w in [
            "~/.ssh",
            "~/.config/gh/hosts.yml",
            "~/.config/*/token",
            "/etc/shadow",
            "~",
        ] {
            all.push(Protection::new(&ctx, w, w.into(), &[]));
        }
        for path in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.config/x/token",
            "/home/u/.config/x/other",
            "/etc/shadow",
            "/etc/hosts",
            "/home/u/notes",
        ] {
            let p = Path::new(path);
            let scan = all.iter().find(|prot| prot.covers(p, true, &ctx));
            let indexed = all.covering(p, true, &ctx);
            assert_eq!(
                scan.map(|x| &x.written),
                indexed.map(|x| &x.written),
                "{path}"
            );
        }
    }

    #[test]
    fn the_stores_are_built_by_group_when_reached_and_found_as_a_scan_finds_them() {
        let ctx = ctx();
        let mut all = Protections::new(ctx.home.as_deref());
        all.add_stores(&ctx);
        // A policy's protection of a store's path is the store's, kept once.
        all.push(Protection::new(&ctx, "~/.ssh", "again".into(), &[]));
        all.push(Protection::new(&ctx, "~/.AWS", "again".into(), &[]));
        all.push(Protection::new(&ctx, "~/notes/plan", "mine".into(), &[]));
        all.push(Protection::new(&ctx, "/srv/keys", "mine".into(), &[]));
        let built = |all: &Protections| -> usize {
            let stores = all.stores.as_ref().expect("stores");
            stores.groups.iter().filter(|g| g.get().is_some()).count()
        };
        assert_eq!(built(&all), 0, "nothing reached yet, nothing built");
        let p = Path::new("/home/u/.docker/config.json");
        let hit = all.covering(p, true, &ctx).map(|x| x.written.as_str());
        assert_eq!(hit, Some("~/.docker/config.json"));
        assert_eq!(built(&all), 1, "one group built: `.docker`'s");
        for path in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh/id_rsa.pub",
            "/home/u/.SSH/config",
            "/home/u/.aws/credentials",
            "/home/u/.config/gcloud/credentials.db",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.config/nothing",
            "/home/u/.azure/msal_token_cache.json",
            "/home/u/notes/plan",
            "/home/u/notes/other",
            "/srv/keys/a",
            "/etc/hosts",
            "/home/u",
            "/",
        ] {
            let p = Path::new(path);
            for read in [true, false] {
                let scan = all.iter().find(|prot| prot.covers(p, read, &ctx));
                let indexed = all.covering(p, read, &ctx);
                assert_eq!(
                    scan.map(|x| &x.written),
                    indexed.map(|x| &x.written),
                    "{path}"
                );
                assert!(indexed.is_none_or(|x| x.reason() != "again"), "{path}");
            }
            let scan = all
                .iter()
                .find(|prot| below_folded(&prot.folded_base.to_string_lossy(), &fold(path)));
            assert_eq!(
                scan.map(|x| &x.written),
                all.below(p).map(|x| &x.written),
                "below {path}"
            );
        }
        let ssh = all
            .iter()
            .filter(|x| x.written.eq_ignore_ascii_case("~/.ssh"));
        assert_eq!(ssh.count(), 1);
        let aws = all
            .iter()
            .filter(|x| x.written.eq_ignore_ascii_case("~/.aws"));
        assert_eq!(aws.count(), 1);
    }
}
