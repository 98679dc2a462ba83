//! Building an engine: policy files, settings.json and the built-in policy compiled into one
//! decision structure.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::chain::Chain;
use super::compile::Compiler;
use super::protect::{Protection, Protections};
use super::rule::{self, CompiledRule};
use super::{Engine, PathContext, SHIPPED_HEADLESS};
use crate::call::{Action, Decision, Risk};
use crate::diag::{Diagnostic, Source};
use crate::policy::ast::{self, DefaultStmt, Statement};
use crate::policy::{self, read_bounded, Origin};
use crate::rule_ref::RuleRef;
use crate::sandbox::Support;
use crate::settings;

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
    /// Where paths are resolved; the process's own working folder and home unless given
    /// (looked up at `build`, not before: a caller that gives one, as the hook does, never
    /// pays for resolving the process's).
    ctx: Option<PathContext>,
    policies: Vec<Origin>,
    settings: Vec<Settings>,
    builtin: bool,
    guarded: Vec<PathBuf>,
    /// The shipped default policy (and `base` texts) sit under the policy files, unless one of
    /// them says `replace "default.policy";`.
    defaults: bool,
    base: Vec<Origin>,
    /// The managed tier's files, read first.
    managed: Vec<PathBuf>,
    /// The one tool the engine will decide calls of (see [`EngineBuilder::for_tool`]).
    only_tool: Option<String>,
    /// Whether the caller can run a command contained (see [`EngineBuilder::sandbox`]).
    sandbox: Support,
}

#[derive(Debug, Clone)]
enum Settings {
    File(PathBuf),
    Text(String, String),
}

impl Default for EngineBuilder {
    fn default() -> Self {
        EngineBuilder {
            ctx: None,
            policies: Vec::new(),
            settings: Vec::new(),
            builtin: true,
            guarded: Vec::new(),
            defaults: false,
            base: Vec::new(),
            managed: Vec::new(),
            only_tool: None,
            sandbox: Support::default(),
        }
    }
}

impl EngineBuilder {
    /// An engine that decides calls of `tool` only, as a hook process does with its one call:
    /// the shipped policies' rules for other tools (no call of `tool` can meet them) are not
    /// compiled. Rules of the policy files and settings are compiled whole, so every mistake
    /// in them is still found. A call of another tool is asked about at high risk, never
    /// allowed.
    pub fn for_tool(mut self, tool: impl Into<String>) -> Self {
        self.only_tool = Some(tool.into());
        self
    }

    /// Where relative paths start and what `~` is (default: the process's).
    pub fn context(mut self, ctx: PathContext) -> Self {
        self.ctx = Some(ctx);
        self
    }

    /// A policy file of the managed tier (`/etc/harness9/*.policy`): read before every other,
    /// so its `default` comes first; what its rules deny or ask, no other policy, settings
    /// entry, mode or session answer loosens (an ask still goes to a person, every time).
    pub fn managed_policy_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.managed.push(path.into());
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

    /// The shipped `default.policy` (read-only tools and commands allowed, the rest asked),
    /// under the policy files: its rules add to theirs (when several files match, the strictest
    /// answer wins), its `default` counts only when no file sets one, and its `headless`
    /// statements are the engine's own. A policy file that says `replace "default.policy";`
    /// leaves it out.
    pub fn default_policy(mut self) -> Self {
        self.defaults = true;
        self
    }

    /// Rules that belong with the shipped default policy (an agent's harmless tools): added
    /// under the policy files, and left out with it.
    pub fn default_policy_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.base.push(Origin::Text {
            name: name.into(),
            text: text.into(),
        });
        self
    }

    /// A policy compiled into the binary (see [`policy::EMBEDDED`]) beside the shipped default
    /// policy, and left out with it: an agent's own harmless tools (`claude-code.policy`).
    pub fn default_embedded_policy(mut self, name: &'static str) -> Self {
        self.base.push(Origin::Embedded(name));
        self
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

    /// Whether the caller runs `sandbox` decisions contained. Without this (the default, and
    /// with [`Support::Unavailable`]) the engine answers a call a rule would contain with an
    /// ask saying why it cannot: a caller never gets a contained answer it cannot honour.
    pub fn sandbox(mut self, support: Support) -> Self {
        self.sandbox = support;
        self
    }

    pub fn build(mut self) -> Result<Engine, LoadError> {
        let ctx = self.ctx.take().unwrap_or_else(PathContext::from_env);
        let mut l = Loading::new(&ctx, self.guarded.clone());
        l.only_tool = self.only_tool.as_deref();
        let builtin_rules = l.builtin(self.builtin);
        for origin in self.managed.iter().cloned().map(Origin::File) {
            l.policy(&origin, Tier::Managed);
        }
        for origin in &self.policies {
            l.policy(origin, Tier::File);
        }
        if self.defaults && !l.replaced {
            let shipped = Origin::Embedded(policy::DEFAULT_POLICY);
            for origin in std::iter::once(&shipped).chain(&self.base) {
                l.policy(origin, Tier::Shipped);
            }
        }
        for s in &self.settings {
            l.settings(s);
        }
        let readonly_rules = l.readonly();
        let mut diags = l.diags;
        diags.append(&mut l.compiler.diags);
        if !l.messages.is_empty() || diags.iter().any(Diagnostic::is_error) {
            return Err(LoadError {
                diagnostics: diags,
                messages: l.messages,
            });
        }
        let headless = l.headless;
        Ok(Engine {
            protections: l.protections,
            user: l.user,
            builtin: self
                .builtin
                .then(|| Chain::new("builtin.policy", builtin_rules).strictest()),
            readonly: Chain::new("readonly.policy", readonly_rules),
            default: default_decision(l.default),
            headless: SHIPPED_HEADLESS.map(|(risk, shipped)| {
                let set = headless.iter().find(|(r, _)| *r == risk);
                (risk, set.map_or(shipped, |(_, a)| *a))
            }),
            guarded: super::protect::Guarded::new(guarded_paths(&ctx, l.guarded)),
            expects: l.expects,
            warnings: diags,
            recent: Default::default(),
            ctx,
            only_tool: self.only_tool,
            sandbox: self.sandbox,
        })
    }
}

/// Where a policy file sits among the engine's sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    /// `/etc/harness9`: read first; what it denies or asks nothing loosens.
    Managed,
    /// The project's and the user's files, and `--policy`.
    File,
    /// The shipped default policy (and its companions) under the files: its expects are its
    /// own tests, its headless statements the engine's own, and a file's default outranks its.
    Shipped,
}

/// What an engine is being built from, gathered source by source.
struct Loading<'c> {
    ctx: &'c PathContext,
    compiler: Compiler<'c>,
    diags: Vec<Diagnostic>,
    /// Problems without a place in a file (a file that cannot be read).
    messages: Vec<String>,
    protections: Protections,
    expects: Vec<(Arc<Source>, crate::policy::ast::Expect)>,
    default: Option<(Arc<Source>, DefaultStmt)>,
    headless: Vec<(Risk, Action)>,
    user: Vec<Chain>,
    guarded: Vec<PathBuf>,
    /// A file said `replace "default.policy";`.
    replaced: bool,
    /// The one tool the engine decides (see [`EngineBuilder::for_tool`]).
    only_tool: Option<&'c str>,
}

impl<'c> Loading<'c> {
    fn new(ctx: &'c PathContext, guarded: Vec<PathBuf>) -> Self {
        Loading {
            ctx,
            compiler: Compiler::new(ctx),
            diags: Vec::new(),
            messages: Vec::new(),
            protections: Protections::new(ctx.home.as_deref()),
            expects: Vec::new(),
            default: None,
            headless: Vec::new(),
            user: Vec::new(),
            guarded,
            replaced: false,
            only_tool: None,
        }
    }

    /// Whether a shipped rule can meet a call the engine decides: its tool is a glob, or the
    /// one tool's name, or the engine decides every tool.
    fn shipped_rule_needed(&self, r: &ast::Rule) -> bool {
        policy::rule_meets(&r.tool.value, self.only_tool)
    }

    /// The built-in policy: its protections always hold; its rules (returned) unless switched
    /// off.
    fn builtin(&mut self, rules_on: bool) -> Vec<CompiledRule> {
        self.protections.add_stores(self.ctx);
        let loaded = load_embedded("builtin.policy", self.only_tool, &mut self.messages);
        let mut rules = Vec::new();
        for (src, stmt) in &loaded.statements {
            match stmt {
                Statement::Protect(p) => self.protections.push(protection(
                    self.ctx,
                    &p.path.value,
                    p.reason.as_ref().map(|r| r.value.to_string()),
                )),
                Statement::Rule(r) if rules_on && self.shipped_rule_needed(r) => {
                    rules.extend(self.compiler.rule(src, r))
                }
                _ => {}
            }
        }
        self.diags.extend(loaded.diags);
        rules
    }

    /// One policy file (with its includes) as one chain of its tier.
    fn policy(&mut self, origin: &Origin, tier: Tier) {
        // The shipped tier's expects are not read (below): they are not parsed either.
        let loaded = match (origin, tier) {
            (Origin::Embedded(name), Tier::Shipped) => {
                policy::load_shipped_rules(name, self.only_tool)
            }
            _ => policy::load(origin),
        };
        let loaded = match loaded {
            Ok(l) => l,
            Err(e) => {
                self.messages.push(e.to_string());
                return;
            }
        };
        self.diags.extend(loaded.diags);
        self.guarded.extend(loaded.files);
        let mut rules = Vec::new();
        self.compiler.typos = tier != Tier::Shipped;
        for (src, stmt) in loaded.statements {
            match stmt {
                Statement::Rule(r) if tier == Tier::Shipped && !self.shipped_rule_needed(&r) => {}
                Statement::Rule(r) => rules.extend(self.compiler.rule(&src, &r)),
                Statement::Protect(p) => self.protections.push(protection(
                    self.ctx,
                    &p.path.value,
                    p.reason.map(|r| r.value.into_owned()),
                )),
                Statement::Expect(e) if tier != Tier::Shipped => self.expects.push((src, e)),
                Statement::Default(d) => self.set_default(src, d, tier),
                Statement::Headless(d) if tier != Tier::Shipped => self.add_headless(&d),
                Statement::Replace(_) => self.replaced = true,
                Statement::Expect(_) | Statement::Headless(_) | Statement::Include(_) => {}
            }
        }
        self.compiler.typos = true;
        let chain = Chain::new(origin_name(origin), rules);
        self.user.push(match tier {
            Tier::Managed => chain.managed(),
            Tier::File => chain,
            Tier::Shipped => chain.shipped_default(),
        });
    }

    /// The first default read counts; a later one of a file is a warning, the shipped
    /// policy's is quietly outranked.
    fn set_default(&mut self, src: Arc<Source>, d: DefaultStmt, tier: Tier) {
        match &self.default {
            None => self.default = Some((src, d)),
            Some(_) if tier == Tier::Shipped => {}
            Some((first_src, first)) => self.diags.push(
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
        }
    }

    /// `headless deny risk high;`: nobody can be asked, so `ask` there means deny; files that
    /// disagree get the stricter answer.
    fn add_headless(&mut self, d: &DefaultStmt) {
        let Some(risk) = &d.risk else {
            return;
        };
        let action = match d.action.value {
            Action::Ask => Action::Deny,
            a => a,
        };
        match self.headless.iter_mut().find(|(r, _)| *r == risk.value) {
            Some(slot) => slot.1 = slot.1.max(action),
            None => self.headless.push((risk.value, action)),
        }
    }

    /// A settings.json as one chain.
    fn settings(&mut self, s: &Settings) {
        let source = match s {
            Settings::File(p) => {
                self.guarded.push(p.clone());
                match read_bounded(p) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(text) => Source::new(p.to_string_lossy(), text),
                        Err(_) => {
                            self.messages
                                .push(format!("`{}` is not UTF-8 text", p.display()));
                            return;
                        }
                    },
                    Err(e) => {
                        self.messages
                            .push(format!("cannot read `{}`: {e}", p.display()));
                        return;
                    }
                }
            }
            Settings::Text(name, text) => Source::new(name.as_str(), text.as_str()),
        };
        let (rules, d) = settings::parse_settings(&source);
        self.diags.extend(d);
        let compiled = rules
            .iter()
            .filter_map(|r| self.compiler.rule(&source, r))
            .collect();
        self.user
            .push(Chain::new(source.name.to_string(), compiled).settings());
    }

    /// The rules of `readonly.policy`, which read-only mode consults.
    fn readonly(&mut self) -> Vec<CompiledRule> {
        let loaded = load_embedded("readonly.policy", self.only_tool, &mut self.messages);
        let rules = loaded
            .statements
            .iter()
            .filter_map(|(src, s)| match s {
                Statement::Rule(r) if self.shipped_rule_needed(r) => self.compiler.rule(src, r),
                _ => None,
            })
            .collect();
        self.diags.extend(loaded.diags);
        rules
    }
}

/// The decision for calls no rule matches: the default statement in force, or ask, low risk.
fn default_decision(default: Option<(Arc<Source>, DefaultStmt)>) -> Decision {
    let Some((src, d)) = default else {
        return Decision::new(Action::Ask, Risk::Low, "no rule matched", RuleRef::Default);
    };
    let risk = d
        .risk
        .map(|r| r.value)
        .unwrap_or(rule::default_risk(d.action.value));
    let line = src.line(d.span.start);
    let reason = d
        .reason
        .map(|r| r.value.into_owned())
        .unwrap_or_else(|| format!("no rule matched (the default, {}:{line})", src.name));
    Decision::new(d.action.value, risk, reason, RuleRef::Default)
}

/// Guarded paths as the engine compares them: resolved against the working folder, and
/// where their symlinks lead when that differs.
fn guarded_paths(ctx: &PathContext, paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    // A hook guards a few dozen paths: looked up by their bytes (both spellings are normal),
    // not compared with every one kept before, each by `Path`'s walk over its parts.
    let mut seen: HashSet<std::ffi::OsString, foldhash::fast::RandomState> = HashSet::default();
    for p in paths {
        let resolved = ctx.resolve(&p.to_string_lossy());
        let canonical = ctx.real_path(&resolved);
        for q in std::iter::once(resolved).chain(canonical) {
            if seen.insert(q.as_os_str().to_owned()) {
                out.push(q);
            }
        }
    }
    out
}

fn origin_name(origin: &Origin) -> String {
    match origin {
        Origin::File(p) => p.to_string_lossy().into_owned(),
        Origin::Embedded(n) => n.to_string(),
        Origin::Text { name, .. } => name.clone(),
    }
}

/// A shipped policy's statements but its `expect`s, which an engine does not read.
fn load_embedded(
    name: &'static str,
    only_tool: Option<&str>,
    messages: &mut Vec<String>,
) -> policy::Loaded {
    match policy::load_shipped_rules(name, only_tool) {
        Ok(l) => l,
        Err(e) => {
            messages.push(e.to_string());
            policy::Loaded::default()
        }
    }
}

fn protection(ctx: &PathContext, written: &str, reason: Option<String>) -> Protection {
    let reason = reason.unwrap_or_else(|| format!("`{written}` is a protected path"));
    Protection::new(ctx, written, reason, &[])
}
