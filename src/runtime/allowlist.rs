//! Writing "always allow" rules to `.harness9/settings.json`, safely:
//! - under an advisory lock on a sidecar file (`settings.json.lock`), re-reading the file under
//!   the lock, so two processes adding rules at the same moment both land; the lock file is
//!   removed before the lock is let go, so none is left beside the settings;
//! - editing the JSON text in place (comments, key order and formatting of everything else are
//!   kept), adding only rules not already in the allow list;
//! - atomically: the new text goes to a temporary file in the same folder, is synced, and
//!   renamed over the old one;
//! - never over a file that does not parse, is larger than 16 MiB, or has `permissions` or
//!   `permissions.allow` twice: the write fails and the file is left as it was;
//! - never through or over a symbolic link (see [`add_allow_rules`]), nor, for the runtime's
//!   writer, into a settings folder that is a link out of the project.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstInputValue, CstRootNode};
use jsonc_parser::ParseOptions;

use super::RuleWriter;

/// Why a settings file was not changed. Nothing was written in any case: the file is as it
/// was.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot create `{}`: {source}", dir.display())]
    CreateFolder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot resolve `{}`: {source}", path.display())]
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The settings file's folder `dir` is a link out of `root`.
    #[error(
        "`{}` leads out of `{}` through a symbolic link; the rule was not written",
        dir.display(),
        root.display()
    )]
    LeadsOut { dir: PathBuf, root: PathBuf },
    #[error(
        "`{}` is a symbolic link; the rule was not written (add it to the file the link leads \
         to: `harness9 allow --settings FILE RULE`)",
        .0.display()
    )]
    Link(PathBuf),
    #[error("`{}` is not a regular file; it was left as it was", .0.display())]
    NotRegular(PathBuf),
    #[error("cannot open the lock file `{}`: {source}", path.display())]
    OpenLock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot lock `{}`: {source}", path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read `{}`: {source}; the file was left as it was", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{}` is not valid JSON ({source}); it was left as it was", path.display())]
    NotJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// `key` (`permissions`, `permissions.allow`) appears twice.
    #[error("`{key}` appears twice in `{}`; it was left as it was", path.display())]
    DuplicateKey { path: PathBuf, key: &'static str },
    #[error("`{}` does not parse ({reason})", path.display())]
    DoesNotParse { path: PathBuf, reason: String },
    /// The edited text would not be valid JSON: it is not written.
    #[error("the edit would not be valid JSON ({0})")]
    EditNotJson(serde_json::Error),
    #[error("cannot add the rule to `{}`: {source}; the file was left as it was", path.display())]
    CannotAdd { path: PathBuf, source: RulesError },
    /// An edit's own reason for leaving the file alone.
    #[error("{0}")]
    Edit(String),
    #[error(
        "cannot write `{}`: cannot create a temporary file in `{}`: {source}",
        path.display(),
        dir.display()
    )]
    TempFile {
        path: PathBuf,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot replace `{}`: {source}", path.display())]
    Replace {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why rules cannot be added to a settings text (see [`with_rules`]).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("it is not valid JSON ({0})")]
    NotJson(serde_json::Error),
    /// `permissions` or `permissions.allow` appears twice.
    #[error("`{0}` appears twice")]
    DuplicateKey(&'static str),
    #[error("it does not parse ({0})")]
    DoesNotParse(String),
    #[error("its top level is not a JSON object")]
    NotAnObject,
    #[error("`permissions` is not an object")]
    PermissionsNotAnObject,
    #[error("`permissions.allow` is not a list")]
    AllowNotAList,
    #[error("the edit would not be valid JSON ({0})")]
    EditNotJson(serde_json::Error),
    #[error("the edit lost a rule")]
    LostRule,
}

/// A settings file that "always allow" rules are added to.
#[derive(Debug, Clone)]
pub struct SettingsWriter {
    path: PathBuf,
    root: Option<PathBuf>,
}

impl SettingsWriter {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        SettingsWriter {
            path: path.into(),
            root: None,
        }
    }

    /// Writes only while the settings file's folder really is inside `root` (not a link out of
    /// it): the runtime's writer, confined to the project.
    pub fn within(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds `rules` to `permissions.allow`; returns the ones that were not there already.
    pub fn add(&self, rules: &[String]) -> Result<Vec<String>, SettingsError> {
        add_allow_rules_within(&self.path, self.root.as_deref(), rules)
    }
}

impl RuleWriter for SettingsWriter {
    fn add_allow_rules(&self, rules: &[String]) -> Result<Vec<String>, SettingsError> {
        self.add(rules)
    }
}

/// The rules of the settings file's `permissions.allow` list (none when it does not read).
pub fn allow_rules(path: &Path) -> Vec<String> {
    let Ok(text) = read_settings(path) else {
        return Vec::new();
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    value
        .pointer("/permissions/allow")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Removes `rule` from the settings file's `permissions.allow`, the same safe way rules are
/// added (see [`edit_json_file`]); whether it was there.
pub fn remove_allow_rule(
    path: &Path,
    root: Option<&Path>,
    rule: &str,
) -> Result<bool, SettingsError> {
    edit_json_file(path, root, |text| {
        serde_json::from_str::<serde_json::Value>(text).map_err(|source| {
            SettingsError::NotJson {
                path: path.to_path_buf(),
                source,
            }
        })?;
        if let Some(key) = duplicate_key(text) {
            return Err(SettingsError::DuplicateKey {
                path: path.to_path_buf(),
                key,
            });
        }
        let root = CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
            SettingsError::DoesNotParse {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }
        })?;
        let Some(allow) = root
            .object_value()
            .and_then(|o| o.object_value("permissions"))
            .and_then(|p| p.array_value("allow"))
        else {
            return Ok(None);
        };
        let Some(node) = allow.elements().into_iter().find(|n| {
            n.as_string_lit()
                .and_then(|s| s.decoded_value().ok())
                .is_some_and(|v| v == rule)
        }) else {
            return Ok(None);
        };
        node.remove();
        let mut out = root.to_string();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        serde_json::from_str::<serde_json::Value>(&out).map_err(SettingsError::EditNotJson)?;
        Ok(Some(out))
    })
}

/// Adds `rules` to the `permissions.allow` list of the settings file at `path` (created when
/// missing); returns the rules actually added.
///
/// A settings file that is a symbolic link is refused: renaming over it would replace the link
/// with a file (the link's target keeping its old rules), and writing through it would edit a
/// file elsewhere, perhaps another tool's settings that a cloned repository pointed it at.
pub fn add_allow_rules(path: &Path, rules: &[String]) -> Result<Vec<String>, SettingsError> {
    add_allow_rules_within(path, None, rules)
}

fn add_allow_rules_within(
    path: &Path,
    root: Option<&Path>,
    rules: &[String],
) -> Result<Vec<String>, SettingsError> {
    let mut added = Vec::new();
    edit_json_file(path, root, |text| {
        let (new_text, new) =
            with_rules(text, rules).map_err(|source| SettingsError::CannotAdd {
                path: path.to_path_buf(),
                source,
            })?;
        added = new;
        Ok((!added.is_empty()).then_some(new_text))
    })?;
    Ok(added)
}

/// What an edit of a settings file does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileEdit {
    /// Nothing to change.
    Keep,
    /// The file's new text.
    Write(String),
    /// The file goes: what is left of it is nothing anyone wrote.
    Remove,
}

/// Edits a JSON settings file the safe way (see [`edit_file`]); a missing file reads as `{}`,
/// and `edit` returns the new text (`None`: nothing to change). Whether the file changed.
pub fn edit_json_file(
    path: &Path,
    root: Option<&Path>,
    edit: impl FnOnce(&str) -> Result<Option<String>, SettingsError>,
) -> Result<bool, SettingsError> {
    edit_file(path, root, "{}\n", |text| {
        Ok(match edit(text)? {
            Some(t) => FileEdit::Write(t),
            None => FileEdit::Keep,
        })
    })
}

/// Edits a settings file the safe way: under a lock file beside it, read after the lock is
/// taken (a missing file reads as `missing`), the new text written to a temporary file and
/// renamed over the old one, or the file removed. A symbolic link or a file that is not
/// regular is refused, and so is a folder that leads out of `root` through a link. Whether the
/// file changed.
///
/// Nothing is left behind but the edit: the lock file is removed before the lock is let go
/// (a writer that was waiting on it sees that and takes a new one), a missing folder is made
/// only when there is something to write, and a folder a removal leaves empty goes too.
pub fn edit_file(
    path: &Path,
    root: Option<&Path>,
    missing: &str,
    edit: impl FnOnce(&str) -> Result<FileEdit, SettingsError>,
) -> Result<bool, SettingsError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if fs::symlink_metadata(&dir).is_err() {
        // No folder, so no file and no lock of another writer: decided before anything is
        // made, so that an edit that changes nothing leaves no folder behind.
        let FileEdit::Write(text) = edit(missing)? else {
            return Ok(false);
        };
        fs::create_dir_all(&dir).map_err(|source| SettingsError::CreateFolder {
            dir: dir.clone(),
            source,
        })?;
        check_root(&dir, root)?;
        return locked(path, &dir, missing, |_, existed| {
            if existed {
                return Err(SettingsError::Edit(format!(
                    "`{}` was made by another program while it was being edited; run the \
                     command again",
                    path.display()
                )));
            }
            Ok(FileEdit::Write(text))
        });
    }
    check_root(&dir, root)?;
    locked(path, &dir, missing, |text, _| edit(text))
}

/// Refuses a folder that leads out of `root` through a link (`.harness9` → `~/.claude`).
fn check_root(dir: &Path, root: Option<&Path>) -> Result<(), SettingsError> {
    let Some(root) = root else {
        return Ok(());
    };
    let real = |p: &Path| {
        p.canonicalize().map_err(|source| SettingsError::Resolve {
            path: p.to_path_buf(),
            source,
        })
    };
    if !real(dir)?.starts_with(real(root)?) {
        return Err(SettingsError::LeadsOut {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
        });
    }
    Ok(())
}

/// How often a lock is taken again because another writer removed its file meanwhile.
const LOCK_TRIES: usize = 1000;

/// The edit of [`edit_file`] under the lock; `edit` gets the text and whether the file exists.
fn locked(
    path: &Path,
    dir: &Path,
    missing: &str,
    edit: impl FnOnce(&str, bool) -> Result<FileEdit, SettingsError>,
) -> Result<bool, SettingsError> {
    refuse_link(path)?;
    let lock_path = sidecar(path, "lock");
    let mut lock = None;
    for _ in 0..LOCK_TRIES {
        refuse_link(&lock_path)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|source| SettingsError::OpenLock {
                path: lock_path.clone(),
                source,
            })?;
        file.lock().map_err(|source| SettingsError::Lock {
            path: lock_path.clone(),
            source,
        })?;
        // The writer before us removes the lock file before it lets go: a lock on a file that
        // is no longer there guards nothing, so the lock is taken again on the new one.
        if still_named(&file, &lock_path) {
            lock = Some(file);
            break;
        }
    }
    let Some(lock) = lock else {
        return Err(SettingsError::Lock {
            path: lock_path.clone(),
            source: std::io::Error::other("the lock file kept being replaced"),
        });
    };
    let result = edit_locked(path, dir, missing, edit);
    let _ = fs::remove_file(&lock_path);
    drop(lock);
    if matches!(result, Ok(Some(FileEdit::Remove))) {
        // Only an empty folder is removed.
        let _ = fs::remove_dir(dir);
    }
    result.map(|done| done.is_some())
}

/// Whether `path` still names the open `file`.
fn still_named(file: &File, path: &Path) -> bool {
    let (Ok(open), Ok(named)) = (file.metadata(), fs::symlink_metadata(path)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (open.dev(), open.ino()) == (named.dev(), named.ino())
    }
    #[cfg(not(unix))]
    {
        open.is_file() && named.is_file()
    }
}

/// Reads, edits and writes (or removes) the file; the change made, if any.
fn edit_locked(
    path: &Path,
    dir: &Path,
    missing: &str,
    edit: impl FnOnce(&str, bool) -> Result<FileEdit, SettingsError>,
) -> Result<Option<FileEdit>, SettingsError> {
    // Under the lock: whatever another process wrote before us is read now.
    refuse_link(path)?;
    let (text, existed) = match read_settings(path) {
        Ok(t) => (t, true),
        Err(e) if e.kind() == ErrorKind::NotFound => (missing.to_string(), false),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    match edit(&text, existed)? {
        FileEdit::Keep => Ok(None),
        FileEdit::Write(new_text) => {
            write_atomically(path, dir, &new_text, existed)?;
            Ok(Some(FileEdit::Keep))
        }
        FileEdit::Remove if !existed => Ok(None),
        FileEdit::Remove => {
            fs::remove_file(path).map_err(|source| SettingsError::Write {
                path: path.to_path_buf(),
                source,
            })?;
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(Some(FileEdit::Remove))
        }
    }
}

fn refuse_link(path: &Path) -> Result<(), SettingsError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(SettingsError::Link(path.to_path_buf())),
        Ok(m) if !m.is_file() => Err(SettingsError::NotRegular(path.to_path_buf())),
        _ => Ok(()),
    }
}

/// The settings text, refusing a file too large to be settings (or not a regular file: a
/// FIFO would block the open).
fn read_settings(path: &Path) -> std::io::Result<String> {
    let bytes = crate::policy::read_bounded(path)?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::other("it is not UTF-8 text"))
}

/// A key that the engine (which takes the first of duplicate keys) and a JSON reader taking the
/// last would read differently: `permissions` at the top, `allow` in it.
fn duplicate_key(text: &str) -> Option<&'static str> {
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()).ok()?;
    let root = parsed.value?.as_object()?.clone();
    let count = |o: &jsonc_parser::ast::Object, k: &str| {
        o.properties.iter().filter(|p| p.name.as_str() == k).count()
    };
    if count(&root, "permissions") > 1 {
        return Some("permissions");
    }
    let perms = root.get("permissions")?.value.as_object()?;
    (count(perms, "allow") > 1).then_some("permissions.allow")
}

/// The settings text with `rules` appended to `permissions.allow`, and the rules added.
pub fn with_rules(text: &str, rules: &[String]) -> Result<(String, Vec<String>), RulesError> {
    // The engine reads settings.json as strict JSON; a file it would reject is not touched.
    let value: serde_json::Value = serde_json::from_str(text).map_err(RulesError::NotJson)?;
    if let Some(key) = duplicate_key(text) {
        return Err(RulesError::DuplicateKey(key));
    }
    let present: Vec<&str> = value
        .pointer("/permissions/allow")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let mut added: Vec<String> = Vec::new();
    for r in rules {
        if !present.contains(&r.as_str()) && !added.contains(r) {
            added.push(r.clone());
        }
    }
    if added.is_empty() {
        return Ok((text.to_string(), added));
    }
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| RulesError::DoesNotParse(e.to_string()))?;
    let obj = root.object_value().ok_or(RulesError::NotAnObject)?;
    let permissions = obj
        .object_value_or_create("permissions")
        .ok_or(RulesError::PermissionsNotAnObject)?;
    let allow = permissions
        .array_value_or_create("allow")
        .ok_or(RulesError::AllowNotAList)?;
    for r in &added {
        allow.append(CstInputValue::String(r.clone()));
    }
    let mut out = root.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Checked before anything is written: the result parses and holds every rule.
    let check: serde_json::Value = serde_json::from_str(&out).map_err(RulesError::EditNotJson)?;
    let now: Vec<&str> = check
        .pointer("/permissions/allow")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    if !added.iter().all(|r| now.contains(&r.as_str())) {
        return Err(RulesError::LostRule);
    }
    Ok((out, added))
}

fn write_atomically(
    path: &Path,
    dir: &Path,
    text: &str,
    existed: bool,
) -> Result<(), SettingsError> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".settings.")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|source| SettingsError::TempFile {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
            source,
        })?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|source| SettingsError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    if existed {
        if let Ok(meta) = fs::metadata(path) {
            let _ = fs::set_permissions(tmp.path(), meta.permissions());
        }
    }
    tmp.persist(path).map_err(|e| SettingsError::Replace {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    // The rename itself is durable once the folder is synced.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn sidecar(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(ext);
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_edit_leaves_no_lock_file_and_one_that_changes_nothing_makes_no_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("new/settings.json");
        let keep = edit_json_file(&path, None, |_| Ok(None)).expect("edited");
        assert!(!keep && !dir.path().join("new").exists());
        let wrote = edit_json_file(&path, None, |_| Ok(Some("{\"a\": 1}\n".into())));
        assert!(matches!(wrote, Ok(true)));
        let left: Vec<_> = std::fs::read_dir(dir.path().join("new"))
            .expect("the folder")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("settings.json")]);
        // Removed: the folder the edit made goes with it.
        let gone = edit_file(&path, None, "{}", |_| Ok(FileEdit::Remove));
        assert!(matches!(gone, Ok(true)));
        assert!(!dir.path().join("new").exists());
    }

    #[test]
    fn a_rule_is_removed_from_the_allow_list_and_the_rest_is_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            "{\n  \"mine\": 1,\n  \"permissions\": {\n    \"allow\": [\"bash(git status)\", \"bash(npm test *)\"],\n    \"deny\": [\"bash(sudo *)\"]\n  }\n}\n",
        )
        .expect("written");
        assert_eq!(
            allow_rules(&path),
            rules(&["bash(git status)", "bash(npm test *)"])
        );
        assert!(matches!(
            remove_allow_rule(&path, None, "bash(git status)"),
            Ok(true)
        ));
        assert_eq!(allow_rules(&path), rules(&["bash(npm test *)"]));
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(
            text.contains("\"mine\": 1") && text.contains("bash(sudo *)"),
            "{text}"
        );
        assert!(
            matches!(
                remove_allow_rule(&path, None, "bash(git status)"),
                Ok(false)
            ),
            "a rule that is not there changes nothing"
        );
    }

    #[test]
    fn other_keys_rules_and_formatting_are_kept() {
        let text = "{\n  \"model\": \"x\",\n  \"permissions\": {\n    \"deny\": [\"bash(sudo *)\"],\n    \"allow\": [\"bash(git status)\"]\n  },\n  \"z\": 1\n}\n";
        let (out, added) = with_rules(text, &rules(&["bash(git commit *)"])).unwrap();
        assert_eq!(added, rules(&["bash(git commit *)"]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["model"], "x");
        assert_eq!(v["z"], 1);
        assert_eq!(v["permissions"]["deny"][0], "bash(sudo *)");
        assert_eq!(
            v["permissions"]["allow"],
            serde_json::json!(["bash(git status)", "bash(git commit *)"])
        );
        assert!(
            out.starts_with("{\n  \"model\": \"x\",\n  \"permissions\""),
            "{out}"
        );
    }

    #[test]
    fn a_rule_already_present_is_not_added_twice() {
        let text = r#"{"permissions": {"allow": ["bash(git commit *)"]}}"#;
        let (out, added) =
            with_rules(text, &rules(&["bash(git commit *)", "bash(git commit *)"])).unwrap();
        assert!(added.is_empty());
        assert_eq!(out, text);
    }

    #[test]
    fn missing_permissions_and_allow_are_created() {
        let (out, added) = with_rules("{}", &rules(&["bash(npm run test *)"])).unwrap();
        assert_eq!(added.len(), 1);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["permissions"]["allow"][0], "bash(npm run test *)");
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused() {
        for bad in [
            "{\"permissions\": ",
            "[]",
            "{\"permissions\": []}",
            "{\"permissions\": {\"allow\": 3}}",
            "// c\n{}",
        ] {
            let e = with_rules(bad, &rules(&["bash(ls *)"])).unwrap_err();
            assert!(!e.to_string().is_empty(), "{bad}");
        }
    }

    #[test]
    fn the_file_is_created_with_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".harness9/settings.json");
        let added = add_allow_rules(&path, &rules(&["bash(git commit *)"])).unwrap();
        assert_eq!(added.len(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["permissions"]["allow"][0], "bash(git commit *)");
    }

    #[test]
    fn an_unparseable_file_is_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{ broken").unwrap();
        let e = add_allow_rules(&path, &rules(&["bash(ls *)"])).unwrap_err();
        assert!(
            matches!(
                e,
                SettingsError::CannotAdd {
                    source: RulesError::NotJson(_),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("left as it was"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{ broken");
    }
}
