//! Where tree-sitter-bash reads a line differently from bash in a way the walk cannot
//! correct: such a line is refused (the engine asks).

use tree_sitter::Node;

use super::parse::FastKind;
use super::unescape::{ansi_c_inner, closing_backtick};

/// Whether tree-sitter-bash left text out of its tree: a byte outside every token and every
/// quoted construct that is not a blank, a newline or a line continuation. A word the tree
/// does not hold is a word no rule sees. The one known omission, a lone `-` right before the
/// redirections of a command (`git commit -F - <<EOF`, `npm - 2>/dev/null`), is put back by
/// the walk (see [`dropped_dash`]). [`misread`] finds such text in its own pass over the
/// tokens; this exact check is for trees whose tokens are not in the order of the text.
pub(super) fn skipped(root: Node<'_>, text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut covered = vec![false; bytes.len()];
    covered_spans(root, text, |start, end| covered[start..end].fill(true));
    let mut i = 0;
    while i < bytes.len() {
        let run = covered[i..].iter().take_while(|c| !**c).count();
        if !blank_only(&bytes[i..i + run]) {
            return true;
        }
        i += run.max(1);
    }
    false
}

/// Quoted constructs whose text is theirs whether or not their children cover it.
pub(super) fn covers_its_text(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "translated_string"
            | "raw_string"
            | "ansi_c_string"
            | "heredoc_body"
            | "heredoc_content"
            | "comment"
            | "regex"
            | "extglob_pattern"
    )
}

/// Finds text between tokens in one pass over tokens met in the order of the text.
#[derive(Default)]
pub(super) struct Gaps {
    pos: usize,
    out_of_order: bool,
    text_in_gap: bool,
}

impl Gaps {
    pub(super) fn span(&mut self, bytes: &[u8], start: usize, end: usize) {
        if start < self.pos {
            self.out_of_order = true;
        } else if !blank_only(&bytes[self.pos..start]) {
            self.text_in_gap = true;
        }
        self.pos = self.pos.max(end);
    }

    /// Whether text was found; `None` when tokens came out of order (ask [`skipped`]).
    pub(super) fn found(&self, bytes: &[u8]) -> Option<bool> {
        (!self.out_of_order).then(|| self.text_in_gap || !blank_only(&bytes[self.pos..]))
    }
}

/// Calls `f` with the byte range of every token and quoted construct of the tree, and of the
/// dash the parse leaves out (see [`dropped_dash`]), in the order of the walk.
pub(super) fn covered_spans(root: Node<'_>, text: &str, mut f: impl FnMut(usize, usize)) {
    let len = text.len();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if let Some(at) = dropped_dash(node, text) {
            f(at, at + 1);
        }
        let whole = node.child_count() == 0 || covers_its_text(node.fast_kind());
        if whole {
            let end = node.end_byte().min(len);
            f(node.start_byte().min(end), end);
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Where the lone `-` that tree-sitter-bash leaves out between a redirected command and its
/// first redirection is (`sh - <<EOF` is read as `sh <<EOF`), when `node` has one.
pub(super) fn dropped_dash(node: Node<'_>, text: &str) -> Option<usize> {
    if node.fast_kind() != "redirected_statement" {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let next = body.next_sibling()?;
    let gap = text.get(body.end_byte()..next.start_byte())?;
    let trimmed = gap.trim_matches([' ', '\t']);
    (trimmed == "-" && gap.len() > trimmed.len())
        .then(|| body.end_byte() + gap.find('-').unwrap_or(0))
}

/// Whether text between tokens holds only blanks, newlines and line continuations.
pub(super) fn blank_only(gap: &[u8]) -> bool {
    let mut i = 0;
    while i < gap.len() {
        match gap[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'\\' if gap.get(i + 1) == Some(&b'\n') => i += 1,
            _ => return false,
        }
        i += 1;
    }
    true
}

/// Whether tree-sitter-bash read `text` differently from bash in a way the walk cannot
/// correct. Its lexer has several such gaps, all refused here:
///
/// - a token holding an unquoted blank or newline: `$<newline>x` read as the expansion `$x`,
///   a line starting with `\` glued to the word before it, `]<tab>]` read as one word;
/// - a variable name that is not a name (`*EOF=` read as an assignment, `"$ b"` as `$ b`);
/// - `\<blank>` and `\<newline>` skipped as blanks: for bash the first is a word
///   (`echo x \ ; ls`) and the second joins its neighbours (`r\<newline>m -rf /` is `rm`);
/// - an ANSI-C string token running past the real end of `$'\\'`, swallowing what follows
///   (`echo $'\\' ; rm -rf / # '`);
/// - text left out of the tree altogether (see [`skipped`]).
pub(super) fn misread(root: Node<'_>, text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut cursor = root.walk();
    // Whether each ancestor of the cursor's node is a context where blanks are text.
    let mut quoted_stack: Vec<bool> = Vec::new();
    // Whether each ancestor is a token or quoted construct whose text is covered (see
    // [`skipped`]), and the gaps between those.
    let mut covered_stack: Vec<bool> = Vec::new();
    let mut gaps = Gaps::default();
    let mut last_end = 0;
    let newlines = bytes.contains(&b'\n');
    loop {
        let node = cursor.node();
        let kind = node.fast_kind();
        let parent_quoted = quoted_stack.last().copied().unwrap_or(false);
        let inside_covered = covered_stack.last().copied().unwrap_or(false);
        let covering = !inside_covered && (node.child_count() == 0 || covers_its_text(kind));
        if let Some(at) = dropped_dash(node, text) {
            gaps.span(bytes, at, at + 1);
        }
        if covering {
            let end = node.end_byte().min(bytes.len());
            gaps.span(bytes, node.start_byte().min(end), end);
        }
        let quoted = blanks_are_text(kind, parent_quoted);
        let (start, end) = (node.start_byte(), node.end_byte());
        let raw = text.get(start..end).unwrap_or("");
        if node_misread(node, raw, bytes, newlines) {
            return true;
        }
        let leaf = node.child_count() == 0;
        if leaf && end > start {
            if start > last_end && escaped_blank_misread(root, bytes, last_end, start) {
                return true;
            }
            if !quoted && has_unescaped_blank(raw) {
                return true;
            }
            last_end = last_end.max(end);
        }
        if !leaf && cursor.goto_first_child() {
            quoted_stack.push(quoted);
            covered_stack.push(inside_covered || covering);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                if text.len() > last_end && escaped_blank_misread(root, bytes, last_end, text.len())
                {
                    return true;
                }
                return gaps.found(bytes).unwrap_or_else(|| skipped(root, text));
            }
            quoted_stack.pop();
            covered_stack.pop();
        }
    }
}

/// Whether blanks are text in a node of `kind` (a string, an expansion, a heredoc…), given
/// whether they are in its parent.
fn blanks_are_text(kind: &str, parent_quoted: bool) -> bool {
    match kind {
        "string" | "translated_string" | "raw_string" | "ansi_c_string" | "expansion"
        | "heredoc_body" | "heredoc_content" | "heredoc_start" | "heredoc_end" | "comment"
        | "regex" | "extglob_pattern" => true,
        "command_substitution" | "process_substitution" => false,
        _ => parent_quoted,
    }
}

/// Whether one node (its text `raw`) is misread on its own: an ANSI-C string or a back-tick
/// substitution ending elsewhere than bash ends it, a name that is not one, gaps inside a
/// word, a newline inside a simple command.
fn node_misread(node: Node<'_>, raw: &str, bytes: &[u8], newlines: bool) -> bool {
    match node.fast_kind() {
        "ansi_c_string" if ansi_c_inner(raw).is_none() => true,
        // Positional parameters (`$1`, `${10}`) are names only inside an expansion.
        "variable_name" if !is_name(raw) && !positional_parameter(node, raw) => true,
        "concatenation" | "simple_expansion" | "variable_assignment" if has_gaps(node) => true,
        // Bash ends a back-tick substitution at the first unescaped back-tick.
        "command_substitution"
            if raw.starts_with('`')
                && closing_backtick(raw.as_bytes(), 1) != Some(raw.len().saturating_sub(1)) =>
        {
            true
        }
        // A newline inside a simple command ends it for bash.
        "command"
        | "declaration_command"
        | "unset_command"
        | "file_redirect"
        | "herestring_redirect"
        | "command_name"
            if newlines && inner_newline(node, bytes) =>
        {
            true
        }
        _ => false,
    }
}

/// Whether the blank-looking text between two tokens holds a `\<blank>` (a word for bash),
/// or a `\<newline>` between two non-blanks (which bash removes, joining them).
pub(super) fn escaped_blank_misread(
    root: Node<'_>,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> bool {
    let blank = |b: Option<&u8>| matches!(b, None | Some(b' ' | b'\t' | b'\n' | b'\r'));
    let mut suspicious = false;
    let mut i = start;
    while i + 1 < end {
        if bytes[i] == b'\\' {
            suspicious |= match bytes[i + 1] {
                b' ' | b'\t' | 0x0b | 0x0c => true,
                b'\n' => !blank(bytes.get(i.wrapping_sub(1))) && !blank(bytes.get(i + 2)),
                _ => false,
            };
            i += 2;
        } else {
            i += 1;
        }
    }
    // Inside quotes or a here-document body, it is text.
    suspicious
        && !root.descendant_for_byte_range(start, end).is_some_and(|n| {
            matches!(
                n.fast_kind(),
                "string" | "translated_string" | "heredoc_body"
            )
        })
}

/// Whether the text between the children of `node` holds a newline that is not a
/// backslash-newline.
pub(super) fn inner_newline(node: Node<'_>, bytes: &[u8]) -> bool {
    let mut pos = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if let Some(pos) = pos {
            for i in pos..child.start_byte() {
                if bytes.get(i) == Some(&b'\n') {
                    let backslashes = bytes
                        .get(..i)
                        .unwrap_or(&[])
                        .iter()
                        .rev()
                        .take_while(|b| **b == b'\\')
                        .count();
                    if backslashes.is_multiple_of(2) {
                        return true;
                    }
                }
            }
        }
        pos = Some(child.end_byte());
    }
    false
}

/// A space, tab or newline not escaped by a backslash.
pub(super) fn has_unescaped_blank(raw: &str) -> bool {
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            ' ' | '\t' | '\n' => return true,
            _ => {}
        }
    }
    false
}

/// `1` in `$1` or `${1}`.
pub(super) fn positional_parameter(node: Node<'_>, raw: &str) -> bool {
    raw.bytes().all(|b| b.is_ascii_digit())
        && node
            .parent()
            .is_some_and(|p| matches!(p.fast_kind(), "simple_expansion" | "expansion"))
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
pub(super) fn is_name(raw: &str) -> bool {
    let mut chars = raw.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the children of `node` leave some of its text uncovered.
pub(super) fn has_gaps(node: Node<'_>) -> bool {
    let mut pos = node.start_byte();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.start_byte() != pos {
            return true;
        }
        pos = child.end_byte();
    }
    pos != node.end_byte()
}
