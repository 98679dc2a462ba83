//! `harness9 lsp` through its protocol: the built binary, driven over standard input and
//! output with real framing (`Content-Length` headers), as an editor drives it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(60);

/// A client of the server: messages out with their headers, messages in through a thread.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications read while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start(cwd: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_harness9"))
            .arg("lsp")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("harness9 lsp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
        }
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("the server reads");
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.write_raw(framed.as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its response (the whole message: `result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The first message (read before or after) that `pred` accepts.
    fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.backlog.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no answer in time; read {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed its output; read {:#?}", self.backlog)
                }
            }
        }
    }

    /// The diagnostics published for `uri` at `version`.
    fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let msg = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        msg["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn initialize(&mut self, root: &Path) -> Value {
        let response = self.request(
            "initialize",
            json!({"processId": null, "rootUri": uri_of(root), "capabilities": {}}),
        );
        self.notify("initialized", json!({}));
        response
    }

    /// Closes the server's input and waits for it to end: its status and standard error.
    fn finish(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("the server can be waited for") {
                break s;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        (status, err)
    }
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches("\r\n");
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri_of(path: &Path) -> String {
    url::Url::from_file_path(path)
        .expect("an absolute path")
        .to_string()
}

fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": pos(line, character)})
}

/// What `harness9 lint` says of a file: the line (from 1) and message of each diagnostic.
fn lint_says(path: &Path, cwd: &Path) -> Vec<(usize, String)> {
    let opts = harness9::lint::Options {
        builtin: true,
        ctx: harness9::PathContext::new(cwd, None),
        strict: false,
        managed: Vec::new(),
        allow_dead: false,
    };
    harness9::lint::lint_file(path, &opts)
        .diagnostics
        .iter()
        .map(|d| {
            let (line, _) = d.source.line_col(d.span().start);
            (line, d.message.clone())
        })
        .collect()
}

const BROKEN: &str = "# 规则 ünïcode\nallow bash(\"é😀\") risk hgih;\n";
const FIXED: &str = "include \"common.policy\";\n\
allow bash(prefix \"git status\") reason \"é😀 read-only\";\n\
ask   bash( program \"rm\" )  risk low ;\n\
expect allow bash(\"git status\");\n";

#[test]
fn an_editor_session_gets_diagnostics_hover_completion_formatting_and_includes() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    std::fs::write(
        root.join("common.policy"),
        "deny read_file(\"secrets/**\");\n",
    )
    .expect("common.policy");
    let team = root.join("team.policy");
    let uri = uri_of(&team);
    let mut c = Client::start(&root);

    let init = c.initialize(&root);
    let caps = &init["result"]["capabilities"];
    assert_eq!(init["result"]["serverInfo"]["name"], "harness9", "{init}");
    assert_eq!(caps["textDocumentSync"]["change"], 1, "full sync: {caps}");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["documentFormattingProvider"], true);
    assert_eq!(caps["definitionProvider"], true);

    // A broken policy: the unknown risk is reported where it is, in UTF-16 positions
    // (`allow bash("é😀") risk ` is 23 units: `😀` counts 2), with lint's message.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "harness9-policy", "version": 1, "text": BROKEN}}),
    );
    let diags = c.diagnostics(&uri, 1);
    let d = diags
        .iter()
        .find(|d| d["code"] == "harness9::unknown-risk")
        .unwrap_or_else(|| panic!("no unknown-risk diagnostic: {diags:#?}"));
    assert_eq!(
        d["range"],
        json!({"start": pos(1, 23), "end": pos(1, 27)}),
        "{d}"
    );
    assert_eq!(d["severity"], 1, "an error");
    let message = d["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("unknown risk `hgih`"), "{message}");
    // The same as `harness9 lint` says of that text in a file.
    std::fs::write(&team, BROKEN).expect("team.policy");
    let lint = lint_says(&team, &root);
    assert_eq!(lint.len(), diags.len(), "{lint:?} vs {diags:#?}");
    for ((line, msg), d) in lint.iter().zip(&diags) {
        assert_eq!(d["range"]["start"]["line"], json!(line - 1));
        let shown = d["message"].as_str().unwrap_or_default();
        assert_eq!(shown.lines().next(), Some(msg.as_str()));
    }

    // Fixed: no diagnostics at all.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": FIXED}]}),
    );
    assert_eq!(c.diagnostics(&uri, 2), Vec::<Value>::new());

    // Hover on a rule: what it matches, in words; on the low-risk ask, the built-in rule it
    // overrides.
    let h = c.request("textDocument/hover", at(&uri, 1, 8));
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(h["result"]["contents"]["kind"], "markdown", "{h}");
    assert!(
        text.starts_with("**allow** rule, low risk: allows calls of `bash` where:"),
        "{text}"
    );
    assert!(text.contains("start with the words `git status`"), "{text}");
    assert_eq!(h["result"]["range"]["start"], pos(1, 0), "{h}");
    let h = c.request("textDocument/hover", at(&uri, 2, 1));
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("**Built-in rules it overrides**"), "{text}");
    assert!(text.contains("becomes ask (low risk)"), "{text}");

    // Completion: matchers inside the parentheses, tools after the action.
    let labels = |v: &Value| -> Vec<String> {
        v["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["label"].as_str().map(str::to_string))
            .collect()
    };
    let inside = labels(&c.request("textDocument/completion", at(&uri, 1, 11)));
    for m in ["prefix", "program", "effect", "arg"] {
        assert!(inside.contains(&m.to_string()), "{m} in {inside:?}");
    }
    let tools = labels(&c.request("textDocument/completion", at(&uri, 1, 6)));
    assert_eq!(
        tools,
        ["bash", "read_file", "write_file", "edit_file", "list_dir"]
    );

    // Formatting: one edit over the whole document, `harness9 fmt`'s layout.
    let f = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let edits = f["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(edits.len(), 1, "{f}");
    assert_eq!(
        edits[0]["range"],
        json!({"start": pos(0, 0), "end": pos(4, 0)})
    );
    let formatted = edits[0]["newText"].as_str().unwrap_or_default().to_string();
    assert!(
        formatted.contains("\nask bash(program \"rm\") risk low;\n"),
        "{formatted}"
    );
    let source = harness9::diag::Source::new(team.to_string_lossy(), FIXED);
    assert_eq!(
        Ok(formatted.clone()),
        harness9::policy::fmt::format_policy(&source).map_err(|_| ()),
        "the same text as `harness9 fmt`"
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": formatted}]}),
    );
    let again = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(again["result"], Value::Null, "formatted already: no edit");

    // Go to definition on the include's path opens that file.
    let def = c.request("textDocument/definition", at(&uri, 0, 12));
    assert_eq!(
        def["result"]["uri"],
        uri_of(&root.join("common.policy")),
        "{def}"
    );

    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let (status, err) = c.finish();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
}

#[test]
fn bad_requests_get_errors_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    let mut c = Client::start(&root);
    let early = c.request("textDocument/hover", at("file:///nowhere.policy", 0, 0));
    assert_eq!(early["error"]["code"], -32002, "before initialize: {early}");
    c.initialize(&root);

    let closed = c.request(
        "textDocument/hover",
        at(&uri_of(&root.join("closed.policy")), 0, 0),
    );
    assert_eq!(closed["error"]["code"], -32803, "not open: {closed}");
    let unknown = c.request("harness9/nonsense", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let garbled = c.request("textDocument/hover", json!({"nothing": "useful"}));
    assert_eq!(garbled["error"]["code"], -32602, "{garbled}");
    // Notifications of the wrong shape, or about documents never opened, are ignored.
    c.notify("textDocument/didChange", json!({"bogus": true}));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///never.policy", "version": 2}, "contentChanges": [{"text": "x"}]}),
    );

    // A document that does not parse: diagnostics, no formatting edit, and hover, completion
    // and definition anywhere in it answer without failing.
    let uri = uri_of(&root.join("broken.policy"));
    let text = "allow bash(\"é😀\" risk;\ninclude \"missing.policy\"\n\"unterminated";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "harness9-policy", "version": 1, "text": text}}),
    );
    let diags = c.diagnostics(&uri, 1);
    assert!(diags.iter().any(|d| d["severity"] == 1), "{diags:#?}");
    let f = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(
        f["result"],
        Value::Null,
        "no edit for a file that does not parse: {f}"
    );
    for line in 0..4 {
        for character in [0, 5, 13, 14, 15, 40, 1000] {
            for method in [
                "textDocument/hover",
                "textDocument/completion",
                "textDocument/definition",
            ] {
                let r = c.request(method, at(&uri, line, character));
                assert!(
                    r.get("error").is_none(),
                    "{method} at {line}:{character}: {r}"
                );
            }
        }
    }

    // A settings.json gets what `harness9 lint` says of settings.
    let settings_dir = root.join(".harness9");
    std::fs::create_dir_all(&settings_dir).expect(".harness9");
    let settings = settings_dir.join("settings.json");
    let json_text = "{\n  \"permisions\": {\"allow\": [\"bash(git status)\"]}\n}\n";
    std::fs::write(&settings, json_text).expect("settings.json");
    let suri = uri_of(&settings);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": suri, "languageId": "json", "version": 7, "text": json_text}}),
    );
    let diags = c.diagnostics(&suri, 7);
    let lint = lint_says(&settings, &root);
    assert!(!lint.is_empty(), "lint reports the misspelt key");
    let shown: Vec<(usize, String)> = diags
        .iter()
        .map(|d| {
            let line = d["range"]["start"]["line"].as_u64().unwrap_or(u64::MAX) as usize + 1;
            let first = d["message"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .next()
                .unwrap_or_default();
            (line, first.to_string())
        })
        .collect();
    let said = lint;
    assert_eq!(shown, said);
    assert!(
        said.iter().any(|(_, m)| m.contains("permisions")),
        "{said:?}"
    );

    // A JSON file that is not harness9's settings gets nothing: a generic client that
    // attaches the server to every JSON file costs nothing there.
    let other = uri_of(&root.join("package.json"));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": other, "languageId": "json", "version": 1, "text": "{\"permisions\": 1}"}}),
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": suri, "version": 8}, "contentChanges": [{"text": json_text}]}),
    );
    assert_eq!(c.diagnostics(&suri, 8).len(), diags.len());
    assert!(
        !c.backlog.iter().any(|m| m["params"]["uri"] == other),
        "nothing published for package.json: {:#?}",
        c.backlog
    );
    let nothing = c.request("textDocument/hover", at(&other, 0, 3));
    assert_eq!(nothing["result"], Value::Null, "{nothing}");

    // Closing a document clears its diagnostics; a request for it is then an error.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    let cleared = c.wait(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] == json!([])
    });
    assert!(cleared["params"]["version"].is_null(), "{cleared}");
    let after = c.request("textDocument/completion", at(&uri, 0, 0));
    assert_eq!(after["error"]["code"], -32803, "{after}");

    let shut = c.request("shutdown", Value::Null);
    assert_eq!(shut["result"], Value::Null, "{shut}");
    let late = c.request("textDocument/hover", at(&suri, 0, 0));
    assert_eq!(late["error"]["code"], -32600, "after shutdown: {late}");
    c.notify("exit", Value::Null);
    let (status, err) = c.finish();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_dropped_connection_ends_the_server_with_a_message_not_a_panic() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    let mut c = Client::start(&root);
    c.initialize(&root);
    let (status, err) = c.finish();
    assert_eq!(status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("closed the connection without `shutdown`"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn input_that_is_not_the_protocol_ends_the_server_with_a_message_not_a_panic() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    for (garbage, says) in [
        (&b"hello\n\n"[..], "malformed header"),
        (b"Content-Length: nine\r\n\r\n", "not a number"),
        (b"Content-Length: 99\r\n\r\n{}", "ended 2 bytes into"),
        (b"Content-Length: 18446744073709551615\r\n\r\n{}", "at most"),
    ] {
        let mut c = Client::start(&root);
        c.write_raw(garbage);
        let (status, err) = c.finish();
        assert_eq!(status.code(), Some(1), "{garbage:?}: {err}");
        assert!(
            err.starts_with("harness9 lsp: reading the client's messages: "),
            "{garbage:?}: {err}"
        );
        assert!(err.contains(says), "{garbage:?}: {err}");
        assert!(!err.contains("panicked"), "{garbage:?}: {err}");
    }
}

#[test]
fn a_message_that_is_not_json_rpc_is_skipped_and_the_next_one_answered() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    let mut c = Client::start(&root);
    c.write_raw(b"Content-Length: 5\r\n\r\n{oops");
    let init = c.initialize(&root);
    assert_eq!(init["result"]["serverInfo"]["name"], "harness9", "{init}");
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let (status, err) = c.finish();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(
        err.contains("skipped a message that is not JSON-RPC"),
        "{err}"
    );
}

#[test]
fn exit_without_shutdown_exits_with_status_1() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let root = dir.path().canonicalize().expect("the folder resolves");
    let mut c = Client::start(&root);
    c.initialize(&root);
    c.notify("exit", Value::Null);
    let (status, err) = c.finish();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("`exit` before `shutdown`"), "{err}");
}
