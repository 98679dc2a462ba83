//! What a hook is: one layer of the onion around a tool call, what travels along the chain
//! with the call, and what a hook says about it.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{CancelToken, DecisionRecord, Proposal, ToolResult};
use crate::call::{Action, Risk, RuleRef, ToolCall};
use crate::engine::Engine;

/// How an allowed call is to run: contained, under a sandbox profile, hiding what the engine
/// that decided it protects.
#[derive(Debug, Clone)]
pub struct Containment {
    /// The sandbox profile (`build`).
    pub profile: String,
    /// The engine that decided: its hard protections are hidden from the command.
    pub engine: Arc<Engine>,
}

impl PartialEq for Containment {
    fn eq(&self, other: &Self) -> bool {
        self.profile == other.profile && Arc::ptr_eq(&self.engine, &other.engine)
    }
}

/// A person's approval, recorded on the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HumanApproval {
    /// `allow-once`, `allow-session`, `always-allow`.
    pub answer: &'static str,
    /// The hook whose ask the person answered.
    pub hook: String,
}

/// An explicit allow by a hook's rule, recorded on the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleAllow {
    pub hook: String,
    pub rule: Option<RuleRef>,
}

/// What travels along the chain with a call.
#[derive(Debug, Clone, Default)]
pub struct HookContext {
    /// Set when a person approved the call: later asks are not put to them again.
    pub approved_by_human: Option<HumanApproval>,
    /// Set when a hook allowed the call by a rule (a decision with `rule` set): later asks are
    /// skipped. A caller passes a fresh context for each call: markers it sets itself count.
    pub allowed_by_rule: Option<RuleAllow>,
    /// The turn this call belongs to.
    pub cancel: CancelToken,
}

/// A hook's verdict on a call.
#[derive(Debug, Clone, PartialEq)]
pub struct HookDecision {
    pub action: Action,
    pub reason: String,
    pub risk: Risk,
    /// The rule that decided (`builtin.policy:12`), when one did.
    pub rule: Option<RuleRef>,
    /// Arguments that replace the call's for every later hook and for the tool (allow only).
    pub modified_args: Option<Map<String, Value>>,
    /// For an ask: the rules "always allow" would write (see [`super::propose`]).
    pub proposal: Option<Proposal>,
    /// An ask of the managed tier: only a person answers it, each time (no mode, session
    /// memory, earlier hook's allow or headless setting approves it).
    pub managed: bool,
    /// An ask about a call the analysis does not know whole: auto-approve does not approve it,
    /// and with no one to ask it is denied.
    pub unknown: bool,
    /// For an allow: the call runs contained so (a `sandbox` decision). A runner that cannot
    /// contain it has it asked about instead; it never runs free on this allow. For an ask
    /// about a line with contained parts: how it runs when a mode approves it (a person's
    /// approval runs it as the person saw it).
    pub contained: Option<Containment>,
}

impl HookDecision {
    pub fn allow() -> Self {
        HookDecision {
            action: Action::Allow,
            reason: String::new(),
            risk: Risk::Low,
            rule: None,
            modified_args: None,
            proposal: None,
            managed: false,
            unknown: false,
            contained: None,
        }
    }

    pub fn deny(reason: impl Into<String>) -> Self {
        HookDecision {
            action: Action::Deny,
            reason: reason.into(),
            risk: Risk::High,
            rule: None,
            modified_args: None,
            proposal: None,
            managed: false,
            unknown: false,
            contained: None,
        }
    }

    pub fn ask(reason: impl Into<String>, risk: Risk) -> Self {
        HookDecision {
            action: Action::Ask,
            reason: reason.into(),
            risk,
            rule: None,
            modified_args: None,
            proposal: None,
            managed: false,
            unknown: false,
            contained: None,
        }
    }

    pub fn with_rule(mut self, rule: impl Into<RuleRef>) -> Self {
        self.rule = Some(rule.into());
        self
    }

    pub fn with_args(mut self, args: Map<String, Value>) -> Self {
        self.modified_args = Some(args);
        self
    }

    pub fn with_risk(mut self, risk: Risk) -> Self {
        self.risk = risk;
        self
    }
}

/// A hook's failure: the call ends with an error result and does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError(pub String);

impl std::fmt::Display for HookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HookError {}

impl From<String> for HookError {
    fn from(s: String) -> Self {
        HookError(s)
    }
}

/// One layer of the onion around a tool call.
#[async_trait]
pub trait ToolHook: Send + Sync {
    /// The hook's name, for records (`permission`, `danger`, `audit`).
    fn name(&self) -> &str;

    async fn before_execute(
        &self,
        ctx: HookContext,
        _call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        Ok((ctx, HookDecision::allow()))
    }

    async fn after_execute(
        &self,
        _ctx: &HookContext,
        _call: &ToolCall,
        result: ToolResult,
    ) -> ToolResult {
        result
    }

    /// Sees the final decision of every call, denied or not (the audit hook writes it down).
    fn on_decision(&self, _record: &DecisionRecord) {}
}
