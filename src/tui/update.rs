//! `update(&mut State, Event) -> Vec<Action>`: every key, mouse and agent event changes the state
//! here and nowhere else. Pure: what must happen outside (answer a request, start or cancel a
//! turn, switch the mode, quit) comes back as [`Action`]s that the app loop carries out.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::agent::AgentEvent;
use super::i18n::texts;
use super::state::{ApprovalView, Dialog, Entry, State};
use super::view;
use crate::engine::Mode;
use crate::runtime::Answer;

/// What reaches the UI.
#[derive(Debug, Clone)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// A call waits for a person.
    Approval(ApprovalView),
    /// What the agent loop did.
    Agent(AgentEvent),
    /// A message from the runtime (a rule was written, a policy reloaded).
    Notice(String),
    /// A policy or settings file no longer loads (the last good one stays in force).
    PolicyError(String),
    /// Starts a turn without a key press (the demo's first turn). `shown` puts the text in the
    /// conversation as the person's message.
    StartTurn {
        text: String,
        shown: bool,
    },
}

/// What the app loop must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Answer the approval request with this id.
    Respond {
        id: u64,
        answer: Answer,
    },
    /// Start a turn with this user message.
    Submit(String),
    /// Cancel the running turn (its pending approvals are denied).
    CancelTurn,
    /// Switch the permission mode.
    SetMode(Mode),
    Quit,
}

/// The option numbers of the dialog, 0-based.
const ALWAYS_ALLOW: usize = 2;
const DENY_WITH_FEEDBACK: usize = 4;
const OPTIONS: usize = 5;
/// Rows one mouse wheel step scrolls.
const WHEEL_ROWS: usize = 3;

pub fn update(state: &mut State, event: Event) -> Vec<Action> {
    match event {
        Event::Key(key) if key.kind == KeyEventKind::Release => Vec::new(),
        Event::Key(key) => {
            if state.approvals.is_empty() {
                input_key(state, key)
            } else {
                dialog_key(state, key)
            }
        }
        Event::Mouse(m) => {
            match m.kind {
                MouseEventKind::ScrollUp => scroll_up(state, WHEEL_ROWS),
                MouseEventKind::ScrollDown => scroll_down(state, WHEEL_ROWS),
                _ => {}
            }
            Vec::new()
        }
        Event::Paste(text) => {
            let text = one_line(&text);
            if state.approvals.is_empty() {
                state.input.push_str(&text);
            } else if let Some(f) = &mut state.dialog.feedback {
                f.push_str(&text);
            }
            Vec::new()
        }
        Event::Resize(w, h) => {
            state.size = (w, h);
            clamp_scrolls(state);
            Vec::new()
        }
        Event::Approval(view) => {
            if !state.turn_running || state.cancelling {
                // The turn it belongs to is over or being interrupted: denied at once.
                return vec![Action::Respond {
                    id: view.id,
                    answer: Answer::Deny,
                }];
            }
            let at = state
                .approvals
                .iter()
                .position(|a| a.id > view.id)
                .unwrap_or(state.approvals.len());
            if at == 0 && !state.approvals.is_empty() {
                // An older request arrived late: it goes first, the dialog starts over.
                state.dialog = Dialog::default();
            }
            state.approvals.insert(at, view);
            Vec::new()
        }
        Event::Agent(ev) => agent_event(state, ev),
        Event::Notice(text) => {
            push(state, Entry::Notice(text));
            Vec::new()
        }
        Event::PolicyError(text) => {
            push(state, Entry::Error(text));
            Vec::new()
        }
        Event::StartTurn { text, shown } => {
            if state.turn_running {
                return Vec::new();
            }
            if shown {
                push(state, Entry::User(text.clone()));
            }
            state.turn_running = true;
            state.scroll = 0;
            vec![Action::Submit(text)]
        }
    }
}

fn agent_event(state: &mut State, ev: AgentEvent) -> Vec<Action> {
    match ev {
        AgentEvent::TurnStarted => {
            state.turn_running = true;
            Vec::new()
        }
        AgentEvent::Delta(text) => {
            state.streaming.push_str(&text);
            Vec::new()
        }
        AgentEvent::Assistant(text) => {
            state.streaming.clear();
            if !text.trim().is_empty() {
                push(state, Entry::Assistant(text));
            }
            Vec::new()
        }
        AgentEvent::ToolCall {
            id,
            name,
            arguments,
        } => {
            push(
                state,
                Entry::ToolCall {
                    id,
                    name,
                    arguments,
                },
            );
            Vec::new()
        }
        AgentEvent::ToolResult {
            id,
            name,
            status,
            content,
        } => {
            push(
                state,
                Entry::ToolResult {
                    id,
                    name,
                    status,
                    content,
                },
            );
            Vec::new()
        }
        AgentEvent::ModelError(text) => {
            state.streaming.clear();
            push(
                state,
                Entry::Error(format!("{}: {text}", texts(state.lang).model_error)),
            );
            Vec::new()
        }
        AgentEvent::TurnEnded { cancelled } => {
            state.turn_running = false;
            state.cancelling = false;
            if !state.streaming.is_empty() {
                let text = std::mem::take(&mut state.streaming);
                push(state, Entry::Assistant(text));
            }
            if cancelled {
                push(
                    state,
                    Entry::Notice(texts(state.lang).interrupted.to_string()),
                );
            }
            // Nobody waits for what is left in the queue any more.
            deny_all(state)
        }
    }
}

fn push(state: &mut State, entry: Entry) {
    state.entries.push(entry);
}

fn ctrl(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
}

fn is_ctrl_char(key: &KeyEvent, c: char) -> bool {
    ctrl(key) && matches!(key.code, KeyCode::Char(k) if k.eq_ignore_ascii_case(&c))
}

/// Keys while no approval waits: the input line, scrolling, modes, quitting.
fn input_key(state: &mut State, key: KeyEvent) -> Vec<Action> {
    if is_ctrl_char(&key, 'c') {
        if state.turn_running {
            state.cancelling = true;
            return vec![Action::CancelTurn];
        }
        if !state.input.is_empty() {
            state.input.clear();
            return Vec::new();
        }
        state.quit = true;
        return vec![Action::Quit];
    }
    if is_ctrl_char(&key, 'd') {
        if state.turn_running {
            state.cancelling = true;
            return vec![Action::CancelTurn];
        }
        if state.input.is_empty() {
            state.quit = true;
            return vec![Action::Quit];
        }
        return Vec::new();
    }
    if let Some(actions) = common_key(state, &key) {
        return actions;
    }
    match key.code {
        KeyCode::Char(c) if !ctrl(&key) => state.input.push(c),
        KeyCode::Backspace => {
            state.input.pop();
        }
        KeyCode::Esc => state.input.clear(),
        KeyCode::Enter => {
            let text = state.input.trim().to_string();
            if text.is_empty() || state.turn_running {
                return Vec::new();
            }
            state.input.clear();
            push(state, Entry::User(text.clone()));
            state.turn_running = true;
            state.scroll = 0;
            return vec![Action::Submit(text)];
        }
        _ => {}
    }
    Vec::new()
}

/// Keys that work with and without the dialog: the mode and the conversation's scrolling.
fn common_key(state: &mut State, key: &KeyEvent) -> Option<Vec<Action>> {
    match key.code {
        KeyCode::BackTab => {
            state.mode = next_mode(state.mode);
            Some(vec![Action::SetMode(state.mode)])
        }
        KeyCode::PageUp if state.approvals.is_empty() => {
            scroll_up(state, page(state));
            Some(Vec::new())
        }
        KeyCode::PageDown if state.approvals.is_empty() => {
            scroll_down(state, page(state));
            Some(Vec::new())
        }
        KeyCode::End if ctrl(key) => {
            state.scroll = 0;
            Some(Vec::new())
        }
        _ => None,
    }
}

/// The mode after `m`, in the order [`crate::runtime::ModeHandle::cycle`] uses.
pub fn next_mode(m: Mode) -> Mode {
    let i = Mode::ALL.iter().position(|x| *x == m).unwrap_or(0);
    Mode::ALL[(i + 1) % Mode::ALL.len()]
}

/// Keys while the dialog is open.
fn dialog_key(state: &mut State, key: KeyEvent) -> Vec<Action> {
    if is_ctrl_char(&key, 'c') || is_ctrl_char(&key, 'd') {
        // Deny everything waiting, and interrupt the turn.
        let mut actions = deny_all(state);
        if state.turn_running {
            state.cancelling = true;
            actions.push(Action::CancelTurn);
        }
        return actions;
    }
    if state.dialog.feedback.is_some() {
        return feedback_key(state, key);
    }
    if let Some(actions) = common_key(state, &key) {
        return actions;
    }
    match key.code {
        KeyCode::Up => {
            state.dialog.selected = step(state, state.dialog.selected, OPTIONS - 1);
            Vec::new()
        }
        KeyCode::Down => {
            state.dialog.selected = step(state, state.dialog.selected, 1);
            Vec::new()
        }
        KeyCode::Char(c @ '1'..='5') => {
            let n = c as usize - '1' as usize;
            state.dialog.selected = n;
            choose(state, n)
        }
        KeyCode::Enter => choose(state, state.dialog.selected),
        KeyCode::Esc => answer(state, Answer::Deny),
        KeyCode::PageDown => {
            let (total, visible) = view::detail_geometry(state);
            let max = total.saturating_sub(visible);
            state.dialog.detail_scroll = (state.dialog.detail_scroll + visible.max(1)).min(max);
            Vec::new()
        }
        KeyCode::PageUp => {
            let (_, visible) = view::detail_geometry(state);
            state.dialog.detail_scroll = state.dialog.detail_scroll.saturating_sub(visible.max(1));
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Moves the cursor by `by` (mod 5), over option 3 when it cannot be chosen.
fn step(state: &State, from: usize, by: usize) -> usize {
    let enabled = state
        .current_approval()
        .is_some_and(ApprovalView::can_always_allow);
    let mut next = (from + by) % OPTIONS;
    if next == ALWAYS_ALLOW && !enabled {
        next = (next + by) % OPTIONS;
    }
    next
}

fn choose(state: &mut State, option: usize) -> Vec<Action> {
    match option {
        0 => answer(state, Answer::AllowOnce),
        1 => answer(state, Answer::AllowSession),
        ALWAYS_ALLOW => {
            if state
                .current_approval()
                .is_some_and(ApprovalView::can_always_allow)
            {
                answer(state, Answer::AlwaysAllow)
            } else {
                // Disabled: the dialog says why; nothing is answered.
                Vec::new()
            }
        }
        3 => answer(state, Answer::Deny),
        DENY_WITH_FEEDBACK => {
            state.dialog.feedback = Some(String::new());
            Vec::new()
        }
        _ => Vec::new(),
    }
}

fn feedback_key(state: &mut State, key: KeyEvent) -> Vec<Action> {
    let Some(text) = state.dialog.feedback.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Char(c) if !ctrl(&key) => text.push(c),
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Esc => state.dialog.feedback = None,
        KeyCode::Enter => {
            let text = text.trim().to_string();
            let a = if text.is_empty() {
                Answer::Deny
            } else {
                Answer::DenyWithFeedback(text)
            };
            return answer(state, a);
        }
        _ => {}
    }
    Vec::new()
}

/// Answers the request in the dialog; the next one in the queue comes up.
fn answer(state: &mut State, answer: Answer) -> Vec<Action> {
    let Some(req) = state.approvals.pop_front() else {
        return Vec::new();
    };
    state.dialog = Dialog::default();
    vec![Action::Respond { id: req.id, answer }]
}

/// Denies every request in the queue.
fn deny_all(state: &mut State) -> Vec<Action> {
    state.dialog = Dialog::default();
    state
        .approvals
        .drain(..)
        .map(|a| Action::Respond {
            id: a.id,
            answer: Answer::Deny,
        })
        .collect()
}

fn page(state: &State) -> usize {
    view::conversation_height(state).saturating_sub(1).max(1)
}

fn scroll_up(state: &mut State, rows: usize) {
    let max = view::max_scroll(state);
    state.scroll = (state.scroll + rows).min(max);
}

fn scroll_down(state: &mut State, rows: usize) {
    state.scroll = state.scroll.saturating_sub(rows);
}

fn clamp_scrolls(state: &mut State) {
    state.scroll = state.scroll.min(view::max_scroll(state));
    let (total, visible) = view::detail_geometry(state);
    state.dialog.detail_scroll = state
        .dialog
        .detail_scroll
        .min(total.saturating_sub(visible));
}

/// Pasted text for a one-line input: line breaks become spaces.
fn one_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\n', '\r'], " ")
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
