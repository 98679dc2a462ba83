//! Reading one simple command with its program's table: which options it gives (abbreviations
//! resolved the way the program resolves them), which subcommand, which operands in which
//! role, and what was not understood.

use std::borrow::Cow;

use super::load::registry;
use super::table::{Long, Operands, OptSpec, Program, Role, Style, Takes};
use crate::command::{SimpleCommand, Word};

/// A simple command as its program reads it.
#[derive(Debug, Clone, Default)]
pub struct Reading<'c> {
    /// The program's table, when the knowledge has one.
    pub program: Option<&'static Program>,
    /// The deepest subcommand reached (the program itself when it has none).
    pub node: Option<&'static Program>,
    /// The subcommand words (`["stash", "list"]` of `git stash list`).
    pub path: Vec<&'c str>,
    pub options: Vec<Used<'c>>,
    pub operands: Vec<Operand<'c>>,
    /// What was not understood, in words; empty when everything was.
    pub unknown: Vec<String>,
    /// The command read by its verb table or the lexicon ([`super::verbs::classify`]), once.
    verbs: std::cell::OnceCell<Option<super::verbs::Reading>>,
    /// The credential the command prints, if any ([`Reading::prints`]), once.
    prints: std::cell::OnceCell<Option<String>>,
}

/// One option given.
#[derive(Debug, Clone)]
pub struct Used<'c> {
    /// The option, when the table knows it (and the abbreviation is not ambiguous).
    pub spec: Option<&'static OptSpec>,
    /// The options an ambiguous abbreviation could mean.
    pub candidates: Vec<&'static OptSpec>,
    /// As written: `--rec`, `-r` (each letter of a cluster on its own), `-name`, `-5`.
    pub written: String,
    /// git's `--no-NAME` form.
    pub negated: bool,
    pub value: Option<Value<'c>>,
    /// Index in `argv` of the word holding the option.
    pub at: usize,
}

/// The value of an option: a word of its own, or the part of the option's word after it.
#[derive(Debug, Clone)]
pub struct Value<'c> {
    pub text: Cow<'c, str>,
    /// The word it is (part of).
    pub word: &'c Word,
}

impl Value<'_> {
    /// Whether the value is known before the command runs.
    pub fn is_static(&self) -> bool {
        !self.word.dynamic
    }
}

/// One operand and its role.
#[derive(Debug, Clone)]
pub struct Operand<'c> {
    pub word: &'c Word,
    pub at: usize,
    /// Its role; `None` for an operand the program does not take.
    pub role: Option<Role>,
    /// The word may become several words (an unquoted glob or expansion): every role from
    /// its position on may apply.
    pub roles: Vec<Role>,
}

impl<'c> Reading<'c> {
    /// Reads `cmd` with the table of its program (its folder stripped), if there is one.
    pub fn of(cmd: &'c SimpleCommand) -> Reading<'c> {
        let Some(first) = cmd.argv.first() else {
            return Reading::default();
        };
        if first.dynamic {
            return Reading {
                unknown: vec!["the program's name is computed".into()],
                ..Reading::default()
            };
        }
        match registry().get(cmd.program()) {
            Some(program) => read_with(program, &cmd.argv, 1),
            None => Reading::default(),
        }
    }

    /// [`super::verbs::classify`] of `cmd`, the command this reading is of, worked out once:
    /// the effects, the unknown answer and the build checks all ask it.
    pub fn verbs(&self, cmd: &SimpleCommand) -> Option<&super::verbs::Reading> {
        self.verbs
            .get_or_init(|| super::verbs::classify(cmd))
            .as_ref()
    }

    /// The credential `cmd`, the command this reading is of, prints, worked out once: what
    /// its job is to print ([`super::secrets::revealed_by`]: "a Google Cloud access token"),
    /// or of the environment ([`super::secrets::environment_revealed`]). The read-only
    /// reading, the effects and the unknown answer all ask it.
    pub fn prints(&self, cmd: &SimpleCommand) -> Option<&str> {
        self.prints
            .get_or_init(|| {
                super::secrets::revealed_by(cmd)
                    .map(String::from)
                    .or_else(|| super::secrets::environment_revealed(cmd))
            })
            .as_deref()
    }

    /// Whether every option the command gives and every operand it takes is known, and none
    /// of them does more than read: the program's own table says the rest.
    pub fn reads_only(&self) -> bool {
        let Some(node) = self.node else {
            return false;
        };
        node.readonly
            && self.unknown.is_empty()
            && self.options.iter().all(option_reads_only)
            && self.operands.iter().all(operand_reads_only)
            && !self.computed_value_may_add_paths(node)
    }

    /// Whether an option's value is computed (`head -n $N f`) while the program takes
    /// operands that are not data: split into several words, it may add an operand (a path)
    /// the analysis does not see (`N='5 ~/.ssh/id_rsa'`).
    fn computed_value_may_add_paths(&self, node: &Program) -> bool {
        let computed = self
            .options
            .iter()
            .any(|u| u.value.as_ref().is_some_and(|v| !v.is_static()));
        let mut roles = node.operands.fixed.iter().chain(&node.operands.rest).chain(
            self.options
                .iter()
                .filter_map(|u| u.spec?.operands.as_ref())
                .flat_map(|o| o.fixed.iter().chain(&o.rest)),
        );
        computed && !roles.all(|r| *r == Role::Data)
    }

    /// Whether the command cannot write whatever its computed words turn out to be: a
    /// read-only program none of whose options writes, given no option the table does not
    /// know, with operands only in roles that read (`cat $(find . -name x)` reads files
    /// that are not known, but writes none).
    pub fn writes_nothing(&self) -> bool {
        let Some(node) = self.node else {
            return false;
        };
        node.readonly
            && node.options.iter().all(OptSpec::reads_only)
            && self.options.iter().all(|u| {
                u.spec.is_some()
                    || u.written.len() > 1 && u.written[1..].bytes().all(|b| b.is_ascii_digit())
            })
            && self.operands.iter().all(|o| {
                o.role.is_some_and(Role::reads_only) && o.roles.iter().all(|r| r.reads_only())
            })
    }

    /// Whether the command gives the option `flag` (`-r`, `--recursive`, `-delete`), under
    /// any of its names, abbreviated or in a cluster. An option the table does not know
    /// matches by its spelling; with `lenient`, a long one also when it is a prefix of
    /// `flag` (what an unknown program may take it for).
    pub fn has_flag(&self, flag: &str, lenient: bool) -> bool {
        self.options.iter().any(|u| match u.spec {
            Some(s) => !u.negated && s.names.iter().any(|n| n == flag),
            None => {
                u.candidates
                    .iter()
                    .any(|s| s.names.iter().any(|n| n == flag))
                    || spelled(&u.written, flag, lenient)
            }
        })
    }

    /// The subcommand, when the program has subcommands and one was given.
    pub fn subcommand(&self) -> Option<&'c str> {
        self.path.first().copied()
    }

    /// The value of the last option given under any of `names`.
    pub fn value_of(&self, names: &[&str]) -> Option<&Value<'c>> {
        self.options
            .iter()
            .rev()
            .filter(|u| {
                u.spec
                    .is_some_and(|s| s.names.iter().any(|n| names.contains(&n.as_str())))
            })
            .find_map(|u| u.value.as_ref())
    }

    /// Whether any option given has `effect`.
    pub fn has_effect(&self, effect: super::Effect) -> bool {
        self.options
            .iter()
            .any(|u| u.spec.is_some_and(|s| s.has(effect)))
    }
}

fn option_reads_only(u: &Used<'_>) -> bool {
    let Some(spec) = u.spec else {
        // Only numeric options (`-5`) are kept without a table entry and understood.
        return u.written.len() > 1 && u.written[1..].bytes().all(|b| b.is_ascii_digit());
    };
    if u.negated {
        return spec.reads_only();
    }
    if !spec.reads_only() {
        return false;
    }
    match (spec.takes, &u.value) {
        (
            Takes::Required(Role::Read | Role::Chdir) | Takes::Optional(Role::Read | Role::Chdir),
            Some(v),
        ) => v.is_static() && super::plain_path(&v.text),
        (Takes::Required(Role::Sed) | Takes::Optional(Role::Sed), Some(v)) => {
            v.is_static() && super::sed::prints_only(&v.text)
        }
        _ => true,
    }
}

fn operand_reads_only(o: &Operand<'_>) -> bool {
    let Some(role) = o.role else {
        return false;
    };
    let roles: &[Role] = if o.roles.is_empty() {
        std::slice::from_ref(&role)
    } else {
        &o.roles
    };
    roles.iter().all(|r| match r {
        Role::Data => true,
        // The wrapped command is judged on its own.
        Role::Command => true,
        // `<(sort a)`: the output of a command the analysis decides on its own.
        Role::Read if input_substitution(&o.word.value) => true,
        Role::Read | Role::Chdir => {
            !o.word.dynamic
                && super::plain_path(&o.word.value)
                && o.word.path.as_deref().is_none_or(super::plain_path)
        }
        Role::Format => !o.word.dynamic && o.word.value.starts_with('+'),
        Role::Sed => !o.word.dynamic && super::sed::prints_only(&o.word.value),
        _ => false,
    })
}

/// Whether a word is one process substitution that the command reads (`<(…)`).
fn input_substitution(v: &str) -> bool {
    v.starts_with("<(") && v.ends_with(')') && v[2..].find("<(").is_none() && !v.contains(">(")
}

/// An option spelled `written` matching the rule's `flag` without a table: the same text, the
/// letter inside a short cluster (`-rf` is written as `-r` and `-f`), or leniently a prefix of
/// a long flag.
fn spelled(written: &str, flag: &str, lenient: bool) -> bool {
    if written == flag {
        return true;
    }
    if let Some(c) = flag.strip_prefix('-').filter(|f| f.chars().count() == 1) {
        if !written.starts_with("--") && written.len() > 2 && written[1..].contains(c) {
            return true;
        }
    }
    lenient
        && flag.starts_with("--")
        && written.starts_with("--")
        && written.len() > 3
        && flag.starts_with(written)
}

/// Reads `argv[from..]` with `program`'s table.
pub(super) fn read_with<'c>(
    program: &'static Program,
    argv: &'c [Word],
    from: usize,
) -> Reading<'c> {
    let mut r = Reading {
        program: Some(program),
        node: Some(program),
        ..Reading::default()
    };
    let mut node = program;
    let mut ended = false;
    // Operands of the current node, with the option that changes their roles (if any).
    let mut pending: Vec<(usize, &'c Word)> = Vec::new();
    let mut roles_from: Option<&'static Operands> = None;
    let mut i = from;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if !ended && ends_options(node, word) {
            // find's expression goes on after `--`: only the leading options end there.
            ended = node.style != Style::Find;
            i += 1;
            continue;
        }
        if !ended && is_plus_command(node, word) {
            r.unknown.push(format!(
                "`{a}` is a command to the program, which the table does not read"
            ));
            i += 1;
            continue;
        }
        if !ended && may_be_option(word) && !(word.dynamic && only_data(node)) {
            if word.dynamic {
                r.unknown.push(format!(
                    "`{a}` is computed when the command runs and may be an option"
                ));
                i += 1;
                continue;
            }
            i = read_option_and_roles(node, argv, i, &mut r, &mut roles_from);
            continue;
        }
        // The first operand of a program with subcommands picks one.
        if pending.is_empty() && !node.sub.is_empty() {
            match node.sub.get(a).filter(|_| !word.dynamic) {
                Some(sub) => {
                    node = sub;
                    r.node = Some(sub);
                    r.path.push(a);
                    ended = false;
                    roles_from = None;
                }
                None => {
                    r.unknown
                        .push(format!("`{a}` is not a subcommand the table knows"));
                    r.options.extend(unknown_subcommand_options(argv, i + 1));
                    return r;
                }
            }
            i += 1;
            continue;
        }
        // The rest of the line is a command of its own (`git bisect run CMD…`).
        if roles_from.is_none() && node.operands.role(pending.len()) == Some(Role::Command) {
            ended = true;
        }
        pending.push((i, word));
        if node.style == Style::Posix {
            ended = true;
        }
        i += 1;
    }
    assign_operand_roles(roles_from.unwrap_or(&node.operands), pending, &mut r);
    r
}

/// Whether the word ends the options: `--` (and git's `--end-of-options`), as written.
fn ends_options(node: &Program, word: &Word) -> bool {
    let a = word.value.as_str();
    !word.dynamic && (a == "--" || (node.style == Style::Git && a == "--end-of-options"))
}

/// Whether the word is a `+command` the program takes (and the table does not read).
fn is_plus_command(node: &Program, word: &Word) -> bool {
    let a = word.value.as_str();
    node.plus && a.starts_with('+') && !word.dynamic && node.single_dash(a).is_none()
}

/// Reads the option word at `argv[i]` into `r`, noting in `roles_from` the option that
/// changes the operands' roles; returns the index of the next word.
fn read_option_and_roles<'c>(
    node: &'static Program,
    argv: &'c [Word],
    i: usize,
    r: &mut Reading<'c>,
    roles_from: &mut Option<&'static Operands>,
) -> usize {
    let before = r.options.len();
    let next = r.read_option(node, argv, i);
    // `--no-list` turns the listing off again: its operand roles do not apply.
    for u in r.options[before..].iter().filter(|u| !u.negated) {
        if let Some(ops) = u.spec.and_then(|s| s.operands.as_ref()) {
            *roles_from = Some(ops);
        }
    }
    next
}

/// The options after a subcommand the table does not know, from `argv[from]` on: they are
/// its own, so they are kept as written and take no values.
fn unknown_subcommand_options(argv: &[Word], from: usize) -> impl Iterator<Item = Used<'_>> {
    argv[from..].iter().enumerate().filter_map(move |(n, w)| {
        let v = w.value.as_str();
        (v.starts_with('-') && v.len() > 1 && v != "--").then(|| {
            let written = v.split_once('=').map_or(v, |(name, _)| name).to_string();
            used(from + n, None, written, None)
        })
    })
}

/// Gives each operand its role in `operands`, noting in `r.unknown` the ones the program may
/// not take.
fn assign_operand_roles<'c>(
    operands: &Operands,
    pending: Vec<(usize, &'c Word)>,
    r: &mut Reading<'c>,
) {
    for (n, (at, word)) in pending.into_iter().enumerate() {
        let role = operands.role(n);
        let roles = if may_split(word) {
            if operands.rest.is_none() {
                // `uniq *.txt`: a second word would be an operand in another role, or one
                // the program does not take.
                r.unknown.push(format!(
                    "`{}` may become more words than the program takes",
                    word.value
                ));
            }
            operands.roles_from(n).collect()
        } else {
            Vec::new()
        };
        if role.is_none() {
            r.unknown.push(format!(
                "`{}` is an operand the table does not expect",
                word.value
            ));
        }
        r.operands.push(Operand {
            word,
            at,
            role,
            roles,
        });
    }
}

/// Whether everything the program takes is data, options and operands alike (`echo`, `[`):
/// then a computed word is harmless whether it turns out an option or an operand.
fn only_data(node: &Program) -> bool {
    node.options.iter().all(|o| {
        o.effects.is_empty()
            && matches!(
                o.takes,
                Takes::Nothing | Takes::Required(Role::Data) | Takes::Optional(Role::Data)
            )
            && o.operands.is_none()
    }) && node
        .operands
        .fixed
        .iter()
        .chain(&node.operands.rest)
        .all(|r| *r == Role::Data)
}

/// Whether a word may be read as an option: it starts with a dash (not a lone `-`), or it is
/// computed and may turn out to.
fn may_be_option(word: &Word) -> bool {
    let a = word.value.as_str();
    if word.dynamic {
        // An expansion, or what xargs puts in (`{}` of `-I {}`, `<its input>` after the words).
        return a.starts_with(['$', '`', '-', '{']) || (a.starts_with('<') && !a.starts_with("<("));
    }
    a.starts_with('-') && a != "-"
}

/// Whether a word may become several words (or none) when the command runs: an expansion,
/// or a glob. Quoting is not kept in a [`Word`], so a quoted `*` counts too, which only makes
/// more roles apply.
fn may_split(word: &Word) -> bool {
    // A process substitution is one word: the name of a pipe.
    if input_substitution(&word.value) || word.value.starts_with(">(") {
        return false;
    }
    word.dynamic || word.value.contains(['*', '?', '['])
}

impl<'c> Reading<'c> {
    /// Reads the option word at `argv[i]` into the reading; returns the index of the next word.
    fn read_option(&mut self, node: &'static Program, argv: &'c [Word], i: usize) -> usize {
        let a = argv[i].value.as_str();
        if let Some(spec) = node.single_dash(a) {
            return self.read_single_dash_option(spec, argv, i);
        }
        if let Some(long) = a.strip_prefix("--") {
            return self.read_long_option(node, long, argv, i);
        }
        self.read_short_cluster(node, argv, i)
    }

    /// A single-dash option the table knows whole (`-name`, `-exec`).
    fn read_single_dash_option(
        &mut self,
        spec: &'static OptSpec,
        argv: &'c [Word],
        i: usize,
    ) -> usize {
        let a = argv[i].value.as_str();
        match spec.takes {
            Takes::Required(_) => {
                let value = argv.get(i + 1).map(|w| whole(w));
                let missing = value.is_none();
                self.options.push(used(i, Some(spec), a.to_string(), value));
                if missing {
                    self.unknown.push(format!("`{a}` needs a value"));
                }
                i + 2
            }
            _ => {
                self.options.push(used(i, Some(spec), a.to_string(), None));
                i + 1
            }
        }
    }

    /// A long option `--long` (`long` without its dashes), its value attached after `=` or the
    /// next word.
    fn read_long_option(
        &mut self,
        node: &'static Program,
        long: &'c str,
        argv: &'c [Word],
        i: usize,
    ) -> usize {
        let word = &argv[i];
        let (name, attached) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let attached = attached.map(|v| Value {
            text: Cow::Borrowed(v),
            word,
        });
        let written = format!("--{name}");
        match node.long(name) {
            Long::Found(spec) => match spec.takes {
                Takes::Required(_) if attached.is_none() => {
                    let value = argv.get(i + 1).map(|w| whole(w));
                    if value.is_none() {
                        self.unknown.push(format!("`{written}` needs a value"));
                    }
                    self.options.push(used(i, Some(spec), written, value));
                    i + 2
                }
                Takes::Nothing if attached.is_some() => {
                    self.unknown.push(format!(
                        "`{written}` takes no value, so the program refuses it"
                    ));
                    self.options.push(used(i, Some(spec), written, attached));
                    i + 1
                }
                _ => {
                    self.options.push(used(i, Some(spec), written, attached));
                    i + 1
                }
            },
            Long::Negated(spec) => {
                if attached.is_some() {
                    self.unknown.push(format!("`{written}` takes no value"));
                }
                self.options.push(Used {
                    negated: true,
                    ..used(i, Some(spec), written, attached)
                });
                i + 1
            }
            Long::Ambiguous(candidates) => {
                self.unknown
                    .push(format!("`{written}` is an abbreviation of several options"));
                self.options.push(Used {
                    candidates,
                    ..used(i, None, written, attached)
                });
                i + 1
            }
            Long::Unknown => {
                self.unknown
                    .push(format!("`{written}` is an option the table does not know"));
                self.options.push(used(i, None, written, attached));
                i + 1
            }
        }
    }

    /// A cluster of short options (`-rf`, `-n5`, `-5` where the program takes numbers), each
    /// letter on its own; a letter that takes a value ends the cluster.
    fn read_short_cluster(&mut self, node: &'static Program, argv: &'c [Word], i: usize) -> usize {
        let word = &argv[i];
        let a = word.value.as_str();
        let cluster = &a[1..];
        if node.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            self.options.push(used(i, None, a.to_string(), None));
            return i + 1;
        }
        let mut next = i + 1;
        for (pos, c) in cluster.char_indices() {
            let rest = &cluster[pos + c.len_utf8()..];
            let written = format!("-{c}");
            let Some(spec) = node.short(c) else {
                self.unknown
                    .push(format!("`{written}` is an option the table does not know"));
                self.options.push(used(i, None, written, None));
                continue;
            };
            match spec.takes {
                Takes::Nothing => self.options.push(used(i, Some(spec), written, None)),
                Takes::Required(_) => {
                    let value = if rest.is_empty() {
                        next = i + 2;
                        let value = argv.get(i + 1).map(|w| whole(w));
                        if value.is_none() {
                            self.unknown.push(format!("`{written}` needs a value"));
                        }
                        value
                    } else {
                        Some(Value {
                            text: Cow::Borrowed(rest),
                            word,
                        })
                    };
                    self.options.push(used(i, Some(spec), written, value));
                    break;
                }
                Takes::Optional(_) => {
                    let value = (!rest.is_empty()).then_some(Value {
                        text: Cow::Borrowed(rest),
                        word,
                    });
                    self.options.push(used(i, Some(spec), written, value));
                    break;
                }
            }
        }
        next
    }
}

/// One option given at `argv[at]`, as the table knows it (or not), not negated.
fn used<'c>(
    at: usize,
    spec: Option<&'static OptSpec>,
    written: String,
    value: Option<Value<'c>>,
) -> Used<'c> {
    Used {
        spec,
        candidates: Vec::new(),
        written,
        negated: false,
        value,
        at,
    }
}

fn whole(w: &Word) -> Value<'_> {
    Value {
        text: Cow::Borrowed(w.value.as_str()),
        word: w,
    }
}
