//! Command-line interface: thin layers over the library's engine.

mod allow;
mod check;
mod fmt;
mod hook;
mod hook_settings;
mod import;
mod install;
mod lint;
mod lsp;
mod sandbox;
mod suggest;
mod tui;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use harness9::diag::{self, Diagnostic};
use harness9::settings::SETTINGS_PATH;
use harness9::{Engine, LoadError, Mode, PathContext};

/// Prints clap's message (help and version included); exit 0 for those, [`EXIT_USAGE`] else.
fn usage_error(e: clap::Error) -> i32 {
    let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
    let _ = e.print();
    code
}

/// Exit code for bad usage or a policy that does not load.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "harness9",
    version,
    about = "Human-in-the-loop permission engine for AI coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Decide one tool call (or a JSONL batch of them).
    Check(check::CheckArgs),
    /// Show why a call gets its decision: the shell split, every matching rule, the winner.
    Explain(check::ExplainArgs),
    /// Check policy files: syntax, invalid patterns, shadowed and duplicate rules, expects.
    Lint(lint::LintArgs),
    /// Run the `expect` statements of policy files.
    Test(lint::TestArgs),
    /// Answer an agent's pre-tool hook: an event on standard input, the decision on standard
    /// output (exit 2 when no decision can be made, which blocks the call).
    Hook(hook::HookArgs),
    /// Format policy files canonically, comments kept (`--check` lists files that would change).
    Fmt(fmt::FmtArgs),
    /// The agent TUI: a conversation with a model (or the offline demo) whose tool calls go
    /// through the policy, with an approval dialog (also what a bare `harness9` runs).
    Tui(tui::TuiArgs),
    /// Turn another agent's permission rules into a policy file.
    Import(import::ImportArgs),
    /// Add allow rules to `.harness9/settings.json` (atomic, locked, other content kept).
    Allow(allow::AllowArgs),
    /// Write harness9's hook into an agent's settings, in a form that blocks the call when
    /// harness9 is missing or fails (every other key and hook kept; run again to update it).
    Install(install::InstallArgs),
    /// Take harness9's hook out of an agent's settings.
    Uninstall(install::InstallArgs),
    /// Check that the agent has harness9's hook, that it fails closed and runs this harness9,
    /// that the host is new enough, and that the project's policies load (exit 1 if not).
    Doctor(install::DoctorArgs),
    /// The calls a person approved again and again (from the audit log), as the narrow rules
    /// "always allow" would write, with counts; `--apply` adds them to settings.json.
    Suggest(suggest::SuggestArgs),
    /// Run a command contained: it reads all but the protected paths, writes only the project,
    /// the temporary folder and the profile's caches, and has no network (Linux, bubblewrap).
    Sandbox(sandbox::SandboxArgs),
    /// A language server for policy files and `.harness9/settings.json`, over standard input
    /// and output: lint's diagnostics, hover, completion, formatting, go to an include.
    Lsp(lsp::LspArgs),
}

/// Where the policy comes from; shared by `check` and `explain`.
#[derive(Args, Debug, Clone)]
pub struct PolicyArgs {
    /// A policy file (repeatable). Without one, the working folder's `.harness9/*.policy` and
    /// the user's policy files, as the hook reads them. The shipped default policy sits under
    /// them, unless one says `replace "default.policy";`.
    #[arg(long = "policy", value_name = "FILE")]
    policies: Vec<PathBuf>,
    /// A settings.json (default: .harness9/settings.json of the working folder, when present).
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// Leave out the built-in danger rules (the hard protections always apply).
    #[arg(long)]
    no_builtin: bool,
    /// The working folder relative paths and the settings file are resolved against.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

impl PolicyArgs {
    /// Builds the engine, or prints every problem and returns the exit code.
    pub fn engine(&self) -> Result<Engine, i32> {
        let ctx = match &self.cwd {
            Some(dir) => {
                let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
                PathContext::new(
                    base.join(dir),
                    std::env::var_os("HOME")
                        .filter(|h| !h.is_empty())
                        .map(PathBuf::from),
                )
            }
            None => PathContext::from_env(),
        };
        // Guarded as the hook guards them, so `check` answers what the hook would.
        // Whether a call can run contained here, by the cheap look (no process started), so
        // that `check` answers a contained decision as it would be honoured.
        let mut b = harness9::hooks::guard_project(
            Engine::builder()
                .context(ctx.clone())
                .sandbox(harness9::sandbox::support()),
            &ctx.cwd,
            ctx.home.as_deref(),
        )
        .builtin(!self.no_builtin);
        // Without `--policy`, the policy files the hook would read for this folder (its
        // `.harness9/*.policy`, the user's): one view of the policy for `check`, `explain`,
        // the hook and the TUI.
        let mut policies = self.policies.clone();
        if policies.is_empty() {
            let project = harness9::hooks::Project::from_env(ctx.cwd.clone());
            match harness9::hooks::discovered_policies(&project) {
                Ok(found) => {
                    let here = std::env::current_dir().ok().filter(|d| *d == ctx.cwd);
                    policies = found
                        .into_iter()
                        .map(|p| match &here {
                            Some(d) => p.strip_prefix(d).map(Path::to_path_buf).unwrap_or(p),
                            None => p,
                        })
                        .collect();
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return Err(EXIT_USAGE);
                }
            }
        }
        // The managed tier first; the shipped default policy under every policy (unless one
        // replaces it).
        b = match harness9::hooks::managed_policies() {
            Ok(files) => harness9::hooks::with_managed(b, &files).default_policy(),
            Err(e) => {
                eprintln!("error: {e}");
                return Err(EXIT_USAGE);
            }
        };
        for p in &policies {
            b = b.policy_file(p);
        }
        match &self.settings {
            Some(s) => b = b.settings_file(s),
            None => {
                // Relative to the process's folder it reads `.harness9/settings.json:3` in rules.
                let auto = match &self.cwd {
                    Some(_) => ctx.cwd.join(SETTINGS_PATH),
                    None => PathBuf::from(SETTINGS_PATH),
                };
                if auto.is_file() {
                    b = b.settings_file(auto);
                }
            }
        }
        match b.build() {
            Ok(e) => {
                print_diags(
                    e.warnings()
                        .iter()
                        .filter(|d| !d.source.name.ends_with("builtin.policy")),
                );
                Ok(e)
            }
            Err(e) => {
                report_load_error(&e);
                Err(EXIT_USAGE)
            }
        }
    }
}

pub fn report_load_error(e: &LoadError) {
    for m in &e.messages {
        eprintln!("error: {m}");
    }
    print_diags(e.diagnostics.iter());
    eprintln!("error: the policy did not load; nothing was decided");
}

/// Renders diagnostics to stderr (colours only on a terminal, and never with NO_COLOR).
pub fn print_diags<'a>(diags: impl Iterator<Item = &'a Diagnostic>) {
    let diags: Vec<Diagnostic> = diags.cloned().collect();
    if diags.is_empty() {
        return;
    }
    eprint!("{}", diag::render(&diags, plain_output(false)));
}

/// Whether to print without colours.
pub fn plain_output(stdout: bool) -> bool {
    let tty = if stdout {
        std::io::stdout().is_terminal()
    } else {
        std::io::stderr().is_terminal()
    };
    !tty || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

pub fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse()
}

/// `harness9 hook …` with a parser of that subcommand alone: an agent starts a hook process
/// for every tool call, and building the parser of every subcommand was a measurable part of
/// one. The same arguments, help and errors as under [`Cli`].
#[derive(Parser, Debug)]
#[command(name = "harness9", version)]
struct HookCli {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(Subcommand, Debug)]
enum HookCommand {
    /// Answer an agent's pre-tool hook: an event on standard input, the decision on standard
    /// output (exit 2 when no decision can be made, which blocks the call).
    Hook(hook::HookArgs),
}

pub fn run() -> i32 {
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
        return match HookCli::try_parse() {
            Ok(HookCli {
                command: HookCommand::Hook(a),
            }) => hook::hook(a),
            Err(e) => usage_error(e),
        };
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    match cli.command {
        Some(Command::Check(a)) => check::check(a),
        Some(Command::Explain(a)) => check::explain(a),
        Some(Command::Lint(a)) => lint::lint(a),
        Some(Command::Test(a)) => lint::test(a),
        Some(Command::Hook(a)) => hook::hook(a),
        Some(Command::Fmt(a)) => fmt::fmt(a),
        Some(Command::Import(a)) => import::import(a),
        Some(Command::Allow(a)) => allow::allow(a),
        Some(Command::Install(a)) => install::install(a),
        Some(Command::Uninstall(a)) => install::uninstall(a),
        Some(Command::Doctor(a)) => install::doctor(a),
        Some(Command::Suggest(a)) => suggest::suggest(a),
        Some(Command::Lsp(a)) => lsp::lsp(a),
        Some(Command::Sandbox(a)) => sandbox::sandbox(a),
        Some(Command::Tui(a)) => tui::tui(a),
        // On a terminal a bare `harness9` is the TUI; elsewhere it prints the help.
        None if tui::on_terminal() => tui::tui(tui::TuiArgs::default()),
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            0
        }
    }
}
