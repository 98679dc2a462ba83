//! The program knowledge on inputs the fuzzer grows: command lines read with the shipped
//! tables (readings consistent, read-only only when nothing writes, runs or is unknown, state
//! changes never allowed by the default policy), and, after a leading NUL byte, program tables
//! loaded without panicking (see `fuzz/checks/knowledge.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../checks/knowledge.rs"]
mod knowledge;

fuzz_target!(|data: &[u8]| knowledge::knowledge(data));
