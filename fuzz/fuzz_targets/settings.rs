//! The settings.json loader never panics.
#![no_main]

use harness9::diag::Source;
use harness9::settings::parse_settings;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_settings(&Source::new("settings.json", text));
    }
});
