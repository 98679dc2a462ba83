//! Chinese for the texts the TUI shows that do not come from [`super::i18n`]: the engine's
//! built-in reasons and the shipped policies' rule reasons. A reason found in neither (one a
//! project's policy wrote) is left as written.

/// The shipped policies' reasons, word for word.
const REASONS: &[(&str, &str)] = &[];

/// `reason` in Chinese when it is a built-in one.
pub fn reason(reason: &str) -> String {
    if let Some((_, zh)) = REASONS.iter().find(|(en, _)| *en == reason) {
        return (*zh).to_string();
    }
    reason.to_string()
}
