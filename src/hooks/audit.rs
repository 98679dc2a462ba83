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

/// Appends one entry to the log of `cwd`, creating `.harness9/` when needed (see
/// [`append_line`]).
pub fn append(cwd: &Path, entry: &Entry) -> std::io::Result<PathBuf> {
    let path = audit_path(cwd);
    append_line(&path, &entry.to_json(SystemTime::now()).to_string())?;
    Ok(path)
}

/// Logs what became of a call the hook decided before (`outcome`: `ran`), with the agent's
/// id of the call, so that an asked call that then ran reads as approved by the person.
pub fn append_outcome(
    cwd: &Path,
    agent: &str,
    session_id: Option<&str>,
    call_id: Option<&str>,
    tool: &str,
    outcome: &str,
) -> std::io::Result<PathBuf> {
    let path = audit_path(cwd);
    let line = json!({
        "time": humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
        "agent": agent,
        "session_id": session_id,
        "call_id": call_id,
        "tool": tool,
        "outcome": outcome,
    });
    append_line(&path, &line.to_string())?;
    Ok(path)
}

/// What `.harness9/.gitignore` holds: the log, offloaded outputs and lock files are the
/// machine's, not the project's (its policies and settings are).
pub const GITIGNORE: &str =
    "# Written by harness9: the audit log, offloaded outputs, lock files.\n\
                             audit.jsonl\noffload/\n*.lock\n";

/// Creates `.harness9/.gitignore` when the folder has none (an existing one is left alone).
pub fn keep_out_of_git(dir: &Path) {
    let path = dir.join(".gitignore");
    if std::fs::symlink_metadata(&path).is_ok() {
        return;
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        let _ = f.write_all(GITIGNORE.as_bytes());
    }
}

/// The one writer of audit logs (the hook adapters' and the runtime's): appends `line` and a
/// newline to `path`, creating its folder when needed. Only ever to a regular file: a cloned
/// repository's `audit.jsonl` linked to `~/.bashrc` would get a line with the model's `$(…)`
/// in it, and a FIFO would block the call. The line goes out in one `write` on a file opened
/// for appending, so lines of concurrent calls do not interleave.
pub fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
        if dir.file_name().is_some_and(|n| n == PROJECT_DIR) {
            keep_out_of_git(dir);
        }
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
