//! Adapters that put harness9 in front of agents people already use: Claude Code's
//! `PreToolUse` hook, Gemini CLI's `BeforeTool` hook, Codex CLI's `PreToolUse` and
//! `PermissionRequest` hooks and GitHub Copilot CLI's `preToolUse` hook. Each is a thin translation — the
//! agent's event into a [`ToolCall`], the engine's [`Decision`] into the agent's answer — over
//! one [`Engine`] loaded for the event's working folder ([`project_engine`]). No second matcher.

pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod gemini_cli;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::call::{Action, Decision, ToolCall};
use crate::engine::{Engine, EngineBuilder, LoadError, PathContext};
use crate::sandbox::Support;
use crate::settings::SETTINGS_PATH;

/// Project policy files are `*.policy` in this folder of the working folder.
pub const PROJECT_DIR: &str = ".harness9";
/// User policy files are `*.policy` in this folder of the configuration folder
/// (`$XDG_CONFIG_HOME`, else `~/.config`).
pub const USER_DIR: &str = "harness9";

/// Agents' settings files, which hold the hooks that put harness9 in front of them: writes to
/// them are guarded like the policy's own files. Relative to the working folder and to home.
pub const AGENT_SETTINGS: [&str; 8] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".gemini/settings.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".github/hooks",
    ".copilot/settings.json",
    ".copilot/config.json",
];

/// What an agent's hook event becomes: the call for the engine, plus what the audit log needs.
#[derive(Debug, Clone)]
pub struct HookCall {
    /// The agent's own name for the tool (`Bash`, `run_shell_command`).
    pub agent_tool: String,
    pub call: ToolCall,
}

/// Where the policy of a hook call came from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The managed tier's policy files (`/etc/harness9`, `$HARNESS9_MANAGED_DIR`).
    pub managed: Vec<PathBuf>,
    /// Policy files, project ones first, then the user's.
    pub policies: Vec<PathBuf>,
    pub settings: Option<PathBuf>,
    /// The shipped default policy applies under the policy files (no file replaces it).
    pub default_policy: bool,
}

/// Why no engine could be built for a hook call. Never an allow: the caller blocks the call.
#[derive(Debug)]
pub enum SetupError {
    /// The working folder cannot be used, or a policy folder cannot be listed.
    Folder(String),
    /// A policy or settings file does not load.
    Load(LoadError),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Folder(m) => f.write_str(m),
            SetupError::Load(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SetupError {}

/// Where the hook looks for policies: the working folder of the event, the home folder and the
/// user's configuration folder.
#[derive(Debug, Clone)]
pub struct Project {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// The folder holding the user's `*.policy` files (`~/.config/harness9`).
    pub user_dir: Option<PathBuf>,
}

impl Project {
    /// The project at `cwd`, with home and configuration folder from the environment
    /// (`$HOME`, `$XDG_CONFIG_HOME`).
    pub fn from_env(cwd: impl Into<PathBuf>) -> Project {
        let home = env_path("HOME");
        let config =
            env_path("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
        Project {
            cwd: cwd.into(),
            home,
            user_dir: config.map(|c| c.join(USER_DIR)),
        }
    }
}

/// An absolute path from an environment variable; empty or relative values are ignored, as
/// the XDG specification says.
fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// The managed tier's folder on every machine.
pub const MANAGED_DIR: &str = "/etc/harness9";

/// The environment variable naming one more managed folder (it adds to [`MANAGED_DIR`], never
/// replaces it).
pub const MANAGED_DIR_VAR: &str = "HARNESS9_MANAGED_DIR";

/// The managed tier's folders: [`MANAGED_DIR`] and `$HARNESS9_MANAGED_DIR` (absolute).
pub fn managed_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from(MANAGED_DIR)];
    if let Some(d) = env_path(MANAGED_DIR_VAR) {
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    dirs
}

/// The managed tier's policy files: every `*.policy` of [`managed_dirs`], by name in each.
pub fn managed_policies() -> Result<Vec<PathBuf>, SetupError> {
    let mut files = Vec::new();
    for dir in managed_dirs() {
        files.extend(policy_files(&dir)?);
    }
    Ok(files)
}

/// Adds the managed tier to a builder: its policy files (from [`managed_policies`]), and its
/// folders guarded.
pub fn with_managed(mut b: EngineBuilder, files: &[PathBuf]) -> EngineBuilder {
    for dir in managed_dirs() {
        b = b.guard(dir);
    }
    for f in files {
        b = b.managed_policy_file(f);
    }
    b
}

/// The policy files the hook reads for a project: every `.harness9/*.policy` of its folder (by
/// name), then the user's `*.policy` files. `harness9 check` and `explain` read the same ones.
pub fn discovered_policies(project: &Project) -> Result<Vec<PathBuf>, SetupError> {
    let mut files = policy_files(&project.cwd.join(PROJECT_DIR))?;
    if let Some(dir) = &project.user_dir {
        files.extend(policy_files(dir)?);
    }
    Ok(files)
}

/// Why a hook cannot run a call contained: the host runs it. (Claude Code's hook with
/// `--sandbox` rewrites the command to run under `harness9 sandbox` instead, where the sandbox
/// is available: see [`Containment`] and [`claude_code::contain`].)
pub const HOST_RUNS_COMMANDS: &str =
    "the agent runs its commands itself, outside harness9's sandbox";

/// A word for `bash`: `text` as it is when it is only letters, digits and `/._+-` (not first),
/// else in single quotes, each `'` in it written `'\''`, so that bash reads back exactly
/// `text`, whatever it holds (`$`, `` ` ``, `\`, `!`, new lines). `None` for text with a NUL
/// character, which no argument can carry.
pub fn bash_quoted(text: &str) -> Option<String> {
    if text.contains('\0') {
        return None;
    }
    let plain = !text.starts_with('-')
        && !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'+' | b'-'));
    if plain {
        return Some(text.to_string());
    }
    Some(format!("'{}'", text.replace('\'', r"'\''")))
}

/// The reason a host shows for a call it runs contained, as `d` (a `sandbox` decision) has it.
pub fn runs_contained(d: &Decision) -> String {
    let profile = d.contained().unwrap_or(crate::sandbox::DEFAULT_PROFILE);
    format!(
        "runs contained, in harness9's sandbox (profile `{profile}`: {}): {} ({} risk; \
         harness9 rule {})",
        crate::sandbox::CONTAINED_MEANS,
        d.reason,
        d.risk,
        d.rule
    )
}

/// How a hook that rewrites a host's command runs it contained: `program` as the hook's
/// command names harness9 (`harness9` on `PATH`, or its absolute path), and the project.
#[derive(Debug, Clone)]
pub struct Containment {
    pub program: String,
    pub project: PathBuf,
}

impl Containment {
    /// The command that runs `command` under `harness9 sandbox` with `profile`, in the
    /// project: `PROGRAM sandbox --profile P --cwd PROJECT -- bash -c 'COMMAND'`. `Err` says
    /// why it cannot be written (a NUL character, a project path that is not text).
    pub fn command(&self, profile: &str, command: &str) -> Result<String, String> {
        let project = self.project.to_str().ok_or_else(|| {
            format!(
                "the project path `{}` is not valid text",
                self.project.display()
            )
        })?;
        let word = |w: &str, what: &str| {
            bash_quoted(w).ok_or_else(|| format!("the {what} holds a NUL character"))
        };
        Ok(format!(
            "{} sandbox --profile {} --cwd {} -- bash -c {}",
            word(&self.program, "program's path")?,
            word(profile, "profile")?,
            word(project, "project path")?,
            word(command, "command")?
        ))
    }
}

/// How the running hook was named by the command that started it, for a rewritten command to
/// name harness9 the same way: a bare name (`harness9`, found on `PATH`) as it is, an
/// absolute path as it is, anything else as this binary's absolute path.
pub fn program_as_named(argv0: Option<&std::ffi::OsStr>) -> Result<String, String> {
    if let Some(name) = argv0.and_then(|a| a.to_str()) {
        if !name.is_empty() && (!name.contains('/') || name.starts_with('/')) {
            return Ok(name.to_string());
        }
    }
    std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot tell where this harness9 binary is: {e}"))?
        .to_str()
        .map(str::to_string)
        .ok_or_else(|| "the path of this harness9 binary is not valid text".to_string())
}

/// `d` as a host is answered: a `sandbox` decision is an ask saying why (the hook's engine
/// never gives one, see [`HOST_RUNS_COMMANDS`]; an engine built otherwise must not make a host
/// run a call free, nor hand it a decision it does not know).
pub fn for_host(d: Decision) -> Decision {
    d.asked_instead(&Support::Unavailable(HOST_RUNS_COMMANDS.into()).to_string())
}

/// Builds the engine for a hook call in `project.cwd`: `.harness9/settings.json`, every
/// `.harness9/*.policy` (by name), the user's `*.policy` files, on the shipped default policy
/// plus `fallback` (the shipped policy of the agent's harmless tools) unless a file says
/// `replace "default.policy";`,
/// and the built-in rules. Relative paths resolve against the working folder, `~` against home. The
/// policy folders and the agents' settings files ([`AGENT_SETTINGS`]) are guarded. With
/// `for_tool`, the engine decides calls of that tool only (a hook's one call; see
/// [`crate::EngineBuilder::for_tool`]).
pub fn project_engine(
    project: &Project,
    fallback: Option<&'static str>,
    for_tool: Option<&str>,
) -> Result<(Engine, Sources), SetupError> {
    let cwd = &project.cwd;
    if !cwd.is_absolute() {
        return Err(SetupError::Folder(format!(
            "the working folder `{}` is not an absolute path",
            cwd.display()
        )));
    }
    if let Err(e) = std::fs::read_dir(cwd) {
        return Err(SetupError::Folder(format!(
            "cannot use the working folder `{}`: {e}",
            cwd.display()
        )));
    }
    let mut sources = Sources {
        managed: managed_policies()?,
        policies: discovered_policies(project)?,
        ..Sources::default()
    };
    let settings = cwd.join(SETTINGS_PATH);
    if settings.exists() {
        sources.settings = Some(settings);
    }
    // Files of the working folder are named relative to it when the process runs there, so
    // decisions read `.harness9/team.policy:3`, as `harness9 check` has them.
    let here = std::env::current_dir().ok().filter(|d| d == cwd);
    let named = |p: &Path| match &here {
        Some(d) => p.strip_prefix(d).unwrap_or(p).to_path_buf(),
        None => p.to_path_buf(),
    };
    let mut b = guard_project(
        Engine::builder().context(PathContext::new(cwd.clone(), project.home.clone())),
        cwd,
        project.home.as_deref(),
    );
    if let Some(dir) = &project.user_dir {
        b = b.guard(dir.clone());
    }
    b = with_managed(b, &sources.managed).default_policy();
    if let Some(name) = fallback {
        b = b.default_embedded_policy(name);
    }
    if let Some(tool) = for_tool {
        b = b.for_tool(tool);
    }
    for p in &sources.policies {
        b = b.policy_file(named(p));
    }
    if let Some(s) = &sources.settings {
        b = b.settings_file(named(s));
    }
    let engine = b
        .sandbox(Support::Unavailable(HOST_RUNS_COMMANDS.into()))
        .build()
        .map_err(SetupError::Load)?;
    sources.default_policy = engine.has_shipped_default();
    Ok((engine, sources))
}

/// Guards the project's policy folder (`cwd/.harness9`), harness9's state folder (the audit
/// logs `harness9 suggest` turns into rules) and the agents' settings files
/// ([`AGENT_SETTINGS`]) of the project and of home.
pub fn guard_project(mut b: EngineBuilder, cwd: &Path, home: Option<&Path>) -> EngineBuilder {
    b = b.guard(cwd.join(PROJECT_DIR));
    if let Ok(state) = crate::audit::state_home_in(home) {
        b = b.guard(state);
    }
    for base in std::iter::once(cwd).chain(home) {
        for f in AGENT_SETTINGS {
            b = b.guard(base.join(f));
        }
    }
    b
}

/// The `*.policy` files of a folder, sorted by name; none when the folder does not exist.
fn policy_files(dir: &Path) -> Result<Vec<PathBuf>, SetupError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(SetupError::Folder(format!(
                "cannot list the policy folder `{}`: {e}",
                dir.display()
            )))
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            SetupError::Folder(format!(
                "cannot list the policy folder `{}`: {e}",
                dir.display()
            ))
        })?;
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "policy") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A copy of `input` with `path` set to the first string (or array) found under `keys`, so the
/// engine sees the agent's path argument under the name its file tools and hard protections
/// read. An existing `path` is kept unless `keys` names it later.
fn with_path_from(input: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    let mut args = input.clone();
    if let Some(v) = keys
        .iter()
        .filter_map(|k| input.get(*k))
        .find(|v| v.is_string() || v.is_array())
    {
        args.insert("path".into(), v.clone());
    }
    args
}

/// The reason an agent is shown: the engine's reason, the risk, and the deciding rule.
/// An ask says what it needs, so that a model that gets it (an agent run without a person:
/// `claude -p`, headless Gemini CLI) knows the call did not run and what to do; a deny says
/// the call was not run.
pub fn explain(d: &Decision) -> String {
    let why = format!("{} ({} risk; harness9 rule {})", d.reason, d.risk, d.rule);
    match d.action {
        Action::Ask => format!(
            "needs a person's approval: {why}. If nobody can approve it here, the call was not \
             run: ask the user to approve or run it, or to add a rule for it (harness9 allow, \
             or a policy file)"
        ),
        Action::Deny => format!("{why}; the call was not run"),
        // Not met here: a hook answers a contained call with an ask, or (Claude Code with
        // `--sandbox`) with an allow of the rewritten command, whose reason is
        // [`runs_contained`].
        Action::Sandbox => format!(
            "needs a person's approval: {why}. It may only run contained, which this agent \
             cannot do: ask the user to approve or run it"
        ),
        Action::Allow => why,
    }
}

/// A host's tool that harness9 asks about, and why: the reason a person reads when no rule of
/// any policy decides the tool (the policy's `default` asks). Kept beside the adapter, not as
/// an `ask` rule of the shipped policy, so that a team's `allow WebFetch(…)` still allows it.
pub type Asked = (&'static str, &'static str);

/// `d` with the reason of `tool` from `asked` when the policy's `default` asked about it; any
/// other decision as it is (never loosened, never made stricter).
pub fn with_asked_reason(d: Decision, asked: &[Asked], tool: &str) -> Decision {
    if d.action != Action::Ask || d.rule != crate::rule_ref::RuleRef::Default {
        return d;
    }
    match asked.iter().find(|(t, _)| *t == tool) {
        Some((_, why)) => Decision {
            reason: format!("{why} ({})", d.reason),
            ..d
        },
        None => d,
    }
}

/// Who reads an ask's reason: the person a host's dialog asks, or, in a run nobody attends,
/// the model, which is told the call did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Situation {
    /// A person answers the host's dialog.
    Interactive,
    /// Nobody can answer (`claude -p`): the host denies the ask and the model reads why.
    Headless,
    /// The host does not say: the reason serves both.
    Unknown,
}

/// The reason an agent is shown for `d`, worded for `situation`: an ask in a dialog is a
/// question to the person; in a headless run it says the call was not run and what the user
/// can do.
pub fn explain_for(d: &Decision, situation: Situation) -> String {
    match (d.action, situation) {
        (Action::Ask, Situation::Interactive) => format!(
            "harness9 asks for your approval: {} ({} risk; harness9 rule {})",
            d.reason, d.risk, d.rule
        ),
        (Action::Ask, Situation::Headless) => explain_unasked(d),
        _ => explain(d),
    }
}

/// The reason of an ask that no person will see (a headless run, a host that cannot ask): the
/// call was not run, and the model is told what the user can do.
pub fn explain_unasked(d: &Decision) -> String {
    format!(
        "needs a person's approval: {} ({} risk; harness9 rule {}). The call was not run: ask \
         the user to approve or run it, or to add a rule for it (harness9 allow, or a policy \
         file)",
        d.reason, d.risk, d.rule
    )
}

/// Reads an optional string field of an event; a value of another type is an error naming it.
fn string_field(event: &Map<String, Value>, name: &str) -> Result<Option<String>, EventError> {
    match event.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(EventError::NotAString {
            field: name.to_string(),
            kind: crate::call::json_kind(other).to_string(),
        }),
    }
}

/// Why a hook event is malformed; the tool call it describes is blocked. `kind` is the JSON
/// kind found instead (`an array`).
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("the input is not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("the input must be a JSON object, not {kind}")]
    NotAnObject { kind: String },
    #[error("the event has no `tool_name`")]
    NoToolName,
    #[error("`tool_name` is empty")]
    EmptyToolName,
    #[error("`tool_input` must be a JSON object, not {kind}")]
    InputNotAnObject { kind: String },
    /// The field `field` is there but not a string.
    #[error("`{field}` must be a string, not {kind}")]
    NotAString { field: String, kind: String },
}

/// The fields every agent's tool event has: which tool, its input, where, and which session.
#[derive(Debug, Clone)]
pub struct ToolEvent {
    pub tool_name: String,
    pub tool_input: Map<String, Value>,
    pub cwd: Option<String>,
    pub session_id: Option<String>,
    pub hook_event_name: Option<String>,
    /// The whole event, for agent-specific fields (`permission_mode`, `tool_use_id`).
    pub raw: Map<String, Value>,
}

/// Parses a hook event: a JSON object with a non-empty string `tool_name` and an object
/// `tool_input` (absent means no arguments). Unknown fields are ignored.
pub fn parse_tool_event(text: &str) -> Result<ToolEvent, EventError> {
    let v: Value = serde_json::from_str(text).map_err(EventError::NotJson)?;
    let Value::Object(raw) = v else {
        return Err(EventError::NotAnObject {
            kind: crate::call::json_kind(&v).to_string(),
        });
    };
    let tool_name = match string_field(&raw, "tool_name")? {
        Some(t) if !t.is_empty() => t,
        Some(_) => return Err(EventError::EmptyToolName),
        None => return Err(EventError::NoToolName),
    };
    let tool_input = match raw.get("tool_input") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(EventError::InputNotAnObject {
                kind: crate::call::json_kind(other).to_string(),
            })
        }
    };
    Ok(ToolEvent {
        tool_name,
        tool_input,
        cwd: string_field(&raw, "cwd")?,
        session_id: string_field(&raw, "session_id")?,
        hook_event_name: string_field(&raw, "hook_event_name")?,
        raw,
    })
}

/// An ask where no person can be asked, as the deny it becomes (what the audit log records).
pub fn ask_denied(d: Decision) -> Decision {
    Decision {
        action: Action::Deny,
        reason: format!(
            "needs a person's approval, and none can be asked: {}",
            d.reason
        ),
        ..d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_without_a_tool_name_or_with_a_bad_input_are_rejected() {
        let err = |text: &str| parse_tool_event(text).unwrap_err();
        let e = err("not json");
        assert!(matches!(e, EventError::NotJson(_)), "{e:?}");
        assert!(e.to_string().contains("not valid JSON"), "{e}");
        let e = err("[1]");
        assert!(matches!(e, EventError::NotAnObject { .. }), "{e:?}");
        assert!(e.to_string().contains("JSON object"), "{e}");
        let e = err("{}");
        assert!(matches!(e, EventError::NoToolName), "{e:?}");
        assert!(e.to_string().contains("tool_name"), "{e}");
        let e = err(r#"{"tool_name": 3}"#);
        assert!(matches!(e, EventError::NotAString { .. }), "{e:?}");
        assert!(e.to_string().contains("must be a string"), "{e}");
        let e = err(r#"{"tool_name": "Bash", "tool_input": "ls"}"#);
        assert!(matches!(e, EventError::InputNotAnObject { .. }), "{e:?}");
        assert!(
            e.to_string().contains("`tool_input` must be a JSON object"),
            "{e}"
        );
    }

    /// What `bash -c SCRIPT` prints on standard output.
    fn bash_prints(script: &str) -> Vec<u8> {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(script)
            .env("LC_ALL", "C.UTF-8")
            .output()
            .unwrap();
        assert!(out.status.success(), "{script}: {out:?}");
        out.stdout
    }

    #[test]
    fn a_quoted_word_reads_back_as_the_very_text_in_bash() {
        for text in [
            "",
            "plain",
            "-n",
            "it's",
            "''",
            "a b\tc\nd",
            "$HOME `id` $(id) \\ \" ! !! * ? [a] ~ {a,b} ;|&<>#",
            "'\\''",
            "é — 日本",
        ] {
            let q = bash_quoted(text).unwrap();
            assert_eq!(
                bash_prints(&format!("printf %s {q}")),
                text.as_bytes(),
                "{q}"
            );
        }
        assert_eq!(bash_quoted("a\0b"), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Any text but NUL: `bash -c` of the quoted form gets the exact text back.
        #[test]
        fn any_text_quoted_reads_back_exactly(text in "[^\u{0}]{0,40}") {
            let q = bash_quoted(&text).unwrap();
            proptest::prop_assert_eq!(bash_prints(&format!("printf %s {q}")), text.as_bytes());
        }

        /// The rewritten command hands `harness9 sandbox` exactly its arguments, and the
        /// command to `bash -c` exactly as the model wrote it.
        #[test]
        fn a_rewritten_command_passes_the_exact_command_to_the_sandbox(
            command in "[^\u{0}]{0,40}",
            folder in "[^\u{0}/]{1,12}",
        ) {
            let dir = tempfile::tempdir().unwrap();
            // A program that prints its arguments, each ended by a NUL.
            let program = dir.path().join("args of it's");
            std::fs::write(&program, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
            let how = Containment {
                program: program.to_str().unwrap().to_string(),
                project: PathBuf::from("/p").join(&folder),
            };
            let line = how.command("build", &command).unwrap();
            let printed = bash_prints(&line);
            let args: Vec<&[u8]> = printed.split(|b| *b == 0).collect();
            let project = format!("/p/{folder}");
            let expected: Vec<&[u8]> = vec![
                b"sandbox", b"--profile", b"build", b"--cwd", project.as_bytes(), b"--",
                b"bash", b"-c", command.as_bytes(), b"",
            ];
            proptest::prop_assert_eq!(args, expected);
        }
    }

    #[test]
    fn the_program_is_named_as_the_hooks_command_names_it() {
        use std::ffi::OsStr;
        assert_eq!(
            program_as_named(Some(OsStr::new("harness9"))).unwrap(),
            "harness9"
        );
        assert_eq!(
            program_as_named(Some(OsStr::new("/opt/h9/harness9"))).unwrap(),
            "/opt/h9/harness9"
        );
        // A relative path would change meaning in another folder: this binary's own path.
        let own = program_as_named(Some(OsStr::new("./target/harness9"))).unwrap();
        assert!(own.starts_with('/'), "{own}");
        assert!(program_as_named(None).unwrap().starts_with('/'));
    }

    #[test]
    fn unknown_fields_are_ignored_and_a_missing_input_is_empty() {
        let e = parse_tool_event(r#"{"tool_name": "WebSearch", "whatever": [1, 2]}"#).unwrap();
        assert_eq!(e.tool_name, "WebSearch");
        assert!(e.tool_input.is_empty());
    }
}
