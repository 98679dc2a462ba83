//! End to end with the real hosts: the Claude Code, Gemini CLI, Codex CLI and Copilot CLI
//! releases pinned in `tests/hosts/versions.env` (npm `@anthropic-ai/claude-code`,
//! `@google/gemini-cli`, `@openai/codex`, `@github/copilot`, installed into `target/hosts` by
//! `tests/hosts/install.sh`), each run non-interactively (`-p`, `codex exec`) in a temporary
//! project with a temporary HOME, against
//! a scripted model server on 127.0.0.1, with harness9 installed as its hook by `harness9
//! install AGENT --shared` (the hook names `harness9`, found on the PATH the host gets; nothing
//! else is configured: the hook finds the project's policy itself).
//!
//! The model server answers by a script: while the conversation holds fewer tool results than
//! the script has calls, the next call; then a final text. It records every request, so the
//! tests read what the model was told: the command's output for an allow, harness9's reason for
//! a deny or an ask. Claude Code speaks the Messages API (`ANTHROPIC_BASE_URL`, streamed as
//! server-sent events); Gemini CLI the Gemini API (`GOOGLE_GEMINI_BASE_URL`,
//! `streamGenerateContent?alt=sse`); Codex the Responses API (a custom provider in its
//! `config.toml`, `wire_api = "responses"`), and Copilot CLI too (its custom provider,
//! `COPILOT_PROVIDER_BASE_URL`, which needs no GitHub sign-in).
//!
//! The project policy (`.harness9/hosts-e2e.policy`) is complete on its own: its own rules and
//! `default ask;`. It allows `touch` and `echo`, denies `mkdir`, and asks about `cp`, so the
//! scenarios do not depend on the shipped default policy. The task-tracker scenarios run in a
//! project without policy files, where the hook's table of each host's harmless tools applies.
//!
//! How the hosts are run, and why:
//! - Claude Code: `claude -p … --output-format json`, `ANTHROPIC_API_KEY=dummy`, telemetry,
//!   updater and nonessential traffic off. It needs no onboarding state in `-p` mode, and it runs
//!   the project's hooks without a trust prompt. Its task tracker (`TaskCreate` …) is only
//!   offered to the model in a non-interactive session with `CLAUDE_CODE_ENABLE_TODO_TOOLS=1`,
//!   and then as a deferred tool (listed by name; the call works without loading its schema).
//! - Gemini CLI: `gemini -p … --output-format json --approval-mode yolo -m gemini-2.5-pro` with
//!   `GEMINI_API_KEY=dummy`, the user settings choosing API-key auth, and
//!   `GEMINI_CLI_TRUST_WORKSPACE=true` (an untrusted folder's hooks are not run; without it a
//!   headless run exits 55). Without `yolo` a headless run leaves `run_shell_command`,
//!   `write_file` and `write_todos` out of the tools it offers, so harness9 is the only gate
//!   here, as with a guard policy. The model is named because the default (`auto`) first asks
//!   a routing classifier (`generateContent` on a small model), whose retries on a scripted
//!   answer take over a minute. `GEMINI_CLI_NO_RELAUNCH=true` keeps it one process.
//! - Gemini CLI has no hook after a tool for `install` to add, so only Claude Code's audit log
//!   has outcome lines.
//! - A hook's `ask` in headless Gemini CLI 0.61 waits for a confirmation that no one can give
//!   (`waitForConfirmation` on its message bus): as one process the run just ends (exit 0,
//!   nothing printed, the model never told); relaunched as its own child it waits until
//!   killed. The test pins that the command does not run, and `--ask-as deny` (the advice for
//!   headless runs) in a hook command edited by hand, with which the model gets the reason.
//!
//! When a CLI is not installed (or not at the pinned version), its tests print why and pass;
//! with `HARNESS9_HOST_TESTS=require` (CI) that is a failure. `HARNESS9_CLAUDE_BIN`,
//! `HARNESS9_GEMINI_BIN`, `HARNESS9_CODEX_BIN` and `HARNESS9_COPILOT_BIN` point the tests at
//! other binaries (any version).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The longest a host's run may take; it is killed after this.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest a Gemini CLI run that may wait for a confirmation nobody can give is left running.
const ASK_WAIT: Duration = Duration::from_secs(20);

/// The model's answer once the script is done.
const FINAL_TEXT: &str = "hosts-e2e: the scripted turn is over";

/// The project policy of the Bash scenarios: complete on its own.
const POLICY: &str = r#"# The end-to-end test's project policy: it needs nothing from the shipped defaults.
allow bash(program "touch");
allow bash(program "echo");
deny bash(program "mkdir") reason "hosts-e2e: mkdir is denied in this project";
ask bash(program "cp") reason "hosts-e2e: cp needs a person";
default ask;
"#;

/// A policy file that does not parse.
const BROKEN_POLICY: &str = "allow bash(\n";

const ALLOWED: &str = "touch ran.marker && echo hosts-e2e-allowed-output";
const ALLOWED_OUTPUT: &str = "hosts-e2e-allowed-output";
/// A command that changes nothing, which Claude Code's own rules run once `Bash` is allowed.
const ECHOED: &str = "echo hosts-e2e-allowed-output";
const DENIED: &str = "mkdir denied.marker";
const DENY_REASON: &str = "hosts-e2e: mkdir is denied in this project";
const ASKED: &str = "cp /dev/null asked.marker";
const ASK_REASON: &str = "hosts-e2e: cp needs a person";
const ASK_PREFIX: &str = "needs a person's approval";
const BLOCKED_BY_BROKEN: &str = "touch broken.marker";

// ---------------------------------------------------------------------------------------------
// The host CLIs: where they are, whether the tests run.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Host {
    Claude,
    Gemini,
    Codex,
    Copilot,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Host::Claude => "Claude Code",
            Host::Gemini => "Gemini CLI",
            Host::Codex => "Codex CLI",
            Host::Copilot => "Copilot CLI",
        }
    }

    fn override_var(self) -> &'static str {
        match self {
            Host::Claude => "HARNESS9_CLAUDE_BIN",
            Host::Gemini => "HARNESS9_GEMINI_BIN",
            Host::Codex => "HARNESS9_CODEX_BIN",
            Host::Copilot => "HARNESS9_COPILOT_BIN",
        }
    }

    fn pinned_version(self) -> String {
        let key = match self {
            Host::Claude => "CLAUDE_CODE_VERSION",
            Host::Gemini => "GEMINI_CLI_VERSION",
            Host::Codex => "CODEX_VERSION",
            Host::Copilot => "COPILOT_VERSION",
        };
        include_str!("hosts/versions.env")
            .lines()
            .filter_map(|l| l.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
            .expect("tests/hosts/versions.env names every host's version")
    }

    fn default_bin(self) -> PathBuf {
        let name = match self {
            Host::Claude => "claude",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
            Host::Copilot => "copilot",
        };
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/hosts/node_modules/.bin")
            .join(name)
    }

    /// The binary to run, or why there is none.
    fn find(self) -> Result<PathBuf, String> {
        let (bin, pinned) = match std::env::var_os(self.override_var()) {
            Some(b) => (PathBuf::from(b), None),
            None => (self.default_bin(), Some(self.pinned_version())),
        };
        if !bin.is_file() {
            return Err(format!(
                "{} is not installed at {} (run tests/hosts/install.sh, or set {})",
                self.name(),
                bin.display(),
                self.override_var()
            ));
        }
        let home = tempfile::tempdir().map_err(|e| format!("a temp dir: {e}"))?;
        let out = Command::new(&bin)
            .arg("--version")
            .env("HOME", home.path())
            .env("GEMINI_CLI_NO_RELAUNCH", "true")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{} at {} does not start: {e}", self.name(), bin.display()))?;
        // `2.1.332 (Claude Code)`, `0.61.0`, `codex-cli 0.171.0`, `GitHub Copilot CLI
        // 1.0.102.`: the first word that is a version.
        let version = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .unwrap_or("")
            .trim_end_matches('.')
            .to_string();
        if !out.status.success() || version.is_empty() {
            return Err(format!(
                "`{} --version` failed ({}): {}",
                bin.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if let Some(pinned) = pinned {
            if version != pinned {
                return Err(format!(
                    "{} at {} is {version}, not the pinned {pinned} (run tests/hosts/install.sh)",
                    self.name(),
                    bin.display()
                ));
            }
        }
        eprintln!("{} {version} at {}", self.name(), bin.display());
        Ok(bin)
    }

    /// The binary, or `None` when the test is skipped; a failure under
    /// `HARNESS9_HOST_TESTS=require`.
    fn bin(self) -> Option<PathBuf> {
        static FOUND: OnceLock<Mutex<HashMap<&'static str, Result<PathBuf, String>>>> =
            OnceLock::new();
        let found = FOUND.get_or_init(Default::default);
        let result = found
            .lock()
            .expect("not poisoned")
            .entry(self.name())
            .or_insert_with(|| self.find())
            .clone();
        match result {
            Ok(bin) => Some(bin),
            Err(why) if std::env::var("HARNESS9_HOST_TESTS").as_deref() == Ok("require") => {
                panic!("HARNESS9_HOST_TESTS=require, but {why}")
            }
            Err(why) => {
                eprintln!("skipped: {why}");
                None
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The scripted model server.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    /// Anthropic's Messages API, streamed.
    Anthropic,
    /// The Gemini API (`streamGenerateContent?alt=sse`, `generateContent`, `countTokens`).
    Gemini,
    /// OpenAI's Responses API, streamed (Codex's custom providers).
    Responses,
}

/// One tool call the model makes.
#[derive(Clone, Debug)]
struct ScriptedCall {
    name: &'static str,
    input: Value,
}

fn call(name: &'static str, input: Value) -> ScriptedCall {
    ScriptedCall { name, input }
}

/// A request the server received.
#[derive(Clone, Debug)]
struct Recorded {
    path: String,
    body: Value,
}

struct ModelServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl ModelServer {
    fn start(api: Api, script: Vec<ScriptedCall>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
        let addr = listener.local_addr().expect("the server's address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script = Arc::new(script);
        {
            let (requests, stop) = (requests.clone(), stop.clone());
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, script) = (requests.clone(), script.clone());
                    thread::spawn(move || serve(stream, api, &script, &requests));
                }
            });
        }
        ModelServer {
            addr,
            requests,
            stop,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("not poisoned").clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// One HTTP request on `stream`, answered, then the connection is closed.
fn serve(mut stream: TcpStream, api: Api, script: &[ScriptedCall], log: &Mutex<Vec<Recorded>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Some((method, path, body)) = read_request(&mut reader) else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    log.lock().expect("not poisoned").push(Recorded {
        path: path.clone(),
        body: body.clone(),
    });
    let (status, content_type, payload) = if method != "POST" {
        (
            "404 Not Found",
            "application/json",
            r#"{"error":"not here"}"#.to_string(),
        )
    } else {
        match api {
            Api::Anthropic => anthropic_answer(&path, &body, script),
            Api::Gemini => gemini_answer(&path, &body, script),
            Api::Responses => responses_answer(&path, &body, script),
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(payload.as_bytes());
    let _ = stream.flush();
}

/// The method, path and body of one request (`Content-Length` or chunked).
fn read_request(reader: &mut impl BufRead) -> Option<(String, String, Vec<u8>)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((method, path, body))
}

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// The id of the `n`th scripted call in the Messages API.
fn tool_use_id(n: usize) -> String {
    format!("toolu_hosts_e2e_{n}")
}

/// The Messages API's answer: the next scripted call, or the final text.
fn anthropic_answer(
    path: &str,
    body: &Value,
    script: &[ScriptedCall],
) -> (&'static str, &'static str, String) {
    if path.contains("count_tokens") {
        return (
            "200 OK",
            "application/json",
            json!({"input_tokens": 10}).to_string(),
        );
    }
    if !path.starts_with("/v1/messages") {
        return (
            "404 Not Found",
            "application/json",
            json!({"error": "not here"}).to_string(),
        );
    }
    let answered = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|c| c["type"] == "tool_result")
        .count();
    let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let model = body["model"].as_str().unwrap_or("scripted");
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_hosts_e2e_{answered}"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )];
    let stop_reason = match script.get(answered).filter(|_| offers_tools) {
        Some(c) => {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "tool_use", "id": tool_use_id(answered), "name": c.name, "input": {}}}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "input_json_delta", "partial_json": c.input.to_string()}}),
            ));
            "tool_use"
        }
        None => {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "text", "text": ""}}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "text_delta", "text": FINAL_TEXT}}),
            ));
            "end_turn"
        }
    };
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    ("200 OK", "text/event-stream", sse(&events))
}

/// The Gemini API's answer: the next scripted call, or the final text.
fn gemini_answer(
    path: &str,
    body: &Value,
    script: &[ScriptedCall],
) -> (&'static str, &'static str, String) {
    if path.contains(":countTokens") {
        return (
            "200 OK",
            "application/json",
            json!({"totalTokens": 10}).to_string(),
        );
    }
    let answered = body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter(|p| p.get("functionResponse").is_some())
        .count();
    let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let stream = path.contains(":streamGenerateContent");
    let part = match script.get(answered).filter(|_| offers_tools && stream) {
        Some(c) => json!({"functionCall": {"name": c.name, "args": c.input}}),
        // A side request that wants JSON (the next-speaker check) gets an answer it can read.
        None if !stream => {
            json!({"text": json!({"next_speaker": "user", "reasoning": FINAL_TEXT}).to_string()})
        }
        None => json!({"text": FINAL_TEXT}),
    };
    let answer = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "hosts-e2e",
    });
    if stream {
        (
            "200 OK",
            "text/event-stream",
            format!("data: {answer}\r\n\r\n"),
        )
    } else {
        ("200 OK", "application/json", answer.to_string())
    }
}

/// The id of the `n`th scripted call in the Responses API.
fn call_id(n: usize) -> String {
    format!("call_hosts_e2e_{n}")
}

/// The Responses API's answer: the next scripted call (a function call, or for a string input
/// a custom tool call: `apply_patch`), or the final text.
fn responses_answer(
    path: &str,
    body: &Value,
    script: &[ScriptedCall],
) -> (&'static str, &'static str, String) {
    if !path.ends_with("/responses") {
        return (
            "404 Not Found",
            "application/json",
            json!({"error": "not here"}).to_string(),
        );
    }
    let answered = body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| {
            i["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("_call_output"))
        })
        .count();
    let item = match script.get(answered) {
        Some(c) => match &c.input {
            Value::String(text) => json!({"type": "custom_tool_call", "name": c.name,
                "input": text, "call_id": call_id(answered), "id": format!("ctc_{answered}")}),
            args => json!({"type": "function_call", "name": c.name,
                "arguments": args.to_string(), "call_id": call_id(answered),
                "id": format!("fc_{answered}")}),
        },
        None => json!({"type": "message", "role": "assistant", "id": "msg_hosts_e2e",
            "content": [{"type": "output_text", "text": FINAL_TEXT}]}),
    };
    // Codex reads the item when it is done; Copilot CLI also wants it added, and the whole
    // output again with the completed response.
    let events = [
        (
            "response.created",
            json!({"type": "response.created", "sequence_number": 0, "response":
                {"id": "resp_hosts_e2e", "object": "response", "status": "in_progress",
                 "output": []}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "sequence_number": 1,
                   "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "sequence_number": 2,
                   "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "sequence_number": 3, "response":
                {"id": "resp_hosts_e2e", "object": "response", "status": "completed",
                 "model": body["model"], "output": [item],
                 "usage": {"input_tokens": 10, "input_tokens_details": null,
                           "output_tokens": 5, "output_tokens_details": null,
                           "total_tokens": 15}}}),
        ),
    ];
    ("200 OK", "text/event-stream", sse(&events))
}

// ---------------------------------------------------------------------------------------------
// A project with the hook installed, and one run of a host in it.

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// A project with a home folder of its own, with `policy` (if any) as its only policy file.
    fn new(policy: Option<&str>) -> Project {
        Project::in_dir(tempfile::tempdir().expect("a temp dir"), policy)
    }

    /// [`Project::new`] outside the temporary folder (in Cargo's own, below `target/`): a
    /// contained command gets a private `/tmp`, where a home below `/tmp` would not be the
    /// real one, so that a write to it would not show whether the sandbox stopped it.
    fn outside_tmp(policy: Option<&str>) -> Project {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temp dir");
        Project::in_dir(dir, policy)
    }

    fn in_dir(dir: tempfile::TempDir, policy: Option<&str>) -> Project {
        let project = Project { dir };
        std::fs::create_dir_all(project.home()).expect("the home folder");
        std::fs::create_dir_all(project.cwd()).expect("the project folder");
        if let Some(text) = policy {
            project.write(".harness9/hosts-e2e.policy", text);
        }
        project
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn cwd(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.cwd().join(rel);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("the folder");
        std::fs::write(&p, text).expect("the file");
    }

    fn exists(&self, rel: &str) -> bool {
        self.cwd().join(rel).symlink_metadata().is_ok()
    }

    /// The folder on the hosts' `PATH` that holds `harness9` (a link to the binary under
    /// test), as a teammate's machine has it.
    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// Takes harness9 off this machine: the program the shared hook names is gone.
    fn remove_harness9(&self) {
        std::fs::remove_file(self.bin().join("harness9")).expect("harness9 was there");
    }

    /// `harness9 install AGENT --shared` in the project, as a team runs it (the hook names
    /// `harness9`, found on PATH); returns the settings file.
    fn install(&self, agent: &str) -> PathBuf {
        self.install_with(agent, &[])
    }

    /// [`Project::install`] with more options (`--sandbox`).
    fn install_with(&self, agent: &str, options: &[&str]) -> PathBuf {
        std::fs::create_dir_all(self.bin()).expect("the bin folder");
        let linked = self.bin().join("harness9");
        if linked.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_harness9"), &linked)
                .expect("harness9 linked into the bin folder");
        }
        let out = Command::new(&linked)
            .args(["install", agent, "--shared"])
            .args(options)
            .current_dir(self.cwd())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .output()
            .expect("harness9 runs");
        assert!(
            out.status.success(),
            "harness9 install {agent} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let settings = match agent {
            "claude-code" => self.cwd().join(".claude/settings.json"),
            "codex" => self.cwd().join(".codex/hooks.json"),
            "copilot" => self.cwd().join(".github/hooks/harness9.json"),
            _ => self.cwd().join(".gemini/settings.json"),
        };
        let text = std::fs::read_to_string(&settings).expect("install wrote the settings");
        let hook: String = options.iter().map(|o| format!(" {o}")).collect();
        assert!(
            text.contains(&format!("; harness9 hook {agent}{hook} || exit 2")),
            "the shared hook runs harness9 by name and fails closed: {text}"
        );
        settings
    }

    /// The lines of the project's audit log, in the state folder of its home.
    fn audit(&self) -> Vec<Value> {
        let log = self
            .home()
            .join(".local/state/harness9")
            .join(harness9::audit::project_key(&self.cwd()))
            .join("audit.jsonl");
        let text = std::fs::read_to_string(log).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
            .collect()
    }
}

/// What a host's run left behind.
struct Run {
    /// `None`: still running at the deadline, so it was killed.
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    requests: Vec<Recorded>,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "status {:?}\n--- stdout\n{}\n--- stderr\n{}\n--- {} requests: {:?}",
            self.status,
            self.stdout,
            tail(&self.stderr, 4000),
            self.requests.len(),
            self.requests
                .iter()
                .map(|r| r.path.as_str())
                .collect::<Vec<_>>()
        )
    }

    fn assert_finished(&self) {
        assert!(
            self.status.is_some_and(|s| s.success()),
            "the host's run did not finish well: {}",
            self.describe()
        );
    }
}

fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Runs `command` in its own process group; past `timeout` the group is killed.
fn run(mut command: Command, dir: &Path, server: &ModelServer, timeout: Duration) -> Run {
    let out_path = dir.join("host.stdout");
    let err_path = dir.join("host.stderr");
    command
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("the stdout file"))
        .stderr(File::create(&err_path).expect("the stderr file"))
        .process_group(0);
    let mut child = command.spawn().expect("the host CLI starts");
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the host") {
            break Some(s);
        }
        if Instant::now() >= deadline {
            // The whole group: the host and whatever it started (hooks, shells).
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    Run {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        requests: server.requests(),
    }
}

/// The environment both hosts start from: no variable of the caller but `PATH` (node, the
/// shell's tools) and a temporary folder, and a HOME of the project's own.
fn base_command(bin: &Path, project: &Project) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(project.cwd())
        .env_clear()
        .env("HOME", project.home())
        .env("XDG_CONFIG_HOME", project.home().join(".config"))
        .env("LANG", "C.UTF-8");
    // harness9 is found on PATH, as on a machine it is installed on.
    let mut path = vec![project.bin()];
    if let Some(v) = std::env::var_os("PATH") {
        path.extend(std::env::split_paths(&v));
    }
    c.env("PATH", std::env::join_paths(path).expect("a PATH"));
    if let Some(v) = std::env::var_os("TMPDIR") {
        c.env("TMPDIR", v);
    }
    c
}

// ---------------------------------------------------------------------------------------------
// Claude Code.

/// `claude -p` in `project` (harness9's hook installed) against a server playing `script`.
fn claude(project: &Project, script: Vec<ScriptedCall>) -> Option<Run> {
    claude_after(project, script, |_| {})
}

/// [`claude`], with `after_install` run on the project between the install and the run.
fn claude_after(
    project: &Project,
    script: Vec<ScriptedCall>,
    after_install: impl Fn(&Path),
) -> Option<Run> {
    claude_installed(project, script, after_install, &[])
}

/// [`claude_after`], with the hook installed with `options` (`--sandbox`).
fn claude_installed(
    project: &Project,
    script: Vec<ScriptedCall>,
    after_install: impl Fn(&Path),
    options: &[&str],
) -> Option<Run> {
    let bin = Host::Claude.bin()?;
    let settings = project.install_with("claude-code", options);
    after_install(&settings);
    let server = ModelServer::start(Api::Anthropic, script);
    let mut c = base_command(&bin, project);
    c.args([
        "-p",
        "hosts-e2e: do the scripted step",
        "--output-format",
        "json",
    ])
    .env("ANTHROPIC_BASE_URL", server.url())
    .env("ANTHROPIC_API_KEY", "dummy")
    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    .env("DISABLE_TELEMETRY", "1")
    .env("DISABLE_AUTOUPDATER", "1")
    .env("DISABLE_ERROR_REPORTING", "1")
    // The task tracker is offered in non-interactive sessions only with this.
    .env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1");
    Some(run(c, project.dir.path(), &server, RUN_TIMEOUT))
}

fn bash(command: &str) -> ScriptedCall {
    call(
        "Bash",
        json!({"command": command, "description": "the scripted step"}),
    )
}

/// What the model was told about the `n`th scripted call: the tool result's text and whether
/// it is an error.
fn claude_tool_result(run: &Run, n: usize) -> (String, bool) {
    let id = tool_use_id(n);
    let found = run
        .requests
        .iter()
        .rev()
        .flat_map(|r| r.body["messages"].as_array().into_iter().flatten())
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|c| c["type"] == "tool_result" && c["tool_use_id"] == id.as_str());
    let Some(result) = found else {
        panic!("the model never got the result of {id}: {}", run.describe());
    };
    let text = match &result["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    };
    (text, result["is_error"].as_bool().unwrap_or(false))
}

/// The final result Claude Code printed (`--output-format json`).
fn claude_result(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "claude's output is not one JSON object ({e}): {}",
            run.describe()
        )
    })
}

/// The audit lines about the call with this id.
fn audit_for(project: &Project, id: &str) -> Vec<Value> {
    project
        .audit()
        .into_iter()
        .filter(|l| l["call_id"] == id)
        .collect()
}

fn decisions(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l["decision"].as_str())
        .collect()
}

fn outcomes(lines: &[Value]) -> Vec<&str> {
    lines.iter().filter_map(|l| l["outcome"].as_str()).collect()
}

#[test]
fn claude_code_runs_a_bash_command_the_project_policy_allows_and_logs_that_it_ran() {
    let project = Project::new(Some(POLICY));
    let Some(run) = claude(&project, vec![bash(ALLOWED)]) else {
        return;
    };
    run.assert_finished();
    assert!(
        project.exists("ran.marker"),
        "the command ran: {}",
        run.describe()
    );
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(
        !is_error && text.contains(ALLOWED_OUTPUT),
        "the model sees the output: {text}"
    );
    assert_eq!(claude_result(&run)["result"], FINAL_TEXT);
    let lines = audit_for(&project, &tool_use_id(0));
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
    assert_eq!(
        outcomes(&lines),
        ["ran"],
        "the PostToolUse hook logged the outcome: {lines:?}"
    );
    let decision = &lines[0];
    assert_eq!(decision["tool"], "Bash");
    assert_eq!(decision["input"], ALLOWED);
    assert_eq!(decision["rule"], ".harness9/hosts-e2e.policy:2");
    // The log is not the repository's: nothing but the policy is in `.harness9/`.
    let names: Vec<_> = std::fs::read_dir(project.cwd().join(".harness9"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["hosts-e2e.policy"], "{names:?}");
}

#[test]
fn claude_code_does_not_run_a_denied_command_and_the_model_sees_harness9s_reason() {
    let project = Project::new(Some(POLICY));
    let Some(run) = claude(&project, vec![bash(DENIED)]) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("denied.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(is_error, "a deny is an error result: {text}");
    assert!(
        text.contains(DENY_REASON) && text.contains("the call was not run"),
        "the model sees harness9's reason: {text}"
    );
    let lines = audit_for(&project, &tool_use_id(0));
    assert_eq!(decisions(&lines), ["deny"], "audit: {lines:?}");
    assert!(
        outcomes(&lines).is_empty(),
        "no outcome for a call that did not run: {lines:?}"
    );
}

#[test]
fn claude_code_does_not_run_an_asked_command_in_print_mode_and_the_model_sees_why() {
    let project = Project::new(Some(POLICY));
    let Some(run) = claude(&project, vec![bash(ASKED)]) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("asked.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(is_error, "an unanswered ask is an error result: {text}");
    assert!(
        text.starts_with(ASK_PREFIX) && text.contains(ASK_REASON) && text.contains("was not run"),
        "the model sees that a person must approve it, and why: {text}"
    );
    // Claude Code says nobody attends a `-p` run: the wording is for the model alone.
    assert!(
        text.contains("ask the user") && !text.contains("If nobody can approve it here"),
        "{text}"
    );
    let lines = audit_for(&project, &tool_use_id(0));
    assert_eq!(decisions(&lines), ["ask"], "audit: {lines:?}");
    assert!(
        outcomes(&lines).is_empty(),
        "no outcome for a call that did not run: {lines:?}"
    );
}

#[test]
fn claude_code_runs_its_task_tracker_without_a_prompt() {
    // No policy file: the hook's table of Claude Code's harmless tools applies.
    let project = Project::new(None);
    let task = call(
        "TaskCreate",
        json!({"subject": "hosts-e2e task", "description": "made by the scripted model"}),
    );
    let Some(run) = claude(&project, vec![task]) else {
        return;
    };
    run.assert_finished();
    let first = run.requests.first().expect("a request").body.to_string();
    assert!(
        first.contains("TaskCreate"),
        "this Claude Code release offers `TaskCreate` (renamed? see the tools it sends): {}",
        tail(&first, 3000)
    );
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(
        !is_error && text.contains("hosts-e2e task"),
        "the task was created: {text}"
    );
    let lines = audit_for(&project, &tool_use_id(0));
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
    assert_eq!(outcomes(&lines), ["ran"], "audit: {lines:?}");
}

#[test]
fn claude_code_is_blocked_by_a_project_policy_that_does_not_load() {
    let project = Project::new(Some(POLICY));
    project.write(".harness9/broken.policy", BROKEN_POLICY);
    // The complete policy alone would allow this.
    let Some(run) = claude(&project, vec![bash(BLOCKED_BY_BROKEN)]) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("broken.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(is_error, "a blocked call is an error result: {text}");
    assert!(
        text.contains("broken.policy") && text.contains("the tool call is blocked"),
        "the model sees which policy failed and that the call was blocked: {text}"
    );
}

/// Lets Claude Code run every Bash command by its own rules, so that only the hook can stop
/// one: a hook that fails open shows as a command that ran.
fn allow_bash_in_claude_code(settings: &Path) {
    let text = std::fs::read_to_string(settings).unwrap();
    let text = text.replacen('{', "{\n  \"permissions\": { \"allow\": [\"Bash\"] },", 1);
    std::fs::write(settings, text).unwrap();
}

#[test]
fn claude_code_blocks_the_call_when_harness9_is_removed_after_a_shared_install() {
    let project = Project::new(Some(POLICY));
    // The complete policy would allow this, and so would Claude Code's own rules; without
    // harness9 nothing may run.
    let Some(run) = claude_after(&project, vec![bash(ECHOED)], |settings| {
        allow_bash_in_claude_code(settings);
        project.remove_harness9();
    }) else {
        return;
    };
    run.assert_finished();
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(
        is_error && !text.contains(ALLOWED_OUTPUT),
        "the command did not run: {text}"
    );
    assert!(
        text.contains("harness9 is not installed here"),
        "the model sees why the call was blocked: {text}"
    );
}

#[test]
fn claude_code_on_failure_block_stops_a_call_whose_hook_cannot_start() {
    // The host's own fail-closed option, without the command's guard: a hook command whose
    // program is missing exits 127, which Claude Code would take as no decision.
    let project = Project::new(Some(POLICY));
    let bare = |settings: &Path| {
        let text = std::fs::read_to_string(settings).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let installed = v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"], "block",
            "install sets Claude Code's fail-closed option: {text}"
        );
        let text = text.replace(
            &serde_json::to_string(&installed).unwrap(),
            "\"harness9-missing hook claude-code\"",
        );
        std::fs::write(settings, text).unwrap();
        allow_bash_in_claude_code(settings);
    };
    let Some(run) = claude_after(&project, vec![bash(ECHOED)], bare) else {
        return;
    };
    run.assert_finished();
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(
        is_error && !text.contains(ALLOWED_OUTPUT),
        "the command did not run: {text}"
    );
}

/// A project script the shipped default policy runs contained (`bash build.sh`: "runs a
/// script of the project's"). It builds in the project, then tries to leave it: append to
/// `~/.bashrc`, connect to a listener on 127.0.0.1 (`PORT`), and says how each went.
const BUILD_SCRIPT: &str = r#"echo built > built.marker && echo "hosts-e2e: built in $(pwd)"
if echo 'hosts-e2e was here' >> "$HOME/.bashrc" 2>/dev/null; then
  echo 'hosts-e2e: bashrc written'
else
  echo 'hosts-e2e: bashrc refused'
fi
if (exec 3<>/dev/tcp/127.0.0.1/PORT) 2>/dev/null; then
  echo 'hosts-e2e: network reached'
else
  echo 'hosts-e2e: network refused'
fi
"#;
const CONTAINED: &str = "bash build.sh";
const BASHRC: &str = "# the person's own\n";

/// A project outside the temporary folder with [`BUILD_SCRIPT`] aimed at `listener`, and a
/// `~/.bashrc` of the person's.
fn contained_project(listener: &TcpListener) -> Project {
    let project = Project::outside_tmp(None);
    let port = listener
        .local_addr()
        .expect("the listener's address")
        .port();
    project.write("build.sh", &BUILD_SCRIPT.replace("PORT", &port.to_string()));
    std::fs::write(project.home().join(".bashrc"), BASHRC).expect("the bashrc");
    project
}

fn bashrc(project: &Project) -> String {
    std::fs::read_to_string(project.home().join(".bashrc")).expect("the bashrc")
}

#[test]
fn contained_scripts_escape_when_run_plainly() {
    // What the sandbox must stop is possible without it: the script, run as it is, writes
    // `~/.bashrc` and reaches the listener.
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let project = contained_project(&listener);
    let out = Command::new("bash")
        .arg("build.sh")
        .current_dir(project.cwd())
        .env("HOME", project.home())
        .output()
        .expect("bash runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("hosts-e2e: bashrc written") && said.contains("hosts-e2e: network reached"),
        "{said}"
    );
    assert_ne!(bashrc(&project), BASHRC);
}

#[test]
fn claude_code_with_sandbox_runs_a_contained_script_whose_escapes_fail_and_shows_its_output() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let project = contained_project(&listener);
    let Some(run) = claude_installed(&project, vec![bash(CONTAINED)], |_| {}, &["--sandbox"])
    else {
        return;
    };
    run.assert_finished();
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(!is_error, "the contained command ran: {text}");
    assert!(
        text.contains(&format!("hosts-e2e: built in {}", project.cwd().display())),
        "the model sees the command's output: {text}"
    );
    assert!(
        project.exists("built.marker"),
        "it wrote in the project: {}",
        run.describe()
    );
    assert!(
        text.contains("hosts-e2e: bashrc refused") && text.contains("hosts-e2e: network refused"),
        "its escapes failed inside the sandbox: {text}"
    );
    assert_eq!(bashrc(&project), BASHRC, "~/.bashrc is unchanged");
    let lines = audit_for(&project, &tool_use_id(0));
    assert_eq!(decisions(&lines), ["sandbox"], "audit: {lines:?}");
    let rewritten = lines[0]["rewritten"].as_str().unwrap_or_default();
    assert!(
        rewritten.starts_with("harness9 sandbox --profile build --cwd ")
            && rewritten.ends_with(&format!(" -- bash -c '{CONTAINED}'")),
        "the audit line has the command Claude Code ran: {rewritten}"
    );
    assert_eq!(lines[0]["input"], CONTAINED);
    assert_eq!(outcomes(&lines), ["ran"], "audit: {lines:?}");
}

#[test]
fn claude_code_without_sandbox_does_not_run_a_contained_script_and_the_model_sees_why() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let project = contained_project(&listener);
    let Some(run) = claude(&project, vec![bash(CONTAINED)]) else {
        return;
    };
    run.assert_finished();
    let (text, is_error) = claude_tool_result(&run, 0);
    assert!(is_error, "an unanswered ask is an error result: {text}");
    assert!(
        text.starts_with(ASK_PREFIX)
            && text.contains("the agent runs its commands itself, outside harness9's sandbox")
            && text.contains("it would run contained (sandbox profile `build`)"),
        "{text}"
    );
    assert!(!project.exists("built.marker"), "{}", run.describe());
    assert_eq!(bashrc(&project), BASHRC);
    assert_eq!(decisions(&audit_for(&project, &tool_use_id(0))), ["ask"]);
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI.

/// The user settings Gemini CLI needs to run headless against an API key, quietly.
const GEMINI_USER_SETTINGS: &str = r#"{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false }
}
"#;

/// `gemini -p` in `project` (harness9's hook installed, its command passed through `hook_edit`)
/// against a server playing `script`.
fn gemini(
    project: &Project,
    script: Vec<ScriptedCall>,
    hook_edit: impl Fn(&str) -> String,
    timeout: Duration,
) -> Option<Run> {
    gemini_installed(project, script, hook_edit, timeout, &[])
}

/// [`gemini`], with the hook installed with `options` (`--sandbox`).
fn gemini_installed(
    project: &Project,
    script: Vec<ScriptedCall>,
    hook_edit: impl Fn(&str) -> String,
    timeout: Duration,
    options: &[&str],
) -> Option<Run> {
    let bin = Host::Gemini.bin()?;
    let settings = project.install_with("gemini-cli", options);
    let text = std::fs::read_to_string(&settings).expect("the project's Gemini settings");
    std::fs::write(&settings, hook_edit(&text)).expect("the project's Gemini settings");
    let user_settings = project.home().join(".gemini/settings.json");
    std::fs::create_dir_all(user_settings.parent().expect("a parent")).expect("~/.gemini");
    std::fs::write(&user_settings, GEMINI_USER_SETTINGS).expect("the user's Gemini settings");
    let server = ModelServer::start(Api::Gemini, script);
    let mut c = base_command(&bin, project);
    c.args([
        "-p",
        "hosts-e2e: do the scripted step",
        "--output-format",
        "json",
        "--approval-mode",
        "yolo",
        "-m",
        "gemini-2.5-pro",
    ])
    .env("GOOGLE_GEMINI_BASE_URL", server.url())
    .env("GEMINI_API_KEY", "dummy")
    .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
    .env("GEMINI_CLI_NO_RELAUNCH", "true");
    Some(run(c, project.dir.path(), &server, timeout))
}

fn as_installed(settings: &str) -> String {
    settings.to_string()
}

fn shell(command: &str) -> ScriptedCall {
    call("run_shell_command", json!({"command": command}))
}

/// What the model was told about its call of `tool`: the function response's `output` or
/// `error`, and whether it is an error.
fn gemini_function_response(run: &Run, tool: &str) -> Option<(String, bool)> {
    let response = run
        .requests
        .iter()
        .rev()
        .flat_map(|r| r.body["contents"].as_array().into_iter().flatten())
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter_map(|p| p.get("functionResponse"))
        .find(|f| f["name"] == tool)?;
    let response = &response["response"];
    Some(match (response.get("error"), response.get("output")) {
        (Some(e), _) => (
            e.as_str().map_or_else(|| e.to_string(), str::to_string),
            true,
        ),
        (None, Some(o)) => (
            o.as_str().map_or_else(|| o.to_string(), str::to_string),
            false,
        ),
        (None, None) => (response.to_string(), false),
    })
}

fn expect_function_response(run: &Run, tool: &str) -> (String, bool) {
    gemini_function_response(run, tool).unwrap_or_else(|| {
        panic!(
            "the model never got the result of its {tool} call: {}",
            run.describe()
        )
    })
}

/// The audit lines about calls of `tool` (Gemini CLI's events carry no call id).
fn audit_for_tool(project: &Project, tool: &str) -> Vec<Value> {
    project
        .audit()
        .into_iter()
        .filter(|l| l["tool"] == tool)
        .collect()
}

#[test]
fn gemini_cli_with_sandbox_runs_a_contained_script_whose_escapes_fail_and_shows_its_output() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let project = contained_project(&listener);
    let Some(run) = gemini_installed(
        &project,
        vec![shell(CONTAINED)],
        as_installed,
        RUN_TIMEOUT,
        &["--sandbox"],
    ) else {
        return;
    };
    run.assert_finished();
    let (text, is_error) = expect_function_response(&run, "run_shell_command");
    assert!(!is_error, "the contained command ran: {text}");
    assert!(
        text.contains(&format!("hosts-e2e: built in {}", project.cwd().display())),
        "the model sees the command's output: {text}"
    );
    assert!(project.exists("built.marker"), "{}", run.describe());
    assert!(
        text.contains("hosts-e2e: bashrc refused") && text.contains("hosts-e2e: network refused"),
        "its escapes failed inside the sandbox: {text}"
    );
    assert_eq!(bashrc(&project), BASHRC, "~/.bashrc is unchanged");
    let lines = audit_for_tool(&project, "run_shell_command");
    assert_eq!(decisions(&lines), ["sandbox"], "audit: {lines:?}");
    let rewritten = lines[0]["rewritten"].as_str().unwrap_or_default();
    assert!(
        rewritten.starts_with("harness9 sandbox --profile build --cwd ")
            && rewritten.ends_with(&format!(" -- bash -c '{CONTAINED}'")),
        "{rewritten}"
    );
}

#[test]
fn gemini_cli_runs_a_shell_command_the_project_policy_allows() {
    let project = Project::new(Some(POLICY));
    let Some(run) = gemini(&project, vec![shell(ALLOWED)], as_installed, RUN_TIMEOUT) else {
        return;
    };
    run.assert_finished();
    assert!(
        project.exists("ran.marker"),
        "the command ran: {}",
        run.describe()
    );
    let (text, is_error) = expect_function_response(&run, "run_shell_command");
    assert!(
        !is_error && text.contains(ALLOWED_OUTPUT),
        "the model sees the output: {text}"
    );
    let lines = audit_for_tool(&project, "run_shell_command");
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
    assert_eq!(lines[0]["input"], ALLOWED);
}

#[test]
fn gemini_cli_does_not_run_a_denied_command_and_the_model_sees_harness9s_reason() {
    let project = Project::new(Some(POLICY));
    let Some(run) = gemini(&project, vec![shell(DENIED)], as_installed, RUN_TIMEOUT) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("denied.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = expect_function_response(&run, "run_shell_command");
    assert!(
        is_error && text.contains(DENY_REASON) && text.contains("the call was not run"),
        "the model sees harness9's reason: {text}"
    );
    let lines = audit_for_tool(&project, "run_shell_command");
    assert_eq!(decisions(&lines), ["deny"], "audit: {lines:?}");
}

#[test]
fn gemini_cli_headless_never_runs_an_asked_command() {
    // As installed, an ask reaches Gemini CLI as `"decision": "ask"`. Headless, 0.61 then
    // waits for a confirmation that cannot come: as one process it ends at once (exit 0,
    // nothing printed, the model never hears of the call again); relaunched as its own child,
    // it waits until killed. Whatever a later release does, the command must not run, and if
    // the model is told anything, it is harness9's reason.
    let project = Project::new(Some(POLICY));
    let Some(run) = gemini(&project, vec![shell(ASKED)], as_installed, ASK_WAIT) else {
        return;
    };
    assert!(
        !project.exists("asked.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let lines = audit_for_tool(&project, "run_shell_command");
    assert_eq!(
        decisions(&lines),
        ["ask"],
        "the hook was asked and said ask: {lines:?}"
    );
    match gemini_function_response(&run, "run_shell_command") {
        None => assert_eq!(
            run.requests.len(),
            1,
            "no turn of the model after the call: {}",
            run.describe()
        ),
        Some((text, is_error)) => assert!(
            is_error && text.contains(ASK_REASON),
            "the model sees why the call did not run: {text}"
        ),
    }
}

#[test]
fn gemini_cli_with_ask_as_deny_does_not_run_an_asked_command_and_the_model_sees_why() {
    let project = Project::new(Some(POLICY));
    let ask_as_deny = |settings: &str| {
        assert!(
            settings.contains(" hook gemini-cli || exit 2\""),
            "the installed hook: {settings}"
        );
        settings.replace(
            " hook gemini-cli || exit 2\"",
            " hook gemini-cli --ask-as deny || exit 2\"",
        )
    };
    let Some(run) = gemini(&project, vec![shell(ASKED)], ask_as_deny, RUN_TIMEOUT) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("asked.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = expect_function_response(&run, "run_shell_command");
    assert!(
        is_error && text.contains(ASK_PREFIX) && text.contains(ASK_REASON),
        "the model sees that a person must approve it, and why: {text}"
    );
    let lines = audit_for_tool(&project, "run_shell_command");
    assert_eq!(decisions(&lines), ["deny"], "audit: {lines:?}");
}

#[test]
fn gemini_cli_runs_its_todo_list_without_a_prompt() {
    // No policy file: the hook's table of Gemini CLI's harmless tools applies. An ask here
    // would hang the headless run (see above), so the timeout is the short one.
    let project = Project::new(None);
    let todos = call(
        "write_todos",
        json!({"todos": [{"description": "hosts-e2e todo", "status": "pending"}]}),
    );
    let Some(run) = gemini(&project, vec![todos], as_installed, ASK_WAIT) else {
        return;
    };
    let lines = audit_for_tool(&project, "write_todos");
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
    run.assert_finished();
    let first = run.requests.first().expect("a request").body.to_string();
    assert!(
        first.contains("\"write_todos\""),
        "this Gemini CLI release offers `write_todos`"
    );
    let (text, is_error) = expect_function_response(&run, "write_todos");
    assert!(
        !is_error && text.contains("hosts-e2e todo"),
        "the todo list was written: {text}"
    );
}

#[test]
fn gemini_cli_is_blocked_by_a_project_policy_that_does_not_load() {
    let project = Project::new(Some(POLICY));
    project.write(".harness9/broken.policy", BROKEN_POLICY);
    let Some(run) = gemini(
        &project,
        vec![shell(BLOCKED_BY_BROKEN)],
        as_installed,
        RUN_TIMEOUT,
    ) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("broken.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let (text, is_error) = expect_function_response(&run, "run_shell_command");
    assert!(
        is_error && text.contains("broken.policy") && text.contains("the tool call is blocked"),
        "the model sees which policy failed and that the call was blocked: {text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Codex CLI.

/// `codex exec` in `project` (harness9's hook installed, then `after_install` run on its
/// settings file) against a server playing `script`. Codex's user config names the server as
/// a custom provider (`wire_api = "responses"`) and trusts the project, whose `.codex/hooks.json`
/// it then reads. `--dangerously-bypass-hook-trust` stands for the person who reviews a new
/// hook in `/hooks` before Codex runs it. The model is one Codex knows (`gpt-5.5`): for it
/// Codex offers `apply_patch`.
fn codex(
    project: &Project,
    script: Vec<ScriptedCall>,
    after_install: impl Fn(&Path),
) -> Option<Run> {
    let bin = Host::Codex.bin()?;
    let settings = project.install("codex");
    after_install(&settings);
    let server = ModelServer::start(Api::Responses, script);
    let config = project.home().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"hosts_e2e\"\n\n\
             [model_providers.hosts_e2e]\nname = \"hosts-e2e\"\nbase_url = \"{}/v1\"\n\
             wire_api = \"responses\"\nenv_key = \"HOSTS_E2E_KEY\"\n\n\
             [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            server.url(),
            project.cwd().display()
        ),
    )
    .unwrap();
    let mut c = base_command(&bin, project);
    // Codex's own sandbox is not what is tested here, and where bubblewrap is installed it
    // runs a helper it will not create below the temporary folder this test's home is in
    // ("bwrap: execvp codex-linux-sandbox"): the commands run outside it, after the hook.
    c.args([
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-hook-trust",
        "--sandbox",
        "danger-full-access",
        "hosts-e2e: do the scripted step",
    ])
    .env("HOSTS_E2E_KEY", "dummy");
    Some(run(c, project.dir.path(), &server, RUN_TIMEOUT))
}

fn exec_command(command: &str) -> ScriptedCall {
    call("exec_command", json!({"cmd": command}))
}

fn apply_patch(patch: &'static str) -> ScriptedCall {
    call("apply_patch", Value::String(patch.to_string()))
}

/// What the model was told about the `n`th scripted call.
fn codex_tool_output(run: &Run, n: usize) -> String {
    let id = call_id(n);
    let found = run
        .requests
        .iter()
        .rev()
        .flat_map(|r| r.body["input"].as_array().into_iter().flatten())
        .find(|i| {
            i["call_id"] == id.as_str()
                && i["type"]
                    .as_str()
                    .is_some_and(|t| t.ends_with("_call_output"))
        });
    let Some(item) = found else {
        panic!("the model never got the result of {id}: {}", run.describe());
    };
    match &item["output"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn codex_runs_a_shell_command_the_project_policy_allows() {
    let project = Project::new(Some(POLICY));
    let Some(run) = codex(&project, vec![exec_command(ALLOWED)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        project.exists("ran.marker"),
        "the command ran: {}\n--- the model was told: {}",
        run.describe(),
        codex_tool_output(&run, 0)
    );
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains(ALLOWED_OUTPUT),
        "the model sees the output: {text}"
    );
    let lines = audit_for(&project, &call_id(0));
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
    assert_eq!(lines[0]["tool"], "Bash");
    assert_eq!(lines[0]["input"], ALLOWED);
}

#[test]
fn codex_does_not_run_a_denied_command_and_the_model_sees_harness9s_reason() {
    let project = Project::new(Some(POLICY));
    let Some(run) = codex(&project, vec![exec_command(DENIED)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("denied.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains(DENY_REASON) && text.contains("the call was not run"),
        "the model sees harness9's reason: {text}"
    );
    assert_eq!(decisions(&audit_for(&project, &call_id(0))), ["deny"]);
}

#[test]
fn codex_does_not_run_an_asked_command_and_the_model_is_told_to_ask_the_user() {
    let project = Project::new(Some(POLICY));
    let Some(run) = codex(&project, vec![exec_command(ASKED)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("asked.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains(ASK_PREFIX) && text.contains(ASK_REASON) && text.contains("ask the user"),
        "the model sees that a person must approve it, and why: {text}"
    );
    // Logged as what it was answered: a deny, for want of a person.
    assert_eq!(decisions(&audit_for(&project, &call_id(0))), ["deny"]);
}

/// The project policy of the patch scenarios: text files may be written, secrets not.
const PATCH_POLICY: &str = r#"allow write_file("*.txt");
allow edit_file("*.txt");
deny write_file("secret*") reason "hosts-e2e: no secrets";
default ask;
"#;

#[test]
fn codex_apply_patch_is_decided_file_by_file_and_runs_only_when_every_file_may_change() {
    let project = Project::new(Some(PATCH_POLICY));
    let fine = apply_patch("*** Begin Patch\n*** Add File: added.txt\n+hello\n*** End Patch\n");
    let mixed = apply_patch(
        "*** Begin Patch\n*** Add File: also.txt\n+x\n*** Add File: secret.key\n+k\n*** End Patch\n",
    );
    let Some(run) = codex(&project, vec![fine, mixed], |_| {}) else {
        return;
    };
    run.assert_finished();
    let first = run.requests.first().expect("a request").body.to_string();
    assert!(
        first.contains("\"apply_patch\""),
        "this Codex release offers `apply_patch` to the model"
    );
    assert!(project.exists("added.txt"), "{}", run.describe());
    assert!(
        !project.exists("also.txt") && !project.exists("secret.key"),
        "a patch with a denied file does not run at all: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 1);
    assert!(text.contains("hosts-e2e: no secrets"), "{text}");
    let lines = audit_for(&project, &call_id(1));
    let inputs: Vec<_> = lines.iter().map(|l| l["input"].as_str().unwrap()).collect();
    assert_eq!(
        inputs,
        ["also.txt", "secret.key"],
        "one line a file: {lines:?}"
    );
    assert_eq!(decisions(&lines), ["allow", "deny"]);
}

#[test]
fn codex_is_blocked_by_a_project_policy_that_does_not_load() {
    let project = Project::new(Some(POLICY));
    project.write(".harness9/broken.policy", BROKEN_POLICY);
    let Some(run) = codex(&project, vec![exec_command(BLOCKED_BY_BROKEN)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("broken.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains("broken.policy") && text.contains("the tool call is blocked"),
        "the model sees which policy failed and that the call was blocked: {text}"
    );
}

#[test]
fn codex_blocks_the_call_when_harness9_is_removed_after_a_shared_install() {
    // Codex has no fail-closed option: the hook's command is the guard.
    let project = Project::new(Some(POLICY));
    let Some(run) = codex(&project, vec![exec_command(ALLOWED)], |_| {
        project.remove_harness9()
    }) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("ran.marker"),
        "the command did not run: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 0);
    assert!(text.contains("harness9 is not installed here"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// GitHub Copilot CLI.

/// `copilot -p … --allow-all-tools` in `project` (harness9's hook installed, then
/// `after_install` run on it) against a server playing `script`, as a custom provider
/// (`COPILOT_PROVIDER_BASE_URL`, the Responses API; no GitHub sign-in). Copilot CLI loads a
/// repository's `.github/hooks/*.json` only in a folder the user trusts: its config trusts the
/// project. `--allow-all-tools` lets Copilot CLI run every tool by its own rules, so that
/// harness9 is the only gate.
fn copilot(
    project: &Project,
    script: Vec<ScriptedCall>,
    after_install: impl Fn(&Path),
) -> Option<Run> {
    let bin = Host::Copilot.bin()?;
    let settings = project.install("copilot");
    after_install(&settings);
    let server = ModelServer::start(Api::Responses, script);
    let config = project.home().join(".copilot/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        json!({"trustedFolders": [project.cwd()]}).to_string(),
    )
    .unwrap();
    let mut c = base_command(&bin, project);
    c.args(["-p", "hosts-e2e: do the scripted step", "--allow-all-tools"])
        .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", server.url()))
        .env("COPILOT_PROVIDER_WIRE_API", "responses")
        .env("COPILOT_PROVIDER_API_KEY", "dummy")
        .env("COPILOT_MODEL", "gpt-5.4");
    Some(run(c, project.dir.path(), &server, RUN_TIMEOUT))
}

fn copilot_bash(command: &str) -> ScriptedCall {
    call(
        "bash",
        json!({"command": command, "description": "the scripted step"}),
    )
}

#[test]
fn copilot_runs_a_bash_command_the_project_policy_allows() {
    let project = Project::new(Some(POLICY));
    let Some(run) = copilot(&project, vec![copilot_bash(ALLOWED)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        project.exists("ran.marker"),
        "the command ran: {}",
        run.describe()
    );
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains(ALLOWED_OUTPUT),
        "the model sees the output: {text}"
    );
    let lines = audit_for_tool(&project, "bash");
    assert_eq!(decisions(&lines), ["allow"], "audit: {lines:?}");
}

#[test]
fn copilot_does_not_run_denied_or_asked_commands_and_the_model_sees_why() {
    let project = Project::new(Some(POLICY));
    let script = vec![copilot_bash(DENIED), copilot_bash(ASKED)];
    let Some(run) = copilot(&project, script, |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("denied.marker") && !project.exists("asked.marker"),
        "neither command ran: {}",
        run.describe()
    );
    let denied = codex_tool_output(&run, 0);
    assert!(
        denied.contains(DENY_REASON) && denied.contains("the call was not run"),
        "the model sees harness9's reason: {denied}"
    );
    // `copilot -p` cannot ask: it denies the ask and tells the model why.
    let asked = codex_tool_output(&run, 1);
    assert!(
        asked.contains(ASK_PREFIX) && asked.contains(ASK_REASON),
        "the model sees that a person must approve it, and why: {asked}"
    );
    let lines = audit_for_tool(&project, "bash");
    assert_eq!(decisions(&lines), ["deny", "ask"], "audit: {lines:?}");
}

#[test]
fn copilot_apply_patch_with_a_denied_file_does_not_run() {
    let project = Project::new(Some(PATCH_POLICY));
    let mixed = apply_patch(
        "*** Begin Patch\n*** Add File: also.txt\n+x\n*** Add File: secret.key\n+k\n*** End Patch\n",
    );
    let Some(run) = copilot(&project, vec![mixed], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(
        !project.exists("also.txt") && !project.exists("secret.key"),
        "{}",
        run.describe()
    );
    assert!(codex_tool_output(&run, 0).contains("hosts-e2e: no secrets"));
}

#[test]
fn copilot_is_blocked_by_a_broken_policy_and_by_a_missing_harness9() {
    let project = Project::new(Some(POLICY));
    project.write(".harness9/broken.policy", BROKEN_POLICY);
    let Some(run) = copilot(&project, vec![copilot_bash(BLOCKED_BY_BROKEN)], |_| {}) else {
        return;
    };
    run.assert_finished();
    assert!(!project.exists("broken.marker"), "{}", run.describe());
    let text = codex_tool_output(&run, 0);
    assert!(
        text.contains("broken.policy") && text.contains("the tool call is blocked"),
        "the model sees which policy failed and that the call was blocked: {text}"
    );
    let project = Project::new(Some(POLICY));
    let Some(run) = copilot(&project, vec![copilot_bash(ALLOWED)], |_| {
        project.remove_harness9()
    }) else {
        return;
    };
    run.assert_finished();
    assert!(!project.exists("ran.marker"), "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// Every tool a pinned host offers its model is classified: harmless (its shipped policy allows
// it), judged as what it runs (the adapter makes it a `bash`, file or patch call), or asked with
// a reason (a rule of its shipped policy). A tool that only the policy's `default` decides is a
// tool a new release brought: the test names it.

/// The names of the tools a request offers the model, in each API's shape: Messages and
/// Responses `tools[].name` (a Responses namespace's own tools too, a tool without a name by
/// its type: `web_search`), Gemini `tools[].functionDeclarations[].name`.
fn offered_tools(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if let Some(decls) = tool["functionDeclarations"].as_array() {
            names.extend(
                decls
                    .iter()
                    .filter_map(|d| d["name"].as_str())
                    .map(String::from),
            );
        } else if let Some(inner) = tool["tools"].as_array() {
            names.extend(
                inner
                    .iter()
                    .filter_map(|d| d["name"].as_str())
                    .map(String::from),
            );
        } else if let Some(name) = tool["name"].as_str().or(tool["type"].as_str()) {
            names.push(name.to_string());
        }
    }
    // Claude Code 2.1 lists the tools it defers by name in its instructions, one a line.
    let marker = "deferred tools are now available";
    let mut texts = Vec::new();
    strings_in(body, &mut texts);
    for text in texts.iter().filter(|t| t.contains(marker)) {
        let after = text.split(marker).nth(1).unwrap_or("");
        names.extend(
            after
                .lines()
                .skip(1)
                .take_while(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
                .filter(|l| l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
        );
    }
    names.sort();
    names.dedup();
    names
}

/// Every string in a JSON value.
fn strings_in<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(xs) => xs.iter().for_each(|x| strings_in(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings_in(x, out)),
        _ => {}
    }
}

/// The tools of `names` that harness9 has not classified for `host`: what the adapter makes of
/// each, then, for a tool it keeps, whether a rule of the host's shipped policy decides it.
fn unclassified(host: Host, names: &[String]) -> Vec<String> {
    use harness9::hooks::{claude_code, codex, copilot, gemini_cli, ToolEvent};
    let dir = tempfile::tempdir().unwrap();
    let project = harness9::hooks::Project {
        cwd: dir.path().to_path_buf(),
        home: Some(dir.path().to_path_buf()),
        user_dir: None,
    };
    let (policy, asked) = match host {
        Host::Claude => (claude_code::POLICY, claude_code::ASKED),
        Host::Gemini => (gemini_cli::POLICY, gemini_cli::ASKED),
        Host::Codex => (codex::POLICY, codex::ASKED),
        Host::Copilot => (copilot::POLICY, copilot::ASKED),
    };
    let (engine, _) = harness9::hooks::project_engine(&project, Some(policy), None).unwrap();
    let judged = ["bash", "read_file", "write_file", "edit_file", "list_dir"];
    names
        .iter()
        .filter(|name| {
            // The name Codex's hooks give its shell tools.
            let hook_name = match (host, name.as_str()) {
                (Host::Codex, "exec_command" | "shell" | "local_shell" | "shell_command") => "Bash",
                _ => name.as_str(),
            };
            let event = ToolEvent {
                tool_name: hook_name.to_string(),
                tool_input: serde_json::Map::new(),
                cwd: None,
                session_id: None,
                hook_event_name: None,
                raw: serde_json::Map::new(),
            };
            let calls: Vec<harness9::ToolCall> = match host {
                Host::Claude => vec![claude_code::tool_call(&event).call],
                Host::Gemini => vec![gemini_cli::tool_call(&event).call],
                Host::Codex => codex::tool_calls(&event)
                    .into_iter()
                    .map(|c| c.call)
                    .collect(),
                Host::Copilot => copilot::tool_calls(&event)
                    .into_iter()
                    .map(|c| c.call)
                    .collect(),
            };
            let patch = hook_name == "apply_patch";
            let with_reason = asked.iter().any(|(t, _)| *t == hook_name);
            !patch
                && !with_reason
                && calls.iter().any(|c| {
                    !judged.contains(&c.name.as_str())
                        && engine.decide(c).rule == harness9::rule_ref::RuleRef::Default
                })
        })
        .cloned()
        .collect()
}

fn assert_all_classified(host: Host, run: &Run) {
    let first = run
        .requests
        .iter()
        .find(|r| !offered_tools(&r.body).is_empty());
    let Some(first) = first else {
        panic!(
            "{} offered its model no tools: {}",
            host.name(),
            run.describe()
        );
    };
    let names = offered_tools(&first.body);
    eprintln!("{} offers {} tools: {names:?}", host.name(), names.len());
    let missing = unclassified(host, &names);
    assert!(
        missing.is_empty(),
        "{} offers tools harness9 has not classified (allow them in its shipped policy, map \
         them in its adapter, or ask about them with a reason): {missing:?}",
        host.name()
    );
}

#[test]
fn claude_code_offers_no_tool_harness9_has_not_classified() {
    let project = Project::new(None);
    let Some(run) = claude(&project, vec![]) else {
        return;
    };
    assert_all_classified(Host::Claude, &run);
}

#[test]
fn gemini_cli_offers_no_tool_harness9_has_not_classified() {
    let project = Project::new(None);
    let Some(run) = gemini(&project, vec![], as_installed, RUN_TIMEOUT) else {
        return;
    };
    assert_all_classified(Host::Gemini, &run);
}

#[test]
fn codex_offers_no_tool_harness9_has_not_classified() {
    let project = Project::new(None);
    let Some(run) = codex(&project, vec![], |_| {}) else {
        return;
    };
    assert_all_classified(Host::Codex, &run);
}

#[test]
fn copilot_offers_no_tool_harness9_has_not_classified() {
    let project = Project::new(None);
    let Some(run) = copilot(&project, vec![], |_| {}) else {
        return;
    };
    assert_all_classified(Host::Copilot, &run);
}
