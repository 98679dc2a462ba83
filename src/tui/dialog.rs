//! The approval dialog's lines, laid out for a width and the rows it may take. The same layout
//! serves drawing and scrolling (through [`super::layout`]), so both agree on how
//! many rows a long command takes.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::i18n::{texts, Texts};
use super::state::{ApprovalView, Choice, State, SubjectKind};
use super::text::{pad, truncate, width, wrap};
use crate::call::Risk;

/// The colour of a risk: ANSI 256 colour 160 (red), 208 (orange), 220 (yellow).
pub fn risk_color(risk: Risk) -> Color {
    match risk {
        Risk::High => Color::Indexed(160),
        Risk::Medium => Color::Indexed(208),
        Risk::Low => Color::Indexed(220),
    }
}

/// How much of the dialog fits, from everything down to a title and the highlighted option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Full,
    Compact,
    Snug,
    Bare,
    Tight,
    Tiny,
}

struct Params {
    bordered: bool,
    blanks: bool,
    reason_rows: usize,
    detail_rows: usize,
    option_rows: usize,
    details: bool,
    hint: bool,
    all_options: bool,
    feedback_rows: usize,
}

impl Level {
    fn params(self) -> Params {
        match self {
            Level::Full => Params {
                bordered: true,
                blanks: true,
                reason_rows: usize::MAX,
                detail_rows: 8,
                option_rows: usize::MAX,
                details: true,
                hint: true,
                all_options: true,
                feedback_rows: 3,
            },
            // Each level gives up something more than the one above it.
            Level::Compact => Params {
                blanks: false,
                detail_rows: 3,
                feedback_rows: 1,
                ..Level::Full.params()
            },
            Level::Snug => Params {
                detail_rows: 2,
                details: false,
                hint: false,
                ..Level::Compact.params()
            },
            Level::Bare => Params {
                reason_rows: 0,
                detail_rows: 1,
                ..Level::Snug.params()
            },
            Level::Tight => Params {
                bordered: false,
                ..Level::Bare.params()
            },
            Level::Tiny => Params {
                detail_rows: 0,
                option_rows: 1,
                all_options: false,
                ..Level::Tight.params()
            },
        }
    }
}

/// The dialog, laid out.
#[derive(Debug, Clone)]
pub struct DialogLayout {
    pub lines: Vec<Line<'static>>,
    pub bordered: bool,
    pub color: Color,
    /// Rows of the command or path, and how many of them are shown.
    pub detail_total: usize,
    pub detail_visible: usize,
    /// Where the feedback input's cursor goes, relative to the inside of the dialog.
    pub cursor: Option<(u16, u16)>,
}

impl DialogLayout {
    /// The rows the dialog takes, borders included.
    pub fn height(&self) -> usize {
        self.lines.len() + if self.bordered { 2 } else { 0 }
    }
}

/// Lays out the dialog of the first request in the queue for `width` columns and at most
/// `max_height` rows (it may still be taller when even the tiniest layout does not fit; the
/// caller clips it).
pub fn layout(state: &State, width: u16, max_height: usize) -> Option<DialogLayout> {
    let view = state.current_approval()?;
    let levels = [
        Level::Full,
        Level::Compact,
        Level::Snug,
        Level::Bare,
        Level::Tight,
        Level::Tiny,
    ];
    let mut last = None;
    for level in levels {
        let d = build(state, view, width as usize, max_height, level);
        if d.height() <= max_height {
            return Some(d);
        }
        last = Some(d);
    }
    last
}

/// Lays out the dialog at one level: the fixed rows above and below, then the command or path
/// in the rows that are left.
fn build(
    state: &State,
    view: &ApprovalView,
    width: usize,
    max_height: usize,
    level: Level,
) -> DialogLayout {
    let c = Ctx::new(state, view, width, level);
    let head = head_lines(&c);
    let (details, subject_rows) = detail_rows(&c);
    let (mut tail, cursor) = tail_lines(&c);

    // The command or path takes the rows that are left, up to the level's limit.
    let borders = if c.p.bordered { 2 } else { 0 };
    let fixed = head.len() + tail.len() + borders;
    let room = max_height.saturating_sub(fixed);
    let visible = visible_detail_rows(&c, details.len(), room);
    let total = details.len();
    let start = state
        .dialog
        .detail_scroll
        .min(total.saturating_sub(visible));
    let mut lines = head;
    let window = DetailWindow {
        start,
        visible,
        total,
        subject_rows,
    };
    push_detail_lines(&c, &mut lines, &details, window);
    let cursor = cursor.map(|(col, r)| (col, r + lines.len() as u16));
    write_hint(&c, &mut tail, window);
    lines.extend(tail);
    DialogLayout {
        lines,
        bordered: c.p.bordered,
        color: c.color,
        detail_total: total,
        detail_visible: visible,
        cursor,
    }
}

/// What every part of one layout needs: the request, the texts, the level's limits, the colours
/// and the columns.
struct Ctx<'a> {
    state: &'a State,
    view: &'a ApprovalView,
    t: &'static Texts,
    p: Params,
    level: Level,
    color: Color,
    /// Columns inside the borders and padding.
    inner: usize,
    /// Columns of the label column, and of the value column beside it.
    lw: usize,
    value_w: usize,
    subject_label: &'static str,
    label_style: Style,
    dim: Style,
}

impl<'a> Ctx<'a> {
    /// Works out the columns and styles of a layout at `level` for `width` columns.
    fn new(state: &'a State, view: &'a ApprovalView, width: usize, level: Level) -> Self {
        let p = level.params();
        let t = texts(state.lang);
        let color = risk_color(view.risk);
        // Inside the borders, one column of padding on each side.
        let inner = if p.bordered {
            width.saturating_sub(4)
        } else {
            width
        }
        .max(1);
        let subject_label = match view.kind {
            SubjectKind::Command => t.command,
            SubjectKind::Path => t.path,
            SubjectKind::Arguments => t.arguments,
        };
        // The diff's label (`Changes:`) sits in the same column as the others.
        let diff_label = view.diff.as_ref().map(|_| t.diff_label);
        let lw = [t.tool, t.reason, subject_label, t.rule]
            .iter()
            .chain(diff_label.iter())
            .map(|l| self::width(l))
            .max()
            .unwrap_or(0)
            // A full-width colon (`工具：`) brings its own space.
            + usize::from(!t.tool.ends_with('：'));
        let value_w = inner.saturating_sub(lw).max(1);
        Ctx {
            state,
            view,
            t,
            p,
            level,
            color,
            inner,
            lw,
            value_w,
            subject_label,
            label_style: Style::default().fg(Color::Gray),
            dim: Style::default().fg(Color::DarkGray),
        }
    }
}

/// The rows above the command or path: the title, the tool and the reason.
fn head_lines(c: &Ctx<'_>) -> Vec<Line<'static>> {
    let (state, view, t, p) = (c.state, c.view, c.t, &c.p);
    let mut head: Vec<Line<'static>> = Vec::new();
    let mut title = title_line(state, t, view, c.color, c.inner);
    if !p.hint && !state.dialog.armed(state.now) && title.width() + 2 <= c.inner {
        // No hint row to say it: the title says that keys are not taken yet.
        title.spans.push(Span::styled(
            " ⏳",
            Style::default().fg(Color::Indexed(220)),
        ));
    }
    head.push(title);
    if p.blanks {
        head.push(Line::default());
    }
    if p.details {
        head.push(Line::from(vec![
            Span::styled(pad(t.tool, c.lw), c.label_style),
            Span::raw(truncate(&view.tool, c.value_w)),
        ]));
    }
    if p.reason_rows > 0 {
        let reason = wrap(&super::text::localize(state.lang, &view.reason), c.value_w);
        let shown = reason.len().min(p.reason_rows);
        for (i, r) in reason.iter().take(shown).enumerate() {
            let label = if i == 0 { t.reason } else { "" };
            let r = if i + 1 == shown && reason.len() > shown {
                truncate(&format!("{r}…"), c.value_w)
            } else {
                r.clone()
            };
            head.push(Line::from(vec![
                Span::styled(pad(label, c.lw), c.label_style),
                Span::raw(r),
            ]));
        }
    }
    head
}

/// One row of the scrollable area: whether it sits in the value column, its text, its style.
type DetailRow = (bool, String, Style);

/// The command or path, then (for a file write or edit) the diff: one scrollable area, and how
/// many of its rows are the command or path.
fn detail_rows(c: &Ctx<'_>) -> (Vec<DetailRow>, usize) {
    // Subject rows sit in the value column, diff rows use the whole width.
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut details: Vec<DetailRow> = wrap(&c.view.subject, c.value_w)
        .into_iter()
        .map(|r| (true, r, bold))
        .collect();
    let subject_rows = details.len();
    if let Some(d) = &c.view.diff {
        let mut head = format!("{}{}", pad(c.t.diff_label, c.lw), d.summary());
        if d.new_file {
            head.push_str(&format!(" ({})", c.t.new_file));
        }
        for r in wrap(&head, c.inner) {
            details.push((false, r, c.label_style));
        }
        for l in &d.lines {
            for r in wrap(&l.text, c.inner) {
                details.push((false, r, super::diff::diff_style(l.kind)));
            }
        }
    }
    (details, subject_rows)
}

/// The rows below the command or path: the rule, the deadline, then the feedback input or the
/// options; with the feedback cursor relative to the first of these rows.
fn tail_lines(c: &Ctx<'_>) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
    let (state, view, t, p) = (c.state, c.view, c.t, &c.p);
    let mut tail: Vec<Line<'static>> = Vec::new();
    if p.details {
        let rule = view.rule.as_deref().unwrap_or(t.no_rule);
        tail.push(Line::from(vec![
            Span::styled(pad(t.rule, c.lw), c.label_style),
            Span::raw(truncate(rule, c.value_w)),
        ]));
    }
    if let Some(deadline) = view.deadline.filter(|_| p.hint) {
        let left = deadline.saturating_duration_since(state.now);
        let secs = left.as_secs();
        let text = t
            .denied_in
            .replace("{t}", &format!("{}:{:02}", secs / 60, secs % 60));
        tail.push(Line::from(Span::styled(
            truncate(&format!("⏱ {text}"), c.inner),
            Style::default().fg(Color::Indexed(220)),
        )));
    }
    if p.blanks {
        tail.push(Line::default());
    }
    let mut cursor = None;
    match &state.dialog.feedback {
        Some(text) => cursor = Some(feedback_lines(c, &mut tail, text)),
        None => choice_lines(c, &mut tail),
    }
    (tail, cursor)
}

/// The feedback input in place of the options; returns where its cursor goes in `tail`.
fn feedback_lines(c: &Ctx<'_>, tail: &mut Vec<Line<'static>>, text: &str) -> (u16, u16) {
    let (t, p, inner, color) = (c.t, &c.p, c.inner, c.color);
    let selected = Style::default().fg(color).add_modifier(Modifier::BOLD);
    tail.push(Line::from(Span::styled(
        truncate(
            &format!(
                "▶ [{}] {}",
                Choice::DenyWithFeedback.index() + 1,
                t.options[Choice::DenyWithFeedback.index()]
            ),
            inner,
        ),
        selected,
    )));
    if c.level != Level::Tiny {
        tail.push(Line::from(Span::styled(
            truncate(&format!("  {}", t.feedback_prompt), inner),
            c.label_style,
        )));
    }
    let rows = wrap(text, inner.saturating_sub(4).max(1));
    let skip = rows.len().saturating_sub(p.feedback_rows);
    for (i, r) in rows.iter().skip(skip).enumerate() {
        let lead = if i == 0 { "  > " } else { "    " };
        tail.push(Line::from(vec![
            Span::styled(lead, Style::default().fg(color)),
            Span::raw(r.clone()),
        ]));
    }
    let last = rows.last().map_or(0, |r| self::width(r));
    let col = (4 + last).min(inner.saturating_sub(1));
    let cursor = (col as u16, (tail.len() - 1) as u16);
    if p.blanks {
        tail.push(Line::default());
    }
    if p.hint {
        tail.push(Line::from(Span::styled(
            truncate(t.feedback_hint, inner),
            c.dim,
        )));
    }
    cursor
}

/// The options the level shows, then room for the hint row.
fn choice_lines(c: &Ctx<'_>, tail: &mut Vec<Line<'static>>) {
    let p = &c.p;
    for choice in Choice::ALL {
        let selected = c.state.dialog.selected == choice;
        if !p.all_options && !selected {
            continue;
        }
        let label = c.t.options[choice.index()];
        let row = OptionRow {
            choice,
            label,
            selected,
        };
        option_lines(tail, c.t, c.view, row, c.color, c.inner, p);
    }
    if p.blanks {
        tail.push(Line::default());
    }
    if p.hint {
        // Written below, once it is known whether the command needs scrolling.
        tail.push(Line::default());
    }
}

/// How many rows of the scrollable area are shown, given the `room` the other rows leave.
fn visible_detail_rows(c: &Ctx<'_>, rows: usize, room: usize) -> usize {
    let limit = if c.view.diff.is_some() && c.p.detail_rows > 0 {
        c.p.detail_rows * 2
    } else {
        c.p.detail_rows
    };
    if limit == 0 {
        0
    } else {
        rows.min(limit).min(room.max(1))
    }
}

/// The part of the scrollable area in view: its first row, how many rows are shown, how many
/// there are, and how many of them are the command or path.
#[derive(Clone, Copy)]
struct DetailWindow {
    start: usize,
    visible: usize,
    total: usize,
    subject_rows: usize,
}

/// Adds the rows of the scrollable area that are in view, with the label column beside the
/// command or path.
fn push_detail_lines(
    c: &Ctx<'_>,
    lines: &mut Vec<Line<'static>>,
    details: &[DetailRow],
    w: DetailWindow,
) {
    let lw = c.lw;
    let rows = details.iter().skip(w.start).take(w.visible).enumerate();
    for (i, (labelled, d, style)) in rows {
        if !labelled {
            lines.push(Line::from(Span::styled(d.clone(), *style)));
            continue;
        }
        let label = if i == 0 {
            pad(c.subject_label, lw)
        } else if i == 1 && w.total > w.visible && w.subject_rows > 1 {
            pad(
                &truncate(
                    &format!("↕{}/{}", w.start + w.visible, w.total),
                    lw.saturating_sub(1),
                ),
                lw,
            )
        } else {
            pad("", lw)
        };
        let label_span = if i == 0 {
            Span::styled(label, c.label_style)
        } else {
            Span::styled(label, c.dim)
        };
        lines.push(Line::from(vec![
            label_span,
            Span::styled(d.clone(), *style),
        ]));
    }
}

/// Writes the hint into the last row of `tail`: that keys are not taken yet, or the keys, with
/// the scroll keys only when the command does not fit.
fn write_hint(c: &Ctx<'_>, tail: &mut [Line<'static>], w: DetailWindow) {
    let (state, t, inner) = (c.state, c.t, c.inner);
    if !c.p.hint || state.dialog.feedback.is_some() {
        return;
    }
    let Some(last) = tail.last_mut() else {
        return;
    };
    if !state.dialog.armed(state.now) {
        *last = Line::from(Span::styled(
            truncate(&format!("⏳ {}", t.arming), inner),
            Style::default().fg(Color::Indexed(220)),
        ));
    } else {
        let mut hint = t.hint.to_string();
        if w.total > w.visible {
            hint.push_str(&format!(
                "  {} ↕{}-{}/{}",
                t.more_lines,
                w.start + 1,
                w.start + w.visible,
                w.total
            ));
        }
        *last = Line::from(Span::styled(truncate(&hint, inner), c.dim));
    }
}

fn title_line(
    state: &State,
    t: &Texts,
    view: &ApprovalView,
    color: Color,
    inner: usize,
) -> Line<'static> {
    let title = format!("⚠  {} [{}]", t.dialog_title, t.risk(view.risk));
    let title_style = Style::default().fg(color).add_modifier(Modifier::BOLD);
    // The position in the batch: after one of three is answered, "2 of 3".
    let done = state.dialog_answered;
    let n = state.approvals.len() + done;
    if n > 1 {
        let pos = t.queue(done + 1, n);
        let gap = inner.saturating_sub(width(&title) + width(&pos));
        if gap >= 2 {
            return Line::from(vec![
                Span::styled(title, title_style),
                Span::raw(" ".repeat(gap)),
                Span::styled(pos, Style::default().fg(Color::Gray)),
            ]);
        }
        let short = format!("⚠ [{}] {}", t.risk(view.risk), pos);
        return Line::from(Span::styled(truncate(&short, inner), title_style));
    }
    if width(&title) > inner {
        // Narrow: the risk first, so that it survives the cut.
        let short = format!("⚠ [{}] {}", t.risk(view.risk), t.dialog_title);
        return Line::from(Span::styled(truncate(&short, inner), title_style));
    }
    Line::from(Span::styled(title, title_style))
}

/// One of the dialog's options, its label, whether it is selected.
struct OptionRow<'a> {
    choice: Choice,
    label: &'a str,
    selected: bool,
}

fn option_lines(
    out: &mut Vec<Line<'static>>,
    t: &Texts,
    view: &ApprovalView,
    row: OptionRow<'_>,
    color: Color,
    inner: usize,
    p: &Params,
) {
    let OptionRow {
        choice,
        label,
        selected,
    } = row;
    let marker = if selected { "▶ " } else { "  " };
    let number = format!("[{}] ", choice.index() + 1);
    let prefix_w = width(marker) + width(&number);
    let disabled = !view.offers(choice);
    let style = if disabled {
        Style::default().fg(Color::DarkGray)
    } else if selected {
        Style::default().fg(color).add_modifier(Modifier::BOLD)
    } else {
        Style::default()
    };
    let text = match (choice, &view.proposal) {
        (Choice::AlwaysAllow, Some(prop)) if !disabled => {
            format!("{label} → {prop}")
        }
        (Choice::AlwaysAllow, _) => format!("{label} — {}", t.no_proposal),
        (Choice::AllowSession, _) if disabled => format!("{label} — {}", t.no_proposal),
        _ => label.to_string(),
    };
    let rows = wrap(&text, inner.saturating_sub(prefix_w).max(1));
    let shown = rows.len().min(p.option_rows.max(1));
    for (k, r) in rows.iter().take(shown).enumerate() {
        let r = if k + 1 == shown && rows.len() > shown {
            truncate(&format!("{r}…"), inner.saturating_sub(prefix_w).max(1))
        } else {
            r.clone()
        };
        let lead = if k == 0 {
            format!("{marker}{number}")
        } else {
            " ".repeat(prefix_w)
        };
        out.push(Line::from(vec![
            Span::styled(lead, style),
            Span::styled(r, style),
        ]));
    }
}
