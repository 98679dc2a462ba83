//! The agent's tools through the public API, with real processes and temporary folders.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use harness9::runtime::tools::{specs, Tools};
use harness9::runtime::{
    CancelToken, HookContext, HookRegistry, ModeHandle, ResultStatus, ToolResult, ToolRunner,
};
use harness9::ToolCall;
use serde_json::{json, Value};

fn call(name: &str, args: Value) -> ToolCall {
    match args {
        Value::Object(m) => ToolCall::new(name, m),
        _ => ToolCall::new(name, Default::default()),
    }
}

async fn bash(tools: &Tools, command: &str) -> ToolResult {
    tools
        .run(
            &call("bash", json!({ "command": command })),
            &CancelToken::new(),
        )
        .await
}

fn tools_in(dir: &Path) -> Tools {
    Tools::new(dir).timeout(Duration::from_secs(20))
}

/// Whether a process is gone (or a zombie waiting to be reaped).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_gone(pid: u32) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if process_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test]
async fn bash_reports_output_and_exit_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let r = bash(&t, "echo hello; echo oops >&2").await;
    assert_eq!(r.status, ResultStatus::Ok);
    assert!(r.content.contains("hello\n"), "{}", r.content);
    assert!(
        r.content.contains("oops\n"),
        "stderr is captured too: {}",
        r.content
    );
    assert!(r.content.ends_with("[exit code 0]"), "{}", r.content);

    let r = bash(&t, "echo failing; exit 3").await;
    assert_eq!(r.status, ResultStatus::Error);
    assert!(r.content.contains("failing"), "{}", r.content);
    assert!(r.content.ends_with("[exit code 3]"), "{}", r.content);

    let r = bash(&t, "true").await;
    assert_eq!(r, ToolResult::ok("(no output)\n[exit code 0]"));
}

#[tokio::test]
async fn bash_runs_in_the_working_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = dir.path().canonicalize().expect("canonical");
    let r = bash(&tools_in(&real), "pwd").await;
    assert_eq!(r.content, format!("{}\n[exit code 0]", real.display()));
}

#[tokio::test]
async fn bash_timeout_kills_the_command_and_what_it_started() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = Tools::new(dir.path()).timeout(Duration::from_millis(400));
    let start = Instant::now();
    let r = bash(&t, "echo started; sleep 30 & echo $! > bg.pid; sleep 30").await;
    let took = start.elapsed();
    assert_eq!(r.status, ResultStatus::Error);
    assert!(
        took < Duration::from_secs(5),
        "killed promptly, took {took:?}"
    );
    assert!(
        r.content.contains("started"),
        "output so far is kept: {}",
        r.content
    );
    assert!(r.content.contains("timed out after 400ms"), "{}", r.content);
    let pid: u32 = std::fs::read_to_string(dir.path().join("bg.pid"))
        .expect("the background pid")
        .trim()
        .parse()
        .expect("a pid");
    assert!(
        wait_gone(pid),
        "the background sleep {pid} was killed with the group"
    );
}

#[tokio::test]
async fn bash_cancel_kills_the_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    let c = call(
        "bash",
        json!({"command": "echo $$ > sh.pid; echo waiting; sleep 30"}),
    );
    let start = Instant::now();
    let (r, ()) = tokio::join!(t.run(&c, &cancel), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.status, ResultStatus::Error);
    assert!(r.content.contains("cancelled"), "{}", r.content);
    assert!(r.content.contains("waiting"), "{}", r.content);
    let pid: u32 = std::fs::read_to_string(dir.path().join("sh.pid"))
        .expect("the shell's pid")
        .trim()
        .parse()
        .expect("a pid");
    assert!(wait_gone(pid), "bash {pid} was killed");
}

#[tokio::test]
async fn a_cancelled_turn_runs_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    cancel.cancel();
    let r = t
        .run(&call("bash", json!({"command": "touch made"})), &cancel)
        .await;
    assert_eq!(r.status, ResultStatus::Error);
    assert!(!dir.path().join("made").exists());
}

#[tokio::test]
async fn bash_output_is_capped_keeping_head_and_tail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path()).output_cap(2000);
    let r = bash(&t, "seq 1 200000").await;
    assert_eq!(r.status, ResultStatus::Ok);
    assert!(r.content.starts_with("1\n2\n3\n"), "{}", &r.content[..50]);
    assert!(
        r.content.ends_with("199999\n200000\n[exit code 0]"),
        "the tail is kept"
    );
    assert!(
        r.content.contains("cut from the middle"),
        "says what was cut"
    );
    assert!(r.content.contains("1288895 bytes in all"), "{}", r.content);
    assert!(r.content.len() < 2300, "capped: {} bytes", r.content.len());
}

#[tokio::test]
async fn a_background_process_holding_the_output_does_not_hang_the_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let start = Instant::now();
    let r = bash(&t, "sleep 5 & echo $! > bg.pid; echo hi").await;
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.status, ResultStatus::Ok);
    assert!(r.content.starts_with("hi\n"), "{}", r.content);
    assert!(r.content.contains("background process"), "{}", r.content);
    if let Ok(pid) = std::fs::read_to_string(dir.path().join("bg.pid")) {
        let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    }
}

#[tokio::test]
async fn read_file_reads_relative_paths_and_line_ranges() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\nthree\n").expect("write");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    let r = t
        .run(&call("read_file", json!({"path": "src/a.txt"})), &cancel)
        .await;
    assert_eq!(r, ToolResult::ok("one\ntwo\nthree\n"));
    let r = t
        .run(
            &call(
                "read_file",
                json!({"path": "src/a.txt", "offset": 2, "limit": 1}),
            ),
            &cancel,
        )
        .await;
    assert_eq!(r, ToolResult::ok("two\n[lines 2–2 of 3]"));
    let r = t
        .run(&call("read_file", json!({"path": "missing.txt"})), &cancel)
        .await;
    assert_eq!(
        r,
        ToolResult::error("could not read `missing.txt`: no such file or folder")
    );
}

#[tokio::test]
async fn write_file_creates_parent_folders() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    let r = t
        .run(
            &call(
                "write_file",
                json!({"path": "a/b/c/new.txt", "content": "hi\n"}),
            ),
            &cancel,
        )
        .await;
    assert_eq!(r, ToolResult::ok("created `a/b/c/new.txt` (3 bytes)"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b/c/new.txt")).expect("written"),
        "hi\n"
    );
    let r = t
        .run(
            &call(
                "write_file",
                json!({"path": "a/b/c/new.txt", "content": "bye"}),
            ),
            &cancel,
        )
        .await;
    assert_eq!(r, ToolResult::ok("overwrote `a/b/c/new.txt` (3 bytes)"));
}

#[tokio::test]
async fn edit_file_needs_exactly_one_occurrence() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("f.rs");
    std::fs::write(&file, "let a = 1;\nlet b = 1;\nlet c = 2;\n").expect("write");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    let edit = |old: &str, new: &str| {
        call(
            "edit_file",
            json!({"path": "f.rs", "old_string": old, "new_string": new}),
        )
    };

    let r = t.run(&edit("= 1;", "= 3;"), &cancel).await;
    assert_eq!(r.status, ResultStatus::Error);
    assert!(r.content.contains("occurs 2 times"), "{}", r.content);

    let r = t.run(&edit("let d", "let e"), &cancel).await;
    assert_eq!(r.status, ResultStatus::Error);
    assert!(r.content.contains("occurs 0 times"), "{}", r.content);
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "let a = 1;\nlet b = 1;\nlet c = 2;\n",
        "failed edits change nothing"
    );

    let r = t.run(&edit("let b = 1;", "let b = 42;"), &cancel).await;
    assert_eq!(
        r,
        ToolResult::ok("edited `f.rs`: replaced 1 occurrence at line 2")
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "let a = 1;\nlet b = 42;\nlet c = 2;\n"
    );
}

#[tokio::test]
async fn list_dir_marks_folders() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("b.txt"), "").expect("write");
    std::fs::write(dir.path().join("a.txt"), "").expect("write");
    let t = tools_in(dir.path());
    let r = t
        .run(&call("list_dir", json!({"path": "."})), &CancelToken::new())
        .await;
    assert_eq!(r, ToolResult::ok("a.txt\nb.txt\nsub/\n"));
}

#[tokio::test]
async fn malformed_calls_are_errors_never_panics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let cancel = CancelToken::new();
    for c in [
        call("bash", json!({"command": ["ls"]})),
        call("bash", json!({})),
        call("nope", json!({"path": "x"})),
        call("read_file", json!({"path": "x", "offset": 1.5})),
        call("edit_file", json!({"path": "x", "old_string": "a"})),
    ] {
        assert!(t.validate(&c).is_err(), "{c:?}");
        let r = t.run(&c, &cancel).await;
        assert_eq!(r.status, ResultStatus::Error, "{c:?}");
        assert!(r.content.starts_with("malformed call: "), "{}", r.content);
    }
}

#[tokio::test]
async fn the_registry_denies_a_call_the_tools_reject() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = tools_in(dir.path());
    let registry = HookRegistry::new(ModeHandle::default());
    let e = registry
        .execute(
            HookContext::default(),
            call("write_file", json!({"path": "x.txt", "contents": "hi"})),
            &t,
        )
        .await;
    assert_eq!(e.result.status, ResultStatus::Denied);
    assert!(
        e.result
            .content
            .contains("has no argument `contents` (did you mean `content`?)"),
        "{}",
        e.result.content
    );
    assert!(!dir.path().join("x.txt").exists());
}

#[test]
fn every_spec_is_a_json_schema_object_the_tools_accept() {
    let t = Tools::new("/");
    for s in specs() {
        assert_eq!(s.parameters["type"], "object", "{}", s.name);
        // A call with every required argument as a string is accepted.
        let mut args = serde_json::Map::new();
        for r in s.parameters["required"].as_array().expect("required") {
            let key = r.as_str().expect("a name");
            args.insert(key.to_string(), json!("x"));
        }
        let c = ToolCall::new(s.name.clone(), args);
        assert_eq!(t.validate(&c), Ok(()), "{}", s.name);
    }
}

// ---- `bash` contained: the real sandbox (bubblewrap) ---------------------------------------

/// A project and a home below Cargo's target folder (the sandbox replaces the temporary
/// folder), the tools working in the project, and how to contain a call there. Fails, never
/// skips, where the sandbox is not available.
#[cfg(target_os = "linux")]
struct Contained {
    _dir: tempfile::TempDir,
    proj: std::path::PathBuf,
    home: std::path::PathBuf,
    how: harness9::runtime::Containment,
}

#[cfg(target_os = "linux")]
fn contained_world() -> Contained {
    let support = harness9::sandbox::support();
    assert!(
        support.is_available(),
        "the sandbox is not available here, so a contained run cannot be tested: {support}"
    );
    let dir = tempfile::Builder::new()
        .prefix("tools-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (proj, home) = (root.join("proj"), root.join("home"));
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let engine = harness9::Engine::builder()
        .default_policy()
        .context(harness9::PathContext::new(proj.clone(), Some(home.clone())))
        .build()
        .unwrap();
    Contained {
        _dir: dir,
        proj,
        home,
        how: harness9::runtime::Containment {
            profile: "default".into(),
            engine: std::sync::Arc::new(engine),
        },
    }
}

#[cfg(target_os = "linux")]
impl Contained {
    fn tools(&self) -> Tools {
        Tools::with_home(&self.proj, Some(self.home.clone())).timeout(Duration::from_secs(20))
    }

    async fn run(&self, t: &Tools, command: &str) -> harness9::runtime::ContainedRun {
        self.run_with(t, command, &CancelToken::new()).await
    }

    async fn run_with(
        &self,
        t: &Tools,
        command: &str,
        cancel: &CancelToken,
    ) -> harness9::runtime::ContainedRun {
        t.run_contained(
            &call("bash", json!({ "command": command })),
            &self.how,
            cancel,
        )
        .await
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn contained_bash_reports_output_and_exit_code_and_writes_the_project() {
    let w = contained_world();
    let t = w.tools();
    assert!(t.contains(&call("bash", json!({"command": "true"}))));
    let r = w
        .run(&t, "echo hello; echo oops >&2; echo made > made.txt")
        .await;
    assert_eq!(r.result.status, ResultStatus::Ok, "{}", r.result.content);
    assert!(r.result.content.contains("hello\n"), "{}", r.result.content);
    assert!(r.result.content.contains("oops\n"), "{}", r.result.content);
    assert!(r.result.content.ends_with("[exit code 0]"));
    assert_eq!(r.sandbox_sign, None);
    assert_eq!(
        std::fs::read_to_string(w.proj.join("made.txt")).unwrap(),
        "made\n"
    );
    // A plain failure: its exit code, and no claim that the sandbox caused it.
    let r = w.run(&t, "echo 'test result: FAILED'; exit 3").await;
    assert_eq!(r.result.status, ResultStatus::Error);
    assert!(
        r.result.content.ends_with("[exit code 3]"),
        "{}",
        r.result.content
    );
    assert_eq!(r.sandbox_sign, None);
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn contained_bash_cannot_write_home_and_says_the_sandbox_did_it() {
    let w = contained_world();
    // The test's own home, named whole: the process's `$HOME` is never written.
    let write = format!("echo x > '{}'", w.home.join(".bashrc").display());
    let r = w.run(&w.tools(), &write).await;
    assert_eq!(r.result.status, ResultStatus::Error);
    assert!(!w.home.join(".bashrc").exists());
    let sign = r.sandbox_sign.expect("the sandbox's doing");
    assert!(sign.contains("Read-only file system"), "{sign}");
    // The same command run free writes it: the sandbox made the difference.
    let free = bash(&w.tools(), &write).await;
    assert_eq!(free.status, ResultStatus::Ok, "{}", free.content);
    assert!(w.home.join(".bashrc").exists());
}

/// Whether a file stops growing: what was writing it is gone.
#[cfg(target_os = "linux")]
async fn stops_growing(path: &Path) -> bool {
    let size = || std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = size();
    tokio::time::sleep(Duration::from_millis(700)).await;
    before > 0 && size() == before
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn contained_bash_timeout_and_cancel_kill_the_sandbox_and_what_it_started() {
    let w = contained_world();
    let ticking = "echo started; (while true; do echo x >> ticks; sleep 0.1; done) & sleep 30";
    let t = w.tools().timeout(Duration::from_millis(800));
    let start = Instant::now();
    let r = w.run(&t, ticking).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.result.status, ResultStatus::Error);
    assert!(r.result.content.contains("started"), "{}", r.result.content);
    assert!(
        r.result.content.contains("timed out after 800ms"),
        "{}",
        r.result.content
    );
    assert_eq!(r.sandbox_sign, None, "a timeout is not the sandbox's doing");
    assert!(
        stops_growing(&w.proj.join("ticks")).await,
        "the background loop died"
    );

    std::fs::remove_file(w.proj.join("ticks")).unwrap();
    let cancel = CancelToken::new();
    let t = w.tools();
    let (r, ()) = tokio::join!(w.run_with(&t, ticking, &cancel), async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        cancel.cancel();
    });
    assert!(
        r.result.content.contains("cancelled"),
        "{}",
        r.result.content
    );
    assert!(
        stops_growing(&w.proj.join("ticks")).await,
        "the background loop died"
    );
}
