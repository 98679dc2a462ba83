//! Claude Code's `PreToolUse` hook: the event on standard input, the permission decision on
//! standard output.
//!
//! Input (unknown fields ignored): `{"session_id", "transcript_path", "cwd", "permission_mode",
//! "hook_event_name": "PreToolUse", "tool_name", "tool_input", "tool_use_id"}`.
//! Output: `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
//! "allow" | "deny" | "ask", "permissionDecisionReason": "…"}}`; with `--sandbox`, a contained
//! call is an allow with `"updatedInput"`: its input with the command rewritten to run under
//! `harness9 sandbox` ([`contain`]).
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

/// The shipped policy the hook adds beside the shipped default policy (and leaves out with
/// it): Claude Code's own tools that change nothing and have no harness9 counterpart
/// (`policies/claude-code.policy`, which says which tools are asked about and why).
pub const POLICY: &str = "claude-code.policy";

/// Claude Code's tools that harness9 asks about, with the reason (see [`super::Asked`]).
pub const ASKED: &[super::Asked] = &[
    ("WebFetch", "fetches a web page: it reaches the network"),
    ("WebSearch", "searches the web: it reaches the network"),
    (
        "CronCreate",
        "schedules a prompt to run later, with nobody watching",
    ),
    ("CronDelete", "removes a scheduled job"),
    (
        "ScheduleWakeup",
        "schedules the session to wake up and work later",
    ),
    (
        "Skill",
        "runs a skill: instructions and scripts harness9 does not read",
    ),
    ("Workflow", "starts a workflow of further calls"),
    (
        "SendMessage",
        "sends a message to another agent, which may act on it",
    ),
    ("EnterWorktree", "moves the session into another worktree"),
    ("ExitWorktree", "moves the session out of its worktree"),
    ("PushNotification", "sends a notification off this machine"),
    ("SendUserFile", "sends a file off this machine"),
    ("RemoteTrigger", "starts work on another machine"),
    (
        "PowerShell",
        "runs PowerShell, which harness9 does not read",
    ),
];

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
    decide_with(engine, call, permission_mode, forced, false)
}

/// [`decide`], except that with `contain`, a `sandbox` decision (from an engine built with the
/// sandbox's support) is returned as it is, for [`contain`] to rewrite. No permission mode
/// changes it: it is neither an ask to approve nor one to deny, and it never runs free.
fn decide_with(
    engine: &Engine,
    call: &ToolCall,
    permission_mode: &PermissionMode,
    forced: Option<Mode>,
    contain: bool,
) -> Decision {
    let mode = forced.unwrap_or_else(|| permission_mode.engine_mode());
    let mut d = engine.decide_in_mode(call, mode);
    if contain && d.action == Action::Sandbox {
        d = engine.hold_managed(call, d);
        if d.action == Action::Sandbox {
            return d;
        }
    }
    let d = super::for_host(d);
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
    // Claude Code's modes loosen no ask of the managed tier either (and a managed `sandbox`
    // rule that holds an allowed edit is still no answer a host knows).
    super::for_host(engine.hold_managed(call, d))
}

/// [`decide`], with the reason harness9 asks about a tool it knows ([`ASKED`]).
pub fn decide_tool(
    engine: &Engine,
    call: &HookCall,
    permission_mode: &PermissionMode,
    forced: Option<Mode>,
) -> Decision {
    let d = decide(engine, &call.call, permission_mode, forced);
    super::with_asked_reason(d, ASKED, &call.agent_tool)
}

/// The tools whose `command` harness9 can rewrite to run contained: Claude Code runs it in
/// a shell (`Monitor` in the background).
pub const REWRITABLE: [&str; 2] = ["Bash", "Monitor"];

/// A contained call as Claude Code runs it: its input with `command` rewritten to run under
/// `harness9 sandbox` (see [`super::Containment::command`]).
#[derive(Debug, Clone)]
pub struct Contained {
    /// The `sandbox` decision.
    pub decision: Decision,
    /// The command Claude Code runs instead of the model's.
    pub command: String,
    /// The whole tool input, with `command` replaced (`updatedInput`).
    pub input: serde_json::Map<String, Value>,
}

/// What the hook answers a call with `--sandbox`: a `sandbox` decision of a tool that runs a
/// command becomes [`Contained`]; any other decision, and a `sandbox` one that cannot be
/// rewritten (another tool, a command with a NUL character), is decided as [`decide_tool`]
/// does (the host's ask, saying why).
pub fn contain(
    engine: &Engine,
    call: &HookCall,
    event: &ToolEvent,
    permission_mode: &PermissionMode,
    forced: Option<Mode>,
    how: &super::Containment,
) -> Result<Contained, Decision> {
    let d = decide_with(engine, &call.call, permission_mode, forced, true);
    let Some(profile) = d.contained().map(str::to_string) else {
        return Err(super::with_asked_reason(d, ASKED, &call.agent_tool));
    };
    let command = event.tool_input.get("command").and_then(Value::as_str);
    let rewritten = match command {
        Some(c) if REWRITABLE.contains(&event.tool_name.as_str()) => how.command(&profile, c),
        _ => Err(format!(
            "harness9 rewrites only the command of {}, not `{}`",
            REWRITABLE.join(" and "),
            event.tool_name
        )),
    };
    match rewritten {
        Ok(command) => {
            let mut input = event.tool_input.clone();
            input.insert("command".into(), Value::String(command.clone()));
            Ok(Contained {
                decision: d,
                command,
                input,
            })
        }
        Err(why) => Err(d.asked_instead(&format!("{}: {why}", super::HOST_RUNS_COMMANDS))),
    }
}

/// The answer that runs a contained call: an allow whose `updatedInput` is the rewritten
/// input, and whose reason says it runs contained.
pub fn contained_response(c: &Contained) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": "allow",
            "permissionDecisionReason": super::runs_contained(&c.decision),
            "updatedInput": c.input,
        }
    })
}

/// Whether a person attends the session, from the environment Claude Code gives its hooks:
/// `CLAUDE_CODE_SESSION_ATTENDED` (`1`, `0`), else `CLAUDE_CODE_ENTRYPOINT` (`cli` for the
/// interactive terminal, `sdk-…` for `claude -p` and the SDKs).
pub fn situation(env: impl Fn(&str) -> Option<String>) -> super::Situation {
    use super::Situation;
    match env("CLAUDE_CODE_SESSION_ATTENDED").as_deref() {
        Some("1") => return Situation::Interactive,
        Some("0") => return Situation::Headless,
        _ => {}
    }
    match env("CLAUDE_CODE_ENTRYPOINT").as_deref() {
        Some("cli") => Situation::Interactive,
        Some(e) if e.starts_with("sdk") => Situation::Headless,
        _ => Situation::Unknown,
    }
}

/// The hook's answer on standard output, its reason worded for `situation`.
pub fn response(d: &Decision, situation: super::Situation) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": d.action,
            "permissionDecisionReason": super::explain_for(d, situation),
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
    fn an_ask_is_a_question_to_the_person_or_a_note_to_the_model_by_situation() {
        use crate::hooks::Situation;
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            situation(env(&[("CLAUDE_CODE_SESSION_ATTENDED", "0")])),
            Situation::Headless
        );
        assert_eq!(
            situation(env(&[
                ("CLAUDE_CODE_SESSION_ATTENDED", "1"),
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
            ])),
            Situation::Interactive
        );
        assert_eq!(
            situation(env(&[("CLAUDE_CODE_ENTRYPOINT", "cli")])),
            Situation::Interactive
        );
        assert_eq!(
            situation(env(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-ts")])),
            Situation::Headless
        );
        assert_eq!(situation(env(&[])), Situation::Unknown);
        let d = Decision::new(
            Action::Ask,
            Risk::High,
            "r",
            crate::call::RuleRef::file("x", 1),
        );
        let why = |s| {
            response(&d, s)["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let asked = why(Situation::Interactive);
        assert!(
            asked.starts_with("harness9 asks for your approval: r"),
            "{asked}"
        );
        assert!(!asked.contains("not run"), "{asked}");
        let told = why(Situation::Headless);
        assert!(
            told.contains("The call was not run: ask the user"),
            "{told}"
        );
        assert!(why(Situation::Unknown).contains("If nobody can approve it here"));
    }

    /// Even from an engine that could contain a call, a host is answered with an ask: it runs
    /// the command itself, and `sandbox` is no answer it knows.
    #[test]
    fn a_contained_decision_reaches_claude_code_as_an_ask_saying_why() {
        let engine = Engine::builder()
            .policy_text("t.policy", "sandbox bash(prefix \"cargo test\");")
            .sandbox(crate::sandbox::Support::Available)
            .build()
            .unwrap();
        let call = ToolCall::primary("bash", "cargo test");
        assert_eq!(engine.decide(&call).action, Action::Sandbox);
        let d = decide(&engine, &call, &PermissionMode::Default, None);
        assert_eq!(d.action, Action::Ask, "{d:?}");
        assert!(
            d.reason
                .contains("the agent runs its commands itself, outside harness9's sandbox"),
            "{}",
            d.reason
        );
        let v = response(&d, crate::hooks::Situation::Unknown);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
    }

    fn contain_event(tool: &str, input: Value) -> (HookCall, ToolEvent) {
        let event = crate::hooks::parse_tool_event(
            &json!({"tool_name": tool, "tool_input": input, "cwd": "/p"}).to_string(),
        )
        .unwrap();
        (tool_call(&event), event)
    }

    fn containing_engine() -> Engine {
        Engine::builder()
            .policy_text(
                "t.policy",
                r#"sandbox bash(prefix "cargo test") profile "cargo";
                   deny bash(prefix "rm");
                   allow bash(prefix "ls");"#,
            )
            .sandbox(crate::sandbox::Support::Available)
            .build()
            .unwrap()
    }

    fn how() -> crate::hooks::Containment {
        crate::hooks::Containment {
            program: "harness9".into(),
            project: "/p".into(),
        }
    }

    #[test]
    fn a_contained_bash_call_is_rewritten_to_run_in_the_sandbox_in_every_permission_mode() {
        let engine = containing_engine();
        let (call, event) = contain_event(
            "Bash",
            json!({"command": "cargo test -- 'it''s'", "description": "tests", "timeout": 5}),
        );
        for m in [
            "default",
            "acceptEdits",
            "bypassPermissions",
            "dontAsk",
            "plan",
        ] {
            let mode = PermissionMode::parse(Some(m));
            let c = contain(&engine, &call, &event, &mode, None, &how()).unwrap();
            assert_eq!(c.decision.contained(), Some("cargo"), "{m}");
            assert_eq!(
                c.command,
                r#"harness9 sandbox --profile cargo --cwd /p -- bash -c 'cargo test -- '\''it'\'''\''s'\'''"#,
                "{m}"
            );
            // Every other field of the input is kept; only the command changes.
            assert_eq!(c.input["description"], "tests");
            assert_eq!(c.input["timeout"], 5);
            assert_eq!(c.input["command"], c.command.as_str());
            let v = contained_response(&c);
            let out = &v["hookSpecificOutput"];
            assert_eq!(out["permissionDecision"], "allow");
            assert_eq!(out["updatedInput"]["command"], c.command.as_str());
            let why = out["permissionDecisionReason"].as_str().unwrap();
            assert!(
                why.starts_with(
                    "runs contained, in harness9's sandbox (profile `cargo`: no network, \
                     writes to the project only)"
                ),
                "{why}"
            );
        }
    }

    #[test]
    fn with_containment_other_decisions_are_as_without_it() {
        let engine = containing_engine();
        let mode = PermissionMode::Default;
        let (call, event) = contain_event("Bash", json!({"command": "rm -r x"}));
        let d = contain(&engine, &call, &event, &mode, None, &how()).unwrap_err();
        assert_eq!(d.action, Action::Deny);
        let (call, event) = contain_event("Bash", json!({"command": "ls"}));
        let d = contain(&engine, &call, &event, &mode, None, &how()).unwrap_err();
        assert_eq!(d.action, Action::Allow);
        // A command no argument can carry: the host's ask, saying why.
        let (call, event) = contain_event("Bash", json!({"command": "cargo test \u{0}"}));
        let d = contain(&engine, &call, &event, &mode, None, &how()).unwrap_err();
        assert_eq!(d.action, Action::Ask, "{d:?}");
        assert!(d.reason.contains("NUL"), "{}", d.reason);
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
