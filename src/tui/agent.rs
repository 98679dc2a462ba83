//! The agent loop. A turn: the user's message → the model's reply → every tool call of the reply
//! through the hook chain (concurrently, so several approvals can wait at once) → the results
//! back to the model → the next reply, until a reply calls no tool. Denials and feedback reach
//! the model as tool results; malformed arguments and model errors end up in the conversation,
//! never in a crash. Everything the loop does reaches the UI as [`AgentEvent`]s.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::mpsc::{self, UnboundedSender};

use super::diff::{self, Diff};
use crate::call::{is_file_tool, ToolCall};
use crate::model::{Delta, Message, Model, ModelToolCall, ToolSpec};
use crate::runtime::{
    CancelToken, HookContext, HookRegistry, ResultStatus, ToolResult, ToolRunner,
};

/// What the agent loop tells the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEvent {
    TurnStarted,
    /// Text of the reply in progress.
    Delta(String),
    /// The model's whole reply text (may be empty when it only calls tools).
    Assistant(String),
    /// A tool call about to go through the hooks; `arguments` as shown to a person.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// What the call produced, or why it did not run; for a file write or edit that ran,
    /// what it changed.
    ToolResult {
        id: String,
        name: String,
        status: ResultStatus,
        content: String,
        diff: Option<Diff>,
    },
    /// How a call ran in the sandbox (`ran in the sandbox (profile build): …`), just before
    /// its result.
    Contained {
        id: String,
        note: String,
    },
    /// Tokens the server reported using so far in this turn.
    Usage(u64),
    /// The model failed; the turn ends, the session goes on.
    ModelError(String),
    TurnEnded {
        cancelled: bool,
    },
}

/// Replies one turn may take before the loop stops asking the model.
pub const MAX_STEPS: usize = 50;

/// The conversation with the model and what runs its tool calls.
pub struct Agent {
    model: Arc<dyn Model>,
    registry: Arc<HookRegistry>,
    tools: Arc<dyn ToolRunner>,
    specs: Vec<ToolSpec>,
    history: Vec<Message>,
    events: UnboundedSender<AgentEvent>,
    max_steps: usize,
    next_id: u64,
    /// The folder the tools work in: file changes are diffed there.
    cwd: Option<PathBuf>,
}

impl Agent {
    pub fn new(
        model: Arc<dyn Model>,
        registry: Arc<HookRegistry>,
        tools: Arc<dyn ToolRunner>,
        specs: Vec<ToolSpec>,
        events: UnboundedSender<AgentEvent>,
    ) -> Self {
        Agent {
            model,
            registry,
            tools,
            specs,
            history: Vec::new(),
            events,
            max_steps: MAX_STEPS,
            next_id: 0,
            cwd: None,
        }
    }

    /// Starts the conversation with a system message.
    pub fn with_system(mut self, prompt: impl Into<String>) -> Self {
        self.history.insert(
            0,
            Message::System {
                content: prompt.into(),
            },
        );
        self
    }

    /// The folder the tools work in, so that a file write or edit shows what it changed.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    pub fn with_max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// Forgets the conversation (`/clear`); the system message stays.
    /// Talks to `model` from the next turn on, the conversation kept.
    pub fn set_model(&mut self, model: Arc<dyn Model>) {
        self.model = model;
    }

    pub fn clear(&mut self) {
        self.history.retain(|m| matches!(m, Message::System { .. }));
    }

    /// The conversation so far, as the model sees it.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    fn send(&self, ev: AgentEvent) {
        // A UI that has gone away does not stop the turn from ending cleanly.
        let _ = self.events.send(ev);
    }

    /// Runs one turn. Cancelling `cancel` ends it early: a pending reply is abandoned, and
    /// calls waiting for approval are denied.
    pub async fn turn(&mut self, user: String, cancel: CancelToken) {
        self.send(AgentEvent::TurnStarted);
        self.history.push(Message::User { content: user });
        let cancelled = self.steps(&cancel).await;
        self.send(AgentEvent::TurnEnded { cancelled });
    }

    /// The replies and tool calls of a turn; true when it was cancelled.
    async fn steps(&mut self, cancel: &CancelToken) -> bool {
        for _ in 0..self.max_steps {
            if cancel.is_cancelled() {
                return true;
            }
            let reply = match self.ask_model(cancel).await {
                Some(Ok(r)) => r,
                Some(Err(e)) => {
                    if cancel.is_cancelled() {
                        return true;
                    }
                    self.send(AgentEvent::ModelError(e.to_string()));
                    return false;
                }
                None => return true,
            };
            let mut calls = reply.tool_calls;
            for c in &mut calls {
                if c.id.is_empty() {
                    self.next_id += 1;
                    c.id = format!("call_{}", self.next_id);
                }
            }
            self.history.push(Message::Assistant {
                content: reply.content.clone(),
                tool_calls: calls.clone(),
            });
            self.send(AgentEvent::Assistant(reply.content));
            if calls.is_empty() {
                return false;
            }
            let handles: Vec<_> = calls
                .iter()
                .map(|c| {
                    tokio::spawn(run_call(
                        self.registry.clone(),
                        self.tools.clone(),
                        c.clone(),
                        cancel.clone(),
                        self.events.clone(),
                        self.cwd.clone(),
                    ))
                })
                .collect();
            for (c, h) in calls.iter().zip(handles) {
                let content = match h.await {
                    Ok(text) => text,
                    Err(e) => {
                        let text = format!("error: the tool call failed: {e}");
                        self.send(AgentEvent::ToolResult {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            status: ResultStatus::Error,
                            content: text.clone(),
                            diff: None,
                        });
                        text
                    }
                };
                self.history.push(Message::Tool {
                    tool_call_id: c.id.clone(),
                    content,
                });
            }
            if cancel.is_cancelled() {
                return true;
            }
        }
        self.send(AgentEvent::ModelError(format!(
            "stopped after {} replies in one turn",
            self.max_steps
        )));
        false
    }

    /// One reply, its text streamed to the UI. `None` when the turn was cancelled first.
    async fn ask_model(
        &self,
        cancel: &CancelToken,
    ) -> Option<Result<crate::model::Reply, crate::model::ModelError>> {
        let (dtx, mut drx) = mpsc::unbounded_channel::<Delta>();
        let events = self.events.clone();
        let forward = tokio::spawn(async move {
            while let Some(d) = drx.recv().await {
                let _ = events.send(match d {
                    Delta::Text(t) => AgentEvent::Delta(t),
                    Delta::Usage(n) => AgentEvent::Usage(n),
                });
            }
        });
        let reply = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            r = self.model.reply(&self.history, &self.specs, &dtx, cancel) => {
                Some(r)
            }
        };
        drop(dtx);
        // Every streamed piece reaches the UI before the whole reply does.
        let _ = forward.await;
        reply
    }
}

/// Runs one tool call through the hooks; returns what the model gets back.
async fn run_call(
    registry: Arc<HookRegistry>,
    tools: Arc<dyn ToolRunner>,
    mc: ModelToolCall,
    cancel: CancelToken,
    events: UnboundedSender<AgentEvent>,
    cwd: Option<PathBuf>,
) -> String {
    let send = |ev| {
        let _ = events.send(ev);
    };
    let parsed = parse_arguments(&mc.arguments);
    send(AgentEvent::ToolCall {
        id: mc.id.clone(),
        name: mc.name.clone(),
        arguments: match &parsed {
            Ok(args) => show_arguments(&mc.name, args),
            Err(_) => mc.arguments.clone(),
        },
    });
    let args = match parsed {
        Ok(a) => a,
        Err(why) => {
            let text = format!(
                "error: the arguments of `{}` are not a JSON object ({why}); the call did not run",
                mc.name
            );
            send(AgentEvent::ToolResult {
                id: mc.id.clone(),
                name: mc.name.clone(),
                status: ResultStatus::Error,
                content: text.clone(),
                diff: None,
            });
            return text;
        }
    };
    let before = cwd
        .as_deref()
        .and_then(|dir| diff::snapshot(&mc.name, &args, dir));
    let call = ToolCall {
        id: Some(mc.id.clone()),
        name: mc.name.clone(),
        arguments: args.clone(),
    };
    let ctx = HookContext {
        cancel,
        ..HookContext::default()
    };
    let exec = registry.execute(ctx, call, tools.as_ref()).await;
    if let Some(contained) = &exec.contained {
        send(AgentEvent::Contained {
            id: mc.id.clone(),
            note: contained.note(),
        });
    }
    let changed = match (&before, cwd.as_deref(), exec.result.status) {
        (Some(before), Some(dir), ResultStatus::Ok) => diff::applied(&args, dir, before),
        _ => None,
    };
    send(AgentEvent::ToolResult {
        id: mc.id,
        name: mc.name,
        status: exec.result.status,
        content: exec.result.content.clone(),
        diff: changed,
    });
    for_model(&exec.result)
}

/// Why the model's argument text is not an object of arguments.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentsError {
    #[error("{0}")]
    NotJson(serde_json::Error),
    /// JSON, but of this kind (`an array`).
    #[error("got {0}")]
    NotAnObject(&'static str),
}

/// The model's raw argument text as an object; empty text is no arguments.
pub fn parse_arguments(text: &str) -> Result<Map<String, Value>, ArgumentsError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(ArgumentsError::NotAnObject(crate::call::json_kind(&other))),
        Err(e) => Err(ArgumentsError::NotJson(e)),
    }
}

/// A call's arguments as a person reads them: the command of `bash`, the path of a file tool
/// (with its other arguments, long values cut), else the JSON.
pub fn show_arguments(tool: &str, args: &Map<String, Value>) -> String {
    let primary = match tool {
        "bash" => Some("command"),
        t if is_file_tool(t) => ["path", "file_path"]
            .into_iter()
            .find(|k| args.get(*k).is_some_and(Value::is_string)),
        _ => None,
    };
    let Some(key) = primary else {
        return Value::Object(args.clone()).to_string();
    };
    let Some(main) = args.get(key).and_then(Value::as_str) else {
        return Value::Object(args.clone()).to_string();
    };
    let rest: Vec<String> = args
        .iter()
        .filter(|(k, _)| k.as_str() != key)
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => shorten(s, 60),
                other => shorten(&other.to_string(), 60),
            };
            format!("{k}={v}")
        })
        .collect();
    if rest.is_empty() {
        main.to_string()
    } else {
        format!("{main}  ({})", rest.join(", "))
    }
}

fn shorten(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= max {
        format!("{one_line:?}")
    } else {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut:?}… ({} chars)", s.chars().count())
    }
}

/// What the model gets back for a result: denials and errors say so.
pub fn for_model(result: &ToolResult) -> String {
    match result.status {
        ResultStatus::Ok => result.content.clone(),
        ResultStatus::Error => format!("error: {}", result.content),
        // "denied" first: models (the demo among them) read a result that starts so as a
        // denial, and the person's feedback follows as "The user says: …".
        ResultStatus::Denied
            if result
                .content
                .get(..6)
                .is_some_and(|w| w.eq_ignore_ascii_case("denied")) =>
        {
            result.content.clone()
        }
        ResultStatus::Denied => format!("denied: {}", result.content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_arguments_are_no_arguments_and_non_objects_are_errors() {
        assert_eq!(parse_arguments("  ").ok(), Some(Map::new()));
        let e = parse_arguments("[1]").unwrap_err();
        assert!(matches!(e, ArgumentsError::NotAnObject(_)), "{e:?}");
        assert_eq!(e.to_string(), "got an array");
        assert!(matches!(
            parse_arguments("{\"command\": "),
            Err(ArgumentsError::NotJson(_))
        ));
        assert_eq!(
            parse_arguments(r#"{"command":"ls"}"#)
                .ok()
                .and_then(|m| m.get("command").cloned()),
            Some(Value::String("ls".into()))
        );
    }

    #[test]
    fn denials_reach_the_model_starting_with_denied() {
        assert_eq!(
            for_model(&ToolResult::denied("`~/.ssh` is protected")),
            "denied: `~/.ssh` is protected"
        );
        assert_eq!(
            for_model(&ToolResult::denied(
                "denied by the user (x). The user says: no"
            )),
            "denied by the user (x). The user says: no"
        );
        assert_eq!(for_model(&ToolResult::error("boom")), "error: boom");
        assert_eq!(for_model(&ToolResult::ok("out")), "out");
    }

    #[test]
    fn arguments_show_the_command_or_path_first() {
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            show_arguments("bash", &args(serde_json::json!({"command": "git status"}))),
            "git status"
        );
        assert_eq!(
            show_arguments(
                "write_file",
                &args(serde_json::json!({"path": "a.txt", "content": "hi\nthere"}))
            ),
            "a.txt  (content=\"hi⏎there\")"
        );
        assert_eq!(
            show_arguments("mcp__x__y", &args(serde_json::json!({"url": "u"}))),
            r#"{"url":"u"}"#
        );
    }
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod loop_tests;
