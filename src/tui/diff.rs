//! What a `write_file` or `edit_file` call would change, as a unified diff for the dialog, and
//! what it did change, for the conversation.

use std::path::Path;

use ratatui::style::{Color, Style};
use serde_json::{Map, Value};
use similar::{ChangeTag, TextDiff};

/// The kind of a diff row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKind {
    /// `@@ -1,3 +1,4 @@`
    Hunk,
    Context,
    Added,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffKind,
    pub text: String,
}

/// The colour of a diff row.
pub fn diff_style(kind: DiffKind) -> Style {
    match kind {
        DiffKind::Added => Style::default().fg(Color::Indexed(114)),
        DiffKind::Removed => Style::default().fg(Color::Indexed(174)),
        DiffKind::Hunk => Style::default().fg(Color::Indexed(75)),
        DiffKind::Context => Style::default().fg(Color::Gray),
    }
}

/// A unified diff with its counts of added and removed lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub lines: Vec<DiffLine>,
    pub added: usize,
    pub removed: usize,
    /// The file does not exist yet.
    pub new_file: bool,
}

/// Files larger than this are not diffed (the dialog says the size instead).
const MAX_DIFF_BYTES: u64 = 2 * 1024 * 1024;

impl Diff {
    /// The unified diff from `old` to `new`, three lines of context.
    pub fn between(old: &str, new: &str) -> Diff {
        let td = TextDiff::from_lines(old, new);
        let mut d = Diff::default();
        for group in td.grouped_ops(3) {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let old_r = first.old_range().start..last.old_range().end;
            let new_r = first.new_range().start..last.new_range().end;
            d.lines.push(DiffLine {
                kind: DiffKind::Hunk,
                text: format!(
                    "@@ -{},{} +{},{} @@",
                    old_r.start + 1,
                    old_r.len(),
                    new_r.start + 1,
                    new_r.len()
                ),
            });
            for op in &group {
                for change in td.iter_changes(op) {
                    let (kind, sign) = match change.tag() {
                        ChangeTag::Equal => (DiffKind::Context, ' '),
                        ChangeTag::Insert => {
                            d.added += 1;
                            (DiffKind::Added, '+')
                        }
                        ChangeTag::Delete => {
                            d.removed += 1;
                            (DiffKind::Removed, '-')
                        }
                    };
                    let text = change.value().trim_end_matches(['\n', '\r']);
                    d.lines.push(DiffLine {
                        kind,
                        text: format!("{sign}{text}"),
                    });
                }
            }
        }
        d
    }

    /// "+3 −1" (the counts a person reads first).
    pub fn summary(&self) -> String {
        format!("+{} −{}", self.added, self.removed)
    }

    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0
    }
}

/// The file a call names, resolved against `cwd` (`~/` against `home`).
fn resolve(cwd: &Path, home: Option<&Path>, raw: &str) -> std::path::PathBuf {
    if let (Some(rest), Some(home)) = (raw.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    cwd.join(raw)
}

/// The file's text now: `None` when it cannot be read as text (too large, not UTF-8); an empty
/// text, with `missing`, when it does not exist.
fn current(path: &Path) -> Option<(String, bool)> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() || m.len() > MAX_DIFF_BYTES => None,
        Ok(_) => std::fs::read_to_string(path).ok().map(|t| (t, false)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((String::new(), true)),
        Err(_) => None,
    }
}

/// What a `write_file` or `edit_file` call would change, read from the file as it is now;
/// `None` for other tools and for a file that cannot be read or an edit that would not apply.
pub fn proposed(
    tool: &str,
    args: &Map<String, Value>,
    cwd: &Path,
    home: Option<&Path>,
) -> Option<Diff> {
    let raw = ["path", "file_path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))?;
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let (old, missing) = current(&resolve(cwd, home, raw))?;
    let new = match tool {
        "write_file" => text("content")?.to_string(),
        "edit_file" => {
            let from = text("old_string").filter(|s| !s.is_empty())?;
            let to = text("new_string")?;
            if old.matches(from).count() != 1 {
                return None;
            }
            old.replacen(from, to, 1)
        }
        _ => return None,
    };
    let mut d = Diff::between(&old, &new);
    d.new_file = missing;
    Some(d)
}

/// What the file's text is before a call, to diff against what it is after.
pub fn snapshot(tool: &str, args: &Map<String, Value>, cwd: &Path) -> Option<String> {
    if tool != "write_file" && tool != "edit_file" {
        return None;
    }
    let raw = ["path", "file_path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))?;
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    current(&resolve(cwd, home.as_deref(), raw)).map(|(t, _)| t)
}

/// What the call changed: the file now against `before`.
pub fn applied(args: &Map<String, Value>, cwd: &Path, before: &str) -> Option<Diff> {
    let raw = ["path", "file_path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))?;
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let (after, _) = current(&resolve(cwd, home.as_deref(), raw))?;
    Some(Diff::between(before, &after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_unified_diff_counts_added_and_removed_lines() {
        let d = Diff::between("a\nb\nc\n", "a\nB\nc\nd\n");
        let rows: Vec<&str> = d.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(rows, ["@@ -1,3 +1,4 @@", " a", "-b", "+B", " c", "+d"]);
        assert_eq!((d.added, d.removed), (2, 1));
        assert_eq!(d.summary(), "+2 −1");
    }

    #[test]
    fn an_edit_is_diffed_against_the_file_as_it_is_now() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("f.txt"), "one\ntwo\n").expect("written");
        let d = proposed(
            "edit_file",
            &args(json!({"path": "f.txt", "old_string": "two", "new_string": "2"})),
            dir.path(),
            None,
        )
        .expect("a diff");
        assert_eq!((d.added, d.removed, d.new_file), (1, 1, false));
        assert!(d.lines.iter().any(|l| l.text == "-two"));
        assert!(d.lines.iter().any(|l| l.text == "+2"));
    }

    #[test]
    fn a_write_to_a_new_file_is_all_added_lines() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = proposed(
            "write_file",
            &args(json!({"path": "new.txt", "content": "x\ny\n"})),
            dir.path(),
            None,
        )
        .expect("a diff");
        assert!(d.new_file);
        assert_eq!((d.added, d.removed), (2, 0));
    }

    #[test]
    fn an_edit_that_would_not_apply_has_no_diff() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("f.txt"), "a a\n").expect("written");
        let a = args(json!({"path": "f.txt", "old_string": "a", "new_string": "b"}));
        assert_eq!(proposed("edit_file", &a, dir.path(), None), None);
        assert_eq!(proposed("bash", &a, dir.path(), None), None);
    }
}
