//! `harness9 hook claude-code`, `gemini-cli`, `codex` and `copilot`: one hook event on standard
//! input, the decision on standard output (for Codex, nothing where it takes no answer), exit 0.
//! Anything that stops a decision (input that is not an event, a working folder that cannot be
//! used, a policy that does not load) is a message on standard error and exit code 2, which
//! every agent takes as "block this call" (for Copilot CLI, which does not show that message,
//! a deny that says why): never an allow.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::Value;

use super::{parse_mode, print_diags, report_load_error, EXIT_USAGE};
use harness9::audit::{self, Caller, DecidedBy, Record, Verdict};
use harness9::hooks::{
    self, claude_code, codex, copilot, gemini_cli, parse_tool_event, EventError, HookCall, Project,
    SetupError, ToolEvent,
};
use harness9::{Decision, Engine, Mode};

#[derive(Args, Debug)]
pub struct HookArgs {
    #[command(subcommand)]
    agent: Agent,
}

#[derive(Subcommand, Debug)]
enum Agent {
    /// Claude Code's PreToolUse hook: event JSON in, `permissionDecision` JSON out.
    ClaudeCode(ClaudeArgs),
    /// Gemini CLI's BeforeTool hook: event JSON in, `decision` JSON out.
    GeminiCli(GeminiArgs),
    /// Codex CLI's PreToolUse and PermissionRequest hooks: a deny in PreToolUse (an ask too,
    /// unless `--ask-as codex`), allow or deny in PermissionRequest (an ask left to its user).
    Codex(CodexArgs),
    /// GitHub Copilot CLI's preToolUse hook: event JSON in, `permissionDecision` JSON out (a
    /// call that cannot be decided is denied, with the reason).
    Copilot(CopilotArgs),
}

#[derive(Args, Debug)]
struct CopilotArgs {
    /// The harness9 mode to decide in.
    #[arg(long, value_parser = parse_mode, default_value = "default")]
    mode: Mode,
    /// Write no audit line.
    #[arg(long)]
    no_audit: bool,
}

#[derive(Args, Debug)]
struct CodexArgs {
    /// The harness9 mode to decide in.
    #[arg(long, value_parser = parse_mode, default_value = "default")]
    mode: Mode,
    /// What an ask becomes in PreToolUse, where Codex takes only a deny: `deny` (the model is
    /// told a person must approve it) or `codex` (Codex's own approval policy decides, and may
    /// run the call in its sandbox without asking).
    #[arg(long, value_enum, default_value = "deny")]
    ask_as: codex::AskAs,
    /// Write no audit line.
    #[arg(long)]
    no_audit: bool,
}

#[derive(Args, Debug)]
struct ClaudeArgs {
    /// Decide in this harness9 mode whatever Claude Code's permission mode is (default:
    /// from the event: bypassPermissions → auto-approve, acceptEdits accepts edits the policy
    /// has no rule for, dontAsk denies what would be asked, others → default).
    #[arg(long, value_parser = parse_mode)]
    mode: Option<Mode>,
    /// Run what the policy contains (`sandbox` rules) under `harness9 sandbox`: a contained
    /// `Bash` or `Monitor` call is allowed with its command rewritten to run in the sandbox.
    /// Where the sandbox does not work, or without this option, such a call is asked about.
    #[arg(long)]
    sandbox: bool,
    /// Write no audit line.
    #[arg(long)]
    no_audit: bool,
}

#[derive(Args, Debug)]
struct GeminiArgs {
    /// The harness9 mode to decide in.
    #[arg(long, value_parser = parse_mode, default_value = "default")]
    mode: Mode,
    /// What an ask becomes: `ask` (Gemini CLI prompts its user; versions before the hooks'
    /// `ask` decision let their own settings decide) or `deny`.
    #[arg(long, value_enum, default_value = "ask")]
    ask_as: gemini_cli::AskAs,
    /// Run what the policy contains (`sandbox` rules) under `harness9 sandbox`: a contained
    /// `run_shell_command` is allowed with its command rewritten to run in the sandbox. Where
    /// the sandbox does not work, or without this option, such a call is asked about.
    #[arg(long)]
    sandbox: bool,
    /// Write no audit line.
    #[arg(long)]
    no_audit: bool,
}

pub fn hook(a: HookArgs) -> i32 {
    let agent = match &a.agent {
        Agent::ClaudeCode(_) => "claude-code",
        Agent::GeminiCli(_) => "gemini-cli",
        Agent::Codex(_) => "codex",
        Agent::Copilot(_) => "copilot",
    };
    // A panic would exit with 101, which both agents take as a non-blocking error: the call
    // would go on. Whatever goes wrong, the answer is exit 2, which blocks it.
    let run = std::panic::AssertUnwindSafe(|| match a.agent {
        Agent::ClaudeCode(c) => claude(c),
        Agent::GeminiCli(g) => gemini(g),
        Agent::Codex(c) => codex_hook(c),
        Agent::Copilot(c) => copilot_hook(c),
    });
    match std::panic::catch_unwind(run) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("harness9 hook {agent}: internal error; the tool call is blocked");
            EXIT_USAGE
        }
    }
}

/// What both adapters share: reading the event, loading the project's engine.
struct Prepared {
    event: ToolEvent,
    /// The event's call, as harness9 names it (`tool_call`).
    call: HookCall,
    /// Every call of the event (one, or a Codex patch's files); the first is `call`.
    calls: Vec<HookCall>,
    project: Project,
    engine: Engine,
}

/// Reads the event and loads the project's engine. With `outcomes` (Claude Code), a
/// `PostToolUse` event (a call that ran) is logged instead (`Some(true)`: with the log off,
/// not even that) and the hook is done: `Err(0)`.
fn prepare(
    agent: &str,
    expected_events: &[&str],
    fallback: &'static str,
    outcomes: Option<bool>,
    tool_calls: fn(&ToolEvent) -> Vec<HookCall>,
) -> Result<Prepared, i32> {
    prepare_with(
        agent,
        expected_events,
        fallback,
        outcomes,
        parse_tool_event,
        tool_calls,
        None,
    )
}

/// [`prepare`] with the host's event parser, and `deny`: the answer that blocks a call that
/// cannot be decided, for a host that does not show a failed hook's message (`None`: the
/// message on standard error and exit 2).
fn prepare_with(
    agent: &str,
    expected_events: &[&str],
    fallback: &'static str,
    outcomes: Option<bool>,
    parse: fn(&str) -> Result<ToolEvent, EventError>,
    tool_calls: fn(&ToolEvent) -> Vec<HookCall>,
    deny: Option<fn(&str) -> Value>,
) -> Result<Prepared, i32> {
    let fail = |msg: String| {
        eprintln!("harness9 hook {agent}: {msg}; the tool call is blocked");
        match deny {
            // Blocked either way: an answer that says why, else exit 2.
            Some(answer_of) => match answer(agent, &answer_of(&msg)) {
                0 => 0,
                _ => EXIT_USAGE,
            },
            None => EXIT_USAGE,
        }
    };
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        return Err(fail(format!(
            "cannot read the event from standard input: {e}"
        )));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(fail("the event on standard input is not UTF-8 text".into()));
    };
    let event = parse(&text).map_err(|e| fail(e.to_string()))?;
    if let (Some(name), Some(no_audit)) = (&event.hook_event_name, outcomes) {
        if name == claude_code::OUTCOME_EVENT {
            if !no_audit {
                record_outcome(agent, &event);
            }
            return Err(0);
        }
    }
    if let Some(name) = &event.hook_event_name {
        if !expected_events.contains(&name.as_str()) {
            return Err(fail(format!(
                "this hook answers {} events, not `{name}`",
                expected_events.join(" and ")
            )));
        }
    }
    let cwd = match &event.cwd {
        Some(c) if !c.is_empty() => PathBuf::from(c),
        _ => match std::env::current_dir() {
            Ok(c) => c,
            Err(e) => {
                return Err(fail(format!(
                    "the event has no `cwd`, and the hook's own working folder is unknown: {e}"
                )))
            }
        },
    };
    // Run where the agent works: relative names in decisions read as in `harness9 check`.
    // A folder that cannot be entered is reported by `project_engine`.
    let _ = std::env::set_current_dir(&cwd);
    let project = Project::from_env(cwd);
    let calls = tool_calls(&event);
    let Some(call) = calls.first().cloned() else {
        return Err(fail("the event holds no call to decide".into()));
    };
    // The engine decides this one tool's calls: the shipped rules of other tools are not
    // compiled (all tools when the calls are of several, as a patch's can be).
    let one_tool = calls.iter().all(|c| c.call.name == call.call.name);
    let for_tool = one_tool.then_some(call.call.name.as_str());
    match hooks::project_engine(&project, Some(fallback), for_tool) {
        Ok((engine, _sources)) => {
            print_diags(engine.warnings().iter().filter(|d| {
                !harness9::policy::EMBEDDED
                    .iter()
                    .any(|(n, _)| *n == &*d.source.name)
            }));
            Ok(Prepared {
                event,
                call,
                calls,
                project,
                engine,
            })
        }
        Err(SetupError::Load(e)) => {
            report_load_error(&e);
            Err(fail(format!(
                "the policy of this project did not load ({e})"
            )))
        }
        Err(e) => Err(fail(e.to_string())),
    }
}

fn claude(a: ClaudeArgs) -> i32 {
    let mut p = match prepare(
        "claude-code",
        &[claude_code::EVENT],
        claude_code::POLICY,
        Some(a.no_audit),
        |e| vec![claude_code::tool_call(e)],
    ) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let call = &p.call.clone();
    let permission_mode = claude_code::PermissionMode::parse(
        p.event.raw.get("permission_mode").and_then(Value::as_str),
    );
    let mode = match a.mode {
        Some(m) => m.as_str().to_string(),
        None => permission_mode.as_str().to_string(),
    };
    let id = claude_code::tool_use_id(&p.event).map(str::to_string);
    let id = id.as_deref();
    if a.sandbox {
        match contain(&mut p, &permission_mode, a.mode) {
            Ok(c) => {
                if !a.no_audit {
                    let record = decision_record("claude-code", &p, id, call, &mode, &c.decision);
                    append_audit("claude-code", &p, record.rewritten(c.command.clone()));
                }
                let code = answer("claude-code", &claude_code::contained_response(&c));
                std::mem::forget(p);
                return code;
            }
            Err(d) => return claude_answer(p, id, &mode, &d, a.no_audit),
        }
    }
    let d = claude_code::decide_tool(&p.engine, call, &permission_mode, a.mode);
    claude_answer(p, id, &mode, &d, a.no_audit)
}

/// With `--sandbox`: how a contained command is rewritten (`harness9` named as the hook's
/// command names it, the event's working folder), with the engine answering `sandbox` where
/// the sandbox works here (a cheap look, no process started; see
/// [`harness9::sandbox::support`]), and asking why not elsewhere. `None`: no command can name
/// harness9, and the engine keeps the host's ask.
fn containment(p: &mut Prepared, agent: &str) -> Option<hooks::Containment> {
    match hooks::program_as_named(std::env::args_os().next().as_deref()) {
        Ok(program) => {
            p.engine.set_sandbox_support(harness9::sandbox::support());
            Some(hooks::Containment {
                program,
                project: p.project.cwd.clone(),
            })
        }
        Err(why) => {
            eprintln!("harness9 hook {agent}: warning: {why}; contained calls are asked");
            None
        }
    }
}

/// Claude Code with `--sandbox`: where the sandbox works here (see [`containment`]), a call the
/// policy contains is rewritten to run under `harness9 sandbox`, named as the hook's command
/// names harness9. Anything else is the decision as without `--sandbox`.
fn contain(
    p: &mut Prepared,
    permission_mode: &claude_code::PermissionMode,
    forced: Option<Mode>,
) -> Result<claude_code::Contained, Decision> {
    let Some(how) = containment(p, "claude-code") else {
        return Err(claude_code::decide_tool(
            &p.engine,
            &p.call,
            permission_mode,
            forced,
        ));
    };
    // Where the sandbox is not available, the engine asks, saying why.
    claude_code::contain(&p.engine, &p.call, &p.event, permission_mode, forced, &how)
}

/// Logs `d` and answers Claude Code with it.
fn claude_answer(p: Prepared, id: Option<&str>, mode: &str, d: &Decision, no_audit: bool) -> i32 {
    if !no_audit {
        write_audit("claude-code", &p, id, &p.call, mode, d);
    }
    let situation = claude_code::situation(|k| std::env::var(k).ok());
    let code = answer("claude-code", &claude_code::response(d, situation));
    // The process ends here: freeing the engine's rules and tables one by one would only
    // delay the agent's call.
    std::mem::forget(p);
    code
}

fn gemini(a: GeminiArgs) -> i32 {
    let mut p = match prepare(
        "gemini-cli",
        &[gemini_cli::EVENT],
        gemini_cli::POLICY,
        None,
        |e| vec![gemini_cli::tool_call(e)],
    ) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let call = &p.call.clone();
    if a.sandbox {
        if let Some(how) = containment(&mut p, "gemini-cli") {
            let d = p.engine.decide_in_mode(&call.call, a.mode);
            match gemini_cli::contain(d, &p.event, &how) {
                Ok(c) => {
                    if !a.no_audit {
                        let mode = a.mode.as_str();
                        let record =
                            decision_record("gemini-cli", &p, None, call, mode, &c.decision);
                        append_audit("gemini-cli", &p, record.rewritten(c.command.clone()));
                    }
                    return answer("gemini-cli", &gemini_cli::contained_response(&c));
                }
                Err(d) => return gemini_answer(&p, call, d, &a),
            }
        }
    }
    let d = p.engine.decide_in_mode(&call.call, a.mode);
    gemini_answer(&p, call, d, &a)
}

/// Logs `d` (a `sandbox` decision asked instead) and answers Gemini CLI with it.
fn gemini_answer(p: &Prepared, call: &HookCall, d: Decision, a: &GeminiArgs) -> i32 {
    let ask_as = a.ask_as;
    let d = hooks::for_host(d);
    let d = hooks::with_asked_reason(d, gemini_cli::ASKED, &call.agent_tool);
    let out = gemini_cli::response(&d, ask_as);
    if !a.no_audit {
        let logged = gemini_cli::effective(d, ask_as);
        write_audit("gemini-cli", p, None, call, a.mode.as_str(), &logged);
    }
    answer("gemini-cli", &out)
}

fn codex_hook(a: CodexArgs) -> i32 {
    let p = match prepare(
        "codex",
        &[codex::PRE_EVENT, codex::PERMISSION_EVENT],
        codex::POLICY,
        None,
        codex::tool_calls,
    ) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let event = p
        .event
        .hook_event_name
        .clone()
        .unwrap_or_else(|| codex::PRE_EVENT.to_string());
    // Each file of a patch is decided (and logged) on its own; the strictest is the answer.
    let decisions: Vec<Decision> = p
        .calls
        .iter()
        .map(|c| {
            let d = hooks::for_host(p.engine.decide_in_mode(&c.call, a.mode));
            hooks::with_asked_reason(d, codex::ASKED, &c.agent_tool)
        })
        .collect();
    if !a.no_audit {
        for (c, d) in p.calls.iter().zip(&decisions) {
            let logged = codex::effective(d.clone(), &event, a.ask_as);
            let id = c.call.id.as_deref();
            write_audit("codex", &p, id, c, a.mode.as_str(), &logged);
        }
    }
    let Some(d) = codex::strictest(decisions) else {
        eprintln!("harness9 hook codex: no decision; the tool call is blocked");
        return EXIT_USAGE;
    };
    let code = match codex::answer(&d, &event, a.ask_as) {
        Some(v) => answer("codex", &v),
        None => 0,
    };
    std::mem::forget(p);
    code
}

fn copilot_hook(a: CopilotArgs) -> i32 {
    let p = match prepare_with(
        "copilot",
        &[copilot::EVENT],
        copilot::POLICY,
        None,
        copilot::parse_event,
        copilot::tool_calls,
        Some(copilot::blocked),
    ) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Each file of a patch is decided (and logged) on its own; the strictest is the answer.
    let decisions: Vec<Decision> = p
        .calls
        .iter()
        .map(|c| {
            let d = hooks::for_host(p.engine.decide_in_mode(&c.call, a.mode));
            hooks::with_asked_reason(d, copilot::ASKED, &c.agent_tool)
        })
        .collect();
    if !a.no_audit {
        for (c, d) in p.calls.iter().zip(&decisions) {
            write_audit("copilot", &p, None, c, a.mode.as_str(), d);
        }
    }
    let out = match codex::strictest(decisions) {
        Some(d) => copilot::response(&d),
        None => copilot::blocked("no decision"),
    };
    let code = answer("copilot", &out);
    std::mem::forget(p);
    code
}

/// Logs that a call ran (Claude Code's PostToolUse): after an ask, the person approved it.
fn record_outcome(agent: &str, event: &harness9::hooks::ToolEvent) {
    let cwd = match event.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => match std::env::current_dir() {
            Ok(c) => c,
            Err(_) => return,
        },
    };
    let call_id = event.raw.get("tool_use_id").and_then(Value::as_str);
    let by = Caller {
        agent,
        session_id: event.session_id.as_deref(),
        call_id,
        tool: &event.tool_name,
    };
    let record = Record::outcome(by, "ran");
    if let Err(e) = audit::append(&cwd, &record) {
        warn_unlogged(agent, &cwd, &e);
    }
}

/// Appends the audit line; a log that cannot be written is a warning, the decision stands.
fn write_audit(
    agent: &str,
    p: &Prepared,
    call_id: Option<&str>,
    call: &HookCall,
    mode: &str,
    d: &Decision,
) {
    let record = decision_record(agent, p, call_id, call, mode, d);
    append_audit(agent, p, record);
}

/// The audit line of a decision.
fn decision_record(
    agent: &str,
    p: &Prepared,
    call_id: Option<&str>,
    call: &HookCall,
    mode: &str,
    d: &Decision,
) -> Record {
    let by = Caller {
        agent,
        session_id: p.event.session_id.as_deref(),
        call_id,
        tool: &call.agent_tool,
    };
    let verdict = Verdict {
        action: d.action,
        risk: d.risk,
        rule: Some(d.rule.clone()),
        reason: d.reason.clone(),
        decided_by: DecidedBy::Rule {
            hook: "policy".into(),
            rule: Some(d.rule.clone()),
        },
    };
    Record::decision(by, &call.call, mode, verdict)
}

/// Appends an audit line; a log that cannot be written is a warning, the decision stands.
fn append_audit(agent: &str, p: &Prepared, record: Record) {
    if let Err(e) = audit::append(&p.project.cwd, &record) {
        warn_unlogged(agent, &p.project.cwd, &e);
    }
}

/// The warning for a line the audit log did not get; the decision stands.
fn warn_unlogged(agent: &str, cwd: &std::path::Path, e: &std::io::Error) {
    match audit::audit_path(cwd) {
        Ok(log) => eprintln!(
            "harness9 hook {agent}: warning: cannot append to the audit log `{}`: {e}",
            log.display()
        ),
        Err(_) => eprintln!("harness9 hook {agent}: warning: no audit log: {e}"),
    }
}

/// Prints the answer; exit 0, or 2 (the call is blocked) when it cannot be written.
fn answer(agent: &str, v: &Value) -> i32 {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{v}").and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("harness9 hook {agent}: cannot write the decision: {e}");
            EXIT_USAGE
        }
    }
}
