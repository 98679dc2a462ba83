//! `render(&State, &mut Frame)`: draws the conversation, the input line or the approval dialog,
//! and the status bar. Never changes the state, never panics, whatever the terminal's size.

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Padding, Paragraph};
use ratatui::Frame;

use super::dialog::{self, DialogLayout};
use super::diff::{Diff, DiffKind};
use super::i18n::{texts, Texts};
use super::state::{Entry, State};
use super::text::{tail, truncate, width, wrap};
use crate::engine::Mode;
use crate::runtime::ResultStatus;

/// Lines of a tool result shown in the conversation; the rest is summarised (Ctrl+O shows all).
const RESULT_LINES: usize = 12;
/// Rows the input line grows to for a message of several lines.
const INPUT_ROWS: usize = 6;
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Where things go on a screen of a given size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Areas {
    conversation: Rect,
    bottom: Rect,
    status: Rect,
}

fn areas(state: &State, area: Rect) -> (Areas, Option<DialogLayout>) {
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

/// The slash-command menu's rows: each command and what it does, the highlighted one marked.
fn menu_lines(state: &State, w: usize) -> Vec<Line<'static>> {
    let menu = state.slash_menu();
    let picked = state.slash_picked();
    let name_w = menu.iter().map(|(n, _)| width(n) + 1).max().unwrap_or(0) + 2;
    menu.iter()
        .map(|(name, what)| {
            let on = picked == Some(*name);
            let (mark, style) = if on {
                (
                    "▶ ",
                    Style::default()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                ("  ", Style::default().fg(Color::Gray))
            };
            let head = super::text::pad(&format!("/{name}"), name_w);
            let rest = w.saturating_sub(width(mark) + name_w);
            Line::from(vec![
                Span::styled(format!("{mark}{head}"), style),
                Span::styled(truncate(what, rest), Style::default().fg(Color::DarkGray)),
            ])
        })
        .collect()
}

fn screen(state: &State) -> Rect {
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

/// Draws the whole screen.
pub fn render(state: &State, frame: &mut Frame) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let (a, dialog) = areas(state, area);
    render_conversation(state, frame, a.conversation);
    match dialog {
        Some(d) => render_dialog(frame, a.bottom, &d),
        None => render_input(state, frame, a.bottom),
    }
    render_status(state, frame, a.status);
}

fn render_dialog(frame: &mut Frame, area: Rect, d: &DialogLayout) {
    if area.height == 0 {
        return;
    }
    frame.render_widget(Clear, area);
    let inner = if d.bordered {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(Style::default().fg(d.color))
            .padding(Padding::horizontal(1));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        inner
    } else {
        area
    };
    frame.render_widget(Paragraph::new(d.lines.clone()), inner);
    if let Some((col, row)) = d.cursor {
        if col < inner.width && row < inner.height {
            frame.set_cursor_position((inner.x + col, inner.y + row));
        }
    }
}

/// "12s", "3m 05s".
pub fn elapsed(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{secs}s")
    } else {
        format!("{}m {:02}s", secs / 60, secs % 60)
    }
}

/// The line above the input while a turn runs: a spinner, the time it has taken, the tokens
/// the server reported, and how to interrupt.
pub fn activity_line(state: &State) -> Option<String> {
    let started = state.turn_started.filter(|_| state.turn_running)?;
    let t = texts(state.lang);
    let took = state.now.saturating_duration_since(started);
    let frame = SPINNER[(took.as_millis() / 100) as usize % SPINNER.len()];
    let what = if state.cancelling {
        t.interrupted
    } else if state.running_tools > 0 {
        t.running_tool
    } else {
        t.thinking
    };
    let mut line = format!("{frame} {what}… {}", elapsed(took));
    if let Some(n) = state.tokens {
        line.push_str(&format!(" · {n} {}", t.tokens));
    }
    if !state.cancelling {
        line.push_str(&format!(" · {}", t.esc_interrupts));
    }
    Some(line)
}

/// What an empty input line says: how to quit after one Ctrl+C, that the agent works, or how
/// to send.
pub fn input_hint(state: &State) -> &'static str {
    let t = texts(state.lang);
    if state.quit_armed_until.is_some() {
        t.quit_hint
    } else if state.turn_running {
        t.working
    } else {
        t.input_placeholder
    }
}

fn render_input(state: &State, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let mut y = area.y;
    let w = area.width as usize;
    // The slash-command menu, above the line, when the rows are there.
    let menu = menu_lines(state, w);
    if !menu.is_empty() && area.height as usize >= menu.len() + 2 {
        for line in menu {
            frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, area.width, 1));
            y += 1;
        }
    }
    let area = Rect::new(
        area.x,
        y,
        area.width,
        (area.y + area.height).saturating_sub(y),
    );
    if area.height >= 2 {
        let dim = Style::default().fg(Color::DarkGray);
        let line = match activity_line(state) {
            Some(text) => {
                let text = truncate(&text, w.saturating_sub(3));
                let rest = w.saturating_sub(3 + width(&text));
                Line::from(vec![
                    Span::styled("─ ", dim),
                    Span::styled(text, Style::default().fg(Color::Indexed(75))),
                    Span::styled(format!(" {}", "─".repeat(rest)), dim),
                ])
            }
            None => Line::from(Span::styled("─".repeat(w), dim)),
        };
        frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, area.width, 1));
        y += 1;
    }
    let rows = (area.y + area.height).saturating_sub(y) as usize;
    if rows == 0 {
        return;
    }
    let prompt = "› ";
    let pw = width(prompt);
    let room = w.saturating_sub(pw + 1);
    let prompt_style = Style::default().fg(Color::Cyan);
    if state.input.is_empty() {
        let hint = input_hint(state);
        let style = if state.quit_armed_until.is_some() {
            Style::default().fg(Color::Indexed(220))
        } else {
            Style::default().fg(Color::DarkGray)
        };
        let line = Line::from(vec![
            Span::styled(prompt, prompt_style),
            Span::styled(truncate(hint, room + 1), style),
        ]);
        frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, area.width, 1));
        frame.set_cursor_position((area.x + pw.min(w.saturating_sub(1)) as u16, y));
        return;
    }
    let text = state.input.text();
    let (cur_row, _) = state.input.position();
    let line_start = text[..state.input.cursor()]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let before_cursor = &text[line_start..state.input.cursor()];
    let first = (cur_row + 1).saturating_sub(rows);
    let mut cursor = (0usize, 0usize);
    for (i, line) in text.split('\n').enumerate().skip(first).take(rows) {
        let shown = if i == cur_row {
            if width(before_cursor) >= room {
                let t = tail(before_cursor, room);
                cursor = (pw + width(t), i - first);
                t.to_string()
            } else {
                cursor = (pw + width(before_cursor), i - first);
                truncate(line, room + 1)
            }
        } else {
            truncate(line, room + 1)
        };
        let lead = if i == 0 { prompt } else { "  " };
        let row = Line::from(vec![
            Span::styled(lead, prompt_style),
            Span::raw(super::text::sanitize(&shown)),
        ]);
        frame.render_widget(
            Paragraph::new(row),
            Rect::new(area.x, y + (i - first) as u16, area.width, 1),
        );
    }
    let col = cursor.0.min(w.saturating_sub(1));
    frame.set_cursor_position((area.x + col as u16, y + cursor.1 as u16));
}

fn mode_style(mode: Mode) -> Style {
    let c = match mode {
        Mode::Default => Color::Indexed(114),
        Mode::AutoApprove => Color::Indexed(208),
        Mode::ReadOnly => Color::Indexed(75),
        Mode::Bypass => Color::Indexed(160),
    };
    Style::default().fg(c).add_modifier(Modifier::BOLD)
}

fn render_status(state: &State, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let spans = status_spans(state, area.width as usize);
    let bar = Style::default().bg(Color::Indexed(236)).fg(Color::Gray);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(bar), area);
}

/// The status bar's parts that fit in `total` columns: whole parts only, never a cut word.
/// The mode comes first; then, by importance, the pending requests, the scroll position, the
/// model, the folder, and the keys (at the right end).
pub fn status_spans(state: &State, total: usize) -> Vec<Span<'static>> {
    let t = texts(state.lang);
    let bar = Style::default().bg(Color::Indexed(236)).fg(Color::Gray);
    let sep = || Span::styled(" │ ", bar.fg(Color::DarkGray));
    // Full-width in Chinese.
    let colon = match state.lang {
        crate::tui::Lang::Zh => "：",
        crate::tui::Lang::En => ": ",
    };
    let mode = mode_part(state, bar, colon, total);
    let parts = status_parts(state, bar, colon);
    let mut used = spans_width(&mode);
    let keep = parts_that_fit(&parts, &mut used, total);
    let mut spans = mode;
    for (i, (_, part)) in parts.into_iter().enumerate() {
        if keep[i] {
            spans.push(sep());
            spans.extend(part);
        }
    }
    let keys = format!("{} ", t.status_keys);
    if used + width(&keys) + 2 <= total {
        spans.push(Span::styled(" ".repeat(total - used - width(&keys)), bar));
        spans.push(Span::styled(keys, bar.fg(Color::DarkGray)));
    } else if used < total {
        spans.push(Span::styled(" ".repeat(total - used), bar));
    }
    spans
}

fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum::<usize>()
}

/// The mode, labelled when that fits in `total` columns, else bare, else nothing.
fn mode_part(state: &State, bar: Style, colon: &str, total: usize) -> Vec<Span<'static>> {
    let t = texts(state.lang);
    let mode_value = Span::styled(
        state.mode.as_str(),
        mode_style(state.mode).bg(Color::Indexed(236)),
    );
    let mode_full = vec![
        Span::styled(format!(" {}{colon}", t.status_mode), bar),
        mode_value.clone(),
    ];
    let mode_short = vec![Span::styled(" ", bar), mode_value];
    if spans_width(&mode_full) <= total {
        mode_full
    } else if spans_width(&mode_short) <= total {
        mode_short
    } else {
        Vec::new()
    }
}

/// The status bar's parts after the mode, each with its priority (lower numbers are kept first).
fn status_parts(state: &State, bar: Style, colon: &str) -> Vec<(u8, Vec<Span<'static>>)> {
    let t = texts(state.lang);
    let mut parts: Vec<(u8, Vec<Span<'static>>)> = Vec::new();
    parts.push((
        3,
        vec![Span::styled(
            format!("{}{colon}{}", t.status_model, state.model),
            bar,
        )],
    ));
    parts.push((4, vec![Span::styled(state.cwd.clone(), bar)]));
    if !state.approvals.is_empty() {
        let risk = state
            .approvals
            .iter()
            .map(|a| a.risk)
            .max()
            .unwrap_or(crate::call::Risk::Low);
        parts.push((
            1,
            vec![Span::styled(
                format!("{} {}", state.approvals.len(), t.status_pending),
                bar.fg(dialog::risk_color(risk))
                    .add_modifier(Modifier::BOLD),
            )],
        ));
    }
    if state.scroll > 0 {
        parts.push((
            2,
            vec![Span::styled(
                format!("{} ↑{}", t.scrolled, state.scroll),
                bar,
            )],
        ));
    }
    parts
}

/// Which parts fit after the `used` columns, taken by priority, each with its separator;
/// `used` grows by what they take.
fn parts_that_fit(parts: &[(u8, Vec<Span<'static>>)], used: &mut usize, total: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| parts[i].0);
    let mut keep = vec![false; parts.len()];
    for i in order {
        let need = 3 + spans_width(&parts[i].1);
        if *used + need <= total {
            *used += need;
            keep[i] = true;
        }
    }
    keep
}

fn render_conversation(state: &State, frame: &mut Frame, area: Rect) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let lines = conversation_lines(state, area.width as usize);
    let h = area.height as usize;
    let max = lines.len().saturating_sub(h);
    let end = lines.len() - state.scroll.min(max);
    let start = end.saturating_sub(h);
    let shown: Vec<Line<'static>> = lines[start..end].to_vec();
    frame.render_widget(Paragraph::new(shown), area);
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

/// The colour of a diff row.
pub fn diff_style(kind: DiffKind) -> Style {
    match kind {
        DiffKind::Added => Style::default().fg(Color::Indexed(114)),
        DiffKind::Removed => Style::default().fg(Color::Indexed(174)),
        DiffKind::Hunk => Style::default().fg(Color::Indexed(75)),
        DiffKind::Context => Style::default().fg(Color::Gray),
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
