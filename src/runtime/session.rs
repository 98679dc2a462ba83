//! Session memory: what a person allowed "for this session". Rules (the call's proposal) are
//! evaluated by the engine itself, as a chain consulted for parts of a call that would be
//! asked about (compiled by [`super::propose::compile`]); the approved call itself is
//! remembered exactly as well.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Proposal, ProposedRule};
use crate::call::ToolCall;

#[derive(Debug, Default)]
struct Inner {
    exact: HashSet<String>,
    rules: Vec<ProposedRule>,
    /// Bumped when `rules` changes, so compiled copies know they are stale.
    generation: u64,
}

/// The session's remembered approvals; clones share them.
#[derive(Debug, Clone, Default)]
pub struct SessionMemory(Arc<Mutex<Inner>>);

impl SessionMemory {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers an approval: the exact call, and the proposal's rules when there is one (the
    /// exact call also covers the chains whose hooks do not consult the rules).
    pub fn remember(&self, call: &ToolCall, proposal: Option<&Proposal>) {
        let mut inner = self.lock();
        inner.exact.insert(call_key(call));
        if let Some(p) = proposal {
            let mut changed = false;
            for r in &p.rules {
                if !inner.rules.contains(r) {
                    inner.rules.push(r.clone());
                    changed = true;
                }
            }
            if changed {
                inner.generation += 1;
            }
        }
    }

    /// Whether this exact call was approved for the session.
    pub fn covers_exactly(&self, call: &ToolCall) -> bool {
        self.lock().exact.contains(&call_key(call))
    }

    /// The remembered rules and their generation.
    pub fn rules(&self) -> (Vec<ProposedRule>, u64) {
        let inner = self.lock();
        (inner.rules.clone(), inner.generation)
    }

    /// Forgets a remembered rule, and the calls approved exactly (which it may have covered),
    /// so that they are asked about again; whether the rule was remembered.
    pub fn forget(&self, rule: &ProposedRule) -> bool {
        let mut inner = self.lock();
        let before = inner.rules.len();
        inner.rules.retain(|r| r != rule);
        if inner.rules.len() == before {
            return false;
        }
        inner.exact.clear();
        inner.generation += 1;
        true
    }

    /// Revokes a grant by its settings.json text (`bash(git init *)`): the remembered rules
    /// with that text go, and so do the calls approved exactly (an "always allow" remembers its
    /// call as well), so that all of them are asked about again. Whether a rule was remembered.
    pub fn revoke(&self, text: &str) -> bool {
        let mut inner = self.lock();
        let before = inner.rules.len();
        inner.rules.retain(|r| r.to_string() != text);
        let removed = inner.rules.len() != before;
        inner.exact.clear();
        inner.generation += 1;
        removed
    }

    pub fn is_empty(&self) -> bool {
        let inner = self.lock();
        inner.rules.is_empty() && inner.exact.is_empty()
    }
}

fn call_key(call: &ToolCall) -> String {
    format!(
        "{}\u{0}{}",
        call.name,
        Value::Object(call.arguments.clone())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::propose::texts;

    #[test]
    fn a_forgotten_rule_no_longer_covers_and_the_generation_moves() {
        let m = SessionMemory::default();
        let call = ToolCall::primary("bash", "git init x");
        let rule = ProposedRule::prefix(&["git", "init"]);
        m.remember(
            &call,
            Some(&Proposal {
                rules: vec![rule.clone()],
                exact: false,
            }),
        );
        let (rules, generation) = m.rules();
        assert_eq!(texts(&rules), ["bash(git init *)"]);
        assert!(m.covers_exactly(&call));
        assert!(m.forget(&rule));
        let (rules, after) = m.rules();
        assert!(rules.is_empty());
        assert!(after > generation, "compiled copies see the change");
        assert!(!m.covers_exactly(&call), "the call is asked about again");
        assert!(!m.forget(&rule));
    }

    #[test]
    fn revoking_a_grant_by_its_text_forgets_the_rule_and_the_exact_call() {
        let m = SessionMemory::default();
        let call = ToolCall::primary("bash", "git init x");
        let rule = ProposedRule::prefix(&["git", "init"]);
        m.remember(
            &call,
            Some(&Proposal {
                rules: vec![rule],
                exact: false,
            }),
        );
        let (_, generation) = m.rules();
        assert!(m.revoke("bash(git init *)"));
        let (rules, after) = m.rules();
        assert!(rules.is_empty());
        assert!(after > generation);
        assert!(!m.covers_exactly(&call), "the call is asked about again");

        // A grant that lives only in the file: the exact call its approval remembered goes too.
        m.remember(&call, None);
        assert!(!m.revoke("bash(git init *)"));
        assert!(!m.covers_exactly(&call));
    }
}
