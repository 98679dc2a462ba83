//! The second outside security review (`security-review-2`, 82 findings in 19 classes), kept in
//! the repository as it was delivered: `tests/audit/security-review-2.jsonl`, one finding a
//! line (`id`, `setup`, `tool`, `arguments`, `got`, `want`, `class`, `why`).
//!
//! Each finding is decided in the review's own conditions, rebuilt in a temporary folder: a
//! home holding fake credentials and start-up files, the project `code/proj` (a git repository
//! with `.env` and `src/main.rs`) and a sibling `code/other`. The review's `/home/h9rev` is
//! that home. Setups: `default` (the shipped policy, as `harness9 check` builds it), `guard`
//! (a policy of `default allow;` only) and `auto` (the shipped policy in auto-approve mode).
//!
//! A finding holds when the decision is the wanted one or a stricter one (`ask` wanted: ask or
//! deny), and, for a false alarm (`allow` wanted), exactly allow, except where [`DISPUTED`]
//! says why the review's allow cannot be proven.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use harness9::{Action, Engine, Mode, PathContext, ToolCall};
use serde_json::Value;

const CASES_FILE: &str = "tests/audit/security-review-2.jsonl";
const FINDINGS: usize = 82;
const REVIEW_HOME: &str = "/home/h9rev";

/// Findings whose wanted allow is not a proof, with the decision they get instead and why.
const DISPUTED: &[(&str, Action, &str)] = &[(
    "F080",
    Action::Ask,
    "xargs splits what `find` prints at blanks and quotes: a file named `a /etc/passwd b.rs` in \
     the project makes `grep` read `/etc/passwd`. `find … -print0 | xargs -0 …` is the form \
     whose file names are the listed ones.",
)];

/// The review's home, project and sibling folder, with the files its conditions name.
fn fixture(root: &Path) {
    let files: &[(&str, &str)] = &[
        (".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n"),
        (".ssh/id_rsa.pub", "ssh-ed25519 AAAA fake\n"),
        (".aws/credentials", "[default]\naws_access_key_id=fake\n"),
        (".kube/config", "apiVersion: v1\n"),
        (".docker/config.json", "{}\n"),
        (".git-credentials", "https://u:fake@example.com\n"),
        (".config/gh/hosts.yml", "github.com:\n  oauth_token: fake\n"),
        (".npmrc", "//registry.npmjs.org/:_authToken=fake\n"),
        (".pypirc", "[pypi]\npassword=fake\n"),
        (".bashrc", "#\n"),
        (".profile", "#\n"),
        ("code/proj/.env", "API_KEY=fake\n"),
        ("code/proj/src/main.rs", "fn main() {}\n"),
        ("code/proj/.git/HEAD", "ref: refs/heads/main\n"),
        ("code/proj/.git/config", "[core]\n"),
        ("code/other/README.md", "other\n"),
    ];
    for (path, text) in files {
        let at = root.join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
}

/// The review's `/home/h9rev` in a value, replaced by the fixture's home.
fn rehome(v: &Value, home: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(REVIEW_HOME, home)),
        Value::Array(items) => Value::Array(items.iter().map(|i| rehome(i, home)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), rehome(v, home)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn engine(ctx: &PathContext, guard: bool) -> Engine {
    let b = harness9::hooks::guard_project(
        Engine::builder().context(ctx.clone()),
        &ctx.cwd,
        ctx.home.as_deref(),
    );
    let b = if guard {
        b.policy_text("guard.policy", "default allow;")
    } else {
        b.default_policy()
    };
    b.build().expect("the review's engine builds")
}

fn strictness(a: Action) -> u8 {
    match a {
        Action::Allow => 0,
        Action::Sandbox => 1,
        Action::Ask => 2,
        Action::Deny => 3,
    }
}

#[test]
fn every_finding_of_the_second_review_holds_in_its_setup() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h9rev");
    fixture(&home);
    let home_text = home.to_string_lossy().to_string();
    let ctx = PathContext::new(home.join("code/proj"), Some(home.clone()));
    let default = engine(&ctx, false);
    let guard = engine(&ctx, true);

    let text = fs::read_to_string(CASES_FILE).unwrap();
    let mut failures = Vec::new();
    let mut seen = 0;
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{CASES_FILE}:{}: {e}", i + 1));
        seen += 1;
        let id = f["id"].as_str().unwrap();
        let arguments = rehome(&f["arguments"], &home_text);
        let call = ToolCall {
            id: None,
            name: f["tool"].as_str().unwrap().to_string(),
            arguments: arguments.as_object().unwrap().clone(),
        };
        let d = match f["setup"].as_str().unwrap() {
            "default" => default.decide_in_mode(&call, Mode::Default),
            "guard" => guard.decide_in_mode(&call, Mode::Default),
            "auto" => default.decide_in_mode(&call, Mode::AutoApprove),
            other => panic!("{id}: unknown setup {other}"),
        };
        let want = Action::parse(f["want"].as_str().unwrap()).unwrap();
        let ok = match DISPUTED.iter().find(|(d, _, _)| *d == id) {
            Some((_, instead, _)) => d.action == *instead,
            None if want == Action::Allow => d.action == Action::Allow,
            None => strictness(d.action) >= strictness(want),
        };
        if !ok {
            failures.push(format!(
                "{id} ({}, {}): {}\n    want {want}, got {} ({}): {}\n    why: {}",
                f["setup"].as_str().unwrap(),
                f["class"].as_str().unwrap(),
                f["arguments"],
                d.action,
                d.risk,
                d.reason,
                f["why"].as_str().unwrap_or("")
            ));
        }
    }
    assert_eq!(seen, FINDINGS, "the review has {FINDINGS} findings");
    assert!(
        failures.is_empty(),
        "{} of {FINDINGS} findings do not hold:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
