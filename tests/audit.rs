//! The outside security review of release 0.1.0 (`security-review-1`, 113 findings), kept in
//! the repository as test cases: `tests/audit/security-review-1.jsonl`, one case a line.
//!
//! ```json
//! {"finding": 2, "variant": 0, "config": "default", "command": "find -- ~ -delete", "at_least": "ask", "min_risk": "high", "note": "why"}
//! {"finding": 74, "variant": 0, "config": "default", "command": "git branch --show-current", "decision": "allow", "note": "why"}
//! {"finding": 105, "variant": 1, "config": "default", "command": "find -- . -delete", "at_least": "ask", "same_as": 0, "note": "why"}
//! ```
//!
//! - `finding`: the 1-based line of the finding in the review; `variant`: 0-based, one case per
//!   spelling the finding names (its input's variants first, then the "also …" forms of its note).
//! - `config`: `default` (the shipped default policy: the engine `harness9 check` builds when no
//!   policy is given), `guard` (a policy of `default allow;` only, so the built-in danger rules
//!   and the hard protections alone decide) or `settings` (the default policy plus the permissive
//!   settings.json the review's README quotes, [`SETTINGS_JSON`]).
//! - `command` (a bash command) or `call` (any tool call, `{"name": …, "arguments": {…}}`), or
//!   `generate` for very long inputs: `{"head": "ls", "item": " | cat", "count": 5000,
//!   "tail": ""}` is `head` + `count` copies of `item` (`{i}` in it = the copy's 0-based index)
//!   + `tail`.
//! - the expectation, at least one of: `at_least` (`ask` or `deny`: the decision must be at
//!   least that strict, deny > ask > allow), `decision` (exactly this action), `not` (any action
//!   but this one), `min_risk` (low|medium|high; checked when the decision is `ask`, a deny is
//!   stricter anyway), `same_as` (the same action as that variant of the same finding).
//! - `note`: why.
//!
//! Conditions as in the review: HOME=/home/tester, working folder /home/tester/proj (it need not
//! exist). Every decision must also take at most [`TIME_LIMIT`] of processor time (generous for
//! a debug build: the benches hold the real target); the review's timing findings (category 6)
//! rely on that. A decision still running after [`ABANDON_AFTER`] is abandoned as hung.
//!
//! ## The ratchet
//!
//! `tests/audit/known-gaps.txt` lists the cases that fail today, `finding.variant` a line, with
//! an optional `# reason`. The test fails when a case not on the list fails (a regression) and
//! when a case on the list passes (it is fixed: remove it), so the list can only shrink.
//!
//! To rewrite the list from the current results (keeping its header comment, and the reasons
//! of entries that stay unless they are generated ones, which start with `got `):
//!
//! ```sh
//! HARNESS9_AUDIT_BLESS=1 cargo test --test audit
//! ```
//!
//! `HARNESS9_AUDIT_VERBOSE=1 cargo test --test audit -- --nocapture` prints every case's
//! decision and time.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use harness9::{Action, Decision, Engine, PathContext, Risk, ToolCall};
use serde_json::{Map, Value};

const CASES_FILE: &str = "tests/audit/security-review-1.jsonl";
const GAPS_FILE: &str = "tests/audit/known-gaps.txt";
const BLESS_VAR: &str = "HARNESS9_AUDIT_BLESS";
const VERBOSE_VAR: &str = "HARNESS9_AUDIT_VERBOSE";
/// The review's number of findings: each must have at least one case.
const FINDINGS: usize = 113;
const HOME: &str = "/home/tester";
const PROJECT: &str = "/home/tester/proj";
/// The permissive settings.json of the review's README (category 3).
const SETTINGS_JSON: &str = r#"{"permissions":{"allow":["bash(git *)","bash(npm *)","bash(python3 *)","bash(cargo *)","bash(find *)","bash(make *)","read_file","write_file(src/**)"]}}"#;
/// The longest one decision may take (a debug build; benches hold the real target).
const TIME_LIMIT: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Config {
    Default,
    Guard,
    Settings,
}

impl Config {
    fn parse(s: &str) -> Option<Config> {
        match s {
            "default" => Some(Config::Default),
            "guard" => Some(Config::Guard),
            "settings" => Some(Config::Settings),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Config::Default => "default",
            Config::Guard => "guard",
            Config::Settings => "settings",
        }
    }

    /// The engine `harness9 check` builds in the review's conditions.
    fn engine(self) -> Engine {
        let ctx = PathContext::new(PROJECT, Some(PathBuf::from(HOME)));
        // Guarded as `harness9 check` and the hooks guard them (the project's `.harness9/`,
        // the agents' settings files).
        let b = harness9::hooks::guard_project(
            Engine::builder().context(ctx.clone()),
            &ctx.cwd,
            ctx.home.as_deref(),
        );
        let b = match self {
            Config::Default => b.default_policy(),
            Config::Guard => b.policy_text("guard.policy", "default allow;"),
            Config::Settings => b
                .default_policy()
                .settings_text(".harness9/settings.json", SETTINGS_JSON),
        };
        let engine = b
            .build()
            .unwrap_or_else(|e| panic!("the `{}` engine does not build: {e}", self.name()));
        for w in engine.warnings() {
            eprintln!("warning ({} engine): {}", self.name(), w.message);
        }
        engine
    }
}

#[derive(Debug, Default, Clone)]
struct Expect {
    at_least: Option<Action>,
    decision: Option<Action>,
    not: Option<Action>,
    min_risk: Option<Risk>,
    same_as: Option<usize>,
}

impl Expect {
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = self.at_least {
            parts.push(format!("at least {a}"));
        }
        if let Some(a) = self.decision {
            parts.push(format!("exactly {a}"));
        }
        if let Some(a) = self.not {
            parts.push(format!("not {a}"));
        }
        if let Some(r) = self.min_risk {
            parts.push(format!("risk >= {r} if ask"));
        }
        if let Some(v) = self.same_as {
            parts.push(format!("same action as variant {v}"));
        }
        parts.join(", ")
    }
}

#[derive(Debug, Clone)]
struct Case {
    line: usize,
    finding: usize,
    variant: usize,
    config: Config,
    call: ToolCall,
    expect: Expect,
    note: String,
}

impl Case {
    fn id(&self) -> String {
        format!("{}.{}", self.finding, self.variant)
    }

    /// The call as a person reads it, shortened when very long (the generated ones).
    fn label(&self) -> String {
        let full = match (self.call.name.as_str(), self.call.primary_arg()) {
            ("bash", Some(cmd)) => format!("bash: {cmd:?}"),
            _ => format!(
                "{}({})",
                self.call.name,
                Value::Object(self.call.arguments.clone())
            ),
        };
        const MAX: usize = 240;
        if full.chars().count() <= MAX {
            return full;
        }
        let head: String = full.chars().take(MAX).collect();
        format!("{head}… ({} characters)", full.chars().count())
    }
}

fn action_field(m: &Map<String, Value>, key: &str) -> Result<Option<Action>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Action::parse(s)
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be allow, ask or deny, not {s:?}")),
        Some(v) => Err(format!("`{key}` must be a string, not {v}")),
    }
}

fn index_field(m: &Map<String, Value>, key: &str) -> Result<Option<usize>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| format!("`{key}` must be a non-negative integer, not {v}")),
    }
}

fn generate(g: &Value) -> Result<String, String> {
    let Value::Object(g) = g else {
        return Err("`generate` must be an object".into());
    };
    if let Some(k) = g
        .keys()
        .find(|k| !["head", "item", "count", "tail"].contains(&k.as_str()))
    {
        return Err(format!("unknown field `generate.{k}`"));
    }
    let text = |k: &str| match g.get(k) {
        None => Ok(""),
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(v) => Err(format!("`generate.{k}` must be a string, not {v}")),
    };
    let (head, item, tail) = (text("head")?, text("item")?, text("tail")?);
    let count = index_field(g, "count")?.ok_or("`generate.count` is missing")?;
    if item.is_empty() || count == 0 {
        return Err("`generate` needs a non-empty `item` and a `count` above 0".into());
    }
    let mut out = String::from(head);
    for i in 0..count {
        out.push_str(&item.replace("{i}", &i.to_string()));
    }
    out.push_str(tail);
    Ok(out)
}

fn parse_case(line: usize, text: &str) -> Result<Case, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(m) = v else {
        return Err("a case must be a JSON object".into());
    };
    const KNOWN: [&str; 12] = [
        "finding", "variant", "config", "command", "call", "generate", "at_least", "decision",
        "not", "min_risk", "same_as", "note",
    ];
    if let Some(k) = m.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(format!("unknown field `{k}`"));
    }
    let finding = index_field(&m, "finding")?.ok_or("missing `finding`")?;
    if !(1..=FINDINGS).contains(&finding) {
        return Err(format!("`finding` {finding} is not in 1..={FINDINGS}"));
    }
    let variant = index_field(&m, "variant")?.ok_or("missing `variant`")?;
    let config = match m.get("config") {
        Some(Value::String(s)) => Config::parse(s)
            .ok_or_else(|| format!("`config` must be default, guard or settings, not {s:?}"))?,
        _ => return Err("missing `config` (a string)".into()),
    };
    let call = match (m.get("command"), m.get("call"), m.get("generate")) {
        (Some(Value::String(cmd)), None, None) => ToolCall::primary("bash", cmd.as_str()),
        (Some(v), None, None) => return Err(format!("`command` must be a string, not {v}")),
        (None, Some(call), None) => serde_json::from_value(call.clone())
            .map_err(|e| format!("`call` is not a tool call: {e}"))?,
        (None, None, Some(g)) => ToolCall::primary("bash", generate(g)?),
        (None, None, None) => return Err("missing `command`, `call` or `generate`".into()),
        _ => return Err("give one of `command`, `call` and `generate`".into()),
    };
    let min_risk = match m.get("min_risk") {
        None => None,
        Some(Value::String(s)) => Some(
            Risk::parse(s)
                .ok_or_else(|| format!("`min_risk` must be low, medium or high, not {s:?}"))?,
        ),
        Some(v) => return Err(format!("`min_risk` must be a string, not {v}")),
    };
    let expect = Expect {
        at_least: action_field(&m, "at_least")?,
        decision: action_field(&m, "decision")?,
        not: action_field(&m, "not")?,
        min_risk,
        same_as: index_field(&m, "same_as")?,
    };
    if expect.at_least.is_none()
        && expect.decision.is_none()
        && expect.not.is_none()
        && expect.same_as.is_none()
    {
        return Err("no expectation: give `at_least`, `decision`, `not` or `same_as`".into());
    }
    if expect.same_as == Some(variant) {
        return Err("`same_as` names the case itself".into());
    }
    let note = match m.get("note") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => return Err("missing `note`: say why the case expects what it does".into()),
    };
    Ok(Case {
        line,
        finding,
        variant,
        config,
        call,
        expect,
        note,
    })
}

/// Every case, in file order; panics listing every malformed line.
fn load_cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES_FILE);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_case(i + 1, line) {
            Ok(c) => cases.push(c),
            Err(e) => errors.push(format!("{CASES_FILE}:{}: {e}", i + 1)),
        }
    }
    let mut seen = BTreeMap::new();
    for c in &cases {
        if let Some(first) = seen.insert((c.finding, c.variant), c.line) {
            errors.push(format!(
                "{CASES_FILE}:{}: case {} again (first on line {first})",
                c.line,
                c.id()
            ));
        }
    }
    for c in &cases {
        if let Some(v) = c.expect.same_as {
            if !seen.contains_key(&(c.finding, v)) {
                errors.push(format!(
                    "{CASES_FILE}:{}: `same_as` {v}: finding {} has no variant {v}",
                    c.line, c.finding
                ));
            }
        }
    }
    assert!(
        errors.is_empty(),
        "malformed audit cases:\n{}",
        errors.join("\n")
    );
    cases
}

/// What one case got: the decision and the time it took, or nothing before it was abandoned.
struct Outcome {
    got: Option<(Decision, Duration)>,
}

/// A decision still running after this long (wall clock) is abandoned: it hangs.
const ABANDON_AFTER: Duration = Duration::from_secs(10);

/// The processor time the calling thread has used, where Linux tells it
/// (`/proc/thread-self/stat`, in ticks of 10 ms): unlike the wall clock it does not grow when
/// other work (another test, an abandoned decision) competes for the processors.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// Decides every case, each in its own thread so a decision that hangs is abandoned after
/// [`ABANDON_AFTER`] instead of stopping the test. The time of a decision is the processor
/// time of its thread where the system tells it, else the wall clock.
fn run(cases: &[Case]) -> Vec<Outcome> {
    let mut engines: BTreeMap<Config, Arc<Engine>> = BTreeMap::new();
    cases
        .iter()
        .map(|c| {
            let engine = engines
                .entry(c.config)
                .or_insert_with(|| Arc::new(c.config.engine()))
                .clone();
            let call = c.call.clone();
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let (wall, cpu) = (Instant::now(), thread_cpu_time());
                let d = engine.decide(&call);
                let took = match (cpu, thread_cpu_time()) {
                    (Some(a), Some(b)) => b.saturating_sub(a),
                    _ => wall.elapsed(),
                };
                let _ = tx.send((d, took));
            });
            Outcome {
                got: rx.recv_timeout(ABANDON_AFTER).ok(),
            }
        })
        .collect()
}

/// Why the outcome does not meet the case, if it does not.
fn mismatch(
    case: &Case,
    outcome: &Outcome,
    all: &BTreeMap<(usize, usize), Action>,
) -> Option<String> {
    let Some((got, took)) = &outcome.got else {
        return Some(format!("no decision within {ABANDON_AFTER:?} (abandoned)"));
    };
    let mut why = Vec::new();
    let e = &case.expect;
    if let Some(a) = e.at_least {
        if got.action < a {
            why.push(format!("{} is less strict than {a}", got.action));
        }
    }
    if let Some(a) = e.decision {
        if got.action != a {
            why.push(format!("{} is not {a}", got.action));
        }
    }
    if let Some(a) = e.not {
        if got.action == a {
            why.push(format!("{a} is excluded"));
        }
    }
    if let Some(r) = e.min_risk {
        if got.action == Action::Ask && got.risk < r {
            why.push(format!("risk {} is below {r}", got.risk));
        }
    }
    if let Some(v) = e.same_as {
        match all.get(&(case.finding, v)) {
            Some(other) if *other == got.action => {}
            Some(other) => why.push(format!("variant {v} got {other}, this one {}", got.action)),
            None => why.push(format!("variant {v} got no decision")),
        }
    }
    if *took > TIME_LIMIT {
        why.push(format!("took {took:?}, more than {TIME_LIMIT:?}"));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The got-line of a report.
fn got_text(outcome: &Outcome) -> String {
    match &outcome.got {
        Some((d, took)) => format!(
            "{}, risk {}  rule {}: {}  ({} ms)",
            d.action,
            d.risk,
            d.rule,
            d.reason,
            took.as_millis()
        ),
        None => format!("nothing within {ABANDON_AFTER:?} (abandoned)"),
    }
}

/// The generated reason of a known gap (`got allow (readonly.policy:11)`).
fn gap_reason(outcome: &Outcome) -> String {
    match &outcome.got {
        Some((d, took)) if *took > TIME_LIMIT => {
            format!(
                "got {} ({}) after {} ms",
                d.action,
                d.rule,
                took.as_millis()
            )
        }
        Some((d, _)) => format!("got {} {} ({})", d.action, d.risk, d.rule),
        None => format!("got no decision within {ABANDON_AFTER:?}"),
    }
}

/// `tests/audit/known-gaps.txt`: its header (the comment lines before the first entry) and its
/// entries with their comments, in file order.
struct Gaps {
    header: Vec<String>,
    entries: Vec<(String, Option<String>)>,
}

fn gaps_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(GAPS_FILE)
}

fn load_gaps() -> Gaps {
    let path = gaps_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && bless() => String::new(),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let mut header = Vec::new();
    let mut entries: Vec<(String, Option<String>)> = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            if entries.is_empty() {
                header.push(line.to_string());
            }
            continue;
        }
        let (id, comment) = match t.split_once('#') {
            Some((id, c)) => (id.trim(), Some(c.trim().to_string())),
            None => (t, None),
        };
        let well_formed = id
            .split_once('.')
            .is_some_and(|(f, v)| f.parse::<usize>().is_ok() && v.parse::<usize>().is_ok());
        if !well_formed {
            errors.push(format!(
                "{GAPS_FILE}:{}: `{id}` is not `finding.variant`",
                i + 1
            ));
        } else if entries.iter().any(|(e, _)| e == id) {
            errors.push(format!("{GAPS_FILE}:{}: `{id}` is listed twice", i + 1));
        } else {
            entries.push((id.to_string(), comment));
        }
    }
    // Blank lines between the header and the first entry belong to neither.
    while header.last().is_some_and(|l| l.trim().is_empty()) {
        header.pop();
    }
    assert!(
        errors.is_empty() || bless(),
        "malformed {GAPS_FILE}:\n{}",
        errors.join("\n")
    );
    Gaps { header, entries }
}

fn bless() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

const DEFAULT_HEADER: &str = "\
# Cases of tests/audit/security-review-1.jsonl that fail today (`finding.variant`, a line,
# with an optional `# reason`). tests/audit.rs fails when a case not listed here fails and when
# a listed case passes, so this list can only shrink. Regenerate it from the current results:
#     HARNESS9_AUDIT_BLESS=1 cargo test --test audit";

/// Rewrites the known gaps from `failing` (case id, generated reason), keeping the header and
/// the hand-written reasons of entries that stay.
fn write_gaps(old: &Gaps, failing: &[(String, String)]) {
    let mut out = String::new();
    if old.header.iter().all(|l| l.trim().is_empty()) {
        out.push_str(DEFAULT_HEADER);
        out.push('\n');
    } else {
        for l in &old.header {
            out.push_str(l);
            out.push('\n');
        }
    }
    out.push('\n');
    let width = failing.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    for (id, generated) in failing {
        let kept = old
            .entries
            .iter()
            .find(|(e, _)| e == id)
            .and_then(|(_, c)| c.clone())
            .filter(|c| !c.is_empty() && !c.starts_with("got "));
        let reason = kept.unwrap_or_else(|| generated.clone());
        writeln!(out, "{id:<width$}  # {reason}").expect("writing to a String");
    }
    let path = gaps_path();
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

#[test]
fn every_finding_of_the_review_has_a_case() {
    let cases = load_cases();
    let mut variants: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for c in &cases {
        variants.entry(c.finding).or_default().insert(c.variant);
    }
    let missing: Vec<String> = (1..=FINDINGS)
        .filter(|f| !variants.contains_key(f))
        .map(|f| f.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "findings of the review without a case in {CASES_FILE}: {}",
        missing.join(", ")
    );
    // Variants are numbered 0, 1, 2, … without holes.
    let holes: Vec<String> = variants
        .iter()
        .filter(|(_, vs)| vs.iter().copied().ne(0..vs.len()))
        .map(|(f, vs)| format!("finding {f}: variants {vs:?}"))
        .collect();
    assert!(
        holes.is_empty(),
        "variants must be numbered from 0 without holes:\n{}",
        holes.join("\n")
    );
}

#[test]
fn the_review_is_fixed_or_a_known_gap() {
    let cases = load_cases();
    let outcomes = run(&cases);
    let actions: BTreeMap<(usize, usize), Action> = cases
        .iter()
        .zip(&outcomes)
        .filter_map(|(c, o)| {
            o.got
                .as_ref()
                .map(|(d, _)| ((c.finding, c.variant), d.action))
        })
        .collect();

    let gaps = load_gaps();
    let listed: BTreeSet<&str> = gaps.entries.iter().map(|(id, _)| id.as_str()).collect();
    let ids: BTreeSet<String> = cases.iter().map(Case::id).collect();

    let mut regressions = Vec::new();
    let mut fixed = Vec::new();
    let mut failing = Vec::new();
    let verbose = std::env::var_os(VERBOSE_VAR).is_some_and(|v| !v.is_empty() && v != "0");
    for (c, o) in cases.iter().zip(&outcomes) {
        let id = c.id();
        let result = mismatch(c, o, &actions);
        if verbose {
            eprintln!(
                "{id:<6} {:<4} [{}] {}\n       got {}",
                if result.is_some() { "FAIL" } else { "ok" },
                c.config.name(),
                c.label(),
                got_text(o)
            );
        }
        match result {
            Some(why) => {
                failing.push((id.clone(), gap_reason(o)));
                if !listed.contains(id.as_str()) {
                    regressions.push(format!(
                        "{id} [{}] {CASES_FILE}:{}: {}\n    expected: {}  ({})\n    got:      {}\n    why:      {why}",
                        c.config.name(),
                        c.line,
                        c.label(),
                        c.expect.describe(),
                        c.note,
                        got_text(o),
                    ));
                }
            }
            None => {
                if listed.contains(id.as_str()) {
                    fixed.push(format!(
                        "{id}: fixed — remove {id} from {GAPS_FILE}\n    {}  got {}",
                        c.label(),
                        got_text(o)
                    ));
                }
            }
        }
    }
    let stale: Vec<String> = gaps
        .entries
        .iter()
        .filter(|(id, _)| !ids.contains(id))
        .map(|(id, _)| format!("{id}: no such case — remove it from {GAPS_FILE}"))
        .collect();

    let summary = format!(
        "{} cases, {} fail, {} listed as known gaps",
        cases.len(),
        failing.len(),
        gaps.entries.len()
    );
    if bless() {
        write_gaps(&gaps, &failing);
        eprintln!(
            "{BLESS_VAR}: wrote {GAPS_FILE} with {} known gaps ({summary}; {} newly failing, {} fixed, {} stale)",
            failing.len(),
            regressions.len(),
            fixed.len(),
            stale.len()
        );
        return;
    }
    if regressions.is_empty() && fixed.is_empty() && stale.is_empty() {
        eprintln!("audit: {summary}; no regression, nothing newly fixed");
        return;
    }
    let mut msg = format!("audit: {summary}\n");
    if !regressions.is_empty() {
        writeln!(
            msg,
            "\n{} regression(s): cases not in {GAPS_FILE} that fail:\n\n{}",
            regressions.len(),
            regressions.join("\n\n")
        )
        .expect("writing to a String");
    }
    if !fixed.is_empty() {
        writeln!(
            msg,
            "\n{} case(s) in {GAPS_FILE} now pass:\n\n{}",
            fixed.len(),
            fixed.join("\n")
        )
        .expect("writing to a String");
    }
    if !stale.is_empty() {
        writeln!(msg, "\n{}", stale.join("\n")).expect("writing to a String");
    }
    writeln!(
        msg,
        "\n(after checking the list above, `{BLESS_VAR}=1 cargo test --test audit` rewrites {GAPS_FILE})"
    )
    .expect("writing to a String");
    panic!("{msg}");
}
