//! `harness9 install`, `uninstall` and `doctor` through the built binary: the hook never fails
//! open, a shared install works on every machine, nothing is left behind, and the doctor says
//! what to run.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A project folder, a home folder, and a folder of programs that is the whole `PATH`.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "work", "bin"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        Machine { dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.work().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.work().join(name)).unwrap()
    }

    /// A program on this machine's PATH: a shell script.
    fn program(&self, name: &str, script: &str) {
        use std::os::unix::fs::PermissionsExt;
        let p = self.bin().join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The harness9 under test, on this machine's PATH.
    fn put_harness9_on_path(&self) {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_harness9"), self.bin().join("harness9"))
            .unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_harness9"))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(self.work())
            .env("HOME", self.home())
            .env("PATH", self.bin())
            .env_remove("CODEX_HOME")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }

    /// Every file under the project and the home folder, relative, sorted.
    fn files(&self) -> Vec<String> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                if p.is_dir() {
                    out.push(format!("{rel}/"));
                    walk(base, &p, out);
                } else {
                    out.push(rel);
                }
            }
        }
        let mut out = Vec::new();
        for d in [self.work(), self.home()] {
            walk(self.dir.path(), &d, &mut out);
        }
        out.sort();
        out
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn exe() -> String {
    Path::new(env!("CARGO_BIN_EXE_harness9"))
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(o), stderr(o));
}

#[test]
fn a_personal_install_goes_to_the_uncommitted_settings_by_absolute_path_and_fails_closed() {
    let m = Machine::new();
    let before = m.files();
    let o = m.run(&["install", "claude-code"]);
    ok(&o);
    let text = m.read(".claude/settings.local.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pre = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    let command = pre["command"].as_str().unwrap();
    assert!(
        command.starts_with(&format!("command -v {} ", exe()))
            && command.ends_with(&format!("; {} hook claude-code || exit 2", exe())),
        "{command}"
    );
    assert_eq!(pre["onFailure"], "block", "{text}");
    assert!(
        !m.work().join(".claude/settings.json").exists(),
        "the shared file is not touched"
    );
    assert!(
        !m.work().join(".claude/settings.local.json.lock").exists(),
        "no lock file is left: {:?}",
        m.files()
    );
    // Uninstalled: not even the folder is left.
    ok(&m.run(&["uninstall", "claude-code"]));
    assert_eq!(m.files(), before);
}

/// The command runs the shell as the hosts do: without harness9 it exits 2 (every host blocks
/// the call) with a message that says why; with it, harness9's answer.
#[test]
fn the_shared_hook_command_blocks_with_a_message_when_harness9_is_missing() {
    let m = Machine::new();
    ok(&m.run(&["install", "gemini-cli", "--shared"]));
    let v: serde_json::Value = serde_json::from_str(&m.read(".gemini/settings.json")).unwrap();
    let command = v["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!command.contains(&exe()), "by name only: {command}");
    let event = format!(
        r#"{{"hook_event_name":"BeforeTool","cwd":"{}","tool_name":"run_shell_command","tool_input":{{"command":"git status"}}}}"#,
        m.work().display()
    );
    let sh = |path: &Path| {
        use std::io::Write;
        let mut child = Command::new("/bin/sh")
            .args(["-c", &command])
            .current_dir(m.work())
            .env("HOME", m.home())
            .env("PATH", format!("{}:/usr/bin:/bin", path.display()))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A shell that stops before reading the event closes the pipe: not an error here.
        let _ = child.stdin.take().unwrap().write_all(event.as_bytes());
        child.wait_with_output().unwrap()
    };
    let o = sh(&m.bin());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("harness9 is not installed here") && stdout(&o).is_empty(),
        "{}",
        stderr(&o)
    );
    m.put_harness9_on_path();
    let o = sh(&m.bin());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"decision\":\"allow\""),
        "{}",
        stdout(&o)
    );
    // A harness9 that fails any other way (here: killed) blocks too.
    std::fs::remove_file(m.bin().join("harness9")).unwrap();
    m.program("harness9", "kill -9 $$");
    let o = sh(&m.bin());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `uninstall` gives back every settings file byte for byte when harness9 was the only change,
/// whatever its layout, and leaves no lock file.
#[test]
fn uninstall_restores_every_settings_file_byte_for_byte() {
    let files = [
        "{\n  // the team's\n  \"model\": \"x\"\n}\n",
        "{\"model\": \"x\"}",
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}\n    ]\n  }\n}\n",
        "{\n\t\"permissions\": {\"allow\": [\"Bash(ls)\"]},\n\t\"hooks\": {\"Stop\": []}\n}\n",
    ];
    let cases = [
        ("claude-code", ".claude/settings.json", vec!["--shared"]),
        ("claude-code", ".claude/settings.local.json", vec![]),
        ("gemini-cli", ".gemini/settings.json", vec![]),
        ("codex", ".codex/hooks.json", vec![]),
        ("codex", "../home/.codex/hooks.json", vec!["--global"]),
        (
            "copilot",
            "../home/.copilot/settings.json",
            vec!["--global"],
        ),
    ];
    for (agent, file, flags) in &cases {
        for original in files {
            let m = Machine::new();
            m.write(file, original);
            let before = m.files();
            let mut args = vec!["install", agent];
            args.extend(flags.iter().copied());
            ok(&m.run(&args));
            assert_ne!(m.read(file), original, "{agent}: installed");
            args[0] = "uninstall";
            ok(&m.run(&args));
            assert_eq!(m.read(file), original, "{agent} {file}: restored");
            assert_eq!(m.files(), before, "{agent}: nothing left behind");
        }
    }
}

/// An install over an older hook (the absolute path, no fail-closed guard) updates it in
/// place and keeps its options.
#[test]
fn install_updates_an_older_hook_in_place_and_keeps_its_options() {
    let m = Machine::new();
    m.write(
        ".gemini/settings.json",
        r#"{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/harness9 hook gemini-cli --ask-as deny", "name": "harness9"}]}]}}"#,
    );
    let o = m.run(&["install", "gemini-cli"]);
    ok(&o);
    assert!(
        stdout(&o).starts_with("updated the BeforeTool hook"),
        "{}",
        stdout(&o)
    );
    let text = m.read(".gemini/settings.json");
    assert_eq!(text.matches("hook gemini-cli").count(), 1, "{text}");
    assert!(
        text.contains("; harness9 hook gemini-cli --ask-as deny || exit 2"),
        "{text}"
    );
}

#[test]
fn install_print_shows_the_file_and_writes_nothing() {
    let m = Machine::new();
    let before = m.files();
    let o = m.run(&["install", "gemini-cli", "--print"]);
    ok(&o);
    assert!(stdout(&o).contains("\"BeforeTool\""), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("\"name\": \"harness9\""),
        "{}",
        stdout(&o)
    );
    assert_eq!(m.files(), before);
}

#[test]
fn doctor_fails_and_says_what_to_run_when_the_agent_has_no_harness9_hook() {
    let m = Machine::new();
    let o = m.run(&["doctor", "claude-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("Claude Code has no harness9 hook")
            && stdout(&o).contains("harness9 install claude-code"),
        "{}",
        stdout(&o)
    );
    // Without an agent: a problem when no agent has the hook.
    let o = m.run(&["doctor"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("no agent has harness9's hook"),
        "{}",
        stdout(&o)
    );
    // Installed (personal, by this binary's path): all is well.
    ok(&m.run(&["install", "claude-code"]));
    let o = m.run(&["doctor", "claude-code"]);
    ok(&o);
    assert!(
        stdout(&o).contains("runs this harness9")
            && stdout(&o).contains("the hook would answer `git status`: allow"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn doctor_reports_a_hook_whose_binary_is_missing_or_fails_open() {
    let m = Machine::new();
    m.write(
        ".gemini/settings.json",
        r#"{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "/nonexistent/harness9 hook gemini-cli"}]}]}}"#,
    );
    let o = m.run(&["doctor", "gemini-cli"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("is not found"), "{out}");
    assert!(
        out.contains("lets the call run when harness9 is missing"),
        "{out}"
    );
    assert!(out.contains("fix: harness9 install gemini-cli"), "{out}");
    // A shared install on a machine without harness9: found missing, and blocking.
    let m = Machine::new();
    ok(&m.run(&["install", "claude-code", "--shared"]));
    let o = m.run(&["doctor", "claude-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("runs `harness9`, which is not found: every call is blocked"),
        "{}",
        stdout(&o)
    );
    // With harness9 on PATH, it is this one.
    m.put_harness9_on_path();
    ok(&m.run(&["doctor", "claude-code"]));
}

#[test]
fn doctor_reports_a_hook_that_runs_another_harness9_or_lacks_the_hosts_fail_closed_option() {
    let m = Machine::new();
    ok(&m.run(&["install", "claude-code", "--shared"]));
    m.program("harness9", "echo 'harness9 0.0.1'");
    let o = m.run(&["doctor", "claude-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("(harness9 0.0.1), not this harness9"),
        "{}",
        stdout(&o)
    );
    // Without `onFailure`, Claude Code runs a call whose hook times out.
    let m = Machine::new();
    ok(&m.run(&["install", "claude-code"]));
    let text = m.read(".claude/settings.local.json");
    m.write(
        ".claude/settings.local.json",
        &text.replace(",\n            \"onFailure\": \"block\"", ""),
    );
    let o = m.run(&["doctor", "claude-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("has no \"onFailure\": \"block\""),
        "{}",
        stdout(&o)
    );
    ok(&m.run(&["install", "claude-code"]));
    ok(&m.run(&["doctor", "claude-code"]));
}

#[test]
fn codex_is_installed_for_both_its_events_and_doctor_checks_its_version() {
    let m = Machine::new();
    ok(&m.run(&["install", "codex"]));
    let v: serde_json::Value = serde_json::from_str(&m.read(".codex/hooks.json")).unwrap();
    for event in ["PreToolUse", "PermissionRequest"] {
        let command = v["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            command.ends_with("; harness9 hook codex || exit 2"),
            "{command}"
        );
    }
    m.put_harness9_on_path();
    m.program("codex", "echo 'codex-cli 0.123.0'");
    let o = m.run(&["doctor", "codex"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("older than 0.124.0"), "{}", stdout(&o));
    m.program("codex", "echo 'codex-cli 0.171.0'");
    ok(&m.run(&["doctor", "codex"]));
}

/// Copilot CLI's hooks are a file of harness9's own among the repository's: made by install,
/// gone after uninstall; in the user's settings they are edited like the others.
#[test]
fn copilot_gets_a_hook_file_of_its_own_that_uninstall_removes() {
    let m = Machine::new();
    let before = m.files();
    ok(&m.run(&["install", "copilot"]));
    let v: serde_json::Value =
        serde_json::from_str(&m.read(".github/hooks/harness9.json")).unwrap();
    assert_eq!(v["version"], 1);
    let command = v["hooks"]["preToolUse"][0]["bash"].as_str().unwrap();
    assert!(
        command.ends_with("; harness9 hook copilot || exit 2"),
        "{command}"
    );
    m.put_harness9_on_path();
    ok(&m.run(&["doctor", "copilot"]));
    std::fs::remove_file(m.bin().join("harness9")).unwrap();
    ok(&m.run(&["uninstall", "copilot"]));
    assert_eq!(m.files(), before);
}

#[test]
fn doctor_reports_a_host_older_than_its_first_fail_closed_version() {
    let m = Machine::new();
    ok(&m.run(&["install", "claude-code"]));
    m.program("claude", "echo '2.1.294 (Claude Code)'");
    let o = m.run(&["doctor", "claude-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("Claude Code 2.1.294")
            && stdout(&o).contains("older than 2.1.295")
            && stdout(&o).contains("fix: update Claude Code"),
        "{}",
        stdout(&o)
    );
    m.program("claude", "echo '2.1.332 (Claude Code)'");
    let o = m.run(&["doctor", "claude-code"]);
    ok(&o);
    assert!(
        stdout(&o).contains("ok: Claude Code 2.1.332"),
        "{}",
        stdout(&o)
    );
}

/// `install claude-code --sandbox` writes the option into the hook's command for both events;
/// `uninstall` still gives back the file byte for byte.
#[test]
fn install_sandbox_puts_the_option_in_claude_codes_hook_and_uninstall_restores_the_file() {
    for original in [
        "{\n  // the team's\n  \"model\": \"x\"\n}\n",
        "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}]}}",
    ] {
        let m = Machine::new();
        m.write(".claude/settings.json", original);
        let before = m.files();
        let o = m.run(&["install", "claude-code", "--shared", "--sandbox"]);
        ok(&o);
        assert!(
            stdout(&o).contains("with --sandbox, a command the policy runs contained"),
            "{}",
            stdout(&o)
        );
        let text = m.read(".claude/settings.json");
        assert_eq!(
            text.matches("; harness9 hook claude-code --sandbox || exit 2")
                .count(),
            2,
            "PreToolUse and PostToolUse: {text}"
        );
        assert!(text.contains("\"onFailure\": \"block\""), "{text}");
        ok(&m.run(&["uninstall", "claude-code", "--shared"]));
        assert_eq!(m.read(".claude/settings.json"), original, "restored");
        assert_eq!(m.files(), before, "nothing left behind");
    }
}

/// Gemini CLI's hook takes the option too, and `uninstall` gives the file back as it was.
#[test]
fn install_sandbox_puts_the_option_in_gemini_clis_hook() {
    let m = Machine::new();
    let original = "{\n  \"model\": {\"name\": \"x\"}\n}\n";
    m.write(".gemini/settings.json", original);
    ok(&m.run(&["install", "gemini-cli", "--sandbox"]));
    let text = m.read(".gemini/settings.json");
    assert!(
        text.contains("; harness9 hook gemini-cli --sandbox || exit 2"),
        "{text}"
    );
    ok(&m.run(&["uninstall", "gemini-cli"]));
    assert_eq!(m.read(".gemini/settings.json"), original);
}

/// Installing again sets the option as told, and keeps the hook's other options.
#[test]
fn install_with_or_without_sandbox_sets_the_option_and_keeps_the_others() {
    let m = Machine::new();
    m.write(
        ".claude/settings.local.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/harness9 hook claude-code --mode plan"}]}]}}"#,
    );
    let exe = exe();
    ok(&m.run(&["install", "claude-code", "--sandbox"]));
    let text = m.read(".claude/settings.local.json");
    assert!(
        text.contains(&format!(
            "; {exe} hook claude-code --mode plan --sandbox || exit 2"
        )),
        "{text}"
    );
    let o = m.run(&["install", "claude-code", "--sandbox"]);
    ok(&o);
    assert!(
        stdout(&o).starts_with("already installed"),
        "{}",
        stdout(&o)
    );
    ok(&m.run(&["install", "claude-code"]));
    let text = m.read(".claude/settings.local.json");
    assert!(
        text.contains(&format!("; {exe} hook claude-code --mode plan || exit 2")),
        "{text}"
    );
    assert!(!text.contains("--sandbox"), "{text}");
}

/// A host whose harness9 hook does not rewrite commands is refused `--sandbox`, saying so,
/// and nothing is written.
#[test]
fn install_sandbox_is_refused_for_hosts_whose_hook_does_not_rewrite_commands() {
    for (agent, host) in [("codex", "Codex CLI"), ("copilot", "Copilot CLI")] {
        let m = Machine::new();
        let before = m.files();
        let o = m.run(&["install", agent, "--sandbox"]);
        assert_eq!(o.status.code(), Some(1), "{agent}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(
            err.contains("`--sandbox` is for Claude Code and Gemini CLI only")
                && err.contains(&format!(
                    "harness9's {host} hook does not rewrite a command"
                )),
            "{err}"
        );
        assert_eq!(m.files(), before, "{agent}: nothing written");
    }
}

/// `doctor` says what a hook with `--sandbox` does here: runs contained calls in the sandbox,
/// or, where the sandbox does not work, asks about them.
#[test]
fn doctor_says_whether_a_sandbox_hook_can_contain_here() {
    let m = Machine::new();
    ok(&m.run(&["install", "claude-code", "--sandbox"]));
    let o = m.run(&["doctor", "claude-code"]);
    let out = stdout(&o);
    assert!(
        out.contains(
            "settings.local.json: the hook runs contained calls in the sandbox (--sandbox)"
        ),
        "{out}"
    );
    let o = m.run_env(&["doctor", "claude-code"], &[("HARNESS9_NO_SANDBOX", "1")]);
    let out = stdout(&o);
    assert!(
        out.contains(
            "settings.local.json: the hook has --sandbox, but the sandbox is not available \
             here: HARNESS9_NO_SANDBOX is set: contained calls are asked about instead"
        ),
        "{out}"
    );
    // Without the option, nothing is said of it.
    ok(&m.run(&["install", "claude-code"]));
    let out = stdout(&m.run(&["doctor", "claude-code"]));
    assert!(!out.contains("--sandbox)"), "{out}");
}
