//! "Always allow" proposals: the narrowest settings.json rules that still help.
//!
//! - A command with a subcommand gets program plus subcommand: `bash(git commit *)`, and for
//!   the run-like subcommands the script too: `bash(npm run test *)`. A trailing ` *` also
//!   matches the words alone, so the rule covers `git commit` as well.
//! - A few programs that only create or read get the program: `bash(mkdir *)`.
//! - Everything else — interpreters, shells and wrappers (`python`, `bash -c`, `sudo`, `env`),
//!   a program with no subcommand where one is expected (bare `git`), risky subcommands
//!   (`git push`, `git reset`), assignments, and every high-risk call — gets the exact command
//!   only: `bash(exact 'rm -rf build')`.
//! - A compound command gets one rule per part that is not already allowed, and a proposal
//!   only when together the rules make the engine allow the whole call (checked, not assumed).
//! - A part that writes through a redirection gets no proposal: a rule cannot say where to.

use std::path::Path;

use serde_json::Value;

use super::Proposal;
use crate::call::{is_file_tool, Action, Decision, Risk, ToolCall};
use crate::engine::paths::has_meta;
use crate::engine::{Engine, Mode};
use crate::shell::{self, SimpleCommand, View};

/// Programs with subcommands: a rule names the subcommand too.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "npm",
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
    "docker",
    "podman",
    "kubectl",
    "helm",
    "gh",
    "make",
    "just",
    "dotnet",
    "mvn",
    "gradle",
    "bundle",
    "rake",
    "mix",
    "composer",
    "deno",
    "apt",
    "apt-get",
    "brew",
    "systemctl",
    "terraform",
];

/// Subcommands that run a named script: the script is part of the rule.
const RUN_LIKE: &[&str] = &["run", "run-script", "exec", "x", "script"];

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
];

/// Programs that run what they are given (or whose arguments are code): exact only.
const RUNS_CODE: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python2",
    "python3",
    "node",
    "deno",
    "perl",
    "ruby",
    "php",
    "lua",
    "Rscript",
    "osascript",
    "pwsh",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "sudo",
    "doas",
    "su",
    "env",
    "nice",
    "nohup",
    "timeout",
    "time",
    "xargs",
    "exec",
    "eval",
    "source",
    ".",
    "ssh",
    "watch",
    "strace",
    "chroot",
    "setsid",
    "stdbuf",
    "find",
    "command",
    "builtin",
    "busybox",
    "script",
];

/// Programs that only create or read: a rule may name the program alone.
const PROGRAM_ONLY: &[&str] = &[
    "mkdir", "touch", "ls", "cat", "head", "tail", "wc", "grep", "rg", "diff", "tree", "pwd",
    "which", "echo", "printf", "sort", "uniq", "cut", "tr", "jq", "date", "du", "df", "file",
    "stat", "basename", "dirname", "realpath",
];

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
        tool if !high && valid_tool_name(tool) => vec![tool.to_string()],
        _ => return None,
    };
    if rules.is_empty() {
        return None;
    }
    let exact = rules.iter().all(|r| r.contains("(exact "));
    // The proposal must really make the call allowed; otherwise it would be a false promise.
    let chain = engine.compile_allow_rules("proposal", &rules).ok()?;
    let check = engine.decide_with_session(call, Mode::Default, Some(&chain));
    (check.action == Action::Allow).then_some(Proposal { rules, exact })
}

fn bash_rules(engine: &Engine, call: &ToolCall, high: bool) -> Option<Vec<String>> {
    let command = call.arguments.get("command").and_then(Value::as_str)?;
    let analysis = shell::analyse(command);
    if analysis.failure.is_some() || analysis.commands.is_empty() {
        return None;
    }
    let explained = engine.explain(call);
    if explained.parts.len() != analysis.commands.len() {
        return None;
    }
    let mut rules: Vec<String> = Vec::new();
    for (cmd, part) in analysis.commands.iter().zip(&explained.parts) {
        match part.decision.action {
            Action::Allow => continue,
            Action::Deny => return None,
            Action::Ask => {}
        }
        let rule = command_rule(cmd, high || part.decision.risk == Risk::High)?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    Some(rules)
}

/// The rule for one simple command.
pub fn command_rule(cmd: &SimpleCommand, high: bool) -> Option<String> {
    if cmd.redirects.iter().any(|r| r.writes() && !harmless(r)) {
        return None;
    }
    let text = cmd.text(View::Literal);
    if text.trim().is_empty() || text.contains('\n') {
        return None;
    }
    let exact = || Some(format!("bash(exact {})", quote(&text)));
    let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    let dynamic = cmd.argv.iter().any(|w| w.dynamic);
    let Some(&program) = words.first() else {
        return exact();
    };
    if high || dynamic || !cmd.assignments.is_empty() || program.contains('/') {
        return exact();
    }
    if RUNS_CODE.contains(&program) || program.starts_with("python") {
        return exact();
    }
    let plain = |w: &str| {
        !w.is_empty()
            && !w.starts_with('-')
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '@'))
    };
    if SUBCOMMAND_PROGRAMS.contains(&program) {
        let Some(&sub) = words.get(1).filter(|w| plain(w)) else {
            return exact();
        };
        // Container tools' `exec`/`run` run any command: they are wrappers.
        let container = matches!(program, "docker" | "podman" | "kubectl" | "helm");
        if RISKY_SUBCOMMANDS.contains(&sub)
            || (container && matches!(sub, "exec" | "run" | "debug" | "attach"))
        {
            return exact();
        }
        if RUN_LIKE.contains(&sub) {
            return match words.get(2).filter(|w| plain(w)) {
                Some(script) => Some(format!("bash({program} {sub} {script} *)")),
                None => exact(),
            };
        }
        return Some(format!("bash({program} {sub} *)"));
    }
    if PROGRAM_ONLY.contains(&program) {
        return Some(format!("bash({program} *)"));
    }
    exact()
}

fn harmless(r: &shell::Redirect) -> bool {
    let target = r.target.value.as_str();
    // `>&2` duplicates a descriptor; `>& file` writes a file.
    let dup = r.op.ends_with('&') && (target == "-" || target.chars().all(|c| c.is_ascii_digit()));
    dup || matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

/// A file tool's rule: the folder (`edit_file(src/**)`) inside the working folder, else the
/// exact path; high risk gets the exact path.
fn file_rule(engine: &Engine, tool: &str, raw: &str, high: bool) -> Option<String> {
    if raw.is_empty() || has_meta(raw) || raw.contains([')', '(', '\n']) {
        return None;
    }
    let ctx = engine.context();
    let resolved = ctx.resolve(raw);
    let inside = resolved.strip_prefix(&ctx.cwd).ok();
    let rel = match inside {
        Some(r) if !r.as_os_str().is_empty() => r,
        _ => return Some(format!("{tool}({})", resolved.display())),
    };
    let folder = rel.parent().filter(|p| !p.as_os_str().is_empty());
    match folder {
        Some(f) if !high => Some(format!("{tool}({}/**)", slash(f))),
        _ => Some(format!("{tool}({})", slash(rel))),
    }
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

/// A policy-language string: raw `'…'` when it can be, else a JSON string.
fn quote(s: &str) -> String {
    if s.contains('\'') {
        Value::String(s.to_string()).to_string()
    } else {
        format!("'{s}'")
    }
}
