//! Codex CLI's hooks (`PreToolUse` and `PermissionRequest`, configured in `hooks.json` beside
//! Codex's `config.toml`), as Codex 0.171 sends and reads them (its `codex-rs/hooks` schemas):
//! the event on standard input, an answer on standard output.
//!
//! Input (unknown fields ignored): `{"session_id", "turn_id", "transcript_path", "cwd",
//! "hook_event_name", "model", "permission_mode", "tool_name", "tool_input", "tool_use_id"}`.
//! `tool_name` is `Bash` for every shell call (`exec_command`, `shell`; `tool_input.command` is
//! the command line), `apply_patch` for file edits (`tool_input.command` is the patch), and
//! `mcp__SERVER__TOOL` for an MCP tool (its arguments as `tool_input`). `PermissionRequest`
//! comes only for a call Codex is about to ask its user about (`Bash`, `NetworkAccess`).
//!
//! Codex reads only a deny from `PreToolUse` (an `allow` or `ask` there is reported as
//! unsupported, and the call goes on), and `allow` or `deny` from `PermissionRequest`. So
//! harness9's three answers map onto the two events ([`answer`]):
//!
//! | harness9 | `PreToolUse` | `PermissionRequest` |
//! |---|---|---|
//! | allow | no answer: Codex's own approval settings go on | `allow`: Codex does not ask |
//! | deny | `deny`, with the reason | `deny`, with the reason |
//! | ask | `deny`: "needs a person's approval … ask the user" ([`AskAs::Deny`]), or no answer ([`AskAs::Codex`]) | no answer: Codex asks its user |
//!
//! An ask is a deny by default because Codex may run a call without asking anyone (a sandboxed
//! command, `codex exec`): letting it through would fail open. With `--ask-as codex` an ask is
//! left to Codex's own approval policy, and where Codex asks, its user answers.
//!
//! Tools: `Bash` → `bash` (`command`); `apply_patch` → one call per file the patch touches: an
//! added file `write_file` (with its `content`), an updated one `edit_file`, a deleted one
//! `bash` `rm -- FILE` (so that deleting is judged as the command that deletes), a moved one
//! `rm` of the old name and `write_file` of the new; the strictest answer of them is the
//! patch's. `view_image` → `read_file` (`path`); every other tool keeps its name and input.

use serde_json::{json, Map, Value};

use super::{with_path_from, HookCall, ToolEvent};
use crate::call::{Action, Decision, ToolCall};

/// The event before a tool runs.
pub const PRE_EVENT: &str = "PreToolUse";

/// The event before Codex asks its user about a call.
pub const PERMISSION_EVENT: &str = "PermissionRequest";

/// The shipped policy the hook adds beside the shipped default policy: Codex's own tools that
/// change nothing (`policies/codex.policy`).
pub const POLICY: &str = "codex.policy";

/// Codex's tools that harness9 asks about, with the reason (see [`super::Asked`]).
pub const ASKED: &[super::Asked] = &[
    (
        "write_stdin",
        "types into a running command, which harness9 does not read",
    ),
    ("web_search", "searches the web: it reaches the network"),
];

/// What an ask becomes in `PreToolUse`, where Codex takes only a deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AskAs {
    /// A deny that says the call needs a person's approval: never run unasked.
    #[default]
    Deny,
    /// No answer: Codex's own approval policy decides (it may run the call without asking,
    /// in its sandbox); where it asks, `PermissionRequest` leaves the question to its user.
    Codex,
}

/// The harness9 calls of a Codex tool call: one, or one per file of a patch.
pub fn tool_calls(event: &ToolEvent) -> Vec<HookCall> {
    let input = &event.tool_input;
    let id = event
        .raw
        .get("tool_use_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    let calls = match event.tool_name.as_str() {
        "Bash" => vec![ToolCall::new("bash", input.clone())],
        "apply_patch" => {
            let patch = input
                .get("command")
                .or_else(|| input.get("patch"))
                .or_else(|| input.get("input"))
                .and_then(Value::as_str)
                .unwrap_or("");
            patch_calls(patch)
        }
        "view_image" => vec![ToolCall::new("read_file", with_path_from(input, &["path"]))],
        other => vec![ToolCall::new(other, input.clone())],
    };
    calls
        .into_iter()
        .map(|mut call| {
            call.id = id.clone();
            HookCall {
                agent_tool: event.tool_name.clone(),
                call,
            }
        })
        .collect()
}

/// The file operations of an `apply_patch` patch, as harness9 calls. A patch with no file
/// operation harness9 can read is one call of an unknown tool (`apply_patch`, asked), never
/// none: an empty list would decide nothing.
pub fn patch_calls(patch: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    let mut adding: Option<(String, String)> = None;
    let flush = |adding: &mut Option<(String, String)>, calls: &mut Vec<ToolCall>| {
        if let Some((path, content)) = adding.take() {
            calls.push(file_call("write_file", &path, Some(content)));
        }
    };
    let mut updating: Option<String> = None;
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            flush(&mut adding, &mut calls);
            updating = None;
            adding = Some((path.trim().to_string(), String::new()));
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            flush(&mut adding, &mut calls);
            let path = path.trim().to_string();
            calls.push(file_call("edit_file", &path, None));
            updating = Some(path);
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            flush(&mut adding, &mut calls);
            updating = None;
            calls.push(remove_call(path.trim()));
        } else if let Some(to) = line.strip_prefix("*** Move to: ") {
            if let Some(from) = updating.take() {
                calls.push(remove_call(&from));
                calls.push(file_call("write_file", to.trim(), None));
            }
        } else if line.starts_with("*** ") {
            flush(&mut adding, &mut calls);
            updating = None;
        } else if let Some((_, content)) = adding.as_mut() {
            if let Some(text) = line.strip_prefix('+') {
                content.push_str(text);
                content.push('\n');
            }
        }
    }
    flush(&mut adding, &mut calls);
    if calls.is_empty() {
        let mut args = Map::new();
        args.insert("command".into(), Value::String(patch.to_string()));
        calls.push(ToolCall::new("apply_patch", args));
    }
    calls
}

fn file_call(tool: &str, path: &str, content: Option<String>) -> ToolCall {
    let mut args = Map::new();
    args.insert("path".into(), Value::String(path.to_string()));
    if let Some(c) = content {
        args.insert("content".into(), Value::String(c));
    }
    ToolCall::new(tool, args)
}

/// Deleting a file, as the command that deletes it.
fn remove_call(path: &str) -> ToolCall {
    let quoted = format!("'{}'", path.replace('\'', r"'\''"));
    ToolCall::primary("bash", format!("rm -- {quoted}"))
}

/// The strictest of several decisions ([`Decision::strictness`]: deny > ask > allow, then the
/// higher risk; the first on a tie): the answer for a call made of several (a patch's files).
pub fn strictest(decisions: Vec<Decision>) -> Option<Decision> {
    decisions.into_iter().reduce(|a, b| {
        if a.strictness() >= b.strictness() {
            a
        } else {
            b
        }
    })
}

/// The decision an answer stands for in `event` (what the audit log records): in `PreToolUse`
/// an ask answered as a deny is a deny.
pub fn effective(d: Decision, event: &str, ask_as: AskAs) -> Decision {
    match (d.action, event, ask_as) {
        (Action::Ask, PRE_EVENT, AskAs::Deny) => super::ask_denied(d),
        _ => d,
    }
}

/// The hook's answer on standard output for `event`; `None`: no answer (print nothing).
pub fn answer(d: &Decision, event: &str, ask_as: AskAs) -> Option<Value> {
    if (d.action, event, ask_as) == (Action::Ask, PRE_EVENT, AskAs::Deny) {
        // Nobody may be asked: the model is told the call did not run, and what to do.
        return Some(json!({
            "hookSpecificOutput": {
                "hookEventName": PRE_EVENT,
                "permissionDecision": "deny",
                "permissionDecisionReason": super::explain_unasked(d),
            }
        }));
    }
    let reason = super::explain(d);
    match (event, d.action) {
        (PERMISSION_EVENT, Action::Allow) => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": PERMISSION_EVENT,
                "decision": {"behavior": "allow"},
            }
        })),
        (PERMISSION_EVENT, Action::Deny) => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": PERMISSION_EVENT,
                "decision": {"behavior": "deny", "message": reason},
            }
        })),
        (_, Action::Deny) => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": PRE_EVENT,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        })),
        // An allow in PreToolUse, an ask left to Codex or its user: no answer.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Risk, RuleRef};
    use crate::hooks::parse_tool_event;

    fn calls(event: &str) -> Vec<ToolCall> {
        tool_calls(&parse_tool_event(event).unwrap())
            .into_iter()
            .map(|c| c.call)
            .collect()
    }

    #[test]
    fn a_patch_is_one_call_per_file_it_touches() {
        let patch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Delete File: old.txt\n*** Update File: b.rs\n*** Move to: c.rs\n@@\n-1\n+2\n*** End Patch\n";
        let event = json!({"hook_event_name": "PreToolUse", "tool_name": "apply_patch",
                           "tool_input": {"command": patch}, "tool_use_id": "call_1"});
        let got = calls(&event.to_string());
        let summary: Vec<(String, Option<String>)> = got
            .iter()
            .map(|c| (c.name.clone(), c.primary_arg().map(str::to_string)))
            .collect();
        assert_eq!(
            summary,
            [
                ("write_file".to_string(), Some("new.txt".to_string())),
                ("edit_file".to_string(), Some("src/a.rs".to_string())),
                ("bash".to_string(), Some("rm -- 'old.txt'".to_string())),
                ("edit_file".to_string(), Some("b.rs".to_string())),
                ("bash".to_string(), Some("rm -- 'b.rs'".to_string())),
                ("write_file".to_string(), Some("c.rs".to_string())),
            ]
        );
        assert_eq!(got[0].arguments["content"], "hello\nworld\n");
        assert!(got.iter().all(|c| c.id.as_deref() == Some("call_1")));
        // Nothing harness9 can read: one call of an unknown tool, never none.
        let got = calls(r#"{"tool_name": "apply_patch", "tool_input": {"command": "garbage"}}"#);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "apply_patch");
    }

    #[test]
    fn shell_and_mcp_calls_map_onto_harness9_tools() {
        let got = calls(r#"{"tool_name": "Bash", "tool_input": {"command": "ls -la"}}"#);
        assert_eq!(
            (got[0].name.as_str(), got[0].primary_arg()),
            ("bash", Some("ls -la"))
        );
        let got =
            calls(r#"{"tool_name": "mcp__github__create_issue", "tool_input": {"title": "t"}}"#);
        assert_eq!(got[0].name, "mcp__github__create_issue");
        assert_eq!(got[0].arguments["title"], "t");
    }

    #[test]
    fn three_answers_map_onto_two_events_and_an_ask_never_runs_unasked() {
        let d = |a| Decision::new(a, Risk::Medium, "r", RuleRef::file("x", 1));
        let pre = |a, ask_as| answer(&d(a), PRE_EVENT, ask_as);
        assert_eq!(pre(Action::Allow, AskAs::Deny), None);
        let deny = pre(Action::Deny, AskAs::Deny).unwrap();
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        let ask = pre(Action::Ask, AskAs::Deny).unwrap();
        assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "deny");
        let why = ask["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(why.starts_with("needs a person's approval"), "{why}");
        assert_eq!(pre(Action::Ask, AskAs::Codex), None);
        let perm = |a| answer(&d(a), PERMISSION_EVENT, AskAs::Deny);
        assert_eq!(
            perm(Action::Allow).unwrap()["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
        assert_eq!(
            perm(Action::Deny).unwrap()["hookSpecificOutput"]["decision"]["behavior"],
            "deny"
        );
        assert_eq!(perm(Action::Ask), None, "Codex asks its user");
    }

    #[test]
    fn the_strictest_decision_of_a_patch_is_its_answer() {
        let d = |a, r| Decision::new(a, r, "r", RuleRef::file("x", 1));
        let s = strictest(vec![
            d(Action::Allow, Risk::Low),
            d(Action::Ask, Risk::High),
            d(Action::Ask, Risk::Low),
        ])
        .unwrap();
        assert_eq!((s.action, s.risk), (Action::Ask, Risk::High));
        let s = strictest(vec![d(Action::Ask, Risk::High), d(Action::Deny, Risk::Low)]).unwrap();
        assert_eq!(s.action, Action::Deny);
        assert!(strictest(Vec::new()).is_none());
    }
}
