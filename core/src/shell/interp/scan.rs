//! Finds the shell-outs in interpreter code: the calls named in the tables of `names.rs`
//! (with their arguments read by `args.rs`) and the command literals (`` `…` ``, `qx(…)`,
//! `%x(…)`).

use super::args::call_args;
use super::calls::{shell_of, shell_outs_of_call};
use super::lex::{is_delimiter, is_ident, lex_quoted, Quote};
use super::names::Strength::{self, *};
use super::{Lang, ShellOut};

/// The commands `code` shells out to.
pub(in crate::shell) fn shell_outs(lang: Lang, code: &str) -> Vec<ShellOut> {
    let mut out = Vec::new();
    let tables = super::names::tables(lang, code);
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
        for table in &tables {
            if let Some(c) = table.iter().find(|c| c.name == name) {
                let qualifier = qualifier(code, start);
                let strong = match c.strength {
                    Always => true,
                    Qualified(names) => qualifier.is_some_and(|q| names.contains(&q)),
                    Never => false,
                };
                if let Strength::Qualified(names) = c.strength {
                    // Deno and Bun calls only count on their namespace.
                    if matches!(names, ["Deno"] | ["Bun"]) && !strong {
                        continue;
                    }
                }
                if let Some(args) = call_args(lang, code, i) {
                    shell_outs_of_call(lang, c.shape, strong, &args, &mut out);
                }
                break;
            }
        }
    }
    out
}

/// The name a call is made on: `os` for `os.system(…)`, `""` for `f().system(…)`.
fn qualifier(code: &str, name_start: usize) -> Option<&str> {
    let before = code[..name_start].trim_end();
    let before = before
        .strip_suffix('.')
        .or_else(|| before.strip_suffix("::"))
        .or_else(|| before.strip_suffix("->"))?
        .trim_end();
    let start = before
        .bytes()
        .rposition(|b| !is_ident(b))
        .map_or(0, |p| p + 1);
    Some(&before[start..])
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
