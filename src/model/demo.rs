//! A scripted model that runs offline, so the TUI shows what harness9 does out of the box.
//!
//! It reads the conversation it is given and reacts to what happened to its last tool call:
//! a result that starts with `denied` is a denial, and one holding `The user says: …` carries
//! the person's feedback, which changes the next step. One tool call per reply:
//!
//! 1. `bash git init demo-repo`: the default policy asks (low risk), and "always allow" has a
//!    narrow rule for it (`bash(git init *)`). Denied with feedback, the demo quotes the
//!    feedback and looks around read-only instead (`bash ls -la`).
//! 2. `bash rm -rf demo-repo`: a forced recursive delete, asked about with high risk by the
//!    built-in rules. Approved, it removes only the demo's own scratch folder.
//! 3. `read_file ~/.ssh/id_rsa`: a hard protection, denied without asking.
//! 4. `read_file README.md`: allowed by the default policy without asking.
//! 5. A summary of what happened, and no more tool calls.
//!
//! A new user message starts the tour again.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::config::Language;
use super::{Delta, Message, Model, ModelError, ModelToolCall, Reply, ToolSpec};
use crate::runtime::CancelToken;

/// The demo's first command: asked about (low risk) by the default policy.
pub const FIRST_COMMAND: &str = "git init demo-repo";
/// What the demo runs instead when the first step is denied with feedback.
pub const LOOK_COMMAND: &str = "ls -la";
/// A forced recursive delete: asked about with high risk. It removes only the folder step 1
/// created, so approving it is harmless.
pub const DELETE_COMMAND: &str = "rm -rf demo-repo";
/// A protected file: denied whatever the rules say.
pub const SECRET_PATH: &str = "~/.ssh/id_rsa";
/// A harmless read: allowed without asking.
pub const README_PATH: &str = "README.md";

/// The scripted demo model.
#[derive(Debug, Clone)]
pub struct DemoModel {
    language: Language,
    pause: Duration,
}

impl Default for DemoModel {
    fn default() -> Self {
        DemoModel {
            language: Language::En,
            pause: Duration::from_millis(15),
        }
    }
}

impl DemoModel {
    /// The demo in English.
    pub fn new() -> Self {
        Self::default()
    }

    /// The demo in `language`.
    pub fn with_language(mut self, language: Language) -> Self {
        self.language = language;
        self
    }

    /// The pause between streamed pieces of text (zero for tests).
    pub fn with_pause(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }

    /// The reply to `messages`, without streaming.
    pub fn script(&self, messages: &[Message]) -> Reply {
        let state = State::read(messages);
        let turn = messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();

        let Some((last, outcome)) = state.done.last().cloned() else {
            return reply(self.opening(state.toured_before), Some(Step::Init), turn);
        };
        match last {
            Step::Init => self.after_init(&outcome, turn),
            Step::Look => self.after_look(&outcome, turn),
            Step::Delete => self.after_delete(&outcome, turn),
            Step::Ssh => self.after_ssh(&outcome, turn),
            Step::Readme => reply(self.summary(&state.done), None, turn),
        }
    }

    /// `en` or `cn`, in the demo's language.
    fn t(&self, en: &str, cn: &str) -> String {
        if self.language == Language::Zh {
            cn.to_string()
        } else {
            en.to_string()
        }
    }

    /// The first words of a tour, whether or not it ran before.
    fn opening(&self, toured_before: bool) -> String {
        if toured_before {
            self.t(
                "Let's run the tour again: first, a scratch git repository.",
                "我们再走一遍：先建一个临时 git 仓库。",
            )
        } else {
            self.t(
                "Hi! I'm harness9's offline demo model. Let me start by creating a scratch git repository.",
                "你好！我是 harness9 的离线演示模型。先建一个临时 git 仓库。",
            )
        }
    }

    /// Says back the person's feedback.
    fn feedback_ack(&self, f: &str) -> String {
        self.t(
            &format!("Understood — you said: “{f}”."),
            &format!("明白，你说：“{f}”。"),
        )
    }

    /// The reply after the scratch repository: on feedback, a read-only look around; otherwise
    /// on to the delete.
    fn after_init(&self, outcome: &Outcome, turn: usize) -> Reply {
        match outcome {
            Outcome::Feedback(f) => {
                let text = format!(
                    "{} {}",
                    self.feedback_ack(f),
                    self.t(
                        "I won't create anything, then. I'll only look around, read-only:",
                        "那我就不建任何东西了，只读地看一看：",
                    )
                );
                reply(text, Some(Step::Look), turn)
            }
            Outcome::Denied => reply(
                self.t(
                    "You denied `git init demo-repo`; fine, I'll skip it. Next, something riskier: a forced recursive delete (of my scratch folder only).",
                    "你拒绝了 `git init demo-repo`，好，跳过。接下来是更危险的：强制递归删除（只删我的临时文件夹）。",
                ),
                Some(Step::Delete),
                turn,
            ),
            Outcome::Failed(why) => reply(
                format!(
                    "{} {}",
                    self.t(
                        &format!("It was allowed but failed: {}.", first_line(why)),
                        &format!("它获准运行，但失败了：{}。", first_line(why)),
                    ),
                    self.t(
                        "Next, something riskier: a forced recursive delete (of my scratch folder only).",
                        "接下来是更危险的：强制递归删除（只删我的临时文件夹）。",
                    )
                ),
                Some(Step::Delete),
                turn,
            ),
            Outcome::Ran(out) => reply(
                format!(
                    "{} {}",
                    self.t(
                        &format!("Done: {}.", first_line(out)),
                        &format!("完成：{}。", first_line(out)),
                    ),
                    self.t(
                        "Next, something riskier: a forced recursive delete (of my scratch folder only).",
                        "接下来是更危险的：强制递归删除（只删我的临时文件夹）。",
                    )
                ),
                Some(Step::Delete),
                turn,
            ),
        }
    }

    /// The reply after the read-only look: on to the delete.
    fn after_look(&self, outcome: &Outcome, turn: usize) -> Reply {
        let first = match outcome {
            Outcome::Ran(_) => self.t(
                "That's what is here; I changed nothing.",
                "这就是目录里的内容；我什么都没改。",
            ),
            Outcome::Failed(why) => self.t(
                &format!("That failed: {}. I changed nothing.", first_line(why)),
                &format!("失败了：{}。我什么都没改。", first_line(why)),
            ),
            Outcome::Feedback(f) => self.feedback_ack(f),
            Outcome::Denied => self.t("Not even that, then.", "连这个也不行，好的。"),
        };
        reply(
            format!(
                "{first} {}",
                self.t(
                    "Next, something riskier: a forced recursive delete (of my scratch folder only).",
                    "接下来是更危险的：强制递归删除（只删我的临时文件夹）。",
                )
            ),
            Some(Step::Delete),
            turn,
        )
    }

    /// The reply after the delete: on to the SSH key.
    fn after_delete(&self, outcome: &Outcome, turn: usize) -> Reply {
        let first = match outcome {
            Outcome::Ran(_) => self.t(
                "It ran: only my scratch folder is gone. harness9 rates `rm -rf` high risk, because it deletes without asking and cannot be undone; in the default mode it always puts such a call to you.",
                "它运行了：只删除了我的临时文件夹。harness9 把 `rm -rf` 评为高风险，因为它删除时不会确认，也无法撤销；默认模式下这类调用总会先问你。",
            ),
            Outcome::Failed(why) => self.t(
                &format!("It was allowed but failed: {}.", first_line(why)),
                &format!("它获准运行，但失败了：{}。", first_line(why)),
            ),
            Outcome::Feedback(f) => self.feedback_ack(f),
            Outcome::Denied => self.t(
                "Good call: `rm -rf` deletes without asking and cannot be undone.",
                "拒绝得对：`rm -rf` 删除时不会确认，也无法撤销。",
            ),
        };
        reply(
            format!(
                "{first} {}",
                self.t(
                    "Now a file no agent should ever read: your SSH private key.",
                    "现在试一个任何代理都不该读的文件：你的 SSH 私钥。",
                )
            ),
            Some(Step::Ssh),
            turn,
        )
    }

    /// The reply after the SSH key: on to the README.
    fn after_ssh(&self, outcome: &Outcome, turn: usize) -> Reply {
        let first = match outcome {
            Outcome::Ran(_) => self.t(
                "That should not have happened: ~/.ssh is meant to be protected. Check your policy.",
                "这不应该发生：~/.ssh 本应受保护。请检查你的策略。",
            ),
            Outcome::Failed(why) => self.t(
                &format!("harness9 let it through, but the read failed: {}. ~/.ssh is meant to be a hard protection: check your policy.", first_line(why)),
                &format!("harness9 放行了，但读取失败：{}。~/.ssh 本应是硬保护：请检查你的策略。", first_line(why)),
            ),
            _ => self.t(
                "Blocked without asking you: ~/.ssh is a hard protection that no rule, mode or approval lifts.",
                "没有问你就拦下了：~/.ssh 是硬保护，任何规则、模式或批准都无法解除。",
            ),
        };
        reply(
            format!(
                "{first} {}",
                self.t(
                    "Last, something harmless: reading README.md, which the default policy allows.",
                    "最后来个无害的：读取 README.md，默认策略直接允许。",
                )
            ),
            Some(Step::Readme),
            turn,
        )
    }

    fn summary(&self, done: &[(Step, Outcome)]) -> String {
        let zh = self.language == Language::Zh;
        let mut s = String::from(if zh {
            "演示结束。发生了什么：\n"
        } else {
            "That's the tour. What happened:\n"
        });
        for (step, outcome) in done {
            let what = match outcome {
                Outcome::Ran(_) if zh => "已运行".to_string(),
                Outcome::Ran(_) => "ran".to_string(),
                Outcome::Failed(_) if zh => "获准但运行失败".to_string(),
                Outcome::Failed(_) => "allowed, but failed".to_string(),
                Outcome::Denied if zh => "被拒绝".to_string(),
                Outcome::Denied => "denied".to_string(),
                Outcome::Feedback(f) if zh => format!("被拒绝，你说：“{f}”"),
                Outcome::Feedback(f) => format!("denied — you said: “{f}”"),
            };
            s.push_str(&format!("• {}: {what}\n", step.label()));
        }
        s.push_str(if zh {
            "要接入真正的模型，请在 ~/.config/harness9/config.toml 的 [model] 中设置 base_url 和 model（或设置 HARNESS9_BASE_URL / HARNESS9_MODEL）。"
        } else {
            "To use a real model, set base_url and model under [model] in ~/.config/harness9/config.toml (or HARNESS9_BASE_URL and HARNESS9_MODEL)."
        });
        s
    }
}

/// The steps of the tour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Init,
    Look,
    Delete,
    Ssh,
    Readme,
}

impl Step {
    const ALL: [Step; 5] = [
        Step::Init,
        Step::Look,
        Step::Delete,
        Step::Ssh,
        Step::Readme,
    ];

    fn tool(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Step::Init => ("bash", "command", FIRST_COMMAND),
            Step::Look => ("bash", "command", LOOK_COMMAND),
            Step::Delete => ("bash", "command", DELETE_COMMAND),
            Step::Ssh => ("read_file", "path", SECRET_PATH),
            Step::Readme => ("read_file", "path", README_PATH),
        }
    }

    fn label(self) -> String {
        let (tool, _, arg) = self.tool();
        format!("{tool} `{arg}`")
    }

    /// The step a tool call of the demo's is.
    fn of(call: &ModelToolCall) -> Option<Step> {
        let args: Value = serde_json::from_str(&call.arguments).ok()?;
        Step::ALL.into_iter().find(|s| {
            let (tool, key, arg) = s.tool();
            call.name == tool && args.get(key).and_then(Value::as_str) == Some(arg)
        })
    }

    fn call(self, turn: usize) -> ModelToolCall {
        let (tool, key, arg) = self.tool();
        ModelToolCall {
            id: format!("demo_{turn}_{self:?}").to_lowercase(),
            name: tool.to_string(),
            arguments: json!({ key: arg }).to_string(),
        }
    }
}

/// What became of a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// It ran; its output.
    Ran(String),
    /// It was let through but failed (or could not run); the error.
    Failed(String),
    Denied,
    /// Denied, with the person's words.
    Feedback(String),
}

impl Outcome {
    fn of(result: Option<&str>) -> Outcome {
        let Some(text) = result else {
            return Outcome::Denied; // no result: it did not run
        };
        let trimmed = text.trim_start();
        let denied = trimmed
            .get(..6)
            .is_some_and(|w| w.eq_ignore_ascii_case("denied"));
        if !denied {
            return match trimmed.strip_prefix("error:") {
                Some(why) => Outcome::Failed(why.trim().to_string()),
                None => Outcome::Ran(text.to_string()),
            };
        }
        const MARK: &str = "The user says:";
        match trimmed.find(MARK) {
            Some(i) => {
                let words = trimmed[i + MARK.len()..]
                    .trim()
                    .trim_matches(|c| matches!(c, '"' | '“' | '”' | '\''))
                    .trim();
                if words.is_empty() {
                    Outcome::Denied
                } else {
                    Outcome::Feedback(shorten(words, 200))
                }
            }
            None => Outcome::Denied,
        }
    }
}

/// What the conversation says about the tour since the latest user message.
struct State {
    /// The demo's steps since the latest user message, with what became of each.
    done: Vec<(Step, Outcome)>,
    /// Whether an earlier tour ran before the latest user message.
    toured_before: bool,
}

impl State {
    fn read(messages: &[Message]) -> State {
        let start = messages
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .map_or(0, |i| i + 1);
        let is_step = |m: &Message| match m {
            Message::Assistant { tool_calls, .. } => {
                tool_calls.iter().any(|c| Step::of(c).is_some())
            }
            _ => false,
        };
        let toured_before = messages[..start].iter().any(is_step);
        let mut done = Vec::new();
        for m in &messages[start..] {
            let Message::Assistant { tool_calls, .. } = m else {
                continue;
            };
            for call in tool_calls {
                let Some(step) = Step::of(call) else { continue };
                let result = messages[start..].iter().find_map(|r| match r {
                    Message::Tool {
                        tool_call_id,
                        content,
                    } if *tool_call_id == call.id => Some(content.as_str()),
                    _ => None,
                });
                done.push((step, Outcome::of(result)));
            }
        }
        State {
            done,
            toured_before,
        }
    }
}

fn reply(content: String, step: Option<Step>, turn: usize) -> Reply {
    Reply {
        content,
        tool_calls: step.map(|s| s.call(turn)).into_iter().collect(),
    }
}

/// The first line of a tool's output that says what happened: git's advice (`hint: …`, which
/// `git init` prints before `Initialized empty Git repository`) is not.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("hint:"))
        .unwrap_or("no output");
    shorten(line.trim_end_matches('.'), 120)
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max).collect();
    s.push('…');
    s
}

/// Splits text into a few pieces at spaces (or anywhere, for text without spaces).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(n.max(1));
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let mut end = (start + size).min(chars.len());
        // Move the cut to just after a space, when there is one nearby.
        if end < chars.len() {
            if let Some(sp) = chars[start..end].iter().rposition(|c| *c == ' ') {
                if sp > 0 {
                    end = start + sp + 1;
                }
            }
        }
        out.push(chars[start..end].iter().collect());
        start = end;
    }
    out
}

#[async_trait]
impl Model for DemoModel {
    fn name(&self) -> String {
        "demo".into()
    }

    async fn reply(
        &self,
        messages: &[Message],
        _tools: &[ToolSpec],
        deltas: &mpsc::UnboundedSender<Delta>,
        cancel: &CancelToken,
    ) -> Result<Reply, ModelError> {
        let reply = self.script(messages);
        for (i, piece) in pieces(&reply.content, 4).into_iter().enumerate() {
            if i > 0 && !self.pause.is_zero() {
                tokio::select! {
                    _ = cancel.cancelled() => return Err(ModelError("cancelled".into())),
                    _ = tokio::time::sleep(self.pause) => {}
                }
            }
            if cancel.is_cancelled() {
                return Err(ModelError("cancelled".into()));
            }
            let _ = deltas.send(Delta::Text(piece));
        }
        if cancel.is_cancelled() {
            return Err(ModelError("cancelled".into()));
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, Engine, Risk, ToolCall};

    fn user(text: &str) -> Message {
        Message::User {
            content: text.into(),
        }
    }

    /// The conversation after the demo's reply `r` and the tool result `result`.
    fn answer(mut history: Vec<Message>, r: &Reply, result: &str) -> Vec<Message> {
        history.push(Message::Assistant {
            content: r.content.clone(),
            tool_calls: r.tool_calls.clone(),
        });
        for c in &r.tool_calls {
            history.push(Message::Tool {
                tool_call_id: c.id.clone(),
                content: result.into(),
            });
        }
        history
    }

    fn args(r: &Reply) -> Value {
        serde_json::from_str(&r.tool_calls[0].arguments).expect("the demo writes valid JSON")
    }

    #[test]
    fn a_summary_of_output_skips_git_advice() {
        let out = "hint: Using 'master' as the name for the initial branch.\nhint:\n\
                   Initialized empty Git repository in /tmp/d/.git/\n[exit code 0]";
        assert_eq!(
            first_line(out),
            "Initialized empty Git repository in /tmp/d/.git/"
        );
        assert_eq!(first_line("hint: only advice"), "no output");
    }

    #[test]
    fn the_first_command_is_asked_about_with_low_or_medium_risk_by_the_default_policy() {
        let engine = Engine::builder()
            .default_policy()
            .build()
            .expect("the default policy loads");
        let first = ToolCall::primary("bash", FIRST_COMMAND);
        let d = engine.decide(&first);
        assert_eq!(d.action, Action::Ask, "{d:?}");
        assert!(matches!(d.risk, Risk::Low | Risk::Medium), "{d:?}");
        let p = crate::runtime::propose::propose(&engine, &first, &d);
        assert_eq!(
            p.map(|p| p.texts()),
            Some(vec!["bash(git init *)".to_string()]),
            "\"always allow\" has a narrow rule for it"
        );

        let d = engine.decide(&ToolCall::primary("bash", DELETE_COMMAND));
        assert_eq!((d.action, d.risk), (Action::Ask, Risk::High), "{d:?}");
        let d = engine.decide(&ToolCall::primary("read_file", SECRET_PATH));
        assert_eq!(d.action, Action::Deny, "{d:?}");
        let d = engine.decide(&ToolCall::primary("read_file", README_PATH));
        assert_eq!(d.action, Action::Allow, "{d:?}");
        let d = engine.decide(&ToolCall::primary("bash", LOOK_COMMAND));
        assert_eq!(
            d.action,
            Action::Allow,
            "the feedback alternative is read-only: {d:?}"
        );
    }

    #[test]
    fn the_first_turn_calls_git_init_whatever_the_user_typed() {
        let demo = DemoModel::new();
        for text in ["", "hello", "please delete everything"] {
            let r = demo.script(&[user(text)]);
            assert_eq!(r.tool_calls.len(), 1);
            assert_eq!(r.tool_calls[0].name, "bash");
            assert_eq!(args(&r)["command"], FIRST_COMMAND);
            assert!(
                !r.content.is_empty() && !r.content.contains('\n'),
                "one line"
            );
        }
        let r = demo.script(&[]);
        assert_eq!(args(&r)["command"], FIRST_COMMAND, "even with no messages");
    }

    #[test]
    fn a_failed_call_is_narrated_as_failed_never_as_ran() {
        let demo = DemoModel::new();
        let h = vec![user("")];
        let r1 = demo.script(&h);
        let h = answer(h, &r1, "error: `git` was not found");
        let r2 = demo.script(&h);
        assert!(
            r2.content.contains("failed") && !r2.content.starts_with("Done"),
            "{}",
            r2.content
        );
        // The rest of the tour, to its summary.
        let mut h = answer(h, &r2, "error: no such folder");
        loop {
            let r = demo.script(&h);
            if r.tool_calls.is_empty() {
                assert!(
                    r.content
                        .contains("bash `git init demo-repo`: allowed, but failed"),
                    "{}",
                    r.content
                );
                assert!(
                    !r.content.contains("git init demo-repo`: ran"),
                    "{}",
                    r.content
                );
                break;
            }
            h = answer(h, &r, "error: it failed");
        }
    }

    #[test]
    fn the_delete_narration_does_not_claim_that_harness9_asked() {
        // In bypass or auto-approve the call runs without a question: the text must hold
        // whatever the mode was.
        let demo = DemoModel::new();
        let h = vec![user("")];
        let r1 = demo.script(&h);
        let h = answer(h, &r1, "Initialized empty Git repository");
        let r2 = demo.script(&h);
        let h = answer(h, &r2, "");
        let r3 = demo.script(&h);
        assert!(r3.content.starts_with("It ran"), "{}", r3.content);
        assert!(!r3.content.contains("asked first"), "{}", r3.content);
    }

    #[test]
    fn an_allowed_first_step_moves_on_to_the_forced_delete() {
        let demo = DemoModel::new();
        let h = vec![user("")];
        let r1 = demo.script(&h);
        let h = answer(
            h,
            &r1,
            "Initialized empty Git repository in /w/demo-repo/.git/\n[exit code 0]",
        );
        let r2 = demo.script(&h);
        assert_eq!(args(&r2)["command"], DELETE_COMMAND);
        assert!(
            r2.content.contains("Initialized empty Git repository"),
            "{}",
            r2.content
        );
    }

    #[test]
    fn a_plain_denial_says_so_and_moves_on() {
        let demo = DemoModel::new();
        let h = vec![user("")];
        let r1 = demo.script(&h);
        let h = answer(h, &r1, "denied by the user");
        let r2 = demo.script(&h);
        assert_eq!(args(&r2)["command"], DELETE_COMMAND);
        assert!(r2.content.contains("You denied"), "{}", r2.content);
    }

    #[test]
    fn feedback_is_quoted_and_changes_the_next_step() {
        let demo = DemoModel::new();
        let h = vec![user("")];
        let r1 = demo.script(&h);
        let h = answer(
            h,
            &r1,
            "denied by the user. The user says: don't create repos in my home",
        );
        let r2 = demo.script(&h);
        assert_eq!(r2.tool_calls[0].name, "bash");
        assert_eq!(
            args(&r2)["command"],
            LOOK_COMMAND,
            "a read-only step instead"
        );
        assert!(
            r2.content.contains("“don't create repos in my home”"),
            "the feedback verbatim: {}",
            r2.content
        );
        // After the look, the tour goes on.
        let h = answer(h, &r2, "total 8\ndrwxr-xr-x 2 u u 4096 .\n[exit code 0]");
        let r3 = demo.script(&h);
        assert_eq!(args(&r3)["command"], DELETE_COMMAND);
    }

    #[test]
    fn the_tour_visits_every_step_then_summarises_without_tool_calls() {
        let demo = DemoModel::new();
        let mut h = vec![user("")];
        let results = [
            "Initialized empty Git repository\n[exit code 0]",
            "Denied: forced recursive delete of files and folders",
            "denied: `~/.ssh` holds SSH keys: it is protected",
            "# harness9\n",
        ];
        let mut seen = Vec::new();
        for result in results {
            let r = demo.script(&h);
            assert_eq!(r.tool_calls.len(), 1, "one tool call per reply");
            seen.push(r.tool_calls[0].arguments.clone());
            h = answer(h, &r, result);
        }
        assert_eq!(
            seen,
            [
                json!({"command": FIRST_COMMAND}).to_string(),
                json!({"command": DELETE_COMMAND}).to_string(),
                json!({"path": SECRET_PATH}).to_string(),
                json!({"path": README_PATH}).to_string(),
            ]
        );
        let last = demo.script(&h);
        assert!(last.tool_calls.is_empty(), "the summary ends the tour");
        assert!(
            last.content.contains("bash `git init demo-repo`: ran"),
            "{}",
            last.content
        );
        assert!(last.content.contains("denied"), "{}", last.content);

        // A new message starts over.
        h.push(Message::Assistant {
            content: last.content,
            tool_calls: vec![],
        });
        h.push(user("again"));
        let again = demo.script(&h);
        assert_eq!(args(&again)["command"], FIRST_COMMAND);
        assert!(again.content.contains("again"), "{}", again.content);
    }

    #[test]
    fn tool_call_ids_are_unique_across_the_conversation() {
        let demo = DemoModel::new();
        let mut h = vec![user("")];
        let mut ids = std::collections::HashSet::new();
        for _ in 0..4 {
            let r = demo.script(&h);
            assert!(ids.insert(r.tool_calls[0].id.clone()), "{:?}", r.tool_calls);
            h = answer(h, &r, "ok");
        }
    }

    #[test]
    fn chinese_texts_when_asked() {
        let demo = DemoModel::new().with_language(Language::Zh);
        let r = demo.script(&[user("")]);
        assert!(r.content.contains("演示"), "{}", r.content);
        assert_eq!(args(&r)["command"], FIRST_COMMAND, "the same script");
    }

    #[test]
    fn outcomes_are_read_from_result_text() {
        assert_eq!(Outcome::of(None), Outcome::Denied);
        assert_eq!(Outcome::of(Some("Denied by rule")), Outcome::Denied);
        assert_eq!(
            Outcome::of(Some("denied. The user says: \"not now\"")),
            Outcome::Feedback("not now".into())
        );
        assert_eq!(
            Outcome::of(Some("the user says: hi")),
            Outcome::Ran("the user says: hi".into()),
            "only a denial carries feedback"
        );
    }

    #[test]
    fn pieces_rebuild_the_text() {
        for text in [
            "",
            "one",
            "a b c d e f g h i j",
            "没有空格的中文文本也能切开",
        ] {
            let p = pieces(text, 4);
            assert_eq!(p.concat(), text);
            assert!(p.len() <= 8, "{p:?}");
        }
        assert!(
            pieces("a b c d e f g h i j k l", 4).len() >= 3,
            "a few pieces"
        );
    }

    #[tokio::test]
    async fn reply_streams_the_text_in_pieces() {
        let demo = DemoModel::new().with_pause(Duration::from_millis(1));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let r = demo
            .reply(&[user("")], &[], &tx, &CancelToken::new())
            .await
            .expect("a reply");
        let mut got = Vec::new();
        while let Ok(Delta::Text(t)) = rx.try_recv() {
            got.push(t);
        }
        assert!(got.len() >= 3, "{got:?}");
        assert_eq!(got.concat(), r.content);
    }

    #[tokio::test]
    async fn a_cancelled_reply_is_an_error() {
        let demo = DemoModel::new();
        let (tx, _rx) = mpsc::unbounded_channel();
        let cancel = CancelToken::new();
        cancel.cancel();
        let e = demo
            .reply(&[user("")], &[], &tx, &cancel)
            .await
            .expect_err("cancelled");
        assert_eq!(e.0, "cancelled");
    }
}
