//! The TUI's texts in English and Chinese (the seed's wording).

use crate::call::Risk;

/// The language of the TUI's texts: the configuration's (`[ui] language`, else the locale).
pub use crate::model::config::Language as Lang;

/// The texts of a language.
pub fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Zh => &ZH,
    }
}

/// Every text the TUI shows, for one language.
#[derive(Debug)]
pub struct Texts {
    pub dialog_title: &'static str,
    pub risk_high: &'static str,
    pub risk_medium: &'static str,
    pub risk_low: &'static str,
    pub tool: &'static str,
    pub reason: &'static str,
    pub command: &'static str,
    pub path: &'static str,
    pub arguments: &'static str,
    pub rule: &'static str,
    pub no_rule: &'static str,
    pub options: [&'static str; 5],
    /// Option 3's suffix before the rule text it would write.
    pub writes: &'static str,
    /// Why option 3 is disabled when no rule can be proposed.
    pub no_proposal: &'static str,
    /// Marks a proposal of the exact call only.
    pub exact_only: &'static str,
    pub hint: &'static str,
    pub more_lines: &'static str,
    /// `{i} of {n}` → "1 of 3".
    pub queue_of: &'static str,
    pub feedback_prompt: &'static str,
    pub feedback_hint: &'static str,
    pub input_placeholder: &'static str,
    pub working: &'static str,
    pub status_mode: &'static str,
    pub status_model: &'static str,
    pub status_pending: &'static str,
    pub status_keys: &'static str,
    pub you: &'static str,
    pub denied: &'static str,
    pub error: &'static str,
    pub interrupted: &'static str,
    pub model_error: &'static str,
    pub scrolled: &'static str,
    pub welcome: &'static str,
    pub policy_reloaded: &'static str,
    /// The dialog's hint while it ignores keys.
    pub arming: &'static str,
    /// After one Ctrl+C on an empty input.
    pub quit_hint: &'static str,
    /// `{s}`: seconds.
    pub inactive: &'static str,
    pub empty_reply: &'static str,
    /// After text whose stream was cut off.
    pub cut_off: &'static str,
    pub help: &'static str,
    pub permissions_usage: &'static str,
    /// `{mode}`, `{modes}`.
    pub mode_is: &'static str,
    pub bypass_refused: &'static str,
    pub no_such_mode: &'static str,
    pub model_is: &'static str,
    /// `{model}`: the model now in use.
    pub model_switched: &'static str,
    pub model_busy: &'static str,
    /// The demo (or a model not from the configuration) has no other model to switch to.
    pub model_fixed: &'static str,
    /// Above the server's models (`/model`); `{model}` the one in use.
    pub models_listed: &'static str,
    pub models_failed: &'static str,
    /// The slash commands the menu offers as `/` is typed: name and what it does.
    pub menu: [(&'static str, &'static str); 5],
    pub clear_busy: &'static str,
    pub cleared: &'static str,
    /// `{cmd}`.
    pub command_usage: &'static str,
    pub unknown_command: &'static str,
    pub mode_changed: &'static str,
    /// `{n}` messages wait for the turn to end.
    pub queued: &'static str,
    pub thinking: &'static str,
    pub running_tool: &'static str,
    pub esc_interrupts: &'static str,
    pub tokens: &'static str,
    /// `{t}`: the time left before an unanswered request is denied.
    pub denied_in: &'static str,
    pub expand_hint: &'static str,
    pub collapse_hint: &'static str,
    pub diff_label: &'static str,
    pub new_file: &'static str,
    pub perms_title: &'static str,
    pub perms_session: &'static str,
    pub perms_none: &'static str,
    pub perms_remove_hint: &'static str,
    /// `{rule}`, `{from}`.
    pub perms_removed: &'static str,
    /// `{n}`.
    pub perms_no_such: &'static str,
    pub no_output: &'static str,
    /// `{dir}`.
    pub demo_scratch: &'static str,
    pub no_model: &'static str,
    /// `{id}`.
    pub request_ended: &'static str,
    pub agent_gone: &'static str,
    /// `{path}`, `{error}`.
    pub history_failed: &'static str,
}

impl Texts {
    pub fn risk(&self, risk: Risk) -> &'static str {
        match risk {
            Risk::High => self.risk_high,
            Risk::Medium => self.risk_medium,
            Risk::Low => self.risk_low,
        }
    }

    /// "1 of 3".
    pub fn queue(&self, i: usize, n: usize) -> String {
        self.queue_of
            .replace("{i}", &i.to_string())
            .replace("{n}", &n.to_string())
    }
}

static EN: Texts = Texts {
    dialog_title: "Tool approval request",
    risk_high: "High risk",
    risk_medium: "Medium risk",
    risk_low: "Low risk",
    tool: "Tool:",
    reason: "Reason:",
    command: "Command:",
    path: "Path:",
    arguments: "Arguments:",
    rule: "Rule:",
    no_rule: "(none)",
    options: [
        "Allow once",
        "Allow for this session",
        "Always allow (add to allowlist)",
        "Deny",
        "Deny with feedback…",
    ],
    writes: "writes",
    no_proposal: "unavailable: no rule can be proposed safely for this call",
    exact_only: "exact call only",
    hint: "↑↓ move  Enter/1-5 confirm  Esc deny",
    more_lines: "PgUp/PgDn scroll",
    queue_of: "{i} of {n}",
    feedback_prompt: "Feedback for the model:",
    feedback_hint: "Enter send  Esc back",
    input_placeholder: "Type a message, Enter to send",
    working: "working… Esc interrupts; messages typed now are queued",
    status_mode: "mode",
    status_model: "model",
    status_pending: "pending",
    status_keys: "Shift+Tab mode  /help",
    you: "you",
    denied: "denied",
    error: "error",
    interrupted: "interrupted",
    model_error: "model error",
    scrolled: "scrolled",
    welcome: "harness9 — every tool call the agent makes is checked by your policy.",
    policy_reloaded: "policy reloaded",
    arming: "(keys active in a moment)",
    quit_hint: "Press Ctrl+C again to quit",
    inactive: "no answer from the model for {s} s: the turn was stopped (set HARNESS9_INACTIVITY_SECS to wait longer)",
    empty_reply: "the model sent an empty reply",
    cut_off: "[cut off]",
    help: "Commands:\n  /help                  this list\n  /permissions           the rules that allow without asking (session and allowlist)\n  /permissions rm N      remove rule N of that list\n  /mode [MODE]           show or set the permission mode\n  /model [NAME]          list the server's models, or switch to one\n  /clear                 start a new conversation\n  //text                 send text that starts with a slash\nKeys: Enter send · Tab completes a command · Shift+Enter or a trailing \\ new line · ↑↓ history · Esc interrupts · Shift+Tab mode · Ctrl+O expand output · Ctrl+C twice quits",
    permissions_usage: "usage: /permissions, or /permissions rm N (N as listed)",
    mode_is: "mode: {mode} (modes: {modes})",
    bypass_refused: "bypass is available only when harness9 tui starts with --mode bypass",
    no_such_mode: "`{mode}` is not a mode: use default, auto-approve, read-only",
    model_is: "model: {model}. /model NAME talks to another model of the same server; for another server, set [model] in ~/.config/harness9/config.toml (or HARNESS9_BASE_URL and HARNESS9_MODEL) and start again.",
    model_switched: "model: {model}, from the next message on (the conversation so far goes with it)",
    model_busy: "the model can be switched when the turn has ended",
    model_fixed: "the demo model is the only one here: set [model] in ~/.config/harness9/config.toml (or HARNESS9_BASE_URL and HARNESS9_MODEL) and start again",
    models_listed: "models of this server ({model} in use); switch with /model NAME:",
    models_failed: "could not list the server's models ({error}); /model NAME switches to a model by its name",
    menu: [
        ("help", "the commands and keys"),
        ("permissions", "the rules that allow without asking; rm N removes one"),
        ("mode", "show or set the permission mode"),
        ("model", "list the server's models, or switch to one"),
        ("clear", "start a new conversation"),
    ],
    clear_busy: "/clear waits for the turn to end (Esc interrupts it)",
    cleared: "new conversation: the model remembers nothing of the earlier one",
    command_usage: "{cmd} takes no such arguments: /help lists the commands",
    unknown_command: "unknown command {cmd}: /help lists the commands (start with // to send a message that begins with a slash)",
    mode_changed: "mode changed to {mode}",
    queued: "queued",
    thinking: "working",
    running_tool: "running",
    esc_interrupts: "Esc interrupts",
    tokens: "tokens",
    denied_in: "denied in {t} without an answer",
    expand_hint: "Ctrl+O shows all",
    collapse_hint: "Ctrl+O shows less",
    diff_label: "Changes:",
    new_file: "new file",
    perms_title: "Rules that allow without asking:",
    perms_session: "this session (in memory)",
    perms_none: "(none)",
    perms_remove_hint: "Remove one with /permissions rm N.",
    perms_removed: "removed {rule} from {from}",
    perms_no_such: "there is no rule {n}: /permissions lists them",
    no_output: "(no output)",
    demo_scratch: "the demo works in a scratch folder it made, {dir}, removed when you quit; your folder is not touched",
    no_model: "no model is configured, so the demo model runs: set HARNESS9_BASE_URL and HARNESS9_MODEL (or [model] in ~/.config/harness9/config.toml) to use your own",
    request_ended: "request {id} had already ended (timed out or cancelled): it was denied",
    agent_gone: "the agent is not running",
    history_failed: "cannot add to the history file {path}: {error}",
};

static ZH: Texts = Texts {
    dialog_title: "工具审批请求",
    risk_high: "高风险",
    risk_medium: "中等风险",
    risk_low: "低风险",
    tool: "工具：",
    reason: "原因：",
    command: "命令：",
    path: "路径：",
    arguments: "参数：",
    rule: "规则：",
    no_rule: "（无）",
    options: [
        "允许（仅本次）",
        "允许（本会话不再提示）",
        "总是允许（写入白名单）",
        "拒绝",
        "拒绝并提供反馈……",
    ],
    writes: "写入",
    no_proposal: "不可用：无法为此调用安全地生成规则",
    exact_only: "仅此完整命令",
    hint: "↑↓ 移动 · Enter/1-5 确认 · Esc 拒绝",
    more_lines: "PgUp/PgDn 滚动",
    queue_of: "第 {i} 个，共 {n} 个",
    feedback_prompt: "给模型的反馈：",
    feedback_hint: "Enter 发送 · Esc 返回",
    input_placeholder: "输入消息，Enter 发送",
    working: "处理中… Esc 中断；现在输入的消息会排队",
    status_mode: "模式",
    status_model: "模型",
    status_pending: "待审批",
    status_keys: "Shift+Tab 切换模式 · /help 帮助",
    you: "你",
    denied: "已拒绝",
    error: "错误",
    interrupted: "已中断",
    model_error: "模型错误",
    scrolled: "已滚动",
    welcome: "harness9 — 智能体的每一次工具调用都由你的策略检查。",
    policy_reloaded: "策略已重新加载",
    arming: "（稍候即可按键）",
    quit_hint: "再按一次 Ctrl+C 退出",
    inactive: "模型 {s} 秒没有回应：本轮已停止（设置 HARNESS9_INACTIVITY_SECS 可等待更久）",
    empty_reply: "模型返回了空回复",
    cut_off: "［已中断］",
    help: "命令：\n  /help                  本列表\n  /permissions           无需询问即允许的规则（本会话和白名单）\n  /permissions rm N      删除列表中的第 N 条规则\n  /mode [模式]           查看或设置权限模式\n  /model [名称]          列出服务器的模型，或换用其中之一\n  /clear                 开始新的对话\n  //文本                 发送以斜杠开头的文本\n按键：Enter 发送 · Tab 补全命令 · Shift+Enter 或行尾 \\ 换行 · ↑↓ 历史 · Esc 中断 · Shift+Tab 切换模式 · Ctrl+O 展开输出 · 连按两次 Ctrl+C 退出",
    permissions_usage: "用法：/permissions，或 /permissions rm N（N 为列表中的编号）",
    mode_is: "模式：{mode}（可选：{modes}）",
    bypass_refused: "只有以 --mode bypass 启动 harness9 tui 时才能使用 bypass",
    no_such_mode: "“{mode}”不是模式：请用 default、auto-approve、read-only",
    model_is: "模型：{model}。/model 名称 可换用同一服务器上的其他模型；要换用其他服务器，请在 ~/.config/harness9/config.toml 的 [model] 中设置（或设置 HARNESS9_BASE_URL 和 HARNESS9_MODEL），然后重新启动。",
    model_switched: "模型：{model}，从下一条消息起生效（已有的对话一并带上）",
    model_busy: "本轮结束后才能切换模型",
    model_fixed: "这里只有演示模型：请在 ~/.config/harness9/config.toml 的 [model] 中设置（或设置 HARNESS9_BASE_URL 和 HARNESS9_MODEL），然后重新启动",
    models_listed: "此服务器的模型（正在使用 {model}）；用 /model 名称 切换：",
    models_failed: "无法列出服务器的模型（{error}）；/model 名称 可按名称切换",
    menu: [
        ("help", "命令和按键"),
        ("permissions", "无需询问即允许的规则；rm N 删除一条"),
        ("mode", "查看或设置权限模式"),
        ("model", "列出服务器的模型，或换用其中之一"),
        ("clear", "开始新的对话"),
    ],
    clear_busy: "/clear 需等本轮结束（Esc 可中断）",
    cleared: "新对话：模型不再记得之前的内容",
    command_usage: "{cmd} 不接受这些参数：/help 列出所有命令",
    unknown_command: "未知命令 {cmd}：/help 列出所有命令（以 // 开头可发送以斜杠开头的消息）",
    mode_changed: "模式已切换为 {mode}",
    queued: "已排队",
    thinking: "处理中",
    running_tool: "运行中",
    esc_interrupts: "Esc 中断",
    tokens: "词元",
    denied_in: "{t} 后无回应将自动拒绝",
    expand_hint: "Ctrl+O 显示全部",
    collapse_hint: "Ctrl+O 收起",
    diff_label: "改动：",
    new_file: "新文件",
    perms_title: "无需询问即允许的规则：",
    perms_session: "本会话（仅内存）",
    perms_none: "（无）",
    perms_remove_hint: "用 /permissions rm N 删除一条。",
    perms_removed: "已从 {from} 删除 {rule}",
    perms_no_such: "没有第 {n} 条规则：/permissions 会列出它们",
    no_output: "（无输出）",
    demo_scratch: "演示在它自己建的临时文件夹 {dir} 中运行，退出时删除；你的文件夹不会被改动",
    no_model: "未配置模型，因此运行演示模型：设置 HARNESS9_BASE_URL 和 HARNESS9_MODEL（或 ~/.config/harness9/config.toml 中的 [model]）即可使用你自己的模型",
    request_ended: "请求 {id} 已结束（超时或已取消）：已拒绝",
    agent_gone: "智能体未在运行",
    history_failed: "无法写入历史文件 {path}：{error}",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_position_reads_in_both_languages() {
        assert_eq!(texts(Lang::En).queue(1, 3), "1 of 3");
        assert_eq!(texts(Lang::Zh).queue(2, 3), "第 2 个，共 3 个");
    }

    #[test]
    fn both_languages_have_the_seeds_option_wording() {
        assert_eq!(
            texts(Lang::En).options[2],
            "Always allow (add to allowlist)"
        );
        assert_eq!(texts(Lang::Zh).options[1], "允许（本会话不再提示）");
        assert_eq!(texts(Lang::Zh).hint, "↑↓ 移动 · Enter/1-5 确认 · Esc 拒绝");
    }

    /// Chinese text takes full-width punctuation (`：`, `，`, `（）`, `……`), and no doubled
    /// blanks beside a Chinese character (key groups are set apart with ` · `); the command
    /// column of the help is layout, not text.
    #[test]
    fn chinese_texts_use_full_width_punctuation_without_doubled_spaces() {
        let all = format!("{:?}", texts(Lang::Zh));
        let is_cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
        let full = |c: char| "：，（）。；！？".contains(c);
        for text in all
            .split("\\n")
            .filter(|l| !l.trim_start().starts_with('/'))
        {
            let chars: Vec<char> = text.chars().collect();
            for w in chars.windows(2) {
                let (a, b) = (w[0], w[1]);
                let half = |c: char| ",;:!?()".contains(c);
                assert!(
                    !((is_cjk(a) || full(a)) && half(b) || half(a) && is_cjk(b)),
                    "half-width punctuation beside Chinese in {text:?}"
                );
            }
            assert!(!text.contains("..."), "`...` rather than `……` in {text:?}");
            for (i, w) in chars.windows(3).enumerate() {
                let doubled = w[1] == ' ' && w[2] == ' ';
                assert!(
                    !(doubled && (is_cjk(w[0]) || full(w[0]))),
                    "doubled blanks after Chinese at {i} in {text:?}"
                );
            }
        }
    }
}
