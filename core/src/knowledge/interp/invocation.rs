//! An interpreter's command line: the code it is given (`-c`, `-e`, `--eval`, `-r`, …), or the
//! script it reads, from a file or its standard input.

use std::iter::Peekable;
use std::str::CharIndices;

use super::Lang;
use crate::command::options::{self, Spec};
use crate::command::Word;

/// What an interpreter command line runs.
#[derive(Debug, Default)]
pub(crate) struct Invocation {
    /// Code given on the command line.
    pub codes: Vec<Word>,
    /// The program is read from standard input (no code, no script, or the script `-`).
    pub stdin: bool,
    /// The script file, if one is named.
    pub script: Option<Word>,
}

const PYTHON: Spec = Spec {
    short_value: "cmWXQ",
    short_optional: "",
    short_flags: "bBdEhiIOPqRsSuvVx3",
    short_ambiguous: "",
    long_value: &["check-hash-based-pycs"],
    long_optional: &[],
    long_flags: &["help", "version", "help-env", "help-xoptions", "help-all"],
    numeric: false,
};

const PHP: Spec = Spec {
    short_value: "rBREcdfzFtS",
    short_optional: "",
    short_flags: "aehHilmnqsvw",
    short_ambiguous: "",
    long_value: &[],
    long_optional: &[],
    long_flags: &[],
    numeric: false,
};

/// Reads an interpreter's command line.
pub(crate) fn invocation(lang: Lang, argv: &[Word]) -> Invocation {
    let mut inv = Invocation::default();
    let operand = match lang {
        Lang::Python => {
            let parsed = options::parse(&PYTHON, argv, 1);
            // Options after `-c CODE` or `-m MODULE` belong to the program.
            let first = parsed.opts.iter().find(|o| o.name == "c" || o.name == "m");
            match first {
                Some(o) if o.name == "c" => {
                    inv.codes.extend(o.value.clone());
                    return inv;
                }
                Some(_) => return inv,
                None => parsed.operands,
            }
        }
        Lang::Php => {
            let parsed = options::parse(&PHP, argv, 1);
            for o in &parsed.opts {
                if matches!(o.name.as_str(), "r" | "B" | "R" | "E") {
                    inv.codes.extend(o.value.clone());
                }
            }
            if !inv.codes.is_empty() || parsed.has("f") || parsed.has("F") || parsed.has("S") {
                return inv;
            }
            parsed.operands
        }
        Lang::Perl | Lang::Ruby => {
            let next = switch_codes(lang, argv, &mut inv.codes);
            if !inv.codes.is_empty() {
                return inv;
            }
            next
        }
        Lang::Node => {
            let next = node_codes(argv, &mut inv.codes);
            if !inv.codes.is_empty() {
                return inv;
            }
            next
        }
        Lang::Deno => {
            if argv.get(1).is_some_and(|w| w.value == "eval") {
                if let Some(code) = deno_eval_code(argv) {
                    inv.codes.push(code.clone());
                }
            }
            return inv;
        }
    };
    match argv.get(operand) {
        None => inv.stdin = true,
        Some(w) if w.value == "-" => inv.stdin = true,
        Some(w) => inv.script = Some(w.clone()),
    }
    inv
}

/// The `-e` code of a perl or ruby command line (its switches are clustered, some take the
/// rest of their word); returns the index of the first operand.
fn switch_codes(lang: Lang, argv: &[Word], codes: &mut Vec<Word>) -> usize {
    first_operand(argv, |i, word| {
        if let Some(long) = word.value.strip_prefix("--") {
            return if ruby_long_takes_next(lang, long) {
                2
            } else {
                1
            };
        }
        let skip_next = switch_cluster(lang, word, argv.get(i + 1), codes);
        if skip_next {
            2
        } else {
            1
        }
    })
}

/// Walks the options of a command line from `argv[1]`, `read` reading the option word at
/// `i` and saying how many words it takes; returns the index of the first operand: the word
/// after `--`, or the first that is not an option (`-` is stdin).
fn first_operand(argv: &[Word], mut read: impl FnMut(usize, &Word) -> usize) -> usize {
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        i += read(i, word);
    }
    i
}

/// Whether the long option `--long` takes the next word as its value (only ruby's do:
/// `--encoding x`).
fn ruby_long_takes_next(lang: Lang, long: &str) -> bool {
    lang == Lang::Ruby
        && !long.contains('=')
        && matches!(
            long,
            "encoding" | "external-encoding" | "internal-encoding" | "enable" | "disable" | "dump"
        )
}

/// Reads the cluster of switches `word` (`-ne`, `-pi.bak`, `-l015e`), adding the code of
/// its `-e` to `codes`; `next` is the word after it. Returns whether `next` was taken.
fn switch_cluster(lang: Lang, word: &Word, next: Option<&Word>, codes: &mut Vec<Word>) -> bool {
    let cluster = &word.value[1..];
    let mut chars = cluster.char_indices().peekable();
    while let Some((pos, c)) = chars.next() {
        let rest = &cluster[pos + c.len_utf8()..];
        let code_switch = c == 'e' || (lang == Lang::Perl && c == 'E');
        if code_switch {
            if !rest.is_empty() {
                codes.push(Word {
                    value: rest.to_string(),
                    dynamic: word.dynamic,
                    path: None,
                });
                return false;
            }
            codes.extend(next.cloned());
            return true;
        }
        let rest_or_next = match lang {
            Lang::Perl => "I",
            _ => "IrCE",
        };
        let rest_only = match lang {
            Lang::Perl => "iMmxdDCF",
            _ => "iKTWxF",
        };
        if rest_or_next.contains(c) {
            return rest.is_empty();
        }
        if rest_only.contains(c) {
            return false;
        }
        if c == 'l' || c == '0' {
            skip_number(c, &mut chars);
        }
    }
    false
}

/// Skips the number after `-l` or `-0`: octal digits (`-l015`), or for `-0` hex ones after
/// `x` (`-0x1ff`).
fn skip_number(switch: char, chars: &mut Peekable<CharIndices<'_>>) {
    let hex = switch == '0' && chars.peek().is_some_and(|(_, d)| *d == 'x');
    if hex {
        chars.next();
    }
    while chars.peek().is_some_and(|(_, d)| {
        if hex {
            d.is_ascii_hexdigit()
        } else {
            ('0'..='7').contains(d)
        }
    }) {
        chars.next();
    }
}

/// The `-e`/`--eval`/`-p`/`--print` code of a node (or bun) command line; returns the index
/// of the first operand.
fn node_codes(argv: &[Word], codes: &mut Vec<Word>) -> usize {
    first_operand(argv, |i, word| {
        let a = word.value.as_str();
        let attached = |name: &str| {
            a.strip_prefix(name)
                .and_then(|r| r.strip_prefix('='))
                .map(|v| Word {
                    value: v.to_string(),
                    dynamic: word.dynamic,
                    path: None,
                })
        };
        if let Some(code) = attached("--eval").or_else(|| attached("--print")) {
            codes.push(code);
            return 1;
        }
        match a {
            "-e" | "--eval" | "-p" | "--print" | "-pe" | "-ep" => {
                codes.extend(argv.get(i + 1).cloned());
                2
            }
            "-r"
            | "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "-C"
            | "--conditions"
            | "--input-type"
            | "--title"
            | "--env-file" => 2,
            _ => 1,
        }
    })
}

/// The code of `deno eval [options] CODE`.
fn deno_eval_code(argv: &[Word]) -> Option<&Word> {
    let mut i = 2;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if a == "--" {
            return argv.get(i + 1);
        }
        if !a.starts_with('-') {
            return Some(word);
        }
        let takes_next = !a.contains('=')
            && matches!(
                a,
                "--ext" | "-c" | "--config" | "--import-map" | "--location" | "--cert" | "--seed"
            );
        i += if takes_next { 2 } else { 1 };
    }
    None
}
