//! The policy parser never panics, and a file that parses cleanly prints to text that parses
//! back to the same syntax tree, again without diagnostics.
#![no_main]

use harness9::diag::Source;
use harness9::policy::{parse_policy, print_policy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
