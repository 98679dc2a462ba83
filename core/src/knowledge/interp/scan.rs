//! Finds the shell-outs in interpreter code: the calls named in the tables of `names.rs` and
//! `files.rs` (with their arguments read by `args.rs`, by the names `imports.rs` finds), and
//! the command literals (`` `…` ``, `qx(…)`, `%x(…)`).

use super::args::call_args;
use super::calls::{shell_of, shell_outs_of_call};
use super::changes::{change, open_for_writing, Site};
use super::imports::{imports, Imports};
use super::lex::{is_delimiter, is_ident, lex_quoted, Quote};
use super::names::Shape;
use super::names::Strength::{self, *};
use super::paths::module_name;
use super::{Lang, ShellOut};

/// The commands `code` shells out to.
pub(crate) fn shell_outs(lang: Lang, code: &str) -> Vec<ShellOut> {
    let mut out = Vec::new();
    let tables = super::names::tables(lang, code);
    let imports = imports(lang, code);
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) {
            // Command literals: back-ticks (perl, ruby, php), `qx…`, `%x…`.
            if let Some((shell_out, end)) = command_literal(lang, code, i) {
                out.push(shell_out);
                i = end.max(i + 1);
                continue;
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let name = &code[start..i];
        let prev = start.checked_sub(1).and_then(|p| bytes.get(p)).copied();
        // `$system`, `@exec`, `%popen` are variables.
        if matches!(prev, Some(b'$' | b'@' | b'%')) {
            continue;
        }
        if lang == Lang::Perl && name == "qx" {
            if let Some((shell_out, end)) = command_literal(lang, code, start) {
                out.push(shell_out);
                i = end.max(i);
            }
            continue;
        }
        if !tables.iter().any(|t| t.iter().any(|c| c.name == name))
            && imports.function(name).is_none()
        {
            continue;
        }
        let written = qualifier(code, start);
        // A name given to a module or a function stands for it (`sh.move`, `r(…)` after
        // `from shutil import rmtree as r`).
        let (name, qualifier) = match written.as_deref() {
            Some(q) => (name, Some(imports.module(q))),
            None => match imports.function(name) {
                Some((module, function)) => (function, Some(module)),
                None => (name, None),
            },
        };
        let call = Called {
            lang,
            code,
            start,
            after: i,
            name,
            qualifier,
            qualified: written.is_some(),
        };
        for table in &tables {
            if call.dispatch(table, &imports, &mut out) {
                break;
            }
        }
    }
    out
}

/// A call of a name of the tables.
struct Called<'a> {
    lang: Lang,
    code: &'a str,
    /// Where the name starts and ends.
    start: usize,
    after: usize,
    /// The name, as imported (`rmtree` for `r` after `from shutil import rmtree as r`).
    name: &'a str,
    qualifier: Option<&'a str>,
    /// Whether the name is written called on something (`os.remove`).
    qualified: bool,
}

impl Called<'_> {
    /// Adds what the call does if one of `table`'s functions of its name is called; whether
    /// one is.
    fn dispatch(
        &self,
        table: &[super::names::CallName],
        imports: &Imports,
        out: &mut Vec<ShellOut>,
    ) -> bool {
        for c in table.iter().filter(|c| c.name == self.name) {
            let strong = strong(c.strength, self.qualifier, imports);
            let site = Site {
                lang: self.lang,
                code: self.code,
                start: self.start,
                after: self.after,
                qualifier: self.qualifier,
                qualified: self.qualified,
                strong,
            };
            match c.shape {
                Shape::Like(what) => {
                    if change(&site, c.strength, what, out) {
                        return true;
                    }
                }
                Shape::Open => {
                    if let Some(call) = call_args(self.lang, self.code, self.after, true) {
                        shell_outs_of_call(self.lang, Shape::Open, strong, &call.args, out);
                        open_for_writing(&site, &call, out);
                    }
                    return true;
                }
                shape => {
                    if let Strength::Qualified(names) = c.strength {
                        // Deno and Bun calls only count on their namespace.
                        if matches!(names, ["Deno"] | ["Bun"]) && !strong {
                            return false;
                        }
                    }
                    if let Some(call) = call_args(self.lang, self.code, self.after, false) {
                        shell_outs_of_call(self.lang, shape, strong, &call.args, out);
                    }
                    return true;
                }
            }
        }
        false
    }
}

/// Whether a call by a name of `strength`, made on `qualifier`, counts (see [`Strength`]).
fn strong(strength: Strength, qualifier: Option<&str>, imports: &Imports) -> bool {
    match strength {
        Always => true,
        Qualified(names) => match qualifier {
            Some(q) => names.contains(&q),
            // `from os import *`, `include FileUtils`
            None => imports.star.iter().any(|m| names.contains(&m.as_str())),
        },
        Never => false,
        Function(names) => qualifier.is_none_or(|q| names.contains(&q)),
        Method { .. } => qualifier.is_some(),
    }
}

/// The name a call is made on: `os` for `os.system(…)`, the module for
/// `__import__("os").remove(…)` and `require("fs").rmSync(…)`, `""` for `f().system(…)`.
fn qualifier(code: &str, name_start: usize) -> Option<String> {
    let before = code[..name_start].trim_end();
    let before = before
        .strip_suffix('.')
        .or_else(|| before.strip_suffix("::"))
        .or_else(|| before.strip_suffix("->"))?
        .trim_end();
    if let Some(module) = imported_module(before) {
        return Some(module);
    }
    let start = before
        .bytes()
        .rposition(|b| !is_ident(b))
        .map_or(0, |p| p + 1);
    Some(before[start..].to_string())
}

/// `__import__("os")`, `require('fs')`, `importlib.import_module("os")` ending `before`: the
/// module's name.
fn imported_module(before: &str) -> Option<String> {
    let inner = before.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let callee = inner[..open].trim_end();
    let importer = ["__import__", "require", "import_module"]
        .iter()
        .any(|f| callee.ends_with(f));
    let literal = inner[open + 1..].trim();
    let quote = literal
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let name = literal.strip_prefix(quote)?.strip_suffix(quote)?;
    let quoted = !name.contains(['\'', '"', '`']);
    (importer && quoted).then(|| module_name(name))
}

/// `` `…` ``, `qx(…)`, `%x(…)` at byte `i`: the command and the end of the literal.
fn command_literal(lang: Lang, code: &str, i: usize) -> Option<(ShellOut, usize)> {
    let bytes = code.as_bytes();
    match (lang, bytes[i]) {
        (Lang::Perl | Lang::Ruby | Lang::Php, b'`') => {
            let (lit, end) = lex_quoted(lang, code, i, b'`', Quote::Command)?;
            Some((shell_of(lit), end))
        }
        (Lang::Ruby, b'%') if bytes.get(i + 1) == Some(&b'x') => {
            let open = *bytes.get(i + 2)?;
            if !is_delimiter(open) {
                return None;
            }
            let (lit, end) = lex_quoted(lang, code, i + 2, open, Quote::Command)?;
            Some((shell_of(lit), end))
        }
        (Lang::Perl, b'q')
            if bytes.get(i + 1) == Some(&b'x')
                && (i == 0 || !is_ident(bytes[i - 1]))
                && !bytes.get(i + 2).is_some_and(|b| is_ident(*b)) =>
        {
            let mut j = i + 2;
            while bytes.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
                j += 1;
            }
            let open = *bytes.get(j)?;
            if !is_delimiter(open) || open == b'=' || open == b',' {
                return None;
            }
            let kind = if open == b'\'' {
                Quote::Single
            } else {
                Quote::Command
            };
            let (mut lit, end) = lex_quoted(lang, code, j, open, kind)?;
            lit.dynamic &= open != b'\'';
            Some((shell_of(lit), end))
        }
        _ => None,
    }
}
