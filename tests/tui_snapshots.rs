//! Snapshot tests of the TUI, drawn into ratatui's `TestBackend` at fixed sizes: the approval
//! dialog at each risk in both languages, with a long command, in feedback mode and with a
//! queue of three; the conversation; and tiny terminals. The buffer is snapshotted as text and
//! the title's colour is checked from the buffer's cells, so colours are pinned too.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use harness9::call::{Risk, ToolCall};
use harness9::engine::Mode;
use harness9::runtime::{Proposal, ProposedRule, ResultStatus, ToolResult};
use harness9::tui::diff::Diff;
use harness9::tui::update::ARM_DELAY;
use harness9::tui::{render, update, ApprovalView, Entry, Event, Lang, State};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use ratatui::Terminal;

fn draw(state: &State, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    t.draw(|f| render(state, f)).expect("drawn");
    t.backend().buffer().clone()
}

/// The buffer as text, one row a line, trailing spaces cut; wide characters take one char.
fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut skip = 0usize;
        for x in 0..buf.area.width {
            let sym = buf[(x, y)].symbol();
            if skip > 0 {
                skip -= 1;
                continue;
            }
            skip = unicode_cols(sym).saturating_sub(1);
            line.push_str(sym);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn unicode_cols(s: &str) -> usize {
    ratatui::text::Span::raw(s).width()
}

/// The colour of the cell that holds the dialog's warning sign.
fn title_color(buf: &Buffer) -> Option<Color> {
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            if buf[(x, y)].symbol() == "⚠" {
                return Some(buf[(x, y)].fg);
            }
        }
    }
    None
}

/// The colour of the dialog's top-left corner.
fn border_color(buf: &Buffer) -> Option<Color> {
    for y in 0..buf.area.height {
        if buf[(0, y)].symbol() == "╭" {
            return Some(buf[(0, y)].fg);
        }
    }
    None
}

fn base(lang: Lang) -> State {
    let mut s = State::new(lang, Mode::Default, "demo", "~/work/shop");
    s.turn_running = true;
    s.entries
        .push(Entry::User("clean up the build folder".into()));
    s.entries.push(Entry::Assistant(
        "I'll look at the folder first, then remove the old build.".into(),
    ));
    s.entries.push(Entry::ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: "ls".into(),
    });
    s.entries.push(Entry::ToolResult {
        id: "c1".into(),
        name: "bash".into(),
        status: ResultStatus::Ok,
        content: "build\nsrc\nCargo.toml".into(),
        diff: None,
    });
    s
}

fn ask(state: &mut State, view: ApprovalView) {
    let actions = update(state, Event::Approval(view));
    assert!(actions.is_empty(), "queued, not answered: {actions:?}");
    arm(state);
}

/// Lets the moment pass after which a new dialog takes keys.
fn arm(state: &mut State) {
    let later = state.now + ARM_DELAY;
    update(state, Event::Tick(later));
}

/// A rule the dialog shows as `tool(pattern)`, the text these snapshots were taken with.
fn shown(tool: &str, pattern: &str) -> ProposedRule {
    ProposedRule::File {
        tool: tool.into(),
        glob: pattern.into(),
    }
}

fn high(id: u64) -> ApprovalView {
    ApprovalView::new(
        id,
        &ToolCall::primary("bash", "rm -rf build"),
        "recursive forced delete",
        Risk::High,
        Some("builtin.policy:4".into()),
        Some(Proposal {
            rules: vec![shown("bash", "rm -rf build")],
            exact: true,
        }),
    )
}

fn medium(id: u64) -> ApprovalView {
    ApprovalView::new(
        id,
        &ToolCall::primary("bash", "git commit -m \"release 1.2\""),
        "commits need a look",
        Risk::Medium,
        Some(".harness9/settings.json:5".into()),
        Some(Proposal {
            rules: vec![ProposedRule::prefix(&["git", "commit"])],
            exact: false,
        }),
    )
}

fn low(id: u64) -> ApprovalView {
    ApprovalView::new(
        id,
        &ToolCall::primary("write_file", "notes/todo.md"),
        "no rule matched",
        Risk::Low,
        Some("default".into()),
        None,
    )
}

fn dialog(lang: Lang, view: ApprovalView) -> State {
    let mut s = base(lang);
    ask(&mut s, view);
    s
}

fn key(state: &mut State, code: KeyCode) {
    update(state, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn check(name: &str, state: &State, w: u16, h: u16, color: Option<Color>) {
    let buf = draw(state, w, h);
    insta::assert_snapshot!(name, text(&buf));
    if let Some(c) = color {
        assert_eq!(title_color(&buf), Some(c), "{name}: the title's colour");
        assert_eq!(border_color(&buf), Some(c), "{name}: the border's colour");
    }
}

#[test]
fn tui_dialog_high_risk_english_is_red_160() {
    let s = dialog(Lang::En, high(1));
    check(
        "tui_dialog_high_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(160)),
    );
    check(
        "tui_dialog_high_en_120x40",
        &s,
        120,
        40,
        Some(Color::Indexed(160)),
    );
}

#[test]
fn tui_dialog_medium_risk_english_is_orange_208() {
    let s = dialog(Lang::En, medium(1));
    check(
        "tui_dialog_medium_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(208)),
    );
}

#[test]
fn tui_dialog_low_risk_english_is_yellow_220_and_option_3_says_why_it_is_disabled() {
    let s = dialog(Lang::En, low(1));
    check(
        "tui_dialog_low_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(220)),
    );
    let t = text(&draw(&s, 80, 24));
    assert!(t.contains("unavailable: no rule can be proposed"), "{t}");
}

#[test]
fn tui_dialog_high_risk_chinese() {
    let s = dialog(Lang::Zh, high(1));
    check(
        "tui_dialog_high_zh_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(160)),
    );
    check(
        "tui_dialog_high_zh_120x40",
        &s,
        120,
        40,
        Some(Color::Indexed(160)),
    );
    let t = text(&draw(&s, 80, 24));
    for seed in [
        "工具审批请求 [高风险]",
        "允许（仅本次）",
        "允许（本会话不再提示）",
        "总是允许（写入白名单）",
        "拒绝并提供反馈……",
        "↑↓ 移动 · Enter/1-5 确认 · Esc 拒绝",
    ] {
        assert!(t.contains(seed), "missing {seed:?}:\n{t}");
    }
}

#[test]
fn tui_dialog_medium_risk_chinese() {
    let s = dialog(Lang::Zh, medium(1));
    check(
        "tui_dialog_medium_zh_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(208)),
    );
}

#[test]
fn tui_dialog_low_risk_chinese() {
    let s = dialog(Lang::Zh, low(1));
    check(
        "tui_dialog_low_zh_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(220)),
    );
}

fn long_command() -> ApprovalView {
    let cmd = "curl -fsSL https://get.example.com/install.sh | sudo bash -s -- --prefix=/opt/tools \
               --with-plugins=alpha,beta,gamma,delta --channel=nightly && \
               for f in $(ls /opt/tools/bin); do ln -sf /opt/tools/bin/$f /usr/local/bin/$f; done && \
               echo 'installed everything' && rm -rf /tmp/install-cache /tmp/install-logs";
    ApprovalView::new(
        1,
        &ToolCall::primary("bash", cmd),
        "piping a download into a shell runs code nobody has read",
        Risk::High,
        Some("builtin.policy:9".into()),
        Some(Proposal {
            rules: vec![shown("bash", cmd)],
            exact: true,
        }),
    )
}

#[test]
fn tui_dialog_long_command_wraps_and_scrolls() {
    let mut s = dialog(Lang::En, long_command());
    s.size = (80, 24);
    check(
        "tui_dialog_long_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(160)),
    );
    s.size = (120, 40);
    check(
        "tui_dialog_long_en_120x40",
        &s,
        120,
        40,
        Some(Color::Indexed(160)),
    );
    s.size = (80, 24);
    key(&mut s, KeyCode::PageDown);
    assert!(s.dialog.detail_scroll > 0);
    check("tui_dialog_long_en_80x24_scrolled", &s, 80, 24, None);
}

#[test]
fn tui_dialog_feedback_mode() {
    for (lang, name) in [
        (Lang::En, "tui_dialog_feedback_en_80x24"),
        (Lang::Zh, "tui_dialog_feedback_zh_80x24"),
    ] {
        let mut s = dialog(lang, medium(1));
        key(&mut s, KeyCode::Char('5'));
        for c in "run the tests before committing".chars() {
            key(&mut s, KeyCode::Char(c));
        }
        check(name, &s, 80, 24, Some(Color::Indexed(208)));
    }
}

#[test]
fn tui_dialog_queue_of_three_shows_its_position() {
    let mut s = base(Lang::En);
    ask(&mut s, medium(1));
    ask(&mut s, high(2));
    ask(&mut s, low(3));
    check(
        "tui_dialog_queue_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(208)),
    );
    check(
        "tui_dialog_queue_en_120x40",
        &s,
        120,
        40,
        Some(Color::Indexed(208)),
    );
    assert!(text(&draw(&s, 80, 24)).contains("1 of 3"));
    // Answering the first brings the second up: red now, "2 of 3".
    key(&mut s, KeyCode::Char('1'));
    arm(&mut s);
    let buf = draw(&s, 80, 24);
    assert!(text(&buf).contains("2 of 3"), "{}", text(&buf));
    assert_eq!(title_color(&buf), Some(Color::Indexed(160)));
    let mut zh = base(Lang::Zh);
    ask(&mut zh, medium(1));
    ask(&mut zh, high(2));
    ask(&mut zh, low(3));
    check(
        "tui_dialog_queue_zh_80x24",
        &zh,
        80,
        24,
        Some(Color::Indexed(208)),
    );
}

#[test]
fn tui_conversation_shows_calls_results_denials_and_the_status_bar() {
    let mut s = base(Lang::En);
    s.turn_running = false;
    s.mode = Mode::AutoApprove;
    s.entries.push(Entry::ToolCall {
        id: "c2".into(),
        name: "bash".into(),
        arguments: "rm -rf build".into(),
    });
    s.entries.push(Entry::ToolResult {
        id: "c2".into(),
        name: "bash".into(),
        status: ResultStatus::Denied,
        content: "denied by the user (recursive forced delete). The user says: keep it".into(),
        diff: None,
    });
    s.entries.push(Entry::ToolCall {
        id: "c3".into(),
        name: "read_file".into(),
        arguments: "~/.ssh/id_rsa".into(),
    });
    s.entries.push(Entry::ToolResult {
        id: "c3".into(),
        name: "read_file".into(),
        status: ResultStatus::Denied,
        content: "`~/.ssh` holds SSH keys: it is protected".into(),
        diff: None,
    });
    s.entries.push(Entry::Notice(
        "added to the allowlist: bash(git commit *)".into(),
    ));
    s.entries
        .push(Entry::Error("model error: connection refused".into()));
    s.input = "now run the tests".into();
    check("tui_conversation_en_80x24", &s, 80, 24, None);
}

#[test]
fn tui_tiny_terminal_gets_a_compact_dialog() {
    let s = dialog(Lang::En, high(1));
    check(
        "tui_dialog_compact_en_40x12",
        &s,
        40,
        12,
        Some(Color::Indexed(160)),
    );
    check("tui_dialog_tiny_en_20x5", &s, 20, 5, None);
    let tiny = text(&draw(&s, 20, 5));
    assert!(tiny.contains("⚠") && tiny.contains("▶ [1]"), "{tiny}");
}

#[test]
fn render_never_panics_at_any_small_size() {
    let mut states = Vec::new();
    for lang in [Lang::En, Lang::Zh] {
        let mut s = dialog(lang, long_command());
        ask(&mut s, high(2));
        states.push(s.clone());
        key(&mut s, KeyCode::Char('5'));
        for c in "一段很长的反馈 with words".chars() {
            key(&mut s, KeyCode::Char(c));
        }
        states.push(s);
        let mut plain = base(lang);
        plain.input = "输入 a long input line that is longer than the screen".into();
        states.push(plain.clone());
        plain.input = "第一行\nsecond line that is rather long\n\n工具审批请求 third".into();
        update(
            &mut plain,
            Event::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)),
        );
        plain.queued.push_back("a queued message".into());
        states.push(plain);
    }
    for s in &states {
        for w in [1u16, 2, 3, 5, 8, 13, 20, 33, 47] {
            for h in [1u16, 2, 3, 4, 5, 7, 9, 12, 17] {
                let buf = draw(s, w, h);
                assert_eq!(buf.area.width, w);
            }
        }
    }
    // 1x1 shows something rather than nothing, and 20x5 still shows the warning.
    let s = &states[0];
    assert!(title_color(&draw(s, 20, 5)).is_some());
}

fn edit_view(id: u64) -> ApprovalView {
    let mut args = serde_json::Map::new();
    args.insert("path".into(), "src/lib.rs".into());
    args.insert("old_string".into(), "fn two() -> u32 { 2 }".into());
    args.insert(
        "new_string".into(),
        "fn two() -> u32 {\n    1 + 1\n}".into(),
    );
    let call = ToolCall {
        id: None,
        name: "edit_file".into(),
        arguments: args,
    };
    let old = "fn one() -> u32 { 1 }\n\nfn two() -> u32 { 2 }\n\nfn three() -> u32 { 3 }\n";
    let new = old.replace("fn two() -> u32 { 2 }", "fn two() -> u32 {\n    1 + 1\n}");
    ApprovalView::new(
        id,
        &call,
        "edits need a look",
        Risk::Medium,
        Some("team.policy:4".into()),
        Some(Proposal {
            rules: vec![shown("edit_file", "src/**")],
            exact: false,
        }),
    )
    .with_diff(Some(Diff::between(old, &new)))
}

#[test]
fn tui_dialog_of_an_edit_shows_its_coloured_diff_with_the_line_counts() {
    let s = dialog(Lang::En, edit_view(1));
    check(
        "tui_dialog_edit_diff_en_80x30",
        &s,
        80,
        30,
        Some(Color::Indexed(208)),
    );
    let buf = draw(&s, 80, 30);
    let t = text(&buf);
    assert!(t.contains("Changes: +3 −1"), "{t}");
    assert!(t.contains("-fn two() -> u32 { 2 }"), "{t}");
    assert!(t.contains("+    1 + 1"), "{t}");
    // Added rows are green, removed rows red-ish: find the cells.
    let color_of = |needle: &str| {
        (0..buf.area.height).find_map(|y| {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.find(needle).map(|_| {
                let x = (0..buf.area.width)
                    .find(|&x| buf[(x, y)].symbol() == &needle[..1])
                    .unwrap_or(0);
                buf[(x, y)].fg
            })
        })
    };
    assert_eq!(color_of("+    1 + 1"), Some(Color::Indexed(114)));
    assert_eq!(color_of("-fn two()"), Some(Color::Indexed(174)));
}

#[test]
fn tui_a_long_diff_scrolls_inside_the_dialog() {
    let old: String = (0..60).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 5\n", "line five\n")
        .replace("line 50\n", "line fifty\n");
    let mut v = edit_view(1);
    v.diff = Some(Diff::between(&old, &new));
    let mut s = dialog(Lang::En, v);
    s.size = (80, 24);
    let before = text(&draw(&s, 80, 24));
    assert!(before.contains("PgUp/PgDn scroll"), "{before}");
    for _ in 0..10 {
        key(&mut s, KeyCode::PageDown);
    }
    let after = text(&draw(&s, 80, 24));
    assert!(after.contains("+line fifty"), "{after}");
    assert!(!before.contains("+line fifty"));
}

#[test]
fn tui_dialog_ignores_keys_while_arming_and_says_so() {
    let mut s = base(Lang::En);
    update(&mut s, Event::Approval(high(1)));
    check(
        "tui_dialog_arming_en_80x24",
        &s,
        80,
        24,
        Some(Color::Indexed(160)),
    );
    assert!(text(&draw(&s, 80, 24)).contains("keys active in a moment"));
    arm(&mut s);
    assert!(text(&draw(&s, 80, 24)).contains("Enter/1-5 confirm"));
}

#[test]
fn tui_dialog_counts_down_to_the_approval_timeout() {
    let mut s = base(Lang::En);
    s.approval_timeout = Some(std::time::Duration::from_secs(300));
    ask(&mut s, high(1));
    let later = s.now + std::time::Duration::from_secs(28);
    update(&mut s, Event::Tick(later));
    let t = text(&draw(&s, 80, 24));
    assert!(t.contains("denied in 4:31 without an answer"), "{t}");
}

#[test]
fn tui_dialog_at_50_columns_keeps_the_reason_and_the_rule_of_option_3() {
    let mut v = medium(1);
    v.reason = "commits need a look because this team reviews every commit".into();
    let s = dialog(Lang::En, v);
    for h in [16u16, 24] {
        let t = text(&draw(&s, 50, h));
        let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("bash(git commit *)"), "{h} rows:\n{t}");
        assert!(flat.contains("reviews every commit"), "{h} rows:\n{t}");
    }
    check(
        "tui_dialog_medium_en_50x16",
        &s,
        50,
        16,
        Some(Color::Indexed(208)),
    );
}

#[test]
fn tui_the_status_bar_drops_whole_parts_never_cuts_a_word() {
    let mut s = base(Lang::En);
    s.cwd = "~/work/a-rather-long-project-folder-name".into();
    s.model = "qwen2.5-coder:7b @ localhost:11434".into();
    for w in [30u16, 50, 70, 90, 120] {
        let buf = draw(&s, w, 10);
        let t = text(&buf);
        let bar = t.lines().last().unwrap_or("").trim();
        let bar = bar.split("  Shift+Tab mode  /help").next().unwrap_or("");
        for part in bar.split(" │ ") {
            let part = part.trim();
            assert!(
                part.is_empty()
                    || [
                        "mode: default",
                        "default",
                        "~/work/a-rather-long-project-folder-name"
                    ]
                    .contains(&part)
                    || part.starts_with("model: qwen2.5-coder:7b @ localhost:11434")
                    || part.starts_with("~/work/a-rather-long-project-folder-name"),
                "at {w} columns a part was cut: {part:?} in {bar:?}"
            );
        }
    }
}

#[test]
fn tui_input_shows_many_lines_the_spinner_and_the_queue() {
    let mut s = base(Lang::En);
    s.turn_running = false;
    update(
        &mut s,
        Event::StartTurn {
            text: "go".into(),
            shown: false,
        },
    );
    update(&mut s, Event::Paste("queued one".into()));
    update(
        &mut s,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    update(&mut s, Event::Paste("first line\nsecond line".into()));
    let later = s.now + std::time::Duration::from_secs(3);
    update(&mut s, Event::Tick(later));
    let t = text(&draw(&s, 80, 24));
    check(
        "tui_input_multiline_spinner_queue_en_80x24",
        &s,
        80,
        24,
        None,
    );
    assert!(t.contains("working… 3s"), "{t}");
    assert!(t.contains("⏳ queued: queued one"), "{t}");
    assert!(
        t.contains("› first line") && t.contains("  second line"),
        "{t}"
    );
}

#[test]
fn tui_one_ctrl_c_on_an_empty_prompt_shows_how_to_quit() {
    let mut s = base(Lang::En);
    s.turn_running = false;
    update(
        &mut s,
        Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(!s.quit);
    assert!(text(&draw(&s, 80, 24)).contains("Press Ctrl+C again to quit"));
}

#[test]
fn tui_results_name_their_call_show_the_applied_diff_and_expand_with_ctrl_o() {
    let mut s = base(Lang::En);
    s.turn_running = false;
    s.entries.push(Entry::ToolCall {
        id: "c2".into(),
        name: "bash".into(),
        arguments: "git status".into(),
    });
    s.entries.push(Entry::ToolCall {
        id: "c3".into(),
        name: "edit_file".into(),
        arguments: "src/lib.rs".into(),
    });
    let long: String = (1..=20).map(|i| format!("M file{i}.rs\n")).collect();
    s.entries.push(Entry::ToolResult {
        id: "c2".into(),
        name: "bash".into(),
        status: ResultStatus::Ok,
        content: long,
        diff: None,
    });
    s.entries.push(Entry::ToolResult {
        id: "c3".into(),
        name: "edit_file".into(),
        status: ResultStatus::Ok,
        content: "edited src/lib.rs".into(),
        diff: Some(Diff::between("a\nb\n", "a\nc\n")),
    });
    check("tui_results_named_en_80x40", &s, 80, 40, None);
    let t = text(&draw(&s, 80, 40));
    assert!(t.contains("⎿ bash git status"), "{t}");
    assert!(t.contains("⎿ edit_file src/lib.rs"), "{t}");
    assert!(t.contains("… +8 (Ctrl+O shows all)"), "{t}");
    assert!(t.contains("+c") && t.contains("-b"), "{t}");
    update(
        &mut s,
        Event::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)),
    );
    let t = text(&draw(&s, 80, 60));
    assert!(
        t.contains("M file20.rs") && t.contains("Ctrl+O shows less"),
        "{t}"
    );
}

#[test]
fn tui_chinese_translates_built_in_reasons_and_notices_but_not_a_policys_own_reason() {
    let mut s = base(Lang::Zh);
    s.entries.push(Entry::ToolCall {
        id: "c2".into(),
        name: "bash".into(),
        arguments: "rm -rf build".into(),
    });
    s.entries.push(Entry::ToolResult {
        id: "c2".into(),
        name: "bash".into(),
        status: ResultStatus::Denied,
        content: "denied by the user (forced recursive delete of files and folders). The user says: keep it".into(),
        diff: None,
    });
    s.entries.push(Entry::Notice(
        "added to the allowlist: bash(git commit *)".into(),
    ));
    let mut v = high(1);
    v.reason = "forced recursive delete of files and folders (in `rm -rf build`)".into();
    ask(&mut s, v);
    check(
        "tui_dialog_builtin_reason_zh_80x30",
        &s,
        80,
        30,
        Some(Color::Indexed(160)),
    );
    let t = text(&draw(&s, 80, 30));
    for zh in [
        "强制递归删除文件和文件夹（见 `rm -rf build`）",
        "已被用户拒绝（强制递归删除文件和文件夹）。用户说：keep it",
        "已加入白名单：bash(git commit *)",
    ] {
        assert!(t.contains(zh), "missing {zh:?}:\n{t}");
    }
    let mut own = base(Lang::Zh);
    let mut v = medium(1);
    v.reason = "our team reviews commits".into();
    ask(&mut own, v);
    let t = text(&draw(&own, 80, 24));
    assert!(
        t.contains("our team reviews commits"),
        "left as written:\n{t}"
    );
}

#[test]
fn tui_chinese_input_hints_use_full_width_punctuation() {
    let mut s = base(Lang::Zh);
    s.turn_running = false;
    update(
        &mut s,
        Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    let t = text(&draw(&s, 80, 24));
    assert!(t.contains("再按一次 Ctrl+C 退出"), "{t}");
    for field in [
        harness9::tui::texts(Lang::Zh).working,
        harness9::tui::texts(Lang::Zh).cleared,
        harness9::tui::texts(Lang::Zh).unknown_command,
        harness9::tui::texts(Lang::Zh).demo_scratch,
        harness9::tui::texts(Lang::Zh).denied_in,
        harness9::tui::texts(Lang::Zh).perms_title,
    ] {
        for half in [": ", ", ", "; ", "(", ")"] {
            assert!(!field.contains(half), "{field:?} has a half-width {half:?}");
        }
    }
}

#[test]
fn tui_slash_menu_lists_the_commands_that_start_with_what_is_typed() {
    for lang in [Lang::En, Lang::Zh] {
        let mut s = base(lang);
        s.turn_running = false;
        key(&mut s, KeyCode::Char('/'));
        key(&mut s, KeyCode::Char('m'));
        key(&mut s, KeyCode::Down);
        let name = match lang {
            Lang::En => "tui_slash_menu_en_80x24",
            Lang::Zh => "tui_slash_menu_zh_80x24",
        };
        check(name, &s, 80, 24, None);
    }
}

/// A contained call in the transcript: a note under the call says it ran in the sandbox and
/// what that means; a failure the sandbox caused says so, and what came of the offer to run it
/// outside. The notes are the runtime's own ([`harness9::runtime::Contained::note`]), through
/// the agent's events as the app loop passes them.
#[test]
fn tui_conversation_says_a_call_ran_in_the_sandbox_and_a_failure_it_caused() {
    use harness9::runtime::{Contained, Outside};
    use harness9::tui::AgentEvent;
    let mut s = base(Lang::En);
    s.turn_running = false;
    let call = |s: &mut State, id: &str, command: &str, how: Contained, result: ToolResult| {
        for ev in [
            AgentEvent::ToolCall {
                id: id.into(),
                name: "bash".into(),
                arguments: command.into(),
            },
            AgentEvent::Contained {
                id: id.into(),
                note: how.note(),
            },
            AgentEvent::ToolResult {
                id: id.into(),
                name: "bash".into(),
                status: result.status,
                content: result.content,
                diff: None,
            },
        ] {
            update(s, Event::Agent(ev));
        }
    };
    call(
        &mut s,
        "c1",
        "cargo test",
        Contained {
            profile: "build".into(),
            sign: None,
            outside: Outside::NotOffered,
        },
        ToolResult::ok("test result: ok. 3 passed\n[exit code 0]"),
    );
    call(
        &mut s,
        "c2",
        "./save.sh",
        Contained {
            profile: "build".into(),
            sign: Some(
                "`Read-only file system`: it writes only the project and the temporary folder"
                    .into(),
            ),
            outside: Outside::Declined,
        },
        ToolResult::error(
            "save.sh: 2: cannot create /home/u/notes.txt: Read-only file system\n[exit code 2]",
        ),
    );
    check("tui_conversation_contained_en_100x24", &s, 100, 24, None);
}
