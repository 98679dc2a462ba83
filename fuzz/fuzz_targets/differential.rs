//! The differential check on inputs the fuzzer grows: the input's bytes choose a policy
//! (policy files and settings.json, as text) and calls; the indexed engine and the reference
//! evaluator of `tests/reference/` must agree on every decision, in every mode.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzzing/mod.rs"]
mod fuzzing;

/// The folder decisions are made in (a home with keys, a symlink into it), made once.
static LAYOUT: OnceLock<fuzzing::reference::Layout> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    fuzzing::differential(data, LAYOUT.get_or_init(fuzzing::reference::Layout::new));
});
