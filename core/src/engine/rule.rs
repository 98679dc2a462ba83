//! Rules compiled for matching, and the subjects they are matched against.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regex::Regex;
use serde_json::{Map, Value};

use super::paths::{Leaf, PathContext, PathGlob};
use super::pattern::Pattern;
pub use super::view::CommandView;
use crate::diag::Source;
use crate::knowledge::effects::{self, Found, Kind, Places};
use crate::knowledge::{self, Effect, Follow, Program};
use crate::policy::ast::Text;
use crate::policy::ast::{Action, Risk, Span};
use crate::rule_ref::RuleRef;
use crate::shell::{SimpleCommand, View};

/// Where a rule was written: for decisions (`team.policy:12`), `explain` and lints.
#[derive(Debug, Clone)]
pub struct RuleOrigin {
    pub source: Arc<Source>,
    pub span: Span,
    /// `file:line`.
    pub rule: RuleRef,
}

impl RuleOrigin {
    pub fn new(source: &Arc<Source>, span: Span) -> Self {
        let line = source.line(span.start);
        RuleOrigin {
            source: source.clone(),
            span,
            rule: RuleRef::file(&source.name, line),
        }
    }
}

/// A rule ready to match.
#[derive(Debug)]
pub struct CompiledRule {
    pub action: Action,
    pub risk: Risk,
    /// The rule's `reason`, if it has one (see [`CompiledRule::reason`]).
    pub written_reason: Option<String>,
    /// A `sandbox` rule's profile (`default` when it names none); `None` for other rules.
    pub profile: Option<String>,
    pub origin: RuleOrigin,
    pub tool: ToolPattern,
    pub matchers: Vec<CMatcher>,
    pub unless: Vec<Vec<CMatcher>>,
    /// Where `tool(matchers)` is written, for the reason of a rule without one.
    pub(super) head: Span,
}

#[derive(Debug)]
pub enum ToolPattern {
    Name(String),
    Glob(Pattern),
}

impl ToolPattern {
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Name(n) => n == tool,
            ToolPattern::Glob(g) => g.is_match(tool),
        }
    }
}

/// One compiled matcher: which value it looks at and the test.
#[derive(Debug)]
pub struct CMatcher {
    /// `arg a.b …`: the path into the JSON arguments.
    pub arg: Option<Vec<String>>,
    pub test: Test,
}

/// A value of a shorthand or glob matcher, compiled for each kind of subject.
#[derive(Debug)]
pub struct Either {
    /// Over command text or a JSON string (`None` for a rule of file tools only).
    pub text: Option<TextTest>,
    /// Over a resolved path (`None` for a rule that never sees a file tool).
    pub path: Option<PathGlob>,
}

#[derive(Debug)]
pub enum TextTest {
    Glob(Pattern),
    Contains(Text),
}

impl TextTest {
    fn is_match(&self, s: &str) -> bool {
        match self {
            TextTest::Glob(p) => p.is_match(s),
            TextTest::Contains(c) => s.contains(&**c),
        }
    }
}

/// The pattern of the tests that only a command's words and doings meet (never a path nor a
/// string): the matches stay exhaustive, so a new test must be placed.
macro_rules! command_tests {
    () => {
        Test::Program(_)
            | Test::Flag(_)
            | Test::Argument(_)
            | Test::Operand(_)
            | Test::Subcommand(_)
            | Test::Redirect(_)
            | Test::Piped
            | Test::SelfCall
            | Test::ReadOnly
            | Test::Unknown
            | Test::Secret
            | Test::Outside
            | Test::Disposable
            | Test::Effect(_)
    };
}

#[derive(Debug)]
pub enum Test {
    Shorthand(Vec<Either>),
    Glob(Vec<Either>),
    Prefix(Vec<(Vec<String>, PathBuf)>),
    Contains(Vec<Text>),
    Regex(Vec<Regex>),
    Exact(Vec<(String, PathBuf)>),
    Path(Vec<PathGlob>),
    Program(Vec<Pattern>),
    Flag(Vec<String>),
    Argument(Vec<Pattern>),
    Operand(Vec<Pattern>),
    Subcommand(Vec<Pattern>),
    Redirect(Vec<PathGlob>),
    Piped,
    SelfCall,
    ReadOnly,
    /// `unknown`: the analysis cannot say what the command does whole.
    Unknown,
    /// `secret`: the call reads a secret file (the catalogue's kinds).
    Secret,
    /// `outside`: the call reads a path outside the project that may hold secrets.
    Outside,
    /// `disposable`: every path the command deletes is a build output or temporary.
    Disposable,
    Host(Vec<Pattern>),
    /// `effect "network-upload"`: what the command does ([`crate::knowledge::effects`]).
    Effect(Vec<Kind>),
}

/// What a rule is matched against: one call, or one simple command of a bash call.
pub struct Subject<'a> {
    pub tool: &'a str,
    pub args: &'a Map<String, Value>,
    pub target: Target<'a>,
    /// Where the call runs: the project folder of the effects (`write-project`), home.
    pub ctx: Option<&'a PathContext>,
}

// One per subject, on the stack while it is decided: boxing the view would cost an
// allocation per command for no gain.
#[allow(clippy::large_enum_variant)]
pub enum Target<'a> {
    Command(CommandView<'a>),
    File(FileView),
    /// A tool without a known primary argument: its top-level string arguments.
    Other,
}

/// The path a file tool's call names, and what the rules ask of it, found once per call
/// (every rule about secrets or effects asks the same of it).
pub struct FileView {
    pub path: PathBuf,
    /// What following the path found at it (see [`file_secret`]).
    leaf: Leaf,
    secret: OnceCell<Option<crate::knowledge::secrets::SecretKind>>,
    effects: OnceCell<Vec<Found>>,
    outside: OnceCell<bool>,
}

impl FileView {
    pub fn new(path: PathBuf) -> FileView {
        FileView::followed(path, Leaf::Unseen)
    }

    /// A file view of a path whose following found `leaf` at it.
    pub fn followed(path: PathBuf, leaf: Leaf) -> FileView {
        FileView {
            path,
            leaf,
            secret: OnceCell::new(),
            effects: OnceCell::new(),
            outside: OnceCell::new(),
        }
    }

    /// See [`file_secret`]; `s` is the subject this path is the target of.
    pub fn secret(&self, s: &Subject) -> Option<crate::knowledge::secrets::SecretKind> {
        *self
            .secret
            .get_or_init(|| file_secret(s.tool, &self.path, self.leaf))
    }

    /// See [`file_effects`].
    pub fn effects(&self, s: &Subject) -> &[Found] {
        self.effects.get_or_init(|| file_effects(s, &self.path))
    }

    /// See [`file_outside`].
    pub fn outside(&self, s: &Subject) -> bool {
        *self.outside.get_or_init(|| file_outside(s, &self.path))
    }
}

impl std::ops::Deref for FileView {
    type Target = PathBuf;

    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

/// Allow rules read commands literally, deny, ask and sandbox rules canonically (see
/// [`View`]): a sandbox rule restricts how a command runs, so a re-spelling (`/usr/bin/make`)
/// must not slip past it to an answer it does not give (an allow).
pub fn view_for(action: Action) -> View {
    match action {
        Action::Allow => View::Literal,
        Action::Deny | Action::Ask | Action::Sandbox => View::Canonical,
    }
}

impl CompiledRule {
    /// The rule as written, on one line.
    pub fn text(&self) -> String {
        let written = self.origin.source.slice(self.origin.span);
        written
            .trim_end_matches(';')
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The reason a decision by this rule gives: its own, or which rule it was.
    pub fn reason(&self) -> String {
        if let Some(r) = &self.written_reason {
            return r.clone();
        }
        let head = self
            .origin
            .source
            .slice(self.head)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let head = if head.chars().count() <= 60 {
            head
        } else {
            head.chars().take(57).collect::<String>() + "…"
        };
        let verb = match self.action {
            Action::Allow => "allowed",
            Action::Sandbox => "run contained",
            Action::Deny => "denied",
            Action::Ask => "asked",
        };
        format!("{verb} by `{head}`")
    }

    /// Whether the rule names commands exactly (`bash(exact 'git push --force')`): written for
    /// that command alone.
    pub fn is_exact(&self) -> bool {
        !self.matchers.is_empty()
            && self
                .matchers
                .iter()
                .all(|m| matches!(m.test, Test::Exact(_)))
    }

    /// Whether the rule decides this subject: its tool, all its matchers, and none of its
    /// `unless` groups.
    ///
    /// An exception works against its rule, so it reads the command the other way: an allow
    /// rule's exception holds when either view matches (`unless program "rm"` also excepts
    /// `/usr/bin/rm`), a deny or ask rule's only when both do (`unless program "rm"` does not
    /// excuse `./rm`). Re-spelling a command can then never lift an exception to an allow nor
    /// claim one to a deny.
    pub fn matches(&self, s: &Subject) -> bool {
        self.matching(s) != Match::No
    }

    /// Whether the rule decides this subject, and how surely (see [`Match`]).
    pub fn matching(&self, s: &Subject) -> Match {
        // In a line that changes `PATH` or `HOME`, no command is what it looks like; a value
        // evaluated as code may run one.
        if matches!(self.action, Action::Allow | Action::Sandbox) {
            if let Target::Command(c) = &s.target {
                if c.unvouchable() {
                    return Match::No;
                }
            }
        }
        let view = view_for(self.action);
        if !self.tool.matches(s.tool) || !self.matchers.iter().all(|m| m.matches(s, view)) {
            return Match::No;
        }
        let mut sure = true;
        for g in &self.unless {
            let in_view = |v: View| g.iter().all(|m| m.matches(s, v));
            let (literal, canonical) = (in_view(View::Literal), in_view(View::Canonical));
            match self.action {
                // A sandbox rule's exception names what it must not contain (`unless flag
                // "--manifest-path"`): it holds when either view matches, as an allow's does,
                // and the command goes on to be asked.
                Action::Allow | Action::Sandbox if literal || canonical => return Match::No,
                Action::Deny | Action::Ask if literal && canonical => return Match::No,
                Action::Deny | Action::Ask if literal || canonical => sure = false,
                _ => {}
            }
        }
        if sure {
            Match::Sure
        } else {
            Match::Unsure
        }
    }
}

/// How a rule matches a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    No,
    Sure,
    /// A deny or ask rule whose exception holds in one view of the command only (`unless
    /// program "curl"` on `env X=1 curl …`): the rule decides, but so might what comes after it,
    /// had the exception held, and the stricter of the two stands. Otherwise a respelling that
    /// breaks the exception in one view would trade a later, stricter decision for this one.
    Unsure,
}

impl CMatcher {
    pub fn matches(&self, s: &Subject, view: View) -> bool {
        match &self.arg {
            // A bash call is judged one simple command at a time, and `arg command` is that
            // command: matched against the whole line, an allow rule about one part would
            // allow every other part too (`git status && rm -rf /`).
            Some(path) if path.len() == 1 && path[0] == "command" => match &s.target {
                Target::Command(c) => self.test.matches_str(c.text(view)),
                _ => json_values(s.args, path)
                    .iter()
                    .any(|v| self.test.matches_str(v)),
            },
            Some(path) => json_values(s.args, path)
                .iter()
                .any(|v| self.test.matches_str(v)),
            None => match &s.target {
                Target::Command(c) => self.test.matches_command(c, view),
                Target::File(p) => match &self.test {
                    Test::Effect(kinds) => effects_match(kinds, p.effects(s), true, view),
                    Test::Secret => p.secret(s).is_some(),
                    Test::Outside => p.outside(s),
                    test => test.matches_path(p),
                },
                Target::Other => string_args(s.args).any(|v| self.test.matches_str(v)),
            },
        }
    }
}

impl Test {
    fn matches_command(&self, c: &CommandView, view: View) -> bool {
        let text = c.text(view);
        let words = c.words(view);
        match self {
            Test::Shorthand(vs) | Test::Glob(vs) => vs
                .iter()
                .any(|v| v.text.as_ref().is_some_and(|t| t.is_match(text))),
            Test::Prefix(vs) => vs.iter().any(|(toks, _)| {
                toks.len() <= words.len() && toks.iter().zip(words.iter()).all(|(a, b)| a == b)
            }),
            Test::Contains(vs) => vs.iter().any(|v| text.contains(&**v)),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(text)),
            Test::Exact(vs) => vs.iter().any(|(v, _)| v == text),
            Test::Path(vs) => {
                // An allow rule vouches for the command's paths: every one must be known and
                // match (`rm -rf ~ /tmp/x` touches more than `/tmp`), where a link leads too
                // (`/tmp/x` may be a link to `~/.bashrc`).
                let hit = |p: &PathBuf| vs.iter().any(|g| g.is_match(p));
                // After a `cd` of the line, a relative path may be in any folder it went to.
                let known = !c.computed_paths
                    && c.option_paths.iter().all(hit)
                    && (view == View::Canonical || c.moved_paths().iter().all(hit));
                every_or_any(view, known, &c.paths, |i, p| {
                    hit(p)
                        && (view == View::Canonical || c.real(i).is_none_or(|r| r == *p || hit(&r)))
                })
            }
            Test::Program(vs) => words
                .first()
                .is_some_and(|w| vs.iter().any(|p| p.is_match(w))),
            Test::Flag(vs) => vs.iter().any(|f| flag_given(c, f, view)),
            Test::Argument(vs) => c
                .cmd
                .argv
                .iter()
                .skip(1)
                .any(|w| vs.iter().any(|p| p.is_match(&w.value))),
            Test::Operand(vs) => operands(c.cmd).any(|o| vs.iter().any(|p| p.is_match(o))),
            Test::Subcommand(vs) => {
                subcommand(c.cmd).is_some_and(|o| vs.iter().any(|p| p.is_match(o)))
            }
            // As with paths: bash opens every target (`> /tmp/a > ~/.bashrc` empties both).
            Test::Redirect(vs) => every_or_any(
                view,
                !c.computed_redirect && !c.moved_redirect(),
                &c.redirects,
                |_, p| vs.iter().any(|g| g.is_match(p)),
            ),
            Test::Piped => c.cmd.piped,
            Test::SelfCall => c.cmd.self_call,
            Test::ReadOnly => c.reads_only(),
            Test::Unknown => c.unknown().is_some(),
            Test::Secret => c.secret().is_some(),
            Test::Outside => c.outside().is_some(),
            Test::Disposable => c.disposable(),
            Test::Host(vs) => {
                // Every host the command names (its URLs, and where its effects go): an
                // allow rule needs all of them to match, and a command whose doings the
                // effects model sees whole (`rm -rf / https://github.com` names a host too);
                // a deny or ask rule any host.
                let mut hosts: Vec<String> = c
                    .cmd
                    .argv
                    .iter()
                    .skip(1)
                    .filter_map(|w| effects::url_host(&w.value))
                    .collect();
                hosts.extend(c.effects().iter().filter_map(|e| e.host.clone()));
                every_or_any(view, c.effects_vouched(), &hosts, |_, h| {
                    vs.iter().any(|p| p.is_match(h))
                })
            }
            Test::Effect(kinds) => effects_match(
                kinds,
                c.effects(),
                view == View::Canonical || c.effects_vouched(),
                view,
            ),
        }
    }

    fn matches_path(&self, p: &Path) -> bool {
        let s = p.to_string_lossy();
        match self {
            Test::Shorthand(vs) | Test::Glob(vs) => vs
                .iter()
                .any(|v| v.path.as_ref().is_some_and(|g| g.is_match(p))),
            Test::Path(vs) => vs.iter().any(|g| g.is_match(p)),
            Test::Prefix(vs) => vs.iter().any(|(_, base)| p.starts_with(base)),
            Test::Exact(vs) => vs.iter().any(|(_, resolved)| resolved == p),
            Test::Contains(vs) => vs.iter().any(|v| s.contains(&**v)),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(&s)),
            command_tests!() | Test::Host(_) => false,
        }
    }

    /// Over one string: a JSON argument, or a string argument of a tool without a primary one.
    fn matches_str(&self, s: &str) -> bool {
        match self {
            Test::Shorthand(vs) | Test::Glob(vs) => vs
                .iter()
                .any(|v| v.text.as_ref().is_some_and(|t| t.is_match(s))),
            Test::Prefix(vs) => vs.iter().any(|(toks, _)| {
                let joined = toks.join(" ");
                s == joined || s.starts_with(&format!("{joined} "))
            }),
            Test::Contains(vs) => vs.iter().any(|v| s.contains(&**v)),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(s)),
            Test::Exact(vs) => vs.iter().any(|(v, _)| v == s),
            Test::Path(_) => false,
            Test::Host(vs) => {
                effects::url_host(s).is_some_and(|h| vs.iter().any(|p| p.is_match(&h)))
            }
            command_tests!() => false,
        }
    }
}

/// Whether the things a command names (its paths, redirection targets, hosts) meet a test: in
/// the literal view, an allow rule's, every one of them, at least one, and all of them `known`
/// (none computed when it runs, none the model cannot see); in the canonical view any one.
fn every_or_any<T>(view: View, known: bool, items: &[T], hit: impl Fn(usize, &T) -> bool) -> bool {
    let mut each = items.iter().enumerate();
    match view {
        View::Literal => known && !items.is_empty() && each.all(|(i, x)| hit(i, x)),
        View::Canonical => each.any(|(i, x)| hit(i, x)),
    }
}

/// Whether the effects meet an `effect` matcher. A deny or ask rule matches a subject with any
/// of the listed effects; an allow rule one whose effects the model vouches are all it does
/// (`vouched`), with at least one effect and none that is not listed: `allow bash(effect
/// "network-fetch")` never allows a fetch that also writes `~/.bashrc`, nor a program whose
/// other doings the model cannot see.
pub fn effects_match(kinds: &[Kind], found: &[Found], vouched: bool, view: View) -> bool {
    match view {
        View::Literal => {
            vouched && !found.is_empty() && found.iter().all(|f| kinds.contains(&f.kind))
        }
        View::Canonical => found.iter().any(|f| kinds.contains(&f.kind)),
    }
}

/// The effects of a file tool's call (`write_file ~/.bashrc` persists).
pub fn file_effects(s: &Subject, p: &Path) -> Vec<Found> {
    let Some(ctx) = s.ctx else {
        return Vec::new();
    };
    let resolve = |raw: &str| ctx.resolve(raw);
    let places = Places {
        cwd: &ctx.cwd,
        home: ctx.home.as_deref(),
        resolve: &resolve,
    };
    effects::of_file(s.tool, p, &places)
}

/// The first of a subject's effects that a rule's `effect` matchers name, in words: what a
/// decision by that rule says it is about (`sends .env to paste.example`).
pub fn effect_detail(r: &CompiledRule, s: &Subject) -> Option<String> {
    let kinds: Vec<Kind> = r
        .matchers
        .iter()
        .filter_map(|m| match &m.test {
            Test::Effect(k) if m.arg.is_none() => Some(k.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    if kinds.is_empty() {
        return None;
    }
    let pick = |found: &[Found]| {
        found
            .iter()
            .find(|f| kinds.contains(&f.kind))
            .map(|f| f.detail.clone())
    };
    match &s.target {
        Target::Command(c) => pick(c.effects()),
        Target::File(p) => pick(p.effects(s)),
        Target::Other => None,
    }
}

/// The kind of secret a file tool's call reads (`read_file`, and `edit_file`, whose result shows
/// the file around the change), by the path's name or its first line. `leaf` is what
/// following the path found at it: the file is opened only if it is one.
pub fn file_secret(
    tool: &str,
    p: &Path,
    leaf: Leaf,
) -> Option<crate::knowledge::secrets::SecretKind> {
    use crate::knowledge::secrets;
    if !matches!(tool, "read_file" | "edit_file") {
        return None;
    }
    secrets::kind_by_name(p).or_else(|| match leaf {
        Leaf::Missing | Leaf::Other => None,
        Leaf::File => secrets::kind_of_file(p),
        Leaf::Unseen => secrets::kind_by_content(p),
    })
}

/// Whether a file tool reads a path outside the project that may hold secrets.
fn file_outside(s: &Subject, p: &Path) -> bool {
    let Some(ctx) = s.ctx else {
        return false;
    };
    matches!(s.tool, "read_file" | "list_dir")
        && !p.starts_with(&ctx.cwd)
        && !crate::knowledge::secrets::public(p, ctx.home.as_deref())
}

/// What secret a rule about `secret` calls saw: "`.env` holds environment variables … (dotenv)".
pub fn secret_detail(r: &CompiledRule, s: &Subject) -> Option<String> {
    let about = r
        .matchers
        .iter()
        .any(|m| m.arg.is_none() && matches!(m.test, Test::Secret));
    if !about {
        return None;
    }
    let (shown, kind) = match &s.target {
        Target::Command(c) => c.secret().cloned()?,
        Target::File(p) => {
            let raw = crate::call::file_path_arg(s.args)
                .unwrap_or_default()
                .to_string();
            (raw, p.secret(s)?)
        }
        Target::Other => return None,
    };
    Some(format!("`{shown}` holds {} ({})", kind.holds, kind.name))
}

/// Whether a command reads or copies whole folder trees, so that naming a folder that holds a
/// protected path (`tar czf k.tgz ~`, `grep -r key ~`, `cp -r ~ /tmp`) reaches into it: it
/// walks them (see [`walking`]). Tools that skip hidden folders by default (`rg` without
/// `--hidden`) do not count. Recursive deletes and permission changes (`rm -rf ~`, `chmod -R`,
/// whose table says `walk_changes`) are the danger rules' to ask about.
pub fn walks_folders(c: &CommandView) -> bool {
    walking(c) && !table(c).is_some_and(|t| t.traits.walk_changes)
}

/// Whether a command walks the folders it is given, as the program tables say: the program
/// always does (`walks = true`: `tar`, `rsync`), or it is given an option marked `!walk`
/// (`grep -r`, `cp -a`, `zip -r`, `find -exec`), or grep's `-d recurse`.
fn walking(c: &CommandView) -> bool {
    let r = c.reading();
    let walks = table(c).is_some_and(|t| t.traits.walks)
        || gives_marked(c, Effect::Walk)
        || r.value_of(&["-d", "--directories"])
            .is_some_and(|v| v.text.starts_with("rec"));
    // A `-name` filter does not keep a walk out of a protected folder: everything below a
    // credential store is protected, whatever its name (`find ~/.config -name '*.json' -exec
    // cat {} +` reads the cloud CLIs' token files).
    walks
}

/// Whether a command that walks folders follows the links it meets there (`grep -R`, `rg -L`,
/// `find -L … -exec`, `cp -rL`, `tar -h`, `rsync -L`, `zip -r`, `scp -r`, `chmod -RL`): it
/// then reads, or changes, what each link below a folder it is given leads to. It gives an
/// option its table marks `!follow`, and none marked `!nofollow` (`zip -y` keeps links); with
/// `follow = "walking"` that counts only when it walks (`cp -L` without `-r` copies one file).
pub fn follows_links(c: &CommandView) -> bool {
    let Some(t) = table(c) else {
        return false;
    };
    gives_marked(c, Effect::Follow)
        && !gives_marked(c, Effect::NoFollow)
        && (t.traits.follow == Follow::Given || walking(c))
}

/// What the program tables say of the command's program, also where they only give its
/// traits and marks (see [`knowledge::Registry::entry`]).
fn table(c: &CommandView) -> Option<&'static Program> {
    knowledge::registry().entry(c.cmd.program())
}

/// Whether the command gives an option its program's table marks with `effect`: as the
/// program reads its command line, or under any of its names the way a deny rule's `flag`
/// reads it ([`flag_given`]), so that a misreading only makes the walk rules stricter (`find ~
/// -path -execdir cat {} +`); for a program that takes old-style keys, also as one (`tar chf`).
fn gives_marked(c: &CommandView, effect: Effect) -> bool {
    let Some(t) = table(c) else {
        return false;
    };
    c.reading().has_effect(effect)
        || t.names_with(effect)
            .any(|f| flag_given(c, f, View::Canonical))
        || (t.traits.keys
            && keys(c)
                .chars()
                .any(|k| t.short(k).is_some_and(|o| o.has(effect))))
}

/// Old-style keys: the first word when that is letters only (`tar chf out.tar dir`).
fn keys<'c>(c: &CommandView<'c>) -> &'c str {
    c.cmd
        .argv
        .get(1)
        .filter(|w| !w.dynamic && !w.value.is_empty())
        .map(|w| w.value.as_str())
        .filter(|k| k.bytes().all(|b| b.is_ascii_alphabetic()))
        .unwrap_or("")
}

/// The name patterns a find expression selects files by (`-name '*.log'`, `-iname …`), when
/// every file it acts on must match them all: no `-o`, `,`, `!` or `-not` that could select
/// others, and nothing computed when it runs. Compared without regard to case.
pub fn find_name_filter(c: &CommandView) -> Option<NameFilter> {
    let words: Vec<&str> = c.cmd.argv.iter().map(|w| w.value.as_str()).collect();
    if words
        .iter()
        .any(|w| matches!(*w, "-o" | "-or" | "," | "!" | "-not"))
        || c.cmd.argv.iter().any(|w| w.dynamic)
    {
        return None;
    }
    let texts: Vec<&str> = words
        .windows(2)
        .filter(|w| matches!(w[0], "-name" | "-iname"))
        .map(|w| w[1])
        .collect();
    if texts.is_empty() {
        return None;
    }
    // The same filter is met again and again (each layer's view of the command, each call of a
    // session): made once per thread, a few hundred kept.
    thread_local! {
        static MADE: std::cell::RefCell<std::collections::HashMap<Vec<String>, NameFilter>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    let key: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    if let Some(f) = MADE.with(|m| m.borrow().get(&key).cloned()) {
        return Some(f);
    }
    let made = name_filter_of(&texts)?;
    MADE.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 256 {
            m.clear();
        }
        m.insert(key, made.clone());
    });
    Some(made)
}

/// [`find_name_filter`] made from its patterns.
fn name_filter_of(texts: &[&str]) -> Option<NameFilter> {
    let matchers: Vec<globset::GlobMatcher> = texts
        .iter()
        .map(|t| {
            globset::GlobBuilder::new(t)
                .case_insensitive(true)
                .build()
                .map(|g| g.compile_matcher())
        })
        .collect::<Result<_, _>>()
        .ok()?;
    (!matchers.is_empty()).then(|| NameFilter {
        secret: knowledge::secrets::may_name_secret_with(texts, &matchers),
        matchers,
    })
}

/// The names a find expression keeps (see [`find_name_filter`]).
#[derive(Clone)]
pub struct NameFilter {
    /// The `-name` and `-iname` patterns, each to match.
    pub matchers: Vec<globset::GlobMatcher>,
    /// Whether a file they select may be a secret by its name (the catalogue's kinds and
    /// stores): then it is reached wherever it is, found or not.
    pub secret: bool,
}

impl NameFilter {
    /// Whether what the filter keeps may be at `base` or below it (see `holds_named`).
    pub fn reaches(&self, base: &std::path::Path) -> bool {
        self.secret || super::protect::holds_named(base, &self.matchers)
    }
}

/// Whether the command gives the option `flag`. For a program the knowledge has a table for,
/// as the program reads its command line (abbreviations, clusters, values, where options
/// end); deny and ask rules also take it the way [`has_flag`] spells it, so a misreading on
/// either side only makes them stricter. For other programs, as [`has_flag`] spells it; for
/// deny and ask rules an abbreviation of a long flag counts too (`--rec` for `--recursive`).
fn flag_given(c: &CommandView, flag: &str, view: View) -> bool {
    let lenient = view == View::Canonical;
    let r = c.reading();
    if r.program.is_some() {
        return r.has_flag(flag, lenient) || (lenient && c.cmd.gives_flag(flag, true));
    }
    c.cmd.gives_flag(flag, lenient)
}

/// The operands of a command: arguments that are not options; `-` (standard input) is one, and
/// so is everything after `--`.
fn operands(cmd: &SimpleCommand) -> impl Iterator<Item = &str> {
    let mut after_dashes = false;
    cmd.argv.iter().skip(1).filter_map(move |w| {
        let a = w.value.as_str();
        if after_dashes {
            return Some(a);
        }
        if a == "--" {
            after_dashes = true;
            return None;
        }
        (a == "-" || !a.starts_with('-')).then_some(a)
    })
}

/// The first operand, skipping options and the value of a separate `-C`/`-c` (`git -C dir
/// -c k=v reset`).
fn subcommand(cmd: &SimpleCommand) -> Option<&str> {
    let mut words = cmd.argv.iter().skip(1).map(|w| w.value.as_str());
    while let Some(a) = words.next() {
        match a {
            "-C" | "-c" => {
                words.next();
            }
            "--" => return words.next(),
            a if a.starts_with('-') && a != "-" => {}
            a => return Some(a),
        }
    }
    None
}

/// The values at a dotted path into the arguments; arrays give each element. Numbers and
/// booleans are compared as their JSON text.
fn json_values<'a>(
    args: &'a Map<String, Value>,
    path: &[String],
) -> Vec<std::borrow::Cow<'a, str>> {
    let mut current: Vec<&Value> = match path.first().and_then(|k| args.get(k)) {
        Some(v) => vec![v],
        None => return Vec::new(),
    };
    for key in &path[1..] {
        current = current
            .into_iter()
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().filter_map(|i| i.get(key)).collect::<Vec<_>>(),
                other => other.get(key).into_iter().collect(),
            })
            .collect();
    }
    let mut out = Vec::new();
    for v in current {
        match v {
            Value::String(s) => out.push(std::borrow::Cow::Borrowed(s.as_str())),
            Value::Array(items) => {
                for i in items {
                    match i {
                        Value::String(s) => out.push(std::borrow::Cow::Borrowed(s.as_str())),
                        other => out.push(std::borrow::Cow::Owned(other.to_string())),
                    }
                }
            }
            other => out.push(std::borrow::Cow::Owned(other.to_string())),
        }
    }
    out
}

fn string_args(args: &Map<String, Value>) -> impl Iterator<Item = &str> {
    args.values().filter_map(Value::as_str)
}

/// Allow is low risk, ask medium (the seed's orange), deny high, unless a rule says otherwise.
pub fn default_risk(action: Action) -> Risk {
    match action {
        Action::Allow | Action::Sandbox => Risk::Low,
        Action::Ask => Risk::Medium,
        Action::Deny => Risk::High,
    }
}

#[cfg(test)]
#[path = "rule_tests.rs"]
mod tests;
