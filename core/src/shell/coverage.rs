//! The walk's proof that it saw every command a line runs.
//!
//! bash runs a command wherever `$(`, a back-tick, `<(` or `>(` starts a substitution, and
//! tree-sitter-bash does not parse all of them as substitutions: inside a `${x#…}` operand it
//! leaves `$(…)` as pattern text, and a quoted string that bash evaluates as arithmetic (`$((
//! 'a[$(…)]' ))`, `[[ 1 -eq 'a[$(…)]' ]]`, `a['…']=1`) is text to the parser and code to bash.
//! So whatever node kinds the walk knows, the text is checked after it: every opener in it lies
//! inside a substitution the walk analysed, or in text bash never expands (a comment, a
//! single-quoted or `$'…'` string, an escaped character, a quoted here-document) and that is not
//! evaluated again as arithmetic. Anything else means the line is not understood.

use tree_sitter::Node;

use super::driver::Res;
use super::parse::FastKind;
use super::unescape::heredoc_delimiter;

/// Checks that every substitution opener in `text` (the source `root` was parsed from) lies in
/// one of `seen` (byte ranges of the substitutions the walk analysed) or in text bash does not
/// expand; the reason the line is not understood otherwise.
pub(super) fn check(root: Node<'_>, text: &str, seen: &[(usize, usize)]) -> Res<()> {
    let seen = merged(seen);
    let bytes = text.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        let opener = match b {
            b'`' => "`",
            b'$' if bytes.get(at + 1) == Some(&b'(') => "$(",
            b'<' if bytes.get(at + 1) == Some(&b'(') => "<(",
            b'>' if bytes.get(at + 1) == Some(&b'(') => ">(",
            _ => continue,
        };
        // The last merged range starting at or before `at` is the only one that may hold it.
        let i = seen.partition_point(|&(start, _)| start <= at);
        if i > 0 && at < seen[i - 1].1 {
            continue;
        }
        let Some(node) = root.descendant_for_byte_range(at, at + 1) else {
            return Err(unseen(opener));
        };
        if !expands_never(node, text, at, opener) {
            return Err(unseen(opener));
        }
    }
    Ok(())
}

/// The ranges sorted and merged where they overlap (substitutions nest).
fn merged(ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(sorted.len());
    for (start, end) in sorted {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Why a line with an opener the walk did not analyse is not understood.
fn unseen(opener: &str) -> String {
    format!(
        "the command has a `{opener}` that bash may run as a command and the analysis could not \
         read as one"
    )
}

/// Whether the opener at byte `at`, whose innermost node is `node`, is text bash never runs.
fn expands_never(node: Node<'_>, text: &str, at: usize, opener: &str) -> bool {
    // The `$((` of an arithmetic expansion is not a command substitution; what is inside it is
    // walked. Inside arithmetic, `<(` and `>(` are comparisons.
    if matches!(node.fast_kind(), "$((" | "((") {
        return true;
    }
    // A here-document with a quoted delimiter is literal (tree-sitter may still parse `$(…)`
    // in it when the quoting is a backslash: `<<E\OF`).
    if in_heredoc_body(node) && quoted_heredoc(node, text) {
        return true;
    }
    if opener != "$(" && opener != "`" && in_arithmetic(node) {
        return true;
    }
    if evaluated_as_arithmetic(node, text) {
        return false;
    }
    let escaped = || {
        let before = &text.as_bytes()[..at];
        before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
    };
    match node.fast_kind() {
        "comment" | "raw_string" | "ansi_c_string" => true,
        // `<(` and `>(` are not substitutions inside double quotes.
        "string" | "string_content" if opener.ends_with('(') && opener != "$(" => true,
        "string" | "string_content" | "word" | "concatenation" | "translated_string" => escaped(),
        "heredoc_body" | "heredoc_content" => quoted_heredoc(node, text) || escaped(),
        _ => false,
    }
}

/// Whether `node` is part of a here-document's body.
fn in_heredoc_body(node: Node<'_>) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        match n.fast_kind() {
            "heredoc_body" => return true,
            "heredoc_redirect" => return false,
            _ => current = n.parent(),
        }
    }
    false
}

/// Whether the here-document holding `node` has a quoted delimiter (its body is literal).
fn quoted_heredoc(node: Node<'_>, text: &str) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        if n.fast_kind() == "heredoc_redirect" {
            let mut cursor = n.walk();
            let start = n
                .children(&mut cursor)
                .find(|c| c.fast_kind() == "heredoc_start");
            return start
                .and_then(|s| text.get(s.start_byte()..s.end_byte()))
                .and_then(heredoc_delimiter)
                .is_some_and(|(_, quoted)| quoted);
        }
        current = n.parent();
    }
    false
}

/// Whether bash evaluates the text at `node` as an arithmetic expression (where a quoted
/// `a[$(…)]` runs its command): inside `$(( ))`, `(( ))`, `for (( ))`, a subscript, or an
/// operand of `[[ … ]]`'s `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge` and `-v`.
fn evaluated_as_arithmetic(node: Node<'_>, text: &str) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        match n.fast_kind() {
            "arithmetic_expansion" | "subscript" | "c_style_for_statement" => return true,
            "compound_statement" if n.child(0).is_some_and(|c| c.fast_kind() == "((") => {
                return true
            }
            "binary_expression" | "unary_expression" if in_double_brackets(n) => {
                let mut cursor = n.walk();
                let arithmetic = n.children(&mut cursor).any(|c| {
                    c.fast_kind() == "test_operator"
                        && text.get(c.start_byte()..c.end_byte()).is_some_and(|op| {
                            matches!(op, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-v")
                        })
                });
                if arithmetic {
                    return true;
                }
            }
            _ => {}
        }
        current = n.parent();
    }
    false
}

/// Whether `node` is inside an arithmetic expression of its own (`$(( ))`, `(( ))`, `for ((
/// ))`), where `<` and `>` compare.
fn in_arithmetic(node: Node<'_>) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        match n.fast_kind() {
            "arithmetic_expansion" | "c_style_for_statement" => return true,
            "compound_statement" if n.child(0).is_some_and(|c| c.fast_kind() == "((") => {
                return true
            }
            "command_substitution" | "process_substitution" | "test_command" => return false,
            _ => {}
        }
        current = n.parent();
    }
    false
}

/// Whether `node` is inside `[[ … ]]` (where bash evaluates arithmetic operands), not `[ … ]`.
fn in_double_brackets(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.fast_kind() == "test_command" {
            return n.child(0).is_some_and(|c| c.fast_kind() == "[[");
        }
        current = n.parent();
    }
    false
}
