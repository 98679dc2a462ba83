//! The shell analysis never panics, whatever the command.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(command) = std::str::from_utf8(data) {
        let _ = harness9::shell::analyse(command);
    }
});
