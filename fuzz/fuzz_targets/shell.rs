//! The shell analysis never panics, whatever the command (see `tests/fuzzing/mod.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzzing/mod.rs"]
mod fuzzing;

fuzz_target!(|data: &[u8]| fuzzing::shell(data));
