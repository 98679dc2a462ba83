//! What each fuzz target checks, shared by the targets in `fuzz/fuzz_targets/` (which include
//! this file) and by `tests/fuzz_seeds.rs`, which replays every checked-in seed — among them
//! every input a fuzzer found failing — as a regular test.
#![allow(dead_code)]

#[path = "../reference/mod.rs"]
pub mod reference;

use harness9::diag::Source;
use harness9::policy::{parse_policy, print_policy};

/// The policy parser never panics, and a file that parses cleanly prints to text that parses
/// back to the same syntax tree, again without diagnostics.
pub fn policy_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (file, diags) = parse_policy(&Source::new("fuzz.policy", text));
    if !diags.is_empty() {
        return;
    }
    let printed = print_policy(&file);
    let (again, diags) = parse_policy(&Source::new("printed.policy", printed.as_str()));
    let messages: Vec<_> = diags
        .iter()
        .map(|d| format!("{}: {}", d.location(), d.message))
        .collect();
    assert!(
        messages.is_empty(),
        "the printed policy has diagnostics:\n{printed}\n{messages:#?}"
    );
    assert_eq!(again, file, "printed as\n{printed}");
}

/// The settings.json loader never panics.
pub fn settings(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = harness9::settings::parse_settings(&Source::new("settings.json", text));
    }
}

/// The shell analysis never panics, whatever the command.
pub fn shell(data: &[u8]) {
    if let Ok(command) = std::str::from_utf8(data) {
        let _ = harness9::shell::analyse(command);
    }
}

/// The indexed engine and the reference evaluator agree on every decision of the policy and
/// calls the bytes choose (see `reference::fuzz_one`).
pub fn differential(data: &[u8], layout: &reference::Layout) {
    reference::fuzz_one(data, layout);
}
