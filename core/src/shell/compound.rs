//! The walk of compound statements and declarations: here-documents, loops, `case`,
//! functions, tests, `export`/`local`, assignments.

use crate::shell::RedirectOp;
use tree_sitter::Node;

use super::driver::{unparsable, walk_text, Res};
use super::expand::Script;
use super::parse::{
    adjacent_runs, children_with_fields, frontier, is_word_like, named_children, FastKind,
};
use super::unescape::{
    closing_backtick, heredoc_delimiter, heredoc_ends_as_bash_does, heredoc_script,
    unescape_backticks, unescape_unquoted,
};
use super::walk::{Ctx, Walker};
use super::words::literal_word;
use super::{Origin, Redirect, Word};

impl Walker<'_> {
    /// A here-document. Its redirection goes to `collected`, words written after it to
    /// `extra`, and statements written after it (`| sh`, `&& x`) to `after` (with whether
    /// they read the pipe). Returns its body as the command reading it sees it.
    pub(super) fn heredoc<'t>(
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
                op: if op == "<<-" {
                    RedirectOp::HereDocStrip
                } else {
                    RedirectOp::HereDoc
                },
                fd,
                target: literal_word(delimiter),
                body: Some(body.to_string()),
            };
        }
        Ok(script)
    }

    /// The expansions of an unquoted here-document body. tree-sitter finds `$(…)` and `${…}`
    /// but not back-ticks: the body text is scanned for them.
    pub(super) fn heredoc_body(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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
                    self.seen.push((start + i, start + close + 1));
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
    pub(super) fn backtick_text(&mut self, inner: &str, offset: usize, ctx: Ctx) -> Res<()> {
        let inner_ctx = ctx.deeper(Origin::CommandSubstitution)?;
        let text = unescape_backticks(inner);
        self.nested_text(&text, self.base + offset, inner_ctx)
    }

    /// Parses and walks `text` (not part of this tree) as statements in `ctx`.
    pub(super) fn nested_text(&mut self, text: &str, base: usize, ctx: Ctx) -> Res<()> {
        self.enter()?;
        let functions = std::mem::take(&mut self.functions);
        let (mut commands, functions) =
            walk_text(text, base, ctx, functions, self.frames, self.budget, &[])?;
        self.functions = functions;
        self.out.append(&mut commands);
        self.leave();
        Ok(())
    }

    /// `for NAME in WORDS; do …; done`: the loop variable is given each word in turn, noted as
    /// a command of assignments (`NAME=word` each, spanning the loop) so that the line's values
    /// know it (`for f in ~/.ssh/*; do cat $f; done` reads `~/.ssh/*`).
    pub(super) fn for_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
        let inner = ctx.deeper(Origin::Compound)?;
        let mut values = Vec::new();
        let mut body = None;
        let mut variable = None;
        for (field, child) in children_with_fields(node) {
            match field {
                Some("value") => values.push(child),
                Some("body") => body = Some(child),
                Some("variable") => variable = Some(child),
                _ => {}
            }
        }
        let index = self.open(node, ctx.with_origin(Origin::Compound));
        let mut words = Vec::new();
        for run in adjacent_runs(&values) {
            words.extend(self.words(&run, inner)?);
        }
        let name = variable.map(|v| self.text(v).to_string());
        let assignments = match name {
            // Without `in`, the loop goes over the positional parameters: not known.
            Some(name) if values.is_empty() => vec![format!("{name}=$@")],
            Some(name) => words
                .iter()
                .map(|w| match (&w.path, w.dynamic) {
                    (Some(p), false) => format!("{name}={p}"),
                    _ => format!("{name}={}", w.value),
                })
                .collect(),
            None => Vec::new(),
        };
        self.fill(index, assignments, Vec::new());
        match body {
            Some(body) => self.block(body, inner),
            None => Err(unparsable()),
        }
    }

    pub(super) fn case_statement(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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

    pub(super) fn function_definition(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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
    pub(super) fn test(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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
        if arithmetic {
            self.note_arithmetic(node);
        } else if !single_bracket {
            self.note_test_arithmetic(node);
        }
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
        // Tokens with no blank between them are one word for bash (`~/x` is read as `~` and
        // `/x`; `-f ~/.ssh/id_rsa` tests one path).
        let mut run: Vec<Node<'_>> = Vec::new();
        for token in tokens {
            let kind = token.fast_kind();
            // In `[ … ]`, `<` and `>` are redirections for bash (`[ a > b ]` writes to `b`).
            if single_bracket && (kind == "redirected_statement" || kind.contains(['<', '>'])) {
                return Err(unparsable());
            }
            if kind == "comment" {
                continue;
            }
            // (Arithmetic is an expression, not words: `d++` stays as its tokens.)
            let glued = !arithmetic
                && run
                    .last()
                    .is_some_and(|p| p.end_byte() == token.start_byte());
            if !glued && !run.is_empty() {
                argv.push(self.word(&run, ctx)?);
                run.clear();
            }
            run.push(token);
        }
        if !run.is_empty() {
            argv.push(self.word(&run, ctx)?);
        }
        self.fill(index, Vec::new(), argv);
        Ok(())
    }

    /// The operands of `[[ … ]]`'s arithmetic comparisons (`-eq`, `-lt`, …) and of `-v`, which
    /// bash evaluates as arithmetic.
    fn note_test_arithmetic(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let mut cursor = n.walk();
            let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
            let arithmetic = matches!(n.fast_kind(), "binary_expression" | "unary_expression")
                && children.iter().any(|c| {
                    c.fast_kind() == "test_operator"
                        && matches!(
                            self.text(*c),
                            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-v"
                        )
                });
            if arithmetic {
                self.note_arithmetic(n);
            } else {
                stack.extend(children);
            }
        }
    }

    /// `export X=1 Y`, `local -r Z`, `unset -f f`: a command whose words are the keyword and
    /// its arguments (`X=1` as one word).
    pub(super) fn declaration(&mut self, node: Node<'_>, ctx: Ctx) -> Res<()> {
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
    pub(super) fn assignment(&mut self, node: Node<'_>, ctx: Ctx) -> Res<(String, bool)> {
        let mut out = String::new();
        let mut dynamic = false;
        let mut values = Vec::new();
        for (field, child) in children_with_fields(node) {
            match (field, child.fast_kind()) {
                (Some("name"), "subscript") => {
                    self.note_arithmetic(child);
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
}
