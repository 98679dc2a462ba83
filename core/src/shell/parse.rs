//! tree-sitter glue: one parser per thread, node kinds by id, and the small tree helpers the
//! walk uses.

use std::cell::RefCell;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Tree};

/// Node kind names by kind id: `Node::kind` measures and checks its C string on every call,
/// which is a good part of the walk's time.
pub(super) static KIND_NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();

pub(super) trait FastKind {
    /// `Node::kind`, from a table.
    fn fast_kind(&self) -> &'static str;
}

impl FastKind for Node<'_> {
    fn fast_kind(&self) -> &'static str {
        let names = KIND_NAMES.get_or_init(|| {
            let language: Language = tree_sitter_bash::LANGUAGE.into();
            (0..language.node_kind_count())
                .map(|id| {
                    u16::try_from(id)
                        .ok()
                        .and_then(|id| language.node_kind_for_id(id))
                        .unwrap_or("")
                })
                .collect()
        });
        match names.get(usize::from(self.kind_id())) {
            Some(name) if !name.is_empty() => name,
            _ => self.kind(),
        }
    }
}

thread_local! {
    /// One parser per thread: creating one is not free.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub(super) fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

pub(super) fn parse(text: &str) -> Option<Tree> {
    let cached = PARSER.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = new_parser();
        }
        let parser = slot.as_mut()?;
        parser.reset();
        parser.parse(text, None)
    });
    match cached {
        Ok(Some(tree)) => Some(tree),
        // No thread-local parser available (thread teardown, re-entrance): use a fresh one.
        _ => new_parser()?.parse(text, None),
    }
}

/// tree-sitter's parse alone, for timing.
#[cfg(test)]
pub(super) fn parse_only(text: &str) -> bool {
    parse(text).is_some_and(|t| !t.root_node().has_error())
}

/// Whether `text` would make tree-sitter-bash 0.25's scanner read out of bounds: after `{`,
/// digits and `..`, it passes the next character to C's `isdigit`, which is only defined up
/// to 255 (`{1` then U+E0000 is a segmentation fault).
pub(super) fn crashes_tree_sitter(text: &str) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        rest = rest.get(i + 1..).unwrap_or("");
        let after = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if after.chars().next().is_some_and(|c| !c.is_ascii()) {
            return true;
        }
    }
    false
}

/// All children of `node`, with their field names (linear, unlike `Node::child(i)`).
pub(super) fn children_with_fields<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
    let mut out = Vec::with_capacity(node.child_count());
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// The named children of `node` that are not comments.
pub(super) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.fast_kind() != "comment")
        .collect()
}

/// The nodes under `root` (not `root` itself), in source order, where a pre-order descent
/// stops: nodes for which `stop` holds and leaves. Iterative, so any depth is fine.
pub(super) fn frontier<'t>(root: Node<'t>, stop: impl Fn(&Node<'t>) -> bool) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    if !cursor.goto_first_child() {
        return out;
    }
    loop {
        let node = cursor.node();
        let descend = !stop(&node) && cursor.goto_first_child();
        if !descend {
            out.push(node);
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() || cursor.node().id() == root.id() {
                    return out;
                }
            }
        }
    }
}

/// Groups nodes into shell words: nodes with no blank between them are one word.
pub(super) fn adjacent_runs<'t>(nodes: &[Node<'t>]) -> Vec<Vec<Node<'t>>> {
    let mut runs: Vec<Vec<Node<'t>>> = Vec::new();
    for node in nodes {
        match runs.last_mut() {
            Some(run)
                if run
                    .last()
                    .is_some_and(|p| p.end_byte() == node.start_byte()) =>
            {
                run.push(*node)
            }
            _ => runs.push(vec![*node]),
        }
    }
    runs
}

pub(super) fn is_word_like(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "number"
            | "brace_expression"
    )
}
