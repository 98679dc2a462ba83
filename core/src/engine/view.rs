//! A simple command seen by the matchers: its texts in both views, and every path it names
//! (arguments, `--flag=value` values, redirections), resolved once.

use crate::shell::RedirectOp;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use super::links::{self, TooLarge};
use super::paths::{normalize, Leaf, PathContext, Real};
use crate::knowledge::effects::{self, Found, Line, Places};
use crate::knowledge::Reading;
use crate::shell::{SimpleCommand, View};

/// A simple command with everything the matchers need computed once.
pub struct CommandView<'a> {
    pub cmd: &'a SimpleCommand,
    pub literal: String,
    pub canonical: String,
    pub literal_words: Vec<&'a str>,
    pub canonical_words: Vec<&'a str>,
    /// Resolved paths of the arguments and redirection targets.
    pub paths: Vec<PathBuf>,
    /// The same paths as written, for following symlinks and resolving from other folders.
    pub raw_paths: Vec<String>,
    /// Whether an argument or a redirection names a path computed when the command runs
    /// (`$X/out`, `> "$F"`): then no `path` matcher can say every path the command names.
    pub computed_paths: bool,
    /// Whether a redirection's target is computed when the command runs (`> "$F"`).
    pub computed_redirect: bool,
    /// Resolved paths attached to short options (`-o/etc/x`): a `path` matcher in an allow rule
    /// needs them to match too, though they are no path of their own for the other rules.
    pub option_paths: Vec<PathBuf>,
    /// Resolved targets of output redirections, except harmless devices (`/dev/null`, …).
    pub redirects: Vec<PathBuf>,
    /// Where each of `raw_paths` leads ([`PathContext::real`]), looked up once when needed.
    pub reals: Vec<OnceCell<Real>>,
    /// Paths written inside other words, for the hard protections and the guard only (never
    /// for rules): the source of a mount (`-v ~/.aws:/root/.aws`), a `file://` URL, a path
    /// in an interpreter's code (`python3 -c 'open("/home/u/.ssh/id_rsa")'`). As written and
    /// resolved.
    pub inner_paths: Vec<(String, PathBuf)>,
    /// Why the line this command is in changes the shell state the analysis relies on
    /// (`PATH=…`, `export HOME=…`): then no allow rule vouches for it.
    pub state_change: Option<String>,
    /// Why a value the command evaluates as code (arithmetic, `${!x}`, `${x@P}`) may hold a
    /// command substitution, and whether one is known to hold one: then no allow rule vouches
    /// for it either.
    pub evaluation: Option<(String, bool)>,
    unknown: OnceCell<Option<String>>,
    reads_only: OnceCell<bool>,
    reading: OnceCell<Box<Reading<'a>>>,
    /// Where paths resolve from, for the effects.
    ctx: &'a PathContext,
    /// What earlier commands of the line did (files written, remotes added).
    line: Option<&'a Line>,
    effects: OnceCell<Vec<Found>>,
    vouched: OnceCell<bool>,
    /// [`CommandView::disposable`], worked out once: several built-in rules ask it.
    disposable: OnceCell<bool>,
    walked_links: OnceCell<Result<Vec<PathBuf>, TooLarge>>,
    /// Folders an earlier `cd` of the line may have moved to: relative paths may start there.
    moved_to: Vec<PathBuf>,
    /// Symbolic links an earlier `ln -s` of the line made: where each is, where it leads.
    links: Vec<(PathBuf, PathBuf)>,
    /// The secret the command reads, if any (see [`CommandView::secret`]).
    secret: OnceCell<Option<(String, crate::knowledge::secrets::SecretKind)>>,
    /// Paths of `paths` that stand for a value computed when the command runs, its unknown
    /// parts written as wildcards: patterns of the analysis, not globs the shell expands.
    templates: Vec<PathBuf>,
    /// A find's name filter (see [`super::rule::find_name_filter`]), made once.
    name_filter: OnceCell<Option<super::rule::NameFilter>>,
}

impl<'a> CommandView<'a> {
    pub fn new(cmd: &'a SimpleCommand, ctx: &'a PathContext) -> Self {
        let mut named = Named::default();
        named.arguments(cmd, ctx);
        let (redirects, computed_redirect) = named.redirections(cmd, ctx);
        let Named {
            raw: raw_paths,
            resolved: paths,
            computed,
            in_options,
            templates,
        } = named;
        CommandView {
            cmd,
            literal: cmd.text(View::Literal),
            canonical: cmd.text(View::Canonical),
            literal_words: cmd.words(View::Literal),
            canonical_words: cmd.words(View::Canonical),
            paths,
            computed_paths: computed,
            computed_redirect,
            option_paths: in_options,
            reals: raw_paths.iter().map(|_| OnceCell::new()).collect(),
            raw_paths,
            redirects,
            inner_paths: inner_paths(cmd)
                .into_iter()
                .map(|raw| {
                    let resolved = ctx.resolve(&raw);
                    (raw, resolved)
                })
                .collect(),
            state_change: None,
            evaluation: None,
            unknown: OnceCell::new(),
            reads_only: OnceCell::new(),
            reading: OnceCell::new(),
            ctx,
            line: None,
            effects: OnceCell::new(),
            vouched: OnceCell::new(),
            disposable: OnceCell::new(),
            walked_links: OnceCell::new(),
            moved_to: Vec::new(),
            links: Vec::new(),
            secret: OnceCell::new(),
            templates,
            name_filter: OnceCell::new(),
        }
    }

    /// The names a find keeps (see [`super::rule::find_name_filter`]); made once.
    pub fn name_filter(&self) -> Option<&super::rule::NameFilter> {
        self.name_filter
            .get_or_init(|| super::rule::find_name_filter(self))
            .as_ref()
    }

    /// Where the `i`th of [`CommandView::paths`] really leads, links followed, spelled from the
    /// working folder and home as written ([`PathContext::logical`]); looked up once.
    pub fn real(&self, i: usize) -> Option<PathBuf> {
        let real = self.followed(i)?;
        real.path.clone().map(|r| self.ctx.logical(r))
    }

    /// [`PathContext::follow`] of the `i`th of [`CommandView::raw_paths`]; looked up once.
    fn followed(&self, i: usize) -> Option<&Real> {
        let raw = self.raw_paths.get(i)?;
        Some(self.reals.get(i)?.get_or_init(|| self.ctx.follow(raw)))
    }

    /// The kind of secret `path`, one of [`CommandView::paths`], holds by its first bytes:
    /// when following it found what is there, the file is opened only if it is one.
    fn secret_by_content(&self, path: &PathBuf) -> Option<crate::knowledge::secrets::SecretKind> {
        use crate::knowledge::secrets;
        let i = self.paths.iter().position(|q| std::ptr::eq(q, path));
        match i
            .and_then(|i| self.followed(i))
            .map_or(Leaf::Unseen, |r| r.leaf)
        {
            Leaf::Missing | Leaf::Other => None,
            Leaf::File => secrets::kind_of_file(path),
            Leaf::Unseen => secrets::kind_by_content(path),
        }
    }

    /// Where the links below the folders the command walks lead, when it follows links while
    /// walking ([`super::rule::follows_links`]; empty when it does not): the folders it names
    /// (where they really are), or the working folder when it names none. Looked up once.
    pub fn walked_links(&self) -> Result<&[PathBuf], TooLarge> {
        let found = self.walked_links.get_or_init(|| {
            if !super::rule::follows_links(self) {
                return Ok(Vec::new());
            }
            let bases: Vec<&PathBuf> = std::iter::once(&self.ctx.cwd)
                .chain(&self.moved_to)
                .collect();
            let mut folders: Vec<PathBuf> = Vec::new();
            for (i, raw) in self.raw_paths.iter().enumerate() {
                if raw.starts_with(['/', '~', '$']) {
                    folders.push(self.real(i).unwrap_or_else(|| self.paths[i].clone()));
                } else {
                    folders.extend(bases.iter().map(|b| b.join(raw)));
                }
            }
            folders.retain(|p| p.is_dir());
            if folders.is_empty() {
                folders.extend(bases.into_iter().cloned());
            }
            links::targets_below(&folders)
        });
        found.as_deref().map_err(|e| *e)
    }

    /// Where the command's relative paths may be after the line's `cd`s: each joined to each
    /// folder a `cd` may have moved to (none when no `cd` came before).
    pub fn moved_paths(&self) -> Vec<PathBuf> {
        self.raw_paths
            .iter()
            .filter(|raw| !raw.starts_with(['/', '~', '$']))
            .flat_map(|raw| self.moved_to.iter().map(move |b| normalize(&b.join(raw))))
            .collect()
    }

    /// Whether an output redirection's target is relative in a line whose `cd`s may have
    /// moved the command elsewhere.
    pub fn moved_redirect(&self) -> bool {
        !self.moved_to.is_empty()
            && self.cmd.redirects.iter().any(|r| {
                r.writes()
                    && r.target
                        .path
                        .as_deref()
                        .is_some_and(|p| !p.starts_with(['/', '~', '$']))
            })
    }

    /// Whether a `cd` of the line may have taken the command out of the project (the working
    /// folder).
    pub fn moved_outside_project(&self) -> bool {
        self.moved_to.iter().any(|f| !f.starts_with(&self.ctx.cwd))
    }

    /// The command seen after `cd`s of its line that may have moved it to `folders`.
    pub fn moved_to(mut self, folders: Vec<PathBuf>) -> Self {
        self.moved_to = folders;
        self
    }

    /// The paths the command reads: every path it names but those it only writes (a copy's
    /// destination, `-o FILE`, an output redirection) or deletes (`rm`'s operands), as its
    /// program's table and the effects model say; for a program they know nothing of, every
    /// path. A shell's `source FILE` runs the file and shows nothing of it.
    pub fn read_paths(&self) -> Vec<&PathBuf> {
        let program = self.cmd.program();
        if matches!(program, "source" | ".") {
            return Vec::new();
        }
        let ctx = self.ctx;
        let r = self.reading();
        let table = r.program.filter(|p| p.grammar && r.unknown.is_empty());
        if let Some(table) = table {
            // `ls`, `stat`, `realpath`: names and metadata, never what a file holds.
            if table.traits.names_only {
                return Vec::new();
            }
            // The words its table says it reads (and its input), not its patterns and data.
            let mut read: Vec<PathBuf> = Vec::new();
            for o in &r.operands {
                let reads = o.role == Some(crate::knowledge::Role::Read)
                    || o.roles.contains(&crate::knowledge::Role::Read);
                if let Some(p) = crate::knowledge::operand(self.cmd, o.word)
                    .path
                    .filter(|_| reads)
                {
                    read.push(ctx.resolve(&p));
                }
            }
            for u in &r.options {
                let reads = u.spec.is_some_and(|s| {
                    matches!(
                        s.takes,
                        crate::knowledge::Takes::Required(crate::knowledge::Role::Read)
                            | crate::knowledge::Takes::Optional(crate::knowledge::Role::Read)
                    )
                });
                if let Some(v) = u.value.as_ref().filter(|v| reads && !v.word.dynamic) {
                    read.push(ctx.resolve(&v.text));
                }
            }
            for rd in &self.cmd.redirects {
                if rd.op.reads_input() && !rd.op.is_here() {
                    if let Some(p) = &rd.target.path {
                        read.push(ctx.resolve(p));
                    }
                }
            }
            return self.paths.iter().filter(|p| read.contains(p)).collect();
        }
        let mut skip: Vec<PathBuf> = self.redirects.clone();
        if !self.reads_only() {
            for w in effects::writes_of(self.cmd, self.reading()) {
                if let Some(p) = w.path(self.cmd) {
                    skip.push(ctx.resolve(&p));
                }
            }
            if matches!(
                program,
                "rm" | "rmdir" | "unlink" | "shred" | "srm" | "trash" | "trash-put"
            ) {
                for w in effects::deletes_of(self.cmd) {
                    if let Some(p) = &w.path {
                        skip.push(ctx.resolve(p));
                    }
                }
            }
        }
        self.paths.iter().filter(|p| !skip.contains(p)).collect()
    }

    /// The secret file the command reads (a path the catalogue's kinds know by name, or a
    /// file whose first line marks it, looked at for the first few paths), as written, with
    /// its kind; looked up once.
    pub fn secret(&self) -> Option<&(String, crate::knowledge::secrets::SecretKind)> {
        self.secret
            .get_or_init(|| {
                use crate::knowledge::secrets::{self, kind_by_name};
                let read = self.read_paths();
                let shown = |p: &PathBuf| {
                    self.paths
                        .iter()
                        .position(|q| q == p)
                        .and_then(|i| self.raw_paths.get(i).cloned())
                        .unwrap_or_else(|| p.display().to_string())
                        // A computed part is shown as the wildcard it stands for.
                        .replace("{.,}", "")
                };
                if let Some((p, k)) = read.iter().find_map(|p| kind_by_name(p).map(|k| (p, k))) {
                    return Some((shown(p), k));
                }
                // A pattern the shell expands reaches the files that match it.
                if let Some(hit) = read
                    .iter()
                    .filter(|p| p.to_str().is_some_and(secrets::is_glob))
                    .filter(|p| !self.templates.contains(p))
                    .find_map(|p| secrets::kind_in_glob(p))
                {
                    let (p, k) = hit;
                    let shown = p.strip_prefix(&self.ctx.cwd).unwrap_or(&p).display();
                    return Some((shown.to_string(), k));
                }
                // Opening files costs: the first few are looked into.
                read.iter()
                    .take(MAX_CONTENT_CHECKS)
                    .find_map(|p| self.secret_by_content(p).map(|k| (shown(p), k)))
            })
            .as_ref()
    }

    /// The first path the command reads outside the project (the working folder) and outside
    /// the places the catalogue of secrets knows to hold nothing secret, if any: after a `cd`
    /// of the line, a relative path may be anywhere it went.
    pub fn outside(&self) -> Option<String> {
        let ctx = self.ctx;
        let away = |p: &Path| {
            !p.starts_with(&ctx.cwd) && !crate::knowledge::secrets::public(p, ctx.home.as_deref())
        };
        if let Some(p) = self.read_paths().into_iter().find(|p| away(p)) {
            return Some(p.display().to_string());
        }
        // `ls ~/.config`: names, not contents, but what the listing shows goes to the model too.
        let r = self.reading();
        let lists = r
            .program
            .is_some_and(|t| t.grammar && r.unknown.is_empty() && t.traits.names_only);
        if lists {
            // A folder whose every entry is public (`/dev`, `/tmp`) lists nothing secret.
            let folder_away = |p: &Path| away(p) && away(&p.join("-"));
            if let Some(p) = self.paths.iter().find(|p| folder_away(p)) {
                return Some(p.display().to_string());
            }
        }
        self.moved_paths()
            .into_iter()
            .find(|p| away(p))
            .map(|p| p.display().to_string())
    }

    /// Whether the command deletes something, and every path it deletes is disposable (see
    /// [`effects::disposable`]): known, a build output or cache inside the project, or inside a
    /// temporary folder. After a `cd` of the line, a relative path must be disposable from
    /// every folder it may be in.
    pub fn disposable(&self) -> bool {
        *self.disposable.get_or_init(|| self.disposable_now())
    }

    fn disposable_now(&self) -> bool {
        let words = effects::deletes_of(self.cmd);
        let ctx = self.ctx;
        let home = ctx.home.as_deref();
        !words.is_empty()
            && words.iter().all(|w| {
                let here = match &w.path {
                    Some(p) if !w.dynamic => {
                        effects::disposable(&ctx.resolve(p), &w.value, &ctx.cwd, home)
                    }
                    _ => effects::disposable(Path::new("/"), &w.value, &ctx.cwd, home),
                };
                let moved = w.path.as_ref().filter(|p| !p.starts_with(['/', '~', '$']));
                here && moved.is_none_or(|p| {
                    self.moved_to.iter().all(|d| {
                        effects::disposable(&normalize(&d.join(p)), &w.value, &ctx.cwd, home)
                    })
                })
            })
    }

    /// The command seen after `ln -s` commands of its line that made `links` (where each is,
    /// where it leads).
    pub fn through_links(mut self, links: Vec<(PathBuf, PathBuf)>) -> Self {
        self.links = links;
        self
    }

    /// The command seen after the earlier commands of its line (see [`Line`]).
    pub fn after(mut self, line: &'a Line) -> Self {
        self.line = Some(line);
        self
    }

    /// Whether [`CommandView::effects`] tells everything the command does (see
    /// [`effects::vouched`]): what an allow rule about effects needs.
    pub fn effects_vouched(&self) -> bool {
        *self.vouched.get_or_init(|| {
            // `reads_only` is cached and already asks for an unchanged shell state.
            self.reads_only() || (self.state_change.is_none() && effects::vouched_fetch(self.cmd))
        })
    }

    /// What the command does ([`crate::knowledge::effects`]), worked out once when a rule
    /// or `explain` asks.
    ///
    /// One model of where a path leads, as the protections have it: a path is read from the
    /// working folder and from every folder an earlier `cd` of the line may have moved to,
    /// through the links an earlier `ln -s` made, and where the links on disk lead; a write is
    /// judged by the strictest place it may reach (`cd ~ && echo … >> .bashrc` persists).
    pub fn effects(&self) -> &[Found] {
        self.effects.get_or_init(|| {
            let ctx = self.ctx;
            let empty = Line::default();
            let line = self.line.unwrap_or(&empty);
            let run = |resolve: &dyn Fn(&str) -> PathBuf| {
                let places = Places {
                    cwd: &ctx.cwd,
                    home: ctx.home.as_deref(),
                    resolve,
                };
                effects::of(self.cmd, self.reading(), &places, line)
            };
            // The paths the model resolved, so that the second reading below, where links on
            // disk lead, is made only when one of them leads elsewhere: with the same paths
            // resolved alike, it would find the same.
            let resolved = std::cell::RefCell::new(Vec::new());
            let mut found = run(&|raw: &str| {
                resolved.borrow_mut().push(raw.to_string());
                ctx.resolve(raw)
            });
            let writes = found.iter().any(|f| {
                matches!(
                    f.kind,
                    effects::Kind::WriteProject
                        | effects::Kind::WriteOutside
                        | effects::Kind::Delete
                        | effects::Kind::DeleteOutside
                )
            });
            if !writes {
                return found;
            }
            // Where else the written paths may lead.
            let through = |p: PathBuf| -> PathBuf {
                for (link, target) in &self.links {
                    if let Ok(rest) = p.strip_prefix(link) {
                        return if rest.as_os_str().is_empty() {
                            target.clone()
                        } else {
                            target.join(rest)
                        };
                    }
                }
                p
            };
            let mut more = Vec::new();
            if !self.links.is_empty() {
                more.extend(run(&|raw: &str| through(ctx.resolve(raw))));
            }
            let real = |raw: &str| {
                let lexical = ctx.resolve(raw);
                // A path the command names was followed once already (see `followed`).
                let followed = match self.raw_paths.iter().position(|r| r == raw) {
                    Some(i) => self.real(i),
                    None => ctx.real(raw).map(|r| ctx.logical(r)),
                };
                followed.filter(|r| *r != lexical).unwrap_or(lexical)
            };
            let linked = resolved
                .into_inner()
                .iter()
                .any(|raw| real(raw) != ctx.resolve(raw));
            if linked {
                more.extend(run(&real));
            }
            for dir in &self.moved_to {
                let moved = ctx.with_cwd(dir.clone());
                more.extend(run(&|raw: &str| through(moved.resolve(raw))));
            }
            for f in more {
                if !found.contains(&f) {
                    found.push(f);
                }
            }
            found.sort_by_key(|f| f.kind);
            found
        })
    }

    /// The command as its program reads it ([`Reading`]), read once.
    pub fn reading(&self) -> &Reading<'a> {
        self.reading.get_or_init(|| Box::new(Reading::of(self.cmd)))
    }

    /// The command seen as part of a line that changes the shell state (see
    /// [`crate::knowledge::changes_shell_state`]).
    pub fn in_changed_state(mut self, why: Option<String>) -> Self {
        self.state_change = why;
        self
    }

    /// The command seen with why the values it evaluates as code are not known (see
    /// [`crate::knowledge::LineValues::evaluates_unknown`]).
    pub fn evaluating(mut self, why: Option<(String, bool)>) -> Self {
        self.evaluation = why;
        self
    }

    /// Whether no allow rule may vouch for the command, whatever it says: its line changes the
    /// shell state, or it evaluates values that may hold code.
    pub fn unvouchable(&self) -> bool {
        self.state_change.is_some() || self.evaluation.is_some()
    }

    /// Why the analysis cannot say what the command does whole, when it cannot: it evaluates a
    /// value that may hold code, or its program is only known when it runs. Such a command is
    /// *unknown*: asked in every mode (see the `unknown` matcher and
    /// [`crate::Decision::unknown`]). (A line that changes `PATH` may run a program of the
    /// project's under a known name: asked, as running the project's code is, but not unknown.)
    pub fn unknown(&self) -> Option<&str> {
        self.unknown
            .get_or_init(|| {
                if let Some((why, _)) = &self.evaluation {
                    return Some(why.clone());
                }
                if self.cmd.computed_program() {
                    return Some("its program's name is only known when it runs".to_string());
                }
                // A file named only when it runs may be any file (`> "$HOME/$F"`): a
                // start-up file, a setting, the policy.
                if let Some(r) = self.cmd.redirects.iter().find(|r| {
                    r.writes()
                        && !r.op.is_here()
                        && !r.writes_no_file()
                        && r.target.dynamic
                        && !r.target.value.starts_with(">(")
                }) {
                    return Some(format!(
                        "it writes to `{}`, a file named only when it runs",
                        r.target.value
                    ));
                }
                if matches!(self.cmd.program(), "awk" | "gawk" | "mawk" | "nawk") {
                    let program = crate::knowledge::awk_program(self.cmd).unwrap_or_default();
                    if crate::knowledge::awk_writes(program).contains(&None) {
                        return Some(
                            "its awk program writes to a file named only when it runs".to_string(),
                        );
                    }
                }
                crate::knowledge::unknown_reason(self.cmd, self.reading(), &self.ctx.cwd)
            })
            .as_deref()
    }

    /// Whether the command only reads, by the program knowledge ([`crate::knowledge`]), in a
    /// line that leaves the shell state alone.
    pub fn reads_only(&self) -> bool {
        *self.reads_only.get_or_init(|| {
            !self.unvouchable() && crate::knowledge::reads_only_as(self.cmd, self.reading())
        })
    }

    pub fn text(&self, view: View) -> &str {
        match view {
            View::Literal => &self.literal,
            View::Canonical => &self.canonical,
        }
    }

    pub fn words(&self, view: View) -> &[&'a str] {
        match view {
            View::Literal => &self.literal_words,
            View::Canonical => &self.canonical_words,
        }
    }
}

/// The most files whose first lines one command's secret check looks into.
const MAX_CONTENT_CHECKS: usize = 8;

/// `if` in `if=~/x`, `--file` in `--file=~/x`: the value after `=` is what the shell expands.
fn is_option_name(name: &str) -> bool {
    let bare = name.trim_start_matches('-');
    name.len() - bare.len() <= 2
        && bare.starts_with(|c: char| c.is_ascii_alphabetic())
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The paths a command names, as written and resolved, gathered for [`CommandView::new`].
#[derive(Default)]
struct Named {
    raw: Vec<String>,
    resolved: Vec<PathBuf>,
    /// A word or target is computed when the command runs.
    computed: bool,
    /// Paths attached to short options (`-o/etc/x`).
    in_options: Vec<PathBuf>,
    /// Paths of computed words, written with wildcards (see [`CommandView::templates`]).
    templates: Vec<PathBuf>,
}

impl Named {
    fn push(&mut self, raw: String, ctx: &PathContext) {
        self.resolved.push(ctx.resolve(&raw));
        self.raw.push(raw);
    }

    /// The paths the arguments name: each word as a path (the value of `--flag=value` and
    /// `name=value`, curl's `@file`), a path attached to a short option, and a `name=value`
    /// word as written too.
    fn arguments(&mut self, cmd: &SimpleCommand, ctx: &PathContext) {
        // What `echo` and `printf` print is data, not a path they open.
        if matches!(cmd.program(), "echo" | "printf") {
            return;
        }
        let reading_both = !crate::knowledge::reads_assignments(cmd.program());
        for w in cmd.argv.get(1..).unwrap_or_default() {
            // A word whose value is not known (`/home/$USER/.ssh`) is read with its unknown
            // parts as wildcards, so it is still seen when it may name a protected path.
            let path = match &w.path {
                Some(p) => Cow::Borrowed(p.as_str()),
                None if w.dynamic => {
                    self.computed = true;
                    let template = wildcard_template(&w.value);
                    self.templates.push(ctx.resolve(&template));
                    if let Some((_, v)) = template.split_once('=') {
                        self.templates.push(ctx.resolve(v));
                    }
                    Cow::Owned(template)
                }
                None => continue,
            };
            let candidate = match path.split_once('=') {
                Some((name, value)) if is_option_name(name) => value,
                _ => &path,
            };
            // `@file` is how curl and httpie read a file into a request.
            let candidate = candidate
                .strip_prefix('@')
                .filter(|c| !c.is_empty())
                .unwrap_or(candidate);
            let is_flag = candidate.starts_with('-') && candidate.len() > 1;
            if is_flag {
                if let Some(attached) = attached_path(candidate) {
                    self.in_options.push(ctx.resolve(attached));
                }
            } else if !candidate.is_empty() {
                self.push(candidate.to_string(), ctx);
            }
            // `cp evil x=/tmp/.bashrc` writes `./x=/tmp/.bashrc`: for a program that does
            // not read `name=value`, the word is the path as written, so both are seen.
            match written_reading(w).filter(|_| reading_both) {
                Some(Some(raw)) => self.push(raw, ctx),
                Some(None) => self.computed = true,
                None => {}
            }
        }
    }

    /// The files the redirections name (the paths too); the resolved targets of those that
    /// write, and whether a target is computed when the command runs.
    fn redirections(&mut self, cmd: &SimpleCommand, ctx: &PathContext) -> (Vec<PathBuf>, bool) {
        let mut writes = Vec::new();
        let mut computed = false;
        for r in &cmd.redirects {
            let Some(p) = &r.target.path else {
                computed |= !r.op.is_here();
                continue;
            };
            // Heredocs and here-strings carry text, `>&2` duplicates a descriptor.
            let fd_dup = matches!(r.op, RedirectOp::DupOut | RedirectOp::DupIn)
                && (p == "-" || p.chars().all(|c| c.is_ascii_digit()));
            if r.op.is_here() || fd_dup {
                continue;
            }
            let resolved = ctx.resolve(p);
            // `2>/dev/null` names no file the command touches: neither a redirect target nor a
            // path for `path` matchers (a re-spelling must not make a rule match).
            if harmless_device(&resolved) {
                continue;
            }
            if r.writes() {
                writes.push(resolved);
            }
            self.push(p.clone(), ctx);
        }
        self.computed |= computed;
        (writes, computed)
    }
}

/// The path a `name=value` word names as written (`x=/tmp/a` is the file `./x=/tmp/a`), when
/// that differs from the value read as its path: `Some(None)` when it is computed at run time
/// (bash expands a `~` or `$X` after the `=`). `None` for every other word.
fn written_reading(w: &crate::shell::Word) -> Option<Option<String>> {
    if w.value.starts_with('-') || !w.value.contains('=') {
        return None;
    }
    let written = w.clone().as_written();
    if written.path == w.path {
        return None;
    }
    Some(written.path)
}

/// The path attached to an option word (`-o/etc/x`, `-o~/.bashrc`), from its first `/` or
/// `~`: an option that takes a value may take it in the same word.
fn attached_path(flag: &str) -> Option<&str> {
    let body = flag.trim_start_matches('-');
    let at = body.find(['/', '~'])?;
    // `--x=…` values are read as paths already; `-o/x` and `-o~/x`, not `-rf` or `--a/b`.
    (flag.len() - body.len() == 1 && at > 0).then(|| &body[at..])
}

/// A word's text with `$HOME` as `~` and every other expansion (`$X`, `${X}`, `$(…)`, back-ticks)
/// as `*`; one that starts the word and a path (`$X/.ssh`) as `/**`, any folder.
fn wildcard_template(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find(['$', '`']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let home = ["${HOME}", "$HOME"].into_iter().find(|h| {
            tail.starts_with(h)
                && !tail[h.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        });
        let len = if let Some(h) = home {
            out.push('~');
            h.len()
        } else {
            let len = expansion_len(tail);
            // `$X/.ssh/id_rsa`: a folder that is not known, anywhere (see
            // `wildcard_may_reach`); elsewhere in a word, a part of one name.
            if out.is_empty() && tail.get(len..).is_some_and(|r| r.starts_with('/')) {
                out.push_str("/**");
            } else if out.ends_with('/') {
                // At the start of a name in a folder: it may start with a dot (`~/${X}sh` is
                // `~/.ssh`). A word that starts computed is left to the program's own reading.
                out.push_str("{.,}*");
            } else {
                out.push('*');
            }
            len
        };
        rest = &tail[len.max(1)..];
    }
    out.push_str(rest);
    out
}

/// The length of the expansion at the start of `s` (`$X`, `${…}`, `$(…)`, `` `…` ``).
fn expansion_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let closing = |open: u8, close: u8, from: usize| {
        let mut depth = 0usize;
        for (i, &b) in bytes.iter().enumerate().skip(from) {
            if b == open {
                depth += 1;
            } else if b == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
        }
        bytes.len()
    };
    match bytes {
        [b'`', ..] => s[1..].find('`').map_or(s.len(), |i| i + 2),
        [b'$', b'{', ..] => closing(b'{', b'}', 1),
        [b'$', b'(', ..] => closing(b'(', b')', 1),
        [b'$', c, ..] if c.is_ascii_alphabetic() || *c == b'_' => {
            1 + s[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(s.len() - 1)
        }
        [b'$', _, ..] => 2,
        _ => 1,
    }
}

/// Paths written inside a command's words (see [`CommandView::inner_paths`]).
fn inner_paths(cmd: &SimpleCommand) -> Vec<String> {
    let mut out = Vec::new();
    let program = cmd.program();
    let interpreter = [
        "python", "node", "perl", "ruby", "php", "deno", "bun", "lua", "Rscript",
    ]
    .iter()
    .any(|p| program.starts_with(p));
    // The files a sed script reads and writes (`1r ~/.ssh/id_rsa`, `w ~/.bashrc`).
    if program == "sed" {
        for io in crate::knowledge::sed_io(cmd) {
            if let crate::knowledge::SedIo::Read(f) | crate::knowledge::SedIo::Write(f) = io {
                out.push(f);
            }
        }
    }
    for w in cmd.argv.iter().skip(1) {
        let v = w.value.as_str();
        // `file:///home/u/.ssh/id_rsa`
        if let Some(i) = v.find("file://") {
            let rest = &v[i + "file://".len()..];
            let end = rest.find(['\'', '"', ' ', ')']).unwrap_or(rest.len());
            if rest.starts_with('/') {
                out.push(rest[..end].to_string());
            }
        }
        // `-v ~/.aws:/root/.aws:ro`, `--mount type=bind,source=~/.aws,target=/x`
        if let Some((src, _)) = v.split_once(':') {
            let src = src.rsplit(['=', ',']).next().unwrap_or(src);
            if src.starts_with(['/', '~']) && !v.contains("://") {
                out.push(src.to_string());
            }
        }
        for part in v.split(',') {
            if let Some(src) = part
                .strip_prefix("source=")
                .or_else(|| part.strip_prefix("src="))
            {
                out.push(src.to_string());
            }
        }
        if interpreter {
            out.extend(quoted_paths(v));
            // `open(os.path.expanduser("~") + "/.ssh/id_rsa")`, `File.read(Dir.home +
            // "/.ssh/id_rsa")`: a literal added to the home folder is a path in it.
            if HOME_EXPRESSIONS.iter().any(|h| v.contains(h)) {
                out.extend(
                    quoted_literals(v)
                        .into_iter()
                        .filter(|l| l.starts_with('/') && l.len() > 1)
                        .map(|l| format!("~{l}")),
                );
            }
        }
    }
    out
}

/// How interpreters' code names the home folder.
const HOME_EXPRESSIONS: [&str; 12] = [
    "expanduser",
    "Path.home",
    "environ[\"HOME\"]",
    "environ['HOME']",
    "getenv(\"HOME\")",
    "getenv('HOME')",
    "Dir.home",
    "ENV[\"HOME\"]",
    "ENV['HOME']",
    "homedir()",
    "process.env.HOME",
    "$ENV{HOME}",
];

/// Every quoted string in code.
fn quoted_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for quote in ['"', '\''] {
        let mut parts = code.split(quote);
        parts.next();
        while let Some(inside) = parts.next() {
            if !inside.contains('\n') {
                out.push(inside.to_string());
            }
            parts.next();
        }
    }
    out
}

/// Quoted strings in code that look like paths: absolute, from home, or hidden files
/// (`"/home/u/.ssh/id_rsa"`, `'~/.aws/credentials'`, `".harness9/settings.json"`).
fn quoted_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for quote in ['"', '\''] {
        let mut parts = code.split(quote);
        parts.next();
        while let Some(inside) = parts.next() {
            let looks = inside.starts_with('/')
                || inside.starts_with("~/")
                || inside.starts_with('.') && inside.len() > 1 && !inside.contains(' ');
            if looks && !inside.contains('\n') {
                out.push(inside.to_string());
            }
            // Skip the text between this literal and the next.
            parts.next();
        }
    }
    out
}

/// Devices that only discard or show output: writing to them changes nothing.
fn harmless_device(p: &Path) -> bool {
    crate::shell::HARMLESS_DEVICES
        .iter()
        .any(|d| p == Path::new(d))
        || p.starts_with("/dev/fd")
}

#[cfg(test)]
mod tests {
    use super::wildcard_template;

    #[test]
    fn unknown_parts_of_a_word_become_wildcards_and_home_stays_home() {
        assert_eq!(
            wildcard_template("/home/$USER/.ssh/id_rsa"),
            "/home/{.,}*/.ssh/id_rsa"
        );
        assert_eq!(wildcard_template("${HOME}/.aws/x"), "~/.aws/x");
        assert_eq!(wildcard_template("if=$HOME/.ssh/k"), "if=~/.ssh/k");
        // A word that starts with an unknown folder: any folder.
        assert_eq!(wildcard_template("$HOMEDIR/x"), "/**/x");
        assert_eq!(
            wildcard_template("$(pwd)/a/`id`/${X:-y}"),
            "/**/a/{.,}*/{.,}*"
        );
        assert_eq!(wildcard_template("~/${X}sh/id_rsa"), "~/{.,}*sh/id_rsa");
        assert_eq!(wildcard_template("x$Y/z"), "x*/z");
        assert_eq!(wildcard_template("$"), "*");
    }
}
