//! The shipped policies' rules as syntax trees written out in Rust ([`rules`]), so that a
//! process that decides one call (the hook) does not parse them. `rules.rs` is generated from
//! `policies/*.policy` by this module's test, `expect` statements left out as
//! [`super::parse::parse_policy_without_expects`] leaves them out.
//!
//! A tree is used only while the text it was generated from is the text compiled in: each
//! carries a hash of its text, compared at compile time. An edited policy whose trees were not
//! generated again is parsed as before (and the test fails, saying how to generate them).

#[rustfmt::skip]
mod rules;

use super::ast::PolicyFile;

/// The syntax tree of the shipped policy `name` whose text is `text`, when the generated one
/// is of that text, without the rules no call of `only_tool` meets (see
/// [`rule_meets`](super::rule_meets)): a hook's engine decides one tool, and the words of the
/// other tools' rules are not made to be dropped.
pub(super) fn tree(name: &str, text: &str, only_tool: Option<&str>) -> Option<PolicyFile> {
    let (_, embedded, fresh, build) = SHIPPED.iter().find(|(n, ..)| *n == name)?;
    // The text compiled in, not an edited buffer or a file of the same name.
    (*fresh && *embedded == text).then(|| PolicyFile {
        statements: build(&|tool| super::rule_meets(tool, only_tool)),
    })
}

/// Makes a shipped policy's statements, a rule only when its tool is kept.
type Build = fn(&dyn Fn(&str) -> bool) -> Vec<super::ast::Statement>;

/// Each shipped policy: name, text, whether its generated tree is of that text, the tree.
const SHIPPED: [(&str, &str, bool, Build); 7] = [
    shipped(0, rules::BUILTIN_HASH, rules::builtin),
    shipped(1, rules::DEFAULT_HASH, rules::default),
    shipped(2, rules::READONLY_HASH, rules::readonly),
    shipped(3, rules::CLAUDE_CODE_HASH, rules::claude_code),
    shipped(4, rules::GEMINI_CLI_HASH, rules::gemini_cli),
    shipped(5, rules::CODEX_HASH, rules::codex),
    shipped(6, rules::COPILOT_HASH, rules::copilot),
];

const fn shipped(i: usize, hash: u64, build: Build) -> (&'static str, &'static str, bool, Build) {
    let (name, text) = super::EMBEDDED[i];
    (name, text, fnv1a(text) == hash, build)
}

/// FNV-1a, 64 bits: a `const fn`, so freshness costs nothing at run time.
const fn fnv1a(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

#[cfg(test)]
mod generate;
