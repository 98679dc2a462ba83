//! The policy parser never panics, and a file that parses cleanly prints to text that parses
//! back to the same syntax tree, again without diagnostics (see `tests/fuzzing/mod.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzzing/mod.rs"]
mod fuzzing;

fuzz_target!(|data: &[u8]| fuzzing::policy_parser(data));
