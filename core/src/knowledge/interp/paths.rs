//! What a path expression of interpreter code names, when it can be known before the code
//! runs: string literals, the home folder (`Path.home()`, `os.path.expanduser("~/…")`,
//! `Dir.home`, `File.expand_path("~/…")`, `$ENV{HOME}`, `getenv("HOME")`, `os.homedir()`,
//! `process.env.HOME`, …), joined by the language's operators and functions (`+`, `.`, `/`,
//! `os.path.join`, `Path(…).joinpath(…)`, `File.join`, `path.join`, …), interpolated into
//! strings, or given once to a name (`p = Path.home() / ".zshrc"`). `~` stands for the home
//! folder, as the engine's paths have it (a literal `~` is read as home too: the stricter
//! reading). Anything else is computed when the code runs: `None`.

use super::lex::{is_delimiter, is_ident, lex_quoted, quote_kind, Lit, Quote};
use super::Lang;

/// What a path expression names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Named {
    /// A path as written (`~/.zshrc`, `/etc/nginx`, `build/x`).
    Path(String),
    /// The files a pattern matches when the code runs (`glob("~/.config/*")`).
    Pattern(String),
}

/// Deepest nesting of names, interpolations and sub-expressions followed.
const MAX_DEPTH: usize = 6;
/// Deepest nesting of brackets inside one expression.
const MAX_NESTING: usize = 32;
/// Longest code whose names given a path are read.
const MAX_NAMED_CODE: usize = 32 * 1024;
/// Longest expression read, in tokens.
const MAX_TOKENS: usize = 256;

/// What the expression `expr`, part of `code`, names.
pub(super) fn path_of(lang: Lang, code: &str, expr: &str) -> Option<Named> {
    match eval(lang, code, expr, 0)? {
        V::Text(t) => tidy(t).map(Named::Path),
        V::Pattern(t) => tidy(t).map(Named::Pattern),
        V::Module(_) | V::Env => None,
    }
}

/// Whether `expr` is seen to be a path object: `Path(…)`, `Pathname.new(…)`, or a name given
/// one, whatever its path.
pub(super) fn is_path_object(lang: Lang, code: &str, expr: &str) -> bool {
    let expr = expr.trim();
    if expr.contains("Path") {
        return true;
    }
    let plain = !expr.is_empty() && expr.bytes().all(|b| is_ident(b) || b == b'@');
    plain && assigned(lang, code, expr).is_some_and(|v| v.contains("Path"))
}

/// Repeated slashes made one; nothing for an empty path.
fn tidy(t: String) -> Option<String> {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    (!out.trim().is_empty()).then_some(out)
}

/// A value of an expression, as far as paths go.
#[derive(Debug, Clone)]
enum V {
    Text(String),
    Pattern(String),
    /// A module (`require("os")`, `__import__("os")`, ruby's `Dir`).
    Module(String),
    /// The environment (`os.environ`, `ENV`, `%ENV`, `process.env`, `$_SERVER`).
    Env,
}

fn home() -> Option<V> {
    Some(V::Text("~".into()))
}

fn text(s: &str) -> Option<V> {
    Some(V::Text(s.into()))
}

/// An environment variable's value, for the ones that name a known place.
fn env(key: &str) -> Option<V> {
    match key {
        "HOME" | "USERPROFILE" => home(),
        "TMPDIR" | "TMP" | "TEMP" => text("/tmp"),
        "PWD" => text("."),
        _ => None,
    }
}

fn text_of(v: &V) -> Option<&str> {
    match v {
        V::Text(t) | V::Pattern(t) => Some(t),
        _ => None,
    }
}

/// `a + b` of strings (a pattern stays one).
fn concat(a: V, b: V) -> Option<V> {
    let joined = format!("{}{}", text_of(&a)?, text_of(&b)?);
    Some(match (a, b) {
        (V::Pattern(_), _) | (_, V::Pattern(_)) => V::Pattern(joined),
        _ => V::Text(joined),
    })
}

/// `a / b` of paths: an absolute `b` starts again.
fn join(a: V, b: V) -> Option<V> {
    let (x, y) = (text_of(&a)?, text_of(&b)?);
    let joined = if y.starts_with(['/', '~']) || x.is_empty() {
        y.to_string()
    } else {
        format!("{}/{y}", x.trim_end_matches('/'))
    };
    Some(match (a, b) {
        (V::Pattern(_), _) | (_, V::Pattern(_)) => V::Pattern(joined),
        _ => V::Text(joined),
    })
}

fn join_all(args: Vec<V>) -> Option<V> {
    let mut it = args.into_iter();
    let first = it.next()?;
    it.try_fold(first, join)
}

fn pattern(v: Option<&V>) -> Option<V> {
    Some(V::Pattern(text_of(v?)?.to_string()))
}

/// `subscript[key]`, `$ENV{key}`.
fn index(v: V, key: V) -> Option<V> {
    match (v, key) {
        (V::Env, V::Text(k)) => env(&k),
        // ruby's `Dir["~/x/*"]`
        (V::Module(m), V::Text(p)) if m == "Dir" => Some(V::Pattern(p)),
        _ => None,
    }
}

/// The value of `expr` in `code`, `depth` names or interpolations deep.
fn eval(lang: Lang, code: &str, expr: &str, depth: usize) -> Option<V> {
    if depth > MAX_DEPTH {
        return None;
    }
    let toks = tokens(lang, expr)?;
    let mut e = Eval {
        lang,
        code,
        toks,
        pos: 0,
        depth,
        nesting: 0,
    };
    let v = e.expr()?;
    (e.pos == e.toks.len()).then_some(v)
}

#[derive(Debug, Clone)]
enum Tok {
    Str(Lit),
    /// Perl's `<~/x/*>`.
    Glob(String),
    /// A name, with its sigil (`$x`, `@x`, `%ENV`).
    Name(String),
    Num,
    /// `->`
    Arrow,
    /// `::`
    Colons,
    P(u8),
}

/// The tokens of an expression; `None` when a literal is not closed or it is too long.
fn tokens(lang: Lang, s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let sigils: &[u8] = match lang {
        Lang::Perl => b"$@%",
        Lang::Php | Lang::Ruby => b"$@",
        Lang::Node | Lang::Deno => b"$",
        Lang::Python => b"",
    };
    while i < b.len() {
        if out.len() > MAX_TOKENS {
            return None;
        }
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if matches!(c, b'\'' | b'"' | b'`') {
            let (lit, end) = lex_quoted(lang, s, i, c, quote_kind(lang, c, None))?;
            out.push(Tok::Str(lit));
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push(Tok::Num);
            continue;
        }
        let sigil = sigils.contains(&c) && b.get(i + 1).is_some_and(|n| is_ident(*n));
        if is_ident(c) || sigil {
            let start = i;
            i += 1;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            let word = &s[start..i];
            if let Some((lit, end)) = prefixed_literal(lang, s, word, i) {
                out.push(Tok::Str(lit));
                i = end;
                continue;
            }
            out.push(Tok::Name(word.to_string()));
            continue;
        }
        if lang == Lang::Perl && c == b'<' {
            let end = s[i..].find('>')? + i;
            out.push(Tok::Glob(s[i + 1..end].trim().to_string()));
            i = end + 1;
            continue;
        }
        if s[i..].starts_with("->") {
            out.push(Tok::Arrow);
            i += 2;
            continue;
        }
        if s[i..].starts_with("::") {
            out.push(Tok::Colons);
            i += 2;
            continue;
        }
        out.push(Tok::P(c));
        i += s[i..].chars().next().map_or(1, char::len_utf8);
    }
    Some(out)
}

/// A literal after the name `word` that ends at `i`: a python prefix (`f"…"`, `r'…'`), a perl
/// quote-like operator (`q(…)`, `qq{…}`).
fn prefixed_literal(lang: Lang, s: &str, word: &str, i: usize) -> Option<(Lit, usize)> {
    let open = *s.as_bytes().get(i)?;
    match lang {
        Lang::Python
            if word.len() <= 2
                && word.chars().all(|c| "rRbBuUfF".contains(c))
                && matches!(open, b'\'' | b'"') =>
        {
            lex_quoted(lang, s, i, open, quote_kind(lang, open, Some(word)))
        }
        Lang::Perl
            if matches!(word, "q" | "qq")
                && is_delimiter(open)
                && !matches!(open, b'=' | b',' | b';' | b')') =>
        {
            let kind = if word == "q" || open == b'\'' {
                Quote::Single
            } else {
                Quote::Double
            };
            lex_quoted(lang, s, i, open, kind)
        }
        _ => None,
    }
}

struct Eval<'a> {
    lang: Lang,
    code: &'a str,
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    nesting: usize,
}

impl Eval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn punct(&self, p: u8) -> bool {
        matches!(self.peek(), Some(Tok::P(x)) if *x == p)
    }

    fn eat(&mut self, p: u8) -> bool {
        let here = self.punct(p);
        self.pos += usize::from(here);
        here
    }

    /// Perl and php: `.` joins strings, `->` calls methods.
    fn perlish(&self) -> bool {
        matches!(self.lang, Lang::Perl | Lang::Php)
    }

    fn expr(&mut self) -> Option<V> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return None;
        }
        let mut v = self.postfix()?;
        loop {
            let perlish = self.perlish();
            if (!perlish && self.eat(b'+')) || (perlish && self.eat(b'.')) {
                let r = self.postfix()?;
                v = concat(v, r)?;
            } else if matches!(self.lang, Lang::Python | Lang::Ruby) && self.eat(b'/') {
                let r = self.postfix()?;
                v = join(v, r)?;
            } else {
                break;
            }
        }
        self.nesting -= 1;
        Some(v)
    }

    fn postfix(&mut self) -> Option<V> {
        let mut v = self.primary()?;
        loop {
            let member = match (self.peek(), self.toks.get(self.pos + 1)) {
                (Some(Tok::P(b'.')), Some(Tok::Name(n))) if !self.perlish() => Some(n.clone()),
                (Some(Tok::Arrow), Some(Tok::Name(n))) if self.perlish() => Some(n.clone()),
                _ => None,
            };
            if let Some(m) = member {
                self.pos += 2;
                let args = if self.punct(b'(') {
                    Some(self.args()?)
                } else {
                    None
                };
                v = self.method(v, &m, args)?;
            } else if self.eat(b'[') {
                let key = self.key(b']')?;
                v = index(v, key)?;
            } else if self.lang == Lang::Perl && self.eat(b'{') {
                let key = self.key(b'}')?;
                v = index(v, key)?;
            } else {
                return Some(v);
            }
        }
    }

    /// A subscript up to `close`: an expression, or a bare word (`$ENV{HOME}`).
    fn key(&mut self, close: u8) -> Option<V> {
        if let (Some(Tok::Name(n)), Some(Tok::P(c))) = (self.peek(), self.toks.get(self.pos + 1)) {
            if *c == close && !n.starts_with(['$', '@']) {
                let n = n.clone();
                self.pos += 2;
                return Some(V::Text(n));
            }
        }
        let k = self.expr()?;
        self.eat(close).then_some(k)
    }

    fn primary(&mut self) -> Option<V> {
        let tok = self.peek()?.clone();
        self.pos += 1;
        match tok {
            Tok::Str(lit) if lit.dynamic => self.interpolate(&lit.text),
            Tok::Str(lit) => Some(V::Text(lit.text)),
            Tok::Glob(g) if g.is_empty() || g.starts_with(['$', '@']) => None,
            Tok::Glob(g) if g.contains('$') => pattern(self.interpolate(&g).as_ref()),
            Tok::Glob(g) => Some(V::Pattern(g)),
            Tok::P(b'(') => {
                let v = self.expr()?;
                self.eat(b')').then_some(v)
            }
            Tok::Name(first) => {
                let name = self.dotted(first);
                if self.punct(b'(') {
                    let args = self.args()?;
                    self.call(&name, args)
                } else if self.unparenthesised(&name) {
                    let a = self.expr()?;
                    self.call(&name, vec![a])
                } else {
                    self.value(&name)
                }
            }
            _ => None,
        }
    }

    /// The name that starts with `first`: `os.path.join`, `File::Spec->catfile`.
    fn dotted(&mut self, first: String) -> String {
        let mut name = first;
        loop {
            let (sep, n) = match (self.peek(), self.toks.get(self.pos + 1)) {
                (Some(Tok::Colons), Some(Tok::Name(n))) => ("::", n),
                (Some(Tok::P(b'.')), Some(Tok::Name(n))) if !self.perlish() => (".", n),
                // A class method (`File::Spec->catfile`), not `$obj->method`.
                (Some(Tok::Arrow), Some(Tok::Name(n)))
                    if self.lang == Lang::Perl
                        && name.starts_with(|c: char| c.is_ascii_uppercase()) =>
                {
                    ("->", n)
                }
                _ => return name,
            };
            name.push_str(sep);
            name.push_str(n);
            self.pos += 2;
        }
    }

    /// A perl or ruby function called without parentheses (`glob "~/x/*"`,
    /// `File.expand_path "~/x"`).
    fn unparenthesised(&self, name: &str) -> bool {
        matches!(self.lang, Lang::Perl | Lang::Ruby)
            && matches!(self.peek(), Some(Tok::Str(_) | Tok::Name(_)))
            && matches!(
                name,
                "glob" | "File.expand_path" | "File.join" | "Pathname.new" | "Dir.glob"
            )
    }

    /// Call arguments from `(` (keyword arguments as their values).
    fn args(&mut self) -> Option<Vec<V>> {
        self.pos += 1;
        let mut out = Vec::new();
        if self.eat(b')') {
            return Some(out);
        }
        loop {
            let keyword = match (
                self.peek(),
                self.toks.get(self.pos + 1),
                self.toks.get(self.pos + 2),
            ) {
                (Some(Tok::Name(_)), Some(Tok::P(b'=')), next) => {
                    !matches!(next, Some(Tok::P(b'=')))
                }
                (Some(Tok::Name(_)), Some(Tok::P(b':')), _) => self.lang == Lang::Ruby,
                _ => false,
            };
            if keyword {
                self.pos += 2;
            }
            out.push(self.expr()?);
            if self.eat(b',') {
                continue;
            }
            return self.eat(b')').then_some(out);
        }
    }

    /// What a function called by `name` with `args` gives.
    fn call(&self, name: &str, args: Vec<V>) -> Option<V> {
        use Lang::*;
        let first = args.first();
        let first_text = first.and_then(text_of);
        match (self.lang, name) {
            (
                Python,
                "Path.home"
                | "pathlib.Path.home"
                | "PurePath.home"
                | "PosixPath.home"
                | "pathlib.PosixPath.home",
            )
            | (Ruby, "Dir.home")
            | (Perl, "File::HomeDir->my_home")
            | (Node | Deno, "os.homedir" | "homedir") => home(),
            (Python, "Path.cwd" | "pathlib.Path.cwd" | "os.getcwd" | "getcwd")
            | (Ruby, "Dir.pwd" | "Dir.getwd")
            | (Perl, "getcwd" | "cwd" | "Cwd::getcwd" | "Cwd::cwd")
            | (Php, "getcwd")
            | (Node | Deno, "process.cwd" | "Deno.cwd") => text("."),
            (Python, "tempfile.gettempdir" | "gettempdir")
            | (Php, "sys_get_temp_dir")
            | (Node | Deno, "os.tmpdir") => text("/tmp"),
            (Python, "os.getenv" | "getenv" | "os.environ.get" | "environ.get")
            | (Ruby, "ENV.fetch")
            | (Php, "getenv")
            | (Node | Deno, "Deno.env.get") => env(first_text?),
            (Python, "os.path.expandvars" | "expandvars") => {
                let t = first_text?;
                let t = t.replace("${HOME}", "~").replace("$HOME", "~");
                (!t.contains('$')).then_some(V::Text(t))
            }
            (
                Python,
                "os.path.join"
                | "path.join"
                | "posixpath.join"
                | "join"
                | "Path"
                | "pathlib.Path"
                | "PurePath"
                | "pathlib.PurePath"
                | "PosixPath"
                | "pathlib.PosixPath"
                | "PurePosixPath"
                | "pathlib.PurePosixPath",
            )
            | (Ruby, "File.join" | "Pathname.new" | "Pathname")
            | (
                Perl,
                "File::Spec->catfile"
                | "File::Spec->catdir"
                | "catfile"
                | "catdir"
                | "File::Spec::Functions::catfile",
            )
            | (
                Node | Deno,
                "path.join" | "path.resolve" | "path.normalize" | "path.posix.join"
                | "path.posix.resolve",
            ) => join_all(args),
            (
                Python,
                "os.path.expanduser" | "path.expanduser" | "expanduser" | "os.path.abspath"
                | "abspath" | "os.path.realpath" | "realpath" | "os.path.normpath" | "normpath"
                | "os.fspath" | "str",
            )
            | (Ruby, "File.realpath" | "String")
            | (Perl, "abs_path" | "Cwd::abs_path" | "realpath" | "Cwd::realpath")
            | (Php, "realpath")
            | (Node | Deno, "String") => first.cloned(),
            // `File.expand_path(name, dir)`: a relative name is in `dir`.
            (Ruby, "File.expand_path" | "File.absolute_path") => match args.as_slice() {
                [a] => Some(a.clone()),
                [a, dir] => join(dir.clone(), a.clone()),
                _ => None,
            },
            (Ruby, "Dir.glob")
            | (Perl, "glob" | "CORE::glob" | "bsd_glob" | "File::Glob::bsd_glob")
            | (Php, "glob") => pattern(first),
            (Python, "__import__" | "importlib.import_module" | "import_module")
            | (Node | Deno, "require") => Some(V::Module(module_name(first_text?))),
            _ => None,
        }
    }

    /// What calling (`args`) or reading (no `args`) the member `m` of `v` gives.
    fn method(&self, v: V, m: &str, args: Option<Vec<V>>) -> Option<V> {
        match v {
            V::Module(module) => {
                let full = format!("{module}.{m}");
                match args {
                    Some(a) => self.call(&full, a),
                    None => Some(self.value(&full).unwrap_or(V::Module(full))),
                }
            }
            V::Env => match (m, args) {
                ("get" | "fetch", Some(a)) => env(text_of(a.first()?)?),
                (key, None) => env(key),
                _ => None,
            },
            V::Text(_) | V::Pattern(_) => match (m, args) {
                ("joinpath" | "join", Some(a))
                    if matches!(self.lang, Lang::Python | Lang::Ruby) =>
                {
                    let mut all = vec![v];
                    all.extend(a);
                    join_all(all)
                }
                (
                    "expanduser" | "resolve" | "absolute" | "expand_path" | "to_s" | "to_path"
                    | "realpath" | "as_posix" | "cleanpath" | "__str__" | "to_str",
                    a,
                ) if a.as_ref().is_none_or(Vec::is_empty) => Some(v),
                _ => None,
            },
        }
    }

    /// The value of a name: the environment, the home folder, or what it is given once.
    fn value(&self, name: &str) -> Option<V> {
        use Lang::*;
        match (self.lang, name) {
            (Python, "os.environ" | "environ" | "posix.environ")
            | (Ruby, "ENV")
            | (Perl, "$ENV" | "%ENV")
            | (Php, "$_SERVER" | "$_ENV")
            | (Node | Deno, "process.env") => return Some(V::Env),
            (Ruby, "Dir.home") => return home(),
            (Ruby, "Dir.pwd") => return text("."),
            (Ruby, "Dir") => return Some(V::Module("Dir".into())),
            (Python, "os.curdir") => return text("."),
            _ => {}
        }
        if let Some((head, last)) = name.rsplit_once('.') {
            let v = self.value(head)?;
            return self.method(v, last, None);
        }
        let plain = name
            .bytes()
            .all(|b| is_ident(b) || matches!(b, b'$' | b'@'));
        if !plain || name.contains("::") {
            return None;
        }
        let expr = assigned(self.lang, self.code, name)?;
        eval(self.lang, self.code, expr, self.depth + 1)
    }

    /// A string with interpolations, when each names a known text.
    fn interpolate(&self, s: &str) -> Option<V> {
        let b = s.as_bytes();
        let mut out = String::new();
        let mut i = 0;
        while i < b.len() {
            let next = b.get(i + 1).copied();
            let var_start = |n: Option<u8>| n.is_some_and(|n| n.is_ascii_alphabetic() || n == b'_');
            let opened = match (self.lang, b[i], next) {
                (Lang::Python, b'{', _) => Some(1),
                (Lang::Node | Lang::Deno, b'$', Some(b'{')) | (Lang::Ruby, b'#', Some(b'{')) => {
                    Some(2)
                }
                (Lang::Php, b'{', Some(b'$')) => Some(1),
                (Lang::Ruby, b'#', Some(b'@' | b'$')) => return None,
                (Lang::Perl, b'@', n) if var_start(n) || n == Some(b'{') => return None,
                (Lang::Perl, b'$', n) if var_start(n) || n == Some(b'{') => None,
                (Lang::Php, b'$', n) if var_start(n) => None,
                _ => {
                    let c = s[i..].chars().next()?;
                    out.push(c);
                    i += c.len_utf8();
                    continue;
                }
            };
            let (inner, end) = match opened {
                Some(skip) => {
                    let end = closing(b, i + skip, b'{', b'}')?;
                    let mut inner = &s[i + skip..end];
                    if self.lang == Lang::Python {
                        inner = format_field(inner);
                    }
                    (inner.to_string(), end + 1)
                }
                None => variable_in_string(self.lang, s, i)?,
            };
            let v = eval(self.lang, self.code, &inner, self.depth + 1)?;
            out.push_str(text_of(&v)?);
            i = end;
        }
        Some(V::Text(out))
    }
}

/// `fs/promises` → `promises`, `node:os` → `os`, `fs-extra` → `fse`.
pub(super) fn module_name(spec: &str) -> String {
    let spec = spec.strip_prefix("node:").unwrap_or(spec);
    match spec {
        "fs-extra" => "fse".into(),
        _ => spec.rsplit('/').next().unwrap_or(spec).to_string(),
    }
}

/// The index of the `close` that closes the bracket opened before `from`.
fn closing(b: &[u8], from: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(from) {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(k);
            }
            depth -= 1;
        }
    }
    None
}

/// A python f-string field's expression, without its conversion and format (`x!r:>10`).
fn format_field(field: &str) -> &str {
    let mut depth = 0usize;
    for (k, c) in field.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '!' | ':' if depth == 0 && !field[k..].starts_with("!=") => return &field[..k],
            _ => {}
        }
    }
    field
}

/// A perl or php variable interpolated at byte `i` (`$ENV{HOME}`, `${name}`,
/// `$_SERVER[HOME]`): the expression it is and the byte after it.
fn variable_in_string(lang: Lang, s: &str, i: usize) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut j = i + 1;
    let mut expr = String::from("$");
    if b.get(j) == Some(&b'{') {
        let end = closing(b, j + 1, b'{', b'}')?;
        expr.push_str(s[j + 1..end].trim());
        return Some((expr, end + 1));
    }
    while j < b.len() && (is_ident(b[j]) || (lang == Lang::Perl && s[j..].starts_with("::"))) {
        let step = if b[j] == b':' { 2 } else { 1 };
        expr.push_str(&s[j..j + step]);
        j += step;
    }
    // Subscripts: `{HOME}`, `[0]`, `->{x}`.
    loop {
        let arrow = lang == Lang::Perl && s[j..].starts_with("->");
        let at = if arrow { j + 2 } else { j };
        let (open, close) = match b.get(at) {
            Some(b'{') if lang == Lang::Perl => (b'{', b'}'),
            Some(b'[') => (b'[', b']'),
            _ => return Some((expr, j)),
        };
        let end = closing(b, at + 1, open, close)?;
        let key = &s[at + 1..end];
        // php's `$a[HOME]` is the key `'HOME'`.
        let bare = lang == Lang::Php && key.bytes().all(is_ident) && !key.is_empty();
        if bare && !key.bytes().all(|c| c.is_ascii_digit()) {
            expr.push_str(&format!("['{key}']"));
        } else {
            expr.push(char::from(open));
            expr.push_str(key);
            expr.push(char::from(close));
        }
        j = end + 1;
    }
}

/// The expression a name is given once in `code` (`p = Path.home() / "x"`, `my $f = …`,
/// `const f = …`, `$f = …`): none when it is given more than once, in a loop, as a keyword
/// argument, or changed in place.
pub(super) fn assigned<'c>(lang: Lang, code: &'c str, name: &str) -> Option<&'c str> {
    // Each name read scans the code: in a long script, names are computed (the stricter
    // reading) rather than read at a cost that grows with the square of its length.
    if name.is_empty() || code.len() > MAX_NAMED_CODE {
        return None;
    }
    let b = code.as_bytes();
    let mut found = None;
    let mut count = 0usize;
    let mut from = 0;
    for _ in 0..64 {
        let Some(k) = code[from..].find(name) else {
            break;
        };
        let at = from + k;
        from = at + name.len();
        let before = at.checked_sub(1).map(|p| b[p]);
        let after = b.get(from).copied();
        let sigil_before = lang != Lang::Python && before.is_some_and(|c| matches!(c, b'$' | b'@'));
        if before.is_some_and(|c| is_ident(c) || c == b'.')
            || sigil_before
            || after.is_some_and(is_ident)
        {
            continue;
        }
        let prefix = code[..at].trim_end();
        let binder = [
            "for", "foreach", "as", "global", "nonlocal", "lambda", "def",
        ]
        .iter()
        .any(|k| {
            prefix
                .strip_suffix(k)
                .is_some_and(|p| !p.bytes().last().is_some_and(is_ident))
        });
        let in_loop = [
            "for my",
            "foreach my",
            "for (const",
            "for (let",
            "for (var",
            "for (",
        ]
        .iter()
        .any(|k| prefix.ends_with(k));
        if binder || in_loop {
            return None;
        }
        let rest = code[from..].trim_start_matches([' ', '\t']);
        const CHANGES: [&str; 18] = [
            "+=", "-=", "*=", "/=", "%=", ".=", "|=", "&=", "^=", ":=", "**=", "//=", "||=", "&&=",
            "<<=", ">>=", "=~", "x=",
        ];
        if CHANGES.iter().any(|c| rest.starts_with(c)) {
            return None;
        }
        let assigns = rest.starts_with('=') && !rest[1..].starts_with(['=', '>']);
        if !assigns || depth_at(code, at) != 0 {
            continue;
        }
        // A tuple's part (`a, p = …`).
        if prefix.ends_with(',') {
            return None;
        }
        count += 1;
        let value = &rest[1..];
        found = Some(value[..statement_end(value)].trim());
    }
    if count == 1 {
        found
    } else {
        None
    }
}

/// The bracket depth at byte `at` of `code` (string literals skipped).
fn depth_at(code: &str, at: usize) -> usize {
    let b = code.as_bytes();
    let mut depth = 0usize;
    let mut quote = None;
    let mut k = 0;
    while k < at.min(b.len()) {
        let c = b[k];
        match quote {
            Some(_) if c == b'\\' => k += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        k += 1;
    }
    depth
}

/// Where the statement that starts `s` ends: a `;` or a line end outside brackets and strings.
fn statement_end(s: &str) -> usize {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut quote = None;
    let mut k = 0;
    while k < b.len() {
        let c = b[k];
        match quote {
            Some(_) if c == b'\\' => k += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => return k,
                b')' | b']' | b'}' => depth -= 1,
                b';' | b'\n' if depth == 0 => return k,
                _ => {}
            },
        }
        k += 1;
    }
    b.len()
}
