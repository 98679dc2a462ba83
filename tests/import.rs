//! `harness9 import claude-code FILE`: Claude Code's permission rules as a policy file that
//! loads, lints cleanly, is formatted, and decides as Claude Code's rules meant.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use harness9::{Action, Engine, PathContext, ToolCall};
use serde_json::json;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness9"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A settings file with every kind of entry the issue lists.
const SETTINGS: &str = r#"{
  "model": "sonnet",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Bash(git diff:*)",
      "Bash(ls)",
      "Edit(src/**)",
      "Read(~/.zshrc)",
      "WebFetch(domain:example.com)",
      "WebSearch",
      "mcp__github__get_issue",
      "mcp__linear"
    ],
    "ask": ["Bash(git push:*)", "Write(//etc/hosts)"],
    "deny": ["Read(./secrets/**)", "Read(/.env)", "Bash(curl:*)", "Task(reviewer)"],
    "defaultMode": "acceptEdits"
  }
}"#;

/// Writes the settings, imports them, and returns the folder, the policy and stderr.
fn import() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    std::fs::write(dir.path().join(".claude/settings.json"), SETTINGS).unwrap();
    let o = run(
        dir.path(),
        &["import", "claude-code", ".claude/settings.json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    (dir, text(&o.stdout), text(&o.stderr))
}

#[test]
fn the_imported_policy_lints_cleanly_and_is_formatted() {
    let (dir, policy, _) = import();
    std::fs::write(dir.path().join("imported.policy"), &policy).unwrap();
    let o = run(dir.path(), &["lint", "imported.policy"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{policy}", text(&o.stdout));
    assert!(
        text(&o.stdout).starts_with("0 error(s), 0 warning(s)"),
        "{}",
        text(&o.stdout)
    );
    let o = run(dir.path(), &["fmt", "--check", "imported.policy"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
}

#[test]
fn deny_rules_come_first_then_ask_then_allow() {
    let (_, policy, _) = import();
    let first = |word: &str| {
        policy
            .lines()
            .position(|l| l.starts_with(word))
            .unwrap_or_else(|| panic!("no {word} rule in\n{policy}"))
    };
    let lines: Vec<&str> = policy.lines().collect();
    let last = |word: &str| lines.iter().rposition(|l| l.starts_with(word)).unwrap();
    assert!(
        last("deny ") < first("ask ") && last("ask ") < first("allow "),
        "{policy}"
    );
    assert!(
        policy.contains("deny > ask > allow"),
        "the header says why: {policy}"
    );
}

#[test]
fn rules_whose_meaning_changes_carry_a_comment_saying_how() {
    let (_, policy, _) = import();
    let comment_before = |rule: &str| {
        let lines: Vec<&str> = policy.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(rule))
            .unwrap_or_else(|| panic!("no `{rule}` in\n{policy}"));
        lines[at.saturating_sub(1)].starts_with('#')
    };
    assert!(
        comment_before("allow bash(prefix \"npm run test\")"),
        "{policy}"
    );
    assert!(
        comment_before("allow write_file(\"src/**\")"),
        "Edit covers two tools: {policy}"
    );
    assert!(
        comment_before("allow WebFetch(arg url host \"example.com\")"),
        "{policy}"
    );
    assert!(comment_before("allow mcp__linear__*"), "{policy}");
    assert!(
        comment_before("ask write_file(\"/etc/hosts\")"),
        "`//` is absolute: {policy}"
    );
    assert!(
        comment_before("deny read_file(\".env\")"),
        "`/` is the project's: {policy}"
    );
    assert!(
        !comment_before("allow bash(exact \"ls\")"),
        "an exact command means the same: {policy}"
    );
    assert!(policy.contains("allow edit_file(\"src/**\")"), "{policy}");
    assert!(policy.contains("allow read_file(\"~/.zshrc\")"), "{policy}");
    assert!(policy.contains("allow WebSearch"), "{policy}");
    assert!(policy.contains("allow mcp__github__get_issue"), "{policy}");
    assert!(
        policy.contains("deny read_file(\"secrets/**\")"),
        "{policy}"
    );
}

#[test]
fn rules_that_cannot_be_imported_are_named_in_the_file_and_on_stderr() {
    let (_, policy, err) = import();
    assert!(
        policy.contains("# `Task(reviewer)` (deny) is not imported"),
        "{policy}"
    );
    assert!(
        err.contains("note: `Task(reviewer)` (deny) is not imported"),
        "{err}"
    );
    assert!(err.contains("defaultMode"), "{err}");
}

#[test]
fn the_imported_policy_decides_as_claude_codes_rules_meant() {
    let (dir, policy, _) = import();
    let cwd = dir.path().to_path_buf();
    let home = dir.path().join("home");
    let engine = Engine::builder()
        .context(PathContext::new(cwd.clone(), Some(home.clone())))
        .policy_text("imported.policy", policy.as_str())
        .build()
        .unwrap();
    let decide = |tool: &str, arg: &str| engine.decide(&ToolCall::primary(tool, arg)).action;
    assert_eq!(decide("bash", "npm run test -- --watch"), Action::Allow);
    assert_eq!(decide("bash", "git diff HEAD~1"), Action::Allow);
    assert_eq!(decide("bash", "ls"), Action::Allow);
    assert_eq!(decide("bash", "git push origin main"), Action::Ask);
    assert_eq!(decide("bash", "curl https://x"), Action::Deny);
    // Claude Code would let this through (its prefix rule sees `ls`); each part is judged here.
    assert_eq!(decide("bash", "ls && curl https://x"), Action::Deny);
    assert_eq!(decide("edit_file", "src/lib.rs"), Action::Allow);
    assert_eq!(decide("write_file", "src/new.rs"), Action::Allow);
    assert_eq!(decide("read_file", "secrets/prod.key"), Action::Deny);
    assert_eq!(decide("read_file", ".env"), Action::Deny);
    assert_eq!(
        decide("read_file", &format!("{}/.zshrc", home.display())),
        Action::Allow
    );
    assert_eq!(decide("write_file", "/etc/hosts"), Action::Ask);
    let fetch = |url: &str| {
        let mut args = serde_json::Map::new();
        args.insert("url".into(), json!(url));
        engine.decide(&ToolCall::new("WebFetch", args)).action
    };
    assert_eq!(fetch("https://example.com/page"), Action::Allow);
    assert_eq!(fetch("https://evil.example/page"), Action::Ask);
    let mcp = |name: &str| {
        engine
            .decide(&ToolCall::new(name, serde_json::Map::new()))
            .action
    };
    assert_eq!(mcp("mcp__linear__create_issue"), Action::Allow);
    assert_eq!(mcp("mcp__github__get_issue"), Action::Allow);
    assert_eq!(mcp("mcp__github__delete_repo"), Action::Ask);
}

#[test]
fn a_settings_file_that_is_not_json_exits_2_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.json"),
        "{\n  \"permissions\": {\"allow\": [\"Bash\",]}\n}",
    )
    .unwrap();
    let o = run(dir.path(), &["import", "claude-code", "s.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(
        err.contains("invalid JSON") && err.contains("s.json:2:"),
        "{err}"
    );
    let o = run(dir.path(), &["import", "claude-code", "missing.json"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(
        dir.path().join("s.json"),
        r#"{"permissions": {"allow": "Bash"}}"#,
    )
    .unwrap();
    let o = run(dir.path(), &["import", "claude-code", "s.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("must be an array"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn slash_paths_in_the_users_own_settings_are_under_home() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("home/.claude")).unwrap();
    std::fs::write(
        dir.path().join("home/.claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(/notes/**)"]}}"#,
    )
    .unwrap();
    let o = run(
        dir.path(),
        &["import", "claude-code", "home/.claude/settings.json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("deny read_file(\"~/notes/**\")"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn a_settings_file_without_permissions_imports_to_a_policy_with_no_rules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), r#"{"model": "opus"}"#).unwrap();
    let o = run(dir.path(), &["import", "claude-code", "s.json"]);
    assert_eq!(o.status.code(), Some(0));
    let policy = text(&o.stdout);
    assert!(
        policy.lines().all(|l| l.is_empty() || l.starts_with('#')),
        "{policy}"
    );
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Entries a settings file may hold, awkward ones included.
    fn entry() -> impl Strategy<Value = String> {
        let tool = prop::sample::select(vec![
            "Bash",
            "Read",
            "Edit",
            "Write",
            "MultiEdit",
            "NotebookEdit",
            "WebFetch",
            "WebSearch",
            "Grep",
            "Glob",
            "LS",
            "Task",
            "mcp__srv",
            "mcp__srv__tool",
            "mcp__srv__*",
            "Bad Tool",
            "",
        ]);
        let spec = prop_oneof![
            Just(None),
            "[ -~]{0,20}".prop_map(Some),
            prop::sample::select(vec![
                "npm run test:*",
                ":*",
                "*",
                "git * main",
                "ls",
                "./secrets/**",
                "//etc/x",
                "/src/**",
                "~/.zshrc",
                "domain:example.com",
                "domain:",
                "[",
                "a{b",
                "x\ny",
                "\"quoted\"",
            ])
            .prop_map(|s| Some(s.to_string())),
            any::<String>().prop_map(Some),
        ];
        (tool, spec).prop_map(|(t, s)| match s {
            Some(s) => format!("{t}({s})"),
            None => t.to_string(),
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Whatever the entries, the import is a policy that loads: entries that cannot be
        /// translated are left out with a note, never written as a broken rule.
        #[test]
        fn any_settings_import_to_a_policy_that_loads(
            allow in prop::collection::vec(entry(), 0..5),
            deny in prop::collection::vec(entry(), 0..5),
            ask in prop::collection::vec(entry(), 0..5),
        ) {
            let settings = json!({"permissions": {"allow": allow, "deny": deny, "ask": ask}}).to_string();
            let source = harness9::diag::Source::new("settings.json", settings.as_str());
            let imported = harness9::import::claude_code(&source, harness9::import::Scope::Project)
                .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
            let built = Engine::builder().policy_text("imported.policy", imported.policy.as_str()).build();
            prop_assert!(built.is_ok(), "{}\n{:?}", imported.policy, built.err().map(|e| e.to_string()));
        }
    }
}
