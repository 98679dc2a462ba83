//! The command a call that changes files equals (`os.rename(A, B)` is `mv A B`), with the
//! paths of its arguments read by `paths.rs`: that command's effects, by where the paths are,
//! are the call's. A call whose changed path is computed when the code runs is unknown (what
//! it changes cannot be judged), except a delete: `rm` of a computed path says so itself.

use super::args::{call_args, Arg, Call};
use super::lex::{is_ident, Lit};
use super::names::{Change, Mode, Operand, Strength};
use super::paths::{is_path_object, path_of, Named};
use super::{Lang, ShellOut};
use crate::command::Word;

/// Where a call is in the code, and what it is called on.
pub(super) struct Site<'a> {
    pub(super) lang: Lang,
    pub(super) code: &'a str,
    /// Where the called name starts and ends.
    pub(super) start: usize,
    pub(super) after: usize,
    /// The name it is called on (`os`), modules' given names resolved.
    pub(super) qualifier: Option<&'a str>,
    /// Whether it is written called on something (`os.remove`, not `remove` imported alone).
    pub(super) qualified: bool,
    /// Whether the call counts by its strength (see [`Strength`]).
    pub(super) strong: bool,
}

/// Modules and classes whose functions are not a path object's methods (`os.unlink(p)`).
const MODULES: &[&str] = &[
    "os",
    "posix",
    "shutil",
    "io",
    "codecs",
    "builtins",
    "sys",
    "fs",
    "fsp",
    "promises",
    "fse",
    "Deno",
    "Bun",
    "File",
    "Dir",
    "FileUtils",
    "IO",
    "FU",
];

/// Adds what a call of a function that changes files (`change`, counted by `strength`) does;
/// whether the call is that function's (else another function of the name may be).
pub(super) fn change(
    site: &Site,
    strength: Strength,
    change: Change,
    out: &mut Vec<ShellOut>,
) -> bool {
    let (lang, code) = (site.lang, site.code);
    let receiver = match strength {
        Strength::Method { path, .. } => {
            let module = site.qualifier.is_none_or(|q| MODULES.contains(&q));
            let Some((from, to)) = receiver(code, site.start).filter(|_| !module) else {
                return false;
            };
            let text = code[from..to].trim();
            if path && !is_path_object(lang, code, text) {
                return false;
            }
            Some((from, text))
        }
        _ if !site.strong => return false,
        _ => None,
    };
    if receiver.is_none() && change.mode.is_none() && is_reference(site) {
        // `map(os.remove, files)`, `array_map('unlink', $files)`: called on paths only known
        // when it runs.
        let from = self::receiver(code, site.start).map_or(site.start, |(r, _)| r);
        let source = code[from..site.after].to_string();
        emit(site, change.command, &[], source, out);
        return true;
    }
    let call = match call_args(lang, code, site.after, true) {
        Some(c) => c,
        // `Pathname.new(p).rmtree`: a ruby method called without arguments; perl's `unlink;`
        // (of `$_`).
        None if receiver.is_some() || lang == Lang::Perl => Call {
            end: site.after,
            ..Call::default()
        },
        None => return false,
    };
    // Perl's and ruby's calls without parentheses are words of text in a string
    // (`print "rename the file"`).
    let parenthesised = code[site.after..].trim_start().starts_with('(');
    if !parenthesised && receiver.is_none() && in_string(code, site.start) {
        return false;
    }
    let given = Given::of(lang, &call);
    if let Strength::Method { args: Some(n), .. } = strength {
        if given.positional.len() != n {
            return false;
        }
    }
    let mut command: Vec<&str> = change.command.to_vec();
    if let Some(mode) = change.mode {
        match writes(mode, &given) {
            None => return true,
            Some(true) => command.push("-a"),
            Some(false) => {}
        }
    }
    let mut sources: Vec<Src> = Vec::new();
    for op in change.operands {
        match *op {
            Operand::Arg(n) => match given.positional.get(n) {
                Some(a) => sources.push(a.clone()),
                None => return false,
            },
            Operand::From(n) => {
                for a in given.positional.iter().skip(n) {
                    match a.arg {
                        Arg::Object(_) => {}
                        Arg::List(items) => {
                            sources.extend(items.iter().map(|arg| Src { arg, text: "" }))
                        }
                        _ => sources.push(a.clone()),
                    }
                }
            }
            Operand::Receiver => sources.push(Src {
                arg: &RECEIVER,
                text: receiver.map_or("", |(_, t)| t),
            }),
        }
    }
    emit(site, &command, &sources, call_text(site, &call), out);
    true
}

/// Perl's and ruby's `open` for writing (`open(my $f, ">>", P)`, `open(F, ">P")`,
/// `File.open(P, "w")`): the file it writes, as `tee P`.
pub(super) fn open_for_writing(site: &Site, call: &Call, out: &mut Vec<ShellOut>) {
    let given = Given::of(site.lang, call);
    let source = call_text(site, call);
    let perl_mode = |t: &str| {
        let t = t.trim_start();
        let m = if t.starts_with(">>") || t.starts_with("+>>") {
            Some(true)
        } else if t.starts_with('>') || t.starts_with("+<") || t.starts_with("+>") {
            Some(false)
        } else {
            None
        };
        m.filter(|_| !t.contains('|'))
    };
    match site.lang {
        Lang::Perl => {
            let Some(mode) = given.positional.get(1) else {
                return;
            };
            match (mode.arg, given.positional.get(2)) {
                // `open(my $f, ">>", PATH)`
                (Arg::Str(lit), Some(path)) => {
                    if let Some(append) = perl_mode(&lit.text) {
                        let command: &[&str] = if append { &["tee", "-a"] } else { &["tee"] };
                        emit(site, command, std::slice::from_ref(path), source, out);
                    }
                }
                // `open(F, ">PATH")`: the path is the rest of the string.
                (Arg::Str(lit), None) => {
                    let Some(append) = perl_mode(&lit.text) else {
                        return;
                    };
                    let rest = lit
                        .text
                        .trim_start()
                        .trim_start_matches(['+', '>', '<'])
                        .trim();
                    let arg = Arg::Str(Lit {
                        text: rest.to_string(),
                        dynamic: lit.dynamic,
                    });
                    // As a string of its own, for its interpolations.
                    let text = format!("\"{rest}\"");
                    let command: &[&str] = if append { &["tee", "-a"] } else { &["tee"] };
                    emit(
                        site,
                        command,
                        &[Src {
                            arg: &arg,
                            text: &text,
                        }],
                        source,
                        out,
                    );
                }
                // `open(F, $x)`: a path given once as `">…"` writes.
                (_, None) => {
                    if let Some(Named::Path(p)) = path_of(site.lang, site.code, mode.text) {
                        if let Some(append) = perl_mode(&p) {
                            let path = p.trim_start_matches(['+', '>', '<']).trim().to_string();
                            let arg = Arg::Str(Lit {
                                text: path,
                                dynamic: false,
                            });
                            let command: &[&str] = if append { &["tee", "-a"] } else { &["tee"] };
                            emit(
                                site,
                                command,
                                &[Src {
                                    arg: &arg,
                                    text: "",
                                }],
                                source,
                                out,
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        Lang::Ruby => {
            let Some(path) = given.positional.first() else {
                return;
            };
            if matches!(path.arg, Arg::Str(l) if l.text.trim_start().starts_with('|')) {
                return;
            }
            if let Some(append) = writes(Mode::Str(1, "mode"), &given) {
                let command: &[&str] = if append { &["tee", "-a"] } else { &["tee"] };
                emit(site, command, std::slice::from_ref(path), source, out);
            }
        }
        _ => {}
    }
}

/// A receiver stands in no argument of its own.
static RECEIVER: Arg = Arg::Other(String::new());

/// One argument: what the lexer made of it, and its source text.
#[derive(Clone)]
struct Src<'a> {
    arg: &'a Arg,
    text: &'a str,
}

/// A call's arguments by position and by keyword (`mode="w"`, `mode: "w"`).
struct Given<'a> {
    positional: Vec<Src<'a>>,
    keywords: Vec<(&'a str, Src<'a>)>,
}

impl<'a> Given<'a> {
    fn of(lang: Lang, call: &'a Call) -> Given<'a> {
        let mut g = Given {
            positional: Vec::new(),
            keywords: Vec::new(),
        };
        for (arg, text) in call.args.iter().zip(&call.texts) {
            match keyword(lang, text) {
                Some((key, value)) => g.keywords.push((key, Src { arg, text: value })),
                None => g.positional.push(Src { arg, text }),
            }
        }
        g
    }

    fn keyword(&self, key: &str) -> Option<&Src<'a>> {
        self.keywords
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| s)
    }
}

/// A keyword argument's name and value: python's `mode="w"`, ruby's `mode: "w"` or
/// `:mode => "w"`.
fn keyword(lang: Lang, text: &str) -> Option<(&str, &str)> {
    let name_end = |s: &str| s.bytes().position(|b| !is_ident(b)).unwrap_or(s.len());
    match lang {
        Lang::Python => {
            let n = name_end(text);
            let rest = text[n..].trim_start();
            let value = rest.strip_prefix('=').filter(|v| !v.starts_with('='))?;
            (n > 0).then(|| (&text[..n], value.trim()))
        }
        Lang::Ruby => {
            if let Some(sym) = text.strip_prefix(':') {
                let n = name_end(sym);
                let value = sym[n..].trim_start().strip_prefix("=>")?;
                return (n > 0).then(|| (&sym[..n], value.trim()));
            }
            let n = name_end(text);
            let value = text[n..]
                .strip_prefix(':')
                .filter(|v| !v.starts_with(':'))?;
            (n > 0).then(|| (&text[..n], value.trim()))
        }
        _ => None,
    }
}

/// Whether an open writes (`Some`, appending or not) or only reads (`None`), by its `mode`.
fn writes(mode: Mode, given: &Given) -> Option<bool> {
    match mode {
        Mode::Str(n, key) => {
            let m = given.keyword(key).or_else(|| given.positional.get(n))?;
            match m.arg {
                Arg::Str(lit) if !lit.dynamic => mode_string(&lit.text),
                _ => flags(m.text),
            }
        }
        Mode::Flags(n) => {
            let m = given.positional.get(n)?;
            match m.arg {
                Arg::Str(lit) if !lit.dynamic => mode_string(&lit.text),
                _ => flags(m.text),
            }
        }
        Mode::AppendIf(n) => Some(
            given
                .positional
                .get(n)
                .is_some_and(|a| a.text.contains("APPEND")),
        ),
    }
}

/// A mode string (`"w"`, `"a+"`, `"wb"`, ruby's `"w:UTF-8"`): whether it writes, appending.
/// Text that is no mode (`webbrowser.open(url)`) does not.
fn mode_string(s: &str) -> Option<bool> {
    // Ruby's `"w:UTF-8"`, tarfile's `"w:gz"`.
    let m = s.split(':').next().unwrap_or(s);
    let is_mode = !m.is_empty() && m.len() <= 5 && m.chars().all(|c| "rwaxbtcUse+".contains(c));
    (is_mode && m.contains(['w', 'a', 'x', 'c', '+'])).then(|| m.contains('a'))
}

/// Flags (`os.O_WRONLY | os.O_CREAT`, `File::APPEND`, `{write: true}`): whether they write,
/// appending. Flags computed when the code runs may write.
fn flags(text: &str) -> Option<bool> {
    let t = text.to_ascii_uppercase();
    let writes = [
        "WRONLY", "RDWR", "CREAT", "TRUNC", "APPEND", "WRITE", "CREATE",
    ]
    .iter()
    .any(|f| t.contains(f));
    let reads = t.contains("RDONLY") || t.contains("READ");
    (writes || !reads).then(|| t.contains("APPEND"))
}

/// Adds `command` with the paths of `sources`; an unknown call when a path it changes (other
/// than one it deletes) is computed when the code runs.
fn emit(site: &Site, command: &[&str], sources: &[Src], source: String, out: &mut Vec<ShellOut>) {
    let program = command.first().copied().unwrap_or("");
    // chmod's mode, chown's owner.
    let attribute = matches!(program, "chmod" | "chown" | "chgrp");
    let mut words: Vec<Word> = command.iter().map(|w| literal(w)).collect();
    let mut operands: Vec<Word> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if attribute && i == 0 {
                attribute_word(program, s)
            } else {
                path_word(site, s)
            }
        })
        .collect();
    if operands.len() == usize::from(attribute) {
        // `unlink;` (perl's `$_`), an empty list: what it changes is not in sight.
        operands.push(computed("…"));
    }
    let n = operands.len();
    let changed = match program {
        "rm" | "rmdir" => 0..0,
        "mv" | "cp" | "ln" => n.saturating_sub(1)..n,
        _ if attribute => 1..n,
        _ => 0..n,
    };
    if operands[changed].iter().any(|w| w.dynamic) {
        out.push(ShellOut::Unknown(source));
        return;
    }
    words.append(&mut operands);
    out.push(ShellOut::Argv(words));
}

/// The call as shown, with what it is called on (`shutil.copy('a', dst)`), cut short.
fn call_text(site: &Site, call: &Call) -> String {
    let from = receiver(site.code, site.start).map_or(site.start, |(r, _)| r);
    let text = site.code[from..call.end.clamp(from, site.code.len())].trim();
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

fn literal(text: &str) -> Word {
    Word {
        value: text.to_string(),
        dynamic: false,
        path: Some(text.to_string()),
    }
}

/// A word only known when the code runs, shown as written.
fn computed(text: &str) -> Word {
    Word {
        value: if text.is_empty() { "…" } else { text }.to_string(),
        dynamic: true,
        path: None,
    }
}

/// The path an argument names: a literal, a path expression read by `paths.rs`, or a path
/// computed when the code runs (a pattern's files are only known then).
fn path_word(site: &Site, s: &Src) -> Word {
    if let Arg::Str(lit) = s.arg {
        if !lit.dynamic && !lit.text.is_empty() {
            return literal(&lit.text);
        }
    }
    let text = if s.text.is_empty() {
        match s.arg {
            Arg::Other(t) => t.as_str(),
            _ => "",
        }
    } else {
        s.text
    };
    match path_of(site.lang, site.code, text) {
        Some(Named::Path(p)) => literal(&p),
        Some(Named::Pattern(p)) => computed(&p),
        None => computed(text),
    }
}

/// chmod's mode or chown's owner: a literal, a number (a mode in octal: python's `0o755`,
/// `493`), or a word computed when the code runs.
fn attribute_word(program: &str, s: &Src) -> Word {
    match s.arg {
        Arg::Str(lit) if !lit.dynamic => return literal(&lit.text),
        Arg::Str(_) | Arg::List(_) | Arg::Object(_) => return computed(s.text),
        Arg::Other(_) => {}
    }
    let t: String = s.text.chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    let octal = if let Some(o) = lower.strip_prefix("0o") {
        o.bytes()
            .all(|b| (b'0'..=b'7').contains(&b))
            .then(|| o.to_string())
    } else if let Some(h) = lower.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok().map(|v| format!("{v:o}"))
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        if t.starts_with('0') || program != "chmod" {
            Some(t.clone())
        } else {
            t.parse::<u32>().ok().map(|v| format!("{v:o}"))
        }
    } else {
        None
    };
    match octal {
        Some(m) if !m.is_empty() => literal(&m),
        _ => computed(s.text),
    }
}

/// The receiver of the method whose name starts at `name_start` (`Path.home() / "x"` in
/// `(Path.home() / "x").unlink()`): where it starts and ends (at its dot).
fn receiver(code: &str, name_start: usize) -> Option<(usize, usize)> {
    let b = code.as_bytes();
    let mut dot = name_start;
    while dot > 0 && matches!(b[dot - 1], b' ' | b'\t') {
        dot -= 1;
    }
    if dot == 0 || b[dot - 1] != b'.' {
        return None;
    }
    dot -= 1;
    // A receiver longer than this is not read.
    let floor = dot.saturating_sub(2048);
    let mut i = dot;
    while i > floor {
        let c = b[i - 1];
        if is_ident(c) || matches!(c, b'$' | b'@') {
            while i > floor && (is_ident(b[i - 1]) || matches!(b[i - 1], b'$' | b'@')) {
                i -= 1;
            }
        } else if matches!(c, b')' | b']') {
            i = opener(b, i - 1, floor)?;
            // A call or a subscript: what it is made on comes before.
            if i > floor && (is_ident(b[i - 1]) || matches!(b[i - 1], b')' | b']')) {
                continue;
            }
        } else if matches!(c, b'\'' | b'"') {
            // A literal starts the expression.
            i = code[..i - 1].rfind(char::from(c))?;
            break;
        } else {
            break;
        }
        if i > floor && b[i - 1] == b'.' {
            i -= 1;
        } else if i > floor + 1 && &code[i - 2..i] == "::" {
            i -= 2;
        } else {
            break;
        }
    }
    (i < dot).then_some((i, dot))
}

/// Whether the function is passed along to be called later, not called: `os.remove` in
/// `map(os.remove, files)`, php's `'unlink'` in `array_map('unlink', $files)` (not a name
/// imported alone, `{ rm, rename }`).
fn is_reference(site: &Site) -> bool {
    let b = site.code.as_bytes();
    let quote = site
        .start
        .checked_sub(1)
        .map(|p| b[p])
        .filter(|q| site.lang == Lang::Php && matches!(q, b'\'' | b'"'));
    let mut after = site.after;
    if let Some(q) = quote {
        if b.get(after) != Some(&q) {
            return false;
        }
        after += 1;
    } else if !site.qualified {
        return false;
    }
    site.code[after..].trim_start().starts_with([',', ')'])
}

/// Whether byte `at` of `code` is inside a string literal (or a comment), by a plain reading of
/// quotes and `#`, `//` comments.
fn in_string(code: &str, at: usize) -> bool {
    let b = code.as_bytes();
    let mut quote: Option<u8> = None;
    let mut k = 0;
    while k < at.min(b.len()) {
        let c = b[k];
        match quote {
            Some(_) if c == b'\\' => k += 1,
            Some(b'\n') if c == b'\n' => quote = None,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                // A comment, to the end of its line (not perl's `$#a`, ruby's `#{`).
                b'#' if k == 0 || b[k - 1].is_ascii_whitespace() || b[k - 1] == b';' => {
                    quote = Some(b'\n');
                }
                b'/' if b.get(k + 1) == Some(&b'/') => quote = Some(b'\n'),
                _ => {}
            },
        }
        k += 1;
    }
    quote.is_some()
}

/// The opening bracket of the one closing at `close`.
fn opener(b: &[u8], close: usize, floor: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = close + 1;
    while k > floor {
        k -= 1;
        match b[k] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}
