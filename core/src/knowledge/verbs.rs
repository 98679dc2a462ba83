//! The long tail of programs, read by their subcommand words: build tools, package managers,
//! cloud and cluster CLIs, databases and the rest (`policies/programs/devtools.toml` and
//! `ops.toml`), system utilities (`system.toml`), and a lexicon of verbs for any CLI without a table of its own
//! (`policies/programs/lexicon.toml`).
//!
//! A command of such a program is *known* when its first words name a verb of its table, or a
//! word of them is a verb of the lexicon; its class (`run`, `install`, `destroy`, …) is what it
//! does, which the effects model turns into an effect. A subcommand no table or lexicon knows
//! leaves the command unknown: it is asked about in every mode.

use std::collections::BTreeMap;

/// Looked up for every command: a fast hash of the shipped tables' names.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::command::SimpleCommand;
use crate::knowledge::load::{LEXICON, VERBS};
use crate::knowledge::packed::{from_packed, Packed};

/// What a command of a program read by its words does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Reads local files or prints facts.
    Read,
    /// Reads from a remote service.
    Fetch,
    /// Runs the project's own code or tools over it (builds, tests, linters).
    Run,
    /// Changes files in the project only.
    Write,
    /// Installs or removes packages from a registry.
    Install,
    /// Changes a remote service or resource in a way that can be undone.
    Change,
    /// Starts, stops or restarts services or processes.
    Service,
    /// Deploys or applies changes to infrastructure.
    Deploy,
    /// Deletes remote or shared data or resources.
    Destroy,
    /// Uploads the project or an artifact to a registry.
    Publish,
    /// Runs a command inside a container, a pod or another host.
    Exec,
    /// Runs code given on the command line or fetched from the network.
    Code,
    /// Prints a credential.
    Secret,
}

impl Class {
    /// Low 0, medium 1, high 2, denied 3.
    pub fn weight(self) -> u8 {
        match self {
            Class::Read | Class::Fetch | Class::Run | Class::Write => 0,
            Class::Install | Class::Change | Class::Service => 1,
            Class::Deploy | Class::Destroy | Class::Publish | Class::Exec | Class::Code => 2,
            Class::Secret => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Read => "read",
            Class::Fetch => "fetch",
            Class::Run => "run",
            Class::Write => "write",
            Class::Install => "install",
            Class::Change => "change",
            Class::Service => "service",
            Class::Deploy => "deploy",
            Class::Destroy => "destroy",
            Class::Publish => "publish",
            Class::Exec => "exec",
            Class::Code => "code",
            Class::Secret => "secret",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    #[allow(dead_code)]
    summary: &'static str,
    /// Read by [`knowledge`] from the packed table, without the rest.
    #[serde(default)]
    #[allow(dead_code)]
    aliases: Vec<&'static str>,
    #[serde(default)]
    global_values: Vec<&'static str>,
    #[serde(default)]
    verbs: BTreeMap<Class, Vec<&'static str>>,
    /// `[NAME.verb_options]` (the grammar's `options` are another thing, in the same entry).
    #[serde(default, rename = "verb_options")]
    options: BTreeMap<&'static str, Class>,
    #[serde(default)]
    examples: BTreeMap<Class, Vec<&'static str>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
struct RawLexicon {
    lexicon: LexiconData,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
struct LexiconData {
    destroy: Vec<&'static str>,
    #[serde(default)]
    publish: Vec<&'static str>,
    read: Vec<&'static str>,
    secret: Vec<&'static str>,
    options: LexiconOptions,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
struct LexiconOptions {
    raise: Vec<&'static str>,
    lower: Vec<&'static str>,
}

/// A program's verb table, compiled.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    global_values: Vec<&'static str>,
    /// Each verb path as words (`*` any one word), with its class.
    verbs: Vec<(Vec<&'static str>, Class)>,
    /// The verbs by their first word, in order; those that start with `*` or are the bare
    /// command under `""`.
    verbs_by_first: HashMap<&'static str, Vec<usize>>,
    verbs_any_first: Vec<usize>,
    options: Vec<(&'static str, Class)>,
    /// Example commands with the class each should get (checked by the tests).
    pub examples: Vec<(Class, &'static str)>,
}

struct Knowledge {
    /// Every table as packed, by file and name in order; compiled when first asked
    /// (`compiled[i]`): a hook process deciding one command reads one table, not all.
    entries: Vec<(&'static str, Packed)>,
    compiled: Vec<OnceLock<Option<Table>>>,
    by_name: HashMap<&'static str, usize>,
    /// Tools `npx` and its like may run as themselves (package, program).
    runners: Vec<(&'static str, &'static str)>,
    lexicon: LexiconData,
}

/// The entry of each verb file that lists the tools `npx` and its like may run.
const RUNNERS: &str = "well_known_runners";

fn knowledge() -> &'static Knowledge {
    static KNOWLEDGE: OnceLock<Knowledge> = OnceLock::new();
    KNOWLEDGE.get_or_init(|| {
        let mut entries = Vec::new();
        let mut by_name = HashMap::default();
        let mut runners = Vec::new();
        // The tables are checked by the tests (`the_verb_tables_load`): broken, they are
        // empty here, which leaves their programs unknown (asked), never allowed.
        for (name, entry) in VERBS.entries().unwrap_or_default() {
            if name == RUNNERS {
                let lists: BTreeMap<&'static str, Vec<&'static str>> =
                    from_packed(entry).unwrap_or_default();
                for item in lists.into_values().flatten() {
                    let (package, program) = item.split_once(':').unwrap_or((item, item));
                    let program = program.rsplit('/').next().unwrap_or(program);
                    runners.push((package, program));
                }
                continue;
            }
            let i = entries.len();
            by_name.entry(name).or_insert(i);
            let aliases: Vec<&'static str> = entry
                .get("aliases")
                .ok()
                .flatten()
                .and_then(|a| from_packed(a).ok())
                .unwrap_or_default();
            for a in aliases {
                by_name.entry(a).or_insert(i);
            }
            entries.push((name, entry));
        }
        let lexicon = from_packed::<RawLexicon>(LEXICON)
            .map(|l| l.lexicon)
            .unwrap_or_default();
        Knowledge {
            compiled: entries.iter().map(|_| OnceLock::new()).collect(),
            entries,
            by_name,
            runners,
            lexicon,
        }
    })
}

impl Knowledge {
    /// Table `i`, compiled when first asked; `None` when its data does not read as a table
    /// (the tests say so; the program is then unknown).
    fn table(&self, i: usize) -> Option<&Table> {
        let (name, packed) = *self.entries.get(i)?;
        self.compiled
            .get(i)?
            .get_or_init(|| {
                from_packed::<RawTable>(packed)
                    .ok()
                    .map(|raw| compile(name, raw))
            })
            .as_ref()
    }
}

/// A table as read, compiled: its verbs as words, indexed by their first.
fn compile(name: &'static str, raw: RawTable) -> Table {
    let mut verbs = Vec::new();
    for (class, paths) in &raw.verbs {
        for p in paths {
            verbs.push((p.split_whitespace().collect::<Vec<_>>(), *class));
        }
    }
    let mut verbs_by_first: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut verbs_any_first = Vec::new();
    for (j, (path, _)) in verbs.iter().enumerate() {
        match path.first() {
            Some(w) if *w != "*" => verbs_by_first.entry(*w).or_default().push(j),
            _ => verbs_any_first.push(j),
        }
    }
    let examples = raw
        .examples
        .iter()
        .flat_map(|(c, e)| e.iter().map(move |x| (*c, *x)))
        .collect();
    Table {
        name,
        global_values: raw.global_values,
        verbs,
        verbs_by_first,
        verbs_any_first,
        options: raw.options.into_iter().collect(),
        examples,
    }
}

impl Table {
    /// Commands that exercise the table: its examples, each verb path (with an operand), and
    /// each option that does more than read, alone and after each verb. `lint` decides them to
    /// find the allow rules that let such a command through.
    pub fn probes(&self) -> Vec<String> {
        let name = self.name;
        let mut out: Vec<String> = self.examples.iter().map(|(_, e)| e.to_string()).collect();
        let paths: Vec<String> = self
            .verbs
            .iter()
            .map(|(words, _)| {
                words
                    .iter()
                    .map(|w| if *w == "*" { "some-name" } else { w })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        for p in &paths {
            out.push(format!("{name} {p} some-name"));
        }
        for (option, class) in &self.options {
            if *class == Class::Read {
                continue;
            }
            let value = if option.ends_with('=') {
                "some-value"
            } else {
                " some-value"
            };
            out.push(format!("{name} {option}{value}"));
            for p in &paths {
                out.push(format!("{name} {p} {option}{value}"));
            }
        }
        out
    }
}

/// The verb table of `program` (its folder stripped), if one describes it.
pub fn table(program: &str) -> Option<&'static Table> {
    let k = knowledge();
    k.by_name.get(program).and_then(|&i| k.table(i))
}

/// Every verb table (each compiled now): for `lint` and the tests.
pub fn tables() -> Vec<&'static Table> {
    let k = knowledge();
    (0..k.entries.len()).filter_map(|i| k.table(i)).collect()
}

/// Whether `name` is a tool `npx`, `bunx`, `pnpx` or `uvx` may run as itself (a project's dev
/// dependency), by its package or program name; the program it runs.
pub fn well_known_runner(name: &str) -> Option<&'static str> {
    let bare = match name.strip_prefix('@') {
        // `@scope/pkg@1.2`
        Some(rest) => &name[..rest.find('@').map_or(name.len(), |i| i + 1)],
        None => name.split('@').next().unwrap_or(name),
    };
    knowledge()
        .runners
        .iter()
        .find(|(package, program)| *package == bare || *program == bare)
        .map(|(_, program)| *program)
}

/// How a command was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub class: Class,
    /// The words that decided (`kubectl delete`, `wrangler d1 delete`).
    pub words: String,
    /// By the program's table (`false`: by the lexicon).
    pub by_table: bool,
}

/// The command's words after the program that are not options or their values, with where
/// each stands in `argv`.
fn operands<'c>(cmd: &'c SimpleCommand, values: &[&str]) -> Vec<(usize, &'c str)> {
    let mut out = Vec::new();
    let mut skip = false;
    let mut ended = false;
    for (at, w) in cmd.argv.iter().enumerate().skip(1) {
        let v = w.value.as_str();
        if skip {
            skip = false;
            continue;
        }
        if !ended && v == "--" {
            ended = true;
            continue;
        }
        if !ended && v.starts_with('-') && v.len() > 1 {
            if !v.contains('=') && values.contains(&v) {
                skip = true;
            }
            continue;
        }
        // `cargo +nightly build`: a toolchain.
        if out.is_empty() && v.starts_with('+') && toolchains(cmd.program()) {
            continue;
        }
        out.push((at, v));
    }
    out
}

/// Programs whose first `+word` picks a toolchain (`cargo +nightly build`).
fn toolchains(program: &str) -> bool {
    matches!(
        program,
        "cargo" | "rustc" | "rustdoc" | "rustup" | "rustfmt"
    ) || program.starts_with("cargo-")
}

/// Whether an option word reads as a cluster of short options (`-nv`, `-Qi`): letters and
/// digits, none twice. A single-dash long option (`-hide_banner`, `-recorder`) does not.
fn cluster(option: &str) -> bool {
    let mut letters = &option.as_bytes()[1..];
    // A letter said again and again at the end is a count (`-dvvv`).
    while let [.., a, b] = letters {
        if a != b {
            break;
        }
        letters = &letters[..letters.len() - 1];
    }
    letters.iter().all(u8::is_ascii_alphanumeric)
        && letters
            .iter()
            .enumerate()
            .all(|(i, b)| !letters[i + 1..].contains(b))
}

/// The options given, as their names (`--force`, `-y`, `--dry-run` of `--dry-run=client`),
/// with where each stands in `argv`.
fn options(cmd: &SimpleCommand) -> impl Iterator<Item = (usize, &str)> {
    cmd.argv
        .iter()
        .enumerate()
        .skip(1)
        .map(|(at, w)| (at, w.value.as_str()))
        .take_while(|(_, v)| *v != "--")
        .filter(|(_, v)| v.starts_with('-') && v.len() > 1)
        .map(|(at, v)| (at, v.split_once('=').map_or(v, |(n, _)| n)))
}

/// Whether the command is proven by its program's verb table to only read: the table reads
/// it as `read`, and every option given is one the table names (each letter of a cluster of
/// short options too, up to one that takes a value), with nothing computed when it runs.
pub fn reads_by_table(cmd: &SimpleCommand) -> bool {
    let Some(t) = table(cmd.program()) else {
        return false;
    };
    if cmd.argv.iter().any(|w| w.dynamic) {
        return false;
    }
    // Known, and not an option that does more than read: a lowering option (`-l`) does not
    // make `ssh-keygen -l -R host` (which removes the host) a read here.
    let known = |name: &str| {
        t.options
            .iter()
            .any(|(n, c)| *n == name && *c == Class::Read)
            || (t.global_values.contains(&name) && t.options.iter().all(|(n, _)| *n != name))
    };
    let all_known = options(cmd).all(|(_, o)| {
        if known(o) {
            return true;
        }
        if o.starts_with("--") {
            return false;
        }
        // `-lf`: `-l`, then `-f` and its value attached (or the next word).
        for c in o.chars().skip(1) {
            let one = format!("-{c}");
            if !known(&one) {
                return false;
            }
            if t.global_values.contains(&one.as_str()) {
                return true;
            }
        }
        true
    });
    all_known && classify(cmd).is_some_and(|r| r.by_table && r.class == Class::Read)
}

/// Reads a command by its program's verb table or, failing that, the lexicon; `None` when
/// neither knows what it does.
pub fn classify(cmd: &SimpleCommand) -> Option<Reading> {
    let program = cmd.program();
    let table = table(program);
    // The lexicon reads the words of a CLI no table describes, and the subcommands a table
    // does not list (`aws cloudwatch describe-alarms`): never a program other knowledge reads
    // (`touch rm-rf.txt` is no deletion).
    // Nor git, whose words its own reader reads: a subcommand it does not know may be an alias
    // (`alias.x = !cmd`), which the lexicon's reading of the words after it cannot see.
    let lexicon_may =
        program != "git" && (table.is_some() || !crate::knowledge::read_otherwise(program));
    if table.is_none() && !lexicon_may {
        return None;
    }
    let values = table.map_or(&[][..], |t| t.global_values.as_slice());
    let placed = operands(cmd, values);
    let words: Vec<&str> = placed.iter().map(|(_, w)| *w).collect();
    let by_table = table.and_then(|t| {
        // `--version`, `--help` alone: what any program prints of itself.
        let about = words.is_empty()
            && cmd.argv.len() == 2
            && matches!(
                cmd.argv[1].value.as_str(),
                "--version" | "--help" | "-h" | "-V"
            );
        if about {
            return Some(Reading {
                class: Class::Read,
                words: cmd
                    .argv
                    .iter()
                    .map(|w| w.value.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                by_table: true,
            });
        }
        // Options that change what any verb does: a lowering one (`--dry-run` read) wins, a
        // raising one makes the class stronger. An option is its table's entry of that name,
        // or, for a cluster of short options without one (`-Syu`), the entry of its first.
        let mut raised: Option<Class> = None;
        let mut lowered: Option<usize> = None;
        for (at, o) in options(cmd) {
            let exact = t.options.iter().find(|(name, _)| *name == o);
            let first = || {
                let short = !o.starts_with("--") && o.len() > 2;
                t.options
                    .iter()
                    .find(|(name, _)| short && name.len() == 2 && o.starts_with(name))
            };
            let Some((_, c)) = exact.or_else(first) else {
                continue;
            };
            if *c != Class::Read {
                raised = Some(raised.map_or(*c, |r| r.max_by_weight(*c)));
            } else if lowered.is_none() && (exact.is_some() || cluster(o)) {
                // A lowering option counts only as itself or in a cluster of short options:
                // `-hide_banner` is no `-h`.
                lowered = Some(at);
            }
        }
        // The verbs that may apply: those of the first word and those of any, in order.
        let mut candidates: Vec<usize> = words
            .first()
            .and_then(|w| t.verbs_by_first.get(w))
            .into_iter()
            .flatten()
            .chain(&t.verbs_any_first)
            .copied()
            .collect();
        candidates.sort_unstable();
        let best = candidates
            .iter()
            .filter_map(|&j| t.verbs.get(j))
            .filter(|(path, _)| {
                // `""` is the bare command; a lone `*` is any use, bare or not.
                if path.is_empty() || (words.is_empty() && path.as_slice() == ["*"]) {
                    return words.is_empty();
                }
                path.len() <= words.len()
                    && path.iter().zip(&words).all(|(p, w)| *p == "*" || p == w)
            })
            .max_by_key(|(path, class)| {
                // The bare command's own entry (`""`) before a lone `*`.
                let bare = path.is_empty();
                let literal = path.iter().filter(|p| **p != "*").count();
                (bare, path.len(), literal, class.weight())
            });
        let Some((path, class)) = best else {
            // A program driven by its options alone (`nginx -s stop`, `pacman -Syu`).
            let class = if lowered.is_some() {
                Some(Class::Read)
            } else {
                raised
            }?;
            return Some(Reading {
                class,
                words: program.to_string(),
                by_table: true,
            });
        };
        // What a container or a shell runs takes options of its own: `docker exec box cmd -n`
        // is no dry run. Such a command's options are its own only before its operands.
        let wrapped = |at: usize| {
            matches!(class, Class::Exec | Class::Code)
                && placed.get(path.len()).is_some_and(|(first, _)| *first < at)
        };
        // Options of one verb (`"compose down -v" = "destroy"`): given as themselves or in a
        // cluster of short options (`rm -fv`).
        let said = &words[..path.len().min(words.len())];
        for (name, c) in t.options.iter().filter(|(n, _)| n.contains(' ')) {
            let Some((verb, flag)) = name.rsplit_once(' ') else {
                continue;
            };
            if !verb.split_whitespace().eq(said.iter().copied()) {
                continue;
            }
            let given = options(cmd).any(|(_, o)| {
                o == flag
                    || (flag.len() == 2
                        && !flag.starts_with("--")
                        && !o.starts_with("--")
                        && cluster(o)
                        && o[1..].contains(&flag[1..]))
            });
            if given && *c != Class::Read {
                raised = Some(raised.map_or(*c, |r| r.max_by_weight(*c)));
            }
        }
        let class = if lowered.is_some_and(|at| !wrapped(at)) {
            Class::Read
        } else {
            raised.map_or(*class, |r| class.max_by_weight(r))
        };
        let shown = words[..path.len().min(words.len())].join(" ");
        Some(Reading {
            class,
            words: format!("{program} {shown}").trim_end().to_string(),
            by_table: true,
        })
    });
    let by_table = by_table.map(|r| match api_method(cmd) {
        // `gh api`: an HTTP request by its method.
        Some(class) => Reading { class, ..r },
        None => r,
    });
    let by_table = by_table.map(|r| match statement(cmd) {
        // A database shell given its statement reads or changes by that statement.
        Some(changes) if r.class == Class::Change || r.class == Class::Write => Reading {
            class: if changes { r.class } else { Class::Fetch },
            ..r
        },
        _ => r,
    });
    by_table.or_else(|| lexicon_may.then(|| lexicon(cmd, program, &words)).flatten())
}

/// What `gh api` and `glab api` do, by the request's method: a DELETE destroys, a request with
/// fields or another method changes, a plain one reads. `None` for other commands.
fn api_method(cmd: &SimpleCommand) -> Option<Class> {
    if !matches!(cmd.program(), "gh" | "glab")
        || cmd.argv.get(1).map(|w| w.value.as_str()) != Some("api")
    {
        return None;
    }
    let args = &cmd.argv[2..];
    let mut method = None;
    for (i, w) in args.iter().enumerate() {
        let v = w.value.as_str();
        if v == "-X" || v == "--method" {
            method = args.get(i + 1).map(|m| m.value.to_ascii_uppercase());
        } else if let Some(m) = v.strip_prefix("--method=").or_else(|| v.strip_prefix("-X")) {
            if !m.is_empty() {
                method = Some(m.to_ascii_uppercase());
            }
        }
    }
    let fields = args.iter().any(|w| {
        let v = w.value.as_str();
        ["-f", "-F", "--field", "--raw-field", "--input"]
            .iter()
            .any(|o| v == *o || v.starts_with(&format!("{o}=")))
    });
    Some(match method.as_deref() {
        Some("DELETE") => Class::Destroy,
        Some("GET" | "HEAD") => Class::Fetch,
        Some(_) => Class::Change,
        None if fields => Class::Change,
        None => Class::Fetch,
    })
}

/// Database shells and the options that give them a statement to run.
const STATEMENT_OPTIONS: [(&str, &[&str]); 9] = [
    ("psql", &["-c", "--command"]),
    ("mysql", &["-e", "--execute"]),
    ("mariadb", &["-e", "--execute"]),
    ("mongosh", &["--eval"]),
    ("mongo", &["--eval"]),
    ("cqlsh", &["-e", "--execute"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("duckdb", &["-c"]),
    ("sqlcmd", &["-Q", "-q"]),
];

/// Whether the statements a database shell is given change anything (`Some(true)`), or only
/// read (`Some(false)`); `None` when none is given on its command line. What destroys data
/// (`DROP`, `TRUNCATE`, `DELETE FROM`) the effects model's statement list reads too.
fn statement(cmd: &SimpleCommand) -> Option<bool> {
    let (_, options) = STATEMENT_OPTIONS
        .iter()
        .find(|(p, _)| *p == cmd.program())?;
    let mut texts = Vec::new();
    let args = &cmd.argv[1..];
    for (i, w) in args.iter().enumerate() {
        let v = w.value.as_str();
        for o in options.iter() {
            if v == *o {
                texts.extend(args.get(i + 1));
            } else if let Some(rest) = v.strip_prefix(o).filter(|r| !r.is_empty()) {
                if o.starts_with("--") {
                    if rest.starts_with('=') {
                        texts.push(w);
                    }
                } else {
                    texts.push(w);
                }
            }
        }
    }
    // A statement fed on its input (`psql <<< 'SELECT now()'`); a here-document's body is not
    // read here, so it may change anything.
    for r in &cmd.redirects {
        match r.op {
            crate::command::RedirectOp::HereString => texts.push(&r.target),
            crate::command::RedirectOp::HereDoc | crate::command::RedirectOp::HereDocStrip => {
                return Some(true)
            }
            _ => {}
        }
    }
    if texts.is_empty() {
        return None;
    }
    const CHANGES: [&str; 26] = [
        "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "TRUNCATE", "GRANT", "REVOKE",
        "MERGE", "REPLACE", "COPY", "CALL", "EXEC", "VACUUM", "REINDEX", "CLUSTER", "REFRESH",
        "LOAD", "SET ", "RENAME", ".INSERT", ".UPDATE", ".REMOVE", ".DROP", "FLUSH",
    ];
    let changes = texts.iter().any(|w| {
        let t = w.value.to_ascii_uppercase();
        w.dynamic || t.contains("\\!") || CHANGES.iter().any(|c| t.contains(c))
    });
    Some(changes)
}

impl Class {
    /// The weight, then an order among classes of one weight: losing data outweighs shipping
    /// it, which outweighs running code elsewhere; running the project's code outweighs
    /// writing its files, which outweighs reading.
    fn rank(self) -> (u8, u8) {
        // Each class ranks apart from the others, so an option of another class of the same
        // weight is never lost: `yq -i` writes though `yq` reads.
        let within = match self {
            Class::Read => 0,
            Class::Fetch => 1,
            Class::Write => 2,
            Class::Run => 3,
            Class::Change => 0,
            Class::Service => 1,
            Class::Install => 2,
            Class::Exec => 0,
            Class::Code => 1,
            Class::Deploy => 2,
            Class::Publish => 3,
            Class::Destroy => 4,
            Class::Secret => 0,
        };
        (self.weight(), within)
    }

    /// The stronger of two classes, by rank.
    fn max_by_weight(self, other: Class) -> Class {
        if other.rank() >= self.rank() {
            other
        } else {
            self
        }
    }
}

/// The parts of a subcommand word (`delete-user`, `apps:destroy`, `deleteUser`, `kv.delete`),
/// lower-cased.
fn parts(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in word.chars() {
        if matches!(c, '-' | '_' | ':' | '.' | '/') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether an entry of the lexicon (one word, or a run of words joined by `-`) is among a
/// word's parts, in order.
fn has(parts: &[String], want: &[String]) -> bool {
    parts.windows(want.len()).any(|w| w == want)
}

/// The lexicon's entries split into their lower-case parts once, strongest class first:
/// secret, destroy, publish, read.
fn lexicon_entries() -> &'static [(Class, Vec<Vec<String>>)] {
    static ENTRIES: OnceLock<Vec<(Class, Vec<Vec<String>>)>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let lex = &knowledge().lexicon;
        let split = |list: &[&str]| -> Vec<Vec<String>> {
            list.iter()
                .map(|e| e.split('-').map(str::to_lowercase).collect())
                .collect()
        };
        vec![
            (Class::Secret, split(&lex.secret)),
            (Class::Destroy, split(&lex.destroy)),
            (Class::Publish, split(&lex.publish)),
            (Class::Fetch, split(&lex.read)),
        ]
    })
}

/// A command of a program without a table that knows its words, read by the lexicon: the
/// first words (up to three) that are not options, the strongest class among them.
fn lexicon(cmd: &SimpleCommand, program: &str, words: &[&str]) -> Option<Reading> {
    let lex = &knowledge().lexicon;
    let mut found: Option<Class> = None;
    let mut upto = 0;
    // A word before the one that reads, with no entry, may be a verb the lexicon does not
    // know (`foo update status`): then reading is not known.
    let mut unknown_before = false;
    for (i, w) in words.iter().take(3).enumerate() {
        // A path or a URL is an operand, not a verb.
        if w.contains('/') && w.len() > 1 || w.contains("://") {
            break;
        }
        let p = parts(w);
        let class = lexicon_entries()
            .iter()
            .find(|(_, entries)| entries.iter().any(|e| has(&p, e)))
            .map(|(c, _)| *c);
        match class {
            Some(Class::Fetch) if found.is_none() && unknown_before => return None,
            Some(c) => {
                found = Some(found.map_or(c, |f| f.max_by_weight(c)));
                upto = i + 1;
            }
            None if found.is_none() => unknown_before = true,
            None => {}
        }
    }
    let class = found?;
    let raise = options(cmd).any(|(_, o)| lex.options.raise.contains(&o));
    let lower = options(cmd).any(|(_, o)| lex.options.lower.contains(&o));
    // A reading verb with an option that forces or widens it, or a destroying one with a dry
    // run: not sure enough of either to call it known.
    match class {
        Class::Fetch if raise => return None,
        Class::Destroy if lower && !raise => return None,
        _ => {}
    }
    Some(Reading {
        class,
        words: format!("{program} {}", words[..upto].join(" ")),
        by_table: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::analyse;

    fn class_of(line: &str) -> Option<Class> {
        let commands = analyse(line).commands;
        commands.first().and_then(classify).map(|r| r.class)
    }

    fn reads(line: &str) -> bool {
        analyse(line).commands.first().is_some_and(reads_by_table)
    }

    #[test]
    fn only_a_table_read_with_every_option_known_is_a_proven_read() {
        assert!(reads("ssh-keygen -lf id.pub"));
        assert!(reads("ssh-keygen -l -f id.pub -E md5"));
        assert!(reads("ssh-keygen -F github.com -f known_hosts"));
        // A mode that writes beside the reading one, an unknown option, a computed word.
        assert!(!reads("ssh-keygen -l -R host -f known_hosts"));
        assert!(!reads("ssh-keygen -lX id.pub"));
        assert!(!reads("ssh-keygen -l --frob id.pub"));
        assert!(!reads("ssh-keygen -lf $K"));
        assert!(!reads("ssh-keygen -f id"));
    }

    #[test]
    fn an_option_of_one_verb_counts_for_that_verb_only() {
        assert_eq!(class_of("docker compose down -v"), Some(Class::Destroy));
        assert_eq!(class_of("docker rm -fv db"), Some(Class::Destroy));
        assert_eq!(class_of("docker compose down"), Some(Class::Service));
        assert_ne!(class_of("docker run -v /a:/b img"), Some(Class::Destroy));
        assert_ne!(class_of("docker system df -v"), Some(Class::Destroy));
    }

    #[test]
    fn the_verb_tables_load() {
        let mut programs = 0;
        let entries = VERBS.entries().expect("the verb tables read");
        for (name, entry) in entries {
            if name == RUNNERS {
                from_packed::<BTreeMap<&str, Vec<&str>>>(entry).expect("the runners read");
            } else {
                programs += 1;
                if let Err(e) = from_packed::<RawTable>(entry) {
                    panic!("the verb table of {name} does not read: {e}");
                }
            }
        }
        // The three verb files' tables, and git's, all there (906 when they were merged).
        assert!(programs > 900, "{programs} verb tables");
        // Each is compiled when asked, and none is lost.
        assert_eq!(tables().len(), programs);
        assert!(!knowledge().runners.is_empty());
        let lex = from_packed::<RawLexicon>(LEXICON).expect("the lexicon reads");
        assert!(lex.lexicon.destroy.len() >= 60 && lex.lexicon.read.len() >= 60);
        assert!(tables().len() >= 300, "{} tables", tables().len());
    }

    /// Every table pins example commands beside its verbs: each must read as its class.
    #[test]
    fn every_verb_table_example_reads_as_the_table_says() {
        let mut wrong = Vec::new();
        let mut count = 0;
        for t in tables() {
            for (class, example) in &t.examples {
                count += 1;
                let got = class_of(example);
                if got != Some(*class) {
                    wrong.push(format!(
                        "{}: `{example}` should be {}, is {got:?}",
                        t.name,
                        class.name()
                    ));
                }
            }
        }
        assert!(count > 500, "{count} examples");
        assert!(
            wrong.is_empty(),
            "{} of {count}:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    #[test]
    fn any_clis_words_are_read_with_the_lexicon() {
        assert_eq!(
            class_of("acme-cli project delete demo"),
            Some(Class::Destroy)
        );
        assert_eq!(class_of("acme-cli list projects"), Some(Class::Fetch));
        // A word with no entry before the reading one may be a verb (`update status`).
        assert_eq!(class_of("acme-cli projects list"), None);
        assert_eq!(class_of("acme-cli update status"), None);
        assert_eq!(class_of("acme-cli upload build.zip"), Some(Class::Publish));
        assert_eq!(class_of("acme-cli apps:destroy x"), Some(Class::Destroy));
        assert_eq!(class_of("acme-cli deleteUser x"), Some(Class::Destroy));
        assert_eq!(
            class_of("acme-cli auth print-access-token"),
            Some(Class::Secret)
        );
        assert_eq!(class_of("acme-cli frobnicate x"), None);
        // A dry run of a delete, or a forced list: not sure of either.
        assert_eq!(class_of("acme-cli project delete demo --dry-run"), None);
        assert_eq!(class_of("acme-cli projects list --force"), None);
    }

    #[test]
    fn npx_runs_a_well_known_tool_as_itself() {
        assert_eq!(well_known_runner("tsc"), Some("tsc"));
        assert_eq!(well_known_runner("typescript"), Some("tsc"));
        assert_eq!(well_known_runner("jest@29"), Some("jest"));
        assert_eq!(well_known_runner("left-pad-evil"), None);
    }
}
