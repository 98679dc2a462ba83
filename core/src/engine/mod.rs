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
//! A `sandbox` rule's decision (run the command contained) is weaker than any deny or ask:
//! after it the built-in rules still count and the stricter stands, while the default does not
//! (it is what the rule answers instead). Where the caller cannot run a command contained (see
//! [`EngineBuilder::sandbox`]) the decision is an ask saying why.
//!
//! A bash call is split into the simple commands it runs; each is decided on its own and the
//! strictest decision stands. A command that cannot be analysed is asked about with high risk.

mod builder;
mod chain;
mod compile;
mod eval;
mod explain;
pub mod index;
mod layers;
pub mod links;
mod memo;
pub mod mode;
pub mod paths;
pub mod pattern;
mod protect;
mod protections;
mod pseudo;
pub mod rule;
pub mod view;

use std::sync::Arc;

use crate::call::{Action, Decision, Risk, ToolCall};
use crate::diag::{Diagnostic, Source};
use crate::policy::ast::Expect;
use crate::rule_ref::{Held, RuleRef};
use crate::settings;
pub use builder::{EngineBuilder, LoadError};
pub use chain::Chain;
use compile::Compiler;
use eval::Opts;
pub use explain::{Explanation, Hit, Layer, Part};
pub use mode::Mode;
pub use paths::PathContext;
pub use protect::{Protection, Protections};
pub use pseudo::{pseudo_commands, MAX_PSEUDO_WORDS};
use rule::CompiledRule;
use serde_json::Value;

/// An allow rule given to [`Engine::compile_allow_rules`] that does not compile; the
/// diagnostic says which and why (its message is this error's text).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", .diagnostic.message)]
pub struct InvalidRule {
    pub diagnostic: Diagnostic,
}

/// The compiled policy: ask it about tool calls.
#[derive(Debug)]
pub struct Engine {
    ctx: PathContext,
    protections: Protections,
    user: Vec<Chain>,
    builtin: Option<Chain>,
    readonly: Chain,
    default: Decision,
    /// The policy's own files and folders (as resolved, and where their symlinks lead): a
    /// write to them is asked about at high risk (see [`POLICY_FILES_RULE`]).
    guarded: protect::Guarded,
    /// How an ask resolves per risk when no person can answer (`headless` statements).
    headless: Headless,
    expects: Vec<(Arc<Source>, Expect)>,
    warnings: Vec<Diagnostic>,
    /// The last lines analysed: the questions about one call analyse its line once.
    recent: memo::Recent,
    /// Built to decide calls of this tool only (see [`EngineBuilder::for_tool`]).
    only_tool: Option<String>,
    /// Whether the caller runs `sandbox` decisions contained (see [`EngineBuilder::sandbox`]).
    sandbox: crate::sandbox::Support,
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
pub const POLICY_FILES_RULE: RuleRef = RuleRef::PolicyFilesGuard;

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

    /// Whether the caller said it runs `sandbox` decisions contained; when not, such a
    /// decision comes out as an ask saying why.
    pub fn sandbox_support(&self) -> &crate::sandbox::Support {
        &self.sandbox
    }

    /// The same engine answering as a caller with `support` would be answered (`harness9
    /// test` checks a policy's `expect`s as where the sandbox is available).
    pub fn set_sandbox_support(&mut self, support: crate::sandbox::Support) {
        self.sandbox = support;
    }

    pub fn protections(&self) -> &Protections {
        &self.protections
    }

    /// Whether the shipped default policy sits under the policy files.
    pub fn has_shipped_default(&self) -> bool {
        self.user.iter().any(|c| c.shipped_default)
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

    /// Decides a call as where the sandbox is available, whatever [`EngineBuilder::sandbox`]
    /// said: what the policy decides (the `expect` statements are checked so).
    pub fn decide_where_contained(&self, call: &ToolCall) -> Decision {
        let o = Opts {
            contained_ok: true,
            ..Opts::default()
        };
        self.evaluate(call, o, None)
    }

    /// Decides a call under a permission mode (see [`Mode`]).
    pub fn decide_in_mode(&self, call: &ToolCall, mode: Mode) -> Decision {
        let d = self.decide(call);
        let d = mode::apply(self, call, d, mode);
        self.hold_managed(call, d)
    }

    /// Whether the engine has a managed tier.
    pub fn has_managed(&self) -> bool {
        self.user.iter().any(|c| c.managed)
    }

    /// What the managed tier denies or asks about this call, if anything: the floor no mode,
    /// session answer or headless setting may go below.
    pub fn managed_floor(&self, call: &ToolCall) -> Option<Decision> {
        if !self.has_managed() {
            return None;
        }
        let o = Opts {
            managed_only: true,
            ..Opts::default()
        };
        let d = self.evaluate(call, o, None);
        (d.action != Action::Allow && d.rule.is_managed()).then_some(d)
    }

    /// `d`, or the managed floor when `d` is looser than it (an ask of the managed tier that a
    /// mode or a session rule would allow stays an ask).
    pub fn hold_managed(&self, call: &ToolCall, d: Decision) -> Decision {
        match self.managed_floor(call) {
            Some(floor) if floor.action > d.action => floor,
            _ => d,
        }
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
        let d = mode::apply(self, call, d, mode);
        self.hold_managed(call, d)
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
    /// How many command lines this engine has analysed. A line asked about again soon after
    /// (the built-in layer, the managed floor, an explanation or a proposal's check of the
    /// same call) is not analysed again.
    pub fn lines_analysed(&self) -> usize {
        self.recent.analysed()
    }

    pub fn headless(&self) -> Headless {
        self.headless
    }

    /// Compiles allow rules written in settings.json's format (`bash(git commit *)`) against
    /// this engine's folders: the session memory and "always allow" proposals. Rule `i`
    /// decides as [`RuleRef::Memory`] `i+1` (`session:3`).
    pub fn compile_allow_rules(&self, held: Held, rules: &[String]) -> Result<Chain, InvalidRule> {
        let name = held.as_str();
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
        let mut compiled: Vec<CompiledRule> = parsed
            .iter()
            .filter_map(|r| compiler.rule(&source, r))
            .collect();
        for r in &mut compiled {
            if let RuleRef::File { line, .. } = r.origin.rule {
                r.origin.rule = RuleRef::Memory { held, n: line };
            }
        }
        if let Some(d) = diags.iter().chain(&compiler.diags).find(|d| d.is_error()) {
            return Err(InvalidRule {
                diagnostic: d.clone(),
            });
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
}
