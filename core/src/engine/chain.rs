//! One file's rules in order, indexed: the first matching rule decides (or, for the built-in
//! rules, the strictest that matches).

use super::eval::rule_decision_on;
use super::explain::Layer;
use super::index::{ChainIndex, RuleId};
use super::rule::{CompiledRule, Match, Subject};
use crate::Decision;

/// A chain's decision on one subject (see [`Chain::verdict`]).
#[derive(Debug)]
pub struct Verdict<'c> {
    /// The rule whose decision stands.
    pub rule: &'c CompiledRule,
    pub decision: Decision,
    /// No rule matched surely: the next layer's decision counts too, the stricter standing.
    pub open: bool,
}

/// An ordered list of rules from one file (with its includes), indexed.
#[derive(Debug)]
pub struct Chain {
    /// The file's name as given.
    pub name: String,
    pub rules: Vec<CompiledRule>,
    /// The rules come from a `settings.json`: its allow entries (but `exact` ones) do not lift
    /// a high-risk built-in rule (`bash(git *)` does not allow `git push --force`).
    pub from_settings: bool,
    /// The shipped default policy (or rules that come with it) under the policy files.
    pub shipped_default: bool,
    /// A file of the managed tier: what its rules deny or ask nothing loosens.
    pub managed: bool,
    /// Every matching rule counts, the strictest standing (the built-in rules: each is a
    /// danger of its own, and one written earlier never hides a graver one).
    pub strictest: bool,
    index: ChainIndex,
}

impl Chain {
    pub fn new(name: impl Into<String>, rules: Vec<CompiledRule>) -> Chain {
        let index = ChainIndex::build(&rules);
        Chain {
            name: name.into(),
            rules,
            from_settings: false,
            shipped_default: false,
            managed: false,
            strictest: false,
            index,
        }
    }

    /// The chain's index, for tests of what it built.
    #[cfg(test)]
    pub(super) fn index(&self) -> &ChainIndex {
        &self.index
    }

    /// The chain of a `settings.json` (see [`Chain::from_settings`]).
    pub fn settings(mut self) -> Chain {
        self.from_settings = true;
        self
    }

    /// A chain of the shipped default policy (see [`Chain::shipped_default`]).
    pub fn shipped_default(mut self) -> Chain {
        self.shipped_default = true;
        self
    }

    /// A chain where every matching rule counts (see [`Chain::strictest`]).
    pub fn strictest(mut self) -> Chain {
        self.strictest = true;
        self
    }

    /// A chain of the managed tier (see [`Chain::managed`]); its rules are labelled
    /// `managed:FILE:LINE`.
    pub fn managed(mut self) -> Chain {
        for r in &mut self.rules {
            r.origin.rule = r.origin.rule.clone().managed();
        }
        self.managed = true;
        self
    }

    /// The layer `explain` names this chain's rules by.
    pub fn layer(&self) -> Layer {
        if self.managed {
            Layer::Managed
        } else if self.shipped_default {
            Layer::Shipped
        } else {
            Layer::User
        }
    }

    /// The first rule, in file order, that matches.
    pub fn first_match(&self, s: &Subject, scratch: &mut Vec<RuleId>) -> Option<&CompiledRule> {
        self.index.candidates(s.tool, &s.target, scratch);
        scratch
            .iter()
            .map(|&id| &self.rules[id as usize])
            .find(|r| r.matches(s))
    }

    /// The chain's decision on `s`: the first rule that surely matches decides, made stricter
    /// by every rule before it that matches unsurely ([`Match::Unsure`]); in a
    /// [`Chain::strictest`] chain, by every rule that matches. `open` when no rule surely
    /// matches: what the chain leaves to the next layer may then be stricter still.
    pub fn verdict(&self, s: &Subject, scratch: &mut Vec<RuleId>) -> Option<Verdict<'_>> {
        self.index.candidates(s.tool, &s.target, scratch);
        let mut found: Option<Verdict> = None;
        let mut any_sure = false;
        for &id in scratch.iter() {
            let r = &self.rules[id as usize];
            let sure = match r.matching(s) {
                Match::No => continue,
                Match::Sure => true,
                Match::Unsure => false,
            };
            any_sure |= sure;
            let d = rule_decision_on(r, s);
            found = Some(match found {
                Some(v) if v.decision.strictness() >= d.strictness() => Verdict {
                    open: !any_sure,
                    ..v
                },
                _ => Verdict {
                    rule: r,
                    decision: d,
                    open: !any_sure,
                },
            });
            if sure && !self.strictest {
                break;
            }
        }
        found
    }

    /// Every rule that matches, in file order (for `explain`).
    pub fn all_matches(&self, s: &Subject) -> Vec<&CompiledRule> {
        let mut scratch = Vec::new();
        self.index.candidates(s.tool, &s.target, &mut scratch);
        scratch
            .iter()
            .map(|&id| &self.rules[id as usize])
            .filter(|r| r.matches(s))
            .collect()
    }

    /// Reference scan over every rule, ignoring the index: for tests of the index.
    pub fn first_match_linear(&self, s: &Subject) -> Option<&CompiledRule> {
        self.rules.iter().find(|r| r.matches(s))
    }
}
