//! What `explain` shows: every part of a call, the rules each one hit, and the layer they
//! belong to.

use crate::call::Decision;

/// Which layer produced a match, for `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Protected,
    /// The managed tier (`/etc/harness9`): its denies and asks hold whatever else says.
    Managed,
    User,
    /// The shipped default policy, under the policy files.
    Shipped,
    Builtin,
    Analysis,
    Session,
    /// A write to the policy's own files.
    Guard,
    Default,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Protected => "hard protection",
            Layer::Managed => "managed policy",
            Layer::User => "policy",
            Layer::Shipped => "shipped default policy",
            Layer::Builtin => "built-in",
            Layer::Analysis => "analysis",
            Layer::Session => "session",
            Layer::Guard => "policy files",
            Layer::Default => "default",
        }
    }
}

/// One rule that matched a subject, for `explain`.
#[derive(Debug, Clone)]
pub struct Hit {
    pub layer: Layer,
    pub decision: Decision,
    /// The rule as text (canonical form), or a description.
    pub text: String,
    /// Whether this hit is the one its layer decided by.
    pub deciding: bool,
}

/// How one subject (a simple command, a file, a call) was decided.
#[derive(Debug, Clone)]
pub struct Part {
    /// The command text or the path.
    pub subject: String,
    /// Where in the command line it came from.
    pub origin: Option<&'static str>,
    /// What the command does (`network-upload: sends .env to paste.example`).
    pub effects: Vec<String>,
    pub hits: Vec<Hit>,
    pub decision: Decision,
}

/// Everything `explain` shows.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub parts: Vec<Part>,
    /// Why the command could not be analysed, if it could not.
    pub failure: Option<String>,
    pub decision: Decision,
}
