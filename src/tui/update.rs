//! `update(&mut State, Event) -> Vec<Action>`: every key, mouse and agent event changes the state
//! here and nowhere else. Pure: what must happen outside (answer a request, start or cancel a
//! turn, switch the mode, quit) comes back as [`Action`]s that the app loop carries out. Time
//! comes in as [`State::now`], which the app loop sets and [`Event::Tick`] moves: nothing here
//! reads a clock, so tests drive the timed behaviour by hand.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::agent::AgentEvent;
use super::i18n::texts;
use super::layout;
use super::state::{ApprovalView, Choice, Dialog, Entry, State};
use crate::engine::Mode;
use crate::runtime::Answer;

/// A dialog ignores keys for this long after it appears (see [`Dialog::armed`]).
pub use super::state::ARM_DELAY;
/// A second Ctrl+C within this long quits.
pub const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// What reaches the UI.
#[derive(Debug, Clone)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// Time passed: the clock is now this (the spinner, arming, the timeouts).
    Tick(Instant),
    /// A call waits for a person.
    Approval(ApprovalView),
    /// What the agent loop did.
    Agent(AgentEvent),
    /// A message from the runtime (a rule was written, a policy reloaded).
    Notice(String),
    /// A policy or settings file no longer loads (the last good one stays in force).
    PolicyError(String),
    /// Something the app loop tried failed (listing the server's models).
    Error(String),
    /// Starts a turn without a key press (the demo's first turn). `shown` puts the text in the
    /// conversation as the person's message.
    StartTurn {
        text: String,
        shown: bool,
    },
}

/// What `/permissions` asks the app loop for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionsCommand {
    /// List the session's rules and the allowlist's, numbered.
    List,
    /// Remove the rule with this number (as listed).
    Remove(usize),
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
    /// Add a sent message to the project's history file.
    SaveHistory(String),
    /// `/permissions`.
    Permissions(PermissionsCommand),
    /// `/clear`: the agent forgets the conversation.
    ClearConversation,
    /// `/model NAME`: talk to this model of the same server from the next turn on.
    SwitchModel(String),
    /// `/model`: list the server's models (the one in use marked).
    ListModels,
    Quit,
}

/// The option numbers of the dialog, 0-based.
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
            if state.approvals.is_empty() {
                // Kept whole, line breaks included: a pasted block is one message.
                let text = text.replace("\r\n", "\n").replace('\r', "\n");
                state.input.insert_str(&text);
                state.quit_armed_until = None;
            } else if !state.dialog.armed(state.now) {
                // A paste as the dialog opens is not meant for it.
            } else if let Some(f) = &mut state.dialog.feedback {
                f.push_str(&one_line(&text));
            }
            Vec::new()
        }
        Event::Resize(w, h) => {
            state.size = (w, h);
            clamp_scrolls(state);
            Vec::new()
        }
        Event::Tick(now) => tick(state, now),
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
            if at == 0 {
                // A new dialog (or an older request arrived late and goes first): it starts
                // over, and is armed only after a moment.
                state.dialog = Dialog::opened(state.now);
            }
            state.approvals.insert(at, view);
            show_front(state);
            Vec::new()
        }
        Event::Agent(ev) => agent_event(state, ev),
        Event::Notice(text) => {
            push(state, Entry::Notice(text));
            Vec::new()
        }
        Event::PolicyError(text) | Event::Error(text) => {
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
            start_turn(state);
            vec![Action::Submit(text)]
        }
    }
}

fn start_turn(state: &mut State) {
    state.turn_running = true;
    state.turn_started = Some(state.now);
    state.last_activity = Some(state.now);
    state.tokens = None;
    state.turn_output = false;
    state.running_tools = 0;
    state.scroll = 0;
}

/// Time passed: the quit hint expires; a turn whose model has been silent too long stops.
fn tick(state: &mut State, now: Instant) -> Vec<Action> {
    state.now = now;
    if state.quit_armed_until.is_some_and(|t| now >= t) {
        state.quit_armed_until = None;
    }
    if state
        .current_approval()
        .and_then(|a| a.deadline)
        .is_some_and(|d| now >= d)
    {
        // The approval timeout denied it already: the dialog goes, the next comes up.
        return answer(state, Answer::Deny);
    }
    let silent = state
        .last_activity
        .map(|t| now.saturating_duration_since(t));
    let waiting_for_model = state.turn_running
        && !state.cancelling
        && state.approvals.is_empty()
        && state.running_tools == 0;
    if let (true, Some(limit), Some(silent)) = (waiting_for_model, state.inactivity_timeout, silent)
    {
        if silent >= limit {
            state.cancelling = true;
            let t = texts(state.lang);
            push(
                state,
                Entry::Error(t.inactive.replace("{s}", &limit.as_secs().to_string())),
            );
            return vec![Action::CancelTurn];
        }
    }
    Vec::new()
}

fn agent_event(state: &mut State, ev: AgentEvent) -> Vec<Action> {
    state.last_activity = Some(state.now);
    match ev {
        AgentEvent::TurnStarted => {
            state.turn_running = true;
            Vec::new()
        }
        AgentEvent::Delta(text) => {
            state.turn_output = true;
            state.streaming.push_str(&text);
            Vec::new()
        }
        AgentEvent::Contained { note, .. } => {
            push(state, Entry::Notice(note));
            Vec::new()
        }
        AgentEvent::Usage(tokens) => {
            state.tokens = Some(tokens);
            Vec::new()
        }
        AgentEvent::Assistant(text) => {
            state.streaming.clear();
            if !text.trim().is_empty() {
                state.turn_output = true;
                push(state, Entry::Assistant(text));
            }
            Vec::new()
        }
        AgentEvent::ToolCall {
            id,
            name,
            arguments,
        } => {
            state.turn_output = true;
            state.running_tools += 1;
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
            diff,
        } => {
            state.running_tools = state.running_tools.saturating_sub(1);
            push(
                state,
                Entry::ToolResult {
                    id,
                    name,
                    status,
                    content,
                    diff,
                },
            );
            Vec::new()
        }
        AgentEvent::ModelError(text) => {
            model_error(state, text);
            Vec::new()
        }
        AgentEvent::TurnEnded { cancelled } => turn_ended(state, cancelled),
    }
}

/// The turn is over: the state goes back to waiting, the queue's requests are denied, and what
/// was typed meanwhile goes back to the input (interrupted) or is sent (the next message).
fn turn_ended(state: &mut State, cancelled: bool) -> Vec<Action> {
    let was_cancelling = state.cancelling;
    state.turn_running = false;
    state.cancelling = false;
    state.turn_started = None;
    state.last_activity = None;
    state.running_tools = 0;
    keep_streamed(state);
    let t = texts(state.lang);
    if cancelled {
        push(state, Entry::Notice(t.interrupted.to_string()));
    } else if !state.turn_output && !was_cancelling {
        push(state, Entry::Notice(t.empty_reply.to_string()));
    }
    // Nobody waits for what is left in the queue any more.
    let mut actions = deny_all(state);
    if cancelled || was_cancelling {
        // Interrupted: what was typed meanwhile goes back to the input, unsent.
        if !state.queued.is_empty() {
            let mut back: Vec<String> = state.queued.drain(..).collect();
            if !state.input.is_empty() {
                back.push(state.input.take());
            }
            state.input.set(back.join("\n"));
        }
    } else if let Some(next) = state.queued.pop_front() {
        push(state, Entry::User(next.clone()));
        start_turn(state);
        actions.push(Action::Submit(next));
    }
    actions
}

/// The model failed: what was streamed stays, and the error goes in the conversation.
fn model_error(state: &mut State, text: String) {
    state.turn_output = true;
    keep_streamed(state);
    let t = texts(state.lang);
    let (text, colon) = match state.lang {
        super::i18n::Lang::Zh => (super::zh::message(&text), "："),
        super::i18n::Lang::En => (text, ": "),
    };
    push(
        state,
        Entry::Error(format!("{}{colon}{text}", t.model_error)),
    );
}

/// Text streamed before a reply was cut off stays in the conversation, marked as cut.
fn keep_streamed(state: &mut State) {
    if state.streaming.trim().is_empty() {
        state.streaming.clear();
        return;
    }
    let text = std::mem::take(&mut state.streaming);
    let cut = texts(state.lang).cut_off;
    push(state, Entry::Assistant(format!("{text} {cut}")));
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

fn interrupt(state: &mut State) -> Vec<Action> {
    if state.cancelling {
        return Vec::new();
    }
    state.cancelling = true;
    vec![Action::CancelTurn]
}

/// Ctrl+C (or Ctrl+D) on an empty input with no turn running: the first press says how to
/// quit, a second one within [`QUIT_WINDOW`] quits.
fn quit_key(state: &mut State) -> Vec<Action> {
    if state.quit_armed_until.is_some_and(|t| state.now < t) {
        state.quit = true;
        return vec![Action::Quit];
    }
    state.quit_armed_until = Some(state.now + QUIT_WINDOW);
    Vec::new()
}

/// Keys while no approval waits: the input line, scrolling, modes, quitting.
fn input_key(state: &mut State, key: KeyEvent) -> Vec<Action> {
    let quit_key_pressed = is_ctrl_char(&key, 'c') || is_ctrl_char(&key, 'd');
    if !quit_key_pressed {
        state.quit_armed_until = None;
    }
    if is_ctrl_char(&key, 'c') {
        if state.turn_running {
            return interrupt(state);
        }
        if !state.input.is_empty() {
            state.input.clear();
            return Vec::new();
        }
        return quit_key(state);
    }
    if is_ctrl_char(&key, 'd') {
        if state.turn_running {
            return interrupt(state);
        }
        if state.input.is_empty() {
            return quit_key(state);
        }
        state.input.delete();
        return Vec::new();
    }
    if let Some(actions) = common_key(state, &key) {
        return actions;
    }
    if let Some(actions) = menu_key(state, &key) {
        return actions;
    }
    // Typing changes what the menu offers: its highlight starts at the top again.
    state.slash_pick = 0;
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    match key.code {
        KeyCode::Char(c) if ctrl(&key) => match c.to_ascii_lowercase() {
            'a' => state.input.home(),
            'e' => state.input.end(),
            'u' => state.input.kill_to_start(),
            'k' => state.input.kill_to_end(),
            'w' => state.input.kill_word(),
            'j' => state.input.insert('\n'),
            'o' => state.expand_results = !state.expand_results,
            _ => {}
        },
        KeyCode::Char(c) => state.input.insert(c),
        KeyCode::Backspace if alt => state.input.kill_word(),
        KeyCode::Backspace => state.input.backspace(),
        KeyCode::Delete => state.input.delete(),
        KeyCode::Left => state.input.left(),
        KeyCode::Right => state.input.right(),
        KeyCode::Home => state.input.home(),
        KeyCode::End => state.input.end(),
        // In a message of several lines ↑/↓ move between them; past the first or last line
        // they walk the history.
        KeyCode::Up => {
            let _ = state.input.vertical(-1) || state.input.history_prev();
        }
        KeyCode::Down => {
            let _ = state.input.vertical(1) || state.input.history_next();
        }
        KeyCode::Esc => {
            if state.turn_running {
                return interrupt(state);
            }
            state.input.clear();
        }
        KeyCode::Enter if shift || alt => state.input.insert('\n'),
        KeyCode::Enter => {
            let text = state.input.text();
            let at_end = state.input.cursor() == text.len();
            if at_end && text.ends_with('\\') {
                // A trailing backslash continues the message on a new line.
                state.input.backspace();
                state.input.insert('\n');
                return Vec::new();
            }
            return submit(state);
        }
        _ => {}
    }
    Vec::new()
}

/// Keys the slash-command menu takes while it is shown: ↑/↓ move its highlight, Tab completes
/// the highlighted command, and Enter on a command's unfinished name runs the highlighted one.
fn menu_key(state: &mut State, key: &KeyEvent) -> Option<Vec<Action>> {
    let menu = state.slash_menu();
    if menu.is_empty() || !key.modifiers.difference(KeyModifiers::SHIFT).is_empty() {
        return None;
    }
    let n = menu.len();
    match key.code {
        KeyCode::Up if n > 1 => state.slash_pick = (state.slash_pick + n - 1) % n,
        KeyCode::Down if n > 1 => state.slash_pick = (state.slash_pick + 1) % n,
        KeyCode::Tab => {
            let name = state.slash_picked()?;
            state.input.set(format!("/{name} "));
            state.slash_pick = 0;
        }
        KeyCode::Enter => {
            let typed = state.input.text();
            let typed = typed.trim_start_matches('/');
            if menu.iter().any(|(name, _)| *name == typed) {
                return None;
            }
            let name = state.slash_picked()?;
            state.input.set(format!("/{name}"));
            state.slash_pick = 0;
            return Some(submit(state));
        }
        _ => return None,
    }
    Some(Vec::new())
}

/// Enter on the input line: a slash command runs, a message is sent (or queued while a turn
/// runs).
fn submit(state: &mut State) -> Vec<Action> {
    let raw = state.input.text().trim().to_string();
    if raw.is_empty() {
        return Vec::new();
    }
    state.input.take();
    state.input.remember(&raw);
    let mut actions = vec![Action::SaveHistory(raw.clone())];
    let text = match raw.strip_prefix('/') {
        // `//…` sends a message that starts with a slash.
        Some(rest) if rest.starts_with('/') => rest.to_string(),
        Some(rest) => {
            actions.extend(slash_command(state, rest));
            return actions;
        }
        None => raw,
    };
    state.scroll = 0;
    if state.turn_running {
        state.queued.push_back(text);
        return actions;
    }
    push(state, Entry::User(text.clone()));
    start_turn(state);
    actions.push(Action::Submit(text));
    actions
}

/// The slash commands; `line` is what follows the `/`.
fn slash_command(state: &mut State, line: &str) -> Vec<Action> {
    let t = texts(state.lang);
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("");
    let args: Vec<&str> = words.collect();
    match (name, args.as_slice()) {
        ("help" | "?", []) => say(state, Entry::Notice(t.help.to_string())),
        ("permissions" | "perms", []) => vec![Action::Permissions(PermissionsCommand::List)],
        ("permissions" | "perms", ["rm" | "remove", n]) => match n.parse::<usize>() {
            Ok(n) if n > 0 => vec![Action::Permissions(PermissionsCommand::Remove(n))],
            _ => say(state, Entry::Error(t.permissions_usage.to_string())),
        },
        ("mode", []) => {
            let modes: Vec<&str> = cycle(state).iter().map(|m| m.as_str()).collect();
            let text = t
                .mode_is
                .replace("{mode}", state.mode.as_str())
                .replace("{modes}", &modes.join(", "));
            say(state, Entry::Notice(text))
        }
        ("mode", [m]) => match Mode::ALL.iter().find(|x| x.as_str() == *m) {
            Some(Mode::Bypass) if !state.bypass_in_cycle => {
                say(state, Entry::Error(t.bypass_refused.to_string()))
            }
            Some(&mode) => set_mode(state, mode),
            None => say(state, Entry::Error(t.no_such_mode.replace("{mode}", m))),
        },
        ("model", []) => vec![Action::ListModels],
        ("model", [_]) | ("clear", []) if state.turn_running => {
            let busy = if name == "model" {
                t.model_busy
            } else {
                t.clear_busy
            };
            say(state, Entry::Error(busy.to_string()))
        }
        ("model", [name]) => vec![Action::SwitchModel(name.to_string())],
        ("clear", []) => {
            state.entries.clear();
            state.scroll = 0;
            push(state, Entry::Notice(t.cleared.to_string()));
            vec![Action::ClearConversation]
        }
        ("help" | "?" | "permissions" | "perms" | "mode" | "model" | "clear", _) => {
            let text = t.command_usage.replace("{cmd}", &format!("/{name}"));
            say(state, Entry::Error(text))
        }
        _ => {
            let text = t.unknown_command.replace("{cmd}", &format!("/{name}"));
            say(state, Entry::Error(text))
        }
    }
}

/// A line in the conversation, and nothing else to do.
fn say(state: &mut State, entry: Entry) -> Vec<Action> {
    push(state, entry);
    Vec::new()
}

/// Changes the mode, with a line in the conversation.
fn set_mode(state: &mut State, mode: Mode) -> Vec<Action> {
    state.mode = mode;
    let t = texts(state.lang);
    push(
        state,
        Entry::Notice(t.mode_changed.replace("{mode}", mode.as_str())),
    );
    vec![Action::SetMode(mode)]
}

/// Keys that work with and without the dialog: the mode and the conversation's scrolling.
fn common_key(state: &mut State, key: &KeyEvent) -> Option<Vec<Action>> {
    match key.code {
        KeyCode::BackTab => {
            let next = next_mode(state.mode, state.bypass_in_cycle);
            Some(set_mode(state, next))
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

/// The modes Shift+Tab goes through: bypass only when the TUI was started in it.
fn cycle(state: &State) -> Vec<Mode> {
    Mode::ALL
        .iter()
        .copied()
        .filter(|m| state.bypass_in_cycle || *m != Mode::Bypass)
        .collect()
}

/// The mode after `m`, in the order of [`Mode::ALL`]; bypass is skipped unless `with_bypass`.
pub fn next_mode(m: Mode, with_bypass: bool) -> Mode {
    let modes: Vec<Mode> = Mode::ALL
        .iter()
        .copied()
        .filter(|x| with_bypass || *x != Mode::Bypass)
        .collect();
    match modes.iter().position(|x| *x == m) {
        Some(i) => modes[(i + 1) % modes.len()],
        // Bypass when it is not in the cycle: back to the first.
        None => modes[0],
    }
}

/// Keys while the dialog is open.
fn dialog_key(state: &mut State, key: KeyEvent) -> Vec<Action> {
    if is_ctrl_char(&key, 'c') || is_ctrl_char(&key, 'd') {
        // Deny everything waiting, and interrupt the turn.
        let mut actions = deny_all(state);
        if state.turn_running {
            actions.extend(interrupt(state));
        }
        return actions;
    }
    if !state.dialog.armed(state.now) {
        // Just appeared: a key typed for something else answers nothing.
        return Vec::new();
    }
    if state.dialog.feedback.is_some() {
        return feedback_key(state, key);
    }
    if let Some(actions) = common_key(state, &key) {
        return actions;
    }
    match key.code {
        KeyCode::Up => {
            state.dialog.selected = step(state, state.dialog.selected, -1);
            Vec::new()
        }
        KeyCode::Down => {
            state.dialog.selected = step(state, state.dialog.selected, 1);
            Vec::new()
        }
        KeyCode::Char(c) if Choice::of_key(c).is_some() => {
            let Some(choice) = Choice::of_key(c) else {
                return Vec::new();
            };
            state.dialog.selected = choice;
            choose(state, choice)
        }
        KeyCode::Enter => choose(state, state.dialog.selected),
        KeyCode::Esc => answer(state, Answer::Deny),
        KeyCode::PageDown => {
            let (total, visible) = layout::detail_geometry(state);
            let max = total.saturating_sub(visible);
            state.dialog.detail_scroll = (state.dialog.detail_scroll + visible.max(1)).min(max);
            Vec::new()
        }
        KeyCode::PageUp => {
            let (_, visible) = layout::detail_geometry(state);
            state.dialog.detail_scroll = state.dialog.detail_scroll.saturating_sub(visible.max(1));
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Moves the cursor by `by` round the options, over those that cannot be chosen.
fn step(state: &State, from: Choice, by: isize) -> Choice {
    let offered = |c: Choice| state.current_approval().is_none_or(|v| v.offers(c));
    let mut next = from.step(by);
    for _ in 0..Choice::ALL.len() {
        if offered(next) {
            break;
        }
        next = next.step(by);
    }
    next
}

fn choose(state: &mut State, choice: Choice) -> Vec<Action> {
    if !state.current_approval().is_some_and(|v| v.offers(choice)) {
        // Disabled: the dialog says why; nothing is answered.
        return Vec::new();
    }
    match choice {
        Choice::AllowOnce => answer(state, Answer::AllowOnce),
        Choice::AllowSession => answer(state, Answer::AllowSession),
        Choice::AlwaysAllow => answer(state, Answer::AlwaysAllow),
        Choice::Deny => answer(state, Answer::Deny),
        Choice::DenyWithFeedback => {
            state.dialog.feedback = Some(String::new());
            Vec::new()
        }
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
    // The next request, if any, is a dialog of its own: armed after a moment again.
    state.dialog = Dialog::opened(state.now);
    state.dialog_answered = if state.approvals.is_empty() {
        0
    } else {
        state.dialog_answered + 1
    };
    // The time a person took does not count as the model's silence.
    state.last_activity = Some(state.now);
    show_front(state);
    vec![Action::Respond { id: req.id, answer }]
}

/// The request at the front of the queue is on the screen from now: its approval timeout
/// starts (the app loop tells the runtime, whose clock starts then too). One waiting behind
/// others has no deadline yet.
fn show_front(state: &mut State) {
    let timeout = state.approval_timeout;
    let now = state.now;
    if let Some(front) = state.approvals.front_mut() {
        if front.deadline.is_none() {
            front.deadline = timeout.map(|t| now + t);
        }
    }
}

/// Denies every request in the queue.
fn deny_all(state: &mut State) -> Vec<Action> {
    state.dialog = Dialog::default();
    state.dialog_answered = 0;
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
    layout::conversation_height(state).saturating_sub(1).max(1)
}

fn scroll_up(state: &mut State, rows: usize) {
    let max = layout::max_scroll(state);
    state.scroll = (state.scroll + rows).min(max);
}

fn scroll_down(state: &mut State, rows: usize) {
    state.scroll = state.scroll.saturating_sub(rows);
}

fn clamp_scrolls(state: &mut State) {
    state.scroll = state.scroll.min(layout::max_scroll(state));
    let (total, visible) = layout::detail_geometry(state);
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
