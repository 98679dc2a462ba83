//! The walk of words: substitutions inside them, quote removal, and what a word reads as a
//! path.

use tree_sitter::Node;

use super::brace::brace_expand_word;
use super::driver::{unparsable, Res};
use super::parse::{children_with_fields, frontier, FastKind};
use super::unescape::{ansi_c_inner, decode_ansi_c, unescape_backticks, unescape_double_quoted};
use super::walk::{Ctx, Walker};
use super::{Origin, SimpleCommand, Word};

impl Walker<'_> {
    // ----- substitutions -----

    /// `$(…)`, back-ticks, `<(…)`, `>(…)`: the statements inside, one level deeper.
    pub(super) fn subst(&mut self, node: Node<'_>, origin: Origin, ctx: Ctx) -> Res<()> {
        self.seen.push((node.start_byte(), node.end_byte()));
        let mut inner = ctx.deeper(origin)?;
        // `>(sh)` reads what the command writes: its first command reads a pipe.
        if origin == Origin::ProcessSubstitution && self.text(node).starts_with(">(") {
            inner.piped = true;
        }
        self.enter()?;
        let result = self.subst_inner(node, inner);
        self.leave();
        result
    }

    pub(super) fn subst_inner(&mut self, node: Node<'_>, inner: Ctx) -> Res<()> {
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
    pub(super) fn scan(&mut self, node: Node<'_>, ctx: Ctx) -> Res<bool> {
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
        if matches!(node.fast_kind(), "arithmetic_expansion" | "subscript") {
            self.note_arithmetic(node);
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
                    | "subscript"
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
                "subscript" => {
                    self.enter()?;
                    dynamic |= self.scan(stop, ctx)?;
                    self.leave();
                }
                // The parser leaves a substitution inside `${x:-…}` as plain text
                // (`${x:-`rm -rf ~`}`): a command the walk cannot see is a failure.
                "word" if self.text(stop).contains('`') || self.text(stop).contains("$(") => {
                    return Err(unseen_substitution());
                }
                _ => {}
            }
        }
        Ok(dynamic)
    }

    // ----- words -----

    /// The segments of one shell word made of `parts` (adjacent nodes), quotes removed.
    pub(super) fn segments(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<WordAcc> {
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
    pub(super) fn word(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<Word> {
        Ok(word_of(&self.segments(parts, ctx)?.segs, false))
    }

    /// The words one command argument becomes after brace expansion (`{rm,-rf,/}` is three).
    pub(super) fn words(&mut self, parts: &[Node<'_>], ctx: Ctx) -> Res<Vec<Word>> {
        let acc = self.segments(parts, ctx)?;
        Ok(brace_expand_word(acc.segs))
    }

    pub(super) fn part(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        self.enter()?;
        let result = self.part_inner(node, acc, ctx);
        self.leave();
        result
    }

    pub(super) fn part_inner(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
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
            "translated_string" | "concatenation" => self.each_part(node, acc, ctx)?,
            "simple_expansion" => simple_expansion(raw, acc),
            "expansion" => self.parameter_expansion(node, acc, ctx)?,
            "command_substitution" => self.command_substitution(node, acc, ctx)?,
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

    /// The parts of `$"…"` or of a concatenation, in turn (the `$` of `$"…"` dropped).
    fn each_part(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
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
        Ok(())
    }

    /// `${…}`: the home folder, a value known before the command runs, or dynamic.
    fn parameter_expansion(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        self.note_indirection(node);
        let raw = self.text(node);
        if raw == "${HOME}" {
            acc.segs.push(Seg::Home(raw.to_string()));
        } else {
            self.scan(node, ctx)?;
            let value = home_expansion(raw).or_else(|| working_folder(raw).map(str::to_string));
            acc.computed_or_dynamic(raw, value);
        }
        Ok(())
    }

    /// `$(…)`: its commands walked; its output when they only print known text, else dynamic.
    fn command_substitution(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
        let raw = self.text(node);
        let start = self.out.len();
        self.subst(node, Origin::CommandSubstitution, ctx)?;
        acc.computed_or_dynamic(
            raw,
            static_output(self.out.get(start..).unwrap_or_default()),
        );
        Ok(())
    }

    /// `${!x}` (the variable `x` names) and `${x@P}` (`x` expanded as a prompt) evaluate the
    /// value of `x`: noted as [`SimpleCommand::evaluates`] does.
    fn note_indirection(&mut self, node: Node<'_>) {
        let children = {
            let mut cursor = node.walk();
            node.children(&mut cursor).collect::<Vec<_>>()
        };
        let kinds: Vec<&str> = children.iter().map(|c| c.fast_kind()).collect();
        let name = match kinds.as_slice() {
            ["${", "!", "variable_name", "}"] => children.get(2),
            ["${", "variable_name", "@", "P", "}"] => children.get(1),
            _ => None,
        };
        if let Some(n) = name {
            let text = self.text(*n).to_string();
            self.evaluated.push((n.start_byte(), text));
        }
        // `${s:offset:length}`: both are arithmetic expressions (`${s:x}` evaluates `x`).
        if kinds.get(2) == Some(&":") && kinds.get(1) == Some(&"variable_name") {
            for c in children.iter().skip(3).filter(|c| c.is_named()) {
                self.note_arithmetic(*c);
            }
        }
    }

    /// A bare `$` token right before a `"`: the `$` of `$"…"`, which bash drops.
    pub(super) fn translation_dollar(&self, node: Node<'_>) -> bool {
        !node.is_named()
            && node.fast_kind() == "$"
            && node.byte_range().len() == 1
            && self.src.as_bytes().get(node.end_byte()) == Some(&b'"')
    }

    /// Whether an anonymous token inside a word expands for bash: tree-sitter sometimes leaves
    /// a `$` bare before the name it expands (`}xb$EO` is `}xb$` then `EO`), or makes `$$`
    /// or an empty back-tick pair one token.
    pub(super) fn token_expands(&mut self, node: Node<'_>) -> bool {
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
    pub(super) fn double_quoted(&mut self, node: Node<'_>, acc: &mut WordAcc, ctx: Ctx) -> Res<()> {
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
pub(super) enum Seg {
    /// Literal text, and whether it was quoted (quotes or a backslash).
    Lit(String, bool),
    /// `$HOME` or `${HOME}`, as written.
    Home(String),
    /// An expansion whose value is unknown, as written.
    Dyn(String),
    /// An expansion the analysis evaluates (`$(echo ~/x)`, `${HOME%/}`): as written, and its
    /// value (a leading `~` is the home folder). Still computed: never a read-only read.
    Computed(String, String),
}

impl Seg {
    pub(super) fn text(&self) -> &str {
        match self {
            Seg::Lit(text, _) | Seg::Home(text) | Seg::Dyn(text) | Seg::Computed(text, _) => text,
        }
    }
}

/// A word being built from its parts.
#[derive(Default)]
pub(super) struct WordAcc {
    pub(super) segs: Vec<Seg>,
}

impl WordAcc {
    pub(super) fn literal(&mut self, text: &str, quoted: bool) {
        if let Some(Seg::Lit(last, q)) = self.segs.last_mut() {
            if *q == quoted && !(last.is_empty() && quoted) {
                last.push_str(text);
                return;
            }
        }
        self.segs.push(Seg::Lit(text.to_string(), quoted));
    }

    pub(super) fn dynamic(&mut self, source: &str) {
        self.segs.push(Seg::Dyn(source.to_string()));
    }

    pub(super) fn computed(&mut self, source: &str, value: String) {
        self.segs.push(Seg::Computed(source.to_string(), value));
    }

    /// A computed part when its value is known before the command runs, else dynamic.
    pub(super) fn computed_or_dynamic(&mut self, source: &str, value: Option<String>) {
        match value {
            Some(value) => self.computed(source, value),
            None => self.dynamic(source),
        }
    }
}

/// Unquoted word text: `\x` is a quoted `x`, a backslash-newline disappears.
pub(super) fn unquoted_segments(text: &str, acc: &mut WordAcc) {
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
pub(super) fn word_of(segs: &[Seg], forced_dynamic: bool) -> Word {
    let value: String = segs.iter().map(Seg::text).collect();
    // `if=~/x`, `--file=$HOME/x`: the path is the value after the `=`.
    let (dynamic, path) = match assigned_value(segs) {
        Some(rest) => path_reading(&rest),
        None => match attached_home(segs) {
            // `-o$HOME/x`: a short option with a path from home attached, `-o~/x` as a path.
            Some((option, rest)) => {
                let (dynamic, path) = path_reading(rest);
                (dynamic, path.map(|p| format!("{option}{p}")))
            }
            None => path_reading(segs),
        },
    };
    let dynamic = forced_dynamic || dynamic;
    let path = match (dynamic, forced_dynamic) {
        (false, _) => path,
        (true, false) => evaluated_path(assigned_value(segs).as_deref().unwrap_or(segs)),
        (true, true) => None,
    };
    Word {
        value,
        dynamic,
        path,
    }
}

/// A word of a cluster of short options with `$HOME` attached (`-o$HOME/x`, `-uo"$HOME"/x`):
/// the options, and the segments from `$HOME` on.
fn attached_home(segs: &[Seg]) -> Option<(&str, &[Seg])> {
    let [Seg::Lit(option, false), rest @ ..] = segs else {
        return None;
    };
    let cluster = option.len() > 1
        && option.starts_with('-')
        && !option.starts_with("--")
        && option[1..].bytes().all(|b| b.is_ascii_alphanumeric());
    // A quote may open before `$HOME` (`-t"$HOME/x"`): an empty literal.
    let from = rest
        .iter()
        .position(|s| !matches!(s, Seg::Lit(t, _) if t.is_empty()))?;
    let rest = &rest[from..];
    (cluster && matches!(rest.first(), Some(Seg::Home(_)))).then_some((option.as_str(), rest))
}

/// The path a word spells when every expansion in it was evaluated (`$(echo ~)/.ssh`), the
/// home folder as a leading `~`.
fn evaluated_path(segs: &[Seg]) -> Option<String> {
    if !segs.iter().any(|s| matches!(s, Seg::Computed(..))) {
        return None;
    }
    let mut out = String::new();
    for seg in segs {
        let at_start = out.is_empty();
        match seg {
            Seg::Lit(t, quoted) => {
                if at_start && *quoted && t.starts_with('~') {
                    out.push_str("./");
                }
                out.push_str(t);
            }
            Seg::Home(_) if at_start => out.push('~'),
            Seg::Computed(_, v) if !v.starts_with('~') || at_start => out.push_str(v),
            // `x$(echo ~)` is not the home folder; nor an unknown expansion anything.
            Seg::Home(_) | Seg::Computed(..) | Seg::Dyn(_) => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `$PWD` is the working folder, `~+` to a path; `$OLDPWD` the one before, `~-`.
fn working_folder(raw: &str) -> Option<&'static str> {
    match raw {
        "$PWD" | "${PWD}" => Some("~+"),
        "$OLDPWD" | "${OLDPWD}" => Some("~-"),
        _ => None,
    }
}

/// The value of `${HOME%/}` and the like: `HOME` itself, when the operator can only give it
/// (a default for an unset or empty `HOME`, or a trailing `/` removed).
fn home_expansion(raw: &str) -> Option<String> {
    let rest = raw.strip_prefix("${HOME")?.strip_suffix('}')?;
    let keeps = ["%/", "%%/", ""].contains(&rest)
        || ["-", ":-", "=", ":=", "?", ":?"]
            .iter()
            .any(|op| rest.starts_with(op) && !rest[op.len()..].contains(['$', '`']));
    keeps.then(|| "~".to_string())
}

/// What a command substitution prints when it is one `echo` or `printf` of words known
/// before the line runs (`$(echo ~/.ssh/id_rsa)`, `$(printf %s x)`), its trailing newlines
/// removed; `None` for anything else. Output with blanks would split into several words:
/// not evaluated.
fn static_output(commands: &[SimpleCommand]) -> Option<String> {
    let [cmd] = commands else {
        return None;
    };
    if !cmd.assignments.is_empty()
        || !cmd.redirects.is_empty()
        || cmd.argv.iter().any(|w| w.dynamic)
    {
        return None;
    }
    // A word from home (`~/x`, `$HOME/x`) prints the home folder, read as a leading `~`.
    let text = |w: &Word| match &w.path {
        Some(p) if p.starts_with(['~', '.']) && w.value.starts_with('~') => p.clone(),
        Some(p) if p.starts_with('~') && w.value.starts_with("$HOME") => p.clone(),
        Some(p) if p.starts_with('~') && w.value.starts_with("${HOME}") => p.clone(),
        _ => w.value.clone(),
    };
    let args = cmd.argv.get(1..)?;
    let out = match cmd.argv.first()?.value.as_str() {
        "echo" => {
            let skip = args
                .iter()
                .take_while(|w| {
                    w.value.len() > 1
                        && w.value.starts_with('-')
                        && w.value[1..].bytes().all(|b| matches!(b, b'n' | b'E'))
                })
                .count();
            args[skip..].iter().map(text).collect::<Vec<_>>().join(" ")
        }
        "printf" => {
            let (format, rest) = args.split_first()?;
            match format.value.as_str() {
                "%s" | "%s\\n" => rest.iter().map(text).collect(),
                f if rest.is_empty() && !f.contains(['%', '\\']) => text(format),
                // `printf '%s/.ssh/%s' "$HOME" id_rsa`: each `%s` given one word.
                f => {
                    let f = f.strip_suffix("\\n").unwrap_or(f);
                    let pieces: Vec<&str> = f.split("%s").collect();
                    let literal = pieces.iter().all(|p| !p.contains(['%', '\\']));
                    if !literal || pieces.len() != rest.len() + 1 {
                        return None;
                    }
                    let mut out = pieces[0].to_string();
                    for (w, piece) in rest.iter().zip(&pieces[1..]) {
                        out.push_str(&text(w));
                        out.push_str(piece);
                    }
                    out
                }
            }
        }
        // `$(find ROOT …)` names files somewhere below ROOT: a wildcard the protections see.
        "find" => {
            let roots: Vec<&Word> = args
                .iter()
                .skip_while(|w| matches!(w.value.as_str(), "-H" | "-L" | "-P"))
                .take_while(|w| !w.value.starts_with('-') || w.value == "--")
                .filter(|w| w.value != "--")
                .collect();
            match roots.as_slice() {
                [root] => format!("{}/**", text(root).trim_end_matches('/')),
                _ => return None,
            }
        }
        _ => return None,
    };
    let out = out.trim_end_matches('\n');
    (!out.is_empty() && !out.contains(char::is_whitespace) && !out.contains('\\'))
        .then(|| out.to_string())
}

/// The segments after the first `=` of a word of the shape `name=…` or `--flag=…` (literal
/// up to the `=`, see [`super::assigned_name`]).
pub(super) fn assigned_value(segs: &[Seg]) -> Option<Vec<Seg>> {
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
pub(super) fn path_reading(segs: &[Seg]) -> (bool, Option<String>) {
    let value: String = segs.iter().map(Seg::text).collect();
    let mut dynamic = segs
        .iter()
        .any(|s| matches!(s, Seg::Dyn(_) | Seg::Computed(..)));
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

pub(super) fn literal_word(value: String) -> Word {
    Word {
        path: Some(value.clone()),
        value,
        dynamic: false,
    }
}

/// Why a line with a substitution the parser did not read as one is not analysed.
fn unseen_substitution() -> String {
    "the command substitutes a command inside `${…}` that cannot be analysed".to_string()
}

/// `$NAME`: the home folder, the working folder, or dynamic.
fn simple_expansion(raw: &str, acc: &mut WordAcc) {
    if raw == "$HOME" {
        acc.segs.push(Seg::Home(raw.to_string()));
    } else if let Some(folder) = working_folder(raw) {
        acc.computed(raw, folder.to_string());
    } else {
        acc.dynamic(raw);
    }
}
