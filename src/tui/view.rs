//! `render(&State, &mut Frame)`: draws the conversation, the input line or the approval dialog,
//! and the status bar. Never changes the state, never panics, whatever the terminal's size.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Padding, Paragraph};
use ratatui::Frame;

use super::dialog::{self, DialogLayout};
use super::i18n::texts;
use super::state::{Entry, State};
use super::text::{tail, truncate, width, wrap};
use crate::engine::Mode;
use crate::runtime::ResultStatus;

/// Lines of a tool result shown in the conversation; the rest is summarised.
const RESULT_LINES: usize = 12;

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
        let keep = if h >= 16 { 3 } else { 0 };
        let max = h.saturating_sub(status_h + keep);
        dialog::layout(state, area.width, max)
    };
    let bottom_h = match &dialog {
        Some(d) => d.height().min(h.saturating_sub(status_h)),
        None if h >= 6 => 2,
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

fn render_input(state: &State, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let t = texts(state.lang);
    let mut y = area.y;
    if area.height >= 2 {
        let rule = "─".repeat(area.width as usize);
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                rule,
                Style::default().fg(Color::DarkGray),
            ))),
            Rect::new(area.x, y, area.width, 1),
        );
        y += 1;
    }
    let prompt = "› ";
    let room = (area.width as usize).saturating_sub(width(prompt) + 1);
    let line = if state.input.is_empty() {
        let hint = if state.turn_running {
            t.working
        } else {
            t.input_placeholder
        };
        Line::from(vec![
            Span::styled(prompt, Style::default().fg(Color::Cyan)),
            Span::styled(
                truncate(hint, room + 1),
                Style::default().fg(Color::DarkGray),
            ),
        ])
    } else {
        Line::from(vec![
            Span::styled(prompt, Style::default().fg(Color::Cyan)),
            Span::raw(super::text::sanitize(tail(&state.input, room))),
        ])
    };
    let row = Rect::new(area.x, y, area.width, 1);
    frame.render_widget(Paragraph::new(line), row);
    let shown = if state.input.is_empty() {
        0
    } else {
        width(tail(&state.input, room))
    };
    let col = (width(prompt) + shown).min((area.width as usize).saturating_sub(1));
    frame.set_cursor_position((area.x + col as u16, y));
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
    let t = texts(state.lang);
    let bar = Style::default().bg(Color::Indexed(236)).fg(Color::Gray);
    let sep = Span::styled(" │ ", bar.fg(Color::DarkGray));
    let mut spans = vec![
        Span::styled(format!(" {}: ", t.status_mode), bar),
        Span::styled(
            state.mode.as_str(),
            mode_style(state.mode).bg(Color::Indexed(236)),
        ),
        sep.clone(),
        Span::styled(format!("{}: {}", t.status_model, state.model), bar),
        sep.clone(),
        Span::styled(state.cwd.clone(), bar),
    ];
    if !state.approvals.is_empty() {
        spans.push(sep.clone());
        spans.push(Span::styled(
            format!("{} {}", state.approvals.len(), t.status_pending),
            bar.fg(dialog::risk_color(
                state
                    .approvals
                    .iter()
                    .map(|a| a.risk)
                    .max()
                    .unwrap_or(crate::call::Risk::Low),
            ))
            .add_modifier(Modifier::BOLD),
        ));
    }
    if state.scroll > 0 {
        spans.push(sep.clone());
        spans.push(Span::styled(
            format!("{} ↑{}", t.scrolled, state.scroll),
            bar,
        ));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let keys = format!("{} ", t.status_keys);
    let total = area.width as usize;
    if used + width(&keys) + 2 <= total {
        spans.push(Span::styled(" ".repeat(total - used - width(&keys)), bar));
        spans.push(Span::styled(keys, bar.fg(Color::DarkGray)));
    } else if used < total {
        spans.push(Span::styled(" ".repeat(total - used), bar));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(bar), area);
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

/// Every row of the conversation, wrapped to `width` columns.
pub fn conversation_lines(state: &State, width: usize) -> Vec<Line<'static>> {
    let t = texts(state.lang);
    let mut out: Vec<Line<'static>> = Vec::new();
    let dim = Style::default().fg(Color::DarkGray);
    let red = Style::default().fg(Color::Indexed(160));
    prefixed(&mut out, "", dim, t.welcome, dim, width);
    // The call a result follows directly (notices in between do not count).
    let mut last_call: Option<&str> = None;
    for entry in &state.entries {
        match entry {
            Entry::User(text) => {
                out.push(Line::default());
                prefixed(
                    &mut out,
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
                prefixed(
                    &mut out,
                    "● ",
                    Style::default(),
                    text,
                    Style::default(),
                    width,
                );
            }
            Entry::ToolCall {
                name, arguments, ..
            } => {
                prefixed(
                    &mut out,
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
            } => {
                let after_call = last_call == Some(id.as_str());
                let head = if after_call {
                    String::new()
                } else {
                    format!("[{name}] ")
                };
                let (style, label) = match status {
                    ResultStatus::Ok => (dim, String::new()),
                    ResultStatus::Error => (red, format!("{}: ", t.error)),
                    // "denied by the user …" says it already.
                    ResultStatus::Denied if content.starts_with("denied") => (red, String::new()),
                    ResultStatus::Denied => (red, format!("{}: ", t.denied)),
                };
                let text = format!("{head}{label}{}", content.trim_end());
                let all: Vec<&str> = text.lines().collect();
                let mut shown = all
                    .iter()
                    .take(RESULT_LINES)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n");
                if all.len() > RESULT_LINES {
                    shown.push_str(&format!("\n… +{}", all.len() - RESULT_LINES));
                }
                if shown.is_empty() {
                    shown = "(no output)".into();
                }
                prefixed(&mut out, "  ⎿ ", dim, &shown, style, width);
            }
            Entry::Notice(text) => {
                prefixed(
                    &mut out,
                    "ℹ ",
                    Style::default().fg(Color::Indexed(75)),
                    text,
                    Style::default().fg(Color::Gray),
                    width,
                );
            }
            Entry::Error(text) => {
                prefixed(&mut out, "✗ ", red, text, red, width);
            }
        }
        match entry {
            Entry::ToolCall { id, .. } => last_call = Some(id),
            Entry::Notice(_) => {}
            _ => last_call = None,
        }
    }
    if !state.streaming.is_empty() {
        out.push(Line::default());
        prefixed(
            &mut out,
            "● ",
            Style::default(),
            &state.streaming,
            Style::default(),
            width,
        );
    }
    out
}
