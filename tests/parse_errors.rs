//! Each kind of broken policy text gets one message that names what was expected at that
//! place, with a span and a fix: one snapshot per message, rendered as `harness9 lint` prints
//! it.

use std::sync::Arc;

use harness9::diag::{render, Source};
use harness9::policy::parse_policy;

/// The diagnostics of `text` as a policy file, rendered without colour.
fn says(text: &str) -> String {
    let source: Arc<Source> = Source::new("team.policy", text);
    let (_, diags) = parse_policy(&source);
    assert!(!diags.is_empty(), "no diagnostic for {text:?}");
    render(&diags, true)
}

#[test]
fn a_quoted_risk_says_to_write_it_without_quotes() {
    insta::assert_snapshot!(says("allow bash(\"ls\") risk \"high\";\n"));
}

#[test]
fn a_risk_without_a_level_says_which_levels_there_are() {
    insta::assert_snapshot!(says("ask bash(\"ls\") risk;\n"));
}

#[test]
fn a_bare_reason_says_to_quote_it() {
    insta::assert_snapshot!(says("deny read_file(\".env\") reason secrets;\n"));
}

#[test]
fn a_reason_without_text_says_a_quoted_string_is_expected() {
    insta::assert_snapshot!(says("allow bash(\"ls\") reason;\n"));
}

#[test]
fn an_unless_without_a_matcher_says_a_matcher_is_expected() {
    insta::assert_snapshot!(says("allow bash(\"git *\") unless;\n"));
}

#[test]
fn a_default_with_a_quoted_risk_says_the_same() {
    insta::assert_snapshot!(says("default ask risk \"low\";\n"));
}

#[test]
fn a_missing_semicolon_before_a_rule_points_at_the_previous_line() {
    insta::assert_snapshot!(says(
        "allow bash(\"ls\")\nallow read_file(path \"src/**\");\n"
    ));
}

#[test]
fn a_missing_semicolon_before_a_rule_with_matchers_points_at_the_previous_line() {
    insta::assert_snapshot!(says(
        "allow bash(\"ls\")  # listing\n\n# next\ndeny bash(\"rm *\");\n"
    ));
}

#[test]
fn a_matcher_value_without_quotes_says_to_quote_it() {
    insta::assert_snapshot!(says("deny bash(prefix rm);\n"));
}

#[test]
fn a_matcher_value_of_several_words_without_quotes_says_to_quote_them() {
    insta::assert_snapshot!(says("allow bash(prefix git log);\n"));
}

#[test]
fn a_misplaced_option_still_says_where_it_belongs() {
    insta::assert_snapshot!(says("protect \"~/.docker\" risk high;\n"));
}

/// After a missing `;` both statements are still read: a later mistake is found too, and the
/// good statement is kept.
#[test]
fn after_a_missing_semicolon_both_statements_are_read() {
    let source: Arc<Source> = Source::new(
        "team.policy",
        "allow bash(\"ls\")\ndeny bash(\"rm *\");\nallow bash(\"x\") risk \"low\";\n",
    );
    let (file, diags) = parse_policy(&source);
    let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["missing-semicolon", "bad-option"], "{diags:?}");
    assert_eq!(file.statements.len(), 2, "{:?}", file.statements);
}

#[test]
fn a_missing_semicolon_before_a_rule_that_reads_as_an_option_points_at_the_previous_line() {
    insta::assert_snapshot!(says("allow bash(\"ls\")\nallow read_file;\n"));
}
