//! What the TUI shows: the conversation, the input line, the queue of approvals and the dialog.
//! Plain data: [`super::update()`] changes it, [`super::render`] draws it.

use std::collections::VecDeque;

use serde_json::Value;

use super::i18n::Lang;
use crate::call::{is_file_tool, Risk, ToolCall};
use crate::engine::Mode;
use crate::runtime::{ApprovalRequest, Proposal, ResultStatus};

/// One line of the conversation (it may wrap to many rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// What the person typed.
    User(String),
    /// The model's text.
    Assistant(String),
    /// A tool call the model made: the tool and its arguments as shown.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// What a tool call produced (or why it did not run).
    ToolResult {
        id: String,
        name: String,
        status: ResultStatus,
        content: String,
    },
    /// Something the runtime says (a rule was written, a policy reloaded).
    Notice(String),
    /// A model error, a policy that does not load, …
    Error(String),
}

/// What the dialog shows as "the command or path itself".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    Command,
    Path,
    Arguments,
}

/// An approval request as the dialog shows it. The request itself (with its responder) stays
/// with the app loop; the dialog answers by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalView {
    pub id: u64,
    pub tool: String,
    pub kind: SubjectKind,
    /// The command, the path, or the arguments as JSON.
    pub subject: String,
    pub reason: String,
    pub risk: Risk,
    pub rule: Option<String>,
    /// What "always allow" would write; `None` disables option 3.
    pub proposal: Option<Proposal>,
}

impl ApprovalView {
    pub fn from_request(req: &ApprovalRequest) -> Self {
        Self::new(
            req.id,
            &req.call,
            &req.reason,
            req.risk,
            req.rule.clone(),
            req.proposal.clone(),
        )
    }

    pub fn new(
        id: u64,
        call: &ToolCall,
        reason: &str,
        risk: Risk,
        rule: Option<String>,
        proposal: Option<Proposal>,
    ) -> Self {
        let (kind, subject) = match call.primary_arg() {
            Some(arg) if call.name == "bash" => (SubjectKind::Command, arg.to_string()),
            Some(arg) if is_file_tool(&call.name) => (SubjectKind::Path, arg.to_string()),
            _ => (
                SubjectKind::Arguments,
                Value::Object(call.arguments.clone()).to_string(),
            ),
        };
        ApprovalView {
            id,
            tool: call.name.clone(),
            kind,
            subject,
            reason: reason.to_string(),
            risk,
            rule,
            proposal,
        }
    }

    /// Whether option 3 can be chosen.
    pub fn can_always_allow(&self) -> bool {
        self.proposal.as_ref().is_some_and(|p| !p.rules.is_empty())
    }
}

/// The dialog's cursor and feedback input, for the request at the front of the queue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dialog {
    /// The highlighted option, 0..5.
    pub selected: usize,
    /// `Some` while the feedback input of option 5 is open.
    pub feedback: Option<String>,
    /// Rows the command or path is scrolled down by, when it is long.
    pub detail_scroll: usize,
}

/// Everything the TUI shows.
#[derive(Debug, Clone)]
pub struct State {
    pub lang: Lang,
    pub mode: Mode,
    /// The model's name for the status bar.
    pub model: String,
    /// The working folder for the status bar (`~/project`).
    pub cwd: String,
    pub entries: Vec<Entry>,
    /// Text the model is streaming for the reply in progress.
    pub streaming: String,
    pub input: String,
    /// Rows the conversation is scrolled up from its end (0 follows the end).
    pub scroll: usize,
    /// A turn is running (the model is asked or tools run).
    pub turn_running: bool,
    /// The turn was interrupted and has not ended yet: approvals still arriving are denied.
    pub cancelling: bool,
    /// Approvals waiting, in arrival order; the first is in the dialog.
    pub approvals: VecDeque<ApprovalView>,
    pub dialog: Dialog,
    /// The terminal's size, for scrolling by pages.
    pub size: (u16, u16),
    pub quit: bool,
}

impl State {
    pub fn new(lang: Lang, mode: Mode, model: impl Into<String>, cwd: impl Into<String>) -> Self {
        State {
            lang,
            mode,
            model: model.into(),
            cwd: cwd.into(),
            entries: Vec::new(),
            streaming: String::new(),
            input: String::new(),
            scroll: 0,
            turn_running: false,
            cancelling: false,
            approvals: VecDeque::new(),
            dialog: Dialog::default(),
            size: (80, 24),
            quit: false,
        }
    }

    /// The request the dialog shows, if any.
    pub fn current_approval(&self) -> Option<&ApprovalView> {
        self.approvals.front()
    }
}
