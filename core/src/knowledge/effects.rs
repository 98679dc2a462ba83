//! The effects model: what one simple command does beyond reading, in a closed set of named
//! effects with their targets (`sends .env to paste.example`, `writes ~/.bashrc`). The
//! built-in policy gives risk by effect; policies match effects with `effect "…"`; `explain`,
//! the dialog and the hook's reason print them.
//!
//! The lists (persistence paths, the verbs of cloud and cluster tools, installers, database
//! statements, network programs) are data in `policies/programs/effects.toml`; this module
//! reads commands with them. Whatever a command's program is not known to do is not reported
//! here: the default decides it, and an allow still needs the read-only proof.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::Regex;
use serde::Deserialize;

use super::reading::Reading;
use super::table::Role;
use crate::shell::{interpreter_code, SimpleCommand, Word};

/// The effects, in the order `explain` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Reads local files named on the command line.
    Read,
    /// Writes or creates files inside the project (the working folder).
    WriteProject,
    /// Writes files outside the project (temporary folders aside).
    WriteOutside,
    /// Deletes files inside the project.
    Delete,
    /// Deletes files outside the project (temporary folders aside).
    DeleteOutside,
    /// Destroys version-control history or uncommitted work.
    DeleteHistory,
    /// Fetches from the network.
    NetworkFetch,
    /// Sends local data (a file, a variable, piped output) over the network.
    NetworkUpload,
    /// Runs code the analysis cannot read: built at run time, or written earlier in the line.
    RunCode,
    /// Runs code fetched from the network.
    RunRemoteCode,
    /// Installs packages from a registry.
    Install,
    /// Makes something run later: shell start-up files, schedulers, services, git hooks, agent
    /// settings.
    Persist,
    /// Changes who may do what: users, sudoers, setuid bits, capabilities, privileged
    /// containers.
    Privilege,
    /// Stops processes, services or the machine.
    ProcessControl,
    /// Changes infrastructure: clusters, clouds, containers, databases, package registries.
    InfraChange,
}

impl Kind {
    pub const ALL: [(Kind, &'static str, &'static str); 15] = [
        (Kind::Read, "read", "reads local files"),
        (
            Kind::WriteProject,
            "write-project",
            "writes files inside the project",
        ),
        (
            Kind::WriteOutside,
            "write-outside",
            "writes files outside the project",
        ),
        (Kind::Delete, "delete", "deletes files inside the project"),
        (
            Kind::DeleteOutside,
            "delete-outside",
            "deletes files outside the project",
        ),
        (
            Kind::DeleteHistory,
            "delete-history",
            "destroys version-control history or uncommitted work",
        ),
        (
            Kind::NetworkFetch,
            "network-fetch",
            "fetches from the network",
        ),
        (
            Kind::NetworkUpload,
            "network-upload",
            "sends local data over the network",
        ),
        (
            Kind::RunCode,
            "run-code",
            "runs code the analysis cannot read",
        ),
        (
            Kind::RunRemoteCode,
            "run-remote-code",
            "runs code fetched from the network",
        ),
        (
            Kind::Install,
            "install",
            "installs packages from a registry",
        ),
        (Kind::Persist, "persist", "makes something run later"),
        (Kind::Privilege, "privilege", "changes privileges"),
        (
            Kind::ProcessControl,
            "process-control",
            "stops processes, services or the machine",
        ),
        (Kind::InfraChange, "infra-change", "changes infrastructure"),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(k, ..)| *k == self)
            .map_or("", |(_, n, _)| n)
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Self::ALL.iter().find(|(_, n, _)| *n == s).map(|(k, ..)| *k)
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::ALL.iter().map(|(_, n, _)| *n)
    }
}

/// One effect of a command, with what it is done to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Kind,
    /// In plain words: `sends .env to paste.example`, `writes ~/.bashrc`.
    pub detail: String,
    /// The host it talks to, when known (lower case).
    pub host: Option<String>,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)
    }
}

/// Where the command runs: the project (working) folder, home, and how a path as written
/// resolves (the engine's path rules).
pub struct Places<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    pub resolve: &'a dyn Fn(&str) -> PathBuf,
}

/// What earlier commands of the same line did that later ones depend on: files they wrote
/// (and whether fetched from the network), git remotes they added.
#[derive(Debug, Clone, Default)]
pub struct Line {
    written: Vec<(PathBuf, bool)>,
    /// A fetcher saved a file under a name the analysis does not know (`curl -O`, `wget URL`).
    unnamed_download: bool,
    remotes: Vec<String>,
}

impl Line {
    /// Notes what `cmd` leaves behind for the commands after it.
    pub fn note(&mut self, cmd: &SimpleCommand, places: &Places) {
        self.note_read(cmd, &Reading::of(cmd), places);
    }

    /// Whether no command of the line left anything yet.
    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && !self.unnamed_download && self.remotes.is_empty()
    }

    /// Adds what a later command left (see [`Line::note_read`]).
    pub fn extend(&mut self, later: Line) {
        self.written.extend(later.written);
        self.unnamed_download |= later.unnamed_download;
        self.remotes.extend(later.remotes);
    }

    /// [`Line::note`] with the command's reading at hand.
    pub fn note_read(&mut self, cmd: &SimpleCommand, reading: &Reading, places: &Places) {
        let program = cmd.program();
        let fetcher = is(program, FETCHER);
        for w in writes_of(cmd, reading) {
            if let Some(p) = &w.path {
                self.written.push(((places.resolve)(p), fetcher));
            }
        }
        for r in cmd
            .redirects
            .iter()
            .filter(|r| r.writes() && !r.op.starts_with("<<"))
        {
            if let Some(p) = &r.target.path {
                self.written.push(((places.resolve)(p), fetcher));
            }
        }
        if fetcher {
            let opts = Opts::of(cmd, fetcher_values(program));
            let named = if program == "wget" {
                opts.value(&["-O", "--output-document"])
            } else {
                opts.value(&["-o", "--output"])
            };
            if let Some(v) = named {
                if v.text != "-" {
                    self.written.push(((places.resolve)(v.text), true));
                }
            } else if program == "wget"
                || opts.given(&["-O", "--remote-name", "--remote-name-all", "-J"])
            {
                self.unnamed_download = true;
            }
        }
        if program == "git" {
            let pos = positional(cmd);
            if let ["remote", "add" | "set-url", name, ..] = pos.as_slice() {
                self.remotes.push(name.to_string());
            }
        }
    }
}

/// The effects of one simple command.
pub fn of(cmd: &SimpleCommand, reading: &Reading, places: &Places, line: &Line) -> Vec<Found> {
    let mut out = Effects {
        found: Vec::new(),
        places,
    };
    let Some(first) = cmd.argv.first() else {
        out.redirects(cmd);
        return out.found;
    };
    if first.dynamic {
        return out.found;
    }
    out.redirects(cmd);
    out.files(cmd, reading);
    out.runs_earlier_file(cmd, line);
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
    out.found.sort_by_key(|f| f.kind);
    out.found.dedup();
    out.found
}

/// Whether the effects model vouches that [`of`] tells everything the command does, so that
/// an allow rule may rely on its effects: a command that only reads (by the program
/// knowledge), or a fetch by curl or wget with options the model reads completely. Any other
/// command may do more than its effects say (a program it does not know, an option it does
/// not read), so no allow rule about effects matches it.
pub fn vouched(cmd: &SimpleCommand, reading: &Reading) -> bool {
    super::reads_only_as(cmd, reading) || vouched_fetch(cmd)
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

struct Effects<'p, 'a> {
    found: Vec<Found>,
    places: &'p Places<'a>,
}

impl Effects<'_, '_> {
    fn push(&mut self, kind: Kind, detail: String, host: Option<String>) {
        self.found.push(Found { kind, detail, host });
    }

    /// A path for people: under home as `~/…`, inside the project relative to it.
    fn show(&self, p: &Path) -> String {
        if let Ok(rel) = p.strip_prefix(self.places.cwd) {
            if !rel.as_os_str().is_empty() {
                return rel.display().to_string();
            }
        }
        if let Some(h) = self.places.home {
            if let Ok(rel) = p.strip_prefix(h) {
                return if rel.as_os_str().is_empty() {
                    "~".into()
                } else {
                    format!("~/{}", rel.display())
                };
            }
        }
        p.display().to_string()
    }

    fn place(&self, p: &Path) -> Place {
        let m = model();
        let tilde = self.places.home.and_then(|h| {
            p.strip_prefix(h)
                .ok()
                .map(|rel| format!("~/{}", rel.display()))
        });
        let hit =
            |set: &GlobSet| set.is_match(p) || tilde.as_ref().is_some_and(|t| set.is_match(t));
        // A file put into a folder whose files run later (`mv x.desktop ~/.config/autostart/`).
        let into = |set: &GlobSet| {
            set.is_match(p.join("_"))
                || tilde
                    .as_ref()
                    .is_some_and(|t| set.is_match(format!("{t}/_")))
        };
        if hit(&m.persist) || into(&m.persist) {
            Place::Persist
        } else if hit(&m.privilege) {
            Place::Privilege
        } else if p.starts_with(self.places.cwd) && p != Path::new("/") {
            Place::Project
        } else if ["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .any(|t| p.starts_with(t) && p != Path::new(t))
        {
            Place::Temp
        } else {
            Place::Outside
        }
    }

    fn write(&mut self, p: &Path, shown: &str) {
        match self.place(p) {
            Place::Persist => self.push(Kind::Persist, format!("writes {shown}"), None),
            Place::Privilege => self.push(Kind::Privilege, format!("writes {shown}"), None),
            Place::Project => self.push(Kind::WriteProject, format!("writes {shown}"), None),
            Place::Temp => {}
            Place::Outside => self.push(Kind::WriteOutside, format!("writes {shown}"), None),
        }
    }

    fn write_word(&mut self, w: &Word) {
        // `>(…)`: a process substitution, whose commands are judged on their own.
        if w.value.starts_with(">(") || w.value.starts_with("<(") {
            return;
        }
        match &w.path {
            Some(p) if !w.dynamic || !p.contains('$') => self.write_text(p),
            _ => self.push(
                Kind::WriteOutside,
                format!("writes `{}`, a path computed when it runs", w.value),
                None,
            ),
        }
    }

    /// A path an option names (`-o out.html`, `--output=out.html`).
    fn write_value(&mut self, v: Val) {
        if v.text == "-" {
            return;
        }
        if v.word.value == v.text {
            self.write_word(v.word);
        } else if v.word.dynamic {
            self.push(
                Kind::WriteOutside,
                format!("writes `{}`, a path computed when it runs", v.text),
                None,
            );
        } else {
            self.write_text(v.text);
        }
    }

    fn write_text(&mut self, p: &str) {
        let resolved = (self.places.resolve)(p);
        let shown = self.show(&resolved);
        self.write(&resolved, &shown);
    }

    /// What curl and wget write: their output, headers, cookies, logs.
    fn fetcher_writes(&mut self, cmd: &SimpleCommand, opts: &Opts) {
        let net = &data().network;
        let program = cmd.program();
        let (output, others): (&[&str], &[String]) = if program == "wget" {
            (&["-O", "--output-document"], &net.wget_writes)
        } else {
            (&["-o", "--output"], &net.curl_writes)
        };
        let dir = opts.value(&["--output-dir", "-P", "--directory-prefix"]);
        match opts.value(output) {
            Some(v) => self.write_value(v),
            None => {
                let named_by_server = if program == "wget" {
                    !opts.given(&["--spider"])
                } else {
                    opts.given(&["-O", "--remote-name", "--remote-name-all", "-J"])
                };
                if named_by_server {
                    match dir {
                        Some(d) => self.write_value(d),
                        None => self.write_text("."),
                    }
                }
            }
        }
        for (name, v) in &opts.given {
            if let Some(v) = v {
                if others.iter().any(|o| names_option(name, o)) {
                    self.write_value(*v);
                }
            }
        }
    }

    fn delete_word(&mut self, w: &Word) {
        let Some(p) = w.path.as_ref().filter(|p| !w.dynamic || !p.contains('$')) else {
            self.push(
                Kind::DeleteOutside,
                format!("deletes `{}`, a path computed when it runs", w.value),
                None,
            );
            return;
        };
        let resolved = (self.places.resolve)(p);
        let shown = self.show(&resolved);
        match self.place(&resolved) {
            Place::Project => self.push(Kind::Delete, format!("deletes {shown}"), None),
            Place::Temp => {}
            _ => self.push(Kind::DeleteOutside, format!("deletes {shown}"), None),
        }
    }

    /// Output redirections write their targets; `/dev/tcp/HOST/PORT` talks to a host.
    fn redirects(&mut self, cmd: &SimpleCommand) {
        for r in &cmd.redirects {
            if r.op.starts_with("<<") {
                continue;
            }
            let t = &r.target.value;
            if let Some(rest) = t
                .strip_prefix("/dev/tcp/")
                .or_else(|| t.strip_prefix("/dev/udp/"))
            {
                let host = rest.split('/').next().unwrap_or(rest).to_ascii_lowercase();
                if r.writes() {
                    self.push(
                        Kind::NetworkUpload,
                        format!("sends output to {host} through {t}"),
                        Some(host),
                    );
                } else {
                    self.push(Kind::NetworkFetch, format!("reads from {host}"), Some(host));
                }
                continue;
            }
            let fd_dup = r.op.ends_with('&') && (t == "-" || t.chars().all(|c| c.is_ascii_digit()));
            if !r.writes() || fd_dup || HARMLESS_DEVICES.contains(&t.as_str()) {
                continue;
            }
            self.write_word(&r.target);
        }
    }

    /// Files the program writes, deletes or reads by its operands and options.
    fn files(&mut self, cmd: &SimpleCommand, reading: &Reading) {
        for w in writes_of(cmd, reading) {
            self.write_word(w);
        }
        for w in deletes_of(cmd) {
            self.delete_word(w);
        }
        if let Some(op) = reading
            .operands
            .iter()
            .find(|o| o.role == Some(Role::Read) && o.word.path.is_some())
        {
            if let Some(p) = &op.word.path {
                let resolved = (self.places.resolve)(p);
                let shown = self.show(&resolved);
                self.push(Kind::Read, format!("reads {shown}"), None);
            }
        }
        if cmd.program() == "chmod" {
            let setuid = positional(cmd)
                .first()
                .is_some_and(|mode| setuid_mode(mode));
            if setuid {
                let target = cmd.argv.last().map_or("", |w| w.value.as_str());
                self.push(
                    Kind::Privilege,
                    format!("sets the setuid or setgid bit on {target}"),
                    None,
                );
            }
        }
    }

    fn network(&mut self, cmd: &SimpleCommand, code: Option<&(&'static str, Vec<Word>)>) {
        let program = cmd.program();
        if is(program, FETCHER) {
            self.fetcher(cmd);
        } else if is(program, RAW) {
            self.raw_socket(cmd);
        } else if is(program, COPIER) {
            self.copier(cmd);
        } else if is(program, LOOKUP) {
            let computed = cmd.argv.iter().skip(1).find(|w| w.dynamic);
            let pattern =
                program.starts_with("ping") && cmd.argv.iter().any(|w| w.value.starts_with("-p"));
            if let Some(w) = computed {
                self.push(
                    Kind::NetworkUpload,
                    format!(
                        "sends `{}`, computed when it runs, in a {program} query",
                        w.value
                    ),
                    None,
                );
            } else if pattern {
                self.push(
                    Kind::NetworkUpload,
                    "sends a chosen payload in ping packets".into(),
                    None,
                );
            }
        }
        self.server(cmd, code);
    }

    /// curl, wget, httpie and friends.
    fn fetcher(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let host = cmd.argv.iter().skip(1).find_map(|w| url_host(&w.value));
        let to = host
            .as_deref()
            .map_or_else(|| "the network".to_string(), str::to_string);
        let opts = Opts::of(cmd, fetcher_values(program));
        let net = &data().network;
        if matches!(program, "curl" | "wget") {
            self.fetcher_writes(cmd, &opts);
        }
        let mut sent: Vec<String> = Vec::new();
        let named = |list: &[String], name: &str| list.iter().any(|d| names_option(name, d));
        for (name, value) in &opts.given {
            let Some(value) = value else { continue };
            if !named(&net.curl_data, name) && !named(&net.wget_data, name) {
                continue;
            }
            let v = value.text;
            if named(&net.file_sources, name) {
                sent.push(if v == "-" {
                    "its input".into()
                } else {
                    v.to_string()
                });
            } else if let Some(file) = at_file(v) {
                sent.push(if file == "-" {
                    "its input".into()
                } else {
                    file.to_string()
                });
            } else if value.word.dynamic {
                sent.push(format!("`{v}`"));
            }
        }
        for (i, w) in cmd.argv.iter().enumerate().skip(1) {
            let v = w.value.as_str();
            if opts.values.contains(&i) || v.starts_with('-') {
                continue;
            }
            if w.dynamic {
                sent.push(format!("`{v}`"));
            } else if let Some(file) = at_file(v) {
                // httpie: `field=@file`, `field:=@file`, `@file`.
                if !matches!(program, "curl" | "wget") || v.starts_with('@') {
                    sent.push(file.to_string());
                }
            } else if let Some((name, file)) = v.split_once('@') {
                // httpie's form file field `name@path`.
                let field = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                if field && !file.is_empty() && !matches!(program, "curl" | "wget") {
                    sent.push(file.to_string());
                }
            }
        }
        let httpie = matches!(program, "http" | "https" | "xh" | "xhs" | "httpie");
        if cmd.piped && (httpie || sent.iter().any(|s| s == "its input")) {
            sent.retain(|s| s != "its input");
            sent.push("piped output".into());
        }
        sent.dedup();
        if sent.is_empty() {
            self.push(Kind::NetworkFetch, format!("fetches from {to}"), host);
        } else {
            self.push(
                Kind::NetworkUpload,
                format!("sends {} to {to}", sent.join(", ")),
                host.clone(),
            );
            self.push(Kind::NetworkFetch, format!("fetches from {to}"), host);
        }
    }

    /// nc, socat, telnet, `openssl s_client`: whatever they are fed goes to the host.
    fn raw_socket(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let pos = positional(cmd);
        if program == "openssl" && pos.first() != Some(&"s_client") {
            return;
        }
        if pos.is_empty() || (program == "socat" && pos.len() < 2) {
            return;
        }
        let host = match program {
            "openssl" => cmd
                .argv
                .iter()
                .position(|w| w.value == "-connect")
                .and_then(|i| cmd.argv.get(i + 1))
                .map(|w| w.value.split(':').next().unwrap_or("").to_ascii_lowercase()),
            "socat" => None,
            _ => pos.first().map(|h| h.to_ascii_lowercase()),
        };
        let to = host.clone().unwrap_or_else(|| "the network".into());
        let input = cmd
            .redirects
            .iter()
            .find(|r| r.op == "<" || r.op == "<>")
            .map(|r| r.target.value.clone());
        let exec = cmd.argv.iter().any(|w| {
            matches!(
                w.value.as_str(),
                "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"
            ) || w.value.starts_with("--exec=")
                || w.value.starts_with("--sh-exec=")
        }) || (program == "socat"
            && cmd.argv.iter().any(|w| {
                let v = w.value.to_ascii_uppercase();
                v.starts_with("EXEC:") || v.starts_with("SYSTEM:")
            }));
        let what = if exec {
            Some("a shell".to_string())
        } else if let Some(f) = input {
            Some(f)
        } else if cmd.piped || cmd.redirects.iter().any(|r| r.op.starts_with("<<")) {
            Some("piped output".to_string())
        } else if program == "socat" {
            Some("a local file or stream".to_string())
        } else {
            None
        };
        match what {
            Some(w) => self.push(Kind::NetworkUpload, format!("sends {w} to {to}"), host),
            None => self.push(Kind::NetworkFetch, format!("connects to {to}"), host),
        }
    }

    /// scp, rsync, sftp, rclone, ftp clients.
    fn copier(&mut self, cmd: &SimpleCommand) {
        let pos = positional(cmd);
        let remote = |w: &str| remote_host(w);
        let program = cmd.program();
        if matches!(program, "scp" | "rsync" | "rclone") {
            let pos = if program == "rclone" {
                match pos.split_first() {
                    Some((verb, rest))
                        if matches!(
                            *verb,
                            "copy" | "sync" | "move" | "copyto" | "moveto" | "bisync"
                        ) =>
                    {
                        rest.to_vec()
                    }
                    _ => return,
                }
            } else {
                pos
            };
            let Some((dest, sources)) = pos.split_last() else {
                return;
            };
            let sources: Vec<&str> = sources.to_vec();
            match remote(dest) {
                Some(host) if sources.iter().any(|s| remote(s).is_none()) => {
                    let files: Vec<&str> = sources
                        .iter()
                        .copied()
                        .filter(|s| remote(s).is_none())
                        .collect();
                    self.push(
                        Kind::NetworkUpload,
                        format!("sends {} to {host}", files.join(", ")),
                        Some(host),
                    );
                }
                _ => {
                    if let Some(host) = sources.iter().find_map(|s| remote(s)) {
                        self.push(
                            Kind::NetworkFetch,
                            format!("copies from {host}"),
                            Some(host),
                        );
                    }
                }
            }
            return;
        }
        let host = pos
            .iter()
            .find_map(|w| remote(w).or_else(|| Some(w.split('@').next_back()?.to_string())));
        let to = host.clone().unwrap_or_else(|| "the network".into());
        let scripted = cmd.piped
            || cmd.redirects.iter().any(|r| r.op.starts_with('<'))
            || cmd
                .argv
                .iter()
                .any(|w| matches!(w.value.as_str(), "-b" | "-c" | "-e" | "-f"));
        if scripted {
            self.push(
                Kind::NetworkUpload,
                format!("runs scripted transfers (which may send files) with {to}"),
                host,
            );
        } else {
            self.push(Kind::NetworkFetch, format!("connects to {to}"), host);
        }
    }

    /// A web server over the home folder (or above it) on every interface.
    fn server(&mut self, cmd: &SimpleCommand, code: Option<&(&'static str, Vec<Word>)>) {
        let program = cmd.program();
        if !program.starts_with("python") && !program.starts_with("php") {
            return;
        }
        let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
        let (bind, dir) = if code.is_some_and(|(lang, _)| *lang == "python")
            && argv
                .windows(2)
                .any(|w| w[0] == "-m" && matches!(w[1], "http.server" | "SimpleHTTPServer"))
        {
            (
                option_value(&argv, &["-b", "--bind"]),
                option_value(&argv, &["-d", "--directory"]),
            )
        } else if program.starts_with("php") && argv.contains(&"-S") {
            (
                option_value(&argv, &["-S"]).map(|a| a.rsplit_once(':').map_or(a, |(h, _)| h)),
                option_value(&argv, &["-t"]),
            )
        } else {
            return;
        };
        let local = bind.is_some_and(|b| {
            b == "localhost" || b.starts_with("127.") || b == "::1" || b == "[::1]"
        });
        if local {
            return;
        }
        let served = dir.map_or_else(
            || self.places.cwd.to_path_buf(),
            |d| (self.places.resolve)(d),
        );
        let over_home = served == Path::new("/")
            || self
                .places
                .home
                .is_some_and(|h| h.starts_with(&served) || served == h);
        if over_home {
            let shown = self.show(&served);
            self.push(
                Kind::NetworkUpload,
                format!("serves {shown} to every host that can reach this machine"),
                None,
            );
        }
    }

    /// Running a file written or downloaded earlier in the line; fetch-and-run tools.
    /// Running a file written or downloaded earlier in the line.
    fn runs_earlier_file(&mut self, cmd: &SimpleCommand, line: &Line) {
        if line.written.is_empty() && !line.unnamed_download {
            return;
        }
        if let Some(w) = run_target(cmd) {
            if let Some(p) = &w.path {
                let resolved = (self.places.resolve)(p);
                let fetched = line
                    .written
                    .iter()
                    .find(|(q, _)| *q == resolved)
                    .map(|(_, f)| *f);
                let relative = !p.starts_with('/') && !p.starts_with('~');
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
                    None => {}
                }
            }
        }
    }

    /// Fetch-and-run tools, privileged containers, text run as commands.
    fn code(&mut self, cmd: &SimpleCommand) {
        let data = data();
        let program = cmd.program();
        let remote = &data.remote;
        let pos = positional(cmd);
        let local_only = cmd
            .argv
            .iter()
            .any(|w| remote.local_only.contains(&w.value));
        if is(program, FETCH_RUN) && !local_only {
            let pkg = pos.first().copied().unwrap_or("a package");
            self.push(
                Kind::RunRemoteCode,
                format!("fetches {pkg} from the registry and runs it"),
                None,
            );
            return;
        }
        let verbs: Vec<String> = if !remote
            .fetch_and_run_verbs
            .iter()
            .any(|v| v.starts_with(program))
        {
            Vec::new()
        } else {
            remote
                .fetch_and_run_verbs
                .iter()
                .filter_map(|v| {
                    v.strip_prefix(program)?
                        .strip_prefix(' ')
                        .map(str::to_string)
                })
                .collect()
        };
        if let Some(v) = verb_match(&pos, &verbs).filter(|_| !local_only) {
            let pkg = pos.get(v.split_whitespace().count()).copied();
            self.push(
                Kind::RunRemoteCode,
                format!("fetches {} and runs it", pkg.unwrap_or("a package")),
                None,
            );
            return;
        }
        let fetches = match (program, pos.as_slice()) {
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
        };
        if let Some(pkg) = fetches {
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

    /// Installs from a registry (medium), or from a URL, a repository or another index
    /// (running remote code); cloud, cluster, database and registry changes.
    fn packages(&mut self, cmd: &SimpleCommand) {
        let data = data();
        let (program, pos) = package_manager(cmd);
        let program = program.as_str();
        if let Some(v) = verb_match(
            &pos,
            data.install
                .verbs
                .get(program)
                .map_or(&[][..], Vec::as_slice),
        ) {
            let skip = v.split_whitespace().count();
            let npm_like = matches!(program, "npm" | "pnpm" | "yarn" | "bun");
            let remote_operand = pos.iter().skip(skip).find(|w| remote_package(w, npm_like));
            let sources = data
                .remote
                .extra_sources
                .get(program)
                .map_or(&[][..], Vec::as_slice);
            let extra = cmd.argv.iter().skip(1).find(|w| {
                sources.iter().any(|s| {
                    w.value == *s
                        || w.value
                            .strip_prefix(s.as_str())
                            .is_some_and(|r| r.starts_with('='))
                        || (s.len() == 2
                            && s.starts_with('-')
                            && w.value.starts_with(s.as_str())
                            && w.value.len() > 2
                            && !w.value.starts_with("--"))
                })
            });
            if let Some(op) = remote_operand {
                self.push(
                    Kind::RunRemoteCode,
                    format!(
                        "installs and runs the install scripts of {op}, from outside the registry"
                    ),
                    url_host(op),
                );
            } else if let Some(e) = extra {
                self.push(
                    Kind::RunRemoteCode,
                    format!("installs packages from another source ({})", e.value),
                    None,
                );
            } else {
                let what: Vec<&str> = pos.iter().skip(skip).copied().take(3).collect();
                let what = if what.is_empty() {
                    "the project's dependencies".to_string()
                } else {
                    what.join(" ")
                };
                self.push(Kind::Install, format!("{program} installs {what}"), None);
            }
        }
        if let Some(extra) = data.remote.extra_sources.get(program) {
            if let Some(v) = verb_match(&pos, extra) {
                self.push(
                    Kind::RunRemoteCode,
                    format!("adds the package source `{v}`"),
                    None,
                );
            }
        }
        if let Some(v) = verb_match(
            &pos,
            data.infra.verbs.get(program).map_or(&[][..], Vec::as_slice),
        ) {
            self.push(Kind::InfraChange, format!("{program} {v}"), None);
        } else if is(program, DATABASE) {
            let mut text = String::new();
            for w in cmd.argv.iter().skip(1) {
                text.push_str(&w.value.to_ascii_lowercase());
                text.push(' ');
            }
            for r in cmd.redirects.iter().filter(|r| r.op.starts_with("<<")) {
                text.push_str(&r.target.value.to_ascii_lowercase());
                text.push(' ');
            }
            // `DROP   DATABASE`, `DROP\tDATABASE`: one space between words.
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some(s) = data
                .infra
                .statements
                .iter()
                .find(|s| contains_word(&text, s))
            {
                self.push(
                    Kind::InfraChange,
                    format!("runs `{}` on a database", s.trim().to_ascii_uppercase()),
                    None,
                );
            }
        }
        // `aws s3 cp file s3://…`, `gsutil cp file gs://…`: local files leave the machine.
        let cloud_copy = matches!(
            (program, pos.as_slice()),
            ("aws", ["s3", "cp" | "sync" | "mv", ..])
                | ("gsutil", ["cp" | "rsync" | "mv", ..])
                | ("gcloud", ["storage", "cp" | "rsync" | "mv", ..])
        );
        if cloud_copy {
            if let Some((dest, sources)) = pos.split_last() {
                let bucket = |w: &str| w.starts_with("s3://") || w.starts_with("gs://");
                let local: Vec<&str> = sources
                    .iter()
                    .skip(2)
                    .copied()
                    .filter(|s| !bucket(s))
                    .collect();
                if bucket(dest) && !local.is_empty() {
                    self.push(
                        Kind::NetworkUpload,
                        format!("sends {} to {dest}", local.join(", ")),
                        url_host(dest),
                    );
                }
            }
        }
        // `gh api` reads unless it sends fields, a body or another method.
        if matches!(program, "gh" | "glab") && pos.first() == Some(&"api") {
            let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
            let method = option_value(&argv, &["-X", "--method"]).map(str::to_ascii_uppercase);
            let body = argv.iter().any(|w| {
                ["-f", "-F", "--field", "--raw-field", "--input"]
                    .iter()
                    .any(|o| {
                        w == o
                            || (w.starts_with(o) && w.len() > o.len() && !o.starts_with("--"))
                            || w.starts_with(&format!("{o}="))
                    })
            });
            if body || method.is_some_and(|m| m != "GET" && m != "HEAD") {
                self.push(
                    Kind::InfraChange,
                    format!("{program} api changes something on the server"),
                    None,
                );
            }
        }
        if program == "gh" && matches!(pos.as_slice(), ["gist", "create" | "new", ..]) {
            let files: Vec<&str> = pos.iter().skip(2).copied().collect();
            let what = if files.is_empty() {
                "piped output".to_string()
            } else {
                files.join(", ")
            };
            self.push(
                Kind::NetworkUpload,
                format!("sends {what} to gist.github.com"),
                Some("gist.github.com".into()),
            );
        }
    }

    /// Schedulers, services, users, processes and the machine.
    fn system(&mut self, cmd: &SimpleCommand) {
        let data = data();
        let program = cmd.program();
        if !is(program, SCHEDULER | PRIVILEGED | PROCESS)
            && !data.process.verbs.contains_key(program)
            && program != "systemctl"
        {
            return;
        }
        let pos = positional(cmd);
        let words: Vec<&str> = cmd.argv.iter().skip(1).map(|w| w.value.as_str()).collect();
        if is(program, SCHEDULER) {
            let looks = !words.is_empty()
                && words
                    .iter()
                    .all(|w| data.persist.scheduler_looks.iter().any(|l| l == w));
            let removes =
                program == "crontab" && words.iter().any(|w| w.starts_with('-') && w.contains('r'));
            if !looks && !removes {
                self.push(
                    Kind::Persist,
                    format!("{program} schedules commands to run later"),
                    None,
                );
            }
        }
        if program == "systemctl"
            && pos
                .iter()
                .any(|w| matches!(*w, "enable" | "link" | "preset" | "edit" | "set-property"))
        {
            self.push(
                Kind::Persist,
                "makes a service start on its own".into(),
                None,
            );
        }
        if is(program, PRIVILEGED) {
            self.push(
                Kind::Privilege,
                format!("{program} changes users, groups or privileges"),
                None,
            );
        }
        let process = &data.process;
        // `kill -0 PID` only checks, `kill -l` lists the signals.
        let only_looks = program == "kill"
            && words
                .first()
                .is_some_and(|w| matches!(*w, "-0" | "-l" | "-L" | "--list" | "--table"));
        if is(program, PROCESS) && !only_looks {
            // `-1` first and followed by more words is a signal (SIGHUP), elsewhere a pid.
            let everything = words.iter().enumerate().any(|(i, w)| {
                matches!(*w, "-1" | "1" | "0")
                    && !(i == 0 && w.starts_with('-') && words.len() > 1)
                    && !matches!(
                        i.checked_sub(1).and_then(|j| words.get(j)),
                        Some(&"-n" | &"-s")
                    )
            });
            let what = if is(program, MACHINE) {
                format!("runs `{program}`")
            } else if program == "kill" && everything {
                "signals every process it can (or init)".to_string()
            } else {
                format!("{program} stops processes")
            };
            self.push(Kind::ProcessControl, what, None);
        }
        if let Some(v) = verb_match(
            &pos,
            process.verbs.get(program).map_or(&[][..], Vec::as_slice),
        ) {
            self.push(Kind::ProcessControl, format!("{program} {v}"), None);
        }
    }

    /// git: history destroyed, uncommitted work thrown away, pushes to a new place, hooks.
    fn git(&mut self, cmd: &SimpleCommand, reading: &Reading, line: &Line) {
        if cmd.program() != "git" {
            return;
        }
        let sub = reading
            .path
            .first()
            .copied()
            .or_else(|| positional_after_globals(cmd));
        let Some(sub) = sub else { return };
        let flag = |names: &[&str]| {
            names
                .iter()
                .any(|n| reading.has_flag(n, true) || cmd.gives_flag(n, false))
        };
        let ops = git_operands(cmd, sub);
        let mut history = |what: String| {
            self.found.push(Found {
                kind: Kind::DeleteHistory,
                detail: what,
                host: None,
            })
        };
        match sub {
            "push" => {
                if flag(&[
                    "-f",
                    "--force",
                    "--mirror",
                    "--delete",
                    "-d",
                    "--prune",
                    "--force-with-lease",
                    "--force-if-includes",
                ]) {
                    history("force-pushes or deletes remote branches".into());
                }
                if let Some(r) = ops
                    .iter()
                    .skip(1)
                    .find(|o| o.starts_with(':') || o.starts_with('+'))
                {
                    history(format!("rewrites or deletes the remote branch `{r}`"));
                }
            }
            "reset" if flag(&["--hard", "--merge", "--keep"]) => {
                history("throws away uncommitted changes".into())
            }
            "clean" if flag(&["-f", "--force"]) => history("deletes untracked files".into()),
            "checkout"
                if flag(&["-f", "--force"]) || ops_after_dashdash(cmd) || ops.contains(&".") =>
            {
                history("overwrites files with uncommitted changes".into())
            }
            "restore" if !flag(&["--staged", "-S"]) || flag(&["--worktree", "-W"]) => {
                history("throws away uncommitted changes".into())
            }
            "stash" if matches!(ops.first(), Some(&"clear" | &"drop")) => {
                history("deletes stashed changes".into())
            }
            "branch"
                if flag(&["-D"]) || (flag(&["-d", "--delete"]) && flag(&["-f", "--force"])) =>
            {
                history("deletes a branch that may not be merged".into())
            }
            "reflog" if matches!(ops.first(), Some(&"expire" | &"delete")) => {
                history("deletes reflog entries".into())
            }
            "gc" if cmd.argv.iter().any(|w| w.value.starts_with("--prune")) => {
                history("prunes unreachable commits".into())
            }
            "prune" | "filter-branch" | "filter-repo" => {
                history(format!("git {sub} rewrites or deletes history"))
            }
            "update-ref" if flag(&["-d"]) => history("deletes a ref".into()),
            "worktree" if ops.first() == Some(&"remove") && flag(&["-f", "--force"]) => {
                history("deletes a worktree with its changes".into())
            }
            _ => {}
        }
        match sub {
            "push" => {
                let repo = option_value(
                    &cmd.argv
                        .iter()
                        .map(|w| w.value.as_str())
                        .collect::<Vec<_>>(),
                    &["--repo"],
                )
                .or_else(|| ops.first().copied());
                if let Some(repo) = repo {
                    let host = remote_host(repo).or_else(|| url_host(repo));
                    if let Some(h) = host {
                        self.push(
                            Kind::NetworkUpload,
                            format!("pushes the repository to {repo}"),
                            Some(h),
                        );
                    } else if line.remotes.iter().any(|r| r == repo) {
                        self.push(
                            Kind::NetworkUpload,
                            format!("pushes the repository to `{repo}`, a remote set earlier in the line"),
                            None,
                        );
                    }
                }
            }
            "fetch" | "pull" | "clone" | "ls-remote" | "submodule" => {
                let host = ops
                    .iter()
                    .find_map(|o| url_host(o).or_else(|| remote_host(o)));
                let from = host.clone().unwrap_or_else(|| "a remote".into());
                self.push(Kind::NetworkFetch, format!("fetches from {from}"), host);
            }
            "config" => {
                let global = flag(&["--global", "--system"])
                    || cmd.argv.iter().any(|w| w.value.starts_with("--file"));
                let reads = flag(&[
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "-l",
                    "--list",
                    "--show-origin",
                    "--get-urlmatch",
                ]) || ops.len() < 2
                    && !flag(&[
                        "--unset",
                        "--unset-all",
                        "--add",
                        "--replace-all",
                        "--edit",
                        "-e",
                        "--remove-section",
                        "--rename-section",
                    ]);
                if !reads {
                    let key = ops
                        .iter()
                        .find(|o| !o.starts_with('-'))
                        .copied()
                        .unwrap_or("");
                    let lower = key.to_ascii_lowercase();
                    let runs_code = super::carried::config_code(&format!("{lower}=x"), false)
                        .is_some()
                        || lower.starts_with("alias.")
                        || lower.contains("hookspath")
                        || lower.ends_with(".textconv")
                        || lower.starts_with("filter.")
                        || lower.contains("helper");
                    if runs_code {
                        self.push(
                            Kind::Persist,
                            format!("sets `{key}`, which git runs as code later"),
                            None,
                        );
                    } else if global {
                        self.push(
                            Kind::WriteOutside,
                            format!("changes the global git setting `{key}`"),
                            None,
                        );
                    }
                }
            }
            "remote" if matches!(ops.first(), Some(&"add" | &"set-url")) => {}
            _ => {}
        }
    }

    /// Interpreter one-liners: network calls, files opened for writing, code built at run
    /// time.
    fn interpreter(&mut self, code: Option<&(&'static str, Vec<Word>)>) {
        let Some(&(lang, ref codes)) = code else {
            return;
        };
        let m = model();
        for code in codes {
            let text = code.value.as_str();
            let host = m
                .url
                .as_ref()
                .and_then(|r| r.captures(text))
                .map(|c| c[1].to_ascii_lowercase());
            let to = host.clone().unwrap_or_else(|| "the network".into());
            let net = m.net.get(lang).is_some_and(|r| r.is_match(text));
            if net {
                let sends = m.send.get(lang).is_some_and(|r| r.is_match(text));
                if sends {
                    self.push(
                        Kind::NetworkUpload,
                        format!("{lang} code sends data to {to}"),
                        host.clone(),
                    );
                }
                self.push(
                    Kind::NetworkFetch,
                    format!("{lang} code connects to {to}"),
                    host,
                );
            }
            if let Some(r) = m.dynamic.get(lang) {
                if let Some(found) = r.find(text) {
                    self.push(
                        Kind::RunCode,
                        format!(
                            "{lang} code builds what it runs at run time (`{}`)",
                            found.as_str().trim()
                        ),
                        None,
                    );
                }
            }
            if let Some(r) = m.writes.get(lang) {
                for c in r.captures_iter(text) {
                    match c.name("path").or_else(|| c.name("path2")) {
                        Some(p) => {
                            let raw = p.as_str();
                            let raw = raw.strip_prefix("file://").unwrap_or(raw);
                            let resolved = (self.places.resolve)(raw);
                            let shown = self.show(&resolved);
                            self.write(&resolved, &shown);
                        }
                        None => self.push(
                            Kind::WriteOutside,
                            format!("{lang} code writes a file whose name is computed"),
                            None,
                        ),
                    }
                }
            }
            if code.dynamic {
                self.push(
                    Kind::RunCode,
                    format!("{lang} code is computed when it runs (`{}`)", short(text)),
                    None,
                );
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Project,
    Temp,
    Outside,
    Persist,
    Privilege,
}

const HARMLESS_DEVICES: [&str; 7] = [
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/zero",
    "/dev/fd/1",
    "/dev/fd/2",
];

fn short(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 40 {
        one.chars().take(39).collect::<String>() + "…"
    } else {
        one
    }
}

/// `@file` of curl's data options and httpie's `field=@file`; `<file` of `curl -F name=<file`.
fn at_file(v: &str) -> Option<&str> {
    if let Some(f) = v.strip_prefix('@') {
        return (!f.is_empty()).then_some(f);
    }
    let i = v.find(['=', ':'])?;
    let rest = v[i..].trim_start_matches([':', '=']);
    rest.strip_prefix('@')
        .or_else(|| rest.strip_prefix('<'))
        .map(|f| f.split(';').next().unwrap_or(f))
        .filter(|f| !f.is_empty())
}

/// The program a package command runs and its operands: `pip3.12` is `pip`, `python3 -m pip
/// install x` is `pip install x` (the module's operands follow it).
fn package_manager(cmd: &SimpleCommand) -> (String, Vec<&str>) {
    let mut program = cmd.program();
    let mut pos = positional(cmd);
    let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    if program.starts_with("python") {
        if let Some(module) = option_value(&argv, &["-m"]) {
            if let Some(i) = pos.iter().position(|p| *p == module) {
                pos.drain(..=i);
            }
            program = module;
        }
    }
    (unversioned(program).to_string(), pos)
}

/// A program's name without a version the data does not list (`pip3.12` → `pip`,
/// `pip3` stays when the data names it).
fn unversioned(program: &str) -> &str {
    let d = data();
    let listed = |p: &str| {
        d.install.verbs.contains_key(p)
            || d.infra.verbs.contains_key(p)
            || d.remote.extra_sources.contains_key(p)
    };
    if listed(program) {
        return program;
    }
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !base.is_empty() && listed(base) {
        base
    } else {
        program
    }
}

/// Whether a chmod mode sets the setuid or setgid bit (`u+s`, `+s`, `4755`, `g=s`).
fn setuid_mode(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        // The digit before the last three holds setuid (4) and setgid (2): `4755`, `04755`.
        let special = mode
            .len()
            .checked_sub(4)
            .and_then(|i| mode.as_bytes().get(i));
        return special.is_some_and(|d| (d - b'0') & 6 != 0);
    }
    mode.split(',').any(|clause| {
        clause
            .split_once(['+', '='])
            .is_some_and(|(_, perms)| perms.contains('s'))
    })
}

/// The host of a URL, lowercased (`https://user@Host:443/x` → `host`); `None` when the text
/// is not a URL with a host. The one reading of URLs: `host` matchers use it too.
pub fn url_host(s: &str) -> Option<String> {
    url::Url::parse(s)
        .ok()?
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        .filter(|h| !h.is_empty())
}

/// The host of an scp-style remote (`user@host:path`, `host:`), not a URL or a local path.
fn remote_host(w: &str) -> Option<String> {
    if w.contains("://") || w.starts_with(['/', '.', '~']) {
        return None;
    }
    let (host, _) = w.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let host = host.rsplit('@').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether an installer's operand names a package outside the registry: a URL, a git
/// repository, and for npm-like tools a `user/repo` on GitHub.
fn remote_package(w: &str, npm_like: bool) -> bool {
    let lower = w.to_ascii_lowercase();
    let prefixes = [
        "git+",
        "git@",
        "git:",
        "github:",
        "gitlab:",
        "bitbucket:",
        "gist:",
        "http:",
        "https:",
        "hg+",
        "svn+",
        "bzr+",
    ];
    if lower.contains("://")
        || prefixes.iter().any(|p| lower.starts_with(p))
        || lower.ends_with(".git")
    {
        return true;
    }
    if lower.contains(" @ ") || lower.contains("@git+") || lower.contains("@http") {
        return true;
    }
    npm_like
        && !w.starts_with(['@', '.', '/', '~'])
        && w.matches('/').count() == 1
        && !w.ends_with(".tgz")
}

/// The first value of one of `names` (`--bind 0.0.0.0`, `--bind=0.0.0.0`, `-d DIR`).
fn option_value<'w>(argv: &[&'w str], names: &[&str]) -> Option<&'w str> {
    for (i, w) in argv.iter().enumerate() {
        for n in names {
            if w == n {
                return argv.get(i + 1).copied();
            }
            if let Some(v) = w.strip_prefix(n).and_then(|r| r.strip_prefix('=')) {
                return Some(v);
            }
        }
    }
    None
}

/// The words of a command that are not options (`-x`, `--x`), after the program.
fn positional(cmd: &SimpleCommand) -> Vec<&str> {
    cmd.argv
        .iter()
        .skip(1)
        .map(|w| w.value.as_str())
        .filter(|w| !w.starts_with('-') || *w == "-")
        .collect()
}

fn positional_after_globals(cmd: &SimpleCommand) -> Option<&str> {
    let mut i = 1;
    while let Some(w) = cmd.argv.get(i) {
        let v = w.value.as_str();
        if matches!(v, "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") {
            i += 2;
        } else if v.starts_with('-') {
            i += 1;
        } else {
            return Some(v);
        }
    }
    None
}

/// The operands of a git subcommand: the non-option words after it.
fn git_operands<'c>(cmd: &'c SimpleCommand, sub: &str) -> Vec<&'c str> {
    let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    let Some(at) = words.iter().position(|w| *w == sub) else {
        return Vec::new();
    };
    words[at + 1..]
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect()
}

fn ops_after_dashdash(cmd: &SimpleCommand) -> bool {
    let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    words
        .iter()
        .position(|w| *w == "--")
        .is_some_and(|i| i + 1 < words.len())
}

/// The pattern of `patterns` that the command's words match (see `policies/programs/
/// effects.toml`): words in order from one of the first three operands, `*` any one word,
/// `**` any number; a pattern starting with `-` matches an option word.
fn verb_match<'p>(pos: &[&str], patterns: &'p [String]) -> Option<&'p str> {
    const STOP: [&str; 6] = ["run", "exec", "create", "debug", "x", "dlx"];
    let mut buf = [""; 8];
    for pattern in patterns {
        let mut n = 0;
        for w in pattern.split_whitespace().take(buf.len()) {
            buf[n] = w;
            n += 1;
        }
        let pat = &buf[..n];
        for start in 0..pos.len().min(3) {
            if matches_words(pat, &pos[start..]) {
                return Some(pattern);
            }
            if STOP.contains(&pos[start]) {
                break;
            }
        }
    }
    None
}

fn matches_words(pat: &[&str], words: &[&str]) -> bool {
    matches_after(pat, words, 0)
}

/// [`matches_words`], where up to `gap` words may come before the next pattern word: after the
/// first, two (the value of an option between them: `aws s3 --region r rm`).
fn matches_after(pat: &[&str], words: &[&str], gap: usize) -> bool {
    match pat.split_first() {
        None => true,
        Some((&"**", rest)) => (0..=words.len()).any(|i| matches_after(rest, &words[i..], 0)),
        Some((p, rest)) => (0..=gap.min(words.len().saturating_sub(1))).any(|skip| {
            words.get(skip).is_some_and(|w| word_glob(p, w))
                && matches_after(rest, &words[skip + 1..], 2)
        }),
    }
}

/// `*` matches any run of characters; case is ignored.
fn word_glob(pattern: &str, word: &str) -> bool {
    let (p, w) = (pattern.as_bytes(), word.as_bytes());
    let Some(star) = p.iter().position(|&b| b == b'*') else {
        return p.eq_ignore_ascii_case(w);
    };
    let (head, tail) = (&p[..star], &p[star + 1..]);
    if w.len() < head.len() || !w[..head.len()].eq_ignore_ascii_case(head) {
        return false;
    }
    let rest = &w[head.len()..];
    // The rest of the pattern against every suffix: patterns are short, words too.
    (0..=rest.len()).any(|i| {
        std::str::from_utf8(tail)
            .ok()
            .zip(std::str::from_utf8(&rest[i..]).ok())
            .is_some_and(|(t, r)| word_glob(t, r))
    })
}

/// Whether `text` holds `phrase` starting at a word boundary.
fn contains_word(text: &str, phrase: &str) -> bool {
    let phrase = phrase.to_ascii_lowercase();
    text.match_indices(phrase.as_str()).any(|(i, _)| {
        i == 0
            || !text.as_bytes()[i - 1].is_ascii_alphanumeric() && text.as_bytes()[i - 1] != b'_'
            || phrase.starts_with('.')
    })
}

/// The file a command runs as a program or script: `./x.sh`, `sh x.sh`, `source x.sh`,
/// `python3 x.py`.
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

/// Files a command writes by its options and operands (not its redirections).
fn writes_of<'c>(cmd: &'c SimpleCommand, reading: &Reading<'c>) -> Vec<&'c Word> {
    let mut out: Vec<&Word> = Vec::new();
    for u in &reading.options {
        if let (Some(spec), Some(v)) = (u.spec, &u.value) {
            let writes = matches!(
                spec.takes,
                super::Takes::Required(Role::Write) | super::Takes::Optional(Role::Write)
            );
            if writes {
                out.push(v.word);
            }
        }
    }
    for o in &reading.operands {
        if o.role == Some(Role::Write) {
            out.push(o.word);
        }
    }
    const WRITERS: [&str; 22] = [
        "cp", "mv", "install", "ln", "link", "tee", "touch", "mkdir", "mkfifo", "mknod",
        "truncate", "chmod", "chown", "chgrp", "setfacl", "chattr", "sed", "perl", "dd", "unzip",
        "find", "git",
    ];
    if !WRITERS.contains(&cmd.program()) {
        return out;
    }
    let args: Vec<&Word> = cmd.argv.iter().skip(1).collect();
    let operands: Vec<&Word> = args
        .iter()
        .copied()
        .filter(|w| !w.value.starts_with('-') || w.value == "-")
        .collect();
    let target_dir = args
        .iter()
        .position(|w| w.value == "-t" || w.value == "--target-directory")
        .and_then(|i| args.get(i + 1).copied())
        .or_else(|| {
            args.iter()
                .find(|w| w.value.starts_with("--target-directory="))
                .copied()
        });
    let in_place = args.iter().any(|w| {
        w.value == "-i"
            || w.value.starts_with("--in-place")
            || (w.value.starts_with("-i") && !w.value.starts_with("--"))
    });
    match cmd.program() {
        "cp" | "mv" | "install" | "ln" | "link" => match target_dir {
            Some(t) => out.push(t),
            None => out.extend(
                operands
                    .last()
                    .copied()
                    .filter(|_| operands.len() > 1 || cmd.program() == "ln"),
            ),
        },
        "tee" | "touch" | "mkdir" | "mkfifo" | "mknod" | "truncate" | "chmod" | "chown"
        | "chgrp" | "setfacl" | "chattr" => {
            let skip = usize::from(matches!(cmd.program(), "chmod" | "chown" | "chgrp"));
            out.extend(
                operands
                    .iter()
                    .skip(skip)
                    .copied()
                    .filter(|w| w.value != "-"),
            );
        }
        "sed" | "perl" if in_place => out.extend(
            operands
                .iter()
                .skip(usize::from(cmd.program() == "sed"))
                .copied(),
        ),
        "dd" => out.extend(args.iter().copied().filter(|w| w.value.starts_with("of="))),
        "unzip" => out.extend(
            args.iter()
                .position(|w| w.value == "-d")
                .and_then(|i| args.get(i + 1).copied()),
        ),
        "find" => {
            for (i, w) in args.iter().enumerate() {
                if matches!(
                    w.value.as_str(),
                    "-fprint" | "-fprint0" | "-fprintf" | "-fls"
                ) {
                    out.extend(args.get(i + 1).copied());
                }
            }
        }
        "git" if matches!(positional_after_globals(cmd), Some("clone")) => {
            let ops: Vec<&Word> = operands.iter().copied().skip(1).collect();
            if ops.len() >= 2 {
                out.extend(ops.last().copied());
            }
        }
        _ => {}
    }
    // Some words become `name=value` paths (`dd of=x`): read the part after `=`.
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    out
}

/// Files a command deletes.
fn deletes_of(cmd: &SimpleCommand) -> Vec<&Word> {
    const DELETERS: [&str; 10] = [
        "rm",
        "rmdir",
        "unlink",
        "shred",
        "srm",
        "trash",
        "trash-put",
        "gio",
        "mv",
        "find",
    ];
    if !DELETERS.contains(&cmd.program()) {
        return Vec::new();
    }
    let args: Vec<&Word> = cmd.argv.iter().skip(1).collect();
    let mut dashdash = false;
    let mut operands = Vec::new();
    for w in &args {
        if !dashdash && w.value == "--" {
            dashdash = true;
            continue;
        }
        if dashdash || !w.value.starts_with('-') {
            operands.push(*w);
        }
    }
    match cmd.program() {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "trash" | "trash-put" | "gio" => operands,
        "mv" => {
            let target = args
                .iter()
                .position(|w| w.value == "-t" || w.value == "--target-directory")
                .and_then(|i| args.get(i + 1).copied());
            match target {
                Some(t) => operands
                    .into_iter()
                    .filter(|w| !std::ptr::eq(*w, t))
                    .collect(),
                None if args
                    .iter()
                    .any(|w| w.value.starts_with("--target-directory=")) =>
                {
                    operands
                }
                None => {
                    let n = operands.len();
                    operands.into_iter().take(n.saturating_sub(1)).collect()
                }
            }
        }
        "find" if args.iter().any(|w| w.value == "-delete") => operands
            .into_iter()
            .take_while(|w| !w.value.starts_with(['-', '(', '!']))
            .collect(),
        _ => Vec::new(),
    }
}

/// Options as given to a program whose grammar is a list of value-taking names (`-Xvalue`,
/// `-X value`, `--name=value`, `--name value`).
struct Opts<'c> {
    given: Vec<(String, Option<Val<'c>>)>,
    /// Indices in argv of the words that are values of options.
    values: Vec<usize>,
}

#[derive(Clone, Copy)]
struct Val<'c> {
    text: &'c str,
    word: &'c Word,
}

impl<'c> Opts<'c> {
    fn of(cmd: &'c SimpleCommand, takes: &[&str]) -> Opts<'c> {
        let mut given = Vec::new();
        let mut values = Vec::new();
        let mut i = 1;
        while let Some(w) = cmd.argv.get(i) {
            let v = w.value.as_str();
            i += 1;
            if v == "--" {
                break;
            }
            let mut next =
                |given: &mut Vec<(String, Option<Val<'c>>)>, name: String, i: &mut usize| {
                    let value = cmd.argv.get(*i).map(|x| Val {
                        text: x.value.as_str(),
                        word: x,
                    });
                    if value.is_some() {
                        values.push(*i);
                    }
                    given.push((name, value));
                    *i += 1;
                };
            if let Some(long) = v.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, text)) => {
                        given.push((format!("--{name}"), Some(Val { text, word: w })))
                    }
                    None if takes.iter().any(|t| names_option(v, t)) => {
                        next(&mut given, v.to_string(), &mut i)
                    }
                    None => given.push((v.to_string(), None)),
                }
                continue;
            }
            if v.len() > 1 && v.starts_with('-') {
                for (k, c) in v.char_indices().skip(1) {
                    let name = format!("-{c}");
                    if takes.contains(&name.as_str()) {
                        let rest = &v[k + c.len_utf8()..];
                        if rest.is_empty() {
                            next(&mut given, name, &mut i);
                        } else {
                            given.push((
                                name,
                                Some(Val {
                                    text: rest,
                                    word: w,
                                }),
                            ));
                        }
                        break;
                    }
                    given.push((name, None));
                }
            }
        }
        Opts { given, values }
    }

    fn given(&self, names: &[&str]) -> bool {
        self.given
            .iter()
            .any(|(n, _)| names.iter().any(|name| names_option(n, name)))
    }

    fn value(&self, names: &[&str]) -> Option<Val<'c>> {
        self.given
            .iter()
            .find(|(n, v)| v.is_some() && names.iter().any(|name| names_option(n, name)))
            .and_then(|(_, v)| *v)
    }
}

/// Whether an option as written names `option`: the same, or (getopt_long, which wget and
/// older curl use) an abbreviation of a long one (`--output-doc` for `--output-document`).
/// An ambiguous abbreviation names every option it could be, which only finds more effects;
/// [`vouched`] compares names exactly, so an abbreviation is never vouched for.
fn names_option(written: &str, option: &str) -> bool {
    written == option
        || (written.starts_with("--") && written.len() > 3 && option.starts_with(written))
}

/// The value-taking options of a fetcher: enough to tell values from URLs.
fn fetcher_values(program: &str) -> &'static [&'static str] {
    match program {
        "wget" => WGET_VALUES,
        _ => CURL_VALUES,
    }
}

const CURL_VALUES: &[&str] = &[
    "-A",
    "-b",
    "-c",
    "-C",
    "-d",
    "-D",
    "-e",
    "-E",
    "-F",
    "-H",
    "-K",
    "-m",
    "-o",
    "-P",
    "-Q",
    "-r",
    "-t",
    "-T",
    "-u",
    "-U",
    "-w",
    "-x",
    "-X",
    "-y",
    "-Y",
    "-z",
    "--data",
    "--data-ascii",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--json",
    "--form",
    "--form-string",
    "--upload-file",
    "--user",
    "--header",
    "--cookie",
    "--referer",
    "--user-agent",
    "--config",
    "--url",
    "--output",
    "--variable",
    "--request",
    "--proxy",
    "--cookie-jar",
    "--dump-header",
    "--write-out",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--cacert",
    "--cert",
    "--key",
    "--resolve",
    "--mail-rcpt",
    "--mail-from",
    "--expand-data",
    "--expand-url",
    "--expand-header",
    "--output-dir",
    "--stderr",
    "--trace",
    "--trace-ascii",
];

const WGET_VALUES: &[&str] = &[
    "-O",
    "-o",
    "-a",
    "-P",
    "-e",
    "-i",
    "-B",
    "-t",
    "-T",
    "-w",
    "-Q",
    "-U",
    "-D",
    "-l",
    "-A",
    "-R",
    "-I",
    "-X",
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--execute",
    "--input-file",
    "--base",
    "--tries",
    "--timeout",
    "--wait",
    "--quota",
    "--user-agent",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
    "--header",
    "--user",
    "--password",
    "--http-user",
    "--http-password",
    "--config",
    "--load-cookies",
    "--save-cookies",
    "--referer",
];

// ----- the data -----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    persist: Persist,
    privilege: Privilege,
    #[serde(rename = "process-control")]
    process: Process,
    #[serde(rename = "infra-change")]
    infra: Infra,
    install: Install,
    #[serde(rename = "run-remote-code")]
    remote: Remote,
    network: Network,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Persist {
    paths: Vec<String>,
    schedulers: Vec<String>,
    scheduler_looks: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Privilege {
    paths: Vec<String>,
    programs: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Process {
    programs: Vec<String>,
    machine: Vec<String>,
    verbs: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Infra {
    verbs: BTreeMap<String, Vec<String>>,
    databases: Vec<String>,
    statements: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Install {
    verbs: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Remote {
    fetch_and_run: Vec<String>,
    fetch_and_run_verbs: Vec<String>,
    local_only: Vec<String>,
    extra_sources: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Network {
    fetchers: Vec<String>,
    raw: Vec<String>,
    copiers: Vec<String>,
    lookups: Vec<String>,
    curl_data: Vec<String>,
    wget_data: Vec<String>,
    file_sources: Vec<String>,
    curl_known: Vec<String>,
    wget_known: Vec<String>,
    curl_writes: Vec<String>,
    wget_writes: Vec<String>,
}

/// The shipped data (`policies/programs/effects.toml`).
pub const DATA: &str = include_str!("../../../policies/programs/effects.toml");

/// The data, read once. A mistake in it is a build that fails its tests
/// (`the_effects_data_loads`); should it happen anyway, the model knows nothing and the
/// default decides every command, as for a program it does not know.
fn data() -> &'static Data {
    static DATA_: OnceLock<Data> = OnceLock::new();
    DATA_.get_or_init(|| {
        load(DATA).unwrap_or_else(|_| Data {
            persist: Persist {
                paths: Vec::new(),
                schedulers: Vec::new(),
                scheduler_looks: Vec::new(),
            },
            privilege: Privilege {
                paths: Vec::new(),
                programs: Vec::new(),
            },
            process: Process {
                programs: Vec::new(),
                machine: Vec::new(),
                verbs: BTreeMap::new(),
            },
            infra: Infra {
                verbs: BTreeMap::new(),
                databases: Vec::new(),
                statements: Vec::new(),
            },
            install: Install {
                verbs: BTreeMap::new(),
            },
            remote: Remote {
                fetch_and_run: Vec::new(),
                fetch_and_run_verbs: Vec::new(),
                local_only: Vec::new(),
                extra_sources: BTreeMap::new(),
            },
            network: Network {
                fetchers: Vec::new(),
                raw: Vec::new(),
                copiers: Vec::new(),
                lookups: Vec::new(),
                curl_data: Vec::new(),
                wget_data: Vec::new(),
                file_sources: Vec::new(),
                curl_known: Vec::new(),
                wget_known: Vec::new(),
                curl_writes: Vec::new(),
                wget_writes: Vec::new(),
            },
        })
    })
}

fn load(text: &str) -> Result<Data, String> {
    let d: Data = toml::from_str(text).map_err(|e| e.to_string())?;
    globs(&d.persist.paths)?;
    globs(&d.privilege.paths)?;
    Ok(d)
}

fn globs(paths: &[String]) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for p in paths {
        let g = GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{p}`: {e}"))?;
        b.add(g);
    }
    b.build().map_err(|e| e.to_string())
}

/// Programs the code reads on its own (besides every program the data names).
const CODE_PROGRAMS: [&str; 22] = [
    "git",
    "chmod",
    "gh",
    "glab",
    "docker",
    "podman",
    "nerdctl",
    "xargs",
    "parallel",
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "gvim",
    "vimdiff",
    "rvim",
    "go",
    "deno",
    "uv",
    "nix-shell",
    "systemctl",
];

const FETCHER: u16 = 1;
const RAW: u16 = 1 << 1;
const COPIER: u16 = 1 << 2;
const LOOKUP: u16 = 1 << 3;
const SCHEDULER: u16 = 1 << 4;
const PRIVILEGED: u16 = 1 << 5;
const PROCESS: u16 = 1 << 6;
const MACHINE: u16 = 1 << 7;
const DATABASE: u16 = 1 << 8;
const FETCH_RUN: u16 = 1 << 9;

/// Whether the data lists `program` in one of the `roles` (one hash lookup, not a scan of
/// every list).
fn is(program: &str, roles: u16) -> bool {
    model().roles.get(program).is_some_and(|r| r & roles != 0)
}

/// Compiled forms of the data and the interpreter-code patterns.
struct Model {
    /// Every program the data or the code knows something about.
    programs: std::collections::HashSet<String>,
    /// The lists each program is in (`FETCHER`, `RAW`, …).
    roles: std::collections::HashMap<String, u16>,
    persist: GlobSet,
    privilege: GlobSet,
    url: Option<Regex>,
    net: BTreeMap<&'static str, Regex>,
    send: BTreeMap<&'static str, Regex>,
    dynamic: BTreeMap<&'static str, Regex>,
    writes: BTreeMap<&'static str, Regex>,
}

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let d = data();
        let re = |s: &str| Regex::new(s).ok();
        let table = |items: &[(&'static str, &str)]| {
            items
                .iter()
                .filter_map(|(lang, s)| Some((*lang, re(s)?)))
                .collect::<BTreeMap<_, _>>()
        };
        let mut programs: std::collections::HashSet<String> =
            CODE_PROGRAMS.iter().map(|p| p.to_string()).collect();
        let net = &d.network;
        for list in [
            &d.persist.schedulers,
            &d.privilege.programs,
            &d.process.programs,
            &d.infra.databases,
            &d.remote.fetch_and_run,
            &net.fetchers,
            &net.raw,
            &net.copiers,
            &net.lookups,
        ] {
            programs.extend(list.iter().cloned());
        }
        for map in [
            &d.process.verbs,
            &d.infra.verbs,
            &d.install.verbs,
            &d.remote.extra_sources,
        ] {
            programs.extend(map.keys().cloned());
        }
        programs.extend(
            d.remote
                .fetch_and_run_verbs
                .iter()
                .filter_map(|v| v.split_whitespace().next().map(str::to_string)),
        );
        let mut roles: std::collections::HashMap<String, u16> = std::collections::HashMap::new();
        for (list, role) in [
            (&net.fetchers, FETCHER),
            (&net.raw, RAW),
            (&net.copiers, COPIER),
            (&net.lookups, LOOKUP),
            (&d.persist.schedulers, SCHEDULER),
            (&d.privilege.programs, PRIVILEGED),
            (&d.process.programs, PROCESS),
            (&d.process.machine, MACHINE),
            (&d.infra.databases, DATABASE),
            (&d.remote.fetch_and_run, FETCH_RUN),
        ] {
            for p in list {
                *roles.entry(p.clone()).or_default() |= role;
            }
        }
        Model {
            programs,
            roles,
            persist: globs(&d.persist.paths).unwrap_or_else(|_| GlobSet::empty()),
            privilege: globs(&d.privilege.paths).unwrap_or_else(|_| GlobSet::empty()),
            url: re(r#"(?:https?|ftp|wss?)://(?:[^@/\s"']*@)?([A-Za-z0-9.\-]+)"#),
            net: table(INTERP_NET),
            send: table(INTERP_SEND),
            dynamic: table(INTERP_DYNAMIC),
            writes: table(INTERP_WRITES),
        }
    })
}

/// Interpreter code that opens network connections.
const INTERP_NET: &[(&str, &str)] = &[
    (
        "python",
        r"\b(urllib|urlopen|requests\.|httpx|http\.client|socket\.|aiohttp|smtplib|ftplib|paramiko|websocket)",
    ),
    (
        "node",
        r#"\b(fetch\s*\(|https?\.(request|get)|net\.(connect|createConnection)|axios|XMLHttpRequest|WebSocket|dgram)|require\s*\(\s*['"`](node:)?(https?|net|tls|dgram|http2)['"`]\s*\)"#,
    ),
    ("deno", r"\b(fetch\s*\(|Deno\.connect|WebSocket)"),
    (
        "ruby",
        r"(Net::HTTP|open-uri|URI\.open|TCPSocket|UDPSocket|Faraday|HTTParty|RestClient)",
    ),
    ("perl", r"(LWP|HTTP::Tiny|IO::Socket|Net::|Socket\b)"),
    (
        "php",
        r"\b(curl_init|curl_exec|fsockopen|stream_socket_client|file_get_contents\s*\(\s*.https?:|fopen\s*\(\s*.https?:)",
    ),
];

/// Network code that sends: request bodies, posts, socket writes, files or the environment
/// read into it.
const INTERP_SEND: &[(&str, &str)] = &[
    (
        "python",
        r"(data\s*=|json\s*=|files\s*=|\.post\s*\(|\.put\s*\(|\.patch\s*\(|\.send(all)?\s*\(|\.sendto\s*\(|\bopen\s*\(|environ|getenv|POST|PUT)",
    ),
    (
        "node",
        r#"(method\s*:\s*['"](POST|PUT|PATCH)|body\s*:|\.write\s*\(|\.send\s*\(|\.post\s*\(|\.put\s*\(|readFileSync|process\.env)"#,
    ),
    (
        "deno",
        r#"(method\s*:\s*['"](POST|PUT|PATCH)|body\s*:|readTextFile|readFile|Deno\.env|\.write\s*\()"#,
    ),
    (
        "ruby",
        r"(post|put|patch|\.write|\.puts|\.print|\.send|File\.read|IO\.read|ENV\[)",
    ),
    (
        "perl",
        r"(post|put|print\s*\$|send\s*\(|syswrite|<\$|\$ENV|open\s*\()",
    ),
    (
        "php",
        r"(CURLOPT_POST|CURLOPT_POSTFIELDS|fwrite|fputs|file_get_contents\s*\(\s*.[^h]|getenv|\$_ENV)",
    ),
];

/// Code that builds what it runs at run time: what it does cannot be read.
const INTERP_DYNAMIC: &[(&str, &str)] = &[
    (
        "python",
        r"\b(eval|exec|compile|__import__|getattr|execfile)\s*\(|\bimportlib\b|\bmarshal\.loads|\bpickle\.loads|\bctypes\b",
    ),
    (
        "node",
        r"\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bvm\.run|\brequire\s*\(\s*[^'`)\s]|\bimport\s*\(\s*[^'`)\s]",
    ),
    (
        "deno",
        r"\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bimport\s*\(\s*[^'`)\s]",
    ),
    (
        "ruby",
        r"\b(eval|instance_eval|class_eval|module_eval|instance_exec|send|public_send|const_get)\b",
    ),
    ("perl", r"\beval\b|\bdo\s*\(?\s*\$|\brequire\s+\$"),
    (
        "php",
        r"\b(eval|assert|create_function|call_user_func|call_user_func_array|include|require|include_once|require_once)\b|\$\w+\s*\(",
    ),
];

/// Files opened for writing, with their path when it is a literal.
const INTERP_WRITES: &[(&str, &str)] = &[
    (
        "python",
        r#"\bopen\s*\(\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)\s*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+]|Path\s*\(\s*['"](?P<path2>[^'"]+)['"]\s*\)\s*\.\s*(?:write_text|write_bytes|touch|open\s*\(\s*['"][^'"]*[wax+])"#,
    ),
    (
        "node",
        r#"\b(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream|copyFileSync|renameSync|symlinkSync)\s*\(\s*(?:['"`](?P<path>[^'"`]+)['"`]|[^'"`,)]+)"#,
    ),
    (
        "deno",
        r#"\bDeno\.(?:writeTextFile|writeFile|writeTextFileSync|writeFileSync)\s*\(\s*(?:['"`](?P<path>[^'"`]+)['"`]|[^'"`,)]+)"#,
    ),
    (
        "ruby",
        r#"\bFile\.write\s*\(?\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bFile\.open\s*\(\s*(?:['"](?P<path2>[^'"]+)['"]|[^'",)]+)\s*,\s*['"][^'"]*[wa+]"#,
    ),
    (
        "perl",
        r#"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"](?:>>?|\+<|\+>)['"]\s*,\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"](?:>>?|\+<|\+>)\s*(?P<path2>[^'"]+)['"]"#,
    ),
    (
        "php",
        r#"\bfile_put_contents\s*\(\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bfopen\s*\(\s*(?:['"](?P<path2>[^'"]+)['"]|[^'",)]+)\s*,\s*['"][^'"]*[wax+]"#,
    ),
];

#[cfg(test)]
mod tests;
