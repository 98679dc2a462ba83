//! Permission modes: how a decision is adjusted for the session's mode. Modes never turn a deny
//! into an allow, and never lift a hard protection.

use std::fmt;
use std::str::FromStr;

use super::Engine;
use crate::call::{Action, Decision, Risk, ToolCall};
use crate::rule_ref::RuleRef;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Asks reach the human.
    #[default]
    Default,
    /// Asks of low and medium risk are approved; high risk still asks.
    AutoApprove,
    /// Every call that may change something is denied.
    ReadOnly,
    /// Every ask is approved; denies and hard protections still hold.
    Bypass,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::Default,
        Mode::AutoApprove,
        Mode::ReadOnly,
        Mode::Bypass,
    ];

    /// Whether this mode approves an ask of `risk` without a person: bypass every one,
    /// auto-approve those of low and medium risk. (The runtime and the engine both ask this;
    /// the managed tier's asks are never put to it.)
    pub fn approves_ask(self, risk: Risk) -> bool {
        self.approves(risk, false)
    }

    /// Whether this mode approves an ask of `risk` about a call the analysis knows whole
    /// (`unknown` false) or not: auto-approve approves only known calls (bypass every ask).
    pub fn approves(self, risk: Risk, unknown: bool) -> bool {
        match self {
            Mode::Bypass => true,
            Mode::AutoApprove => risk <= Risk::Medium && !unknown,
            Mode::Default | Mode::ReadOnly => false,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AutoApprove => "auto-approve",
            Mode::ReadOnly => "read-only",
            Mode::Bypass => "bypass",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                format!("unknown mode `{s}` (modes: default, auto-approve, read-only, bypass)")
            })
    }
}

/// Adjusts a decision for a mode. A `sandbox` decision is not an ask: no mode runs it free
/// (default, auto-approve and bypass keep it contained; read-only denies it, as it may change
/// something). Where it became an ask (no sandbox), it is adjusted as any ask of its risk.
pub fn apply(engine: &Engine, call: &ToolCall, d: Decision, mode: Mode) -> Decision {
    // An unknown call is not approved by auto-approve: only known effects are.
    let approved = d.action == Action::Ask && mode.approves(d.risk, d.unknown);
    // An approved ask about a line some of whose parts would only run contained runs
    // contained: approving the ask does not let those parts out.
    if approved && matches!(mode, Mode::AutoApprove | Mode::Bypass) && d.profile.is_some() {
        return Decision {
            action: Action::Sandbox,
            reason: format!(
                "approved by {mode} mode ({} risk) and run in the sandbox, as parts of the line \
                 must be: {}",
                d.risk, d.reason
            ),
            ..d
        };
    }
    match mode {
        Mode::Default => d,
        Mode::AutoApprove if approved => Decision {
            action: Action::Allow,
            reason: format!(
                "auto-approved ({} risk, auto-approve mode): {}",
                d.risk, d.reason
            ),
            ..d
        },
        Mode::Bypass if approved => Decision {
            action: Action::Allow,
            reason: format!("approved by bypass mode: {}", d.reason),
            ..d
        },
        Mode::AutoApprove | Mode::Bypass => d,
        Mode::ReadOnly if d.action == Action::Deny => d,
        Mode::ReadOnly if engine.is_read_only(call) => d,
        Mode::ReadOnly => Decision::new(
            Action::Deny,
            d.risk.max(Risk::Medium),
            format!("read-only mode: `{}` may change something", call.name),
            RuleRef::ReadOnlyMode,
        ),
    }
}
