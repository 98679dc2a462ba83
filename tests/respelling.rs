//! Re-spelling a dangerous command — quoting, flag order, program paths, wrappers, compound
//! context — never makes its decision looser.

use harness9::{Engine, PathContext, ToolCall};
use proptest::prelude::*;

/// Dangerous commands as words: the program, then its arguments.
const BASES: &[&[&str]] = &[
    &["rm", "-rf", "build"],
    &["rm", "-r", "-f", "/srv/data"],
    &["chmod", "-R", "777", "/srv"],
    &["chown", "-R", "nobody", "/srv"],
    &["dd", "if=/dev/zero", "of=/dev/sda"],
    &["kill", "-9", "1234"],
    &["pkill", "node"],
    &["git", "push", "--force", "origin", "main"],
    &["git", "reset", "--hard"],
    &["systemctl", "restart", "nginx"],
    &["iptables", "-F"],
    &["shred", "-u", "notes.txt"],
    &["crontab", "-r"],
    &["mkfs.ext4", "/dev/sdb1"],
    &["chmod", "+x", "run.sh"],
    &["cat", "~/.ssh/id_rsa"],
];

fn engine() -> Engine {
    Engine::builder()
        .context(PathContext::new("/work/proj", Some("/home/u".into())))
        .default_policy()
        .build()
        .expect("the default policy loads")
}

/// Quotes a word the way a shell user might, without changing what it means.
fn quote(word: &str, how: u8) -> String {
    if word.starts_with('~') {
        return word.to_string(); // quoting `~` would change its meaning
    }
    match how % 4 {
        0 => word.to_string(),
        1 => format!("'{word}'"),
        2 => format!("\"{word}\""),
        _ => {
            let mut chars = word.chars();
            match chars.next() {
                Some(c) if c.is_ascii_alphanumeric() => format!("{c}\"\"{}", chars.as_str()),
                _ => word.to_string(),
            }
        }
    }
}

/// Splits or reorders a short-flag cluster (`-rf` → `-r -f` or `-fr`).
fn reflag(word: &str, how: u8) -> Vec<String> {
    let Some(letters) = word.strip_prefix('-').filter(|l| {
        l.len() > 1 && !l.starts_with('-') && l.chars().all(|c| c.is_ascii_alphabetic())
    }) else {
        return vec![word.to_string()];
    };
    match how % 3 {
        0 => vec![word.to_string()],
        1 => letters.chars().map(|c| format!("-{c}")).collect(),
        _ => vec![format!("-{}", letters.chars().rev().collect::<String>())],
    }
}

fn program(name: &str, how: u8) -> String {
    match how % 5 {
        0 => name.to_string(),
        1 => format!("/usr/bin/{name}"),
        2 => format!("\\{name}"),
        3 => format!("'{name}'"),
        _ => format!("command {name}"),
    }
}

fn wrap(cmd: &str, how: u8) -> String {
    let single = cmd.replace('\'', r"'\''");
    match how % 12 {
        0 => cmd.to_string(),
        1 => format!("sudo {cmd}"),
        2 => format!("env FOO=1 {cmd}"),
        3 => format!("nice -n 5 {cmd}"),
        4 => format!("timeout 10 {cmd}"),
        5 => format!("bash -c '{single}'"),
        6 => format!("sh -c '{single}'"),
        7 => format!("true && {cmd}"),
        8 => format!("( {cmd} )"),
        9 => format!("{{ {cmd}; }}"),
        10 => format!("if true; then {cmd}; fi"),
        _ => format!("echo start; {cmd} 2>/dev/null"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn respelling_a_dangerous_command_never_loosens_its_decision(
        base in 0..BASES.len(),
        prog in any::<u8>(),
        quotes in prop::collection::vec(any::<u8>(), 8),
        flags in prop::collection::vec(any::<u8>(), 8),
        wrappers in prop::collection::vec(any::<u8>(), 1..3),
    ) {
        let e = engine();
        let words = BASES[base];
        let plain = words.join(" ");
        let before = e.decide(&ToolCall::primary("bash", plain.as_str()));

        let mut parts = vec![program(words[0], prog)];
        for (i, w) in words[1..].iter().enumerate() {
            for f in reflag(w, flags[i % flags.len()]) {
                parts.push(quote(&f, quotes[i % quotes.len()]));
            }
        }
        let mut cmd = parts.join(" ");
        for w in &wrappers {
            cmd = wrap(&cmd, *w);
        }
        let after = e.decide(&ToolCall::primary("bash", cmd.as_str()));
        prop_assert!(
            after.strictness() >= before.strictness(),
            "`{}` gets {:?}/{:?} ({}), but `{}` gets {:?}/{:?} ({})",
            cmd, after.action, after.risk, after.reason, plain, before.action, before.risk, before.reason
        );
    }
}
