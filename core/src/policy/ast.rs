//! The syntax tree of a policy file. Every node keeps the byte span it came from, so that the
//! compiler, the linter and `explain` can point back at the text a person wrote.
//!
//! Spans never take part in equality: two nodes are equal when they say the same thing, which
//! is what the print-then-parse round trip checks.

use std::fmt;

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len()).into()
    }
}

/// A word of a policy: borrowed from the binary for the shipped policies' generated syntax
/// trees (see `shipped/rules.rs`), owned for a policy parsed at run time.
pub type Text = std::borrow::Cow<'static, str>;

/// A value with the span it was written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// What a rule or the default does with a call.
///
/// Ordered by strictness: allow < sandbox < ask < deny. Running a command contained is never
/// less safe than running it free, and never as safe as asking a person first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Allow,
    /// Run the command without asking, contained by the sandbox (`bash` only; see
    /// `docs/sandbox.md`): no network, writes to the project and the temporary folder only.
    Sandbox,
    Ask,
    Deny,
}

impl Action {
    pub const ALL: [Action; 4] = [Action::Allow, Action::Deny, Action::Ask, Action::Sandbox];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Sandbox => "sandbox",
            Action::Deny => "deny",
            Action::Ask => "ask",
        }
    }

    pub fn parse(s: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much harm a call can do; shown to the person who decides and used by the modes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub const ALL: [Risk; 3] = [Risk::High, Risk::Medium, Risk::Low];

    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }

    pub fn parse(s: &str) -> Option<Risk> {
        Risk::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parsed policy file (its includes are not expanded here).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyFile {
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Rule(Rule),
    Default(DefaultStmt),
    /// `headless deny risk high;`
    Headless(DefaultStmt),
    Expect(Expect),
    Include(Include),
    /// `replace "default.policy";`: the shipped default policy is not added under this one.
    Replace(Include),
    Protect(Protect),
}

impl Statement {
    pub fn span(&self) -> Span {
        match self {
            Statement::Rule(r) => r.span,
            Statement::Default(d) | Statement::Headless(d) => d.span,
            Statement::Expect(e) => e.span,
            Statement::Include(i) | Statement::Replace(i) => i.span,
            Statement::Protect(p) => p.span,
        }
    }
}

/// `allow bash("git *") unless contains "--force" risk low reason "…";`, or
/// `sandbox bash(prefix "cargo test") profile "cargo";`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub action: Spanned<Action>,
    pub tool: Spanned<Text>,
    /// `None` for a bare tool (`allow read_file;`): every call of the tool.
    /// `Some(vec![])` for `tool()`, which means the same.
    pub matchers: Option<Vec<Matcher>>,
    /// Each entry is a group of matchers that must all match to except a call.
    pub unless: Vec<Vec<Matcher>>,
    pub risk: Option<Spanned<Risk>>,
    pub reason: Option<Spanned<Text>>,
    /// `profile "cargo"`: the sandbox profile a `sandbox` rule runs its commands under (the
    /// caches it may write besides the project); `None` is the profile `default`.
    pub profile: Option<Spanned<Text>>,
    pub span: Span,
}

/// What a matcher compares, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatcherKind {
    /// The settings.json shorthand: for commands a glob when it holds `*`, else a substring;
    /// for file tools a glob over the path.
    Shorthand,
    /// Token-aware command prefix: `git log` matches `git log -p`, not `git logx`.
    Prefix,
    /// Glob over the whole command (where `*` also matches `/`) or over a path.
    Glob,
    /// Substring.
    Contains,
    /// Regular expression, unanchored.
    Regex,
    /// The whole value, exactly.
    Exact,
    /// Path glob over a file tool's path and every path a command reads or writes.
    Path,
    /// The program a command runs (its first word, directory stripped).
    Program,
    /// A command-line flag: `-r` (also inside `-rf`), `--recursive` (also `--recursive=x`).
    Flag,
    /// Any argument after the program.
    Argument,
    /// Any operand: an argument that is not an option (`-` and everything after `--` are).
    Operand,
    /// The first operand, skipping options (and the values of `-C` and `-c`, as in `git -C dir`).
    Subcommand,
    /// The target of an output redirection (`> /dev/sda`).
    Redirect,
    /// The command reads its input from a pipe (it is not the first stage of a pipeline).
    Piped,
    /// The command calls the function it is defined in (the shape of a fork bomb).
    SelfCall,
    /// The command only reads, by the program knowledge (`policies/programs/*.toml`): a
    /// read-only program named literally, every option known to only read, every path static.
    ReadOnly,
    /// The host of a URL; for a command, every host it names or sends to.
    Host,
    /// The analysis cannot say what the command does whole: a program, subcommand or option no
    /// table knows, a value only known when it runs (see [`crate::engine::view::CommandView::unknown`]).
    Unknown,
    /// The call reads a secret file: one the catalogue of secrets (`policies/secrets.toml`)
    /// knows by its name (`.env`, `*.key`, `*.tfstate`) or by its first line (a private key).
    Secret,
    /// The call reads a path outside the project (the working folder) that the catalogue does
    /// not know to hold nothing secret (system folders and package caches do not count).
    Outside,
    /// Every path the command deletes is disposable: a build output or cache inside the
    /// project (`target/`, `node_modules/`), or something inside a temporary folder.
    Disposable,
    /// What a command does, by the effects model (`network-upload`, `persist`, …; see
    /// [`crate::knowledge::effects::Kind`]).
    Effect,
}

impl MatcherKind {
    /// Keyword, whether it takes a value, and whether it may follow `arg NAME`.
    pub const TABLE: [(MatcherKind, &'static str, bool, bool); 22] = [
        (MatcherKind::Shorthand, "", true, true),
        (MatcherKind::Prefix, "prefix", true, true),
        (MatcherKind::Glob, "glob", true, true),
        (MatcherKind::Contains, "contains", true, true),
        (MatcherKind::Regex, "regex", true, true),
        (MatcherKind::Exact, "exact", true, true),
        (MatcherKind::Path, "path", true, true),
        (MatcherKind::Program, "program", true, false),
        (MatcherKind::Flag, "flag", true, false),
        (MatcherKind::Argument, "argument", true, false),
        (MatcherKind::Operand, "operand", true, false),
        (MatcherKind::Subcommand, "subcommand", true, false),
        (MatcherKind::Redirect, "redirect", true, false),
        (MatcherKind::Piped, "piped", false, false),
        (MatcherKind::SelfCall, "self_call", false, false),
        (MatcherKind::ReadOnly, "read_only", false, false),
        (MatcherKind::Unknown, "unknown", false, false),
        (MatcherKind::Secret, "secret", false, false),
        (MatcherKind::Outside, "outside", false, false),
        (MatcherKind::Disposable, "disposable", false, false),
        (MatcherKind::Host, "host", true, true),
        (MatcherKind::Effect, "effect", true, false),
    ];

    pub fn keyword(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(k, ..)| *k == self)
            .map(|(_, kw, ..)| *kw)
            .unwrap_or("")
    }

    pub fn takes_value(self) -> bool {
        Self::TABLE.iter().any(|(k, _, v, _)| *k == self && *v)
    }

    pub fn from_keyword(s: &str) -> Option<MatcherKind> {
        Self::TABLE
            .iter()
            .find(|(_, kw, ..)| !kw.is_empty() && *kw == s)
            .map(|(k, ..)| *k)
    }

    pub fn keywords() -> impl Iterator<Item = &'static str> {
        Self::TABLE
            .iter()
            .map(|(_, kw, ..)| *kw)
            .filter(|k| !k.is_empty())
            .chain(std::iter::once("arg"))
    }
}

/// One matcher: `prefix "git log"`, `arg url host "github.com"`, `flag ["-r", "-R"]`.
/// A list of values matches when any value does.
#[derive(Debug, Clone, PartialEq)]
pub struct Matcher {
    pub kind: MatcherKind,
    /// `arg NAME …`: the JSON argument compared, instead of the tool's primary argument.
    /// Dots reach into nested objects (`arg options.url …`).
    pub arg: Option<Spanned<Text>>,
    pub values: Vec<Spanned<Text>>,
    /// Whether the values were written as a `[…]` list (kept so printing round-trips).
    pub list: bool,
    pub span: Span,
}

/// `default ask risk low;`
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultStmt {
    pub action: Spanned<Action>,
    pub risk: Option<Spanned<Risk>>,
    pub reason: Option<Spanned<Text>>,
    pub span: Span,
}

/// `expect deny risk high bash("rm -rf /");`
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    pub action: Spanned<Action>,
    pub risk: Option<Spanned<Risk>>,
    pub call: Spanned<ExpectCall>,
    pub span: Span,
}

/// The call of an `expect`: a tool with its primary argument, or with JSON arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectCall {
    pub tool: String,
    pub arg: ExpectArg,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExpectArg {
    None,
    Primary(String),
    /// Arguments as a JSON object (kept as a value so printing normalises it).
    Json(serde_json::Map<String, serde_json::Value>),
}

/// `include "team.policy";` — the file's statements take this statement's place.
#[derive(Debug, Clone, PartialEq)]
pub struct Include {
    pub path: Spanned<Text>,
    pub span: Span,
}

/// `protect "~/.docker";` — a hard-protected path: no rule, mode or approval can lift it.
#[derive(Debug, Clone, PartialEq)]
pub struct Protect {
    pub path: Spanned<Text>,
    pub reason: Option<Spanned<Text>>,
    pub span: Span,
}
