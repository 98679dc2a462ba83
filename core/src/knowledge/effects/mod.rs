//! The effects model: what one simple command does beyond reading, in a closed set of named
//! effects with their targets (`sends .env to paste.example`, `writes ~/.bashrc`). The
//! built-in policy gives risk by effect; policies match effects with `effect "…"`; `explain`,
//! the dialog and the hook's reason print them.
//!
//! The lists (persistence paths, the verbs of cloud and cluster tools, installers, database
//! statements, network programs) are data in `policies/programs/effects.toml`; this module
//! reads commands with them. Whatever a command's program is not known to do is not reported
//! here: the default decides it, and an allow still needs the read-only proof.
//!
//! One file per job: [`Kind`] and [`Found`] name the effects; `data` reads the data and `model`
//! compiles it; [`Line`] carries what earlier commands of a line did; `places` tells where a
//! path is and `files` what writing or deleting it means (`targets` finds the words naming
//! those files); one reader per family of programs (`network`, `fetch`, `code`, `packages`,
//! `infra`, `system`, `git`, `interpreter`) adds what its programs do.

mod code;
mod data;
mod fetch;
mod files;
mod git;
mod infra;
mod interpreter;
mod kind;
mod line;
mod model;
mod network;
mod opts;
mod packages;
mod places;
mod system;
pub mod targets;
mod verbs;
mod words;

pub(crate) use git::ext_url as git_ext_url;
pub use kind::{Found, Kind};
pub use line::Line;
pub use network::url_host;
pub use places::Places;
pub use targets::{deletes_of, writes_of, Written};

use std::path::Path;

use self::data::data;
use self::fetch::fetcher_values;
use self::model::model;
use self::opts::Opts;
use self::packages::unversioned;
use self::words::positional;
use crate::command::SimpleCommand;
use crate::knowledge::interp::interpreter_code;
use crate::knowledge::Reading;

/// Commands that exercise the effects data, by program: each verb of the process, infrastructure
/// and installer lists (`cargo yank x`, `npm unpublish x`), each installer verb with each of its
/// program's extra sources (`cargo install --git https://example.com/x`), and the fetch-and-run
/// verbs. `lint` decides them to find the allow rules that let such a command through.
pub fn probes() -> Vec<(&'static str, String)> {
    let d = data();
    let mut out = Vec::new();
    let mut verb_probes = |lists: &std::collections::BTreeMap<&'static str, Vec<&'static str>>| {
        for (program, verbs) in lists {
            for v in verbs {
                out.push((*program, format!("{program} {} some-name", probe_words(v))));
            }
        }
    };
    verb_probes(&d.process.verbs);
    verb_probes(&d.infra.verbs);
    verb_probes(&d.install.verbs);
    for (program, options) in &d.remote.extra_sources {
        let verbs = d
            .install
            .verbs
            .get(program)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for o in options {
            out.push((*program, format!("{program} {o} https://example.com/x")));
            for v in verbs {
                out.push((
                    *program,
                    format!("{program} {} {o} https://example.com/x", probe_words(v)),
                ));
            }
        }
    }
    for v in &d.remote.fetch_and_run_verbs {
        let program = v.split_whitespace().next().unwrap_or(v);
        out.push((program, format!("{v} some-package")));
    }
    for program in &d.remote.fetch_and_run {
        out.push((*program, format!("{program} some-package")));
    }
    out
}

/// A verb pattern's words as a command would spell them: `*` (any one word) as a plain word,
/// a word's trailing `*` (`-S*`) left off.
pub(crate) fn probe_words(pattern: &str) -> String {
    pattern
        .split_whitespace()
        .map(|w| match w {
            "*" => "some-name",
            w => w.trim_end_matches('*'),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The effects of one simple command.
pub fn of(cmd: &SimpleCommand, reading: &Reading, places: &Places, line: &Line) -> Vec<Found> {
    let mut out = Effects {
        found: Vec::new(),
        places,
    };
    let Some(first) = cmd.argv.first() else {
        out.redirects(cmd);
        out.code_variables(cmd);
        return out.found;
    };
    if first.dynamic {
        return out.found;
    }
    out.redirects(cmd);
    out.files(cmd, reading);
    out.archives(cmd);
    out.multiplexer(cmd);
    out.database_shell(cmd);
    out.runs_earlier_file(cmd, reading, line);
    out.fed_to_remote(cmd);
    out.remote_shell(cmd);
    out.code_variables(cmd);
    out.sed_script(cmd);
    out.unread_code(cmd);
    // Most commands run a program the data does not name: only their files count.
    let program = cmd.program();
    let m = model();
    // An interpreter's code, read once for the server and the one-liner checks.
    let code = interpreter_code(cmd);
    if m.programs.contains(program) || m.programs.contains(unversioned(program)) || code.is_some() {
        out.network(cmd, code.as_ref());
        out.code(cmd);
        out.packages(cmd);
        out.system(cmd);
        out.git(cmd, reading, line);
        out.interpreter(code.as_ref());
    }
    if let Some(what) = reading.prints(cmd) {
        out.push(Kind::RevealSecret, format!("prints {what}"), None);
    }
    out.verbs(cmd, reading);
    if !out
        .found
        .iter()
        .any(|f| matches!(f.kind, Kind::RunRemoteCode | Kind::RunCode))
    {
        out.runs_script(cmd);
    }
    if let Some(how) = dry_run(cmd) {
        // A dry run changes nothing: what it would send, change or delete becomes a look.
        let before = out.found.len();
        out.found.retain(|f| !DRY_RUN_KINDS.contains(&f.kind));
        if out.found.len() < before {
            out.push(
                Kind::NetworkFetch,
                format!("a dry run (`{how}`): it only shows what it would do"),
                None,
            );
        }
    }
    out.found.sort_by_key(|f| f.kind);
    out.found.dedup();
    out.found
}

/// What a dry run leaves undone.
const DRY_RUN_KINDS: [Kind; 8] = [
    Kind::WriteOutside,
    Kind::NetworkUpload,
    Kind::RemoteChange,
    Kind::InfraChange,
    Kind::Destroy,
    Kind::Delete,
    Kind::DeleteOutside,
    Kind::DeleteHistory,
];

/// Options that take no value, which a dry-run option may follow.
const NO_VALUE: [&str; 16] = [
    "--delete",
    "--delete-after",
    "--delete-before",
    "--delete-excluded",
    "--recursive",
    "--force",
    "--all",
    "--verbose",
    "--yes",
    "--quiet",
    "--diff",
    "--install",
    "--wait",
    "--archive",
    "-v",
    "-q",
];

/// The dry-run option of a program known to honour it, as given (`--dry-run=client`, `-avn`),
/// before any `--`. `--dry-run=none` (kubectl's default) is none; short `-n` counts only where
/// it means a dry run (rsync, rclone, git's clean, push, add, rm and mv).
fn dry_run(cmd: &SimpleCommand) -> Option<String> {
    let program = unversioned(cmd.program());
    let long: &[&str] = match program {
        "kubectl" | "oc" | "helm" | "kustomize" | "flux" | "argocd" | "kubeadm" | "npm"
        | "pnpm" | "yarn" | "cargo" | "git" | "rsync" | "rclone" | "gem" | "twine" | "poetry"
        | "uv" | "apt-get" | "apt" | "dnf" | "yum" | "brew" | "restic" | "borg" | "s3cmd"
        | "mc" => &["--dry-run"],
        "aws" => &["--dryrun", "--dry-run"],
        "ansible" | "ansible-playbook" => &["--check", "-C"],
        "pulumi" => &["--preview-only"],
        _ => return None,
    };
    let sub = positional(cmd).first().copied().unwrap_or("");
    // The letters a cluster holding `-n` may have beside it: options that take no value (in
    // `git clean -fen`, `n` is the value of `-e`).
    let short_n = match (program, sub) {
        ("rsync", _) => "avnrlptgoDzhPHSAXWcuiqRCxIOJmyE",
        ("rclone", _) => "nvPiq",
        ("git", "clean") => "fdxXnq",
        ("git", "push") => "fnvqu",
        ("git", "add" | "rm" | "mv") => "nvfrkqAN",
        _ => "",
    };
    let words: Vec<&crate::command::Word> = cmd
        .argv
        .iter()
        .skip(1)
        .take_while(|w| w.value != "--")
        .collect();
    // A cluster of options that take no value (`-av` of rsync).
    let flags_only = |v: &str| {
        v.starts_with('-')
            && !v.starts_with("--")
            && v.len() > 1
            && !short_n.is_empty()
            && v[1..].chars().all(|c| short_n.contains(c))
    };
    // The word before may not be an option that takes it as its value (`kubectl delete … -l
    // --dry-run`, `git clean -e -n`): an operand, an option with its value after `=`, one of
    // the flags below, or a cluster of flags only.
    let free = |i: usize| {
        let Some(prev) = i.checked_sub(1).and_then(|j| words.get(j)) else {
            return true;
        };
        let p = prev.value.as_str();
        !p.starts_with('-') || p.contains('=') || flags_only(p) || NO_VALUE.contains(&p)
    };
    for (i, w) in words.iter().enumerate() {
        if w.dynamic || !free(i) {
            continue;
        }
        let v = w.value.as_str();
        let (name, value) = v.split_once('=').map_or((v, None), |(n, x)| (n, Some(x)));
        if long.contains(&name) && !value.is_some_and(|x| matches!(x, "none" | "false" | "0")) {
            return Some(v.to_string());
        }
        if flags_only(v) && short_n.contains('n') && v.contains('n') {
            return Some(v.to_string());
        }
    }
    None
}

/// Whether deleting `path` (resolved) loses nothing a build or a rerun does not make again: it
/// is below the working folder `cwd` inside a build output or cache (`target/`,
/// `node_modules/`), or inside a temporary folder (never the folder itself, nor the home
/// folder `home` when it is in one). `spelled` is the
/// word as written: `$TMPDIR/x` is inside the temporary folder whatever its value.
pub fn disposable(path: &Path, spelled: &str, cwd: &Path, home: Option<&Path>) -> bool {
    let d = &data().disposable;
    // `${TMPDIR:-/tmp}/x` too: its default is a temporary folder. The rest must be known:
    // `$TMPDIR/$X` may be `$TMPDIR/../home`.
    let tmpdir = [
        "$TMPDIR/",
        "${TMPDIR}/",
        "${TMPDIR:-/tmp}/",
        "${TMPDIR-/tmp}/",
        "${TMPDIR:-/var/tmp}/",
    ]
    .iter()
    .any(|t| {
        spelled.strip_prefix(t).is_some_and(|rest| {
            !rest.is_empty() && !rest.contains(['$', '`']) && !rest.split('/').any(|p| p == "..")
        })
    });
    if tmpdir {
        return true;
    }
    if path
        .components()
        .any(|c| c == std::path::Component::ParentDir)
    {
        return false;
    }
    // A project, or the home folder, may itself be in a temporary folder: what is in them is
    // theirs.
    let Ok(rest) = path.strip_prefix(cwd) else {
        return home.is_none_or(|h| !path.starts_with(h))
            && d.temp
                .iter()
                .any(|t| path.starts_with(t) && path != Path::new(t));
    };
    let rest = rest.to_string_lossy();
    !rest.is_empty() && d.folders.iter().any(|f| names_folder(&rest, f))
}

/// Whether `folder` (`target`, `bin/Debug`) is whole parts of the relative path `rest`: all of
/// it, its start, its end or its middle, between `/`s.
fn names_folder(rest: &str, folder: &str) -> bool {
    !folder.is_empty()
        && rest.match_indices(folder).any(|(at, _)| {
            let end = at + folder.len();
            (at == 0 || rest.as_bytes()[at - 1] == b'/')
                && (end == rest.len() || rest.as_bytes()[end] == b'/')
        })
}

/// Whether the effects model's data names `program` (network programs, schedulers, process
/// and service managers, privilege tools, installers, databases, …): it reads what they do.
pub fn knows(program: &str) -> bool {
    let m = model();
    m.programs.contains(program) || m.programs.contains(unversioned(program))
}

/// Whether the effects model vouches that [`of`] tells everything the command does, so that
/// an allow rule may rely on its effects: a command that only reads (by the program
/// knowledge), or a fetch by curl or wget with options the model reads completely. Any other
/// command may do more than its effects say (a program it does not know, an option it does
/// not read), so no allow rule about effects matches it.
pub fn vouched(cmd: &SimpleCommand, reading: &Reading) -> bool {
    crate::knowledge::reads_only_as(cmd, reading) || vouched_fetch(cmd)
}

/// The fetch half of [`vouched`]: curl or wget, named literally, with only options the model
/// reads completely (an abbreviation is not one of them).
pub fn vouched_fetch(cmd: &SimpleCommand) -> bool {
    let program = cmd.program();
    let known = match program {
        "curl" => &data().network.curl_known,
        "wget" => &data().network.wget_known,
        _ => return false,
    };
    let first_static = cmd
        .argv
        .first()
        .is_some_and(|w| !w.dynamic && !w.value.contains('/'));
    let opts = Opts::of(cmd, fetcher_values(program));
    first_static
        && cmd.assignments.is_empty()
        && opts
            .given
            .iter()
            .all(|(name, _)| known.iter().any(|k| k == name))
}

/// The effects of a file tool's call on `path` (already resolved).
pub fn of_file(tool: &str, path: &Path, places: &Places) -> Vec<Found> {
    let mut out = Effects {
        found: Vec::new(),
        places,
    };
    let shown = out.show(path);
    match tool {
        "read_file" | "list_dir" => out.push(Kind::Read, format!("reads {shown}"), None),
        "write_file" | "edit_file" => out.write(path, &shown),
        _ => {}
    }
    out.found
}

/// The effects found so far, and where the command runs.
struct Effects<'p, 'a> {
    found: Vec<Found>,
    places: &'p Places<'a>,
}

impl Effects<'_, '_> {
    fn push(&mut self, kind: Kind, detail: String, host: Option<String>) {
        self.found.push(Found { kind, detail, host });
    }

    /// Variables a program runs as code, given before it (`GIT_EXTERNAL_DIFF='sh -c …' git
    /// diff`, `LD_PRELOAD=x.so ls`, `PS4='$(…)' bash -x`): the command runs what they hold.
    fn code_variables(&mut self, cmd: &SimpleCommand) {
        // A start-up file for shells matters to a command that may start one: not to a
        // program whose table lists everything it does and that only reads (`ls`).
        let no_shell = || {
            !crate::knowledge::runs_other_code(cmd.program())
                && crate::knowledge::registry()
                    .entry(cmd.program())
                    .is_some_and(|t| t.grammar && t.readonly)
        };
        let is_code = crate::knowledge::state::runs_code;
        // Set for the commands after it (`export PAGER=…; git log`, `LD_PRELOAD=x.so; ls`: a
        // variable the environment already exports keeps being exported when assigned).
        let declares = matches!(
            cmd.program(),
            "export" | "declare" | "typeset" | "local" | "readonly"
        );
        if cmd.argv.is_empty() || declares {
            let set = cmd.assignments.iter().map(String::as_str).chain(
                cmd.argv
                    .iter()
                    .skip(1)
                    .filter(|_| declares)
                    .map(|w| w.value.as_str()),
            );
            for a in set {
                let Some((name, _)) = a.split_once('=') else {
                    continue;
                };
                let name = name.trim_end_matches('+');
                if is_code(name) {
                    self.push(
                        Kind::RunCode,
                        format!("`{name}` makes the commands after it run code it holds (`{a}`)"),
                        None,
                    );
                }
            }
            return;
        }
        for a in &cmd.assignments {
            let name = a.split('=').next().unwrap_or(a);
            if matches!(name, "BASH_ENV" | "ENV") && no_shell() {
                continue;
            }
            if is_code(name) {
                self.push(
                    Kind::RunCode,
                    format!("`{name}` makes it run code it holds (`{a}`)"),
                    None,
                );
            }
        }
    }

    /// Interpreters whose code the analysis does not read (`lua -e …`, `Rscript -e …`,
    /// `osascript -e …`): code given on the command line runs unread; a script file is the
    /// project's own code.
    fn unread_code(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let unread = crate::knowledge::traits(program)
            .is_some_and(|t| t.runs_code && crate::knowledge::registry().get(program).is_none())
            && !matches!(program, "npx" | "bunx" | "pnpx" | "uvx");
        if !unread {
            return;
        }
        let inline = cmd.argv.iter().skip(1).any(|w| {
            let v = w.value.as_str();
            matches!(v, "-e" | "-c" | "-i" | "--eval" | "-E" | "-l")
                || v.starts_with("-e")
                || cmd.piped
        });
        if inline || cmd.argv.len() == 1 {
            self.push(
                Kind::RunCode,
                format!("runs {program} code the analysis does not read"),
                None,
            );
        } else {
            self.push(Kind::RunProject, format!("runs a {program} script"), None);
        }
    }

    /// What a sed script does beyond printing: `w FILE` writes, `r FILE` reads, `e` runs a
    /// command (also as the `s///w` and `s///e` flags).
    fn sed_script(&mut self, cmd: &SimpleCommand) {
        if matches!(
            cmd.program(),
            "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk"
        ) {
            let program = crate::knowledge::sed::awk_program(cmd).unwrap_or_default();
            for target in crate::knowledge::sed::awk_writes(program) {
                match target {
                    Some(f) => self.write_text(&f),
                    None => self.push(
                        Kind::WriteOutside,
                        "its program writes a file named when it runs".into(),
                        None,
                    ),
                }
            }
            return;
        }
        if cmd.program() != "sed" {
            return;
        }
        for io in crate::knowledge::sed_io(cmd) {
            match io {
                crate::knowledge::SedIo::Write(f) => self.write_text(&f),
                crate::knowledge::SedIo::Read(f) => {
                    let resolved = (self.places.resolve)(&f);
                    let shown = self.show(&resolved);
                    self.push(Kind::Read, format!("reads {shown}"), None);
                }
                crate::knowledge::SedIo::Exec => self.push(
                    Kind::RunCode,
                    "its script runs a command (`e`)".into(),
                    None,
                ),
            }
        }
    }

    /// What a program read by its subcommand words does (see [`crate::knowledge::verbs`]).
    pub(super) fn verbs(&mut self, cmd: &SimpleCommand, reading: &Reading) {
        use crate::knowledge::verbs::Class;
        let Some(r) = reading.verbs(cmd) else {
            return;
        };
        // git's reads, writes and fetches are read from its words by the effects model's own
        // reader (which knows a `--force` from a commit); its table says what else it does:
        // run code (`git difftool`, `git daemon`), send commits and patches away.
        if cmd.program() == "git"
            && matches!(
                r.class,
                Class::Read | Class::Fetch | Class::Write | Class::Run | Class::Install
            )
        {
            return;
        }
        let w = &r.words;
        let (kind, detail) = match r.class {
            Class::Read => return,
            Class::Fetch => (
                Kind::NetworkFetch,
                format!("reads a remote service (`{w}`)"),
            ),
            Class::Run => (Kind::RunProject, format!("runs the project's code (`{w}`)")),
            Class::Write => (Kind::WriteProject, format!("changes project files (`{w}`)")),
            Class::Install => (
                Kind::Install,
                format!("installs or removes packages (`{w}`)"),
            ),
            Class::Change => (
                Kind::RemoteChange,
                format!("changes a remote service (`{w}`)"),
            ),
            Class::Service => (
                Kind::ProcessControl,
                format!("starts or stops a service (`{w}`)"),
            ),
            Class::Deploy => (
                Kind::InfraChange,
                format!("deploys or applies changes (`{w}`)"),
            ),
            Class::Destroy => (Kind::Destroy, format!("destroys data or resources (`{w}`)")),
            Class::Publish => (
                Kind::NetworkUpload,
                format!("publishes an artifact (`{w}`)"),
            ),
            Class::Exec => (
                Kind::RunCode,
                format!("runs a command in a container or on another host (`{w}`)"),
            ),
            Class::Code => (Kind::RunCode, format!("runs code it is given (`{w}`)")),
            Class::Secret => (Kind::RevealSecret, format!("prints a credential (`{w}`)")),
        };
        // What the effects model's own readers already said of the command stands (an install
        // from a URL is remote code, not an install).
        let said = |k: Kind| self.found.iter().any(|f| f.kind == k);
        let remote = said(Kind::RunRemoteCode)
            && matches!(kind, Kind::Install | Kind::RunCode | Kind::RunProject);
        if !said(kind) && !remote {
            self.push(kind, detail, None);
        }
        // What such a command changes is not known by name: a path it is given outside the
        // project may be what it writes (`prettier --write ~/.bashrc`, `yq -i … ~/.profile`).
        // What runs in a container or elsewhere, and what only reads, names no local file.
        if matches!(
            r.class,
            Class::Read | Class::Fetch | Class::Secret | Class::Exec | Class::Code
        ) {
            return;
        }
        for w in cmd.argv.iter().skip(1) {
            // A path attached to a short option (`gcc -o/x`, `-o~/x`) is a path it is given.
            let attached = |p: &str| {
                p.strip_prefix('-')
                    .filter(|o| !o.starts_with('-'))
                    .and_then(|o| o.get(1..))
                    .filter(|v| v.starts_with(['/', '~']))
                    .map(str::to_string)
            };
            let path = match w.path.as_deref() {
                Some(p) if p.starts_with('-') => attached(p),
                other => other.map(str::to_string),
            };
            match path.as_deref() {
                Some(p) if !(w.dynamic && p.contains('$')) => {
                    let resolved = (self.places.resolve)(p);
                    let place = self.place(&resolved);
                    // A path that is not there may be no path of this machine at all (`-w
                    // /src` in a container); a place whose files run later counts anyway.
                    let kind = match place {
                        places::Place::Project | places::Place::Temp => continue,
                        places::Place::Persist => Kind::Persist,
                        places::Place::Privilege => Kind::Privilege,
                        places::Place::Outside if resolved.exists() => Kind::WriteOutside,
                        places::Place::Outside => continue,
                    };
                    let shown = self.show(&resolved);
                    self.push(
                        kind,
                        format!("may write `{shown}`, a path it is given"),
                        None,
                    );
                }
                Some(_) | None if w.dynamic && r.class == Class::Write => self.push(
                    Kind::WriteOutside,
                    format!("may write `{}`, a path computed when it runs", w.value),
                    None,
                ),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;
