//! The audit log of hook decisions: one JSON line per decision, appended to
//! `<working folder>/.harness9/audit.jsonl`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{json, Value};

use super::{summary, HookCall, PROJECT_DIR};
use crate::call::Decision;

/// The log's file name inside `.harness9/`.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// One decision, as logged.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// `claude-code`, `gemini-cli`.
    pub agent: &'a str,
    pub session_id: Option<&'a str>,
    /// The agent's id of the tool call, when it sends one.
    pub call_id: Option<&'a str>,
    pub call: &'a HookCall,
    /// The mode the decision was made in (`default`, `auto-approve`, `acceptEdits`, …).
    pub mode: &'a str,
    pub decision: &'a Decision,
}

impl Entry<'_> {
    /// The JSON line: time (RFC 3339, UTC), session, tool, a summary of the input, and the
    /// decision with its risk, rule and reason.
    pub fn to_json(&self, time: SystemTime) -> Value {
        json!({
            "time": humantime::format_rfc3339_millis(time).to_string(),
            "agent": self.agent,
            "session_id": self.session_id,
            "call_id": self.call_id,
            "tool": self.call.agent_tool,
            "call": self.call.call.name,
            "input": summary(&self.call.call),
            "mode": self.mode,
            "decision": self.decision.action,
            "risk": self.decision.risk,
            "rule": self.decision.rule,
            "reason": self.decision.reason,
        })
    }
}

/// Where the log of a working folder is.
pub fn audit_path(cwd: &Path) -> PathBuf {
    cwd.join(PROJECT_DIR).join(AUDIT_FILE)
}

/// Appends one entry to the log of `cwd`, creating `.harness9/` when needed. The line goes out
/// in one `write` on a file opened for appending, so lines of concurrent hook calls do not
/// interleave.
pub fn append(cwd: &Path, entry: &Entry) -> std::io::Result<PathBuf> {
    let path = audit_path(cwd);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut line = entry.to_json(SystemTime::now()).to_string();
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    f.write_all(line.as_bytes())?;
    Ok(path)
}
