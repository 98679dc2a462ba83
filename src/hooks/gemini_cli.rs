//! Gemini CLI's `BeforeTool` hook, as documented in its hooks reference
//! (`docs/hooks/reference.md` of google-gemini/gemini-cli): the event on standard input, a JSON
//! decision on standard output.
//!
//! Input (unknown fields ignored): `{"session_id", "transcript_path", "cwd", "hook_event_name":
//! "BeforeTool", "timestamp", "tool_name", "tool_input", "mcp_context"}`.
//! Output: `{"decision": "allow" | "deny" | "ask", "reason": "…"}`. The reference documents
//! `allow` and `deny` (a deny's `reason` goes to the model as the tool's error); `ask`, which
//! forces Gemini CLI's confirmation prompt even where its own policy would run the tool, came
//! with google-gemini/gemini-cli#21146 and is not in the reference yet (issue #28046). Gemini
//! CLI versions before it treat `ask` like no decision: their own approval settings decide.
//! [`AskAs::Deny`] is for those, and for runs where nobody can answer.
//!
//! Tools: `run_shell_command` → `bash` (`command`); `read_file` → `read_file` (`path` =
//! `file_path`, `path` or `absolute_path`, by version); `write_file` → `write_file` and
//! `replace` → `edit_file` (`path` = `file_path`); `list_directory` → `list_dir` (`path` =
//! `dir_path` or `path`); every other tool (`glob`, `search_file_content`, `read_many_files`,
//! `web_fetch`, `mcp__…`) keeps its name and input, with `path` added from `dir_path` or
//! `paths` so the hard protections see it.

use serde_json::{json, Value};

use super::{with_path_from, HookCall, ToolEvent};
use crate::call::{Action, Decision, ToolCall};

/// The event this adapter answers.
pub const EVENT: &str = "BeforeTool";

/// The shipped policy the hook adds beside the shipped default policy (and leaves out with
/// it): Gemini CLI's own tools that change nothing and have no harness9 counterpart
/// (`policies/gemini-cli.policy`).
pub const POLICY: &str = "gemini-cli.policy";

/// Gemini CLI's tools that harness9 asks about, with the reason (see [`super::Asked`]).
pub const ASKED: &[super::Asked] = &[
    ("web_fetch", "fetches a web page: it reaches the network"),
    (
        "google_web_search",
        "searches the web: it reaches the network",
    ),
    (
        "activate_skill",
        "runs a skill: instructions and scripts harness9 does not read",
    ),
    ("invoke_agent", "starts another agent"),
    (
        "read_mcp_resource",
        "reads an MCP server's resource: the server decides what that does",
    ),
    ("take_snapshot", "takes a snapshot of a browser page"),
];

/// The harness9 call for a Gemini CLI tool call.
pub fn tool_call(event: &ToolEvent) -> HookCall {
    let input = &event.tool_input;
    let (name, arguments) = match event.tool_name.as_str() {
        "run_shell_command" => ("bash", input.clone()),
        "read_file" => (
            "read_file",
            with_path_from(input, &["absolute_path", "path", "file_path"]),
        ),
        "write_file" => ("write_file", with_path_from(input, &["file_path"])),
        "replace" => ("edit_file", with_path_from(input, &["file_path"])),
        "list_directory" => ("list_dir", with_path_from(input, &["path", "dir_path"])),
        other if input.contains_key("path") => (other, input.clone()),
        other => (other, with_path_from(input, &["dir_path", "paths"])),
    };
    HookCall {
        agent_tool: event.tool_name.clone(),
        call: ToolCall::new(name, arguments),
    }
}

/// A contained `run_shell_command` as Gemini CLI runs it: the `sandbox` decision, and the
/// command it runs instead of the model's, under `harness9 sandbox`.
#[derive(Debug, Clone)]
pub struct Contained {
    pub decision: Decision,
    pub command: String,
}

/// With `--sandbox`: `d`, a `sandbox` decision of a `run_shell_command` call, as the command
/// that runs it contained, in its `dir_path` (relative to the working folder) when it has one;
/// any other decision, and one that cannot be rewritten, as the host's ask or as it is.
pub fn contain(
    d: Decision,
    event: &ToolEvent,
    how: &super::Containment,
) -> Result<Contained, Decision> {
    let Some(profile) = d.contained().map(str::to_string) else {
        return Err(d);
    };
    let input = &event.tool_input;
    let rewritten = match input.get("command").and_then(Value::as_str) {
        Some(c) if event.tool_name == "run_shell_command" => {
            let how = match input.get("dir_path").and_then(Value::as_str) {
                Some(dir) if !dir.is_empty() => super::Containment {
                    program: how.program.clone(),
                    project: how.project.join(dir),
                },
                _ => how.clone(),
            };
            how.command(&profile, c)
        }
        _ => Err(format!(
            "harness9 rewrites only the command of run_shell_command, not `{}`",
            event.tool_name
        )),
    };
    match rewritten {
        Ok(command) => Ok(Contained {
            decision: d,
            command,
        }),
        Err(why) => Err(d.asked_instead(&format!("{}: {why}", super::HOST_RUNS_COMMANDS))),
    }
}

/// The answer that runs a contained call: an allow whose `hookSpecificOutput.tool_input`
/// replaces the command (Gemini CLI merges it into the tool's input).
pub fn contained_response(c: &Contained) -> Value {
    json!({
        "decision": "allow",
        "reason": super::runs_contained(&c.decision),
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "tool_input": {"command": c.command},
        },
    })
}

/// What an ask becomes in the answer to Gemini CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AskAs {
    /// `"decision": "ask"`: Gemini CLI asks its user.
    #[default]
    Ask,
    /// `"decision": "deny"`: for Gemini CLI versions that ignore `ask`, or unattended runs.
    Deny,
}

/// The hook's answer on standard output.
pub fn response(d: &Decision, ask_as: AskAs) -> Value {
    // An ask answered as a deny says so once: "needs a person's approval, and none can be
    // asked: …; the call was not run".
    let d = effective(d.clone(), ask_as);
    let reason = super::explain(&d);
    match d.action {
        Action::Allow => json!({"decision": "allow", "reason": reason}),
        Action::Deny => json!({"decision": "deny", "reason": reason}),
        Action::Ask | Action::Sandbox => json!({
            "decision": "ask",
            "reason": reason,
            "systemMessage": format!("harness9 asks: {reason}"),
        }),
    }
}

/// The decision an answer stands for (what the audit log records).
pub fn effective(d: Decision, ask_as: AskAs) -> Decision {
    match (d.action, ask_as) {
        (Action::Ask, AskAs::Deny) => super::ask_denied(d),
        _ => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::parse_tool_event;

    fn call(event: &str) -> ToolCall {
        tool_call(&parse_tool_event(event).unwrap()).call
    }

    #[test]
    fn gemini_tools_map_onto_harness9_tools() {
        let c = call(
            r#"{"tool_name": "run_shell_command", "tool_input": {"command": "ls", "description": "list"}}"#,
        );
        assert_eq!((c.name.as_str(), c.primary_arg()), ("bash", Some("ls")));
        let c = call(r#"{"tool_name": "read_file", "tool_input": {"absolute_path": "/p/a"}}"#);
        assert_eq!(
            (c.name.as_str(), c.primary_arg()),
            ("read_file", Some("/p/a"))
        );
        let c = call(
            r#"{"tool_name": "replace", "tool_input": {"file_path": "/p/a", "old_string": "x"}}"#,
        );
        assert_eq!(
            (c.name.as_str(), c.primary_arg()),
            ("edit_file", Some("/p/a"))
        );
        let c = call(r#"{"tool_name": "list_directory", "tool_input": {"dir_path": "/p"}}"#);
        assert_eq!((c.name.as_str(), c.primary_arg()), ("list_dir", Some("/p")));
        let c =
            call(r#"{"tool_name": "glob", "tool_input": {"pattern": "*.rs", "dir_path": "/p"}}"#);
        assert_eq!(c.name, "glob");
        assert_eq!(c.arguments["path"], "/p");
    }

    #[test]
    fn a_contained_shell_command_is_rewritten_and_other_decisions_pass_through() {
        let engine = crate::Engine::builder()
            .policy_text(
                "t.policy",
                r#"sandbox bash(prefix "make"); allow bash(prefix "ls");"#,
            )
            .sandbox(crate::sandbox::Support::Available)
            .build()
            .unwrap();
        let how = crate::hooks::Containment {
            program: "/opt/h9/harness9".into(),
            project: "/p".into(),
        };
        let event = |input: Value| {
            parse_tool_event(
                &json!({"tool_name": "run_shell_command", "tool_input": input}).to_string(),
            )
            .unwrap()
        };
        let decide = |e: &ToolEvent| engine.decide(&tool_call(e).call);
        let e = event(json!({"command": "make all", "dir_path": "sub"}));
        let c = contain(decide(&e), &e, &how).unwrap();
        assert_eq!(
            c.command,
            "/opt/h9/harness9 sandbox --profile default --cwd /p/sub -- bash -c 'make all'"
        );
        let v = contained_response(&c);
        assert_eq!(v["decision"], "allow");
        assert_eq!(v["hookSpecificOutput"]["tool_input"]["command"], c.command);
        let e = event(json!({"command": "ls"}));
        assert_eq!(
            contain(decide(&e), &e, &how).unwrap_err().action,
            Action::Allow
        );
        let e = event(json!({"command": "make \u{0}"}));
        let d = contain(decide(&e), &e, &how).unwrap_err();
        assert_eq!(d.action, Action::Ask);
        assert!(d.reason.contains("NUL"), "{}", d.reason);
    }

    #[test]
    fn an_ask_is_asked_or_denied_never_allowed() {
        let d = Decision::new(
            Action::Ask,
            crate::call::Risk::High,
            "r",
            crate::call::RuleRef::file("x", 1),
        );
        assert_eq!(response(&d, AskAs::Ask)["decision"], "ask");
        assert_eq!(response(&d, AskAs::Deny)["decision"], "deny");
        assert_eq!(effective(d, AskAs::Deny).action, Action::Deny);
    }
}
