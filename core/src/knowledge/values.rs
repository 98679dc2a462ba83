//! What the line's variables hold where its later words read them: one model of values for the
//! protections, the effects and the read-only proof alike.
//!
//! A line gives its variables values by assignments (`x=~/.ssh/id_rsa`, `a=(x y)`), by
//! declarations (`export X=1`), by loops (`for f in ~/.ssh/*`) and by builtins that read
//! input (`read x`, whose value is only known when the line runs). A command whose words read
//! such variables (`cat $x`, `cat "${a[0]}"`, `cat ${x/foo/bar}`) is read once with each value
//! put in: `cat ~/.ssh/id_rsa`. When the value is known exactly (every assignment of the name
//! known, the first one before the command and on the line's own level, the word nothing but
//! the variable) the command is only read so; otherwise each reading is added to the command
//! as written, so that it can only make the decision stricter.
//!
//! The same values decide whether a value bash evaluates as code (arithmetic, `${!x}`,
//! `${x@P}`: see [`SimpleCommand::evaluates`]) may hold a command substitution.

use std::collections::HashMap;

use crate::command::{Origin, SimpleCommand, Word};

use super::state::STATE_VARIABLES;

/// Most readings of one command with values put in.
const MAX_VARIANTS: usize = 32;
/// Deepest chain of names through values (`x=y; y=z; (( x ))`) followed.
const MAX_DEPTH: usize = 8;

/// One value a name is given, and where.
#[derive(Debug, Clone)]
struct Assigned {
    /// `None`: only known when the line runs (`read x`, `x=$(…)`).
    value: Option<String>,
    /// As written, when it was written on the line (`$(curl …)` too).
    spelled: Option<String>,
    span: (usize, usize),
    /// Given on the line's own level (not in a subshell, a function or a branch), or by the
    /// header of a loop (then it holds for the commands inside `span`).
    top: bool,
    header: bool,
}

/// The values a line gives its variables.
#[derive(Debug, Default)]
pub struct LineValues {
    names: HashMap<String, Vec<Assigned>>,
    /// A name only known when the line runs is given a value (`export "$n"=x`), or code the
    /// analysis does not read may assign anything (`eval`, `source`): no value is exact.
    anything: bool,
    /// Whether the command being noted runs a command substitution in its words.
    runs: bool,
}

/// A reference to a variable inside a word's text.
#[derive(Debug)]
struct Ref {
    start: usize,
    end: usize,
    name: String,
    /// The word's value is the variable's value itself (`$x`, `${x}`, `${a[0]}`), not a value
    /// made from it (`${x/a/b}`, `${#x}`).
    whole: bool,
    /// A default the expansion may take instead (`${x:-~/.ssh/id_rsa}`).
    default: Option<String>,
}

impl LineValues {
    /// The values the commands of a line give their variables.
    pub fn of(commands: &[SimpleCommand]) -> LineValues {
        let mut out = LineValues::default();
        // Where command substitutions run: a `$(` inside an assignment that holds one is run
        // when it is assigned (its output is the value), not kept as text.
        let substitutions: Vec<(usize, usize)> = commands
            .iter()
            .filter(|c| {
                matches!(
                    c.origin,
                    Origin::CommandSubstitution | Origin::ProcessSubstitution
                )
            })
            .map(|c| c.span)
            .collect();
        for cmd in commands {
            let runs = substitutions
                .iter()
                .any(|s| cmd.span.0 <= s.0 && s.1 <= cmd.span.1 && *s != cmd.span);
            out.note(cmd, runs);
        }
        out
    }

    /// Notes that `name` is given the value written `spelled` (`None`: not written on the
    /// line, as `read x` gives).
    fn push(&mut self, name: &str, spelled: Option<&str>, cmd: &SimpleCommand, header: bool) {
        // A value with a substitution that ran is its output: only known when the line runs.
        let spelled = spelled.filter(|v| !(self.runs && (v.contains("$(") || v.contains('`'))));
        if !is_name(name) {
            self.anything = true;
            return;
        }
        let top = matches!(cmd.origin, Origin::TopLevel | Origin::Group);
        self.names
            .entry(name.to_string())
            .or_default()
            .push(Assigned {
                value: spelled.and_then(known),
                spelled: spelled.map(str::to_string),
                span: cmd.span,
                top: top || header,
                header,
            });
    }

    fn note(&mut self, cmd: &SimpleCommand, runs: bool) {
        self.runs = runs;
        // `${x:=v}` and `${x=v}` assign too.
        for w in cmd
            .argv
            .iter()
            .chain(cmd.redirects.iter().map(|r| &r.target))
        {
            for r in refs(&w.value) {
                if r.default.is_some() && w.value[r.start..r.end].contains('=') {
                    self.push(&r.name, None, cmd, false);
                }
            }
        }
        if cmd.argv.is_empty() {
            // A loop's header spans the loop (see the walk's `for_statement`); an assignment in
            // a branch spans itself, so it holds for nothing after it.
            let header = cmd.origin == Origin::Compound;
            for a in &cmd.assignments {
                let Some((name, value)) = a.split_once('=') else {
                    continue;
                };
                let appended = name.ends_with('+');
                let name = name.trim_end_matches('+');
                let (name, element) = match name.split_once('[') {
                    Some((n, _)) => (n, true),
                    None => (name, false),
                };
                if appended {
                    self.push(name, None, cmd, header);
                } else if let Some(items) =
                    value.strip_prefix('(').and_then(|v| v.strip_suffix(')'))
                {
                    for item in items.split_whitespace() {
                        self.push(name, Some(item), cmd, header);
                    }
                } else if element {
                    // `a[i]=v` adds to the values `a` may hold.
                    self.push(name, Some(value), cmd, false);
                } else {
                    self.push(name, Some(value), cmd, header);
                }
            }
            return;
        }
        let program = cmd.program();
        let args = &cmd.argv[1..];
        match program {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for w in args {
                    if w.dynamic && !w.value.contains('=') {
                        self.anything = true;
                    } else if let Some((n, v)) = w.value.split_once('=') {
                        if n.contains('$') {
                            self.anything = true;
                        } else {
                            self.push(n.trim_end_matches('+'), Some(v), cmd, false);
                        }
                    }
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" | "unset" => {
                let mut any = false;
                for w in args.iter().filter(|w| !w.value.starts_with('-')) {
                    any = true;
                    self.push(w.value.split('[').next().unwrap_or(""), None, cmd, false);
                }
                if !any && program == "read" {
                    self.push("REPLY", None, cmd, false);
                }
            }
            "printf" | "wait" => {
                for pair in args.windows(2) {
                    if pair[0].value == "-v" || pair[0].value == "-p" {
                        self.push(
                            pair[1].value.split('[').next().unwrap_or(""),
                            None,
                            cmd,
                            false,
                        );
                    }
                }
                if args
                    .iter()
                    .any(|w| w.value.starts_with("-v") && w.value.len() > 2)
                {
                    self.anything = true;
                }
            }
            "eval" | "source" | "." | "set" => self.anything = true,
            _ => {}
        }
    }

    /// Whether `name`'s value at `cmd` is exactly one of its line values: every assignment of
    /// it known, the first one before `cmd` on the line's level (or a loop header around it).
    fn exact_at(&self, name: &str, cmd: &SimpleCommand) -> bool {
        if self.anything {
            return false;
        }
        let Some(all) = self.names.get(name) else {
            return false;
        };
        if all.iter().any(|a| a.value.is_none()) {
            return false;
        }
        let first = all.iter().min_by_key(|a| a.span.0);
        first.is_some_and(|a| {
            // A loop header's assignments come before its own tests.
            let before = a.span.0 < cmd.span.0 || (a.header && a.span == cmd.span);
            let around = !a.header || (a.span.0 <= cmd.span.0 && cmd.span.1 <= a.span.1);
            a.top && before && around
        })
    }

    /// The known values of `name` (whatever their place).
    fn values(&self, name: &str) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .names
            .get(name)
            .map(|all| all.iter().filter_map(|a| a.value.as_deref()).collect())
            .unwrap_or_default();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether [`LineValues::substituted`] may give other commands than it is given: the line
    /// assigns a variable a value.
    pub fn substitutes(&self) -> bool {
        !self.names.is_empty()
    }

    /// The commands with the line's values put in (see the module's documentation).
    pub fn substituted(&self, commands: Vec<SimpleCommand>) -> Vec<SimpleCommand> {
        if self.names.is_empty() {
            return commands;
        }
        let mut out = Vec::with_capacity(commands.len());
        for cmd in commands {
            match self.readings(&cmd) {
                Some((readings, true)) => out.extend(readings),
                Some((readings, false)) => {
                    out.push(cmd);
                    out.extend(readings);
                }
                None => out.push(cmd),
            }
        }
        out
    }

    /// The readings of `cmd` with values put in, and whether they are exact (then they stand
    /// for it); `None` when no word reads a variable with a known value.
    fn readings(&self, cmd: &SimpleCommand) -> Option<(Vec<SimpleCommand>, bool)> {
        // The words that read variables with values: argv (index), then redirections.
        let mut slots: Vec<(usize, Vec<Word>, bool)> = Vec::new();
        let words = cmd
            .argv
            .iter()
            .chain(cmd.redirects.iter().map(|r| &r.target))
            .enumerate();
        for (i, w) in words {
            if !w.dynamic || !w.value.contains('$') {
                continue;
            }
            if let Some((choices, exact)) = self.word_choices(w, cmd) {
                slots.push((i, choices, exact));
            }
        }
        if slots.is_empty() {
            return None;
        }
        let exact = slots.iter().all(|(_, _, e)| *e);
        let total = slots
            .iter()
            .try_fold(1usize, |n, (_, c, _)| n.checked_mul(c.len().max(1)));
        let mut out = Vec::new();
        match total {
            Some(n) if n <= MAX_VARIANTS => {
                let mut index = vec![0usize; slots.len()];
                loop {
                    let mut variant = cmd.clone();
                    for (k, (i, choices, _)) in slots.iter().enumerate() {
                        if let Some(w) = choices.get(index[k]) {
                            put(&mut variant, *i, w.clone());
                        }
                    }
                    out.push(variant);
                    // The next combination.
                    let mut k = 0;
                    loop {
                        if k == slots.len() {
                            return Some((out, exact));
                        }
                        index[k] += 1;
                        if index[k] < slots[k].1.len() {
                            break;
                        }
                        index[k] = 0;
                        k += 1;
                    }
                }
            }
            // Too many combinations: each word on its own, the others as written.
            _ => {
                for (i, choices, _) in &slots {
                    for w in choices.iter().take(MAX_VARIANTS) {
                        let mut variant = cmd.clone();
                        put(&mut variant, *i, w.clone());
                        out.push(variant);
                    }
                }
                Some((out, false))
            }
        }
    }

    /// The words `w` may be once its variables have their values, and whether that is exact.
    fn word_choices(&self, w: &Word, cmd: &SimpleCommand) -> Option<(Vec<Word>, bool)> {
        let refs: Vec<Ref> = refs(&w.value)
            .into_iter()
            .filter(|r| !STATE_VARIABLES.contains(&r.name.as_str()))
            .collect();
        if refs.is_empty() {
            return None;
        }
        let mut exact = true;
        let mut options: Vec<Vec<String>> = Vec::new();
        for r in &refs {
            let mut values: Vec<String> =
                self.values(&r.name).into_iter().map(String::from).collect();
            if let Some(d) = &r.default {
                values.push(d.clone());
            }
            if values.is_empty() {
                return None;
            }
            exact &= r.whole && r.default.is_none() && self.exact_at(&r.name, cmd);
            options.push(values);
        }
        let mut texts = vec![String::new()];
        let mut at = 0;
        for (r, values) in refs.iter().zip(&options) {
            let before = &w.value[at..r.start];
            let mut next = Vec::new();
            for t in &texts {
                for v in values {
                    next.push(format!("{t}{before}{v}"));
                    if next.len() > MAX_VARIANTS {
                        return None;
                    }
                }
            }
            texts = next;
            at = r.end;
        }
        let rest = &w.value[at..];
        let mut words = Vec::new();
        for t in texts {
            let value = format!("{t}{rest}");
            let dynamic = value.contains('$') || value.contains('`');
            // A value with blanks splits into words where it is not quoted: read both ways.
            if !dynamic && value.contains(char::is_whitespace) {
                exact = false;
            }
            words.push(Word {
                path: (!dynamic).then(|| home_path(&value)),
                dynamic,
                value,
            });
        }
        exact &= words.iter().all(|w| !w.dynamic);
        Some((words, exact))
    }

    /// Why the values `cmd` evaluates as code are not known to be free of command
    /// substitutions (see [`SimpleCommand::evaluates`]), and whether one is known to hold one
    /// (then it runs a command the analysis did not read); `None` when they are free of them.
    pub fn evaluates_unknown(&self, cmd: &SimpleCommand) -> Option<(String, bool)> {
        let mut names: Vec<String> = cmd.evaluates.clone();
        // `let EXPR…` and `declare -i x=EXPR` evaluate their words as arithmetic.
        let program = cmd.argv.first().map_or("", |_| cmd.program());
        let integer = matches!(program, "declare" | "typeset" | "local")
            && cmd.argv[1..]
                .iter()
                .any(|w| w.value.starts_with('-') && w.value.contains('i'));
        if program == "let" || integer {
            for w in &cmd.argv[1..] {
                if !w.value.starts_with('-') {
                    // `z=1+2` gives `z` a value; what it is given is evaluated.
                    let expr = match w.value.split_once('=') {
                        Some((name, rest)) if is_name(name) => rest,
                        _ => w.value.as_str(),
                    };
                    names.extend(identifiers(expr));
                }
            }
        }
        let mut seen = Vec::new();
        for name in names {
            if !self.safe(&name, cmd, 0, &mut seen) {
                let what = if name == "$(…)" {
                    "the output of a command substitution".to_string()
                } else {
                    format!("`${name}`")
                };
                let code = self.holds_code(&name);
                let known = if code {
                    "and its value holds a command substitution, which bash runs".to_string()
                } else {
                    "and its value is not known: a value like `a[$(…)]` runs a command".to_string()
                };
                return Some((
                    format!(
                        "it evaluates {what} as code (arithmetic, `${{!…}}` or `${{…@P}}`), {known}"
                    ),
                    code,
                ));
            }
        }
        None
    }

    /// Whether a value the line gives `name` holds a command substitution or a back-tick
    /// (`x='$(curl …|sh)'`): evaluated as code, it runs a command the analysis did not read.
    pub fn holds_code(&self, name: &str) -> bool {
        self.names.get(name).is_some_and(|all| {
            all.iter().any(|a| {
                a.spelled.as_deref().is_some_and(|v| {
                    let arithmetic = v.starts_with("$((") && v.matches("$(").count() == 1;
                    !arithmetic && (v.contains("$(") || v.contains('`'))
                })
            })
        })
    }

    fn safe(&self, name: &str, cmd: &SimpleCommand, depth: usize, seen: &mut Vec<String>) -> bool {
        if name == "$(…)" || depth > MAX_DEPTH {
            return false;
        }
        if seen.iter().any(|s| s == name) || name.bytes().all(|b| b.is_ascii_digit()) {
            return true;
        }
        if NUMERIC_VARIABLES.contains(&name) {
            return true;
        }
        if !self.exact_at(name, cmd) {
            return false;
        }
        seen.push(name.to_string());
        let values: Vec<String> = self.values(name).into_iter().map(String::from).collect();
        values
            .iter()
            .all(|v| self.safe_value(v, cmd, depth + 1, seen))
    }

    fn safe_value(
        &self,
        v: &str,
        cmd: &SimpleCommand,
        depth: usize,
        seen: &mut Vec<String>,
    ) -> bool {
        let v = v.trim();
        // The result of an arithmetic expansion is a number.
        if v.starts_with("$((") && v.ends_with("))") && v.matches("$(").count() == 1 {
            return true;
        }
        if v.contains("$(") || v.contains('`') || v.contains("${!") {
            return false;
        }
        identifiers(v)
            .iter()
            .all(|n| self.safe(n, cmd, depth, seen))
    }
}

/// Variables bash keeps as numbers (or that only the shell sets).
const NUMERIC_VARIABLES: [&str; 18] = [
    "?",
    "#",
    "$",
    "!",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "PPID",
    "UID",
    "EUID",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "OPTIND",
    "BASH_SUBSHELL",
    "HISTCMD",
    "SHLVL",
];

/// A value known before the line runs: no expansion but a leading `$HOME` (read as `~`), or
/// the number an arithmetic expansion gives (`$((n+1))`, kept as written).
fn known(value: &str) -> Option<String> {
    if value.starts_with("$((") && value.ends_with("))") && value.matches("$(").count() == 1 {
        return Some(value.to_string());
    }
    let home = ["${HOME}", "$HOME"].iter().find_map(|h| {
        value
            .strip_prefix(h)
            .filter(|r| r.is_empty() || r.starts_with('/'))
    });
    let value = match home {
        Some(rest) => format!("~{rest}"),
        None => value.to_string(),
    };
    (!value.contains('$') && !value.contains('`')).then_some(value)
}

/// A value put in a word, read as a path: values keep the home folder as a leading `~` (see
/// [`known`]).
fn home_path(value: &str) -> String {
    value.to_string()
}

/// Puts `w` in the place of the `i`th word of `cmd` (argv, then redirection targets).
fn put(cmd: &mut SimpleCommand, i: usize, w: Word) {
    let n = cmd.argv.len();
    if i < n {
        cmd.argv[i] = w;
    } else if let Some(r) = cmd.redirects.get_mut(i - n) {
        r.target = w;
    }
}

/// The variable references in a word's text (as written): `$x`, `${x}`, `${x[0]}`, and the
/// values made from one (`${x/a/b}`, `${x:-d}`, `${#x}`). `$(…)`, `$((…))`, `${!x}` and the
/// special parameters are not references to a named value.
fn refs(text: &str) -> Vec<Ref> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let start = i;
        match bytes.get(i + 1) {
            Some(b'{') => {
                let Some(close) = closing_brace(text, i + 1) else {
                    return out;
                };
                let inner = &text[i + 2..close];
                if let Some(r) = braced(inner, start, close + 1) {
                    out.push(r);
                }
                i = close + 1;
            }
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                let len = text[i + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(text.len() - i - 1);
                out.push(Ref {
                    start,
                    end: i + 1 + len,
                    name: text[i + 1..i + 1 + len].to_string(),
                    whole: true,
                    default: None,
                });
                i += 1 + len;
            }
            _ => i += 1,
        }
    }
    out
}

/// The `}` closing the `{` at byte `open` (nested braces counted).
fn closing_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// A `${…}` expansion's reference, from the text inside the braces.
fn braced(inner: &str, start: usize, end: usize) -> Option<Ref> {
    if inner.starts_with('!') {
        return None;
    }
    let length = inner.starts_with('#') && inner.len() > 1;
    let body = if length { &inner[1..] } else { inner };
    let len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    let name = &body[..len];
    if !is_name(name) {
        return None;
    }
    let rest = &body[len..];
    if length {
        return Some(Ref {
            start,
            end,
            name: name.to_string(),
            whole: false,
            default: Some("0".to_string()),
        });
    }
    // `${a[0]}`, `${a[@]}`: an element of the array's values.
    let rest = match rest.strip_prefix('[') {
        Some(r) => match r.find(']') {
            Some(k) => &r[k + 1..],
            None => return None,
        },
        None => rest,
    };
    if rest.is_empty() {
        return Some(Ref {
            start,
            end,
            name: name.to_string(),
            whole: true,
            default: None,
        });
    }
    let default = ["-", ":-", "=", ":="]
        .iter()
        .filter(|op| rest.starts_with(*op))
        .max_by_key(|op| op.len())
        .map(|op| rest[op.len()..].to_string())
        .and_then(|d| known(&d));
    Some(Ref {
        start,
        end,
        name: name.to_string(),
        whole: false,
        default,
    })
}

/// The names an arithmetic text refers to (`a+b*2` → `a`, `b`; `$c` → `c`).
fn identifiers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_alnum = false;
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            if current.is_empty() && c.is_ascii_digit() {
                prev_alnum = true;
                continue;
            }
            if !(current.is_empty() && prev_alnum) {
                current.push(c);
            }
            prev_alnum = true;
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_alnum = false;
        }
    }
    out
}

fn is_name(n: &str) -> bool {
    n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::analyse;

    fn readings(line: &str) -> Vec<String> {
        let commands = analyse(line).commands;
        let values = LineValues::of(&commands);
        values
            .substituted(commands)
            .iter()
            .map(|c| {
                c.argv
                    .iter()
                    .map(|w| w.value.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn a_known_value_stands_for_the_variable_and_an_unsure_one_is_added() {
        assert_eq!(
            readings("x=~/.ssh/id_rsa; cat $x"),
            ["", "cat ~/.ssh/id_rsa"]
        );
        assert_eq!(
            readings("for f in ~/.ssh/* src/a.rs; do cat \"$f\"; done"),
            ["", "cat src/a.rs", "cat ~/.ssh/*"]
        );
        assert_eq!(
            readings("a=(~/.ssh/id_rsa); cat ${a[0]}"),
            ["", "cat ~/.ssh/id_rsa"]
        );
        // A value made from the variable: read as written and with the value.
        assert_eq!(
            readings("x=~/.ssh/id_rsa; cat ${x/foo/bar}"),
            ["", "cat ${x/foo/bar}", "cat ~/.ssh/id_rsa"]
        );
        // Given after the command reads it, or in a subshell: unsure.
        assert_eq!(readings("cat $x; x=a"), ["cat $x", "cat a", ""]);
        assert_eq!(readings("(x=a); cat $x"), ["", "cat $x", "cat a"]);
        // From input: nothing known.
        assert_eq!(readings("read x; cat $x"), ["read x", "cat $x"]);
        assert_eq!(readings("x=$(pwd); cat $x"), ["", "pwd", "cat $x"]);
        assert_eq!(
            readings("d=/etc; cat ${y:-~/.ssh/id_rsa} $d/x"),
            [
                "",
                "cat ${y:-~/.ssh/id_rsa} $d/x",
                "cat ~/.ssh/id_rsa /etc/x"
            ]
        );
    }

    #[test]
    fn an_evaluated_value_must_be_known_free_of_substitutions() {
        let unknown = |line: &str| {
            let commands = analyse(line).commands;
            let values = LineValues::of(&commands);
            commands
                .iter()
                .any(|c| values.evaluates_unknown(c).is_some())
        };
        for line in [
            "x='a[$(id)]'; (( x ))",
            "x='a[$(id)]'; [[ $x -eq 1 ]]",
            "[[ $x -eq 1 ]]",
            "echo $((y + 1))",
            "x='a[$(id)]'; echo ${!x}",
            "x='$(id)'; echo ${x@P}",
            "read n; (( n > 3 ))",
            "echo $(( $(cat f) + 1 ))",
            "x='a[$(id)]'; let y=x",
            "x=y; y='a[$(id)]'; (( x ))",
            "x='a[$(id)]'; a[x]=1",
        ] {
            assert!(unknown(line), "{line}");
        }
        for line in [
            "n=0; (( n < 5 ))",
            "n=0; n=$((n+1)); echo $n",
            "for ((i=0; i<3; i++)); do echo $i; done",
            "echo $(( 1 + 2 ))",
            "[[ $# -eq 0 ]]",
            "x=3; y=x; (( y ))",
            "let z=1+2",
            "echo ${a[0]}",
        ] {
            assert!(!unknown(line), "{line}");
        }
    }
}
