//! Chinese for the texts the TUI shows that do not come from [`super::i18n`]: the engine's
//! built-in reasons, the shipped policies' rule reasons, and the runtime's notices and denials.
//! Text found in none of them (a reason a project's policy wrote, a tool's output) is left as
//! written. Punctuation is full-width: `：`, `，`, `（）`, `。`.

/// The shipped policies' reasons (builtin.policy, default.policy, readonly.policy), word for
/// word.
const REASONS: &[(&str, &str)] = &[
    (
        "`~/.aws` holds AWS credentials: it is protected",
        "`~/.aws` 存放 AWS 凭据：受保护",
    ),
    (
        "`~/.config/gcloud` holds Google Cloud credentials: it is protected",
        "`~/.config/gcloud` 存放 Google Cloud 凭据：受保护",
    ),
    (
        "`~/.gnupg` holds GnuPG keys: it is protected",
        "`~/.gnupg` 存放 GnuPG 密钥：受保护",
    ),
    (
        "`~/.kube` holds Kubernetes credentials: it is protected",
        "`~/.kube` 存放 Kubernetes 凭据：受保护",
    ),
    (
        "`~/.netrc` holds login passwords: it is protected",
        "`~/.netrc` 存放登录密码：受保护",
    ),
    (
        "`~/.ssh` holds SSH keys: it is protected",
        "`~/.ssh` 存放 SSH 密钥：受保护",
    ),
    (
        "a function that calls itself (the shape of a fork bomb)",
        "调用自身的函数（fork 炸弹的形态）",
    ),
    ("changes firewall rules", "修改防火墙规则"),
    (
        "changes infrastructure beyond this machine",
        "修改本机以外的基础设施",
    ),
    ("changes who may do what", "修改权限归属"),
    (
        "dd writes directly to a disk device (can overwrite the disk)",
        "dd 直接写入磁盘设备（可能覆盖整个磁盘）",
    ),
    (
        "deletes every file the search finds",
        "删除搜索到的所有文件",
    ),
    (
        "deletes every scheduled job of the user",
        "删除用户的所有计划任务",
    ),
    ("deletes files outside the project", "删除项目以外的文件"),
    ("deletes untracked files for good", "永久删除未跟踪的文件"),
    (
        "destroys version-control history or uncommitted work",
        "破坏版本历史或未提交的工作",
    ),
    ("force-kills a process", "强制结束进程"),
    (
        "force-push: overwrites the remote history",
        "强制推送：覆盖远程历史",
    ),
    (
        "forced recursive delete of files and folders",
        "强制递归删除文件和文件夹",
    ),
    ("formats or repartitions a disk", "格式化磁盘或重新分区"),
    ("gives everyone full permissions", "给所有人完全权限"),
    (
        "installs packages (their install scripts run)",
        "安装软件包（会运行其安装脚本）",
    ),
    ("kills every process with that name", "结束所有同名进程"),
    ("kills processes by name", "按名称结束进程"),
    (
        "make runs a makefile produced by another command",
        "make 运行另一条命令生成的 makefile",
    ),
    (
        "make runs its recipes with a shell or makefile given on the command line",
        "make 用命令行给出的 shell 或 makefile 运行其规则",
    ),
    ("makes a file executable", "使文件可执行"),
    (
        "makes something run later (start-up files, schedulers, hooks, agent settings)",
        "安排以后运行的内容（启动文件、计划任务、钩子、智能体设置）",
    ),
    ("manages system services", "管理系统服务"),
    (
        "overwrites files so they cannot be recovered",
        "覆盖文件使其无法恢复",
    ),
    (
        "recursive delete of the root or home folder",
        "递归删除根目录或主目录",
    ),
    (
        "recursively changes the owner of files",
        "递归修改文件所有者",
    ),
    (
        "recursively gives everyone full permissions",
        "递归给所有人完全权限",
    ),
    (
        "rewrites remote branches (if they did not move)",
        "改写远程分支（若其未变动）",
    ),
    ("runs a command as root", "以 root 身份运行命令"),
    (
        "runs a script piped into a shell (often a download)",
        "运行通过管道传给 shell 的脚本（常为下载内容）",
    ),
    (
        "runs a script produced by another command (often a download)",
        "运行另一条命令生成的脚本（常为下载内容）",
    ),
    ("runs code fetched from the network", "运行从网络获取的代码"),
    (
        "runs code piped into an interpreter (often a download)",
        "运行通过管道传给解释器的代码（常为下载内容）",
    ),
    (
        "runs code the analysis cannot read",
        "运行分析无法读懂的代码",
    ),
    ("sends local data over the network", "通过网络发送本地数据"),
    (
        "signals every process (or init)",
        "向所有进程（或 init）发信号",
    ),
    ("stops or restarts the machine", "关闭或重启机器"),
    ("stops processes or services", "停止进程或服务"),
    ("throws away uncommitted changes", "丢弃未提交的改动"),
    ("truncates a device", "截断设备"),
    (
        "writes directly to a device file (can overwrite the disk)",
        "直接写入设备文件（可能覆盖整个磁盘）",
    ),
    ("writes files outside the project", "写入项目以外的文件"),
    (
        "writes to a disk device (can overwrite the disk)",
        "写入磁盘设备（可能覆盖整个磁盘）",
    ),
    ("no rule matched", "没有匹配的规则"),
    ("no built-in rule matched", "没有匹配的内置规则"),
    ("no managed rule matched", "没有匹配的托管规则"),
];

fn risk(word: &str) -> &str {
    match word {
        "high" => "高风险",
        "medium" => "中等风险",
        "low" => "低风险",
        other => other,
    }
}

/// `reason` in Chinese when it is a built-in one (or made of built-in parts).
pub fn reason(reason: &str) -> String {
    if let Some((_, zh)) = REASONS.iter().find(|(en, _)| *en == reason) {
        return (*zh).to_string();
    }
    if let Some(rest) = reason.strip_prefix("approved by bypass mode: ") {
        return format!("bypass 模式已批准：{}", self::reason(rest));
    }
    if let Some(rest) = reason.strip_prefix("auto-approved (") {
        if let Some((level, rest)) = rest.split_once(" risk, auto-approve mode): ") {
            return format!(
                "已自动批准（{}，auto-approve 模式）：{}",
                risk(level),
                self::reason(rest)
            );
        }
    }
    if let Some(rest) = reason.strip_prefix("no rule matched (the default, ") {
        if let Some(at) = rest.strip_suffix(')') {
            return format!("没有匹配的规则（默认，{at}）");
        }
    }
    if let Some(rest) = reason.strip_prefix("read-only mode: ") {
        if let Some(what) = rest.strip_suffix(" may change something") {
            return format!("只读模式：{what} 可能会改动内容");
        }
    }
    if let Some(path) = reason.strip_suffix(" is a protected path") {
        return format!("{path} 是受保护的路径");
    }
    // "… (in `part`)": the part of a compound command it is about.
    if let Some(at) = reason.rfind(" (in `") {
        if reason.ends_with("`)") {
            let (head, tail) = reason.split_at(at);
            let part = &tail[" (in ".len()..tail.len() - 1];
            return format!("{}（见 {part}）", self::reason(head));
        }
    }
    // "built-in reason: a program's own description".
    if let Some((head, rest)) = reason.split_once(": ") {
        if let Some((_, zh)) = REASONS.iter().find(|(en, _)| *en == head) {
            return format!("{zh}：{rest}");
        }
    }
    reason.to_string()
}

/// A notice or a tool result the runtime wrote, in Chinese when it is one of its own.
pub fn message(text: &str) -> String {
    const PREFIXES: &[(&str, &str)] = &[
        ("added to the allowlist: ", "已加入白名单："),
        ("already in the allowlist: ", "已在白名单中："),
        ("policy reloaded: ", "策略已重新加载："),
    ];
    for (en, zh) in PREFIXES {
        if let Some(rest) = text.strip_prefix(en) {
            return format!("{zh}{rest}");
        }
    }
    match text {
        "no rule can be written for this call; it is allowed for this session" => {
            return "无法为此调用写入规则；本会话内允许".into()
        }
        "rules are not written in this run; the call is allowed for this session" => {
            return "本次运行不写入规则；本会话内允许此调用".into()
        }
        _ => {}
    }
    if let Some(rest) = text.strip_prefix("denied by the user (") {
        let (why, says) = match rest.split_once("). The user says: ") {
            Some((why, says)) => (why, Some(says)),
            None => (rest.strip_suffix(')').unwrap_or(rest), None),
        };
        let mut out = format!("已被用户拒绝（{}）", reason(why));
        if let Some(says) = says {
            out.push_str(&format!("。用户说：{says}"));
        }
        return out;
    }
    // The model client's usual errors (after "模型错误：").
    if let Some(rest) = text.strip_prefix("could not connect to ") {
        if let Some(url) = rest.strip_suffix(": connection refused (is the server running?)") {
            return format!("无法连接 {url}：连接被拒绝（服务器在运行吗？）");
        }
        if let Some(url) = rest.strip_suffix(": host not found (check base_url)") {
            return format!("无法连接 {url}：找不到主机（请检查 base_url）");
        }
        if let Some(url) = rest.strip_suffix(" (is the server running?)") {
            return format!("无法连接 {url}（服务器在运行吗？）");
        }
    }
    if let Some(rest) = text.strip_prefix("the connection to ") {
        if let Some((url, why)) = rest.split_once(" dropped in the middle of the reply: ") {
            return format!("与 {url} 的连接在回复途中断开：{why}");
        }
    }
    if text == "the model server sent an empty response" {
        return "模型服务器返回了空响应".into();
    }
    if let Some(out) = contained_note(text) {
        return out;
    }
    if let Some(rest) = text.strip_prefix("could not write the rule (") {
        if let Some(e) = rest.strip_suffix("); the call is allowed for this session only") {
            return format!("无法写入规则（{e}）；仅在本会话内允许此调用");
        }
    }
    reason(text)
}

/// The transcript's note under a call that ran in the sandbox (see
/// `runtime::Contained::note`); what the sandbox's sign says stays as it is.
fn contained_note(text: &str) -> Option<String> {
    let rest = text.strip_prefix("ran in the sandbox (profile ")?;
    let (profile, rest) = rest.split_once("): no network, writes to the project only")?;
    let mut out = format!("已在沙箱中运行（配置 {profile}）：无网络，只写入项目");
    if rest.is_empty() {
        return Some(out);
    }
    let rest =
        rest.strip_prefix("; it failed, and the failure looks like the sandbox's doing (")?;
    let (sign, outcome) = rest.rsplit_once("); ")?;
    out.push_str(&format!("；运行失败，看来是沙箱所致（{sign}）"));
    out.push_str(match outcome {
        "it ran again outside the sandbox, as approved" => "；已按批准在沙箱外再次运行",
        "it was not run outside the sandbox (not approved)" => "；未在沙箱外运行（未获批准）",
        "it runs outside the sandbox only with a person's approval" => {
            "；只有经人批准才会在沙箱外运行"
        }
        _ => return None,
    });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_of_a_contained_call_reads_in_chinese() {
        assert_eq!(
            message("ran in the sandbox (profile build): no network, writes to the project only"),
            "已在沙箱中运行（配置 build）：无网络，只写入项目"
        );
        assert_eq!(
            message(
                "ran in the sandbox (profile default): no network, writes to the project only; \
                 it failed, and the failure looks like the sandbox's doing (`Read-only file \
                 system`: it writes only the project and the temporary folder); it was not run \
                 outside the sandbox (not approved)"
            ),
            "已在沙箱中运行（配置 default）：无网络，只写入项目；运行失败，看来是沙箱所致\
             （`Read-only file system`: it writes only the project and the temporary folder）；\
             未在沙箱外运行（未获批准）"
        );
    }

    #[test]
    fn built_in_reasons_are_translated_whole_and_in_their_compound_forms() {
        assert_eq!(
            reason("forced recursive delete of files and folders"),
            "强制递归删除文件和文件夹"
        );
        assert_eq!(
            reason("forced recursive delete of files and folders (in `rm -rf /tmp/x`)"),
            "强制递归删除文件和文件夹（见 `rm -rf /tmp/x`）"
        );
        assert_eq!(
            reason("approved by bypass mode: forced recursive delete of files and folders"),
            "bypass 模式已批准：强制递归删除文件和文件夹"
        );
        assert_eq!(
            reason("auto-approved (low risk, auto-approve mode): no rule matched (the default, default.policy:7)"),
            "已自动批准（低风险，auto-approve 模式）：没有匹配的规则（默认，default.policy:7）"
        );
        assert_eq!(
            reason("read-only mode: `bash` may change something"),
            "只读模式：`bash` 可能会改动内容"
        );
        assert_eq!(
            reason("installs packages (their install scripts run): npm installs the project's dependencies"),
            "安装软件包（会运行其安装脚本）：npm installs the project's dependencies"
        );
    }

    #[test]
    fn a_projects_own_reason_is_left_as_written() {
        assert_eq!(
            reason("our team reviews deploys"),
            "our team reviews deploys"
        );
        assert_eq!(reason("deploys: ask Bob"), "deploys: ask Bob");
    }

    #[test]
    fn the_runtimes_denials_and_notices_read_in_chinese() {
        assert_eq!(
            message("denied by the user (forced recursive delete of files and folders). The user says: keep it"),
            "已被用户拒绝（强制递归删除文件和文件夹）。用户说：keep it"
        );
        assert_eq!(
            message("added to the allowlist: bash(git init *)"),
            "已加入白名单：bash(git init *)"
        );
        assert_eq!(
            message("Cargo.toml\nsrc"),
            "Cargo.toml\nsrc",
            "output is not touched"
        );
    }

    #[test]
    fn every_translation_uses_full_width_punctuation() {
        for (_, zh) in REASONS {
            for half in [": ", ", ", "(", ")"] {
                assert!(!zh.contains(half), "{zh:?} has a half-width {half:?}");
            }
        }
    }
}
