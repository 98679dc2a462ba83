//! The TUI's modules form layers, never a circle: `state` is the floor that `update` and the
//! drawing read; `dialog` lays the approval dialog out over the state; `layout` places the
//! screen's areas and lays the conversation out over both; `view` draws what `layout` placed;
//! `update` changes the state and reads `layout` for its scrolling, never `view`. Read from
//! the sources: a module may name only the modules below it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// Each layered module, and the TUI modules it may name (leaf modules — `i18n`, `text`,
/// `diff`, `input`, `zh` — name none of these).
const LAYERS: &[(&str, &[&str])] = &[
    ("state", &[]),
    ("dialog", &["state"]),
    ("layout", &["state", "dialog"]),
    ("view", &["state", "dialog", "layout"]),
    ("update", &["state", "layout"]),
];

/// Every module name a source file refers to as `super::NAME` or `crate::tui::NAME`.
fn named_modules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["super::", "crate::tui::"] {
        for (i, _) in text.match_indices(prefix) {
            let rest = &text[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The source without its comments (doc comments link freely).
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_tui_modules_form_layers_with_state_at_the_floor() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let layered: Vec<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    for (module, allowed) in LAYERS {
        let path = dir.join(format!("{module}.rs"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} reads: {e}", path.display()));
        for named in named_modules(&code(&text)) {
            if layered.contains(&named.as_str()) && named != *module {
                assert!(
                    allowed.contains(&named.as_str()),
                    "`{module}` names `{named}`, which is not below it (it may name {allowed:?})"
                );
            }
        }
    }
    for leaf in ["i18n", "text", "diff", "input", "zh"] {
        let text = std::fs::read_to_string(dir.join(format!("{leaf}.rs"))).expect("reads");
        for named in named_modules(&code(&text)) {
            assert!(
                !layered.contains(&named.as_str()),
                "the leaf module `{leaf}` names `{named}`"
            );
        }
    }
}
