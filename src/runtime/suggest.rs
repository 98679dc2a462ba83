//! Rules learned from approvals: the calls a person approved again and again, read from the
//! audit log, turned into the narrow rules the TUI's "always allow" proposes for them (the
//! same [`propose`] with the same checks), with how often each was approved.
//!
//! A call counts as approved by a person when
//! - the TUI's log says so (`decided_by: human` with an allow answer), or
//! - a hook adapter asked about it and the agent then reported that it ran (a Claude Code
//!   `PostToolUse` outcome with the same call id): the person said yes in the agent's dialog.
//!
//! Calls that the policy allows today are left out, and so is any call whose logged input was
//! cut (a rule cannot be proposed for a command that is not known whole).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::propose::{propose, ProposedRule};
use crate::audit::{DecidedBy, Event, Record};
use crate::call::{primary_key, Action, ToolCall};
use crate::engine::Engine;

/// A call a person approved, as the log has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Approved {
    pub call: ToolCall,
    /// The logged input (the command, the path), for showing.
    pub input: String,
}

/// One rule set to suggest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The rules "always allow" would write (serialized as their settings.json texts).
    pub rules: Vec<ProposedRule>,
    /// How many approved calls they cover.
    pub count: usize,
    /// Up to three different approved inputs they were proposed for.
    pub examples: Vec<String>,
}

/// How many examples a suggestion keeps.
const EXAMPLES: usize = 3;

/// The calls of `records` that a person approved, in log order.
pub fn approved_calls(records: &[Record]) -> Vec<Approved> {
    // Call ids of the agents' calls that ran, by agent and session.
    let ran: HashSet<(&str, Option<&str>, &str)> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Outcome { outcome } if outcome == "ran" => Some((
                r.agent.as_str(),
                r.session_id.as_deref(),
                r.call_id.as_deref()?,
            )),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for r in records {
        let Event::Decision(d) = &r.event else {
            continue;
        };
        if d.truncated {
            continue;
        }
        let by_person = match &d.decided_by {
            DecidedBy::Human { answer } => {
                d.decision == Action::Allow
                    && (answer.starts_with("allow") || answer == "always-allow")
            }
            _ => {
                d.decision == Action::Ask
                    && r.call_id.as_deref().is_some_and(|id| {
                        ran.contains(&(r.agent.as_str(), r.session_id.as_deref(), id))
                    })
            }
        };
        if !by_person {
            continue;
        }
        if let Some(call) = call_of(&d.call, &d.input) {
            out.push(Approved {
                call,
                input: d.input.clone(),
            });
        }
    }
    out
}

/// The call a log line describes: the primary argument for tools that have one, else the
/// arguments' JSON object.
fn call_of(tool: &str, input: &str) -> Option<ToolCall> {
    if primary_key(tool).is_some() {
        return Some(ToolCall::primary(tool, input));
    }
    match serde_json::from_str::<Value>(input) {
        Ok(Value::Object(arguments)) => Some(ToolCall {
            id: None,
            name: tool.to_string(),
            arguments,
        }),
        _ => None,
    }
}

/// The suggestions for `approved` under `engine` (the project's policy today), most approved
/// first, keeping those approved at least `min` times.
pub fn suggest(engine: &Engine, approved: &[Approved], min: usize) -> Vec<Suggestion> {
    let mut by_rules: HashMap<Vec<ProposedRule>, Suggestion> = HashMap::new();
    let mut order: Vec<Vec<ProposedRule>> = Vec::new();
    // The same call approved many times is decided and proposed once.
    let mut seen: HashMap<(&str, &str), Option<Vec<ProposedRule>>> = HashMap::new();
    for a in approved {
        let rules = seen
            .entry((a.call.name.as_str(), a.input.as_str()))
            .or_insert_with(|| {
                let d = engine.decide(&a.call);
                if d.action != Action::Ask {
                    return None;
                }
                propose(engine, &a.call, &d).map(|p| p.rules)
            })
            .clone();
        let Some(rules) = rules else {
            continue;
        };
        let s = by_rules.entry(rules.clone()).or_insert_with(|| {
            order.push(rules.clone());
            Suggestion {
                rules,
                count: 0,
                examples: Vec::new(),
            }
        });
        s.count += 1;
        if s.examples.len() < EXAMPLES && !s.examples.contains(&a.input) {
            s.examples.push(a.input.clone());
        }
    }
    let mut out: Vec<Suggestion> = order
        .into_iter()
        .filter_map(|k| by_rules.remove(&k))
        .filter(|s| s.count >= min)
        .collect();
    // Most approved first; ties keep the log's order.
    out.sort_by_key(|s| std::cmp::Reverse(s.count));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Caller, Verdict};
    use crate::call::Risk;
    use crate::engine::Mode;
    use crate::runtime::propose::texts;
    use crate::PathContext;

    fn claude(call_id: &str) -> Caller<'_> {
        Caller {
            agent: "claude-code",
            session_id: Some("s1"),
            call_id: Some(call_id),
            tool: "Bash",
        }
    }

    fn asked(call_id: &str, command: &str) -> Record {
        let verdict = Verdict::default_ask();
        Record::decision(
            claude(call_id),
            &ToolCall::primary("bash", command),
            "default",
            verdict,
        )
    }

    fn ran(call_id: &str) -> Record {
        Record::outcome(claude(call_id), "ran")
    }

    fn by_person(command: &str, answer: &str, action: Action) -> Record {
        let by = Caller {
            agent: "harness9",
            session_id: None,
            call_id: None,
            tool: "bash",
        };
        let verdict = Verdict {
            action,
            risk: Risk::Low,
            rule: None,
            reason: "asked".into(),
            decided_by: DecidedBy::Human {
                answer: answer.into(),
            },
        };
        Record::decision(
            by,
            &ToolCall::primary("bash", command),
            Mode::Default.as_str(),
            verdict,
        )
    }

    fn engine() -> Engine {
        Engine::builder()
            .context(PathContext::new("/work/proj", Some("/home/u".into())))
            .default_policy()
            .build()
            .expect("the default policy loads")
    }

    #[test]
    fn an_ask_that_then_ran_is_approved_and_one_that_did_not_is_not() {
        let records = vec![
            asked("t1", "npm run test"),
            ran("t1"),
            asked("t2", "npm run build"),
            // t2 never ran: the person said no.
            asked("t3", "npm run lint"),
            Record::outcome(
                Caller {
                    session_id: Some("other"),
                    ..claude("t3")
                },
                "ran",
            ),
        ];
        let got: Vec<String> = approved_calls(&records)
            .into_iter()
            .map(|a| a.input)
            .collect();
        assert_eq!(got, vec!["npm run test"], "t3 ran in another session");
    }

    #[test]
    fn the_tuis_allow_answers_are_approvals_and_its_denials_are_not() {
        let records = vec![
            by_person("make check", "allow-once", Action::Allow),
            by_person("make check", "allow-session", Action::Allow),
            by_person("make dist", "deny", Action::Deny),
            by_person("make dist", "deny-with-feedback", Action::Deny),
        ];
        let got: Vec<String> = approved_calls(&records)
            .into_iter()
            .map(|a| a.input)
            .collect();
        assert_eq!(got, vec!["make check", "make check"]);
    }

    #[test]
    fn a_cut_input_is_never_turned_into_a_rule() {
        let long = format!("echo {}", "x".repeat(crate::audit::MAX_INPUT_CHARS));
        let records = vec![asked("t1", &long), ran("t1")];
        assert!(approved_calls(&records).is_empty());
    }

    #[test]
    fn repeated_approvals_become_the_always_allow_rule_with_a_count() {
        let mut records = Vec::new();
        for (i, cmd) in [
            "npm run test",
            "npm run test -- --watch",
            "npm run test",
            "cargo build",
        ]
        .iter()
        .enumerate()
        {
            let id = format!("t{i}");
            records.push(asked(&id, cmd));
            records.push(ran(&id));
        }
        let s = suggest(&engine(), &approved_calls(&records), 2);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(texts(&s[0].rules), vec!["bash(npm run test *)"]);
        // `suggest --format json` writes the rules as settings.json's strings.
        assert_eq!(
            serde_json::to_value(&s[0]).ok().map(|v| v["rules"].clone()),
            Some(serde_json::json!(["bash(npm run test *)"]))
        );
        assert_eq!(s[0].count, 3);
        assert_eq!(
            s[0].examples,
            vec!["npm run test", "npm run test -- --watch"]
        );
        // With a threshold of one, the single `cargo build` comes too, after it.
        let s = suggest(&engine(), &approved_calls(&records), 1);
        assert_eq!(s.len(), 2);
        assert_eq!(texts(&s[1].rules), vec!["bash(cargo build *)"]);
    }

    #[test]
    fn calls_the_policy_allows_or_denies_today_are_not_suggested() {
        let mut records = Vec::new();
        for (i, cmd) in [
            "git status",
            "git status",
            "cat ~/.ssh/id_rsa",
            "cat ~/.ssh/id_rsa",
        ]
        .iter()
        .enumerate()
        {
            let id = format!("t{i}");
            records.push(asked(&id, cmd));
            records.push(ran(&id));
        }
        assert!(suggest(&engine(), &approved_calls(&records), 1).is_empty());
    }

    #[test]
    fn a_high_risk_approval_is_suggested_only_as_the_exact_command() {
        let mut records = Vec::new();
        for i in 0..2 {
            let id = format!("t{i}");
            records.push(asked(&id, "rm -rf build"));
            records.push(ran(&id));
        }
        let s = suggest(&engine(), &approved_calls(&records), 2);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(texts(&s[0].rules), vec!["bash(exact 'rm -rf build')"]);
    }
}
