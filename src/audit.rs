//! The audit log: one JSON line per decision and per outcome, appended to the project's
//! `audit.jsonl` in the user's state folder ([`state_dir`]: `$XDG_STATE_HOME/harness9/<project
//! key>/`, by default `~/.local/state/harness9/<project key>/`) by the hook adapters and by the
//! runtime (the TUI) alike, in one schema ([`Record`]) through one writer ([`append_line`]).
//! `harness9 suggest` reads it back, and `harness9 doctor` says where it is. Nothing of it is
//! written into the repository: a project gets a `.harness9/` folder only when a person puts a
//! policy or settings there.
//!
//! A decision line:
//!
//! ```json
//! {"time":"2026-12-02T10:00:00.000Z","agent":"claude-code","session_id":"s1",
//!  "call_id":"toolu_1","tool":"Bash","event":"decision","call":"bash","input":"git status",
//!  "mode":"default","decision":"allow","risk":"low","rule":"readonly.policy:14",
//!  "reason":"…","decided_by":{"by":"rule","hook":"policy","rule":"readonly.policy:14"}}
//! ```
//!
//! An outcome line (a call that ran, by the agent's id of the call):
//! `{"time":…,"agent":"claude-code","session_id":"s1","call_id":"toolu_1","tool":"Bash",
//! "event":"outcome","outcome":"ran"}`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::{Action, Risk, RuleRef, ToolCall};
use crate::engine::Mode;
/// The log's file name in the project's state folder.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// The longest `input` a line keeps whole; a longer one is cut and marked `truncated`.
pub const MAX_INPUT_CHARS: usize = 4096;

fn absolute_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// The user's state folder for harness9: `$XDG_STATE_HOME/harness9` (an absolute value),
/// else `~/.local/state/harness9` of `home`.
pub fn state_home_in(home: Option<&Path>) -> std::io::Result<PathBuf> {
    if let Some(state) = absolute_var("XDG_STATE_HOME") {
        return Ok(state.join("harness9"));
    }
    match home {
        Some(home) => Ok(home.join(".local/state/harness9")),
        None => Err(std::io::Error::other(
            "neither XDG_STATE_HOME nor HOME is set, so there is no state folder",
        )),
    }
}

/// The name of a project's state folder: the working folder's last name (letters, digits,
/// `.`, `_`, `-`; at most 40 of them) and a hash of its whole path, so that two projects of
/// one name keep their logs apart.
pub fn project_key(cwd: &Path) -> String {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let name: String = cwd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let name = name.trim_start_matches('.');
    let name = if name.is_empty() { "root" } else { name };
    format!("{name}-{:016x}", fnv1a(cwd.as_os_str().as_encoded_bytes()))
}

/// FNV-1a, 64 bits: stable across releases and machines, which a key of a folder needs.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The state folder of the project at `cwd`: its audit log, the TUI's offloaded outputs and
/// input history (home from `$HOME`).
pub fn state_dir(cwd: &Path) -> std::io::Result<PathBuf> {
    state_dir_in(cwd, absolute_var("HOME").as_deref())
}

/// [`state_dir`] with the home folder given.
pub fn state_dir_in(cwd: &Path, home: Option<&Path>) -> std::io::Result<PathBuf> {
    Ok(state_home_in(home)?.join(project_key(cwd)))
}

/// Where the log of a working folder is.
pub fn audit_path(cwd: &Path) -> std::io::Result<PathBuf> {
    Ok(state_dir(cwd)?.join(AUDIT_FILE))
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// RFC 3339, UTC, milliseconds.
    pub time: String,
    /// Who asked: `claude-code`, `gemini-cli`, or `harness9` (its own agent, the TUI).
    pub agent: String,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The agent's id of the tool call, when it sends one.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The agent's own name for the tool (`Bash`, `run_shell_command`, `bash`).
    pub tool: String,
    #[serde(flatten)]
    pub event: Event,
}

/// What a line records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Decision(Decided),
    /// What became of a call decided before: `ran`.
    Outcome {
        outcome: String,
    },
}

/// A decision: the call as harness9 saw it, and the final word on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decided {
    /// harness9's tool name (`bash`, `read_file`, an MCP tool's).
    pub call: String,
    /// The call's primary argument (the command, the path), or its arguments as JSON; cut at
    /// [`MAX_INPUT_CHARS`].
    pub input: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    pub mode: String,
    pub decision: Action,
    pub risk: Risk,
    pub rule: Option<RuleRef>,
    pub reason: String,
    pub decided_by: DecidedBy,
    /// For a contained call a host runs (`harness9 hook claude-code --sandbox`): the command
    /// the host was told to run instead, under `harness9 sandbox`; not cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<String>,
}

/// Who decided a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "by")]
pub enum DecidedBy {
    /// A hook's rule (or its default); `policy` for the hook adapters' engine.
    Rule { hook: String, rule: Option<RuleRef> },
    /// A person's answer (`allow-once`, `deny-with-feedback`, …).
    Human { answer: String },
    /// The permission mode approved an ask.
    Mode { mode: Mode },
    /// The session memory covered the call.
    Session { rule: RuleRef },
    /// No one could be asked: the policy's `headless` setting decided.
    Headless,
    /// No answer came (cancelled, timed out, dropped): denied.
    NoAnswer { why: String },
    /// A hook failed or panicked, or the call was malformed.
    Error { hook: String },
}

/// Who asked about a call, as a log line names it.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    /// `claude-code`, `gemini-cli`, `harness9`.
    pub agent: &'a str,
    pub session_id: Option<&'a str>,
    /// The agent's id of the tool call.
    pub call_id: Option<&'a str>,
    /// The agent's own name for the tool.
    pub tool: &'a str,
}

/// The final word on a call, and who said it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub action: Action,
    pub risk: Risk,
    pub rule: Option<RuleRef>,
    pub reason: String,
    pub decided_by: DecidedBy,
}

impl Record {
    /// A decision line about `call`, stamped now.
    pub fn decision(by: Caller<'_>, call: &ToolCall, mode: &str, verdict: Verdict) -> Record {
        let (input, truncated) = input_of(call);
        Record::stamped(
            by,
            Event::Decision(Decided {
                call: call.name.clone(),
                input,
                truncated,
                mode: mode.to_string(),
                decision: verdict.action,
                risk: verdict.risk,
                rule: verdict.rule,
                reason: verdict.reason,
                decided_by: verdict.decided_by,
                rewritten: None,
            }),
        )
    }

    /// The same decision line, saying the host runs `command` instead of the call's.
    pub fn rewritten(mut self, command: String) -> Record {
        if let Event::Decision(d) = &mut self.event {
            d.rewritten = Some(command);
        }
        self
    }

    /// An outcome line (`ran`), stamped now.
    pub fn outcome(by: Caller<'_>, outcome: &str) -> Record {
        Record::stamped(
            by,
            Event::Outcome {
                outcome: outcome.to_string(),
            },
        )
    }

    fn stamped(by: Caller<'_>, event: Event) -> Record {
        Record {
            time: now(),
            agent: by.agent.to_string(),
            session_id: by.session_id.map(str::to_string),
            call_id: by.call_id.map(str::to_string),
            tool: by.tool.to_string(),
            event,
        }
    }

    /// The JSON line.
    pub fn to_line(&self) -> String {
        // A record is strings, enums and options: serialising it cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// How a call is written in the log: its primary argument (the command, the path) or its
/// arguments as JSON, cut on a character boundary at [`MAX_INPUT_CHARS`] (then `true`).
pub fn input_of(call: &ToolCall) -> (String, bool) {
    let text = match call.primary_arg() {
        Some(a) => a.to_string(),
        None => Value::Object(call.arguments.clone()).to_string(),
    };
    if text.chars().count() <= MAX_INPUT_CHARS {
        return (text, false);
    }
    let mut cut: String = text.chars().take(MAX_INPUT_CHARS - 1).collect();
    cut.push('…');
    (cut, true)
}

/// Appends one record to the log of `cwd`, creating its state folder when needed (see
/// [`append_line`]).
pub fn append(cwd: &Path, record: &Record) -> std::io::Result<PathBuf> {
    let path = audit_path(cwd)?;
    append_line(&path, &record.to_line())?;
    Ok(path)
}

/// The records of a log, in order, with the lines that are not records (a line cut short by
/// a crash, another program's text) counted rather than failing the read.
pub fn read_log(path: &Path) -> std::io::Result<(Vec<Record>, usize)> {
    let bytes = crate::policy::read_bounded_up_to(path, MAX_LOG_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut records = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    Ok((records, bad))
}

/// The most of a log [`read_log`] reads.
pub const MAX_LOG_BYTES: u64 = 256 << 20;

/// The one writer of audit logs (the hook adapters' and the runtime's): appends `line` and a
/// newline to `path`, creating its folder when needed. Only ever to a regular file: a cloned
/// repository's `audit.jsonl` linked to `~/.bashrc` would get a line with the model's `$(…)`
/// in it, and a FIFO would block the call. The line goes out in one `write` on a file opened
/// for appending, so lines of concurrent calls do not interleave.
pub fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let not_regular = || {
        std::io::Error::other("it is not a regular file (a symbolic link?); nothing was written")
    };
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => return Err(not_regular()),
        _ => {}
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    // Replaced by a link or something else between the look and the open: write nothing.
    let opened = f.metadata()?;
    let now = std::fs::symlink_metadata(path)?;
    if !opened.is_file() || !now.file_type().is_file() {
        return Err(not_regular());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (opened.dev(), opened.ino()) != (now.dev(), now.ino()) {
            return Err(not_regular());
        }
    }
    let mut text = String::with_capacity(line.len() + 1);
    text.push_str(line);
    text.push('\n');
    f.write_all(text.as_bytes())
}

/// The verdict tests record most: the policy's `default` rule asks, at low risk.
#[cfg(test)]
impl Verdict {
    pub(crate) fn default_ask() -> Verdict {
        Verdict {
            action: Action::Ask,
            risk: Risk::Low,
            rule: Some("default".into()),
            reason: "no rule".into(),
            decided_by: DecidedBy::Rule {
                hook: "policy".into(),
                rule: Some("default".into()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_key_is_its_name_and_a_hash_of_its_path() {
        let a = project_key(Path::new("/nonexistent/work/my app"));
        let b = project_key(Path::new("/nonexistent/other/my app"));
        assert!(
            a.starts_with("my_app-") && b.starts_with("my_app-"),
            "{a} {b}"
        );
        assert_ne!(a, b, "two projects of one name keep their logs apart");
        assert_eq!(a, project_key(Path::new("/nonexistent/work/my app")));
        assert!(project_key(Path::new("/")).starts_with("root-"));
    }

    #[test]
    fn long_inputs_are_cut_on_a_character_boundary_and_marked() {
        let call = ToolCall::primary("bash", "é".repeat(MAX_INPUT_CHARS + 10));
        let (s, cut) = input_of(&call);
        assert_eq!(s.chars().count(), MAX_INPUT_CHARS);
        assert!(s.ends_with('…') && cut);
        let (s, cut) = input_of(&ToolCall::primary("bash", "git status"));
        assert_eq!((s.as_str(), cut), ("git status", false));
    }

    #[test]
    fn a_decision_line_reads_back_as_the_same_record() {
        let by = Caller {
            agent: "claude-code",
            session_id: Some("s1"),
            call_id: Some("toolu_1"),
            tool: "Bash",
        };
        let r = Record::decision(
            by,
            &ToolCall::primary("bash", "npm test"),
            "default",
            Verdict::default_ask(),
        );
        let line = r.to_line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["event"], "decision");
        assert_eq!(v["input"], "npm test");
        assert_eq!(v["decided_by"]["by"], "rule");
        assert!(v.get("truncated").is_none(), "{line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), r);
        let o = Record::outcome(by, "ran");
        let v: Value = serde_json::from_str(&o.to_line()).unwrap();
        assert_eq!(
            (v["event"].as_str(), v["outcome"].as_str()),
            (Some("outcome"), Some("ran"))
        );
        assert_eq!(serde_json::from_str::<Record>(&o.to_line()).unwrap(), o);
    }

    #[test]
    fn a_log_with_broken_lines_reads_the_good_ones_and_counts_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(AUDIT_FILE);
        let by = Caller {
            agent: "gemini-cli",
            session_id: None,
            call_id: None,
            tool: "run_shell_command",
        };
        let good = Record::outcome(by, "ran");
        let text = format!(
            "{}\n{{\"time\": \"cut sh\nnot json\n\n{}\n",
            good.to_line(),
            good.to_line()
        );
        std::fs::write(&path, text).unwrap();
        let (records, bad) = read_log(&path).unwrap();
        assert_eq!(records, vec![good.clone(), good]);
        assert_eq!(bad, 2);
    }
}
