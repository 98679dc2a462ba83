//! `render(&State, &mut Frame)`: draws the conversation, the input line (with the
//! slash-command menu) or the approval dialog, and the status bar, where [`super::layout`]
//! placed them. Never changes the state, never panics, whatever the terminal's size.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Padding, Paragraph};
use ratatui::Frame;

use super::dialog::{self, DialogLayout};
use super::i18n::texts;
use super::layout::{areas, conversation_lines};
use super::state::State;
use super::text::{tail, truncate, width};
use crate::engine::Mode;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

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
