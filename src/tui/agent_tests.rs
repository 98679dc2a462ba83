//! The agent loop against a scripted model, a hook that asks about every call, and a fake tool.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc::{self, UnboundedReceiver};

use super::*;
use crate::call::Risk;
use crate::model::{ModelError, Reply};
use crate::runtime::{
    Answer, Approver, HookDecision, HookError, InvalidCall, ModeHandle, RuntimeEvent, ToolHook,
};

/// Replies from a script; records the conversation it was shown each time.
struct Scripted {
    replies: Mutex<VecDeque<Result<Reply, ModelError>>>,
    seen: Mutex<Vec<Vec<Message>>>,
}

impl Scripted {
    fn new(replies: Vec<Result<Reply, ModelError>>) -> Arc<Self> {
        Arc::new(Scripted {
            replies: Mutex::new(replies.into()),
            seen: Mutex::new(Vec::new()),
        })
    }

    fn last_seen(&self) -> Vec<Message> {
        self.seen
            .lock()
            .map(|s| s.last().cloned().unwrap_or_default())
            .unwrap_or_default()
    }
}

#[async_trait]
impl Model for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn reply(
        &self,
        messages: &[Message],
        _tools: &[ToolSpec],
        deltas: &UnboundedSender<Delta>,
        _cancel: &CancelToken,
    ) -> Result<Reply, ModelError> {
        if let Ok(mut s) = self.seen.lock() {
            s.push(messages.to_vec());
        }
        let next = self
            .replies
            .lock()
            .ok()
            .and_then(|mut r| r.pop_front())
            .unwrap_or_else(|| Ok(Reply::default()));
        if let Ok(r) = &next {
            let _ = deltas.send(Delta::Text(r.content.clone()));
        }
        next
    }
}

/// Asks about every call.
struct AskAll;

#[async_trait]
impl ToolHook for AskAll {
    fn name(&self) -> &str {
        "ask-all"
    }

    async fn before_execute(
        &self,
        ctx: HookContext,
        _call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        Ok((
            ctx,
            HookDecision::ask("asks about everything", Risk::Medium),
        ))
    }
}

/// Echoes the command.
struct Echo;

#[async_trait]
impl ToolRunner for Echo {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        ToolResult::ok(format!("ran {}", call.primary_arg().unwrap_or("?")))
    }
}

fn bash(id: &str, command: &str) -> ModelToolCall {
    ModelToolCall {
        id: id.into(),
        name: "bash".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
    }
}

fn calls(calls: Vec<ModelToolCall>) -> Result<Reply, ModelError> {
    Ok(Reply {
        content: String::new(),
        tool_calls: calls,
    })
}

fn text(t: &str) -> Result<Reply, ModelError> {
    Ok(Reply {
        content: t.into(),
        tool_calls: Vec::new(),
    })
}

struct Rig {
    agent: Agent,
    model: Arc<Scripted>,
    events: UnboundedReceiver<AgentEvent>,
    approvals: UnboundedReceiver<RuntimeEvent>,
}

fn rig(replies: Vec<Result<Reply, ModelError>>) -> Rig {
    let model = Scripted::new(replies);
    let (rt_tx, approvals) = mpsc::unbounded_channel();
    let registry = HookRegistry::new(ModeHandle::default())
        .with_hook(Arc::new(AskAll))
        .with_approver(Approver::new(rt_tx));
    let (tx, events) = mpsc::unbounded_channel();
    let agent = Agent::new(
        model.clone(),
        Arc::new(registry),
        Arc::new(Echo),
        Vec::new(),
        tx,
    );
    Rig {
        agent,
        model,
        events,
        approvals,
    }
}

fn drain(rx: &mut UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e);
    }
    out
}

fn tool_messages(history: &[Message]) -> Vec<(String, String)> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
            } => Some((tool_call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

async fn next_approval(
    rx: &mut UnboundedReceiver<RuntimeEvent>,
) -> crate::runtime::ApprovalRequest {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            Ok(Some(RuntimeEvent::Approval(r))) => return r,
            Ok(Some(_)) => continue,
            other => panic!("no approval request came: {other:?}"),
        }
    }
}

#[tokio::test]
async fn calls_of_one_reply_ask_concurrently_and_results_go_back_in_call_order() {
    let Rig {
        mut agent,
        model,
        mut events,
        mut approvals,
    } = rig(vec![
        calls(vec![bash("a", "git status"), bash("b", "make")]),
        text("done"),
    ]);
    let answerer = tokio::spawn(async move {
        // Both requests wait at the same time before either is answered.
        let first = next_approval(&mut approvals).await;
        let second = next_approval(&mut approvals).await;
        assert!(first.id < second.id);
        second.respond(Answer::DenyWithFeedback("not now".into()));
        first.respond(Answer::AllowOnce);
    });
    agent.turn("go".into(), CancelToken::new()).await;
    answerer.await.expect("answered");
    let seen = model.last_seen();
    let tools = tool_messages(&seen);
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0], ("a".to_string(), "ran git status".to_string()));
    assert_eq!(tools[1].0, "b");
    assert!(
        tools[1].1.starts_with("denied") && tools[1].1.contains("The user says: not now"),
        "{}",
        tools[1].1
    );
    let evs = drain(&mut events);
    assert_eq!(evs.first(), Some(&AgentEvent::TurnStarted));
    assert_eq!(
        evs.last(),
        Some(&AgentEvent::TurnEnded { cancelled: false })
    );
    assert!(evs.contains(&AgentEvent::Assistant("done".into())));
}

#[tokio::test]
async fn malformed_arguments_become_an_error_result_and_the_turn_goes_on() {
    let Rig {
        mut agent,
        model,
        mut events,
        ..
    } = rig(vec![
        calls(vec![ModelToolCall {
            id: "x".into(),
            name: "bash".into(),
            arguments: "{\"command\": ".into(),
        }]),
        text("sorry"),
    ]);
    agent.turn("go".into(), CancelToken::new()).await;
    let tools = tool_messages(&model.last_seen());
    assert_eq!(tools.len(), 1);
    assert!(tools[0].1.starts_with("error:"), "{}", tools[0].1);
    let evs = drain(&mut events);
    assert!(evs.iter().any(|e| matches!(
        e,
        AgentEvent::ToolResult {
            status: ResultStatus::Error,
            ..
        }
    )));
    assert!(evs.contains(&AgentEvent::Assistant("sorry".into())));
}

#[tokio::test]
async fn a_model_error_is_reported_and_ends_the_turn_without_a_crash() {
    let Rig {
        mut agent,
        mut events,
        ..
    } = rig(vec![
        Err(ModelError("connection refused".into())),
        text("back"),
    ]);
    agent.turn("one".into(), CancelToken::new()).await;
    let evs = drain(&mut events);
    assert!(evs.contains(&AgentEvent::ModelError("connection refused".into())));
    assert_eq!(
        evs.last(),
        Some(&AgentEvent::TurnEnded { cancelled: false })
    );
    // The session goes on.
    agent.turn("two".into(), CancelToken::new()).await;
    assert!(drain(&mut events).contains(&AgentEvent::Assistant("back".into())));
}

#[tokio::test]
async fn cancelling_a_turn_denies_its_waiting_calls_and_ends_it() {
    let Rig {
        mut agent,
        mut events,
        mut approvals,
        ..
    } = rig(vec![
        calls(vec![bash("a", "rm -rf x")]),
        text("never asked"),
    ]);
    let cancel = CancelToken::new();
    let c = cancel.clone();
    let canceller = tokio::spawn(async move {
        let req = next_approval(&mut approvals).await;
        c.cancel();
        // The request was not answered; its task has stopped waiting.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !req.respond(Answer::AllowOnce),
            "nobody waits after a cancel"
        );
    });
    agent.turn("go".into(), cancel).await;
    canceller.await.expect("cancelled");
    let evs = drain(&mut events);
    assert_eq!(evs.last(), Some(&AgentEvent::TurnEnded { cancelled: true }));
    assert!(!evs.contains(&AgentEvent::Assistant("never asked".into())));
    // The model's history stays well formed: the call has its (denied) result.
    let tools = tool_messages(agent.history());
    assert_eq!(tools.len(), 1);
    assert!(tools[0].1.starts_with("denied"), "{}", tools[0].1);
}
