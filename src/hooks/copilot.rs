//! GitHub Copilot CLI's `preToolUse` hook (`.github/hooks/*.json`, `"version": 1`), as Copilot
//! CLI 1.0.102 sends and reads it: the event on standard input, a decision on standard output.
//!
//! Input (unknown fields ignored): `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}`;
//! `toolArgs` is the tool's arguments as an object, or as text for a tool whose input is text
//! (`apply_patch`'s patch). Output: `{"permissionDecision": "allow" | "deny" | "ask",
//! "permissionDecisionReason": "…"}`. Copilot CLI asks its user about an `ask`; a run that
//! cannot ask (`copilot -p`) denies it, and tells the model.
//!
//! Copilot CLI fails closed by itself: a hook that exits with another code than 0, or cannot
//! start, denies the call ("hook errored"). It does not show a failed hook's message to the
//! model, so a call harness9 cannot decide is answered with a deny that says why.
//!
//! Tools: `bash` → `bash` (`command`); `view` → `read_file` (`path`); `create` → `write_file`
//! (`path`, `file_text`); `edit`, `str_replace_editor` → `edit_file` (`path`); `apply_patch`
//! → one call per file it touches, as for Codex ([`super::codex::patch_calls`]); every other
//! tool (`rg`, `glob`, `web_fetch`, MCP tools) keeps its name and arguments, with `path` for
//! the hard protections.

use serde_json::{json, Map, Value};

use super::{codex, with_path_from, EventError, HookCall, ToolEvent};
use crate::call::{Action, Decision, ToolCall};

/// The event this adapter answers.
pub const EVENT: &str = "preToolUse";

/// The shipped policy the hook adds beside the shipped default policy: Copilot CLI's own
/// tools that change nothing (`policies/copilot.policy`).
pub const POLICY: &str = "copilot.policy";

/// Copilot CLI's tools that harness9 asks about, with the reason (see [`super::Asked`]).
pub const ASKED: &[super::Asked] = &[
    ("web_fetch", "fetches a web page: it reaches the network"),
    (
        "skill",
        "runs a skill: instructions and scripts harness9 does not read",
    ),
    ("task", "starts a subagent"),
    (
        "write_agent",
        "sends a running subagent a message, which it may act on",
    ),
    (
        "sql",
        "runs SQL on the session's database, which harness9 does not read",
    ),
    (
        "session_store_sql",
        "runs SQL on the store of past sessions, which harness9 does not read",
    ),
];

/// Reads Copilot CLI's event into the fields every agent's event has.
pub fn parse_event(text: &str) -> Result<ToolEvent, EventError> {
    let v: Value = serde_json::from_str(text).map_err(EventError::NotJson)?;
    let Value::Object(raw) = v else {
        return Err(EventError::NotAnObject {
            kind: crate::call::json_kind(&v).to_string(),
        });
    };
    let tool_name = match raw.get("toolName") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        Some(Value::String(_)) => return Err(EventError::EmptyToolName),
        Some(other) => {
            return Err(EventError::NotAString {
                field: "toolName".into(),
                kind: crate::call::json_kind(other).to_string(),
            })
        }
        None => return Err(EventError::NoToolName),
    };
    let tool_input = match raw.get("toolArgs") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        // A tool whose input is text: the text, under the name a patch's is read from.
        Some(Value::String(s)) => {
            let mut m = Map::new();
            m.insert("command".into(), Value::String(s.clone()));
            m
        }
        Some(other) => {
            return Err(EventError::InputNotAnObject {
                kind: crate::call::json_kind(other).to_string(),
            })
        }
    };
    let string = |name: &str| match raw.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(EventError::NotAString {
            field: name.to_string(),
            kind: crate::call::json_kind(other).to_string(),
        }),
    };
    Ok(ToolEvent {
        tool_name,
        tool_input,
        cwd: string("cwd")?,
        session_id: string("sessionId")?,
        hook_event_name: Some(EVENT.to_string()),
        raw,
    })
}

/// The harness9 calls of a Copilot CLI tool call: one, or one per file of a patch.
pub fn tool_calls(event: &ToolEvent) -> Vec<HookCall> {
    let input = &event.tool_input;
    let calls = match event.tool_name.as_str() {
        "bash" => vec![ToolCall::new("bash", input.clone())],
        "view" => vec![ToolCall::new("read_file", with_path_from(input, &["path"]))],
        "create" => {
            let mut args = with_path_from(input, &["path"]);
            if let Some(text) = input.get("file_text") {
                args.insert("content".into(), text.clone());
            }
            vec![ToolCall::new("write_file", args)]
        }
        "edit" | "str_replace_editor" => {
            vec![ToolCall::new("edit_file", with_path_from(input, &["path"]))]
        }
        "apply_patch" => {
            let patch = input.get("command").and_then(Value::as_str).unwrap_or("");
            codex::patch_calls(patch)
        }
        other => vec![ToolCall::new(other, with_path_from(input, &["path"]))],
    };
    calls
        .into_iter()
        .map(|call| HookCall {
            agent_tool: event.tool_name.clone(),
            call,
        })
        .collect()
}

/// The hook's answer on standard output.
pub fn response(d: &Decision) -> Value {
    json!({
        "permissionDecision": d.action,
        "permissionDecisionReason": super::explain(d),
    })
}

/// The answer for a call harness9 could not decide: a deny that says why (Copilot CLI blocks
/// a hook that fails, but does not tell the model why).
pub fn blocked(why: &str) -> Value {
    json!({
        "permissionDecision": Action::Deny,
        "permissionDecisionReason": format!("harness9 hook copilot: {why}; the tool call is blocked"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(event: &str) -> Vec<ToolCall> {
        tool_calls(&parse_event(event).unwrap())
            .into_iter()
            .map(|c| c.call)
            .collect()
    }

    #[test]
    fn copilot_events_and_tools_map_onto_harness9_calls() {
        let c = calls(
            r#"{"sessionId": "s", "cwd": "/p", "toolName": "bash", "toolArgs": {"command": "ls", "description": "d"}}"#,
        );
        assert_eq!(
            (c[0].name.as_str(), c[0].primary_arg()),
            ("bash", Some("ls"))
        );
        let c = calls(r#"{"toolName": "view", "toolArgs": {"path": "/p/a"}}"#);
        assert_eq!(
            (c[0].name.as_str(), c[0].primary_arg()),
            ("read_file", Some("/p/a"))
        );
        let c = calls(
            r#"{"toolName": "apply_patch", "toolArgs": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** End Patch\n"}"#,
        );
        let names: Vec<_> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["write_file", "bash"]);
        let c = calls(r#"{"toolName": "rg", "toolArgs": {"pattern": "x", "path": "/p"}}"#);
        assert_eq!(
            (c[0].name.as_str(), c[0].arguments["path"].as_str()),
            ("rg", Some("/p"))
        );
        let e =
            parse_event(r#"{"toolName": "bash", "toolArgs": {}, "cwd": "/p", "sessionId": "s"}"#)
                .unwrap();
        assert_eq!(
            (e.cwd.as_deref(), e.session_id.as_deref()),
            (Some("/p"), Some("s"))
        );
        assert!(parse_event(r#"{"toolArgs": {}}"#).is_err());
        assert!(parse_event(r#"{"toolName": "bash", "toolArgs": 3}"#).is_err());
    }
}
