//! Bad input never panics and never allows. Every file under `tests/bad-input/` (truncated
//! policies and settings, binary junk, invalid UTF-8, NUL bytes, UTF-16, deep nesting of
//! parentheses, `unless` groups, JSON) and a few made here because they are large (10 MB lines)
//! is fed to `lint`, to `check` (as a policy, as settings.json, as a batch of calls) and to the
//! hook (as its event, as a project policy, as the project's settings.json). Each time: a clear
//! error (exit code, a message naming the problem), no panic, and no `allow`.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The bad files: the checked-in ones, then large ones written into `scratch`.
fn bad_files(scratch: &Path) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-input");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/bad-input")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 15, "the bad inputs are missing");
    const MB10: usize = 10 << 20;
    let mut junk = Vec::with_capacity(MB10);
    let mut x: u32 = 0x2545_f491;
    while junk.len() < MB10 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        junk.extend_from_slice(&x.to_le_bytes());
    }
    // Junk without a line break, and never valid UTF-8.
    for b in junk.iter_mut() {
        if *b == b'\n' {
            *b = 0xff;
        }
    }
    junk[0] = 0xff;
    // (Deep nesting is in the checked-in files; 10 MB of `(` adds only time to a debug run.)
    let large: [(&str, Vec<u8>); 3] = [
        (
            "10mb-unterminated-string.policy",
            format!("allow bash(\"{}", "a".repeat(MB10)).into_bytes(),
        ),
        (
            "10mb-line-settings.json",
            format!(
                "{{\"permissions\": {{\"allow\": [\"bash({}",
                "b".repeat(MB10)
            )
            .into_bytes(),
        ),
        ("10mb-junk.bin", junk),
    ];
    for (name, bytes) in large {
        let p = scratch.join(name);
        std::fs::write(&p, bytes).expect("write a large bad input");
        files.push(p);
    }
    files
}

/// A project folder and a home, as the hook and `check` see them.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for d in ["home/.ssh", "project/.harness9", "scratch"] {
            std::fs::create_dir_all(dir.path().join(d)).expect("a folder");
        }
        Place { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn scratch(&self) -> PathBuf {
        self.dir.path().join("scratch")
    }

    fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env_remove("XDG_CONFIG_HOME")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("harness9 starts");
        let mut input = child.stdin.take().expect("stdin");
        // The process may stop reading early (it has seen enough to refuse): not an error.
        let _ = input.write_all(stdin);
        drop(input);
        child.wait_with_output().expect("harness9 ends")
    }

    /// A Claude Code event for a call the default policy allows (`git status`).
    fn allowed_event(&self) -> Vec<u8> {
        json!({
            "session_id": "s",
            "cwd": self.project(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git status"},
        })
        .to_string()
        .into_bytes()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// No panic, and a bounded answer: a 10 MB input is not echoed back.
fn sane(o: &Output, what: &str) {
    let err = text(&o.stderr);
    assert_ne!(o.status.code(), Some(101), "{what} panicked: {err}");
    assert!(o.status.code().is_some(), "{what} was killed by a signal");
    assert!(!err.contains("panicked"), "{what} panicked: {err}");
    assert!(
        o.stdout.len() + o.stderr.len() < 64 * 1024,
        "{what} printed {} bytes",
        o.stdout.len() + o.stderr.len()
    );
}

#[test]
fn lint_reports_every_bad_file_as_an_error_that_names_it() {
    let place = Place::new();
    for f in bad_files(&place.scratch()) {
        let path = f.to_string_lossy().into_owned();
        let o = place.run(&["lint", &path], b"");
        let what = format!("`lint {}`", name(&f));
        sane(&o, &what);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{what}: {out}{}", text(&o.stderr));
        assert!(out.contains("× "), "{what} shows no diagnostic: {out}");
        assert!(out.contains(&name(&f)), "{what} does not say where: {out}");
        assert!(!out.contains("0 error(s)"), "{what}: {out}");
    }
}

#[test]
fn check_decides_nothing_with_a_bad_policy_or_settings_and_never_allows_a_bad_batch() {
    let place = Place::new();
    for f in bad_files(&place.scratch()) {
        let path = f.to_string_lossy().into_owned();
        for flag in ["--policy", "--settings"] {
            // `git status` is allowed by the default policy that `--settings` keeps.
            let o = place.run(&["check", flag, &path, "bash", "git status"], b"");
            let what = format!("`check {flag} {}`", name(&f));
            sane(&o, &what);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{what}: {}{err}", text(&o.stdout));
            assert!(o.stdout.is_empty(), "{what} decided: {}", text(&o.stdout));
            assert!(err.contains("did not load"), "{what}: {err}");
            assert!(
                err.contains("× ") || err.contains(&name(&f)),
                "{what} says not why: {err}"
            );
        }
        let o = place.run(&["check", "--batch", &path], b"");
        let what = format!("`check --batch {}`", name(&f));
        sane(&o, &what);
        let out = text(&o.stdout);
        assert!(!out.is_empty(), "{what} answered nothing");
        for line in out.lines() {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: an answer that is not JSON ({e}): {line}"));
            assert!(
                v.get("error").is_some(),
                "{what} decided a junk line: {line}"
            );
            assert_ne!(v["decision"], "allow", "{what}: {line}");
        }
    }
}

#[test]
fn the_hook_blocks_every_bad_event_and_every_project_with_a_bad_policy_or_settings() {
    let place = Place::new();
    let dot = place.project().join(".harness9");
    for f in bad_files(&place.scratch()) {
        let bytes = std::fs::read(&f).expect("a bad input");
        let o = place.run(&["hook", "claude-code"], &bytes);
        let what = format!("the hook fed {}", name(&f));
        sane(&o, &what);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o.stdout));
        assert!(o.stdout.is_empty(), "{what} answered: {}", text(&o.stdout));
        assert!(
            text(&o.stderr).contains("blocked"),
            "{what}: {}",
            text(&o.stderr)
        );

        for as_file in ["bad.policy", "settings.json"] {
            std::fs::write(dot.join(as_file), &bytes).expect("put the bad file in place");
            let o = place.run(&["hook", "claude-code"], &place.allowed_event());
            std::fs::remove_file(dot.join(as_file)).expect("take it away");
            let what = format!("the hook with {} as .harness9/{as_file}", name(&f));
            sane(&o, &what);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{what}: {}{err}", text(&o.stdout));
            assert!(o.stdout.is_empty(), "{what} answered: {}", text(&o.stdout));
            assert!(err.contains("blocked"), "{what}: {err}");
        }
    }
    // The same event with good files in place is allowed: the refusals above are the files'.
    let o = place.run(&["hook", "claude-code"], &place.allowed_event());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("\"allow\""), "{}", text(&o.stdout));
}

#[test]
fn a_10_mb_command_is_asked_about_not_allowed() {
    let place = Place::new();
    for command in ["a".repeat(10 << 20), format!("ls {}", "x ".repeat(5 << 20))] {
        let event = json!({
            "cwd": place.project(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        })
        .to_string();
        let o = place.run(&["hook", "claude-code"], event.as_bytes());
        sane(&o, "the hook fed a 10 MB command");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let v: Value = serde_json::from_str(text(&o.stdout).trim()).expect("one JSON answer");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    }
}

/// Found by this sweep: a command too long to analyse was judged word by word, 5 million
/// words of `ls x x x …` took 24 s and 1.4 GB in one hook call (long enough for an agent's hook
/// timeout to let the call through). Now each different word is judged once, and a line of
/// more different words than can be judged is denied.
#[test]
fn a_line_too_long_to_analyse_is_judged_by_its_different_words_and_never_allowed() {
    use harness9::engine::MAX_PSEUDO_WORDS;
    use harness9::{Action, Engine, Mode, PathContext, Risk, ToolCall};
    let dir = tempfile::tempdir().expect("a temporary folder");
    let engine = Engine::builder()
        .context(PathContext::new(dir.path(), Some(dir.path().join("home"))))
        .default_policy()
        .build()
        .expect("the default policy loads");
    let decide = |cmd: &str, mode| engine.decide_in_mode(&ToolCall::primary("bash", cmd), mode);

    let repeated = format!("ls {}", "x ".repeat(1 << 20));
    let d = decide(&repeated, Mode::Default);
    assert_eq!((d.action, d.risk), (Action::Ask, Risk::High), "{d:?}");

    // A protected path after a million words still holds, in every mode.
    let hiding = format!("{repeated} cat ~/.ssh/id_rsa");
    for mode in Mode::ALL {
        let d = decide(&hiding, mode);
        assert_eq!(d.action, Action::Deny, "{mode}: {d:?}");
        assert_eq!(d.rule, "protected:~/.ssh", "{mode}: {d:?}");
    }

    let distinct: String = (0..=MAX_PSEUDO_WORDS).map(|i| format!("w{i} ")).collect();
    for mode in Mode::ALL {
        let d = decide(&distinct, mode);
        assert_eq!(
            (d.action, d.rule.to_string().as_str()),
            (Action::Deny, "analysis"),
            "{mode}: {d:?}"
        );
    }
}
