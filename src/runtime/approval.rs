//! Approval events: a tool task that needs a human sends an [`ApprovalRequest`] on the
//! runtime's event channel and waits for its [`Answer`]. Each request is answered exactly once
//! (answering consumes it); a request dropped unanswered, a closed channel, a cancelled turn or a
//! timeout all mean denied.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot, watch};

use super::propose::{texts, ProposedRule};
use crate::call::{Risk, ToolCall};

/// What a person answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "answer", content = "feedback")]
pub enum Answer {
    /// `[1]` this call only.
    AllowOnce,
    /// `[2]` this call, and calls the proposal covers, for the rest of the session.
    AllowSession,
    /// `[3]` writes the proposal's rules to `.harness9/settings.json`.
    AlwaysAllow,
    /// `[4]`.
    Deny,
    /// `[5]` denied, with text for the model.
    DenyWithFeedback(String),
}

impl Answer {
    pub fn allows(&self) -> bool {
        matches!(
            self,
            Answer::AllowOnce | Answer::AllowSession | Answer::AlwaysAllow
        )
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Answer::AllowOnce => "allow-once",
            Answer::AllowSession => "allow-session",
            Answer::AlwaysAllow => "always-allow",
            Answer::Deny => "deny",
            Answer::DenyWithFeedback(_) => "deny-with-feedback",
        }
    }
}

/// The rules "always allow" would write (and "allow for this session" would remember): one
/// per part of the call that needs one. Each becomes settings.json's text
/// (`bash(git commit *)`) only where it is shown, written or compiled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    pub rules: Vec<ProposedRule>,
    /// Whether the rules are the exact call only (high risk, wrappers, interpreters).
    pub exact: bool,
}

impl Proposal {
    /// The rules' settings.json texts, in order.
    pub fn texts(&self) -> Vec<String> {
        texts(&self.rules)
    }
}

impl fmt::Display for Proposal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.texts().join(", "))
    }
}

/// A call waiting for a person. Answer it with [`ApprovalRequest::respond`]; dropping it
/// unanswered denies the call.
#[derive(Debug)]
pub struct ApprovalRequest {
    /// Increases with arrival; a UI answers requests in this order.
    pub id: u64,
    pub call: ToolCall,
    pub reason: String,
    pub risk: Risk,
    /// The rule that asked (`builtin.policy:12`), when one did.
    pub rule: Option<String>,
    /// What option 3 would write; `None` when no rule can be proposed safely.
    pub proposal: Option<Proposal>,
    respond: oneshot::Sender<Answer>,
    /// Told when a person can see the request (see [`ApprovalRequest::shown`]).
    shown: Option<oneshot::Sender<()>>,
}

impl ApprovalRequest {
    /// Sends the answer to the waiting tool task. Returns false when the task no longer waits
    /// (its turn was cancelled or it timed out; it was denied).
    pub fn respond(self, answer: Answer) -> bool {
        self.respond.send(answer).is_ok()
    }

    /// Says that the request is on the screen now. With [`Approver::timing_from_shown`], the
    /// approval timeout counts from here: a request waiting in a queue behind others is not
    /// denied before anyone saw it. Once is enough; later calls do nothing.
    pub fn shown(&mut self) {
        if let Some(tx) = self.shown.take() {
            let _ = tx.send(());
        }
    }

    /// A request and the receiver its task waits on (for UIs' tests).
    pub fn new(
        id: u64,
        call: ToolCall,
        reason: impl Into<String>,
        risk: Risk,
        rule: Option<String>,
        proposal: Option<Proposal>,
    ) -> (ApprovalRequest, oneshot::Receiver<Answer>) {
        let (req, rx, _) = Self::with_shown(id, call, reason.into(), risk, rule, proposal);
        (req, rx)
    }

    /// [`ApprovalRequest::new`], and the receiver [`ApprovalRequest::shown`] tells.
    fn with_shown(
        id: u64,
        call: ToolCall,
        reason: String,
        risk: Risk,
        rule: Option<String>,
        proposal: Option<Proposal>,
    ) -> (
        ApprovalRequest,
        oneshot::Receiver<Answer>,
        oneshot::Receiver<()>,
    ) {
        let (tx, rx) = oneshot::channel();
        let (shown_tx, shown_rx) = oneshot::channel();
        let req = ApprovalRequest {
            id,
            call,
            reason,
            risk,
            rule,
            proposal,
            respond: tx,
            shown: Some(shown_tx),
        };
        (req, rx, shown_rx)
    }
}

/// What the runtime tells its UI.
#[derive(Debug)]
pub enum RuntimeEvent {
    /// A call waits for a person.
    Approval(ApprovalRequest),
    /// A policy or settings file changed and was loaded again.
    PolicyReloaded { path: String },
    /// A policy or settings file changed but does not load; the last good policy stays in
    /// force. `message` is the rendered diagnostic.
    PolicyError { message: String },
    /// Something a person should know (a rule could not be written, …).
    Notice(String),
}

/// A turn's cancellation: every clone sees `cancel()`.
#[derive(Debug, Clone)]
pub struct CancelToken {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for CancelToken {
    fn default() -> Self {
        CancelToken {
            tx: Arc::new(watch::channel(false).0),
        }
    }
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_cancelled(&self) -> bool {
        *self.tx.borrow()
    }

    /// Completes when the token is cancelled.
    pub async fn cancelled(&self) {
        let mut rx = self.tx.subscribe();
        // The sender lives as long as `self`, so `wait_for` only ends by cancellation.
        let _ = rx.wait_for(|c| *c).await;
    }
}

/// Why a call was denied without a person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoAnswer {
    Cancelled,
    Timeout(Duration),
    /// The UI dropped the request, or the event channel is closed.
    Dropped,
}

impl fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoAnswer::Cancelled => f.write_str("the turn was cancelled before a person answered"),
            NoAnswer::Timeout(d) => {
                write!(f, "no answer within {}", humantime::format_duration(*d))
            }
            NoAnswer::Dropped => f.write_str("the approval request was dropped unanswered"),
        }
    }
}

/// Sends approval requests and waits for answers. Identical requests (the same call, reason,
/// risk, rule and proposal) waiting at the same time are asked once: the others wait for that
/// answer, and take it if it was a denial or a session/always allow (an "allow once" is for one
/// call, so they are asked in turn, and so are they when the first request ends unanswered).
#[derive(Debug, Clone)]
pub struct Approver {
    events: mpsc::UnboundedSender<RuntimeEvent>,
    timeout: Option<Duration>,
    /// The timeout counts from [`ApprovalRequest::shown`], not from the request's sending.
    from_shown: bool,
    next: Arc<AtomicU64>,
    waiting: Waiting,
}

impl Approver {
    pub fn new(events: mpsc::UnboundedSender<RuntimeEvent>) -> Self {
        Approver {
            events,
            timeout: None,
            from_shown: false,
            next: Arc::new(AtomicU64::new(1)),
            waiting: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Denies a request nobody answered within `timeout` (off by default).
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// The timeout counts from the moment the UI says a request is shown
    /// ([`ApprovalRequest::shown`]), for a UI that queues requests and shows one at a time.
    /// Without it, the timeout counts from when the request is sent.
    pub fn timing_from_shown(mut self) -> Self {
        self.from_shown = true;
        self
    }

    pub fn events(&self) -> &mpsc::UnboundedSender<RuntimeEvent> {
        &self.events
    }

    /// Asks a person about `call` and waits. Returns the answer and whether it was this
    /// request's own prompt (false: the answer of an identical request asked at the same time).
    pub async fn ask(
        &self,
        call: &ToolCall,
        reason: &str,
        risk: Risk,
        rule: Option<&str>,
        proposal: Option<Proposal>,
        cancel: &CancelToken,
    ) -> Result<(Answer, bool), NoAnswer> {
        let key = request_key(call, reason, risk, rule, proposal.as_ref());
        let follow = {
            let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            match waiting.get_mut(&key) {
                Some(followers) => {
                    let (tx, rx) = oneshot::channel();
                    followers.push(tx);
                    Some(rx)
                }
                None => {
                    waiting.insert(key.clone(), Vec::new());
                    None
                }
            }
        };
        if let Some(rx) = follow {
            // No clock of its own: the leader's answer, timeout or end releases it.
            return match self.wait(rx, Clock::Never, cancel).await {
                Ok(Answer::AllowOnce) => {
                    // One call was allowed, not this one: ask about it in turn.
                    Box::pin(self.ask(call, reason, risk, rule, proposal, cancel)).await
                }
                Ok(a) => Ok((a, false)),
                Err(e) => Err(e),
            };
        }
        // Whatever ends this leader — an answer, an error, or its future being dropped — the
        // followers are released (see `Leader`'s `Drop`).
        let leader = Leader {
            waiting: self.waiting.clone(),
            key,
            released: false,
        };
        let (req, rx, shown) = ApprovalRequest::with_shown(
            self.next.fetch_add(1, Ordering::SeqCst),
            call.clone(),
            reason.to_string(),
            risk,
            rule.map(str::to_string),
            proposal,
        );
        let clock = match (self.timeout, self.from_shown) {
            (None, _) => Clock::Never,
            (Some(t), false) => Clock::FromNow(t),
            (Some(t), true) => Clock::FromShown(t, shown),
        };
        let result = if self.events.send(RuntimeEvent::Approval(req)).is_err() {
            Err(NoAnswer::Dropped)
        } else {
            self.wait(rx, clock, cancel).await
        };
        // Followers take a denial or a session/always allow; an error or an "allow once"
        // sends them back to ask for themselves.
        let shared = match &result {
            Ok(a) => a.clone(),
            Err(_) => Answer::AllowOnce,
        };
        leader.release(shared);
        result.map(|a| (a, true))
    }

    async fn wait(
        &self,
        mut rx: oneshot::Receiver<Answer>,
        clock: Clock,
        cancel: &CancelToken,
    ) -> Result<Answer, NoAnswer> {
        let answer = async {
            let t = match clock {
                Clock::Never => return rx.await.map_err(|_| NoAnswer::Dropped),
                Clock::FromNow(t) => t,
                Clock::FromShown(t, shown) => {
                    tokio::select! {
                        r = &mut rx => return r.map_err(|_| NoAnswer::Dropped),
                        // Shown, or the request is gone (answered or dropped, which `rx`
                        // says at once): the clock starts.
                        _ = shown => {}
                    }
                    t
                }
            };
            match tokio::time::timeout(t, rx).await {
                Ok(r) => r.map_err(|_| NoAnswer::Dropped),
                Err(_) => Err(NoAnswer::Timeout(t)),
            }
        };
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(NoAnswer::Cancelled),
            a = answer => a,
        }
    }
}

/// When a waiting request's approval timeout starts, if it has one.
enum Clock {
    Never,
    FromNow(Duration),
    FromShown(Duration, oneshot::Receiver<()>),
}

type Waiting = Arc<Mutex<HashMap<String, Vec<oneshot::Sender<Answer>>>>>;

/// The request that prompts for identical ones. Released with the answer it got; dropped
/// unreleased (its task cancelled from outside, its future dropped), it sends its followers
/// back to ask for themselves, so none of them waits for an answer that cannot come.
struct Leader {
    waiting: Waiting,
    key: String,
    released: bool,
}

impl Leader {
    fn release(mut self, answer: Answer) {
        self.released = true;
        for f in self.take() {
            let _ = f.send(answer.clone());
        }
    }

    fn take(&self) -> Vec<oneshot::Sender<Answer>> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        waiting.remove(&self.key).unwrap_or_default()
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        if !self.released {
            for f in self.take() {
                let _ = f.send(Answer::AllowOnce);
            }
        }
    }
}

/// Requests are the same request when a person would see the same prompt: the same tool with
/// the same arguments, and the same reason, risk, rule and proposal. A prompt that looked
/// different (another hook's reason, a higher risk) is never answered by this one's answer.
fn request_key(
    call: &ToolCall,
    reason: &str,
    risk: Risk,
    rule: Option<&str>,
    proposal: Option<&Proposal>,
) -> String {
    serde_json::json!([
        call.name,
        serde_json::Value::Object(call.arguments.clone()),
        reason,
        risk,
        rule,
        proposal,
    ])
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn asked(approver: &Approver) -> Result<(Answer, bool), NoAnswer> {
        approver
            .ask(
                &ToolCall::primary("bash", "ls"),
                "asked",
                Risk::Low,
                None,
                None,
                &CancelToken::new(),
            )
            .await
    }

    #[tokio::test]
    async fn timing_from_shown_the_clock_starts_when_the_request_is_shown() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let approver = Approver::new(tx)
            .with_timeout(Some(Duration::from_millis(200)))
            .timing_from_shown();
        let ask = tokio::spawn({
            let approver = approver.clone();
            async move { asked(&approver).await }
        });
        let Some(RuntimeEvent::Approval(mut req)) = rx.recv().await else {
            panic!("a request");
        };
        // Queued unseen for longer than the timeout: still waiting.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(!ask.is_finished(), "a request nobody saw is not timed out");
        req.shown();
        let got = tokio::time::timeout(Duration::from_secs(5), ask).await;
        let got = got.map(|r| r.map_err(|e| e.to_string()));
        assert!(
            matches!(got, Ok(Ok(Err(NoAnswer::Timeout(_))))),
            "timed out once shown: {got:?}"
        );
        assert!(!req.respond(Answer::AllowOnce), "the answer came too late");
    }

    #[tokio::test]
    async fn without_timing_from_shown_the_clock_starts_when_the_request_is_sent() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let approver = Approver::new(tx).with_timeout(Some(Duration::from_millis(100)));
        let ask = tokio::spawn({
            let approver = approver.clone();
            async move { asked(&approver).await }
        });
        let _req = rx.recv().await;
        let got = tokio::time::timeout(Duration::from_secs(5), ask).await;
        let got = got.map(|r| r.map_err(|e| e.to_string()));
        assert!(matches!(got, Ok(Ok(Err(NoAnswer::Timeout(_))))), "{got:?}");
    }
}
