//! Every checked-in fuzz seed (`fuzz/seeds/<target>/`), replayed through the check its fuzz
//! target makes (`tests/fuzzing/mod.rs`). An input a fuzzer found failing goes into the seeds,
//! so that this test keeps it fixed.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fuzzing;

#[path = "../fuzz/checks/knowledge.rs"]
mod knowledge;

use std::path::PathBuf;

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("a directory entry").path();
            let bytes = std::fs::read(&path).expect("a seed file");
            (path, bytes)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

/// Runs `check` on every seed of `target`, naming the seed that fails.
fn replay(target: &str, check: impl Fn(&[u8])) {
    for (path, bytes) in seeds(target) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes)));
        assert!(r.is_ok(), "the {target} check fails on {}", path.display());
    }
}

#[test]
fn every_policy_parser_seed_parses_and_prints_back() {
    replay("policy_parser", fuzzing::policy_parser);
}

#[test]
fn every_settings_seed_loads_without_panicking() {
    replay("settings", fuzzing::settings);
}

#[test]
fn every_shell_seed_is_analysed_without_panicking() {
    replay("shell", fuzzing::shell);
}

#[test]
fn every_differential_seed_decides_like_the_reference() {
    let layout = fuzzing::reference::Layout::new();
    replay("differential", |data| fuzzing::differential(data, &layout));
}

#[test]
fn every_knowledge_seed_reads_as_the_knowledge_promises() {
    replay("knowledge", knowledge::knowledge);
}

#[test]
fn the_shipped_program_tables_index_every_option_name() {
    knowledge::shipped_tables();
}

/// The shell target's planting, over every command of the corpus (`tests/corpus/*.jsonl`) and
/// every place in it where bash expands a substitution: each planted `$(…)` is analysed, or
/// the line is not understood.
#[test]
fn a_substitution_planted_anywhere_bash_expands_one_in_a_corpus_command_is_seen() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut planted = 0usize;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let Some(cmd) = v["command"].as_str() else {
                continue;
            };
            let mut seen_lines = std::collections::HashSet::new();
            for pick in 0..64 {
                let Some(p) = fuzzing::plant(cmd, pick) else {
                    break;
                };
                if !seen_lines.insert(p.clone()) {
                    break;
                }
                planted += 1;
                let mut data = vec![pick as u8];
                data.extend_from_slice(cmd.as_bytes());
                let r = std::panic::catch_unwind(|| fuzzing::shell(&data));
                if r.is_err() {
                    failures.push(p);
                }
            }
        }
    }
    assert!(planted > 5000, "only {planted} planted lines");
    assert!(
        failures.is_empty(),
        "{} planted substitutions unseen:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
