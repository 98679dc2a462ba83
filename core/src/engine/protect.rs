//! Hard protections and the guard on the policy's own files: which protected or guarded path a
//! call may touch, as written, through `cd`, inside a walked tree, or through symlinks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::eval::Followed;
use super::explain::{Explanation, Hit, Layer, Part};
use super::paths::{has_meta, wildcard_may_reach};
use super::rule::{self, CommandView, Subject, Target};
use super::{Engine, PathContext};
use crate::call::{path_arguments, Decision};
use crate::knowledge::secrets::fold;
use crate::shell::SimpleCommand;

pub use super::protections::{Protection, Protections};

/// The policy's own files and folders a write to is asked about (see
/// [`Engine::guarded_path`]), with an index of them by their text: a hook guards some forty
/// (the agents' settings files of the project and of home among them), and every path of
/// every call is asked about.
#[derive(Debug, Default)]
pub(super) struct Guarded {
    list: Vec<PathBuf>,
    /// Each of `list` as text, when every one is an absolute path written plainly (see
    /// [`plain_absolute`]); `None` otherwise, and `list` is gone through one by one. Put
    /// together when first asked (a hook deciding `git status` asks about no path).
    texts: std::sync::OnceLock<Option<HashSet<Box<str>, foldhash::fast::RandomState>>>,
}

impl Guarded {
    pub(super) fn new(list: Vec<PathBuf>) -> Guarded {
        Guarded {
            list,
            texts: std::sync::OnceLock::new(),
        }
    }

    fn texts(&self) -> Option<&HashSet<Box<str>, foldhash::fast::RandomState>> {
        self.texts
            .get_or_init(|| {
                self.list
                    .iter()
                    .map(|p| p.to_str().filter(|t| plain_absolute(t)).map(Box::from))
                    .collect()
            })
            .as_ref()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, PathBuf> {
        self.list.iter()
    }

    /// Whether `p` is a guarded path or below one, as [`Path::starts_with`] has it: for a
    /// plain absolute path, it or a folder above it is looked up by its text.
    pub(super) fn holds(&self, p: &Path) -> bool {
        let text = p.to_str().filter(|t| plain_absolute(t));
        match (self.texts(), text) {
            (Some(texts), Some(t)) => {
                texts.contains("/")
                    || t.match_indices('/')
                        .skip(1)
                        .map(|(i, _)| &t[..i])
                        .chain(std::iter::once(t))
                        .any(|prefix| texts.contains(prefix))
            }
            _ => self.list.iter().any(|g| p.starts_with(g)),
        }
    }
}

/// Whether `t` is an absolute path written plainly (see
/// [`crate::knowledge::secrets::plain_path`]): its folders are then the text before each `/`.
fn plain_absolute(t: &str) -> bool {
    t.starts_with('/') && crate::knowledge::secrets::plain_path(t).is_some()
}

/// The folders a `cd` earlier in the line may have moved the shell to. Each `cd` may fail, so
/// the candidates double with every one (`cd a; cd b` may leave the shell in `.`, `a`, `b` or
/// `a/b`); past [`Folders::MAX`] the line is `lost`: the candidates kept are still checked,
/// and a relative path that names a protected folder or file, or any relative path once a
/// `cd ..` or a symlink made the folder `unknown`, is asked about. The cost stays linear in
/// the line.
#[derive(Debug, Default)]
pub(super) struct Folders {
    pub(super) list: Vec<PathBuf>,
    /// Whether each folder of `list` exists: below one that does not, no symlink can lead
    /// elsewhere, so its paths are checked as written (one `lstat` per folder, not one per
    /// path component of every path from every folder).
    pub(super) exists: Vec<bool>,
    pub(super) lost: bool,
    pub(super) unknown: bool,
    /// Folders the line puts in `CDPATH`: `cd NAME` may lead into any of them.
    pub(super) cdpath: Vec<PathBuf>,
    /// Symbolic links an earlier `ln -s` of the line makes: where each is, and where it leads.
    pub(super) links: Vec<(PathBuf, PathBuf)>,
}

impl Folders {
    pub(super) const MAX: usize = 32;
}

impl Engine {
    /// The guarded file or folder a path written in a call falls under (as written, as a
    /// wildcard that may expand into one, or where its symlinks lead), if any.
    pub(super) fn guarded_path(
        &self,
        lexical: &Path,
        raw: &str,
        ctx: &PathContext,
        followed: Followed,
    ) -> Option<PathBuf> {
        if self.guarded.is_empty() || raw.is_empty() {
            return None;
        }
        let wild = has_meta(&lexical.to_string_lossy());
        if self.guarded.holds(lexical)
            || (wild && self.guarded.iter().any(|g| wildcard_may_reach(lexical, g)))
        {
            return Some(lexical.to_path_buf());
        }
        if wild {
            return None;
        }
        let real = followed.real(raw, ctx)?;
        self.guarded.holds(&real).then_some(real)
    }

    /// A protection that a relative path of the command reaches from a folder an earlier `cd`
    /// may have moved to.
    pub(super) fn protected_after_cd(
        &self,
        c: &CommandView,
        folders: &Folders,
    ) -> Option<&Protection> {
        folders
            .list
            .iter()
            .zip(&folders.exists)
            .find_map(|(dir, exists)| {
                let ctx = self.ctx.with_cwd(dir.clone());
                let follow = if *exists {
                    Followed::Unknown
                } else {
                    Followed::Itself
                };
                c.raw_paths
                    .iter()
                    .filter(|raw| !raw.starts_with(['/', '~', '$']) || raw.starts_with("~+"))
                    .find_map(|raw| self.protected(&ctx.resolve(raw), raw, &ctx, follow))
            })
    }

    /// Why a relative path of the command cannot be placed after the line lost track of its
    /// folder (see [`Folders`]): when the folder may be anywhere, or when the path names a
    /// protected folder or file by its name (`.ssh/id_rsa`, `.aws`).
    pub(super) fn lost_after_cd(&self, c: &CommandView, folders: &Folders) -> Option<String> {
        if !folders.lost {
            return None;
        }
        let relative = c
            .raw_paths
            .iter()
            .filter(|raw| !raw.starts_with(['/', '~', '$']));
        let names_protection = |raw: &str| {
            raw.split('/').any(|part| {
                part == ".."
                    || self.protections.iter().any(|p| {
                        let folded = crate::knowledge::secrets::fold(part);
                        let same = |n: &std::ffi::OsStr| {
                            crate::knowledge::secrets::fold(&n.to_string_lossy()) == folded
                        };
                        p.resolved
                            .components()
                            .skip(1)
                            .any(|c| same(c.as_os_str()) && part.starts_with('.'))
                            || p.resolved.file_name().is_some_and(same)
                    })
            })
        };
        for raw in relative {
            if folders.unknown || names_protection(raw) {
                return Some(format!(
                    "the line changes folders more often than the analysis follows, so where \
                     `{raw}` leads is not known"
                ));
            }
        }
        None
    }

    /// Records where `cd`/`pushd` may move the shell: its target resolved from every folder
    /// known so far; home when the target is unknown (`cd $X`) or absent.
    pub(super) fn note_cd(&self, c: &CommandView, folders: &mut Folders) {
        if !matches!(c.cmd.program(), "cd" | "pushd") {
            return;
        }
        let target = c
            .cmd
            .argv
            .iter()
            .skip(1)
            .find(|w| !w.value.starts_with('-') || w.value == "-");
        let mut new = Vec::new();
        // `cd x=/home` enters `./x=/home`, not `/home`: the operand as written.
        let target = target.map(|w| w.clone().as_written());
        match target.as_ref().and_then(|w| w.path.as_deref()) {
            Some(t) if t != "-" => {
                let relative = !t.starts_with(['/', '~']);
                // CDPATH is skipped only for `.` and `..` components (`cd .ssh` uses it).
                let dotted = t == "." || t == ".." || t.starts_with("./") || t.starts_with("../");
                if relative && !dotted {
                    new.extend(folders.cdpath.iter().map(|dir| normalize_join(dir, t)));
                }
                let bases = std::iter::once((&self.ctx.cwd, &true))
                    .chain(folders.list.iter().zip(&folders.exists));
                for (base, exists) in bases {
                    let ctx = self.ctx.with_cwd(base.clone());
                    let lexical = ctx.resolve(t);
                    // Once lost, a step up or through a symlink may lead anywhere.
                    if folders.lost
                        && relative
                        && (t.split('/').any(|p| p == "..")
                            || (*exists && ctx.real(t).is_some_and(|r| r != lexical)))
                    {
                        folders.unknown = true;
                    }
                    new.push(lexical);
                }
            }
            _ => new.extend(self.ctx.home.clone()),
        }
        for n in new {
            if folders.list.contains(&n) || n == self.ctx.cwd {
                continue;
            }
            if folders.list.len() >= Folders::MAX {
                folders.lost = true;
                continue;
            }
            folders.exists.push(std::fs::symlink_metadata(&n).is_ok());
            folders.list.push(n);
        }
    }

    pub(super) fn protected_decision(
        &self,
        p: &Protection,
        label: &str,
        trace: Option<&mut Explanation>,
    ) -> Decision {
        let d = p.decision();
        if let Some(t) = trace {
            let hit = Hit {
                layer: Layer::Protected,
                decision: d.clone(),
                text: format!("protect \"{}\" (after `cd`)", p.written),
                deciding: true,
            };
            t.parts.push(Part {
                subject: label.to_string(),
                origin: None,
                effects: Vec::new(),
                hits: vec![hit],
                decision: d.clone(),
            });
        }
        d
    }

    /// The protection a subject touches, if any.
    pub(super) fn protection_hit(&self, s: &Subject, followed: Followed) -> Option<&Protection> {
        if self.protections.is_empty() {
            return None;
        }
        match &s.target {
            Target::File(p) => {
                let raw = crate::call::file_path_arg(s.args).unwrap_or_default();
                let read = s.tool == "read_file";
                self.protected_as(p, raw, &self.ctx, followed, read)
                    .or_else(|| self.extra_path_args(s, Some(raw)))
            }
            Target::Command(c) => {
                // A command proven to only read (by its grammar, or by its verb table with
                // every option known: `ssh-keygen -lf key.pub`) may read what a protection
                // lets be read.
                let read = std::cell::OnceCell::new();
                let read = || {
                    *read.get_or_init(|| {
                        c.reads_only() || crate::knowledge::verbs::reads_by_table(c.cmd)
                    })
                };
                c.paths
                    .iter()
                    .zip(&c.raw_paths)
                    .zip(&c.reals)
                    .find_map(|((p, raw), r)| {
                        self.protected_as(p, raw, &self.ctx, Followed::Lazy(r), read())
                    })
                    .or_else(|| {
                        c.inner_paths.iter().find_map(|(raw, p)| {
                            self.protected(p, raw, &self.ctx, Followed::Unknown)
                        })
                    })
                    .or_else(|| self.walked_into(c))
                    .or_else(|| self.linked_from_walk(c))
                    .or_else(|| self.protected_in_chdir(c))
            }
            Target::Other => self.extra_path_args(s, None),
        }
    }

    /// Records the link an `ln [-s] TARGET [LINK]` makes (static words only).
    pub(super) fn note_link(&self, c: &CommandView, folders: &mut Folders) {
        if c.cmd.program() != "ln" || c.cmd.argv.iter().any(|w| w.dynamic) {
            return;
        }
        let words: Vec<&str> = c
            .cmd
            .argv
            .iter()
            .skip(1)
            .map(|w| w.value.as_str())
            .collect();
        let operands: Vec<&str> = words.into_iter().filter(|w| !w.starts_with('-')).collect();
        let (target, link) = match operands.as_slice() {
            [t] => (*t, t.rsplit('/').next().unwrap_or(t)),
            [t, l] => (*t, *l),
            _ => return,
        };
        // A hard link (`ln ~/.zshrc z`) is the same file under a new name: a write to it
        // writes the file, as through a symbolic one.
        folders
            .links
            .push((self.ctx.resolve(link), self.ctx.resolve(target)));
    }

    /// A protection a path of the command reaches through a link an earlier `ln -s` of the
    /// line made (`ln -s ~ h && cat h/.ssh/id_rsa`).
    pub(super) fn protected_through_links(
        &self,
        c: &CommandView,
        folders: &Folders,
    ) -> Option<&Protection> {
        folders.links.iter().find_map(|(link, target)| {
            c.paths.iter().find_map(|p| {
                let rest = p.strip_prefix(link).ok()?;
                let through = target.join(rest);
                let raw = through.to_string_lossy().into_owned();
                self.protected(&through, &raw, &self.ctx, Followed::Unknown)
            })
        })
    }

    /// A protection inside the working folder, for a command that walks it because it names
    /// no folder of its own (`grep -r x`, `git grep --no-index x`): the folder the line
    /// started in, and every folder a `cd` may have moved it to.
    pub(super) fn walked_from_here(
        &self,
        c: &CommandView,
        folders: &Folders,
    ) -> Option<&Protection> {
        if !rule::walks_folders(c) {
            return None;
        }
        let r = c.reading();
        let names_folder = r
            .operands
            .iter()
            .any(|o| o.role == Some(crate::knowledge::Role::Read) || o.word.dynamic);
        if names_folder {
            return None;
        }
        self.protection_inside(std::iter::once(&self.ctx.cwd).chain(&folders.list))
    }

    /// The first protection inside one of `folders` (as written or where it really is).
    fn protection_inside<'p>(
        &self,
        folders: impl IntoIterator<Item = &'p PathBuf>,
    ) -> Option<&Protection> {
        folders
            .into_iter()
            .find_map(|dir| self.protections.inside(dir, &self.ctx))
    }

    /// The folders a `find` lists (a `-name` filter keeps no protected folder out): what an
    /// `xargs` after it in the pipeline runs its command on.
    pub(super) fn listed_folders(&self, c: &CommandView) -> Option<Listed> {
        if c.cmd.program() != "find" {
            return None;
        }
        let starts: Vec<PathBuf> = c
            .cmd
            .argv
            .iter()
            .skip(1)
            .take_while(|w| !w.value.starts_with(['-', '(', '!']) || w.value == "--")
            .filter(|w| w.value != "--")
            .map(|w| match &w.clone().as_written().path {
                Some(p) if !w.dynamic => self.ctx.resolve(p),
                _ => PathBuf::from("/"),
            })
            .collect();
        Some(Listed {
            folders: if starts.is_empty() {
                vec![self.ctx.cwd.clone()]
            } else {
                starts
            },
            names: c.name_filter().cloned(),
        })
    }

    /// `find ~ -name id_rsa | xargs cat`: an `xargs` fed the names a `find` listed reaches every
    /// protection inside the folders it listed.
    pub(super) fn fed_from_listing(
        &self,
        c: &CommandView,
        listed: Option<&Listed>,
    ) -> Option<&Protection> {
        if !c.cmd.piped || c.cmd.program() != "xargs" {
            return None;
        }
        let listed = listed?;
        match &listed.names {
            None => self.protection_inside(&listed.folders),
            // Only where a file of the names it lists is (see `holds_named`).
            Some(names) => {
                let folders: Vec<PathBuf> = listed
                    .folders
                    .iter()
                    .map(|d| PathBuf::from(fold(&d.to_string_lossy())))
                    .collect();
                listed.folders.iter().find_map(|dir| {
                    self.protections.within(dir, &self.ctx).find(|p| {
                        folders.iter().any(|d| p.folded_base().starts_with(d))
                            && names.reaches(p.base())
                    })
                })
            }
        }
    }

    /// A protection a path of the command reaches with a value the line gives a variable:
    /// `HOME=/; cat ~/home/u/.ssh/id_rsa`, `D=~/.ssh; cat $D/id_rsa`.
    pub(super) fn protected_with_values(
        &self,
        c: &CommandView,
        values: &[(String, String)],
    ) -> Option<&Protection> {
        if values.is_empty() {
            return None;
        }
        let words = c
            .cmd
            .argv
            .iter()
            .skip(1)
            .chain(c.cmd.redirects.iter().map(|r| &r.target));
        for w in words {
            // The word, and the value after a `name=` or `--flag=` (`dd if=$D/id_rsa`, `curl -F
            // f=@$D/key`), which a program may read as a path of its own.
            let whole = (w.path.as_deref().unwrap_or(&w.value), w.value.as_str());
            let assigned = crate::shell::assigned_value(&w.value)
                .map(|v| v.strip_prefix('@').unwrap_or(v))
                .map(|v| (v, v));
            for (text, spelled) in std::iter::once(whole).chain(assigned) {
                if let Some(p) = self.protected_with_value(text, spelled, values) {
                    return Some(p);
                }
            }
        }
        None
    }

    /// The protection `text` (a word's path, else its spelling `spelled`) reaches once a
    /// variable of `values` it starts with (`$D`, or `~` for `HOME`) has its value.
    fn protected_with_value(
        &self,
        text: &str,
        spelled: &str,
        values: &[(String, String)],
    ) -> Option<&Protection> {
        for (name, value) in values {
            let written = if name == "HOME"
                && text.starts_with('~')
                && !text.starts_with("~+")
                && !text.starts_with("~-")
            {
                let rest = text.trim_start_matches('~');
                if !(rest.is_empty() || rest.starts_with('/')) {
                    continue;
                }
                format!("{value}{rest}")
            } else if let Some(rest) = variable_prefix(spelled, name) {
                format!("{value}{rest}")
            } else {
                continue;
            };
            let resolved = self.ctx.resolve(&written);
            if let Some(p) = self.protected(&resolved, &written, &self.ctx, Followed::Unknown) {
                return Some(p);
            }
        }
        None
    }

    /// A protection a relative path reaches from the folder an option moves the program to
    /// (`git -C ~ diff --no-index /dev/null .ssh/id_rsa`, `make -C DIR`).
    fn protected_in_chdir(&self, c: &CommandView) -> Option<&Protection> {
        let r = c.reading();
        r.options
            .iter()
            .filter(|u| {
                u.spec.is_some_and(|s| {
                    matches!(
                        s.takes,
                        crate::knowledge::Takes::Required(crate::knowledge::Role::Chdir)
                            | crate::knowledge::Takes::Optional(crate::knowledge::Role::Chdir)
                    )
                })
            })
            .filter_map(|u| u.value.as_ref())
            .find_map(|v| {
                let dir = v.word.path.as_deref().unwrap_or(&v.text);
                let ctx = self.ctx.with_cwd(self.ctx.resolve(dir));
                c.raw_paths
                    .iter()
                    .filter(|raw| !raw.starts_with(['/', '~', '$']))
                    .find_map(|raw| self.protected(&ctx.resolve(raw), raw, &ctx, Followed::Unknown))
            })
    }

    /// A protection inside a folder tree the command walks (`tar czf k.tgz ~`).
    pub(super) fn walked_into(&self, c: &CommandView) -> Option<&Protection> {
        if !rule::walks_folders(c) {
            return None;
        }
        let excluded = excluded_names(c);
        // A find that acts only on files by name reaches a protected path only where a file
        // of that name is (`find / -name '*.log' -exec wc -l {} +` and a store holding no log).
        let by_name = (c.cmd.program() == "find")
            .then(|| c.name_filter())
            .flatten();
        let named = |base: &Path| by_name.as_ref().is_none_or(|f| f.reaches(base));
        // Each folder as named and where its links lead (`grep -r key docs` with `docs -> ~`:
        // grep follows a link it is given).
        let folders = c.paths.iter().enumerate().flat_map(|(i, p)| {
            let real = c.real(i).filter(|r| r != p);
            std::iter::once(p.clone()).chain(real)
        });
        folders.into_iter().find_map(|p| {
            // Compared case-folded, as the protections are.
            let candidates = self.protections.within(&p, &self.ctx);
            let p = PathBuf::from(fold(&p.to_string_lossy()));
            candidates.into_iter().find(|prot| {
                let below = |q: &Path| -> bool {
                    q.strip_prefix(&p).is_ok_and(|rest| {
                        let parts: Vec<_> = rest.components().collect();
                        !parts.iter().enumerate().any(|(i, part)| {
                            let name = part.as_os_str().to_string_lossy();
                            excluded.iter().any(|(g, files_only)| {
                                // grep's --exclude skips files, never a folder it descends.
                                let applies = !files_only || (i + 1 == parts.len() && !q.is_dir());
                                applies && g.is_match(&*name)
                            })
                        })
                    })
                };
                let canonical = || {
                    prot.canonical(&self.ctx)
                        .is_some_and(|c| below(&PathBuf::from(fold(&c.to_string_lossy()))))
                };
                (below(prot.folded_base()) || canonical()) && named(prot.base())
            })
        })
    }

    /// The protection a link below a folder the command walks, following links, leads into
    /// (see [`CommandView::walked_links`]).
    fn linked_from_walk(&self, c: &CommandView) -> Option<&Protection> {
        let targets = c.walked_links().ok()?;
        targets.iter().find_map(|t| {
            self.protections.iter().find(|p| {
                super::links::reaches(t, p.base())
                    || p.canonical(&self.ctx)
                        .is_some_and(|q| super::links::reaches(t, q))
            })
        })
    }

    /// Path-like arguments of any tool (`file_path`, `directory`, …), but `checked`, the path
    /// already checked.
    pub(super) fn extra_path_args(
        &self,
        s: &Subject,
        checked: Option<&str>,
    ) -> Option<&Protection> {
        let check = |raw: &str| {
            if checked == Some(raw) {
                return None;
            }
            self.protected(&self.ctx.resolve(raw), raw, &self.ctx, Followed::Unknown)
        };
        path_arguments(s.args).find_map(|v| match v {
            Value::String(raw) => check(raw),
            Value::Array(items) => items.iter().filter_map(Value::as_str).find_map(check),
            _ => None,
        })
    }

    /// The protection one of a command's words or redirection targets falls under, read as a
    /// path as written (no symlink followed, no `cd` or variable known): the check that still
    /// runs on the part of a line the analysis had no time for.
    pub(super) fn protected_word(&self, c: &SimpleCommand) -> Option<&Protection> {
        if self.protections.is_empty() {
            return None;
        }
        c.argv
            .iter()
            .chain(c.redirects.iter().map(|r| &r.target))
            .flat_map(|w| [w.path.clone(), w.clone().as_written().path])
            .flatten()
            .find_map(|raw| {
                self.protected(&self.ctx.resolve(&raw), &raw, &self.ctx, Followed::Itself)
            })
    }

    /// The protection a path falls under: by its resolved spelling (`lexical`), as a shell
    /// wildcard that may expand into one, or where its symlinks really lead. A `read` of a file
    /// a protection lets be read (`~/.ssh/id_rsa.pub`) does not fall under it.
    pub(super) fn protected(
        &self,
        lexical: &Path,
        raw: &str,
        ctx: &PathContext,
        followed: Followed,
    ) -> Option<&Protection> {
        self.protected_as(lexical, raw, ctx, followed, false)
    }

    /// [`Engine::protected`], for a path the call only reads when `read`.
    pub(super) fn protected_as(
        &self,
        lexical: &Path,
        raw: &str,
        ctx: &PathContext,
        followed: Followed,
        read: bool,
    ) -> Option<&Protection> {
        if self.protections.is_empty() {
            return None;
        }
        if let Some(hit) = self.protections.covering(lexical, read, &self.ctx) {
            return Some(hit);
        }
        let wild = has_meta(&lexical.to_string_lossy());
        // A wildcard names no single file to follow, but bash expands it on disk first: what it
        // matches may lead anywhere (`docs/*/id_rsa` through `docs/keys -> ~/.ssh`).
        if wild {
            let text = fold(&lexical.to_string_lossy());
            let folded = Path::new(&text);
            // The folder written out before the first wildcard: a protection it does not lead
            // to, nor lie in, is not reached (a quick look before the part-by-part one).
            let literal = super::protections::wild_literal(&text);
            if let Some(hit) = self.protections.wild_candidates(&text).find(|prot| {
                let base = prot.folded_base().to_str().unwrap_or("");
                (base.starts_with(literal) || literal.starts_with(base))
                    && wildcard_may_reach(folded, prot.folded_base())
                    // One the path is below as written was judged above (a file it lets be
                    // read).
                    && !prot.covers(lexical, false, &self.ctx)
            }) {
                return Some(hit);
            }
            let targets = super::links::glob_targets(lexical);
            // A match inside a protection (unless it may be read), or a folder holding one
            // (as written, or where it really is).
            return targets.iter().find_map(|t| {
                self.protections
                    .covering(t, read, &self.ctx)
                    .or_else(|| self.protections.below(t))
                    .or_else(|| {
                        self.protections.linked(&self.ctx).find(|prot| {
                            prot.canonical(&self.ctx).is_some_and(|c| c.starts_with(t))
                        })
                    })
            });
        }
        if raw.is_empty() {
            return None;
        }
        let real = followed.real(raw, ctx)?;
        if real == lexical {
            return None;
        }
        self.protections.covering(&real, read, &self.ctx)
    }
}

/// The rest of `word` after a leading `$name` or `${name}` (empty or from a `/` on).
/// What a `find` listed: the folders it walked, and the names it kept (see
/// [`rule::find_name_filter`]).
pub(super) struct Listed {
    pub(super) folders: Vec<PathBuf>,
    pub(super) names: Option<rule::NameFilter>,
}

/// Whether a file whose name every pattern matches is at `base` or below it (links not
/// followed), looking at no more than a few thousand entries: past that, or where `base` is a
/// pattern itself, it may be.
pub(super) fn holds_named(base: &Path, patterns: &[globset::GlobMatcher]) -> bool {
    if base.to_str().is_none_or(|b| b.contains(['*', '?', '['])) {
        return true;
    }
    let matches = |name: &std::ffi::OsStr| patterns.iter().all(|p| p.is_match(name));
    let Ok(meta) = std::fs::symlink_metadata(base) else {
        return false;
    };
    if !meta.is_dir() {
        return base.file_name().is_some_and(matches);
    }
    let mut budget = 4096usize;
    let mut todo = vec![base.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if budget == 0 {
                return true;
            }
            budget -= 1;
            if matches(&e.file_name()) {
                return true;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(e.path());
            }
        }
    }
    false
}

fn variable_prefix<'w>(word: &'w str, name: &str) -> Option<&'w str> {
    let rest = word.strip_prefix('$')?.strip_prefix(name).or_else(|| {
        word.strip_prefix("${")?
            .strip_prefix(name)?
            .strip_prefix('}')
    })?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

fn normalize_join(dir: &Path, t: &str) -> PathBuf {
    super::paths::normalize(&dir.join(t))
}

/// Folder and file names a walking command leaves out (`--exclude-dir=.aws`, `tar
/// --exclude='.ssh'`): a protected path so named is not walked into. grep's `--exclude` skips
/// files only (`true`): a folder of that name is still searched.
fn excluded_names(c: &CommandView) -> Vec<(globset::GlobMatcher, bool)> {
    let grep_like = matches!(c.cmd.program(), "grep" | "egrep" | "fgrep" | "rg");
    c.reading()
        .options
        .iter()
        .filter_map(|u| {
            let names = u.spec.map_or(&[][..], |s| s.names.as_slice());
            let files_only = if names.iter().any(|n| n == "--exclude-dir") {
                false
            } else if names.iter().any(|n| n == "--exclude") {
                grep_like
            } else {
                return None;
            };
            let v = u.value.as_ref().filter(|v| !v.word.dynamic)?;
            let pattern = v.text.trim_end_matches('/');
            let g = globset::Glob::new(pattern).ok()?;
            Some((g.compile_matcher(), files_only))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let part = prop::sample::select(vec!["a", "b", ".harness9", ".", "..", "", "x.json"]);
        (
            prop::sample::select(vec!["/", "", "/a/"]),
            prop::collection::vec(part, 0..5),
        )
            .prop_map(|(root, parts)| format!("{root}{}", parts.join("/")))
    }

    proptest::proptest! {
        /// The index says what going through the guarded paths with `Path::starts_with` says,
        /// for paths written plainly or not.
        #[test]
        fn a_guarded_path_is_found_as_starts_with_finds_it(
            guards in proptest::collection::vec(path(), 0..4),
            p in path(),
        ) {
            let list: Vec<PathBuf> = guards.iter().map(PathBuf::from).collect();
            let by_components = list.iter().any(|g| Path::new(&p).starts_with(g));
            proptest::prop_assert_eq!(Guarded::new(list).holds(Path::new(&p)), by_components);
        }
    }

    #[test]
    fn the_guarded_files_of_a_project_and_home_are_found_by_their_text() {
        let g = Guarded::new(vec![
            PathBuf::from("/work/p/.harness9"),
            PathBuf::from("/home/u/.claude/settings.json"),
        ]);
        assert!(g.texts().is_some());
        assert!(g.holds(Path::new("/work/p/.harness9/team.policy")));
        assert!(g.holds(Path::new("/home/u/.claude/settings.json")));
        assert!(!g.holds(Path::new("/work/p/.harness9x")));
        assert!(!g.holds(Path::new("/home/u/.claude")));
        // Not written plainly: compared part by part.
        assert!(g.holds(Path::new("/work/p/./.harness9//x")));
        assert!(g.holds(Path::new("/work/p/.harness9/é.policy")));
    }
}
