//! What runs a tool once the hooks let a call through: the runner, its check of a call's
//! arguments, and what the call produced.

use async_trait::async_trait;
use serde::Serialize;

use super::{CancelToken, Containment};
use crate::call::ToolCall;

/// What a tool call produced, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolResult {
    pub content: String,
    pub status: ResultStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultStatus {
    Ok,
    /// The tool ran and failed, or a hook failed.
    Error,
    /// The call was denied and did not run.
    Denied,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            status: ResultStatus::Ok,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            status: ResultStatus::Error,
        }
    }

    pub fn denied(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            status: ResultStatus::Denied,
        }
    }
}

/// Why a tool call is not one the tool takes; it is denied before anything runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidCall {
    #[error("unknown tool `{name}`{}; the tools are {}", did_you_mean(suggestion), tools.join(", "))]
    UnknownTool {
        name: String,
        suggestion: Option<String>,
        /// Every tool there is.
        tools: Vec<String>,
    },
    #[error("`{tool}` has no argument `{argument}`{}; it takes {}", did_you_mean(suggestion), takes.join(", "))]
    UnknownArgument {
        tool: String,
        argument: String,
        suggestion: Option<String>,
        /// Every argument the tool takes.
        takes: Vec<String>,
    },
    /// `kind` says what the argument is (`a non-empty string`).
    #[error("`{tool}` needs the argument `{argument}` ({kind})")]
    MissingArgument {
        tool: String,
        argument: String,
        kind: String,
    },
    /// `expected` is what the argument must be, `got` what it is (`an integer`, `empty`).
    #[error("`{tool}`'s argument `{argument}` must be {expected}, not {got}")]
    WrongType {
        tool: String,
        argument: String,
        expected: String,
        got: String,
    },
    /// The check itself panicked (with this message): the call is treated as malformed.
    #[error("checking the arguments panicked: {0}")]
    Panicked(String),
    /// A runner's own reason, for checks other than the tool table's.
    #[error("{0}")]
    Rejected(String),
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// Runs a tool once the hooks let a call through.
#[async_trait]
pub trait ToolRunner: Send + Sync {
    /// Checks a call's arguments before anything runs: a malformed call is denied, and so are
    /// arguments a hook modified into something the tool does not take.
    fn validate(&self, call: &ToolCall) -> Result<(), InvalidCall>;

    async fn run(&self, call: &ToolCall, cancel: &CancelToken) -> ToolResult;

    /// Whether this runner can run `call` contained ([`ToolRunner::run_contained`]). Where it
    /// cannot, a call the policy would contain is asked about instead.
    fn contains(&self, _call: &ToolCall) -> bool {
        false
    }

    /// Runs `call` in the sandbox `how` says. Never runs it free: a runner that cannot
    /// contain it (the default) says so, and the call does not run.
    async fn run_contained(
        &self,
        call: &ToolCall,
        how: &Containment,
        cancel: &CancelToken,
    ) -> ContainedRun {
        let _ = (call, cancel);
        ContainedRun {
            result: ToolResult::error(format!(
                "this tool cannot run a call in the sandbox (profile `{}`); it did not run",
                how.profile
            )),
            sandbox_sign: None,
        }
    }
}

/// What a contained run produced, and, when it failed, why the failure looks like the
/// sandbox's doing (see [`crate::sandbox::failure::sandbox_sign`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainedRun {
    pub result: ToolResult,
    /// Set only for a failure whose output says the sandbox stopped it (or a sandbox that
    /// could not start): such a failure may be offered a run outside, by a person's approval.
    pub sandbox_sign: Option<String>,
}
