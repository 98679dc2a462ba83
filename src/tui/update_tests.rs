//! Unit tests of `update`: one per key of the dialog's table, the feedback input, the queue,
//! the input line, scrolling and modes.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::*;
use crate::call::{Risk, ToolCall};
use crate::runtime::{Proposal, ProposedRule, ResultStatus};
use crate::tui::i18n::Lang;
use crate::tui::state::ApprovalView;
use std::time::Duration;

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
            rules: vec![ProposedRule::prefix(&["git", "commit"])],
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
    arm(&mut s);
    s
}

/// Lets the time pass after which the dialog takes keys.
fn arm(s: &mut State) {
    let later = s.now + ARM_DELAY;
    update(s, Event::Tick(later));
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
    assert_eq!(s.dialog.selected, Choice::AllowOnce);
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.dialog.selected, Choice::AllowSession);
    update(&mut s, key(KeyCode::Up));
    update(&mut s, key(KeyCode::Up));
    assert_eq!(
        s.dialog.selected,
        Choice::DenyWithFeedback,
        "up from the first option goes to the last"
    );
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        s.dialog.selected,
        Choice::AllowOnce,
        "down from the last goes to the first"
    );
}

#[test]
fn the_cursor_skips_the_options_that_need_a_proposal_when_there_is_none() {
    let mut s = waiting(0);
    update(&mut s, Event::Approval(view(1, false)));
    arm(&mut s);
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.dialog.selected, Choice::Deny);
    update(&mut s, key(KeyCode::Up));
    assert_eq!(s.dialog.selected, Choice::AllowOnce);
}

#[test]
fn key_2_does_nothing_without_a_proposal() {
    let mut s = waiting(0);
    update(&mut s, Event::Approval(view(7, false)));
    arm(&mut s);
    assert_eq!(update(&mut s, chr('2')), vec![]);
    assert_eq!(s.approvals.len(), 1, "the request still waits");
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    assert_eq!(s.approvals.len(), 1);
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
    assert_eq!(s.dialog, Dialog::opened(s.now), "the dialog starts over");
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
    assert_eq!(s.dialog.selected, Choice::DenyWithFeedback);
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
    assert_eq!(
        s.dialog.selected,
        Choice::AllowOnce,
        "the cursor starts over for the next"
    );
    assert_eq!(
        update(&mut s, chr('1')),
        vec![],
        "the next dialog arms first"
    );
    arm(&mut s);
    assert_eq!(update(&mut s, chr('1')), respond(2, Answer::AllowOnce));
    arm(&mut s);
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
fn shift_tab_cycles_through_bypass_only_when_started_in_bypass() {
    let mut s = State::new(Lang::En, Mode::Bypass, "demo", "~/w");
    let mut seen = Vec::new();
    for _ in 0..4 {
        let a = update(&mut s, key(KeyCode::BackTab));
        assert_eq!(a, vec![Action::SetMode(s.mode)]);
        seen.push(s.mode);
    }
    assert_eq!(
        seen,
        [
            Mode::Default,
            Mode::AutoApprove,
            Mode::ReadOnly,
            Mode::Bypass,
        ]
    );
}

#[test]
fn shift_tab_leaves_bypass_out_of_the_cycle_by_default() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let mut seen = Vec::new();
    for _ in 0..4 {
        update(&mut s, key(KeyCode::BackTab));
        seen.push(s.mode);
    }
    assert_eq!(
        seen,
        [
            Mode::AutoApprove,
            Mode::ReadOnly,
            Mode::Default,
            Mode::AutoApprove
        ]
    );
}

#[test]
fn every_mode_change_writes_one_line_in_the_conversation() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, key(KeyCode::BackTab));
    assert_eq!(
        s.entries,
        vec![Entry::Notice("mode changed to auto-approve".into())]
    );
    for c in "/mode read-only".chars() {
        update(&mut s, chr(c));
    }
    let a = update(&mut s, key(KeyCode::Enter));
    assert!(a.contains(&Action::SetMode(Mode::ReadOnly)), "{a:?}");
    assert_eq!(s.entries.len(), 2);
    assert_eq!(
        s.entries[1],
        Entry::Notice("mode changed to read-only".into())
    );
}

#[test]
fn the_mode_cycle_matches_the_modehandle_order_when_bypass_is_in_it() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.bypass_in_cycle = true;
    let mut seen = Vec::new();
    for _ in 0..4 {
        update(&mut s, key(KeyCode::BackTab));
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
        vec![
            Action::SaveHistory("hi".into()),
            Action::Submit("hi".into())
        ]
    );
    assert!(s.input.is_empty() && s.turn_running);
    assert_eq!(s.entries, vec![Entry::User("hi".into())]);
}

#[test]
fn enter_on_a_blank_input_does_nothing() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, chr(' '));
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    assert!(s.entries.is_empty());
}

#[test]
fn a_message_sent_while_a_turn_runs_is_queued_and_sent_when_it_ends() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.input = "next".into();
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Action::SaveHistory("next".into())],
        "not sent yet"
    );
    s.input = "and then".into();
    update(&mut s, key(KeyCode::Enter));
    assert!(s.input.is_empty());
    assert_eq!(s.queued, ["next", "and then"]);
    let a = update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: false }),
    );
    assert_eq!(a, vec![Action::Submit("next".into())]);
    assert!(s.turn_running);
    assert_eq!(s.queued, ["and then"]);
    assert_eq!(s.entries.last(), Some(&Entry::User("next".into())));
}

#[test]
fn an_interrupted_turn_gives_the_queued_messages_back_to_the_input() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.queued.push_back("one".into());
    s.queued.push_back("two".into());
    let a = update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: true }),
    );
    assert_eq!(a, vec![], "nothing is sent after an interruption");
    assert_eq!(s.input, "one\ntwo");
    assert!(s.queued.is_empty());
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
    assert_eq!(
        update(&mut s, ctrl('c')),
        vec![],
        "the first press only warns"
    );
    assert!(s.quit_armed_until.is_some());
    assert_eq!(update(&mut s, ctrl('c')), vec![Action::Quit]);
    assert!(s.quit);
}

#[test]
fn ctrl_c_on_an_empty_prompt_shows_the_hint_and_a_second_press_quits() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
    assert!(!s.quit);
    let screen = crate::tui::view::input_hint(&s);
    assert_eq!(screen, "Press Ctrl+C again to quit");
    let later = s.now + QUIT_WINDOW / 2;
    update(&mut s, Event::Tick(later));
    assert_eq!(update(&mut s, ctrl('c')), vec![Action::Quit]);
}

#[test]
fn a_second_ctrl_c_after_the_window_only_warns_again() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, ctrl('c'));
    let later = s.now + QUIT_WINDOW;
    update(&mut s, Event::Tick(later));
    assert_eq!(s.quit_armed_until, None, "the hint is gone");
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
    assert!(!s.quit);
}

#[test]
fn a_key_between_the_two_ctrl_c_cancels_the_quit() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, ctrl('c'));
    update(&mut s, chr('x'));
    update(&mut s, key(KeyCode::Backspace));
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
    assert!(!s.quit);
}

#[test]
fn ctrl_d_deletes_under_the_cursor_and_quits_like_ctrl_c_on_an_empty_input() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.input = "xy".into();
    update(&mut s, key(KeyCode::Home));
    assert_eq!(update(&mut s, ctrl('d')), vec![]);
    assert_eq!(s.input, "y");
    s.input.clear();
    assert_eq!(update(&mut s, ctrl('d')), vec![]);
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
    let max = layout::max_scroll(&s);
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
    arm(&mut s);
    let (total, visible) = layout::detail_geometry(&s);
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
            diff: None,
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

fn typed(s: &mut State, text: &str) -> Vec<Action> {
    for c in text.chars() {
        update(s, chr(c));
    }
    update(s, key(KeyCode::Enter))
}

#[test]
fn an_enter_typed_as_the_dialog_opens_answers_nothing() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    update(&mut s, Event::Approval(view(1, true)));
    assert!(!s.dialog.armed(s.now));
    for k in [key(KeyCode::Enter), chr('1'), chr('3'), key(KeyCode::Esc)] {
        assert_eq!(update(&mut s, k), vec![], "ignored while arming");
    }
    update(&mut s, Event::Paste("yes".into()));
    assert_eq!(s.approvals.len(), 1);
    let later = s.now + ARM_DELAY;
    update(&mut s, Event::Tick(later));
    assert!(s.dialog.armed(s.now));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        respond(1, Answer::AllowOnce)
    );
}

#[test]
fn ctrl_c_denies_even_while_the_dialog_arms() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    update(&mut s, Event::Approval(view(1, true)));
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
fn esc_during_a_running_turn_interrupts_it() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.input = "draft".into();
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![Action::CancelTurn]);
    assert!(s.cancelling);
    assert_eq!(s.input, "draft", "what was typed stays");
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![], "once is enough");
    s.turn_running = false;
    s.cancelling = false;
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![]);
    assert!(s.input.is_empty(), "without a turn, Esc clears the input");
}

#[test]
fn the_input_line_edits_at_the_cursor_with_the_shell_keys() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    for c in "git status".chars() {
        update(&mut s, chr(c));
    }
    update(&mut s, ctrl('a'));
    update(&mut s, chr('>'));
    assert_eq!(s.input, ">git status");
    update(&mut s, ctrl('e'));
    update(&mut s, ctrl('w'));
    assert_eq!(s.input, ">git ");
    update(&mut s, key(KeyCode::Left));
    update(&mut s, key(KeyCode::Left));
    update(&mut s, ctrl('k'));
    assert_eq!(s.input, ">gi");
    update(&mut s, ctrl('u'));
    assert!(s.input.is_empty());
    update(&mut s, chr('a'));
    update(&mut s, key(KeyCode::Home));
    update(&mut s, chr('b'));
    update(&mut s, key(KeyCode::End));
    update(&mut s, chr('c'));
    assert_eq!(s.input, "bac");
}

#[test]
fn up_and_down_walk_the_history_of_sent_messages() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.input.set_history(vec!["first".into()]);
    typed(&mut s, "second");
    update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: false }),
    );
    update(&mut s, key(KeyCode::Up));
    assert_eq!(s.input, "second");
    update(&mut s, key(KeyCode::Up));
    assert_eq!(s.input, "first");
    update(&mut s, key(KeyCode::Down));
    update(&mut s, key(KeyCode::Down));
    assert!(s.input.is_empty());
}

#[test]
fn shift_enter_and_a_trailing_backslash_start_a_new_line() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    update(&mut s, chr('a'));
    update(
        &mut s,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT)),
    );
    update(&mut s, chr('b'));
    update(&mut s, chr('\\'));
    assert_eq!(update(&mut s, key(KeyCode::Enter)), vec![]);
    update(&mut s, chr('c'));
    assert_eq!(s.input, "a\nb\nc");
    let a = update(&mut s, key(KeyCode::Enter));
    assert!(a.contains(&Action::Submit("a\nb\nc".into())), "{a:?}");
}

#[test]
fn a_pasted_block_keeps_its_lines_and_is_not_sent_by_itself() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    assert_eq!(
        update(&mut s, Event::Paste("line 1\r\nline 2\nline 3".into())),
        vec![]
    );
    assert_eq!(s.input, "line 1\nline 2\nline 3");
    assert!(!s.turn_running);
}

#[test]
fn an_unknown_slash_command_is_an_error_and_is_never_sent() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let a = typed(&mut s, "/frobnicate now");
    assert!(!a.iter().any(|a| matches!(a, Action::Submit(_))), "{a:?}");
    assert!(!s.turn_running);
    assert!(
        matches!(s.entries.last(), Some(Entry::Error(e)) if e.contains("unknown command /frobnicate")),
        "{:?}",
        s.entries
    );
    let a = typed(&mut s, "//etc is a folder");
    assert!(
        a.contains(&Action::Submit("/etc is a folder".into())),
        "{a:?}"
    );
}

#[test]
fn slash_help_lists_the_commands() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    typed(&mut s, "/help");
    let Some(Entry::Notice(text)) = s.entries.last() else {
        panic!("{:?}", s.entries);
    };
    for cmd in ["/permissions", "/mode", "/model", "/clear"] {
        assert!(text.contains(cmd), "{cmd} in {text}");
    }
}

#[test]
fn slash_permissions_asks_the_app_to_list_and_to_remove() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let a = typed(&mut s, "/permissions");
    assert!(a.contains(&Action::Permissions(PermissionsCommand::List)));
    let a = typed(&mut s, "/permissions rm 2");
    assert!(a.contains(&Action::Permissions(PermissionsCommand::Remove(2))));
    let a = typed(&mut s, "/permissions rm zero");
    assert!(!a.iter().any(|a| matches!(a, Action::Permissions(_))));
    assert!(matches!(s.entries.last(), Some(Entry::Error(_))));
}

#[test]
fn slash_mode_refuses_bypass_unless_started_in_it() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let a = typed(&mut s, "/mode bypass");
    assert!(!a.iter().any(|a| matches!(a, Action::SetMode(_))));
    assert_eq!(s.mode, Mode::Default);
    assert!(matches!(s.entries.last(), Some(Entry::Error(e)) if e.contains("--mode bypass")));
}

#[test]
fn slash_clear_forgets_the_conversation_but_not_while_a_turn_runs() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.entries.push(Entry::User("old".into()));
    s.turn_running = true;
    let a = typed(&mut s, "/clear");
    assert!(!a.contains(&Action::ClearConversation));
    s.turn_running = false;
    let a = typed(&mut s, "/clear");
    assert!(a.contains(&Action::ClearConversation));
    assert_eq!(s.entries.len(), 1, "only the notice that it was cleared");
}

#[test]
fn slash_model_asks_the_app_for_the_servers_models() {
    let mut s = State::new(Lang::En, Mode::Default, "qwen @ localhost", "~/w");
    assert!(typed(&mut s, "/model").contains(&Action::ListModels));
}

#[test]
fn slash_model_with_a_name_switches_between_turns_only() {
    let mut s = State::new(Lang::En, Mode::Default, "qwen @ localhost", "~/w");
    assert!(typed(&mut s, "/model llama3").contains(&Action::SwitchModel("llama3".into())));
    s.turn_running = true;
    assert!(!typed(&mut s, "/model llama3").contains(&Action::SwitchModel("llama3".into())));
    assert!(matches!(s.entries.last(), Some(Entry::Error(e)) if e.contains("turn has ended")));
}

#[test]
fn a_silent_model_is_stopped_after_the_inactivity_timeout_with_its_own_message() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.inactivity_timeout = Some(Duration::from_secs(30));
    update(
        &mut s,
        Event::StartTurn {
            text: "go".into(),
            shown: true,
        },
    );
    let t0 = s.now;
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(29))),
        vec![]
    );
    update(&mut s, Event::Agent(AgentEvent::Delta("hm".into())));
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(50))),
        vec![],
        "a streamed piece counts as activity"
    );
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(59))),
        vec![Action::CancelTurn]
    );
    assert!(
        matches!(s.entries.last(), Some(Entry::Error(e)) if e.contains("no answer from the model for 30 s")),
        "{:?}",
        s.entries
    );
}

#[test]
fn a_dialog_waiting_for_a_person_is_not_inactivity() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.inactivity_timeout = Some(Duration::from_secs(30));
    update(
        &mut s,
        Event::StartTurn {
            text: "go".into(),
            shown: false,
        },
    );
    update(&mut s, Event::Approval(view(1, true)));
    let t0 = s.now;
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(600))),
        vec![]
    );
}

#[test]
fn streamed_text_is_kept_when_the_stream_is_cut() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    update(&mut s, Event::Agent(AgentEvent::Delta("Half a sen".into())));
    update(
        &mut s,
        Event::Agent(AgentEvent::ModelError("connection dropped".into())),
    );
    assert_eq!(
        s.entries,
        vec![
            Entry::Assistant("Half a sen [cut off]".into()),
            Entry::Error("model error: connection dropped".into())
        ]
    );
}

#[test]
fn an_empty_reply_is_said_as_such() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    typed(&mut s, "hello");
    update(&mut s, Event::Agent(AgentEvent::Assistant(String::new())));
    update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: false }),
    );
    assert_eq!(
        s.entries.last(),
        Some(&Entry::Notice("the model sent an empty reply".into()))
    );
}

#[test]
fn the_spinner_line_shows_the_elapsed_time_and_the_tokens() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    typed(&mut s, "hello");
    let t0 = s.now;
    update(&mut s, Event::Tick(t0 + Duration::from_secs(75)));
    update(&mut s, Event::Agent(AgentEvent::Usage(1234)));
    let line = crate::tui::view::activity_line(&s).unwrap_or_default();
    assert!(line.contains("working… 1m 15s"), "{line}");
    assert!(line.contains("1234 tokens"), "{line}");
    assert!(line.contains("Esc interrupts"), "{line}");
    update(
        &mut s,
        Event::Agent(AgentEvent::TurnEnded { cancelled: false }),
    );
    assert_eq!(crate::tui::view::activity_line(&s), None);
}

#[test]
fn an_approval_gets_a_deadline_from_the_approval_timeout() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.approval_timeout = Some(Duration::from_secs(300));
    update(&mut s, Event::Approval(view(1, true)));
    assert_eq!(
        s.current_approval().and_then(|a| a.deadline),
        Some(s.now + Duration::from_secs(300))
    );
}

#[test]
fn a_queued_approvals_deadline_counts_from_when_it_comes_to_the_dialog() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.approval_timeout = Some(Duration::from_secs(60));
    update(&mut s, Event::Approval(view(1, true)));
    update(&mut s, Event::Approval(view(2, true)));
    assert_eq!(
        s.approvals.get(1).and_then(|a| a.deadline),
        None,
        "waiting behind the first: no clock yet"
    );
    let t0 = s.now;
    // The first is answered after 50 s; the second comes up with a full minute.
    update(&mut s, Event::Tick(t0 + Duration::from_secs(50)));
    assert_eq!(update(&mut s, chr('1')), respond(1, Answer::AllowOnce));
    assert_eq!(
        s.current_approval().and_then(|a| a.deadline),
        Some(t0 + Duration::from_secs(110))
    );
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(70))),
        vec![],
        "not denied at the first one's deadline"
    );
}

#[test]
fn ctrl_o_expands_and_collapses_long_outputs() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    assert!(!s.expand_results);
    update(&mut s, ctrl('o'));
    assert!(s.expand_results);
    update(&mut s, ctrl('o'));
    assert!(!s.expand_results);
}

#[test]
fn the_queue_position_counts_the_answered_requests_of_the_batch() {
    let mut s = waiting(3);
    update(&mut s, chr('1'));
    assert_eq!(s.dialog_answered, 1);
    arm(&mut s);
    update(&mut s, chr('4'));
    assert_eq!(s.dialog_answered, 2, "the third is shown as 3 of 3");
    arm(&mut s);
    update(&mut s, chr('1'));
    assert_eq!(s.dialog_answered, 0, "an empty queue starts a new batch");
}

#[test]
fn a_request_whose_approval_timeout_passed_leaves_the_dialog_denied() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    s.approval_timeout = Some(Duration::from_secs(60));
    update(&mut s, Event::Approval(view(1, true)));
    update(&mut s, Event::Approval(view(2, true)));
    let t0 = s.now;
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(59))),
        vec![]
    );
    assert_eq!(
        update(&mut s, Event::Tick(t0 + Duration::from_secs(60))),
        respond(1, Answer::Deny)
    );
    assert_eq!(s.current_approval().map(|a| a.id), Some(2));
}

#[test]
fn a_model_error_reads_in_chinese_with_a_full_width_colon() {
    let mut s = State::new(Lang::Zh, Mode::Default, "demo", "~/w");
    s.turn_running = true;
    update(
        &mut s,
        Event::Agent(AgentEvent::ModelError(
            "the model server sent an empty response".into(),
        )),
    );
    assert_eq!(
        s.entries,
        vec![Entry::Error("模型错误：模型服务器返回了空响应".into())]
    );
}

#[test]
fn the_slash_menu_offers_the_commands_that_start_with_what_is_typed_and_tab_completes() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    assert!(s.slash_menu().is_empty());
    update(&mut s, chr('/'));
    assert_eq!(s.slash_menu().len(), 5, "every command");
    update(&mut s, chr('m'));
    let names: Vec<&str> = s.slash_menu().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["mode", "model"]);
    assert_eq!(s.slash_picked(), Some("mode"));
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.slash_picked(), Some("model"));
    update(&mut s, key(KeyCode::Down));
    assert_eq!(s.slash_picked(), Some("mode"), "round the list");
    update(&mut s, key(KeyCode::Up));
    assert_eq!(update(&mut s, key(KeyCode::Tab)), vec![]);
    assert_eq!(s.input.text(), "/model ");
    assert!(
        s.slash_menu().is_empty(),
        "a completed command closes the menu"
    );
    // `//` sends text: no menu.
    s.input.set("//et");
    assert!(s.slash_menu().is_empty());
}

#[test]
fn enter_on_an_unfinished_command_runs_the_highlighted_one() {
    let mut s = State::new(Lang::En, Mode::Default, "demo", "~/w");
    let a = typed(&mut s, "/perm");
    assert!(
        a.contains(&Action::Permissions(PermissionsCommand::List)),
        "{a:?}"
    );
    // A whole name runs as typed, even when a longer one starts with it.
    let a = typed(&mut s, "/mode");
    assert!(!a.contains(&Action::ListModels), "{a:?}");
    assert!(matches!(s.entries.last(), Some(Entry::Notice(n)) if n.starts_with("mode: default")));
}
