//! What a line really runs: wrappers, payloads, interpreter shell-outs, paths after `=`.
//! (The walk itself is tested in `walk_tests.rs`, the option reader in `options.rs`, the
//! interpreter scanner in `interp.rs`.)

use super::{analyse, Origin, SimpleCommand, View, MAX_DEPTH};

fn ok(line: &str) -> Vec<SimpleCommand> {
    let analysis = analyse(line);
    assert_eq!(analysis.failure, None, "unexpected failure for {line:?}");
    analysis.commands
}

fn failure(line: &str) -> String {
    let analysis = analyse(line);
    assert!(analysis.commands.is_empty(), "{line:?}: {analysis:?}");
    analysis
        .failure
        .unwrap_or_else(|| panic!("expected a failure for {line:?}"))
}

/// The commands of a line as `origin: text` (literal view).
fn shown(line: &str) -> Vec<String> {
    ok(line)
        .iter()
        .map(|c| {
            let text = if c.computed_program() {
                format!("<dynamic {}>", c.argv[0].value)
            } else {
                c.text(View::Literal)
            };
            format!("{}: {}", c.origin.as_str(), text)
        })
        .collect()
}

/// The commands a line runs beyond its own top-level ones, as `origin: text`.
fn extra(line: &str) -> Vec<String> {
    shown(line)
        .into_iter()
        .filter(|s| {
            [
                "wrapped command",
                "shell string",
                "remote command",
                "interpreter shell-out",
            ]
            .iter()
            .any(|o| s.starts_with(o))
        })
        .collect()
}

fn wrapped(text: &str) -> String {
    format!("wrapped command: {text}")
}

fn payload(text: &str) -> String {
    format!("shell string: {text}")
}

fn remote(text: &str) -> String {
    format!("remote command: {text}")
}

fn shell_out(text: &str) -> String {
    format!("interpreter shell-out: {text}")
}

/// Whether the line holds a command whose program is only known at run time.
fn asks_about_unknown(line: &str) -> bool {
    ok(line).iter().any(|c| c.computed_program())
}

fn run_with_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the analysis overflowed or panicked");
}

/// `bash -c <text>` with the shortest quoting, `levels` times.
fn nested_bash_c(inner: &str, levels: usize) -> String {
    let single = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let double = |s: &str| {
        let escaped: String = s
            .chars()
            .flat_map(|c| match c {
                '\\' | '"' | '$' | '`' => vec!['\\', c],
                _ => vec![c],
            })
            .collect();
        format!("\"{escaped}\"")
    };
    let mut line = inner.to_string();
    for _ in 0..levels {
        let a = format!("bash -c {}", single(&line));
        let b = format!("bash -c {}", double(&line));
        line = if a.len() <= b.len() { a } else { b };
    }
    line
}

// ----- wrappers -----

#[test]
fn sudo_keeps_itself_and_gives_the_command_it_runs() {
    let commands = ok("sudo rm -rf /");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[0].text(View::Literal), "sudo rm -rf /");
    assert_eq!(commands[0].origin, Origin::TopLevel);
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
    assert_eq!(commands[1].origin, Origin::Wrapped);
    assert_eq!(commands[1].span, commands[0].span);
    for line in [
        "sudo -u root rm -rf /",
        "sudo -E -H rm -rf /",
        "sudo -nu deploy rm -rf /",
        "sudo -uroot rm -rf /",
        "sudo --user=root rm -rf /",
        "sudo --user root rm -rf /",
        "sudo --us root rm -rf /",
        "sudo -- rm -rf /",
        "sudo -g wheel -p 'pw:' -C 3 -D /tmp -r role -t type -U u -T 5 rm -rf /",
        "sudo -hhost rm -rf /",
        "sudo -i rm -rf /",
        "sudo -s -S -b -k rm -rf /",
        "sudo --preserve-env=PATH,HOME rm -rf /",
        "sudo --preserve-env rm -rf /",
        "/usr/bin/sudo rm -rf /",
        "\\sudo rm -rf /",
        "'sudo' rm -rf /",
    ] {
        assert_eq!(extra(line), vec![wrapped("rm -rf /")], "{line:?}");
    }
}

#[test]
fn sudo_without_a_command_runs_nothing_more() {
    for line in [
        "sudo -l",
        "sudo -l rm -rf /",
        "sudo -v",
        "sudo -k",
        "sudo -e /etc/hosts",
        "sudo --list",
        "sudo -V",
        "sudo -i",
        "sudo",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn unknown_wrapper_options_are_read_both_ways() {
    assert_eq!(
        extra("sudo -X val rm -rf /"),
        vec![wrapped("val rm -rf /"), wrapped("rm -rf /")]
    );
    assert_eq!(
        extra("timeout --frob 5 10 rm -rf /"),
        vec![wrapped("10 rm -rf /"), wrapped("rm -rf /")]
    );
    // `sudo -h` may or may not take a host.
    assert_eq!(
        extra("sudo -h host rm -rf /"),
        vec![wrapped("host rm -rf /"), wrapped("rm -rf /")]
    );
    // A line built to multiply the readings fails rather than dropping any.
    let line = format!("{}rm -rf /", "sudo -X sudo ".repeat(7));
    assert_eq!(failure(&line), "the command is too complex to analyse");
}

#[test]
fn doas_runs_its_command() {
    assert_eq!(
        extra("doas rm -rf /var/tmp/x"),
        vec![wrapped("rm -rf /var/tmp/x")]
    );
    assert_eq!(extra("doas -u root -n rm x"), vec![wrapped("rm x")]);
    assert_eq!(extra("doas -C /etc/doas.conf rm x"), Vec::<String>::new());
    assert_eq!(extra("doas -s"), Vec::<String>::new());
}

#[test]
fn env_gives_assignments_and_options_to_its_command() {
    let commands = ok("env X=1 Y='a b' rm -rf build");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[1].assignments, vec!["X=1", "Y=a b"]);
    assert_eq!(commands[1].text(View::Canonical), "rm -rf build");
    for line in [
        "env -i rm -rf build",
        "env -i PATH=/bin rm -rf build",
        "env -u HOME rm -rf build",
        "env --unset=HOME rm -rf build",
        "env --unset HOME rm -rf build",
        "env -C /tmp rm -rf build",
        "env --chdir=/tmp rm -rf build",
        "env -0 rm -rf build",
        "env -P /bin rm -rf build",
        "env -- rm -rf build",
        "env - rm -rf build",
        "env --ignore-environment rm -rf build",
        "env -S 'rm -rf build'",
        "env -S'rm -rf build'",
        "env -iS 'rm -rf build'",
        "env --split-string='rm -rf build'",
        "env --split-string 'rm -rf build'",
        "env -S '-i FOO=1 rm -rf build'",
        "env -S 'rm \"-rf\" build # a comment'",
    ] {
        let found = ok(line);
        let inner = found
            .iter()
            .find(|c| c.origin == Origin::Wrapped)
            .unwrap_or_else(|| panic!("{line:?}: {found:?}"));
        assert_eq!(inner.text(View::Canonical), "rm -rf build", "{line:?}");
    }
    assert_eq!(
        ok("env -S '-i FOO=1 rm -rf build'")[1].assignments,
        vec!["FOO=1"]
    );
    for line in ["env", "env X=1", "env -i", "env | sort", "env --help"] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn prefix_assignments_of_a_wrapper_reach_its_command() {
    let commands = ok("LD_PRELOAD=x.so nice ls");
    assert_eq!(commands[1].assignments, vec!["LD_PRELOAD=x.so"]);
    assert_eq!(commands[1].text(View::Literal), "LD_PRELOAD=x.so ls");
}

#[test]
fn command_builtin_exec_run_their_command_but_lookups_do_not() {
    assert_eq!(extra("command rm -rf build"), vec![wrapped("rm -rf build")]);
    assert_eq!(
        extra("command -p rm -rf build"),
        vec![wrapped("rm -rf build")]
    );
    assert_eq!(
        extra("builtin command rm -rf build"),
        vec![wrapped("command rm -rf build"), wrapped("rm -rf build")]
    );
    assert_eq!(extra("exec rm -rf build"), vec![wrapped("rm -rf build")]);
    assert_eq!(extra("exec -a name rm x"), vec![wrapped("rm x")]);
    assert_eq!(extra("exec -cl rm x"), vec![wrapped("rm x")]);
    for line in [
        "command -v rm",
        "command -V rm",
        "command -pv rm",
        "exec > log",
        "exec 3>&1",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn process_wrappers_run_their_command() {
    for (line, inner) in [
        ("nohup rm -rf /data/old &", "rm -rf /data/old"),
        ("nohup python3 server.py > log 2>&1 &", "python3 server.py"),
        ("nice rm x", "rm x"),
        ("nice -n 5 rm x", "rm x"),
        ("nice -n5 rm x", "rm x"),
        ("nice -10 rm x", "rm x"),
        ("nice --adjustment=5 rm x", "rm x"),
        ("ionice -c3 rm x", "rm x"),
        ("ionice -c 2 -n 7 -t rm x", "rm x"),
        ("time rm -rf build", "rm -rf build"),
        ("time -p rm x", "rm x"),
        ("/usr/bin/time -f %e -o out.txt -a rm x", "rm x"),
        ("/usr/bin/time -v rm x", "rm x"),
        ("timeout 10 rm x", "rm x"),
        ("timeout -s KILL 10 rm x", "rm x"),
        ("timeout -k 5 10 rm x", "rm x"),
        ("timeout --signal=KILL --kill-after=5 10 rm x", "rm x"),
        ("timeout --preserve-status --foreground -v 10s rm x", "rm x"),
        ("stdbuf -oL rm x", "rm x"),
        ("stdbuf -o L -e 0 -i0 rm x", "rm x"),
        ("stdbuf --output=L rm x", "rm x"),
        ("busybox rm -rf build", "rm -rf build"),
        ("chroot /mnt rm x", "rm x"),
        ("chroot --userspec=u:g /mnt rm x", "rm x"),
        ("strace -f -o trace.txt rm x", "rm x"),
        ("strace -e trace=file -s 100 rm x", "rm x"),
        ("ltrace -o out -e malloc rm x", "rm x"),
        ("unbuffer rm x", "rm x"),
        ("unbuffer -p rm x", "rm x"),
        ("setsid rm x", "rm x"),
        ("setsid -f -w rm x", "rm x"),
        ("taskset 0x3 rm x", "rm x"),
        ("taskset -c 0,1 rm x", "rm x"),
        ("coproc rm x", "rm x"),
        ("pkexec rm x", "rm x"),
        ("pkexec --user root rm x", "rm x"),
        ("gosu root rm x", "rm x"),
        ("su-exec root rm x", "rm x"),
        ("chrt -f 99 rm x", "rm x"),
        ("fakeroot -- rm x", "rm x"),
        ("proxychains4 -q rm x", "rm x"),
        ("torsocks rm x", "rm x"),
        ("eatmydata rm x", "rm x"),
        ("xvfb-run -a rm x", "rm x"),
        ("nsenter -t 1 -m -u rm x", "rm x"),
        ("unshare -r --mount rm x", "rm x"),
    ] {
        assert_eq!(extra(line), vec![wrapped(inner)], "{line:?}");
    }
    for line in [
        "nice",
        "nohup",
        "timeout 10",
        "ionice -p 1234",
        "ionice -c3 -p 1234",
        "taskset -p 1234",
        "taskset -pc 0 1234",
        "chrt -p 1234",
        "strace -p 1234",
        "busybox --list",
        "chroot /mnt",
        "time",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn nested_wrappers_unwrap_all_the_way() {
    assert_eq!(
        shown("sudo env X=1 nice -n 5 timeout 10 rm -rf /"),
        vec![
            "top level: sudo env X=1 nice -n 5 timeout 10 rm -rf /",
            "wrapped command: env X=1 nice -n 5 timeout 10 rm -rf /",
            "wrapped command: X=1 nice -n 5 timeout 10 rm -rf /",
            "wrapped command: X=1 timeout 10 rm -rf /",
            "wrapped command: X=1 rm -rf /",
        ]
    );
    let deep = format!("{}rm -rf /", "nice ".repeat(MAX_DEPTH - 1));
    assert_eq!(ok(&deep).len(), MAX_DEPTH);
    let too_deep = format!("{}rm -rf /", "nice ".repeat(MAX_DEPTH + 1));
    assert_eq!(
        failure(&too_deep),
        "the command nests deeper than 16 levels"
    );
}

#[test]
fn wrapped_commands_share_redirections_and_pipes() {
    let commands = ok("echo x | sudo tee /etc/f > /dev/null");
    let tee = &commands[2];
    assert_eq!(tee.text(View::Literal), "tee /etc/f");
    assert_eq!(tee.origin, Origin::Wrapped);
    assert!(tee.piped);
    assert_eq!(tee.redirects, commands[1].redirects);
    assert_eq!(tee.redirects[0].target.value, "/dev/null");
    // Redirections written after the words, or around a group, too.
    let commands = ok("{ sudo rm x; } > out");
    assert_eq!(commands[1].redirects[0].target.value, "out");
    let commands = ok("sudo > /dev/null rm -rf /");
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
}

#[test]
fn wrapped_commands_come_after_the_substitutions_of_the_wrapper() {
    assert_eq!(
        shown("sudo kill -9 $(pgrep x)"),
        vec![
            "top level: sudo kill -9 $(pgrep x)",
            "command substitution: pgrep x",
            "wrapped command: kill -9 $(pgrep x)",
        ]
    );
    let commands = ok("command cd ~/.ssh && cat id_rsa");
    assert_eq!(commands[1].text(View::Literal), "cd ~/.ssh");
    assert_eq!(commands[2].text(View::Literal), "cat id_rsa");
}

#[test]
fn a_wrapped_call_of_the_enclosing_function_is_a_self_call() {
    let commands = ok("f() { command f; }; f");
    let inner = commands
        .iter()
        .find(|c| c.origin == Origin::Wrapped)
        .expect("wrapped");
    assert!(inner.self_call);
}

#[test]
fn a_computed_wrapped_program_stays_computed() {
    let commands = ok("sudo $CMD -rf /");
    assert!(commands[1].computed_program());
}

#[test]
fn xargs_runs_its_command_without_the_pipe() {
    let commands = ok("find . -name '*.o' | xargs rm -rf");
    let rm = commands.iter().find(|c| c.program() == "rm").expect("rm");
    assert_eq!(rm.origin, Origin::Wrapped);
    assert!(!rm.piped);
    assert!(commands[1].piped);
    // What it reads goes after the words, or where `-I`'s string is: known only when it runs.
    for (line, inner) in [
        ("xargs -0 rm -rf < list.txt", "rm -rf <its input>"),
        ("ls | xargs -I{} rm -rf {}", "rm -rf {}"),
        ("ls | xargs -I {} rm -rf {}", "rm -rf {}"),
        ("ls | xargs -i rm {}", "rm {}"),
        ("ls | xargs -n 1 -P 4 rm", "rm <its input>"),
        ("xargs -a list.txt rm", "rm <its input>"),
        ("xargs -d '\\n' rm", "rm <its input>"),
        ("xargs --null --max-args=1 rm", "rm <its input>"),
        ("xargs -L 1 -r -t rm", "rm <its input>"),
        ("xargs", "echo <its input>"),
        ("xargs -0", "echo <its input>"),
    ] {
        assert_eq!(extra(line), vec![wrapped(inner)], "{line:?}");
    }
    // The script's `$1` is the first item read: known only when it runs.
    assert_eq!(
        extra("xargs sh -c 'rm -rf \"$1\"' _"),
        vec![
            wrapped("sh -c rm -rf \"$1\" _ <its input>"),
            payload("rm -rf $1")
        ]
    );
}

#[test]
fn find_exec_clauses_run_their_commands() {
    assert_eq!(
        extra("find . -exec rm -rf {} \\;"),
        vec![wrapped("rm -rf {}")]
    );
    assert_eq!(
        extra("find . -exec rm -rf {} ';'"),
        vec![wrapped("rm -rf {}")]
    );
    assert_eq!(
        extra("find . -type d -name node_modules -exec rm -rf {} +"),
        vec![wrapped("rm -rf {}")]
    );
    assert_eq!(extra("find . -execdir rm {} \\;"), vec![wrapped("rm {}")]);
    assert_eq!(extra("find . -ok rm {} \\;"), vec![wrapped("rm {}")]);
    assert_eq!(extra("find . -okdir rm {} \\;"), vec![wrapped("rm {}")]);
    assert_eq!(
        extra("find . -exec echo {} + -exec rm {} \\; -print"),
        vec![wrapped("echo {}"), wrapped("rm {}")]
    );
    // `+` ends a clause only right after `{}`.
    assert_eq!(
        extra("find . -exec echo + {} +"),
        vec![wrapped("echo + {}")]
    );
    assert_eq!(
        extra("find . -exec sh -c 'rm -rf \"$1\"' sh {} \\;"),
        vec![wrapped("sh -c rm -rf \"$1\" sh {}"), payload("rm -rf $1")]
    );
    for line in [
        "find . -name '*.rs'",
        "find . -name \"rm-rf*\"",
        "find . -path ./node_modules -prune -o -name '*.js' -print",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn watch_runs_a_shell_string_or_with_x_its_words() {
    assert_eq!(extra("watch rm -rf /tmp/x"), vec![payload("rm -rf /tmp/x")]);
    assert_eq!(
        extra("watch -n 5 'rm -rf /tmp/cache'"),
        vec![payload("rm -rf /tmp/cache")]
    );
    assert_eq!(extra("watch -d -t -n1 ls -la"), vec![payload("ls -la")]);
    assert_eq!(extra("watch --interval=2 ls"), vec![payload("ls")]);
    let commands = ok("watch 'ls | grep x'");
    assert_eq!(commands.len(), 3);
    assert_eq!(commands[2].text(View::Literal), "grep x");
    assert_eq!(extra("watch -x rm -rf x"), vec![wrapped("rm -rf x")]);
    assert_eq!(extra("watch"), Vec::<String>::new());
}

#[test]
fn flock_runs_its_command_or_string() {
    assert_eq!(extra("flock /tmp/lock rm -rf x"), vec![wrapped("rm -rf x")]);
    assert_eq!(extra("flock -w 5 -x /tmp/lock rm x"), vec![wrapped("rm x")]);
    assert_eq!(
        extra("flock -n /tmp/lock -c 'rm -rf x'"),
        vec![payload("rm -rf x")]
    );
    assert_eq!(
        extra("flock /tmp/lock --command 'rm -rf x'"),
        vec![payload("rm -rf x")]
    );
    assert_eq!(extra("flock 9"), Vec::<String>::new());
}

#[test]
fn su_runuser_sg_script_run_their_strings() {
    for line in [
        "su -c 'rm -rf /home/old'",
        "su root -c 'rm -rf /home/old'",
        "su - root -c 'rm -rf /home/old'",
        "su -l deploy -c 'rm -rf /home/old'",
        "su -lc 'rm -rf /home/old' deploy",
        "su --command='rm -rf /home/old'",
        "su --command 'rm -rf /home/old' root",
        "su -s /bin/bash -c 'rm -rf /home/old' root",
        "su --session-command='rm -rf /home/old'",
        "runuser -l deploy -c 'rm -rf /home/old'",
        "sg docker -c 'rm -rf /home/old'",
        "sg - docker -c 'rm -rf /home/old'",
        "sg docker 'rm -rf /home/old'",
        "script -qc 'rm -rf /home/old' /dev/null",
        "script -q -c 'rm -rf /home/old' /dev/null",
        "script --command='rm -rf /home/old' log",
    ] {
        assert_eq!(extra(line), vec![payload("rm -rf /home/old")], "{line:?}");
    }
    assert_eq!(
        extra("runuser -u deploy -- rm -rf x"),
        vec![wrapped("rm -rf x")]
    );
    for line in ["su - postgres", "su", "script -q log", "runuser -l deploy"] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

// ----- payloads -----

#[test]
fn shell_c_payloads_are_analysed() {
    for line in [
        "bash -c 'rm -rf /'",
        "sh -c \"rm -rf /\"",
        "zsh -c 'rm -rf /'",
        "dash -c 'rm -rf /'",
        "ksh -c 'rm -rf /'",
        "ash -c 'rm -rf /'",
        "/bin/sh -c 'rm -rf /'",
        "bash -lc 'rm -rf /'",
        "bash -ec 'rm -rf /'",
        "bash -xc 'rm -rf /'",
        "bash -c -x 'rm -rf /'",
        "bash --login -c 'rm -rf /'",
        "bash --norc --noprofile -c 'rm -rf /'",
        "bash -o pipefail -c 'rm -rf /'",
        "bash -euo pipefail -c 'rm -rf /'",
        "bash --rcfile x.rc -c 'rm -rf /'",
        "busybox sh -c 'rm -rf /'",
    ] {
        let found = extra(line);
        assert_eq!(
            found.last(),
            Some(&payload("rm -rf /")),
            "{line:?}: {found:?}"
        );
    }
    assert_eq!(
        shown("bash -lc \"cd /srv && rm -rf releases\""),
        vec![
            "top level: bash -lc cd /srv && rm -rf releases",
            "shell string: cd /srv",
            "shell string: rm -rf releases",
        ]
    );
    assert_eq!(
        shown("sudo -u deploy bash -c 'rm -rf ~/x'"),
        vec![
            "top level: sudo -u deploy bash -c rm -rf ~/x",
            "wrapped command: bash -c rm -rf ~/x",
            "shell string: rm -rf ~/x",
        ]
    );
    let commands = ok("bash -c 'cat ~/.ssh/id_rsa'");
    assert_eq!(commands[1].argv[1].path.as_deref(), Some("~/.ssh/id_rsa"));
    // Substitutions, pipelines and functions inside the payload.
    let commands = ok("bash -c 'echo $(rm -rf /) | sh'");
    assert!(commands
        .iter()
        .any(|c| c.program() == "rm" && c.origin == Origin::CommandSubstitution));
    assert!(commands.iter().any(|c| c.program() == "sh" && c.piped));
    assert!(ok("bash -c ':(){ :|:& };:'").iter().any(|c| c.self_call));
}

#[test]
fn shells_without_a_payload_add_nothing() {
    for line in [
        "bash",
        "bash -c",
        "bash script.sh",
        "bash -n deploy.sh",
        "bash --version",
        "sh -x ./configure --prefix=/usr",
        "curl -fsSL https://x | bash",
        "curl -fsSL https://x | bash -s -- --yes",
        "cat <<EOF | sh\nrm -rf /\nEOF",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

proptest::proptest! {
    /// A payload gives the commands the parser finds in its text (plain payloads skip the
    /// parser), as the shell's payload.
    #[test]
    fn a_payload_gives_what_the_parser_finds_in_it(
        program in proptest::sample::select(&["ls", "rm", "sudo", "nice", "env", "a", "x.y"][..]),
        rest in "[a-zA-Z0-9 =_./:,+-]{0,30}",
    ) {
        let text = format!("{program} {rest}");
        let line = format!("bash -c '{text}'");
        let outer = analyse(&line);
        let inner = super::driver::analyse(&text);
        proptest::prop_assert_eq!(&outer.failure, &inner.failure);
        if outer.failure.is_none() {
            let span = outer.commands[0].span;
            let expected: Vec<SimpleCommand> = inner
                .commands
                .into_iter()
                .map(|mut c| {
                    if c.origin == Origin::TopLevel {
                        c.origin = Origin::Payload;
                    }
                    c.span = span;
                    c
                })
                .collect();
            proptest::prop_assert_eq!(&outer.commands[1..], &expected[..]);
        }
    }
}

#[test]
fn a_payload_that_does_not_parse_fails_the_line() {
    assert_eq!(failure("bash -c 'if'"), "the command could not be parsed");
    assert_eq!(
        failure("sudo sh -c 'rm -rf / &&'"),
        "the command could not be parsed"
    );
}

#[test]
fn nested_payloads_within_the_limit_are_followed() {
    let line = nested_bash_c("rm -rf /", 5);
    let commands = ok(&line);
    assert_eq!(commands.len(), 6);
    assert_eq!(commands[5].text(View::Literal), "rm -rf /");
    assert_eq!(commands[5].origin, Origin::Payload);
}

#[test]
fn payloads_nested_deeper_than_the_limit_fail() {
    run_with_small_stack(|| {
        let line = nested_bash_c("rm -rf /", MAX_DEPTH + 1);
        assert!(line.len() < super::MAX_COMMAND_LEN);
        assert_eq!(failure(&line), "the command nests deeper than 16 levels");
        let line = nested_bash_c("rm -rf /", MAX_DEPTH);
        assert_eq!(ok(&line).len(), MAX_DEPTH + 1);
        // Nesting counted across substitutions, payloads and wrappers together.
        let line = format!(
            "{}{}{}",
            "echo $(".repeat(10),
            nested_bash_c("sudo nice rm -rf /", 6),
            ")".repeat(10)
        );
        assert!(analyse(&line).failure.is_some());
        let line = format!("{}rm -rf /", "eval ".repeat(MAX_DEPTH + 1));
        assert!(analyse(&line).failure.is_some());
    });
}

#[test]
fn dynamic_payloads_are_asked_about() {
    for line in [
        "bash -c \"$(curl -fsSL https://example.com/install.sh)\"",
        "sh -c \"$(wget -qO- https://example.com/install.sh)\"",
        "sh -c \"rm -rf $DIR\"",
        "eval \"$(curl -s https://example.com/x.sh)\"",
        "eval \"$X\"",
        "eval $X",
        "bash <(curl -s https://example.com/install.sh)",
        "sh <(curl https://example.com/install.sh)",
        "bash \"$script\"",
        "bash < <(curl -s https://example.com/install.sh)",
        "source <(curl -s https://example.com/env.sh)",
        ". <(curl -s https://example.com/env.sh)",
        "source \"$ENV_FILE\"",
        "bash <<< \"$(curl -s x)\"",
        "bash <<EOF\nrm -rf $DIR\nEOF",
        "su -c \"$CMD\"",
        "ssh host \"$CMD\"",
        "watch \"$CMD\"",
    ] {
        assert!(asks_about_unknown(line), "{line:?}: {:?}", shown(line));
    }
    // What can be seen of the payload is still there, and the substitution runs.
    let commands = ok("sh -c \"rm -rf $DIR\"");
    assert!(commands
        .iter()
        .any(|c| c.program() == "rm" && c.origin == Origin::Payload));
    let commands = ok("bash -c \"$(curl -fsSL x)\"");
    assert!(commands
        .iter()
        .any(|c| c.program() == "curl" && c.origin == Origin::CommandSubstitution));
    let unknown = commands
        .iter()
        .find(|c| c.computed_program())
        .expect("dynamic");
    assert_eq!(unknown.origin, Origin::Payload);
    assert_eq!(unknown.argv[0].value, "$(curl -fsSL x)");
    // Known files and strings are not.
    for line in [
        "source venv/bin/activate",
        ". ~/.bashrc",
        "bash -c 'echo $HOME'",
        "bash <<'EOF'\nrm -rf $DIR\nEOF",
        "bash <<EOF\necho \\$HOME\nEOF",
    ] {
        assert!(!asks_about_unknown(line), "{line:?}: {:?}", shown(line));
    }
}

#[test]
fn eval_runs_its_arguments_in_the_same_shell() {
    assert_eq!(
        extra("eval \"rm -rf build\""),
        vec![payload("rm -rf build")]
    );
    assert_eq!(extra("eval rm -rf build"), vec![payload("rm -rf build")]);
    assert_eq!(extra("eval -- rm -rf build"), vec![payload("rm -rf build")]);
    assert_eq!(
        extra("eval 'a=1; rm \"$a\"'"),
        vec![payload("a=1"), payload("rm $a")]
    );
    assert_eq!(extra("eval"), Vec::<String>::new());
    let commands = ok("f() { eval f; }; f");
    assert!(commands
        .iter()
        .any(|c| c.origin == Origin::Payload && c.self_call));
}

#[test]
fn ssh_remote_commands_are_analysed() {
    for (line, inner) in [
        ("ssh host 'rm -rf /'", "rm -rf /"),
        (
            "ssh -p 2222 deploy@example.com \"rm -rf /var/www/*\"",
            "rm -rf /var/www/*",
        ),
        (
            "ssh -i key -o StrictHostKeyChecking=no -J jump host rm -rf /",
            "rm -rf /",
        ),
        ("ssh -tt -l root host rm -rf /", "rm -rf /"),
        ("ssh host -p 22 -t 'rm -rf /'", "rm -rf /"),
        ("ssh -- host rm -rf /", "rm -rf /"),
        ("ssh host uptime", "uptime"),
    ] {
        assert_eq!(extra(line), vec![remote(inner)], "{line:?}");
    }
    assert_eq!(
        extra("ssh host 'sudo systemctl restart app'"),
        vec![
            remote("sudo systemctl restart app"),
            wrapped("systemctl restart app")
        ]
    );
    assert_eq!(
        extra("ssh host <<'EOF'\nrm -rf /\nEOF"),
        vec![remote("rm -rf /")]
    );
    assert_eq!(
        extra("ssh host 'bash -s' <<'EOF'\nrm -rf /\nEOF"),
        vec![remote("bash -s"), payload("rm -rf /")]
    );
    for line in [
        "ssh host",
        "ssh -N -L 8080:localhost:80 host",
        "ssh -s host sftp",
        "ssh -V",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn here_documents_and_strings_fed_to_a_shell_are_its_script() {
    for line in [
        "bash <<< 'rm -rf /'",
        "sh <<EOF\nrm -rf /\nEOF",
        "bash <<'EOF'\nrm -rf /\nEOF",
        "bash -s <<'EOF'\nrm -rf /\nEOF",
        "bash -s -- --yes <<'EOF'\nrm -rf /\nEOF",
        "sh - <<'EOF'\nrm -rf /\nEOF",
        "sh <<-EOF\n\trm -rf /\n\tEOF",
        "sudo bash <<'EOF'\nrm -rf /\nEOF",
        "sudo -s <<< 'rm -rf /'",
        "su <<< 'rm -rf /'",
        "su - root <<'EOF'\nrm -rf /\nEOF",
        "{ bash; } <<'EOF'\nrm -rf /\nEOF",
        "bash -c 'bash' <<< 'rm -rf /'",
        "bash 0<<< 'rm -rf /'",
    ] {
        let found = extra(line);
        assert_eq!(
            found.last(),
            Some(&payload("rm -rf /")),
            "{line:?}: {found:?}"
        );
    }
    assert_eq!(
        shown("bash <<'EOF'\ncd /srv\nrm -rf data\nEOF"),
        vec![
            "top level: bash",
            "shell string: cd /srv",
            "shell string: rm -rf data",
        ]
    );
    // Text for other programs is data.
    for line in [
        "cat <<'EOF'\nrm -rf /\nEOF",
        "cat > x.sh <<'EOF'\nrm -rf /\nEOF",
        "tee deploy.sh <<'EOF' >/dev/null\nsystemctl restart app\nEOF",
        "git commit -F - <<'EOF'\nRemove sudo rm -rf from docs\nEOF",
        "grep x <<< 'rm -rf /'",
        "bash script.sh <<< 'rm -rf /'",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
    }
}

// ----- interpreters -----

#[test]
fn interpreter_one_liners_shell_outs_are_analysed() {
    for (line, inner) in [
        ("python -c \"import os; os.system('rm -rf /')\"", "rm -rf /"),
        (
            "python3 -c \"import subprocess; subprocess.run('rm -rf /', shell=True)\"",
            "rm -rf /",
        ),
        (
            "python3 -c \"import subprocess; subprocess.run(['rm', '-rf', '/'])\"",
            "rm -rf /",
        ),
        (
            "python3.12 -c 'import os; os.popen(\"rm -rf /\")'",
            "rm -rf /",
        ),
        ("pypy3 -c 'import os; os.system(\"rm -rf /\")'", "rm -rf /"),
        (
            "python2 -c 'import commands; commands.getoutput(\"rm -rf /\")'",
            "rm -rf /",
        ),
        (
            "python3 -u -c 'import os; os.system(\"rm -rf /\")'",
            "rm -rf /",
        ),
        ("perl -e 'system(\"rm -rf /\")'", "rm -rf /"),
        ("perl -e 'system \"rm -rf /\"'", "rm -rf /"),
        ("perl -E 'system(\"rm\", \"-rf\", \"/\")'", "rm -rf /"),
        ("perl -e 'print `rm -rf /`'", "rm -rf /"),
        ("perl -e 'qx(rm -rf /)'", "rm -rf /"),
        ("perl -we 'exec \"rm -rf /\"'", "rm -rf /"),
        ("ruby -e 'system(\"rm -rf /\")'", "rm -rf /"),
        ("ruby -e '`rm -rf /`'", "rm -rf /"),
        ("ruby -e '%x(rm -rf /)'", "rm -rf /"),
        (
            "node -e \"require('child_process').execSync('rm -rf /')\"",
            "rm -rf /",
        ),
        (
            "node -e \"require('child_process').spawn('rm', ['-rf', '/'])\"",
            "rm -rf /",
        ),
        (
            "node --eval \"require('child_process').exec('rm -rf /')\"",
            "rm -rf /",
        ),
        (
            "node -p \"require('child_process').execSync('rm -rf /').toString()\"",
            "rm -rf /",
        ),
        (
            "bun -e \"require('child_process').execSync('rm -rf /')\"",
            "rm -rf /",
        ),
        (
            "deno eval \"new Deno.Command('rm', {args: ['-rf', '/']}).outputSync()\"",
            "rm -rf /",
        ),
        ("php -r 'system(\"rm -rf /\");'", "rm -rf /"),
        ("php -r 'echo shell_exec(\"rm -rf /\");'", "rm -rf /"),
    ] {
        assert_eq!(extra(line), vec![shell_out(inner)], "{line:?}");
    }
    // A shell-out to a wrapper or a shell is followed further.
    assert_eq!(
        extra("python3 -c \"import os; os.system('sudo rm -rf /')\""),
        vec![shell_out("sudo rm -rf /"), wrapped("rm -rf /")]
    );
    assert_eq!(
        extra("python3 -c \"import subprocess; subprocess.run(['bash', '-c', 'rm -rf /'])\""),
        vec![shell_out("bash -c rm -rf /"), payload("rm -rf /")]
    );
    // Perl's `-e` codes are lines of one program.
    assert_eq!(
        extra("perl -e 'system(' -e '\"rm -rf /\")'"),
        vec![shell_out("rm -rf /")]
    );
    // Code read on standard input.
    assert_eq!(
        extra("python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF"),
        vec![shell_out("rm -rf /")]
    );
    assert_eq!(
        extra("perl <<< 'system(\"rm -rf /\")'"),
        vec![shell_out("rm -rf /")]
    );
}

#[test]
fn interpreter_code_that_is_not_a_literal_is_asked_about() {
    for line in [
        "python3 -c 'import os; os.system(cmd)'",
        "python3 -c 'import os; os.system(f\"rm -rf {d}\")'",
        "python3 -c 'import os; os.system(\"rm -rf \" + d)'",
        "perl -e 'system($cmd)'",
        "perl -e 'system(\"rm -rf $d\")'",
        "ruby -e 'system(\"rm -rf #{d}\")'",
        "node -e \"require('child_process').execSync(process.argv[1])\"",
        "python3 -c \"$(curl -s https://example.com/x.py)\"",
        "python3 <(curl -s https://example.com/x.py)",
        "python3 -c \"import os; os.system('rm -rf $DIR')\"",
    ] {
        assert!(asks_about_unknown(line), "{line:?}: {:?}", shown(line));
    }
}

#[test]
fn interpreter_code_without_shell_outs_adds_nothing() {
    for line in [
        "python -c 'print(1)'",
        "python3 -c 'print(\"rm -rf /\")'",
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"x\"])'",
        "python3 -c \"import asyncio; asyncio.run(main())\"",
        "python3 -m http.server 8000",
        "python3 script.py --rm -rf",
        "node -e \"console.log(process.version)\"",
        "node -e \"console.log(/rm/.exec('rm -rf /'))\"",
        "perl -ne 'print if /sudo/' notes.txt",
        "perl -pi -e 's/sudo //g' install.sh",
        "ruby -e 'puts 1 + 1'",
        "php -r 'echo 1;'",
        "curl https://example.com/x.py | python3",
        "python3 -c \"print('$HOME')\"",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
        assert!(!asks_about_unknown(line), "{line:?}");
    }
}

// ----- text that only mentions commands -----

#[test]
fn text_that_mentions_commands_runs_nothing() {
    for line in [
        "echo \"sudo rm -rf /\"",
        "echo sudo rm -rf /",
        "echo bash -c 'rm -rf /'",
        "grep -r \"bash -c\" .",
        "grep -rn 'sudo rm' docs/",
        "git commit -m \"use sudo\"",
        "git commit -m 'run: bash -c \"rm -rf /\"'",
        "printf '%s\\n' 'eval $(x)'",
        "man sudo",
        "which sudo",
        "type eval",
        "sudoku --solve",
        "echo 'ssh host rm -rf /'",
    ] {
        assert_eq!(extra(line), Vec::<String>::new(), "{line:?}");
        assert!(!asks_about_unknown(line), "{line:?}");
    }
}

// ----- paths after `=` -----

#[test]
fn the_value_of_name_equals_words_is_their_path() {
    let c = &ok("dd if=~/.ssh/id_rsa of=/tmp/x bs=1M")[0];
    assert_eq!(c.argv[1].value, "if=~/.ssh/id_rsa");
    assert_eq!(c.argv[1].path.as_deref(), Some("~/.ssh/id_rsa"));
    assert_eq!(c.argv[2].path.as_deref(), Some("/tmp/x"));
    assert_eq!(c.argv[3].path.as_deref(), Some("1M"));
    for (word, path) in [
        ("if=$HOME/.ssh/id_rsa", Some("~/.ssh/id_rsa")),
        ("if=${HOME}/.aws", Some("~/.aws")),
        ("\"if=$HOME/.aws\"", Some("~/.aws")),
        ("--file=~/x", Some("~/x")),
        ("--kubeconfig=$HOME/.kube/config", Some("~/.kube/config")),
        ("-o=~/x", Some("~/x")),
        ("if=\"~/x\"", Some("./~/x")),
        ("'if=~/x'", Some("./~/x")),
        ("a=b", Some("b")),
        ("a=", Some("")),
        ("https://x.org/?a=~b", Some("https://x.org/?a=~b")),
        ("1a=~/x", Some("1a=~/x")),
        ("if=$X/a", None),
        ("if=x$HOME", None),
    ] {
        let c = &ok(&format!("dd {word}"))[0];
        assert_eq!(c.argv[1].path.as_deref(), path, "{word}");
        assert_eq!(c.argv[1].dynamic, path.is_none(), "{word}");
    }
}

#[test]
fn positional_parameters_are_expansions() {
    let c = &ok("echo $1 \"$2\" ${10} ${1:-x} $0")[0];
    assert!(c.argv[1..].iter().all(|w| w.dynamic));
    assert_eq!(c.argv[3].value, "${10}");
    // `1=x` is not an assignment for bash; tree-sitter reads it as one.
    failure("1=x");
}

/// `cargo test --release --lib shell::tests::timing -- --ignored --nocapture`: the median
/// time of the whole analysis of 60–120 character command lines.
#[test]
#[ignore]
fn timing() {
    let lines = [
        "cargo test --workspace --all-features 2>&1 | tail -n 50 && echo done",
        "sudo -u deploy env RAILS_ENV=production nice -n 10 timeout 300 bundle exec rake db:migrate",
        "bash -c 'cd /srv/app && git pull --rebase && npm ci && npm run build' > deploy.log 2>&1",
        "find . -name '*.pyc' -exec rm -f {} + && python3 -c \"import os; os.system('ls -la')\"",
        "ssh -p 2222 deploy@example.com 'sudo systemctl restart app && journalctl -u app -n 20'",
        "git log --oneline --graph --decorate --all | head -n 40 | grep -v WIP | sort | uniq -c",
        "docker run --rm -v \"$PWD\":/app -w /app node:18 npm test -- --coverage --watchAll=false",
        "curl -fsSL https://example.com/install.sh | sudo -E bash -s -- --prefix=/usr/local --yes",
        "xargs -0 -n 1 -P 4 sh -c 'gzip -9 \"$1\" && mv \"$1.gz\" /archive/' _ < files.txt",
        "for f in src/*.rs; do echo \"== $f\"; grep -n 'unsafe' \"$f\" || true; done 2>/dev/null",
        "git commit -m \"fix: handle empty input in the parser and add tests for it\" --no-verify",
        "kubectl --context prod -n payments rollout restart deployment/api-server --record=true",
    ];
    let mut all = Vec::new();
    for line in lines {
        assert!((60..=120).contains(&line.len()), "{} {line}", line.len());
        for _ in 0..200 {
            std::hint::black_box(analyse(line));
        }
        let mut times: Vec<u128> = (0..2000)
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(analyse(std::hint::black_box(line)));
                start.elapsed().as_nanos()
            })
            .collect();
        times.sort_unstable();
        let median = times[times.len() / 2];
        let mut parse: Vec<u128> = (0..2000)
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(super::parse::parse_only(std::hint::black_box(line)));
                start.elapsed().as_nanos()
            })
            .collect();
        parse.sort_unstable();
        eprintln!(
            "{:>8.2} µs (parse alone {:>6.2} µs)  {line}",
            median as f64 / 1000.0,
            parse[parse.len() / 2] as f64 / 1000.0
        );
        all.extend(times);
    }
    all.sort_unstable();
    eprintln!(
        "overall median {:.2} µs, p90 {:.2} µs",
        all[all.len() / 2] as f64 / 1000.0,
        all[all.len() * 9 / 10] as f64 / 1000.0
    );
}

/// Lines built to multiply the work of the expansion.
fn hostile_lines() -> Vec<String> {
    let mut dynamic_nest = String::from("x");
    for _ in 0..15 {
        dynamic_nest = format!("bash -c \"$({})\"", dynamic_nest.replace('"', "'"));
    }
    let mut eval_nest = String::from("x");
    for _ in 0..15 {
        eval_nest = format!("eval \"$({eval_nest})\"");
    }
    vec![
        dynamic_nest,
        eval_nest,
        format!("{}rm", "sudo -X sudo ".repeat(8)),
        format!("{}rm", "sudo ".repeat(13_000)),
        format!("find .{}", " -exec a \\;".repeat(5_000)),
        format!("python3 -c \"{}\"", "os.system('x');".repeat(4_000)),
        format!("bash <<'EOF'\n{}EOF", "rm -rf x\n".repeat(7_000)),
        format!("env{}", " -S 'x'".repeat(8_000)),
        format!("xargs{} rm", " -X".repeat(20_000)),
        format!("ssh {}", "-o x ".repeat(12_000)),
    ]
}

#[test]
fn hostile_lines_are_analysed_without_panics() {
    run_with_small_stack(|| {
        for line in hostile_lines() {
            let analysis = analyse(&line);
            if analysis.failure.is_some() {
                assert!(analysis.commands.is_empty());
            }
        }
    });
}

/// `cargo test --release --lib shell::tests::hostile_timing -- --ignored --nocapture`.
#[test]
#[ignore]
fn hostile_timing() {
    for line in hostile_lines() {
        let start = std::time::Instant::now();
        let analysis = analyse(&line);
        eprintln!(
            "{:>9.2} ms  {} commands, failure {:?}: {}…",
            start.elapsed().as_secs_f64() * 1000.0,
            analysis.commands.len(),
            analysis.failure,
            line.chars().take(40).collect::<String>().replace('\n', "⏎")
        );
    }
}

// Found by the re-spelling property at 2,000 cases: tree-sitter-bash leaves a lone `-` before
// a command's redirections out of its tree, so `npm -` and `npm - 2>/dev/null` differed.
#[test]
fn a_lone_dash_before_a_redirection_is_still_a_word_of_the_command() {
    assert_eq!(shown("npm - 2>/dev/null"), ["top level: npm -"]);
    assert_eq!(shown("npm a - >out"), ["top level: npm a -"]);
    assert_eq!(
        shown("git commit -F - <<'EOF'\nmsg\nEOF"),
        ["top level: git commit -F -"]
    );
    // After a compound statement it is no word of a command: refused.
    failure("{ ls; } - 2>x");
}

#[test]
fn blanks_continuations_quotes_and_comments_are_not_taken_for_text_the_parse_left_out() {
    // Everything the tree holds, blanks and line continuations aside, is read.
    for line in [
        "ls \\\n  -la",
        "echo \"a b\" > x # note",
        "cat <<EOF\nbody\nEOF",
        "[[ $a =~ ^a.*$ ]] && ls",
        "x=$((1 + 2)); echo $x",
    ] {
        ok(line);
    }
}

#[test]
fn interpreter_calls_that_delete_are_judged_as_the_shell_command_they_equal() {
    let out = |line: &str| extra(line);
    let shell_out = |text: &str| format!("interpreter shell-out: {text}");
    assert_eq!(
        out("python3 -c 'import shutil; shutil.rmtree(\"/\")'"),
        [shell_out("rm -rf /")]
    );
    assert_eq!(
        out("node -e 'require(\"fs\").rmSync(\"/tmp/x\", {recursive: true})'"),
        [shell_out("rm -rf /tmp/x")]
    );
    assert_eq!(
        out("perl -MFile::Path=rmtree -e 'rmtree(\"/\")'"),
        [shell_out("rm -rf /")]
    );
    assert_eq!(
        out("ruby -rfileutils -e 'FileUtils.rm_rf(\"/\")'"),
        [shell_out("rm -rf /")]
    );
    assert_eq!(
        out("python3 -c 'import os; os.remove(\"build/x.o\")'"),
        [shell_out("rm build/x.o")]
    );
    // What a call on a computed path deletes is only known when it runs.
    let computed = analyse("python3 -c 'import shutil; shutil.rmtree(p)'");
    assert!(computed
        .commands
        .iter()
        .any(|c| c.program() == "rm" && c.argv.iter().any(|w| w.dynamic)));
    assert!(out("python3 -c 'print(\"remove\")'").is_empty());
}

#[test]
fn the_words_after_sh_c_code_are_its_positional_parameters() {
    assert_eq!(extra("bash -c 'rm \"$@\"' _ -rf /"), [payload("rm -rf /")]);
    let quoted = analyse("sh -c 'cat $1 $2' x a.txt 'b c'");
    let cat = quoted.commands.iter().find(|c| c.program() == "cat");
    let words: Vec<&str> = cat.map_or(Vec::new(), |c| {
        c.argv.iter().map(|w| w.value.as_str()).collect()
    });
    assert_eq!(
        words,
        ["cat", "a.txt", "b c"],
        "a word with a blank stays one word"
    );
    assert_eq!(extra("sh -c 'echo $0' name"), [payload("echo name")]);
    // Without words after the code, the code is as written.
    assert_eq!(extra("sh -c 'echo $1'"), [payload("echo $1")]);
}
