//! `harness9 lint` and `harness9 test`: what is wrong or doubtful in a policy file.
//!
//! Each lint is a small function over the file's rules, listed in [`Lint`] with its code and
//! what it means. Errors (syntax, unknown words, invalid patterns, failing `expect`s) make `lint`
//! exit 1; warnings do not, unless `--deny-warnings`.

use std::path::Path;
use std::sync::Arc;

use crate::call::ToolCall;
use crate::diag::{Diagnostic, Source};
use crate::engine::{Engine, PathContext};
use crate::policy::ast::{Action, Expect, ExpectArg, Matcher, MatcherKind, Risk, Rule, Statement};
use crate::policy::{self, print, Origin};
use crate::rule_ref::RuleRef;

/// Every lint. Its code appears in diagnostics as `harness9::CODE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lint {
    /// A rule that repeats an earlier rule of the same file.
    DuplicateRule,
    /// A rule that can never decide, because an earlier rule matches every call it matches.
    ShadowedRule,
    /// An allow rule that matches every call a later deny or ask rule matches, so the later
    /// rule decides only re-spelled commands.
    AllowSwallows,
    /// An allow rule for every bash command, or for every tool.
    BroadAllow,
    /// An `expect` statement whose call the policy decides differently.
    ExpectFailed,
    /// A rule no `expect` exercises (an error with `lint --strict`).
    UncoveredRule,
    /// A rule whose every call the managed tier (`/etc/harness9`) denies or asks about more
    /// strictly: it never decides.
    ManagedDead,
    /// An allow rule that turns a high-risk built-in ask or deny into an allow
    /// (`allow bash("git *")` silences `git push --force`).
    SilencesBuiltin,
    /// A `path` matcher where no path is compared: after `arg NAME`, or for a tool whose calls
    /// have no primary path.
    PathNeverMatches,
    /// An allow rule that lets a file the catalogue of secrets knows be read (`allow
    /// read_file(path ".env.test")`): legitimate for a team's test fixtures, worth saying.
    AllowsSecret,
}

impl Lint {
    pub const ALL: [Lint; 10] = [
        Lint::DuplicateRule,
        Lint::ShadowedRule,
        Lint::AllowSwallows,
        Lint::BroadAllow,
        Lint::ExpectFailed,
        Lint::UncoveredRule,
        Lint::ManagedDead,
        Lint::SilencesBuiltin,
        Lint::PathNeverMatches,
        Lint::AllowsSecret,
    ];

    /// The code diagnostics carry (`harness9::shadowed-rule`).
    pub fn code(self) -> &'static str {
        match self {
            Lint::DuplicateRule => "duplicate-rule",
            Lint::ShadowedRule => "shadowed-rule",
            Lint::AllowSwallows => "allow-swallows",
            Lint::BroadAllow => "broad-allow",
            Lint::ExpectFailed => "expect-failed",
            Lint::UncoveredRule => "uncovered-rule",
            Lint::ManagedDead => "managed-dead",
            Lint::SilencesBuiltin => "silences-builtin",
            Lint::PathNeverMatches => "path-never-matches",
            Lint::AllowsSecret => "allows-secret",
        }
    }
}

/// Options for linting and testing.
#[derive(Debug, Clone)]
pub struct Options {
    pub builtin: bool,
    pub ctx: PathContext,
    /// Every rule must be exercised by an `expect` (`lint --strict`).
    pub strict: bool,
    /// The managed tier's policy files: a rule whose every call they deny or ask about more
    /// strictly is dead (see [`dead_by_managed`]).
    pub managed: Vec<std::path::PathBuf>,
    /// A rule that can never match ([`DEAD_CODES`]) is a warning, not an error
    /// (`lint --allow-dead`).
    pub allow_dead: bool,
}

/// The codes of diagnostics that say a rule can never match: a tool name no call has
/// (`read_flie`, `Bash`), a `path` matcher where no path is compared. `lint` reports them as
/// errors, so that a team's CI does not pass a rule that does nothing, unless `--allow-dead`.
pub const DEAD_CODES: [&str; 2] = ["unknown-tool", "path-never-matches"];

/// Dead rules as errors, unless the options allow them.
fn judge_dead(diagnostics: &mut [Diagnostic], opts: &Options) {
    if opts.allow_dead {
        return;
    }
    for d in diagnostics {
        if DEAD_CODES.contains(&d.code) {
            d.severity = crate::diag::Severity::Error;
            let escape = "`lint --allow-dead` reports such a rule as a warning";
            d.help = Some(match d.help.take() {
                Some(h) => format!("{h} ({escape})"),
                None => escape.to_string(),
            });
        }
    }
}

/// The result of linting one file.
#[derive(Debug)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the file loaded (no errors before the lints ran).
    pub loaded: bool,
}

/// Lints one policy file: load errors, the rule lints, and its `expect` statements. A
/// `.json` file is linted as a settings.json: its keys, lists and rules.
pub fn lint_file(path: &Path, opts: &Options) -> Report {
    lint_at(path, None, opts)
}

/// Lints the text of a policy or settings file as if it were saved at `path` (an editor's
/// unsaved buffer): what [`lint_file`] says of that content, includes read from `path`'s
/// folder.
pub fn lint_text(path: &Path, text: &str, opts: &Options) -> Report {
    lint_at(path, Some(text), opts)
}

/// [`lint_file`] of `path`, or of `text` as `path`'s content.
fn lint_at(path: &Path, text: Option<&str>, opts: &Options) -> Report {
    if path.extension().is_some_and(|e| e == "json") {
        return lint_settings(path, text, opts);
    }
    let origin = match text {
        None => Origin::File(path.to_path_buf()),
        Some(t) => Origin::Text {
            name: path.to_string_lossy().into_owned(),
            text: t.to_string(),
        },
    };
    let loaded = match policy::load(&origin) {
        Ok(l) => l,
        Err(e) => {
            let src = Source::new(path.to_string_lossy(), "");
            return Report {
                diagnostics: vec![Diagnostic::error(
                    &src,
                    "io",
                    Default::default(),
                    e.to_string(),
                )],
                loaded: false,
            };
        }
    };
    let builder = Engine::builder()
        .context(opts.ctx.clone())
        .builtin(opts.builtin)
        .default_policy();
    let builder = match text {
        None => builder.policy_file(path),
        Some(t) => builder.policy_text(path.to_string_lossy(), t).guard(path),
    };
    let (engine, mut diagnostics) = build_for_lint(builder, path);
    let ok = engine.is_ok();
    let rules: Vec<(Arc<Source>, &Rule)> = loaded
        .statements
        .iter()
        .filter_map(|(s, st)| match st {
            Statement::Rule(r) => Some((s.clone(), r)),
            _ => None,
        })
        .collect();
    diagnostics.extend(rule_lints(&rules));
    diagnostics.extend(dead_by_managed(&opts.managed, path, &rules));
    if let Ok(engine) = &engine {
        if opts.builtin {
            diagnostics.extend(silenced_builtins(engine, &rules));
        }
        for (src, e) in engine.expects() {
            if let Some(d) = check_expect(engine, src, e) {
                diagnostics.push(d);
            }
        }
        if opts.strict {
            diagnostics.extend(uncovered(engine));
        }
    }
    judge_dead(&mut diagnostics, opts);
    diagnostics.sort_by_key(|d| (d.source.name.to_string(), d.span().start));
    Report {
        diagnostics,
        loaded: ok,
    }
}

/// Lints a settings.json: everything loading it says (unknown keys, bad rules, tool names no
/// call has).
fn lint_settings(path: &Path, text: Option<&str>, opts: &Options) -> Report {
    let builder = Engine::builder().context(opts.ctx.clone()).builtin(false);
    let builder = match text {
        None => builder.settings_file(path),
        Some(t) => builder.settings_text(path.to_string_lossy(), t).guard(path),
    };
    let (engine, mut diagnostics) = build_for_lint(builder, path);
    judge_dead(&mut diagnostics, opts);
    diagnostics.sort_by_key(|d| (d.source.name.to_string(), d.span().start));
    Report {
        diagnostics,
        loaded: engine.is_ok(),
    }
}

/// Builds an engine for `lint`, with what it says about the file: its warnings (the built-in
/// policy's left out) or every load error.
fn build_for_lint(
    builder: crate::engine::EngineBuilder,
    path: &Path,
) -> (Result<Engine, crate::engine::LoadError>, Vec<Diagnostic>) {
    let engine = builder.build();
    let diagnostics = match &engine {
        Ok(e) => e
            .warnings()
            .iter()
            .filter(|d| !is_builtin(&d.source))
            .cloned()
            .collect(),
        Err(e) => {
            let src = Source::new(path.to_string_lossy(), "");
            e.diagnostics
                .iter()
                .cloned()
                .chain(
                    e.messages
                        .iter()
                        .map(|m| Diagnostic::error(&src, "io", Default::default(), m.clone())),
                )
                .collect()
        }
    };
    (engine, diagnostics)
}

/// The words an allow rule's values name (`cargo` of `bash("cargo *")`, `npm` and `pnpm` of
/// `bash(regex "^(npm|pnpm) ")`), for the allow rules that may match bash commands: the
/// programs whose probe commands [`silenced_builtins`] tries.
fn named_words(rules: &[(Arc<Source>, &Rule)]) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for (_, r) in rules {
        let tool = &*r.tool.value;
        if r.action.value != Action::Allow || !(tool == "bash" || tool.contains(['*', '?'])) {
            continue;
        }
        for v in r.matchers.iter().flatten().flat_map(|m| &m.values) {
            for w in v
                .value
                .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')))
            {
                let w = w.rsplit('/').next().unwrap_or(w);
                if !w.is_empty() {
                    out.insert(w.to_string());
                }
            }
        }
    }
    out
}

/// The commands [`silenced_builtins`] decides: the built-in policy's own `expect ask risk
/// high` and `expect deny` commands, and for each program an allow rule of the file names, the
/// probe commands of its verb table and of the effects data (`cargo yank x`, `cargo install
/// --git https://example.com/x`, `npm unpublish x`).
fn probe_calls(rules: &[(Arc<Source>, &Rule)]) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    if let Ok(builtin) = policy::load(&Origin::Embedded("builtin.policy")) {
        for (_, st) in &builtin.statements {
            let Statement::Expect(e) = st else { continue };
            let high = e.action.value == Action::Deny
                || (e.action.value == Action::Ask
                    && e.risk.as_ref().is_some_and(|r| r.value == Risk::High));
            if high {
                calls.push(expect_call(e));
            }
        }
    }
    let named = named_words(rules);
    if named.is_empty() {
        return calls;
    }
    let mut seen = std::collections::HashSet::new();
    let tables = crate::knowledge::verbs::tables()
        .into_iter()
        .filter(|t| named.contains(t.name))
        .flat_map(|t| t.probes());
    let effects = crate::knowledge::effects::probes()
        .into_iter()
        .filter(|(program, _)| named.contains(*program))
        .map(|(_, command)| command);
    for command in tables.chain(effects) {
        if seen.insert(command.clone()) {
            calls.push(ToolCall::primary("bash", command));
        }
    }
    calls
}

/// The allow rules of the file that turn a high-risk built-in decision into an allow, found
/// by deciding probe commands (see [`probe_calls`]): one warning per rule, naming the commands
/// it lets through.
fn silenced_builtins(engine: &Engine, rules: &[(Arc<Source>, &Rule)]) -> Vec<Diagnostic> {
    let mut silenced: Vec<(RuleRef, Vec<String>)> = Vec::new();
    for call in probe_calls(rules) {
        let by_builtin = engine.decide_builtin(&call);
        if by_builtin.action == Action::Allow || by_builtin.risk != Risk::High {
            continue;
        }
        let d = engine.decide(&call);
        if d.action != Action::Allow {
            continue;
        }
        let what = format!(
            "`{}` ({})",
            call.primary_arg().unwrap_or(&call.name),
            by_builtin.reason
        );
        match silenced.iter_mut().find(|(rule, _)| *rule == d.rule) {
            Some((_, list)) => list.push(what),
            None => silenced.push((d.rule.clone(), vec![what])),
        }
    }
    let mut out = Vec::new();
    for (src, r) in rules {
        let line = src.line(r.span.start);
        let label = RuleRef::file(&src.name, line);
        let Some((_, list)) = silenced.iter().find(|(rule, _)| *rule == label) else {
            continue;
        };
        let shown: Vec<&str> = list.iter().take(4).map(String::as_str).collect();
        let more = list.len().saturating_sub(shown.len());
        let mut message = format!(
            "this allow silences high-risk built-in rules: {}",
            shown.join(", ")
        );
        if more > 0 {
            message.push_str(&format!(" and {more} more"));
        }
        out.push(
            Diagnostic::warning(src, Lint::SilencesBuiltin.code(), r.span, message).help(
                "add `unless` exceptions for what should still be asked, or allow narrower commands",
            ),
        );
    }
    out
}

fn is_builtin(src: &Source) -> bool {
    policy::EMBEDDED.iter().any(|(n, _)| *n == &*src.name)
}

/// The outcome of one `expect`.
pub struct ExpectResult {
    pub source: Arc<Source>,
    pub expect: Expect,
    /// `None` when it passed; the diagnostic when it failed.
    pub failure: Option<Diagnostic>,
}

/// One rule of a policy and whether an `expect` exercises it (the call of some `expect`
/// matches it).
#[derive(Debug, Clone)]
pub struct Covered {
    /// `team.policy:12`.
    pub label: RuleRef,
    /// The rule as written, on one line.
    pub text: String,
    pub covered: bool,
    pub source: Arc<Source>,
    pub span: crate::policy::ast::Span,
}

/// Which rules of the engine's user policies the `expect` statements exercise, in file
/// order: a rule counts when the call of an `expect` matches it (it need not decide).
pub fn coverage(engine: &Engine) -> Vec<Covered> {
    let mut hit: std::collections::HashSet<RuleRef> = std::collections::HashSet::new();
    for (_, e) in engine.expects() {
        let ex = engine.explain(&expect_call(e));
        for part in &ex.parts {
            for h in &part.hits {
                if h.layer == crate::engine::Layer::User {
                    hit.insert(h.decision.rule.clone());
                }
            }
        }
    }
    engine
        .user_chains()
        .iter()
        .filter(|c| !c.shipped_default)
        .flat_map(|c| &c.rules)
        .map(|r| Covered {
            label: r.origin.rule.clone(),
            text: r.text(),
            covered: hit.contains(&r.origin.rule),
            source: r.origin.source.clone(),
            span: r.origin.span,
        })
        .collect()
}

/// The rules no `expect` exercises, as errors (`lint --strict`).
pub fn uncovered(engine: &Engine) -> Vec<Diagnostic> {
    coverage(engine)
        .into_iter()
        .filter(|c| !c.covered)
        .map(|c| {
            Diagnostic::error(
                &c.source,
                Lint::UncoveredRule.code(),
                c.span,
                "no `expect` exercises this rule",
            )
            .help("add an `expect` whose call this rule matches (`--strict` asks for every rule)")
        })
        .collect()
}

/// Runs every `expect` of an engine's user policies.
pub fn run_expects(engine: &Engine) -> Vec<ExpectResult> {
    engine
        .expects()
        .iter()
        .map(|(src, e)| ExpectResult {
            source: src.clone(),
            expect: e.clone(),
            failure: check_expect(engine, src, e),
        })
        .collect()
}

/// The tool call an `expect` names.
pub fn expect_call(e: &Expect) -> ToolCall {
    let c = &e.call.value;
    match &c.arg {
        ExpectArg::None => ToolCall::new(c.tool.clone(), Default::default()),
        ExpectArg::Primary(p) => ToolCall::primary(c.tool.clone(), p.clone()),
        ExpectArg::Json(m) => ToolCall::new(c.tool.clone(), m.clone()),
    }
}

/// An `expect` states what the policy decides, so a `sandbox` decision counts as one whether
/// or not the sandbox is available where the check runs.
fn check_expect(engine: &Engine, src: &Arc<Source>, e: &Expect) -> Option<Diagnostic> {
    let got = engine.decide_where_contained(&expect_call(e));
    let risk_ok = e.risk.as_ref().is_none_or(|r| r.value == got.risk);
    if got.action == e.action.value && risk_ok {
        return None;
    }
    let wanted = match &e.risk {
        Some(r) => format!("{} with {} risk", e.action.value, r.value),
        None => e.action.value.to_string(),
    };
    Some(
        Diagnostic::error(
            src,
            Lint::ExpectFailed.code(),
            e.span,
            format!(
                "expected {wanted}, got {} with {} risk",
                got.action, got.risk
            ),
        )
        .label(format!("decided by {}", got.rule))
        .help(format!("reason: {}", got.reason)),
    )
}

/// The lints over a file's rules, in order.
pub fn rule_lints(rules: &[(Arc<Source>, &Rule)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, (src, r)) in rules.iter().enumerate() {
        if let Some(d) = broad_allow(src, r) {
            out.push(d);
        }
        out.extend(dead_path_matchers(src, r));
        out.extend(allows_secret(src, r));
        for (esrc, earlier) in &rules[..i] {
            if let Some(d) = against_earlier(src, r, esrc, earlier) {
                out.push(d);
                break;
            }
        }
    }
    out
}

fn head(r: &Rule) -> String {
    let mut text = print::print_statement(&Statement::Rule(Rule {
        risk: None,
        reason: None,
        ..r.clone()
    }));
    text.pop();
    text
}

fn against_earlier(
    src: &Arc<Source>,
    r: &Rule,
    esrc: &Arc<Source>,
    earlier: &Rule,
) -> Option<Diagnostic> {
    if !covers(earlier, r) {
        return None;
    }
    let line = esrc.line(earlier.span.start);
    let where_ = if Arc::ptr_eq(src, esrc) {
        format!("line {line}")
    } else {
        format!("{}:{line}", esrc.name)
    };
    // Allow rules read commands as written, deny and ask rules by meaning; a rule without
    // matchers reads neither, so it shadows whatever follows.
    let view_free = earlier.matchers.as_ref().is_none_or(|m| m.is_empty());
    let same_view =
        view_free || (earlier.action.value == Action::Allow) == (r.action.value == Action::Allow);
    let body = |x: &Rule| {
        let h = head(x);
        h.split_once(' ').map(|(_, b)| b.to_string()).unwrap_or(h)
    };
    if earlier.action.value == r.action.value && body(earlier) == body(r) {
        return Some(
            Diagnostic::warning(
                src,
                Lint::DuplicateRule.code(),
                r.span,
                format!("duplicate of the rule at {where_}"),
            )
            .also(earlier.span, "first written here")
            .help("remove one of them"),
        );
    }
    if same_view {
        return Some(
            Diagnostic::warning(
                src,
                Lint::ShadowedRule.code(),
                r.span,
                format!(
                    "this rule never decides: the rule at {where_} matches every call it matches"
                ),
            )
            .label("never reached")
            .also(earlier.span, "matches first")
            .help("move it above the broader rule, or remove it"),
        );
    }
    if earlier.action.value == Action::Allow {
        return Some(
            Diagnostic::warning(
                src,
                Lint::AllowSwallows.code(),
                earlier.span,
                format!(
                    "this allow matches every call that the later `{}` rule matches",
                    r.action.value
                ),
            )
            .label("allows first")
            .also(r.span, "decides only re-spelled commands")
            .help(format!(
                "put the `{}` rule first, or add `unless` to the allow",
                r.action.value
            )),
        );
    }
    None
}

fn broad_allow(src: &Arc<Source>, r: &Rule) -> Option<Diagnostic> {
    if r.action.value != Action::Allow || !r.unless.is_empty() {
        return None;
    }
    let tool = &*r.tool.value;
    let any_tool = tool.chars().all(|c| c == '*');
    let bashy = tool == "bash"
        || (tool.contains('*')
            && crate::engine::pattern::Pattern::command(tool).is_ok_and(|p| p.is_match("bash")));
    let everything = match &r.matchers {
        None => true,
        Some(ms) => ms.is_empty() || ms.iter().all(matches_everything),
    };
    if !(everything && (bashy || any_tool)) {
        return None;
    }
    let what = if any_tool {
        "every call of every tool"
    } else {
        "every bash command"
    };
    Some(
        Diagnostic::warning(src, Lint::BroadAllow.code(), r.span, format!("this rule allows {what}"))
            .label("overly broad")
            .help("allow what you need, e.g. `allow bash(prefix \"git status\");`, or use the bypass mode for a session"),
    )
}

/// An allow rule whose path values name a secret file by the catalogue's kinds: the shipped
/// default denies reading it, and this rule lifts that for the files it names.
fn allows_secret(src: &Arc<Source>, r: &Rule) -> Vec<Diagnostic> {
    use crate::knowledge::secrets;
    if r.action.value != Action::Allow {
        return Vec::new();
    }
    let tool = &*r.tool.value;
    let file_tool = crate::call::is_file_tool(tool);
    let paths = |m: &&Matcher| {
        m.arg.is_none()
            && match m.kind {
                MatcherKind::Path => true,
                MatcherKind::Shorthand | MatcherKind::Glob | MatcherKind::Exact => file_tool,
                MatcherKind::Argument | MatcherKind::Operand => tool == "bash",
                _ => false,
            }
    };
    r.matchers
        .iter()
        .flatten()
        .filter(paths)
        .flat_map(|m| &m.values)
        .filter_map(|v| {
            let text = &*v.value;
            let holds = match secrets::kind_by_name(Path::new(text)) {
                Some(k) => format!(": `{text}` holds {}", k.holds),
                None if secrets::is_glob(text) && secrets::may_name_secret(&[text]) => {
                    " (files it matches may be secrets)".to_string()
                }
                None => return None,
            };
            Some(
                Diagnostic::warning(
                    src,
                    Lint::AllowsSecret.code(),
                    v.span,
                    format!("this rule allows `{text}`, a secret by the catalogue{holds}"),
                )
                .label("a secret file")
                .help("keep it if these are test fixtures the agent may read; otherwise narrow the rule"),
            )
        })
        .collect()
}

/// `path` compares the path of a file tool and the paths a bash command names; nothing else.
fn dead_path_matchers(src: &Arc<Source>, r: &Rule) -> Vec<Diagnostic> {
    // A misspelt tool (`read_flie`) is said once, as the tool it was meant to be.
    let tool = crate::call::likely_tool(&r.tool.value).unwrap_or(&*r.tool.value);
    let has_paths = tool.contains(['*', '?']) || tool == "bash" || crate::call::is_file_tool(tool);
    let groups = r.matchers.iter().chain(r.unless.iter());
    groups
        .flatten()
        .filter(|m| m.kind == MatcherKind::Path && (m.arg.is_some() || !has_paths))
        .map(|m| {
            let why = if m.arg.is_some() {
                "`path` after `arg` never matches: an argument's value is compared as text"
            } else {
                "`path` never matches here: this tool's calls have no path the engine reads"
            };
            Diagnostic::warning(src, Lint::PathNeverMatches.code(), m.span, why)
                .label("never matches")
                .help("compare an argument with a glob instead: `arg file glob \"src/**\"`; `path` works for bash and the file tools")
        })
        .collect()
}

fn matches_everything(m: &Matcher) -> bool {
    m.arg.is_none()
        && m.values.iter().any(|v| match m.kind {
            MatcherKind::Shorthand | MatcherKind::Glob => {
                v.value.chars().all(|c| c == '*') && !v.value.is_empty()
            }
            MatcherKind::Contains => v.value.is_empty(),
            MatcherKind::Regex => matches!(&*v.value, "" | ".*" | "^.*" | "^.*$" | ".*$"),
            MatcherKind::Prefix => v.value.trim().is_empty(),
            _ => false,
        })
}

/// Rules of a file that the managed tier makes dead: a managed deny or ask that covers every
/// call of the rule (see [`covers`]) and is stricter decides those calls, whatever the rule
/// says. Nothing for a file of the managed tier itself.
pub fn dead_by_managed(
    managed: &[std::path::PathBuf],
    path: &Path,
    rules: &[(Arc<Source>, &Rule)],
) -> Vec<Diagnostic> {
    let same = |a: &Path| match (a.canonicalize(), path.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == path,
    };
    if managed.is_empty() || managed.iter().any(|m| same(m)) {
        return Vec::new();
    }
    let loaded: Vec<policy::Loaded> = managed
        .iter()
        .filter_map(|m| policy::load(&Origin::File(m.clone())).ok())
        .collect();
    let floors: Vec<(&Arc<Source>, &Rule)> = loaded
        .iter()
        .flat_map(|l| &l.statements)
        .filter_map(|(src, st)| match st {
            Statement::Rule(r) if r.action.value != Action::Allow => Some((src, r)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for (src, r) in rules {
        let Some((msrc, m)) = floors
            .iter()
            .find(|(_, m)| m.action.value > r.action.value && covers(m, r))
        else {
            continue;
        };
        let line = msrc.line(m.span.start);
        let does = match m.action.value {
            Action::Deny => "denies",
            Action::Sandbox => "runs contained",
            _ => "asks about",
        };
        out.push(
            Diagnostic::warning(
                src,
                Lint::ManagedDead.code(),
                r.span,
                format!(
                    "the managed policy {does} every call this rule matches ({}:{line}), so \
                     this rule never decides",
                    msrc.name
                ),
            )
            .help("remove the rule, or ask whoever manages this machine's policy"),
        );
    }
    out
}

/// Whether every call rule `b` matches, rule `a` matches too. Conservative: `false` when unsure,
/// so a lint built on it never claims what is not so.
pub fn covers(a: &Rule, b: &Rule) -> bool {
    if !a.unless.is_empty() {
        return false;
    }
    let tool_ok = a.tool.value == b.tool.value
        || (a.tool.value.contains(['*', '?'])
            && !b.tool.value.contains(['*', '?'])
            && crate::engine::pattern::Pattern::command(&a.tool.value)
                .is_ok_and(|p| p.is_match(&b.tool.value)));
    if !tool_ok {
        return false;
    }
    let am = a.matchers.as_deref().unwrap_or(&[]);
    if am.is_empty() {
        return true;
    }
    let bm = b.matchers.as_deref().unwrap_or(&[]);
    am.iter()
        .all(|ma| bm.iter().any(|mb| matcher_covers(ma, mb)))
}

fn matcher_covers(a: &Matcher, b: &Matcher) -> bool {
    if a.arg.as_ref().map(|x| &x.value) != b.arg.as_ref().map(|x| &x.value) {
        return false;
    }
    if !a.kind.takes_value() || !b.kind.takes_value() {
        return a.kind == b.kind;
    }
    b.values.iter().all(|vb| {
        a.values
            .iter()
            .any(|va| value_covers(a.kind, &va.value, b.kind, &vb.value))
    })
}

/// The literal text before the first wildcard of a glob.
fn literal_prefix(g: &str) -> &str {
    g.find(['*', '?', '[', '{', '\\']).map_or(g, |i| &g[..i])
}

fn value_covers(ka: MatcherKind, va: &str, kb: MatcherKind, vb: &str) -> bool {
    use MatcherKind::*;
    let glob_like = |k: MatcherKind, v: &str| k == Glob || (k == Shorthand && v.contains('*'));
    let contains_like =
        |k: MatcherKind, v: &str| k == Contains || (k == Shorthand && !v.contains('*'));
    if ka == kb && va == vb {
        return true;
    }
    // What every string matched by `b` is known to start with / contain.
    let b_prefix: Option<&str> = if glob_like(kb, vb) {
        Some(literal_prefix(vb))
    } else if kb == Exact {
        Some(vb)
    } else {
        None
    };
    let b_contains: Option<&str> = if contains_like(kb, vb) {
        Some(vb)
    } else {
        b_prefix
    };
    if glob_like(ka, va) {
        if va.chars().all(|c| c == '*') {
            return true;
        }
        if let Some(p) = va
            .strip_suffix('*')
            .filter(|p| !crate::engine::paths::has_meta(p))
        {
            return b_prefix.is_some_and(|bp| bp.starts_with(p));
        }
        if let Some(inner) = va
            .strip_prefix('*')
            .and_then(|v| v.strip_suffix('*'))
            .filter(|i| !crate::engine::paths::has_meta(i))
        {
            return b_contains.is_some_and(|bc| bc.contains(inner));
        }
        return kb == Exact
            && crate::engine::pattern::Pattern::command(va).is_ok_and(|p| p.is_match(vb));
    }
    if contains_like(ka, va) {
        return b_contains.is_some_and(|bc| bc.contains(va));
    }
    match (ka, kb) {
        (Prefix, Prefix) | (Prefix, Exact) => {
            let ta: Vec<&str> = va.split_whitespace().collect();
            let tb: Vec<&str> = vb.split_whitespace().collect();
            ta.len() <= tb.len() && ta.iter().zip(&tb).all(|(x, y)| x == y)
        }
        (Program, Prefix) => vb.split_whitespace().next() == Some(va),
        (Program, Program) => va == vb,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_has_its_own_kebab_case_code() {
        let mut codes: Vec<&str> = Lint::ALL.iter().map(|l| l.code()).collect();
        assert!(codes
            .iter()
            .all(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-')));
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Lint::ALL.len());
    }
    use crate::policy::parse_policy;

    fn lints(text: &str) -> Vec<(String, String)> {
        let src = Source::new("t.policy", text);
        let (f, d) = parse_policy(&src);
        assert!(
            d.is_empty(),
            "{:?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        let rules: Vec<_> = f
            .statements
            .iter()
            .filter_map(|s| match s {
                Statement::Rule(r) => Some((src.clone(), r)),
                _ => None,
            })
            .collect();
        rule_lints(&rules)
            .into_iter()
            .map(|d| (d.code.to_string(), d.source.slice(d.span()).to_string()))
            .collect()
    }

    #[test]
    fn duplicate_rules_are_reported_at_the_second() {
        assert_eq!(
            lints("allow bash(\"git *\");\nallow bash(\"git *\") reason \"again\";"),
            [(
                "duplicate-rule".into(),
                "allow bash(\"git *\") reason \"again\"".into()
            )]
        );
    }

    #[test]
    fn a_rule_behind_a_broader_one_of_the_same_kind_is_shadowed() {
        let l = lints("ask bash(prefix \"git\");\ndeny bash(prefix \"git push\");");
        assert_eq!(
            l,
            [(
                "shadowed-rule".into(),
                "deny bash(prefix \"git push\")".into()
            )]
        );
        let l = lints("allow bash(\"git *\");\nallow bash(\"git log*\");");
        assert_eq!(l[0].0, "shadowed-rule");
    }

    #[test]
    fn an_allow_before_a_narrower_deny_swallows_it() {
        let l = lints("allow bash(\"git *\");\ndeny bash(\"git push --force*\");");
        assert_eq!(
            l,
            [("allow-swallows".into(), "allow bash(\"git *\")".into())]
        );
    }

    #[test]
    fn rules_that_only_overlap_are_not_reported() {
        assert!(lints(
            "allow bash(\"git *\") unless contains \"push\";\ndeny bash(\"git push*\");"
        )
        .is_empty());
        assert!(lints("deny bash(prefix \"git push\");\nallow bash(prefix \"git\");").is_empty());
        assert!(lints("allow bash(\"*test*\");\ndeny bash(\"rm *\");").is_empty());
        assert!(lints("allow read_file(\"src/**\");\ndeny write_file(\"src/**\");").is_empty());
        assert!(lints(
            "ask bash(program \"rm\", flag \"-f\");\nask bash(self_call);\nask bash(piped);"
        )
        .is_empty());
    }

    #[test]
    fn a_path_matcher_that_compares_no_path_is_reported() {
        let found = lints("deny mcp__fs__read(path \"~/secret/**\");\ndeny mcp__x(arg file path \"a/**\");\ndeny read_file(path \"a/**\");\ndeny bash(path \"a/**\");");
        let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            codes,
            ["path-never-matches", "path-never-matches"],
            "{found:?}"
        );
    }

    #[test]
    fn allowing_every_bash_command_is_broad() {
        for text in [
            "allow bash;",
            "allow bash(\"*\");",
            "allow *;",
            "allow bash(regex \".*\");",
        ] {
            assert_eq!(lints(text)[0].0, "broad-allow", "{text}");
        }
        assert!(lints("allow bash(\"* --help\");").is_empty());
    }
}

#[cfg(test)]
mod silence_tests {
    use super::*;

    fn codes(text: &str) -> Vec<(String, String)> {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let path = dir.path().join("t.policy");
        std::fs::write(&path, text).expect("the policy is written");
        let opts = Options {
            builtin: true,
            ctx: PathContext::new(dir.path(), Some("/home/u".into())),
            strict: false,
            managed: Vec::new(),
            allow_dead: false,
        };
        lint_file(&path, &opts)
            .diagnostics
            .iter()
            .map(|d| (d.code.to_string(), d.message.clone()))
            .collect()
    }

    #[test]
    fn an_allow_of_a_secret_file_is_reported() {
        let c = codes("allow read_file(path \".env.test\");\nallow read_file(path \"docs/**\");\n");
        assert_eq!(
            c.iter().filter(|(code, _)| code == "allows-secret").count(),
            1,
            "{c:?}"
        );
        let c = codes("allow bash(argument \"*.pem\");\n");
        assert!(c.iter().any(|(code, _)| code == "allows-secret"), "{c:?}");
        let c = codes("deny read_file(path \".env\");\nallow read_file(path \".env.example\");\n");
        assert!(!c.iter().any(|(code, _)| code == "allows-secret"), "{c:?}");
    }

    #[test]
    fn an_allow_that_silences_a_high_risk_builtin_says_which() {
        let found = codes("allow bash(\"git *\");\n");
        let silencing: Vec<_> = found
            .iter()
            .filter(|(code, _)| code == "silences-builtin")
            .collect();
        assert_eq!(silencing.len(), 1, "{found:?}");
        assert!(silencing[0].1.contains("force-push"), "{}", silencing[0].1);
        assert!(
            silencing[0].1.contains("reset --hard"),
            "{}",
            silencing[0].1
        );
        // Exceptions for the dangerous ones quiet it.
        let quiet = codes(
            "allow bash(\"git *\") unless subcommand [\"push\", \"reset\", \"clean\", \"checkout\", \
             \"restore\", \"stash\", \"branch\", \"rebase\", \"filter-branch\", \"prune\", \
             \"update-ref\", \"send-email\", \"send-pack\", \"lfs\", \"difftool\", \
             \"mergetool\", \"daemon\", \"instaweb\", \"http-backend\", \"shell\", \
             \"upload-pack\", \"receive-pack\", \"web--browse\", \"bisect\", \
             \"submodule\"];\n",
        );
        assert!(
            quiet.iter().all(|(code, _)| code != "silences-builtin"),
            "{quiet:?}"
        );
    }

    /// The one `silences-builtin` message of a policy, or a panic saying what was found.
    fn silenced(policy: &str) -> String {
        let found = codes(policy);
        let mut it = found
            .iter()
            .filter(|(code, _)| code == "silences-builtin")
            .map(|(_, m)| m.clone());
        match (it.next(), it.next()) {
            (Some(m), None) => m,
            _ => panic!("not one silences-builtin warning for {policy:?}: {found:?}"),
        }
    }

    #[test]
    fn an_allow_is_judged_by_probe_commands_of_the_programs_it_names() {
        // No `expect` of the built-in policy names these: the verb tables and the effects data
        // do.
        let m = silenced("allow bash(\"cargo *\");\n");
        assert!(m.contains("`cargo yank"), "{m}");
        let m = silenced("allow bash(\"cargo install *\");\n");
        assert!(m.contains("`cargo install --git"), "{m}");
        let m = silenced("allow bash(\"npm *\");\n");
        assert!(m.contains("`npm unpublish"), "{m}");
        let m = silenced("allow bash(regex \"^npm unpublish\");\n");
        assert!(m.contains("`npm unpublish"), "{m}");
        // What these programs do that only reads is not reported.
        let quiet = codes("allow bash(exact \"cargo tree\");\nallow bash(exact \"npm ls\");\n");
        assert!(
            quiet.iter().all(|(code, _)| code != "silences-builtin"),
            "{quiet:?}"
        );
    }
}
