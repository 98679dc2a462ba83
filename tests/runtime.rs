//! The runtime through its public API: the onion model of the hook chain, approvals, modes,
//! session memory, "always allow", and what happens when things go wrong.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use harness9::runtime::propose::propose;
use harness9::runtime::{
    Answer, Approver, CancelToken, DecidedBy, DecisionRecord, HookContext, HookDecision, HookError,
    HookRegistry, InvalidCall, ModeHandle, ResultStatus, RuntimeEvent, ToolHook, ToolResult,
    ToolRunner,
};
use harness9::{Action, Engine, Mode, Risk, ToolCall};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

mod common;
use common::{bash, rt, Echo, Failing, Output, Panicking, Project};

/// Records what happened, in order.
type Log = Arc<Mutex<Vec<String>>>;

struct Scripted {
    name: &'static str,
    decision: HookDecision,
    log: Log,
}

#[async_trait]
impl ToolHook for Scripted {
    fn name(&self) -> &str {
        self.name
    }

    async fn before_execute(
        &self,
        ctx: HookContext,
        call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        self.log.lock().unwrap().push(format!(
            "before {} {}",
            self.name,
            Value::Object(call.arguments.clone())
        ));
        Ok((ctx, self.decision.clone()))
    }

    async fn after_execute(
        &self,
        _ctx: &HookContext,
        _call: &ToolCall,
        result: ToolResult,
    ) -> ToolResult {
        self.log
            .lock()
            .unwrap()
            .push(format!("after {}", self.name));
        ToolResult {
            content: format!("{}+{}", result.content, self.name),
            ..result
        }
    }
}

fn hook(name: &'static str, decision: HookDecision, log: &Log) -> Arc<dyn ToolHook> {
    Arc::new(Scripted {
        name,
        decision,
        log: log.clone(),
    })
}

fn registry() -> HookRegistry {
    HookRegistry::new(ModeHandle::new(Mode::Default))
}

#[test]
fn after_execute_runs_in_reverse_for_exactly_the_hooks_that_ran() {
    let log = Log::default();
    let reg = registry()
        .with_hook(hook("a", HookDecision::allow(), &log))
        .with_hook(hook("b", HookDecision::allow(), &log))
        .with_hook(hook("c", HookDecision::allow(), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.result.content, "ran+c+b+a");
    let log = log.lock().unwrap();
    let order: Vec<&str> = log
        .iter()
        .map(|l| l.split(' ').take(2).last().unwrap())
        .collect();
    assert_eq!(order, ["a", "b", "c", "c", "b", "a"]);
    assert_eq!(ex.record.action, Action::Allow);
}

#[test]
fn deny_stops_the_chain_and_no_after_execute_runs() {
    let log = Log::default();
    let reg = registry()
        .with_hook(hook("a", HookDecision::allow(), &log))
        .with_hook(hook(
            "b",
            HookDecision::deny("no").with_rule("team:3"),
            &log,
        ))
        .with_hook(hook("c", HookDecision::allow(), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.result.status, ResultStatus::Denied);
    assert!(tool.ran.lock().unwrap().is_empty());
    assert_eq!(
        *log.lock().unwrap(),
        [
            "before a {\"command\":\"ls\"}",
            "before b {\"command\":\"ls\"}"
        ]
    );
    assert_eq!(
        ex.record.decided_by,
        DecidedBy::Rule {
            hook: "b".into(),
            rule: Some("team:3".into())
        }
    );
}

#[test]
fn an_error_short_circuits_into_an_error_result_and_unwinds_the_hooks_that_ran() {
    let log = Log::default();
    let reg = registry()
        .with_hook(hook("a", HookDecision::allow(), &log))
        .with_hook(Arc::new(Failing))
        .with_hook(hook("c", HookDecision::allow(), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.result.status, ResultStatus::Error);
    assert!(
        ex.result.content.contains("the policy server is down"),
        "{}",
        ex.result.content
    );
    assert!(tool.ran.lock().unwrap().is_empty());
    assert_eq!(ex.record.action, Action::Deny);
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1], "after a");
}

#[test]
fn a_panicking_hook_becomes_a_deny_with_its_message() {
    let log = Log::default();
    let reg =
        registry()
            .with_hook(Arc::new(Panicking))
            .with_hook(hook("b", HookDecision::allow(), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Deny);
    assert!(
        ex.record.reason.contains("index out of bounds in a hook"),
        "{}",
        ex.record.reason
    );
    assert_eq!(
        ex.record.decided_by,
        DecidedBy::Error {
            hook: "panicking".into()
        }
    );
    assert_eq!(ex.result.status, ResultStatus::Error);
    assert!(tool.ran.lock().unwrap().is_empty());
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn allow_applies_modified_args_for_later_hooks_and_the_tool() {
    let log = Log::default();
    let mut args = Map::new();
    args.insert("command".into(), json!("ls -la"));
    let reg = registry()
        .with_hook(hook("a", HookDecision::allow().with_args(args), &log))
        .with_hook(hook("b", HookDecision::allow(), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(log.lock().unwrap()[1], "before b {\"command\":\"ls -la\"}");
    assert_eq!(tool.ran.lock().unwrap()[0].arguments["command"], "ls -la");
    assert_eq!(ex.call.arguments["command"], "ls -la");
}

#[test]
fn modified_args_the_tool_does_not_take_are_rejected() {
    let log = Log::default();
    let mut args = Map::new();
    args.insert("command".into(), json!(42));
    let reg = registry().with_hook(hook("a", HookDecision::allow().with_args(args), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Deny);
    assert!(
        ex.record.reason.contains("invalid call"),
        "{}",
        ex.record.reason
    );
    assert!(tool.ran.lock().unwrap().is_empty());
}

#[test]
fn a_malformed_call_is_denied_before_any_hook() {
    let log = Log::default();
    let reg = registry().with_hook(hook("a", HookDecision::allow(), &log));
    let tool = Echo::default();
    let call = ToolCall::new("bash", Map::new());
    let ex = rt().block_on(reg.execute(HookContext::default(), call, &tool));
    assert_eq!(ex.result.status, ResultStatus::Denied);
    assert!(ex.record.reason.contains("malformed call"));
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn an_ask_after_a_rule_allow_skips_the_prompt_and_the_record_names_the_rule() {
    let log = Log::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry()
        .with_approver(Approver::new(tx))
        .with_hook(hook("a", HookDecision::allow().with_rule("team:1"), &log))
        .with_hook(hook("b", HookDecision::ask("risky", Risk::High), &log));
    let tool = Echo::default();
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Allow);
    assert!(rx.try_recv().is_err(), "no prompt");
    let marker = ex.record.allowed_by_rule.expect("marked allowed by rule");
    assert_eq!(
        (marker.hook.as_str(), marker.rule.map(|r| r.to_string())),
        ("a", Some("team:1".to_string()))
    );
    assert!(ex.record.approved_by_human.is_none());
}

#[test]
fn an_ask_in_a_context_a_person_already_approved_is_not_asked_again() {
    let log = Log::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry()
        .with_approver(Approver::new(tx))
        .with_hook(hook("a", HookDecision::ask("first", Risk::Low), &log))
        .with_hook(hook("b", HookDecision::ask("second", Risk::High), &log));
    let tool = Echo::default();
    let rt = rt();
    let ex = rt.block_on(async {
        let answer = async {
            let Some(RuntimeEvent::Approval(req)) = rx.recv().await else {
                panic!("expected a prompt")
            };
            assert_eq!(req.reason, "first");
            req.respond(Answer::AllowOnce);
        };
        let (ex, ()) = tokio::join!(
            reg.execute(HookContext::default(), bash("ls"), &tool),
            answer
        );
        ex
    });
    assert_eq!(ex.record.action, Action::Allow);
    assert!(rx.try_recv().is_err(), "one prompt only");
    let human = ex
        .record
        .approved_by_human
        .expect("marked approved by a person");
    assert_eq!((human.answer, human.hook.as_str()), ("allow-once", "a"));
    assert!(ex.record.allowed_by_rule.is_none());
    assert_eq!(tool.ran.lock().unwrap().len(), 1);
}

#[test]
fn without_a_person_asks_resolve_by_the_headless_setting_and_the_record_says_so() {
    let log = Log::default();
    let tool = Echo::default();
    let high = registry().with_hook(hook("a", HookDecision::ask("x", Risk::High), &log));
    let ex = rt().block_on(high.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(
        (ex.record.action, &ex.record.decided_by),
        (Action::Deny, &DecidedBy::Headless)
    );
    assert!(
        ex.record.reason.contains("non-interactive"),
        "{}",
        ex.record.reason
    );
    let low = registry().with_hook(hook("a", HookDecision::ask("x", Risk::Low), &log));
    let ex = rt().block_on(low.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(
        (ex.record.action, &ex.record.decided_by),
        (Action::Allow, &DecidedBy::Headless)
    );
}

#[test]
fn headless_statements_of_the_policy_change_how_asks_resolve() {
    let e = Engine::builder()
        .policy_text(
            "p",
            "headless deny risk low; headless allow risk high; default ask;",
        )
        .build()
        .unwrap();
    let h = e.headless();
    assert!(h.contains(&(Risk::Low, Action::Deny)));
    assert!(h.contains(&(Risk::High, Action::Allow)));
    assert!(
        h.contains(&(Risk::Medium, Action::Allow)),
        "unset risks keep the shipped setting"
    );
    let shipped = Engine::builder()
        .default_policy()
        .build()
        .unwrap()
        .headless();
    assert!(shipped.contains(&(Risk::High, Action::Deny)));
    assert!(shipped.contains(&(Risk::Low, Action::Allow)));
}

#[test]
fn modes_settle_asks_auto_approve_up_to_medium_bypass_all_and_the_record_says_mode() {
    let log = Log::default();
    let tool = Echo::default();
    let (tx, _rx) = mpsc::unbounded_channel();
    let approver = Approver::new(tx).with_timeout(Some(Duration::from_millis(50)));
    let mode = ModeHandle::new(Mode::AutoApprove);
    let reg = HookRegistry::new(mode.clone())
        .with_approver(approver)
        .with_hook(hook("a", HookDecision::ask("x", Risk::Medium), &log));
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(
        ex.record.decided_by,
        DecidedBy::Mode {
            mode: Mode::AutoApprove
        }
    );
    let reg_high = HookRegistry::new(mode.clone())
        .with_approver(
            Approver::new(mpsc::unbounded_channel().0)
                .with_timeout(Some(Duration::from_millis(20))),
        )
        .with_hook(hook("a", HookDecision::ask("x", Risk::High), &log));
    let ex = rt().block_on(reg_high.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(
        ex.record.action,
        Action::Deny,
        "high risk still asks; nobody answered"
    );
    assert!(
        matches!(ex.record.decided_by, DecidedBy::NoAnswer { .. }),
        "it went to a person: {:?}",
        ex.record.decided_by
    );
    mode.set(Mode::Bypass);
    let ex = rt().block_on(reg_high.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.decided_by, DecidedBy::Mode { mode: Mode::Bypass });
    assert_eq!(ex.record.action, Action::Allow);
    let deny = HookRegistry::new(mode.clone()).with_hook(hook("a", HookDecision::deny("no"), &log));
    let ex = rt().block_on(deny.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Deny, "bypass never lifts a deny");
}

#[test]
fn mode_handle_cycles_through_the_four_modes() {
    let m = ModeHandle::new(Mode::Default);
    let seen: Vec<Mode> = (0..4).map(|_| m.cycle()).collect();
    assert_eq!(
        seen,
        [
            Mode::AutoApprove,
            Mode::ReadOnly,
            Mode::Bypass,
            Mode::Default
        ]
    );
}

#[test]
fn a_dropped_request_a_closed_channel_a_cancelled_turn_and_a_timeout_all_deny() {
    let log = Log::default();
    let tool = Echo::default();
    let rt = rt();
    let ask = || hook("a", HookDecision::ask("x", Risk::Low), &log);

    // Dropped responder.
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry().with_approver(Approver::new(tx)).with_hook(ask());
    let ex = rt.block_on(async {
        let drop_it = async { drop(rx.recv().await) };
        tokio::join!(
            reg.execute(HookContext::default(), bash("ls"), &tool),
            drop_it
        )
        .0
    });
    assert_eq!(ex.record.action, Action::Deny);
    assert!(matches!(ex.record.decided_by, DecidedBy::NoAnswer { .. }));

    // Closed channel.
    let (tx, rx) = mpsc::unbounded_channel();
    drop(rx);
    let reg = registry().with_approver(Approver::new(tx)).with_hook(ask());
    let ex = rt.block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Deny);

    // Cancelled turn: the request stays unanswered, the turn is cancelled.
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry().with_approver(Approver::new(tx)).with_hook(ask());
    let ctx = HookContext::default();
    let cancel = ctx.cancel.clone();
    let ex = rt.block_on(async {
        let cancel_it = async {
            let req = rx.recv().await;
            cancel.cancel();
            req
        };
        let (ex, req) = tokio::join!(reg.execute(ctx, bash("ls"), &tool), cancel_it);
        // Answering after the cancel reaches nobody.
        assert!(!req
            .map(|e| match e {
                RuntimeEvent::Approval(r) => r.respond(Answer::AllowOnce),
                _ => false,
            })
            .unwrap_or(false));
        ex
    });
    assert_eq!(ex.record.action, Action::Deny);
    assert!(
        ex.record.reason.contains("cancelled"),
        "{}",
        ex.record.reason
    );

    // Timeout.
    let (tx, _rx) = mpsc::unbounded_channel();
    let reg = registry()
        .with_approver(Approver::new(tx).with_timeout(Some(Duration::from_millis(30))))
        .with_hook(ask());
    let ex = rt.block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Deny);
    assert!(
        ex.record.reason.contains("no answer within"),
        "{}",
        ex.record.reason
    );
    assert!(tool.ran.lock().unwrap().is_empty(), "nothing ran");
}

#[test]
fn deny_with_feedback_returns_the_text_to_the_model() {
    let log = Log::default();
    let tool = Echo::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry().with_approver(Approver::new(tx)).with_hook(hook(
        "a",
        HookDecision::ask("writes a file", Risk::Medium),
        &log,
    ));
    let ex = rt().block_on(async {
        let answer = async {
            if let Some(RuntimeEvent::Approval(r)) = rx.recv().await {
                r.respond(Answer::DenyWithFeedback("use the tmp folder".into()));
            }
        };
        tokio::join!(
            reg.execute(HookContext::default(), bash("touch x"), &tool),
            answer
        )
        .0
    });
    assert_eq!(ex.result.status, ResultStatus::Denied);
    assert!(
        ex.result.content.contains("use the tmp folder"),
        "{}",
        ex.result.content
    );
    assert_eq!(
        ex.record.decided_by,
        DecidedBy::Human {
            answer: "deny-with-feedback".into()
        }
    );
}

/// A scripted responder that answers requests in a shuffled order.
#[test]
fn two_hundred_tasks_asking_at_once_each_get_their_own_answer_and_identical_asks_prompt_once() {
    let log = Log::default();
    let tool = Echo::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry().with_approver(Approver::new(tx)).with_hook(hook(
        "a",
        HookDecision::ask("x", Risk::Low),
        &log,
    ));
    // 150 distinct commands, 50 repeats of the first 50; even-numbered commands are allowed.
    let calls: Vec<ToolCall> = (0..200)
        .map(|i| bash(&format!("echo {}", i % 150)))
        .collect();
    let distinct = 150;
    let rt = rt();
    let (results, prompts) = rt.block_on(async {
        let tasks = futures_join_all(calls.iter().map(|c| {
            let reg = &reg;
            let tool = &tool;
            async move { reg.execute(HookContext::default(), c.clone(), tool).await }
        }));
        let responder = async {
            let mut pending = Vec::new();
            let mut prompts = 0;
            let mut seed = 0x9E3779B97F4A7C15u64;
            let mut last_id = 0;
            loop {
                tokio::select! {
                    ev = rx.recv() => match ev {
                        Some(RuntimeEvent::Approval(r)) => {
                            assert!(r.id > last_id, "requests arrive in order");
                            last_id = r.id;
                            prompts += 1;
                            pending.push(r);
                        }
                        Some(_) => {}
                        None => break,
                    },
                    _ = tokio::time::sleep(Duration::from_millis(5)), if !pending.is_empty() => {
                        // Answer a pseudo-random pending request.
                        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
                        let r = pending.swap_remove((seed % pending.len() as u64) as usize);
                        let n: u32 = r.call.arguments["command"].as_str().unwrap()[5..].parse().unwrap();
                        let a = if n.is_multiple_of(2) { Answer::AllowSession } else { Answer::Deny };
                        assert!(r.respond(a));
                    }
                    _ = tokio::time::sleep(Duration::from_millis(300)), if pending.is_empty() => break,
                }
            }
            prompts
        };
        tokio::join!(tasks, responder)
    });
    assert_eq!(prompts, distinct, "one prompt per distinct ask");
    for (c, ex) in calls.iter().zip(&results) {
        let n: u32 = c.arguments["command"].as_str().unwrap()[5..]
            .parse()
            .unwrap();
        let want = if n.is_multiple_of(2) {
            Action::Allow
        } else {
            Action::Deny
        };
        assert_eq!(ex.record.action, want, "{c:?} got {:?}", ex.record);
        assert_eq!(ex.call, *c, "each answer reaches its own task");
    }
    assert_eq!(
        tool.ran.lock().unwrap().len(),
        results
            .iter()
            .filter(|e| e.record.action == Action::Allow)
            .count()
    );
}

/// `join_all` without the futures crate: polls every future on the current task.
async fn futures_join_all<F: std::future::Future>(futs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let futs: Vec<_> = futs.map(Box::pin).collect();
    let mut outs: Vec<Option<F::Output>> = (0..futs.len()).map(|_| None).collect();
    let mut futs: Vec<Option<_>> = futs.into_iter().map(Some).collect();
    std::future::poll_fn(|cx| {
        let mut done = true;
        for (i, f) in futs.iter_mut().enumerate() {
            if let Some(fut) = f {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        outs[i] = Some(v);
                        *f = None;
                    }
                    std::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    outs.into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}

// ---- The shipped hooks over a real project folder ----

fn answer_all(
    mut rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    answer: Answer,
) -> tokio::task::JoinHandle<Vec<String>> {
    tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(ev) = rx.recv().await {
            match ev {
                RuntimeEvent::Approval(r) => {
                    seen.push(format!(
                        "ask {}",
                        r.proposal
                            .as_ref()
                            .map(|p| p.to_string())
                            .unwrap_or_default()
                    ));
                    r.respond(answer.clone());
                }
                RuntimeEvent::Notice(n) => seen.push(format!("notice {n}")),
                RuntimeEvent::PolicyError { message } => seen.push(format!("error {message}")),
                RuntimeEvent::PolicyReloaded { .. } => seen.push("reloaded".into()),
            }
        }
        seen
    })
}

#[test]
fn always_allow_writes_a_narrow_rule_and_the_next_call_is_allowed_by_it() {
    let p = Project::new();
    let rt = rt();
    rt.block_on(async {
        let (tx, rx) = mpsc::unbounded_channel();
        let (reg, _) = p.registry(Mode::Default, Some(Approver::new(tx)));
        let seen = answer_all(rx, Answer::AlwaysAllow);
        let tool = Echo::default();
        let ex = reg
            .execute(HookContext::default(), bash("git commit -m 'first'"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Allow, "{:?}", ex.record);
        let text = std::fs::read_to_string(p.settings()).expect("settings.json written");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["permissions"]["allow"], json!(["bash(git commit *)"]));
        // The next commit is allowed by the written rule, with no prompt.
        let ex = reg
            .execute(HookContext::default(), bash("git commit --amend"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Allow);
        match &ex.record.decided_by {
            DecidedBy::Rule { rule: Some(r), .. } => {
                assert!(r.to_string().contains("settings.json"), "{r}")
            }
            other => panic!("decided by {other:?}"),
        }
        drop(reg);
        let seen = seen.await.unwrap();
        assert_eq!(
            seen.iter().filter(|s| s.starts_with("ask")).count(),
            1,
            "{seen:?}"
        );
        assert_eq!(seen[0], "ask bash(git commit *)");
    });
}

#[test]
fn allow_for_the_session_is_remembered_in_memory_and_written_nowhere() {
    let p = Project::new();
    rt().block_on(async {
        let (tx, rx) = mpsc::unbounded_channel();
        let (reg, _) = p.registry(Mode::Default, Some(Approver::new(tx)));
        let seen = answer_all(rx, Answer::AllowSession);
        let tool = Echo::default();
        let first = reg
            .execute(HookContext::default(), bash("cargo build --release"), &tool)
            .await;
        assert_eq!(first.record.action, Action::Allow);
        let again = reg
            .execute(HookContext::default(), bash("cargo build"), &tool)
            .await;
        assert_eq!(again.record.action, Action::Allow);
        assert!(
            matches!(again.record.decided_by, DecidedBy::Session { .. }),
            "{:?}",
            again.record.decided_by
        );
        // A different subcommand is not covered: it is asked about (and allowed for the
        // session in turn).
        let other = reg
            .execute(HookContext::default(), bash("cargo publish"), &tool)
            .await;
        assert!(
            matches!(other.record.decided_by, DecidedBy::Human { .. }),
            "{:?}",
            other.record.decided_by
        );
        drop(reg);
        let seen = seen.await.unwrap();
        assert_eq!(
            seen.iter().filter(|s| s.starts_with("ask")).count(),
            2,
            "{seen:?}"
        );
        assert_eq!(seen[0], "ask bash(cargo build *)");
        assert!(!p.settings().exists());
    });
}

#[test]
fn the_session_memory_never_lifts_a_hard_protection() {
    let p = Project::new();
    rt().block_on(async {
        let (tx, rx) = mpsc::unbounded_channel();
        let (reg, _) = p.registry(Mode::Bypass, Some(Approver::new(tx)));
        let _seen = answer_all(rx, Answer::AlwaysAllow);
        let tool = Echo::default();
        let ex = reg
            .execute(HookContext::default(), bash("cat ~/.ssh/id_rsa"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Deny);
        assert!(tool.ran.lock().unwrap().is_empty());
    });
}

#[test]
fn read_only_mode_denies_writes_and_lets_reads_through() {
    let p = Project::new();
    rt().block_on(async {
        let (reg, _) = p.registry(Mode::ReadOnly, None);
        let tool = Echo::default();
        for (call, want) in [
            (bash("git status"), Action::Allow),
            (bash("touch x"), Action::Deny),
            (ToolCall::primary("write_file", "x.txt"), Action::Deny),
            (ToolCall::primary("read_file", "README.md"), Action::Allow),
        ] {
            let ex = reg
                .execute(HookContext::default(), call.clone(), &tool)
                .await;
            assert_eq!(ex.record.action, want, "{call:?}: {:?}", ex.record);
        }
    });
}

#[test]
fn an_invalid_settings_edit_keeps_the_last_good_policy_and_reports_a_diagnostic() {
    let p = Project::new();
    std::fs::create_dir_all(p.cwd().join(".harness9")).unwrap();
    std::fs::write(
        p.settings(),
        r#"{"permissions": {"deny": ["bash(make *)"]}}"#,
    )
    .unwrap();
    rt().block_on(async {
        let (tx, rx) = mpsc::unbounded_channel();
        let (reg, loaded) = p.registry(Mode::Default, Some(Approver::new(tx)));
        let seen = answer_all(rx, Answer::AllowOnce);
        let tool = Echo::default();
        let ex = reg
            .execute(HookContext::default(), bash("make all"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Deny);
        std::fs::write(p.settings(), r#"{"permissions": {"deny": ["bash(make *)"#).unwrap();
        let ex = reg
            .execute(HookContext::default(), bash("make all"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Deny, "the last good policy holds");
        assert_eq!(loaded.engine.reloads(), 1);
        // Fixed again: the new content is in force.
        std::fs::write(
            p.settings(),
            r#"{"permissions": {"allow": ["bash(make *)"]}}"#,
        )
        .unwrap();
        let ex = reg
            .execute(HookContext::default(), bash("make all"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Allow);
        drop(reg);
        drop(loaded);
        let seen = seen.await.unwrap();
        assert!(
            seen.iter()
                .any(|s| s.starts_with("error") && s.contains("settings.json")),
            "{seen:?}"
        );
        assert!(seen.iter().any(|s| s == "reloaded"), "{seen:?}");
    });
}

#[test]
fn an_unchanged_settings_file_is_not_read_again() {
    let p = Project::new();
    std::fs::create_dir_all(p.cwd().join(".harness9")).unwrap();
    std::fs::write(
        p.settings(),
        r#"{"permissions": {"allow": ["bash(make *)"]}}"#,
    )
    .unwrap();
    rt().block_on(async {
        let (reg, loaded) = p.registry(Mode::Default, None);
        let tool = Echo::default();
        for _ in 0..20 {
            reg.execute(HookContext::default(), bash("make all"), &tool)
                .await;
        }
        assert_eq!(loaded.engine.reloads(), 0);
    });
}

#[test]
fn audit_lines_go_to_the_state_folder_make_no_project_folder_and_reload_nothing() {
    let p = Project::new();
    assert!(!p.cwd().join(".harness9").exists());
    rt().block_on(async {
        let (reg, loaded) = p.registry(Mode::Default, None);
        let tool = Echo::default();
        for _ in 0..3 {
            reg.execute(HookContext::default(), bash("ls"), &tool).await;
        }
        assert!(p.state().join("audit.jsonl").exists());
        assert_eq!(loaded.audit, p.state().join("audit.jsonl"));
        assert!(!p.cwd().join(".harness9").exists());
        assert_eq!(loaded.engine.reloads(), 0);
    });
}

#[test]
fn the_audit_log_has_one_line_per_decision_with_who_decided() {
    let p = Project::new();
    rt().block_on(async {
        let (reg, loaded) = p.registry(Mode::Default, None);
        let tool = Echo::default();
        reg.execute(HookContext::default(), bash("git status"), &tool)
            .await;
        reg.execute(HookContext::default(), bash("rm -rf /"), &tool)
            .await;
        reg.execute(
            HookContext::default(),
            ToolCall::primary("read_file", "~/.ssh/id_rsa"),
            &tool,
        )
        .await;
        let text = std::fs::read_to_string(&loaded.audit).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0]["decision"], "allow");
        assert_eq!(lines[0]["decided_by"]["by"], "rule");
        assert_eq!(lines[1]["decision"], "deny");
        assert_eq!(lines[1]["decided_by"]["by"], "headless");
        assert_eq!(lines[2]["decision"], "deny");
        assert!(lines[2]["rule"].as_str().unwrap().starts_with("protected:"));
        // The hook adapters' schema: one record type for every writer of the log.
        for l in &lines {
            let record: harness9::audit::Record =
                serde_json::from_value(l.clone()).expect("a line is an audit record");
            assert_eq!(record.agent, "harness9");
            assert_eq!(l["event"], "decision");
            assert!(l["time"].is_string() && l["risk"].is_string());
        }
        assert_eq!(
            (lines[0]["call"].as_str(), lines[0]["input"].as_str()),
            (Some("bash"), Some("git status"))
        );
        assert_eq!(lines[2]["input"], "~/.ssh/id_rsa");
    });
}

#[test]
fn large_outputs_are_offloaded_to_a_file_keeping_head_and_tail() {
    let big = Output(format!("HEAD{}TAIL", "x".repeat(5000)));
    let p = Project::new();
    rt().block_on(async {
        let (reg, _) = p.registry(Mode::Default, None);
        let ex = reg
            .execute(HookContext::default(), bash("git log"), &big)
            .await;
        let c = &ex.result.content;
        assert!(c.starts_with("HEAD") && c.ends_with("TAIL"), "{c}");
        assert!(c.len() < 1000, "{}", c.len());
        let saved = c
            .split(" is in ")
            .nth(1)
            .unwrap()
            .split(" …]")
            .next()
            .unwrap();
        let full = std::fs::read_to_string(saved).unwrap();
        assert_eq!(full.len(), 5008);
        assert!(
            Path::new(saved).starts_with(p.state().join("offload")),
            "offloaded to the state folder, not the repository: {saved}"
        );
    });
}

// ---- Proposals ----

fn proposal(cmd: &str) -> Option<String> {
    let e = Engine::builder().default_policy().build().unwrap();
    let call = bash(cmd);
    let d = e.decide(&call);
    assert_eq!(d.action, Action::Ask, "{cmd}: {d:?}");
    propose(&e, &call, &d).map(|p| p.texts().join(" | "))
}

#[test]
fn proposals_are_the_narrowest_rule_that_still_helps() {
    assert_eq!(
        proposal("git commit -m 'x'").as_deref(),
        Some("bash(git commit *)")
    );
    assert_eq!(
        proposal("npm run test -- --watch").as_deref(),
        Some("bash(npm run test *)")
    );
    assert_eq!(
        proposal("mkdir -p build/out").as_deref(),
        Some("bash(mkdir *)")
    );
    assert_eq!(
        proposal("cargo build").as_deref(),
        Some("bash(cargo build *)")
    );
}

#[test]
fn proposals_refuse_to_generalise_interpreters_wrappers_risky_and_high_risk_calls() {
    assert_eq!(
        proposal("python3 script.py").as_deref(),
        Some("bash(exact 'python3 script.py')")
    );
    assert_eq!(
        proposal("bash -c make").as_deref(),
        Some("bash(exact 'bash -c make') | bash(exact 'make')"),
        "the shell and the command it runs, each exactly"
    );
    // `bash(exact 'bash -c make all')` would also match `bash -c make all` (another command):
    // a word with a blank gets no exact rule.
    assert_eq!(proposal("bash -c 'make all'"), None);
    assert_eq!(
        proposal("git fetch origin").as_deref(),
        Some("bash(exact 'git fetch origin')"),
        "fetch takes --upload-pack"
    );
    assert_eq!(
        proposal("git push origin main").as_deref(),
        Some("bash(exact 'git push origin main')")
    );
    assert_eq!(
        proposal("rm -rf build").as_deref(),
        Some("bash(exact 'rm -rf build')")
    );
    assert!(
        proposal("echo hi > notes.txt").is_none(),
        "a write through a redirection"
    );
}

#[test]
fn a_compound_command_gets_one_rule_per_part_not_already_allowed() {
    assert_eq!(
        proposal("git status && cargo build && git commit -m x").as_deref(),
        Some("bash(cargo build *) | bash(git commit *)")
    );
}

#[test]
fn an_exact_rule_matches_only_that_command() {
    let e = Engine::builder()
        .default_policy()
        .settings_text(
            "s.json",
            r#"{"permissions": {"allow": ["bash(exact 'rm -rf build')"]}}"#,
        )
        .build()
        .unwrap();
    assert_eq!(e.decide(&bash("rm -rf build")).action, Action::Allow);
    assert_ne!(e.decide(&bash("rm -rf build /")).action, Action::Allow);
    assert_ne!(e.decide(&bash("rm -rf buildx")).action, Action::Allow);
}

#[test]
fn a_trailing_star_rule_also_matches_the_words_alone_but_not_a_longer_word() {
    let e = Engine::builder()
        .policy_text("p", "allow bash(\"git commit *\"); default ask;")
        .build()
        .unwrap();
    assert_eq!(e.decide(&bash("git commit")).action, Action::Allow);
    assert_eq!(e.decide(&bash("git commit -m x")).action, Action::Allow);
    assert_ne!(e.decide(&bash("git commitx")).action, Action::Allow);
}

// ---- settings.json writers as real processes ----

fn allow_cmd(settings: &Path, rules: &[String]) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_harness9"));
    c.arg("allow").arg("--settings").arg(settings).args(rules);
    c
}

#[test]
fn two_processes_adding_rules_at_the_same_moment_both_land_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join(".harness9/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "{\n  \"theme\": \"dark\",\n  \"permissions\": {\n    \"deny\": [\"bash(sudo *)\"]\n  }\n}\n",
    )
    .unwrap();
    // Two writers, each adding 25 rules one process at a time, racing each other.
    let writers: Vec<std::thread::JoinHandle<()>> = ["a", "b"]
        .into_iter()
        .map(|w| {
            let settings = settings.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let out = allow_cmd(&settings, &[format!("bash(tool-{w}{i} run *)")])
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let allow = v["permissions"]["allow"].as_array().unwrap();
    assert_eq!(allow.len(), 50, "every rule of both writers landed");
    assert!(
        !dir.path().join(".harness9/settings.json.lock").exists(),
        "no lock file is left beside the settings"
    );
    assert_eq!(v["theme"], "dark");
    assert_eq!(v["permissions"]["deny"], json!(["bash(sudo *)"]));
    // Adding one again changes nothing.
    let out = allow_cmd(&settings, &["bash(tool-a0 run *)".to_string()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("already allowed"));
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(again, v);
}

#[test]
fn an_unparseable_settings_file_is_never_overwritten_by_a_writer_process() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        "{\"permissions\": {\"allow\": [\"bash(ls *)\",]}}",
    )
    .unwrap();
    let out = allow_cmd(&settings, &["bash(git commit *)".to_string()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("left as it was"));
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\"permissions\": {\"allow\": [\"bash(ls *)\",]}}"
    );
}

#[test]
fn a_rule_that_does_not_compile_is_refused_before_the_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    let out = allow_cmd(
        &settings,
        &["bash(git status *)".to_string(), "bash(a[*)".to_string()],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!settings.exists());
}

/// A full disk, or a folder that cannot be written: the write fails with a clear error and the
/// file keeps its rules. Root ignores folder permissions, so as root the folder is a small
/// tmpfs in a private mount namespace (`unshare -m`), filled up or remounted read-only.
#[test]
fn a_full_or_read_only_folder_fails_the_write_clearly_and_loses_no_rule() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("conf");
    std::fs::create_dir_all(&folder).unwrap();
    let settings = folder.join("settings.json");
    let original = "{\"permissions\": {\"allow\": [\"bash(ls *)\"]}}\n";
    let bin = env!("CARGO_BIN_EXE_harness9");
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    if !is_root {
        std::fs::write(&settings, original).unwrap();
        let mut perm = std::fs::metadata(&folder).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o555);
        std::fs::set_permissions(&folder, perm).unwrap();
        let out = allow_cmd(&settings, &["bash(git commit *)".into()])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
        return;
    }
    for (name, fill) in [
        ("read-only", "mount -o remount,ro \"$D\""),
        (
            "full",
            "dd if=/dev/zero of=\"$D/filler\" bs=1k count=64 2>/dev/null || true",
        ),
    ] {
        let script = format!(
            "set -e; mount -t tmpfs -o size=16k tmpfs \"$D\"; printf '%s' '{original}' > \"$D/settings.json\"; {fill}; \
             set +e; \"$BIN\" allow --settings \"$D/settings.json\" 'bash(git commit *)' 'bash(npm run build *)'; echo \"rc=$?\"; cat \"$D/settings.json\""
        );
        let out = std::process::Command::new("unshare")
            .args(["-m", "sh", "-c", &script])
            .env("D", &folder)
            .env("BIN", bin)
            .output();
        let Ok(out) = out else {
            eprintln!("note: unshare is not available; the {name} folder case was not run");
            continue;
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("mount:") || stderr.contains("unshare:") {
            eprintln!(
                "note: no private mounts here ({stderr}); the {name} folder case was not run"
            );
            continue;
        }
        assert!(stdout.contains("rc=1"), "{name}: {stdout} {stderr}");
        assert!(stderr.contains("cannot"), "{name}: {stderr}");
        assert!(
            stdout.ends_with(original),
            "{name}: the file keeps its rules: {stdout}"
        );
    }
}

#[test]
fn a_headless_statement_needs_a_risk_and_prints_back_as_written() {
    use harness9::diag::Source;
    use harness9::policy::parse::parse_policy;
    use harness9::policy::print::print_statement;
    let src = Source::new("p", "headless deny risk high;\nheadless allow;\n");
    let (file, diags) = parse_policy(&src);
    assert_eq!(file.statements.len(), 1);
    assert_eq!(
        print_statement(&file.statements[0]),
        "headless deny risk high;"
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0].message.contains("needs the risk"),
        "{}",
        diags[0].message
    );
    let e = Engine::builder()
        .policy_text("p", "headless allow risk high;")
        .build()
        .unwrap();
    assert!(e.headless().contains(&(Risk::High, Action::Allow)));
}

/// The approval half of "a hard protection is never lifted": in every mode, whatever a person
/// answers (even "always allow", which writes rules), under a policy that allows every tool,
/// a protected path is denied and the tool never runs — and asked about never.
#[test]
fn a_hard_protection_is_never_lifted_by_any_mode_approval_or_written_rule() {
    let protected = [
        bash("cat ~/.ssh/id_rsa"),
        bash("cd ~ && cat .ssh/id_rsa"),
        bash("tar czf k.tgz ~"),
        bash("echo key >> ~/.ssh/authorized_keys"),
        ToolCall::primary("read_file", "~/.aws/credentials"),
        ToolCall::primary("write_file", "~/.ssh/authorized_keys"),
        ToolCall::primary("edit_file", "~/.gnupg/gpg.conf"),
    ];
    let answers = [
        Answer::AllowOnce,
        Answer::AllowSession,
        Answer::AlwaysAllow,
        Answer::Deny,
        Answer::DenyWithFeedback("go on".into()),
    ];
    let rt = rt();
    for mode in Mode::ALL {
        for answer in &answers {
            let p = Project::new();
            std::fs::create_dir_all(p.cwd().join(".harness9")).unwrap();
            std::fs::write(
                p.settings(),
                r#"{"permissions": {"allow": ["bash", "read_file", "write_file", "edit_file"]}}"#,
            )
            .unwrap();
            rt.block_on(async {
                let (tx, rx) = mpsc::unbounded_channel();
                let (reg, _) = p.registry(mode, Some(Approver::new(tx)));
                let seen = answer_all(rx, answer.clone());
                let tool = Echo::default();
                // A call that is asked about first, so "always allow" writes its rule.
                let first = ToolCall::new("mcp__notes__add", Map::new());
                reg.execute(HookContext::default(), first, &tool).await;
                if mode == Mode::Default && *answer == Answer::AlwaysAllow {
                    let written = std::fs::read_to_string(p.settings()).unwrap();
                    assert!(written.contains("mcp__notes__add"), "{written}");
                }
                for call in &protected {
                    for _ in 0..2 {
                        let ex = reg
                            .execute(HookContext::default(), call.clone(), &tool)
                            .await;
                        assert_eq!(
                            ex.record.action,
                            Action::Deny,
                            "{mode} / {answer:?}: {call:?} was {:?}",
                            ex.record
                        );
                    }
                }
                let ran = tool.ran.lock().unwrap().clone();
                assert!(
                    ran.iter().all(|c| !protected.contains(c)),
                    "{mode} / {answer:?}: a protected call ran"
                );
                drop(reg);
                let seen = seen.await.unwrap();
                assert!(
                    seen.iter().filter(|s| s.starts_with("ask")).count() <= 1,
                    "{mode} / {answer:?}: protected calls are never put to a person: {seen:?}"
                );
            });
        }
    }
}

/// Keeps every record announced to the hooks.
#[derive(Default, Clone)]
struct Records(Arc<Mutex<Vec<DecisionRecord>>>);

#[async_trait]
impl ToolHook for Records {
    fn name(&self) -> &str {
        "records"
    }

    fn on_decision(&self, record: &DecisionRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

/// A tool that notes how many decisions had been announced when it ran.
struct Counting(Records, Mutex<Option<usize>>);

#[async_trait]
impl ToolRunner for Counting {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, _call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        *self.1.lock().unwrap() = Some(self.0 .0.lock().unwrap().len());
        ToolResult::ok("ran")
    }
}

#[test]
fn a_call_abandoned_while_a_person_is_asked_is_recorded_as_denied() {
    let log = Log::default();
    let records = Records::default();
    let tool = Echo::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry()
        .with_approver(Approver::new(tx))
        .with_hook(Arc::new(records.clone()))
        .with_hook(hook("a", HookDecision::ask("x", Risk::High), &log));
    let dropped = rt().block_on(async {
        tokio::select! {
            _ = reg.execute(HookContext::default(), bash("rm -rf build"), &tool) => false,
            // The request arrives; the caller gives up on the call (its future is dropped).
            req = rx.recv() => req.is_some(),
        }
    });
    assert!(dropped, "the request reached the approver");
    assert!(tool.ran.lock().unwrap().is_empty(), "the tool did not run");
    let r = records.0.lock().unwrap();
    assert_eq!(r.len(), 1, "one record: {r:?}");
    assert_eq!((r[0].action, r[0].risk), (Action::Deny, Risk::High));
    assert!(
        matches!(r[0].decided_by, DecidedBy::NoAnswer { .. }),
        "{r:?}"
    );
    assert!(r[0].reason.contains("abandoned"), "{}", r[0].reason);
}

#[test]
fn an_allowed_call_is_recorded_before_its_tool_runs() {
    let records = Records::default();
    let tool = Counting(records.clone(), Mutex::new(None));
    let reg = registry().with_hook(Arc::new(records.clone()));
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("ls"), &tool));
    assert_eq!(ex.record.action, Action::Allow);
    assert_eq!(*tool.1.lock().unwrap(), Some(1), "announced before the run");
    assert_eq!(records.0.lock().unwrap().len(), 1, "and only once");
}

// ---- Calls run contained -------------------------------------------------------------------

/// A runner that contains `bash` calls: it records how each call ran, and answers a contained
/// run with `contained` (its result and sign).
struct Containing {
    ran: Mutex<Vec<String>>,
    contained: harness9::runtime::ContainedRun,
}

impl Containing {
    fn answering(result: ToolResult, sign: Option<&str>) -> Self {
        Containing {
            ran: Mutex::default(),
            contained: harness9::runtime::ContainedRun {
                result,
                sandbox_sign: sign.map(str::to_string),
            },
        }
    }

    fn ran(&self) -> Vec<String> {
        self.ran.lock().unwrap().clone()
    }
}

#[async_trait]
impl ToolRunner for Containing {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, _call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        self.ran.lock().unwrap().push("free".into());
        ToolResult::ok("ran free")
    }

    fn contains(&self, call: &ToolCall) -> bool {
        call.name == "bash"
    }

    async fn run_contained(
        &self,
        _call: &ToolCall,
        how: &harness9::runtime::Containment,
        _cancel: &CancelToken,
    ) -> harness9::runtime::ContainedRun {
        self.ran
            .lock()
            .unwrap()
            .push(format!("contained {}", how.profile));
        self.contained.clone()
    }
}

/// A hook's allow to run the call contained, under `profile`.
fn contain(profile: &str) -> HookDecision {
    let engine = Arc::new(Engine::builder().default_policy().build().unwrap());
    HookDecision {
        reason: "runs the project's code".into(),
        contained: Some(harness9::runtime::Containment {
            profile: profile.into(),
            engine,
        }),
        ..HookDecision::allow().with_rule("default.policy:16")
    }
}

const SIGN: &str = "`Read-only file system`: it writes only the project and the temporary folder";

#[test]
fn a_contained_allow_runs_the_call_contained_and_the_record_and_note_say_so() {
    let log = Log::default();
    let tool = Containing::answering(ToolResult::ok("built"), None);
    let reg = registry().with_hook(hook("permission", contain("build"), &log));
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("cargo build"), &tool));
    assert_eq!(tool.ran(), ["contained build"]);
    assert_eq!(ex.result.content, "built+permission");
    assert_eq!(ex.record.action, Action::Sandbox);
    let c = ex.contained.expect("it ran contained");
    assert_eq!(
        c.note(),
        "ran in the sandbox (profile build): no network, writes to the project only"
    );
    // A later allow does not lift the containment.
    let reg = registry()
        .with_hook(hook("permission", contain("cargo"), &log))
        .with_hook(hook("other", HookDecision::allow().with_rule("x:1"), &log));
    let tool = Containing::answering(ToolResult::ok("built"), None);
    rt().block_on(reg.execute(HookContext::default(), bash("cargo build"), &tool));
    assert_eq!(tool.ran(), ["contained cargo"]);
}

#[test]
fn a_runner_that_cannot_contain_has_the_call_asked_about_never_run_free() {
    let log = Log::default();
    let tool = Echo::default();
    // No one to ask, headless denying low risk: denied, and it did not run.
    let reg = registry()
        .with_headless([
            (Risk::High, Action::Deny),
            (Risk::Medium, Action::Deny),
            (Risk::Low, Action::Deny),
        ])
        .with_hook(hook("permission", contain("build"), &log));
    let ex = rt().block_on(reg.execute(HookContext::default(), bash("cargo build"), &tool));
    assert_eq!(ex.record.action, Action::Deny, "{:?}", ex.record);
    assert!(
        ex.record.reason.starts_with(
            "the sandbox is not available here: this tool runner runs its calls outside the \
             sandbox; it would run contained (sandbox profile `build`): runs the project's code"
        ),
        "{}",
        ex.record.reason
    );
    assert!(tool.ran.lock().unwrap().is_empty());
    // With a person to ask, the person decides, and an approval runs it as any ask's does.
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = registry().with_approver(Approver::new(tx)).with_hook(hook(
        "permission",
        contain("build"),
        &log,
    ));
    let ex = rt().block_on(async {
        let answer = async {
            if let Some(RuntimeEvent::Approval(r)) = rx.recv().await {
                assert!(r.reason.contains("it would run contained"), "{}", r.reason);
                r.respond(Answer::AllowOnce);
            }
        };
        let (ex, ()) = tokio::join!(
            reg.execute(HookContext::default(), bash("cargo build"), &tool),
            answer
        );
        ex
    });
    assert_eq!(ex.record.action, Action::Allow);
    assert!(ex.contained.is_none());
    assert_eq!(tool.ran.lock().unwrap().len(), 1);
}

/// Runs a contained call whose run fails with `sign`, in `mode`, answering the offer to run it
/// outside with `answer` (`None`: no one to ask); the requests' reasons come back too.
fn contained_failure(
    mode: Mode,
    sign: Option<&str>,
    answer: Option<Answer>,
) -> (harness9::runtime::Execution, Vec<String>, Containing) {
    let log = Log::default();
    let tool = Containing::answering(
        ToolResult::error("touch: cannot touch '/home/u/x': Read-only file system\n[exit code 1]"),
        sign,
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut reg = HookRegistry::new(ModeHandle::new(mode)).with_hook(hook(
        "permission",
        contain("default"),
        &log,
    ));
    if answer.is_some() {
        reg = reg.with_approver(Approver::new(tx));
    }
    let (ex, asked) = rt().block_on(async {
        let answering = async {
            let mut asked = Vec::new();
            if let Some(a) = answer {
                while let Some(ev) = rx.recv().await {
                    if let RuntimeEvent::Approval(r) = ev {
                        asked.push(r.reason.clone());
                        assert!(
                            r.proposal.is_none(),
                            "no rule is proposed for a run outside"
                        );
                        r.respond(a.clone());
                    }
                }
            }
            asked
        };
        let run = async {
            let ex = reg
                .execute(HookContext::default(), bash("./save.sh"), &tool)
                .await;
            drop(reg);
            ex
        };
        tokio::join!(run, answering)
    });
    (ex, asked, tool)
}

#[test]
fn a_failure_the_sandbox_caused_offers_a_run_outside_which_a_person_approves() {
    let (ex, asked, tool) = contained_failure(Mode::Default, Some(SIGN), Some(Answer::AllowOnce));
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with(
            "it failed in the sandbox, and the failure looks like the sandbox's doing \
             (`Read-only file system`"
        ) && asked[0].contains("run it again outside the sandbox"),
        "{}",
        asked[0]
    );
    assert_eq!(tool.ran(), ["contained default", "free"]);
    assert_eq!(ex.result.status, ResultStatus::Ok);
    assert!(
        ex.result
            .content
            .starts_with("[in the sandbox it failed (`Read-only file system`"),
        "{}",
        ex.result.content
    );
    assert_eq!(ex.record.action, Action::Allow);
    assert!(matches!(ex.record.decided_by, DecidedBy::Human { .. }));
    let note = ex.contained.expect("it ran contained first").note();
    assert!(
        note.ends_with("; it ran again outside the sandbox, as approved"),
        "{note}"
    );
}

#[test]
fn a_run_outside_is_never_made_without_a_persons_approval() {
    // Declined: the contained failure stays, and says why it was not run outside.
    let (ex, asked, tool) = contained_failure(Mode::Default, Some(SIGN), Some(Answer::Deny));
    assert_eq!(asked.len(), 1);
    assert_eq!(tool.ran(), ["contained default"]);
    assert_eq!(ex.result.status, ResultStatus::Error);
    assert!(
        ex.result
            .content
            .contains("the user did not approve running it outside the sandbox"),
        "{}",
        ex.result.content
    );
    let note = ex.contained.unwrap().note();
    assert!(note.ends_with("(not approved)"), "{note}");
    // Bypass mode approves asks, not this: a person is still asked.
    let (_, asked, tool) = contained_failure(Mode::Bypass, Some(SIGN), Some(Answer::Deny));
    assert_eq!(asked.len(), 1, "a person was asked in bypass mode");
    assert_eq!(tool.ran(), ["contained default"]);
    // No one to ask: never run outside.
    let (ex, asked, tool) = contained_failure(Mode::Bypass, Some(SIGN), None);
    assert!(asked.is_empty());
    assert_eq!(tool.ran(), ["contained default"]);
    assert!(
        ex.result
            .content
            .contains("it runs outside the sandbox only with a person's approval"),
        "{}",
        ex.result.content
    );
}

#[test]
fn a_plain_failure_of_a_contained_call_is_not_offered_a_run_outside() {
    let (ex, asked, tool) = contained_failure(Mode::Default, None, Some(Answer::AllowOnce));
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(tool.ran(), ["contained default"]);
    assert_eq!(ex.result.status, ResultStatus::Error);
    let c = ex.contained.unwrap();
    assert_eq!(c.sign, None);
    assert_eq!(
        c.note(),
        "ran in the sandbox (profile default): no network, writes to the project only"
    );
}

/// A line that mixes a contained part with an ask the mode approves runs contained: the
/// approval of `mv a b` does not let `cargo build` out.
#[test]
fn a_mode_approved_line_with_a_contained_part_runs_contained() {
    let p = Project::new();
    rt().block_on(async {
        for mode in [Mode::AutoApprove, Mode::Bypass] {
            let reg = p.containing_registry(mode, None);
            let tool = Containing::answering(ToolResult::ok("built"), None);
            let ex = reg
                .execute(
                    HookContext::default(),
                    bash("mv notes.txt old.txt && cargo build"),
                    &tool,
                )
                .await;
            assert_eq!(tool.ran(), ["contained build"], "{mode:?}");
            assert_eq!(ex.record.action, Action::Sandbox, "{mode:?}");
            // No contained part: the approved ask runs free.
            let ex = reg
                .execute(HookContext::default(), bash("mv notes.txt old.txt"), &tool)
                .await;
            assert_eq!(ex.record.action, Action::Allow, "{mode:?}");
            assert_eq!(tool.ran(), ["contained build", "free"], "{mode:?}");
        }
    });
}

/// The standard chain over the shipped default policy, for a runner that contains: a project's
/// build runs contained, under the rule's profile, in every mode but read-only, and the audit
/// log says `sandbox`; a call the policy allows runs free; the same chain for a runner that
/// cannot contain asks instead.
#[test]
fn the_standard_chain_runs_what_the_default_policy_contains_contained() {
    let p = Project::new();
    rt().block_on(async {
        for mode in [Mode::Default, Mode::AutoApprove, Mode::Bypass] {
            let reg = p.containing_registry(mode, None);
            let tool = Containing::answering(ToolResult::ok("built"), None);
            let ex = reg
                .execute(HookContext::default(), bash("cargo build"), &tool)
                .await;
            assert_eq!(tool.ran(), ["contained build"], "{mode:?}");
            assert_eq!(ex.record.action, Action::Sandbox);
            let ex = reg
                .execute(HookContext::default(), bash("git status"), &tool)
                .await;
            assert_eq!(ex.record.action, Action::Allow);
            assert_eq!(tool.ran(), ["contained build", "free"], "{mode:?}");
        }
        let reg = p.containing_registry(Mode::ReadOnly, None);
        let tool = Containing::answering(ToolResult::ok("built"), None);
        let ex = reg
            .execute(HookContext::default(), bash("cargo build"), &tool)
            .await;
        assert_eq!(ex.record.action, Action::Deny);
        assert!(tool.ran().is_empty());
        let audit = std::fs::read_to_string(p.state().join(harness9::audit::AUDIT_FILE)).unwrap();
        let first: Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
        assert_eq!(first["decision"], "sandbox", "{audit}");
        assert_eq!(first["input"], "cargo build");
    });
    // A runner that cannot contain: the shipped default's ask, saying why, with its proposal.
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reg = p.containing_registry(Mode::Default, Some(Approver::new(tx)));
    let tool = Echo::default();
    let asked = rt().block_on(async {
        let answer = async {
            match rx.recv().await {
                Some(RuntimeEvent::Approval(r)) => {
                    let reason = r.reason.clone();
                    r.respond(Answer::Deny);
                    reason
                }
                _ => String::new(),
            }
        };
        let (_, reason) = tokio::join!(
            reg.execute(HookContext::default(), bash("cargo build"), &tool),
            answer
        );
        reason
    });
    assert!(
        asked.contains("this tool runner runs its calls outside the sandbox; it would run contained (sandbox profile `build`)"),
        "{asked}"
    );
    assert!(tool.ran.lock().unwrap().is_empty());
}
