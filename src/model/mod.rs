//! Models the agent talks to: an OpenAI-compatible chat-completions client, and a scripted demo
//! model that runs offline. Both speak the same small conversation format.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::runtime::CancelToken;

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ModelToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// A tool call as the model wrote it. `arguments` is the model's raw JSON text: it may be
/// malformed, and the agent answers that with an error result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A tool the model may call: name, description and JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The model's reply for one step of a turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub content: String,
    pub tool_calls: Vec<ModelToolCall>,
}

/// Streamed while a reply is produced, for the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    Text(String),
    /// The tokens the server says the request used so far (prompt and completion), when it
    /// reports them.
    Usage(u64),
}

/// Why a model produced no reply; shown in the conversation, never a crash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

#[async_trait]
pub trait Model: Send + Sync {
    /// A short name for the status bar (`demo`, `gpt-4o-mini @ api.openai.com`).
    fn name(&self) -> String;

    /// The next reply to `messages`. Text is streamed on `deltas` as it arrives; the returned
    /// reply holds all of it. Cancelling `cancel` ends the request early with an error.
    async fn reply(
        &self,
        messages: &[Message],
        tools: &[ToolSpec],
        deltas: &mpsc::UnboundedSender<Delta>,
        cancel: &CancelToken,
    ) -> Result<Reply, ModelError>;
}

pub mod config;
pub mod demo;
pub mod openai;
