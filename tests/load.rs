//! The approval path under load: 1,000 tool tasks asking at once, answered by a responder in
//! a scrambled order, in several rounds. No answer is lost or misdelivered, no task or file
//! handle outlives its round, and memory stays flat from round to round.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use harness9::runtime::{
    Answer, Approver, CancelToken, HookContext, HookDecision, HookError, HookRegistry, InvalidCall,
    ModeHandle, RuntimeEvent, ToolHook, ToolResult, ToolRunner,
};
use harness9::{Action, Mode, Risk, ToolCall};
use tokio::sync::mpsc;

struct AskEverything;

#[async_trait]
impl ToolHook for AskEverything {
    fn name(&self) -> &str {
        "ask"
    }

    async fn before_execute(
        &self,
        ctx: HookContext,
        _call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        Ok((ctx, HookDecision::ask("load", Risk::Medium)))
    }
}

struct Nothing;

#[async_trait]
impl ToolRunner for Nothing {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        ToolResult::ok(call.arguments["command"].as_str().unwrap_or_default())
    }
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// Resident memory in KiB.
fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn number(call: &ToolCall) -> u64 {
    call.arguments["command"]
        .as_str()
        .and_then(|c| c.strip_prefix("task "))
        .and_then(|n| n.parse().ok())
        .expect("a task number")
}

/// One round: `n` tasks ask at once; the responder collects every request, then answers them
/// in a scrambled order (odd tasks denied). Returns the prompts seen.
async fn round(
    registry: Arc<HookRegistry>,
    events: &mut mpsc::UnboundedReceiver<RuntimeEvent>,
    n: u64,
    salt: u64,
) -> usize {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let reg = registry.clone();
            tokio::spawn(async move {
                let call = ToolCall::primary("bash", format!("task {}", salt * 100_000 + i));
                let done = reg
                    .execute(HookContext::default(), call.clone(), &Nothing)
                    .await;
                (call, done)
            })
        })
        .collect();
    let mut pending = Vec::new();
    while (pending.len() as u64) < n {
        match tokio::time::timeout(Duration::from_secs(20), events.recv()).await {
            Ok(Some(RuntimeEvent::Approval(r))) => pending.push(r),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => panic!("only {} of {n} requests arrived", pending.len()),
        }
    }
    let prompts = pending.len();
    // Scramble: a fixed-step permutation of the arrival order.
    let len = pending.len();
    let mut slots: Vec<Option<_>> = pending.into_iter().map(Some).collect();
    for k in 0..len {
        let idx = (k * 7919 + salt as usize) % len;
        let r = slots[idx].take().expect("each request is answered once");
        let a = if number(&r.call) % 2 == 1 {
            Answer::Deny
        } else {
            Answer::AllowOnce
        };
        assert!(r.respond(a), "the task still waits for its answer");
    }
    for t in tasks {
        let (call, done) = t.await.expect("the task finished without panicking");
        let want = if number(&call) % 2 == 1 {
            Action::Deny
        } else {
            Action::Allow
        };
        assert_eq!(done.record.action, want, "{call:?}");
        assert_eq!(done.call, call, "the answer reached its own task");
        if want == Action::Allow {
            assert_eq!(done.result.content, format!("task {}", number(&call)));
        }
    }
    prompts
}

#[test]
fn a_thousand_concurrent_asks_lose_no_answer_leak_nothing_and_keep_memory_flat() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let (tx, mut events) = mpsc::unbounded_channel();
    let registry = Arc::new(
        HookRegistry::new(ModeHandle::new(Mode::Default))
            .with_approver(Approver::new(tx))
            .with_hook(Arc::new(AskEverything)),
    );
    let fds_before = open_fds();
    let mut rss = Vec::new();
    rt.block_on(async {
        for salt in 0..5 {
            let prompts = round(registry.clone(), &mut events, 1_000, salt).await;
            assert_eq!(prompts, 1_000, "one prompt per task");
            rss.push(rss_kib());
            let alive = tokio::runtime::Handle::current()
                .metrics()
                .num_alive_tasks();
            assert_eq!(alive, 0, "no task outlives its round");
        }
    });
    assert!(events.try_recv().is_err(), "no stray request");
    assert_eq!(open_fds(), fds_before, "no file handle leaked");
    // The first round warms allocator pools; later rounds must not keep growing.
    let (first, last) = (rss[1], rss[rss.len() - 1]);
    eprintln!("RSS per round (KiB): {rss:?}");
    assert!(
        last <= first + first / 10 + 2048,
        "memory grew from {first} KiB to {last} KiB over rounds: {rss:?}"
    );
}
