//! `harness9 install AGENT`, `harness9 uninstall AGENT` and `harness9 doctor`: the hook
//! written into the agent's settings with the absolute path of this binary (a hook whose
//! program is not found exits 127, which Claude Code takes as a non-blocking error: the call
//! runs), every other key and hook kept, comments too; and a check that what is installed
//! resolves to this harness9 and that the project's policies load.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, ValueEnum};
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;

use harness9::hooks::{self, Project};
use harness9::runtime::allowlist::{edit_json_file, SettingsError};
use harness9::ToolCall;

/// The agents harness9 installs into.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    GeminiCli,
}

impl Agent {
    const ALL: [Agent; 2] = [Agent::ClaudeCode, Agent::GeminiCli];

    fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::GeminiCli => "gemini-cli",
        }
    }

    /// Every event harness9's hook is installed for: before a tool, and for Claude Code after
    /// one too (the audit log records that an asked call ran).
    fn events(self) -> &'static [&'static str] {
        match self {
            Agent::ClaudeCode => &["PreToolUse", "PostToolUse"],
            Agent::GeminiCli => &["BeforeTool"],
        }
    }

    /// The agent's settings folder (`.claude`, `.gemini`) under `base`.
    fn settings(self, base: &Path) -> PathBuf {
        match self {
            Agent::ClaudeCode => base.join(".claude/settings.json"),
            Agent::GeminiCli => base.join(".gemini/settings.json"),
        }
    }
}

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// The agent whose settings get the hook.
    #[arg(value_enum)]
    agent: Agent,
    /// The user's settings (`~/.claude/settings.json`) instead of the project's.
    #[arg(long)]
    global: bool,
    /// Show the settings file as it would be, and write nothing.
    #[arg(long)]
    print: bool,
    /// The project folder (default: the working folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The project folder (default: the working folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

/// The settings file `a` is about.
fn settings_path(agent: Agent, global: bool, cwd: Option<&Path>) -> Result<PathBuf, String> {
    if global {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .ok_or("HOME is not set, so the user's settings cannot be found")?;
        return Ok(agent.settings(Path::new(&home)));
    }
    let cwd = match cwd {
        Some(c) => c.to_path_buf(),
        None => std::env::current_dir().map_err(|e| format!("the working folder: {e}"))?,
    };
    Ok(agent.settings(&cwd))
}

/// The hook's command: this binary by its absolute path, quoted for the shell the agent runs
/// it with when it needs to be.
fn hook_command(agent: Agent) -> Result<String, String> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot tell where this harness9 binary is: {e}"))?;
    let path = exe.to_string_lossy();
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'+'));
    let program = if plain {
        path.into_owned()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    };
    Ok(format!("{program} hook {}", agent.name()))
}

/// Whether a hook command runs harness9's hook for `agent` (any path to it).
fn is_our_hook(command: &str, agent: Agent) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        [program @ .., "hook", name] if *name == agent.name() && !program.is_empty() => {
            let program = program.join(" ");
            let program = program.trim_matches(['\'', '"']);
            Path::new(program)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("harness9"))
        }
        _ => false,
    }
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

/// The hook entries of `event` in the settings, with the command of each.
fn hook_objects(root: &CstRootNode, event: &str) -> Vec<(CstObject, String)> {
    let mut out = Vec::new();
    let Some(groups) = root
        .object_value()
        .and_then(|o| o.object_value("hooks"))
        .and_then(|h| h.array_value(event))
    else {
        return out;
    };
    for group in groups.elements() {
        let Some(hooks) = group.as_object().and_then(|g| g.array_value("hooks")) else {
            continue;
        };
        for h in hooks.elements() {
            let Some(obj) = h.as_object() else { continue };
            let command = obj
                .get("command")
                .and_then(|p| p.value())
                .and_then(|v| v.as_string_lit())
                .and_then(|s| s.decoded_value().ok());
            if let Some(c) = command {
                out.push((obj, c));
            }
        }
    }
    out
}

/// The settings text with the hook installed for every event of `agent` (`None`: already as
/// it should be).
fn with_hook(text: &str, agent: Agent, command: &str) -> Result<(Option<String>, Outcome), String> {
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| format!("it does not parse ({e})"))?;
    let mut outcome = Outcome::AlreadyThere;
    for event in agent.events() {
        let ours: Vec<(CstObject, String)> = hook_objects(&root, event)
            .into_iter()
            .filter(|(_, c)| is_our_hook(c, agent))
            .collect();
        if ours.iter().any(|(_, c)| c == command) {
            continue;
        }
        if let Some((obj, old)) = ours.first() {
            obj.get("command")
                .ok_or("a hook lost its command")?
                .set_value(CstInputValue::String(command.to_string()));
            outcome = Outcome::Updated(old.clone());
            continue;
        }
        let obj = root
            .object_value()
            .ok_or("its top level is not a JSON object")?;
        let groups = obj
            .object_value_or_create("hooks")
            .ok_or("`hooks` is not an object")?
            .array_value_or_create(event)
            .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
        let mut hook = vec![
            ("type".to_string(), CstInputValue::String("command".into())),
            ("command".to_string(), CstInputValue::String(command.into())),
        ];
        if agent == Agent::GeminiCli {
            hook.push(("name".to_string(), CstInputValue::String("harness9".into())));
        }
        groups.append(CstInputValue::Object(vec![
            ("matcher".to_string(), CstInputValue::String("*".into())),
            (
                "hooks".to_string(),
                CstInputValue::Array(vec![CstInputValue::Object(hook)]),
            ),
        ]));
        if !matches!(outcome, Outcome::Updated(_)) {
            outcome = Outcome::Added;
        }
    }
    if outcome == Outcome::AlreadyThere {
        return Ok((None, outcome));
    }
    Ok((Some(finish(&root)?), outcome))
}

/// The settings text with harness9's hooks for `agent` taken out.
fn without_hook(text: &str, agent: Agent) -> Result<(Option<String>, Outcome), String> {
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| format!("it does not parse ({e})"))?;
    let mut removed = 0;
    for event in agent.events() {
        let ours: Vec<CstObject> = hook_objects(&root, event)
            .into_iter()
            .filter(|(_, c)| is_our_hook(c, agent))
            .map(|(o, _)| o)
            .collect();
        if ours.is_empty() {
            continue;
        }
        removed += ours.len();
        for o in ours {
            o.remove();
        }
        // Groups left without hooks, and the event left without groups, go too.
        let Some(groups) = root
            .object_value()
            .and_then(|o| o.object_value("hooks"))
            .and_then(|h| h.array_value(event))
        else {
            continue;
        };
        for g in groups.elements() {
            let empty = g
                .as_object()
                .and_then(|o| o.array_value("hooks"))
                .is_some_and(|h| h.elements().is_empty());
            if empty {
                g.remove();
            }
        }
        if groups.elements().is_empty() {
            if let Some(p) = root
                .object_value()
                .and_then(|o| o.object_value("hooks"))
                .and_then(|h| h.get(event))
            {
                p.remove();
            }
        }
    }
    if removed == 0 {
        return Ok((None, Outcome::NotThere));
    }
    Ok((Some(finish(&root)?), Outcome::Removed(removed)))
}

/// The edited text, checked to still parse.
fn finish(root: &CstRootNode) -> Result<String, String> {
    let mut out = root.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    CstRootNode::parse(&out, &ParseOptions::default())
        .map_err(|e| format!("the edit would not parse ({e})"))?;
    Ok(out)
}

pub fn install(a: InstallArgs) -> i32 {
    change(a, true)
}

pub fn uninstall(a: InstallArgs) -> i32 {
    change(a, false)
}

fn change(a: InstallArgs, add: bool) -> i32 {
    let path = match settings_path(a.agent, a.global, a.cwd.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let command = match hook_command(a.agent) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let edit = |text: &str| {
        if add {
            with_hook(text, a.agent, &command)
        } else {
            without_hook(text, a.agent)
        }
        .map_err(|e| {
            format!(
                "cannot edit `{}`: {e}; the file was left as it was",
                path.display()
            )
        })
    };
    let shown = path.display();
    if a.print {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "{}\n".into());
        return match edit(&text) {
            Ok((new, _)) => {
                print!("{}", new.unwrap_or(text));
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    let mut outcome = Outcome::NotThere;
    let written = edit_json_file(&path, None, |text| {
        let (new, o) = edit(text).map_err(SettingsError::Edit)?;
        outcome = o;
        Ok(new)
    });
    if let Err(e) = written {
        eprintln!("error: {e}");
        return 1;
    }
    let event = a.agent.events().join(" and ");
    match outcome {
        Outcome::Added => println!("added the {event} hook `{command}` to {shown}"),
        Outcome::Updated(old) => {
            println!("updated the {event} hook in {shown}: `{old}` is now `{command}`")
        }
        Outcome::AlreadyThere => println!("already installed in {shown}: `{command}`"),
        Outcome::Removed(n) => println!("removed {n} harness9 {event} hook(s) from {shown}"),
        Outcome::NotThere => println!("no harness9 hook in {shown}; nothing changed"),
    }
    0
}

/// The program a hook command runs, unquoted, and where it is (`PATH` searched for a bare
/// name).
fn program_of(command: &str) -> (String, Option<PathBuf>) {
    let program = match command.strip_prefix('\'') {
        Some(rest) => rest.split('\'').next().unwrap_or(rest).to_string(),
        None => command.split_whitespace().next().unwrap_or("").to_string(),
    };
    let found = if program.contains('/') {
        Some(PathBuf::from(&program)).filter(|p| p.is_file())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(&program))
                .find(|p| p.is_file())
        })
    };
    (program, found)
}

pub fn doctor(a: DoctorArgs) -> i32 {
    let mut problems = 0;
    let cwd = match &a.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let version = env!("CARGO_PKG_VERSION");
    println!("harness9 {version}");
    for agent in Agent::ALL {
        for global in [false, true] {
            problems += check_settings_file(agent, global, &cwd, version);
        }
    }
    problems += check_policies(&cwd);
    // Said, not counted as a problem: without a sandbox nothing runs contained, and nothing
    // else changes.
    match harness9::sandbox::probe() {
        Ok(how) => println!(
            "ok: the sandbox works ({how}): `harness9 sandbox` runs a command with no network, \
             writing only the project, the temporary folder and its profile's caches"
        ),
        Err(e) => println!("note: {e}; `harness9 sandbox` cannot run a command here"),
    }
    if problems > 0 {
        println!("{problems} problem(s)");
        1
    } else {
        0
    }
}

/// Checks the harness9 hooks of one agent's settings file (the project's, or the global one),
/// when there is one; says what it finds, and returns how many problems.
fn check_settings_file(agent: Agent, global: bool, cwd: &Path, version: &str) -> usize {
    let Ok(path) = settings_path(agent, global, Some(cwd)) else {
        return 0;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return 0;
    };
    let Ok(root) = CstRootNode::parse(&text, &ParseOptions::default()) else {
        println!("problem: {} does not parse", path.display());
        return 1;
    };
    let commands = agent
        .events()
        .iter()
        .flat_map(|e| hook_objects(&root, e))
        .map(|(_, c)| c);
    let mut problems = 0;
    for command in commands {
        if !is_our_hook(&command, agent) {
            continue;
        }
        let hook = InstalledHook {
            agent,
            global,
            at: &path,
            command: &command,
        };
        problems += check_hook(&hook, version);
    }
    problems
}

/// A harness9 hook command found in an agent's settings file.
struct InstalledHook<'a> {
    agent: Agent,
    global: bool,
    /// The settings file.
    at: &'a Path,
    command: &'a str,
}

/// Checks that a hook command starts this harness9, by an absolute path; says what it finds,
/// and returns how many problems.
fn check_hook(hook: &InstalledHook, version: &str) -> usize {
    let command = hook.command;
    let (program, found) = program_of(command);
    let at = hook.at.display();
    let Some(exe) = found else {
        println!(
            "problem: {at}: `{command}`: `{program}` is not found; the agent treats \
             a hook that cannot start as no decision and runs the call \
             (fix: harness9 install {}{})",
            hook.agent.name(),
            if hook.global { " --global" } else { "" }
        );
        return 1;
    };
    let answer = Command::new(&exe).arg("--version").output();
    let theirs = answer
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match theirs {
        Some(v) if v.split_whitespace().last() == Some(version) => {
            let relative = !program.starts_with('/');
            if relative {
                println!(
                    "warning: {at}: `{command}` finds harness9 through PATH; an \
                     agent started with another PATH runs the call unchecked \
                     (harness9 install writes the absolute path)"
                );
            } else {
                println!("ok: {at}: `{command}` ({v})");
            }
            0
        }
        Some(v) => {
            println!("problem: {at}: `{command}` is `{v}`, not harness9 {version}");
            1
        }
        None => {
            println!("problem: {at}: `{command}` does not run (`--version` failed)");
            1
        }
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
        let (new, o) =
            with_hook(text, Agent::ClaudeCode, "/opt/h9/harness9 hook claude-code").unwrap();
        assert_eq!(o, Outcome::Added);
        let new = new.unwrap();
        assert!(new.contains("// the team's"), "{new}");
        assert!(new.contains("lint-hook"), "{new}");
        assert!(new.contains("\"model\": \"x\""), "{new}");
        assert!(new.contains("/opt/h9/harness9 hook claude-code"), "{new}");
        // Again: nothing to do.
        let (again, o) =
            with_hook(&new, Agent::ClaudeCode, "/opt/h9/harness9 hook claude-code").unwrap();
        assert_eq!((again, o), (None, Outcome::AlreadyThere));
        // Another path: the entry is updated, not doubled.
        let (moved, o) = with_hook(
            &new,
            Agent::ClaudeCode,
            "/usr/bin/harness9 hook claude-code",
        )
        .unwrap();
        assert_eq!(
            o,
            Outcome::Updated("/opt/h9/harness9 hook claude-code".into())
        );
        let moved = moved.unwrap();
        // One hook before a tool, one after it (the log records that a call ran).
        assert_eq!(moved.matches("hook claude-code").count(), 2, "{moved}");
        assert!(moved.contains("PostToolUse"), "{moved}");
        // Uninstalled: the team's hook stays.
        let (gone, o) = without_hook(&moved, Agent::ClaudeCode).unwrap();
        assert_eq!(o, Outcome::Removed(2));
        let gone = gone.unwrap();
        assert!(!gone.contains("harness9"), "{gone}");
        assert!(gone.contains("lint-hook"), "{gone}");
    }

    #[test]
    fn our_hook_is_recognised_by_its_program_and_agent() {
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
    }

    #[test]
    fn a_settings_file_that_is_not_an_object_is_refused() {
        assert!(with_hook("[1, 2]", Agent::ClaudeCode, "harness9 hook claude-code").is_err());
        assert!(with_hook(
            "{\"hooks\": 3}",
            Agent::ClaudeCode,
            "harness9 hook claude-code"
        )
        .is_err());
    }
}
