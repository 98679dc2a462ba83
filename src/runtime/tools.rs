//! The tools the agent can call: `bash`, `read_file`, `write_file`, `edit_file`, `list_dir`.
//!
//! [`Tools`] runs them for the [`HookRegistry`](super::HookRegistry) once the hooks let a call
//! through, and [`specs`] describes them to the model. Both are read from one table, so the
//! schema the model sees and the arguments [`Tools::validate`] accepts never drift apart. The
//! argument names are the engine's: `bash` takes `command`, the file tools take `path`.
//!
//! Paths are resolved the way the engine resolves them ([`PathContext::join`]): relative to the
//! working folder, with a leading `~` or `$HOME` expanded, so a tool touches exactly the path
//! the policy judged.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Map, Value};
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdout};

use super::{
    CancelToken, ContainedRun, Containment, InvalidCall, ResultStatus, ToolResult, ToolRunner,
};
use crate::call::ToolCall;
use crate::engine::paths::PathContext;
use crate::model::ToolSpec;
use crate::sandbox;

/// How long a `bash` command may run unless configured otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// How many bytes of a tool's output are kept unless configured otherwise (head and tail).
pub const DEFAULT_OUTPUT_CAP: usize = 256 * 1024;
/// Files larger than this are not read whole by `read_file` or `edit_file`.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// After `bash` exits, how long to wait for background processes to close its output.
const EXIT_GRACE: Duration = Duration::from_millis(500);
/// After killing a command, how long to wait for it to be reaped.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// The agent's tools, run in one working folder.
#[derive(Debug, Clone)]
pub struct Tools {
    cwd: PathBuf,
    timeout: Duration,
    output_cap: usize,
    paths: PathContext,
}

impl Tools {
    /// Tools working in `cwd` (relative paths start there), with `$HOME` from the environment,
    /// the default timeout and output cap.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Tools::with_home(cwd, home)
    }

    /// Tools working in `cwd`, with `~` meaning `home` (`None`: `~` matches nothing real).
    pub fn with_home(cwd: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        let cwd = cwd.into();
        Tools {
            paths: PathContext::new(cwd.clone(), home),
            cwd,
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
        }
    }

    /// How long a `bash` command may run before it is killed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many bytes of output a tool returns at most; more is cut in the middle.
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.output_cap = bytes.max(MIN_CAP);
        self
    }

    /// The working folder.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn resolve(&self, raw: &str) -> PathBuf {
        self.paths.join(raw)
    }
}

/// A cap below this could not even hold the note saying what was cut.
const MIN_CAP: usize = 64;

/// The JSON schemas of the tools, for the model.
pub fn specs() -> Vec<ToolSpec> {
    TOOLS
        .iter()
        .map(|t| {
            let mut properties = Map::new();
            for p in t.params {
                let schema = match p.kind {
                    Kind::Text | Kind::NonEmptyText => json!({"type": "string"}),
                    Kind::Count => json!({"type": "integer", "minimum": 0}),
                };
                let mut schema = schema;
                schema["description"] = Value::String(p.description.into());
                properties.insert(p.name.into(), schema);
            }
            let required: Vec<&str> = t
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name)
                .collect();
            ToolSpec {
                name: t.name.into(),
                description: t.description.into(),
                parameters: json!({
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false,
                }),
            }
        })
        .collect()
}

/// The names of the tools, in the order [`specs`] lists them.
pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|t| t.name).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Any string.
    Text,
    /// A string that is not empty.
    NonEmptyText,
    /// A non-negative integer.
    Count,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Text => "a string",
            Kind::NonEmptyText => "a non-empty string",
            Kind::Count => "a non-negative integer",
        }
    }
}

struct Param {
    name: &'static str,
    kind: Kind,
    required: bool,
    description: &'static str,
}

struct ToolDef {
    name: &'static str,
    description: &'static str,
    params: &'static [Param],
}

const PATH_PARAM: Param = Param {
    name: "path",
    kind: Kind::NonEmptyText,
    required: true,
    description: "The file's path, relative to the working folder (or absolute).",
};

const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "bash",
        description: "Runs a command with `bash -c` in the working folder and returns its output \
                      (stdout and stderr together) and exit code. Long output is cut in the \
                      middle; commands that run too long are killed.",
        params: &[Param {
            name: "command",
            kind: Kind::NonEmptyText,
            required: true,
            description: "The shell command to run.",
        }],
    },
    ToolDef {
        name: "read_file",
        description: "Reads a text file. Give `offset` and `limit` to read part of a long file.",
        params: &[
            PATH_PARAM,
            Param {
                name: "offset",
                kind: Kind::Count,
                required: false,
                description: "The line to start at (1 is the first line).",
            },
            Param {
                name: "limit",
                kind: Kind::Count,
                required: false,
                description: "How many lines to read at most.",
            },
        ],
    },
    ToolDef {
        name: "write_file",
        description: "Writes a file whole, replacing it if it exists and creating missing parent \
                      folders.",
        params: &[
            PATH_PARAM,
            Param {
                name: "content",
                kind: Kind::Text,
                required: true,
                description: "The file's new content.",
            },
        ],
    },
    ToolDef {
        name: "edit_file",
        description: "Replaces one piece of text in a file. `old_string` must occur in the file \
                      exactly once: include enough surrounding text to make it unique.",
        params: &[
            PATH_PARAM,
            Param {
                name: "old_string",
                kind: Kind::NonEmptyText,
                required: true,
                description: "The exact text to replace; it must occur exactly once.",
            },
            Param {
                name: "new_string",
                kind: Kind::Text,
                required: true,
                description: "The text to put in its place.",
            },
        ],
    },
    ToolDef {
        name: "list_dir",
        description: "Lists a folder's entries; folders end with `/`.",
        params: &[Param {
            name: "path",
            kind: Kind::NonEmptyText,
            required: true,
            description: "The folder's path, relative to the working folder (`.` for itself).",
        }],
    },
];

fn tool_def(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Checks a call against the tool table: a known tool, no unknown arguments, every required
/// argument present, every argument of the right type. `null` counts as absent for optional
/// arguments (models often send it).
fn check(call: &ToolCall) -> Result<&'static ToolDef, InvalidCall> {
    let Some(def) = tool_def(&call.name) else {
        return Err(InvalidCall::UnknownTool {
            name: call.name.clone(),
            suggestion: crate::diag::did_you_mean(&call.name, TOOLS.iter().map(|t| t.name))
                .map(|s| s.to_string()),
            tools: names().into_iter().map(String::from).collect(),
        });
    };
    let mut unknown: Vec<&String> = call
        .arguments
        .keys()
        .filter(|k| !def.params.iter().any(|p| p.name == k.as_str()))
        .collect();
    unknown.sort();
    if let Some(k) = unknown.first() {
        let suggestion = alias(k)
            .filter(|a| def.params.iter().any(|p| p.name == *a))
            .or_else(|| crate::diag::did_you_mean(k, def.params.iter().map(|p| p.name)));
        return Err(InvalidCall::UnknownArgument {
            tool: def.name.to_string(),
            argument: k.to_string(),
            suggestion: suggestion.map(|s| s.to_string()),
            takes: def.params.iter().map(|p| p.name.to_string()).collect(),
        });
    }
    for p in def.params {
        match call.arguments.get(p.name) {
            None | Some(Value::Null) if p.required => {
                return Err(InvalidCall::MissingArgument {
                    tool: def.name.to_string(),
                    argument: p.name.to_string(),
                    kind: p.kind.describe().to_string(),
                })
            }
            None | Some(Value::Null) => {}
            Some(v) => {
                let fits = match p.kind {
                    Kind::Text => v.is_string(),
                    Kind::NonEmptyText => v.as_str().is_some_and(|s| !s.is_empty()),
                    Kind::Count => v.is_u64(),
                };
                if !fits {
                    let got = if v.as_str() == Some("") {
                        "empty"
                    } else {
                        crate::call::json_kind(v)
                    };
                    return Err(InvalidCall::WrongType {
                        tool: def.name.to_string(),
                        argument: p.name.to_string(),
                        expected: p.kind.describe().to_string(),
                        got: got.to_string(),
                    });
                }
            }
        }
    }
    Ok(def)
}

/// The name other agents' tools give an argument, for a helpful hint.
fn alias(name: &str) -> Option<&'static str> {
    match name {
        "file_path" | "filepath" | "filename" | "file" | "dir" | "directory" | "folder" => {
            Some("path")
        }
        "cmd" | "script" | "shell" => Some("command"),
        "text" | "contents" | "data" => Some("content"),
        "old" | "old_str" | "old_text" | "search" => Some("old_string"),
        "new" | "new_str" | "new_text" | "replace" => Some("new_string"),
        _ => None,
    }
}

fn text_arg<'a>(call: &'a ToolCall, name: &str) -> &'a str {
    call.arguments
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn count_arg(call: &ToolCall, name: &str) -> Option<u64> {
    call.arguments.get(name).and_then(Value::as_u64)
}

#[async_trait]
impl ToolRunner for Tools {
    fn validate(&self, call: &ToolCall) -> Result<(), InvalidCall> {
        check(call).map(|_| ())
    }

    /// The `bash` tool runs its commands contained when told to.
    fn contains(&self, call: &ToolCall) -> bool {
        call.name == "bash"
    }

    async fn run_contained(
        &self,
        call: &ToolCall,
        how: &Containment,
        cancel: &CancelToken,
    ) -> ContainedRun {
        let refuse = |why: String| ContainedRun {
            result: ToolResult::error(why),
            sandbox_sign: None,
        };
        match check(call) {
            Err(e) => return refuse(format!("malformed call: {e}")),
            Ok(def) if def.name != "bash" => {
                return refuse(format!(
                    "`{}` cannot run in the sandbox; it did not run",
                    def.name
                ))
            }
            Ok(_) => {}
        }
        if cancel.is_cancelled() {
            return refuse("cancelled before it ran".into());
        }
        self.bash_contained(text_arg(call, "command"), how, cancel)
            .await
    }

    async fn run(&self, call: &ToolCall, cancel: &CancelToken) -> ToolResult {
        let def = match check(call) {
            Ok(def) => def,
            Err(e) => return ToolResult::error(format!("malformed call: {e}")),
        };
        if cancel.is_cancelled() {
            return ToolResult::error("cancelled before it ran");
        }
        if def.name == "bash" {
            return self.bash(text_arg(call, "command"), cancel).await;
        }
        let raw = text_arg(call, "path").to_string();
        let path = self.resolve(&raw);
        let cap = self.output_cap;
        let call = call.clone();
        let job = move || match call.name.as_str() {
            "read_file" => read_file(
                &raw,
                &path,
                count_arg(&call, "offset"),
                count_arg(&call, "limit"),
                cap,
            ),
            "write_file" => write_file(&raw, &path, text_arg(&call, "content")),
            "edit_file" => edit_file(
                &raw,
                &path,
                text_arg(&call, "old_string"),
                text_arg(&call, "new_string"),
            ),
            "list_dir" => list_dir(&raw, &path, cap),
            other => ToolResult::error(format!("no runner for tool `{other}`")),
        };
        // File work may block on a slow disk: keep it off the runtime's thread.
        match tokio::task::spawn_blocking(job).await {
            Ok(result) => result,
            Err(e) => ToolResult::error(format!("the `{}` tool failed: {e}", def.name)),
        }
    }
}

/// How a `bash` run ended, when it did not simply exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Timeout,
    Cancelled,
}

/// What a `bash` run left: its output, and how it ended.
struct Ran {
    out: Capture,
    status: Option<std::io::Result<std::process::ExitStatus>>,
    stop: Option<Stop>,
    /// bash exited, but something it left in the background held the output open.
    abandoned: bool,
    /// The output pipes still open, kept open until the run's result is made: a command that
    /// is killed is killed before they close.
    _pipes: (Option<ChildStdout>, Option<ChildStderr>),
}

impl Tools {
    async fn bash(&self, command: &str, cancel: &CancelToken) -> ToolResult {
        let mut cmd = tokio::process::Command::new("bash");
        cmd.arg("-c").arg(command).current_dir(&self.cwd);
        match self.spawn(cmd) {
            Ok(child) => self.wait_bash(child, cancel).await.0,
            Err(e) => ToolResult::error(format!(
                "could not start `bash` in {}: {e}",
                self.cwd.display()
            )),
        }
    }

    /// Runs `bash -c command` in the sandbox (profile and hidden paths as `how` says), the
    /// project being the working folder: with the same timeout, cancellation and output cap
    /// as a free run. The sandbox is [`crate::sandbox`]'s, prepared and started as
    /// `harness9 sandbox` does.
    async fn bash_contained(
        &self,
        command: &str,
        how: &Containment,
        cancel: &CancelToken,
    ) -> ContainedRun {
        let not_run = |why: String| ContainedRun {
            result: ToolResult::error(format!(
                "could not run it in the sandbox: {why}; the command did not run"
            )),
            sandbox_sign: Some(format!("the sandbox could not start: {why}")),
        };
        let Some(profile) = sandbox::profile(&how.profile) else {
            // A profile the engine named and the sandbox does not know: never run free.
            return ContainedRun {
                result: ToolResult::error(format!(
                    "no sandbox profile `{}`; the command did not run",
                    how.profile
                )),
                sandbox_sign: None,
            };
        };
        let project = self.cwd.clone();
        let engine = how.engine.clone();
        // Preparing makes the project's placeholders and takes its lock: off the runtime's
        // thread.
        let prepared = tokio::task::spawn_blocking(move || {
            let ctx = engine.context();
            let setup = sandbox::Setup {
                project: &project,
                home: ctx.home.as_deref(),
                protections: engine.protections(),
                ctx,
                profile,
            };
            let prepared = sandbox::prepare(&setup)?;
            let bwrap = sandbox::find_bwrap()?;
            Ok::<_, sandbox::SandboxError>((prepared, bwrap))
        })
        .await;
        let (prepared, bwrap) = match prepared {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => return not_run(e.to_string()),
            Err(e) => return not_run(format!("preparing it failed: {e}")),
        };
        let argv = ["bash".into(), "-c".into(), command.into()];
        let cmd = tokio::process::Command::from(prepared.command(&bwrap, &argv));
        let child = match self.spawn(cmd) {
            Ok(c) => c,
            Err(e) => return not_run(format!("cannot run `{}`: {e}", bwrap.display())),
        };
        let (result, stopped) = self.wait_bash(child, cancel).await;
        // The placeholders go once the sandbox is gone.
        drop(prepared);
        let sandbox_sign = (result.status == ResultStatus::Error && !stopped)
            .then(|| {
                // The project as written and as it really is (a symlink on its way).
                let real = self.cwd.canonicalize().unwrap_or_else(|_| self.cwd.clone());
                sandbox::failure::sandbox_sign(&result.content, &[&self.cwd, &real])
            })
            .flatten();
        ContainedRun {
            result,
            sandbox_sign,
        }
    }

    /// Starts a command with its output piped, in a process group of its own.
    fn spawn(&self, mut cmd: tokio::process::Command) -> std::io::Result<tokio::process::Child> {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group, so that a timeout or a cancel kills what it started too.
        #[cfg(unix)]
        cmd.process_group(0);
        cmd.spawn()
    }

    /// Collects a started command's output until it ends, times out or is cancelled (then it
    /// is killed, with what it started); whether it was stopped so comes back too.
    async fn wait_bash(
        &self,
        mut child: tokio::process::Child,
        cancel: &CancelToken,
    ) -> (ToolResult, bool) {
        let pid = child.id();
        let ran = self.collect(&mut child, cancel).await;
        if let Some(stop) = ran.stop {
            kill_group(pid).await;
            let _ = child.start_kill();
            let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
            return (self.stopped(stop, ran.out), true);
        }
        (exited(ran), false)
    }

    /// Reads the child's output until it exits and its output closes, the timeout passes, or
    /// the turn is cancelled.
    async fn collect(&self, child: &mut tokio::process::Child, cancel: &CancelToken) -> Ran {
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let mut out = Capture::new(self.output_cap);
        let mut buf_out = vec![0u8; 8192];
        let mut buf_err = vec![0u8; 8192];
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        let grace = tokio::time::sleep(Duration::MAX);
        tokio::pin!(grace);
        let mut status: Option<std::io::Result<std::process::ExitStatus>> = None;
        let mut stop: Option<Stop> = None;
        let mut abandoned = false;

        loop {
            if stdout.is_none() && stderr.is_none() && status.is_some() {
                break;
            }
            tokio::select! {
                r = read_some(&mut stdout, &mut buf_out) => match r {
                    Ok(n) if n > 0 => out.push(&buf_out[..n]),
                    _ => stdout = None,
                },
                r = read_some(&mut stderr, &mut buf_err) => match r {
                    Ok(n) if n > 0 => out.push(&buf_err[..n]),
                    _ => stderr = None,
                },
                s = child.wait(), if status.is_none() => {
                    status = Some(s);
                    grace.as_mut().reset(tokio::time::Instant::now() + EXIT_GRACE);
                }
                _ = &mut grace, if status.is_some() => {
                    // bash is gone but something it left in the background holds the output.
                    abandoned = true;
                    break;
                }
                _ = &mut deadline => {
                    stop = Some(Stop::Timeout);
                    break;
                }
                _ = cancel.cancelled() => {
                    stop = Some(Stop::Cancelled);
                    break;
                }
            }
        }
        Ran {
            out,
            status,
            stop,
            abandoned,
            _pipes: (stdout, stderr),
        }
    }

    /// The result of a run that was killed: its output, and why it was killed.
    fn stopped(&self, stop: Stop, out: Capture) -> ToolResult {
        let mut content = out.finish();
        if !content.is_empty() && !content.ends_with('\n') {
            content.push('\n');
        }
        content.push_str(&match stop {
            Stop::Timeout => format!(
                "[timed out after {}: the command was killed]",
                humantime::format_duration(self.timeout)
            ),
            Stop::Cancelled => "[cancelled: the command was killed]".to_string(),
        });
        ToolResult::error(content)
    }
}

/// The result of a run that ended by itself: its output, and its exit code.
fn exited(ran: Ran) -> ToolResult {
    let mut content = ran.out.finish();
    if content.is_empty() {
        content.push_str("(no output)");
    }
    if !content.ends_with('\n') {
        content.push('\n');
    }
    if ran.abandoned {
        content.push_str(
            "[a background process still holds the output open; output after bash exited is not shown]\n",
        );
    }
    match ran.status {
        Some(Ok(s)) if s.success() => {
            content.push_str("[exit code 0]");
            ToolResult::ok(content)
        }
        Some(Ok(s)) => {
            match s.code() {
                Some(c) => content.push_str(&format!("[exit code {c}]")),
                None => content.push_str(&signal_note(&s)),
            }
            ToolResult::error(content)
        }
        Some(Err(e)) => {
            content.push_str(&format!("[could not wait for bash: {e}]"));
            ToolResult::error(content)
        }
        None => ToolResult::error(content + "[bash did not report an exit status]"),
    }
}

#[cfg(unix)]
fn signal_note(s: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match s.signal() {
        Some(sig) => format!("[killed by signal {sig}]"),
        None => "[exited without an exit code]".into(),
    }
}

#[cfg(not(unix))]
fn signal_note(_: &std::process::ExitStatus) -> String {
    "[exited without an exit code]".into()
}

/// Reads from a pipe that may be closed already (then never completes).
async fn read_some<R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}

/// Kills the process group the command leads (what it started in the background too).
async fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid {
        // No libc binding among the dependencies: bash's `kill` signals the group.
        let _ = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(format!("kill -s KILL -- -{pid}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Output kept within a byte cap: the first half and the last half, with a count of what was
/// dropped between them. Memory stays bounded however much a command prints.
struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: usize,
    lines: usize,
}

impl Capture {
    fn new(cap: usize) -> Self {
        let cap = cap.max(MIN_CAP);
        Capture {
            head_cap: cap - cap / 2,
            tail_cap: cap / 2,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            lines: 0,
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        self.total += data.len();
        self.lines += count_newlines(data);
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail
                .extend(data[data.len() - self.tail_cap..].iter().copied());
        } else {
            let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(data.iter().copied());
        }
    }

    fn finish(self) -> String {
        let tail: Vec<u8> = self.tail.into_iter().collect();
        let kept = self.head.len() + tail.len();
        if kept == self.total {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        // Cut at line ends when one is near, else at character boundaries.
        let mut head_end = utf8_floor(&self.head);
        if let Some(nl) = self.head[..head_end].iter().rposition(|&b| b == b'\n') {
            if nl + 1 >= head_end - head_end / 4 {
                head_end = nl + 1;
            }
        }
        let mut tail_start = utf8_ceil(&tail, 0);
        if let Some(nl) = tail[tail_start..].iter().position(|&b| b == b'\n') {
            if nl < (tail.len() - tail_start) / 4 {
                tail_start += nl + 1;
            }
        }
        let head = &self.head[..head_end];
        let tail = &tail[tail_start..];
        let cut = self.total - head.len() - tail.len();
        let cut_lines = self
            .lines
            .saturating_sub(count_newlines(head) + count_newlines(tail));
        let mut s = String::from_utf8_lossy(head).into_owned();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&format!(
            "[… {cut} bytes ({cut_lines} lines) cut from the middle: {} bytes in all …]\n",
            self.total
        ));
        s.push_str(&String::from_utf8_lossy(tail));
        s
    }
}

fn count_newlines(data: &[u8]) -> usize {
    data.iter().filter(|&&b| b == b'\n').count()
}

/// The length of `data` without a multi-byte character cut short at its end.
fn utf8_floor(data: &[u8]) -> usize {
    let len = data.len();
    for back in 1..=len.min(3) {
        let b = data[len - back];
        if !is_continuation(b) {
            let need = match b {
                0xF0.. => 4,
                0xE0.. => 3,
                0xC0.. => 2,
                _ => 1,
            };
            return if need > back { len - back } else { len };
        }
    }
    len
}

/// The smallest index ≥ `i` that starts a UTF-8 character.
fn utf8_ceil(data: &[u8], mut i: usize) -> usize {
    let limit = (i + 4).min(data.len());
    while i < limit && is_continuation(data[i]) {
        i += 1;
    }
    i
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Cuts `text` to at most about `cap` bytes the way `bash` output is cut: head and tail kept,
/// a note in the middle saying how much was dropped.
pub fn cap_text(text: &str, cap: usize) -> String {
    let mut c = Capture::new(cap);
    c.push(text.as_bytes());
    c.finish()
}

fn io_error(what: &str, raw: &str, e: &std::io::Error) -> ToolResult {
    let why = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    ToolResult::error(format!("could not {what} `{raw}`: {why}"))
}

/// Reads a file that should hold text; an error result when it cannot or should not be read.
fn read_text(raw: &str, path: &Path) -> Result<String, ToolResult> {
    let meta = std::fs::metadata(path).map_err(|e| io_error("read", raw, &e))?;
    if meta.is_dir() {
        return Err(ToolResult::error(format!(
            "`{raw}` is a folder, not a file: use list_dir"
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolResult::error(format!(
            "`{raw}` is {} bytes, too large to read whole: use bash with head, tail or grep",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| io_error("read", raw, &e))?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(ToolResult::error(format!(
            "`{raw}` looks binary ({} bytes); not shown",
            bytes.len()
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        ToolResult::error(format!(
            "`{raw}` is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn read_file(
    raw: &str,
    path: &Path,
    offset: Option<u64>,
    limit: Option<u64>,
    cap: usize,
) -> ToolResult {
    let text = match read_text(raw, path) {
        Ok(t) => t,
        Err(r) => return r,
    };
    if text.is_empty() {
        return ToolResult::ok(format!("(`{raw}` is empty)"));
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len();
    let first = usize::try_from(offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    if first > total {
        return ToolResult::error(format!(
            "offset {first} is past the end: `{raw}` has {total} lines"
        ));
    }
    let wanted = limit
        .map(|l| usize::try_from(l).unwrap_or(usize::MAX))
        .unwrap_or(usize::MAX);
    if wanted == 0 {
        return ToolResult::error("limit 0 reads nothing: give a positive limit or none");
    }
    let last = first.saturating_add(wanted - 1).min(total);

    let mut out = String::new();
    let mut shown_last = first - 1;
    for (i, line) in lines[first - 1..last].iter().enumerate() {
        if out.len() + line.len() > cap {
            if out.is_empty() {
                // One line longer than the cap: show it cut.
                out = cap_text(line, cap);
                shown_last = first + i;
            }
            break;
        }
        out.push_str(line);
        shown_last = first + i;
    }
    if shown_last < last {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[lines {first}–{shown_last} of {total} shown (output cap); read on with offset={}]",
            shown_last + 1
        ));
    } else if first > 1 || last < total {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("[lines {first}–{last} of {total}]"));
    }
    ToolResult::ok(out)
}

fn write_file(raw: &str, path: &Path, content: &str) -> ToolResult {
    if path.is_dir() {
        return ToolResult::error(format!("`{raw}` is a folder: give a file's path"));
    }
    let existed = path.exists();
    if let Some(parent) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            return io_error("create the folders of", raw, &e);
        }
    }
    match std::fs::write(path, content) {
        Ok(()) => ToolResult::ok(format!(
            "{} `{raw}` ({} bytes)",
            if existed { "overwrote" } else { "created" },
            content.len()
        )),
        Err(e) => io_error("write", raw, &e),
    }
}

fn edit_file(raw: &str, path: &Path, old: &str, new: &str) -> ToolResult {
    if old.is_empty() {
        return ToolResult::error("`old_string` is empty: give the exact text to replace");
    }
    if old == new {
        return ToolResult::error("`old_string` and `new_string` are the same: nothing to change");
    }
    let text = match read_text(raw, path) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let Some(at) = text.find(old) else {
        return ToolResult::error(format!(
            "`old_string` occurs 0 times in `{raw}`: it must match the file's text exactly, \
             whitespace included"
        ));
    };
    // A second occurrence, overlapping ones included, makes the edit ambiguous.
    let next = at + old.chars().next().map_or(1, char::len_utf8);
    if text[next..].contains(old) {
        let count = text.matches(old).count().max(2);
        return ToolResult::error(format!(
            "`old_string` occurs {count} times in `{raw}`: include more surrounding text so \
             that it occurs exactly once"
        ));
    }
    let line = count_newlines(&text.as_bytes()[..at]) + 1;
    let mut edited = String::with_capacity(text.len() + new.len());
    edited.push_str(&text[..at]);
    edited.push_str(new);
    edited.push_str(&text[at + old.len()..]);
    match std::fs::write(path, edited) {
        Ok(()) => ToolResult::ok(format!(
            "edited `{raw}`: replaced 1 occurrence at line {line}"
        )),
        Err(e) => io_error("write", raw, &e),
    }
}

fn list_dir(raw: &str, path: &Path, cap: usize) -> ToolResult {
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(_) if path.is_file() => {
            return ToolResult::error(format!("`{raw}` is a file, not a folder: use read_file"));
        }
        Err(e) => return io_error("list", raw, &e),
    };
    let mut names: Vec<String> = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => return io_error("list", raw, &e),
        };
        let mut name = entry.file_name().to_string_lossy().into_owned();
        // `metadata` follows symlinks: a link to a folder is listed as a folder.
        if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
            name.push('/');
        }
        names.push(name);
    }
    if names.is_empty() {
        return ToolResult::ok(format!("(`{raw}` is empty)"));
    }
    names.sort();
    let mut out = names.join("\n");
    out.push('\n');
    ToolResult::ok(cap_text(&out, cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: Value) -> ToolCall {
        let arguments = match args {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        ToolCall::new(name, arguments)
    }

    #[test]
    fn specs_cover_every_tool_with_the_engines_argument_names() {
        let specs = specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["bash", "read_file", "write_file", "edit_file", "list_dir"]
        );
        for s in &specs {
            let key = crate::call::primary_key(&s.name).expect("every tool has a primary key");
            assert!(
                s.parameters["properties"][key].is_object(),
                "{} documents `{key}`",
                s.name
            );
            let required = s.parameters["required"].as_array().expect("required list");
            assert!(
                required.iter().any(|r| r == key),
                "{} requires `{key}`",
                s.name
            );
            assert_eq!(s.parameters["additionalProperties"], false);
        }
    }

    #[test]
    fn validate_accepts_well_formed_calls() {
        let t = Tools::new("/tmp");
        for c in [
            call("bash", json!({"command": "ls"})),
            call("read_file", json!({"path": "a", "offset": 3, "limit": 10})),
            call("read_file", json!({"path": "a", "offset": null})),
            call("write_file", json!({"path": "a", "content": ""})),
            call(
                "edit_file",
                json!({"path": "a", "old_string": "x", "new_string": ""}),
            ),
            call("list_dir", json!({"path": "."})),
        ] {
            assert_eq!(t.validate(&c), Ok(()), "{c:?}");
        }
    }

    #[test]
    fn validate_names_the_problem() {
        let t = Tools::new("/tmp");
        let cases = [
            (
                call("bash", json!({})),
                "`bash` needs the argument `command`",
            ),
            (
                call("bash", json!({"command": 3})),
                "`command` must be a non-empty string, not an integer",
            ),
            (
                call("bash", json!({"command": ""})),
                "must be a non-empty string, not empty",
            ),
            (
                call("bash", json!({"command": "ls", "cwd": "/"})),
                "`bash` has no argument `cwd`",
            ),
            (
                call("read_file", json!({"file_path": "a"})),
                "has no argument `file_path` (did you mean `path`?)",
            ),
            (
                call("read_file", json!({"path": "a", "offset": -1})),
                "`offset` must be a non-negative integer",
            ),
            (
                call("read_file", json!({"path": "a", "limit": "5"})),
                "not a string",
            ),
            (
                call("write_file", json!({"path": "a"})),
                "needs the argument `content`",
            ),
            (
                call(
                    "edit_file",
                    json!({"path": "a", "old_string": "", "new_string": "b"}),
                ),
                "`old_string` must be a non-empty string",
            ),
            (
                call("rm_file", json!({"path": "a"})),
                "unknown tool `rm_file`",
            ),
            (
                call("read_fle", json!({"path": "a"})),
                "did you mean `read_file`?",
            ),
        ];
        for (c, want) in cases {
            match t.validate(&c) {
                Err(e) => assert!(
                    e.to_string().contains(want),
                    "{c:?}: {e:?} should contain {want:?}"
                ),
                Ok(()) => panic!("{c:?} should be rejected"),
            }
        }
    }

    #[test]
    fn capture_keeps_everything_under_the_cap() {
        let mut c = Capture::new(100);
        c.push(b"hello\n");
        c.push(b"world\n");
        assert_eq!(c.finish(), "hello\nworld\n");
    }

    #[test]
    fn capture_keeps_head_and_tail_and_counts_the_cut() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let mut c = Capture::new(200);
        for chunk in text.as_bytes().chunks(7) {
            c.push(chunk);
        }
        let out = c.finish();
        assert!(out.starts_with("line 0\nline 1\n"), "{out}");
        assert!(out.ends_with("line 999\n"), "{out}");
        assert!(out.contains("bytes ("), "{out}");
        assert!(
            out.contains(&format!("{} bytes in all", text.len())),
            "{out}"
        );
        assert!(out.len() < 400, "bounded: {}", out.len());
        // What is shown plus what was cut is everything.
        let cut: usize = out
            .split("[… ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a cut count");
        let note_len = out
            .lines()
            .find(|l| l.starts_with("[… "))
            .map_or(0, |l| l.len() + 1);
        assert_eq!(out.len() - note_len + cut, text.len());
    }

    #[test]
    fn capture_never_splits_a_character() {
        let text = "é".repeat(500);
        let out = cap_text(&text, 101);
        assert!(!out.contains('\u{FFFD}'), "{out}");
        assert!(out.starts_with('é') && out.ends_with('é'));
    }

    #[test]
    fn capture_of_one_huge_chunk_keeps_its_tail() {
        let mut c = Capture::new(100);
        let mut data = vec![b'a'; 10_000];
        data.extend_from_slice(b"THE END");
        c.push(&data);
        let out = c.finish();
        assert!(out.ends_with("THE END"), "{out}");
        assert!(out.contains("9907 bytes (0 lines) cut"), "{out}");
    }

    #[test]
    fn read_file_selects_lines_and_says_which() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "a\nb\nc\nd\n").expect("write");
        let r = read_file("f.txt", &p, Some(2), Some(2), 1000);
        assert_eq!(r, ToolResult::ok("b\nc\n[lines 2–3 of 4]"));
        let r = read_file("f.txt", &p, None, None, 1000);
        assert_eq!(r, ToolResult::ok("a\nb\nc\nd\n"));
        let r = read_file("f.txt", &p, Some(9), None, 1000);
        assert_eq!(r.status, super::super::ResultStatus::Error);
        assert!(r.content.contains("has 4 lines"), "{}", r.content);
    }

    #[test]
    fn read_file_stops_at_the_cap_and_says_where_to_go_on() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("f.txt");
        let text: String = (1..=100).map(|i| format!("line {i:03}\n")).collect();
        std::fs::write(&p, &text).expect("write");
        let r = read_file("f.txt", &p, None, None, 90);
        assert!(r.content.starts_with("line 001\n"), "{}", r.content);
        assert!(
            r.content
                .contains("[lines 1–10 of 100 shown (output cap); read on with offset=11]"),
            "{}",
            r.content
        );
    }

    #[test]
    fn read_file_refuses_binaries_and_folders() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("b.bin");
        std::fs::write(&p, [0u8, 1, 2, 3]).expect("write");
        let r = read_file("b.bin", &p, None, None, 1000);
        assert!(r.content.contains("looks binary"), "{}", r.content);
        let r = read_file("d", dir.path(), None, None, 1000);
        assert!(r.content.contains("is a folder"), "{}", r.content);
    }

    #[test]
    fn edit_counts_overlapping_occurrences_as_ambiguous() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "aaa").expect("write");
        let r = edit_file("f.txt", &p, "aa", "b");
        assert_eq!(r.status, super::super::ResultStatus::Error);
        assert!(r.content.contains("occurs 2 times"), "{}", r.content);
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "aaa");
    }

    #[test]
    fn tilde_paths_resolve_like_the_engine() {
        let t = Tools::with_home("/work", Some(PathBuf::from("/home/u")));
        assert_eq!(
            t.resolve("~/.ssh/id_rsa"),
            PathBuf::from("/home/u/.ssh/id_rsa")
        );
        assert_eq!(t.resolve("src/a.rs"), PathBuf::from("/work/src/a.rs"));
        assert_eq!(t.resolve("/etc/hosts"), PathBuf::from("/etc/hosts"));
    }
}
