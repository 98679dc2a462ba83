//! `harness9 check` and `harness9 explain`.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{json, Map, Value};

use super::{parse_mode, PolicyArgs, EXIT_USAGE};
use harness9::engine::Layer;
use harness9::{Decision, Engine, Explanation, Mode, ToolCall};

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

// The options `check` and `explain` share: the policy, the mode, the output, the call's
// arguments. (Not a doc comment: on a flattened struct that would become the command's about.)
#[derive(Args, Debug)]
struct CallArgs {
    #[command(flatten)]
    policy: PolicyArgs,
    /// Permission mode: default, auto-approve, read-only, bypass.
    #[arg(long, value_parser = parse_mode, default_value = "default")]
    mode: Mode,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// All arguments of the call, as a JSON object.
    #[arg(long, value_name = "JSON")]
    args: Option<String>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    call: CallArgs,
    /// Decide a JSONL file of tool calls (`-` for stdin); one JSON decision per line, in order.
    ///
    /// Each line is one call, a JSON object: `name` (the tool), `arguments` (an object of the
    /// tool's arguments, or that object as a JSON string; may be left out), and an optional
    /// `id` (any JSON value) given back with its decision; other fields are ignored. For
    /// example:
    ///
    ///   {"id": 1, "name": "bash", "arguments": {"command": "git status"}}
    ///   {"id": 2, "name": "read_file", "arguments": {"path": "~/.aws/credentials"}}
    ///
    /// gives
    ///
    ///   {"decision":"allow","id":1,"reason":"…","risk":"low","rule":"…"}
    ///   {"decision":"deny","id":2,"reason":"…","risk":"high","rule":"…"}
    ///
    /// A line that is not such a call gets `{"error": "line N: …", "line": N}` saying what was
    /// expected, and the batch goes on; blank lines are skipped.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["tool", "args"],
        verbatim_doc_comment
    )]
    batch: Option<PathBuf>,
    /// The tool name (`bash`, `read_file`, `mcp__github__create_issue`, …).
    #[arg(required_unless_present = "batch")]
    tool: Option<String>,
    /// The primary argument: the command for bash, the path for file tools.
    arg: Option<String>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    #[command(flatten)]
    call: CallArgs,
    tool: String,
    arg: Option<String>,
}

/// Builds the call from the command line, or explains what is wrong.
fn call_from(tool: &str, arg: Option<&str>, args: Option<&str>) -> Result<ToolCall, String> {
    let mut call = match args {
        Some(json) => match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(m)) => ToolCall::new(tool, m),
            Ok(_) => return Err("--args must be a JSON object".into()),
            Err(e) => return Err(format!("--args is not valid JSON: {e}")),
        },
        None => ToolCall::new(tool, Map::new()),
    };
    if let Some(a) = arg {
        match harness9::call::primary_key(tool) {
            Some(key) => {
                call.arguments.insert(key.to_string(), Value::String(a.to_string()));
            }
            None => {
                return Err(format!(
                    "`{tool}` has no primary argument; give its arguments with --args '{{\"name\": \"value\"}}'"
                ))
            }
        }
    }
    Ok(call)
}

fn decision_json(d: &Decision, id: Option<&Value>) -> Value {
    let mut v = json!({"decision": d.action, "risk": d.risk, "reason": d.reason, "rule": d.rule});
    if let Value::Object(m) = &mut v {
        // What the analysis could not read whole is said as such: no mode approves it.
        if d.unknown {
            m.insert("unknown".into(), Value::Bool(true));
        }
        // A contained decision names its profile and what running contained means.
        if let Some(profile) = d.contained() {
            m.insert("profile".into(), Value::String(profile.into()));
            m.insert("contained".into(), Value::String(contained_means(profile)));
        }
        if let Some(id) = id {
            m.insert("id".into(), id.clone());
        }
    }
    v
}

/// What running contained under `profile` means, in one line.
fn contained_means(profile: &str) -> String {
    let caches = harness9::sandbox::profile(profile)
        .filter(|p| !p.caches.is_empty())
        .map(|p| format!(" (and {})", p.caches.join(", ")))
        .unwrap_or_default();
    format!(
        "runs in the sandbox, profile `{profile}`: {}{caches}",
        harness9::sandbox::CONTAINED_MEANS
    )
}

pub fn check(a: CheckArgs) -> i32 {
    let engine = match a.call.policy.engine() {
        Ok(e) => e,
        Err(code) => return code,
    };
    if let Some(batch) = &a.batch {
        return run_batch(&engine, batch, a.call.mode);
    }
    let Some(tool) = a.tool.as_deref() else {
        eprintln!("error: give a TOOL, or --batch FILE");
        return EXIT_USAGE;
    };
    let call = match call_from(tool, a.arg.as_deref(), a.call.args.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let d = engine.decide_in_mode(&call, a.call.mode);
    match a.call.format {
        Format::Json => println!("{}", decision_json(&d, None)),
        Format::Text => {
            let unknown = if d.unknown { ", unknown" } else { "" };
            println!("{} ({} risk{unknown})", d.action, d.risk);
            if let Some(profile) = d.contained() {
                println!("how:    {}", contained_means(profile));
            }
            println!("reason: {}", d.reason);
            println!("rule:   {}", d.rule);
        }
    }
    0
}

fn run_batch(engine: &Engine, path: &PathBuf, mode: Mode) -> i32 {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                return EXIT_USAGE;
            }
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (i, line) in reader.split(b'\n').enumerate() {
        let n = i + 1;
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: reading line {n}: {e}");
                return EXIT_USAGE;
            }
        };
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let v = match batch_line(&text) {
            Ok((call, id)) => decision_json(&engine.decide_in_mode(&call, mode), id.as_ref()),
            Err(e) => json!({"error": format!("line {n}: {e}"), "line": n}),
        };
        if writeln!(out, "{v}").is_err() {
            return 0; // stdout closed: nobody is reading any more.
        }
    }
    let _ = out.flush();
    0
}

/// A batch line as it should be, for messages about one that is not.
const BATCH_EXAMPLE: &str = r#"{"name": "bash", "arguments": {"command": "git status"}, "id": 1}"#;

/// What a JSON value is, for messages (`a string`, `an array`).
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One batch line: `{"name": …, "arguments": {…}, "id": …}`; unknown fields are ignored. A
/// line of another shape is an error that says what was expected.
fn batch_line(text: &str) -> Result<(ToolCall, Option<Value>), String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("invalid JSON ({e}); each line is one call, like {BATCH_EXAMPLE}"))?;
    let Value::Object(mut m) = v else {
        return Err(format!(
            "expected a JSON object, found {}; each line is one call, like {BATCH_EXAMPLE}",
            json_kind(&v)
        ));
    };
    let id = m.remove("id");
    let name = match m.remove("name") {
        Some(Value::String(s)) if !s.is_empty() => s,
        Some(v) => {
            return Err(format!(
                "`name` must be the tool's name, a non-empty string; found {}",
                json_kind(&v)
            ))
        }
        None => {
            // Other shapes a call comes in: a hook's input, or fields named otherwise.
            let other = ["tool_name", "tool", "function"]
                .into_iter()
                .find(|k| m.contains_key(*k));
            let hint = match other {
                Some(k) => format!(
                    " (found `{k}`: the tool's name goes in `name`, its arguments in `arguments`)"
                ),
                None => String::new(),
            };
            return Err(format!(
                "missing `name`{hint}; each line is one call, like {BATCH_EXAMPLE}"
            ));
        }
    };
    let wrong_arguments = |found: &str| {
        format!(
            "`arguments` must be a JSON object of the tool's arguments (like {{\"command\": \"git status\"}}); found {found}"
        )
    };
    let arguments = match m.remove("arguments") {
        Some(Value::Object(a)) => a,
        None | Some(Value::Null) => Map::new(),
        // Some agents send arguments as a JSON string.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(a)) => a,
            Ok(v) => {
                return Err(wrong_arguments(&format!(
                    "a string holding {}",
                    json_kind(&v)
                )))
            }
            Err(_) => return Err(wrong_arguments("a string that is not JSON")),
        },
        Some(v) => return Err(wrong_arguments(json_kind(&v))),
    };
    Ok((ToolCall::new(name, arguments), id))
}

pub fn explain(a: ExplainArgs) -> i32 {
    let engine = match a.call.policy.engine() {
        Ok(e) => e,
        Err(code) => return code,
    };
    let call = match call_from(&a.tool, a.arg.as_deref(), a.call.args.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let ex = engine.explain(&call);
    let final_decision = engine.decide_in_mode(&call, a.call.mode);
    match a.call.format {
        Format::Json => println!("{}", explanation_json(&ex, &final_decision, a.call.mode)),
        Format::Text => print!(
            "{}",
            explanation_text(&call, &ex, &final_decision, a.call.mode)
        ),
    }
    0
}

fn explanation_json(ex: &Explanation, d: &Decision, mode: Mode) -> Value {
    json!({
        "failure": ex.failure,
        "parts": ex.parts.iter().map(|p| json!({
            "subject": p.subject,
            "origin": p.origin,
            "effects": p.effects,
            "matches": p.hits.iter().map(|h| json!({
                "layer": h.layer.as_str(),
                "rule": h.decision.rule,
                "text": h.text,
                "decision": h.decision.action,
                "risk": h.decision.risk,
                "deciding": h.deciding,
            })).collect::<Vec<_>>(),
            "decision": decision_json(&p.decision, None),
        })).collect::<Vec<_>>(),
        "mode": mode.as_str(),
        "decision": decision_json(d, None),
    })
}

fn explanation_text(call: &ToolCall, ex: &Explanation, d: &Decision, mode: Mode) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let arg = call
        .primary_arg()
        .map(|a| format!(" {}", serde_json::to_string(a).unwrap_or_default()))
        .unwrap_or_default();
    let _ = writeln!(out, "call: {}{}", call.name, arg);
    if let Some(f) = &ex.failure {
        let _ = writeln!(
            out,
            "analysis: {f}; judging the words as written, at least ask (high)"
        );
    }
    if call.name == "bash" {
        // The commands of the line; the guard on the policy's files is a part of its own.
        let commands = ex
            .parts
            .iter()
            .filter(|p| !p.hits.iter().any(|h| h.layer == Layer::Guard))
            .count();
        let _ = writeln!(out, "parts: {commands}");
    }
    for (i, p) in ex.parts.iter().enumerate() {
        let origin = p.origin.map(|o| format!("  ({o})")).unwrap_or_default();
        let _ = writeln!(out, "{}. {}{}", i + 1, p.subject, origin);
        if !p.effects.is_empty() {
            let _ = writeln!(out, "   effects: {}", p.effects.join("; "));
        }
        for h in &p.hits {
            let mark = if h.deciding {
                "  <- decides its layer"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "   {:<15} {:<5} {:<6} {:<24} {}{}",
                h.layer.as_str(),
                h.decision.action,
                h.decision.risk,
                h.decision.rule,
                h.text,
                mark
            );
        }
        let _ = writeln!(
            out,
            "   => {} ({} risk): {}",
            p.decision.action, p.decision.risk, p.decision.reason
        );
    }
    if ex.parts.len() > 1 {
        let _ = writeln!(
            out,
            "combined: the strictest part wins (deny > ask > sandbox > allow, then higher risk)"
        );
    }
    if mode != Mode::Default {
        let _ = writeln!(out, "mode: {mode}");
    }
    let unknown = if d.unknown {
        ", unknown: not understood whole, so no mode approves it"
    } else {
        ""
    };
    let _ = writeln!(out, "decision: {} ({} risk{unknown})", d.action, d.risk);
    if let Some(profile) = d.contained() {
        let _ = writeln!(out, "how:      {}", contained_means(profile));
    }
    let _ = writeln!(out, "reason:   {}", d.reason);
    let _ = writeln!(out, "rule:     {}", d.rule);
    out
}
