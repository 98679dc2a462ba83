//! `harness9 install AGENT`, `harness9 uninstall AGENT` and `harness9 doctor`.
//!
//! The hook is written so that it never fails open: its command stops the call (exit 2, with a
//! message that says why) when harness9 is not there or does not answer, since every host runs
//! a call whose hook exits with another code; and where a host has a fail-closed option of its
//! own (Claude Code's `"onFailure": "block"`), it is set too. A shared install (a settings file
//! a team commits) names the binary by name, so that it works on every teammate's machine; a
//! personal or global one names this binary by its absolute path. Every other key and hook is
//! kept, comments too, and `uninstall` gives back the file as it was before `install`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use jsonc_parser::ParseOptions;

use super::hook_settings::{self, Json, Layout};

use harness9::hooks::{self, Project};
use harness9::runtime::allowlist::{edit_file, FileEdit, SettingsError};
use harness9::ToolCall;

/// The program a shared install names (found on `PATH` on each machine).
const PROGRAM: &str = "harness9";

/// The agents harness9 installs into.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    GeminiCli,
    Codex,
    Copilot,
}

/// Which settings file of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// The project's file that is not committed (`.claude/settings.local.json`).
    Personal,
    /// The project's file a team commits (`.claude/settings.json`).
    Shared,
    /// The user's own file, for every project (`~/.claude/settings.json`).
    Global,
}

impl Agent {
    const ALL: [Agent; 4] = [
        Agent::ClaudeCode,
        Agent::GeminiCli,
        Agent::Codex,
        Agent::Copilot,
    ];

    fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::GeminiCli => "gemini-cli",
            Agent::Codex => "codex",
            Agent::Copilot => "copilot",
        }
    }

    /// The host's name for people.
    fn host(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::GeminiCli => "Gemini CLI",
            Agent::Codex => "Codex CLI",
            Agent::Copilot => "Copilot CLI",
        }
    }

    /// Every event harness9's hook is installed for: before a tool, and for Claude Code after
    /// one too (the audit log records that an asked call ran), and for Codex its permission
    /// requests (harness9 answers the prompts Codex would show).
    fn events(self) -> &'static [&'static str] {
        match self {
            Agent::ClaudeCode => &["PreToolUse", "PostToolUse"],
            Agent::GeminiCli => &["BeforeTool"],
            Agent::Codex => &["PreToolUse", "PermissionRequest"],
            Agent::Copilot => &["preToolUse"],
        }
    }

    /// How the host lays out its hooks.
    fn layout(self) -> Layout {
        match self {
            Agent::Copilot => Layout {
                flat: true,
                command: "bash",
            },
            _ => hook_settings::GROUPED,
        }
    }

    /// What the settings file of `scope` reads as when it is missing: Copilot CLI's hook files
    /// say their version.
    fn missing(self, scope: Scope) -> &'static str {
        match (self, scope) {
            (Agent::Copilot, Scope::Personal | Scope::Shared) => "{\n  \"version\": 1\n}\n",
            _ => "{}\n",
        }
    }

    /// The host's own setting that makes a hook that fails block the call instead of letting
    /// it run, for the event that guards tool calls; `None`: the host has none, and the hook's
    /// command alone fails closed (see [`hook_command`]).
    fn fail_closed(self, event: &str) -> Option<(&'static str, &'static str)> {
        match (self, event) {
            (Agent::ClaudeCode, "PreToolUse") => Some(("onFailure", "block")),
            _ => None,
        }
    }

    /// The matcher of the hook's group: every tool.
    fn matcher(self) -> Option<&'static str> {
        match self {
            // Codex's matcher is a regular expression; without one, every tool. Copilot CLI's
            // hooks have none.
            Agent::Codex | Agent::Copilot => None,
            _ => Some("*"),
        }
    }

    /// Whether the host has a project settings file of its own that is not committed.
    fn has_personal_file(self) -> bool {
        self == Agent::ClaudeCode
    }

    /// The settings file of `scope`; `home` for the global one.
    fn settings(self, scope: Scope, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
        let home = || {
            home.map(Path::to_path_buf).ok_or_else(|| {
                "HOME is not set, so the user's settings cannot be found".to_string()
            })
        };
        Ok(match (self, scope) {
            (Agent::ClaudeCode, Scope::Personal) => cwd.join(".claude/settings.local.json"),
            (Agent::ClaudeCode, Scope::Shared) => cwd.join(".claude/settings.json"),
            (Agent::ClaudeCode, Scope::Global) => home()?.join(".claude/settings.json"),
            (Agent::GeminiCli, Scope::Global) => home()?.join(".gemini/settings.json"),
            (Agent::GeminiCli, _) => cwd.join(".gemini/settings.json"),
            (Agent::Codex, Scope::Global) => match std::env::var_os("CODEX_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
            {
                Some(codex_home) => codex_home.join("hooks.json"),
                None => home()?.join(".codex/hooks.json"),
            },
            (Agent::Codex, _) => cwd.join(".codex/hooks.json"),
            // A hook file of harness9's own among the repository's hooks; the user's hooks
            // are in Copilot CLI's settings.
            (Agent::Copilot, Scope::Global) => home()?.join(".copilot/settings.json"),
            (Agent::Copilot, _) => cwd.join(".github/hooks/harness9.json"),
        })
    }

    /// The scope a project install without `--shared` really has: the personal file where the
    /// host has one, else the shared one.
    fn scope(self, global: bool, shared: bool) -> Scope {
        if global {
            Scope::Global
        } else if shared || !self.has_personal_file() {
            Scope::Shared
        } else {
            Scope::Personal
        }
    }
}

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// The agent whose settings get the hook.
    #[arg(value_enum)]
    agent: Agent,
    /// The user's settings (`~/.claude/settings.json`, `~/.gemini/settings.json`,
    /// `~/.codex/hooks.json`, `~/.copilot/settings.json`) instead of the project's.
    #[arg(long, conflicts_with = "shared")]
    global: bool,
    /// The project's settings file that a team commits (`.claude/settings.json`): the hook
    /// names `harness9` by name, so that it runs on every teammate's machine. Without it,
    /// Claude Code's hook goes to `.claude/settings.local.json`; Gemini CLI, Codex and Copilot
    /// CLI have no personal project file, so theirs is always the shared one.
    #[arg(long)]
    shared: bool,
    /// Show the settings file as it would be, and write nothing.
    #[arg(long)]
    print: bool,
    /// The project folder (default: the working folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Run what the policy contains in harness9's sandbox (Claude Code and Gemini CLI): the
    /// hook (`harness9 hook claude-code --sandbox`) allows a contained command with its command
    /// rewritten to run under `harness9 sandbox`; where the sandbox does not work, such a
    /// command is asked about. Installing without it takes the option out of a hook that has
    /// it.
    #[arg(long)]
    sandbox: bool,
}

/// The hook's option that runs contained calls under `harness9 sandbox`.
const SANDBOX_OPTION: &str = "--sandbox";

impl Agent {
    /// Whether harness9's hook for this host can rewrite a contained command to run under
    /// `harness9 sandbox` (`--sandbox`); `Err` says why not.
    fn rewrites_commands(self) -> Result<(), String> {
        match self {
            Agent::ClaudeCode | Agent::GeminiCli => Ok(()),
            other => Err(format!(
                "`--sandbox` is for Claude Code and Gemini CLI only: harness9's {} hook does not \
                 rewrite a command to run in the sandbox, so it asks about a call the policy \
                 would run contained (install it without `--sandbox`)",
                other.host()
            )),
        }
    }
}

/// The hook's options with the sandbox option as chosen: `options` without it, and with it at
/// the end when `sandbox`.
fn with_sandbox_option(options: &[String], sandbox: bool) -> Vec<String> {
    let mut kept: Vec<String> = options
        .iter()
        .filter(|o| *o != SANDBOX_OPTION)
        .cloned()
        .collect();
    if sandbox {
        kept.push(SANDBOX_OPTION.to_string());
    }
    kept
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The agent to check (default: every agent; then a problem only when none has the hook).
    #[arg(value_enum)]
    agent: Option<Agent>,
    /// The project folder (default: the working folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn working_folder(cwd: Option<&Path>) -> Result<PathBuf, String> {
    match cwd {
        Some(c) => Ok(c.to_path_buf()),
        None => std::env::current_dir().map_err(|e| format!("the working folder: {e}")),
    }
}

/// A word for the shell: as it is when it needs no quoting, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'+'));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The program the hook runs: `harness9` by name for a shared install, else this binary by its
/// absolute path.
fn hook_program(scope: Scope) -> Result<String, String> {
    if scope == Scope::Shared {
        return Ok(PROGRAM.to_string());
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot tell where this harness9 binary is: {e}"))?;
    Ok(exe.to_string_lossy().into_owned())
}

/// The hook's command, for the shell the host runs it with. It fails closed whatever the host
/// does with a failed hook: a missing `program` stops with exit 2 and a message that says so,
/// and so does a harness9 that ends any other way than with its answer (exit 0) or its own
/// block (exit 2). Every host blocks a call whose hook exits 2, and shows the message.
fn hook_command(agent: Agent, program: &str, options: &[String]) -> String {
    let p = shell_word(program);
    let options: String = options
        .iter()
        .map(|o| format!(" {}", shell_word(o)))
        .collect();
    let missing = if program == PROGRAM {
        "harness9 is not installed here (no harness9 on PATH), so this tool call is blocked: \
         install harness9, or take its hook out of the agent settings"
    } else {
        "harness9 is not found where it was installed, so this tool call is blocked: \
         run harness9 install again, or take its hook out of the agent settings"
    };
    format!(
        "command -v {p} >/dev/null 2>&1 || {{ echo '{missing}' >&2; exit 2; }}; \
         {p} hook {}{options} || exit 2",
        agent.name()
    )
}

/// harness9's hook for an agent, as a hook command has it.
#[derive(Debug, PartialEq, Eq)]
struct Ours {
    /// The program, unquoted (`harness9`, `/opt/h9/harness9`).
    program: String,
    /// The hook's options after the agent's name (`--ask-as deny`), kept by an update.
    options: Vec<String>,
}

/// harness9's hook for `agent` in `command` (any path to it, any form of the command harness9
/// ever wrote: `PROGRAM hook AGENT [OPTIONS]`, alone or in the fail-closed form of
/// [`hook_command`]); `None`: not harness9's hook for that agent.
fn our_hook(command: &str, agent: Agent) -> Option<Ours> {
    let words: Vec<&str> = command.split_whitespace().collect();
    for i in 1..words.len().saturating_sub(1) {
        let name = words[i + 1].trim_end_matches(';');
        if words[i] != "hook" || name != agent.name() {
            continue;
        }
        // The program: the word before, or the quoted words that end there.
        let mut start = i - 1;
        if words[start].ends_with('\'') && !words[start].starts_with('\'') {
            while start > 0 && !words[start].starts_with('\'') {
                start -= 1;
            }
        }
        let program = words[start..i].join(" ");
        let program = program.trim_matches(['\'', '"']).to_string();
        let named = Path::new(&program)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(PROGRAM));
        if !named {
            continue;
        }
        let options = if words[i + 1].ends_with(';') {
            Vec::new()
        } else {
            words[i + 2..]
                .iter()
                .take_while(|w| !matches!(**w, "||" | "&&" | "|" | ";"))
                .map(|w| w.trim_end_matches(';').to_string())
                .collect()
        };
        return Some(Ours { program, options });
    }
    None
}

/// Whether a hook command runs harness9's hook for `agent` (any path to it).
fn is_our_hook(command: &str, agent: Agent) -> bool {
    our_hook(command, agent).is_some()
}

/// Whether a hook command of harness9's is in the fail-closed form [`hook_command`] writes
/// (whatever its program and options).
fn fails_closed(command: &str) -> bool {
    command.starts_with("command -v ") && command.ends_with(" || exit 2")
}

/// What installing did to the settings.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Added,
    Updated(String),
    AlreadyThere,
    Removed(usize),
    NotThere,
}

/// The hook entry `install` writes for `event`: its group (Copilot CLI: the entry).
fn new_group(agent: Agent, event: &str, program: &str, options: &[String]) -> Json {
    let mut hook = vec![
        ("type".to_string(), Json::Str("command".into())),
        (
            agent.layout().command.to_string(),
            Json::Str(hook_command(agent, program, options)),
        ),
    ];
    if agent.layout().flat {
        return Json::Obj(hook);
    }
    if let Some((key, value)) = agent.fail_closed(event) {
        hook.push((key.to_string(), Json::Str(value.into())));
    }
    if agent == Agent::GeminiCli {
        hook.push(("name".to_string(), Json::Str("harness9".into())));
    }
    let mut group = Vec::new();
    if let Some(m) = agent.matcher() {
        group.push(("matcher".to_string(), Json::Str(m.into())));
    }
    group.push(("hooks".to_string(), Json::Arr(vec![Json::Obj(hook)])));
    Json::Obj(group)
}

/// The settings text with the hook installed for every event of `agent`, running `program`,
/// with the sandbox option as `sandbox` says (see [`with_sandbox_option`]; the hook's other
/// options are kept); `None`: already as it should be.
fn with_hook(
    text: &str,
    agent: Agent,
    program: &str,
    sandbox: bool,
) -> Result<(Option<String>, Outcome), String> {
    let mut text = text.to_string();
    let mut outcome = Outcome::AlreadyThere;
    for event in agent.events() {
        let layout = agent.layout();
        let found = hook_settings::entries(&text, event, layout)?
            .into_iter()
            .find_map(|f| our_hook(&f.command, agent).map(|h| (f, h)));
        let Some((found, hook)) = found else {
            let options = with_sandbox_option(&[], sandbox);
            let group = new_group(agent, event, program, &options);
            text = hook_settings::add_group(&text, event, group)?;
            if !matches!(outcome, Outcome::Updated(_)) {
                outcome = Outcome::Added;
            }
            continue;
        };
        let options = with_sandbox_option(&hook.options, sandbox);
        let command = hook_command(agent, program, &options);
        let mut changed = false;
        if found.command != command {
            text =
                hook_settings::set_field(&text, event, found.at, layout, layout.command, &command)?;
            changed = true;
        }
        if let Some((key, value)) = agent.fail_closed(event) {
            if !found.fields.iter().any(|(k, v)| k == key && v == value) {
                text = hook_settings::set_field(&text, event, found.at, layout, key, value)?;
                changed = true;
            }
        }
        if changed {
            outcome = Outcome::Updated(found.command);
        }
    }
    if outcome == Outcome::AlreadyThere {
        return Ok((None, outcome));
    }
    check_parses(&text)?;
    Ok((Some(text), outcome))
}

/// The settings with harness9's hooks for `agent` taken out, the last first, so that what an
/// install added goes as it came: what is left, or `Remove` when nothing is (the file held
/// only what `install` wrote).
fn without_hook(text: &str, agent: Agent, missing: &str) -> Result<(FileEdit, Outcome), String> {
    let mut text = text.to_string();
    let mut removed = 0;
    let layout = agent.layout();
    for event in agent.events().iter().rev() {
        while let Some(found) = hook_settings::entries(&text, event, layout)?
            .into_iter()
            .rev()
            .find(|f| is_our_hook(&f.command, agent))
        {
            text = hook_settings::remove_entry(&text, event, found.at, layout)?;
            removed += 1;
        }
    }
    if removed == 0 {
        return Ok((FileEdit::Keep, Outcome::NotThere));
    }
    check_parses(&text)?;
    let edit = if text.trim() == "{}" || text == missing {
        FileEdit::Remove
    } else {
        FileEdit::Write(text)
    };
    Ok((edit, Outcome::Removed(removed)))
}

/// The edited text must still parse.
fn check_parses(text: &str) -> Result<(), String> {
    jsonc_parser::parse_to_ast(text, &Default::default(), &ParseOptions::default())
        .map(|_| ())
        .map_err(|e| format!("the edit would not parse ({e})"))
}

pub fn install(a: InstallArgs) -> i32 {
    change(a, true)
}

pub fn uninstall(a: InstallArgs) -> i32 {
    change(a, false)
}

fn change(a: InstallArgs, add: bool) -> i32 {
    match try_change(&a, add) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn try_change(a: &InstallArgs, add: bool) -> Result<(), String> {
    let agent = a.agent;
    let scope = agent.scope(a.global, a.shared);
    let cwd = working_folder(a.cwd.as_deref())?;
    let path = agent.settings(scope, &cwd, home().as_deref())?;
    let program = hook_program(scope)?;
    if add && a.sandbox {
        agent.rewrites_commands()?;
    }
    let shown = path.display();
    let edit = |text: &str| {
        if add {
            with_hook(text, agent, &program, a.sandbox).map(|(new, o)| {
                let e = match new {
                    Some(t) => FileEdit::Write(t),
                    None => FileEdit::Keep,
                };
                (e, o)
            })
        } else {
            without_hook(text, agent, agent.missing(scope))
        }
        .map_err(|e| format!("cannot edit `{shown}`: {e}; the file was left as it was"))
    };
    if a.print {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| agent.missing(scope).into());
        match edit(&text)?.0 {
            FileEdit::Write(new) => print!("{new}"),
            FileEdit::Keep => print!("{text}"),
            FileEdit::Remove => println!("(`{shown}` would be removed: nothing else is in it)"),
        }
        return Ok(());
    }
    let mut outcome = Outcome::NotThere;
    edit_file(&path, None, agent.missing(scope), |text| {
        let (e, o) = edit(text).map_err(SettingsError::Edit)?;
        outcome = o;
        Ok(e)
    })
    .map_err(|e| e.to_string())?;
    if !path.exists() {
        // Folders a removed file leaves empty go too (`.github/hooks`, then `.github`), up to
        // the project (or home) itself.
        let base = if scope == Scope::Global {
            home()
        } else {
            Some(cwd.clone())
        };
        let mut dir = path.parent();
        while let Some(d) = dir {
            if Some(d) == base.as_deref() || (d.exists() && std::fs::remove_dir(d).is_err()) {
                break;
            }
            dir = d.parent();
        }
    }
    let event = agent.events().join(" and ");
    let command = hook_command(agent, &program, &with_sandbox_option(&[], a.sandbox));
    let note = add && !matches!(outcome, Outcome::AlreadyThere);
    match outcome {
        Outcome::Added => println!("added the {event} hook `{command}` to {shown}"),
        Outcome::Updated(old) => {
            println!("updated the {event} hook in {shown}: `{old}` is now `{command}`")
        }
        Outcome::AlreadyThere => println!("already installed in {shown}: `{command}`"),
        Outcome::Removed(n) => println!("removed {n} harness9 {event} hook(s) from {shown}"),
        Outcome::NotThere => println!("no harness9 hook in {shown}; nothing changed"),
    }
    if note {
        println!("{}", fails_closed_note(agent, scope));
        if a.sandbox {
            println!("{}", sandbox_note(&harness9::sandbox::support()));
        }
    }
    Ok(())
}

/// What a hook with `--sandbox` does here, by the sandbox's `support` on this machine.
fn sandbox_note(support: &harness9::sandbox::Support) -> String {
    match support {
        harness9::sandbox::Support::Available => "note: with --sandbox, a command the policy \
            runs contained (`sandbox` rules: the shipped default policy's builds, tests, linters \
            and scripts) is allowed with its command rewritten to run under `harness9 sandbox`: \
            no network, writes to the project only"
            .to_string(),
        harness9::sandbox::Support::Unavailable(_) => format!(
            "note: with --sandbox, a command the policy runs contained is rewritten to run under \
             `harness9 sandbox`, but {support}: such a command is asked about instead \
             (harness9 doctor says more)"
        ),
    }
}

/// What an install says about the hook's failures and who it runs for.
fn fails_closed_note(agent: Agent, scope: Scope) -> String {
    let who = match scope {
        Scope::Shared => format!(
            "the file is shared: the hook runs `{PROGRAM}` by name, so every teammate needs \
             harness9 on PATH; without it each call is blocked with a message that says so"
        ),
        Scope::Personal => "the file is yours alone (not committed)".to_string(),
        Scope::Global => "the file is yours, for every project".to_string(),
    };
    let option = match agent {
        Agent::ClaudeCode => {
            "Claude Code blocks the call when the hook cannot start, fails or \
                              times out (\"onFailure\": \"block\", Claude Code 2.1.295 or newer)"
        }
        Agent::GeminiCli => {
            "Gemini CLI has no fail-closed setting: the hook's command blocks \
                             when harness9 is missing or fails; a hook that times out lets the \
                             call run"
        }
        Agent::Copilot => {
            "Copilot CLI denies a call whose hook fails or cannot start; the hook's command \
             blocks too when harness9 is missing"
        }
        Agent::Codex => {
            "Codex has no fail-closed setting: the hook's command blocks when \
                         harness9 is missing or fails; a hook that times out lets the call run. \
                         Codex runs a new or changed hook only once you have trusted it (/hooks)"
        }
    };
    format!("note: {who}; {option}")
}

/// The `install` command that puts right a hook of `scope`.
fn install_hint(agent: Agent, scope: Scope) -> String {
    let flag = match scope {
        Scope::Global => " --global",
        Scope::Shared if agent.has_personal_file() => " --shared",
        _ => "",
    };
    format!("harness9 install {}{flag}", agent.name())
}

/// Where a program is: a path as it is, a bare name searched on `PATH`.
fn locate(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program)).filter(|p| p.is_file());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// The first line a program prints for `--version` within a few seconds, or `None`.
fn version_of(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .env("GEMINI_CLI_NO_RELAUNCH", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(|l| l.trim().to_string())
}

/// A version as `N.N.N`.
type Version = (u64, u64, u64);

/// The first `N.N.N` in a version line.
fn parse_version(line: &str) -> Option<Version> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find_map(|w| {
            let mut parts = w.split('.').map(|p| p.parse::<u64>().ok());
            match (parts.next()?, parts.next()?, parts.next()?) {
                (Some(a), Some(b), Some(c)) => Some((a, b, c)),
                _ => None,
            }
        })
}

/// The host's program, and its first version whose hooks can guard every call as installed
/// (with its fail-closed option, where it has one), with what that version brought.
fn host_minimum(agent: Agent) -> (&'static str, Option<(Version, &'static str)>) {
    match agent {
        Agent::ClaudeCode => (
            "claude",
            Some(((2, 1, 295), "the hooks' \"onFailure\": \"block\"")),
        ),
        // No fail-closed option in any version: the hook's command is the only guard.
        Agent::GeminiCli => ("gemini", None),
        // It fails closed by itself (a hook that errs denies the call); the first version that
        // does is not known, so none is required.
        Agent::Copilot => ("copilot", None),
        Agent::Codex => (
            "codex",
            Some((
                (0, 124, 0),
                "hooks on by default, run for shell, apply_patch and MCP calls",
            )),
        ),
    }
}

pub fn doctor(a: DoctorArgs) -> i32 {
    let cwd = match working_folder(a.cwd.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let version = env!("CARGO_PKG_VERSION");
    println!("harness9 {version}");
    let home = home();
    let agents: Vec<Agent> = match a.agent {
        Some(x) => vec![x],
        None => Agent::ALL.to_vec(),
    };
    let mut problems = 0;
    let mut guarded = 0;
    for &agent in &agents {
        let mut found = 0;
        let mut seen = Vec::new();
        for scope in [Scope::Personal, Scope::Shared, Scope::Global] {
            let Ok(path) = agent.settings(scope, &cwd, home.as_deref()) else {
                continue;
            };
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            let (n, p) = check_settings_file(agent, scope, &path, version);
            found += n;
            problems += p;
        }
        if found == 0 {
            if a.agent.is_some() {
                println!(
                    "problem: {} has no harness9 hook here ({}): its calls are not checked \
                     (fix: {}, or {} for every project)",
                    agent.host(),
                    seen.iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    install_hint(agent, agent.scope(false, false)),
                    install_hint(agent, Scope::Global),
                );
                problems += 1;
                problems += check_host_version(agent);
            } else {
                println!("note: {} has no harness9 hook", agent.host());
            }
            continue;
        }
        guarded += 1;
        problems += check_host_version(agent);
    }
    if a.agent.is_none() && guarded == 0 {
        println!(
            "problem: no agent has harness9's hook, so no call is checked (fix: harness9 \
             install claude-code, gemini-cli, codex or copilot)"
        );
        problems += 1;
    }
    problems += check_policies(&cwd);
    match harness9::audit::audit_path(&cwd) {
        Ok(log) if log.is_file() => println!("the audit log: {}", log.display()),
        Ok(log) => println!("the audit log (none yet): {}", log.display()),
        Err(e) => println!("warning: no audit log: {e}"),
    }
    // Said, not counted as a problem: without a sandbox nothing runs contained, and what a
    // policy would contain is asked instead.
    print!(
        "{}",
        sandbox_report(harness9::sandbox::probe(), &harness9::sandbox::support())
    );
    if problems > 0 {
        println!("{problems} problem(s)");
        1
    } else {
        0
    }
}

/// Checks that the host on PATH is new enough for the hook as installed; a host that is not
/// on PATH is not checked. How many problems.
fn check_host_version(agent: Agent) -> usize {
    let (program, minimum) = host_minimum(agent);
    let Some((min, what)) = minimum else {
        return 0;
    };
    let Some(exe) = locate(program) else {
        println!(
            "note: `{program}` is not on PATH: {}'s version is not checked",
            agent.host()
        );
        return 0;
    };
    let line = version_of(&exe);
    match line.as_deref().and_then(parse_version) {
        Some(v) if v >= min => {
            println!(
                "ok: {} {}.{}.{} ({})",
                agent.host(),
                v.0,
                v.1,
                v.2,
                exe.display()
            );
            0
        }
        Some(v) => {
            println!(
                "problem: {} {}.{}.{} ({}) is older than {}.{}.{}, the first with {what}: a \
                 failing hook may let a call run (fix: update {})",
                agent.host(),
                v.0,
                v.1,
                v.2,
                exe.display(),
                min.0,
                min.1,
                min.2,
                agent.host()
            );
            1
        }
        None => {
            println!(
                "warning: `{} --version` gave no version: cannot tell whether it has {what}",
                exe.display()
            );
            0
        }
    }
}

/// Checks the harness9 hooks of one agent's settings file, when there is one; says what it
/// finds, and returns how many hooks and how many problems.
fn check_settings_file(agent: Agent, scope: Scope, path: &Path, version: &str) -> (usize, usize) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return (0, 0);
    };
    if jsonc_parser::parse_to_ast(&text, &Default::default(), &ParseOptions::default()).is_err() {
        println!(
            "problem: {} does not parse, so {} runs no hook from it",
            path.display(),
            agent.host()
        );
        return (0, 1);
    }
    let mut hooks = 0;
    let mut problems = 0;
    for event in agent.events() {
        let Ok(found) = hook_settings::entries(&text, event, agent.layout()) else {
            println!(
                "problem: {}: `hooks.{event}` is not as {} reads it",
                path.display(),
                agent.host()
            );
            problems += 1;
            continue;
        };
        for f in found {
            let Some(ours) = our_hook(&f.command, agent) else {
                continue;
            };
            hooks += 1;
            let hook = InstalledHook {
                agent,
                scope,
                event,
                at: path,
                command: &f.command,
                program: &ours.program,
                sandbox: ours.options.iter().any(|o| o == SANDBOX_OPTION),
                fail_closed_set: agent
                    .fail_closed(event)
                    .is_none_or(|(k, v)| f.fields.iter().any(|(fk, fv)| fk == k && fv == v)),
            };
            problems += check_hook(&hook, version);
        }
    }
    (hooks, problems)
}

/// A harness9 hook command found in an agent's settings file.
struct InstalledHook<'a> {
    agent: Agent,
    scope: Scope,
    event: &'a str,
    /// The settings file.
    at: &'a Path,
    command: &'a str,
    program: &'a str,
    /// The hook runs contained calls under `harness9 sandbox` (`--sandbox`).
    sandbox: bool,
    /// The host's fail-closed option is set as `install` sets it (or the host has none).
    fail_closed_set: bool,
}

/// Checks that a hook fails closed and starts this harness9; says what it finds, and returns
/// how many problems.
fn check_hook(hook: &InstalledHook, version: &str) -> usize {
    let at = hook.at.display();
    let command = hook.command;
    let event = hook.event;
    let fix = install_hint(hook.agent, hook.scope);
    let mut problems = 0;
    if hook.sandbox && hook.event == hook.agent.events()[0] {
        println!(
            "{}",
            sandbox_hook_report(&at.to_string(), &harness9::sandbox::support())
        );
    }
    if !fails_closed(command) {
        println!(
            "problem: {at}: the {event} hook `{command}` lets the call run when harness9 is \
             missing or fails (fix: {fix})"
        );
        problems += 1;
    }
    if !hook.fail_closed_set {
        let (key, value) = hook.agent.fail_closed(event).unwrap_or(("", ""));
        println!(
            "problem: {at}: the {event} hook has no \"{key}\": \"{value}\", so {} runs the \
             call when the hook times out or cannot start (fix: {fix})",
            hook.agent.host()
        );
        problems += 1;
    }
    let program = hook.program;
    let Some(exe) = locate(program) else {
        let blocked = if fails_closed(command) {
            "every call is blocked"
        } else {
            "the agent runs every call unchecked"
        };
        println!(
            "problem: {at}: the {event} hook runs `{program}`, which is not found: {blocked} \
             (fix: install harness9{}, or {fix})",
            if program == PROGRAM { " on PATH" } else { "" }
        );
        return problems + 1;
    };
    let this = std::env::current_exe().and_then(|p| p.canonicalize()).ok();
    let theirs = exe.canonicalize().ok();
    if this.is_some() && theirs == this {
        println!(
            "ok: {at}: the {event} hook runs this harness9 ({})",
            exe.display()
        );
        return problems;
    }
    let v = version_of(&exe).unwrap_or_else(|| "no answer to --version".to_string());
    println!(
        "problem: {at}: the {event} hook runs {} ({v}), not this harness9 {version}{} \
         (fix: put this harness9 on PATH, or {fix} with it)",
        exe.display(),
        this.map(|t| format!(" ({})", t.display()))
            .unwrap_or_default()
    );
    problems + 1
}

/// What `doctor` says of a hook installed with `--sandbox`, by the sandbox's `support` here.
fn sandbox_hook_report(at: &str, support: &harness9::sandbox::Support) -> String {
    match support {
        harness9::sandbox::Support::Available => format!(
            "ok: {at}: the hook runs contained calls in the sandbox (--sandbox): a command the \
             policy contains runs under `harness9 sandbox`"
        ),
        harness9::sandbox::Support::Unavailable(_) => format!(
            "note: {at}: the hook has --sandbox, but {support}: contained calls are asked \
             about instead"
        ),
    }
}

/// Checks that the project's policies load, and what they answer to `git status`; returns how
/// many problems.
fn check_policies(cwd: &Path) -> usize {
    let project = Project::from_env(cwd.to_path_buf());
    match hooks::project_engine(&project, None, None) {
        Ok((engine, sources)) => {
            if !sources.managed.is_empty() {
                let managed: Vec<String> = sources
                    .managed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                println!("ok: the managed policies load: {}", managed.join(", "));
            }
            let names: Vec<String> = sources
                .settings
                .iter()
                .chain(&sources.policies)
                .map(|s| s.display().to_string())
                .collect();
            let base = if sources.default_policy {
                "the shipped default policy"
            } else {
                "no shipped default policy (a file replaces it)"
            };
            if names.is_empty() {
                println!("ok: no policy file in {}: {base}", cwd.display());
            } else {
                println!("ok: the policies load: {}, on {base}", names.join(", "));
            }
            let d = engine.decide(&ToolCall::primary("bash", "git status"));
            println!(
                "the hook would answer `git status`: {} ({} risk): {}",
                d.action, d.risk, d.reason
            );
            0
        }
        Err(e) => {
            println!("problem: the project's policies do not load: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installing_keeps_other_keys_and_hooks_and_comments() {
        let text = "{\n  // the team's\n  \"model\": \"x\",\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}]}\n}\n";
        let (new, o) = with_hook(text, Agent::ClaudeCode, "/opt/h9/harness9", false).unwrap();
        assert_eq!(o, Outcome::Added);
        let new = new.unwrap();
        assert!(new.contains("// the team's"), "{new}");
        assert!(new.contains("lint-hook"), "{new}");
        assert!(new.contains("\"model\": \"x\""), "{new}");
        assert!(
            new.contains("; /opt/h9/harness9 hook claude-code || exit 2"),
            "{new}"
        );
        assert_eq!(new.matches("\"onFailure\": \"block\"").count(), 1, "{new}");
        // Again: nothing to do.
        let (again, o) = with_hook(&new, Agent::ClaudeCode, "/opt/h9/harness9", false).unwrap();
        assert_eq!((again, o), (None, Outcome::AlreadyThere));
        // Another path: the entry is updated, not doubled.
        let (moved, o) = with_hook(&new, Agent::ClaudeCode, "harness9", false).unwrap();
        assert!(matches!(o, Outcome::Updated(_)), "{o:?}");
        let moved = moved.unwrap();
        // One hook before a tool, one after it (the log records that a call ran).
        assert_eq!(moved.matches("hook claude-code").count(), 2, "{moved}");
        assert!(!moved.contains("/opt/h9"), "{moved}");
        assert!(moved.contains("PostToolUse"), "{moved}");
        // Uninstalled: the file is as it was.
        let (gone, o) = without_hook(&moved, Agent::ClaudeCode, "{}\n").unwrap();
        assert_eq!(o, Outcome::Removed(2));
        assert_eq!(gone, FileEdit::Write(text.to_string()));
    }

    #[test]
    fn our_hook_is_recognised_by_its_program_and_agent_in_every_form() {
        assert!(is_our_hook("harness9 hook claude-code", Agent::ClaudeCode));
        assert!(is_our_hook(
            "/a b/harness9 hook claude-code",
            Agent::ClaudeCode
        ));
        assert!(is_our_hook(
            "'/opt/x/harness9' hook gemini-cli",
            Agent::GeminiCli
        ));
        assert!(!is_our_hook("harness9 hook gemini-cli", Agent::ClaudeCode));
        assert!(!is_our_hook("other hook claude-code", Agent::ClaudeCode));
        assert!(!is_our_hook("hook claude-code", Agent::ClaudeCode));
        for program in ["harness9", "/opt/my tools/harness9"] {
            let c = hook_command(Agent::Codex, program, &["--x".into()]);
            assert_eq!(
                our_hook(&c, Agent::Codex),
                Some(Ours {
                    program: program.to_string(),
                    options: vec!["--x".into()]
                }),
                "{c}"
            );
            assert!(fails_closed(&c), "{c}");
        }
        assert!(!fails_closed("harness9 hook codex"));
    }

    #[test]
    fn a_settings_file_that_is_not_an_object_is_refused() {
        assert!(with_hook("[1, 2]", Agent::ClaudeCode, "harness9", false).is_err());
        assert!(with_hook("{\"hooks\": 3}", Agent::ClaudeCode, "harness9", false).is_err());
        assert!(with_hook(
            "{\"hooks\": {\"PreToolUse\": 1}}",
            Agent::ClaudeCode,
            "harness9",
            false
        )
        .is_err());
    }

    #[test]
    fn versions_are_read_from_the_first_dotted_triple() {
        assert_eq!(parse_version("2.1.332 (Claude Code)"), Some((2, 1, 332)));
        assert_eq!(parse_version("codex-cli 0.171.0"), Some((0, 171, 0)));
        assert_eq!(parse_version("no version"), None);
    }
}

/// What `doctor` says of the sandbox: whether it starts here (`probe`, which runs bubblewrap),
/// whether `check` and the policy see it as available (`support`, the cheap look each decision
/// takes), and so what becomes of a `sandbox` decision.
fn sandbox_report(
    probe: Result<String, harness9::sandbox::SandboxError>,
    support: &harness9::sandbox::Support,
) -> String {
    use harness9::sandbox::Support;
    let asked = "a call a policy runs contained (`sandbox` rules: the shipped default policy's \
                 builds, tests, linters and scripts) is asked about instead";
    match (probe, support) {
        (Ok(how), Support::Available) => format!(
            "ok: the sandbox works ({how}): `harness9 sandbox` runs a command with no network, \
             writing only the project, the temporary folder and its profile's caches; `check` \
             answers a contained call `sandbox`. The agents' hooks ask about such a call (the \
             agent runs its commands itself), except Claude Code's and Gemini CLI's \
             hooks installed with `--sandbox`, which run it under `harness9 sandbox`\n"
        ),
        (Ok(how), Support::Unavailable(why)) => format!(
            "note: the sandbox starts ({how}), but {}; {asked}\n",
            Support::Unavailable(why.clone())
        ),
        (Err(e), _) => {
            format!("note: {e}; `harness9 sandbox` cannot run a command here, and {asked}\n")
        }
    }
}

#[cfg(test)]
mod sandbox_report_tests {
    use super::sandbox_report;
    use harness9::sandbox::{SandboxError, Support};

    #[test]
    fn doctor_says_a_contained_call_is_asked_where_the_sandbox_does_not_work() {
        let r = sandbox_report(
            Err(SandboxError::Unavailable(
                "bubblewrap (`bwrap`) is not installed".into(),
            )),
            &Support::Unavailable("bubblewrap (`bwrap`) is not installed".into()),
        );
        assert!(r.starts_with("note: "), "{r}");
        assert!(r.contains("is asked about instead"), "{r}");
        let r = sandbox_report(
            Ok("bubblewrap 0.9.0".into()),
            &Support::Unavailable("HARNESS9_NO_SANDBOX is set".into()),
        );
        assert!(r.contains("HARNESS9_NO_SANDBOX is set"), "{r}");
        assert!(r.contains("is asked about instead"), "{r}");
        let r = sandbox_report(Ok("bubblewrap 0.9.0".into()), &Support::Available);
        assert!(r.starts_with("ok: the sandbox works"), "{r}");
        assert!(r.contains("answers a contained call `sandbox`"), "{r}");
    }
}
