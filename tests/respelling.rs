//! Re-spelling a dangerous command — quoting, flag order, program paths, wrappers, compound
//! context — never makes its decision looser: under the default policy, under random
//! policies (for the re-spellings that keep every word as it is: quotes, wrappers), and under
//! random policies whose rules judge what a command does (for every re-spelling).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod reference;

use harness9::{Action, Decision, Engine, PathContext, ToolCall};
use proptest::prelude::*;
use reference::gen::{self, Gen};
use reference::{Layout, World};

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

/// Programs whose single-dash words are whole options (`find -delete`), not letter clusters:
/// splitting or reordering them changes the command, so it is no re-spelling.
const SINGLE_DASH_LONG: [&str; 5] = ["find", "java", "ffmpeg", "gcc", "clang"];

/// Wrappers: a dash word after their own options and assignments may be the program they run
/// (`env A=1 -fr`), which splitting would rename.
const WRAPPERS: [&str; 9] = [
    "env", "sudo", "nice", "timeout", "nohup", "command", "exec", "xargs", "time",
];

/// Splits or reorders a short-flag cluster (`-rf` → `-r -f` or `-fr`).
fn reflag(program: &str, word: &str, how: u8) -> Vec<String> {
    if SINGLE_DASH_LONG.contains(&program) || WRAPPERS.contains(&program) {
        return vec![word.to_string()];
    }
    let Some(letters) = word.strip_prefix('-').filter(|l| {
        l.len() > 1 && !l.starts_with('-') && l.chars().all(|c| c.is_ascii_alphabetic())
    }) else {
        return vec![word.to_string()];
    };
    // A letter that takes a value takes the rest of the cluster (`tar -fdx` is `-f dx`,
    // `curl -delete` is `-d elete`): splitting or reordering would be another command. The
    // program's table says which letters take one; a program without a table whose options
    // the effects model reads its own way (curl, wget, nc, …) keeps its clusters as written.
    let table = harness9::knowledge::registry().get(program);
    if table.is_none() && harness9::knowledge::effects::knows(program) {
        return vec![word.to_string()];
    }
    let takes_value = table.is_some_and(|p| {
        letters.chars().any(|c| {
            p.short(c)
                .is_some_and(|o| o.takes != harness9::knowledge::Takes::Nothing)
        })
    });
    if takes_value {
        return vec![word.to_string()];
    }
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
    #![proptest_config(ProptestConfig::with_cases(reference::cases(512)))]

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
            for f in reflag(words[0], w, flags[i % flags.len()]) {
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

/// Whether `after` is looser than `before`: a less strict action, or an ask at a lower risk.
/// (Which rule allows, or at what risk something is denied, changes nothing.)
fn looser(after: &Decision, before: &Decision) -> bool {
    let rank = |a: Action| match a {
        Action::Allow => 0,
        Action::Sandbox => 1,
        Action::Ask => 2,
        Action::Deny => 3,
    };
    rank(after.action) < rank(before.action)
        || (after.action == Action::Ask && before.action == Action::Ask && after.risk < before.risk)
}

/// A random command as words: a program and a few arguments from the shared vocabulary.
fn random_words(g: &mut Gen) -> Vec<String> {
    let mut words = vec![g.pick(gen::PROGRAMS).to_string()];
    for _ in 0..g.below(5) {
        words.push(g.pick(gen::ARGS).to_string());
    }
    words
}

/// Whether quoting a word keeps its meaning: no `~`, wildcards, expansions or quotes in it.
fn quotable(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_./=+-,:@%".contains(c))
}

/// The ways of writing the program that keep it the same word after quote removal, or run it
/// through `command`.
fn same_word_program(name: &str, how: u8) -> String {
    match how % 4 {
        0 => name.to_string(),
        1 => format!("\\{name}"),
        2 => format!("'{name}'"),
        _ => format!("command {name}"),
    }
}

/// Wrappers that run the command with every word as it was: the command they run is the
/// same simple command (`env X=1` is left out: it adds an assignment, which allow rules see).
fn same_words_wrap(cmd: &str, how: u8) -> String {
    let single = cmd.replace('\'', r"'\''");
    match how % 10 {
        0 => cmd.to_string(),
        1 => format!("sudo {cmd}"),
        2 => format!("nice -n 5 {cmd}"),
        3 => format!("timeout 10 {cmd}"),
        4 => format!("bash -c '{single}'"),
        5 => format!("sh -c '{single}'"),
        6 => format!("true && {cmd}"),
        7 => format!("( {cmd} )"),
        8 => format!("{{ {cmd}; }}"),
        _ => format!("if true; then {cmd}; fi"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(reference::cases(128)))]

    #[test]
    fn quoting_and_wrapping_never_loosen_a_command_under_random_policies(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        seed in any::<u64>(),
        prog in any::<u8>(),
        quotes in prop::collection::vec(any::<u8>(), 8),
        wrappers in prop::collection::vec(any::<u8>(), 1..3),
    ) {
        let layout = Layout::new();
        let world = World::generate(&mut Gen::from_bytes(&bytes), 40);
        let e = world.build(&layout.ctx()).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let words = random_words(&mut Gen::from_seed(seed));
        let plain = words.join(" ");
        let before = e.decide(&ToolCall::primary("bash", plain.as_str()));

        let mut parts = vec![same_word_program(&words[0], prog)];
        for (i, w) in words[1..].iter().enumerate() {
            parts.push(if quotable(w) { quote(w, quotes[i % quotes.len()]) } else { w.clone() });
        }
        let mut cmd = parts.join(" ");
        // Prefix wrappers inside groups (`( sudo x )`, not `sudo ( x )`, which does not parse).
        let mut wrappers = wrappers.clone();
        wrappers.sort_by_key(|w| matches!(w % 10, 7..=9));
        for w in &wrappers {
            cmd = same_words_wrap(&cmd, *w);
        }
        let after = e.decide(&ToolCall::primary("bash", cmd.as_str()));
        prop_assert!(
            !looser(&after, &before),
            "`{}` gets {:?}, but `{}` gets {:?}\n{}", cmd, after, plain, before, world.describe()
        );
    }

    #[test]
    fn every_respelling_keeps_a_command_as_strict_under_rules_about_what_it_does(
        seed in any::<u64>(),
        base in 0..BASES.len() + 8,
        prog in any::<u8>(),
        quotes in prop::collection::vec(any::<u8>(), 8),
        flags in prop::collection::vec(any::<u8>(), 8),
        wrappers in prop::collection::vec(any::<u8>(), 1..3),
    ) {
        let layout = Layout::new();
        let mut g = Gen::from_seed(seed);
        let world = World {
            policies: vec![
                ("a.policy".into(), gen::semantic_policy(&mut g, 30)),
                ("b.policy".into(), gen::semantic_policy(&mut g, 10)),
            ],
            settings: Vec::new(),
            builtin: g.chance(80),
        };
        let e = world.build(&layout.ctx()).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let words: Vec<String> = match BASES.get(base) {
            Some(b) => b.iter().map(|w| w.to_string()).collect(),
            None => random_words(&mut g),
        };
        let plain = words.join(" ");
        let before = e.decide(&ToolCall::primary("bash", plain.as_str()));

        let mut parts = vec![program(&words[0], prog)];
        for (i, w) in words[1..].iter().enumerate() {
            for f in reflag(&words[0], w, flags[i % flags.len()]) {
                parts.push(if quotable(&f) { quote(&f, quotes[i % quotes.len()]) } else { f });
            }
        }
        let mut cmd = parts.join(" ");
        // Prefix wrappers inside groups (`( sudo x )`, not `sudo ( x )`, which does not parse).
        let mut wrappers = wrappers.clone();
        wrappers.sort_by_key(|w| matches!(w % 12, 8..=10));
        for w in &wrappers {
            cmd = wrap(&cmd, *w);
        }
        let after = e.decide(&ToolCall::primary("bash", cmd.as_str()));
        prop_assert!(
            !looser(&after, &before),
            "`{}` gets {:?}, but `{}` gets {:?}\n{}", cmd, after, plain, before, world.describe()
        );
    }
}

/// Found by re-spelling into a line that does not parse: the words of such a line were judged
/// with their quotes, so `cat '…/.ssh/id_rsa'` before a syntax error was not seen as naming
/// `~/.ssh` — and bypass mode approved it, though bash runs the lines before the error. Nor
/// were the words after `echo` (`echo key >> ~/.ssh/authorized_keys`), which echo prints.
#[test]
fn a_quoted_protected_path_before_a_syntax_error_is_still_denied_in_every_mode() {
    let home = PathContext::new("/work/proj", Some("/home/u".into()));
    let e = Engine::builder()
        .context(home)
        .default_policy()
        .build()
        .expect("the default policy loads");
    for line in [
        "cat '/home/u/.ssh/id_rsa'\nif then fi",
        "cat \"$HOME/.aws/credentials\"; ( echo",
        "cp /home/u/.ne\\trc /tmp/x && if",
        "echo key >> '/home/u/.ssh/authorized_keys'\nif then fi",
        "echo key>>~/.ssh/authorized_keys; (",
    ] {
        for mode in harness9::Mode::ALL {
            let d = e.decide_in_mode(&ToolCall::primary("bash", line), mode);
            assert_eq!(d.action, Action::Deny, "{line:?} in mode {mode}: {d:?}");
            assert!(
                d.rule.to_string().starts_with("protected:"),
                "{line:?}: {d:?}"
            );
        }
    }
}
