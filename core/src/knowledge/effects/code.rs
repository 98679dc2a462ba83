//! Code a command runs that the analysis cannot read: a file written or downloaded earlier in
//! the line, a package fetched from a registry and run, text handed to a shell or an editor as
//! commands; and containers given the host's privileges.

use std::path::Path;

use super::data::data;
use super::model::{is, FETCH_RUN};
use super::verbs::verb_match;
use super::words::{option_value, positional, short};
use super::{Effects, Kind, Line, Places};
use crate::command::{SimpleCommand, Word};

/// tmux's commands that only look (lists, options, a pane's text) or change only how tmux
/// shows its windows, with their aliases.
const TMUX_LOOKS: &[&str] = &[
    "ls",
    "list-sessions",
    "list-windows",
    "lsw",
    "list-panes",
    "lsp",
    "list-clients",
    "lsc",
    "list-buffers",
    "lsb",
    "list-keys",
    "lsk",
    "list-commands",
    "lscm",
    "has-session",
    "has",
    "show-options",
    "show",
    "show-window-options",
    "showw",
    "show-environment",
    "showenv",
    "show-buffer",
    "showb",
    "capture-pane",
    "capturep",
    "show-messages",
    "showmsgs",
    "info",
    "server-info",
    "start-server",
    "start",
    "select-window",
    "selectw",
    "select-pane",
    "selectp",
    "rename-window",
    "renamew",
    "rename-session",
    "rename",
    "resize-pane",
    "resizep",
];
/// tmux's commands that start a command of their own, which the analysis reads (its table's
/// `command` operands).
const TMUX_STARTS: &[&str] = &[
    "new-session",
    "new",
    "new-window",
    "neww",
    "split-window",
    "splitw",
];
/// tmux's options before its command that take a value.
const TMUX_VALUED: &str = "LSfcT";

impl Effects<'_, '_> {
    /// A database shell's own commands that run a program on this machine, in the text it is
    /// given on the command line or in a here-document: sqlite3's and duckdb's `.shell`,
    /// `.system`, `.load` (an extension is code) and a `|command` as the file of `.once`,
    /// `.output`, `.read` or `.import`; psql's `\!`, `\o |command` (and `\g`, `\w`) and `\copy …
    /// program`; mysql's `system` and `\!`. The SQL around them is the verb tables' to judge;
    /// a script read from a file is that file's code.
    pub(super) fn database_shell(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let escape: fn(&str) -> bool = match program {
            "sqlite3" | "sqlite" | "duckdb" | "litecli" => {
                if cmd.argv.iter().any(|w| w.value == "-safe") {
                    return;
                }
                sqlite_escape
            }
            "psql" | "pgcli" => psql_escape,
            "mysql" | "mariadb" | "mycli" => mysql_escape,
            _ => return,
        };
        // Here-strings hold their text as the target; here-documents as the body.
        let here = cmd.redirects.iter().filter_map(|r| match r.op {
            crate::command::RedirectOp::HereString => Some(r.target.value.as_str()),
            _ => r.body.as_deref(),
        });
        let found = cmd
            .argv
            .iter()
            .skip(1)
            .map(|w| w.value.as_str())
            .chain(here)
            .find(|t| escape(t));
        if let Some(t) = found {
            let text: String = t.trim().chars().take(40).collect();
            self.push(
                Kind::RunCode,
                format!("`{program}` is told to run a program on this machine (`{text}`)"),
                None,
            );
        }
    }

    /// tmux told to type into a terminal or run a command there (`send-keys`, `run-shell`,
    /// `if-shell`, `pipe-pane`, `source-file`, a hook or a key bound, a buffer pasted, a format
    /// with `#(…)`): what runs is decided by that terminal's state (a shell with its own folder
    /// and aliases, an editor, a session on another machine), which this command line does not
    /// show. Every tmux command but those that only look, and those that start a command the
    /// analysis reads, is so; a command spelled otherwise (an abbreviation) too.
    pub(super) fn multiplexer(&mut self, cmd: &SimpleCommand) {
        if cmd.program() != "tmux" {
            return;
        }
        let mut words = cmd.argv.iter().skip(1).map(|w| w.value.as_str());
        let mut next_is_command = true;
        while let Some(w) = words.next() {
            if next_is_command {
                if let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) {
                    // `-f FILE`: the tmux commands a file holds, `run-shell` among them.
                    if flags.chars().find(|c| TMUX_VALUED.contains(*c)) == Some('f') {
                        self.push(
                            Kind::RunCode,
                            "`tmux -f` runs the tmux commands a file holds".into(),
                            None,
                        );
                        return;
                    }
                    // `-L name`, `-Lname`: the value is the next word unless attached.
                    let valued = flags.chars().position(|c| TMUX_VALUED.contains(c));
                    if valued.is_some_and(|i| i + 1 == flags.len()) {
                        words.next();
                    }
                    continue;
                }
                next_is_command = false;
                if !TMUX_LOOKS.contains(&w) && !TMUX_STARTS.contains(&w) {
                    self.push(
                        Kind::RunCode,
                        format!(
                            "`tmux {w}` acts in terminals this command line does not show (it \
                             may type into them or run commands there)"
                        ),
                        None,
                    );
                    return;
                }
            } else if w == ";" || w.ends_with(';') {
                // `tmux ls \; run-shell …`: another command follows.
                next_is_command = true;
            }
        }
    }

    /// A program or script of the project's run by its path (`./x`, `bin/dev-check`, `python3
    /// tool`, `bash ci/check`, `. ./env.sh`): it runs the project's code, as a build or a test does. A script
    /// whose name is computed when it runs, or one outside the project, runs code nobody read.
    pub(super) fn runs_script(&mut self, cmd: &SimpleCommand) {
        const SHELLS: [&str; 7] = ["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"];
        let Some(first) = cmd.argv.first() else {
            return;
        };
        let program = cmd.program();
        let by_path = first.value.contains('/')
            && !crate::knowledge::read_otherwise(program)
            && crate::knowledge::verbs::table(program).is_none();
        let script = if by_path {
            Some(first.clone())
        } else if SHELLS.contains(&program) {
            shell_script(cmd)
        } else if matches!(program, "source" | ".") {
            // The file runs in the shell itself (`. ./env.sh`, `source venv/bin/activate`).
            cmd.argv.get(1).filter(|w| w.value != "--").cloned()
        } else {
            crate::knowledge::interp::interpreter_script(cmd)
        };
        let Some(script) = script else {
            return;
        };
        let shown = &script.value;
        if script.dynamic {
            self.push(
                Kind::RunCode,
                format!("runs a script whose name is computed when it runs (`{shown}`)"),
                None,
            );
            return;
        }
        let raw = script.path.as_deref().unwrap_or(shown);
        let at = (self.places.resolve)(raw);
        let inside = !raw.starts_with('~') && at.starts_with(self.places.cwd);
        if inside {
            self.push(
                Kind::RunProject,
                format!("runs the project's own code (`{shown}`)"),
                None,
            );
        } else if !by_path {
            self.push(
                Kind::RunCode,
                format!("runs a script outside the project (`{shown}`)"),
                None,
            );
        }
    }
    /// Running a file written or downloaded earlier in the line; fetch-and-run tools.
    /// Running a file written or downloaded earlier in the line.
    pub(super) fn runs_earlier_file(
        &mut self,
        cmd: &SimpleCommand,
        reading: &crate::knowledge::Reading,
        line: &Line,
    ) {
        if line.written.is_empty()
            && !line.unnamed_download
            && !line.unpacked
            && line.entered.is_none()
        {
            return;
        }
        // A build file written earlier in the line, then the build run (`printf … > Makefile
        // && make`): the build runs what was written.
        let class = reading.verbs(cmd).map(|r| r.class);
        let build = class == Some(crate::knowledge::verbs::Class::Run);
        // A build or an install run where a clone or a download of the line put its files
        // (`git clone URL r && cd r && make`, `make -C r`, `npm install` there) runs what came
        // from the network: its build files, its install scripts.
        let builds =
            build || class == Some(crate::knowledge::verbs::Class::Install) || is_build_script(cmd);
        if builds {
            let names_folder = |q: &std::path::Path| {
                self.places.cwd.starts_with(q)
                    || cmd.argv.iter().skip(1).any(|w| {
                        w.path.as_deref().is_some_and(|p| {
                            let p = p.split_once('=').map_or(p, |(_, v)| v);
                            (self.places.resolve)(p).starts_with(q)
                        })
                    })
            };
            let fetched = line.entered.as_ref().or_else(|| {
                line.written
                    .iter()
                    .find(|(q, fetched)| *fetched && names_folder(q))
                    .map(|(q, _)| q)
            });
            if let Some(q) = fetched {
                let shown = self.show(q);
                self.push(
                    Kind::RunRemoteCode,
                    format!("builds or installs {shown}, downloaded earlier in the line"),
                    None,
                );
            } else if line.unpacked || line.unnamed_download {
                self.push(
                    Kind::RunCode,
                    "builds or installs what a download or an archive earlier in the line may \
                     have written"
                        .into(),
                    None,
                );
            }
        }
        if builds {
            if let Some((p, _)) = line.written.iter().find(|(p, _)| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| BUILD_FILES.contains(&n))
            }) {
                let shown = self.show(p);
                self.push(
                    Kind::RunCode,
                    format!("runs the build file {shown}, written earlier in the line"),
                    None,
                );
            }
        }
        if let Some(w) = run_target(cmd) {
            // A program is run as written (`xargs of=/dev/sda` runs the file `of=/dev/sda`).
            if let Some(p) = w.clone().as_written().path {
                let resolved = (self.places.resolve)(&p);
                // The file itself, or one inside a folder written earlier (a clone's).
                let fetched = line
                    .written
                    .iter()
                    .find(|(q, _)| resolved.starts_with(q))
                    .map(|(_, f)| *f);
                let relative = !p.starts_with('/') && !p.starts_with('~');
                // After `cd` into a clone's folder, a relative file is one of the clone's.
                let fetched = fetched.or((relative && line.entered.is_some()).then_some(true));
                match fetched {
                    Some(true) => self.push(
                        Kind::RunRemoteCode,
                        format!("runs {}, downloaded earlier in the line", w.value),
                        None,
                    ),
                    Some(false) => self.push(
                        Kind::RunCode,
                        format!("runs {}, written earlier in the line", w.value),
                        None,
                    ),
                    None if line.unnamed_download && relative => self.push(
                        Kind::RunRemoteCode,
                        format!(
                            "runs {}, which a download earlier in the line may have written",
                            w.value
                        ),
                        None,
                    ),
                    None if line.unpacked && relative => self.push(
                        Kind::RunCode,
                        format!(
                            "runs {}, which an archive unpacked earlier in the line may hold",
                            w.value
                        ),
                        None,
                    ),
                    None => {}
                }
            }
        }
    }

    /// Fetch-and-run tools, privileged containers, text run as commands.
    pub(super) fn code(&mut self, cmd: &SimpleCommand) {
        let pos = positional(cmd);
        if self.fetch_and_run(cmd, &pos) {
            return;
        }
        if let Some(pkg) = runs_fetched_package(cmd, &pos) {
            self.push(
                Kind::RunRemoteCode,
                format!("fetches {pkg} and runs it"),
                None,
            );
        }
        if let Some(d) = docker_privilege(cmd, self.places) {
            self.push(Kind::Privilege, d, None);
        }
        if let Some(d) = runs_text_as_code(cmd) {
            self.push(Kind::RunCode, d, None);
        }
    }

    /// A tool the data lists as fetching a package and running it (`npx x`, `npm exec x`),
    /// unless an option keeps it to what is installed; whether it was one.
    fn fetch_and_run(&mut self, cmd: &SimpleCommand, pos: &[&str]) -> bool {
        let remote = &data().remote;
        let program = cmd.program();
        let local_only = cmd
            .argv
            .iter()
            .any(|w| remote.local_only.contains(&w.value.as_str()));
        // A well-known dev tool (`npx tsc`, `npx jest`) runs as itself: a project's own.
        let well_known = |pkg: Option<&str>| {
            pkg.is_some_and(|p| crate::knowledge::verbs::well_known_runner(p).is_some())
        };
        // The well-known tool runs with its words: read by its own table (`npx prisma migrate
        // reset --force` destroys a database).
        let run_as_itself = |this: &mut Self, pkg: Option<&str>| {
            let (Some(pkg), Some(name)) = (
                pkg,
                pkg.and_then(crate::knowledge::verbs::well_known_runner),
            ) else {
                return;
            };
            if let Some(at) = cmd.argv.iter().skip(1).position(|w| w.value == pkg) {
                let mut inner = cmd.clone();
                inner.argv = cmd.argv[at + 1..].to_vec();
                if let Some(first) = inner.argv.first_mut() {
                    first.value = name.to_string();
                    first.path = Some(name.to_string());
                }
                this.verbs(&inner, &crate::knowledge::Reading::of(&inner));
            }
        };
        if is(program, FETCH_RUN) && !local_only && well_known(pos.first().copied()) {
            run_as_itself(self, pos.first().copied());
        }
        if is(program, FETCH_RUN) && !local_only && !well_known(pos.first().copied()) {
            let pkg = pos.first().copied().unwrap_or("a package");
            self.push(
                Kind::RunRemoteCode,
                format!("fetches {pkg} from the registry and runs it"),
                None,
            );
            return true;
        }
        let verbs = fetch_and_run_verbs(program);
        if let Some(v) = verb_match(pos, &verbs).filter(|_| !local_only) {
            let pkg = pos.get(v.split_whitespace().count()).copied();
            if well_known(pkg) {
                run_as_itself(self, pkg);
                return true;
            }
            self.push(
                Kind::RunRemoteCode,
                format!("fetches {} and runs it", pkg.unwrap_or("a package")),
                None,
            );
            return true;
        }
        false
    }
}

/// The data's fetch-and-run verbs of `program` (`exec` of `npm exec`).
fn fetch_and_run_verbs(program: &str) -> Vec<&'static str> {
    data()
        .remote
        .fetch_and_run_verbs
        .iter()
        .filter_map(|v| v.strip_prefix(program)?.strip_prefix(' '))
        .collect()
}

/// The package a toolchain fetches to run it: `go run x@v1`, `deno run https://…`, `uv run
/// --with x`, `nix-shell -p x`.
fn runs_fetched_package<'c>(cmd: &'c SimpleCommand, pos: &[&'c str]) -> Option<&'c str> {
    match (cmd.program(), pos) {
        ("go", ["run", rest @ ..]) => rest.iter().find(|w| w.contains('@')).copied(),
        ("deno", ["run", rest @ ..]) => rest.iter().find(|w| w.contains("://")).copied(),
        ("uv", ["run", ..]) => option_value(
            &cmd.argv
                .iter()
                .map(|w| w.value.as_str())
                .collect::<Vec<_>>(),
            &["--with"],
        ),
        ("nix-shell", _) if cmd.argv.iter().any(|w| w.value == "-p") => pos.first().copied(),
        _ => None,
    }
}

/// The file a command runs as a program or script: `./x.sh`, `sh x.sh`, `source x.sh`,
/// `python3 x.py`.
/// The files a build tool reads its recipes from.
const BUILD_FILES: [&str; 22] = [
    "Makefile",
    "makefile",
    "GNUmakefile",
    "package.json",
    "Cargo.toml",
    "build.rs",
    "setup.py",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "noxfile.py",
    "CMakeLists.txt",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "pom.xml",
    "Rakefile",
    "justfile",
    "Taskfile.yml",
    "meson.build",
    "conftest.py",
    "Gemfile",
];

fn run_target(cmd: &SimpleCommand) -> Option<&Word> {
    let first = cmd.argv.first()?;
    if first.value.contains('/') {
        return Some(first);
    }
    let program = cmd.program();
    let runners = [
        "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "source", ".", "python", "python3",
        "perl", "ruby", "node", "php", "deno", "bun", "make",
    ];
    if !runners.contains(&program) && !program.starts_with("python") {
        return None;
    }
    if program == "make" {
        let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
        let file = option_value(&argv, &["-f", "--file", "--makefile"])?;
        return cmd.argv.iter().find(|w| w.value == file);
    }
    cmd.argv.iter().skip(1).find(|w| !w.value.starts_with('-'))
}

/// `./configure`, `./bootstrap.sh`, `./autogen.sh`, `./install.sh`: a project's build scripts.
fn is_build_script(cmd: &SimpleCommand) -> bool {
    cmd.argv.first().is_some_and(|w| {
        let name = w.value.rsplit('/').next().unwrap_or(&w.value);
        w.value.contains('/')
            && matches!(
                name,
                "configure"
                    | "bootstrap"
                    | "bootstrap.sh"
                    | "autogen.sh"
                    | "install.sh"
                    | "build.sh"
            )
    })
}

/// Programs that run text they are given as commands the analysis does not read: `xargs sh
/// -c` (the code is the piped text), `parallel ::: CMD`, an editor's `-c '!cmd'`.
fn runs_text_as_code(cmd: &SimpleCommand) -> Option<String> {
    let program = cmd.program();
    let editor = matches!(
        program,
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" | "rvim"
    );
    if !editor && program != "xargs" && program != "parallel" {
        return None;
    }
    let words: Vec<&str> = cmd.argv.iter().skip(1).map(|w| w.value.as_str()).collect();
    const SHELLS: [&str; 7] = ["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"];
    if program == "xargs" && words.last() == Some(&"-c") {
        let shell = words
            .iter()
            .rev()
            .nth(1)
            .map(|w| w.rsplit('/').next().unwrap_or(w));
        if shell.is_some_and(|s| SHELLS.contains(&s)) {
            return Some("xargs hands its input to a shell as code".into());
        }
    }
    if program == "parallel" {
        let first = words
            .iter()
            .find(|w| !w.starts_with('-') || w.starts_with(":::"));
        if first.is_some_and(|w| w.starts_with(":::")) {
            return Some("parallel runs its arguments as commands".into());
        }
    }
    if editor {
        const RUNS: [&str; 12] = [
            "!", "system", "call", "source", "so ", "py", "lua", "perl", "ruby", "exe", "terminal",
            "term",
        ];
        for (i, w) in words.iter().enumerate() {
            let command = match *w {
                "-c" | "--cmd" | "-S" => words.get(i + 1).copied(),
                w if w.starts_with('+') && !w[1..].chars().all(|c| c.is_ascii_digit()) => {
                    Some(&w[1..])
                }
                _ => None,
            };
            if let Some(c) = command {
                if *w == "-S" || RUNS.iter().any(|r| c.trim_start_matches(':').contains(r)) {
                    return Some(format!("{program} runs the command `{}`", short(c)));
                }
            }
        }
    }
    None
}

/// `docker run --privileged`, host namespaces, capabilities, `/` or home mounted.
fn docker_privilege(cmd: &SimpleCommand, places: &Places) -> Option<String> {
    if !matches!(cmd.program(), "docker" | "podman" | "nerdctl") {
        return None;
    }
    let pos = positional(cmd);
    if !matches!(pos.first(), Some(&"run" | &"create" | &"exec"))
        && pos.get(..2) != Some(&["container", "run"])
    {
        return None;
    }
    let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    for (i, w) in argv.iter().enumerate() {
        if *w == "--privileged" || w.starts_with("--cap-add") || w.starts_with("--security-opt") {
            return Some(format!("runs a container with `{w}`"));
        }
        for ns in ["--pid", "--net", "--network", "--userns", "--ipc", "--uts"] {
            if w.strip_prefix(ns).is_some_and(|r| r == "=host")
                || (*w == ns && argv.get(i + 1) == Some(&"host"))
            {
                return Some(format!(
                    "runs a container in the host's {} namespace",
                    &ns[2..]
                ));
            }
        }
        let mount = match *w {
            "-v" | "--volume" | "--mount" => argv.get(i + 1).copied(),
            _ => w
                .strip_prefix("--volume=")
                .or_else(|| w.strip_prefix("--mount="))
                .or_else(|| w.strip_prefix("-v").filter(|r| !r.is_empty())),
        };
        let Some(mount) = mount else { continue };
        let source = if mount.contains("source=") || mount.contains("src=") {
            mount
                .split(',')
                .find_map(|kv| {
                    kv.strip_prefix("source=")
                        .or_else(|| kv.strip_prefix("src="))
                })
                .unwrap_or("")
        } else {
            mount.split(':').next().unwrap_or("")
        };
        if source.is_empty() {
            continue;
        }
        let resolved = (places.resolve)(source);
        let wide = resolved == Path::new("/")
            || places.home.is_some_and(|h| h.starts_with(&resolved))
            || resolved.starts_with("/etc")
            || resolved.starts_with("/var/run/docker.sock")
            || resolved.starts_with("/run/docker.sock");
        if wide {
            return Some(format!("gives a container the host's {source}"));
        }
    }
    None
}

/// The script a shell runs from a file (`bash ci/check -x`): its first operand after the
/// options; `None` when it runs a string (`-c`) or its standard input (`-s`, no operand).
fn shell_script(cmd: &SimpleCommand) -> Option<Word> {
    let mut words = cmd.argv.iter().skip(1);
    while let Some(w) = words.next() {
        let v = w.value.as_str();
        if v == "--" {
            return words.next().cloned();
        }
        if v.starts_with("--") {
            continue;
        }
        if let Some(flags) = v.strip_prefix(['-', '+']).filter(|f| !f.is_empty()) {
            if flags.contains(['c', 's']) && v.starts_with('-') {
                return None;
            }
            // `-o pipefail`, `-O extglob`: an option name follows.
            if flags.ends_with(['o', 'O']) {
                words.next();
            }
            continue;
        }
        return Some(w.clone());
    }
    None
}

/// The statements of a database shell's text: its lines, and what `;` separates.
fn statements(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\n', ';']).map(str::trim)
}

/// A sqlite3 or duckdb dot-command that runs a program (see [`Effects::database_shell`]).
fn sqlite_escape(text: &str) -> bool {
    statements(text).any(|s| {
        let Some(rest) = s.strip_prefix('.') else {
            return false;
        };
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let name = name.to_ascii_lowercase();
        // `.once '|cmd'`, `.output |cmd`; `.once -e` and `-x` open the system's editor or
        // spreadsheet program, as `.excel` does.
        let opens = args.split_whitespace().any(|a| {
            let a = a.trim_start_matches(['\'', '"']);
            a.starts_with('|') || a == "-e" || a == "-x"
        });
        matches!(name.as_str(), "shell" | "system" | "sh" | "load" | "excel")
            || (matches!(name.as_str(), "once" | "output" | "read" | "import") && opens)
    })
}

/// A psql meta-command that runs a program (see [`Effects::database_shell`]).
fn psql_escape(text: &str) -> bool {
    if text.contains("\\!") {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    if lower.contains("\\copy") && lower.split_whitespace().any(|w| w == "program") {
        return true;
    }
    // `\o |cmd`, `\g|cmd`, `\w |cmd`: a command as the output (or the written file).
    lower.match_indices('\\').any(|(i, _)| {
        let rest = &lower[i + 1..];
        let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        matches!(name.as_str(), "o" | "out" | "g" | "gx" | "w" | "write")
            && rest[name.len()..].trim_start().starts_with('|')
    })
}

/// A mysql client command that runs a program (see [`Effects::database_shell`]).
fn mysql_escape(text: &str) -> bool {
    statements(text).any(|s| {
        let lower = s.to_ascii_lowercase();
        lower.starts_with("\\!") || lower.starts_with("system ") || lower == "system"
    })
}
