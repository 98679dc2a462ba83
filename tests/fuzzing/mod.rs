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

/// The shell analysis never panics, whatever the command; and a command substitution planted
/// where bash expands it (see [`plant`]) is seen: analysed as a command of its own, or the
/// line is not understood. Never allowed unseen.
pub fn shell(data: &[u8]) {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let _ = harness9::shell::analyse(command);
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(line) = std::str::from_utf8(rest) else {
        return;
    };
    if let Some(planted) = plant(line, choice as usize) {
        let a = harness9::shell::analyse(&planted);
        let seen = a.commands.iter().any(|c| c.program() == PLANTED);
        assert!(
            seen || a.failure.is_some(),
            "the command substitution planted in {planted:?} is neither analysed nor makes the \
             line not understood"
        );
    }
}

/// The program of a planted substitution.
const PLANTED: &str = "h9planted";

/// `line` with `$(h9planted)` put at one of the places bash expands a substitution: the start
/// of a word outside quotes, or just inside a double-quoted string (`pick` chooses which).
/// `None` for a line whose quoting this simple reading cannot follow (here-documents,
/// comments, backslashes, other than printable ASCII) or that has no such place.
pub fn plant(line: &str, pick: usize) -> Option<String> {
    if !line.bytes().all(|b| (b' '..=b'~').contains(&b)) || line.contains(['#', '\\']) {
        return None;
    }
    if line.contains("<<") || line.len() > 512 {
        return None;
    }
    let mut places = Vec::new();
    let (mut single, mut double) = (false, false);
    let mut prev = b' ';
    for (i, b) in line.bytes().enumerate() {
        match b {
            b'\'' if !double => single = !single,
            b'"' if !single => {
                double = !double;
                if double {
                    places.push(i + 1);
                }
            }
            _ if !single && !double && prev == b' ' && b != b' ' => places.push(i),
            _ => {}
        }
        prev = if single || double { b'x' } else { b };
    }
    if single || double || places.is_empty() {
        return None;
    }
    let at = places[pick % places.len()];
    Some(format!("{}$({PLANTED}){}", &line[..at], &line[at..]))
}

/// The indexed engine and the reference evaluator agree on every decision of the policy and
/// calls the bytes choose (see `reference::fuzz_one`).
pub fn differential(data: &[u8], layout: &reference::Layout) {
    reference::fuzz_one(data, layout);
}
