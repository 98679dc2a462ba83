//! Unit tests of `update`: one per key of the dialog's table, the feedback input, the queue,
//! the input line, scrolling and modes.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::*;
use crate::call::{Risk, ToolCall};
use crate::runtime::{Proposal, ResultStatus};
use crate::tui::i18n::Lang;
use crate::tui::state::ApprovalView;

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn chr(c: char) -> Event {
    key(KeyCode::Char(c))
}

fn view(id: u64, proposal: bool) -> ApprovalView {
    ApprovalView::new(
        id,
        &ToolCall::primary("bash", format!("git commit -m {id}")),
        "asks about commits",
        Risk::Medium,
        Some("team.policy:3".into()),
        proposal.then(|| Proposal {
            rules: vec!["bash(git commit *)".into()],
            exact: false,
        }),
    )
}

/// A running turn with `n` requests waiting (ids 1..=n), all with a proposal.
fn waiting(n: u64) -> State {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    for id in 1..=n {
        assert!(update(&mut s, Event::Approval(view(id, true))).is_empty());
    }
    s
}

fn respond(id: u64, answer: Answer) -> Vec<Action> {
    vec![Action::Respond { id, answer }]
}

#[test]
fn key_1_allows_once() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, chr('1')), respond(1, Answer::AllowOnce));
    assert!(s.approvals.is_empty());
}

#[test]
fn key_2_allows_for_the_session() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, chr('2')), respond(1, Answer::AllowSession));
}

#[test]
fn key_3_always_allows_when_a_rule_is_proposed() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, chr('3')), respond(1, Answer::AlwaysAllow));
}

#[test]
fn key_3_does_nothing_without_a_proposal() {
    let mut s = waiting(0);
    update(&mut s, Event::Approval(view(7, false)));
    assert_eq!(update(&mut s, chr('3')), vec![]);
    assert_eq!(s.approvals.len(), 1, "the request still waits");
    // Enter on the disabled option does nothing either.
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    assert_eq!(s.approvals.len(), 1);
}

#[test]
fn key_4_denies() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, chr('4')), respond(1, Answer::Deny));
}

#[test]
fn key_5_opens_the_feedback_input_without_answering() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, chr('5')), vec![]);
    assert_eq!(s.dialog.feedback.as_deref(), Some(""));
    assert_eq!(s.approvals.len(), 1);
}

#[test]
fn down_and_up_move_the_cursor_and_wrap_around() {
    let mut s = waiting(1);
    assert_eq!(s.dialog.selected, 0);
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.dialog.selected, 1);
    update(&mut s, key(KeyCode::Up));
    update(&mut s, key(KeyCode::Up));
    assert_eq!(
        s.dialog.selected, 4,
        "up from the first option goes to the last"
    );
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.dialog.selected, 0, "down from the last goes to the first");
}

#[test]
fn the_cursor_skips_a_disabled_always_allow() {
    let mut s = waiting(0);
    update(&mut s, Event::Approval(view(1, false)));
    update(&mut s, key(KeyCode::Down));
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.dialog.selected, 3);
    update(&mut s, key(KeyCode::Up));
    assert_eq!(s.dialog.selected, 1);
}

#[test]
fn enter_confirms_the_highlighted_option() {
    let mut s = waiting(1);
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        respond(1, Answer::AllowSession)
    );
}

#[test]
fn enter_on_option_5_opens_the_feedback_input() {
    let mut s = waiting(1);
    update(&mut s, key(KeyCode::Up));
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    assert!(s.dialog.feedback.is_some());
}

#[test]
fn esc_denies() {
    let mut s = waiting(1);
    assert_eq!(update(&mut s, key(KeyCode::Esc)), respond(1, Answer::Deny));
}

#[test]
fn ctrl_c_denies_every_waiting_request_and_interrupts_the_turn() {
    let mut s = waiting(3);
    assert_eq!(
        update(&mut s, ctrl('c')),
        vec![
            Action::Respond {
                id: 1,
                answer: Answer::Deny
            },
            Action::Respond {
                id: 2,
                answer: Answer::Deny
            },
            Action::Respond {
                id: 3,
                answer: Answer::Deny
            },
            Action::CancelTurn,
        ]
    );
    assert!(s.approvals.is_empty());
    assert!(s.cancelling);
    assert!(!s.quit, "interrupting a turn does not quit");
}

#[test]
fn ctrl_d_denies_and_interrupts_like_ctrl_c() {
    let mut s = waiting(1);
    assert_eq!(
        update(&mut s, ctrl('d')),
        vec![
            Action::Respond {
                id: 1,
                answer: Answer::Deny
            },
            Action::CancelTurn
        ]
    );
}

#[test]
fn feedback_typing_appends_and_backspace_deletes() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    for c in "use rg".chars() {
        assert_eq!(update(&mut s, chr(c)), vec![]);
    }
    update(&mut s, key(KeyCode::Backspace));
    update(&mut s, key(KeyCode::Backspace));
    for c in "grep".chars() {
        update(&mut s, chr(c));
    }
    assert_eq!(s.dialog.feedback.as_deref(), Some("use grep"));
    // Digits are text here, not options.
    update(&mut s, chr('1'));
    assert_eq!(s.dialog.feedback.as_deref(), Some("use grep1"));
    assert_eq!(s.approvals.len(), 1);
}

#[test]
fn feedback_enter_denies_with_the_text() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    for c in "run the tests first".chars() {
        update(&mut s, chr(c));
    }
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        respond(1, Answer::DenyWithFeedback("run the tests first".into()))
    );
    assert_eq!(s.dialog, Dialog::default(), "the dialog starts over");
}

#[test]
fn feedback_enter_with_no_text_is_a_plain_deny() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    update(&mut s, chr(' '));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        respond(1, Answer::Deny)
    );
}

#[test]
fn feedback_esc_returns_to_the_options() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    update(&mut s, chr('x'));
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![]);
    assert_eq!(s.dialog.feedback, None);
    assert_eq!(s.approvals.len(), 1, "nothing was answered");
    assert_eq!(s.dialog.selected, 4);
}

#[test]
fn feedback_ctrl_c_still_denies_and_interrupts() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    assert_eq!(
        update(&mut s, ctrl('c')),
        vec![
            Action::Respond {
                id: 1,
                answer: Answer::Deny
            },
            Action::CancelTurn
        ]
    );
}

#[test]
fn pasted_text_goes_into_the_feedback_on_one_line() {
    let mut s = waiting(1);
    update(&mut s, chr('5'));
    update(&mut s, Event::Paste("a\nb".into()));
    assert_eq!(s.dialog.feedback.as_deref(), Some("a b"));
}

#[test]
fn requests_are_answered_in_arrival_order_and_the_next_comes_up() {
    let mut s = waiting(3);
    update(&mut s, key(KeyCode::Down));
    assert_eq!(update(&mut s, chr('4')), respond(1, Answer::Deny));
    assert_eq!(s.current_approval().map(|a| a.id), Some(2));
    assert_eq!(s.dialog.selected, 0, "the cursor starts over for the next");
    assert_eq!(update(&mut s, chr('1')), respond(2, Answer::AllowOnce));
    assert_eq!(update(&mut s, chr('1')), respond(3, Answer::AllowOnce));
    assert!(s.approvals.is_empty());
}

#[test]
fn a_request_arriving_late_is_queued_by_its_id() {
    let mut s = waiting(0);
    update(&mut s, Event::Approval(view(2, true)));
    update(&mut s, Event::Approval(view(3, true)));
    update(&mut s, Event::Approval(view(1, true)));
    let ids: Vec<u64> = s.approvals.iter().map(|a| a.id).collect();
    assert_eq!(ids, [1, 2, 3]);
}

#[test]
fn a_request_with_no_running_turn_is_denied_at_once() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    assert_eq!(
        update(&mut s, Event::Approval(view(4, true))),
        respond(4, Answer::Deny)
    );
    assert!(s.approvals.is_empty());
}

#[test]
fn a_request_arriving_while_the_turn_is_interrupted_is_denied_at_once() {
    let mut s = waiting(1);
    update(&mut s, ctrl('c'));
    assert_eq!(
        update(&mut s, Event::Approval(view(2, true))),
        respond(2, Answer::Deny)
    );
}

#[test]
fn the_end_of_a_turn_denies_what_is_still_queued() {
    let mut s = waiting(2);
    let actions = update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: true }),
    );
    assert_eq!(actions.len(), 2);
    assert!(!s.turn_running && !s.cancelling);
    assert!(s.approvals.is_empty());
    assert!(matches!(s.entries.last(), Some(Entry::Notice(_))));
}

#[test]
fn shift_tab_cycles_the_mode_in_the_modehandle_order() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let mut seen = Vec::new();
    for _ in 0..4 {
        let a = update(&mut s, key(KeyCode::BackTab));
        assert_eq!(a, vec![Action::SetMode(s.mode)]);
        seen.push(s.mode);
    }
    assert_eq!(
        seen,
        [
            Mode::AutoApprove,
            Mode::ReadOnly,
            Mode::Bypass,
            Mode::Default
        ]
    );
    let handle = crate::runtime::ModeHandle::new(Mode::Default);
    for m in seen {
        assert_eq!(handle.cycle(), m);
    }
}

#[test]
fn shift_tab_works_while_the_dialog_is_open() {
    let mut s = waiting(1);
    assert_eq!(
        update(&mut s, key(KeyCode::BackTab)),
        vec![Action::SetMode(Mode::AutoApprove)]
    );
    assert_eq!(s.approvals.len(), 1);
}

#[test]
fn typing_and_enter_submit_a_message() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    for c in "hi!".chars() {
        update(&mut s, chr(c));
    }
    update(&mut s, key(KeyCode::Backspace));
    assert_eq!(s.input, "hi");
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Action::Submit("hi".into())]
    );
    assert!(s.input.is_empty() && s.turn_running);
    assert_eq!(s.entries, vec![Entry::User("hi".into())]);
}

#[test]
fn enter_does_nothing_while_a_turn_runs_or_the_input_is_blank() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, chr(' '));
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    s.turn_running = true;
    s.input = "next".into();
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    assert_eq!(s.input, "next", "the text waits for the turn to end");
}

#[test]
fn ctrl_c_interrupts_a_turn_then_clears_the_input_then_quits() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    assert_eq!(update(&mut s, ctrl('c')), vec![Action::CancelTurn]);
    s.turn_running = false;
    s.input = "draft".into();
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
    assert!(s.input.is_empty());
    assert_eq!(update(&mut s, ctrl('c')), vec![Action::Quit]);
    assert!(s.quit);
}

#[test]
fn ctrl_d_quits_only_on_an_empty_input() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.input = "x".into();
    assert_eq!(update(&mut s, ctrl('d')), vec![]);
    s.input.clear();
    assert_eq!(update(&mut s, ctrl('d')), vec![Action::Quit]);
}

#[test]
fn key_releases_are_ignored() {
    let mut s = waiting(1);
    let release = KeyEvent {
        code: KeyCode::Char('1'),
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Release,
        state: KeyEventState::NONE,
    };
    assert_eq!(update(&mut s, Event::Key(release)), vec![]);
    assert_eq!(s.approvals.len(), 1);
}

fn long_conversation() -> State {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.size = (40, 12);
    for i in 0..50 {
        s.entries.push(Entry::Assistant(format!("line {i}")));
    }
    s
}

#[test]
fn page_up_and_down_scroll_the_conversation_within_bounds() {
    let mut s = long_conversation();
    let max = view::max_scroll(&s);
    assert!(max > 0);
    update(&mut s, key(KeyCode::PageUp));
    assert!(s.scroll > 0);
    for _ in 0..100 {
        update(&mut s, key(KeyCode::PageUp));
    }
    assert_eq!(s.scroll, max, "no scrolling past the top");
    for _ in 0..100 {
        update(&mut s, key(KeyCode::PageDown));
    }
    assert_eq!(s.scroll, 0);
}

#[test]
fn the_mouse_wheel_scrolls_three_rows() {
    let mut s = long_conversation();
    let wheel = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut s, wheel(MouseEventKind::ScrollUp));
    assert_eq!(s.scroll, 3);
    update(&mut s, wheel(MouseEventKind::ScrollDown));
    assert_eq!(s.scroll, 0);
}

#[test]
fn page_keys_scroll_a_long_command_inside_the_dialog() {
    let mut s = waiting(0);
    s.size = (60, 24);
    let long = (0..60)
        .map(|i| format!("arg{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    update(
        &mut s,
        Event::Approval(ApprovalView::new(
            1,
            &ToolCall::primary("bash", format!("echo {long}")),
            "r",
            Risk::Low,
            None,
            None,
        )),
    );
    let (total, visible) = view::detail_geometry(&s);
    assert!(total > visible, "{total} rows, {visible} shown");
    update(&mut s, key(KeyCode::PageDown));
    assert_eq!(s.dialog.detail_scroll, visible.min(total - visible));
    for _ in 0..20 {
        update(&mut s, key(KeyCode::PageDown));
    }
    assert_eq!(s.dialog.detail_scroll, total - visible);
    for _ in 0..20 {
        update(&mut s, key(KeyCode::PageUp));
    }
    assert_eq!(s.dialog.detail_scroll, 0);
    assert_eq!(s.scroll, 0, "the conversation did not move");
}

#[test]
fn agent_events_build_the_conversation() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(
        &mut s,
        Event::StartTurn {
            text: String::new(),
            shown: false,
        },
    );
    assert!(s.turn_running && s.entries.is_empty());
    update(&mut s, Event::Agent(AgentEvent::Delta("Hel".into())));
    update(&mut s, Event::Agent(AgentEvent::Delta("lo".into())));
    assert_eq!(s.streaming, "Hello");
    update(&mut s, Event::Agent(AgentEvent::Assistant("Hello".into())));
    assert!(s.streaming.is_empty());
    update(
        &mut s,
        Event::Agent(AgentEvent::ToolCall {
            id: "c1".into(),
            name: "bash".into(),
            arguments: "ls".into(),
        }),
    );
    update(
        &mut s,
        Event::Agent(AgentEvent::ToolResult {
            id: "c1".into(),
            name: "bash".into(),
            status: ResultStatus::Denied,
            content: "no".into(),
        }),
    );
    update(
        &mut s,
        Event::Agent(AgentEvent::ModelError("timeout".into())),
    );
    update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: false }),
    );
    assert!(!s.turn_running);
    assert_eq!(s.entries.len(), 4);
    assert_eq!(s.entries[3], Entry::Error("model error: timeout".into()));
}
