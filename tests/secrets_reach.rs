//! The catalogue of secrets (`policies/secrets.toml`) against every reader the program tables
//! know: for every credential store and every kind of secret file, and every read-only program
//! whose table gives it a file to read, the shipped default never allows the read, through bash
//! or through `read_file`. The catalogue is read here as the TOML it is, so that an entry the
//! engine failed to load is still tried.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use harness9::knowledge::{registry, Role};
use harness9::{Action, Engine, PathContext, ToolCall};

const HOME: &str = "/home/secrets";
const PROJECT: &str = "/work/secrets-proj";

/// A concrete file for a catalogue pattern: each wildcard becomes a letter.
fn sample(pattern: &str) -> String {
    pattern
        .replace("**", "x")
        .replace(['*', '?'], "x")
        .replace(['[', ']', '{', '}'], "")
}

/// Every path the catalogue names: the stores' paths under home, and the kinds' file names
/// (with their folders, if any) in the project.
fn catalogue_paths() -> Vec<String> {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies/secrets.toml"),
    )
    .unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let mut out = Vec::new();
    for store in doc["store"].as_array().unwrap() {
        for p in store["paths"].as_array().unwrap() {
            out.push(sample(p.as_str().unwrap()));
        }
    }
    for kind in doc["kind"].as_array().unwrap() {
        let Some(files) = kind.get("files").and_then(|f| f.as_array()) else {
            continue;
        };
        for f in files {
            let f = f.as_str().unwrap();
            // A name pattern anywhere (`*.pem`), or a file below a folder (`config/master.key`).
            out.push(sample(f.trim_start_matches("**/")));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every read-only program the tables know with an operand whose contents it reads, as the
/// words before that operand (`cat`, `grep x`).
fn readers() -> Vec<String> {
    let reg = registry();
    let mut names: Vec<&str> = reg.names().collect();
    names.sort_unstable();
    let mut out = Vec::new();
    for name in names {
        let Some(p) = reg.get(name) else { continue };
        // `ls`, `stat`, `du`: names and metadata, never what a file holds.
        if !p.readonly || !p.sub.is_empty() || p.traits.names_only {
            continue;
        }
        let Some(at) = (0..4).find(|&i| p.operands.role(i) == Some(Role::Read)) else {
            continue;
        };
        let mut words = vec![name.to_string()];
        words.extend(std::iter::repeat_n("x".to_string(), at));
        out.push(words.join(" "));
    }
    out
}

#[test]
fn no_reader_the_tables_know_is_allowed_to_read_any_secret_the_catalogue_knows() {
    let engine = Engine::builder()
        .context(PathContext::new(PROJECT, Some(PathBuf::from(HOME))))
        .default_policy()
        .build()
        .unwrap();
    let paths = catalogue_paths();
    let readers = readers();
    assert!(paths.len() > 300, "only {} catalogue paths", paths.len());
    assert!(
        readers.len() > 40,
        "only {} readers: {readers:?}",
        readers.len()
    );
    for must in ["cat", "head", "base64", "jq"] {
        assert!(
            readers.iter().any(|r| r.split(' ').next() == Some(must)),
            "{must} is not among the readers"
        );
    }
    let mut allowed = Vec::new();
    let mut tried = 0usize;
    for path in &paths {
        let file = ToolCall::primary("read_file", path.as_str());
        if engine.decide(&file).action == Action::Allow {
            allowed.push(format!("read_file({path})"));
        }
        for reader in &readers {
            // Quoted (`Login Data`), with `~/` left for the shell to expand.
            let line = match path.strip_prefix("~/") {
                Some(rest) => format!("{reader} ~/'{rest}'"),
                None => format!("{reader} '{path}'"),
            };
            tried += 1;
            if engine.decide(&ToolCall::primary("bash", &line)).action == Action::Allow {
                allowed.push(line);
            }
        }
    }
    assert!(
        allowed.is_empty(),
        "{} of {tried} reads of a secret are allowed, e.g.:\n{}",
        allowed.len(),
        allowed
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A private key saved under a name no kind knows is found by its first line, through bash
/// and `read_file`, directly and through a link; what is not a file there (nothing, a folder,
/// a pipe) is never opened as one, and a read of it never waits.
#[test]
fn a_private_key_under_any_name_is_denied_by_its_first_line_and_nothing_else_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let notes = project.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("deploy"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n",
    )
    .unwrap();
    std::fs::write(notes.join("todo"), "buy milk\n").unwrap();
    std::os::unix::fs::symlink("deploy", notes.join("alias")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(notes.join("pipe"))
        .status()
        .is_ok_and(|s| s.success());
    let engine = Engine::builder()
        .context(PathContext::new(&project, Some(dir.path().join("home"))))
        .default_policy()
        .build()
        .unwrap();
    let decide = |tool: &str, arg: &str| engine.decide(&ToolCall::primary(tool, arg));
    for name in ["notes/deploy", "notes/alias", "./notes/../notes/deploy"] {
        for (tool, arg) in [
            ("read_file", name.to_string()),
            ("bash", format!("cat {name}")),
            ("bash", format!("head -1 {name}")),
        ] {
            let d = decide(tool, &arg);
            assert_eq!(d.action, Action::Deny, "{tool} {arg}: {d:?}");
            assert!(
                d.reason.contains("private key"),
                "{tool} {arg}: {}",
                d.reason
            );
        }
    }
    let mut plain = vec!["notes/todo", "notes/none", "notes"];
    if fifo {
        plain.push("notes/pipe");
    } else {
        eprintln!("note: no mkfifo here; the pipe case was not run");
    }
    for name in plain {
        for (tool, arg) in [
            ("read_file", name.to_string()),
            ("bash", format!("cat {name}")),
        ] {
            let d = decide(tool, &arg);
            assert_ne!(d.action, Action::Deny, "{tool} {arg}: {d:?}");
        }
    }
}
