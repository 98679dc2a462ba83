//! The analysis itself: tree-sitter-bash parses the line, a walk over the tree collects the
//! simple commands.
//!
//! This is security code. Whatever the walk does not understand is a failure (the engine asks),
//! never a silently dropped command. tree-sitter-bash recovers from errors instead of failing
//! (any ERROR or MISSING node is a failure here), and reads a number of lines differently from
//! bash. Where the difference can be corrected the walk follows bash; where it cannot, the line
//! is refused (see [`misread`]):
//!
//! - words after a redirection target (`rm > /dev/null -rf /`) are redirection destinations for
//!   tree-sitter; bash gives them to the command, and so does the walk;
//! - a redirection after a pipeline or a list (`a | b > f`) belongs to its last command only;
//! - back-ticks inside back-ticks (`` `echo \`id\`` ``) and inside unquoted here-document
//!   bodies are not parsed by tree-sitter; the walk unescapes and parses their text itself;
//! - a here-document delimiter quoted with a backslash (`<<E\OF`) is quoted for bash; a body
//!   tree-sitter ends elsewhere than bash (`EO\<newline>F`, `${x:-<newline>EOF`) is refused;
//! - `{a,b}` brace expansion is done as bash does it (`{rm,-rf,/}` is `rm -rf /`);
//! - `<` and `>` inside `[ … ]` are redirections for bash, not comparisons: refused;
//! - lexer slips (`$'\\'` swallowing what follows, `\<newline>` splitting a word, tokens
//!   spanning blanks, `*EOF=` read as an assignment, `{cat`, `[[x`, text left out of the
//!   tree): refused; the one word it is known to leave out (a lone `-` before a command's
//!   redirections) is put back.

use std::cell::RefCell;

use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Tree};

use super::expand::{self, Budget, Env, Script};
use super::{Analysis, Origin, Redirect, SimpleCommand, Word, MAX_COMMAND_LEN, MAX_DEPTH};

/// The reason given for any line tree-sitter cannot parse or the walk does not understand.
pub(super) const UNPARSABLE: &str = "the command could not be parsed";

/// Hard cap on the recursion of the walk itself (statements and word parts), whatever the
/// nesting counted by `MAX_DEPTH`: a guard against stack exhaustion on hostile input.
const MAX_FRAMES: usize = 12 * MAX_DEPTH;

type Res<T> = Result<T, String>;

fn unparsable() -> String {
    UNPARSABLE.to_string()
}

fn too_long() -> String {
    format!("the command is longer than {MAX_COMMAND_LEN} bytes")
}

pub(super) fn too_deep() -> String {
    format!("the command nests deeper than {MAX_DEPTH} levels")
}

/// Node kind names by kind id: `Node::kind` measures and checks its C string on every call,
/// which is a good part of the walk's time.
static KIND_NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();

trait FastKind {
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

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

fn parse(text: &str) -> Option<Tree> {
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

/// Analyses one bash command line: every simple command it would execute, in source order.
///
/// Never panics. An empty (or comment-only) line gives no commands and no failure; a line that
/// cannot be analysed gives a `failure` (and no commands).
pub fn analyse(command: &str) -> Analysis {
    analyse_at_depth(command, 0, Origin::TopLevel)
}

/// [`analyse`] for text found at nesting `depth` (a `bash -c` payload, say), whose top-level
/// commands get `origin`. Spans are relative to `text`.
pub(crate) fn analyse_at_depth(text: &str, depth: usize, origin: Origin) -> Analysis {
    let ctx = Ctx {
        origin,
        piped: false,
        depth,
    };
    let budget = Budget::default();
    match walk_text(text, 0, ctx, Vec::new(), 0, &budget, &[]) {
        Ok((commands, _)) => Analysis {
            commands,
            failure: None,
        },
        Err(reason) => Analysis {
            commands: Vec::new(),
            failure: Some(reason),
        },
    }
}

/// Parses `text` and walks it; `base` is added to every span, `functions` are the functions
/// being defined around it (given back), `frames` the recursion already spent, `budget` the
/// work spent on the whole line, `inherited` the here-documents its commands read unless
/// redirected (those of the shell running `text`). The commands found are followed by what
/// they run (see [`expand`]).
pub(super) fn walk_text(
    text: &str,
    base: usize,
    ctx: Ctx,
    functions: Vec<String>,
    frames: usize,
    budget: &Budget,
    inherited: &[&Script],
) -> Res<(Vec<SimpleCommand>, Vec<String>)> {
    if text.len() > MAX_COMMAND_LEN {
        return Err(too_long());
    }
    if ctx.depth > MAX_DEPTH {
        return Err(too_deep());
    }
    if crashes_tree_sitter(text) {
        return Err(unparsable());
    }
    let tree = parse(text).ok_or_else(unparsable)?;
    let root = tree.root_node();
    if root.has_error() || root.is_missing() || misread(root, text) {
        return Err(unparsable());
    }
    let mut walker = Walker {
        src: text,
        base,
        out: Vec::new(),
        functions,
        frames,
        watch: None,
        watch_start: None,
        bad_slice: false,
        pending: Vec::new(),
        stdin: Vec::new(),
        budget,
    };
    walker.block(root, ctx)?;
    if walker.bad_slice {
        return Err(unparsable());
    }
    let out = expand_commands(
        walker.out,
        walker.pending,
        &walker.stdin,
        inherited,
        frames,
        budget,
    )?;
    Ok((out, walker.functions))
}

/// What the walk of a line of plain simple commands (found at nesting `depth`, see
/// `fast.rs`) gives: the commands, each followed by what it runs.
pub(super) fn expand_plain(commands: Vec<SimpleCommand>, depth: usize) -> Analysis {
    let budget = Budget::default();
    let pending = plain_pending(&commands, depth, &[]);
    match expand_commands(commands, pending, &[], &[], 0, &budget) {
        Ok(commands) => Analysis {
            commands,
            failure: None,
        },
        Err(reason) => Analysis {
            commands: Vec::new(),
            failure: Some(reason),
        },
    }
}

/// The pending expansions of plain simple commands, as the walk records them.
pub(super) fn plain_pending(
    commands: &[SimpleCommand],
    depth: usize,
    functions: &[String],
) -> Vec<Pending> {
    commands
        .iter()
        .enumerate()
        .map(|(index, c)| Pending {
            index,
            ctx: Ctx {
                origin: c.origin,
                piped: c.piped,
                depth,
            },
            functions: functions.to_vec(),
        })
        .collect()
}

/// A simple command of the walk, to be expanded once the walk is done (its words and
/// redirections are only complete then: `rm > f -rf /`, `{ …; } > f`).
pub(super) struct Pending {
    index: usize,
    ctx: Ctx,
    /// The functions whose definitions enclose it.
    functions: Vec<String>,
}

/// Inserts after each pending command what it runs beyond itself (wrapped commands,
/// payloads, shell-outs).
pub(super) fn expand_commands(
    out: Vec<SimpleCommand>,
    mut pending: Vec<Pending>,
    stdin: &[(usize, usize, Script)],
    inherited: &[&Script],
    frames: usize,
    budget: &Budget,
) -> Res<Vec<SimpleCommand>> {
    pending.retain(|p| {
        out.get(p.index).is_some_and(|c| {
            c.argv.first().is_some_and(|w| !w.dynamic) && expand::special(c.program())
        })
    });
    if pending.is_empty() {
        return Ok(out);
    }
    pending.sort_by_key(|p| p.index);
    let mut inserts: Vec<(usize, Vec<SimpleCommand>)> = Vec::new();
    for p in &pending {
        let Some(cmd) = out.get(p.index) else {
            continue;
        };
        // After the commands of its own words (`$(…)`), which the shell runs first.
        let mut at = p.index;
        while out
            .get(at + 1)
            .is_some_and(|c| c.span.0 >= cmd.span.0 && c.span.1 <= cmd.span.1)
        {
            at += 1;
        }
        let mut scripts: Vec<&Script> = stdin
            .iter()
            .filter(|(start, end, _)| (*start..*end).contains(&p.index))
            .map(|(_, _, script)| script)
            .collect();
        let own_input = cmd.piped
            || cmd.redirects.iter().any(|r| {
                r.fd.is_none_or(|fd| fd == 0)
                    && matches!(r.op.as_str(), "<" | "<<" | "<<-" | "<<<" | "<>")
            });
        if !own_input {
            scripts.extend(inherited.iter().copied());
        }
        let env = Env {
            frames,
            budget,
            functions: &p.functions,
            stdin: &scripts,
        };
        let mut extra = Vec::new();
        expand::expand(cmd, p.ctx.depth, &env, &mut extra)?;
        if !extra.is_empty() {
            inserts.push((at, extra));
        }
    }
    if inserts.is_empty() {
        return Ok(out);
    }
    inserts.sort_by_key(|(at, _)| *at);
    let added: usize = inserts.iter().map(|(_, extra)| extra.len()).sum();
    let mut merged = Vec::with_capacity(out.len() + added);
    let mut inserts = inserts.into_iter().peekable();
    for (i, cmd) in out.into_iter().enumerate() {
        merged.push(cmd);
        while let Some((_, mut extra)) = inserts.next_if(|(at, _)| *at == i) {
            merged.append(&mut extra);
        }
    }
    Ok(merged)
}

/// tree-sitter's parse alone, for timing.
#[cfg(test)]
pub(super) fn parse_only(text: &str) -> bool {
    parse(text).is_some_and(|t| !t.root_node().has_error())
}

/// Whether `text` would make tree-sitter-bash 0.25's scanner read out of bounds: after `{`,
/// digits and `..`, it passes the next character to C's `isdigit`, which is only defined up
/// to 255 (`{1` then U+E0000 is a segmentation fault).
fn crashes_tree_sitter(text: &str) -> bool {
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

/// Whether tree-sitter-bash left text out of its tree: a byte outside every token and every
/// quoted construct that is not a blank, a newline or a line continuation. A word the tree
/// does not hold is a word no rule sees. The one known omission, a lone `-` right before the
/// redirections of a command (`git commit -F - <<EOF`, `npm - 2>/dev/null`), is put back by
/// the walk (see [`dropped_dash`]). [`misread`] finds such text in its own pass over the
/// tokens; this exact check is for trees whose tokens are not in the order of the text.
fn skipped(root: Node<'_>, text: &str) -> bool {
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
fn covers_its_text(kind: &str) -> bool {
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
struct Gaps {
    pos: usize,
    out_of_order: bool,
    text_in_gap: bool,
}

impl Gaps {
    fn span(&mut self, bytes: &[u8], start: usize, end: usize) {
        if start < self.pos {
            self.out_of_order = true;
        } else if !blank_only(&bytes[self.pos..start]) {
            self.text_in_gap = true;
        }
        self.pos = self.pos.max(end);
    }

    /// Whether text was found; `None` when tokens came out of order (ask [`skipped`]).
    fn found(&self, bytes: &[u8]) -> Option<bool> {
        (!self.out_of_order).then(|| self.text_in_gap || !blank_only(&bytes[self.pos..]))
    }
}

/// Calls `f` with the byte range of every token and quoted construct of the tree, and of the
/// dash the parse leaves out (see [`dropped_dash`]), in the order of the walk.
fn covered_spans(root: Node<'_>, text: &str, mut f: impl FnMut(usize, usize)) {
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
fn dropped_dash(node: Node<'_>, text: &str) -> Option<usize> {
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
fn blank_only(gap: &[u8]) -> bool {
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
fn misread(root: Node<'_>, text: &str) -> bool {
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
        let quoted = match kind {
            "string" | "translated_string" | "raw_string" | "ansi_c_string" | "expansion"
            | "heredoc_body" | "heredoc_content" | "heredoc_start" | "heredoc_end" | "comment"
            | "regex" | "extglob_pattern" => true,
            "command_substitution" | "process_substitution" => false,
            _ => parent_quoted,
        };
        let (start, end) = (node.start_byte(), node.end_byte());
        let raw = text.get(start..end).unwrap_or("");
        match kind {
            "ansi_c_string" if ansi_c_inner(raw).is_none() => return true,
            // Positional parameters (`$1`, `${10}`) are names only inside an expansion.
            "variable_name" if !is_name(raw) && !positional_parameter(node, raw) => return true,
            "concatenation" | "simple_expansion" | "variable_assignment" if has_gaps(node) => {
                return true
            }
            // Bash ends a back-tick substitution at the first unescaped back-tick.
            "command_substitution"
                if raw.starts_with('`')
                    && closing_backtick(raw.as_bytes(), 1) != Some(raw.len().saturating_sub(1)) =>
            {
                return true
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
                return true
            }
            _ => {}
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

/// Whether the blank-looking text between two tokens holds a `\<blank>` (a word for bash),
/// or a `\<newline>` between two non-blanks (which bash removes, joining them).
fn escaped_blank_misread(root: Node<'_>, bytes: &[u8], start: usize, end: usize) -> bool {
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
fn inner_newline(node: Node<'_>, bytes: &[u8]) -> bool {
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
fn has_unescaped_blank(raw: &str) -> bool {
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
fn positional_parameter(node: Node<'_>, raw: &str) -> bool {
    raw.bytes().all(|b| b.is_ascii_digit())
        && node
            .parent()
            .is_some_and(|p| matches!(p.fast_kind(), "simple_expansion" | "expansion"))
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_name(raw: &str) -> bool {
    let mut chars = raw.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the children of `node` leave some of its text uncovered.
fn has_gaps(node: Node<'_>) -> bool {
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

/// Where the walk is: what the commands found here get.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx {
    pub origin: Origin,
    pub piped: bool,
    pub depth: usize,
}

impl Ctx {
    /// One nesting level down, inside a construct of kind `origin`.
    fn deeper(self, origin: Origin) -> Res<Ctx> {
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(Ctx {
            origin,
            piped: self.piped,
            depth,
        })
    }

    fn with_origin(self, origin: Origin) -> Ctx {
        Ctx { origin, ..self }
    }
}

/// All children of `node`, with their field names (linear, unlike `Node::child(i)`).
fn children_with_fields<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
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
fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.fast_kind() != "comment")
        .collect()
}

/// The nodes under `root` (not `root` itself), in source order, where a pre-order descent
/// stops: nodes for which `stop` holds and leaves. Iterative, so any depth is fine.
fn frontier<'t>(root: Node<'t>, stop: impl Fn(&Node<'t>) -> bool) -> Vec<Node<'t>> {
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
fn adjacent_runs<'t>(nodes: &[Node<'t>]) -> Vec<Vec<Node<'t>>> {
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

/// The stages of a pipeline, and the statements of a list written after it.
///
/// tree-sitter-bash reads `a | b | c && d` as `a | (b | c && d)`; bash reads it as
/// `(a | b | c) && d`, in which `d` reads no pipe. A list ending a pipeline is read the bash
/// way: its first pipeline's stages continue the pipeline, the rest of it follows.
fn pipeline_parts(node: Node<'_>) -> Res<(Vec<Node<'_>>, Vec<Node<'_>>)> {
    let mut stages = Vec::new();
    let mut levels: Vec<Vec<Node<'_>>> = Vec::new();
    let mut current = node;
    loop {
        let children = named_children(current);
        let Some((last, init)) = children.split_last() else {
            return Err(unparsable());
        };
        for stage in init {
            if stage.fast_kind() == "list" {
                return Err(unparsable());
            }
            stages.push(*stage);
        }
        if last.fast_kind() != "list" {
            stages.push(*last);
            break;
        }
        // The leftmost statement of the (left-nested) list, and the others in source order.
        let mut rights = Vec::new();
        let mut leftmost = *last;
        while leftmost.fast_kind() == "list" {
            let items = named_children(leftmost);
            match items.split_first() {
                Some((left, right)) => {
                    rights.push(right.to_vec());
                    leftmost = *left;
                }
                None => return Err(unparsable()),
            }
        }
        levels.push(rights.into_iter().rev().flatten().collect());
        if leftmost.fast_kind() == "pipeline" {
            current = leftmost;
        } else {
            stages.push(leftmost);
            break;
        }
    }
    // Statements of deeper levels come first in the text.
    let after = levels.into_iter().rev().flatten().collect();
    Ok((stages, after))
}

/// Descends from a redirected body to the statement its redirections belong to: the last
/// command of a pipeline or list (`a | b > f` redirects `b` only), the command of `! cmd`.
fn redirect_target(body: Node<'_>) -> Node<'_> {
    let mut target = body;
    while matches!(target.fast_kind(), "pipeline" | "list" | "negated_command") {
        match named_children(target).last() {
            Some(last) => target = *last,
            None => break,
        }
    }
    target
}

fn is_word_like(kind: &str) -> bool {
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

struct Walker<'s> {
    src: &'s str,
    /// Simple commands to expand once the walk is done.
    pending: Vec<Pending>,
    /// Here-documents and the range of commands (by index) that read them.
    stdin: Vec<(usize, usize, Script)>,
    budget: &'s Budget,
    /// Added to every span (the offset of `src` in the analysed line).
    base: usize,
    out: Vec<SimpleCommand>,
    /// Names of the functions whose definitions enclose the walk.
    functions: Vec<String>,
    /// Current recursion of the walk.
    frames: usize,
    /// A node whose first command index is wanted (see `redirected`), and that index.
    watch: Option<usize>,
    watch_start: Option<usize>,
    /// A node's byte range did not slice the source (never expected): the walk fails.
    bad_slice: bool,
}

impl<'s> Walker<'s> {
    fn text(&mut self, node: Node<'_>) -> &'s str {
        match self.src.get(node.start_byte()..node.end_byte()) {
            Some(text) => text,
            None => {
                self.bad_slice = true;
                ""
            }
        }
    }

    fn slice(&mut self, start: usize, end: usize) -> &'s str {
        match self.src.get(start..end) {
            Some(text) => text,
            None => {
                self.bad_slice = true;
                ""
            }
        }
    }

    fn span(&self, node: Node<'_>) -> (usize, usize) {
        (self.base + node.start_byte(), self.base + node.end_byte())
    }

    fn enter(&mut self) -> Res<()> {
        self.frames += 1;
        if self.frames > MAX_FRAMES {
            return Err(too_deep());
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.frames = self.frames.saturating_sub(1);
    }

    /// Starts a command at `node`'s place; it is filled in once its words are known, so that
    /// commands nested in its words come after it (source order).
    fn open(&mut self, node: Node<'_>, ctx: Ctx) -> usize {
        let index = self.out.len();
        self.out.push(SimpleCommand {
            origin: ctx.origin,
            piped: ctx.piped,
            span: self.span(node),
            ..SimpleCommand::default()
        });
        index
    }

    fn fill(&mut self, index: usize, assignments: Vec<String>, argv: Vec<Word>) {
        let self_call = argv
            .first()
            .is_some_and(|w| !w.dynamic && self.functions.contains(&w.value));
        if let Some(command) = self.out.get_mut(index) {
            command.assignments = assignments;
            command.argv = argv;
            command.self_call = self_call;
        }
    }

    fn add_redirects(&mut self, start: usize, end: usize, redirects: &[Redirect]) {
        if redirects.is_empty() {
            return;
        }
        if let Some(commands) = self.out.get_mut(start..end) {
            for command in commands {
                command.redirects.extend(redirects.iter().cloned());
            }
        }
    }

    // ----- statements -----

    /// The statements among `node`'s named children.
    fn block(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        for child in named_children(node) {
            self.stmt(child, ctx)?;
        }
        Ok(())
    }

    fn stmt(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        self.enter()?;
        if self.watch == Some(node.id()) {
            self.watch_start = Some(self.out.len());
        }
        let result = self.stmt_inner(node, ctx);
        self.leave();
        result
    }

    fn stmt_inner(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        match node.fast_kind() {
            "command" => self.command(node, ctx),
            "list" => self.list(node, ctx, ctx),
            "pipeline" => {
                let (stages, after) = pipeline_parts(node)?;
                for (i, stage) in stages.into_iter().enumerate() {
                    let stage_ctx = Ctx {
                        origin: Origin::Pipeline,
                        piped: ctx.piped || i > 0,
                        depth: ctx.depth,
                    };
                    self.stmt(stage, stage_ctx)?;
                }
                for statement in after {
                    self.stmt(statement, ctx)?;
                }
                Ok(())
            }
            "redirected_statement" => self.redirected(node, ctx),
            "negated_command" => self.block(node, ctx),
            "subshell" => self.block(node, ctx.deeper(Origin::Subshell)?),
            "compound_statement" => {
                if node.child(0).is_some_and(|c| c.fast_kind() == "((") {
                    self.test(node, ctx)
                } else if named_children(node).is_empty()
                    || !matches!(
                        self.src.as_bytes().get(node.start_byte() + 1),
                        Some(b' ' | b'\t' | b'\n')
                    )
                {
                    // `{}` and `{cat` are words for bash, not groups.
                    Err(unparsable())
                } else {
                    self.block(node, ctx.deeper(Origin::Group)?)
                }
            }
            "if_statement" => {
                let inner = ctx.deeper(Origin::Compound)?;
                for child in named_children(node) {
                    match child.fast_kind() {
                        "elif_clause" | "else_clause" => self.block(child, inner)?,
                        _ => self.stmt(child, inner)?,
                    }
                }
                Ok(())
            }
            "while_statement" => {
                let inner = ctx.deeper(Origin::Compound)?;
                for child in named_children(node) {
                    match child.fast_kind() {
                        "do_group" => self.block(child, inner)?,
                        _ => self.stmt(child, inner)?,
                    }
                }
                Ok(())
            }
            "for_statement" => self.for_statement(node, ctx),
            "c_style_for_statement" => {
                let inner = ctx.deeper(Origin::Compound)?;
                for (field, child) in children_with_fields(node) {
                    match field {
                        Some("body") => self.block(child, inner)?,
                        _ if child.is_named() && child.fast_kind() != "comment" => {
                            self.scan(child, inner)?;
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            "case_statement" => self.case_statement(node, ctx),
            "function_definition" => self.function_definition(node, ctx),
            "test_command" => self.test(node, ctx),
            "declaration_command" | "unset_command" => self.declaration(node, ctx),
            "variable_assignment" => {
                let index = self.open(node, ctx);
                let assignment = self.assignment(node, ctx)?.0;
                self.fill(index, vec![assignment], Vec::new());
                Ok(())
            }
            "variable_assignments" => {
                let index = self.open(node, ctx);
                let mut assignments = Vec::new();
                for child in named_children(node) {
                    if child.fast_kind() != "variable_assignment" {
                        return Err(unparsable());
                    }
                    assignments.push(self.assignment(child, ctx)?.0);
                }
                self.fill(index, assignments, Vec::new());
                Ok(())
            }
            "comment" => Ok(()),
            // Anything else at the place of a statement is not understood.
            _ => Err(unparsable()),
        }
    }

    /// `a && b || c`: tree-sitter nests lists to the left, so they are flattened without
    /// recursion. The first command gets `first`, the others `rest` (see `heredoc`).
    fn list(&mut self, node: Node<'_>, first: Ctx, rest: Ctx) -> Res<()> {
        let mut rights = Vec::new();
        let mut current = node;
        while current.fast_kind() == "list" {
            let children = named_children(current);
            match children.split_first() {
                Some((left, right)) => {
                    rights.push(right.to_vec());
                    current = *left;
                }
                None => return Err(unparsable()),
            }
        }
        self.stmt(current, first)?;
        for right in rights.iter().rev() {
            for statement in right {
                self.stmt(*statement, rest)?;
            }
        }
        Ok(())
    }

    fn command(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        // A reserved word first in a command closes a construct that is not open (`echo a; }`,
        // `sudo { rm x; }`): a syntax error for bash, a command for tree-sitter.
        if let Some(name) = node.child(0).filter(|c| c.fast_kind() == "command_name") {
            if matches!(
                self.text(name),
                "}" | "]]" | "done" | "fi" | "then" | "esac" | "do" | "else" | "elif" | "in"
            ) {
                return Err(unparsable());
            }
        }
        let index = self.open(node, ctx);
        let mut assignments = Vec::new();
        let mut argv = Vec::new();
        let mut run: Vec<Node<'_>> = Vec::new();
        let mut assignment_end = None;
        for (field, child) in children_with_fields(node) {
            // `x=""\rm rm -rf /`: the `\rm` belongs to the value, not the program.
            if assignment_end == Some(child.start_byte()) {
                return Err(unparsable());
            }
            assignment_end = (child.fast_kind() == "variable_assignment").then(|| child.end_byte());
            let parts = match field {
                Some("name") => {
                    let mut cursor = child.walk();
                    child.children(&mut cursor).collect::<Vec<_>>()
                }
                Some("argument") => vec![child],
                _ => Vec::new(),
            };
            if let Some(first) = parts.first() {
                if run
                    .last()
                    .is_some_and(|p| p.end_byte() != first.start_byte())
                {
                    argv.extend(self.words(&run, ctx)?);
                    run.clear();
                }
                run.extend(parts);
                continue;
            }
            // `cat 0<<< x`: tree-sitter reads the descriptor as an argument.
            let mut herestring_fd = None;
            if child.fast_kind() == "herestring_redirect"
                && child.child_by_field_name("descriptor").is_none()
            {
                if let [number] = run.as_slice() {
                    if number.fast_kind() == "number" && number.end_byte() == child.start_byte() {
                        herestring_fd = Some(self.text(*number).parse::<u32>().ok());
                        run.clear();
                    }
                }
            }
            if !run.is_empty() {
                argv.extend(self.words(&run, ctx)?);
                run.clear();
            }
            match (field, child.fast_kind()) {
                (_, "comment") => {}
                (_, "variable_assignment") => assignments.push(self.assignment(child, ctx)?.0),
                (Some("redirect"), "file_redirect" | "herestring_redirect") => {
                    let (mut redirect, extra) = self.redirect(child, ctx)?;
                    if let Some(fd) = herestring_fd {
                        redirect.fd = fd;
                    }
                    argv.extend(extra);
                    if let Some(command) = self.out.get_mut(index) {
                        command.redirects.push(redirect);
                    }
                }
                // `echo (ls)`, which bash refuses, among others.
                _ => return Err(unparsable()),
            }
        }
        if !run.is_empty() {
            argv.extend(self.words(&run, ctx)?);
        }
        self.fill(index, assignments, argv);
        self.pending.push(Pending {
            index,
            ctx,
            functions: self.functions.clone(),
        });
        Ok(())
    }

    /// `body > f`, `body <<EOF`, or a redirection alone (`> /dev/sda`).
    fn redirected(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let body = node.child_by_field_name("body");
        let redirects: Vec<Node<'_>> = named_children(node)
            .into_iter()
            .filter(|c| Some(c.id()) != body.map(|b| b.id()))
            .collect();
        // `cat <<EOF | sh`: the pipe is written after the heredoc, inside its node.
        let piped_heredoc = redirects.iter().any(|r| {
            r.fast_kind() == "heredoc_redirect"
                && named_children(*r)
                    .iter()
                    .any(|c| c.fast_kind() == "pipeline")
        });
        let body_ctx = if piped_heredoc {
            ctx.with_origin(Origin::Pipeline)
        } else {
            ctx
        };

        let (start, target_is_command) = match body {
            Some(body) => {
                let target = redirect_target(body);
                let saved = (self.watch, self.watch_start);
                self.watch = Some(target.id());
                self.watch_start = None;
                let walked = self.stmt(body, body_ctx);
                let start = self.watch_start;
                (self.watch, self.watch_start) = saved;
                walked?;
                (
                    start.ok_or_else(unparsable)?,
                    target.fast_kind() == "command",
                )
            }
            None => (self.open(node, body_ctx), true),
        };
        let end = self.out.len();
        if dropped_dash(node, self.src).is_some() {
            // The command's last word, which the parse left out.
            match self.out.get_mut(start) {
                Some(command) if target_is_command => {
                    command.argv.push(literal_word("-".into()));
                }
                _ => return Err(unparsable()),
            }
        }

        let mut collected = Vec::new();
        let mut extra = Vec::new();
        let mut after = Vec::new();
        let mut scripts = Vec::new();
        for redirect in redirects {
            match redirect.fast_kind() {
                "file_redirect" | "herestring_redirect" => {
                    let (redirect, words) = self.redirect(redirect, ctx)?;
                    collected.push(redirect);
                    extra.extend(words);
                }
                "heredoc_redirect" => {
                    let script =
                        self.heredoc(redirect, ctx, &mut collected, &mut extra, &mut after)?;
                    scripts.push(script);
                }
                _ => return Err(unparsable()),
            }
        }
        for script in scripts {
            self.stdin.push((start, end, script));
        }
        if !extra.is_empty() {
            // Words after a redirection belong to the command (`rm > /dev/null -rf /`); after
            // a compound statement they are a syntax error.
            if !target_is_command {
                return Err(unparsable());
            }
            match self.out.get_mut(start) {
                Some(command) => command.argv.extend(extra),
                None => return Err(unparsable()),
            }
        }
        self.add_redirects(start, end, &collected);
        for (statement, piped) in after {
            if piped {
                let piped_ctx = Ctx {
                    origin: Origin::Pipeline,
                    piped: true,
                    depth: ctx.depth,
                };
                if statement.fast_kind() == "list" {
                    // `cat <<EOF | sh && x`: only `sh` is in the pipeline.
                    self.list(statement, piped_ctx, ctx)?;
                } else {
                    self.stmt(statement, piped_ctx)?;
                }
            } else {
                self.stmt(statement, ctx)?;
            }
        }
        Ok(())
    }

    /// A here-document. Its redirection goes to `collected`, words written after it to
    /// `extra`, and statements written after it (`| sh`, `&& x`) to `after` (with whether
    /// they read the pipe). Returns its body as the command reading it sees it.
    fn heredoc<'t>(
        &mut self,
        node: Node<'t>,
        ctx: Ctx,
        collected: &mut Vec<Redirect>,
        extra: &mut Vec<Word>,
        after: &mut Vec<(Node<'t>, bool)>,
    ) -> Res<Script> {
        let slot = collected.len();
        collected.push(Redirect::default());
        let children = children_with_fields(node);
        let find = |kind: &str| {
            children
                .iter()
                .find(|(_, c)| c.fast_kind() == kind)
                .map(|c| c.1)
        };
        let op = if find("<<-").is_some() { "<<-" } else { "<<" };
        let start = find("heredoc_start").ok_or_else(unparsable)?;
        let (delimiter, quoted) = heredoc_delimiter(self.text(start)).ok_or_else(unparsable)?;
        // tree-sitter must end the body where bash does (`EO\<newline>F` ends it for bash,
        // `${x:-<newline>EOF` does not for tree-sitter).
        let end = find("heredoc_end").ok_or_else(unparsable)?;
        let body_start = find("heredoc_body").map_or(end.start_byte(), |b| b.start_byte());
        let body = self.slice(body_start, end.start_byte());
        let end_text = self.text(end);
        let after_end = self.src.get(end.end_byte()..).unwrap_or("");
        let whole_line = after_end.is_empty() || after_end.starts_with('\n');
        if !whole_line
            || !heredoc_ends_as_bash_does(body, end_text, &delimiter, quoted, op == "<<-")
        {
            return Err(unparsable());
        }
        let script = heredoc_script(body, quoted, op == "<<-");
        let mut fd = None;
        let mut arguments = Vec::new();
        for (field, child) in children {
            match (field, child.fast_kind()) {
                (Some("descriptor"), _) => fd = self.text(child).parse::<u32>().ok(),
                (Some("redirect"), "file_redirect" | "herestring_redirect") => {
                    let (redirect, words) = self.redirect(child, ctx)?;
                    collected.push(redirect);
                    extra.extend(words);
                }
                (Some("argument"), _) => arguments.push(child),
                (Some("right"), _) => after.push((child, false)),
                (Some("operator"), _) => {}
                (_, "pipeline") => {
                    for statement in named_children(child) {
                        after.push((statement, true));
                    }
                }
                (_, "heredoc_body") => {
                    // A quoted delimiter makes the body literal; otherwise it is expanded.
                    if !quoted {
                        self.heredoc_body(child, ctx)?;
                    }
                }
                (_, "heredoc_start" | "heredoc_end" | "comment") => {}
                _ if !child.is_named() => {}
                _ => return Err(unparsable()),
            }
        }
        for run in adjacent_runs(&arguments) {
            extra.extend(self.words(&run, ctx)?);
        }
        if let Some(redirect) = collected.get_mut(slot) {
            *redirect = Redirect {
                op: op.to_string(),
                fd,
                target: literal_word(delimiter),
            };
        }
        Ok(script)
    }

    /// The expansions of an unquoted here-document body. tree-sitter finds `$(…)` and `${…}`
    /// but not back-ticks: the body text is scanned for them.
    fn heredoc_body(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let mut children = Vec::new();
        for child in named_children(node) {
            match child.fast_kind() {
                "command_substitution" | "expansion" | "simple_expansion" => children.push(child),
                "heredoc_content" => {}
                _ => return Err(unparsable()),
            }
        }
        let start = node.start_byte();
        let text = self.text(node);
        let bytes = text.as_bytes();
        let mut next = 0;
        let mut i = 0;
        while i < bytes.len() {
            // Nodes inside text already handled (back-ticks) are skipped.
            while children
                .get(next)
                .is_some_and(|c| c.start_byte() < start + i)
            {
                next += 1;
            }
            if let Some(child) = children.get(next).filter(|c| c.start_byte() == start + i) {
                if child.fast_kind() == "command_substitution" {
                    self.subst(*child, Origin::CommandSubstitution, ctx)?;
                } else {
                    self.scan(*child, ctx)?;
                }
                i = child.end_byte().saturating_sub(start).max(i + 1);
                next += 1;
                continue;
            }
            match bytes[i] {
                b'\\' => i += 2,
                b'`' => {
                    let close = closing_backtick(bytes, i + 1).ok_or_else(unparsable)?;
                    let inner = text.get(i + 1..close).ok_or_else(unparsable)?;
                    self.backtick_text(inner, start + i + 1, ctx)?;
                    i = close + 1;
                }
                // A `$(` tree-sitter did not parse is not understood.
                b'$' if bytes.get(i + 1) == Some(&b'(') => return Err(unparsable()),
                _ => i += 1,
            }
        }
        Ok(())
    }

    /// The text between back-ticks, at byte `offset` of the source, after bash's back-tick
    /// unescaping (`\\`, `` \` ``, `\$`), analysed as a command substitution.
    fn backtick_text(&mut self, inner: &str, offset: usize, ctx: Ctx) -> Res<()> {
        let inner_ctx = ctx.deeper(Origin::CommandSubstitution)?;
        let text = unescape_backticks(inner);
        self.nested_text(&text, self.base + offset, inner_ctx)
    }

    /// Parses and walks `text` (not part of this tree) as statements in `ctx`.
    fn nested_text(&mut self, text: &str, base: usize, ctx: Ctx) -> Res<()> {
        self.enter()?;
        let functions = std::mem::take(&mut self.functions);
        let (mut commands, functions) =
            walk_text(text, base, ctx, functions, self.frames, self.budget, &[])?;
        self.functions = functions;
        self.out.append(&mut commands);
        self.leave();
        Ok(())
    }

    fn for_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        let mut values = Vec::new();
        let mut body = None;
        for (field, child) in children_with_fields(node) {
            match field {
                Some("value") => values.push(child),
                Some("body") => body = Some(child),
                _ => {}
            }
        }
        for run in adjacent_runs(&values) {
            self.words(&run, inner)?;
        }
        match body {
            Some(body) => self.block(body, inner),
            None => Err(unparsable()),
        }
    }

    fn case_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        for (field, child) in children_with_fields(node) {
            match (field, child.fast_kind()) {
                (Some("value"), _) => {
                    self.word(&[child], inner)?;
                }
                (_, "case_item") => {
                    let mut patterns = Vec::new();
                    for (item_field, item_child) in children_with_fields(child) {
                        if item_field == Some("value") {
                            patterns.push(item_child);
                        } else if item_child.is_named() && item_child.fast_kind() != "comment" {
                            for run in adjacent_runs(&std::mem::take(&mut patterns)) {
                                self.word(&run, inner)?;
                            }
                            self.stmt(item_child, inner)?;
                        }
                    }
                    for run in adjacent_runs(&patterns) {
                        self.word(&run, inner)?;
                    }
                }
                (_, "comment") => {}
                _ if child.is_named() => return Err(unparsable()),
                _ => {}
            }
        }
        Ok(())
    }

    fn function_definition(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Function)?;
        let mut name = None;
        let mut body = None;
        let mut redirects = Vec::new();
        for (field, child) in children_with_fields(node) {
            match field {
                Some("name") => name = Some(child),
                Some("body") => body = Some(child),
                Some("redirect") => redirects.push(child),
                _ => {}
            }
        }
        let (Some(name), Some(body)) = (name, body) else {
            return Err(unparsable());
        };
        let name = unescape_unquoted(self.text(name));
        self.functions.push(name);
        let start = self.out.len();
        let braces = body.fast_kind() == "compound_statement"
            && body.child(0).is_some_and(|c| c.fast_kind() == "{");
        if braces || body.fast_kind() == "subshell" {
            self.block(body, inner)?;
        } else {
            self.stmt(body, inner)?;
        }
        let end = self.out.len();
        let mut collected = Vec::new();
        for redirect in redirects {
            let (redirect, extra) = self.redirect(redirect, ctx)?;
            if !extra.is_empty() {
                return Err(unparsable());
            }
            collected.push(redirect);
        }
        self.add_redirects(start, end, &collected);
        self.functions.pop();
        Ok(())
    }

    /// `[ … ]`, `[[ … ]]` and `(( … ))`: one command whose words are the tokens as written
    /// (`[`, `-f`, `x`, `]`), substitutions in them extracted.
    fn test(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        // `[[x` is a word for bash, not the keyword `[[` then `x`.
        let blank = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t' | b'\n'));
        let bytes = self.src.as_bytes();
        let opened = blank(bytes.get(node.child(0).map_or(0, |c| c.end_byte())));
        let closed = node.end_byte() >= 3
            && node
                .child(node.child_count().saturating_sub(1))
                .is_some_and(|c| blank(bytes.get(c.start_byte().wrapping_sub(1))));
        let arithmetic = node.child(0).is_some_and(|c| c.fast_kind() == "((");
        if !arithmetic && (!opened || !closed) {
            return Err(unparsable());
        }
        let index = self.open(node, ctx);
        let single_bracket = node.child(0).is_some_and(|c| c.fast_kind() == "[");
        let tokens = frontier(node, |n| {
            is_word_like(n.fast_kind()) || n.fast_kind() == "redirected_statement"
        });
        // A newline between the words ends a `[` command for bash (and is mostly an error
        // in `[[ … ]]`).
        for pair in tokens.windows(2) {
            let (left, right) = (pair[0], pair[1]);
            let gap = self.slice(left.end_byte(), right.start_byte());
            if gap.contains('\n') {
                return Err(unparsable());
            }
            // `<(…)` glued together is a process substitution for bash, which tree-sitter
            // reads as `<` then a parenthesised expression (its command hidden).
            let angle = matches!(left.fast_kind(), "<" | ">");
            if !arithmetic && angle && right.fast_kind() == "(" && gap.is_empty() {
                return Err(unparsable());
            }
        }
        let mut argv = Vec::with_capacity(tokens.len());
        for token in tokens {
            let kind = token.fast_kind();
            // In `[ … ]`, `<` and `>` are redirections for bash (`[ a > b ]` writes to `b`).
            if single_bracket && (kind == "redirected_statement" || kind.contains(['<', '>'])) {
                return Err(unparsable());
            }
            if kind == "comment" {
                continue;
            }
            argv.push(self.word(&[token], ctx)?);
        }
        self.fill(index, Vec::new(), argv);
        Ok(())
    }

    /// `export X=1 Y`, `local -r Z`, `unset -f f`: a command whose words are the keyword and
    /// its arguments (`X=1` as one word).
    fn declaration(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let index = self.open(node, ctx);
        let mut argv = Vec::new();
        let mut run: Vec<Node<'_>> = Vec::new();
        let children = children_with_fields(node);
        for (i, (_, child)) in children.iter().enumerate() {
            if i == 0 {
                argv.push(literal_word(self.text(*child).to_string()));
                continue;
            }
            if child.fast_kind() == "comment" {
                continue;
            }
            let adjacent = run
                .last()
                .is_some_and(|p| p.end_byte() == child.start_byte());
            if !adjacent && !run.is_empty() {
                argv.extend(self.words(&run, ctx)?);
                run.clear();
            }
            if child.fast_kind() == "variable_assignment" {
                if !run.is_empty() {
                    argv.extend(self.words(&run, ctx)?);
                    run.clear();
                }
                let (value, dynamic) = self.assignment(*child, ctx)?;
                argv.push(Word {
                    path: (!dynamic).then(|| value.clone()),
                    value,
                    dynamic,
                });
            } else {
                run.push(*child);
            }
        }
        if !run.is_empty() {
            argv.extend(self.words(&run, ctx)?);
        }
        self.fill(index, Vec::new(), argv);
        Ok(())
    }

    /// `NAME=value` (or `NAME+=value`, `a[i]=v`, `a=(x y)`), quotes removed; and whether the
    /// value is dynamic.
    fn assignment(&mut self, node: Node<'_>, ctx: Ctx) -> Res<(String, bool)> {
        let mut out = String::new();
        let mut dynamic = false;
        let mut values = Vec::new();
        for (field, child) in children_with_fields(node) {
            match (field, child.fast_kind()) {
                (Some("name"), "subscript") => {
                    dynamic |= self.scan(child, ctx)?;
                    out.push_str(self.text(child));
                }
                (Some("name"), _) => out.push_str(self.text(child)),
                (Some("value"), _) => values.push(child),
                (_, "=" | "+=") => out.push_str(child.fast_kind()),
                (_, "comment") => {}
                _ if child.is_named() => values.push(child),
                _ => {}
            }
        }
        if let [array] = values.as_slice() {
            if array.fast_kind() == "array" {
                let mut elements = Vec::new();
                for run in adjacent_runs(&named_children(*array)) {
                    for word in self.words(&run, ctx)? {
                        dynamic |= word.dynamic;
                        elements.push(word.value);
                    }
                }
                out.push('(');
                out.push_str(&elements.join(" "));
                out.push(')');
                return Ok((out, dynamic));
            }
        }
        for run in adjacent_runs(&values) {
            let word = self.word(&run, ctx)?;
            dynamic |= word.dynamic;
            out.push_str(&word.value);
        }
        Ok((out, dynamic))
    }

    /// A redirection (`file_redirect` or `herestring_redirect`), and the words tree-sitter put
    /// after its target that bash gives to the command.
    fn redirect(&mut self, node: Node<'_>, ctx: Ctx) -> Res<(Redirect, Vec<Word>)> {
        let mut op = String::new();
        let mut fd = None;
        let mut destinations = Vec::new();
        for (field, child) in children_with_fields(node) {
            match field {
                Some("descriptor") => fd = self.text(child).parse::<u32>().ok(),
                _ if !child.is_named() => {
                    if op.is_empty() {
                        op = child.fast_kind().to_string();
                    }
                }
                _ if child.fast_kind() == "comment" => {}
                _ => destinations.push(child),
            }
        }
        if op.is_empty() {
            return Err(unparsable());
        }
        let mut runs = adjacent_runs(&destinations).into_iter();
        // `>&-` and `<&-` close a descriptor and take no target.
        let target = if op.ends_with('-') {
            Word::default()
        } else {
            match runs.next() {
                Some(run) => self.word(&run, ctx)?,
                None => return Err(unparsable()),
            }
        };
        let mut extra = Vec::new();
        for run in runs {
            extra.extend(self.words(&run, ctx)?);
        }
        Ok((Redirect { op, fd, target }, extra))
    }

    // ----- substitutions -----

    /// `$(…)`, back-ticks, `<(…)`, `>(…)`: the statements inside, one level deeper.
    fn subst(&mut self, node: Node<'_>, origin: Origin, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(origin)?;
        self.enter()?;
        let result = self.subst_inner(node, inner);
        self.leave();
        result
    }

    fn subst_inner(&mut self, node: Node<'_>, inner: Ctx) -> Res<()> {
        let raw = self.text(node);
        if raw.starts_with('`') && raw.contains('\\') {
            // bash unescapes back-tick text before parsing it (`` `echo \`id\`` `` runs `id`);
            // tree-sitter does not.
            let body = raw
                .strip_prefix('`')
                .and_then(|r| r.strip_suffix('`'))
                .ok_or_else(unparsable)?;
            let text = unescape_backticks(body);
            return self.nested_text(&text, self.base + node.start_byte() + 1, inner);
        }
        let mut statements = Vec::new();
        let mut redirects = Vec::new();
        for (field, child) in children_with_fields(node) {
            if !child.is_named() || child.fast_kind() == "comment" {
                continue;
            }
            if field == Some("redirect") {
                redirects.push(child);
            } else {
                statements.push(child);
            }
        }
        if redirects.is_empty() {
            for statement in statements {
                self.stmt(statement, inner)?;
            }
            return Ok(());
        }
        // `$(< file)` reads the file.
        let start = self.out.len();
        if statements.is_empty() {
            self.open(node, inner);
        }
        for statement in &statements {
            self.stmt(*statement, inner)?;
        }
        let end = self.out.len();
        let mut collected = Vec::new();
        for redirect in redirects {
            let (redirect, extra) = self.redirect(redirect, inner)?;
            if !extra.is_empty() {
                return Err(unparsable());
            }
            collected.push(redirect);
        }
        self.add_redirects(start, end, &collected);
        Ok(())
    }

    /// Extracts the substitutions anywhere under `node` (expressions, subscripts, expansion
    /// operands); returns whether `node` holds any expansion at all.
    fn scan(&mut self, node: Node<'_>, ctx: Ctx) -> Res<bool> {
        match node.fast_kind() {
            "command_substitution" => {
                self.subst(node, Origin::CommandSubstitution, ctx)?;
                return Ok(true);
            }
            "process_substitution" => {
                self.subst(node, Origin::ProcessSubstitution, ctx)?;
                return Ok(true);
            }
            _ => {}
        }
        let mut dynamic = matches!(
            node.fast_kind(),
            "simple_expansion" | "expansion" | "arithmetic_expansion"
        );
        let stops = frontier(node, |n| {
            matches!(
                n.fast_kind(),
                "command_substitution"
                    | "process_substitution"
                    | "simple_expansion"
                    | "expansion"
                    | "arithmetic_expansion"
            )
        });
        for stop in stops {
            match stop.fast_kind() {
                "command_substitution" | "process_substitution" => {
                    self.scan(stop, ctx)?;
                    dynamic = true;
                }
                "simple_expansion" | "expansion" | "arithmetic_expansion" => {
                    self.enter()?;
                    self.scan(stop, ctx)?;
                    self.leave();
                    dynamic = true;
                }
                _ => {}
            }
        }
        Ok(dynamic)
    }

    // ----- words -----

    /// The segments of one shell word made of `parts` (adjacent nodes), quotes removed.
    fn segments(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<WordAcc> {
        let mut acc = WordAcc::default();
        for part in parts {
            // `$"…"` (locale translation) is sometimes a bare `$` then a string.
            if self.translation_dollar(*part) {
                continue;
            }
            self.part(*part, &mut acc, ctx)?;
        }
        Ok(acc)
    }

    /// One word, as a redirection target, assignment value or pattern is read (no brace
    /// expansion).
    fn word(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<Word> {
        Ok(word_of(&self.segments(parts, ctx)?.segs, false))
    }

    /// The words one command argument becomes after brace expansion (`{rm,-rf,/}` is three).
    fn words(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<Vec<Word>> {
        let acc = self.segments(parts, ctx)?;
        Ok(brace_expand_word(acc.segs))
    }

    fn part(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        self.enter()?;
        let result = self.part_inner(node, acc, ctx);
        self.leave();
        result
    }

    fn part_inner(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        let raw = self.text(node);
        match node.fast_kind() {
            _ if !node.is_named() => {
                if self.token_expands(node) {
                    acc.dynamic(raw);
                } else {
                    acc.literal(raw, false);
                }
            }
            "word" => unquoted_segments(raw, acc),
            "raw_string" => {
                let inner = raw
                    .strip_prefix('\'')
                    .and_then(|r| r.strip_suffix('\''))
                    .unwrap_or(raw);
                acc.literal(inner, true);
            }
            "ansi_c_string" => {
                let inner = ansi_c_inner(raw).ok_or_else(unparsable)?;
                acc.literal(&decode_ansi_c(inner), true);
            }
            "string" => self.double_quoted(node, acc, ctx)?,
            "translated_string" | "concatenation" => {
                let children = {
                    let mut cursor = node.walk();
                    node.children(&mut cursor).collect::<Vec<_>>()
                };
                for child in children {
                    if self.translation_dollar(child) {
                        continue;
                    }
                    self.part(child, acc, ctx)?;
                }
            }
            "simple_expansion" => {
                if raw == "$HOME" {
                    acc.segs.push(Seg::Home(raw.to_string()));
                } else {
                    acc.dynamic(raw);
                }
            }
            "expansion" => {
                if raw == "${HOME}" {
                    acc.segs.push(Seg::Home(raw.to_string()));
                } else {
                    self.scan(node, ctx)?;
                    acc.dynamic(raw);
                }
            }
            "command_substitution" => {
                self.subst(node, Origin::CommandSubstitution, ctx)?;
                acc.dynamic(raw);
            }
            "process_substitution" => {
                self.subst(node, Origin::ProcessSubstitution, ctx)?;
                acc.dynamic(raw);
            }
            "arithmetic_expansion" => {
                self.scan(node, ctx)?;
                acc.dynamic(raw);
            }
            "number" if node.named_child_count() > 0 => {
                self.scan(node, ctx)?;
                acc.dynamic(raw);
            }
            "number"
            | "brace_expression"
            | "variable_name"
            | "special_variable_name"
            | "extglob_pattern"
            | "regex"
            | "test_operator" => acc.literal(raw, false),
            // Expressions, arrays and the like: their text, dynamic if they expand anything.
            _ => {
                if self.scan(node, ctx)? {
                    acc.dynamic(raw);
                } else {
                    acc.literal(raw, false);
                }
            }
        }
        Ok(())
    }

    /// A bare `$` token right before a `"`: the `$` of `$"…"`, which bash drops.
    fn translation_dollar(&self, node: Node<'_>) -> bool {
        !node.is_named()
            && node.fast_kind() == "$"
            && node.byte_range().len() == 1
            && self.src.as_bytes().get(node.end_byte()) == Some(&b'"')
    }

    /// Whether an anonymous token inside a word expands for bash: tree-sitter sometimes leaves
    /// a `$` bare before the name it expands (`}xb$EO` is `}xb$` then `EO`), or makes `$$`
    /// or an empty back-tick pair one token.
    fn token_expands(&mut self, node: Node<'_>) -> bool {
        let raw = self.text(node);
        if raw.contains('`') || (raw.contains('$') && raw != "$") {
            return true;
        }
        if raw != "$" {
            return false;
        }
        let next = self.src.as_bytes().get(node.end_byte()).copied();
        matches!(next, Some(b) if b.is_ascii_alphanumeric() || b"_{(@*#?$!-".contains(&b))
    }

    /// `"…"`: backslash escapes only before `$`, back-tick, `"`, `\` and newline.
    fn double_quoted(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        let (start, end) = (node.start_byte(), node.end_byte());
        let raw = self.text(node);
        let open = if raw.starts_with('"') {
            start + 1
        } else {
            start
        };
        let close = if raw.len() >= 2 && raw.ends_with('"') {
            end - 1
        } else {
            end
        };
        let mut pos = open;
        let children = {
            let mut cursor = node.walk();
            node.children(&mut cursor).collect::<Vec<_>>()
        };
        // Even `""` is a (quoted) part of the word: `""~` does not start with a tilde.
        acc.literal("", true);
        for child in children {
            // The quotes (tree-sitter may give the closing one the blanks before it: `"  "`).
            if child.end_byte() <= open || child.start_byte() >= close || child.fast_kind() == "\""
            {
                continue;
            }
            if child.start_byte() > pos {
                let gap = self.slice(pos, child.start_byte());
                acc.literal(&unescape_double_quoted(gap), true);
            }
            match child.fast_kind() {
                "string_content" => {
                    let text = self.text(child);
                    acc.literal(&unescape_double_quoted(text), true);
                }
                _ if !child.is_named() => {
                    let text = self.text(child);
                    if self.token_expands(child) {
                        acc.dynamic(text);
                    } else {
                        acc.literal(text, true);
                    }
                }
                _ => self.part(child, acc, ctx)?,
            }
            pos = pos.max(child.end_byte());
        }
        if close > pos {
            let gap = self.slice(pos, close);
            acc.literal(&unescape_double_quoted(gap), true);
        }
        Ok(())
    }
}

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    /// Literal text, and whether it was quoted (quotes or a backslash).
    Lit(String, bool),
    /// `$HOME` or `${HOME}`, as written.
    Home(String),
    /// An expansion whose value is unknown, as written.
    Dyn(String),
}

impl Seg {
    fn text(&self) -> &str {
        match self {
            Seg::Lit(text, _) | Seg::Home(text) | Seg::Dyn(text) => text,
        }
    }
}

/// A word being built from its parts.
#[derive(Default)]
struct WordAcc {
    segs: Vec<Seg>,
}

impl WordAcc {
    fn literal(&mut self, text: &str, quoted: bool) {
        if let Some(Seg::Lit(last, q)) = self.segs.last_mut() {
            if *q == quoted && !(last.is_empty() && quoted) {
                last.push_str(text);
                return;
            }
        }
        self.segs.push(Seg::Lit(text.to_string(), quoted));
    }

    fn dynamic(&mut self, source: &str) {
        self.segs.push(Seg::Dyn(source.to_string()));
    }
}

/// Unquoted word text: `\x` is a quoted `x`, a backslash-newline disappears.
fn unquoted_segments(text: &str, acc: &mut WordAcc) {
    if !text.contains('\\') {
        acc.literal(text, false);
        return;
    }
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            plain.push(c);
            continue;
        }
        match chars.next() {
            Some('\n') => {}
            Some(next) => {
                acc.literal(&plain, false);
                plain.clear();
                let mut buf = [0u8; 4];
                acc.literal(next.encode_utf8(&mut buf), true);
            }
            None => plain.push('\\'),
        }
    }
    if !plain.is_empty() {
        acc.literal(&plain, false);
    }
}

/// The word the segments spell. `forced_dynamic` marks a word whose brace expansion was too
/// large to follow.
fn word_of(segs: &[Seg], forced_dynamic: bool) -> Word {
    let value: String = segs.iter().map(Seg::text).collect();
    // `if=~/x`, `--file=$HOME/x`: the path is the value after the `=`.
    let (dynamic, path) = match assigned_value(segs) {
        Some(rest) => path_reading(&rest),
        None => path_reading(segs),
    };
    let dynamic = forced_dynamic || dynamic;
    Word {
        value,
        dynamic,
        path: if dynamic { None } else { path },
    }
}

/// The segments after the first `=` of a word of the shape `name=…` or `--flag=…` (literal
/// up to the `=`, see [`super::assigned_name`]).
fn assigned_value(segs: &[Seg]) -> Option<Vec<Seg>> {
    if !segs
        .iter()
        .any(|s| matches!(s, Seg::Lit(text, _) if text.contains('=')))
    {
        return None;
    }
    let mut prefix = String::new();
    for (i, seg) in segs.iter().enumerate() {
        let Seg::Lit(text, quoted) = seg else {
            return None;
        };
        if let Some(pos) = text.find('=') {
            prefix.push_str(&text[..pos]);
            if !super::assigned_name(&prefix) {
                return None;
            }
            let mut rest = vec![Seg::Lit(text[pos + 1..].to_string(), *quoted)];
            rest.extend(segs[i + 1..].iter().cloned());
            return Some(rest);
        }
        prefix.push_str(text);
    }
    None
}

/// Whether the segments are dynamic, and their reading as a path (see [`Word::path`]).
fn path_reading(segs: &[Seg]) -> (bool, Option<String>) {
    let value: String = segs.iter().map(Seg::text).collect();
    let mut dynamic = segs.iter().any(|s| matches!(s, Seg::Dyn(_)));
    // `$HOME` counts as known only first in the word and followed by nothing or a `/`.
    let first = segs
        .iter()
        .position(|s| !matches!(s, Seg::Lit(t, _) if t.is_empty()));
    let mut home_rest = None;
    for (i, seg) in segs.iter().enumerate() {
        if let Seg::Home(_) = seg {
            let rest: String = segs[i + 1..].iter().map(Seg::text).collect();
            if Some(i) == first && (rest.is_empty() || rest.starts_with('/')) {
                home_rest = Some(rest);
            } else {
                dynamic = true;
            }
        }
    }
    let first_literal = segs
        .iter()
        .find(|s| !matches!(s, Seg::Lit(t, false) if t.is_empty()));
    let path = if dynamic {
        None
    } else if let Some(rest) = home_rest {
        Some(format!("~{rest}"))
    } else if matches!(first_literal, Some(Seg::Lit(t, false)) if t.starts_with('~')) {
        Some(value)
    } else if value.starts_with('~') {
        // A quoted `~` is a file named `~`.
        Some(format!("./{value}"))
    } else {
        Some(value)
    };
    (dynamic, path)
}

fn literal_word(value: String) -> Word {
    Word {
        path: Some(value.clone()),
        value,
        dynamic: false,
    }
}

// ----- brace expansion -----

/// Most words one argument may expand to; beyond, the word is kept whole and dynamic.
const MAX_BRACE_WORDS: usize = 256;
/// Most brace groups followed in one word.
const MAX_BRACE_GROUPS: usize = 32;

/// One character of a word (with whether it was quoted), or an expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ch(char, bool),
    /// An empty quoted part (`""`): a word made only of it is kept.
    Quoted,
    Home(String),
    Dyn(String),
}

/// Bash's brace expansion of one word: `{a,b}` alternatives and `{1..3}` / `{a..c}`
/// sequences, on unquoted braces only.
fn brace_expand_word(segs: Vec<Seg>) -> Vec<Word> {
    let eligible = segs
        .iter()
        .any(|s| matches!(s, Seg::Lit(t, false) if t.contains('{')));
    if !eligible {
        return vec![word_of(&segs, false)];
    }
    let mut toks = Vec::new();
    for seg in &segs {
        match seg {
            Seg::Lit(text, true) if text.is_empty() => toks.push(Tok::Quoted),
            Seg::Lit(text, quoted) => toks.extend(text.chars().map(|c| Tok::Ch(c, *quoted))),
            Seg::Home(source) => toks.push(Tok::Home(source.clone())),
            Seg::Dyn(source) => toks.push(Tok::Dyn(source.clone())),
        }
    }
    let mut expanded = Vec::new();
    if !expand_toks(&toks, 0, &mut expanded) {
        return vec![word_of(&segs, true)];
    }
    if expanded.len() == 1 && expanded[0] == toks {
        return vec![word_of(&segs, false)];
    }
    expanded
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| word_of(&segs_of(t), false))
        .collect()
}

fn segs_of(toks: &[Tok]) -> Vec<Seg> {
    let mut acc = WordAcc::default();
    for tok in toks {
        match tok {
            Tok::Ch(c, quoted) => {
                let mut buf = [0u8; 4];
                acc.literal(c.encode_utf8(&mut buf), *quoted);
            }
            Tok::Quoted => acc.literal("", true),
            Tok::Home(source) => acc.segs.push(Seg::Home(source.clone())),
            Tok::Dyn(source) => acc.segs.push(Seg::Dyn(source.clone())),
        }
    }
    acc.segs
}

/// Expands the first brace group of `toks` and recurses on the results; false when the
/// expansion is too large.
fn expand_toks(toks: &[Tok], groups: usize, out: &mut Vec<Vec<Tok>>) -> bool {
    if groups > MAX_BRACE_GROUPS || out.len() > MAX_BRACE_WORDS {
        return false;
    }
    let Some((open, close, alternatives)) = first_brace_group(toks) else {
        out.push(toks.to_vec());
        return out.len() <= MAX_BRACE_WORDS;
    };
    // A group too long or too intricate to follow.
    let Some(alternatives) = alternatives else {
        return false;
    };
    for alternative in alternatives {
        let mut word = toks[..open].to_vec();
        word.extend(alternative);
        word.extend_from_slice(toks.get(close + 1..).unwrap_or(&[]));
        if !expand_toks(&word, groups + 1, out) {
            return false;
        }
    }
    true
}

/// The first expandable brace group: its braces and its alternatives (`None`: a group too
/// long or too intricate to follow).
type BraceGroup = (usize, usize, Option<Vec<Vec<Tok>>>);

fn first_brace_group(toks: &[Tok]) -> Option<BraceGroup> {
    for open in 0..toks.len() {
        if toks.get(open) != Some(&Tok::Ch('{', false)) {
            continue;
        }
        if open > 0 && toks.get(open - 1) == Some(&Tok::Ch('$', false)) {
            continue; // `${` is not a brace group
        }
        if open == 0 && toks.get(1) == Some(&Tok::Ch('}', false)) {
            continue; // nor is a word-initial `{}` (`find -exec rm {} +`)
        }
        // As bash's `brace_gobbler`: nested braces are skipped, and a closing brace with no
        // comma or `..` before it is text (`{""},}` is the group `{"}",}`, not `{""}`).
        let mut level = 0usize;
        let mut commas = Vec::new();
        let mut sequence = false;
        let mut close = None;
        for (k, tok) in toks.iter().enumerate().skip(open + 1) {
            match tok {
                Tok::Ch('{', false) => level += 1,
                Tok::Ch('}', false) if level > 0 => level -= 1,
                Tok::Ch('}', false) if !commas.is_empty() || sequence => {
                    close = Some(k);
                    break;
                }
                Tok::Ch(',', false) if level == 0 => commas.push(k),
                Tok::Ch('.', false)
                    if level == 0
                        && toks.get(k + 1) == Some(&Tok::Ch('.', false))
                        && toks.get(k + 2) != Some(&Tok::Ch('}', false)) =>
                {
                    sequence = true
                }
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        // A quoted comma in a `..` group: bash's rules there are intricate (`{..','}` loses
        // its braces, `{aa..c}` does not); not followed.
        let inner = toks.get(open + 1..close).unwrap_or(&[]);
        if commas.is_empty() && inner.contains(&Tok::Ch(',', true)) {
            return Some((open, close, None));
        }
        if !commas.is_empty() {
            let mut alternatives = Vec::new();
            let mut start = open + 1;
            for comma in commas.into_iter().chain(std::iter::once(close)) {
                alternatives.push(toks.get(start..comma).unwrap_or(&[]).to_vec());
                start = comma + 1;
            }
            return Some((open, close, Some(alternatives)));
        }
        match brace_sequence(toks.get(open + 1..close).unwrap_or(&[])) {
            Sequence::Not => {}
            Sequence::TooLong => return Some((open, close, None)),
            Sequence::Words(words) => return Some((open, close, Some(words))),
        }
    }
    None
}

enum Sequence {
    Not,
    TooLong,
    Words(Vec<Vec<Tok>>),
}

/// `1..5`, `1..10..2`, `05..10`, `a..e`: the words of a sequence expression.
fn brace_sequence(inner: &[Tok]) -> Sequence {
    let mut text = String::new();
    for tok in inner {
        match tok {
            Tok::Ch(c, false) => text.push(*c),
            _ => return Sequence::Not,
        }
    }
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, None),
        [from, to, step] => (*from, *to, Some(*step)),
        _ => return Sequence::Not,
    };
    let step = match step.map(str::parse::<i64>) {
        Some(Ok(step)) => step.unsigned_abs().max(1),
        Some(Err(_)) => return Sequence::Not,
        None => 1,
    };
    let chars = |t: Vec<String>| -> Vec<Vec<Tok>> {
        t.into_iter()
            .map(|s| s.chars().map(|c| Tok::Ch(c, false)).collect())
            .collect()
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = (a.abs_diff(b) / step).saturating_add(1);
        if count > MAX_BRACE_WORDS as u64 {
            return Sequence::TooLong;
        }
        let padded = |s: &str| {
            let digits = s.trim_start_matches(['-', '+']);
            digits.len() > 1 && digits.starts_with('0')
        };
        let width = if padded(from) || padded(to) {
            from.len().max(to.len())
        } else {
            0
        };
        let step = i64::try_from(step).unwrap_or(i64::MAX);
        let mut out = Vec::new();
        let mut n = a;
        for _ in 0..count {
            out.push(format!("{n:0width$}"));
            n = if a <= b {
                n.saturating_add(step)
            } else {
                n.saturating_sub(step)
            };
        }
        return Sequence::Words(chars(out));
    }
    let mut from_chars = from.chars();
    let mut to_chars = to.chars();
    match (
        from_chars.next(),
        from_chars.next(),
        to_chars.next(),
        to_chars.next(),
    ) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            let (a, b) = (a as u8, b as u8);
            let count = (u64::from(a.abs_diff(b)) / step).saturating_add(1);
            let step = i64::try_from(step).unwrap_or(i64::MAX);
            let mut out = Vec::new();
            let mut n = i64::from(a);
            for _ in 0..count {
                out.push(char::from(u8::try_from(n).unwrap_or(b'?')).to_string());
                n = if a <= b {
                    n.saturating_add(step)
                } else {
                    n.saturating_sub(step)
                };
            }
            Sequence::Words(chars(out))
        }
        _ => Sequence::Not,
    }
}

// ----- text helpers -----

/// The delimiter of a here-document as bash reads it (quotes removed), and whether any of
/// it was quoted (which makes the body literal).
fn heredoc_delimiter(raw: &str) -> Option<(String, bool)> {
    if raw.contains("$'") || raw.contains("$\"") {
        return None;
    }
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                quoted = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(next) => out.push(next),
                }
            }
            '\'' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(next) => out.push(next),
                        None => return None,
                    }
                }
            }
            '"' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.peek() {
                            Some(&next @ ('$' | '`' | '"' | '\\')) => {
                                chars.next();
                                out.push(next);
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => out.push('\\'),
                        },
                        Some(next) => out.push(next),
                        None => return None,
                    }
                }
            }
            _ => out.push(c),
        }
    }
    Some((out, quoted))
}

/// A here-document body as the command reading it sees it: a quoted delimiter keeps it as
/// written; otherwise `\$`, `` \` ``, `\\` and `\<newline>` are unescaped and any `$` or
/// back-tick left makes it dynamic (expanded when it runs). `<<-` strips leading tabs.
fn heredoc_script(body: &str, quoted: bool, strip_tabs: bool) -> Script {
    let stripped;
    let body = if strip_tabs {
        stripped = body
            .split_inclusive('\n')
            .map(|line| line.trim_start_matches('\t'))
            .collect::<String>();
        stripped.as_str()
    } else {
        body
    };
    if quoted {
        return Script {
            text: body.to_string(),
            dynamic: false,
        };
    }
    let mut text = String::with_capacity(body.len());
    let mut dynamic = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '\\')) => {
                    chars.next();
                    text.push(next);
                }
                _ => text.push('\\'),
            },
            '$' | '`' => {
                dynamic = true;
                text.push(c);
            }
            _ => text.push(c),
        }
    }
    Script { text, dynamic }
}

/// Whether bash ends a here-document whose body tree-sitter read as `body` at the line
/// `end_text` (its last, unterminated piece of `body` included): no earlier line of the
/// body is the delimiter for bash, and the end line is.
fn heredoc_ends_as_bash_does(
    body: &str,
    end_text: &str,
    delimiter: &str,
    quoted: bool,
    strip_tabs: bool,
) -> bool {
    let is_delimiter = |line: &str| {
        line == delimiter || (strip_tabs && line.trim_start_matches('\t') == delimiter)
    };
    // The complete lines of the body, and the start of the end line.
    let (lines, last) = match body.rfind('\n') {
        Some(i) => (body.get(..i), body.get(i + 1..).unwrap_or("")),
        None => (None, body),
    };
    let mut logical = String::new();
    for line in lines.into_iter().flat_map(|lines| lines.split('\n')) {
        // In an unquoted body, a backslash-newline joins lines before the check.
        let trailing = line.len() - line.trim_end_matches('\\').len();
        if !quoted && trailing % 2 == 1 {
            logical.push_str(line.get(..line.len() - 1).unwrap_or(""));
            continue;
        }
        logical.push_str(line);
        if is_delimiter(&logical) {
            return false;
        }
        logical.clear();
    }
    if !logical.is_empty() {
        return false;
    }
    let mut end_line = String::from(last);
    end_line.push_str(end_text);
    is_delimiter(&end_line)
}

/// The inside of `$'…'`, if the node really is one ANSI-C string: tree-sitter-bash's token
/// (`/\$'([^']|\\')*'/`) runs past the real end of `$'\\'`, swallowing what follows.
fn ansi_c_inner(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix("$'")?;
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => return (i + 1 == bytes.len()).then(|| &inner[..i]),
            _ => i += 1,
        }
    }
    None
}

/// Unquoted text: `\x` is `x`, a backslash-newline disappears.
fn unescape_unquoted(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(next) => out.push(next),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Text inside double quotes: a backslash escapes only `$`, back-tick, `"`, `\` and newline.
fn unescape_double_quoted(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '"' | '\\')) => {
                    chars.next();
                    out.push(next);
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Text between back-ticks as bash reads it: a backslash escapes only `$`, back-tick and `\`.
fn unescape_backticks(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&next @ ('$' | '`' | '\\')) => {
                    chars.next();
                    out.push(next);
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The index of the back-tick closing the one before `from`, skipping escaped characters.
fn closing_backtick(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The inside of `$'…'` with its C escapes decoded. A NUL ends the string, as in bash.
fn decode_ansi_c(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        let simple = match e {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'e' | b'E' => Some(0x1b),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'?' => Some(b'?'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            continue;
        }
        match e {
            b'0'..=b'7' => {
                let mut value: u32 = u32::from(e - b'0');
                let mut taken = 0;
                while taken < 2 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    taken += 1;
                }
                let byte = (value & 0xff) as u8;
                if byte == 0 {
                    break;
                }
                out.push(byte);
            }
            b'x' => {
                let (value, used) = hex_value(&bytes[i..], 2);
                if used == 0 {
                    out.extend_from_slice(b"\\x");
                    continue;
                }
                i += used;
                let byte = (value & 0xff) as u8;
                if byte == 0 {
                    break;
                }
                out.push(byte);
            }
            b'u' | b'U' => {
                let (value, used) = hex_value(&bytes[i..], if e == b'u' { 4 } else { 8 });
                if used == 0 {
                    out.push(b'\\');
                    out.push(e);
                    continue;
                }
                i += used;
                if value == 0 {
                    break;
                }
                let c = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            b'c' => {
                // Control character: `\cA` is 0x01.
                match bytes.get(i) {
                    Some(&c) => {
                        i += 1;
                        let byte = c.to_ascii_uppercase() ^ 0x40;
                        if byte == 0 {
                            break;
                        }
                        out.push(byte);
                    }
                    None => out.extend_from_slice(b"\\c"),
                }
            }
            _ => {
                out.push(b'\\');
                out.push(e);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Up to `max` hexadecimal digits at the start of `bytes`: their value and how many.
fn hex_value(bytes: &[u8], max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    for &b in bytes.iter().take(max) {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => break,
        };
        value = value * 16 + u32::from(digit);
        used += 1;
    }
    (value, used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::View;

    fn ok(command: &str) -> Vec<SimpleCommand> {
        let analysis = analyse(command);
        assert_eq!(analysis.failure, None, "unexpected failure for {command:?}");
        analysis.commands
    }

    fn argvs(command: &str) -> Vec<Vec<String>> {
        ok(command)
            .iter()
            .map(|c| c.argv.iter().map(|w| w.value.clone()).collect())
            .collect()
    }

    fn failure(command: &str) -> String {
        let analysis = analyse(command);
        assert!(analysis.commands.is_empty(), "{command:?}: {analysis:?}");
        analysis
            .failure
            .unwrap_or_else(|| panic!("expected a failure for {command:?}"))
    }

    fn only(command: &str) -> SimpleCommand {
        let mut commands = ok(command);
        assert_eq!(commands.len(), 1, "{command:?}: {commands:?}");
        commands.remove(0)
    }

    fn find<'a>(commands: &'a [SimpleCommand], program: &str) -> &'a SimpleCommand {
        commands
            .iter()
            .find(|c| c.program() == program)
            .unwrap_or_else(|| panic!("no {program} in {commands:?}"))
    }

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn word(value: &str, dynamic: bool, path: Option<&str>) -> Word {
        Word {
            value: value.to_string(),
            dynamic,
            path: path.map(str::to_string),
        }
    }

    fn redirect(op: &str, fd: Option<u32>, target: &str) -> Redirect {
        Redirect {
            op: op.to_string(),
            fd,
            target: literal_word(target.to_string()),
        }
    }

    fn run_with_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("the analysis overflowed or panicked");
    }

    // ----- simple commands and words -----

    #[test]
    fn simple_command_gives_program_arguments_span_and_top_level_origin() {
        let c = only("git status --short");
        assert_eq!(c.text(View::Literal), "git status --short");
        assert_eq!(c.origin, Origin::TopLevel);
        assert!(!c.piped && !c.self_call);
        assert_eq!(c.span, (0, 18));
        assert_eq!(c.argv[0], word("git", false, Some("git")));
    }

    #[test]
    fn backslash_escaped_program_is_unescaped() {
        assert_eq!(argvs(r"\rm -rf /"), vec![v(&["rm", "-rf", "/"])]);
        assert_eq!(argvs(r"r\m -r\f /"), vec![v(&["rm", "-rf", "/"])]);
    }

    #[test]
    fn empty_quotes_inside_a_word_are_removed() {
        assert_eq!(argvs(r#"r""m -rf /"#), vec![v(&["rm", "-rf", "/"])]);
        assert_eq!(argvs("'r'm -r''f /"), vec![v(&["rm", "-rf", "/"])]);
    }

    #[test]
    fn quoted_program_is_unquoted() {
        assert_eq!(argvs("'rm' -rf /"), vec![v(&["rm", "-rf", "/"])]);
        assert_eq!(argvs(r#""rm" "-rf" "/""#), vec![v(&["rm", "-rf", "/"])]);
    }

    #[test]
    fn double_quotes_keep_backslashes_except_before_special_characters() {
        let c = only(r#"echo "a\$b \" \\ \x" 'c\d'"#);
        assert_eq!(c.argv[1].value, r#"a$b " \ \x"#);
        assert!(!c.argv[1].dynamic);
        assert_eq!(c.argv[2].value, r"c\d");
    }

    #[test]
    fn ansi_c_strings_are_decoded() {
        let c = only(r#"echo $'a\x41\101\tb\'\\c' $'\u00e9\cA' $'x\0y'"#);
        assert_eq!(c.argv[1].value, "aAA\tb'\\c");
        assert_eq!(c.argv[2].value, "\u{e9}\u{1}");
        assert_eq!(c.argv[3].value, "x");
        assert_eq!(argvs(r"$'\x72m' -rf /"), vec![v(&["rm", "-rf", "/"])]);
    }

    #[test]
    fn locale_translated_string_is_its_text() {
        assert_eq!(argvs(r#"$"rm" -rf /"#), vec![v(&["rm", "-rf", "/"])]);
        assert_eq!(
            argvs(r#"echo "a" $"b" c$"d""#),
            vec![v(&["echo", "a", "b", "cd"])]
        );
    }

    #[test]
    fn mentioned_danger_in_quotes_is_only_an_argument() {
        assert_eq!(
            argvs(r#"echo "never run rm -rf /; sudo x | bash""#),
            vec![v(&["echo", "never run rm -rf /; sudo x | bash"])]
        );
        assert_eq!(
            argvs(r#"git commit -m "fix chmod +x bug""#),
            vec![v(&["git", "commit", "-m", "fix chmod +x bug"])]
        );
    }

    #[test]
    fn ansi_c_string_that_tree_sitter_overreads_fails() {
        // tree-sitter-bash reads `$'\\' ; rm -rf / # '` as one string; bash runs `rm`.
        failure(r"echo $'\\' ; rm -rf / # '");
        failure(r"echo $'a\\' && rm -rf ~ #'");
        assert_eq!(only(r"echo $'\\'").argv[1].value, "\\");
    }

    #[test]
    fn backslash_blank_between_words_fails() {
        // tree-sitter-bash skips `\ ` as blank; for bash it is a word.
        failure(r"echo x \ ; ls");
        failure(r"ls \ x");
        assert_eq!(argvs(r"ls a\ b"), vec![v(&["ls", "a b"])]);
        assert_eq!(argvs(r#"echo "a\ b""#), vec![v(&["echo", "a\\ b"])]);
    }

    #[test]
    fn globs_stay_literal_and_known() {
        let c = only("ls *.rs [ab]?");
        assert_eq!(c.argv[1], word("*.rs", false, Some("*.rs")));
        assert_eq!(c.argv[2], word("[ab]?", false, Some("[ab]?")));
    }

    #[test]
    fn brace_expansion_gives_the_words_bash_runs() {
        // (`sudo` also gives the command it runs.)
        assert_eq!(
            argvs("sudo {rm,-rf,/}"),
            vec![v(&["sudo", "rm", "-rf", "/"]), v(&["rm", "-rf", "/"])]
        );
        // tree-sitter-bash cannot parse a brace expansion first on the line.
        failure("{rm,-rf,/}");
        assert_eq!(argvs("r{m,} -rf /"), vec![v(&["rm", "r", "-rf", "/"])]);
        assert_eq!(
            argvs("echo {a,b}{1..2} x{c..a} {01..3} {1..7..3} a{,}b"),
            vec![v(&[
                "echo", "a1", "a2", "b1", "b2", "xc", "xb", "xa", "01", "02", "03", "1", "4", "7",
                "ab", "ab"
            ])]
        );
        assert_eq!(
            argvs("echo {a,{b,c}d} {a,\"b,c\"} x{a}y {a,b {} {!..#} {,}"),
            vec![v(&[
                "echo", "a", "bd", "cd", "a", "b,c", "x{a}y", "{a,b", "{}", "{!..#}"
            ])]
        );
        let c = only("cat ~/.ssh/{id_rsa,config} $HOME/{.aws,x}");
        let paths: Vec<Option<&str>> = c.argv[1..].iter().map(|w| w.path.as_deref()).collect();
        assert_eq!(
            paths,
            vec![
                Some("~/.ssh/id_rsa"),
                Some("~/.ssh/config"),
                Some("~/.aws"),
                Some("~/x")
            ]
        );
    }

    #[test]
    fn brace_groups_are_matched_as_bash_matches_them() {
        // A closing brace with no comma before it is text; a word-initial `{}` is no group.
        assert_eq!(
            argvs(r#"echo {""},} x{a}{b,c} {} a{},b"#),
            vec![v(&["echo", "}", "x{a}b", "x{a}c", "{}", "a{},b"])]
        );
        // Too intricate to follow: one dynamic word.
        assert!(only("echo {..','}").argv[1].dynamic);
    }

    #[test]
    fn quoted_braces_are_not_expanded() {
        assert_eq!(
            argvs(r#"echo "{a,b}" '{a,b}' \{a,b} {a\,b} {"1"..3}"#),
            vec![v(&["echo", "{a,b}", "{a,b}", "{a,b}", "{a,b}", "{1..3}"])]
        );
        assert_eq!(argvs("X={a,b} env"), vec![v(&["env"])]);
        assert_eq!(ok("X={a,b} env")[0].assignments, v(&["X={a,b}"]));
    }

    #[test]
    fn oversized_brace_expansion_is_one_dynamic_word() {
        let c = only("echo {1..100000}");
        assert_eq!(c.argv[1], word("{1..100000}", true, None));
        let c = only(&format!("echo {}", "{a,b}".repeat(20)));
        assert!(c.argv[1].dynamic);
        assert_eq!(c.argv.len(), 2);
    }

    #[test]
    fn line_continuation_joins_lines() {
        assert_eq!(argvs("rm \\\n -rf /"), vec![v(&["rm", "-rf", "/"])]);
    }

    // ----- splitting -----

    #[test]
    fn and_or_semicolon_newline_and_background_split_commands() {
        assert_eq!(
            argvs("a 1 && b || c; d & e\nf"),
            vec![
                v(&["a", "1"]),
                v(&["b"]),
                v(&["c"]),
                v(&["d"]),
                v(&["e"]),
                v(&["f"])
            ]
        );
        let spans: Vec<_> = ok("ab && cd").iter().map(|c| c.span).collect();
        assert_eq!(spans, vec![(0, 2), (6, 8)]);
    }

    #[test]
    fn long_lists_are_flattened_in_order() {
        let line = (0..2000)
            .map(|i| format!("c{i}"))
            .collect::<Vec<_>>()
            .join(" && ");
        let commands = ok(&line);
        assert_eq!(commands.len(), 2000);
        assert_eq!(commands[0].program(), "c0");
        assert_eq!(commands[1999].program(), "c1999");
    }

    #[test]
    fn pipeline_marks_every_stage_pipeline_and_later_stages_piped() {
        let commands = ok("curl -s x | bash");
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[0].origin, Origin::Pipeline);
        assert!(!commands[0].piped);
        assert_eq!(commands[1].origin, Origin::Pipeline);
        assert!(commands[1].piped);
        assert_eq!(commands[1].program(), "bash");

        let commands = ok("a | b |& c");
        let piped: Vec<bool> = commands.iter().map(|c| c.piped).collect();
        assert_eq!(piped, vec![false, true, true]);
    }

    #[test]
    fn a_list_after_a_long_pipeline_reads_no_pipe() {
        // tree-sitter-bash reads these as `a | (b | c && d)`.
        for (line, expected) in [
            (
                "a | b | c && d",
                vec![
                    ("a", Origin::Pipeline, false),
                    ("b", Origin::Pipeline, true),
                    ("c", Origin::Pipeline, true),
                    ("d", Origin::TopLevel, false),
                ],
            ),
            (
                "a | b | c | d && e | f || g",
                vec![
                    ("a", Origin::Pipeline, false),
                    ("b", Origin::Pipeline, true),
                    ("c", Origin::Pipeline, true),
                    ("d", Origin::Pipeline, true),
                    ("e", Origin::Pipeline, false),
                    ("f", Origin::Pipeline, true),
                    ("g", Origin::TopLevel, false),
                ],
            ),
            (
                "x; a | b | c && d > f; y",
                vec![
                    ("x", Origin::TopLevel, false),
                    ("a", Origin::Pipeline, false),
                    ("b", Origin::Pipeline, true),
                    ("c", Origin::Pipeline, true),
                    ("d", Origin::TopLevel, false),
                    ("y", Origin::TopLevel, false),
                ],
            ),
        ] {
            let got: Vec<(String, Origin, bool)> = ok(line)
                .iter()
                .map(|c| (c.text(View::Literal), c.origin, c.piped))
                .collect();
            let expected: Vec<(String, Origin, bool)> = expected
                .into_iter()
                .map(|(t, o, p)| (t.to_string(), o, p))
                .collect();
            assert_eq!(got, expected, "{line:?}");
        }
        let commands = ok("a | b | c && d > f");
        assert!(commands[..3].iter().all(|c| c.redirects.is_empty()));
        assert_eq!(commands[3].redirects[0].target.value, "f");
    }

    #[test]
    fn piped_stage_that_is_a_group_pipes_its_commands() {
        let commands = ok("curl x | { read a; sh; }");
        assert!(!commands[0].piped);
        assert!(commands[1..]
            .iter()
            .all(|c| c.piped && c.origin == Origin::Group));
    }

    #[test]
    fn negated_command_is_extracted() {
        let c = only("! grep -q x f");
        assert_eq!(c.program(), "grep");
    }

    // ----- substitutions -----

    #[test]
    fn command_substitution_in_argument_is_extracted_and_makes_the_word_dynamic() {
        let commands = ok("echo $(rm -rf /) done");
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[0].argv[1], word("$(rm -rf /)", true, None));
        assert_eq!(commands[0].argv[2].value, "done");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        assert_eq!(commands[1].text(View::Literal), "rm -rf /");
        assert_eq!(commands[1].span, (7, 15));
    }

    #[test]
    fn backticks_in_argument_are_extracted() {
        let commands = ok("echo `rm -rf /` \"`id`\"");
        assert_eq!(argvs("echo `rm -rf /` \"`id`\"")[1], v(&["rm", "-rf", "/"]));
        assert!(commands[0].argv[1].dynamic && commands[0].argv[2].dynamic);
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        assert_eq!(commands[2].program(), "id");
    }

    #[test]
    fn nested_backticks_are_unescaped_and_extracted() {
        let commands = ok(r"echo `echo \`rm -rf /\``");
        let rm = find(&commands, "rm");
        assert_eq!(rm.text(View::Literal), "rm -rf /");
        assert_eq!(rm.origin, Origin::CommandSubstitution);
    }

    #[test]
    fn substitution_inside_a_pipeline_stage_has_substitution_origin() {
        let commands = ok("cat f | grep $(whoami)");
        assert_eq!(
            find(&commands, "whoami").origin,
            Origin::CommandSubstitution
        );
        assert_eq!(find(&commands, "grep").origin, Origin::Pipeline);
    }

    #[test]
    fn substitution_in_program_position_makes_the_program_computed() {
        let commands = ok("$(echo rm) -rf /");
        assert!(commands[0].computed_program());
        assert_eq!(commands[1].text(View::Literal), "echo rm");
    }

    #[test]
    fn process_substitutions_are_extracted() {
        let commands = ok("diff <(ls a) >(wc -l)");
        assert_eq!(commands.len(), 3);
        assert_eq!(commands[0].argv[1], word("<(ls a)", true, None));
        assert_eq!(commands[1].origin, Origin::ProcessSubstitution);
        assert_eq!(commands[1].text(View::Literal), "ls a");
        assert_eq!(commands[2].origin, Origin::ProcessSubstitution);
        assert_eq!(commands[2].text(View::Literal), "wc -l");
    }

    #[test]
    fn substitutions_inside_expansions_and_arithmetic_are_extracted() {
        let commands = ok(r#"echo ${X:-$(rm -rf /)} $(( $(a) + b[$(c)] )) "${Y/$(d)/e}""#);
        let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
        assert_eq!(programs, vec!["echo", "rm", "a", "c", "d"]);
        assert!(commands[0].argv[1..].iter().all(|w| w.dynamic));
        assert!(commands[1..]
            .iter()
            .all(|c| c.origin == Origin::CommandSubstitution));
    }

    #[test]
    fn substitution_in_redirect_target_is_extracted() {
        let commands = ok("echo hi > $(mktemp)");
        assert_eq!(commands[0].redirects[0].target.value, "$(mktemp)");
        assert!(commands[0].redirects[0].target.dynamic);
        assert_eq!(commands[1].program(), "mktemp");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    }

    #[test]
    fn file_reading_substitution_is_a_command_with_only_a_redirect() {
        let commands = ok("echo $(< ~/.ssh/id_rsa)");
        assert_eq!(commands.len(), 2);
        assert!(commands[1].argv.is_empty());
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        assert_eq!(
            commands[1].redirects,
            vec![redirect("<", None, "~/.ssh/id_rsa")]
        );
    }

    // ----- compound statements -----

    #[test]
    fn subshell_redirect_applies_to_every_command() {
        let commands = ok("(a; b) 2>/dev/null");
        assert_eq!(commands.len(), 2);
        for c in &commands {
            assert_eq!(c.origin, Origin::Subshell);
            assert_eq!(c.redirects, vec![redirect(">", Some(2), "/dev/null")]);
        }
    }

    #[test]
    fn group_redirect_applies_to_every_command_after_its_own() {
        let commands = ok("{ a > x; b; } > f");
        assert_eq!(commands.len(), 2);
        assert!(commands.iter().all(|c| c.origin == Origin::Group));
        assert_eq!(
            commands[0].redirects,
            vec![redirect(">", None, "x"), redirect(">", None, "f")]
        );
        assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
    }

    #[test]
    fn if_elif_else_conditions_and_bodies_are_compound() {
        let commands = ok("if a; then b; elif c; then d; else e; fi");
        let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
        assert_eq!(programs, vec!["a", "b", "c", "d", "e"]);
        assert!(commands.iter().all(|c| c.origin == Origin::Compound));
    }

    #[test]
    fn loops_and_case_bodies_are_compound_and_their_words_expanded() {
        let commands = ok(
            "for x in $(ls) y; do rm \"$x\"; done\nwhile a; do b; done\nuntil c; do d; done\n\
             case $(e) in f) g;; *) h;; esac\nselect s in t; do u; done",
        );
        let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
        assert_eq!(
            programs,
            vec!["ls", "rm", "a", "b", "c", "d", "e", "g", "h", "u"]
        );
        assert_eq!(commands[0].origin, Origin::CommandSubstitution);
        assert_eq!(commands[1].origin, Origin::Compound);
        assert!(commands[1].argv[1].dynamic);
        assert_eq!(commands[6].origin, Origin::CommandSubstitution);
    }

    #[test]
    fn c_style_for_header_substitutions_and_body_are_extracted() {
        let commands = ok("for ((i=$(a); i<3; i++)); do b; done");
        assert_eq!(commands[0].program(), "a");
        assert_eq!(commands[0].origin, Origin::CommandSubstitution);
        assert_eq!(commands[1].program(), "b");
        assert_eq!(commands[1].origin, Origin::Compound);
    }

    #[test]
    fn function_body_commands_have_function_origin_and_self_calls_are_flagged() {
        let commands = ok("f() { g; f; }; f");
        assert_eq!(commands.len(), 3);
        assert_eq!(commands[0].origin, Origin::Function);
        assert!(!commands[0].self_call);
        assert_eq!(commands[1].origin, Origin::Function);
        assert!(commands[1].self_call);
        assert_eq!(commands[2].origin, Origin::TopLevel);
        assert!(!commands[2].self_call);
        let commands = ok("function g { ( g ); }");
        assert!(commands[0].self_call);
        assert_eq!(commands[0].origin, Origin::Subshell);
    }

    #[test]
    fn fork_bomb_parses_and_its_inner_calls_are_self_calls() {
        let commands = ok(":(){ :|:& };:");
        assert_eq!(commands.len(), 3);
        assert!(commands[0].self_call && commands[1].self_call);
        assert_eq!(commands[0].origin, Origin::Pipeline);
        assert!(commands[1].piped);
        assert_eq!(commands[2].program(), ":");
        assert!(!commands[2].self_call);
    }

    #[test]
    fn function_redirect_applies_to_its_body() {
        let commands = ok("f() { a; } > out");
        assert_eq!(commands[0].redirects, vec![redirect(">", None, "out")]);
    }

    #[test]
    fn test_commands_are_commands_with_their_substitutions_extracted() {
        let commands = ok(r#"[ -f "$(a)" ] && [[ $(b) == c* ]] && (( d++ ))"#);
        let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
        assert_eq!(programs, vec!["[", "a", "[[", "b", "(("]);
        assert_eq!(commands[0].text(View::Literal), "[ -f $(a) ]");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        assert_eq!(commands[2].text(View::Literal), "[[ $(b) == c* ]]");
        assert_eq!(commands[4].text(View::Literal), "(( d ++ ))");
    }

    #[test]
    fn angle_brackets_in_single_bracket_test_are_refused() {
        // bash reads `>` inside `[ … ]` as a redirection; tree-sitter as a comparison.
        failure("[ a > ~/.ssh/authorized_keys ]");
        failure("[ a < b ]");
        failure("[ > f ]");
        assert_eq!(ok("[[ a > b ]]").len(), 1);
    }

    // ----- redirections -----

    #[test]
    fn redirects_record_operator_descriptor_and_target() {
        let c = only("cmd 2>/dev/null &> out >> log 3<&0 >&2 >| g &>> h < in");
        assert_eq!(
            c.redirects,
            vec![
                redirect(">", Some(2), "/dev/null"),
                redirect("&>", None, "out"),
                redirect(">>", None, "log"),
                redirect("<&", Some(3), "0"),
                redirect(">&", None, "2"),
                redirect(">|", None, "g"),
                redirect("&>>", None, "h"),
                redirect("<", None, "in"),
            ]
        );
        assert!(c.redirects[0].writes() && !c.redirects[7].writes());
    }

    #[test]
    fn redirect_before_the_program_belongs_to_the_command() {
        let c = only("2>/dev/null rm -rf /");
        assert_eq!(c.text(View::Literal), "rm -rf /");
        assert_eq!(c.redirects, vec![redirect(">", Some(2), "/dev/null")]);
    }

    #[test]
    fn words_after_a_redirect_target_are_arguments() {
        let c = only("rm > /dev/null -rf /");
        assert_eq!(c.text(View::Literal), "rm -rf /");
        assert_eq!(c.redirects, vec![redirect(">", None, "/dev/null")]);
        let c = only("cat <<< x > f y");
        assert_eq!(c.text(View::Literal), "cat y");
        let c = only("echo 2>&- x");
        assert_eq!(c.text(View::Literal), "echo x");
        assert_eq!(c.redirects[0].op, ">&-");
        assert_eq!(c.redirects[0].fd, Some(2));
    }

    #[test]
    fn words_after_a_compound_redirect_fail() {
        failure("{ a; } > f b");
    }

    #[test]
    fn redirect_after_a_pipeline_or_list_applies_to_its_last_command() {
        let commands = ok("a | b > f | c > g x");
        assert_eq!(commands[0].redirects, vec![]);
        assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
        assert_eq!(commands[2].redirects, vec![redirect(">", None, "g")]);
        assert_eq!(commands[2].text(View::Literal), "c x");
        let commands = ok("a && b > f");
        assert_eq!(commands[0].redirects, vec![]);
        assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
    }

    #[test]
    fn redirect_only_line_is_a_command_without_argv() {
        let c = only("> /dev/sda");
        assert!(c.argv.is_empty());
        assert_eq!(c.redirects, vec![redirect(">", None, "/dev/sda")]);
        assert_eq!(c.span, (0, 10));
    }

    #[test]
    fn herestring_is_a_redirect_and_its_substitutions_run() {
        let commands = ok(r#"bash <<< "$(curl -s x)""#);
        assert_eq!(commands[0].redirects[0].op, "<<<");
        assert!(commands[0].redirects[0].target.dynamic);
        assert_eq!(commands[1].text(View::Literal), "curl -s x");
        let c = only("cat 0<<< hello");
        assert_eq!(c.redirects, vec![redirect("<<<", Some(0), "hello")]);
    }

    // ----- here-documents -----

    #[test]
    fn unquoted_heredoc_body_substitution_is_extracted() {
        let commands = ok("cat <<EOF > out\nhello $(rm -rf /) $USER\nEOF");
        assert_eq!(commands.len(), 2);
        assert_eq!(
            commands[0].redirects,
            vec![redirect("<<", None, "EOF"), redirect(">", None, "out")]
        );
        assert_eq!(commands[1].text(View::Literal), "rm -rf /");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    }

    #[test]
    fn quoted_heredoc_body_is_not_expanded() {
        for line in [
            "cat <<'EOF'\n$(rm -rf /) `id`\nEOF",
            "cat <<\"EOF\"\n$(rm -rf /) `id`\nEOF",
            "cat <<E\\OF\n$(rm -rf /) `id`\nEOF",
        ] {
            let c = only(line);
            assert_eq!(c.redirects, vec![redirect("<<", None, "EOF")], "{line:?}");
        }
        let c = only("cat <<-'X'\n\t$(a)\n\tX");
        assert_eq!(c.redirects, vec![redirect("<<-", None, "X")]);
    }

    #[test]
    fn heredoc_body_backticks_are_extracted() {
        // tree-sitter-bash does not parse back-ticks in here-document bodies.
        let commands = ok("cat <<EOF\nrun `rm -rf /` and \\`not this\\`\nEOF");
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[1].text(View::Literal), "rm -rf /");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        failure("cat <<EOF\nunclosed ` here\nEOF");
    }

    #[test]
    fn heredoc_piped_to_a_shell_marks_the_shell_piped() {
        let commands = ok("cat <<EOF | sh && echo done\nrm -rf /\nEOF");
        assert_eq!(commands.len(), 3);
        assert_eq!(commands[0].program(), "cat");
        assert_eq!(commands[0].origin, Origin::Pipeline);
        assert!(!commands[0].piped);
        assert_eq!(commands[1].program(), "sh");
        assert!(commands[1].piped);
        assert_eq!(commands[2].program(), "echo");
        assert_eq!(commands[2].origin, Origin::TopLevel);
        assert!(!commands[2].piped);
    }

    #[test]
    fn heredoc_followed_by_a_list_or_arguments() {
        let commands = ok("cat <<EOF && rm x\nbody\nEOF");
        assert_eq!(commands[0].text(View::Literal), "cat");
        assert_eq!(commands[1].text(View::Literal), "rm x");
        assert!(commands[1].redirects.is_empty());
        let c = only("cat <<EOF file\nbody\nEOF");
        assert_eq!(c.text(View::Literal), "cat file");
        // Both at once is valid bash, but tree-sitter-bash cannot parse it.
        failure("cat <<EOF file && rm x\nbody\nEOF");
    }

    // ----- assignments and declarations -----

    #[test]
    fn prefix_assignments_are_recorded_quotes_removed() {
        let c = only(r#"FOO=1 BAR="a b" git status"#);
        assert_eq!(c.assignments, v(&["FOO=1", "BAR=a b"]));
        assert_eq!(c.text(View::Literal), "FOO=1 BAR=a b git status");
        assert_eq!(c.text(View::Canonical), "git status");
    }

    #[test]
    fn assignment_only_command_keeps_its_substitution() {
        let commands = ok("X=$(rm -rf /)");
        assert_eq!(commands.len(), 2);
        assert!(commands[0].argv.is_empty());
        assert_eq!(commands[0].assignments, v(&["X=$(rm -rf /)"]));
        assert_eq!(commands[1].text(View::Literal), "rm -rf /");
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
        let c = only("A=1 B+=x C= D=(1 'two')");
        assert_eq!(c.assignments, v(&["A=1", "B+=x", "C=", "D=(1 two)"]));
    }

    #[test]
    fn declaration_commands_are_simple_commands() {
        let commands = ok("export X=1 Y=\"$(id)\" Z; local -r W; declare -a A; readonly R; typeset T; unset -f foo V");
        assert_eq!(
            commands
                .iter()
                .map(|c| c.text(View::Literal))
                .collect::<Vec<_>>(),
            v(&[
                "export X=1 Y=$(id) Z",
                "id",
                "local -r W",
                "declare -a A",
                "readonly R",
                "typeset T",
                "unset -f foo V",
            ])
        );
        assert!(commands[0].argv[2].dynamic);
        assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    }

    // ----- paths -----

    #[test]
    fn home_and_tilde_are_read_as_home_paths() {
        let c = only(r#"cat "$HOME/.ssh/id_rsa" ${HOME}/.aws ~/.ssh $HOME ~"#);
        assert_eq!(
            c.argv[1],
            word("$HOME/.ssh/id_rsa", false, Some("~/.ssh/id_rsa"))
        );
        assert_eq!(c.argv[2], word("${HOME}/.aws", false, Some("~/.aws")));
        assert_eq!(c.argv[3], word("~/.ssh", false, Some("~/.ssh")));
        assert_eq!(c.argv[4], word("$HOME", false, Some("~")));
        assert_eq!(c.argv[5], word("~", false, Some("~")));
        let c = only("cat > ~/.ssh/authorized_keys");
        assert_eq!(
            c.redirects[0].target.path.as_deref(),
            Some("~/.ssh/authorized_keys")
        );
    }

    #[test]
    fn quoted_tilde_is_a_file_named_tilde() {
        let c = only(r#"cat '~/.ssh' "~/x" \~/y ""~/z"#);
        assert_eq!(c.argv[1], word("~/.ssh", false, Some("./~/.ssh")));
        assert_eq!(c.argv[2], word("~/x", false, Some("./~/x")));
        assert_eq!(c.argv[3], word("~/y", false, Some("./~/y")));
        assert_eq!(c.argv[4], word("~/z", false, Some("./~/z")));
    }

    #[test]
    fn unknown_variables_make_words_dynamic_without_path() {
        let c = only(r#"cat $X/a "${Y}" /x$HOME ${HOME}x ${HOME:-/r} $HOME/$Z '$HOME'"#);
        assert_eq!(c.argv[1], word("$X/a", true, None));
        assert_eq!(c.argv[2], word("${Y}", true, None));
        assert_eq!(c.argv[3], word("/x$HOME", true, None));
        assert_eq!(c.argv[4], word("${HOME}x", true, None));
        assert_eq!(c.argv[5], word("${HOME:-/r}", true, None));
        assert_eq!(c.argv[6], word("$HOME/$Z", true, None));
        assert_eq!(c.argv[7], word("$HOME", false, Some("$HOME")));
    }

    #[test]
    fn computed_program_is_dynamic() {
        let c = only("$X -rf /");
        assert!(c.computed_program());
        assert_eq!(c.argv[0], word("$X", true, None));
        assert!(!only("$HOME/bin/tool").computed_program());
    }

    // ----- failures -----

    #[test]
    fn syntax_errors_fail() {
        for line in [
            "echo \"unterminated",
            "if then fi",
            ")(",
            "echo $(",
            "a &&",
            "case x in",
            "cmd <> file",
            "echo (ls)",
            "x=1 > f",
        ] {
            assert_eq!(failure(line), "the command could not be parsed", "{line:?}");
        }
    }

    #[test]
    fn empty_whitespace_and_comment_only_lines_give_nothing() {
        for line in ["", "   ", "\n\t\n", "# just a comment", "  # a\n# b\n"] {
            assert_eq!(analyse(line), Analysis::default(), "{line:?}");
        }
        assert_eq!(argvs("ls # trailing comment"), vec![v(&["ls"])]);
    }

    #[test]
    fn overlong_input_fails() {
        let line = format!("echo {}", "a".repeat(100 * 1024));
        assert_eq!(failure(&line), "the command is longer than 65536 bytes");
        let at_limit = format!("echo {}", "a".repeat(MAX_COMMAND_LEN - 5));
        assert_eq!(ok(&at_limit).len(), 1);
    }

    #[test]
    fn nesting_within_the_limit_is_analysed() {
        let line = format!("{}rm -rf /{}", "echo $(".repeat(10), ")".repeat(10));
        let commands = ok(&line);
        assert_eq!(commands.len(), 11);
        assert_eq!(commands[10].text(View::Literal), "rm -rf /");
    }

    #[test]
    fn deep_nesting_fails_without_stack_overflow() {
        run_with_small_stack(|| {
            let deep = "the command nests deeper than 16 levels";
            let n = 5000;
            let lines = [
                format!("{}x{}", "$(".repeat(n), ")".repeat(n)),
                format!("{}x{}", "( ".repeat(n), " )".repeat(n)),
                format!("{}x{}", "`".repeat(2), "`".repeat(0)),
                format!("{}x{}", "{ ".repeat(n), "; }".repeat(n)),
                format!("echo {}x{}", "${X:-".repeat(n), "}".repeat(n)),
                format!("echo {}x{}", "\"$(echo ".repeat(n), ")\"".repeat(n)),
                format!("{}x{}", "if a; then ".repeat(n / 2), "; fi".repeat(n / 2)),
                format!("{}x{}", "f() { ".repeat(n), "; }".repeat(n)),
            ];
            for (i, line) in lines.iter().enumerate() {
                let analysis = analyse(line);
                assert!(analysis.commands.is_empty() || i == 2, "{i}");
                if i != 2 {
                    assert_eq!(analysis.failure.as_deref(), Some(deep), "{i}");
                }
            }
            // Unbalanced deep input is a parse failure.
            assert!(analyse(&"$(".repeat(n)).failure.is_some());
            assert!(analyse(&"(".repeat(n)).failure.is_some());
            // Deep arithmetic and long flat structures are fine.
            assert!(
                analyse(&format!("(( {}1{} ))", "(".repeat(n), ")".repeat(n)))
                    .failure
                    .is_none()
            );
            assert!(analyse(&format!("[[ {}a ]]", "a && ".repeat(n)))
                .failure
                .is_none());
        });
    }

    #[test]
    fn deeply_nested_backticks_fail() {
        run_with_small_stack(|| {
            let mut line = String::from("x");
            for _ in 0..20 {
                line = format!("echo `{}`", line.replace('\\', "\\\\").replace('`', "\\`"));
                if line.len() > MAX_COMMAND_LEN {
                    break;
                }
            }
            assert!(analyse(&line).failure.is_some());
            let mut line = String::from("rm -rf /");
            for _ in 0..3 {
                line = format!("echo `{}`", line.replace('\\', "\\\\").replace('`', "\\`"));
            }
            let commands = ok(&line);
            assert_eq!(commands.len(), 4);
            assert_eq!(commands[3].text(View::Literal), "rm -rf /");
        });
    }

    // ----- where tree-sitter-bash reads differently from bash -----

    #[test]
    fn heredoc_that_bash_ends_earlier_fails() {
        // bash joins `EO\<newline>F` into the delimiter line and ends the body there.
        failure("cat <<EOF\nhello\nEO\\\nF\nrm -rf /\nEOF\nls");
        // bash ends the body at the first `EOF` line, even inside `${…`.
        failure("cat <<EOF\n${x:-\nEOF\nrm -rf /}\nEOF\nls");
        failure("cat <<EOF\n$(echo \"\nEOF\nrm -rf /\n\")\nEOF\nls");
    }

    #[test]
    fn heredoc_end_that_bash_does_not_accept_fails() {
        failure("cat <<EOF\nhello\nEOF \nls\nEOF");
        failure("cat <<EOF\nhello\nEOF\r\nls");
        failure("cat <<EOF\n\thello\n\tEOF\nls\nEOF");
        assert_eq!(argvs("cat <<-EOF\n\thello\n\tEOF\nls").len(), 2);
    }

    #[test]
    fn heredoc_delimiter_quotes_are_removed_as_bash_does() {
        let c = &ok("cat <<\"E'F\"\n$(x)\nE'F\nls")[0];
        assert_eq!(c.redirects, vec![redirect("<<", None, "E'F")]);
        assert_eq!(ok("cat <<\"E'F\"\n$(x)\nE'F\nls").len(), 2);
    }

    #[test]
    fn line_continuation_between_non_blanks_fails() {
        // bash removes `\<newline>`, joining `r` and `m`; tree-sitter splits the word.
        failure("r\\\nm -rf /");
        failure("echo $(r\\\nm -rf /)");
        assert_eq!(argvs("rm \\\n  -rf x"), vec![v(&["rm", "-rf", "x"])]);
        assert_eq!(argvs("echo \"a\\\nb\""), vec![v(&["echo", "ab"])]);
    }

    #[test]
    fn tokens_holding_blanks_or_bad_names_fail() {
        // `$<newline>x` read as the expansion `$x`, hiding the command `x` on the next line.
        failure(",<$\nrm<xb");
        // A line starting with a backslash glued to the word before it.
        failure(">*\n\\|\\'}rm");
        failure("]\t]*a");
        // `*EOF=` and `$ b` are not assignments or expansions for bash.
        failure("*EOF=");
        failure("echo \"a $ b\"");
        // A comment inside an assignment.
        failure("xb#$\n=[}");
        // A newline inside a command.
        failure("! c\n\\\n\\'");
        failure("[\n ]");
    }

    #[test]
    fn process_substitution_inside_double_brackets_fails() {
        // bash runs `<(rm -rf /)` here; tree-sitter reads `<` and a parenthesised word.
        failure(r#"[[ ""<(rm -rf /) ]]"#);
        failure("[[ a >(rm -rf /) ]]");
        // Read right when it is an operand on its own.
        assert_eq!(
            find(&ok("[[ -n <(rm -rf /) ]]"), "rm").origin,
            Origin::ProcessSubstitution
        );
        assert_eq!(ok("[[ a < b ]] && ((a<(1)))").len(), 2);
    }

    #[test]
    fn value_glued_to_an_assignment_fails() {
        // bash reads `x=""\x` as the assignment `x=x`, then runs `rm`.
        failure(r#"x=""\x rm -rf /"#);
    }

    #[test]
    fn back_ticks_end_at_the_first_unescaped_back_tick() {
        failure("echo `a``b`");
        failure("x=`echo \"\"``rm -rf /`");
    }

    #[test]
    fn reserved_words_that_close_nothing_fail() {
        for line in [
            "sudo { rm -rf build; }",
            "echo { a; }",
            "echo a; }",
            "a && }",
            "echo a; done",
            "echo a; fi",
            "echo a; then",
            "echo a; esac",
            "echo a; do",
            "echo a; else",
            "echo a; in",
            "echo a; ]]",
            "echo $(})",
        ] {
            failure(line);
        }
        // Quoted or not first, they are words.
        assert_eq!(argvs("echo }"), vec![v(&["echo", "}"])]);
        assert_eq!(argvs("'}'"), vec![v(&["}"])]);
        assert_eq!(argvs("\\}"), vec![v(&["}"])]);
        assert_eq!(
            argvs("echo a; done=1 x"),
            vec![v(&["echo", "a"]), v(&["x"])]
        );
    }

    #[test]
    fn words_glued_to_keywords_fail() {
        // For bash these are commands named `{cat`, `[[b`, `{}`.
        failure("{cat <<'EOF'\nx\nEOF\n}");
        failure("[[b ]]");
        failure("{}&&x");
    }

    #[test]
    fn bare_dollars_that_expand_make_the_word_dynamic() {
        let c = only("echo }xb$EO..#xa *$$ a$ $");
        assert!(c.argv[1].dynamic && c.argv[2].dynamic);
        assert_eq!(c.argv[3], word("a$", false, Some("a$")));
        assert_eq!(c.argv[4], word("$", false, Some("$")));
    }

    #[test]
    fn blank_only_double_quoted_string_keeps_its_blanks() {
        assert_eq!(
            argvs(
                r#"echo "  "x " a " "" "\~
 ""#
            ),
            vec![v(&["echo", "  x", " a ", "", "\\~\n "])]
        );
    }

    #[test]
    fn herestring_descriptor_is_not_an_argument() {
        let c = only("cat 0<<< hello");
        assert_eq!(c.text(View::Literal), "cat");
        assert_eq!(c.redirects, vec![redirect("<<<", Some(0), "hello")]);
    }

    #[test]
    fn empty_quoted_brace_alternative_is_kept() {
        assert_eq!(
            argvs(r#"echo {b,""} {b,}"#),
            vec![v(&["echo", "b", "", "b"])]
        );
    }

    #[test]
    fn extreme_brace_sequences_do_not_overflow() {
        let c =
            only("echo {-9223372036854775808..9223372036854775807} {a..z..9223372036854775807}");
        assert!(c.argv[1].dynamic);
        assert_eq!(c.argv[2].value, "a");
        assert_eq!(only("echo {1..2..-9223372036854775808}").argv.len(), 2);
    }

    #[test]
    fn common_agent_commands_are_analysed() {
        for line in [
            "git commit -m \"$(cat <<'EOF'\nfix: handle empty input\n\nCo-Authored-By: x <y@z>\nEOF\n)\"",
            "cargo test --workspace 2>&1 | tail -n 20",
            "find . -name '*.rs' -exec grep -l foo {} \\;",
            "for f in *.rs; do echo \"$f\"; done",
            "python3 -c 'print(1)'",
            "cd /tmp && make -j4",
            "docker run --rm -v \"$PWD\":/app node:18 npm test",
            "awk '{print $1}' f | sort | uniq -c",
            "jq '.a[] | {x: .y}' f.json",
            "kill -9 $(pgrep foo)",
            "[ -f Cargo.toml ] && cargo build",
            "cargo build \\\n  --release",
            "cat > /tmp/x.py << EOF\nimport os\nprint(os.environ[\"HOME\"])\nEOF",
            "export PATH=\"$HOME/.cargo/bin:$PATH\"",
            "timeout 10 ./run.sh || echo \"failed: $?\"",
        ] {
            assert!(!ok(line).is_empty(), "{line:?}");
        }
        let commands = ok("find . -exec rm {} +");
        assert_eq!(commands[0].text(View::Literal), "find . -exec rm {} +");
    }

    #[test]
    fn input_that_crashes_tree_sitter_is_refused_before_parsing() {
        // tree-sitter-bash 0.25 reads out of bounds (a segmentation fault) on these.
        failure("{1\u{E0000}");
        failure("echo i{1..2\u{10FFFF}");
        // The check is textual and coarse: a non-ASCII character right after `{` is refused.
        failure("echo '{é}'");
        assert_eq!(ok("echo {1..2} é {a} '{ é}'").len(), 1);
    }

    #[test]
    fn kind_table_agrees_with_tree_sitter() {
        let line = "a=1 b | c && { d; } > f <<< x; $(e) `f` \"$g\" 'h' $'i' ${j:-k} [[ l ]] \
                    ((m++)); case n in o) p;; esac; for q in r; do s; done; t() { u; }";
        let tree = parse(line).expect("parses");
        let mut cursor = tree.root_node().walk();
        let mut seen = 0;
        loop {
            let node = cursor.node();
            assert_eq!(node.fast_kind(), node.kind());
            seen += 1;
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    assert!(seen > 100);
                    return;
                }
            }
        }
    }

    #[test]
    fn arbitrary_input_never_panics() {
        const PIECES: &[&str] = &[
            "$(", ")", "`", "'", "\"", "\\", "<<", "EOF", "\n", "<<<", "<(", ">(", "{", "}", "(",
            ")", ";", "&&", "|", "&", "$", "${", "~", "#", " ", "x", "=", "[[", "]]", "[", "]",
            "((", "if", "then", "fi", "case", "in", "esac", ";;", "for", "do", "done", "é", "\0",
            "$'\\x", "2>", ">&", "-", "function", "!", "*", "?",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        run_with_small_stack(move || {
            for _ in 0..3000 {
                let len = (next() % 40) as usize;
                let mut line = String::new();
                for _ in 0..len {
                    line.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                }
                let analysis = analyse(&line);
                if analysis.failure.is_some() {
                    assert!(analysis.commands.is_empty());
                }
                let bytes: Vec<u8> = (0..len).map(|_| (next() & 0xff) as u8).collect();
                analyse(&String::from_utf8_lossy(&bytes));
            }
        });
    }
}
