//! The public corpus of issue 3 (`tests/corpus/*.jsonl`): dangerous spellings, harmless
//! look-alikes and sensitive paths, each with the decision a careful user expects from the
//! default configuration of `harness9 check` (the shipped default policy, the built-in rules and
//! the hard protections).
//!
//! One case per line:
//!
//! ```json
//! {"command": "rm -r -f build", "decision": "ask", "min_risk": "high", "note": "why"}
//! {"call": {"name": "read_file", "arguments": {"path": "~/.ssh/config"}}, "decision": "deny", "note": "why"}
//! ```
//!
//! `"decision": "sandbox"` is a call the default policy runs contained (see `docs/sandbox.md`):
//! the corpus is decided as where the sandbox is available, and every such case is checked to
//! be an ask where it is not (see [`every_contained_case_is_asked_where_the_sandbox_is_not`]).
//! `everyday.jsonl` is a held-out set of everyday agent calls, and
//! [`the_share_of_everyday_calls_answered_without_a_person_and_of_harmful_calls_stopped`]
//! prints the figures of issue 30.
//!
//! `min_risk` and `max_risk` are optional bounds (low < medium < high); `"unknown": true` says
//! the analysis cannot know what the call does whole, so the decision must say so and every
//! mode asks (see [`harness9::Decision::unknown`]). Every case is also
//! decided in `auto-approve` mode and under a guard policy (`default allow;`), where the
//! expected decision follows from the case's (see [`expected_in_auto_approve`] and
//! [`expected_in_guard`]); `in_guard` overrides the latter where it differs. `{HOME}` in a command
//! or an argument stands for the fixed home folder the runner uses (`${HOME}`, the shell's own
//! spelling, is left alone). Every failing case is reported at once, with its file and line.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use harness9::sandbox::Support;
use harness9::{Action, Decision, Engine, Mode, PathContext, Risk, ToolCall};
use serde_json::{Map, Value};

/// The home folder of the corpus: `~`, `$HOME` and `{HOME}` all mean this folder.
const HOME: &str = "/home/corpus";
/// The project folder the library engine works in (it need not exist).
const PROJECT: &str = "/work/proj";
/// The corpus must not shrink below this.
const MIN_CASES: usize = 5800;

/// One corpus line.
struct Case {
    file: String,
    line: usize,
    call: ToolCall,
    decision: Action,
    min_risk: Option<Risk>,
    max_risk: Option<Risk>,
    note: String,
    /// The decision under a guard policy when it is not the one the default policy's implies
    /// (see [`expected_in_guard`]).
    in_guard: Option<Action>,
    /// The call is one the analysis cannot read whole: answered unknown, asked in every mode.
    unknown: bool,
}

impl Case {
    /// `tests/corpus/dangerous.jsonl:12`.
    fn location(&self) -> String {
        format!("tests/corpus/{}:{}", self.file, self.line)
    }

    /// The call as a person reads it: the command for bash, the JSON call otherwise.
    fn label(&self) -> String {
        match (self.call.name.as_str(), self.call.primary_arg()) {
            ("bash", Some(cmd)) => format!("bash: {cmd:?}"),
            _ => format!(
                "{}({})",
                self.call.name,
                Value::Object(self.call.arguments.clone())
            ),
        }
    }

    fn expected(&self) -> String {
        let mut s = self.decision.to_string();
        match (self.min_risk, self.max_risk) {
            (Some(lo), Some(hi)) if lo == hi => write!(s, ", risk {lo}").unwrap(),
            (Some(lo), Some(hi)) => write!(s, ", risk {lo}..={hi}").unwrap(),
            (Some(lo), None) => write!(s, ", risk >= {lo}").unwrap(),
            (None, Some(hi)) => write!(s, ", risk <= {hi}").unwrap(),
            (None, None) => {}
        }
        if self.unknown {
            s.push_str(", unknown");
        }
        s
    }

    /// The case as it is decided where the sandbox is as `support` says: a contained call is
    /// asked where it cannot be contained (the risk bounds stay).
    fn where_(&self, support: &Support) -> Case {
        let decision = match self.decision {
            Action::Sandbox if !support.is_available() => Action::Ask,
            a => a,
        };
        Case {
            file: self.file.clone(),
            line: self.line,
            call: self.call.clone(),
            decision,
            min_risk: self.min_risk,
            max_risk: self.max_risk,
            note: self.note.clone(),
            in_guard: self.in_guard,
            unknown: self.unknown,
        }
    }

    /// Why the decision does not meet the case, if it does not.
    fn mismatch(&self, got: &Decision) -> Option<String> {
        let decision_ok = got.action == self.decision && (!self.unknown || got.unknown);
        let min_ok = self.min_risk.is_none_or(|lo| got.risk >= lo);
        let max_ok = self.max_risk.is_none_or(|hi| got.risk <= hi);
        if decision_ok && min_ok && max_ok {
            return None;
        }
        Some(format!(
            "{}: {}\n    expected: {}  ({})\n    got:      {}, risk {}  rule {}: {}",
            self.location(),
            self.label(),
            self.expected(),
            self.note,
            got.action,
            got.risk,
            got.rule,
            got.reason
        ))
    }
}

/// Replaces the `{HOME}` placeholder, but not the shell's own `${HOME}`.
fn expand_home(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("{HOME}") {
        let (before, after) = rest.split_at(i);
        out.push_str(before);
        if before.ends_with('$') {
            out.push_str("{HOME}");
        } else {
            out.push_str(HOME);
        }
        rest = &after["{HOME}".len()..];
    }
    out.push_str(rest);
    out
}

fn expand_value(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(expand_home(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(expand_value).collect()),
        Value::Object(m) => {
            Value::Object(m.into_iter().map(|(k, v)| (k, expand_value(v))).collect())
        }
        other => other,
    }
}

fn risk_field(m: &Map<String, Value>, key: &str) -> Result<Option<Risk>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Risk::parse(s)
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be low, medium or high, not {s:?}")),
        Some(v) => Err(format!("`{key}` must be a string, not {v}")),
    }
}

fn parse_case(file: &str, line: usize, text: &str) -> Result<Case, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(m) = v else {
        return Err("a case must be a JSON object".into());
    };
    if let Some(k) = m.keys().find(|k| {
        ![
            "command", "call", "decision", "min_risk", "max_risk", "note", "in_guard", "unknown",
        ]
        .contains(&k.as_str())
    }) {
        return Err(format!("unknown field `{k}`"));
    }
    let call = match (m.get("command"), m.get("call")) {
        (Some(Value::String(cmd)), None) => ToolCall::primary("bash", expand_home(cmd)),
        (None, Some(call)) => serde_json::from_value(expand_value(call.clone()))
            .map_err(|e| format!("`call` is not a tool call: {e}"))?,
        (Some(_), Some(_)) => return Err("give `command` or `call`, not both".into()),
        (Some(v), None) => return Err(format!("`command` must be a string, not {v}")),
        (None, None) => return Err("missing `command` or `call`".into()),
    };
    let decision = match m.get("decision") {
        Some(Value::String(s)) => Action::parse(s)
            .ok_or_else(|| format!("`decision` must be allow, sandbox, ask or deny, not {s:?}"))?,
        _ => return Err("missing `decision` (a string)".into()),
    };
    let min_risk = risk_field(&m, "min_risk")?;
    let max_risk = risk_field(&m, "max_risk")?;
    if let (Some(lo), Some(hi)) = (min_risk, max_risk) {
        if lo > hi {
            return Err(format!("min_risk {lo} is above max_risk {hi}"));
        }
    }
    let note = match m.get("note") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => return Err("missing `note`: say why the case expects what it does".into()),
    };
    let in_guard = match m.get("in_guard") {
        None => None,
        Some(Value::String(s)) => Some(
            Action::parse(s)
                .ok_or_else(|| format!("`in_guard` must be allow, ask or deny, not {s:?}"))?,
        ),
        Some(v) => return Err(format!("`in_guard` must be a string, not {v}")),
    };
    let unknown = match m.get("unknown") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(format!("`unknown` must be true or false, not {v}")),
    };
    if unknown && decision != Action::Ask {
        return Err("an unknown call is asked: `decision` must be ask".into());
    }
    Ok(Case {
        file: file.to_string(),
        line,
        call,
        decision,
        min_risk,
        max_risk,
        note,
        in_guard,
        unknown,
    })
}

/// Every case of every `tests/corpus/*.jsonl`, in file and line order; panics listing every
/// malformed line.
fn load_cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match parse_case(&name, i + 1, line) {
                Ok(c) => cases.push(c),
                Err(e) => errors.push(format!("tests/corpus/{name}:{}: {e}", i + 1)),
            }
        }
    }
    assert!(
        errors.is_empty(),
        "malformed corpus lines:\n{}",
        errors.join("\n")
    );
    assert!(
        cases.len() >= MIN_CASES,
        "the corpus has {} cases; it must keep at least {MIN_CASES}",
        cases.len()
    );
    cases
}

/// The engine `harness9 check` builds with no flags, in `cwd` with the corpus home: the
/// shipped default policy, and the project's and the agents' settings guarded as `check` and
/// the hook guard them.
fn default_engine(cwd: &Path) -> Engine {
    default_engine_with(cwd, Support::Available)
}

/// The same, answering as a caller with `support` is answered.
fn default_engine_with(cwd: &Path, support: Support) -> Engine {
    let home = PathBuf::from(HOME);
    harness9::hooks::guard_project(
        Engine::builder()
            .context(PathContext::new(cwd, Some(home.clone())))
            .sandbox(support),
        cwd,
        Some(&home),
    )
    .default_policy()
    .build()
    .expect("the default policy loads")
}

/// Counts per file, then every failure; panics if there is any.
fn report(what: &str, cases: &[Case], failures: &[(usize, String)]) {
    let mut per_file: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in cases {
        per_file.entry(&c.file).or_default().0 += 1;
    }
    for (i, _) in failures {
        per_file.entry(&cases[*i].file).or_default().1 += 1;
    }
    let summary: Vec<String> = per_file
        .iter()
        .map(|(f, (n, bad))| format!("{f}: {bad} of {n} fail"))
        .collect();
    if failures.is_empty() {
        eprintln!(
            "{what}: all {} cases pass ({})",
            cases.len(),
            summary.join("; ")
        );
        return;
    }
    let list: Vec<&str> = failures.iter().map(|(_, s)| s.as_str()).collect();
    panic!(
        "{what}: {} of {} corpus cases fail ({})\n\n{}\n",
        failures.len(),
        cases.len(),
        summary.join("; "),
        list.join("\n\n")
    );
}

#[test]
fn every_corpus_case_gets_its_expected_decision() {
    let cases = load_cases();
    let engine = default_engine(Path::new(PROJECT));
    let failures: Vec<(usize, String)> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.mismatch(&engine.decide(&c.call)).map(|m| (i, m)))
        .collect();
    report("library", &cases, &failures);
}

/// The built binary, run as an agent's hook would run it (`check --batch -`, `HOME` set, the
/// project as its working folder), decides every case as the corpus expects and exactly as the
/// library does.
/// A hook process builds its engine for its call's one tool, leaving out the shipped rules of
/// the others: every corpus case, in every mode, is decided exactly as by the whole engine
/// (with the agents' shipped tools policy too, as the hook has it).
#[test]
fn an_engine_for_one_tool_decides_every_corpus_case_like_the_whole_engine() {
    let cases = load_cases();
    let builder = || {
        Engine::builder()
            .context(PathContext::new(PROJECT, Some(PathBuf::from(HOME))))
            .default_policy()
            .default_embedded_policy("claude-code.policy")
    };
    let whole = builder().build().expect("the default policy loads");
    let mut for_tool: BTreeMap<String, Engine> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let one = for_tool.entry(c.call.name.clone()).or_insert_with(|| {
            builder()
                .for_tool(c.call.name.clone())
                .build()
                .expect("the default policy loads")
        });
        for mode in [Mode::Default, Mode::AutoApprove, Mode::ReadOnly] {
            let (a, b) = (
                whole.decide_in_mode(&c.call, mode),
                one.decide_in_mode(&c.call, mode),
            );
            if (a.action, a.risk, &a.reason, &a.rule) != (b.action, b.risk, &b.reason, &b.rule) {
                failures.push((i, format!("{mode:?}: whole {a:?}, for the tool {b:?}")));
            }
        }
    }
    assert!(for_tool.len() >= 3, "tools: {:?}", for_tool.keys());
    report("for one tool", &cases, &failures);
}

#[test]
fn the_binary_decides_every_corpus_case_like_the_library() {
    let cases = load_cases();
    // Not in the temporary folder: there, `../x` would be a temporary file, not a path outside
    // the project as it is for the library's project.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut input = String::new();
    for (i, c) in cases.iter().enumerate() {
        let line = serde_json::json!({"id": i, "name": c.call.name, "arguments": c.call.arguments});
        writeln!(input, "{line}").unwrap();
    }
    // The binary looks whether the sandbox is available here as this process does.
    let support = harness9::sandbox::support();
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
        .args(["check", "--batch", "-"])
        .current_dir(dir.path())
        .env("HOME", HOME)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // Written from a thread: the binary answers while it reads, and a full stdout pipe would
    // otherwise block both sides.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().expect("the batch is written");
    assert!(
        out.status.success(),
        "harness9 check --batch failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );

    let mut got: Vec<Option<Decision>> = vec![None; cases.len()];
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("the binary printed invalid JSON ({e}): {line}"));
        let id = v["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("a batch answer without its id: {line}"))
            as usize;
        let d: Decision = serde_json::from_value(v.clone())
            .unwrap_or_else(|e| panic!("not a decision ({e}): {line}"));
        got[id] = Some(d);
    }

    let cwd = dir.path().canonicalize().unwrap();
    let engine = default_engine_with(&cwd, support.clone());
    eprintln!("binary: {support}");
    let mut failures = Vec::new();
    for (i, (c, d)) in cases.iter().zip(&got).enumerate() {
        let Some(d) = d else {
            failures.push((
                i,
                format!(
                    "{}: {}\n    no answer from the binary",
                    c.location(),
                    c.label()
                ),
            ));
            continue;
        };
        let lib = engine.decide(&c.call);
        if (lib.action, lib.risk, &lib.rule) != (d.action, d.risk, &d.rule) {
            failures.push((
                i,
                format!(
                    "{}: {}\n    binary:  {}, risk {}  rule {}\n    library: {}, risk {}  rule {}",
                    c.location(),
                    c.label(),
                    d.action,
                    d.risk,
                    d.rule,
                    lib.action,
                    lib.risk,
                    lib.rule
                ),
            ));
        } else if let Some(m) = c.where_(&support).mismatch(d) {
            failures.push((i, m));
        }
    }
    report("binary", &cases, &failures);
}

/// What a case expects in `auto-approve` mode: asks of low and medium risk are approved, high
/// risk still asked. `None` when the case's risk bounds do not say which side it is on.
fn expected_in_auto_approve(c: &Case) -> Option<(Action, Option<Risk>)> {
    if c.unknown {
        return Some((Action::Ask, None));
    }
    match c.decision {
        // No mode runs a contained call free.
        Action::Sandbox => Some((Action::Sandbox, None)),
        Action::Ask if c.min_risk == Some(Risk::High) => Some((Action::Ask, Some(Risk::High))),
        Action::Ask if c.max_risk.is_some_and(|r| r <= Risk::Medium) => Some((Action::Allow, None)),
        Action::Ask => None,
        other => Some((other, None)),
    }
}

/// What a case expects under a guard policy (`default allow;`: the built-in rules and the
/// hard protections alone decide). Only built-in rules ask with medium or high risk, so a
/// low-risk ask of the default policy is an allow there and every other ask stays.
fn expected_in_guard(c: &Case) -> Option<(Action, Option<Risk>)> {
    if let Some(a) = c.in_guard {
        return Some((a, None));
    }
    if c.unknown {
        return Some((Action::Ask, None));
    }
    match c.decision {
        // The guard policy has no `sandbox` rule: what the default policy contains (it asks
        // nothing the built-in rules ask) is allowed there.
        Action::Sandbox => Some((Action::Allow, None)),
        Action::Ask if c.max_risk == Some(Risk::Low) => Some((Action::Allow, None)),
        Action::Ask if c.min_risk.is_some() => Some((Action::Ask, c.min_risk)),
        Action::Ask => None,
        other => Some((other, None)),
    }
}

fn check_against(
    cases: &[Case],
    expect: impl Fn(&Case) -> Option<(Action, Option<Risk>)>,
    decide: impl Fn(&ToolCall) -> Decision,
) -> Vec<(usize, String)> {
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let Some((action, min)) = expect(c) else {
            continue;
        };
        let got = decide(&c.call);
        if got.action != action || min.is_some_and(|m| got.risk < m) {
            failures.push((
                i,
                format!(
                    "{}: {}\n    expected: {}{}  ({})\n    got:      {}, risk {}  rule {}: {}",
                    c.location(),
                    c.label(),
                    action,
                    min.map(|m| format!(", risk >= {m}")).unwrap_or_default(),
                    c.note,
                    got.action,
                    got.risk,
                    got.rule,
                    got.reason
                ),
            ));
        }
    }
    failures
}

/// Auto-approve is a mode people can leave on: every harmful case is still asked with high
/// risk, every harmless one that the default policy asks about with low or medium risk is
/// approved.
#[test]
fn auto_approve_asks_the_harmful_cases_and_approves_the_everyday_ones() {
    let cases = load_cases();
    let engine = default_engine(Path::new(PROJECT));
    let failures = check_against(&cases, expected_in_auto_approve, |call| {
        let d = engine.decide_in_mode(call, Mode::AutoApprove);
        // An ask the mode approves about a line with contained parts runs contained: approved
        // all the same, with no one asked.
        if d.action == Action::Sandbox && engine.decide(call).action == Action::Ask {
            return Decision {
                action: Action::Allow,
                ..d
            };
        }
        d
    });
    report("auto-approve", &cases, &failures);
}

/// The guard use (`default allow;`, as a hook over another agent): the built-in rules alone
/// ask about every harmful case, and the harmless ones pass.
#[test]
fn a_guard_policy_asks_the_harmful_cases_and_allows_the_rest() {
    let cases = load_cases();
    let engine = Engine::builder()
        .context(PathContext::new(PROJECT, Some(PathBuf::from(HOME))))
        .policy_text("guard.policy", "default allow;")
        .build()
        .expect("the guard policy loads");
    let failures = check_against(&cases, expected_in_guard, |call| engine.decide(call));
    report("guard", &cases, &failures);
}

/// Where the sandbox is not available (another system, no bubblewrap, user namespaces off),
/// every call the default policy would contain is asked, saying why, at the case's risk; every
/// other case is decided as where it is.
#[test]
fn every_contained_case_is_asked_where_the_sandbox_is_not() {
    let cases = load_cases();
    let with = default_engine(Path::new(PROJECT));
    let without = default_engine_with(
        Path::new(PROJECT),
        Support::Unavailable("bubblewrap is not installed".into()),
    );
    let mut contained = 0;
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let (a, b) = (with.decide(&c.call), without.decide(&c.call));
        let ok = if a.action == Action::Sandbox {
            contained += 1;
            b.action == Action::Ask
                && b.risk == a.risk
                && b.unknown == a.unknown
                && b.rule == a.rule
                && b.reason.starts_with(
                    "the sandbox is not available here: bubblewrap is not installed; it would \
                     run contained",
                )
        } else {
            // An ask keeps the profile a mode would contain its line under: none here.
            let bare = |d: &Decision| Decision {
                profile: None,
                ..d.clone()
            };
            bare(&b) == bare(&a) && b.profile.is_none()
        };
        if !ok {
            failures.push((
                i,
                format!(
                    "{}: {}\n    with the sandbox:    {a:?}\n    without the sandbox: {b:?}",
                    c.location(),
                    c.label()
                ),
            ));
        } else if let Some(m) = c.where_(without.sandbox_support()).mismatch(&b) {
            failures.push((i, m));
        }
    }
    assert!(contained >= 90, "only {contained} cases are contained");
    report("without the sandbox", &cases, &failures);
}

/// Issue 30's figures: the share of the held-out everyday calls (`everyday.jsonl`) the default
/// mode answers without a person (allow, or run contained where the sandbox is available), and
/// the share of harmful calls (a deny, or an ask of medium or high risk, in the other files)
/// still asked or denied. Printed (`--nocapture`), and held to issue 30's targets.
#[test]
fn the_share_of_everyday_calls_answered_without_a_person_and_of_harmful_calls_stopped() {
    let cases = load_cases();
    let engine = default_engine(Path::new(PROJECT));
    let everyday: Vec<&Case> = cases.iter().filter(|c| c.file == EVERYDAY).collect();
    assert!(everyday.len() >= 90, "{} everyday calls", everyday.len());
    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut unasked = 0;
    let mut asked = Vec::new();
    for c in &everyday {
        let d = engine.decide(&c.call);
        let free = matches!(d.action, Action::Allow | Action::Sandbox);
        let kind = c.note.split(':').next().unwrap_or("other");
        let e = by_kind.entry(kind).or_default();
        e.1 += 1;
        if free {
            unasked += 1;
            e.0 += 1;
        } else {
            asked.push(format!("{}: {} ({})", c.location(), c.label(), d.reason));
        }
    }
    let harmful: Vec<&Case> = cases
        .iter()
        .filter(|c| c.file != EVERYDAY)
        .filter(|c| {
            c.decision == Action::Deny
                || (c.decision == Action::Ask && c.min_risk.is_some_and(|r| r >= Risk::Medium))
        })
        .collect();
    let let_through: Vec<String> = harmful
        .iter()
        .filter(|c| {
            let d = engine.decide(&c.call);
            !matches!(d.action, Action::Ask | Action::Deny)
        })
        .map(|c| format!("{}: {}", c.location(), c.label()))
        .collect();
    let share = |n: usize, of: usize| 100.0 * n as f64 / of as f64;
    let everyday_share = share(unasked, everyday.len());
    let stopped = harmful.len() - let_through.len();
    let harmful_share = share(stopped, harmful.len());
    eprintln!(
        "everyday calls answered without a person (allow or sandbox): {unasked} of {} = {everyday_share:.1}%",
        everyday.len()
    );
    for (kind, (n, of)) in &by_kind {
        eprintln!("    {kind}: {n} of {of}");
    }
    for a in &asked {
        eprintln!("    asked: {a}");
    }
    eprintln!(
        "harmful calls still asked or denied: {stopped} of {} = {harmful_share:.1}%",
        harmful.len()
    );
    assert!(
        let_through.is_empty(),
        "harmful calls not stopped:\n{}",
        let_through.join("\n")
    );
    // Edits by the file tools stay asked (the dialog is where a person sees new code); a
    // shell command that only changes files inside the project runs contained. Issue 30's
    // target holds with them; without them the share is held too, so it cannot fall unnoticed.
    let (edits_free, edits) = by_kind.get("edit").copied().unwrap_or_default();
    let rest_share = share(unasked - edits_free, everyday.len() - edits);
    eprintln!(
        "everyday calls but edits answered without a person: {} of {} = {rest_share:.1}%",
        unasked - edits_free,
        everyday.len() - edits
    );
    assert!(
        everyday_share >= 90.0,
        "only {everyday_share:.1}% of everyday calls are answered without a person"
    );
    assert!(
        rest_share >= 95.0,
        "only {rest_share:.1}% of everyday calls but edits are answered without a person"
    );
}

/// The held-out everyday calls.
const EVERYDAY: &str = "everyday.jsonl";
