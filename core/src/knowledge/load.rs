//! Loading the program tables (`policies/programs/*.toml`) into one registry by program name,
//! with every mistake in a table reported by file and program.
//!
//! The shipped tables are read at build time (`core/build.rs`): each program is kept as its
//! own JSON text and compiled the first time a command names it, so a process that decides
//! one call reads the programs of that call, not all of them.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::packed::Packed;
use super::secrets::{Content, Environment, KindData, Public, Reveal, Store};
use super::table::{
    parse_spec, Examples, Follow, Operands, Program, Propose, Runs, Style, TableError, Takes,
    Traits, WrapperTable,
};

/// A program of the shipped tables as `build.rs` wrote it.
#[derive(Debug)]
pub(crate) struct ShippedProgram {
    /// The table file (`git.toml`).
    file: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    /// Its table, as JSON, without its subcommands.
    json: &'static str,
    /// Each subcommand's table as JSON, by name.
    subs: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/tables.rs"));

/// Every program the tables know, by name and alias.
#[derive(Debug, Default)]
pub struct Registry {
    entries: Vec<Entry>,
    /// Names and aliases; a shipped table's are borrowed from the binary. Looked up for every
    /// command, many times: hashed with foldhash (the keys are the shipped data's).
    by_name: HashMap<Cow<'static, str>, usize, foldhash::fast::RandomState>,
    /// Mistakes found while reading: a file that is not TOML, a name described twice.
    read_errors: Vec<String>,
}

#[derive(Debug)]
struct Entry {
    file: &'static str,
    name: Cow<'static, str>,
    /// The shipped table, for a program compiled when first named.
    shipped: Option<&'static ShippedProgram>,
    compiled: OnceLock<Result<Compiled, TableError>>,
}

#[derive(Debug)]
struct Compiled {
    program: Program,
    /// An option (here or in a subcommand) whose value is code, a program or git
    /// configuration: the shell analysis reads its options for what they carry.
    carries: bool,
}

impl Entry {
    fn compiled(&self) -> Result<&Compiled, &TableError> {
        let result = self.compiled.get_or_init(|| {
            // Tables loaded from TOML are compiled as they are read; only shipped ones wait.
            let Some(shipped) = self.shipped else {
                return Err(TableError::NoTable);
            };
            let raw: RawProgram =
                serde_json::from_str(shipped.json).map_err(|e| TableError::Shape(e.to_string()))?;
            compile(&self.name, self.file, raw, shipped.subs)
        });
        result.as_ref()
    }
}

impl Registry {
    /// The table of `name` that reads its commands: one that describes its command line.
    pub fn get(&self, name: &str) -> Option<&Program> {
        self.entry(name).filter(|p| p.grammar)
    }

    /// The table of `name`, also one that only gives the program's traits and its options'
    /// marks (`grammar = false`, see [`Program::grammar`]): for what it says of the program
    /// as a whole, never to read a command by.
    pub fn entry(&self, name: &str) -> Option<&Program> {
        let i = *self.by_name.get(name)?;
        self.entries[i].compiled().ok().map(|c| &c.program)
    }

    /// Every name and alias a table is written for, in no order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(|n| n.as_ref())
    }

    /// Whether an option of `name` may carry a command: its value is code, a program or git
    /// configuration (here or in a subcommand).
    pub fn carries_code(&self, name: &str) -> bool {
        self.by_name
            .get(name)
            .and_then(|i| self.entries[*i].compiled().ok())
            .is_some_and(|c| c.carries)
    }

    /// How `name` runs the command or code it is given, if it does (see [`Runs`]); a name
    /// that is a versioned program's name followed by digits and dots (`python3.12`) is
    /// that program.
    pub fn runs(&self, name: &str) -> Option<Runs> {
        if let Some(p) = self.entry(name) {
            return p.traits.runs;
        }
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        if base.len() == name.len() || base.is_empty() {
            return None;
        }
        self.entry(base)
            .filter(|p| p.traits.versioned)
            .and_then(|p| p.traits.runs)
    }

    /// Every program that compiles and whose table describes its command line, in the order
    /// of the tables.
    pub fn programs(&self) -> impl Iterator<Item = &Program> {
        self.entries
            .iter()
            .filter_map(|e| e.compiled().ok().map(|c| &c.program))
            .filter(|p| p.grammar)
    }

    /// Mistakes in the tables (`file: program: message`). A program or subcommand with a
    /// mistake is left out, so it is unknown: never read-only. Compiles every program and
    /// subcommand not compiled yet.
    pub fn errors(&self) -> Vec<String> {
        let mut out = self.read_errors.clone();
        for e in &self.entries {
            let why = match e.compiled() {
                Ok(c) => c.program.sub.errors(),
                Err(why) => vec![why.to_string()],
            };
            out.extend(
                why.iter()
                    .map(|why| format!("{}: {}: {}", e.file, e.name, why.trim())),
            );
        }
        out
    }

    /// Loads tables given as `(file name, TOML text)`, compiling every program now.
    pub fn load(files: &[(&'static str, &str)]) -> Registry {
        let mut reg = Registry::default();
        for (file, text) in files {
            let table: toml::Table = match toml::from_str(text) {
                Ok(t) => t,
                Err(e) => {
                    reg.read_errors.push(format!("{file}: {e}"));
                    continue;
                }
            };
            for (name, value) in table {
                // One program at a time, so that a mistake leaves only that one out.
                // Through JSON text, the form a subcommand waits in (see `RawProgram::sub`).
                let compiled = serde_json::to_string(&value)
                    .and_then(|json| serde_json::from_str::<RawProgram>(&json))
                    .map_err(|e| TableError::Shape(e.to_string()))
                    .and_then(|raw| {
                        let aliases = raw.aliases.clone();
                        compile(&name, file, raw, &[]).map(|c| (c, aliases))
                    });
                let aliases = match &compiled {
                    Ok((_, aliases)) => aliases.clone(),
                    Err(_) => Vec::new(),
                };
                let entry = Entry {
                    file,
                    name: Cow::Owned(name),
                    shipped: None,
                    compiled: OnceLock::from(compiled.map(|(c, _)| c)),
                };
                reg.add(entry, aliases.into_iter().map(Cow::Owned));
            }
        }
        reg
    }

    /// The shipped tables, each program compiled when first named.
    fn shipped() -> Registry {
        let names = PROGRAMS.iter().map(|p| 1 + p.aliases.len()).sum();
        let mut reg = Registry {
            entries: Vec::with_capacity(PROGRAMS.len()),
            by_name: HashMap::with_capacity_and_hasher(names, Default::default()),
            read_errors: Vec::new(),
        };
        for p in PROGRAMS {
            let entry = Entry {
                file: p.file,
                name: Cow::Borrowed(p.name),
                shipped: Some(p),
                compiled: OnceLock::new(),
            };
            reg.add(entry, p.aliases.iter().map(|a| Cow::Borrowed(*a)));
        }
        reg
    }

    /// Adds a program under its name and aliases; a name already taken is a mistake (the
    /// later program wins, as a later table overrides).
    fn add(&mut self, entry: Entry, aliases: impl Iterator<Item = Cow<'static, str>>) {
        let i = self.entries.len();
        // A program that did not compile is not found, by name or alias.
        if !matches!(entry.compiled.get(), Some(Err(_))) {
            for n in std::iter::once(entry.name.clone()).chain(aliases) {
                if self.by_name.insert(n.clone(), i).is_some() {
                    self.read_errors
                        .push(format!("{}: `{n}` is described more than once", entry.file));
                }
            }
        }
        self.entries.push(entry);
    }
}

/// The registry of the shipped tables, made on first use.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::shipped)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    /// What the program does, in a few words (for reviewers).
    #[serde(default)]
    #[allow(dead_code)]
    summary: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    style: Option<String>,
    #[serde(default)]
    numeric: bool,
    /// Words starting with `+` are options (`less +cmd`, `vim +cmd`).
    #[serde(default)]
    plus: bool,
    #[serde(default)]
    readonly: bool,
    #[serde(default)]
    options: Vec<RawOption>,
    #[serde(default)]
    operands: Option<Vec<String>>,
    /// Each subcommand's table as its JSON text, read when the subcommand is first named:
    /// `git`'s table is 70 KB, and a hook process decides one or two of its subcommands.
    #[serde(default)]
    sub: BTreeMap<String, Box<RawValue>>,
    #[serde(default)]
    readonly_examples: Vec<String>,
    #[serde(default)]
    not_readonly_examples: Vec<String>,
    /// `false`: the table gives only the program's traits and its options' marks.
    #[serde(default = "yes")]
    grammar: bool,
    // The program's traits (see [`Traits`]).
    #[serde(default)]
    walks: bool,
    #[serde(default)]
    walk_changes: bool,
    #[serde(default)]
    follow: Option<Follow>,
    #[serde(default)]
    keys: bool,
    #[serde(default)]
    propose: Option<Propose>,
    #[serde(default)]
    runs_code: bool,
    #[serde(default)]
    assignments: bool,
    #[serde(default)]
    names_only: bool,
    #[serde(default)]
    runs: Option<String>,
    #[serde(default)]
    versioned: bool,
    /// With `runs = "wrapper"`: how it reads its options.
    #[serde(default)]
    wrapper: Option<WrapperTable>,
}

fn yes() -> bool {
    true
}

impl RawProgram {
    /// The program's traits, and the name of the first one given (for a subcommand's table,
    /// which may give none).
    fn traits(&self) -> Result<(Traits, Option<&'static str>), TableError> {
        let given = [
            (self.walks, "walks"),
            (self.walk_changes, "walk_changes"),
            (self.follow.is_some(), "follow"),
            (self.keys, "keys"),
            (self.propose.is_some(), "propose"),
            (self.runs_code, "runs_code"),
            (self.assignments, "assignments"),
            (self.names_only, "names_only"),
            (self.runs.is_some(), "runs"),
            (self.versioned, "versioned"),
            (self.wrapper.is_some(), "wrapper"),
            (!self.grammar, "grammar"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name));
        let traits = Traits {
            walks: self.walks,
            walk_changes: self.walk_changes,
            follow: self.follow.unwrap_or_default(),
            keys: self.keys,
            propose: self.propose.unwrap_or_default(),
            runs_code: self.runs_code,
            assignments: self.assignments,
            names_only: self.names_only,
            runs: match self.runs.as_deref() {
                None => None,
                Some(kind) => {
                    Some(Runs::parse(kind).ok_or_else(|| TableError::UnknownRuns(kind.into()))?)
                }
            },
            versioned: self.versioned,
        };
        if traits.versioned && !matches!(traits.runs, Some(Runs::Interpreter(_))) {
            return Err(TableError::VersionedNotInterpreter);
        }
        if (traits.runs == Some(Runs::Wrapper)) != self.wrapper.is_some() {
            return Err(TableError::WrapperTable);
        }
        Ok((traits, given))
    }

    /// A table with `grammar = false` lists options only by their names and marks, and says
    /// nothing else of the command line.
    fn check_grammarless(&self, options: &[super::table::OptSpec]) -> Result<(), TableError> {
        let said = [
            (self.readonly, "it cannot be read-only"),
            (self.operands.is_some(), "it has no operands"),
            (!self.sub.is_empty(), "it has no subcommands"),
            (self.style.is_some(), "it has no style"),
            (
                self.numeric || self.plus,
                "it has no numeric or `+` options",
            ),
            (
                !self.readonly_examples.is_empty() || !self.not_readonly_examples.is_empty(),
                "it has no examples",
            ),
            (
                options
                    .iter()
                    .any(|o| o.takes != Takes::Nothing || o.operands.is_some()),
                "an option is only names and marks",
            ),
        ];
        match said.into_iter().find(|(wrong, _)| *wrong) {
            Some((_, why)) => Err(TableError::NotGrammarless(why.to_string())),
            None => Ok(()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawOption {
    Spec(String),
    Table(RawOptionTable),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOptionTable {
    spec: String,
    /// The operands' roles when this option is given.
    operands: Vec<String>,
}

/// A program's table; `shipped_subs` are its subcommands' tables when `build.rs` wrote them
/// apart (a table read from TOML has them in `raw`).
fn compile(
    name: &str,
    family: &'static str,
    raw: RawProgram,
    shipped_subs: &'static [(&'static str, &'static str)],
) -> Result<Compiled, TableError> {
    let subs = shipped_subs
        .iter()
        .map(|(n, json)| (n.to_string(), Cow::Borrowed(*json)))
        .collect();
    let program = compile_node(name, family, raw, None, subs)?;
    let carries = carries(&program);
    Ok(Compiled { program, carries })
}

fn compile_node(
    name: &str,
    family: &'static str,
    mut raw: RawProgram,
    parent: Option<Style>,
    mut subs: Vec<(String, Cow<'static, str>)>,
) -> Result<Program, TableError> {
    let read = std::mem::take(&mut raw.sub).into_iter();
    subs.extend(read.map(|(n, json)| (n, Cow::Owned(Box::<str>::from(json).into()))));
    let style = match raw.style.as_deref() {
        None => parent.unwrap_or(Style::Gnu),
        Some("gnu") => Style::Gnu,
        Some("posix") => Style::Posix,
        Some("git") => Style::Git,
        Some("find") => Style::Find,
        Some(other) => return Err(TableError::UnknownStyle(other.to_string())),
    };
    if parent.is_some() && !raw.aliases.is_empty() {
        return Err(TableError::SubcommandAliases);
    }
    let (traits, given) = raw.traits()?;
    if let Some(name) = given.filter(|_| parent.is_some()) {
        return Err(TableError::SubcommandTrait(name));
    }
    let mut options = Vec::new();
    for o in std::mem::take(&mut raw.options) {
        options.push(match o {
            RawOption::Spec(s) => parse_spec(&s)?,
            RawOption::Table(t) => {
                let mut spec = parse_spec(&t.spec)?;
                spec.operands = Some(Operands::parse(&t.operands)?);
                spec
            }
        });
    }
    if !raw.grammar {
        raw.check_grammarless(&options)?;
    }
    let operands = match (&raw.operands, raw.readonly) {
        (Some(o), _) => Operands::parse(o)?,
        (None, true) if subs.is_empty() => return Err(TableError::ReadOnlyWithoutOperands),
        (None, _) => Operands::default(),
    };
    let mut program = Program::new(name.to_string(), family, style, options, operands);
    check_duplicates(&program)?;
    program.set_flags(raw.numeric, raw.readonly);
    program.plus = raw.plus;
    program.grammar = raw.grammar;
    program.traits = traits;
    program.wrapper = raw.wrapper.take();
    program.set_examples(Examples {
        readonly: raw.readonly_examples,
        not_readonly: raw.not_readonly_examples,
    });
    for (sub_name, json) in subs {
        let full = format!("{name} {sub_name}");
        program.sub.add(
            sub_name,
            Box::new(move || {
                serde_json::from_str::<RawProgram>(&json)
                    .map_err(|e| TableError::Shape(e.to_string()))
                    .and_then(|sub| compile_node(&full, family, sub, Some(style), Vec::new()))
                    .map_err(|e| TableError::InSubcommand {
                        name: full.clone(),
                        error: Box::new(e),
                    })
            }),
        );
    }
    Ok(program)
}

fn carries(p: &Program) -> bool {
    use super::table::{Role, Takes};
    p.operands.fixed.iter().chain(&p.operands.rest).any(|r| {
        matches!(
            r,
            Role::Command | Role::Config | Role::Code | Role::Define | Role::Sed | Role::Awk
        )
    }) || p.options.iter().any(|o| {
        matches!(
            o.takes,
            Takes::Required(
                Role::Code | Role::Program | Role::Filter | Role::Config | Role::Sed | Role::Awk
            ) | Takes::Optional(
                Role::Code | Role::Program | Role::Filter | Role::Config | Role::Sed | Role::Awk
            )
        )
    }) || p.sub.values().any(carries)
}

fn check_duplicates(p: &Program) -> Result<(), TableError> {
    let mut seen = std::collections::HashSet::new();
    for spec in &p.options {
        for n in &spec.names {
            if !seen.insert(n.as_str()) {
                return Err(TableError::DuplicateOption(n.clone()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Lang;

    #[test]
    fn the_shipped_tables_load_without_a_mistake() {
        let reg = registry();
        let errors = reg.errors();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        assert!(reg.get("git").is_some() && reg.get("find").is_some());
    }

    #[test]
    fn a_mistake_names_its_file_and_program_and_leaves_the_program_unknown() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [good]
            readonly = true
            options = ["-n --number"]
            operands = ["read..."]
            [bad]
            options = ["--out=file"]
            [noops]
            readonly = true
            "#,
        )]);
        assert!(reg.get("good").is_some());
        assert!(reg.get("bad").is_none() && reg.get("noops").is_none());
        let errors = reg.errors();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("t.toml: bad: unknown value role `file`"));
        assert!(errors[1].contains("noops: a read-only program must say"));
    }

    #[test]
    fn a_subcommand_with_a_mistake_is_unknown_and_reported_and_its_siblings_are_not() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [tool]
            [tool.sub.good]
            readonly = true
            operands = ["read..."]
            [tool.sub.bad]
            options = ["--out=file"]
            "#,
        )]);
        let tool = reg.get("tool").expect("the program loads");
        assert!(tool.sub.get("good").is_some_and(|g| g.readonly));
        assert!(tool.sub.get("bad").is_none());
        let errors = reg.errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("t.toml: tool: tool bad: unknown value role `file`"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_table_without_grammar_gives_traits_and_marks_but_reads_no_command() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [cp]
            grammar = false
            follow = "walking"
            options = ["-r -R --recursive !walk", "-L !follow"]
            [mkdir]
            grammar = false
            propose = "program"
            [bad]
            grammar = false
            options = ["-o=write"]
            [worse]
            grammar = false
            readonly = true
            operands = ["read..."]
            [tool]
            walks = true
            [tool.sub.x]
            keys = true
            "#,
        )]);
        assert!(reg.get("cp").is_none() && reg.get("mkdir").is_none());
        let cp = reg.entry("cp").expect("cp's traits");
        assert_eq!(cp.traits.follow, super::Follow::Walking);
        assert_eq!(
            cp.names_with(super::super::Effect::Walk)
                .collect::<Vec<_>>(),
            ["-r", "-R", "--recursive"]
        );
        let mkdir = reg.entry("mkdir").expect("mkdir's traits");
        assert_eq!(mkdir.traits.propose, Propose::Program);
        assert!(reg.programs().all(|p| p.grammar));
        assert!(reg.get("tool").is_some_and(|t| t.traits.walks));
        let errors = reg.errors();
        assert_eq!(errors.len(), 3, "{errors:?}");
        for says in [
            "bad: with `grammar = false`, an option is only names",
            "worse: with `grammar = false`, it cannot be read-only",
            "tool x: `keys` is said of a program, not of a subcommand",
        ] {
            assert!(
                errors.iter().any(|e| e.contains(says)),
                "{says}: {errors:?}"
            );
        }
    }

    #[test]
    fn shipped_tables_say_how_launchers_run_what_they_run() {
        let reg = registry();
        let errors = reg.errors();
        assert!(errors.is_empty(), "{errors:?}");
        for (name, runs) in [
            ("sudo", Some(Runs::Wrapper)),
            ("coproc", Some(Runs::Wrapper)),
            ("time", Some(Runs::Wrapper)),
            ("env", Some(Runs::Env)),
            ("find", Some(Runs::Find)),
            ("zsh", Some(Runs::Shell)),
            (".", Some(Runs::Source)),
            ("python3.12", Some(Runs::Interpreter(Lang::Python))),
            ("pypy3", Some(Runs::Interpreter(Lang::Python))),
            ("perl5.36", Some(Runs::Interpreter(Lang::Perl))),
            ("bun", Some(Runs::Interpreter(Lang::Node))),
            ("deno", Some(Runs::Interpreter(Lang::Deno))),
            // Only an interpreter's name carries a version; only a versioned one's.
            ("node18", None),
            ("sudo2", None),
            ("pythonx", None),
            ("3.12", None),
            ("ls", None),
        ] {
            assert_eq!(reg.runs(name), runs, "{name}");
        }
    }

    #[test]
    fn a_runs_kind_is_checked() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [a]
            grammar = false
            runs = "launcher"
            [b]
            grammar = false
            runs = "wrapper"
            versioned = true
            [c]
            options = ["-x"]
            [c.sub.d]
            runs = "shell"
            [e]
            grammar = false
            runs = "wrapper"
            [f]
            grammar = false
            [f.wrapper]
            positional = 1
            [g]
            grammar = false
            runs = "wrapper"
            [g.wrapper]
            short_flag = "x"
            "#,
        )]);
        let errors = reg.errors();
        assert_eq!(errors.len(), 6, "{errors:?}");
        for (i, says) in [
            (
                3,
                "e: a program with `runs = \"wrapper\"` has a `wrapper` table",
            ),
            (
                4,
                "f: a program with `runs = \"wrapper\"` has a `wrapper` table",
            ),
            (5, "g: unknown field `short_flag`"),
        ] {
            assert!(errors[i].contains(says), "{says}: {errors:?}");
        }
        assert!(
            errors[0].contains("unknown `runs` kind `launcher`"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("`versioned` is said of a program whose `runs`"),
            "{errors:?}"
        );
        assert!(
            errors[2].contains("`runs` is said of a program"),
            "{errors:?}"
        );
        assert_eq!((reg.runs("a"), reg.runs("b")), (None, None));
    }

    #[test]
    fn unknown_keys_and_duplicates_are_mistakes() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [a]
            readonlyy = true
            [b]
            options = ["-x", "-x --ex"]
            "#,
        )]);
        let errors = reg.errors();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("unknown field `readonlyy`"));
        assert!(errors[1].contains("option `-x` is described twice"));
    }
}
