//! Interpreter one-liners: the code given to `python -c`, `perl -e`, `ruby -e`, `node -e`,
//! `deno eval`, `php -r` (or fed to them on standard input) is data, except for the commands
//! it shells out to. Those are found with a small tolerant scanner, not a parser of each
//! language: calls of the functions that run commands (`os.system("…")`,
//! `subprocess.run([…])`, `system "…"`, `` `…` ``, `qx(…)`, `%x(…)`,
//! `require('child_process').execSync('…')`, …) whose arguments are string literals.
//!
//! A call whose command is not a literal (`os.system(cmd)`, an f-string, a concatenation) is
//! reported as [`ShellOut::Unknown`]: what it runs cannot be known. Mentions of these names in
//! text (`print("os.system")`) are mostly harmless to over-read: at worst they add a command
//! that is judged on its own.

use super::options::{self, Spec};
use super::Word;

/// The languages whose one-liners are scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Python,
    Perl,
    Ruby,
    /// Node.js and Bun (`-e`, `--eval`, `-p`).
    Node,
    /// `deno eval CODE`.
    Deno,
    Php,
}

impl Lang {
    /// The language of a program name (`python3.12`, `pypy3`, `perl5.36`, `nodejs`, …).
    pub(super) fn of(program: &str) -> Option<Lang> {
        let versioned = |prefix: &str| {
            program
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        };
        if versioned("python") || versioned("pypy") {
            Some(Lang::Python)
        } else if versioned("perl") {
            Some(Lang::Perl)
        } else if versioned("ruby") {
            Some(Lang::Ruby)
        } else if matches!(program, "node" | "nodejs" | "bun") {
            Some(Lang::Node)
        } else if program == "deno" {
            Some(Lang::Deno)
        } else if versioned("php") {
            Some(Lang::Php)
        } else {
            None
        }
    }
}

/// What an interpreter command line runs.
#[derive(Debug, Default)]
pub(super) struct Invocation {
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
pub(super) fn invocation(lang: Lang, argv: &[Word]) -> Invocation {
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
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        if let Some(long) = a.strip_prefix("--") {
            // Ruby's long options; `--encoding x` takes the next word.
            let takes_next = lang == Lang::Ruby
                && !long.contains('=')
                && matches!(
                    long,
                    "encoding"
                        | "external-encoding"
                        | "internal-encoding"
                        | "enable"
                        | "disable"
                        | "dump"
                );
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        let cluster = &a[1..];
        let mut chars = cluster.char_indices().peekable();
        let mut skip_next = false;
        while let Some((pos, c)) = chars.next() {
            let rest = &cluster[pos + c.len_utf8()..];
            let code_switch = c == 'e' || (lang == Lang::Perl && c == 'E');
            if code_switch {
                if rest.is_empty() {
                    if let Some(next) = argv.get(i + 1) {
                        codes.push(next.clone());
                    }
                    skip_next = true;
                } else {
                    codes.push(Word {
                        value: rest.to_string(),
                        dynamic: word.dynamic,
                        path: None,
                    });
                }
                break;
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
                skip_next = rest.is_empty();
                break;
            }
            if rest_only.contains(c) {
                break;
            }
            if c == 'l' || c == '0' {
                // `-l` and `-0` take octal digits (`-l015`), `-0` hex ones after `x`
                // (`-0x1ff`).
                let hex = c == '0' && chars.peek().is_some_and(|(_, d)| *d == 'x');
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
        }
        i += if skip_next { 2 } else { 1 };
    }
    i
}

/// The `-e`/`--eval`/`-p`/`--print` code of a node (or bun) command line; returns the index
/// of the first operand.
fn node_codes(argv: &[Word], codes: &mut Vec<Word>) -> usize {
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
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
            i += 1;
            continue;
        }
        match a {
            "-e" | "--eval" | "-p" | "--print" | "-pe" | "-ep" => {
                codes.extend(argv.get(i + 1).cloned());
                i += 2;
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
            | "--env-file" => i += 2,
            _ => i += 1,
        }
    }
    i
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

// ----- shell-outs -----

/// A command found in interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ShellOut {
    /// A command line run by a shell (`os.system("…")`, back-ticks); `dynamic` when its text
    /// is interpolated or built at run time.
    Shell { text: String, dynamic: bool },
    /// A program run with arguments (`subprocess.run(["rm", "-rf", "/"])`); a word not given
    /// as a literal is dynamic.
    Argv(Vec<Word>),
    /// A shell-out whose command is not a literal (`os.system(cmd)`): its source text.
    Unknown(String),
}

/// How a call's arguments name the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A shell command line (a list is a program and its arguments).
    Shell,
    /// Perl and Ruby `system`/`exec`: one string is a shell command line, several are a
    /// program and its arguments.
    ShellOrArgv,
    /// Python's `subprocess` functions: a string is a command line, a list a program and its
    /// arguments (`shell=True` or not).
    StringOrList,
    /// Node's `spawn('rm', ['-rf', '/'])`, `execFile(…)`: a program, then a list.
    ProgramThenList,
    /// The strings of all the arguments, lists and objects flattened, are the program and its
    /// arguments (`os.execvp`, `Deno.Command`, `proc_open`).
    Flatten,
    /// Perl and Ruby `open`: a pipe open (`"cmd |"`, `"| cmd"`, `"-|", "cmd"`) runs a command.
    Open,
    /// A call that does what a shell command does to its first argument, judged as that
    /// command: `shutil.rmtree(X)` as `rm -rf X`, `os.remove(X)` as `rm X`.
    Like(&'static [&'static str]),
}

/// When a call whose command is not a literal counts as a shell-out (not, say,
/// `asyncio.run(main())`).
#[derive(Debug, Clone, Copy)]
enum Strength {
    Always,
    /// Only when called on one of these names (`subprocess.run`).
    Qualified(&'static [&'static str]),
    /// Literals only.
    Never,
}

struct CallName {
    name: &'static str,
    shape: Shape,
    strength: Strength,
}

const fn call(name: &'static str, shape: Shape, strength: Strength) -> CallName {
    CallName {
        name,
        shape,
        strength,
    }
}

use Shape::*;
use Strength::*;

const OS: &[&str] = &["os", "posix"];
const SUBPROCESS: &[&str] = &["subprocess", "sp"];

const PYTHON_CALLS: &[CallName] = &[
    call("system", Shell, Always),
    call("popen", Shell, Always),
    call("popen2", Shell, Always),
    call("popen3", Shell, Always),
    call("popen4", Shell, Always),
    call("getoutput", Shell, Always),
    call("getstatusoutput", Shell, Always),
    call("check_output", StringOrList, Always),
    call("check_call", StringOrList, Always),
    call("Popen", StringOrList, Always),
    call("run", StringOrList, Qualified(SUBPROCESS)),
    call("call", StringOrList, Qualified(SUBPROCESS)),
    call("spawn", Flatten, Qualified(&["pty"])),
    call("execl", Flatten, Qualified(OS)),
    call("execle", Flatten, Qualified(OS)),
    call("execlp", Flatten, Qualified(OS)),
    call("execlpe", Flatten, Qualified(OS)),
    call("execv", Flatten, Qualified(OS)),
    call("execve", Flatten, Qualified(OS)),
    call("execvp", Flatten, Qualified(OS)),
    call("execvpe", Flatten, Qualified(OS)),
    call("spawnl", Flatten, Qualified(OS)),
    call("spawnle", Flatten, Qualified(OS)),
    call("spawnlp", Flatten, Qualified(OS)),
    call("spawnlpe", Flatten, Qualified(OS)),
    call("spawnv", Flatten, Qualified(OS)),
    call("spawnve", Flatten, Qualified(OS)),
    call("spawnvp", Flatten, Qualified(OS)),
    call("spawnvpe", Flatten, Qualified(OS)),
    call("posix_spawn", Flatten, Qualified(OS)),
    call("posix_spawnp", Flatten, Qualified(OS)),
    call("rmtree", Like(&["rm", "-rf"]), Always),
    call("remove", Like(&["rm"]), Qualified(OS)),
    call("unlink", Like(&["rm"]), Qualified(OS)),
    call("removedirs", Like(&["rm", "-r"]), Qualified(OS)),
    call("chmod", Like(&["chmod"]), Qualified(OS)),
];

const PERL_CALLS: &[CallName] = &[
    call("system", ShellOrArgv, Always),
    call("exec", ShellOrArgv, Always),
    call("readpipe", Shell, Always),
    call("open", Open, Never),
    call("rmtree", Like(&["rm", "-rf"]), Always),
    call("remove_tree", Like(&["rm", "-rf"]), Always),
    call("unlink", Like(&["rm"]), Always),
];

const RUBY_CALLS: &[CallName] = &[
    call("system", ShellOrArgv, Always),
    call("exec", ShellOrArgv, Always),
    call("spawn", ShellOrArgv, Always),
    call("popen", ShellOrArgv, Always),
    call("popen2", ShellOrArgv, Always),
    call("popen2e", ShellOrArgv, Always),
    call("popen3", ShellOrArgv, Always),
    call("capture2", ShellOrArgv, Always),
    call("capture2e", ShellOrArgv, Always),
    call("capture3", ShellOrArgv, Always),
    call("pipeline", ShellOrArgv, Qualified(&["Open3"])),
    call("open", Open, Never),
    call("rm_rf", Like(&["rm", "-rf"]), Always),
    call("rm_r", Like(&["rm", "-r"]), Always),
    call("remove_dir", Like(&["rm", "-r"]), Always),
    call("remove_entry", Like(&["rm", "-rf"]), Always),
    call("rmtree", Like(&["rm", "-rf"]), Always),
];

const NODE_CALLS: &[CallName] = &[
    call("exec", Shell, Always),
    call("execSync", Shell, Always),
    call("execFile", ProgramThenList, Always),
    call("execFileSync", ProgramThenList, Always),
    call("spawn", ProgramThenList, Always),
    call("spawnSync", ProgramThenList, Always),
];

/// Node's file system calls that delete, wherever `fs` came from (`require("fs").rmSync`).
const NODE_FS_CALLS: &[CallName] = &[
    call("rmSync", Like(&["rm", "-rf"]), Always),
    call("rmdirSync", Like(&["rm", "-rf"]), Always),
    call(
        "rm",
        Like(&["rm", "-rf"]),
        Qualified(&["fs", "fsp", "promises"]),
    ),
    call(
        "rmdir",
        Like(&["rm", "-rf"]),
        Qualified(&["fs", "fsp", "promises"]),
    ),
    call("unlinkSync", Like(&["rm"]), Always),
];

const RUNTIME_CALLS: &[CallName] = &[
    call("Command", Flatten, Qualified(&["Deno"])),
    call("run", Flatten, Qualified(&["Deno"])),
    call("spawn", Flatten, Qualified(&["Bun"])),
    call("spawnSync", Flatten, Qualified(&["Bun"])),
];

const PHP_CALLS: &[CallName] = &[
    call("system", Shell, Always),
    call("exec", Shell, Always),
    call("shell_exec", Shell, Always),
    call("passthru", Shell, Always),
    call("popen", Shell, Always),
    call("proc_open", Shell, Always),
    call("pcntl_exec", Flatten, Always),
];

/// The commands `code` shells out to.
pub(super) fn shell_outs(lang: Lang, code: &str) -> Vec<ShellOut> {
    let mut out = Vec::new();
    let tables: Vec<&[CallName]> = match lang {
        Lang::Python => vec![PYTHON_CALLS],
        Lang::Perl => vec![PERL_CALLS],
        Lang::Ruby => vec![RUBY_CALLS],
        // `exec` is also `RegExp.prototype.exec`: node's names count only with
        // `child_process` in sight.
        Lang::Node | Lang::Deno if code.contains("child_process") => {
            vec![NODE_CALLS, RUNTIME_CALLS, NODE_FS_CALLS]
        }
        Lang::Node | Lang::Deno => vec![RUNTIME_CALLS, NODE_FS_CALLS],
        Lang::Php => vec![PHP_CALLS],
    };
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

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
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

fn shell_of(lit: Lit) -> ShellOut {
    ShellOut::Shell {
        text: lit.text,
        dynamic: lit.dynamic,
    }
}

/// A delimiter of a quote-like operator (`qx{…}`, `%x(…)`, `q!…!`).
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_punctuation() && b != b'_'
}

// ----- call arguments -----

/// A string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Lit {
    text: String,
    /// Interpolated (`"$x"`, `f"{x}"`, `` `${x}` ``, `"#{x}"`).
    dynamic: bool,
}

/// One argument of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    Str(Lit),
    /// `[…]`, `qw(…)`, `%w(…)`: its elements.
    List(Vec<Arg>),
    /// `{…}` (a hash or object): its elements, keys and values alike.
    Object(Vec<Arg>),
    /// Anything else, as written.
    Other(String),
}

/// Deepest nesting of brackets followed inside call arguments.
const MAX_NESTING: usize = 16;

/// The arguments of the call whose name ends at byte `after_name`: `(…)`, or for perl and
/// ruby a list without parentheses (`system "…"`, `system 'rm', '-rf'`).
fn call_args(lang: Lang, code: &str, after_name: usize) -> Option<Vec<Arg>> {
    let bytes = code.as_bytes();
    let mut i = after_name;
    while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'(') => {
            let mut lexer = Lexer {
                lang,
                code,
                pos: i + 1,
            };
            Some(lexer.args(Some(b')'), 0))
        }
        Some(b'\'' | b'"' | b'`' | b'$' | b'@' | b'[' | b'%')
            if matches!(lang, Lang::Perl | Lang::Ruby) =>
        {
            let mut lexer = Lexer { lang, code, pos: i };
            Some(lexer.args(None, 0))
        }
        Some(b'q') if lang == Lang::Perl => {
            let mut lexer = Lexer { lang, code, pos: i };
            Some(lexer.args(None, 0))
        }
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// No escapes but `\\` and the quote (`'…'` in perl, ruby, php).
    Single,
    /// Escapes and, per language, interpolation.
    Double,
    /// A command literal (back-ticks): interpolating.
    Command,
    /// A JavaScript template literal.
    Template,
    /// Python, with its prefix flags.
    Python { raw: bool, format: bool },
}

struct Lexer<'a> {
    lang: Lang,
    code: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.code.as_bytes().get(self.pos).copied()
    }

    /// Arguments up to `close` (or, without, to the end of the statement).
    fn args(&mut self, close: Option<u8>, depth: usize) -> Vec<Arg> {
        let mut args = Vec::new();
        let mut items: Vec<Arg> = Vec::new();
        let mut other = String::new();
        let flush_other = |other: &mut String, items: &mut Vec<Arg>| {
            if !other.trim().is_empty() {
                items.push(Arg::Other(other.trim().to_string()));
            }
            other.clear();
        };
        let python = self.lang == Lang::Python;
        let object = close == Some(b'}');
        let finish = |items: &mut Vec<Arg>, args: &mut Vec<Arg>| {
            // A python keyword argument (`args="…"`) is its value.
            if python
                && items.len() == 2
                && matches!(items.first(), Some(Arg::Other(k)) if k.ends_with('=') && !k.ends_with("=="))
            {
                items.remove(0);
            }
            // An object's `key: value` (`"key" => value`) is its value.
            if object && items.len() >= 2 {
                let key_end = items.iter().rposition(
                    |i| matches!(i, Arg::Other(k) if k.ends_with(':') || k.ends_with("=>")),
                );
                if let Some(k) = key_end {
                    items.drain(..=k);
                }
            }
            let item = match items.len() {
                0 => None,
                1 => items.pop(),
                _ => Some(Arg::Other(String::from("…"))),
            };
            args.extend(item);
            items.clear();
        };
        while let Some(b) = self.peek() {
            if Some(b) == close {
                self.pos += 1;
                break;
            }
            match b {
                b')' | b']' | b'}' => {
                    if close.is_none() {
                        break;
                    }
                    // An unbalanced closer: stop here.
                    self.pos += 1;
                    break;
                }
                b';' | b'\n' if close.is_none() => break,
                b'#' if self.lang == Lang::Python => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                b',' => {
                    self.pos += 1;
                    flush_other(&mut other, &mut items);
                    finish(&mut items, &mut args);
                }
                b'(' | b'[' | b'{' => {
                    self.pos += 1;
                    flush_other(&mut other, &mut items);
                    let closer = match b {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    if depth >= MAX_NESTING {
                        self.skip_to_end();
                        items.push(Arg::Other(String::from("…")));
                        continue;
                    }
                    let inner = self.args(Some(closer), depth + 1);
                    items.push(match b {
                        b'[' => Arg::List(inner),
                        b'{' => Arg::Object(inner),
                        // A parenthesised single value is that value.
                        _ if inner.len() == 1 => inner.into_iter().next().unwrap_or_default(),
                        _ => Arg::Other(String::from("(…)")),
                    });
                }
                b'\'' | b'"' | b'`' => {
                    flush_other(&mut other, &mut items);
                    let kind = self.quote_kind(b, None);
                    match lex_quoted(self.lang, self.code, self.pos, b, kind) {
                        Some((lit, end)) => {
                            self.pos = end;
                            self.push_literal(&mut items, lit, kind);
                        }
                        None => {
                            self.pos = self.code.len();
                            items.push(Arg::Other(String::from("…")));
                        }
                    }
                }
                _ if is_ident(b) => {
                    let start = self.pos;
                    while self.peek().is_some_and(is_ident) {
                        self.pos += 1;
                    }
                    let word = &self.code[start..self.pos];
                    if close.is_none()
                        && other.trim().is_empty()
                        && matches!(word, "or" | "and" | "if" | "unless" | "do")
                    {
                        self.pos = start;
                        break;
                    }
                    if let Some(arg) = self.quote_like(word, &mut items) {
                        flush_other(&mut other, &mut items);
                        items.push(arg);
                        continue;
                    }
                    other.push_str(word);
                }
                b'%' if self.lang == Lang::Ruby => match self.ruby_percent() {
                    Some(arg) => {
                        flush_other(&mut other, &mut items);
                        items.push(arg);
                    }
                    None => {
                        other.push('%');
                        self.pos += 1;
                    }
                },
                b'|' | b'&'
                    if close.is_none()
                        && matches!(self.code.get(self.pos..self.pos + 2), Some("||" | "&&")) =>
                {
                    break;
                }
                _ => {
                    let c = self.code[self.pos..].chars().next().unwrap_or(' ');
                    if !c.is_whitespace() {
                        other.push(c);
                    } else if !other.is_empty() {
                        other.push(' ');
                    }
                    self.pos += c.len_utf8();
                }
            }
        }
        flush_other(&mut other, &mut items);
        finish(&mut items, &mut args);
        args
    }

    /// Adds a literal to the current argument: adjacent python literals concatenate.
    fn push_literal(&self, items: &mut Vec<Arg>, lit: Lit, kind: Quote) {
        if let (Quote::Python { .. }, Some(Arg::Str(prev))) = (kind, items.last_mut()) {
            prev.text.push_str(&lit.text);
            prev.dynamic |= lit.dynamic;
            return;
        }
        items.push(Arg::Str(lit));
    }

    fn skip_to_end(&mut self) {
        self.pos = self.code.len();
    }

    /// The quoting of a literal opened by `quote` (after a python prefix, if any).
    fn quote_kind(&self, quote: u8, prefix: Option<&str>) -> Quote {
        match (self.lang, quote) {
            (Lang::Python, _) => {
                let p = prefix.unwrap_or("").to_ascii_lowercase();
                Quote::Python {
                    raw: p.contains('r'),
                    format: p.contains('f'),
                }
            }
            (Lang::Node | Lang::Deno, b'`') => Quote::Template,
            (Lang::Node | Lang::Deno, _) => Quote::Double,
            (_, b'\'') => Quote::Single,
            (_, b'`') => Quote::Command,
            _ => Quote::Double,
        }
    }

    /// A python string prefix (`f"…"`, `rb'…'`) or a perl quote-like operator (`q(…)`,
    /// `qq{…}`, `qw(…)`) whose name `word` was just read.
    fn quote_like(&mut self, word: &str, items: &mut Vec<Arg>) -> Option<Arg> {
        let bytes = self.code.as_bytes();
        match self.lang {
            Lang::Python => {
                let quote = *bytes.get(self.pos)?;
                let prefix_ok = word.len() <= 2
                    && word
                        .chars()
                        .all(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f'));
                if !matches!(quote, b'\'' | b'"') || !prefix_ok {
                    return None;
                }
                let kind = self.quote_kind(quote, Some(word));
                match lex_quoted(self.lang, self.code, self.pos, quote, kind) {
                    Some((lit, end)) => {
                        self.pos = end;
                        self.push_literal(items, lit, kind);
                        // Already added (concatenated): give back nothing new.
                        items.pop()
                    }
                    None => {
                        self.pos = self.code.len();
                        Some(Arg::Other(String::from("…")))
                    }
                }
            }
            Lang::Perl if matches!(word, "q" | "qq" | "qw" | "qx") => {
                let mut j = self.pos;
                while bytes.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
                    j += 1;
                }
                let open = *bytes.get(j)?;
                if !is_delimiter(open) || matches!(open, b'=' | b',' | b';' | b')') {
                    return None;
                }
                let kind = if word == "q" || word == "qw" || open == b'\'' {
                    Quote::Single
                } else {
                    Quote::Double
                };
                let (lit, end) = lex_quoted(self.lang, self.code, j, open, kind)?;
                self.pos = end;
                Some(match word {
                    "qw" => Arg::List(
                        lit.text
                            .split_whitespace()
                            .map(|w| {
                                Arg::Str(Lit {
                                    text: w.to_string(),
                                    dynamic: false,
                                })
                            })
                            .collect(),
                    ),
                    "qx" => Arg::Other(lit.text),
                    _ => Arg::Str(lit),
                })
            }
            _ => None,
        }
    }

    /// Ruby's `%q(…)`, `%Q(…)`, `%(…)`, `%w(…)` at the cursor.
    fn ruby_percent(&mut self) -> Option<Arg> {
        let bytes = self.code.as_bytes();
        let mut j = self.pos + 1;
        let letter = bytes.get(j).copied().filter(|b| b.is_ascii_alphabetic());
        if letter.is_some() {
            j += 1;
        }
        let open = *bytes.get(j)?;
        if !is_delimiter(open) || open == b'=' {
            return None;
        }
        let kind = match letter {
            Some(b'q' | b'w') => Quote::Single,
            _ => Quote::Double,
        };
        let (lit, end) = lex_quoted(self.lang, self.code, j, open, kind)?;
        self.pos = end;
        Some(match letter {
            Some(b'w' | b'W' | b'i' | b'I') => Arg::List(
                lit.text
                    .split_whitespace()
                    .map(|w| {
                        Arg::Str(Lit {
                            text: w.to_string(),
                            dynamic: lit.dynamic,
                        })
                    })
                    .collect(),
            ),
            Some(b'x') => Arg::Other(lit.text),
            _ => Arg::Str(lit),
        })
    }
}

impl Default for Arg {
    fn default() -> Self {
        Arg::Other(String::new())
    }
}

/// The closing delimiter of an opening one (brackets pair, others close themselves).
fn closer_of(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        other => other,
    }
}

/// The literal opened at byte `open_at` by `open`: its decoded text and the index after it.
/// `None` when it is not closed.
fn lex_quoted(
    lang: Lang,
    code: &str,
    open_at: usize,
    open: u8,
    kind: Quote,
) -> Option<(Lit, usize)> {
    let bytes = code.as_bytes();
    let close = closer_of(open);
    let nests = close != open;
    // Python triple quotes.
    let triple = matches!(kind, Quote::Python { .. })
        && bytes.get(open_at + 1) == Some(&open)
        && bytes.get(open_at + 2) == Some(&open);
    let mut i = open_at + if triple { 3 } else { 1 };
    let mut text = String::new();
    let mut dynamic = false;
    let mut level = 0usize;
    loop {
        let c = code.get(i..)?.chars().next()?;
        let b = bytes[i];
        if b == close && level == 0 {
            if !triple {
                return Some((Lit { text, dynamic }, i + 1));
            }
            if bytes.get(i + 1) == Some(&close) && bytes.get(i + 2) == Some(&close) {
                return Some((Lit { text, dynamic }, i + 3));
            }
        }
        if nests && b == open {
            level += 1;
        } else if nests && b == close {
            level = level.saturating_sub(1);
        }
        if b == b'\\' {
            let next = code.get(i + 1..)?.chars().next()?;
            let raw = matches!(kind, Quote::Python { raw: true, .. });
            let single = kind == Quote::Single;
            if raw || (single && next != '\\' && u32::from(next) != u32::from(close)) {
                text.push('\\');
                if raw && (u32::from(next) == u32::from(close) || next == '\\') {
                    text.push(next);
                    i += 1 + next.len_utf8();
                } else {
                    i += 1;
                }
                continue;
            }
            match next {
                'n' if !single => text.push('\n'),
                't' if !single => text.push('\t'),
                'r' if !single => text.push('\r'),
                '\n' => {}
                '\\' | '\'' | '"' | '`' | '$' | '@' | '#' | '{' | '}' => text.push(next),
                _ if u32::from(next) == u32::from(close) => text.push(next),
                _ => {
                    text.push('\\');
                    text.push(next);
                }
            }
            i += 1 + next.len_utf8();
            continue;
        }
        // Interpolation.
        let after = bytes.get(i + 1).copied();
        let name_start =
            |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'{');
        dynamic |= match kind {
            Quote::Double | Quote::Command => match lang {
                Lang::Perl => (b == b'$' || b == b'@') && name_start(after),
                Lang::Php => b == b'$' && name_start(after),
                Lang::Ruby => b == b'#' && matches!(after, Some(b'{' | b'@' | b'$')),
                _ => false,
            },
            Quote::Template => b == b'$' && after == Some(b'{'),
            Quote::Python { format: true, .. } => {
                if matches!(b, b'{' | b'}') && after == Some(b) {
                    text.push(char::from(b));
                    i += 2;
                    continue;
                }
                b == b'{'
            }
            _ => false,
        };
        text.push(c);
        i += c.len_utf8();
    }
}

/// Adds what one call runs.
fn shell_outs_of_call(
    lang: Lang,
    shape: Shape,
    strong: bool,
    args: &[Arg],
    out: &mut Vec<ShellOut>,
) {
    let mut args: &[Arg] = args;
    // Ruby's environment hash before the command: `system({"A" => "1"}, "ls")`.
    if lang == Lang::Ruby {
        if let Some((Arg::Object(_), rest)) = args.split_first() {
            args = rest;
        }
    }
    let unknown = |out: &mut Vec<ShellOut>, arg: Option<&Arg>| {
        if strong {
            out.push(ShellOut::Unknown(match arg {
                Some(Arg::Other(text)) => text.clone(),
                _ => String::from("…"),
            }));
        }
    };
    let Some(first) = args.first() else {
        return;
    };
    match shape {
        Shell | StringOrList => match first {
            Arg::Str(lit) => out.push(shell_of(lit.clone())),
            Arg::List(items) => out.push(argv_of(items)),
            other => unknown(out, Some(other)),
        },
        ShellOrArgv => match (first, args.len()) {
            (Arg::Str(lit), 1) => out.push(shell_of(lit.clone())),
            (Arg::List(items), 1) => out.push(argv_of(items)),
            (Arg::Other(_), 1) => unknown(out, Some(first)),
            (Arg::Str(_) | Arg::Other(_), _) => {
                if matches!(first, Arg::Other(_)) && !strong {
                    return;
                }
                let all: Vec<Arg> = args.iter().flat_map(flatten).collect();
                out.push(argv_of(&all));
            }
            (other, _) => unknown(out, Some(other)),
        },
        ProgramThenList => match (first, args.get(1)) {
            (Arg::Str(lit), Some(Arg::List(items))) => {
                let mut all = vec![Arg::Str(lit.clone())];
                all.extend(items.iter().flat_map(flatten));
                out.push(argv_of(&all));
            }
            (Arg::Str(lit), _) => out.push(shell_of(lit.clone())),
            (Arg::List(items), _) => out.push(argv_of(items)),
            (other, _) => unknown(out, Some(other)),
        },
        Like(prefix) => {
            let mut words: Vec<Word> = prefix
                .iter()
                .map(|w| Word {
                    value: w.to_string(),
                    dynamic: false,
                    path: Some(w.to_string()),
                })
                .collect();
            let ShellOut::Argv(target) = argv_of(std::slice::from_ref(first)) else {
                return;
            };
            let target: Vec<Word> = target.into_iter().filter(|w| !w.value.is_empty()).collect();
            if target.is_empty() {
                // `shutil.rmtree(path)`: what it deletes is only known when it runs.
                words.push(Word {
                    value: match first {
                        Arg::Other(text) => text.clone(),
                        _ => "…".to_string(),
                    },
                    dynamic: true,
                    path: None,
                });
            } else {
                words.extend(target);
            }
            out.push(ShellOut::Argv(words));
        }
        Flatten => {
            let all: Vec<Arg> = args
                .iter()
                .filter(|a| !matches!(a, Arg::Other(_)))
                .flat_map(flatten)
                .collect();
            if all.is_empty() {
                unknown(out, Some(first));
            } else {
                out.push(argv_of(&all));
            }
        }
        Open => {
            let strs: Vec<&Lit> = args
                .iter()
                .filter_map(|a| match a {
                    Arg::Str(lit) => Some(lit),
                    _ => None,
                })
                .collect();
            if let Some(k) = args
                .iter()
                .position(|a| matches!(a, Arg::Str(l) if matches!(l.text.trim(), "-|" | "|-")))
            {
                let rest: Vec<Arg> = args.iter().skip(k + 1).flat_map(flatten).collect();
                match rest.as_slice() {
                    [Arg::Str(lit)] => out.push(shell_of(lit.clone())),
                    [] => {}
                    _ => out.push(argv_of(&rest)),
                }
                return;
            }
            for lit in strs {
                let t = lit.text.trim();
                if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
                    out.push(ShellOut::Shell {
                        text: cmd.trim().to_string(),
                        dynamic: lit.dynamic,
                    });
                }
            }
        }
    }
}

/// The elements of lists and objects, in order; other arguments as they are.
fn flatten(arg: &Arg) -> Vec<Arg> {
    match arg {
        Arg::List(items) | Arg::Object(items) => items.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}

/// A program and its arguments from literal items (others are dynamic words).
fn argv_of(items: &[Arg]) -> ShellOut {
    let words = items
        .iter()
        .flat_map(flatten)
        .map(|item| match item {
            Arg::Str(lit) => Word {
                path: (!lit.dynamic).then(|| lit.text.clone()),
                value: lit.text,
                dynamic: lit.dynamic,
            },
            Arg::Other(text) => Word {
                value: text,
                dynamic: true,
                path: None,
            },
            Arg::List(_) | Arg::Object(_) => Word::default(),
        })
        .collect();
    ShellOut::Argv(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(text: &str) -> ShellOut {
        ShellOut::Shell {
            text: text.to_string(),
            dynamic: false,
        }
    }

    fn dyn_shell(text: &str) -> ShellOut {
        ShellOut::Shell {
            text: text.to_string(),
            dynamic: true,
        }
    }

    fn argv(words: &[&str]) -> ShellOut {
        ShellOut::Argv(
            words
                .iter()
                .map(|w| Word {
                    value: w.to_string(),
                    dynamic: false,
                    path: Some(w.to_string()),
                })
                .collect(),
        )
    }

    fn found(lang: Lang, code: &str) -> Vec<ShellOut> {
        shell_outs(lang, code)
    }

    #[test]
    fn python_shell_outs() {
        use Lang::Python;
        assert_eq!(
            found(Python, "import os; os.system('rm -rf /')"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            found(Python, "import os; os.popen(\"ls -l\").read()"),
            vec![shell("ls -l")]
        );
        assert_eq!(
            found(
                Python,
                "import subprocess; subprocess.run('rm -rf ~', shell=True)"
            ),
            vec![shell("rm -rf ~")]
        );
        assert_eq!(
            found(
                Python,
                "import subprocess as s; s.check_call(['rm', '-rf', '/'])"
            ),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Python, "subprocess.Popen([\"sudo\", \"reboot\"]).wait()"),
            vec![argv(&["sudo", "reboot"])]
        );
        assert_eq!(
            found(Python, "import commands; commands.getoutput('id')"),
            vec![shell("id")]
        );
        assert_eq!(
            found(Python, "os.system('rm ' '-rf /')"),
            vec![shell("rm -rf /")],
            "adjacent literals concatenate"
        );
        assert_eq!(
            found(Python, "subprocess.run(args='rm -rf /', shell=True)"),
            vec![shell("rm -rf /")],
            "a keyword argument"
        );
        assert_eq!(
            found(Python, "os.execvp('rm', ['rm', '-rf', '/'])"),
            vec![argv(&["rm", "rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Python, "__import__('os').system('id')"),
            vec![shell("id")]
        );
        assert_eq!(
            found(Python, "os.system(r'rm -rf \\x')"),
            vec![shell("rm -rf \\x")]
        );
        assert_eq!(
            found(Python, "os.system('''rm -rf /''')"),
            vec![shell("rm -rf /")]
        );
    }

    #[test]
    fn python_dynamic_shell_outs_are_unknown_or_dynamic() {
        use Lang::Python;
        assert_eq!(
            found(Python, "import os; os.system(cmd)"),
            vec![ShellOut::Unknown("cmd".into())]
        );
        assert_eq!(
            found(Python, "os.system(f'rm -rf {d}')"),
            vec![dyn_shell("rm -rf {d}")]
        );
        assert_eq!(
            found(Python, "os.system(f'echo {{x}}')"),
            vec![shell("echo {x}")]
        );
        assert!(matches!(
            found(Python, "os.system('rm -rf ' + d)").as_slice(),
            [ShellOut::Unknown(_)]
        ));
        assert!(matches!(
            found(Python, "os.system('rm -rf %s' % d)").as_slice(),
            [ShellOut::Unknown(_)]
        ));
        // `run` not on subprocess is not a shell-out unless its argument is a literal.
        assert_eq!(found(Python, "import asyncio; asyncio.run(main())"), vec![]);
    }

    #[test]
    fn python_without_shell_outs_gives_nothing() {
        for code in [
            "print(1)",
            "print(\"rm -rf /\")",
            "import json,sys; print(json.load(sys.stdin)['x'])",
            "import os; print(os.environ['HOME'])",
            "import system",
        ] {
            assert_eq!(found(Lang::Python, code), vec![], "{code}");
        }
    }

    #[test]
    fn perl_shell_outs() {
        use Lang::Perl;
        assert_eq!(
            found(Perl, "system(\"rm -rf /tmp/x\")"),
            vec![shell("rm -rf /tmp/x")]
        );
        assert_eq!(found(Perl, "system 'rm -rf /'"), vec![shell("rm -rf /")]);
        assert_eq!(
            found(Perl, "system('rm', '-rf', '/')"),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Perl, "exec qw(rm -rf /)"),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(found(Perl, "print `id`"), vec![shell("id")]);
        assert_eq!(
            found(Perl, "my $x = qx(rm -rf /); print $x"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(found(Perl, "print qx{ls}"), vec![shell("ls")]);
        assert_eq!(
            found(Perl, "open(F, \"rm -rf / |\")"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            found(Perl, "open(my $f, '-|', 'rm', '-rf', '/')"),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(found(Perl, "open(F, '<', 'x.txt')"), vec![]);
        assert_eq!(
            found(Perl, "system(\"rm -rf $dir\")"),
            vec![dyn_shell("rm -rf $dir")]
        );
        assert_eq!(found(Perl, "system 'ls' or die"), vec![shell("ls")]);
        assert!(matches!(
            found(Perl, "system($cmd)").as_slice(),
            [ShellOut::Unknown(_)]
        ));
        assert_eq!(found(Perl, "print if /sudo/"), vec![]);
        assert_eq!(found(Perl, "$system = 1; print $system"), vec![]);
    }

    #[test]
    fn ruby_shell_outs() {
        use Lang::Ruby;
        assert_eq!(
            found(Ruby, "system(\"rm -rf build\")"),
            vec![shell("rm -rf build")]
        );
        assert_eq!(
            found(Ruby, "system 'rm', '-rf', 'x'"),
            vec![argv(&["rm", "-rf", "x"])]
        );
        assert_eq!(found(Ruby, "puts `id`"), vec![shell("id")]);
        assert_eq!(found(Ruby, "puts %x(rm -rf /)"), vec![shell("rm -rf /")]);
        assert_eq!(
            found(Ruby, "exec %w(rm -rf /)"),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Ruby, "system(\"rm -rf #{d}\")"),
            vec![dyn_shell("rm -rf #{d}")]
        );
        assert_eq!(found(Ruby, "system({'A' => '1'}, 'ls')"), vec![shell("ls")]);
        assert_eq!(
            found(Ruby, "IO.popen(['ls', '-l'])"),
            vec![argv(&["ls", "-l"])]
        );
        assert_eq!(
            found(Ruby, "require 'open3'; Open3.capture2('id')"),
            vec![shell("id")]
        );
        assert_eq!(found(Ruby, "puts 1 + 1"), vec![]);
    }

    #[test]
    fn node_shell_outs() {
        use Lang::Node;
        assert_eq!(
            found(Node, "require('child_process').execSync('rm -rf build')"),
            vec![shell("rm -rf build")]
        );
        assert_eq!(
            found(Node, "const cp = require(\"child_process\"); cp.spawn('rm', ['-rf', '/'], {stdio: 'inherit'})"),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Node, "require('child_process').exec(`rm -rf ${d}`)"),
            vec![dyn_shell("rm -rf ${d}")]
        );
        assert!(matches!(
            found(Node, "require('child_process').exec(cmd)").as_slice(),
            [ShellOut::Unknown(_)]
        ));
        // Without child_process, `exec` is a regular expression's.
        assert_eq!(found(Node, "console.log(/a/.exec('rm -rf /'))"), vec![]);
        assert_eq!(found(Node, "console.log(process.version)"), vec![]);
        assert_eq!(
            found(Node, "Bun.spawn(['rm', '-rf', '/'])"),
            vec![argv(&["rm", "-rf", "/"])]
        );
    }

    #[test]
    fn deno_and_php_shell_outs() {
        assert_eq!(
            found(
                Lang::Deno,
                "new Deno.Command('rm', { args: ['-rf', '/'] }).outputSync()"
            ),
            vec![argv(&["rm", "-rf", "/"])]
        );
        assert_eq!(
            found(Lang::Php, "system('rm -rf /');"),
            vec![shell("rm -rf /")]
        );
        assert_eq!(
            found(Lang::Php, "echo shell_exec(\"id\");"),
            vec![shell("id")]
        );
        assert_eq!(found(Lang::Php, "echo `id`;"), vec![shell("id")]);
        assert_eq!(
            found(Lang::Php, "exec(\"rm -rf $d\");"),
            vec![dyn_shell("rm -rf $d")]
        );
        assert_eq!(found(Lang::Php, "echo 1;"), vec![]);
    }

    #[test]
    fn hostile_code_is_scanned_in_bounded_time_without_panics() {
        let deep = format!("os.system({}'x'{})", "(".repeat(10_000), ")".repeat(10_000));
        let _ = found(Lang::Python, &deep);
        let deep = format!("system({}", "[".repeat(10_000));
        let _ = found(Lang::Ruby, &deep);
        for code in [
            "os.system(",
            "system '",
            "qx",
            "%x",
            "`",
            "exec(\"\\",
            "os.system(f'{",
            "q(",
            "é`é",
        ] {
            for lang in [Lang::Python, Lang::Perl, Lang::Ruby, Lang::Node, Lang::Php] {
                let _ = found(lang, code);
            }
        }
    }

    #[test]
    fn invocations_find_the_code() {
        let w = |line: &str| -> Vec<Word> {
            line.split(' ')
                .map(|w| Word {
                    value: w.replace('_', " "),
                    dynamic: false,
                    path: None,
                })
                .collect()
        };
        let code = |lang, line: &str| -> Vec<String> {
            invocation(lang, &w(line))
                .codes
                .into_iter()
                .map(|c| c.value)
                .collect()
        };
        assert_eq!(code(Lang::Python, "python3 -c print(1)"), vec!["print(1)"]);
        assert_eq!(code(Lang::Python, "python3 -Ic print(1)"), vec!["print(1)"]);
        assert_eq!(
            code(Lang::Python, "python3 -u -cprint(1)"),
            vec!["print(1)"]
        );
        assert_eq!(
            code(Lang::Python, "python3 -m mod -c x"),
            Vec::<String>::new()
        );
        assert!(invocation(Lang::Python, &w("python3")).stdin);
        assert!(invocation(Lang::Python, &w("python3 -")).stdin);
        assert!(invocation(Lang::Python, &w("python3 x.py"))
            .script
            .is_some());
        assert_eq!(code(Lang::Perl, "perl -ne print"), vec!["print"]);
        assert_eq!(code(Lang::Perl, "perl -e a -E b"), vec!["a", "b"]);
        assert_eq!(code(Lang::Perl, "perl -pi.bak -e x f"), vec!["x"]);
        assert_eq!(code(Lang::Perl, "perl -pie x"), Vec::<String>::new());
        assert_eq!(code(Lang::Perl, "perl -l015e x"), vec!["x"]);
        assert_eq!(code(Lang::Perl, "perl -I lib -e x"), vec!["x"]);
        assert_eq!(code(Lang::Ruby, "ruby -r json -e x"), vec!["x"]);
        assert_eq!(code(Lang::Node, "node -e x"), vec!["x"]);
        assert_eq!(code(Lang::Node, "node --eval=x"), vec!["x"]);
        assert_eq!(code(Lang::Node, "node -r dotenv/config -p x"), vec!["x"]);
        assert_eq!(
            code(Lang::Node, "node script.js -e x"),
            Vec::<String>::new()
        );
        assert_eq!(code(Lang::Deno, "deno eval --ext ts x"), vec!["x"]);
        assert_eq!(code(Lang::Php, "php -r x"), vec!["x"]);
        assert_eq!(Lang::of("python3.12"), Some(Lang::Python));
        assert_eq!(Lang::of("pythonista"), None);
        assert_eq!(Lang::of("perldoc"), None);
    }
}
