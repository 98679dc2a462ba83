//! The statement walk: a parsed tree in, the simple commands it executes out, in source order.
//!
//! This is security code. Whatever the walk does not understand is a failure (the engine asks),
//! never a silently dropped command. tree-sitter-bash recovers from errors instead of failing
//! (any ERROR or MISSING node is a failure here), and reads a number of lines differently from
//! bash. Where the difference can be corrected the walk follows bash; where it cannot, the line
//! is refused (see `misread.rs`):
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

use crate::shell::RedirectOp;
use tree_sitter::Node;

use super::driver::{too_deep, unparsable, Pending, Res, MAX_FRAMES};
use super::expand::{Budget, Script};
use super::misread::dropped_dash;
use super::parse::{adjacent_runs, children_with_fields, named_children, FastKind};
use super::words::literal_word;
use super::{Origin, Redirect, SimpleCommand, Word, MAX_DEPTH};

/// Where the walk is: what the commands found here get.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx {
    pub origin: Origin,
    pub piped: bool,
    pub depth: usize,
}

impl Ctx {
    /// One nesting level down, inside a construct of kind `origin`.
    pub(super) fn deeper(self, origin: Origin) -> Res<Ctx> {
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

    pub(super) fn with_origin(self, origin: Origin) -> Ctx {
        Ctx { origin, ..self }
    }
}

/// The stages of a pipeline, and the statements of a list written after it.
///
/// tree-sitter-bash reads `a | b | c && d` as `a | (b | c && d)`; bash reads it as
/// `(a | b | c) && d`, in which `d` reads no pipe. A list ending a pipeline is read the bash
/// way: its first pipeline's stages continue the pipeline, the rest of it follows.
pub(super) fn pipeline_parts(node: Node<'_>) -> Res<(Vec<Node<'_>>, Vec<Node<'_>>)> {
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
pub(super) fn redirect_target(body: Node<'_>) -> Node<'_> {
    let mut target = body;
    while matches!(target.fast_kind(), "pipeline" | "list" | "negated_command") {
        match named_children(target).last() {
            Some(last) => target = *last,
            None => break,
        }
    }
    target
}

pub(super) struct Walker<'s> {
    pub(super) src: &'s str,
    /// Simple commands to expand once the walk is done.
    pub(super) pending: Vec<Pending>,
    /// Here-documents and the range of commands (by index) that read them.
    pub(super) stdin: Vec<(usize, usize, Script)>,
    pub(super) budget: &'s Budget,
    /// Added to every span (the offset of `src` in the analysed line).
    pub(super) base: usize,
    pub(super) out: Vec<SimpleCommand>,
    /// Names of the functions whose definitions enclose the walk.
    pub(super) functions: Vec<String>,
    /// Current recursion of the walk.
    pub(super) frames: usize,
    /// A node whose first command index is wanted (see `redirected`), and that index.
    pub(super) watch: Option<usize>,
    pub(super) watch_start: Option<usize>,
    /// A node's byte range did not slice the source (never expected): the walk fails.
    pub(super) bad_slice: bool,
    /// Byte ranges of the substitutions the walk analysed (see `coverage.rs`).
    pub(super) seen: Vec<(usize, usize)>,
    /// Where a variable's value is evaluated as code, and its name (see
    /// [`SimpleCommand::evaluates`]); given to the commands once the walk is done.
    pub(super) evaluated: Vec<(usize, String)>,
}

impl<'s> Walker<'s> {
    pub(super) fn text(&mut self, node: Node<'_>) -> &'s str {
        match self.src.get(node.start_byte()..node.end_byte()) {
            Some(text) => text,
            None => {
                self.bad_slice = true;
                ""
            }
        }
    }

    pub(super) fn slice(&mut self, start: usize, end: usize) -> &'s str {
        match self.src.get(start..end) {
            Some(text) => text,
            None => {
                self.bad_slice = true;
                ""
            }
        }
    }

    pub(super) fn span(&self, node: Node<'_>) -> (usize, usize) {
        (self.base + node.start_byte(), self.base + node.end_byte())
    }

    pub(super) fn enter(&mut self) -> Res<()> {
        self.frames += 1;
        if self.frames > MAX_FRAMES {
            return Err(too_deep());
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.frames = self.frames.saturating_sub(1);
    }

    /// Starts a command at `node`'s place; it is filled in once its words are known, so that
    /// commands nested in its words come after it (source order).
    pub(super) fn open(&mut self, node: Node<'_>, ctx: Ctx) -> usize {
        let index = self.out.len();
        self.out.push(SimpleCommand {
            origin: ctx.origin,
            piped: ctx.piped,
            span: self.span(node),
            ..SimpleCommand::default()
        });
        index
    }

    pub(super) fn fill(&mut self, index: usize, assignments: Vec<String>, argv: Vec<Word>) {
        let self_call = argv
            .first()
            .is_some_and(|w| !w.dynamic && self.functions.contains(&w.value));
        if let Some(command) = self.out.get_mut(index) {
            command.assignments = assignments;
            command.argv = argv;
            command.self_call = self_call;
        }
    }

    /// Notes the variables whose values bash evaluates as arithmetic under `node`: the names
    /// it holds (bare or expanded, but an array's own name before its subscript), and the
    /// output of a command substitution as `$(…)`.
    pub(super) fn note_arithmetic(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.fast_kind() {
                "command_substitution" | "process_substitution" => {
                    self.evaluated.push((n.start_byte(), "$(…)".to_string()));
                    continue;
                }
                "variable_name" | "word" => {
                    let array_name = n.parent().is_some_and(|p| {
                        p.fast_kind() == "subscript"
                            && p.named_child(0).map(|c| c.id()) == Some(n.id())
                    });
                    let text = self.text(n);
                    if !array_name && is_identifier(text) {
                        self.evaluated.push((n.start_byte(), text.to_string()));
                    }
                    continue;
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }

    /// Gives each name the walk noted as evaluated to the innermost command holding it.
    pub(super) fn attach_evaluated(&mut self) {
        for (at, name) in std::mem::take(&mut self.evaluated) {
            let at = self.base + at;
            let innermost = self
                .out
                .iter_mut()
                .filter(|c| c.span.0 <= at && at < c.span.1)
                .min_by_key(|c| c.span.1 - c.span.0);
            match innermost {
                Some(cmd) => {
                    if !cmd.evaluates.contains(&name) {
                        cmd.evaluates.push(name);
                    }
                }
                // Outside any command (a `case` pattern, a loop's words): every command of
                // the line runs after bash evaluated it.
                None => {
                    for cmd in &mut self.out {
                        if !cmd.evaluates.contains(&name) {
                            cmd.evaluates.push(name.clone());
                        }
                    }
                }
            }
        }
    }

    pub(super) fn add_redirects(&mut self, start: usize, end: usize, redirects: &[Redirect]) {
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
    pub(super) fn block(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        for child in named_children(node) {
            self.stmt(child, ctx)?;
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        self.enter()?;
        if self.watch == Some(node.id()) {
            self.watch_start = Some(self.out.len());
        }
        let result = self.stmt_inner(node, ctx);
        self.leave();
        result
    }

    pub(super) fn stmt_inner(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        match node.fast_kind() {
            "command" => self.command(node, ctx),
            "list" => self.list(node, ctx, ctx),
            "pipeline" => self.pipeline(node, ctx),
            "redirected_statement" => self.redirected(node, ctx),
            "negated_command" => self.block(node, ctx),
            "subshell" => self.block(node, ctx.deeper(Origin::Subshell)?),
            "compound_statement" => self.compound_statement(node, ctx),
            "if_statement" => self.if_statement(node, ctx),
            "while_statement" => self.while_statement(node, ctx),
            "for_statement" => self.for_statement(node, ctx),
            "c_style_for_statement" => self.c_style_for_statement(node, ctx),
            "case_statement" => self.case_statement(node, ctx),
            "function_definition" => self.function_definition(node, ctx),
            "test_command" => self.test(node, ctx),
            "declaration_command" | "unset_command" => self.declaration(node, ctx),
            "variable_assignment" => self.variable_assignment(node, ctx),
            "variable_assignments" => self.variable_assignments(node, ctx),
            "comment" => Ok(()),
            // Anything else at the place of a statement is not understood.
            _ => Err(unparsable()),
        }
    }

    /// `a | b |& c`: every stage after the first reads a pipe.
    fn pipeline(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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

    /// `{ …; }` (a group) or `(( … ))` (arithmetic).
    fn compound_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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

    fn if_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        for child in named_children(node) {
            match child.fast_kind() {
                "elif_clause" | "else_clause" => self.block(child, inner)?,
                _ => self.stmt(child, inner)?,
            }
        }
        Ok(())
    }

    fn while_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        for child in named_children(node) {
            match child.fast_kind() {
                "do_group" => self.block(child, inner)?,
                _ => self.stmt(child, inner)?,
            }
        }
        Ok(())
    }

    /// `for (( i = 0; i < n; i++ )); do …; done`: the expressions scanned for substitutions.
    fn c_style_for_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        // Its initial assignments, as a loop header the line's values know (see
        // `for_statement`).
        let index = self.open(node, ctx.with_origin(Origin::Compound));
        let mut assignments = Vec::new();
        for (field, child) in children_with_fields(node) {
            if field != Some("body") && child.fast_kind() == "variable_assignment" {
                assignments.push(self.text(child).split_whitespace().collect::<String>());
            }
        }
        self.fill(index, assignments, Vec::new());
        for (field, child) in children_with_fields(node) {
            match field {
                Some("body") => self.block(child, inner)?,
                _ if child.is_named() && child.fast_kind() != "comment" => {
                    self.note_arithmetic(child);
                    self.scan(child, inner)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `X=1` alone: a command with one assignment and no words.
    fn variable_assignment(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let index = self.open(node, ctx);
        let assignment = self.assignment(node, ctx)?.0;
        self.fill(index, vec![assignment], Vec::new());
        Ok(())
    }

    /// `X=1 Y=2` alone: a command with the assignments and no words.
    fn variable_assignments(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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

    /// `a && b || c`: tree-sitter nests lists to the left, so they are flattened without
    /// recursion. The first command gets `first`, the others `rest` (see `heredoc`).
    pub(super) fn list(&mut self, node: Node<'_>, first: Ctx, rest: Ctx) -> Res<()> {
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

    pub(super) fn command(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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
    pub(super) fn redirected(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let body = node.child_by_field_name("body");
        let redirects: Vec<Node<'_>> = named_children(node)
            .into_iter()
            .filter(|c| Some(c.id()) != body.map(|b| b.id()))
            .collect();
        // `cat <<EOF | sh`: the pipe is written after the heredoc, inside its node.
        let body_ctx = if has_piped_heredoc(&redirects) {
            ctx.with_origin(Origin::Pipeline)
        } else {
            ctx
        };

        let (start, target_is_command) = match body {
            Some(body) => self.redirected_body(body, body_ctx)?,
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

        let Redirections {
            collected,
            extra,
            after,
        } = self.redirections(redirects, ctx, start, end)?;
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
        self.after_heredocs(after, ctx)
    }

    /// Walks the body of a redirected statement; returns the index of the command the
    /// redirections apply to, and whether it is a simple command.
    fn redirected_body(&mut self, body: Node<'_>, body_ctx: Ctx) -> Res<(usize, bool)> {
        let target = redirect_target(body);
        let saved = (self.watch, self.watch_start);
        self.watch = Some(target.id());
        self.watch_start = None;
        let walked = self.stmt(body, body_ctx);
        let start = self.watch_start;
        (self.watch, self.watch_start) = saved;
        walked?;
        Ok((
            start.ok_or_else(unparsable)?,
            target.fast_kind() == "command",
        ))
    }

    /// The redirections of the commands `start..end` (see [`Redirections`]); the heredocs'
    /// scripts go to `stdin`.
    fn redirections<'t>(
        &mut self,
        redirects: Vec<Node<'t>>,
        ctx: Ctx,
        start: usize,
        end: usize,
    ) -> Res<Redirections<'t>> {
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
        Ok(Redirections {
            collected,
            extra,
            after,
        })
    }

    /// The statements written after heredocs (`cat <<EOF | sh && x`), piped to or not.
    fn after_heredocs(&mut self, after: Vec<(Node<'_>, bool)>, ctx: Ctx) -> Res<()> {
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

    /// A redirection (`file_redirect` or `herestring_redirect`), and the words tree-sitter put
    /// after its target that bash gives to the command.
    pub(super) fn redirect(&mut self, node: Node<'_>, ctx: Ctx) -> Res<(Redirect, Vec<Word>)> {
        let mut op = "";
        let mut fd = None;
        let mut destinations = Vec::new();
        for (field, child) in children_with_fields(node) {
            match field {
                Some("descriptor") => fd = self.text(child).parse::<u32>().ok(),
                _ if !child.is_named() => {
                    if op.is_empty() {
                        op = child.fast_kind();
                    }
                }
                _ if child.fast_kind() == "comment" => {}
                _ => destinations.push(child),
            }
        }
        let op = RedirectOp::parse(op).ok_or_else(unparsable)?;
        let mut runs = adjacent_runs(&destinations).into_iter();
        // `>&-` and `<&-` close a descriptor and take no target.
        let target = if matches!(op, RedirectOp::CloseOut | RedirectOp::CloseIn) {
            Word::default()
        } else {
            match runs.next() {
                // bash reads a redirection's word as written: `> of=/tmp/t` writes the file
                // `of=/tmp/t` below a folder `of=`, not `/tmp/t`.
                Some(run) => self.word(&run, ctx)?.as_written(),
                None => return Err(unparsable()),
            }
        };
        let mut extra = Vec::new();
        for run in runs {
            extra.extend(self.words(&run, ctx)?);
        }
        Ok((
            Redirect {
                op,
                fd,
                target,
                body: None,
            },
            extra,
        ))
    }
}

/// The redirections of a statement, the words written after their targets, and the statements
/// written after its heredocs (with whether they are piped to).
struct Redirections<'t> {
    collected: Vec<Redirect>,
    extra: Vec<Word>,
    after: Vec<(Node<'t>, bool)>,
}

/// A shell variable's name (`x`, `_a1`), not a number or an expression.
fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether a heredoc among the redirections is piped to a command (`cat <<EOF | sh`).
fn has_piped_heredoc(redirects: &[Node<'_>]) -> bool {
    redirects.iter().any(|r| {
        r.fast_kind() == "heredoc_redirect"
            && named_children(*r)
                .iter()
                .any(|c| c.fast_kind() == "pipeline")
    })
}
