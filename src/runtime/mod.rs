//! The runtime an agent embeds: a chain of [`ToolHook`]s around every tool call, approval
//! events for the calls a person must decide, permission modes switchable at run time, session
//! memory, and "always allow" rules written safely to `.harness9/settings.json`.
//!
//! [`HookRegistry::execute`] follows the onion model:
//! - hooks run `before_execute` in order; an error stops the chain with an error result;
//! - `deny` stops the chain: the tool does not run, no `after_execute` runs;
//! - `ask` is skipped when the context is already approved by a person or explicitly allowed by
//!   an earlier hook's rule (two separate markers); else the mode, the session memory, and then
//!   a person (or, with no one to ask, the policy's `headless` setting) decide;
//! - `allow` with a rule marks the context explicitly allowed; an allow without a rule (a
//!   hook with nothing to say, the trait's default) is no objection and skips no later ask.
//!   An allow applies the hook's `modified_args`; a change of the arguments clears both
//!   markers, since they were given for the call before the change;
//! - `after_execute` runs in reverse order for exactly the hooks whose `before_execute` ran.
//!
//! Every call ends in one [`DecisionRecord`] that says who decided: a rule, a person, the mode,
//! the session memory, or the headless setting.

pub mod allowlist;
pub mod approval;
mod hook;
pub mod propose;
mod runner;
pub mod session;
pub mod standard;
pub mod suggest;
pub mod tools;

use std::future::Future;
use std::ops::ControlFlow;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::SystemTime;

use serde::Serialize;

pub use approval::{
    Answer, ApprovalRequest, Approver, CancelToken, NoAnswer, Proposal, RuntimeEvent,
};
pub use hook::{
    Containment, HookContext, HookDecision, HookError, HumanApproval, RuleAllow, ToolHook,
};
pub use propose::ProposedRule;
pub use runner::{ContainedRun, InvalidCall, ResultStatus, ToolResult, ToolRunner};
pub use session::SessionMemory;

use crate::call::{Action, Risk, RuleRef, ToolCall};
use crate::engine::Mode;

/// Who decided a call (as the audit log records it).
pub use crate::audit::DecidedBy;
use crate::audit::Verdict;

/// The final word on one call.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionRecord {
    #[serde(serialize_with = "rfc3339")]
    pub time: SystemTime,
    pub call: ToolCall,
    #[serde(rename = "decision")]
    pub action: Action,
    pub risk: Risk,
    pub rule: Option<RuleRef>,
    pub reason: String,
    pub decided_by: DecidedBy,
    pub mode: Mode,
    /// The context's markers when the call was decided.
    pub approved_by_human: Option<HumanApproval>,
    pub allowed_by_rule: Option<RuleAllow>,
}

fn rfc3339<S: serde::Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&humantime::format_rfc3339_millis(*t).to_string())
}

/// The session's permission mode, shared by every task and switchable at run time.
#[derive(Debug, Clone, Default)]
pub struct ModeHandle(Arc<AtomicU8>);

impl ModeHandle {
    pub fn new(mode: Mode) -> Self {
        let h = ModeHandle::default();
        h.set(mode);
        h
    }

    pub fn get(&self) -> Mode {
        Mode::ALL[usize::from(self.0.load(Ordering::SeqCst)) % Mode::ALL.len()]
    }

    pub fn set(&self, mode: Mode) {
        let i = Mode::ALL.iter().position(|m| *m == mode).unwrap_or(0);
        self.0.store(i as u8, Ordering::SeqCst);
    }

    /// Moves to the next mode (default → auto-approve → read-only → bypass → default).
    pub fn cycle(&self) -> Mode {
        let next = Mode::ALL[(usize::from(self.0.load(Ordering::SeqCst)) + 1) % Mode::ALL.len()];
        self.set(next);
        next
    }
}

pub use crate::engine::Headless;

/// The outcome of [`HookRegistry::execute`].
#[derive(Debug, Clone)]
pub struct Execution {
    pub result: ToolResult,
    pub record: DecisionRecord,
    /// The call as the tool received it (after `modified_args`).
    pub call: ToolCall,
    /// How the call ran contained, when it did (a `sandbox` decision).
    pub contained: Option<Contained>,
}

/// How a call ran in the sandbox, for the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contained {
    /// The sandbox profile.
    pub profile: String,
    /// Why its failure looks like the sandbox's doing (`None`: it did not fail, or failed by
    /// itself).
    pub sign: Option<String>,
    /// Whether it was then run outside the sandbox.
    pub outside: Outside,
}

/// What came of a contained call's failure that looks like the sandbox's doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// Not offered: the call did not fail so.
    NotOffered,
    /// No one could be asked (a non-interactive run): it is never run outside unasked.
    NoOneToAsk,
    /// The person was asked and did not approve.
    Declined,
    /// The person approved: it ran again, outside the sandbox.
    Ran,
}

impl Contained {
    /// The transcript's line: `ran in the sandbox (profile build): no network, writes to the
    /// project only`, and what came of a failure that looks like the sandbox's doing.
    pub fn note(&self) -> String {
        let mut note = format!(
            "ran in the sandbox (profile {}): {}",
            self.profile,
            crate::sandbox::CONTAINED_MEANS
        );
        if let Some(sign) = &self.sign {
            note.push_str(&format!(
                "; it failed, and the failure looks like the sandbox's doing ({sign})"
            ));
            note.push_str(match self.outside {
                Outside::NotOffered | Outside::NoOneToAsk => {
                    "; it runs outside the sandbox only with a person's approval"
                }
                Outside::Declined => "; it was not run outside the sandbox (not approved)",
                Outside::Ran => "; it ran again outside the sandbox, as approved",
            });
        }
        note
    }
}

/// The chain of hooks, and what resolves an ask.
pub struct HookRegistry {
    hooks: Vec<Arc<dyn ToolHook>>,
    approver: Option<Approver>,
    mode: ModeHandle,
    session: SessionMemory,
    headless: Headless,
    /// Writes "always allow" rules; `None` leaves them in session memory only.
    writer: Option<Arc<dyn RuleWriter>>,
    /// When set, the headless setting is the live engine's (it follows policy edits).
    live: Option<Arc<standard::LiveEngine>>,
}

/// Where "always allow" rules go (`.harness9/settings.json`).
pub trait RuleWriter: Send + Sync {
    /// Adds allow rules; returns the ones actually added (not already present).
    fn add_allow_rules(&self, rules: &[String]) -> Result<Vec<String>, allowlist::SettingsError>;
}

impl HookRegistry {
    pub fn new(mode: ModeHandle) -> Self {
        HookRegistry {
            hooks: Vec::new(),
            approver: None,
            mode,
            session: SessionMemory::default(),
            headless: crate::engine::SHIPPED_HEADLESS,
            writer: None,
            live: None,
        }
    }

    /// Takes the headless setting from `engine` as it is when an ask is settled, so that a
    /// policy edit (`headless deny risk medium;`) applies without a restart.
    pub fn with_headless_from(mut self, engine: Arc<standard::LiveEngine>) -> Self {
        self.live = Some(engine);
        self
    }

    pub fn with_hook(mut self, hook: Arc<dyn ToolHook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Puts asks to a person through `approver`'s event channel. Without one the run is
    /// non-interactive and asks resolve by the headless setting.
    pub fn with_approver(mut self, approver: Approver) -> Self {
        self.approver = Some(approver);
        self
    }

    pub fn with_headless(mut self, headless: Headless) -> Self {
        self.headless = headless;
        self
    }

    pub fn with_session(mut self, session: SessionMemory) -> Self {
        self.session = session;
        self
    }

    pub fn with_writer(mut self, writer: Arc<dyn RuleWriter>) -> Self {
        self.writer = Some(writer);
        self
    }

    pub fn mode(&self) -> &ModeHandle {
        &self.mode
    }

    pub fn session(&self) -> &SessionMemory {
        &self.session
    }

    /// Runs `call` through the chain and, if it gets through, `tool`.
    pub async fn execute(
        &self,
        ctx: HookContext,
        call: ToolCall,
        tool: &dyn ToolRunner,
    ) -> Execution {
        let mode = self.mode.get();
        let mut pending = Pending {
            registry: self,
            call: call.clone(),
            mode,
            risk: Risk::Low,
            announced: false,
        };
        let mut progress = Progress {
            ctx,
            call,
            mode,
            ran: Vec::new(),
            last_risk: Risk::Low,
            decided: None,
            contained: None,
        };

        if let Err(why) = validate(tool, &progress.call) {
            let record = self.record(
                &progress.call,
                Verdict {
                    action: Action::Deny,
                    risk: Risk::High,
                    rule: None,
                    reason: format!("malformed call: {why}"),
                    decided_by: DecidedBy::Error {
                        hook: "validate".into(),
                    },
                },
                mode,
                &progress.ctx,
            );
            return self.finish_denied(&mut pending, progress.call, record);
        }

        for (i, hook) in self.hooks.iter().enumerate() {
            progress = match self.run_hook(i, hook, progress, &mut pending, tool).await {
                ControlFlow::Continue(p) => p,
                ControlFlow::Break(done) => return done,
            };
        }
        self.run_allowed(progress, &mut pending, tool).await
    }

    /// Runs hook `i`'s `before_execute` and applies its verdict: the call goes on to the next
    /// hook, or its execution ends here.
    async fn run_hook(
        &self,
        i: usize,
        hook: &Arc<dyn ToolHook>,
        mut p: Progress,
        pending: &mut Pending<'_>,
        tool: &dyn ToolRunner,
    ) -> ControlFlow<Execution, Progress> {
        let name = hook.name().to_string();
        let before = CatchUnwind(hook.before_execute(p.ctx.clone(), &p.call));
        let (next, d) = match before.await {
            Ok(Ok(x)) => x,
            Ok(Err(e)) => {
                let reason = format!("hook `{name}` failed: {e}");
                return ControlFlow::Break(self.hook_failed(p, pending, name, reason).await);
            }
            Err(panic) => {
                let reason = format!("hook `{name}` panicked: {panic}");
                return ControlFlow::Break(self.hook_failed(p, pending, name, reason).await);
            }
        };
        p.ctx = next;
        p.ran.push(i);
        p.last_risk = p.last_risk.max(d.risk);
        pending.risk = p.last_risk;
        match d.action {
            Action::Deny => {
                let by = DecidedBy::Rule {
                    hook: name,
                    rule: d.rule.clone(),
                };
                // Denied: no after_execute for anyone.
                ControlFlow::Break(self.deny_by_hook(p, pending, &d, d.reason.clone(), by))
            }
            // A call to run contained by a runner that cannot contain it is asked about: it
            // never runs free on that allow.
            Action::Allow if d.contained.is_some() && !tool.contains(&p.call) => {
                let d = contained_asked_instead(d);
                self.apply_ask(name, d, p, pending).await
            }
            Action::Allow => self.apply_allow(name, d, p, pending, tool),
            // A hook that wants a call contained and cannot have it so asks.
            Action::Ask | Action::Sandbox => self.apply_ask(name, d, p, pending).await,
        }
    }

    /// Denies the call on a hook's decision `d` (its risk and rule), with `reason`, decided by
    /// `by`: recorded, and no after_execute for anyone.
    fn deny_by_hook(
        &self,
        p: Progress,
        pending: &mut Pending<'_>,
        d: &HookDecision,
        reason: String,
        by: DecidedBy,
    ) -> Execution {
        let record = self.record(
            &p.call,
            Verdict {
                action: Action::Deny,
                risk: d.risk,
                rule: d.rule.clone(),
                reason,
                decided_by: by,
            },
            p.mode,
            &p.ctx,
        );
        self.finish_denied(pending, p.call, record)
    }

    /// Denies the call because hook `name` failed or panicked (`reason` says which); the hooks
    /// that ran before it still see the error result.
    async fn hook_failed(
        &self,
        p: Progress,
        pending: &mut Pending<'_>,
        name: String,
        reason: String,
    ) -> Execution {
        let record = self.record(
            &p.call,
            Verdict {
                action: Action::Deny,
                risk: Risk::High,
                rule: None,
                reason,
                decided_by: DecidedBy::Error { hook: name },
            },
            p.mode,
            &p.ctx,
        );
        let result = ToolResult::error(record.reason.clone());
        pending.announce(&record);
        self.finish(p.call, record, result, &p.ctx, &p.ran).await
    }

    /// Applies hook `name`'s allow: its changed arguments (checked by the tool), its rule as the
    /// context's marker, and the decision if it is the first.
    fn apply_allow(
        &self,
        name: String,
        d: HookDecision,
        mut p: Progress,
        pending: &mut Pending<'_>,
        tool: &dyn ToolRunner,
    ) -> ControlFlow<Execution, Progress> {
        if let Some(args) = d.modified_args.clone() {
            let mut changed = p.call.clone();
            changed.arguments = args;
            if let Err(why) = validate(tool, &changed) {
                let record = self.record(
                    &p.call,
                    Verdict {
                        action: Action::Deny,
                        risk: Risk::High,
                        rule: d.rule.clone(),
                        reason: format!(
                            "hook `{name}` modified the arguments into an invalid call: {why}"
                        ),
                        decided_by: DecidedBy::Error { hook: name },
                    },
                    p.mode,
                    &p.ctx,
                );
                return ControlFlow::Break(self.finish_denied(pending, p.call, record));
            }
            if changed.arguments != p.call.arguments {
                // What a person approved, or a rule allowed, was the call before
                // the change: later hooks judge the new call afresh.
                p.ctx.approved_by_human = None;
                p.ctx.allowed_by_rule = None;
                p.decided = None;
            }
            p.call = changed;
        }
        // Contained once, contained for good: a later allow does not run it free.
        if p.contained.is_none() {
            p.contained = d.contained.clone();
        }
        // Only an allow by a rule is explicit: a hook with nothing to say (an
        // allow without a rule, the trait's default) must not skip a later ask.
        if d.rule.is_some() {
            p.ctx.allowed_by_rule = Some(RuleAllow {
                hook: name.clone(),
                rule: d.rule.clone(),
            });
        }
        if p.decided.is_none() {
            let by = match &d.rule {
                Some(r) if r.is_session() => DecidedBy::Session { rule: r.clone() },
                _ => DecidedBy::Rule {
                    hook: name,
                    rule: d.rule.clone(),
                },
            };
            p.decided = Some((by, d.rule, d.reason));
        }
        ControlFlow::Continue(p)
    }

    /// Applies hook `name`'s ask: skipped when a person or a rule already let the call through,
    /// otherwise settled by [`Self::resolve_ask`]; a refusal ends the execution.
    async fn apply_ask(
        &self,
        name: String,
        d: HookDecision,
        mut p: Progress,
        pending: &mut Pending<'_>,
    ) -> ControlFlow<Execution, Progress> {
        if p.ctx.approved_by_human.is_some() || (p.ctx.allowed_by_rule.is_some() && !d.managed) {
            return ControlFlow::Continue(p);
        }
        match self
            .resolve_ask(&name, &d, &p.call, &mut p.ctx, p.mode)
            .await
        {
            Ok(by) => {
                // Approved by the mode, a line with contained parts runs contained.
                if matches!(by, DecidedBy::Mode { .. }) && p.contained.is_none() {
                    p.contained = d.contained.clone();
                }
                p.decided = Some((by, d.rule.clone(), d.reason.clone()));
            }
            Err((by, reason)) => {
                return ControlFlow::Break(self.deny_by_hook(p, pending, &d, reason, by));
            }
        }
        ControlFlow::Continue(p)
    }

    /// The end of a call the whole chain let through: denied if its turn was cancelled,
    /// otherwise recorded, announced, run, and handed back through the hooks that ran.
    async fn run_allowed(
        &self,
        p: Progress,
        pending: &mut Pending<'_>,
        tool: &dyn ToolRunner,
    ) -> Execution {
        let (by, rule, reason) = p.decided.clone().unwrap_or((
            DecidedBy::Rule {
                hook: "registry".into(),
                rule: None,
            },
            None,
            "no hook objected".into(),
        ));
        if p.ctx.cancel.is_cancelled() {
            // The call was allowed but its turn ended before it ran: it did not run, and the
            // record says so.
            let record = self.record(
                &p.call,
                Verdict {
                    action: Action::Deny,
                    risk: p.last_risk,
                    rule,
                    reason: format!("the turn was cancelled before the tool ran ({reason})"),
                    decided_by: DecidedBy::NoAnswer {
                        why: NoAnswer::Cancelled.to_string(),
                    },
                },
                p.mode,
                &p.ctx,
            );
            return self.finish_denied(pending, p.call, record);
        }
        let record = self.record(
            &p.call,
            Verdict {
                action: match p.contained {
                    Some(_) => Action::Sandbox,
                    None => Action::Allow,
                },
                risk: p.last_risk,
                rule,
                reason,
                decided_by: by,
            },
            p.mode,
            &p.ctx,
        );
        // Recorded before the tool runs: a call that ran is in the log even if the caller stops
        // waiting for its result.
        pending.announce(&record);
        if let Some(how) = p.contained.clone() {
            return self.run_contained(p, how, record, tool).await;
        }
        let result = CatchUnwind(tool.run(&p.call, &p.ctx.cancel))
            .await
            .unwrap_or_else(|p| ToolResult::error(format!("the tool panicked: {p}")));
        self.finish(p.call, record, result, &p.ctx, &p.ran).await
    }

    /// Runs a call contained. When it fails and the failure looks like the sandbox's doing, a
    /// person is asked whether to run it again outside the sandbox (never without one); the
    /// model gets the outcome either way.
    async fn run_contained(
        &self,
        p: Progress,
        how: Containment,
        record: DecisionRecord,
        tool: &dyn ToolRunner,
    ) -> Execution {
        let ran = CatchUnwind(tool.run_contained(&p.call, &how, &p.ctx.cancel))
            .await
            .unwrap_or_else(|panic| ContainedRun {
                result: ToolResult::error(format!("the tool panicked: {panic}")),
                sandbox_sign: None,
            });
        let mut contained = Contained {
            profile: how.profile.clone(),
            sign: None,
            outside: Outside::NotOffered,
        };
        let mut record = record;
        let mut result = ran.result;
        let sign = ran
            .sandbox_sign
            .filter(|_| result.status == ResultStatus::Error && !p.ctx.cancel.is_cancelled());
        if let Some(sign) = sign {
            let (outside, again) = self.offer_outside(&p, &record, &sign, tool).await;
            contained.sign = Some(sign.clone());
            contained.outside = outside;
            result = match again {
                Some((rerun, free)) => {
                    record = rerun;
                    ToolResult {
                        content: format!(
                            "[in the sandbox it failed ({sign}); run again outside the \
                             sandbox, as the user approved]\n{}",
                            free.content
                        ),
                        status: free.status,
                    }
                }
                None => {
                    let mut content = result.content;
                    content.push_str(&format!(
                        "\n[the failure looks like the sandbox's doing ({sign}); {}]",
                        match outside {
                            Outside::Declined =>
                                "the user did not approve running it outside the sandbox",
                            _ => "it runs outside the sandbox only with a person's approval",
                        }
                    ));
                    ToolResult {
                        content,
                        status: result.status,
                    }
                }
            };
        }
        let mut exec = self.finish(p.call, record, result, &p.ctx, &p.ran).await;
        exec.contained = Some(contained);
        exec
    }

    /// Asks a person whether a contained call that failed by the sandbox's doing may run again
    /// outside it: a normal approval, whatever the mode or the session memory says. When
    /// approved, the call runs free and its record and result come back.
    async fn offer_outside(
        &self,
        p: &Progress,
        contained: &DecisionRecord,
        sign: &str,
        tool: &dyn ToolRunner,
    ) -> (Outside, Option<(DecisionRecord, ToolResult)>) {
        let Some(approver) = &self.approver else {
            return (Outside::NoOneToAsk, None);
        };
        let reason = format!(
            "it failed in the sandbox, and the failure looks like the sandbox's doing ({sign}): \
             run it again outside the sandbox, with no containment? (It ran contained because: \
             {})",
            contained.reason
        );
        let risk = p.last_risk.max(Risk::Medium);
        let rule = contained.rule.as_ref().map(ToString::to_string);
        let asked = approver
            .ask(&p.call, &reason, risk, rule.as_deref(), None, &p.ctx.cancel)
            .await;
        let (by, approved, why, said) = match asked {
            Ok((answer, _)) => {
                let approved = answer.allows();
                let why = match &answer {
                    Answer::DenyWithFeedback(text) => {
                        format!("denied by the user ({reason}). The user says: {text}")
                    }
                    a if a.allows() => format!("approved by the user: {reason}"),
                    _ => format!("denied by the user ({reason})"),
                };
                let by = DecidedBy::Human {
                    answer: answer.as_str().into(),
                };
                (by, approved, why, Some(answer.as_str()))
            }
            Err(no) => (
                DecidedBy::NoAnswer {
                    why: no.to_string(),
                },
                false,
                format!("denied: {no} ({reason})"),
                None,
            ),
        };
        let mut ctx = p.ctx.clone();
        if let Some(answer) = said.filter(|_| approved) {
            ctx.approved_by_human = Some(HumanApproval {
                answer,
                hook: "sandbox".into(),
            });
        }
        let record = self.record(
            &p.call,
            Verdict {
                action: if approved {
                    Action::Allow
                } else {
                    Action::Deny
                },
                risk,
                rule: contained.rule.clone(),
                reason: why,
                decided_by: by,
            },
            p.mode,
            &ctx,
        );
        self.announce(&record);
        if !approved || p.ctx.cancel.is_cancelled() {
            return (Outside::Declined, None);
        }
        let free = CatchUnwind(tool.run(&p.call, &p.ctx.cancel))
            .await
            .unwrap_or_else(|p| ToolResult::error(format!("the tool panicked: {p}")));
        (Outside::Ran, Some((record, free)))
    }

    /// Settles an ask: the mode, then the session memory, then a person (or the headless
    /// setting). `Ok` is an approval and says by whom; `Err` a denial with its reason.
    async fn resolve_ask(
        &self,
        hook: &str,
        d: &HookDecision,
        call: &ToolCall,
        ctx: &mut HookContext,
        mode: Mode,
    ) -> Result<DecidedBy, (DecidedBy, String)> {
        if !d.managed && mode.approves(d.risk, d.unknown) {
            return Ok(DecidedBy::Mode { mode });
        }
        if !d.managed && self.session.covers_exactly(call) {
            return Ok(DecidedBy::Session {
                rule: RuleRef::Named("this exact call".into()),
            });
        }
        let Some(approver) = &self.approver else {
            return self.resolve_headless(d);
        };
        self.ask_person(approver, hook, d, call, ctx).await
    }

    /// Settles an ask where no one can answer: by the headless setting, and a managed
    /// policy's ask is always a denial.
    fn resolve_headless(&self, d: &HookDecision) -> Result<DecidedBy, (DecidedBy, String)> {
        let headless = match &self.live {
            Some(live) => live.snapshot().headless(),
            None => self.headless,
        };
        let action = match d.managed || d.unknown {
            true => Action::Deny,
            false => headless
                .iter()
                .find(|(r, _)| *r == d.risk)
                .map_or(Action::Deny, |(_, a)| *a),
        };
        match action {
            Action::Allow => Ok(DecidedBy::Headless),
            _ if d.managed => Err((
                DecidedBy::Headless,
                format!(
                    "{} (the managed policy asks, and no one can answer in a non-interactive run)",
                    d.reason
                ),
            )),
            _ if d.unknown => Err((
                DecidedBy::Headless,
                format!(
                    "{} (not understood, and no one can answer in a non-interactive run: what the analysis does not understand is never approved unasked)",
                    d.reason
                ),
            )),
            _ => Err((
                DecidedBy::Headless,
                format!(
                    "{} (asked, and no one can answer in a non-interactive run: the headless setting denies {} risk)",
                    d.reason, d.risk
                ),
            )),
        }
    }

    /// Settles an ask by a person's answer: a denial says why; an allow beyond this call is
    /// remembered (and written, for always), and the context notes who approved.
    async fn ask_person(
        &self,
        approver: &Approver,
        hook: &str,
        d: &HookDecision,
        call: &ToolCall,
        ctx: &mut HookContext,
    ) -> Result<DecidedBy, (DecidedBy, String)> {
        let proposal = d.proposal.clone();
        let asked = approver
            .ask(
                call,
                &d.reason,
                d.risk,
                d.rule.as_ref().map(ToString::to_string).as_deref(),
                proposal.clone(),
                &ctx.cancel,
            )
            .await;
        let (answer, own) = match asked {
            Ok(x) => x,
            Err(why) => {
                return Err((
                    DecidedBy::NoAnswer {
                        why: why.to_string(),
                    },
                    format!("denied: {why} ({})", d.reason),
                ))
            }
        };
        let by = DecidedBy::Human {
            answer: answer.as_str().into(),
        };
        match &answer {
            Answer::Deny => return Err((by, format!("denied by the user ({})", d.reason))),
            Answer::DenyWithFeedback(text) => {
                return Err((
                    by,
                    format!("denied by the user ({}). The user says: {text}", d.reason),
                ))
            }
            Answer::AllowOnce => {}
            Answer::AllowSession | Answer::AlwaysAllow => {
                // A follower (`own == false`) took the answer to a prompt identical to its own
                // (the same call, reason, risk, rule and proposal, see `Approver::ask`): the
                // person allowed exactly this call, and the leader remembered it (the exact
                // call always, the proposal's rules when there is one) and wrote the rules.
                if own {
                    self.session.remember(call, proposal.as_ref());
                }
                if own && answer == Answer::AlwaysAllow {
                    self.write_rules(proposal.as_ref(), approver);
                }
            }
        }
        ctx.approved_by_human = Some(HumanApproval {
            answer: answer.as_str(),
            hook: hook.to_string(),
        });
        Ok(by)
    }

    fn write_rules(&self, proposal: Option<&Proposal>, approver: &Approver) {
        let notice = |m: String| {
            let _ = approver.events().send(RuntimeEvent::Notice(m));
        };
        let Some(p) = proposal else {
            notice("no rule can be written for this call; it is allowed for this session".into());
            return;
        };
        let Some(w) = &self.writer else {
            notice(
                "rules are not written in this run; the call is allowed for this session".into(),
            );
            return;
        };
        match w.add_allow_rules(&p.texts()) {
            Ok(added) if added.is_empty() => notice(format!("already in the allowlist: {p}")),
            Ok(added) => notice(format!("added to the allowlist: {}", added.join(", "))),
            Err(e) => notice(format!(
                "could not write the rule ({e}); the call is allowed for this session only"
            )),
        }
    }

    fn record(
        &self,
        call: &ToolCall,
        verdict: Verdict,
        mode: Mode,
        ctx: &HookContext,
    ) -> DecisionRecord {
        DecisionRecord {
            time: SystemTime::now(),
            call: call.clone(),
            action: verdict.action,
            risk: verdict.risk,
            rule: verdict.rule,
            reason: verdict.reason,
            decided_by: verdict.decided_by,
            mode,
            approved_by_human: ctx.approved_by_human.clone(),
            allowed_by_rule: ctx.allowed_by_rule.clone(),
        }
    }

    fn announce(&self, record: &DecisionRecord) {
        for hook in &self.hooks {
            let h = hook.clone();
            // An observer that panics must not take the decision with it.
            let _ = catching(|| h.on_decision(record));
        }
    }

    fn finish_denied(
        &self,
        pending: &mut Pending<'_>,
        call: ToolCall,
        record: DecisionRecord,
    ) -> Execution {
        pending.announce(&record);
        let result = ToolResult::denied(record.reason.clone());
        Execution {
            result,
            record,
            call,
            contained: None,
        }
    }

    async fn finish(
        &self,
        call: ToolCall,
        record: DecisionRecord,
        result: ToolResult,
        ctx: &HookContext,
        ran: &[usize],
    ) -> Execution {
        let mut result = result;
        for &i in ran.iter().rev() {
            let hook = &self.hooks[i];
            let fallback = result.clone();
            result = CatchUnwind(hook.after_execute(ctx, &call, result))
                .await
                .unwrap_or_else(|p| {
                    ToolResult::error(format!(
                        "hook `{}` panicked after the tool ran: {p}; the output was: {}",
                        hook.name(),
                        fallback.content
                    ))
                });
        }
        Execution {
            result,
            record,
            call,
            contained: None,
        }
    }
}

/// A runner's allow to run a call contained, as the ask it becomes where the runner cannot
/// contain it (as the engine's own `asked_instead` says it).
fn contained_asked_instead(d: HookDecision) -> HookDecision {
    let profile = d
        .contained
        .as_ref()
        .map(|c| c.profile.clone())
        .unwrap_or_default();
    HookDecision {
        action: Action::Ask,
        reason: format!(
            "the sandbox is not available here: this tool runner runs its calls outside the \
             sandbox; it would run contained (sandbox profile `{profile}`): {}",
            d.reason
        ),
        contained: None,
        modified_args: None,
        ..d
    }
}

/// A call on its way through [`HookRegistry::execute`] until its decision is announced. A
/// caller that drops the future before then (a turn torn down while a person is asked) still
/// leaves a record: denied, it did not run.
struct Pending<'a> {
    registry: &'a HookRegistry,
    call: ToolCall,
    mode: Mode,
    risk: Risk,
    announced: bool,
}

/// A call's way along the chain: the context and the call as the hooks so far left them, the
/// mode it arrived in, the hooks that ran, the highest risk yet, and the first decision that let
/// it through (the decider, its rule and its reason).
struct Progress {
    ctx: HookContext,
    call: ToolCall,
    mode: Mode,
    ran: Vec<usize>,
    last_risk: Risk,
    decided: Option<(DecidedBy, Option<RuleRef>, String)>,
    /// How the call is to run contained, once a hook said so.
    contained: Option<Containment>,
}

impl Pending<'_> {
    fn announce(&mut self, record: &DecisionRecord) {
        self.announced = true;
        self.registry.announce(record);
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.announced {
            return;
        }
        let record = DecisionRecord {
            time: SystemTime::now(),
            call: self.call.clone(),
            action: Action::Deny,
            risk: self.risk,
            rule: None,
            reason: "the call was abandoned before it was decided; it did not run".into(),
            decided_by: DecidedBy::NoAnswer {
                why: "the caller stopped waiting for the decision".into(),
            },
            mode: self.mode,
            approved_by_human: None,
            allowed_by_rule: None,
        };
        self.registry.announce(&record);
    }
}

/// The tool's check of a call; a panic in it is a malformed call, not a crash.
fn validate(tool: &dyn ToolRunner, call: &ToolCall) -> Result<(), InvalidCall> {
    catching(|| tool.validate(call))
        .unwrap_or_else(|p| Err(InvalidCall::Panicked(panic_message(&*p))))
}

/// A boxed future whose panic becomes an `Err` with the panic's message.
struct CatchUnwind<'a, T>(Pin<Box<dyn Future<Output = T> + Send + 'a>>);

impl<T> Future for CatchUnwind<'_, T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catching(|| inner.poll(cx)) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(&*payload))),
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".into()
    }
}

thread_local! {
    /// How many [`catching`] calls are running on this thread.
    static CATCHING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f`, turning a panic into an `Err` with its payload, and lets [`panic_is_caught`]
/// tell a panic hook that this panic will be handled.
fn catching<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    CATCHING.with(|c| c.set(c.get() + 1));
    let r = std::panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    r
}

/// Whether a panic happening now on this thread is one the runtime catches (a hook's or a
/// tool's, which becomes a denial or an error result). A UI's panic hook uses it to leave the
/// terminal alone for a panic the session survives.
pub fn panic_is_caught() -> bool {
    CATCHING.with(|c| c.get() > 0)
}
