//! `harness9 lint`'s diagnostics as the protocol carries them: byte spans become UTF-16
//! ranges, the help line follows the message, secondary labels become related information.

use std::path::Path;

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString,
    Range, Url,
};

use super::hover::include_target;
use super::text::LineIndex;
use crate::diag::{Diagnostic, Severity};
use crate::lint::{self, Lint, Options};
use crate::policy::ast::Statement;
use crate::policy::parse_policy;

/// What `harness9 lint` says about a document's text (as if saved at `path`), for the
/// document at `uri`.
pub fn lint_document(
    uri: &Url,
    path: &Path,
    text: &str,
    opts: &Options,
) -> Vec<lsp_types::Diagnostic> {
    let report = lint::lint_text(path, text, opts);
    let name = path.to_string_lossy();
    report
        .diagnostics
        .iter()
        .map(|d| to_lsp(d, uri, &name, text))
        .collect()
}

/// One diagnostic of the document named `name` (text `text`). One about another file (an
/// included one) is shown at the `include` that reads it, pointing to its place there.
pub fn to_lsp(d: &Diagnostic, uri: &Url, name: &str, text: &str) -> lsp_types::Diagnostic {
    let own = &*d.source.name == name;
    let mut message = d.message.clone();
    let mut related = Vec::new();
    let range = if own {
        let ix = LineIndex::new(&d.source.text);
        for (span, label) in d.labels.iter().skip(1) {
            related.push(DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), ix.range(*span)),
                message: label.clone(),
            });
        }
        ix.range(d.span())
    } else {
        message = format!("in {}: {message}", d.location());
        let ix = LineIndex::new(&d.source.text);
        if let Some(other) = Url::from_file_path(&*d.source.name)
            .ok()
            .filter(|_| Path::new(&*d.source.name).is_absolute())
        {
            let label = d.labels.first().map(|l| l.1.clone()).unwrap_or_default();
            related.push(DiagnosticRelatedInformation {
                location: Location::new(other, ix.range(d.span())),
                message: if label.is_empty() {
                    d.message.clone()
                } else {
                    label
                },
            });
        }
        include_range(name, text, &d.source.name)
    };
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let unnecessary = [Lint::ShadowedRule, Lint::DuplicateRule]
        .iter()
        .any(|l| l.code() == d.code);
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(format!("harness9::{}", d.code))),
        source: Some("harness9".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: unnecessary.then(|| vec![DiagnosticTag::UNNECESSARY]),
        ..lsp_types::Diagnostic::default()
    }
}

/// Where in the document a problem of the file `other` is shown: the `include` that reads it,
/// else the first `include` (it may be read through others), else the start.
fn include_range(name: &str, text: &str, other: &str) -> Range {
    let source = crate::diag::Source::new(name, text);
    let (file, _) = parse_policy(&source);
    let includes: Vec<_> = file
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Include(i) => Some(i),
            _ => None,
        })
        .collect();
    let ix = LineIndex::new(text);
    includes
        .iter()
        .find(|i| include_target(name, &i.path.value) == Path::new(other))
        .or(includes.first())
        .map_or_else(Range::default, |i| ix.range(i.path.span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PathContext;
    use lsp_types::Position;

    fn opts(dir: &Path) -> Options {
        Options {
            builtin: true,
            ctx: PathContext::new(dir, None),
            strict: false,
            allow_dead: false,
            managed: Vec::new(),
        }
    }

    #[test]
    fn a_lint_error_after_non_ascii_text_gets_its_utf16_range() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("team.policy");
        let uri = Url::from_file_path(&path).unwrap();
        let text = "# ünïcödé\nallow bash(\"é😀\") risk hgih;\n";
        let diags = lint_document(&uri, &path, text, &opts(dir.path()));
        let d = diags
            .iter()
            .find(|d| d.message.contains("hgih"))
            .unwrap_or_else(|| panic!("{diags:#?}"));
        assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
        // `allow bash("é😀") risk ` is 23 UTF-16 units (22 characters, 26 bytes).
        assert_eq!(
            d.range,
            Range::new(Position::new(1, 23), Position::new(1, 27))
        );
        assert_eq!(d.source.as_deref(), Some("harness9"));
    }

    #[test]
    fn a_problem_in_an_included_file_is_shown_at_the_include() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("common.policy"), "alow bash(\"x\");\n").unwrap();
        let path = dir.path().join("team.policy");
        let uri = Url::from_file_path(&path).unwrap();
        let text = "allow bash(\"git status\");\ninclude \"common.policy\";\n";
        let diags = lint_document(&uri, &path, text, &opts(dir.path()));
        let d = diags
            .iter()
            .find(|d| d.message.contains("common.policy:1:1"))
            .unwrap_or_else(|| panic!("{diags:#?}"));
        assert_eq!(
            d.range,
            Range::new(Position::new(1, 8), Position::new(1, 23))
        );
        let rel = &d.related_information.as_ref().unwrap()[0];
        assert!(rel.location.uri.path().ends_with("/common.policy"));
        assert_eq!(rel.location.range.start, Position::new(0, 0));
    }

    #[test]
    fn secondary_labels_and_help_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("team.policy");
        let uri = Url::from_file_path(&path).unwrap();
        let text = "allow bash(\"git status\");\nallow bash(\"git status\");\n";
        let diags = lint_document(&uri, &path, text, &opts(dir.path()));
        let d = diags
            .iter()
            .find(|d| d.code == Some(NumberOrString::String("harness9::duplicate-rule".into())))
            .unwrap_or_else(|| panic!("{diags:#?}"));
        assert!(
            d.message
                .starts_with("duplicate of the rule at line 1\nhelp: "),
            "{}",
            d.message
        );
        assert_eq!(d.range.start, Position::new(1, 0));
        let rel = &d.related_information.as_ref().unwrap()[0];
        assert_eq!(rel.message, "first written here");
        assert_eq!(rel.location.range.start, Position::new(0, 0));
        assert_eq!(d.tags, Some(vec![DiagnosticTag::UNNECESSARY]));
    }
}
