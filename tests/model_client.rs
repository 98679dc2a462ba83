//! The OpenAI-compatible client against a real HTTP server on loopback, answering with
//! hand-written HTTP/1.1 responses.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc as std_mpsc;
use std::thread;
use std::time::{Duration, Instant};

use harness9::model::openai::OpenAiModel;
use harness9::model::{Delta, Message, Model, ModelError, ModelToolCall, Reply, ToolSpec};
use harness9::runtime::CancelToken;
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// A request as the server received it.
#[derive(Debug)]
struct Received {
    request_line: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
    body: Value,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

type Respond = Box<dyn FnOnce(&mut TcpStream) + Send>;

/// Serves one connection: reads the request, reports it, and answers with `respond`.
fn serve(respond: Respond) -> (String, std_mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let (tx, rx) = std_mpsc::channel();
    thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
        let mut request_line = String::new();
        reader.read_line(&mut request_line).expect("request line");
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("header line");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body).expect("request body");
        let _ = tx.send(Received {
            request_line: request_line.trim_end().to_string(),
            headers,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
        respond(&mut stream);
        let _ = stream.flush();
    });
    (format!("http://127.0.0.1:{port}/v1"), rx)
}

/// A streamed response in chunked encoding, one event per chunk, with a pause between.
fn stream_events(events: Vec<String>, pause: Duration, finish: bool) -> Respond {
    Box::new(move |s: &mut TcpStream| {
        let _ = s.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
              Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        );
        for e in events {
            let data = format!("data: {e}\n\n");
            let _ = write!(s, "{:x}\r\n{data}\r\n", data.len());
            let _ = s.flush();
            thread::sleep(pause);
        }
        if finish {
            let _ = s.write_all(b"0\r\n\r\n");
        }
        // Dropping the stream closes the connection (mid-stream when not finished).
    })
}

fn status(code: u16, reason: &'static str, body: &'static str) -> Respond {
    Box::new(move |s: &mut TcpStream| {
        let _ = write!(
            s,
            "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    })
}

fn text_event(text: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {"content": text}}]}).to_string()
}

fn finish_event(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

fn model(base_url: &str) -> OpenAiModel {
    OpenAiModel::new(base_url, "test-model", Some("sk-test".into()))
        .with_timeouts(Duration::from_secs(5), Duration::from_secs(5))
}

fn bash_spec() -> ToolSpec {
    ToolSpec {
        name: "bash".into(),
        description: "Runs a command".into(),
        parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
    }
}

async fn ask(m: &OpenAiModel, messages: &[Message]) -> (Result<Reply, ModelError>, Vec<String>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let r = m
        .reply(messages, &[bash_spec()], &tx, &CancelToken::new())
        .await;
    let mut texts = Vec::new();
    while let Ok(Delta::Text(t)) = rx.try_recv() {
        texts.push(t);
    }
    (r, texts)
}

fn user(text: &str) -> Message {
    Message::User {
        content: text.into(),
    }
}

#[tokio::test]
async fn a_streamed_text_reply_arrives_in_pieces() {
    let mut events: Vec<String> = ["Hel", "lo, ", "world"]
        .iter()
        .map(|t| text_event(t))
        .collect();
    events.push(finish_event("stop"));
    events.push("[DONE]".into());
    let (url, _rx) = serve(stream_events(events, Duration::from_millis(5), true));
    let (r, texts) = ask(&model(&url), &[user("hi")]).await;
    let r = r.expect("a reply");
    assert_eq!(r.content, "Hello, world");
    assert!(r.tool_calls.is_empty());
    assert_eq!(texts, ["Hel", "lo, ", "world"], "each piece is streamed");
}

#[tokio::test]
async fn the_request_is_an_openai_chat_completion() {
    let events = vec![text_event("ok"), finish_event("stop"), "[DONE]".into()];
    let (url, rx) = serve(stream_events(events, Duration::ZERO, true));
    let messages = vec![
        Message::System {
            content: "be brief".into(),
        },
        user("list files"),
        Message::Assistant {
            content: "Listing.".into(),
            tool_calls: vec![ModelToolCall {
                id: "call_1".into(),
                name: "bash".into(),
                arguments: r#"{"command":"ls"}"#.into(),
            }],
        },
        Message::Tool {
            tool_call_id: "call_1".into(),
            content: "a.txt".into(),
        },
    ];
    let (r, _) = ask(&model(&url), &messages).await;
    r.expect("a reply");
    let got = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the request");
    assert_eq!(got.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(got.header("authorization"), Some("Bearer sk-test"));
    assert!(
        got.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{:?}",
        got.headers
    );
    assert_eq!(got.body["model"], "test-model");
    assert_eq!(got.body["stream"], true);
    assert_eq!(
        got.body["messages"],
        json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "list files"},
            {"role": "assistant", "content": "Listing.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        ])
    );
    assert_eq!(
        got.body["tools"],
        json!([{"type": "function", "function": {
            "name": "bash",
            "description": "Runs a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        }}])
    );
}

#[tokio::test]
async fn no_key_no_authorization_header() {
    let events = vec![text_event("ok"), "[DONE]".into()];
    let (url, rx) = serve(stream_events(events, Duration::ZERO, true));
    let m = OpenAiModel::new(&url, "local", None);
    let (r, _) = ask(&m, &[user("hi")]).await;
    assert_eq!(r.expect("a reply").content, "ok");
    let got = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the request");
    assert_eq!(got.header("authorization"), None);
}

#[tokio::test]
async fn parallel_tool_calls_are_assembled_from_many_fragments() {
    let call =
        |v: Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": [v]}}]}).to_string();
    let mut events = vec![
        text_event("Let me look."),
        call(json!({"index": 0, "id": "call_a", "type": "function",
                    "function": {"name": "bash", "arguments": ""}})),
        call(json!({"index": 1, "id": "call_b", "type": "function",
                    "function": {"name": "read_file", "arguments": ""}})),
    ];
    // The arguments of both calls, a few characters at a time, interleaved.
    let a = r#"{"command": "git status --short"}"#;
    let b = r#"{"path": "src/main.rs"}"#;
    let frag = |s: &str| -> Vec<String> {
        s.chars()
            .collect::<Vec<_>>()
            .chunks(3)
            .map(|c| c.iter().collect())
            .collect()
    };
    let (fa, fb) = (frag(a), frag(b));
    for i in 0..fa.len().max(fb.len()) {
        if let Some(f) = fa.get(i) {
            events.push(call(json!({"index": 0, "function": {"arguments": f}})));
        }
        if let Some(f) = fb.get(i) {
            events.push(call(json!({"index": 1, "function": {"arguments": f}})));
        }
    }
    events.push(finish_event("tool_calls"));
    events.push("[DONE]".into());
    assert!(events.len() > 20, "many chunks");
    let (url, _rx) = serve(stream_events(events, Duration::from_millis(1), true));
    let (r, _) = ask(&model(&url), &[user("status?")]).await;
    let r = r.expect("a reply");
    assert_eq!(r.content, "Let me look.");
    assert_eq!(
        r.tool_calls,
        vec![
            ModelToolCall {
                id: "call_a".into(),
                name: "bash".into(),
                arguments: a.into()
            },
            ModelToolCall {
                id: "call_b".into(),
                name: "read_file".into(),
                arguments: b.into()
            },
        ]
    );
}

#[tokio::test]
async fn an_error_status_shows_the_servers_message() {
    let (url, _rx) = serve(status(
        401,
        "Unauthorized",
        r#"{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","code":"invalid_api_key"}}"#,
    ));
    let (r, texts) = ask(&model(&url), &[user("hi")]).await;
    let e = r.expect_err("401 is an error");
    assert!(e.0.contains("HTTP 401"), "{e}");
    assert!(e.0.contains("Incorrect API key provided"), "{e}");
    assert!(e.0.contains("check the API key"), "{e}");
    assert!(texts.is_empty());
}

#[tokio::test]
async fn a_connection_dropped_mid_stream_is_an_error() {
    let events = vec![text_event("Half a "), text_event("reply")];
    let (url, _rx) = serve(stream_events(events, Duration::from_millis(5), false));
    let (r, texts) = ask(&model(&url), &[user("hi")]).await;
    let e = r.expect_err("dropped");
    assert!(e.0.contains("dropped in the middle of the reply"), "{e}");
    assert_eq!(
        texts,
        ["Half a ", "reply"],
        "what arrived was still streamed"
    );
}

#[tokio::test]
async fn a_close_delimited_stream_without_an_end_is_an_error() {
    let respond: Respond = Box::new(|s: &mut TcpStream| {
        let _ = s.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
        );
        let _ = write!(s, "data: {}\n\n", text_event("partial"));
    });
    let (url, _rx) = serve(respond);
    let (r, _) = ask(&model(&url), &[user("hi")]).await;
    let e = r.expect_err("no [DONE], no finish_reason");
    assert!(e.0.contains("closed before the reply was complete"), "{e}");
}

#[tokio::test]
async fn a_plain_json_answer_is_accepted_when_the_server_ignores_stream() {
    let body = r#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"bash","arguments":{"command":"ls"}}}]},"finish_reason":"tool_calls"}]}"#;
    let (url, _rx) = serve(status(200, "OK", body));
    let (r, _) = ask(&model(&url), &[user("hi")]).await;
    let r = r.expect("a reply");
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].name, "bash");
    assert_eq!(r.tool_calls[0].arguments, r#"{"command":"ls"}"#);
    assert!(!r.tool_calls[0].id.is_empty(), "a missing id is generated");
}

#[tokio::test]
async fn malformed_json_is_an_error() {
    let events = vec![r#"{"choices": [{"delta": {"content": "x"}"#.to_string()];
    let (url, _rx) = serve(stream_events(events, Duration::ZERO, true));
    let (r, _) = ask(&model(&url), &[user("hi")]).await;
    let e = r.expect_err("malformed");
    assert!(e.0.contains("malformed JSON"), "{e}");
}

#[tokio::test]
async fn a_refused_connection_is_an_error() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let m = model(&format!("http://127.0.0.1:{port}/v1"));
    let (r, _) = ask(&m, &[user("hi")]).await;
    let e = r.expect_err("refused");
    assert!(e.0.contains("could not connect"), "{e}");
    assert!(e.0.contains(&port.to_string()), "names the address: {e}");
}

#[tokio::test]
async fn cancelling_ends_the_reply_at_once() {
    // One piece, then the server stalls for longer than the test would wait.
    let events = vec![text_event("thinking"), text_event("never")];
    let (url, _rx) = serve(stream_events(events, Duration::from_secs(20), true));
    let m = model(&url).with_timeouts(Duration::from_secs(5), Duration::from_secs(60));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cancel = CancelToken::new();
    let messages = [user("hi")];
    let start = Instant::now();
    let (r, ()) = tokio::join!(m.reply(&messages, &[], &tx, &cancel), async {
        // Cancel once the first piece arrived.
        if let Some(Delta::Text(t)) = rx.recv().await {
            assert_eq!(t, "thinking");
        }
        cancel.cancel();
    });
    let e = r.expect_err("cancelled");
    assert_eq!(e.0, "cancelled");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}
