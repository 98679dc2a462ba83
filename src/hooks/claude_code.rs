//! Claude Code's `PreToolUse` hook: the event on standard input, the permission decision on
//! standard output.
//!
//! Input (unknown fields ignored): `{"session_id", "transcript_path", "cwd", "permission_mode",
//! "hook_event_name": "PreToolUse", "tool_name", "tool_input", "tool_use_id"}`.
//! Output: `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
//! "allow" | "deny" | "ask", "permissionDecisionReason": "…"}}`.
//!
//! Tools: `Bash` → `bash` (`command`); `Read` → `read_file`; `Write` → `write_file`; `Edit`,
//! `MultiEdit` → `edit_file` (`path` = `file_path`); `NotebookEdit` → `edit_file`,
//! `NotebookRead` → `read_file` (`path` = `notebook_path`); `LS` → `list_dir`; every other tool
//! (`WebFetch`, `Grep`, `Glob`, `mcp__…`) keeps its name and its input as arguments — the hard
//! protections still read its `path`.
//!
//! Claude Code's permission modes ([`PermissionMode`]) adjust the decision, and never turn a
//! deny into an allow.

use serde_json::{json, Value};

use super::{with_path_from, HookCall, ToolEvent};
use crate::call::{Action, Decision, Risk, ToolCall, WRITE_TOOLS};
use crate::engine::{Engine, Mode};

/// The event this adapter answers.
pub const EVENT: &str = "PreToolUse";

/// The event after a call ran: logged (an asked call that ran was approved by the person).
pub const OUTCOME_EVENT: &str = "PostToolUse";

/// Claude Code's tools that change nothing and have no harness9 counterpart: allowed with the
/// shipped default policy (unless a policy file replaces it), as Claude Code itself runs them
/// without asking. The hard protections still apply to their `path`; a subagent's (`Agent`,
/// formerly `Task`) own tool calls come through this hook too, as do the background shells'.
/// Any tool not listed here (`WebFetch`, `WebSearch`, MCP tools, a tool of a newer release) is
/// asked about; so are Claude Code 2.1's tools that schedule work (`CronCreate`,
/// `ScheduleWakeup`), send something off the machine (`PushNotification`, `SendUserFile`,
/// `RemoteTrigger`), start other work (`Skill`, `Workflow`, `SendMessage`), move the session
/// (`EnterWorktree`) or run code harness9 does not read (`PowerShell`).
pub const HARMLESS_TOOLS: [&str; 30] = [
    // Search; loading the definitions of deferred tools (2.1 offers most tools that way).
    "Grep",
    "Glob",
    "ToolSearch",
    // The todo list and task tracker (Claude Code 2.1: `TaskCreate` … `TaskStop`).
    "TodoWrite",
    "TodoRead",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "TaskOutput",
    "TaskStop",
    // Subagents: their own tool calls are decided one by one.
    "Agent",
    "Task",
    // Background shells the agent started: reading their output, stopping them.
    "BashOutput",
    "KillShell",
    "KillBash",
    // Leaving plan mode (Claude Code asks the person itself).
    "ExitPlanMode",
    "EnterPlanMode",
    // Talking with the person, and the conversation's own state (2.1): a question, a message,
    // the goal, the end of the conversation, a subagent handing back.
    "AskUserQuestion",
    "SendUserMessage",
    "SetGoal",
    "EndConversation",
    "SubagentHandback",
    // Listing and reading what the session has: other agents, its own scheduled jobs, the
    // MCP servers' resources (not reading one: a server decides what that does), notifications,
    // a code review's findings to show; waiting for MCP servers to start.
    "ListAgents",
    "CronList",
    "ListMcpResourcesTool",
    "ReadNotifications",
    "ReportFindings",
    "WaitForMcpServers",
    // Code intelligence from a language server: its `filePath` meets the hard protections.
    "LSP",
];

/// [`HARMLESS_TOOLS`] as the policy the hook adds when no policy file is found.
pub fn fallback_policy() -> (&'static str, String) {
    super::allow_policy("claude-code.policy", &HARMLESS_TOOLS)
}

/// The harness9 call for a Claude Code tool call.
pub fn tool_call(event: &ToolEvent) -> HookCall {
    let input = &event.tool_input;
    let (name, arguments) = match event.tool_name.as_str() {
        // `Monitor` runs its `command` in a shell (in the background, watching the output).
        "Bash" | "Monitor" => ("bash", input.clone()),
        "Read" => ("read_file", with_path_from(input, &["file_path"])),
        "Write" => ("write_file", with_path_from(input, &["file_path"])),
        "Edit" | "MultiEdit" => ("edit_file", with_path_from(input, &["file_path"])),
        "NotebookEdit" => ("edit_file", with_path_from(input, &["notebook_path"])),
        "NotebookRead" => ("read_file", with_path_from(input, &["notebook_path"])),
        "LS" => ("list_dir", input.clone()),
        other => (other, input.clone()),
    };
    let mut call = ToolCall::new(name, arguments);
    call.id = tool_use_id(event).map(str::to_string);
    HookCall {
        agent_tool: event.tool_name.clone(),
        call,
    }
}

pub fn tool_use_id(event: &ToolEvent) -> Option<&str> {
    event.raw.get("tool_use_id").and_then(Value::as_str)
}

/// Claude Code's permission mode, as the event reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionMode {
    /// `default` (or none given): harness9's decision as it is.
    Default,
    /// `acceptEdits`: Claude Code accepts file edits without asking. Asks about write and edit
    /// tools that come from the default (no rule of any policy matched) become allows; an
    /// explicit ask rule still asks.
    AcceptEdits,
    /// `plan`: Claude Code itself keeps plan mode read-only; harness9's decision as it is.
    Plan,
    /// `bypassPermissions`: harness9's `auto-approve` mode. Asks of low and medium risk are
    /// approved; high-risk calls (`rm -rf`, a download piped into a shell) still ask, and
    /// denies and hard protections hold.
    BypassPermissions,
    /// `dontAsk`: nobody answers prompts, so every ask becomes a deny.
    DontAsk,
    /// A mode this version does not know: treated as `default`.
    Other(String),
}

impl PermissionMode {
    pub fn parse(s: Option<&str>) -> PermissionMode {
        match s {
            None | Some("default") => PermissionMode::Default,
            Some("acceptEdits") => PermissionMode::AcceptEdits,
            Some("plan") => PermissionMode::Plan,
            Some("bypassPermissions") => PermissionMode::BypassPermissions,
            Some("dontAsk") => PermissionMode::DontAsk,
            Some(other) => PermissionMode::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Other(s) => s,
        }
    }

    /// The harness9 mode the engine decides in.
    pub fn engine_mode(&self) -> Mode {
        match self {
            PermissionMode::BypassPermissions => Mode::AutoApprove,
            _ => Mode::Default,
        }
    }
}

/// Decides a call for Claude Code. `forced` (the hook's `--mode`) replaces the harness9 mode
/// that the permission mode maps to; `dontAsk` still turns asks into denies, since nobody
/// would see the prompt.
pub fn decide(
    engine: &Engine,
    call: &ToolCall,
    permission_mode: &PermissionMode,
    forced: Option<Mode>,
) -> Decision {
    let mode = forced.unwrap_or_else(|| permission_mode.engine_mode());
    let d = engine.decide_in_mode(call, mode);
    let d = match permission_mode {
        PermissionMode::AcceptEdits
            if forced.is_none()
                && d.action == Action::Ask
                && d.rule == "default"
                && d.risk <= Risk::Medium
                && WRITE_TOOLS.contains(&call.name.as_str()) =>
        {
            Decision {
                action: Action::Allow,
                reason: format!("accepted by Claude Code's acceptEdits mode: {}", d.reason),
                ..d
            }
        }
        PermissionMode::DontAsk if d.action == Action::Ask => Decision {
            action: Action::Deny,
            reason: format!(
                "Claude Code's dontAsk mode has nobody to ask, so this is denied: {}",
                d.reason
            ),
            ..d
        },
        _ => d,
    };
    // Claude Code's modes loosen no ask of the managed tier either.
    engine.hold_managed(call, d)
}

/// The hook's answer on standard output.
pub fn response(d: &Decision) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": d.action,
            "permissionDecisionReason": super::explain(d),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::parse_tool_event;

    fn call(event: &str) -> ToolCall {
        tool_call(&parse_tool_event(event).unwrap()).call
    }

    #[test]
    fn file_tools_get_their_path_from_file_path_or_notebook_path() {
        let c = call(
            r#"{"tool_name": "Edit", "tool_input": {"file_path": "/p/a.rs", "old_string": "x", "new_string": "y"}}"#,
        );
        assert_eq!(c.name, "edit_file");
        assert_eq!(c.primary_arg(), Some("/p/a.rs"));
        assert_eq!(c.arguments["old_string"], "x");
        let c =
            call(r#"{"tool_name": "NotebookEdit", "tool_input": {"notebook_path": "/p/n.ipynb"}}"#);
        assert_eq!(
            (c.name.as_str(), c.primary_arg()),
            ("edit_file", Some("/p/n.ipynb"))
        );
    }

    #[test]
    fn other_tools_keep_their_name_and_input() {
        let c = call(
            r#"{"tool_name": "mcp__github__create_issue", "tool_input": {"title": "t"}, "tool_use_id": "toolu_1"}"#,
        );
        assert_eq!(c.name, "mcp__github__create_issue");
        assert_eq!(c.arguments["title"], "t");
        assert_eq!(c.id.as_deref(), Some("toolu_1"));
    }

    #[test]
    fn permission_modes_never_turn_a_deny_into_an_allow() {
        let engine = Engine::builder()
            .policy_text(
                "t.policy",
                "deny bash(\"rm *\");\nask write_file(\"prod/**\");\ndefault ask;",
            )
            .build()
            .unwrap();
        let rm = ToolCall::primary("bash", "rm x");
        for m in [
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
            "dontAsk",
            "auto",
        ] {
            let mode = PermissionMode::parse(Some(m));
            assert_eq!(
                decide(&engine, &rm, &mode, None).action,
                Action::Deny,
                "{m}"
            );
            assert_eq!(
                decide(&engine, &rm, &mode, Some(Mode::Bypass)).action,
                Action::Deny,
                "{m}"
            );
        }
        let edits = PermissionMode::AcceptEdits;
        let notes = ToolCall::primary("write_file", "notes.txt");
        assert_eq!(decide(&engine, &notes, &edits, None).action, Action::Allow);
        // An explicit ask rule still asks.
        let prod = ToolCall::primary("write_file", "prod/x");
        assert_eq!(decide(&engine, &prod, &edits, None).action, Action::Ask);
        // Commands are not edits.
        let make = ToolCall::primary("bash", "make");
        assert_eq!(decide(&engine, &make, &edits, None).action, Action::Ask);
        assert_eq!(
            decide(&engine, &make, &PermissionMode::DontAsk, None).action,
            Action::Deny
        );
    }
}
