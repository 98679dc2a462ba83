//! Rules compiled for matching, and the subjects they are matched against.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regex::Regex;
use serde_json::{Map, Value};

use super::paths::{PathContext, PathGlob};
use super::pattern::Pattern;
use crate::diag::{Diagnostic, Source};
use crate::policy::ast::{self, Action, MatcherKind, Risk, Span};
use crate::shell::{SimpleCommand, View};

/// Where a rule was written: for decisions (`team.policy:12`), `explain` and lints.
#[derive(Debug, Clone)]
pub struct RuleOrigin {
    pub source: Arc<Source>,
    pub span: Span,
    /// `file:line`.
    pub label: String,
}

impl RuleOrigin {
    pub fn new(source: &Arc<Source>, span: Span) -> Self {
        let (line, _) = source.line_col(span.start);
        RuleOrigin {
            source: source.clone(),
            span,
            label: format!("{}:{}", source.name, line),
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
    pub origin: RuleOrigin,
    pub tool: ToolPattern,
    pub matchers: Vec<CMatcher>,
    pub unless: Vec<Vec<CMatcher>>,
    /// Where `tool(matchers)` is written, for the reason of a rule without one.
    head: Span,
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
    Contains(String),
}

impl TextTest {
    fn is_match(&self, s: &str) -> bool {
        match self {
            TextTest::Glob(p) => p.is_match(s),
            TextTest::Contains(c) => s.contains(c.as_str()),
        }
    }
}

#[derive(Debug)]
pub enum Test {
    Shorthand(Vec<Either>),
    Glob(Vec<Either>),
    Prefix(Vec<(Vec<String>, PathBuf)>),
    Contains(Vec<String>),
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
    Host(Vec<Pattern>),
}

/// What a rule is matched against: one call, or one simple command of a bash call.
pub struct Subject<'a> {
    pub tool: &'a str,
    pub args: &'a Map<String, Value>,
    pub target: Target<'a>,
}

pub enum Target<'a> {
    Command(CommandView<'a>),
    File(PathBuf),
    /// A tool without a known primary argument: its top-level string arguments.
    Other,
}

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
    /// Resolved targets of output redirections, except harmless devices (`/dev/null`, …).
    pub redirects: Vec<PathBuf>,
    /// Where each of `raw_paths` leads ([`PathContext::real`]), looked up once when needed.
    pub reals: Vec<OnceCell<Option<PathBuf>>>,
}

impl<'a> CommandView<'a> {
    pub fn new(cmd: &'a SimpleCommand, ctx: &PathContext) -> Self {
        let mut paths = Vec::new();
        let mut raw_paths = Vec::new();
        let mut push = |raw: String, resolved: PathBuf| {
            raw_paths.push(raw);
            paths.push(resolved);
        };
        // What `echo` and `printf` print is data, not a path they open.
        let data_only = matches!(cmd.program(), "echo" | "printf");
        let args = if data_only {
            &cmd.argv[..0]
        } else {
            cmd.argv.get(1..).unwrap_or_default()
        };
        for w in args {
            // A word whose value is not known (`/home/$USER/.ssh`) is read with its unknown
            // parts as wildcards, so it is still seen when it may name a protected path.
            let path = match &w.path {
                Some(p) => Cow::Borrowed(p.as_str()),
                None if w.dynamic => Cow::Owned(wildcard_template(&w.value)),
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
            if !candidate.is_empty() && !is_flag {
                let resolved = ctx.resolve(candidate);
                push(candidate.to_string(), resolved);
            }
        }
        let mut redirects = Vec::new();
        for r in &cmd.redirects {
            let Some(p) = &r.target.path else { continue };
            // Heredocs and here-strings carry text, `>&2` duplicates a descriptor.
            let fd_dup = r.op.ends_with('&') && (p == "-" || p.chars().all(|c| c.is_ascii_digit()));
            if r.op.starts_with("<<") || fd_dup {
                continue;
            }
            let resolved = ctx.resolve(p);
            // `2>/dev/null` names no file the command touches: neither a redirect target nor a
            // path for `path` matchers (a re-spelling must not make a rule match).
            if harmless_device(&resolved) {
                continue;
            }
            if r.writes() {
                redirects.push(resolved.clone());
            }
            push(p.clone(), resolved);
        }
        CommandView {
            cmd,
            literal: cmd.text(View::Literal),
            canonical: cmd.text(View::Canonical),
            literal_words: cmd.words(View::Literal),
            canonical_words: cmd.words(View::Canonical),
            paths,
            reals: raw_paths.iter().map(|_| OnceCell::new()).collect(),
            raw_paths,
            redirects,
        }
    }

    fn text(&self, view: View) -> &str {
        match view {
            View::Literal => &self.literal,
            View::Canonical => &self.canonical,
        }
    }

    fn words(&self, view: View) -> &[&'a str] {
        match view {
            View::Literal => &self.literal_words,
            View::Canonical => &self.canonical_words,
        }
    }
}

/// `if` in `if=~/x`, `--file` in `--file=~/x`: the value after `=` is what the shell expands.
fn is_option_name(name: &str) -> bool {
    let bare = name.trim_start_matches('-');
    name.len() - bare.len() <= 2
        && bare.starts_with(|c: char| c.is_ascii_alphabetic())
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A word's text with `$HOME` as `~` and every other expansion (`$X`, `${X}`, `$(…)`, back-ticks)
/// as `*`.
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
            out.push('*');
            expansion_len(tail)
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

/// Devices that only discard or show output: writing to them changes nothing.
fn harmless_device(p: &Path) -> bool {
    ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]
        .iter()
        .any(|d| p == Path::new(d))
        || p.starts_with("/dev/fd")
}

/// Allow rules read commands literally, deny and ask rules canonically (see [`View`]).
pub fn view_for(action: Action) -> View {
    match action {
        Action::Allow => View::Literal,
        Action::Deny | Action::Ask => View::Canonical,
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
            Action::Deny => "denied",
            Action::Ask => "asked",
        };
        format!("{verb} by `{head}`")
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
        let view = view_for(self.action);
        let excepted = |g: &Vec<CMatcher>| {
            let in_view = |v: View| g.iter().all(|m| m.matches(s, v));
            match self.action {
                Action::Allow => in_view(View::Literal) || in_view(View::Canonical),
                Action::Deny | Action::Ask => in_view(View::Literal) && in_view(View::Canonical),
            }
        };
        self.tool.matches(s.tool)
            && self.matchers.iter().all(|m| m.matches(s, view))
            && !self.unless.iter().any(excepted)
    }
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
                Target::File(p) => self.test.matches_path(p),
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
            Test::Contains(vs) => vs.iter().any(|v| text.contains(v.as_str())),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(text)),
            Test::Exact(vs) => vs.iter().any(|(v, _)| v == text),
            Test::Path(vs) => c.paths.iter().any(|p| vs.iter().any(|g| g.is_match(p))),
            Test::Program(vs) => words
                .first()
                .is_some_and(|w| vs.iter().any(|p| p.is_match(w))),
            Test::Flag(vs) => vs.iter().any(|f| has_flag(c.cmd, f)),
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
            Test::Redirect(vs) => c.redirects.iter().any(|p| vs.iter().any(|g| g.is_match(p))),
            Test::Piped => c.cmd.piped,
            Test::SelfCall => c.cmd.self_call,
            Test::Host(_) => false,
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
            Test::Contains(vs) => vs.iter().any(|v| s.contains(v.as_str())),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(&s)),
            Test::Program(_)
            | Test::Flag(_)
            | Test::Argument(_)
            | Test::Operand(_)
            | Test::Subcommand(_)
            | Test::Redirect(_)
            | Test::Piped
            | Test::SelfCall
            | Test::Host(_) => false,
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
            Test::Contains(vs) => vs.iter().any(|v| s.contains(v.as_str())),
            Test::Regex(vs) => vs.iter().any(|r| r.is_match(s)),
            Test::Exact(vs) => vs.iter().any(|(v, _)| v == s),
            Test::Path(_) => false,
            Test::Host(vs) => url_host(s).is_some_and(|h| vs.iter().any(|p| p.is_match(&h))),
            Test::Program(_)
            | Test::Flag(_)
            | Test::Argument(_)
            | Test::Operand(_)
            | Test::Subcommand(_)
            | Test::Redirect(_)
            | Test::Piped
            | Test::SelfCall => false,
        }
    }
}

/// Whether a command reads or copies whole folder trees, so that naming a folder that holds a
/// protected path (`tar czf k.tgz ~`, `grep -r key ~`, `cp -r ~ /tmp`) reaches into it. Tools
/// that skip hidden folders by default (`rg` without `--hidden`) do not count. Recursive
/// deletes and permission changes (`rm -rf ~`, `chmod -R`) are the danger rules' to ask about.
pub fn walks_folders(cmd: &SimpleCommand) -> bool {
    let any = |flags: &[&str]| flags.iter().any(|f| has_flag(cmd, f));
    match cmd.program() {
        "tar" | "rsync" | "7z" | "7za" | "bsdtar" | "cpio" | "duplicity" | "restic" | "borg" => {
            true
        }
        "zip" => any(&["-r", "--recurse-paths"]),
        "cp" | "scp" => any(&["-r", "-R", "-a", "--recursive", "--archive"]),
        "grep" | "egrep" | "fgrep" => any(&["-r", "-R", "--recursive", "--dereference-recursive"]),
        "rg" => any(&["--hidden", "-u", "--unrestricted"]),
        "find" => any(&["-exec", "-execdir", "-ok", "-okdir"]),
        _ => false,
    }
}

/// `-r` matches `-r`, `-rf`, `-fr` (short flags combine); `--recursive` matches `--recursive`
/// and `--recursive=…`. Options end at `--`.
fn has_flag(cmd: &SimpleCommand, flag: &str) -> bool {
    let long = flag.starts_with("--");
    let short = flag
        .strip_prefix('-')
        .filter(|f| !long && f.chars().count() == 1);
    for w in cmd.argv.iter().skip(1) {
        let a = w.value.as_str();
        if a == "--" {
            break;
        }
        if long {
            if a == flag
                || a.strip_prefix(flag)
                    .is_some_and(|rest| rest.starts_with('='))
            {
                return true;
            }
        } else if let Some(c) = short {
            if a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c) {
                return true;
            }
        } else if a == flag {
            return true;
        }
    }
    false
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

/// The host of a URL, lowercased; `None` when the text is not a URL with a host.
pub fn url_host(s: &str) -> Option<String> {
    url::Url::parse(s)
        .ok()?
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

/// Compiles rules, reporting every invalid pattern at its string.
pub struct Compiler<'a> {
    pub ctx: &'a PathContext,
    pub diags: Vec<Diagnostic>,
    /// The action of the rule being compiled: allow rules anchor bare file names in the project.
    within_cwd: bool,
    /// Which forms of shorthand and glob values the rule being compiled needs.
    forms: Forms,
}

#[derive(Debug, Clone, Copy)]
struct Forms {
    text: bool,
    path: bool,
}

impl<'a> Compiler<'a> {
    pub fn new(ctx: &'a PathContext) -> Self {
        Compiler {
            ctx,
            diags: Vec::new(),
            within_cwd: false,
            forms: Forms {
                text: true,
                path: true,
            },
        }
    }

    /// Compiles one rule; `None` (with diagnostics) when any part of it is invalid.
    pub fn rule(&mut self, source: &Arc<Source>, r: &ast::Rule) -> Option<CompiledRule> {
        let tool = if r.tool.value.contains(['*', '?']) {
            match Pattern::command(&r.tool.value) {
                Ok(p) => ToolPattern::Glob(p),
                Err(e) => {
                    self.bad_pattern(source, r.tool.span, &r.tool.value, &e);
                    return None;
                }
            }
        } else {
            ToolPattern::Name(r.tool.value.clone())
        };
        self.within_cwd = r.action.value == Action::Allow;
        self.forms = match &tool {
            ToolPattern::Name(n) if crate::call::is_file_tool(n) => Forms {
                text: false,
                path: true,
            },
            ToolPattern::Name(_) => Forms {
                text: true,
                path: false,
            },
            ToolPattern::Glob(_) => Forms {
                text: true,
                path: true,
            },
        };
        let mut ok = true;
        let mut matchers = Vec::new();
        for m in r.matchers.iter().flatten() {
            match self.matcher(source, m) {
                Some(c) => matchers.push(c),
                None => ok = false,
            }
        }
        let mut unless = Vec::new();
        for group in &r.unless {
            let mut g = Vec::new();
            for m in group {
                match self.matcher(source, m) {
                    Some(c) => g.push(c),
                    None => ok = false,
                }
            }
            unless.push(g);
        }
        if !ok {
            return None;
        }
        let action = r.action.value;
        let risk = r
            .risk
            .as_ref()
            .map(|r| r.value)
            .unwrap_or(default_risk(action));
        let head_end = match r.matchers.as_ref().and_then(|m| m.last()) {
            Some(last) => {
                let after = &source.text[last.span.end.min(source.text.len())..];
                last.span.end + after.find(')').map_or(0, |i| i + 1)
            }
            None => r.tool.span.end,
        };
        Some(CompiledRule {
            action,
            risk,
            written_reason: r.reason.as_ref().map(|r| r.value.clone()),
            origin: RuleOrigin::new(source, r.span),
            tool,
            matchers,
            unless,
            head: Span::new(r.tool.span.start, head_end),
        })
    }

    fn bad_pattern(
        &mut self,
        source: &Arc<Source>,
        span: Span,
        text: &str,
        e: &dyn std::fmt::Display,
    ) {
        self.diags.push(
            Diagnostic::error(
                source,
                "invalid-glob",
                span,
                format!("invalid glob `{text}`"),
            )
            .label(e.to_string())
            .help("globs use `*`, `?`, `[abc]`, `{a,b}` and `**`; escape a literal with `\\`"),
        );
    }

    pub fn matcher(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<CMatcher> {
        let arg = m
            .arg
            .as_ref()
            .map(|a| a.value.split('.').map(str::to_string).collect());
        let mut ok = true;
        let test = match m.kind {
            MatcherKind::Shorthand | MatcherKind::Glob => {
                let mut vs = Vec::new();
                // Only the forms the rule's tool can meet are compiled.
                let need_text = self.forms.text || m.arg.is_some();
                let need_path = self.forms.path && m.arg.is_none();
                for v in &m.values {
                    let text = if !need_text {
                        None
                    } else if m.kind == MatcherKind::Shorthand && !v.value.contains('*') {
                        Some(TextTest::Contains(v.value.clone()))
                    } else {
                        match Pattern::command(&v.value) {
                            Ok(p) => Some(TextTest::Glob(p)),
                            Err(e) => {
                                self.bad_pattern(source, v.span, &v.value, &e);
                                ok = false;
                                continue;
                            }
                        }
                    };
                    let path = if !need_path {
                        None
                    } else {
                        match PathGlob::new(&v.value, self.ctx, self.within_cwd) {
                            Ok(p) => Some(p),
                            Err(e) => {
                                self.bad_pattern(source, v.span, &v.value, &e);
                                ok = false;
                                continue;
                            }
                        }
                    };
                    vs.push(Either { text, path });
                }
                if m.kind == MatcherKind::Shorthand {
                    Test::Shorthand(vs)
                } else {
                    Test::Glob(vs)
                }
            }
            MatcherKind::Prefix => Test::Prefix(
                m.values
                    .iter()
                    .map(|v| {
                        (
                            v.value.split_whitespace().map(str::to_string).collect(),
                            self.ctx.resolve(&v.value),
                        )
                    })
                    .collect(),
            ),
            MatcherKind::Contains => {
                Test::Contains(m.values.iter().map(|v| v.value.clone()).collect())
            }
            MatcherKind::Exact => Test::Exact(
                m.values
                    .iter()
                    .map(|v| (v.value.clone(), self.ctx.resolve(&v.value)))
                    .collect(),
            ),
            MatcherKind::Regex => {
                let mut vs = Vec::new();
                for v in &m.values {
                    match regex::RegexBuilder::new(&v.value)
                        .size_limit(1 << 20)
                        .build()
                    {
                        Ok(r) => vs.push(r),
                        Err(e) => {
                            ok = false;
                            self.diags.push(
                                Diagnostic::error(source, "invalid-regex", v.span, format!("invalid regex `{}`", v.value))
                                    .label(first_line(&e.to_string()))
                                    .help("regexes use Rust `regex` syntax; write them in 'single quotes' to keep backslashes"),
                            );
                        }
                    }
                }
                Test::Regex(vs)
            }
            MatcherKind::Path | MatcherKind::Redirect => {
                let mut vs = Vec::new();
                for v in &m.values {
                    match PathGlob::new(&v.value, self.ctx, self.within_cwd) {
                        Ok(p) => vs.push(p),
                        Err(e) => {
                            ok = false;
                            self.bad_pattern(source, v.span, &v.value, &e);
                        }
                    }
                }
                if m.kind == MatcherKind::Path {
                    Test::Path(vs)
                } else {
                    Test::Redirect(vs)
                }
            }
            MatcherKind::Flag => {
                for v in &m.values {
                    if !v.value.starts_with('-') || v.value == "-" || v.value == "--" {
                        ok = false;
                        self.diags.push(
                            Diagnostic::error(
                                source,
                                "bad-matcher",
                                v.span,
                                format!("`{}` is not a flag", v.value),
                            )
                            .help("write a flag with its dashes: `-r` or `--recursive`"),
                        );
                    }
                }
                Test::Flag(m.values.iter().map(|v| v.value.clone()).collect())
            }
            MatcherKind::Program
            | MatcherKind::Argument
            | MatcherKind::Operand
            | MatcherKind::Subcommand
            | MatcherKind::Host => {
                let mut vs = Vec::new();
                for v in &m.values {
                    let text = if m.kind == MatcherKind::Host {
                        v.value.to_ascii_lowercase()
                    } else {
                        v.value.clone()
                    };
                    match Pattern::command(&text) {
                        Ok(p) => vs.push(p),
                        Err(e) => {
                            ok = false;
                            self.bad_pattern(source, v.span, &v.value, &e);
                        }
                    }
                }
                match m.kind {
                    MatcherKind::Host => Test::Host(vs),
                    MatcherKind::Program => Test::Program(vs),
                    MatcherKind::Operand => Test::Operand(vs),
                    MatcherKind::Subcommand => Test::Subcommand(vs),
                    _ => Test::Argument(vs),
                }
            }
            MatcherKind::Piped => Test::Piped,
            MatcherKind::SelfCall => Test::SelfCall,
        };
        ok.then_some(CMatcher { arg, test })
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .to_string()
}

/// Allow is low risk, ask medium (the seed's orange), deny high, unless a rule says otherwise.
pub fn default_risk(action: Action) -> Risk {
    match action {
        Action::Allow => Risk::Low,
        Action::Ask => Risk::Medium,
        Action::Deny => Risk::High,
    }
}

#[cfg(test)]
mod tests {
    use super::wildcard_template;

    #[test]
    fn unknown_parts_of_a_word_become_wildcards_and_home_stays_home() {
        assert_eq!(
            wildcard_template("/home/$USER/.ssh/id_rsa"),
            "/home/*/.ssh/id_rsa"
        );
        assert_eq!(wildcard_template("${HOME}/.aws/x"), "~/.aws/x");
        assert_eq!(wildcard_template("if=$HOME/.ssh/k"), "if=~/.ssh/k");
        assert_eq!(wildcard_template("$HOMEDIR/x"), "*/x");
        assert_eq!(wildcard_template("$(pwd)/a/`id`/${X:-y}"), "*/a/*/*");
        assert_eq!(wildcard_template("$"), "*");
    }
}
