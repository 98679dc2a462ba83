//! harness9: a human-in-the-loop permission engine for AI coding agents. The engine itself is
//! the `harness9-core` crate, re-exported here; this crate adds the agent runtime, the model
//! clients, the TUI, the hook adapters and the command line.
//!
//! An agent's tool calls (`bash`, `read_file`, `write_file`, `edit_file`, MCP tools) are decided
//! — allow, deny, or ask a human — by one [`Engine`] compiled from policy files written in a small
//! declarative language, the seed's `settings.json`, and the built-in protections.
//!
//! ```
//! use harness9::{Action, Engine, ToolCall};
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
//! assert_eq!((d.action, d.risk), (Action::Ask, harness9::Risk::High));
//! ```

// The engine lives in `harness9-core` (no async runtime, UI, HTTP or CLI in its dependency
// tree); its modules are re-exported here under the same names.
pub use harness9_core::{
    call, diag, engine, import, knowledge, lint, policy, rule_ref, settings, shell,
};

pub mod audit;
pub mod hooks;
pub mod lsp;
pub mod model;
pub mod runtime;
pub mod sandbox;
pub mod tui;

pub use call::{Action, Decision, Risk, ToolCall};
pub use engine::paths::PathContext;
pub use engine::{Engine, EngineBuilder, Explanation, LoadError, Mode};
