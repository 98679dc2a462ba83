//! End to end: the real binary's TUI in a tmux pane (120×40), driven with `send-keys` and read
//! with `capture-pane`. In a temporary working folder with a temporary HOME, `harness9 tui
//! --demo` shows the approval dialog of the demo's first call without a key press, working in
//! a scratch folder of its own; an Enter typed as the dialog opens approves nothing; `3` writes
//! the rule the dialog showed to `.harness9/settings.json`, and `/permissions` lists and
//! removes it; `Esc` denies and writes nothing; Ctrl+C interrupts, shows how to quit, quits on
//! the second press, and leaves the terminal restored. Against a scripted OpenAI-compatible
//! server on 127.0.0.1: Esc interrupts a slow stream (what arrived stays), and an edit's dialog
//! shows its diff.
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
    /// Where the demo makes its scratch folder (the TUI's TMPDIR).
    scratch_parent: PathBuf,
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

impl Pane {
    fn start(args: &str) -> Pane {
        Pane::start_with(args, "")
    }

    /// `env` is put before the binary (`HARNESS9_BASE_URL=… HARNESS9_MODEL=…`).
    fn start_with(args: &str, env: &str) -> Pane {
        Pane::start_prepared(args, env, |_| {})
    }

    /// [`Pane::start_with`], with `prepare` given the working folder before the TUI starts.
    fn start_prepared(args: &str, env: &str, prepare: impl FnOnce(&Path)) -> Pane {
        Pane::start_at(tempfile::tempdir().expect("a temp dir"), args, env, prepare)
    }

    /// [`Pane::start_prepared`], its folders (work, home, tmp) below Cargo's target folder:
    /// the sandbox replaces the temporary folder, so a home there would not be seen by a
    /// contained command at all.
    fn start_outside_tmp(args: &str, env: &str, prepare: impl FnOnce(&Path)) -> Pane {
        let tmp = tempfile::Builder::new()
            .prefix("tui-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("a folder in Cargo's target folder");
        Pane::start_at(tmp, args, env, prepare)
    }

    fn start_at(
        tmp: tempfile::TempDir,
        args: &str,
        env: &str,
        prepare: impl FnOnce(&Path),
    ) -> Pane {
        let work = tmp.path().join("work");
        let home = tmp.path().join("home");
        let scratch_parent = tmp.path().join("tmp");
        std::fs::create_dir_all(&work).expect("work folder");
        std::fs::create_dir_all(&home).expect("home folder");
        std::fs::create_dir_all(&scratch_parent).expect("tmp folder");
        prepare(&work);
        let socket = tmp.path().join("tmux.sock");
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_harness9"));
        // After the TUI ends, the marker and its exit code show on the restored screen.
        let script = format!(
            "cd {work} && env -u HARNESS9_BASE_URL -u HARNESS9_MODEL -u OPENAI_BASE_URL \
             -u OPENAI_API_KEY -u HARNESS9_API_KEY \
             HOME={home} XDG_CONFIG_HOME={home}/.config LANG=C.UTF-8 LC_ALL=C.UTF-8 \
             TMPDIR={tmpdir} {env} {bin} {args}; echo {EXITED} $?; sleep 600",
            work = quote(&work),
            home = quote(&home),
            tmpdir = quote(&scratch_parent),
            bin = quote(&bin),
        );
        let pane = Pane {
            _tmp: tmp,
            socket,
            work,
            scratch_parent,
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

    /// The demo's scratch folder (it makes one under TMPDIR).
    fn scratch(&self) -> PathBuf {
        let found = std::fs::read_dir(&self.scratch_parent)
            .expect("the tmp folder")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("harness9-demo-"))
            });
        found.unwrap_or_else(|| panic!("no scratch folder in {}", self.scratch_parent.display()))
    }

    /// The demo's settings file, in its scratch folder.
    fn settings(&self) -> PathBuf {
        self.scratch().join(".harness9").join("settings.json")
    }

    /// Waits until the dialog is on the screen and takes keys (the hint replaces "keys active
    /// in a moment").
    fn wait_armed(&self, what: &str) -> String {
        self.wait_for(what, |s| {
            s.contains(DIALOG) && s.contains("Enter/1-5 confirm")
        })
    }

    /// Types a line and sends it.
    fn send_line(&self, text: &str) {
        self.keys(&["-l", text]);
        self.keys(&["Enter"]);
    }

    /// On an empty prompt with no turn running: one Ctrl+C shows how to quit, the second quits;
    /// the terminal is back to the shell's screen, with the exit code 0.
    fn quit_from_prompt(&self) {
        self.keys(&["C-c"]);
        self.wait_for("the hint after one Ctrl+C", |s| {
            s.contains("Press Ctrl+C again to quit")
        });
        assert!(
            !self.screen().contains(EXITED),
            "one Ctrl+C on an empty prompt does not quit"
        );
        self.keys(&["C-c"]);
        let s = self.wait_for("the TUI to exit", |s| s.contains(EXITED));
        assert!(s.contains(&format!("{EXITED} 0")), "exit code:\n{s}");
        assert!(
            !s.contains("mode: default") && !s.contains(DIALOG),
            "the alternate screen was left, so the TUI is gone from the terminal:\n{s}"
        );
    }

    /// Ctrl+C interrupts the turn (denying what waits), then Ctrl+C twice quits.
    fn quit(&self) {
        self.keys(&["C-c"]);
        self.wait_for("the turn to end as interrupted after Ctrl+C", |s| {
            s.contains("interrupted") && s.contains("Type a message") && !s.contains(DIALOG)
        });
        self.quit_from_prompt();
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
fn demo_dialog_appears_without_a_key_and_3_writes_the_shown_rule_which_slash_permissions_removes() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo");
    let screen = pane.wait_armed("the demo's first approval dialog");
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
    // The tour goes on to the forced delete once the approved call has run (the notice that
    // the rule was written comes before the call runs).
    pane.wait_armed("the forced delete's dialog");
    assert!(
        pane.scratch().join("demo-repo").is_dir(),
        "the approved call ran, in the demo's scratch folder"
    );
    assert!(
        !pane.work.join("demo-repo").exists() && !pane.work.join(".harness9").exists(),
        "the person's folder is not touched by the demo"
    );

    // Deny the forced delete, and wait for the end of the turn.
    pane.keys(&["Escape"]);
    pane.wait_for("the end of the tour", |s| {
        s.contains("That's the tour") && s.contains("Type a message")
    });

    pane.send_line("/permissions");
    let listed = pane.wait_for("the rules listed", |s| {
        s.contains("Rules that allow without asking") && s.contains("1. bash(git init")
    });
    // "Always allow" is one grant, listed once, where it lives: the allowlist.
    let file_section = listed
        .split("settings.json")
        .nth(1)
        .unwrap_or_else(|| panic!("the allowlist's section is listed:\n{listed}"));
    assert!(file_section.contains("1. bash(git init"), "{listed}");
    assert_eq!(listed.matches("bash(git init").count(), 1, "{listed}");
    pane.send_line("/permissions rm 1");
    pane.wait_for("the rule removed", |s| s.contains("removed bash(git init"));
    let text = std::fs::read_to_string(pane.settings()).expect("settings.json is still there");
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("settings.json is not valid JSON ({e}):\n{text}"));
    assert_eq!(
        json["permissions"]["allow"],
        serde_json::json!([]),
        "the rule is gone from the file:\n{text}"
    );
    pane.quit_from_prompt();
}

#[test]
fn an_enter_typed_as_the_dialog_opens_approves_nothing() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo");
    // As soon as the dialog is there (well within the moment it ignores keys), Enter.
    pane.wait_for("the demo's first approval dialog", |s| s.contains(DIALOG));
    pane.keys(&["Enter"]);
    pane.keys(&["1"]);
    let screen = pane.wait_armed("the dialog to take keys");
    assert!(
        screen.contains(harness9::model::demo::FIRST_COMMAND),
        "still the first request:\n{screen}"
    );
    assert!(
        !pane.scratch().join("demo-repo").exists(),
        "the Enter typed as the dialog opened ran nothing"
    );
    pane.keys(&["Escape"]);
    pane.wait_for("the denial", |s| s.contains("denied by the user"));
    assert!(!pane.scratch().join("demo-repo").exists());
    pane.quit();
}

#[test]
fn demo_dialog_esc_denies_and_writes_no_settings_json() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo");
    pane.wait_armed("the demo's first approval dialog");
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
        !pane.scratch().join("demo-repo").exists(),
        "the denied call did not run"
    );
    pane.quit();
    assert!(!pane.work.join(".harness9").join("settings.json").exists());
}

/// What the scripted server answers, in order (then a short text reply).
#[derive(Clone)]
enum Reply {
    /// Streams this text and then holds the connection open without a word.
    Stall(&'static str),
    /// A tool call, streamed whole.
    Call {
        name: &'static str,
        arguments: String,
    },
    /// Several tool calls in one reply (they run at the same time).
    Calls(Vec<(&'static str, String)>),
    /// The short text reply ("All done.") while more of the script waits.
    Done,
}

/// A bash call's arguments.
fn bash(command: &str) -> String {
    serde_json::json!({ "command": command }).to_string()
}

/// An OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script.
fn scripted_server(script: Vec<Reply>) -> String {
    recording_server(script).0
}

/// The models the requests to a scripted server named, in order.
type Asked = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// [`scripted_server`], and the `model` each request named.
fn recording_server(script: Vec<Reply>) -> (String, Asked) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let url = format!("http://{}/v1", listener.local_addr().expect("its address"));
    let script = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(
        script,
    )));
    let asked: Asked = Default::default();
    let log = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let script = script.clone();
            let log = log.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("a clone"));
                let mut length = 0usize;
                let mut request_line = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if request_line.is_empty() {
                        request_line = line.clone();
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0u8; length];
                let _ = reader.read_exact(&mut body);
                if request_line.starts_with("GET ") && request_line.contains("/models") {
                    let list =
                        r#"{"object":"list","data":[{"id":"second-model"},{"id":"first-model"}]}"#;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{list}",
                        list.len()
                    );
                    let _ = stream.flush();
                    return;
                }
                let model = serde_json::from_slice::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["model"].as_str().map(str::to_string));
                if let (Some(m), Ok(mut log)) = (model, log.lock()) {
                    log.push(m);
                }
                let next = script.lock().ok().and_then(|mut s| s.pop_front());
                let chunk = |delta: serde_json::Value, finish: Option<&str>| {
                    let v = serde_json::json!({
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
                    });
                    format!("data: {v}\n\n")
                };
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
                );
                match next {
                    Some(Reply::Stall(text)) => {
                        let _ = stream.write_all(
                            chunk(serde_json::json!({"content": text}), None).as_bytes(),
                        );
                        let _ = stream.flush();
                        std::thread::sleep(Duration::from_secs(120));
                    }
                    Some(Reply::Call { name, arguments }) => {
                        let call = serde_json::json!({"tool_calls": [{
                            "index": 0, "id": "call_1", "type": "function",
                            "function": {"name": name, "arguments": arguments}
                        }]});
                        let _ = stream.write_all(chunk(call, None).as_bytes());
                        let _ = stream
                            .write_all(chunk(serde_json::json!({}), Some("tool_calls")).as_bytes());
                        let _ = stream.write_all(b"data: [DONE]\n\n");
                    }
                    Some(Reply::Calls(calls)) => {
                        let calls: Vec<serde_json::Value> = calls
                            .iter()
                            .enumerate()
                            .map(|(i, (name, arguments))| {
                                serde_json::json!({
                                    "index": i, "id": format!("call_{i}"), "type": "function",
                                    "function": {"name": name, "arguments": arguments}
                                })
                            })
                            .collect();
                        let call = serde_json::json!({ "tool_calls": calls });
                        let _ = stream.write_all(chunk(call, None).as_bytes());
                        let _ = stream
                            .write_all(chunk(serde_json::json!({}), Some("tool_calls")).as_bytes());
                        let _ = stream.write_all(b"data: [DONE]\n\n");
                    }
                    Some(Reply::Done) | None => {
                        let _ = stream.write_all(
                            chunk(serde_json::json!({"content": "All done."}), None).as_bytes(),
                        );
                        let _ =
                            stream.write_all(chunk(serde_json::json!({}), Some("stop")).as_bytes());
                        let _ = stream.write_all(b"data: [DONE]\n\n");
                    }
                }
                let _ = stream.flush();
            });
        }
    });
    (url, asked)
}

#[test]
fn slash_model_switches_the_next_turn_to_another_model_of_the_server() {
    if tmux_missing() {
        return;
    }
    let (url, asked) = recording_server(Vec::new());
    let pane = Pane::start_with(
        "tui",
        &format!("HARNESS9_BASE_URL={url} HARNESS9_MODEL=first-model"),
    );
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("hello");
    pane.wait_for("the first reply", |s| s.matches("All done.").count() == 1);

    // `/` opens the menu of commands; `mo` narrows it, ↓ and Tab complete the second.
    pane.keys(&["-l", "/"]);
    pane.wait_for("the menu of commands", |s| {
        s.contains("/permissions") && s.contains("/clear") && s.contains("▶ /help")
    });
    pane.keys(&["-l", "mo"]);
    let menu = pane.wait_for("the menu narrowed", |s| {
        s.contains("▶ /mode") && s.contains("/model") && !s.contains("/clear")
    });
    assert!(menu.contains("list the server's models"), "{menu}");
    pane.keys(&["Down"]);
    pane.wait_for("the second highlighted", |s| s.contains("▶ /model"));
    pane.keys(&["Tab"]);
    pane.wait_for("the command completed, the menu gone", |s| {
        s.contains("› /model") && !s.contains("▶ /")
    });
    // `/model` lists the server's models, the one in use marked.
    pane.keys(&["Enter"]);
    let listed = pane.wait_for("the server's models", |s| s.contains("second-model"));
    assert!(
        listed.contains("* first-model") && listed.contains("  second-model"),
        "{listed}"
    );
    pane.send_line("/model second-model");
    pane.wait_for("the switch said", |s| s.contains("model: second-model"));
    pane.send_line("again");
    pane.wait_for("the second reply", |s| s.matches("All done.").count() == 2);
    pane.quit_from_prompt();
    let asked = asked.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(asked, ["first-model", "second-model"]);
}

#[test]
fn esc_interrupts_a_slow_stream_and_keeps_what_arrived() {
    if tmux_missing() {
        return;
    }
    let url = scripted_server(vec![Reply::Stall("Thinking it over, slowly")]);
    let pane = Pane::start_with(
        "tui",
        &format!("HARNESS9_BASE_URL={url} HARNESS9_MODEL=slow-model"),
    );
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("hello");
    pane.wait_for("the streamed text and the spinner", |s| {
        s.contains("Thinking it over, slowly") && s.contains("Esc interrupts")
    });
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("the turn to end as interrupted", |s| {
        s.contains("interrupted") && s.contains("Type a message")
    });
    assert!(
        screen.contains("Thinking it over, slowly [cut off]"),
        "what was streamed stays:\n{screen}"
    );
    pane.quit_from_prompt();
}

#[test]
fn an_edits_dialog_shows_its_diff() {
    if tmux_missing() {
        return;
    }
    let args = serde_json::json!({
        "path": "notes.txt",
        "old_string": "colour: red",
        "new_string": "colour: blue"
    })
    .to_string();
    let url = scripted_server(vec![Reply::Call {
        name: "edit_file",
        arguments: args,
    }]);
    let pane = Pane::start_with(
        "tui",
        &format!("HARNESS9_BASE_URL={url} HARNESS9_MODEL=edit-model"),
    );
    std::fs::write(
        pane.work.join("notes.txt"),
        "shape: round\ncolour: red\nsize: small\n",
    )
    .expect("a file to edit");
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("make it blue");
    let screen = pane.wait_armed("the edit's dialog");
    for row in [
        "Changes: +1 −1",
        "-colour: red",
        "+colour: blue",
        " shape: round",
    ] {
        assert!(screen.contains(row), "missing {row:?}:\n{screen}");
    }
    // `Changes:` is a label like the others: its value starts in their value column.
    let value_column = |label: &str, value: &str| {
        let line = screen
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no {label} row:\n{screen}"));
        let at = line
            .find(value)
            .unwrap_or_else(|| panic!("{value} not in {line:?}"));
        line[..at].chars().count()
    };
    assert_eq!(
        value_column("Changes:", "+1 −1"),
        value_column("Path:", "notes.txt"),
        "the labels align:\n{screen}"
    );
    pane.keys(&["1"]);
    let screen = pane.wait_for("the edit's result with the applied diff", |s| {
        s.contains("All done.") && s.contains("⎿ ") && s.contains("+1 −1")
    });
    assert!(screen.contains("+colour: blue"), "{screen}");
    let text = std::fs::read_to_string(pane.work.join("notes.txt")).expect("the file");
    assert_eq!(text, "shape: round\ncolour: blue\nsize: small\n");
    pane.quit_from_prompt();
}

#[test]
fn a_base_url_without_a_model_is_an_error_not_the_demo() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start_with("tui", "HARNESS9_BASE_URL=http://127.0.0.1:9/v1");
    let screen = pane.wait_for("the TUI to refuse", |s| s.contains(EXITED));
    assert!(
        screen.contains("a model server is set (http://127.0.0.1:9/v1) but no model"),
        "{screen}"
    );
    assert!(screen.contains(&format!("{EXITED} 2")), "{screen}");
    assert!(
        !screen.contains(DIALOG),
        "the demo did not start:\n{screen}"
    );
}

#[test]
fn removing_an_always_allow_rule_revokes_it_in_the_running_session_too() {
    if tmux_missing() {
        return;
    }
    let call = || Reply::Call {
        name: "bash",
        arguments: bash("git init made-here"),
    };
    let url = scripted_server(vec![call(), Reply::Done, call(), Reply::Done]);
    // `git init` is git's local work, which the shipped default runs contained: with the
    // sandbox turned off it is asked about, as where the sandbox does not work, saying why.
    let pane = Pane::start_with(
        "tui",
        &format!("HARNESS9_NO_SANDBOX=1 HARNESS9_BASE_URL={url} HARNESS9_MODEL=grant-model"),
    );
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("make a repository");
    let screen = pane.wait_armed("the first dialog");
    assert!(
        flat(&screen).contains(
            "the sandbox is not available here: HARNESS9_NO_SANDBOX is set; it would run \
             contained"
        ),
        "the dialog says why it asks:\n{screen}"
    );
    let rule = shown_rule(&screen);
    pane.keys(&["3"]);
    pane.wait_for("the first reply", |s| {
        s.contains("added to the allowlist") && s.matches("All done.").count() == 1
    });

    pane.send_line("/permissions");
    let listed = pane.wait_for("the grant listed", |s| s.contains("Remove one with"));
    let list = listed
        .rsplit("Rules that allow without asking")
        .next()
        .unwrap_or_default();
    assert_eq!(
        list.matches(rule.as_str()).count(),
        1,
        "the grant is listed once:\n{listed}"
    );
    assert!(list.contains(&format!("1. {rule}")), "{listed}");
    pane.send_line("/permissions rm 1");
    pane.wait_for("the grant removed", |s| s.contains("removed bash(git init"));

    // The same call again: asked about, not allowed by what the session still remembered.
    pane.send_line("once more");
    let screen = pane.wait_armed("the dialog for the same call");
    assert!(screen.contains("git init made-here"), "{screen}");
    pane.keys(&["Escape"]);
    pane.wait_for("the denial and the reply", |s| {
        s.contains("denied by the user") && s.matches("All done.").count() == 2
    });
    pane.quit_from_prompt();
}

#[test]
fn an_approval_timeout_counts_from_when_the_dialog_is_shown_not_from_the_queue() {
    if tmux_missing() {
        return;
    }
    const TIMEOUT_SECS: u64 = 5;
    let commands = ["git init one", "git init two", "git init three"];
    let url = scripted_server(vec![Reply::Calls(
        commands.iter().map(|c| ("bash", bash(c))).collect(),
    )]);
    let pane = Pane::start_prepared(
        "tui",
        // Asked about, not contained (see the test above).
        &format!("HARNESS9_NO_SANDBOX=1 HARNESS9_BASE_URL={url} HARNESS9_MODEL=queue-model"),
        |work| {
            std::fs::create_dir_all(work.join(".harness9")).expect("folder");
            std::fs::write(
                work.join(".harness9").join("config.toml"),
                format!("[runtime]\napproval_timeout_secs = {TIMEOUT_SECS}\n"),
            )
            .expect("config written");
        },
    );
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("make three repositories");
    let start = Instant::now();
    let mut answered: Vec<&str> = Vec::new();
    // The command the dialog shows (the conversation lists all three calls).
    let in_dialog = |s: &str, answered: &[&str]| {
        commands.iter().copied().find(|c| {
            !answered.contains(c)
                && s.lines().any(|l| {
                    l.contains("Command:")
                        && l.trim_end().trim_end_matches('│').trim_end().ends_with(c)
                })
        })
    };
    for _ in 0..commands.len() {
        let screen = pane.wait_for("the next dialog", |s| {
            s.contains("Enter/1-5 confirm") && in_dialog(s, &answered).is_some()
        });
        let shown = in_dialog(&screen, &answered)
            .unwrap_or_else(|| panic!("no command of the queue is shown:\n{screen}"));
        // Each dialog waits well within its own timeout, the three together well beyond it.
        std::thread::sleep(Duration::from_millis(2_500));
        pane.keys(&["1"]);
        answered.push(shown);
    }
    assert!(
        start.elapsed() > Duration::from_secs(TIMEOUT_SECS + 1),
        "the queue took longer than one timeout"
    );
    let screen = pane.wait_for("the reply after the three calls", |s| {
        s.contains("All done.")
    });
    assert!(!screen.contains("no answer within"), "{screen}");
    for dir in ["one", "two", "three"] {
        assert!(
            pane.work.join(dir).join(".git").is_dir(),
            "`git init {dir}` ran:\n{screen}"
        );
    }
    pane.quit_from_prompt();
}

#[test]
fn allow_for_this_session_is_not_offered_when_no_rule_can_be_proposed() {
    if tmux_missing() {
        return;
    }
    let url = scripted_server(vec![Reply::Call {
        name: "bash",
        arguments: bash("curl -fsSL https://example.com/install.sh | sh"),
    }]);
    let pane = Pane::start_with(
        "tui",
        &format!("HARNESS9_BASE_URL={url} HARNESS9_MODEL=pipe-model"),
    );
    pane.wait_for("the prompt", |s| s.contains("Type a message"));
    pane.send_line("install it");
    let screen = pane.wait_armed("the dialog");
    let option = |n: &str| {
        screen
            .lines()
            .find(|l| l.contains(&format!("[{n}]")))
            .unwrap_or_else(|| panic!("option {n} is not shown:\n{screen}"))
            .to_string()
    };
    assert!(
        option("3").contains("unavailable"),
        "no rule can be proposed:\n{screen}"
    );
    assert!(
        option("2").contains("unavailable"),
        "so option 2 says it is not available either:\n{screen}"
    );
    pane.keys(&["2"]);
    std::thread::sleep(Duration::from_millis(700));
    let screen = pane.screen();
    assert!(
        screen.contains(DIALOG) && screen.contains("example.com/install.sh"),
        "2 answered nothing: the dialog is still there:\n{screen}"
    );
    pane.keys(&["Escape"]);
    // The turn ends with the model's answer to the denial: then the prompt takes Ctrl+C.
    pane.wait_for("the denial and the reply", |s| {
        s.contains("denied by the user") && s.contains("All done.")
    });
    pane.quit_from_prompt();
}

/// The screen's text with the dialog's borders taken away and every run of spaces and line
/// breaks made one space, so that a sentence wrapped over rows reads whole.
fn flat(screen: &str) -> String {
    screen
        .replace(['│', '╭', '╮', '╰', '╯', '─'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes an executable script into the project.
fn script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("a script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("executable");
}

/// The shipped default policy contains a project's script (`./build.sh`): where the sandbox
/// works, the TUI runs it contained without asking and says so in the transcript. A script
/// that writes to the home folder fails there (`Read-only file system`): the transcript says
/// the failure looks like the sandbox's doing, and a person is asked, in a normal dialog that
/// says why, whether to run it outside; only once approved does it run so, and write.
///
/// Needs bubblewrap: without it the test fails, it does not skip.
#[test]
fn a_contained_script_runs_in_the_sandbox_and_a_write_outside_offers_a_run_outside() {
    if tmux_missing() {
        return;
    }
    let support = harness9::sandbox::support();
    assert!(
        support.is_available(),
        "the sandbox is not available here, so the TUI cannot contain a call: {support}"
    );
    let url = scripted_server(vec![
        Reply::Call {
            name: "bash",
            arguments: bash("./build.sh"),
        },
        Reply::Done,
        Reply::Call {
            name: "bash",
            arguments: bash("./save.sh"),
        },
        Reply::Done,
    ]);
    let pane = Pane::start_outside_tmp(
        "tui",
        &format!("HARNESS9_BASE_URL={url} HARNESS9_MODEL=sandbox-model"),
        |work| {
            script(
                work,
                "build.sh",
                "echo built > out.txt\necho build-finished",
            );
            script(work, "save.sh", "echo saved > \"$HOME/notes.txt\"");
        },
    );
    let home = pane.work.parent().expect("the pane's folder").join("home");
    pane.wait_for("the prompt", |s| s.contains("Type a message"));

    // (a) Contained, without a dialog, and the transcript says so.
    pane.send_line("build it");
    let screen = pane.wait_for("the build's result", |s| {
        s.contains("build-finished") && s.contains("All done.")
    });
    assert!(
        !screen.contains(DIALOG),
        "it was not asked about:\n{screen}"
    );
    assert!(
        flat(&screen)
            .contains("ran in the sandbox (profile build): no network, writes to the project only"),
        "the transcript says it ran contained:\n{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(pane.work.join("out.txt")).expect("its write in the project"),
        "built\n"
    );

    // (b) A write to the home folder fails contained; a run outside is offered, not made.
    pane.send_line("save the notes");
    let screen = pane.wait_armed("the offer to run it outside the sandbox");
    let text = flat(&screen);
    for said in [
        "./save.sh",
        "it failed in the sandbox, and the failure looks like the sandbox's doing",
        "Read-only file system",
        "run it again outside the sandbox",
    ] {
        assert!(text.contains(said), "the dialog says {said:?}:\n{screen}");
    }
    assert!(
        !home.join("notes.txt").exists(),
        "nothing ran outside the sandbox before a person approved"
    );
    pane.keys(&["1"]);
    let screen = pane.wait_for("the run outside and the reply", |s| {
        flat(s).contains("it ran again outside the sandbox, as approved") && s.contains("All done.")
    });
    assert!(
        flat(&screen)
            .contains("the failure looks like the sandbox's doing (`Read-only file system`"),
        "the transcript says why:\n{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("notes.txt")).expect("written by the approved run"),
        "saved\n"
    );
    pane.quit_from_prompt();
}

/// The process id of the TUI running in the pane (a child of the pane's shell).
fn tui_pid(pane: &Pane) -> u32 {
    let out = pane.tmux(&["display-message", "-p", "-t", "h9", "#{pane_pid}"]);
    let shell: u32 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("the pane's pid ({e})"));
    let found = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .find(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid …`: the comm may hold blanks, so read after its `)`.
            let Some((head, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let ppid = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok());
            head.ends_with("(harness9") && ppid == Some(shell)
        });
    found.unwrap_or_else(|| panic!("no harness9 process under the pane's shell {shell}"))
}

/// Killed by `signal`, the demo leaves no scratch folder behind and the terminal restored.
fn a_killed_demo_cleans_up(signal: &str, code: i32) {
    let pane = Pane::start("tui --demo");
    pane.wait_armed("the demo's first approval dialog");
    let scratch = pane.scratch();
    assert!(scratch.is_dir());
    let pid = tui_pid(&pane);
    let out = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .output()
        .expect("kill runs");
    assert!(out.status.success(), "kill -{signal} {pid} failed");
    let screen = pane.wait_for("the TUI to exit", |s| s.contains(EXITED));
    assert!(
        screen.contains(&format!("{EXITED} {code}")),
        "ended as killed by SIG{signal}:\n{screen}"
    );
    assert!(
        !screen.contains(DIALOG) && !screen.contains("mode: default"),
        "the alternate screen was left:\n{screen}"
    );
    assert!(
        !scratch.exists(),
        "the scratch folder {} is removed",
        scratch.display()
    );
    // Raw mode is off again: a typed line reaches the shell's `sleep` as text, echoed.
    pane.keys(&["-l", "typed-after"]);
    pane.wait_for("the typed text echoed by the terminal", |s| {
        s.contains("typed-after")
    });
}

#[test]
fn sigterm_ends_the_demo_removes_its_scratch_folder_and_restores_the_terminal() {
    if tmux_missing() {
        return;
    }
    a_killed_demo_cleans_up("TERM", 143);
}

#[test]
fn sighup_ends_the_demo_removes_its_scratch_folder_and_restores_the_terminal() {
    if tmux_missing() {
        return;
    }
    a_killed_demo_cleans_up("HUP", 129);
}

#[test]
fn the_chinese_dialog_uses_full_width_punctuation_without_doubled_spaces() {
    if tmux_missing() {
        return;
    }
    let pane = Pane::start("tui --demo --lang zh");
    let screen = pane.wait_for("the Chinese dialog, armed", |s| {
        s.contains("工具审批请求") && s.contains("Enter/1-5 确认")
    });
    assert!(screen.contains("[5] 拒绝并提供反馈……"), "{screen}");
    assert!(
        screen.contains("↑↓ 移动 · Enter/1-5 确认 · Esc 拒绝"),
        "{screen}"
    );
    // The dialog's rows (the status bar pads between its halves: layout, not text).
    for line in screen.lines().filter(|l| l.starts_with('│')) {
        let text = line.trim_matches(|c: char| c == '│' || c.is_whitespace());
        let chars: Vec<char> = text.chars().collect();
        for w in chars.windows(3) {
            let cjk = ('\u{4e00}'..='\u{9fff}').contains(&w[0]) || "：，（）。".contains(w[0]);
            assert!(
                !(cjk && w[1] == ' ' && w[2] == ' '),
                "doubled blanks after Chinese in {line:?}"
            );
        }
    }
}
