//! The layers one subject is decided through, in order: the hard protections, the managed
//! tier, the policy files and settings (strictest across them), the built-in rules and what the
//! analysis refuses, the default. A layer whose decision is open (see
//! [`super::chain::Chain::verdict`]) lets the next one count too.

use super::chain::{Chain, Verdict};
use super::eval::{rule_decision_on, stricter, Opts};
use super::explain::{Hit, Layer};
use super::index::RuleId;
use super::rule::{CompiledRule, Subject, Target};
use super::Engine;
use crate::call::{Action, Decision, Risk};
use crate::rule_ref::RuleRef;

impl Engine {
    /// Decides one subject through the layers: hard protections, the managed and policy
    /// chains (strictest wins), the built-in rules and what the analysis refuses, the default.
    pub(super) fn layers(
        &self,
        s: &Subject,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        mut hits: Option<&mut Vec<Hit>>,
    ) -> Decision {
        if let Some(p) = self.protection_hit(s, o.followed) {
            let d = p.decision();
            record(
                hits,
                Layer::Protected,
                &d,
                format!("protect \"{}\"", p.written),
                true,
            );
            return d;
        }
        if let Some(d) = unchecked_walk(s) {
            record(
                hits,
                Layer::Protected,
                &d,
                "links in a walk too large to check",
                true,
            );
            return d;
        }
        if o.managed_only {
            return self.managed_layer(s, scratch);
        }
        // A layer whose decision is open (see [`Chain::verdict`]) lets the next one count
        // too, the stricter standing.
        let mut held: Option<Decision> = None;
        // A policy rule surely contains the subject: the built-in rules still count (a deny or
        // ask is never weakened by a sandbox rule), the default does not (the rule answers
        // instead of it).
        let mut contained = false;
        if !o.builtin_only {
            if let Some((d, open)) = self.policy_layer(s, scratch, hits.as_deref_mut()) {
                if !open && d.action != Action::Sandbox {
                    return d;
                }
                contained = !open;
                held = Some(d);
            }
        }
        if let Some((d, open)) = self.builtin_layer(s, scratch, hits.as_deref_mut()) {
            let d = stricter(held.take(), d);
            if !open {
                return d;
            }
            held = Some(d);
        }
        // Still contained (no built-in rule answered, or none more strictly): the rule's answer
        // stands. A stricter built-in answer that left its decision open (an exception that
        // held in one reading only) goes on to meet the default, as any open answer does.
        if let Some(d) = held
            .as_ref()
            .filter(|d| contained && d.action == Action::Sandbox)
        {
            return d.clone();
        }
        if o.builtin_only {
            let none = Decision::new(
                Action::Allow,
                Risk::Low,
                "no built-in rule matched",
                RuleRef::NoBuiltinMatch,
            );
            return stricter(held, none);
        }
        record(
            hits,
            Layer::Default,
            &self.default,
            "default",
            held.is_none(),
        );
        stricter(held, self.default.clone())
    }

    /// What the managed tier alone denies or asks about (an allow when nothing).
    fn managed_layer(&self, s: &Subject, scratch: &mut Vec<RuleId>) -> Decision {
        let mut floor: Option<Decision> = None;
        for chain in self.user.iter().filter(|c| c.managed) {
            if let Some(v) = chain.verdict(s, scratch) {
                if v.decision.action != Action::Allow {
                    floor = Some(stricter(floor, v.decision));
                }
            }
        }
        floor.unwrap_or_else(|| {
            Decision::new(
                Action::Allow,
                Risk::Low,
                "no managed rule matched",
                RuleRef::NoManagedMatch,
            )
        })
    }

    /// The policy files' and settings' chains: the first match of each, the strictest of
    /// them; `None` when no chain matches. A settings.json allow (but an `exact` one) does not
    /// lift a high-risk built-in rule.
    fn policy_layer(
        &self,
        s: &Subject,
        scratch: &mut Vec<RuleId>,
        mut hits: Option<&mut Vec<Hit>>,
    ) -> Option<(Decision, bool)> {
        let mut user: Option<Decision> = None;
        // Whether every allow that decided may lift a high-risk built-in rule.
        let mut lifts = true;
        // Whether every chain that decided left its decision open.
        let mut open = true;
        // A person's allow (a policy file's or settings', surely matching), and whether every
        // sandbox verdict came from the shipped default policy.
        let mut persons_allow: Option<(Decision, bool)> = None;
        let mut only_shipped_contains = true;
        for chain in &self.user {
            if let Some(v) = traced_verdict(chain, chain.layer(), s, scratch, hits.as_deref_mut()) {
                if v.rule.action == Action::Allow && chain.from_settings && !v.rule.is_exact() {
                    lifts = false;
                }
                match v.decision.action {
                    Action::Allow if !chain.shipped_default && persons_allow.is_none() => {
                        persons_allow = Some((v.decision.clone(), v.open));
                    }
                    Action::Sandbox if !chain.shipped_default => only_shipped_contains = false,
                    _ => {}
                }
                open &= v.open;
                user = Some(stricter(user, v.decision));
            }
        }
        let mut d = user?;
        // The shipped default policy contains what it would otherwise ask about; a person's own
        // allow of the call outranks that as it outranks the shipped default (`cargo test`
        // allowed in a team's file runs free, as it did before the shipped policy contained it).
        if d.action == Action::Sandbox && only_shipped_contains {
            if let Some((allow, allow_open)) = persons_allow {
                d = allow;
                open = allow_open;
            }
        }
        // A person's "always allow" of this very command (an `exact` entry) still lifts it.
        let exact = || {
            self.user.iter().filter(|c| c.from_settings).any(|c| {
                c.all_matches(s)
                    .iter()
                    .any(|r| r.action == Action::Allow && r.is_exact())
            })
        };
        if lifts || d.action != Action::Allow || exact() {
            return Some((d, open));
        }
        if let Some(b) = self.builtin_high(s, scratch) {
            let d = Decision::new(
                b.action,
                b.risk,
                format!(
                    "{} (an allow in settings.json does not lift a high-risk built-in rule; \
                     a policy file's allow does)",
                    b.reason
                ),
                b.rule,
            );
            return Some((d, false));
        }
        Some((d, false))
    }

    /// The built-in rules, and a program whose name is computed at run time; `None` when
    /// neither has anything to say.
    fn builtin_layer(
        &self,
        s: &Subject,
        scratch: &mut Vec<RuleId>,
        mut hits: Option<&mut Vec<Hit>>,
    ) -> Option<(Decision, bool)> {
        let mut found: Option<Decision> = None;
        let mut open = false;
        if let Some(chain) = &self.builtin {
            if let Some(v) = traced_verdict(chain, Layer::Builtin, s, scratch, hits.as_deref_mut())
            {
                open = v.open;
                found = Some(v.decision);
            }
        }
        if let Some((why, label)) = unjudged(s) {
            let d = Decision::new(Action::Ask, Risk::High, why, RuleRef::Analysis);
            record(hits, Layer::Analysis, &d, label, true);
            found = Some(stricter(found, d));
            open = false;
        }
        found.map(|d| (d, open))
    }

    /// The built-in rule's decision on `s`, when it is a high-risk ask or deny.
    fn builtin_high(&self, s: &Subject, scratch: &mut Vec<RuleId>) -> Option<Decision> {
        let d = self.builtin.as_ref()?.verdict(s, scratch)?.decision;
        (d.risk == Risk::High && d.action != Action::Allow).then_some(d)
    }
}

/// Notes for `explain` (when it asks, `hits`) what a layer decided.
fn record(
    hits: Option<&mut Vec<Hit>>,
    layer: Layer,
    decision: &Decision,
    text: impl Into<String>,
    deciding: bool,
) {
    if let Some(h) = hits {
        h.push(Hit {
            layer,
            decision: decision.clone(),
            text: text.into(),
            deciding,
        });
    }
}

/// A command that follows links while walking more than [`super::links::MAX_ENTRIES`] entries:
/// whether a link leads into a protected folder is not known, so it is denied as the hard
/// protections deny (no rule or mode lifts them).
fn unchecked_walk(s: &Subject) -> Option<Decision> {
    let Target::Command(c) = &s.target else {
        return None;
    };
    c.walked_links().is_err().then(|| {
        let why = format!(
            "it follows links while walking folders of more than {} entries, too many to check \
             that none leads into a protected folder (walk without following links, `grep -r`, \
             or name a smaller folder)",
            super::links::MAX_ENTRIES
        );
        Decision::new(Action::Deny, Risk::High, why, RuleRef::Analysis)
    })
}

/// Why a command cannot be judged by the built-in rules, and a label for `explain`: its
/// program's name is computed when it runs.
fn unjudged(s: &Subject) -> Option<(String, &'static str)> {
    let Target::Command(c) = &s.target else {
        return None;
    };
    if c.cmd.computed_program() {
        let why = "the program's name is computed when the command runs, so it cannot be judged";
        return Some((why.into(), "computed program name"));
    }
    None
}

/// The chain's verdict on `s` (see [`Chain::verdict`]); for `explain` (when it asks, `hits`)
/// every rule of the chain that matches, the one whose decision stands marked deciding.
fn traced_verdict<'c>(
    chain: &'c Chain,
    layer: Layer,
    s: &Subject,
    scratch: &mut Vec<RuleId>,
    hits: Option<&mut Vec<Hit>>,
) -> Option<Verdict<'c>> {
    let verdict = chain.verdict(s, scratch);
    if let Some(h) = hits {
        let deciding = verdict.as_ref().map(|v| v.rule as *const CompiledRule);
        for r in chain.all_matches(s) {
            h.push(Hit {
                layer,
                decision: rule_decision_on(r, s),
                text: r.text(),
                deciding: Some(r as *const CompiledRule) == deciding,
            });
        }
    }
    verdict
}
