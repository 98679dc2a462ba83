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
    working: "working… Ctrl+C interrupts",
    status_mode: "mode",
    status_model: "model",
    status_pending: "pending",
    status_keys: "Shift+Tab mode  Ctrl+C quit",
    you: "you",
    denied: "denied",
    error: "error",
    interrupted: "interrupted",
    model_error: "model error",
    scrolled: "scrolled",
    welcome: "harness9 — every tool call the agent makes is checked by your policy.",
    policy_reloaded: "policy reloaded",
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
        "拒绝并提供反馈...",
    ],
    writes: "写入",
    no_proposal: "不可用：无法为此调用安全地生成规则",
    exact_only: "仅此完整命令",
    hint: "↑↓ 移动  Enter/1-5 确认  Esc 拒绝",
    more_lines: "PgUp/PgDn 滚动",
    queue_of: "第 {i} 个，共 {n} 个",
    feedback_prompt: "给模型的反馈：",
    feedback_hint: "Enter 发送  Esc 返回",
    input_placeholder: "输入消息，Enter 发送",
    working: "处理中… Ctrl+C 中断",
    status_mode: "模式",
    status_model: "模型",
    status_pending: "待审批",
    status_keys: "Shift+Tab 切换模式  Ctrl+C 退出",
    you: "你",
    denied: "已拒绝",
    error: "错误",
    interrupted: "已中断",
    model_error: "模型错误",
    scrolled: "已滚动",
    welcome: "harness9 — 智能体的每一次工具调用都由你的策略检查。",
    policy_reloaded: "策略已重新加载",
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
        assert_eq!(texts(Lang::Zh).hint, "↑↓ 移动  Enter/1-5 确认  Esc 拒绝");
    }
}
