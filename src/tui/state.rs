//! What the TUI shows: the conversation, the input line, the queue of approvals and the dialog.
//! Plain data, the floor of the TUI's modules: [`super::update()`] changes it, [`super::render`]
//! draws it, and it names neither.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::diff::Diff;
use super::i18n::Lang;
use super::input::InputLine;
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
        /// For `write_file`/`edit_file` that ran: what changed in the file.
        diff: Option<Diff>,
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
    /// For `write_file` and `edit_file`: what the call would change in the file.
    pub diff: Option<Diff>,
    /// When an unanswered request is denied (the approval timeout), once it is queued.
    pub deadline: Option<Instant>,
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
            diff: None,
            deadline: None,
        }
    }

    /// The view with the change the call would make.
    pub fn with_diff(mut self, diff: Option<Diff>) -> Self {
        self.diff = diff;
        self
    }

    /// Whether option 3 can be chosen.
    pub fn can_always_allow(&self) -> bool {
        self.proposal.as_ref().is_some_and(|p| !p.rules.is_empty())
    }

    /// Whether `choice` can be chosen: "allow for this session" and "always allow" only when
    /// a rule can be proposed (without one, either would allow this call once and no more).
    pub fn offers(&self, choice: Choice) -> bool {
        match choice {
            Choice::AllowSession | Choice::AlwaysAllow => self.can_always_allow(),
            _ => true,
        }
    }
}

/// The dialog's options, in the order shown and numbered (keys `1`–`5`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Choice {
    #[default]
    AllowOnce,
    /// Allow, and remember the proposal for this session.
    AllowSession,
    /// Allow, and write the proposal to settings.json (only with a proposal).
    AlwaysAllow,
    Deny,
    /// Deny with a message to the agent (opens an input).
    DenyWithFeedback,
}

impl Choice {
    pub const ALL: [Choice; 5] = [
        Choice::AllowOnce,
        Choice::AllowSession,
        Choice::AlwaysAllow,
        Choice::Deny,
        Choice::DenyWithFeedback,
    ];

    /// Its place in [`Choice::ALL`] (its key is one more).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The option of key `1`–`5`.
    pub fn of_key(c: char) -> Option<Choice> {
        let n = c.to_digit(10)?.checked_sub(1)?;
        Choice::ALL.get(usize::try_from(n).ok()?).copied()
    }

    /// The option `by` places further down, round the list.
    pub fn step(self, by: isize) -> Choice {
        let n = Choice::ALL.len() as isize;
        let i = (self.index() as isize + by).rem_euclid(n);
        Choice::ALL[i as usize]
    }
}

/// The dialog's cursor and feedback input, for the request at the front of the queue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dialog {
    /// The highlighted option.
    pub selected: Choice,
    /// `Some` while the feedback input of option 5 is open.
    pub feedback: Option<String>,
    /// Rows the command or path is scrolled down by, when it is long.
    pub detail_scroll: usize,
    /// When this dialog appeared: keys are ignored until it is armed (see
    /// [`ARM_DELAY`]), so that an Enter typed as it opens approves nothing.
    pub opened_at: Option<Instant>,
}

impl Dialog {
    /// A fresh dialog that appeared at `now`.
    pub fn opened(now: Instant) -> Self {
        Dialog {
            opened_at: Some(now),
            ..Dialog::default()
        }
    }

    /// Whether keys reach the dialog at `now`.
    pub fn armed(&self, now: Instant) -> bool {
        self.opened_at
            .is_none_or(|t| now.saturating_duration_since(t) >= ARM_DELAY)
    }
}

/// A dialog ignores keys for this long after it appears, so that a key typed for the input
/// line (an Enter) does not answer a request the person has not seen.
pub const ARM_DELAY: Duration = Duration::from_millis(600);

/// A turn whose model says nothing for this long is stopped (approvals waiting do not count).
pub const DEFAULT_INACTIVITY: Duration = Duration::from_secs(180);

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
    pub input: InputLine,
    /// Messages typed while a turn ran: sent in order when it ends.
    pub queued: VecDeque<String>,
    /// Rows the conversation is scrolled up from its end (0 follows the end).
    pub scroll: usize,
    /// A turn is running (the model is asked or tools run).
    pub turn_running: bool,
    /// The turn was interrupted and has not ended yet: approvals still arriving are denied.
    pub cancelling: bool,
    /// Approvals waiting, in arrival order; the first is in the dialog.
    pub approvals: VecDeque<ApprovalView>,
    pub dialog: Dialog,
    /// Requests of the present batch already answered (the queue's position: "2 of 3");
    /// back to 0 when the queue empties.
    pub dialog_answered: usize,
    /// The terminal's size, for scrolling by pages.
    pub size: (u16, u16),
    pub quit: bool,
    /// The clock: the app loop sets it before every update; tests move it by hand.
    pub now: Instant,
    /// Until when a second Ctrl+C quits (the first shows "press Ctrl+C again to quit").
    pub quit_armed_until: Option<Instant>,
    /// Whether Shift+Tab may reach bypass: only when the TUI was started in it.
    pub bypass_in_cycle: bool,
    /// When the running turn started, and when the agent last did something.
    pub turn_started: Option<Instant>,
    pub last_activity: Option<Instant>,
    /// Tokens the server reported for the running turn.
    pub tokens: Option<u64>,
    /// Tool calls of the running turn that have not come back yet.
    pub running_tools: usize,
    /// Whether the running turn has shown anything (text, a call, an error).
    pub turn_output: bool,
    /// A turn whose model stays silent this long is stopped; `None` waits forever.
    pub inactivity_timeout: Option<Duration>,
    /// Unanswered requests are denied after this long (shown as a countdown).
    pub approval_timeout: Option<Duration>,
    /// Long tool outputs shown whole (Ctrl+O) instead of their first lines.
    pub expand_results: bool,
    /// The highlighted row of the slash-command menu (see [`State::slash_menu`]).
    pub slash_pick: usize,
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
            input: InputLine::default(),
            queued: VecDeque::new(),
            scroll: 0,
            turn_running: false,
            cancelling: false,
            approvals: VecDeque::new(),
            dialog: Dialog::default(),
            dialog_answered: 0,
            size: (80, 24),
            quit: false,
            now: Instant::now(),
            quit_armed_until: None,
            bypass_in_cycle: mode == Mode::Bypass,
            turn_started: None,
            last_activity: None,
            tokens: None,
            turn_output: false,
            running_tools: 0,
            inactivity_timeout: Some(DEFAULT_INACTIVITY),
            approval_timeout: None,
            expand_results: false,
            slash_pick: 0,
        }
    }

    /// The slash commands the menu offers for what is typed: the input is `/` and the start of
    /// a command's name, with nothing after it (`//` sends text, so it has none).
    pub fn slash_menu(&self) -> Vec<(&'static str, &'static str)> {
        let text = self.input.text();
        let Some(typed) = text.strip_prefix('/') else {
            return Vec::new();
        };
        if typed.starts_with('/') || typed.contains(char::is_whitespace) {
            return Vec::new();
        }
        super::i18n::texts(self.lang)
            .menu
            .iter()
            .copied()
            .filter(|(name, _)| name.starts_with(typed))
            .collect()
    }

    /// The command the menu highlights, if the menu is shown.
    pub fn slash_picked(&self) -> Option<&'static str> {
        let menu = self.slash_menu();
        menu.get(self.slash_pick % menu.len().max(1))
            .map(|(n, _)| *n)
    }

    /// The request the dialog shows, if any.
    pub fn current_approval(&self) -> Option<&ApprovalView> {
        self.approvals.front()
    }
}

#[cfg(test)]
mod choice_tests {
    use super::Choice;

    #[test]
    fn the_keys_name_the_options_in_order_and_the_cursor_goes_round() {
        let keyed: Vec<Option<Choice>> = "123456".chars().map(Choice::of_key).collect();
        assert_eq!(
            keyed,
            [
                Some(Choice::AllowOnce),
                Some(Choice::AllowSession),
                Some(Choice::AlwaysAllow),
                Some(Choice::Deny),
                Some(Choice::DenyWithFeedback),
                None
            ]
        );
        assert_eq!(Choice::of_key('0'), None);
        assert_eq!(Choice::AllowOnce.step(-1), Choice::DenyWithFeedback);
        assert_eq!(Choice::DenyWithFeedback.step(1), Choice::AllowOnce);
        assert_eq!(Choice::AllowSession.step(2), Choice::Deny);
    }
}
