//! Where things go on the screen, and what the conversation's rows are, for a state and a
//! size: the areas of the conversation, the input line (with the slash-command menu) or the
//! dialog, and the status bar; the conversation laid out in rows. Drawing ([`super::view`]) and
//! scrolling ([`super::update()`]) both read it, so both agree on the geometry. It reads the
//! state and the dialog's layout, and changes nothing.

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::dialog::{self, DialogLayout};
use super::diff::{diff_style, Diff};
use super::i18n::{texts, Texts};
use super::state::{Entry, State};
use super::text::{truncate, width, wrap};
use crate::runtime::ResultStatus;

/// Lines of a tool result shown in the conversation; the rest is summarised (Ctrl+O shows all).
pub const RESULT_LINES: usize = 12;

/// Rows the input line grows to for a message of several lines.
pub const INPUT_ROWS: usize = 6;

/// Where things go on a screen of a given size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub conversation: Rect,
    pub bottom: Rect,
    pub status: Rect,
}

pub fn areas(state: &State, area: Rect) -> (Areas, Option<DialogLayout>) {
    let h = area.height as usize;
    let status_h = usize::from(h >= 2);
    let dialog = if state.approvals.is_empty() {
        None
    } else {
        // Keep a few rows of conversation on screens that can spare them.
        let keep = if h >= 24 { 3 } else { usize::from(h >= 16) };
        let max = h.saturating_sub(status_h + keep);
        dialog::layout(state, area.width, max)
    };
    let bottom_h = match &dialog {
        Some(d) => d.height().min(h.saturating_sub(status_h)),
        None if h >= 6 => {
            let rows = state
                .input
                .lines()
                .min(if h >= 16 { INPUT_ROWS } else { 2 });
            (menu_rows(state, h) + 1 + rows).min(h.saturating_sub(status_h + 2))
        }
        None => 1.min(h.saturating_sub(status_h)),
    };
    let conv_h = h.saturating_sub(status_h + bottom_h);
    let x = area.x;
    let w = area.width;
    let row = |y: usize, height: usize| Rect::new(x, area.y + y as u16, w, height as u16);
    (
        Areas {
            conversation: row(0, conv_h),
            bottom: row(conv_h, bottom_h),
            status: row(conv_h + bottom_h, status_h),
        },
        dialog,
    )
}

/// Rows the slash-command menu takes above the input line on a screen `h` rows high: one per
/// command it offers, on screens tall enough to spare them.
fn menu_rows(state: &State, h: usize) -> usize {
    if h < 12 {
        return 0;
    }
    state.slash_menu().len()
}

pub fn screen(state: &State) -> Rect {
    Rect::new(0, 0, state.size.0, state.size.1)
}

/// Rows of the conversation area at the state's terminal size.
pub fn conversation_height(state: &State) -> usize {
    areas(state, screen(state)).0.conversation.height as usize
}

/// How far the conversation can scroll up at the state's terminal size.
pub fn max_scroll(state: &State) -> usize {
    let (a, _) = areas(state, screen(state));
    conversation_lines(state, a.conversation.width as usize)
        .len()
        .saturating_sub(a.conversation.height as usize)
}

/// The dialog's command or path: its rows in all and the rows shown, at the state's size.
pub fn detail_geometry(state: &State) -> (usize, usize) {
    match areas(state, screen(state)).1 {
        Some(d) => (d.detail_total, d.detail_visible),
        None => (0, 0),
    }
}

/// `text` wrapped under a first-row prefix, later rows indented to match.
fn prefixed(
    out: &mut Vec<Line<'static>>,
    prefix: &str,
    prefix_style: Style,
    text: &str,
    style: Style,
    width_cols: usize,
) {
    let pw = width(prefix);
    for (i, row) in wrap(text, width_cols.saturating_sub(pw).max(1))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 {
            Span::styled(prefix.to_string(), prefix_style)
        } else {
            Span::raw(" ".repeat(pw))
        };
        out.push(Line::from(vec![lead, Span::styled(row, style)]));
    }
}

/// What every row of the conversation is drawn with.
struct Conversation<'a> {
    state: &'a State,
    t: &'static Texts,
    width: usize,
    dim: Style,
    red: Style,
    /// The arguments of each tool call, by the call's id.
    calls: HashMap<&'a str, &'a str>,
}

impl<'a> Conversation<'a> {
    fn new(state: &'a State, width: usize) -> Self {
        let calls = state
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::ToolCall { id, arguments, .. } => Some((id.as_str(), arguments.as_str())),
                _ => None,
            })
            .collect();
        Conversation {
            state,
            t: texts(state.lang),
            width,
            dim: Style::default().fg(Color::DarkGray),
            red: Style::default().fg(Color::Indexed(160)),
            calls,
        }
    }

    /// How many lines of a tool result are shown.
    fn result_limit(&self) -> usize {
        if self.state.expand_results {
            usize::MAX
        } else {
            RESULT_LINES
        }
    }
}

/// Every row of the conversation, wrapped to `width` columns.
pub fn conversation_lines(state: &State, width: usize) -> Vec<Line<'static>> {
    let cx = Conversation::new(state, width);
    let mut out: Vec<Line<'static>> = Vec::new();
    prefixed(&mut out, "", cx.dim, cx.t.welcome, cx.dim, width);
    // The call a result follows directly (notices in between do not count).
    let mut last_call: Option<&str> = None;
    for entry in &state.entries {
        entry_lines(&mut out, &cx, entry, last_call);
        match entry {
            Entry::ToolCall { id, .. } => last_call = Some(id),
            Entry::Notice(_) => {}
            _ => last_call = None,
        }
    }
    unsent_lines(&mut out, &cx);
    out
}

/// The rows of one entry; `last_call` is the id of the call it directly follows, if any.
fn entry_lines(
    out: &mut Vec<Line<'static>>,
    cx: &Conversation,
    entry: &Entry,
    last_call: Option<&str>,
) {
    let width = cx.width;
    match entry {
        Entry::User(text) => {
            out.push(Line::default());
            prefixed(
                out,
                "› ",
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
                text,
                Style::default().fg(Color::Cyan),
                width,
            );
        }
        Entry::Assistant(text) => {
            out.push(Line::default());
            prefixed(out, "● ", Style::default(), text, Style::default(), width);
        }
        Entry::ToolCall {
            name, arguments, ..
        } => {
            prefixed(
                out,
                "⚙ ",
                Style::default().fg(Color::Indexed(75)),
                &format!("{name}  {arguments}"),
                Style::default().add_modifier(Modifier::BOLD),
                width,
            );
        }
        Entry::ToolResult {
            id,
            name,
            status,
            content,
            diff,
        } => {
            let after_call = last_call == Some(id.as_str());
            if !after_call {
                answered_call_line(out, cx, name, id);
            }
            let (style, shown) = result_text(cx, *status, content);
            let lead = if after_call { "  ⎿ " } else { "    " };
            prefixed(out, lead, cx.dim, &shown, style, width);
            if let Some(d) = diff.as_ref().filter(|d| !d.is_empty()) {
                diff_lines(out, d, cx.result_limit(), cx.state, width);
            }
        }
        Entry::Notice(text) => notice_lines(out, cx, text),
        Entry::Error(text) => {
            prefixed(out, "✗ ", cx.red, text, cx.red, width);
        }
    }
}

/// Something the runtime says, in the person's language.
fn notice_lines(out: &mut Vec<Line<'static>>, cx: &Conversation, text: &str) {
    let text = match cx.state.lang {
        crate::tui::Lang::Zh => super::zh::message(text),
        crate::tui::Lang::En => text.to_string(),
    };
    prefixed(
        out,
        "ℹ ",
        Style::default().fg(Color::Indexed(75)),
        &text,
        Style::default().fg(Color::Gray),
        cx.width,
    );
}

/// The call a result answers, by name and arguments, for a result that does not follow it.
fn answered_call_line(out: &mut Vec<Line<'static>>, cx: &Conversation, name: &str, id: &str) {
    let args = cx.calls.get(id).copied().unwrap_or("");
    let head = format!("{name} {args}");
    out.push(Line::from(vec![
        Span::styled("  ⎿ ", cx.dim),
        Span::styled(
            truncate(
                &super::text::sanitize(&head).replace('\n', " "),
                cx.width.saturating_sub(4),
            ),
            Style::default().add_modifier(Modifier::BOLD),
        ),
    ]));
}

/// A tool result's style and text: labelled by its status, cut to the lines shown.
fn result_text(cx: &Conversation, status: ResultStatus, content: &str) -> (Style, String) {
    let t = cx.t;
    let (style, label) = match status {
        ResultStatus::Ok => (cx.dim, String::new()),
        ResultStatus::Error => (cx.red, format!("{}: ", t.error)),
        // "denied by the user …" says it already.
        ResultStatus::Denied if content.starts_with("denied") => (cx.red, String::new()),
        ResultStatus::Denied => (cx.red, format!("{}: ", t.denied)),
    };
    let content = match (cx.state.lang, status) {
        // The runtime's own words (a denial); a tool's output stays as it is.
        (crate::tui::Lang::Zh, ResultStatus::Denied) => super::zh::message(content),
        _ => content.to_string(),
    };
    let text = format!("{label}{}", content.trim_end());
    let limit = cx.result_limit();
    let all: Vec<&str> = text.lines().collect();
    let mut shown = all
        .iter()
        .take(limit)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if all.len() > limit {
        shown.push_str(&format!("\n… +{} ({})", all.len() - limit, t.expand_hint));
    } else if all.len() > RESULT_LINES {
        shown.push_str(&format!("\n({})", t.collapse_hint));
    }
    if shown.is_empty() {
        shown = t.no_output.into();
    }
    (style, shown)
}

/// What is not in the conversation yet: the reply being streamed, then the queued messages.
fn unsent_lines(out: &mut Vec<Line<'static>>, cx: &Conversation) {
    let state = cx.state;
    if !state.streaming.is_empty() {
        out.push(Line::default());
        prefixed(
            out,
            "● ",
            Style::default(),
            &state.streaming,
            Style::default(),
            cx.width,
        );
    }
    for q in &state.queued {
        prefixed(
            out,
            "⏳ ",
            cx.dim,
            &format!("{}: {q}", cx.t.queued),
            cx.dim,
            cx.width,
        );
    }
}

/// A change a call made, under its result: the counts, then the rows (up to `limit`).
fn diff_lines(out: &mut Vec<Line<'static>>, d: &Diff, limit: usize, state: &State, width: usize) {
    let t = texts(state.lang);
    let dim = Style::default().fg(Color::DarkGray);
    out.push(Line::from(vec![
        Span::raw("    "),
        Span::styled(d.summary(), dim),
    ]));
    for l in d.lines.iter().take(limit) {
        prefixed(out, "    ", dim, &l.text, diff_style(l.kind), width);
    }
    if d.lines.len() > limit {
        out.push(Line::from(Span::styled(
            format!("    … +{} ({})", d.lines.len() - limit, t.expand_hint),
            dim,
        )));
    }
}
