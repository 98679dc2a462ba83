//! An OpenAI-compatible chat-completions client with tool calling, for hosted APIs and local
//! servers (llama.cpp, Ollama, vLLM, LM Studio).
//!
//! It posts `{base_url}/chat/completions` with `stream: true` and reads the server-sent events
//! as they come, streaming text to the UI and assembling tool calls from their fragments. It is
//! lenient with what servers send (missing `type` or tool call ids, a plain JSON body when the
//! server ignores `stream`, arguments as an object instead of a string) and strict about
//! failures: an unreachable server, an HTTP error, malformed JSON or a connection dropped
//! mid-reply each end the reply with a [`ModelError`] that says what happened.
//!
//! ureq is blocking: the request runs on its own thread and sends lines back over a channel.
//! Cancelling stops waiting at once; the thread stops at its next line.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::{Delta, Message, Model, ModelError, ModelToolCall, Reply, ToolSpec};
use crate::runtime::CancelToken;

/// How long to wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server may stay silent (before the reply starts, or between two pieces of it).
/// Local models can take minutes to read a long prompt.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest line of a response kept (a whole non-streamed reply is one line).
const MAX_LINE: u64 = 32 * 1024 * 1024;
/// How much of an error response is read.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// How much of a list of models is read.
const MAX_MODEL_LIST: u64 = 4 * 1024 * 1024;

/// The model ids of an OpenAI-style list (`{"data": [{"id": "…"}, …]}`), sorted and without
/// repeats; `None` when the text is no such list.
pub fn models_of(text: &str) -> Option<Vec<String>> {
    let v: Value = serde_json::from_str(text).ok()?;
    let mut ids: Vec<String> = v
        .get("data")?
        .as_array()?
        .iter()
        .filter_map(|m| m.get("id")?.as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    Some(ids)
}

/// A model behind an OpenAI-compatible `/chat/completions` endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiModel {
    base_url: String,
    model: String,
    api_key: Option<String>,
    connect_timeout: Duration,
    idle_timeout: Duration,
    agent: ureq::Agent,
}

impl OpenAiModel {
    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`; a URL that already
    /// ends in `/chat/completions` is used as it is). `api_key` is sent as a bearer token.
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
    ) -> Self {
        let base_url = base_url.into().trim().trim_end_matches('/').to_string();
        let agent = build_agent(&base_url, CONNECT_TIMEOUT, IDLE_TIMEOUT);
        OpenAiModel {
            base_url,
            model: model.into(),
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            connect_timeout: CONNECT_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            agent,
        }
    }

    /// The client a configuration describes; `None` when it names no base URL or model.
    pub fn from_config(config: &super::config::ModelConfig) -> Option<Self> {
        let base_url = config
            .base_url
            .as_deref()
            .filter(|s| !s.trim().is_empty())?;
        let model = config.model.as_deref().filter(|s| !s.trim().is_empty())?;
        Some(OpenAiModel::new(base_url, model, config.api_key.clone()))
    }

    /// Sets how long to wait for a connection, and how long the server may stay silent.
    pub fn with_timeouts(mut self, connect: Duration, idle: Duration) -> Self {
        self.connect_timeout = connect;
        self.idle_timeout = idle;
        self.agent = build_agent(&self.base_url, connect, idle);
        self
    }

    /// The models the server offers, sorted: `GET {base_url}/models`, OpenAI's list
    /// (`{"data": [{"id": …}, …]}`). Blocks: call it off the UI's thread.
    pub fn list_models(&self) -> Result<Vec<String>, String> {
        let base = self
            .base_url
            .strip_suffix("/chat/completions")
            .unwrap_or(&self.base_url);
        let url = format!("{base}/models");
        let mut req = self.agent.get(&url).header("Accept", "application/json");
        if let Some(key) = &self.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let response = req.call().map_err(|e| describe(&e, &url))?;
        let status = response.status();
        let text = response
            .into_body()
            .with_config()
            .limit(MAX_MODEL_LIST)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| format!("reading the answer of {url}: {e}"))?;
        if !status.is_success() {
            return Err(format!("{url} answered {status}"));
        }
        models_of(&text).ok_or_else(|| format!("{url} sent no list of models"))
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        if self.base_url.ends_with("/chat/completions") {
            self.base_url.clone()
        } else {
            format!("{}/chat/completions", self.base_url)
        }
    }

    /// The JSON body of a request for `messages` with `tools`.
    pub fn request_body(&self, messages: &[Message], tools: &[ToolSpec]) -> Value {
        let mut body = json!({
            "model": self.model,
            "messages": messages.iter().map(message_json).collect::<Vec<_>>(),
            "stream": true,
        });
        if !tools.is_empty() {
            body["tools"] = tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.parameters,
                        }
                    })
                })
                .collect();
        }
        body
    }
}

fn build_agent(base_url: &str, connect: Duration, idle: Duration) -> ureq::Agent {
    let mut config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("harness9/", env!("CARGO_PKG_VERSION")))
        .timeout_connect(Some(connect))
        .timeout_recv_response(Some(idle))
        .timeout_per_read(Some(idle))
        .timeout_send_body(Some(idle));
    // A server on this machine is reached directly, whatever proxy the environment names.
    if is_loopback(base_url) {
        config = config.proxy(None);
    }
    ureq::Agent::new_with_config(config.build())
}

fn is_loopback(base_url: &str) -> bool {
    let Ok(url) = url::Url::parse(base_url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// One message in the OpenAI format.
fn message_json(m: &Message) -> Value {
    match m {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            if tool_calls.is_empty() {
                return json!({"role": "assistant", "content": content});
            }
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|c| {
                    let arguments = if c.arguments.trim().is_empty() {
                        "{}"
                    } else {
                        c.arguments.as_str()
                    };
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": arguments},
                    })
                })
                .collect();
            let content = if content.is_empty() {
                Value::Null
            } else {
                Value::String(content.clone())
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Message::Tool {
            tool_call_id,
            content,
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

#[async_trait]
impl Model for OpenAiModel {
    fn name(&self) -> String {
        let host = url::Url::parse(&self.base_url)
            .ok()
            .and_then(|u| {
                let host = u.host_str()?.to_string();
                Some(match u.port() {
                    Some(p) => format!("{host}:{p}"),
                    None => host,
                })
            })
            .unwrap_or_else(|| self.base_url.clone());
        format!("{} @ {host}", self.model)
    }

    async fn reply(
        &self,
        messages: &[Message],
        tools: &[ToolSpec],
        deltas: &mpsc::UnboundedSender<Delta>,
        cancel: &CancelToken,
    ) -> Result<Reply, ModelError> {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let body = serde_json::to_vec(&self.request_body(messages, tools))
            .map_err(|e| ModelError(format!("could not encode the request: {e}")))?;
        let (tx, mut rx) = mpsc::unbounded_channel();
        let request = Request {
            agent: self.agent.clone(),
            endpoint: self.endpoint(),
            api_key: self.api_key.clone(),
            body,
        };
        // A thread of its own rather than the blocking pool: a cancelled request may sit in a
        // read until the idle timeout, and must not hold up the runtime's shutdown meanwhile.
        std::thread::Builder::new()
            .name("harness9-model".into())
            .spawn(move || request.run(&tx))
            .map_err(|e| ModelError(format!("could not start the request: {e}")))?;

        let mut stream = StreamState::default();
        loop {
            let wire = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(cancelled()),
                w = rx.recv() => w,
            };
            match wire {
                Some(Wire::Line(line)) => {
                    if stream.line(&line, deltas)? {
                        break;
                    }
                }
                Some(Wire::End) => break,
                Some(Wire::Failed(e)) => return Err(ModelError(e)),
                None => {
                    return Err(ModelError(
                        "the request ended without an answer (its thread stopped)".into(),
                    ))
                }
            }
        }
        stream.finish(deltas)
    }
}

fn cancelled() -> ModelError {
    ModelError("cancelled".into())
}

/// What the request thread sends.
#[derive(Debug)]
enum Wire {
    Line(String),
    /// The response ended.
    End,
    Failed(String),
}

struct Request {
    agent: ureq::Agent,
    endpoint: String,
    api_key: Option<String>,
    body: Vec<u8>,
}

impl Request {
    fn run(self, tx: &mpsc::UnboundedSender<Wire>) {
        let mut req = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream, application/json");
        if let Some(key) = &self.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let response = match req.send(&self.body[..]) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx.send(Wire::Failed(describe(&e, &self.endpoint)));
                return;
            }
        };
        let status = response.status();
        if !status.is_success() {
            let mut body = response.into_body();
            let text = body
                .with_config()
                .limit(MAX_ERROR_BODY)
                .lossy_utf8(true)
                .read_to_string()
                .unwrap_or_default();
            let _ = tx.send(Wire::Failed(http_error(
                status.as_u16(),
                status.canonical_reason().unwrap_or(""),
                &text,
                &self.endpoint,
            )));
            return;
        }
        let mut reader = BufReader::new(response.into_body().into_reader());
        loop {
            let mut line = Vec::new();
            match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                Ok(0) => {
                    let _ = tx.send(Wire::End);
                    return;
                }
                Ok(_) if !line.ends_with(b"\n") && line.len() as u64 >= MAX_LINE => {
                    let _ = tx.send(Wire::Failed(format!(
                        "{} sent a line longer than {MAX_LINE} bytes",
                        self.endpoint
                    )));
                    return;
                }
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    let text = text.trim_end_matches(['\n', '\r']).to_string();
                    if tx.send(Wire::Line(text)).is_err() {
                        // Nobody listens any more (cancelled, or the reply is complete).
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Wire::Failed(format!(
                        "the connection to {} dropped in the middle of the reply: {}",
                        self.endpoint,
                        io_reason(&e)
                    )));
                    return;
                }
            }
        }
    }
}

fn io_reason(e: &std::io::Error) -> String {
    // ureq wraps its own errors (timeouts, protocol errors) in io::Error.
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ureq::Error>())
    {
        Some(ureq::Error::Timeout(t)) => format!("no data for too long ({t})"),
        Some(inner) => inner.to_string(),
        None if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the server closed the connection early".into()
        }
        None => e.to_string(),
    }
}

/// A request that got no HTTP answer, in words.
fn describe(e: &ureq::Error, endpoint: &str) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("could not connect to {endpoint}: connection refused (is the server running?)")
        }
        ureq::Error::ConnectionFailed => {
            format!("could not connect to {endpoint} (is the server running?)")
        }
        ureq::Error::HostNotFound => {
            format!("could not connect to {endpoint}: host not found (check base_url)")
        }
        ureq::Error::Timeout(t) => format!("{endpoint} did not answer in time ({t})"),
        ureq::Error::BadUri(u) => format!("`{u}` is not a usable URL (check base_url)"),
        other => format!("the request to {endpoint} failed: {other}"),
    }
}

/// An error response, in words: the server's own message, and a hint for the usual causes.
fn http_error(code: u16, reason: &str, body: &str, endpoint: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.get("error")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .map(error_text)
    });
    let message = from_json.unwrap_or_else(|| {
        let t = body.trim();
        let mut short: String = t.chars().take(300).collect();
        if short.len() < t.len() {
            short.push('…');
        }
        short
    });
    let mut out = format!("{endpoint} answered HTTP {code}");
    if !reason.is_empty() {
        out.push(' ');
        out.push_str(reason);
    }
    if !message.is_empty() {
        out.push_str(": ");
        out.push_str(&message);
    }
    let hint = match code {
        401 | 403 => {
            Some("check the API key (api_key or api_key_env in config.toml, or HARNESS9_API_KEY)")
        }
        404 => Some("check base_url (it usually ends in /v1) and the model's name"),
        429 => Some("rate limited or out of quota: wait, or check the account"),
        _ => None,
    };
    if let Some(h) = hint {
        out.push_str(" — ");
        out.push_str(h);
    }
    out
}

/// The readable part of an `error` value: a string, or an object's `message` (with its code).
fn error_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            let message = o
                .get("message")
                .map(error_text)
                .unwrap_or_else(|| v.to_string());
            match o.get("code").or_else(|| o.get("type")) {
                Some(Value::String(c)) if !message.contains(c.as_str()) => {
                    format!("{message} ({c})")
                }
                _ => message,
            }
        }
        Value::Array(items) => items.iter().map(error_text).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// A tool call being assembled from fragments.
#[derive(Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    /// Server-sent events.
    Events,
    /// A plain JSON body (the server ignored `stream`).
    Json,
}

/// Reads a response line by line.
#[derive(Debug, Default)]
struct StreamState {
    kind: Option<BodyKind>,
    /// `data:` lines of an event not yet complete JSON.
    pending: String,
    /// The whole body, for a plain JSON response.
    json: String,
    content: String,
    calls: Vec<PartialCall>,
    finished: bool,
    done: bool,
    events: usize,
}

impl StreamState {
    /// Takes one line; returns true when the reply is complete (`data: [DONE]`).
    fn line(
        &mut self,
        line: &str,
        deltas: &mpsc::UnboundedSender<Delta>,
    ) -> Result<bool, ModelError> {
        let kind = match self.kind {
            Some(k) => k,
            None if line.trim().is_empty() => return Ok(false),
            None => {
                let t = line.trim_start();
                let k = if ["data:", ":", "event:", "id:", "retry:"]
                    .iter()
                    .any(|p| t.starts_with(p))
                {
                    BodyKind::Events
                } else {
                    BodyKind::Json
                };
                self.kind = Some(k);
                k
            }
        };
        if kind == BodyKind::Json {
            self.json.push_str(line);
            self.json.push('\n');
            return Ok(false);
        }
        if line.trim().is_empty() {
            // The end of an event: its data must be complete by now.
            return self.flush().map(|_| self.done);
        }
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(false); // comments, `event:`, `id:`, `retry:`
        };
        let data = data.strip_prefix(' ').unwrap_or(data);
        if self.pending.is_empty() && data.trim() == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        if !self.pending.is_empty() {
            self.pending.push('\n');
        }
        self.pending.push_str(data);
        // Most servers send one complete JSON object per line: take it at once.
        if let Ok(v) = serde_json::from_str::<Value>(&self.pending) {
            self.pending.clear();
            self.chunk(&v, false, deltas)?;
        }
        Ok(false)
    }

    /// Parses the data of an event that ended; an error when it is not JSON.
    fn flush(&mut self) -> Result<(), ModelError> {
        if self.pending.trim().is_empty() {
            self.pending.clear();
            return Ok(());
        }
        let data = std::mem::take(&mut self.pending);
        match serde_json::from_str::<Value>(&data) {
            Ok(_) => Ok(()), // complete JSON is taken as it arrives; nothing left here
            Err(e) => Err(malformed(&e, &data)),
        }
    }

    /// One streamed chunk, or (`whole`) a complete non-streamed answer.
    fn chunk(
        &mut self,
        v: &Value,
        whole: bool,
        deltas: &mpsc::UnboundedSender<Delta>,
    ) -> Result<(), ModelError> {
        self.events += 1;
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(ModelError(format!(
                "the model server reported an error: {}",
                error_text(err)
            )));
        }
        if let Some(total) = v
            .get("usage")
            .and_then(|u| u.get("total_tokens"))
            .and_then(Value::as_u64)
        {
            let _ = deltas.send(Delta::Usage(total));
        }
        let Some(choice) = first_choice(v) else {
            return Ok(()); // usage-only chunks and the like
        };
        let delta = choice
            .get("delta")
            .or_else(|| choice.get("message"))
            .filter(|d| d.is_object());
        if let Some(delta) = delta {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                if !text.is_empty() {
                    self.content.push_str(text);
                    let _ = deltas.send(Delta::Text(text.to_string()));
                }
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for (pos, c) in calls.iter().enumerate() {
                    // In a whole message every entry is a call of its own.
                    self.merge_call(c, whole.then_some(pos as u64));
                }
            }
        }
        if choice.get("finish_reason").is_some_and(|f| f.is_string()) {
            self.finished = true;
        }
        Ok(())
    }

    /// Merges a tool call fragment: by `index` when the server gives one (else `position`),
    /// else by `id`, else into the latest call.
    fn merge_call(&mut self, c: &Value, position: Option<u64>) {
        let index = c.get("index").and_then(Value::as_u64).or(position);
        let id = c.get("id").and_then(Value::as_str).unwrap_or("");
        let at = match index {
            Some(i) => self.calls.iter().position(|p| p.index == Some(i)),
            None if !id.is_empty() => self.calls.iter().position(|p| p.id == id),
            None if self.calls.is_empty() => None,
            None => Some(self.calls.len() - 1),
        };
        let at = at.unwrap_or_else(|| {
            self.calls.push(PartialCall {
                index,
                ..PartialCall::default()
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[at];
        if call.id.is_empty() && !id.is_empty() {
            call.id = id.to_string();
        }
        let function = c.get("function").unwrap_or(c);
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            // Servers send the name whole (sometimes again in every fragment), rarely in pieces.
            if call.name.is_empty() {
                call.name = name.to_string();
            } else if call.name != name {
                call.name.push_str(name);
            }
        }
        match function.get("arguments") {
            Some(Value::String(s)) => call.arguments.push_str(s),
            Some(Value::Null) | None => {}
            Some(other) => call.arguments.push_str(&other.to_string()),
        }
    }

    /// The complete reply, once the response ended.
    fn finish(mut self, deltas: &mpsc::UnboundedSender<Delta>) -> Result<Reply, ModelError> {
        match self.kind {
            None => return Err(ModelError("the model server sent an empty response".into())),
            Some(BodyKind::Json) => {
                let body = std::mem::take(&mut self.json);
                let v: Value = serde_json::from_str(&body).map_err(|e| malformed(&e, &body))?;
                self.chunk(&v, true, deltas)?;
                if first_choice(&v).is_none() {
                    return Err(ModelError(format!(
                        "the model server's answer has no `choices`: {}",
                        excerpt(&body)
                    )));
                }
            }
            Some(BodyKind::Events) => {
                if !self.pending.trim().is_empty() {
                    self.flush()?;
                }
                if !self.done && !self.finished {
                    return Err(ModelError(format!(
                        "the connection closed before the reply was complete ({} characters \
                         and {} tool calls received)",
                        self.content.chars().count(),
                        self.calls.len()
                    )));
                }
            }
        }
        let mut seen = HashSet::new();
        let tool_calls = self
            .calls
            .into_iter()
            .filter(|c| !(c.name.is_empty() && c.arguments.is_empty()))
            .map(|c| {
                let id = if c.id.is_empty() || seen.contains(&c.id) {
                    generated_id()
                } else {
                    c.id
                };
                seen.insert(id.clone());
                let arguments = if c.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    c.arguments
                };
                ModelToolCall {
                    id,
                    name: c.name,
                    arguments,
                }
            })
            .collect();
        Ok(Reply {
            content: self.content,
            tool_calls,
        })
    }
}

fn first_choice(v: &Value) -> Option<&Value> {
    v.get("choices")?.as_array()?.iter().find(|c| {
        c.get("index")
            .and_then(Value::as_u64)
            .is_none_or(|i| i == 0)
    })
}

fn malformed(e: &serde_json::Error, text: &str) -> ModelError {
    ModelError(format!(
        "the model server sent malformed JSON ({e}): {}",
        excerpt(text)
    ))
}

fn excerpt(text: &str) -> String {
    let t = text.trim();
    let mut s: String = t.chars().take(200).collect();
    if s.len() < t.len() {
        s.push('…');
    }
    s
}

/// An id for a tool call the server sent without one, unique in this process.
fn generated_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let salt = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "call_h9_{:x}{:06x}",
        NEXT.fetch_add(1, Ordering::Relaxed),
        salt & 0xFF_FFFF
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(lines: &[&str]) -> (Result<Reply, ModelError>, Vec<String>) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut s = StreamState::default();
        let mut result = None;
        for l in lines {
            match s.line(l, &tx) {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => {
                    result = Some(Err(e));
                    break;
                }
            }
        }
        let result = result.unwrap_or_else(|| s.finish(&tx));
        let mut texts = Vec::new();
        while let Ok(d) = rx.try_recv() {
            match d {
                Delta::Text(t) => texts.push(t),
                Delta::Usage(n) => texts.push(format!("<usage {n}>")),
            }
        }
        (result, texts)
    }

    #[test]
    fn usage_reported_by_the_server_is_passed_on() {
        let (r, texts) = feed(&[
            r#"data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
            "",
            r#"data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}"#,
            "",
            "data: [DONE]",
        ]);
        assert!(r.is_ok());
        assert_eq!(texts, ["Hi", "<usage 12>"]);
    }

    #[test]
    fn text_deltas_are_streamed_and_collected() {
        let (r, texts) = feed(&[
            r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"content":"lo"}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "",
            "data: [DONE]",
        ]);
        assert_eq!(r.expect("a reply").content, "Hello");
        assert_eq!(texts, ["Hel", "lo"]);
    }

    #[test]
    fn tool_call_fragments_merge_by_index() {
        let (r, _) = feed(&[
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"bash","arguments":""}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\":"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"x\"}"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            "data: [DONE]",
        ]);
        let r = r.expect("a reply");
        assert_eq!(
            r.tool_calls,
            vec![
                ModelToolCall {
                    id: "a".into(),
                    name: "bash".into(),
                    arguments: r#"{"command":"ls"}"#.into()
                },
                ModelToolCall {
                    id: "b".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"x"}"#.into()
                },
            ]
        );
    }

    #[test]
    fn missing_ids_are_generated_and_unique() {
        let (r, _) = feed(&[
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"bash","arguments":"{}"}},{"index":1,"function":{"name":"bash","arguments":{"command":"ls"}}}]},"finish_reason":"tool_calls"}]}"#,
        ]);
        let r = r.expect("a reply (finish_reason ends it without [DONE])");
        assert_eq!(r.tool_calls.len(), 2);
        assert!(r.tool_calls[0].id.starts_with("call_h9_"));
        assert_ne!(r.tool_calls[0].id, r.tool_calls[1].id);
        assert_eq!(
            r.tool_calls[1].arguments, r#"{"command":"ls"}"#,
            "object arguments are taken as JSON text"
        );
    }

    #[test]
    fn a_plain_json_body_is_accepted() {
        let (r, texts) = feed(&[
            "{",
            r#""choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c1","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]},"finish_reason":"tool_calls"}]"#,
            "}",
        ]);
        let r = r.expect("a reply");
        assert_eq!(r.content, "hi");
        assert_eq!(texts, ["hi"]);
        assert_eq!(r.tool_calls[0].name, "list_dir");
        assert_eq!(r.tool_calls[0].id, "c1");
    }

    #[test]
    fn a_stream_that_stops_early_is_an_error() {
        let (r, _) = feed(&[r#"data: {"choices":[{"delta":{"content":"Hel"}}]}"#]);
        let e = r.expect_err("incomplete");
        assert!(e.0.contains("closed before the reply was complete"), "{e}");
    }

    #[test]
    fn malformed_json_in_the_stream_is_an_error() {
        let (r, _) = feed(&["data: {\"choices\": [", ""]);
        let e = r.expect_err("malformed");
        assert!(e.0.contains("malformed JSON"), "{e}");
    }

    #[test]
    fn an_error_event_in_the_stream_is_an_error() {
        let (r, _) =
            feed(&[r#"data: {"error":{"message":"context length exceeded","code":"ctx"}}"#]);
        let e = r.expect_err("error event");
        assert!(e.0.contains("context length exceeded (ctx)"), "{e}");
    }

    #[test]
    fn http_errors_carry_the_servers_message_and_a_hint() {
        let m = http_error(
            401,
            "Unauthorized",
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
            "http://x/v1/chat/completions",
        );
        assert!(m.contains("HTTP 401 Unauthorized"), "{m}");
        assert!(m.contains("Incorrect API key provided"), "{m}");
        assert!(m.contains("check the API key"), "{m}");
        let m = http_error(500, "Internal Server Error", "<html>oops</html>", "e");
        assert!(m.contains("<html>oops</html>"), "{m}");
        let m = http_error(422, "", r#"{"detail":[{"msg":"field required"}]}"#, "e");
        assert!(m.contains("HTTP 422"), "{m}");
    }

    #[test]
    fn messages_use_the_openai_format() {
        let m = OpenAiModel::new("http://localhost:1/v1/", "m", None);
        let body = m.request_body(
            &[
                Message::Assistant {
                    content: String::new(),
                    tool_calls: vec![ModelToolCall {
                        id: "c1".into(),
                        name: "bash".into(),
                        arguments: String::new(),
                    }],
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    content: "ok".into(),
                },
            ],
            &[],
        );
        assert_eq!(
            body["messages"][0],
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            ]})
        );
        assert_eq!(
            body["messages"][1],
            json!({"role": "tool", "tool_call_id": "c1", "content": "ok"})
        );
        assert!(body.get("tools").is_none(), "no tools, no `tools` key");
        assert_eq!(m.endpoint(), "http://localhost:1/v1/chat/completions");
    }

    #[test]
    fn a_model_list_reads_its_ids_sorted() {
        assert_eq!(
            models_of(r#"{"object":"list","data":[{"id":"b"},{"id":"a"},{"id":"b"},{"x":1}]}"#),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert_eq!(models_of("[]"), None);
        assert_eq!(models_of("not json"), None);
    }

    #[test]
    fn the_name_shows_model_and_host() {
        assert_eq!(
            OpenAiModel::new("https://api.openai.com/v1", "gpt-4o-mini", None).name(),
            "gpt-4o-mini @ api.openai.com"
        );
        assert_eq!(
            OpenAiModel::new("http://localhost:8080/v1", "qwen", None).name(),
            "qwen @ localhost:8080"
        );
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        assert!(is_loopback("http://localhost:8080/v1"));
        assert!(is_loopback("http://127.0.0.1:1/v1"));
        assert!(is_loopback("http://[::1]:1/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
    }
}
