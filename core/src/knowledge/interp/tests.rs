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
        vec![argv(&["rm", "-rf", "/"])],
        "the program runs with its argument list, whose first is its own name"
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

/// What `code` is read to do, one line per shell-out: a command with its computed words in
/// braces (`rm {p}`), `unknown: …`, `sh: …`.
fn did(lang: Lang, code: &str) -> Vec<String> {
    shell_outs(lang, code)
        .into_iter()
        .map(|s| match s {
            ShellOut::Argv(words) => words
                .iter()
                .map(|w| {
                    if w.dynamic {
                        format!("{{{}}}", w.value)
                    } else {
                        w.value.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            ShellOut::Unknown(source) => format!("unknown: {source}"),
            ShellOut::Shell { text, .. } => format!("sh: {text}"),
        })
        .collect()
}

#[test]
fn calls_that_change_files_are_the_shell_commands_they_equal() {
    use Lang::*;
    for (lang, code, command) in [
        (
            Python,
            "import os; os.remove('/etc/hosts')",
            "rm /etc/hosts",
        ),
        (Python, "import os; os.rmdir('/srv/x')", "rmdir /srv/x"),
        (
            Python,
            "import shutil; shutil.move('/etc/nginx', '/tmp/nginx.old')",
            "mv /etc/nginx /tmp/nginx.old",
        ),
        (Python, "import os; os.replace('a', 'b')", "mv a b"),
        (
            Python,
            "import shutil; shutil.copytree('a', '/opt/b', dirs_exist_ok=True)",
            "cp -r a /opt/b",
        ),
        (
            Python,
            "import shutil; shutil.chown('/etc/x', 'root')",
            "chown root /etc/x",
        ),
        (
            Python,
            "import os; os.chmod('/usr/bin/x', 0o4755)",
            "chmod 4755 /usr/bin/x",
        ),
        (Python, "import os; os.chmod('x.sh', 493)", "chmod 755 x.sh"),
        (
            Python,
            "import os; os.symlink('/tmp/e', '/home/u/.bashrc')",
            "ln -s /tmp/e /home/u/.bashrc",
        ),
        (
            Python,
            "import os; os.makedirs('build/out', exist_ok=True)",
            "mkdir -p build/out",
        ),
        (Python, "open('out.txt', 'w').write('x')", "tee out.txt"),
        (
            Python,
            "with open('log.txt', mode='a') as f: f.write('x')",
            "tee -a log.txt",
        ),
        (
            Python,
            "import os; os.open('/etc/x', os.O_WRONLY | os.O_CREAT)",
            "tee /etc/x",
        ),
        (
            Python,
            "from pathlib import Path; Path('/etc/x').unlink(missing_ok=True)",
            "rm /etc/x",
        ),
        (
            Python,
            "from pathlib import Path; Path('a').rename('/tmp/b')",
            "mv a /tmp/b",
        ),
        (
            Python,
            "from pathlib import Path; Path('notes.md').write_text('x')",
            "tee notes.md",
        ),
        (
            Python,
            "from pathlib import Path; Path('l').symlink_to('/etc/passwd')",
            "ln -s /etc/passwd l",
        ),
        (
            Python,
            "from pathlib import Path; Path('x.sh').chmod(0o755)",
            "chmod 755 x.sh",
        ),
        (
            Python,
            "from pathlib import Path; Path('x').open('a').write('y')",
            "tee -a x",
        ),
        (Ruby, "File.delete('a', 'b')", "rm a b"),
        (
            Ruby,
            "File.rename('/etc/hosts', '/tmp/h')",
            "mv /etc/hosts /tmp/h",
        ),
        (Ruby, "File.write('/etc/motd', 'x')", "tee /etc/motd"),
        (
            Ruby,
            "File.open('log.txt', 'a') { |f| f.puts 1 }",
            "tee -a log.txt",
        ),
        (
            Ruby,
            "FileUtils.rm_rf(['a', 'b'], verbose: true)",
            "rm -rf a b",
        ),
        (Ruby, "FileUtils.mv %w(a b), '/opt'", "mv a b /opt"),
        (Ruby, "FileUtils.chmod(0755, 'x.sh')", "chmod 0755 x.sh"),
        (Ruby, "Dir.rmdir('/srv/x')", "rmdir /srv/x"),
        (
            Ruby,
            "require 'pathname'; Pathname.new('/srv/x').rmtree",
            "rm -rf /srv/x",
        ),
        (Perl, "unlink 'a', 'b'", "rm a b"),
        (
            Perl,
            "rename '/etc/hosts', '/tmp/h'",
            "mv /etc/hosts /tmp/h",
        ),
        (Perl, "chmod 04755, '/usr/bin/x'", "chmod 04755 /usr/bin/x"),
        (
            Perl,
            "use File::Copy; copy('a', '/etc/b') or die",
            "cp a /etc/b",
        ),
        (
            Perl,
            "open(my $f, '>>', '/etc/x'); print $f 1",
            "tee -a /etc/x",
        ),
        (Perl, "open(F, '>/etc/x'); print F 1", "tee /etc/x"),
        (Perl, "open my $f, '>', 'out.txt' or die", "tee out.txt"),
        (
            Php,
            "rename('/etc/hosts', '/tmp/h');",
            "mv /etc/hosts /tmp/h",
        ),
        (Php, "copy('a', '/etc/b');", "cp a /etc/b"),
        (Php, "chmod('/usr/bin/x', 04755);", "chmod 04755 /usr/bin/x"),
        (
            Php,
            "file_put_contents('/etc/x', 'y', FILE_APPEND);",
            "tee -a /etc/x",
        ),
        (Php, "$f = fopen('out.txt', 'w');", "tee out.txt"),
        (
            Node,
            "require('fs').renameSync('/etc/hosts', '/tmp/h')",
            "mv /etc/hosts /tmp/h",
        ),
        (
            Node,
            "fs.writeFileSync('dist/a.json', '{}')",
            "tee dist/a.json",
        ),
        (Node, "fs.appendFileSync('/etc/x', 'y')", "tee -a /etc/x"),
        (Node, "fs.chmodSync('x.sh', 0o755)", "chmod 755 x.sh"),
        (Node, "fs.promises.unlink('/etc/x')", "rm /etc/x"),
        (Node, "fs.openSync('/etc/x', 'w')", "tee /etc/x"),
        (
            Deno,
            "await Deno.writeTextFile('/etc/x', 'y')",
            "tee /etc/x",
        ),
        (
            Deno,
            "await Deno.remove('/var/www', { recursive: true })",
            "rm -rf /var/www",
        ),
    ] {
        assert_eq!(did(lang, code), [command], "{code}");
    }
}

#[test]
fn home_expressions_in_paths_are_the_home_folder() {
    use Lang::*;
    for (lang, code, command) in [
        (
            Python,
            "import pathlib; pathlib.Path.home().joinpath(\".zshrc\").unlink()",
            "rm ~/.zshrc",
        ),
        (
            Python,
            "from pathlib import Path; (Path.home() / '.bashrc').write_text('x')",
            "tee ~/.bashrc",
        ),
        (
            Python,
            "import os; open(os.path.expanduser('~/.bashrc'), 'a')",
            "tee -a ~/.bashrc",
        ),
        (
            Python,
            "import os; os.remove(os.path.join(os.environ['HOME'], '.profile'))",
            "rm ~/.profile",
        ),
        (
            Python,
            "import os; os.unlink(os.getenv('HOME') + '/.gitconfig')",
            "rm ~/.gitconfig",
        ),
        (
            Python,
            "open(f'{Path.home()}/.zshrc', 'a')",
            "tee -a ~/.zshrc",
        ),
        (
            Python,
            "from pathlib import Path; Path('~/.ssh/rc').expanduser().touch()",
            "touch ~/.ssh/rc",
        ),
        (
            Ruby,
            "File.delete(File.expand_path(\"~/.gitconfig\"))",
            "rm ~/.gitconfig",
        ),
        (
            Ruby,
            "FileUtils.rm_r(Dir.home + \"/Documents\")",
            "rm -r ~/Documents",
        ),
        (Ruby, "FileUtils.rm_rf Dir.home + '/x'", "rm -rf ~/x"),
        (
            Ruby,
            "File.write(File.join(Dir.home, '.bashrc'), 'x')",
            "tee ~/.bashrc",
        ),
        (
            Ruby,
            "File.open(\"#{ENV[\"HOME\"]}/.zshrc\", 'a')",
            "tee -a ~/.zshrc",
        ),
        (
            Ruby,
            "File.unlink(File.expand_path('.netrc', ENV['HOME']))",
            "rm ~/.netrc",
        ),
        (
            Perl,
            "unlink glob($ENV{\"HOME\"} . \"/.config/*\")",
            "rm {~/.config/*}",
        ),
        (Perl, "unlink \"$ENV{HOME}/.bashrc\"", "rm ~/.bashrc"),
        (
            Perl,
            "open(F, \">>$ENV{HOME}/.profile\")",
            "tee -a ~/.profile",
        ),
        (Perl, "unlink <~/.cache/*.tmp>", "rm {~/.cache/*.tmp}"),
        (
            Php,
            "unlink(getenv(\"HOME\") . \"/.profile\");",
            "rm ~/.profile",
        ),
        (
            Php,
            "file_put_contents($_SERVER['HOME'] . '/.bashrc', 'x');",
            "tee ~/.bashrc",
        ),
        (
            Php,
            "unlink(\"{$_SERVER['HOME']}/.profile\");",
            "rm ~/.profile",
        ),
        (
            Node,
            "require('fs').unlinkSync(require('os').homedir() + '/.bashrc')",
            "rm ~/.bashrc",
        ),
        (
            Node,
            "fs.writeFileSync(path.join(os.homedir(), '.npmrc'), 'x')",
            "tee ~/.npmrc",
        ),
        (
            Node,
            "fs.rmSync(process.env.HOME + '/work', {recursive: true})",
            "rm -rf ~/work",
        ),
        (
            Node,
            "fs.appendFileSync(`${process.env.HOME}/.zshrc`, 'x')",
            "tee -a ~/.zshrc",
        ),
        (
            Deno,
            "Deno.removeSync(Deno.env.get('HOME') + '/.x')",
            "rm -rf ~/.x",
        ),
    ] {
        assert_eq!(did(lang, code), [command], "{code}");
    }
}

#[test]
fn a_name_given_a_path_once_is_that_path() {
    use Lang::*;
    for (lang, code, command) in [
        (
            Python,
            "from pathlib import Path; p = Path.home() / '.zshrc'; p.unlink()",
            "rm ~/.zshrc",
        ),
        (
            Python,
            "import os\nd = os.path.expanduser('~')\nf = os.path.join(d, '.bashrc')\nopen(f, 'a')",
            "tee -a ~/.bashrc",
        ),
        (
            Perl,
            "my $f = \"$ENV{HOME}/.bashrc\"; unlink $f",
            "rm ~/.bashrc",
        ),
        (
            Php,
            "$p = getenv('HOME') . '/.profile'; unlink($p);",
            "rm ~/.profile",
        ),
        (
            Node,
            "const f = os.homedir() + '/.bashrc'; fs.unlinkSync(f)",
            "rm ~/.bashrc",
        ),
        (
            Ruby,
            "f = Dir.home + '/.bashrc'; File.delete(f)",
            "rm ~/.bashrc",
        ),
    ] {
        assert_eq!(did(lang, code), [command], "{code}");
    }
    // Given twice, in a loop, or changed: computed when the code runs.
    for (lang, code) in [
        (
            Python,
            "p = '/tmp/a'; p = '/etc/b'; import os; os.remove(p)",
        ),
        (Python, "import os\nfor p in ['a']: os.remove(p)"),
        (Python, "p = 'a'; p += 'b'; import os; os.remove(p)"),
        (Python, "import os; os.remove(p)"),
        (Perl, "for my $f (@ARGV) { unlink $f }"),
    ] {
        let out = did(lang, code);
        assert!(
            out.len() == 1 && out[0].starts_with("rm {"),
            "{code}: {out:?}"
        );
    }
}

#[test]
fn names_given_to_imports_are_their_modules_and_functions() {
    use Lang::*;
    for (lang, code, command) in [
        (
            Python,
            "from shutil import rmtree as r; r('/srv/www')",
            "rm -rf /srv/www",
        ),
        (
            Python,
            "import shutil as sh; sh.move('/etc/nginx', '/tmp/n')",
            "mv /etc/nginx /tmp/n",
        ),
        (
            Python,
            "from os import remove; remove('/etc/hosts')",
            "rm /etc/hosts",
        ),
        (
            Python,
            "from os import *; unlink('/etc/hosts')",
            "rm /etc/hosts",
        ),
        (
            Python,
            "from os import rename as mv; mv('/etc/a', 'b')",
            "mv /etc/a b",
        ),
        (
            Python,
            "__import__('os').remove('/etc/hosts')",
            "rm /etc/hosts",
        ),
        (
            Python,
            "import importlib; importlib.import_module('shutil').rmtree('/srv')",
            "rm -rf /srv",
        ),
        (
            Node,
            "const f = require('fs'); f.unlink('/etc/x', () => {})",
            "rm /etc/x",
        ),
        (
            Node,
            "const { rm } = require('fs/promises'); rm('/srv/data', {recursive: true})",
            "rm -rf /srv/data",
        ),
        (
            Node,
            "const { writeFile: w } = require('fs/promises'); w('/etc/x', 'y')",
            "tee /etc/x",
        ),
        (
            Node,
            "import { rename } from 'node:fs/promises'; await rename('/etc/a', 'b')",
            "mv /etc/a b",
        ),
        (
            Node,
            "const fsp = require('fs').promises; fsp.unlink('/etc/x')",
            "rm /etc/x",
        ),
        (
            Node,
            "require('fs/promises').rm('/srv', {recursive: true})",
            "rm -rf /srv",
        ),
        (
            Ruby,
            "include FileUtils; mv '/etc/hosts', '/tmp/h'",
            "mv /etc/hosts /tmp/h",
        ),
        (
            Perl,
            "File::Copy::move('/etc/hosts', '/tmp/h')",
            "mv /etc/hosts /tmp/h",
        ),
    ] {
        assert_eq!(did(lang, code), [command], "{code}");
    }
    assert!(imports::patterns_compile());
}

#[test]
fn a_changed_path_computed_when_the_code_runs_makes_the_call_unknown() {
    use Lang::*;
    // A write, copy, link or mode change to a computed path cannot be judged.
    for (lang, code, source) in [
        (
            Python,
            "import sys; open(sys.argv[1], 'w').write('x')",
            "open(sys.argv[1], 'w')",
        ),
        (
            Python,
            "import shutil; shutil.copy('a', dst)",
            "shutil.copy('a', dst)",
        ),
        (
            Python,
            "import os; os.chmod(p, 0o755)",
            "os.chmod(p, 0o755)",
        ),
        (Python, "x.write_text('y')", "x.write_text('y')"),
        (
            Node,
            "fs.writeFileSync(process.argv[1], 'x')",
            "fs.writeFileSync(process.argv[1], 'x')",
        ),
        (Ruby, "File.write(ARGV[0], 'x')", "File.write(ARGV[0], 'x')"),
        (
            Perl,
            "open(my $f, '>', $ARGV[0])",
            "open(my $f, '>', $ARGV[0])",
        ),
        (
            Php,
            "file_put_contents($argv[1], 'x');",
            "file_put_contents($argv[1], 'x')",
        ),
        (
            Python,
            "import shutil; shutil.move('a', d)",
            "shutil.move('a', d)",
        ),
    ] {
        assert_eq!(did(lang, code), [format!("unknown: {source}")], "{code}");
    }
    // A delete of one says so itself: `rm` of a computed path.
    assert_eq!(
        did(Python, "import shutil; shutil.rmtree(p)"),
        ["rm -rf {p}"]
    );
    assert_eq!(did(Python, "x.unlink()"), ["rm {x}"]);
    assert_eq!(did(Python, "import os; os.rename(a, 'b')"), ["mv {a} b"]);
    assert_eq!(did(Perl, "unlink"), ["rm {…}"]);
}

#[test]
fn reading_files_and_other_methods_of_those_names_change_nothing() {
    use Lang::*;
    for (lang, code) in [
        (Python, "print(1)"),
        (Python, "import json,sys; print(json.load(sys.stdin)['x'])"),
        (Python, "print(open('README.md').read())"),
        (Python, "print(open('README.md', 'rb').read())"),
        (Python, "import os; print(os.open('x', os.O_RDONLY))"),
        (Python, "s = 'a-b'; print(s.replace('-', '_'))"),
        (Python, "a = [1, 2]; a.remove(2); print(a)"),
        (
            Python,
            "import pandas as pd; print(pd.read_csv('x').rename(columns={'a': 'b'}))",
        ),
        (
            Python,
            "import webbrowser; webbrowser.open('https://example.com')",
        ),
        (Python, "import dataclasses; dataclasses.replace(x, a=1)"),
        (Python, "import shutil; print(shutil.disk_usage('/'))"),
        (Python, "import shutil; print(shutil.which('ls'))"),
        (Python, "import ftplib; f = ftplib.FTP('h'); f.rmdir('x')"),
        (Ruby, "h = {a: 1}; h.delete(:a); p h"),
        (Ruby, "puts File.read('x')"),
        (Ruby, "File.open('x') { |f| puts f.read }"),
        (Ruby, "s = 'abc'; s.delete('a')"),
        (Perl, "open(F, '<', 'x.txt'); print <F>"),
        (Perl, "open(F, 'x.txt'); print <F>"),
        (Perl, "my %h = (a => 1); delete $h{a}"),
        (Php, "echo file_get_contents('README.md');"),
        (Php, "$f = fopen('x', 'r');"),
        (Php, "$fs->remove('/etc/x');"),
        (Node, "console.log(process.version)"),
        (Node, "console.log(require('fs').readFileSync('x', 'utf8'))"),
        (Node, "fs.openSync('x', 'r')"),
        (Node, "const m = new Map(); m.delete('a')"),
        (Node, "console.log('a,b'.split(','))"),
    ] {
        assert_eq!(did(lang, code), Vec::<String>::new(), "{code}");
    }
}

#[test]
fn path_expressions_are_read_as_far_as_they_are_known() {
    use paths::{path_of, Named};
    let p = |lang, code: &str, expr: &str| path_of(lang, code, expr);
    let path = |s: &str| Some(Named::Path(s.into()));
    assert_eq!(
        p(Lang::Python, "", "Path.home() / 'a' / 'b'"),
        path("~/a/b")
    );
    assert_eq!(
        p(Lang::Python, "", "os.path.join('/etc', 'x')"),
        path("/etc/x")
    );
    assert_eq!(
        p(Lang::Python, "", "os.path.join('a', '/etc/x')"),
        path("/etc/x")
    );
    assert_eq!(
        p(Lang::Python, "", "os.environ.get('HOME') + '/x'"),
        path("~/x")
    );
    assert_eq!(
        p(Lang::Python, "", "os.path.expandvars('$HOME/x')"),
        path("~/x")
    );
    assert_eq!(
        p(Lang::Python, "", "tempfile.gettempdir() + '/x'"),
        path("/tmp/x")
    );
    assert_eq!(p(Lang::Python, "", "os.environ['PATH']"), None);
    assert_eq!(p(Lang::Python, "", "Path(sys.argv[1])"), None);
    assert_eq!(p(Lang::Python, "", "'a' * 3"), None);
    assert_eq!(
        p(
            Lang::Node,
            "",
            "require('path').join(require('os').homedir(), 'x')"
        ),
        path("~/x")
    );
    assert_eq!(p(Lang::Node, "", "process.env['HOME'] + '/x'"), path("~/x"));
    assert_eq!(
        p(Lang::Perl, "", "File::Spec->catfile($ENV{HOME}, '.x')"),
        path("~/.x")
    );
    assert_eq!(p(Lang::Perl, "", "\"$x/y\""), None);
    assert_eq!(p(Lang::Ruby, "", "Dir.home"), path("~"));
    assert_eq!(
        p(Lang::Ruby, "", "Dir['/etc/*.conf']"),
        Some(Named::Pattern("/etc/*.conf".into()))
    );
    assert_eq!(p(Lang::Php, "", "\"$_SERVER[HOME]/.x\""), path("~/.x"));
    // A name given itself is not read forever.
    assert_eq!(p(Lang::Python, "x = x + '/a'", "x"), None);
    assert_eq!(p(Lang::Python, "a = b; b = a", "a"), None);
    // A keyword argument is no name given a value.
    assert_eq!(p(Lang::Python, "f(x='/etc/a')", "x"), None);
}

#[test]
fn hostile_file_calls_are_read_in_bounded_time_without_panics() {
    let deep = format!("os.remove({}'x'{})", "(".repeat(10_000), ")".repeat(10_000));
    let _ = did(Lang::Python, &deep);
    let chain = format!("{}.unlink()", "a.".repeat(5_000));
    let _ = did(Lang::Python, &chain);
    let names = "x = x + '/a'; ".repeat(200) + "os.remove(x)";
    let _ = did(Lang::Python, &names);
    for code in [
        "os.remove(",
        "Path(').unlink()",
        ").unlink()",
        "open(f'{', 'w')",
        "unlink glob(",
        "unlink <",
        "File.open(\"#{",
        "fs.writeFileSync(`${",
        "unlink(\"{$",
        "x.rename(é)",
        "é.unlink()",
    ] {
        for lang in [Lang::Python, Lang::Perl, Lang::Ruby, Lang::Node, Lang::Php] {
            let _ = did(lang, code);
        }
    }
}

#[test]
fn file_calls_written_as_words_of_text_change_nothing() {
    for (lang, code) in [
        (Lang::Perl, "print \"please rename the file\\n\""),
        (Lang::Perl, "print 'unlink me'"),
        (Lang::Ruby, "puts \"FileUtils.rm_rf everything\""),
        (Lang::Perl, "# unlink old files\nprint 1"),
    ] {
        assert_eq!(did(lang, code), Vec::<String>::new(), "{code}");
    }
    // Code after a string that looks like an apostrophe is still read.
    assert_eq!(
        did(Lang::Perl, "print \"it's\"; unlink '/etc/x'"),
        ["rm /etc/x"]
    );
}

#[test]
fn a_file_function_passed_along_changes_paths_computed_when_it_runs() {
    use Lang::*;
    assert_eq!(
        did(
            Python,
            "import os, glob; list(map(os.remove, glob.glob('*')))"
        ),
        ["rm {…}"]
    );
    assert_eq!(did(Php, "array_map('unlink', glob('/srv/*'));"), ["rm {…}"]);
    assert_eq!(did(Node, "files.forEach(fs.unlinkSync)"), ["rm {…}"]);
    assert_eq!(
        did(Python, "import shutil; list(map(shutil.move, a, b))"),
        ["unknown: shutil.move"]
    );
    // Names imported alone are not passed along.
    for (lang, code) in [
        (
            Node,
            "const { rm, rename } = require('fs/promises'); console.log(1)",
        ),
        (Python, "from os import remove, unlink; print(1)"),
        (Node, "import { unlink, rm } from 'fs/promises'"),
    ] {
        assert_eq!(did(lang, code), Vec::<String>::new(), "{code}");
    }
}
