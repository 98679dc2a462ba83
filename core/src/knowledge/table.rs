//! What the knowledge says about one program: its option grammar, the role of every option
//! value and operand, its subcommands. Written in `policies/programs/*.toml` as short option
//! specs (`"-o --output=write"`, `"-r -R --recursive !walk"`) and compiled here.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock};

use super::interp::Lang;

/// What a word given to a program is to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Text the program only looks at: a pattern, a number, a format, a message.
    Data,
    /// A path the program reads (a file, or with `!walk` a whole tree).
    Read,
    /// A path the program writes, creates or truncates.
    Write,
    /// A folder the program works in (`git -C DIR`, `make -C DIR`): later relative paths are
    /// inside it.
    Chdir,
    /// A program (with its arguments split on blanks) that this one runs: `sort
    /// --compress-program=PROG`, `man --pager=PROG`.
    Program,
    /// A program this one runs with each file it reads as an argument: `rg --pre=PROG` runs
    /// `PROG FILE` (`--pre=sh` runs every file searched as a script).
    Filter,
    /// Shell code this one runs (`git -c core.pager=…`, `tar --to-command=…`).
    Code,
    /// A git configuration assignment (`-c name=value`): its value may be code.
    Config,
    /// (Operands only.) The rest of the command line is a command this one runs.
    Command,
    /// (Operands only.) Text that starts with `+`: `date +%Y-%m-%d` (without the `+`, `date`
    /// sets the clock).
    Format,
    /// A sed script: read-only when it only prints (see [`super::sed::prints_only`]).
    Sed,
    /// (Operands only.) `NAME=CODE`: a definition whose value is code (`alias x='…'`).
    Define,
    /// An awk program: never read-only (it may write files with `print > f`); the commands it
    /// runs (`system("…")`, pipes) are decided on their own.
    Awk,
}

impl Role {
    const NAMES: [(Role, &'static str); 13] = [
        (Role::Data, "data"),
        (Role::Read, "read"),
        (Role::Write, "write"),
        (Role::Chdir, "chdir"),
        (Role::Program, "program"),
        (Role::Filter, "filter"),
        (Role::Code, "code"),
        (Role::Config, "config"),
        (Role::Command, "command"),
        (Role::Format, "format"),
        (Role::Sed, "sed"),
        (Role::Define, "define"),
        (Role::Awk, "awk"),
    ];

    pub fn parse(s: &str) -> Option<Role> {
        Self::NAMES.iter().find(|(_, n)| *n == s).map(|(r, _)| *r)
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("", |(_, n)| n)
    }

    /// Whether a word in this role leaves the world as it was (reads or only looks).
    pub fn reads_only(self) -> bool {
        matches!(self, Role::Data | Role::Read | Role::Chdir | Role::Sed)
    }
}

/// What an option does besides taking its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// The paths the command is given are whole folder trees, which it reads (`grep -r`,
    /// `diff -r`, `ls -R`), or changes where its table says its walks change (`chmod -R`, see
    /// [`Program::walk_changes`]).
    Walk,
    /// While it walks folders, it follows the links it meets (`grep -R`, `rg -L`, `rsync -L`):
    /// it reads, or changes, where each one leads. With [`Follow::Walking`] only when the
    /// command walks (`cp -L` copies one link's target, `cp -rL` a tree's).
    Follow,
    /// It keeps the links it meets as links (`zip -y`): what a `!follow` option says does not
    /// hold.
    NoFollow,
    /// It writes files (`sed -i`, `tree -R`).
    Write,
    /// It deletes files (`find -delete`).
    Delete,
    /// It runs a program or code that is configured elsewhere (`git diff --ext-diff`).
    Run,
    /// It talks to the network.
    Network,
    /// It changes the system (`date -s`, `hostname NAME`).
    System,
    /// It reads the files named in another file or its input (`wc --files0-from=-`,
    /// `sha256sum -c`): paths the analysis cannot see, so not read-only.
    Indirect,
}

impl Effect {
    const NAMES: [(Effect, &'static str); 9] = [
        (Effect::Walk, "walk"),
        (Effect::Follow, "follow"),
        (Effect::NoFollow, "nofollow"),
        (Effect::Write, "write"),
        (Effect::Delete, "delete"),
        (Effect::Run, "run"),
        (Effect::Network, "network"),
        (Effect::System, "system"),
        (Effect::Indirect, "indirect"),
    ];

    pub fn parse(s: &str) -> Option<Effect> {
        Self::NAMES.iter().find(|(_, n)| *n == s).map(|(e, _)| *e)
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(e, _)| *e == self)
            .map_or("", |(_, n)| n)
    }

    /// Whether an option with this effect may still only read: walking trees, and how links
    /// met in them are taken, say what is read, not that anything changes.
    pub fn only_reads(self) -> bool {
        matches!(self, Effect::Walk | Effect::Follow | Effect::NoFollow)
    }
}

/// Whether and how an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    Nothing,
    /// `--output=FILE` or `--output FILE`; `-oFILE` or `-o FILE`.
    Required(Role),
    /// Only attached: `--color=always`, `-i.bak`.
    Optional(Role),
}

/// One option of a program, under all its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptSpec {
    /// `-r`, `--recursive`, and for programs with single-dash long options `-name`.
    pub names: Vec<String>,
    pub takes: Takes,
    pub effects: Vec<Effect>,
    /// What the operands are when this option is given (`grep -e PATTERN` makes the first
    /// operand a file; `git branch --list` takes patterns).
    pub operands: Option<Operands>,
}

impl OptSpec {
    /// Whether the option, given with a value in a read-only role, changes nothing.
    pub fn reads_only(&self) -> bool {
        self.effects.iter().all(|e| e.only_reads())
            && match self.takes {
                Takes::Nothing => true,
                Takes::Required(r) | Takes::Optional(r) => r.reads_only(),
            }
    }

    pub fn has(&self, effect: Effect) -> bool {
        self.effects.contains(&effect)
    }
}

/// The roles of a command's operands by position: `fixed` first, then `rest` for any number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Operands {
    pub fixed: Vec<Role>,
    pub rest: Option<Role>,
}

/// Why a list of operand roles does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OperandsError {
    #[error("unknown operand role `{0}` (roles: {roles})", roles = Role::NAMES.map(|(_, n)| n).join(", "))]
    UnknownRole(String),
    /// The item that repeats (`read...`) but is not the last.
    #[error("only the last operand may repeat (`{0}`)")]
    RepeatNotLast(String),
}

impl Operands {
    /// `["data", "read..."]`: a role per position, the last one may repeat (`...`).
    pub fn parse(items: &[String]) -> Result<Operands, OperandsError> {
        let mut out = Operands::default();
        for (i, item) in items.iter().enumerate() {
            let (name, repeat) = match item.strip_suffix("...") {
                Some(n) => (n, true),
                None => (item.as_str(), false),
            };
            let role =
                Role::parse(name).ok_or_else(|| OperandsError::UnknownRole(name.to_string()))?;
            if repeat {
                if i + 1 != items.len() {
                    return Err(OperandsError::RepeatNotLast(item.clone()));
                }
                out.rest = Some(role);
            } else {
                out.fixed.push(role);
            }
        }
        Ok(out)
    }

    /// The role of operand number `i`, `None` past the end (an operand the program does not
    /// take: not understood).
    pub fn role(&self, i: usize) -> Option<Role> {
        self.fixed.get(i).copied().or(self.rest)
    }

    /// Every role from position `i` on: what a word that may become several words can fill.
    pub fn roles_from(&self, i: usize) -> impl Iterator<Item = Role> + '_ {
        self.fixed.iter().skip(i).copied().chain(self.rest)
    }
}

/// How a program reads its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// GNU getopt_long: options and operands mix until `--`; long options may be
    /// abbreviated to a unique prefix.
    Gnu,
    /// POSIX getopt: options end at the first operand (or `--`).
    Posix,
    /// git's parse-options: as GNU, plus `--no-NAME` for every long option and
    /// `--end-of-options`.
    Git,
    /// find: `-H -L -P` first, then the paths, then an expression of single-dash primaries
    /// that goes on after `--` (`find -- ~ -delete` deletes).
    Find,
}

/// When the `!follow` options of a program follow links (its table's `follow` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Follow {
    /// Whenever one is given (`grep -R`, `rg -L`, `rsync -L`).
    #[default]
    Given,
    /// Only when the command walks (`cp -L` without `-r` copies one link's target, `find -L`
    /// without `-exec` only lists, `chmod -L` counts only with `-R`).
    Walking,
}

/// How an "always allow" proposal may name a program (its table's `propose` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Propose {
    /// As the proposals' own rules say (by its subcommand, by its name when its table finds
    /// nothing but reading, else exact).
    #[default]
    Usual,
    /// The exact command only: every use can run code given on its command line.
    Exact,
    /// The program alone may be named (`bash(mkdir *)`): it only creates or reads, whatever
    /// its options.
    Program,
}

/// What a program's table says about the program as a whole, beside its command line. Only
/// a program's own table has these, never a subcommand's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traits {
    /// It walks every folder it is given, whatever its options (`tar`, `rsync`, backup tools).
    pub walks: bool,
    /// Its walks change what they meet and read none of it (`chmod -R`): what they reach is
    /// the danger rules' to ask about, not that of the rules on trees a command reads.
    pub walk_changes: bool,
    pub follow: Follow,
    /// Its first word may be old-style keys, letters without a dash (`tar chf out.tar dir`):
    /// each letter is its short option of that name.
    pub keys: bool,
    pub propose: Propose,
    /// Every use runs code it is given (a script, a package, a one-liner) that the shell
    /// analysis does not read.
    pub runs_code: bool,
    /// Its `NAME=VALUE` operands are a name and a value (`dd of=out.img`, `make CC=clang`,
    /// `export X=1`): every other program takes such a word as the path it spells.
    pub assignments: bool,
    /// It reads the names and the metadata of the paths it is given (sizes, times, where a
    /// link leads), never what is in a file (`ls`, `stat`, `realpath`): what it prints of a
    /// folder outside the project shows no secret.
    pub names_only: bool,
    /// It runs a command or code it is given, read by the shell analysis as [`Runs`] says.
    pub runs: Option<Runs>,
    /// Its name may carry a version (`python3.12`, `perl5.36`, `pypy3`): the name followed by
    /// digits and dots names it too.
    pub versioned: bool,
}

/// How a program runs the command or code it is given: the shell analysis reads the
/// command line by it and decides what runs on its own (`runs = "wrapper"` in a table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// The command written after its options and a fixed number of operands (`sudo`, `nice`,
    /// `timeout`, `chroot`), by the option table of the shell analysis's wrappers.
    Wrapper,
    /// `env [NAME=VALUE]… COMMAND`, and `env -S`.
    Env,
    /// `busybox APPLET …`: the applet named.
    Busybox,
    /// The command given, with words read from standard input.
    Xargs,
    /// `-exec`, `-execdir`, `-ok`, `-okdir` commands.
    Find,
    /// `watch COMMAND`: by a shell, again and again.
    Watch,
    /// `flock FILE COMMAND` and `flock FILE -c CODE`.
    Flock,
    /// `su -c CODE`, or a login shell.
    Su,
    /// `runuser -u USER COMMAND`, `runuser -c CODE`.
    Runuser,
    /// `sg GROUP -c CODE`.
    Sg,
    /// util-linux `script -c CODE`.
    Script,
    /// A shell: `-c CODE`, a script file, or commands on its standard input.
    Shell,
    /// `eval CODE`.
    Eval,
    /// `source FILE`, `. FILE`.
    Source,
    /// `ssh HOST COMMAND`: code run on another machine.
    Ssh,
    /// An interpreter whose one-liners (`-c`, `-e`) are read for the commands they run.
    Interpreter(Lang),
}

impl Runs {
    const NAMES: [(Runs, &'static str); 21] = [
        (Runs::Wrapper, "wrapper"),
        (Runs::Env, "env"),
        (Runs::Busybox, "busybox"),
        (Runs::Xargs, "xargs"),
        (Runs::Find, "find"),
        (Runs::Watch, "watch"),
        (Runs::Flock, "flock"),
        (Runs::Su, "su"),
        (Runs::Runuser, "runuser"),
        (Runs::Sg, "sg"),
        (Runs::Script, "script"),
        (Runs::Shell, "shell"),
        (Runs::Eval, "eval"),
        (Runs::Source, "source"),
        (Runs::Ssh, "ssh"),
        (Runs::Interpreter(Lang::Python), "python"),
        (Runs::Interpreter(Lang::Perl), "perl"),
        (Runs::Interpreter(Lang::Ruby), "ruby"),
        (Runs::Interpreter(Lang::Node), "node"),
        (Runs::Interpreter(Lang::Deno), "deno"),
        (Runs::Interpreter(Lang::Php), "php"),
    ];

    pub fn parse(s: &str) -> Option<Runs> {
        Self::NAMES.iter().find(|(_, n)| *n == s).map(|(r, _)| *r)
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("", |(_, n)| n)
    }
}

/// How a wrapper (`runs = "wrapper"`) reads its options, to find where the command it runs
/// starts (`[sudo.wrapper]` in a table): as `getopt` does, short options combining, long ones
/// taking `--name=value` or `--name value` and abbreviated to a unique prefix. An option it
/// does not list is read both as a flag and as taking the next word (both commands are
/// decided).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WrapperTable {
    /// Short options that take a value (`-u root`, `-uroot`), as one string of letters.
    pub short_value: String,
    /// Short options whose value, if any, is attached.
    pub short_optional: String,
    /// Short options that take no value.
    pub short_flags: String,
    /// Short options that may take the next word or none (`sudo -h [host]`).
    pub short_ambiguous: String,
    /// Long options (without their dashes) that take a value.
    pub long_value: Vec<String>,
    /// Long options whose value, if any, is given with `=`.
    pub long_optional: Vec<String>,
    /// Long options that take no value.
    pub long_flags: Vec<String>,
    /// `-10` is an option (`nice -10 cmd`).
    pub numeric: bool,
    /// Operands before the command: `timeout DURATION`, `chroot DIR`, `taskset MASK`.
    pub positional: usize,
    /// Options (a letter or a long name) with which nothing is run: `sudo -l`, `command -v`.
    pub no_run: Vec<String>,
    /// Options with which, given no command, it runs a shell reading its standard input
    /// (`sudo -s <<EOF`); `""`: always (`chroot DIR <<EOF`).
    pub shell: Vec<String>,
}

/// A program (or a subcommand of one) as the knowledge knows it.
#[derive(Debug, Clone)]
pub struct Program {
    /// The name as written in the table (`git`, or `stash list` for a subcommand).
    pub name: String,
    /// The table file it comes from (`git.toml`).
    pub family: &'static str,
    pub style: Style,
    /// `-5` is an option (`head -5`, `git log -3`).
    pub numeric: bool,
    /// With known options and read-only operands, the program changes nothing.
    pub readonly: bool,
    /// Words starting with `+` are options too (`less +cmd`).
    pub plus: bool,
    pub options: Vec<OptSpec>,
    pub operands: Operands,
    /// Subcommands by name: the first operand picks one.
    pub sub: Subs,
    /// Whether the table describes the program's command line. Without (`grammar = false`)
    /// it only gives the program's [`Traits`] and its options' marks (`!walk`, `!follow`):
    /// commands are read by their spelling, as a program's without a table (see
    /// [`super::Registry::get`]), and its options are only names with their effects.
    pub grammar: bool,
    pub traits: Traits,
    /// How a wrapper reads its options (with `runs = "wrapper"`, and only then).
    pub wrapper: Option<WrapperTable>,
    short: HashMap<char, usize>,
    /// Long option names without their dashes, sorted, with the option they name.
    long: Vec<(String, usize)>,
    /// Options written with one dash but more than one letter (`find -name`, `java -jar`).
    single_dash: HashMap<String, usize>,
    pub examples: Examples,
}

/// Commands a table pins beside its entries: the read-only ones must be read as read-only,
/// the others not.
#[derive(Debug, Clone, Default)]
pub struct Examples {
    pub readonly: Vec<String>,
    pub not_readonly: Vec<String>,
}

/// The outcome of looking up a long option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Long<'p> {
    Found(&'p OptSpec),
    /// The negated form of a git option (`--no-verify`).
    Negated(&'p OptSpec),
    /// An abbreviation of several options: the program refuses it.
    Ambiguous(Vec<&'p OptSpec>),
    Unknown,
}

impl Program {
    pub fn new(
        name: String,
        family: &'static str,
        style: Style,
        options: Vec<OptSpec>,
        operands: Operands,
    ) -> Program {
        let mut p = Program {
            name,
            family,
            style,
            numeric: false,
            readonly: false,
            plus: false,
            options,
            operands,
            sub: Subs::default(),
            grammar: true,
            traits: Traits::default(),
            wrapper: None,
            short: HashMap::new(),
            long: Vec::new(),
            single_dash: HashMap::new(),
            examples: Examples::default(),
        };
        p.index();
        p
    }

    fn index(&mut self) {
        for (i, spec) in self.options.iter().enumerate() {
            for name in &spec.names {
                if let Some(long) = name.strip_prefix("--") {
                    self.long.push((long.to_string(), i));
                } else if let Some(short) = name.strip_prefix('-') {
                    let mut chars = short.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) => {
                            self.short.insert(c, i);
                        }
                        _ => {
                            self.single_dash.insert(name.clone(), i);
                        }
                    }
                } else if let Some(plus) = name.strip_prefix('+') {
                    self.single_dash.insert(format!("+{plus}"), i);
                }
            }
        }
        self.long.sort();
    }

    pub fn short(&self, c: char) -> Option<&OptSpec> {
        self.short.get(&c).map(|i| &self.options[*i])
    }

    /// A single-dash long option (`-name`) or a `+x` option, exactly as written.
    pub fn single_dash(&self, word: &str) -> Option<&OptSpec> {
        self.single_dash.get(word).map(|i| &self.options[*i])
    }

    /// Looks up a long option by its name without dashes, the way getopt_long does: an exact
    /// name, else the options it is a prefix of (one option under several names counts
    /// once); git's parse-options also reads `no-NAME`.
    pub fn long(&self, name: &str) -> Long<'_> {
        if name.is_empty() {
            return Long::Unknown;
        }
        if let Ok(i) = self.long.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            return Long::Found(&self.options[self.long[i].1]);
        }
        let mut found: Vec<usize> = Vec::new();
        let start = self.long.partition_point(|(n, _)| n.as_str() < name);
        for (n, i) in &self.long[start..] {
            if !n.starts_with(name) {
                break;
            }
            if !found.contains(i) {
                found.push(*i);
            }
        }
        if self.style == Style::Git {
            if let Some(rest) = name.strip_prefix("no-") {
                match self.long(rest) {
                    Long::Found(spec) if found.is_empty() => return Long::Negated(spec),
                    Long::Found(spec) | Long::Negated(spec) => {
                        let i = self.index_of(spec);
                        if !found.contains(&i) {
                            found.push(i);
                        }
                    }
                    Long::Ambiguous(specs) => {
                        found.extend(specs.iter().map(|s| self.index_of(s)));
                    }
                    Long::Unknown => {}
                }
            }
        }
        match found.as_slice() {
            [] => Long::Unknown,
            [one] => Long::Found(&self.options[*one]),
            many => Long::Ambiguous(many.iter().map(|i| &self.options[*i]).collect()),
        }
    }

    fn index_of(&self, spec: &OptSpec) -> usize {
        self.options
            .iter()
            .position(|s| std::ptr::eq(s, spec))
            .unwrap_or(0)
    }

    /// Every name of the options with `effect` (`-r`, `--recursive`).
    pub fn names_with(&self, effect: Effect) -> impl Iterator<Item = &str> {
        self.options
            .iter()
            .filter(move |o| o.has(effect))
            .flat_map(|o| o.names.iter().map(String::as_str))
    }

    /// Every long option name (without dashes), for tests against a program's `--help`.
    pub fn long_names(&self) -> impl Iterator<Item = &str> {
        self.long.iter().map(|(n, _)| n.as_str())
    }

    pub fn set_flags(&mut self, numeric: bool, readonly: bool) {
        self.numeric = numeric;
        self.readonly = readonly;
    }

    pub fn set_examples(&mut self, examples: Examples) {
        self.examples = examples;
    }

    pub fn add_sub(&mut self, name: String, sub: Program) {
        self.sub.add(name, Box::new(move || Ok(sub)));
    }
}

/// How a subcommand is compiled when first named.
pub type MakeSub = Box<dyn FnOnce() -> Result<Program, TableError> + Send>;

/// A mistake in a program's table, which leaves the program (or subcommand) out.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Operands(#[from] OperandsError),
    /// The table is not of the expected shape (an unknown key, a wrong type).
    #[error("{0}")]
    Shape(String),
    /// A program known by name whose table is not there.
    #[error("no table")]
    NoTable,
    #[error("unknown style `{0}` (gnu, posix, git, find)")]
    UnknownStyle(String),
    #[error("unknown `runs` kind `{0}` (runs: {kinds})", kinds = Runs::NAMES.map(|(_, n)| n).join(", "))]
    UnknownRuns(String),
    #[error("`versioned` is said of a program whose `runs` is an interpreter")]
    VersionedNotInterpreter,
    /// `runs = "wrapper"` without a `wrapper` table, or a `wrapper` table without it.
    #[error("a program with `runs = \"wrapper\"` has a `wrapper` table, and only such a program")]
    WrapperTable,
    #[error("a subcommand has no aliases")]
    SubcommandAliases,
    /// A program-level field (`walks`, `propose`, …) in a subcommand's table.
    #[error("`{0}` is said of a program, not of a subcommand")]
    SubcommandTrait(&'static str),
    /// A table with `grammar = false` that describes the command line all the same.
    #[error("with `grammar = false`, {0}")]
    NotGrammarless(String),
    #[error("a read-only program must say what its operands are")]
    ReadOnlyWithoutOperands,
    #[error("option `{0}` is described twice")]
    DuplicateOption(String),
    /// A mistake in the subcommand `name` (the full name, `git remote`).
    #[error("{name}: {error}")]
    InSubcommand {
        name: String,
        error: Box<TableError>,
    },
}

/// A program's subcommands by name, each compiled the first time a command names it (`git`
/// has dozens; a command uses one). A subcommand whose table has a mistake is not found, so
/// it is unknown: never read-only.
#[derive(Debug, Default, Clone)]
pub struct Subs {
    by_name: BTreeMap<String, Arc<LazySub>>,
}

type LazySub = LazyLock<Result<Program, TableError>, MakeSub>;

impl Subs {
    pub fn add(&mut self, name: String, make: MakeSub) {
        self.by_name.insert(name, Arc::new(LazyLock::new(make)));
    }

    pub fn get(&self, name: &str) -> Option<&Program> {
        self.by_name.get(name).and_then(|s| (***s).as_ref().ok())
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Every subcommand that compiles (compiling each not compiled yet).
    pub fn values(&self) -> impl Iterator<Item = &Program> {
        self.by_name.values().filter_map(|s| (***s).as_ref().ok())
    }

    /// The mistakes of the subcommands and of theirs, each naming its subcommand (compiling
    /// each not compiled yet).
    pub fn errors(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.by_name.values() {
            match &***s {
                Ok(p) => out.extend(p.sub.errors()),
                Err(e) => out.push(e.to_string()),
            }
        }
        out
    }
}

/// Parses one option spec: names separated by blanks, the value after `=` (or `[=…]` when it
/// is optional) named by its role, then effects each after a `!`:
/// `-o --output=write`, `--color[=data]`, `-r -R --recursive !walk`, `-i --in-place[=data]
/// !write`.
/// Why an option spec does not parse; each says the spec (`spec`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown effect `!{effect}` in `{spec}`")]
    UnknownEffect { effect: String, spec: String },
    #[error("names must come before effects in `{spec}`")]
    NameAfterEffect { spec: String },
    #[error("the value must follow the last name in `{spec}`")]
    NameAfterValue { spec: String },
    #[error("`{name}` is not an option name in `{spec}`")]
    NotAnOptionName { name: String, spec: String },
    #[error("write a value as `=role` or `[=role]` in `{spec}`")]
    MalformedValue { spec: String },
    #[error("no option name in `{spec}`")]
    NoName { spec: String },
    #[error(
        "unknown value role `{role}` in `{spec}` (roles: data, read, write, chdir, program, \
         code, config)"
    )]
    UnknownValueRole { role: String, spec: String },
}

pub fn parse_spec(text: &str) -> Result<OptSpec, SpecError> {
    let mut words = text.split_whitespace();
    let mut names = Vec::new();
    let mut takes = Takes::Nothing;
    let mut effects = Vec::new();
    for word in words.by_ref() {
        if let Some(effect) = word.strip_prefix('!') {
            effects.push(
                Effect::parse(effect).ok_or_else(|| SpecError::UnknownEffect {
                    effect: effect.to_string(),
                    spec: text.to_string(),
                })?,
            );
            continue;
        }
        if !effects.is_empty() {
            return Err(SpecError::NameAfterEffect {
                spec: text.to_string(),
            });
        }
        if takes != Takes::Nothing {
            return Err(SpecError::NameAfterValue {
                spec: text.to_string(),
            });
        }
        let (name, value) = match word.find(['=', '[']) {
            Some(i) => (&word[..i], Some(&word[i..])),
            None => (word, None),
        };
        if !(name.starts_with('-') || name.starts_with('+')) || name.len() < 2 || name == "--" {
            return Err(SpecError::NotAnOptionName {
                name: name.to_string(),
                spec: text.to_string(),
            });
        }
        if let Some(value) = value {
            takes = if let Some(inner) = value.strip_prefix("[=").and_then(|v| v.strip_suffix(']'))
            {
                Takes::Optional(role_of(inner, text)?)
            } else if let Some(role) = value.strip_prefix('=') {
                Takes::Required(role_of(role, text)?)
            } else {
                return Err(SpecError::MalformedValue {
                    spec: text.to_string(),
                });
            };
        }
        names.push(name.to_string());
    }
    if names.is_empty() {
        return Err(SpecError::NoName {
            spec: text.to_string(),
        });
    }
    Ok(OptSpec {
        names,
        takes,
        effects,
        operands: None,
    })
}

fn role_of(name: &str, text: &str) -> Result<Role, SpecError> {
    match Role::parse(name) {
        Some(Role::Command | Role::Format | Role::Define) | None => {
            Err(SpecError::UnknownValueRole {
                role: name.to_string(),
                spec: text.to_string(),
            })
        }
        Some(r) => Ok(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(specs: &[&str], style: Style) -> Program {
        let options = specs.iter().map(|s| parse_spec(s).unwrap()).collect();
        Program::new("t".into(), "t.toml", style, options, Operands::default())
    }

    #[test]
    fn a_spec_names_the_option_its_value_and_its_effects() {
        let s = parse_spec("-o --output=write").unwrap();
        assert_eq!(s.names, ["-o", "--output"]);
        assert_eq!(s.takes, Takes::Required(Role::Write));
        assert!(!s.reads_only());
        let s = parse_spec("-r -R --recursive !walk").unwrap();
        assert_eq!(
            (s.takes, s.effects.as_slice()),
            (Takes::Nothing, &[Effect::Walk][..])
        );
        assert!(s.reads_only());
        let s = parse_spec("-i --in-place[=data] !write").unwrap();
        assert_eq!(s.takes, Takes::Optional(Role::Data));
        assert!(!s.reads_only());
    }

    #[test]
    fn a_malformed_spec_says_what_is_wrong() {
        for (spec, says) in [
            ("--out=file", "unknown value role `file`"),
            ("output", "not an option name"),
            ("-x !frobs", "unknown effect `!frobs`"),
            ("-x=read -y", "the value must follow the last name"),
            ("!write", "no option name"),
            ("-x=command", "unknown value role `command`"),
        ] {
            let e = parse_spec(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
        }
    }

    #[test]
    fn long_options_abbreviate_to_a_unique_prefix_like_getopt_long() {
        let p = program(
            &[
                "--recursive",
                "--force",
                "--format=data",
                "--one-file-system",
                "-r -R --rec-alias",
            ],
            Style::Gnu,
        );
        let name = |l: Long| match l {
            Long::Found(s) => s.names.join(" "),
            Long::Negated(s) => format!("no {}", s.names.join(" ")),
            Long::Ambiguous(v) => format!("ambiguous {}", v.len()),
            Long::Unknown => "unknown".into(),
        };
        assert_eq!(name(p.long("recursive")), "--recursive");
        assert_eq!(name(p.long("forc")), "--force");
        assert_eq!(name(p.long("fo")), "ambiguous 2");
        assert_eq!(name(p.long("o")), "--one-file-system");
        assert_eq!(name(p.long("rec")), "ambiguous 2");
        assert_eq!(name(p.long("rec-")), "-r -R --rec-alias");
        assert_eq!(name(p.long("x")), "unknown");
        assert_eq!(name(p.long("")), "unknown");
        assert_eq!(name(p.long("no-force")), "unknown");
    }

    #[test]
    fn git_style_reads_negations_and_their_abbreviations() {
        let p = program(&["--verify", "--force", "--no-edit"], Style::Git);
        assert!(matches!(p.long("no-verify"), Long::Negated(s) if s.names == ["--verify"]));
        assert!(matches!(p.long("no-ver"), Long::Negated(_)));
        assert!(matches!(p.long("no-edit"), Long::Found(_)));
        assert!(matches!(p.long("no-e"), Long::Found(s) if s.names == ["--no-edit"]));
    }

    #[test]
    fn operands_give_a_role_per_position_and_the_last_may_repeat() {
        let o = Operands::parse(&["data".into(), "read...".into()]).unwrap();
        assert_eq!(o.role(0), Some(Role::Data));
        assert_eq!(o.role(5), Some(Role::Read));
        let o = Operands::parse(&["read".into(), "write".into()]).unwrap();
        assert_eq!(o.role(2), None);
        assert_eq!(
            o.roles_from(0).collect::<Vec<_>>(),
            [Role::Read, Role::Write]
        );
        assert!(Operands::parse(&["read...".into(), "data".into()]).is_err());
        assert!(Operands::parse(&["file".into()]).is_err());
    }
}
