//! End to end: the real binary's TUI in a tmux pane (120×40), driven with `send-keys` and read
//! with `capture-pane`. In a temporary working folder with a temporary HOME, `harness9 tui
//! --demo` shows the approval dialog of the demo's first call without a key press; `3` writes
//! the rule the dialog showed to `.harness9/settings.json`; `Esc` denies and writes nothing;
//! Ctrl+C interrupts, quits, and leaves the terminal restored.
//!
//! Needs tmux: without it the tests fail when `CI` is set, and are skipped with a note
//! otherwise.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);
const DIALOG: &str = "Tool approval request";
const EXITED: &str = "__harness9_exited__";

fn tmux_missing() -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return false;
    }
    if std::env::var_os("CI").is_some() {
        panic!("tmux is not installed: the TUI end-to-end tests need it (apt-get install -y tmux)");
    }
    eprintln!("note: tmux is not installed, so the TUI end-to-end test is skipped");
    true
}

/// A tmux server of its own (a private socket) running the TUI in a temporary folder.
struct Pane {
    _tmp: tempfile::TempDir,
    socket: PathBuf,
    work: PathBuf,
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

impl Pane {
    fn start(args: &str) -> Pane {
        let tmp = tempfile::tempdir().expect("a temp dir");
        let work = tmp.path().join("work");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&work).expect("work folder");
        std::fs::create_dir_all(&home).expect("home folder");
        let socket = tmp.path().join("tmux.sock");
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_harness9"));
        // After the TUI ends, the marker and its exit code show on the restored screen.
        let script = format!(
            "cd {work} && env -u HARNESS9_BASE_URL -u HARNESS9_MODEL -u OPENAI_BASE_URL \
             HOME={home} XDG_CONFIG_HOME={home}/.config LANG=C.UTF-8 LC_ALL=C.UTF-8 \
             {bin} {args}; echo {EXITED} $?; sleep 600",
            work = quote(&work),
            home = quote(&home),
            bin = quote(&bin),
        );
        let pane = Pane {
            _tmp: tmp,
            socket,
            work,
        };
        let out = pane.tmux(&[
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            "h9",
            &script,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pane
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-u")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "h9"]).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "h9"];
        args.extend_from_slice(keys);
        let out = self.tmux(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Polls the screen until `pred` holds; panics with the last screen at the deadline.
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > DEADLINE {
                panic!("waited {DEADLINE:?} for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn settings(&self) -> PathBuf {
        self.work.join(".harness9").join("settings.json")
    }

    /// Ctrl+C interrupts the turn (denying what waits), a second Ctrl+C quits; the terminal is
    /// back to the shell's screen, with the exit code 0.
    fn quit(&self) {
        self.keys(&["C-c"]);
        self.wait_for("the turn to end as interrupted after Ctrl+C", |s| {
            s.contains("interrupted") && s.contains("Type a message") && !s.contains(DIALOG)
        });
        self.keys(&["C-c"]);
        let s = self.wait_for("the TUI to exit", |s| s.contains(EXITED));
        assert!(s.contains(&format!("{EXITED} 0")), "exit code:\n{s}");
        assert!(
            !s.contains("mode: default") && !s.contains(DIALOG),
            "the alternate screen was left, so the TUI is gone from the terminal:\n{s}"
        );
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// The rule option 3 shows: the text after `→` on its line (one row at 120 columns).
fn shown_rule(screen: &str) -> String {
    let line = screen
        .lines()
        .find(|l| l.contains("[3] Always allow (add to allowlist)"))
        .unwrap_or_else(|| panic!("option 3 is not on the screen:\n{screen}"));
    let after = line
        .split_once('→')
        .unwrap_or_else(|| panic!("option 3 shows no rule: {line}"))
        .1;
    after.trim_end().trim_end_matches('│').trim().to_string()
}

#[test]
fn demo_dialog_appears_without_a_key_and_3_writes_the_shown_rule_to_settings_json() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo");
    let screen = pane.wait_for("the demo's first approval dialog", |s| {
        s.contains(DIALOG) && s.contains("[3] Always allow")
    });
    assert!(
        screen.contains(harness9::model::demo::FIRST_COMMAND),
        "the dialog shows the command itself:\n{screen}"
    );
    let rule = shown_rule(&screen);
    assert!(
        rule.starts_with("bash(git init") && !rule.contains("(*"),
        "a narrow rule, not a first-word wildcard: {rule}"
    );
    assert!(
        !pane.settings().exists(),
        "nothing written before the answer"
    );

    pane.keys(&["3"]);
    pane.wait_for("the notice that the rule was added", |s| {
        s.contains("added to the allowlist")
    });
    let text = std::fs::read_to_string(pane.settings()).expect("settings.json was written");
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("settings.json is not valid JSON ({e}):\n{text}"));
    assert_eq!(
        json["permissions"]["allow"],
        serde_json::json!([rule]),
        "exactly the rule the dialog showed:\n{text}"
    );
    assert!(
        pane.work.join("demo-repo").is_dir(),
        "the approved call ran"
    );
    pane.quit();
}

#[test]
fn demo_dialog_esc_denies_and_writes_no_settings_json() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo");
    pane.wait_for("the demo's first approval dialog", |s| s.contains(DIALOG));
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("the denial in the conversation", |s| {
        s.contains("denied by the user")
    });
    assert!(
        screen.contains(harness9::model::demo::FIRST_COMMAND),
        "{screen}"
    );
    // The demo goes on to its next call, which asks again: the session went on.
    pane.wait_for("the next dialog", |s| s.contains("High risk"));
    assert!(!pane.settings().exists(), "a denial writes no rule");
    assert!(
        !pane.work.join("demo-repo").exists(),
        "the denied call did not run"
    );
    pane.quit();
    assert!(!pane.settings().exists());
}
