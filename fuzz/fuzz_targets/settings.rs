//! The settings.json loader never panics (see `tests/fuzzing/mod.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzzing/mod.rs"]
mod fuzzing;

fuzz_target!(|data: &[u8]| fuzzing::settings(data));
