//! The one decision structure. Policy files, settings.json and the built-in protections compile
//! into an [`Engine`]; every caller (the CLI, hooks, the TUI) asks it.
//!
//! Precedence, first layer that decides wins:
//! 1. hard protections (`protect` statements): deny, nothing lifts them;
//! 2. user policy files and settings.json: each file is a chain where the first matching rule
//!    wins; when several files match, the strictest answer wins (deny > ask > allow);
//! 3. the built-in danger rules (`policies/builtin.policy`);
//! 4. the default (`default …;`, or ask with low risk).
//!
//! A bash call is split into the simple commands it runs; each is decided on its own and the
//! strictest decision stands. A command that cannot be analysed is asked about with high risk.

pub mod index;
pub mod mode;
pub mod paths;
pub mod pattern;
pub mod rule;

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::call::{is_file_tool, Action, Decision, Risk, ToolCall, PATH_ARGUMENTS, WRITE_TOOLS};
use crate::diag::{Diagnostic, Source};
use crate::policy::ast::{DefaultStmt, Expect, Statement};
use crate::policy::{self, read_bounded, Origin};
use crate::settings;
use crate::shell::{self, SimpleCommand, Word};
use index::{ChainIndex, RuleId};
pub use mode::Mode;
pub use paths::PathContext;
use paths::{has_meta, wildcard_may_reach};
use rule::{CommandView, CompiledRule, Compiler, Subject, Target};

/// An ordered list of rules from one file (with its includes), indexed.
#[derive(Debug)]
pub struct Chain {
    /// The file's name as given.
    pub name: String,
    pub rules: Vec<CompiledRule>,
    index: ChainIndex,
}

impl Chain {
    pub fn new(name: impl Into<String>, rules: Vec<CompiledRule>) -> Chain {
        let index = ChainIndex::build(&rules);
        Chain {
            name: name.into(),
            rules,
            index,
        }
    }

    /// The first rule, in file order, that matches.
    pub fn first_match(&self, s: &Subject, scratch: &mut Vec<RuleId>) -> Option<&CompiledRule> {
        self.index.candidates(s.tool, &s.target, scratch);
        scratch
            .iter()
            .map(|&id| &self.rules[id as usize])
            .find(|r| r.matches(s))
    }

    /// Every rule that matches, in file order (for `explain`).
    pub fn all_matches(&self, s: &Subject) -> Vec<&CompiledRule> {
        let mut scratch = Vec::new();
        self.index.candidates(s.tool, &s.target, &mut scratch);
        scratch
            .iter()
            .map(|&id| &self.rules[id as usize])
            .filter(|r| r.matches(s))
            .collect()
    }

    /// Reference scan over every rule, ignoring the index: for tests of the index.
    pub fn first_match_linear(&self, s: &Subject) -> Option<&CompiledRule> {
        self.rules.iter().find(|r| r.matches(s))
    }
}

/// A hard-protected path.
#[derive(Debug, Clone)]
pub struct Protection {
    /// As written (`~/.ssh`).
    pub written: String,
    pub resolved: PathBuf,
    /// With symlinks followed, when that differs.
    pub canonical: Option<PathBuf>,
    pub reason: String,
}

/// Which layer produced a match, for `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Protected,
    User,
    Builtin,
    Analysis,
    Session,
    /// A write to the policy's own files.
    Guard,
    Default,
}

/// What an evaluation consults besides the compiled layers.
#[derive(Debug, Clone, Copy, Default)]
struct Opts<'a> {
    /// Session memory: allow rules that settle parts that would be asked about.
    session: Option<&'a Chain>,
    /// Only the hard protections, the built-in rules and the analysis (the danger hook).
    builtin_only: bool,
    /// Where a file tool's path leads, when already followed.
    followed: Followed<'a>,
}

/// What one evaluation knows of where a file tool's path leads, so that it follows the path
/// once (each step is an `lstat`).
#[derive(Debug, Clone, Copy, Default)]
enum Followed<'a> {
    #[default]
    Unknown,
    /// [`PathContext::real`] of the path.
    Known(&'a Option<PathBuf>),
    /// The path is where another path leads: already followed.
    Itself,
    /// Looked up on first need, then kept (a command's paths, see [`CommandView::reals`]).
    Lazy(&'a OnceCell<Option<PathBuf>>),
}

impl Followed<'_> {
    /// Where `raw` leads; `None` when it cannot be followed or already was.
    fn real(self, raw: &str, ctx: &PathContext) -> Option<PathBuf> {
        match self {
            Followed::Unknown => ctx.real(raw),
            Followed::Known(r) => r.clone(),
            Followed::Itself => None,
            Followed::Lazy(cell) => cell.get_or_init(|| ctx.real(raw)).clone(),
        }
    }
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Protected => "hard protection",
            Layer::User => "policy",
            Layer::Builtin => "built-in",
            Layer::Analysis => "analysis",
            Layer::Session => "session",
            Layer::Guard => "policy files",
            Layer::Default => "default",
        }
    }
}

/// One rule that matched a subject, for `explain`.
#[derive(Debug, Clone)]
pub struct Hit {
    pub layer: Layer,
    pub decision: Decision,
    /// The rule as text (canonical form), or a description.
    pub text: String,
    /// Whether this hit is the one its layer decided by.
    pub deciding: bool,
}

/// How one subject (a simple command, a file, a call) was decided.
#[derive(Debug, Clone)]
pub struct Part {
    /// The command text or the path.
    pub subject: String,
    /// Where in the command line it came from.
    pub origin: Option<&'static str>,
    pub hits: Vec<Hit>,
    pub decision: Decision,
}

/// Everything `explain` shows.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub parts: Vec<Part>,
    /// Why the command could not be analysed, if it could not.
    pub failure: Option<String>,
    pub decision: Decision,
}

/// The compiled policy: ask it about tool calls.
#[derive(Debug)]
pub struct Engine {
    ctx: PathContext,
    protections: Vec<Protection>,
    user: Vec<Chain>,
    builtin: Option<Chain>,
    readonly: Chain,
    default: Decision,
    /// The policy's own files and folders (as resolved, and where their symlinks lead): a
    /// write to them is asked about at high risk (see [`POLICY_FILES_RULE`]).
    guarded: Vec<PathBuf>,
    /// How an ask resolves per risk when no person can answer (`headless` statements).
    headless: Headless,
    expects: Vec<(Arc<Source>, Expect)>,
    warnings: Vec<Diagnostic>,
}

/// How an ask resolves when no person can be asked: an action per risk (`headless`
/// statements).
pub type Headless = [(Risk, Action); 3];

/// The shipped headless setting: asks of high risk are denied, the others allowed.
pub const SHIPPED_HEADLESS: Headless = [
    (Risk::High, Action::Deny),
    (Risk::Medium, Action::Allow),
    (Risk::Low, Action::Allow),
];

/// The rule named by an ask about a write to the policy's own files.
pub const POLICY_FILES_RULE: &str = "guard:policy-files";

/// Problems that stop a policy from loading.
#[derive(Debug)]
pub struct LoadError {
    pub diagnostics: Vec<Diagnostic>,
    /// Problems without a place in a file (a file that cannot be read).
    pub messages: Vec<String>,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let errors = self.diagnostics.iter().filter(|d| d.is_error()).count() + self.messages.len();
        write!(f, "the policy did not load: {errors} error(s)")?;
        for m in &self.messages {
            write!(f, "\n{m}")?;
        }
        for d in self.diagnostics.iter().filter(|d| d.is_error()) {
            write!(f, "\n{}: {}", d.location(), d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Collects the sources of an engine.
#[derive(Debug, Clone)]
pub struct EngineBuilder {
    ctx: PathContext,
    policies: Vec<Origin>,
    settings: Vec<Settings>,
    builtin: bool,
    guarded: Vec<PathBuf>,
}

#[derive(Debug, Clone)]
enum Settings {
    File(PathBuf),
    Text(String, String),
}

impl Default for EngineBuilder {
    fn default() -> Self {
        EngineBuilder {
            ctx: PathContext::from_env(),
            policies: Vec::new(),
            settings: Vec::new(),
            builtin: true,
            guarded: Vec::new(),
        }
    }
}

impl EngineBuilder {
    /// Where relative paths start and what `~` is (default: the process's).
    pub fn context(mut self, ctx: PathContext) -> Self {
        self.ctx = ctx;
        self
    }

    pub fn policy_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.policies.push(Origin::File(path.into()));
        self
    }

    pub fn policy_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.policies.push(Origin::Text {
            name: name.into(),
            text: text.into(),
        });
        self
    }

    /// The shipped `default.policy` (read-only tools and commands allowed, the rest asked).
    pub fn default_policy(self) -> Self {
        self.embedded_policy("default.policy")
    }

    /// A policy compiled into the binary (see [`policy::EMBEDDED`]), as a user policy.
    pub fn embedded_policy(mut self, name: &'static str) -> Self {
        self.policies.push(Origin::Embedded(name));
        self
    }

    pub fn settings_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.settings.push(Settings::File(path.into()));
        self
    }

    pub fn settings_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.settings.push(Settings::Text(name.into(), text.into()));
        self
    }

    /// Whether the built-in danger rules apply (the hard protections always do).
    pub fn builtin(mut self, on: bool) -> Self {
        self.builtin = on;
        self
    }

    /// A file or folder that belongs to the policy (a folder policy files are read from, an
    /// agent's hook settings): a write to it is asked about at high risk, whatever the rules
    /// say. The policy and settings files the engine is built from are guarded already.
    pub fn guard(mut self, path: impl Into<PathBuf>) -> Self {
        self.guarded.push(path.into());
        self
    }

    pub fn build(self) -> Result<Engine, LoadError> {
        let mut diags = Vec::new();
        let mut messages = Vec::new();
        let mut compiler = Compiler::new(&self.ctx);
        let mut protections = Vec::new();
        let mut expects = Vec::new();
        let mut default: Option<(Arc<Source>, DefaultStmt)> = None;
        let mut headless: Vec<(Risk, Action)> = Vec::new();
        let mut user = Vec::new();
        let mut guarded = self.guarded.clone();

        // The built-in policy: its protections always hold; its rules unless switched off.
        let builtin_loaded = load_embedded("builtin.policy", &mut messages);
        let mut builtin_rules = Vec::new();
        for (src, stmt) in &builtin_loaded.statements {
            match stmt {
                Statement::Protect(p) => protections.push(protection(
                    &self.ctx,
                    &p.path.value,
                    p.reason.as_ref().map(|r| r.value.clone()),
                )),
                Statement::Rule(r) if self.builtin => builtin_rules.extend(compiler.rule(src, r)),
                _ => {}
            }
        }
        diags.extend(builtin_loaded.diags);

        for origin in &self.policies {
            let loaded = match policy::load(origin) {
                Ok(l) => l,
                Err(e) => {
                    messages.push(e);
                    continue;
                }
            };
            diags.extend(loaded.diags);
            guarded.extend(loaded.files);
            let mut rules = Vec::new();
            for (src, stmt) in loaded.statements {
                match stmt {
                    Statement::Rule(r) => rules.extend(compiler.rule(&src, &r)),
                    Statement::Protect(p) => protections.push(protection(
                        &self.ctx,
                        &p.path.value,
                        p.reason.map(|r| r.value),
                    )),
                    Statement::Expect(e) => expects.push((src, e)),
                    Statement::Default(d) => match &default {
                        None => default = Some((src, d)),
                        Some((first_src, first)) => diags.push(
                            Diagnostic::warning(
                                &src,
                                "duplicate-default",
                                d.span,
                                "a default is already set; this one is ignored",
                            )
                            .also(
                                first.span,
                                format!("the default in force ({})", first_src.name),
                            )
                            .help("keep one `default` statement"),
                        ),
                    },
                    Statement::Headless(d) => {
                        if let Some(risk) = d.risk {
                            // Nobody can be asked: `ask` there means deny. Files that disagree
                            // get the stricter answer.
                            let action = match d.action.value {
                                Action::Ask => Action::Deny,
                                a => a,
                            };
                            match headless.iter_mut().find(|(r, _)| *r == risk.value) {
                                Some(slot) => slot.1 = slot.1.max(action),
                                None => headless.push((risk.value, action)),
                            }
                        }
                    }
                    Statement::Include(_) => {}
                }
            }
            let name = match origin {
                Origin::File(p) => p.to_string_lossy().into_owned(),
                Origin::Embedded(n) => n.to_string(),
                Origin::Text { name, .. } => name.clone(),
            };
            user.push(Chain::new(name, rules));
        }

        for s in &self.settings {
            if let Settings::File(p) = s {
                guarded.push(p.clone());
            }
            let source = match s {
                Settings::File(p) => match read_bounded(p) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(text) => Source::new(p.to_string_lossy(), text),
                        Err(_) => {
                            messages.push(format!("`{}` is not UTF-8 text", p.display()));
                            continue;
                        }
                    },
                    Err(e) => {
                        messages.push(format!("cannot read `{}`: {e}", p.display()));
                        continue;
                    }
                },
                Settings::Text(name, text) => Source::new(name.as_str(), text.as_str()),
            };
            let (rules, d) = settings::parse_settings(&source);
            diags.extend(d);
            let compiled = rules
                .iter()
                .filter_map(|r| compiler.rule(&source, r))
                .collect();
            user.push(Chain::new(source.name.to_string(), compiled));
        }

        let readonly_loaded = load_embedded("readonly.policy", &mut messages);
        let readonly_rules = readonly_loaded
            .statements
            .iter()
            .filter_map(|(src, s)| match s {
                Statement::Rule(r) => compiler.rule(src, r),
                _ => None,
            })
            .collect();
        diags.extend(readonly_loaded.diags);
        diags.append(&mut compiler.diags);

        if !messages.is_empty() || diags.iter().any(Diagnostic::is_error) {
            return Err(LoadError {
                diagnostics: diags,
                messages,
            });
        }
        let default = match default {
            Some((src, d)) => {
                let risk = d
                    .risk
                    .map(|r| r.value)
                    .unwrap_or(rule::default_risk(d.action.value));
                let (line, _) = src.line_col(d.span.start);
                let reason = d.reason.map(|r| r.value).unwrap_or_else(|| {
                    format!("no rule matched (the default, {}:{line})", src.name)
                });
                Decision::new(d.action.value, risk, reason, "default")
            }
            None => Decision::new(Action::Ask, Risk::Low, "no rule matched", "default"),
        };
        let guarded = guarded_paths(&self.ctx, guarded);
        Ok(Engine {
            ctx: self.ctx,
            protections,
            user,
            builtin: self
                .builtin
                .then(|| Chain::new("builtin.policy", builtin_rules)),
            readonly: Chain::new("readonly.policy", readonly_rules),
            default,
            headless: SHIPPED_HEADLESS.map(|(risk, shipped)| {
                let set = headless.iter().find(|(r, _)| *r == risk);
                (risk, set.map_or(shipped, |(_, a)| *a))
            }),
            guarded,
            expects,
            warnings: diags,
        })
    }
}

/// Guarded paths as the engine compares them: resolved against the working folder, and
/// where their symlinks lead when that differs.
fn guarded_paths(ctx: &PathContext, paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        let resolved = ctx.resolve(&p.to_string_lossy());
        let canonical = ctx.canonical(&resolved);
        for q in std::iter::once(resolved).chain(canonical) {
            if !out.contains(&q) {
                out.push(q);
            }
        }
    }
    out
}

fn load_embedded(name: &'static str, messages: &mut Vec<String>) -> policy::Loaded {
    match policy::load(&Origin::Embedded(name)) {
        Ok(l) => l,
        Err(e) => {
            messages.push(e);
            policy::Loaded::default()
        }
    }
}

fn protection(ctx: &PathContext, written: &str, reason: Option<String>) -> Protection {
    let resolved = ctx.resolve(written);
    let canonical = ctx.canonical(&resolved).filter(|c| *c != resolved);
    let reason = reason.unwrap_or_else(|| format!("`{written}` is a protected path"));
    Protection {
        written: written.to_string(),
        resolved,
        canonical,
        reason,
    }
}

impl Engine {
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// Warnings found while loading (a second `default`, a misspelled settings list, …).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The `expect` statements of the user policies, with their sources.
    pub fn expects(&self) -> &[(Arc<Source>, Expect)] {
        &self.expects
    }

    pub fn context(&self) -> &PathContext {
        &self.ctx
    }

    pub fn protections(&self) -> &[Protection] {
        &self.protections
    }

    pub fn user_chains(&self) -> &[Chain] {
        &self.user
    }

    /// The built-in danger rules, unless switched off.
    pub fn builtin_chain(&self) -> Option<&Chain> {
        self.builtin.as_ref()
    }

    /// The rules of `readonly.policy`, which read-only mode consults.
    pub fn readonly_chain(&self) -> &Chain {
        &self.readonly
    }

    /// What a call that no rule matches gets.
    pub fn default_decision(&self) -> &Decision {
        &self.default
    }

    /// Decides a call under the default mode.
    pub fn decide(&self, call: &ToolCall) -> Decision {
        self.evaluate(call, Opts::default(), None)
    }

    /// Decides a call under a permission mode (see [`Mode`]).
    pub fn decide_in_mode(&self, call: &ToolCall, mode: Mode) -> Decision {
        let d = self.decide(call);
        mode::apply(self, call, d, mode)
    }

    /// Decides a call under a mode, letting `session` (allow rules a person approved for the
    /// session, see [`Engine::compile_allow_rules`]) settle the parts that would be asked about.
    /// Denies and hard protections are never lifted by the session.
    pub fn decide_with_session(
        &self,
        call: &ToolCall,
        mode: Mode,
        session: Option<&Chain>,
    ) -> Decision {
        let o = Opts {
            session,
            ..Opts::default()
        };
        let d = self.evaluate(call, o, None);
        mode::apply(self, call, d, mode)
    }

    /// The built-in layer alone: hard protections, the built-in danger rules and what the
    /// analysis refuses; `allow` when none of them has anything to say.
    pub fn decide_builtin(&self, call: &ToolCall) -> Decision {
        let o = Opts {
            builtin_only: true,
            ..Opts::default()
        };
        self.evaluate(call, o, None)
    }

    /// How an ask of each risk resolves when no person can answer.
    pub fn headless(&self) -> Headless {
        self.headless
    }

    /// Compiles allow rules written in settings.json's format (`bash(git commit *)`) against
    /// this engine's folders: the session memory and "always allow" proposals. Rule `i` is
    /// labelled `NAME:i+1`.
    pub fn compile_allow_rules(&self, name: &str, rules: &[String]) -> Result<Chain, String> {
        // One rule per line (the first beside the header), so rule `i` is on line `i+1`.
        let items: Vec<String> = rules
            .iter()
            .map(|r| Value::String(r.clone()).to_string())
            .collect();
        let text = format!(
            "{{\"permissions\": {{\"allow\": [{}]}}}}\n",
            items.join(",\n")
        );
        let source = Source::new(name.to_string(), text);
        let (parsed, diags) = settings::parse_settings(&source);
        let mut compiler = Compiler::new(&self.ctx);
        let compiled: Vec<CompiledRule> = parsed
            .iter()
            .filter_map(|r| compiler.rule(&source, r))
            .collect();
        if let Some(d) = diags.iter().chain(&compiler.diags).find(|d| d.is_error()) {
            return Err(d.message.clone());
        }
        Ok(Chain::new(name.to_string(), compiled))
    }

    /// Decides a call and records why: the command's parts, every rule that matched each.
    pub fn explain(&self, call: &ToolCall) -> Explanation {
        let mut ex = Explanation {
            parts: Vec::new(),
            failure: None,
            decision: self.default.clone(),
        };
        ex.decision = self.evaluate(call, Opts::default(), Some(&mut ex));
        ex
    }

    fn evaluate(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        mut trace: Option<&mut Explanation>,
    ) -> Decision {
        let mut touched = None;
        let real = match call.primary_arg() {
            Some(raw) if is_file_tool(&call.name) && !raw.is_empty() => self.ctx.real(raw),
            _ => None,
        };
        let o = Opts {
            followed: Followed::Known(&real),
            ..o
        };
        let mut d = self.evaluate_call(call, o, trace.as_deref_mut(), &mut touched);
        if d.action != Action::Deny && is_file_tool(&call.name) {
            d = self.through_links(call, o, d, real.clone(), trace.as_deref_mut());
        }
        if let Some(path) = touched.filter(|_| d.action != Action::Deny) {
            // The agent changing its own policy (`allow bash(*)` in settings.json) would turn
            // every later ask into an allow: a person decides, whatever a rule, the session or
            // a mode short of bypass says.
            let also = match d.action {
                Action::Ask => format!("; also: {}", d.reason),
                _ => String::new(),
            };
            d = Decision::new(
                Action::Ask,
                Risk::High,
                format!(
                    "changes the permission policy's own files (`{}`){also}",
                    path.display()
                ),
                POLICY_FILES_RULE,
            );
            if let Some(t) = trace.as_deref_mut() {
                t.parts.push(Part {
                    subject: path.display().to_string(),
                    origin: None,
                    hits: vec![Hit {
                        layer: Layer::Guard,
                        decision: d.clone(),
                        text: "a write to the policy's own files".into(),
                        deciding: true,
                    }],
                    decision: d.clone(),
                });
            }
        }
        if let Some(t) = trace {
            t.decision = d.clone();
        }
        d
    }

    /// The call decided as written; `touched` is set to a guarded path it may write.
    fn evaluate_call(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        trace: Option<&mut Explanation>,
        touched: &mut Option<PathBuf>,
    ) -> Decision {
        let mut scratch = Vec::new();
        match call.name.as_str() {
            "bash" => {
                let Some(command) = call.arguments.get("command").and_then(Value::as_str) else {
                    return malformed("`bash` needs a string argument `command`");
                };
                self.evaluate_command(call, command, o, &mut scratch, trace, touched)
            }
            tool if is_file_tool(tool) => {
                let Some(raw) = call.primary_arg() else {
                    return malformed(&format!("`{tool}` needs a string argument `path`"));
                };
                if WRITE_TOOLS.contains(&tool) {
                    *touched =
                        self.guarded_path(&self.ctx.resolve(raw), raw, &self.ctx, o.followed);
                }
                let resolved = self.ctx.resolve(raw);
                let subject = Subject {
                    tool,
                    args: &call.arguments,
                    target: Target::File(resolved),
                };
                self.decide_subject(&subject, o, &mut scratch, trace, raw)
            }
            tool => {
                let subject = Subject {
                    tool,
                    args: &call.arguments,
                    target: Target::Other,
                };
                self.decide_subject(&subject, o, &mut scratch, trace, tool)
            }
        }
    }

    /// For a file tool whose path leads elsewhere through a symlink (`src/notes.md` →
    /// `~/.bashrc`), the stricter of `d` and the decision on where it leads: a rule for a
    /// folder must not reach out of it through a link.
    fn through_links(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        d: Decision,
        real: Option<PathBuf>,
        trace: Option<&mut Explanation>,
    ) -> Decision {
        let Some(raw) = call.primary_arg() else {
            return d;
        };
        let Some(real) = real.map(|r| self.ctx.logical(r)) else {
            return d;
        };
        if real == self.ctx.resolve(raw) {
            return d;
        }
        let key = ["path", "file_path"]
            .into_iter()
            .find(|k| call.arguments.get(*k).is_some_and(Value::is_string))
            .unwrap_or("path");
        let mut followed = call.clone();
        followed.arguments.insert(
            key.into(),
            Value::String(real.to_string_lossy().into_owned()),
        );
        let o = Opts {
            followed: Followed::Itself,
            ..o
        };
        let mut f = self.evaluate_call(&followed, o, trace, &mut None);
        if f.strictness() > d.strictness() {
            f.reason = format!("{} (`{raw}` leads to `{}`)", f.reason, real.display());
            f
        } else {
            d
        }
    }

    /// The guarded file or folder a path written in a call falls under (as written, as a
    /// wildcard that may expand into one, or where its symlinks lead), if any.
    fn guarded_path(
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
        if self
            .guarded
            .iter()
            .any(|g| lexical.starts_with(g) || (wild && wildcard_may_reach(lexical, g)))
        {
            return Some(lexical.to_path_buf());
        }
        if wild {
            return None;
        }
        let real = followed.real(raw, ctx)?;
        self.guarded
            .iter()
            .any(|g| real.starts_with(g))
            .then_some(real)
    }

    fn evaluate_command(
        &self,
        call: &ToolCall,
        command: &str,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        mut trace: Option<&mut Explanation>,
        touched: &mut Option<PathBuf>,
    ) -> Decision {
        let analysis = shell::analyse(command);
        let guarding = !self.guarded.is_empty();
        let parsed = analysis.failure.is_none();
        let mut parts: Vec<SimpleCommand> = analysis.commands;
        let mut floor = None;
        if let Some(why) = &analysis.failure {
            // Still judge the words we can see, so a deny rule or a protected path holds; when
            // there are too many to judge, nothing vouches for the line at all.
            floor = Some(match pseudo_commands(command) {
                Some(p) => {
                    parts = p;
                    Decision::new(Action::Ask, Risk::High, why.clone(), "analysis")
                }
                None => {
                    parts = Vec::new();
                    Decision::new(
                        Action::Deny,
                        Risk::High,
                        format!(
                            "{why}, and it has more than {MAX_PSEUDO_WORDS} different words: too \
                             many to check against the protections"
                        ),
                        "analysis",
                    )
                }
            });
            if let Some(t) = trace.as_deref_mut() {
                t.failure = Some(why.clone());
            }
        } else if parts.is_empty() {
            floor = Some(Decision::new(
                Action::Ask,
                Risk::Low,
                "the command is empty",
                "analysis",
            ));
        }
        let several = parts.len() > 1;
        let mut best: Option<Decision> = floor;
        // Folders a `cd` earlier in the line may have moved to. Subshells and conditions make
        // the real folder uncertain, so relative paths are checked against all of them.
        let mut folders: Vec<PathBuf> = Vec::new();
        for cmd in &parts {
            let view = CommandView::new(cmd, &self.ctx);
            let label = if view.canonical.is_empty() {
                describe_redirects(cmd)
            } else {
                view.canonical.clone()
            };
            let moved = self.protected_after_cd(&view, &folders);
            self.note_cd(&view, &mut folders);
            if guarding && touched.is_none() {
                *touched = view
                    .paths
                    .iter()
                    .zip(&view.raw_paths)
                    .zip(&view.reals)
                    .find_map(|((p, raw), r)| {
                        self.guarded_path(p, raw, &self.ctx, Followed::Lazy(r))
                    });
            }
            let subject = Subject {
                tool: "bash",
                args: &call.arguments,
                target: Target::Command(view),
            };
            let mut d = match moved {
                Some(p) => self.protected_decision(p, &label, trace.as_deref_mut()),
                None => self.decide_subject(&subject, o, scratch, trace.as_deref_mut(), &label),
            };
            if let Some(t) = trace.as_deref_mut() {
                if let Some(p) = t.parts.last_mut() {
                    p.origin = Some(cmd.origin.as_str());
                }
            }
            if several {
                d.reason = format!("{} (in `{}`)", d.reason, label);
            }
            best = Some(stricter(best, d));
        }
        // A line that names a guarded path may write it unless every part is read-only (checked
        // only then: few lines name one).
        if touched.is_some() && parsed && self.all_read_only(call, &parts, scratch) {
            *touched = None;
        }
        best.unwrap_or_else(|| self.default.clone())
    }

    /// A protection that a relative path of the command reaches from a folder an earlier `cd`
    /// may have moved to.
    fn protected_after_cd(&self, c: &CommandView, folders: &[PathBuf]) -> Option<&Protection> {
        folders.iter().find_map(|dir| {
            let ctx = self.ctx.with_cwd(dir.clone());
            c.raw_paths
                .iter()
                .filter(|raw| !raw.starts_with(['/', '~', '$']))
                .find_map(|raw| self.protected(&ctx.resolve(raw), raw, &ctx, Followed::Unknown))
        })
    }

    /// Records where `cd`/`pushd` may move the shell: its target resolved from every folder
    /// known so far; home when the target is unknown (`cd $X`) or absent.
    fn note_cd(&self, c: &CommandView, folders: &mut Vec<PathBuf>) {
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
        match target.and_then(|w| w.path.as_deref()) {
            Some(t) if t != "-" => {
                for base in std::iter::once(&self.ctx.cwd).chain(folders.iter()) {
                    let ctx = self.ctx.with_cwd(base.clone());
                    new.push(ctx.resolve(t));
                }
            }
            _ => new.extend(self.ctx.home.clone()),
        }
        for n in new {
            if !folders.contains(&n) && n != self.ctx.cwd {
                folders.push(n);
            }
        }
    }

    fn protected_decision(
        &self,
        p: &Protection,
        label: &str,
        trace: Option<&mut Explanation>,
    ) -> Decision {
        let d = Decision::new(
            Action::Deny,
            Risk::High,
            p.reason.clone(),
            format!("protected:{}", p.written),
        );
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
                hits: vec![hit],
                decision: d.clone(),
            });
        }
        d
    }

    /// Decides one subject through the layers.
    fn decide_subject(
        &self,
        s: &Subject,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        trace: Option<&mut Explanation>,
        label: &str,
    ) -> Decision {
        let mut hits = Vec::new();
        let tracing = trace.is_some();
        let mut d = self.layers(s, o, scratch, tracing.then_some(&mut hits));
        if d.action == Action::Ask {
            if let Some(r) = o.session.and_then(|c| c.first_match(s, scratch)) {
                if r.action == Action::Allow {
                    let by = rule_decision(r);
                    if tracing {
                        hits.push(Hit {
                            layer: Layer::Session,
                            decision: by.clone(),
                            text: r.text(),
                            deciding: true,
                        });
                    }
                    d = Decision::new(
                        Action::Allow,
                        d.risk,
                        format!("allowed for this session (asked because: {})", d.reason),
                        by.rule,
                    );
                }
            }
        }
        if let Some(t) = trace {
            t.parts.push(Part {
                subject: label.to_string(),
                origin: None,
                hits,
                decision: d.clone(),
            });
        }
        d
    }

    fn layers(
        &self,
        s: &Subject,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        mut hits: Option<&mut Vec<Hit>>,
    ) -> Decision {
        if let Some(p) = self.protection_hit(s, o.followed) {
            let d = Decision::new(
                Action::Deny,
                Risk::High,
                p.reason.clone(),
                format!("protected:{}", p.written),
            );
            if let Some(h) = hits {
                h.push(Hit {
                    layer: Layer::Protected,
                    decision: d.clone(),
                    text: format!("protect \"{}\"", p.written),
                    deciding: true,
                });
            }
            return d;
        }
        let mut user: Option<Decision> = None;
        let user_chains: &[Chain] = if o.builtin_only { &[] } else { &self.user };
        for chain in user_chains {
            if let Some(h) = hits.as_deref_mut() {
                let first = chain
                    .first_match(s, scratch)
                    .map(|r| r as *const CompiledRule);
                for r in chain.all_matches(s) {
                    h.push(Hit {
                        layer: Layer::User,
                        decision: rule_decision(r),
                        text: r.text(),
                        deciding: Some(r as *const CompiledRule) == first,
                    });
                }
            }
            if let Some(r) = chain.first_match(s, scratch) {
                user = Some(stricter(user, rule_decision(r)));
            }
        }
        if let Some(d) = user {
            return d;
        }
        let mut found: Option<Decision> = None;
        if let Some(chain) = &self.builtin {
            if let Some(h) = hits.as_deref_mut() {
                let first = chain
                    .first_match(s, scratch)
                    .map(|r| r as *const CompiledRule);
                for r in chain.all_matches(s) {
                    h.push(Hit {
                        layer: Layer::Builtin,
                        decision: rule_decision(r),
                        text: r.text(),
                        deciding: Some(r as *const CompiledRule) == first,
                    });
                }
            }
            found = chain.first_match(s, scratch).map(rule_decision);
        }
        if let Target::Command(c) = &s.target {
            if c.cmd.computed_program() {
                let d = Decision::new(
                    Action::Ask,
                    Risk::High,
                    "the program's name is computed when the command runs, so it cannot be judged",
                    "analysis",
                );
                if let Some(h) = hits.as_deref_mut() {
                    h.push(Hit {
                        layer: Layer::Analysis,
                        decision: d.clone(),
                        text: "computed program name".into(),
                        deciding: true,
                    });
                }
                found = Some(stricter(found, d));
            }
        }
        if let Some(d) = found {
            return d;
        }
        if o.builtin_only {
            return Decision::new(
                Action::Allow,
                Risk::Low,
                "no built-in rule matched",
                "builtin",
            );
        }
        if let Some(h) = hits {
            h.push(Hit {
                layer: Layer::Default,
                decision: self.default.clone(),
                text: "default".into(),
                deciding: true,
            });
        }
        self.default.clone()
    }

    /// The protection a subject touches, if any.
    fn protection_hit(&self, s: &Subject, followed: Followed) -> Option<&Protection> {
        if self.protections.is_empty() {
            return None;
        }
        match &s.target {
            Target::File(p) => {
                let raw = crate::call::file_path_arg(s.args).unwrap_or_default();
                self.protected(p, raw, &self.ctx, followed)
                    .or_else(|| self.extra_path_args(s, Some(raw)))
            }
            Target::Command(c) => c
                .paths
                .iter()
                .zip(&c.raw_paths)
                .zip(&c.reals)
                .find_map(|((p, raw), r)| self.protected(p, raw, &self.ctx, Followed::Lazy(r)))
                .or_else(|| self.walked_into(c)),
            Target::Other => self.extra_path_args(s, None),
        }
    }

    /// A protection inside a folder tree the command walks (`tar czf k.tgz ~`).
    fn walked_into(&self, c: &CommandView) -> Option<&Protection> {
        if !rule::walks_folders(c.cmd) {
            return None;
        }
        c.paths.iter().find_map(|p| {
            self.protections.iter().find(|prot| {
                prot.resolved.starts_with(p)
                    || prot.canonical.as_deref().is_some_and(|c| c.starts_with(p))
            })
        })
    }

    /// Path-like arguments of any tool (`file_path`, `directory`, …), but `checked`, the path
    /// already checked.
    fn extra_path_args(&self, s: &Subject, checked: Option<&str>) -> Option<&Protection> {
        let check = |raw: &str| {
            if checked == Some(raw) {
                return None;
            }
            self.protected(&self.ctx.resolve(raw), raw, &self.ctx, Followed::Unknown)
        };
        PATH_ARGUMENTS.iter().find_map(|k| match s.args.get(*k) {
            Some(Value::String(raw)) => check(raw),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).find_map(check),
            _ => None,
        })
    }

    /// The protection a path falls under: by its resolved spelling (`lexical`), as a shell
    /// wildcard that may expand into one, or where its symlinks really lead.
    fn protected(
        &self,
        lexical: &Path,
        raw: &str,
        ctx: &PathContext,
        followed: Followed,
    ) -> Option<&Protection> {
        let wild = has_meta(&lexical.to_string_lossy());
        let under = |p: &Path, prot: &Protection| {
            p.starts_with(&prot.resolved)
                || prot.canonical.as_deref().is_some_and(|c| p.starts_with(c))
        };
        if let Some(hit) = self.protections.iter().find(|prot| {
            under(lexical, prot) || (wild && wildcard_may_reach(lexical, &prot.resolved))
        }) {
            return Some(hit);
        }
        // A wildcard names no single file to follow; nor does an empty path.
        if raw.is_empty() || wild {
            return None;
        }
        let real = followed.real(raw, ctx)?;
        if real == lexical {
            return None;
        }
        self.protections.iter().find(|prot| under(&real, prot))
    }

    /// Whether a call is known not to change anything: read-only tools, and bash commands
    /// whose every part an allow rule of `readonly.policy` matches.
    pub fn is_read_only(&self, call: &ToolCall) -> bool {
        match call.name.as_str() {
            "read_file" | "list_dir" => true,
            "bash" => {
                let Some(command) = call.arguments.get("command").and_then(Value::as_str) else {
                    return false;
                };
                let analysis = shell::analyse(command);
                analysis.failure.is_none()
                    && self.all_read_only(call, &analysis.commands, &mut Vec::new())
            }
            _ => false,
        }
    }

    /// Whether there are commands and an allow rule of `readonly.policy` matches each.
    fn all_read_only(
        &self,
        call: &ToolCall,
        commands: &[SimpleCommand],
        scratch: &mut Vec<RuleId>,
    ) -> bool {
        !commands.is_empty()
            && commands.iter().all(|cmd| {
                let s = Subject {
                    tool: "bash",
                    args: &call.arguments,
                    target: Target::Command(CommandView::new(cmd, &self.ctx)),
                };
                self.readonly
                    .first_match(&s, scratch)
                    .is_some_and(|r| r.action == Action::Allow)
            })
    }
}

fn rule_decision(r: &CompiledRule) -> Decision {
    Decision::new(r.action, r.risk, r.reason(), r.origin.label.clone())
}

/// The stricter of two decisions (deny > ask > allow, then higher risk); the first on a tie.
pub fn stricter(a: Option<Decision>, b: Decision) -> Decision {
    match a {
        Some(a) if a.strictness() >= b.strictness() => a,
        _ => b,
    }
}

fn malformed(why: &str) -> Decision {
    Decision::new(
        Action::Deny,
        Risk::High,
        format!("malformed call: {why}"),
        "analysis",
    )
}

/// The most words of a command that could not be analysed judged one by one: as many as the
/// longest line the analysis takes can hold.
pub const MAX_PSEUDO_WORDS: usize = shell::MAX_COMMAND_LEN / 2;

/// Stand-ins for a command line that could not be analysed, judged like commands so that a
/// deny rule or a protected path still holds: its blank-separated words as written, and (when
/// they differ) the words as a shell would split them, quotes removed (`cat '~/.ssh/id_rsa'`
/// before a syntax error still names `~/.ssh`). Bash runs the lines before a syntax error.
///
/// A line of more words than [`MAX_PSEUDO_WORDS`] (a 10 MB line) keeps each word once, in the
/// order they first appear, so every path in it is still checked at the cost of its different
/// words; `None` when even those are too many to judge.
///
/// The line's pieces between `;`, `&`, `|`, parentheses, back-ticks and newlines are judged
/// too, each as the commands it parses into (or by its words when it does not parse), with
/// leading keywords and braces (`then`, `do`, `{`) dropped: a deny rule for one part of a
/// compound line still holds when the whole line cannot be parsed. Splitting ignores quotes,
/// so it may find more pieces than the shell would; each only adds a part to judge, and the
/// strictest decision wins, so a piece can make a line stricter, never looser.
pub fn pseudo_commands(command: &str) -> Option<Vec<SimpleCommand>> {
    let mut out = words_of(command)?;
    if command.len() <= MAX_PIECES_LEN {
        for piece in pieces(command).take(MAX_PIECES) {
            let analysis = shell::analyse(piece);
            match analysis.failure {
                None => out.extend(analysis.commands),
                Some(_) => out.extend(words_of(piece)?),
            }
        }
    }
    Some(out)
}

/// Lines longer than this are judged by their words only (analysing every piece of a huge
/// line would cost more than a decision may).
const MAX_PIECES_LEN: usize = 64 * 1024;
/// At most this many pieces of a line are analysed.
const MAX_PIECES: usize = 256;

/// A line's words as written, and (when they differ) as a shell would split them.
fn words_of(command: &str) -> Option<Vec<SimpleCommand>> {
    let as_written = pseudo_command(command.split_whitespace().map(str::to_string))?;
    let dequoted = pseudo_command(ShellWords {
        chars: command.chars(),
    })?;
    Some(if dequoted.argv == as_written.argv {
        vec![as_written]
    } else {
        vec![as_written, dequoted]
    })
}

/// The non-empty pieces of a line between control characters, keywords and braces dropped
/// from their start.
fn pieces(command: &str) -> impl Iterator<Item = &str> {
    const LEADING: [&str; 12] = [
        "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "coproc",
    ];
    command
        .split([';', '&', '|', '(', ')', '`', '\n'])
        .map(|piece| {
            let mut p = piece.trim();
            while let Some(k) = LEADING.iter().find(|k| {
                p.strip_prefix(**k)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
            }) {
                p = p[k.len()..].trim_start();
            }
            p.trim_end_matches(['{', '}', ' ', '\t'])
        })
        .filter(|p| !p.is_empty() && !matches!(*p, "fi" | "done" | "esac"))
}

fn pseudo_command(words: impl Iterator<Item = String>) -> Option<SimpleCommand> {
    let mut argv: Vec<String> = Vec::new();
    let mut seen: Option<std::collections::HashSet<String>> = None;
    for w in words {
        match &mut seen {
            None => {
                argv.push(w);
                if argv.len() > MAX_PSEUDO_WORDS {
                    let mut set = std::collections::HashSet::new();
                    argv.retain(|w| set.insert(w.clone()));
                    seen = Some(set);
                }
            }
            Some(set) => {
                if set.insert(w.clone()) {
                    argv.push(w);
                }
            }
        }
        if seen.is_some() && argv.len() > MAX_PSEUDO_WORDS {
            return None;
        }
    }
    let argv: Vec<Word> = argv
        .into_iter()
        .map(|w| Word {
            path: Some(w.clone()),
            value: w,
            dynamic: false,
        })
        .collect();
    // Any word of a line that does not parse may be a file the line opens, whatever its
    // program (`echo k >> ~/.ssh/authorized_keys`, whose words `echo` would not have read as
    // paths): each is also read as a redirection's source.
    let redirects = argv
        .iter()
        .map(|w| shell::Redirect {
            op: "<".into(),
            fd: None,
            target: w.clone(),
        })
        .collect();
    Some(SimpleCommand {
        argv,
        redirects,
        ..Default::default()
    })
}

/// The words of a line as far as a shell would split them without a parse: quotes removed
/// (`'…'`, `"…"`, a backslash escapes the next character), split at unquoted blanks and at the
/// operators `;`, `&`, `|`, `(`, `)`, `<`, `>`.
struct ShellWords<'a> {
    chars: std::str::Chars<'a>,
}

impl Iterator for ShellWords<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let mut word = String::new();
        let mut started = false;
        let mut quote: Option<char> = None;
        while let Some(c) = self.chars.next() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"'), '\\') => word.extend(self.chars.next()),
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    started = true;
                }
                (None, '\\') => {
                    word.extend(self.chars.next());
                    started = true;
                }
                (None, c) if c.is_whitespace() || ";&|()<>".contains(c) => {
                    if started {
                        return Some(word);
                    }
                }
                (None, c) => {
                    word.push(c);
                    started = true;
                }
            }
        }
        started.then_some(word)
    }
}

fn describe_redirects(cmd: &SimpleCommand) -> String {
    let mut out: Vec<String> = cmd.assignments.clone();
    out.extend(
        cmd.redirects
            .iter()
            .map(|r| format!("{} {}", r.op, r.target.value)),
    );
    out.join(" ")
}
