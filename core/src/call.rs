//! Tool calls and decisions: what goes into the engine and what comes out.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::policy::ast::{Action, Risk};
pub use crate::rule_ref::RuleRef;

/// A tool call as an agent makes it: `{"name": "bash", "arguments": {"command": "ls"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// The tools whose primary argument is a path.
pub const FILE_TOOLS: [&str; 4] = ["read_file", "write_file", "edit_file", "list_dir"];

/// Every tool of harness9's own: `bash` and the file tools.
pub fn tool_names() -> impl Iterator<Item = &'static str> + Clone {
    std::iter::once("bash").chain(FILE_TOOLS)
}
/// The tools that change files.
pub const WRITE_TOOLS: [&str; 2] = ["write_file", "edit_file"];
/// Argument names that hold a path, checked against the hard protections for every tool; as
/// [`path_arguments`] finds them, in any case and with or without `_` (`filePath`,
/// `notebookPath`, `workingDirectory`).
pub const PATH_ARGUMENTS: [&str; 9] = [
    "path",
    "file_path",
    "notebook_path",
    "directory",
    "dir",
    "dir_path",
    "paths",
    "cwd",
    "working_directory",
];

/// The values of a tool's path arguments (see [`PATH_ARGUMENTS`]), in that list's order; a name
/// matches in any case, with or without `_` or `-`: tools name the same thing `file_path`,
/// `filePath` and `FilePath`.
pub fn path_arguments(args: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let folded = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let mut found: Vec<(usize, &Value)> = args
        .iter()
        .filter_map(|(k, v)| {
            let k = folded(k);
            let rank = PATH_ARGUMENTS.iter().position(|p| folded(p) == k)?;
            Some((rank, v))
        })
        .collect();
    // Stable: arguments of one rank keep the map's order.
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().map(|(_, v)| v)
}

impl ToolCall {
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            arguments,
        }
    }

    /// A call from a tool name and its primary argument (`bash` + command, file tool + path).
    pub fn primary(name: impl Into<String>, arg: impl Into<String>) -> Self {
        let name = name.into();
        let mut arguments = Map::new();
        if let Some(key) = primary_key(&name) {
            arguments.insert(key.to_string(), Value::String(arg.into()));
        }
        ToolCall {
            id: None,
            name,
            arguments,
        }
    }

    /// The primary argument's value, when the tool has one and it is a string.
    pub fn primary_arg(&self) -> Option<&str> {
        match self.name.as_str() {
            "bash" => self.arguments.get("command").and_then(Value::as_str),
            n if is_file_tool(n) => file_path_arg(&self.arguments),
            _ => None,
        }
    }
}

/// The path argument of a file tool call (`path`, or Claude Code's `file_path`).
pub fn file_path_arg(args: &Map<String, Value>) -> Option<&str> {
    ["path", "file_path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

/// The name of a tool's primary argument.
pub fn primary_key(tool: &str) -> Option<&'static str> {
    match tool {
        "bash" => Some("command"),
        t if is_file_tool(t) => Some("path"),
        _ => None,
    }
}

pub fn is_file_tool(tool: &str) -> bool {
    FILE_TOOLS.contains(&tool)
}

/// What the engine decided about a call, with why and which rule said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    #[serde(rename = "decision")]
    pub action: Action,
    pub risk: Risk,
    pub reason: String,
    /// What decided: a rule's `file:line` (`builtin.policy:12`), `protected:~/.ssh`,
    /// `default`, … (one string in JSON).
    pub rule: RuleRef,
    /// The analysis could not say what the call does whole (a program, subcommand or option no
    /// table knows, a value only known when it runs): no mode approves such an ask without a
    /// person (`"unknown": true` in JSON; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unknown: bool,
    /// The sandbox profile a `sandbox` decision runs the call under (`None` for every other
    /// decision); read it through [`Decision::contained`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

impl Decision {
    pub fn new(action: Action, risk: Risk, reason: impl Into<String>, rule: RuleRef) -> Self {
        Decision {
            action,
            risk,
            reason: reason.into(),
            rule,
            unknown: false,
            profile: None,
        }
    }

    /// A decision to run the call contained, under the sandbox profile `profile`.
    pub fn contained_by(
        risk: Risk,
        reason: impl Into<String>,
        rule: RuleRef,
        profile: impl Into<String>,
    ) -> Self {
        Decision {
            profile: Some(profile.into()),
            ..Decision::new(Action::Sandbox, risk, reason, rule)
        }
    }

    /// The sandbox profile the call is to run under, when the decision is to run it contained
    /// (`sandbox`): the one way for a caller to learn that it must contain the call. A caller
    /// that cannot contain it asks a person instead (see [`Decision::asked_instead`]).
    pub fn contained(&self) -> Option<&str> {
        match self.action {
            Action::Sandbox => Some(
                self.profile
                    .as_deref()
                    .unwrap_or(crate::sandbox::DEFAULT_PROFILE),
            ),
            _ => None,
        }
    }

    /// A `sandbox` decision as an ask, for where the call cannot be run contained; `why` says
    /// why (`the sandbox is not available here: …`). Any other decision is returned as it is.
    /// The risk and `unknown` stay: the person is asked about running the call free.
    pub fn asked_instead(self, why: &str) -> Self {
        if self.action != Action::Sandbox {
            return self;
        }
        let profile = self.contained().unwrap_or_default().to_string();
        Decision {
            action: Action::Ask,
            reason: format!(
                "{why}; it would run contained (sandbox profile `{profile}`): {}",
                self.reason
            ),
            profile: None,
            ..self
        }
    }

    /// The same decision, marked as one about a call the analysis does not know whole.
    pub fn unknown(mut self) -> Self {
        self.unknown = true;
        self
    }

    /// Orders decisions by strictness: deny > ask > sandbox > allow, then by risk.
    pub fn strictness(&self) -> (Action, Risk) {
        (self.action, self.risk)
    }
}

/// How a JSON value is named in messages about a call's arguments (`got a number`).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The harness9 tool a rule's tool name was probably meant to be, when it is not one itself but
/// nearly is: another case (`Bash`), a slip (`bsh`, `read_fle`), or another agent's name for
/// it (`Read`, `Write`, `Edit`, `LS`: the hook adapters translate those). `None` for a tool of
/// harness9's, an MCP tool, or a name not like any (other agents' tools pass through as they
/// are: `Grep`, `WebFetch`).
pub fn likely_tool(name: &str) -> Option<&'static str> {
    const AGENT_NAMES: [(&str, &str); 6] = [
        ("read", "read_file"),
        ("write", "write_file"),
        ("edit", "edit_file"),
        ("multiedit", "edit_file"),
        ("ls", "list_dir"),
        ("shell", "bash"),
    ];
    let tools = tool_names;
    if tools().any(|t| t == name) || name.starts_with("mcp__") || name.contains(['*', '?']) {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    tools()
        .find(|t| *t == lower)
        .or_else(|| {
            AGENT_NAMES
                .iter()
                .find(|(n, _)| *n == lower)
                .map(|(_, t)| *t)
        })
        // A slip keeps the first letter (`bsh`, `read_fle`); another agent's tool that happens
        // to be close (`Task` and `bash`) does not.
        .or_else(|| {
            crate::diag::did_you_mean(&lower, tools())
                .filter(|t| t.as_bytes().first() == lower.as_bytes().first())
        })
}

#[cfg(test)]
mod likely_tool_tests {
    use super::likely_tool;

    #[test]
    fn a_near_miss_of_a_tool_name_gets_the_likely_one() {
        assert_eq!(likely_tool("Bash"), Some("bash"));
        assert_eq!(likely_tool("bsh"), Some("bash"));
        assert_eq!(likely_tool("read_fle"), Some("read_file"));
        assert_eq!(likely_tool("Read"), Some("read_file"));
        assert_eq!(likely_tool("LS"), Some("list_dir"));
        assert_eq!(likely_tool("bash"), None);
        assert_eq!(likely_tool("Grep"), None);
        assert_eq!(likely_tool("Task"), None);
        assert_eq!(likely_tool("Agent"), None);
        assert_eq!(likely_tool("WebFetch"), None);
        assert_eq!(likely_tool("mcp__github__create_issue"), None);
        assert_eq!(likely_tool("mcp__*"), None);
    }
}
