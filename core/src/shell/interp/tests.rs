use super::*;

fn shell(text: &str) -> ShellOut {
    ShellOut::Shell {
        text: text.to_string(),
        dynamic: false,
    }
}

fn dyn_shell(text: &str) -> ShellOut {
    ShellOut::Shell {
        text: text.to_string(),
        dynamic: true,
    }
}

fn argv(words: &[&str]) -> ShellOut {
    ShellOut::Argv(
        words
            .iter()
            .map(|w| Word {
                value: w.to_string(),
                dynamic: false,
                path: Some(w.to_string()),
            })
            .collect(),
    )
}

fn found(lang: Lang, code: &str) -> Vec<ShellOut> {
    shell_outs(lang, code)
}

#[test]
fn python_shell_outs() {
    use Lang::Python;
    assert_eq!(
        found(Python, "import os; os.system('rm -rf /')"),
        vec![shell("rm -rf /")]
    );
    assert_eq!(
        found(Python, "import os; os.popen(\"ls -l\").read()"),
        vec![shell("ls -l")]
    );
    assert_eq!(
        found(
            Python,
            "import subprocess; subprocess.run('rm -rf ~', shell=True)"
        ),
        vec![shell("rm -rf ~")]
    );
    assert_eq!(
        found(
            Python,
            "import subprocess as s; s.check_call(['rm', '-rf', '/'])"
        ),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Python, "subprocess.Popen([\"sudo\", \"reboot\"]).wait()"),
        vec![argv(&["sudo", "reboot"])]
    );
    assert_eq!(
        found(Python, "import commands; commands.getoutput('id')"),
        vec![shell("id")]
    );
    assert_eq!(
        found(Python, "os.system('rm ' '-rf /')"),
        vec![shell("rm -rf /")],
        "adjacent literals concatenate"
    );
    assert_eq!(
        found(Python, "subprocess.run(args='rm -rf /', shell=True)"),
        vec![shell("rm -rf /")],
        "a keyword argument"
    );
    assert_eq!(
        found(Python, "os.execvp('rm', ['rm', '-rf', '/'])"),
        vec![argv(&["rm", "rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Python, "__import__('os').system('id')"),
        vec![shell("id")]
    );
    assert_eq!(
        found(Python, "os.system(r'rm -rf \\x')"),
        vec![shell("rm -rf \\x")]
    );
    assert_eq!(
        found(Python, "os.system('''rm -rf /''')"),
        vec![shell("rm -rf /")]
    );
}

#[test]
fn python_dynamic_shell_outs_are_unknown_or_dynamic() {
    use Lang::Python;
    assert_eq!(
        found(Python, "import os; os.system(cmd)"),
        vec![ShellOut::Unknown("cmd".into())]
    );
    assert_eq!(
        found(Python, "os.system(f'rm -rf {d}')"),
        vec![dyn_shell("rm -rf {d}")]
    );
    assert_eq!(
        found(Python, "os.system(f'echo {{x}}')"),
        vec![shell("echo {x}")]
    );
    assert!(matches!(
        found(Python, "os.system('rm -rf ' + d)").as_slice(),
        [ShellOut::Unknown(_)]
    ));
    assert!(matches!(
        found(Python, "os.system('rm -rf %s' % d)").as_slice(),
        [ShellOut::Unknown(_)]
    ));
    // `run` not on subprocess is not a shell-out unless its argument is a literal.
    assert_eq!(found(Python, "import asyncio; asyncio.run(main())"), vec![]);
}

#[test]
fn python_without_shell_outs_gives_nothing() {
    for code in [
        "print(1)",
        "print(\"rm -rf /\")",
        "import json,sys; print(json.load(sys.stdin)['x'])",
        "import os; print(os.environ['HOME'])",
        "import system",
    ] {
        assert_eq!(found(Lang::Python, code), vec![], "{code}");
    }
}

#[test]
fn perl_shell_outs() {
    use Lang::Perl;
    assert_eq!(
        found(Perl, "system(\"rm -rf /tmp/x\")"),
        vec![shell("rm -rf /tmp/x")]
    );
    assert_eq!(found(Perl, "system 'rm -rf /'"), vec![shell("rm -rf /")]);
    assert_eq!(
        found(Perl, "system('rm', '-rf', '/')"),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Perl, "exec qw(rm -rf /)"),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(found(Perl, "print `id`"), vec![shell("id")]);
    assert_eq!(
        found(Perl, "my $x = qx(rm -rf /); print $x"),
        vec![shell("rm -rf /")]
    );
    assert_eq!(found(Perl, "print qx{ls}"), vec![shell("ls")]);
    assert_eq!(
        found(Perl, "open(F, \"rm -rf / |\")"),
        vec![shell("rm -rf /")]
    );
    assert_eq!(
        found(Perl, "open(my $f, '-|', 'rm', '-rf', '/')"),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(found(Perl, "open(F, '<', 'x.txt')"), vec![]);
    assert_eq!(
        found(Perl, "system(\"rm -rf $dir\")"),
        vec![dyn_shell("rm -rf $dir")]
    );
    assert_eq!(found(Perl, "system 'ls' or die"), vec![shell("ls")]);
    assert!(matches!(
        found(Perl, "system($cmd)").as_slice(),
        [ShellOut::Unknown(_)]
    ));
    assert_eq!(found(Perl, "print if /sudo/"), vec![]);
    assert_eq!(found(Perl, "$system = 1; print $system"), vec![]);
}

#[test]
fn ruby_shell_outs() {
    use Lang::Ruby;
    assert_eq!(
        found(Ruby, "system(\"rm -rf build\")"),
        vec![shell("rm -rf build")]
    );
    assert_eq!(
        found(Ruby, "system 'rm', '-rf', 'x'"),
        vec![argv(&["rm", "-rf", "x"])]
    );
    assert_eq!(found(Ruby, "puts `id`"), vec![shell("id")]);
    assert_eq!(found(Ruby, "puts %x(rm -rf /)"), vec![shell("rm -rf /")]);
    assert_eq!(
        found(Ruby, "exec %w(rm -rf /)"),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Ruby, "system(\"rm -rf #{d}\")"),
        vec![dyn_shell("rm -rf #{d}")]
    );
    assert_eq!(found(Ruby, "system({'A' => '1'}, 'ls')"), vec![shell("ls")]);
    assert_eq!(
        found(Ruby, "IO.popen(['ls', '-l'])"),
        vec![argv(&["ls", "-l"])]
    );
    assert_eq!(
        found(Ruby, "require 'open3'; Open3.capture2('id')"),
        vec![shell("id")]
    );
    assert_eq!(found(Ruby, "puts 1 + 1"), vec![]);
}

#[test]
fn node_shell_outs() {
    use Lang::Node;
    assert_eq!(
        found(Node, "require('child_process').execSync('rm -rf build')"),
        vec![shell("rm -rf build")]
    );
    assert_eq!(
        found(Node, "const cp = require(\"child_process\"); cp.spawn('rm', ['-rf', '/'], {stdio: 'inherit'})"),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Node, "require('child_process').exec(`rm -rf ${d}`)"),
        vec![dyn_shell("rm -rf ${d}")]
    );
    assert!(matches!(
        found(Node, "require('child_process').exec(cmd)").as_slice(),
        [ShellOut::Unknown(_)]
    ));
    // Without child_process, `exec` is a regular expression's.
    assert_eq!(found(Node, "console.log(/a/.exec('rm -rf /'))"), vec![]);
    assert_eq!(found(Node, "console.log(process.version)"), vec![]);
    assert_eq!(
        found(Node, "Bun.spawn(['rm', '-rf', '/'])"),
        vec![argv(&["rm", "-rf", "/"])]
    );
}

#[test]
fn deno_and_php_shell_outs() {
    assert_eq!(
        found(
            Lang::Deno,
            "new Deno.Command('rm', { args: ['-rf', '/'] }).outputSync()"
        ),
        vec![argv(&["rm", "-rf", "/"])]
    );
    assert_eq!(
        found(Lang::Php, "system('rm -rf /');"),
        vec![shell("rm -rf /")]
    );
    assert_eq!(
        found(Lang::Php, "echo shell_exec(\"id\");"),
        vec![shell("id")]
    );
    assert_eq!(found(Lang::Php, "echo `id`;"), vec![shell("id")]);
    assert_eq!(
        found(Lang::Php, "exec(\"rm -rf $d\");"),
        vec![dyn_shell("rm -rf $d")]
    );
    assert_eq!(found(Lang::Php, "echo 1;"), vec![]);
}

#[test]
fn hostile_code_is_scanned_in_bounded_time_without_panics() {
    let deep = format!("os.system({}'x'{})", "(".repeat(10_000), ")".repeat(10_000));
    let _ = found(Lang::Python, &deep);
    let deep = format!("system({}", "[".repeat(10_000));
    let _ = found(Lang::Ruby, &deep);
    for code in [
        "os.system(",
        "system '",
        "qx",
        "%x",
        "`",
        "exec(\"\\",
        "os.system(f'{",
        "q(",
        "é`é",
    ] {
        for lang in [Lang::Python, Lang::Perl, Lang::Ruby, Lang::Node, Lang::Php] {
            let _ = found(lang, code);
        }
    }
}

#[test]
fn invocations_find_the_code() {
    let w = |line: &str| -> Vec<Word> {
        line.split(' ')
            .map(|w| Word {
                value: w.replace('_', " "),
                dynamic: false,
                path: None,
            })
            .collect()
    };
    let code = |lang, line: &str| -> Vec<String> {
        invocation(lang, &w(line))
            .codes
            .into_iter()
            .map(|c| c.value)
            .collect()
    };
    assert_eq!(code(Lang::Python, "python3 -c print(1)"), vec!["print(1)"]);
    assert_eq!(code(Lang::Python, "python3 -Ic print(1)"), vec!["print(1)"]);
    assert_eq!(
        code(Lang::Python, "python3 -u -cprint(1)"),
        vec!["print(1)"]
    );
    assert_eq!(
        code(Lang::Python, "python3 -m mod -c x"),
        Vec::<String>::new()
    );
    assert!(invocation(Lang::Python, &w("python3")).stdin);
    assert!(invocation(Lang::Python, &w("python3 -")).stdin);
    assert!(invocation(Lang::Python, &w("python3 x.py"))
        .script
        .is_some());
    assert_eq!(code(Lang::Perl, "perl -ne print"), vec!["print"]);
    assert_eq!(code(Lang::Perl, "perl -e a -E b"), vec!["a", "b"]);
    assert_eq!(code(Lang::Perl, "perl -pi.bak -e x f"), vec!["x"]);
    assert_eq!(code(Lang::Perl, "perl -pie x"), Vec::<String>::new());
    assert_eq!(code(Lang::Perl, "perl -l015e x"), vec!["x"]);
    assert_eq!(code(Lang::Perl, "perl -I lib -e x"), vec!["x"]);
    assert_eq!(code(Lang::Ruby, "ruby -r json -e x"), vec!["x"]);
    assert_eq!(code(Lang::Node, "node -e x"), vec!["x"]);
    assert_eq!(code(Lang::Node, "node --eval=x"), vec!["x"]);
    assert_eq!(code(Lang::Node, "node -r dotenv/config -p x"), vec!["x"]);
    assert_eq!(
        code(Lang::Node, "node script.js -e x"),
        Vec::<String>::new()
    );
    assert_eq!(code(Lang::Deno, "deno eval --ext ts x"), vec!["x"]);
    assert_eq!(code(Lang::Php, "php -r x"), vec!["x"]);
    assert_eq!(Lang::of("python3.12"), Some(Lang::Python));
    assert_eq!(Lang::of("pythonista"), None);
    assert_eq!(Lang::of("perldoc"), None);
}
