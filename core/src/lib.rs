//! harness9-core: the policy engine of harness9, a human-in-the-loop permission engine for AI
//! coding agents.
//!
//! An agent's tool calls (`bash`, `read_file`, `write_file`, `edit_file`, MCP tools) are decided
//! — allow, deny, or ask a human — by one [`Engine`] compiled from policy files written in a small
//! declarative language ([`policy`]), `settings.json` rules ([`settings`]), the shipped default
//! policy and the built-in protections. Bash commands are read by a real shell parser
//! ([`shell`]) and the program knowledge of [`knowledge`]; [`lint`] checks policy files.
//!
//! This crate has no async runtime, terminal UI, HTTP client or command line: the `harness9`
//! crate builds the agent runtime, the TUI, the hook adapters and the CLI on it.
//!
//! ```
//! use harness9_core::{Action, Engine, ToolCall};
//!
//! let engine = Engine::builder()
//!     .policy_text("team.policy", r#"
//!         allow bash("git *") unless prefix "git push";
//!         deny  read_file("secrets/**") reason "team secrets";
//!         default ask risk low;
//!     "#)
//!     .build()
//!     .expect("the policy loads");
//!
//! assert_eq!(engine.decide(&ToolCall::primary("bash", "git status")).action, Action::Allow);
//! assert_eq!(engine.decide(&ToolCall::primary("bash", "git push origin main")).action, Action::Ask);
//! // Each part of a compound command is judged: the built-in rules catch the second one.
//! let d = engine.decide(&ToolCall::primary("bash", "git status && rm -rf /"));
//! assert_eq!((d.action, d.risk), (Action::Ask, harness9_core::Risk::High));
//! ```

pub mod call;
pub mod command;
pub mod diag;
pub mod engine;
pub mod import;
pub mod knowledge;
pub mod lint;
pub mod policy;
pub mod rule_ref;
pub mod sandbox;
pub mod settings;
pub mod shell;

pub use call::{Action, Decision, Risk, ToolCall};
pub use engine::paths::PathContext;
pub use engine::{Engine, EngineBuilder, Explanation, LoadError, Mode};
pub use rule_ref::RuleRef;
