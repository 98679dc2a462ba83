//! `harness9 sandbox`: runs a command contained, on bubblewrap (`bwrap`, from the
//! distribution's packages) and the kernel's namespaces, with a seccomp filter.
//!
//! A contained command
//! - sees the whole file system read-only, except every hard protection (the catalogue's
//!   credential stores and the policy's `protect` paths), which is hidden: an empty read-only
//!   folder over a folder, an empty read-only file over a file;
//! - writes only the project (the working folder), private temporary folders (`/tmp`,
//!   `/var/tmp`, `/dev/shm`, and `$TMPDIR` when elsewhere: empty at the start, gone at the
//!   end), and the caches its profile names; never the project's `.git/hooks`, `.git/config`,
//!   `.harness9`, the agents' settings folders, `.mcp.json` or `.envrc` (mounted read-only;
//!   where one does not exist, an empty one is made for the run and taken away by the last
//!   contained command of the project to end, so that it cannot be made either; the folders
//!   above each are pinned, so that renaming one does not take the mount along);
//! - has no network (its own network namespace holds only a loopback), no Unix socket reaching
//!   outside (`/run` is empty and `socket(AF_UNIX)` is refused), and no environment variable
//!   whose name says it holds a credential;
//! - cannot see or trace a process outside (its own PID namespace), make or join a namespace,
//!   mount, or gain a privilege (no capabilities, `no_new_privs`, `nosuid` mounts, the seccomp
//!   filter of [`seccomp`]); its children are contained alike, and die with it.
//!
//! Paths are contained by mounts, not by checking names, so a symlink, `/proc/self/root` or
//! `..` reaches only what the mounts show.

// Elsewhere there is no sandbox: `prepare` says so, and what it builds on is left unused.
#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

pub mod failure;
#[cfg(target_os = "linux")]
mod seccomp;

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::engine::paths::has_meta;
use crate::engine::{PathContext, Protections};

pub use harness9_core::sandbox::{
    profile, profile_names, Profile, Support, CONTAINED_MEANS, DEFAULT_PROFILE, PROFILES,
};

/// What a path in the project is, when it has to be made for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
}

/// The project's files and folders a contained command may not write: what runs code the next
/// time a person or an agent works here (git's hooks and configuration, direnv's `.envrc`, the
/// agents' settings and MCP servers) and harness9's own policy folder.
const PROJECT_GUARDED: &[(&str, Kind)] = &[
    (".git/hooks", Kind::Folder),
    (".git/config", Kind::File),
    (".harness9", Kind::Folder),
    (".claude", Kind::Folder),
    (".gemini", Kind::Folder),
    (".codex", Kind::Folder),
    (".cursor", Kind::Folder),
    (".vscode", Kind::Folder),
    (".idea", Kind::Folder),
    (".mcp.json", Kind::File),
    (".envrc", Kind::File),
];

/// The words in an environment variable's name that say it holds a credential: such variables
/// are not passed in.
const SECRET_ENV_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION_KEY",
];

/// Whether an environment variable of that name is kept from a contained command.
pub fn secret_env(name: &OsStr) -> bool {
    // `GIT_AUTHOR_NAME` is not an `AUTH`.
    let name = name
        .to_string_lossy()
        .to_ascii_uppercase()
        .replace("AUTHOR", "");
    SECRET_ENV_WORDS.iter().any(|w| name.contains(w))
}

/// A walk below a wildcard protection's folder stops past this many entries (and the sandbox
/// refuses to start: it would not know what to hide).
const MAX_WALK: usize = 20_000;
const MAX_DEPTH: usize = 8;

/// Why a command could not be run contained.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the sandbox is not available: {0}")]
    Unavailable(String),
    #[error("{0}")]
    Refused(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Filter(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> SandboxError {
    let what = what.into();
    move |source| SandboxError::Io { what, source }
}

/// Where a contained command runs, and what it may reach.
#[derive(Debug)]
pub struct Setup<'a> {
    /// The project: the folder it may write (and starts in).
    pub project: &'a Path,
    pub home: Option<&'a Path>,
    pub protections: &'a Protections,
    pub ctx: &'a PathContext,
    pub profile: &'a Profile,
}

/// A sandbox ready to run one command: bubblewrap's arguments, the seccomp filters' files, and
/// the project's lock (when dropped, the placeholders made in the project go, unless another
/// contained command still runs there).
#[derive(Debug)]
pub struct Prepared {
    args: Vec<OsString>,
    filters: Vec<tempfile::NamedTempFile>,
    project: PathBuf,
    lock: Option<ProjectLock>,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(lock) = self.lock.take() {
            lock.tidy();
        }
    }
}

/// The lock every contained command of a project holds (shared) while it runs, in a file that
/// lists the placeholders made there. A placeholder is taken away only by the last one to end:
/// taking it away while another still runs would lift that one's mount over it (the kernel
/// detaches a mount whose place is removed in another namespace), and let that command make
/// what the placeholder kept it from making.
#[derive(Debug)]
struct ProjectLock {
    file: std::fs::File,
}

/// A stable hash of a project's path, for its lock's name.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Where the projects' locks are: the user's runtime folder, else the user's cache.
fn lock_folder(home: Option<&Path>) -> Result<PathBuf, SandboxError> {
    if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        if run.is_absolute() && run.is_dir() {
            return Ok(run.join("harness9-sandbox"));
        }
    }
    match home {
        Some(h) => Ok(h.join(".cache/harness9/sandbox")),
        None => Err(SandboxError::Refused(
            "neither XDG_RUNTIME_DIR nor HOME is set: there is no folder for the sandbox's \
             lock"
                .into(),
        )),
    }
}

impl ProjectLock {
    /// Takes the project's lock, shared (waiting while the last command to end tidies up).
    fn take(folder: &Path, project: &Path) -> Result<ProjectLock, SandboxError> {
        use std::os::unix::ffi::OsStrExt as _;
        let what = || format!("cannot lock the project in `{}`", folder.display());
        std::fs::create_dir_all(folder).map_err(io(what()))?;
        let name = format!("{:016x}.lock", fnv1a(project.as_os_str().as_bytes()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(folder.join(name))
            .map_err(io(what()))?;
        file.lock_shared().map_err(io(what()))?;
        Ok(ProjectLock { file })
    }

    /// Records placeholders made, one path a line.
    fn record(&mut self, made: &[PathBuf]) -> Result<(), SandboxError> {
        use std::os::unix::ffi::OsStrExt as _;
        let mut text = Vec::new();
        for p in made {
            text.extend_from_slice(p.as_os_str().as_bytes());
            text.push(b'\n');
        }
        self.file
            .write_all(&text)
            .and_then(|()| self.file.flush())
            .map_err(io("cannot record the sandbox's placeholders"))
    }

    /// When no other contained command runs in the project: takes away every placeholder
    /// recorded that is still as made (an empty folder, an empty file), last made first.
    fn tidy(mut self) {
        use std::io::{Read as _, Seek as _};
        use std::os::unix::ffi::OsStrExt as _;
        if self.file.try_lock().is_err() {
            return;
        }
        let mut text = Vec::new();
        if self.file.rewind().is_err() || self.file.read_to_end(&mut text).is_err() {
            return;
        }
        for line in text.split(|&b| b == b'\n').rev() {
            if line.is_empty() {
                continue;
            }
            let path = Path::new(OsStr::from_bytes(line));
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => {
                    let _ = std::fs::remove_dir(path);
                }
                Ok(m) if m.is_file() && m.len() == 0 => {
                    let _ = std::fs::remove_file(path);
                }
                _ => {}
            }
        }
        let _ = self.file.set_len(0);
    }
}

/// A mount over a path of the host, after the writable ones.
#[derive(Debug)]
enum Over {
    /// The project's guarded paths: shown, read-only.
    ReadOnly(PathBuf),
    /// A hard protection: an empty read-only folder or file in its place.
    HideFolder(PathBuf),
    HideFile(PathBuf),
}

impl Over {
    fn path(&self) -> &Path {
        match self {
            Over::ReadOnly(p) | Over::HideFolder(p) | Over::HideFile(p) => p,
        }
    }
}

/// `p` lexically below (or at) `dir`.
fn within(p: &Path, dir: &Path) -> bool {
    p.starts_with(dir)
}

/// Makes `path` (and the folders on its way that are missing), recording each.
fn make(path: &Path, kind: Kind, made: &mut Vec<PathBuf>) -> Result<(), SandboxError> {
    let mut missing = Vec::new();
    let mut at = path;
    while std::fs::symlink_metadata(at).is_err() {
        missing.push(at.to_path_buf());
        match at.parent() {
            Some(p) => at = p,
            None => break,
        }
    }
    while let Some(p) = missing.pop() {
        let k = if missing.is_empty() {
            kind
        } else {
            Kind::Folder
        };
        let what = || format!("cannot make `{}` to keep it read-only", p.display());
        match k {
            Kind::Folder => std::fs::create_dir(&p).map_err(io(what()))?,
            Kind::File => {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&p)
                    .map_err(io(what()))?;
            }
        }
        made.push(p);
    }
    Ok(())
}

/// Every existing path below `base` that `covers` says is protected (for a protection with a
/// wildcard), with a bound on the walk.
fn walk_covered(
    base: &Path,
    covers: &dyn Fn(&Path) -> bool,
    out: &mut Vec<PathBuf>,
) -> Result<(), SandboxError> {
    let mut seen = 0usize;
    let mut stack = vec![(base.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_WALK {
                return Err(SandboxError::Refused(format!(
                    "a protected path's wildcard reaches more than {MAX_WALK} entries below `{}`; \
                     the sandbox cannot tell what to hide",
                    base.display()
                )));
            }
            let path = entry.path();
            if covers(&path) {
                out.push(path);
            } else if depth < MAX_DEPTH && entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((path, depth + 1));
            }
        }
    }
    Ok(())
}

/// The paths to hide: every hard protection that exists (where it is written, and where a
/// symlink on its way really leads), and those that do not exist but could be made (in the
/// project or a cache).
fn protected_paths(setup: &Setup) -> Result<Vec<PathBuf>, SandboxError> {
    let mut out = Vec::new();
    for prot in setup.protections.iter() {
        if has_meta(&prot.resolved.to_string_lossy()) {
            walk_covered(prot.base(), &|p| prot.covers(p, true, setup.ctx), &mut out)?;
            continue;
        }
        out.push(prot.resolved.clone());
        // Where a symlink on the way really leads (looked up only for a path that is there:
        // most of the catalogue's some 300 stores are not, on any one machine).
        if std::fs::symlink_metadata(&prot.resolved).is_ok() {
            if let Some(real) = prot.canonical(setup.ctx) {
                out.push(real.to_path_buf());
            }
        }
    }
    Ok(out)
}

/// The hooks folders inside the project that git's `core.hooksPath` names (in the project's
/// `.git/config` or the user's git configuration): husky's `.husky/_`, a `.githooks`. Such a
/// folder runs code at the next commit as `.git/hooks` does, and is guarded alike; husky's
/// wrappers in `_` run the scripts of the folder above it, which is guarded too.
fn hooks_paths(project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = vec![project.join(".git/config")];
    if let Some(h) = home {
        files.push(h.join(".gitconfig"));
        files.push(h.join(".config/git/config"));
    }
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            if !key.trim().eq_ignore_ascii_case("hookspath") {
                continue;
            }
            let value = value.trim().trim_matches('"');
            let path = match value.strip_prefix("~/") {
                Some(rest) => match home {
                    Some(h) => h.join(rest),
                    None => continue,
                },
                None => project.join(value),
            };
            // Lexically: `..` parts are taken away before the check that it is inside.
            let mut clean = PathBuf::new();
            for c in path.components() {
                match c {
                    std::path::Component::ParentDir => {
                        clean.pop();
                    }
                    std::path::Component::CurDir => {}
                    c => clean.push(c),
                }
            }
            if clean == project || !within(&clean, project) {
                continue;
            }
            if clean.file_name().is_some_and(|n| n == "_") {
                if let Some(parent) = clean.parent().filter(|p| *p != project) {
                    out.push(parent.to_path_buf());
                }
            }
            out.push(clean);
        }
    }
    out
}

/// The system's folders: a project there would let a contained command change the system.
const SYSTEM: &[&str] = &[
    "/etc",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/boot",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/share",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/local/lib",
    "/var/spool",
    "/var/log",
];

/// A project the sandbox will not open for writing: `/`, the home folder or one that holds
/// it, a folder of the system's, or one below a hidden folder of home (`~/.config`,
/// `~/.local`: what runs at the next log-in or command lives there).
fn refuse_project(project: &Path, home: Option<&Path>) -> Result<(), SandboxError> {
    let refuse = |why: &str| {
        Err(SandboxError::Refused(format!(
            "the project `{}` {why}; run it from a project folder",
            project.display()
        )))
    };
    if project == Path::new("/") {
        return refuse("is `/`: a contained command could write everywhere");
    }
    if SYSTEM.iter().any(|s| within(project, Path::new(s))) {
        return refuse("is a system folder: a contained command could change the system");
    }
    if let Some(home) = home {
        let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
        if within(&home, project) {
            return refuse(
                "holds the home folder: a contained command could write the shell's \
                 start-up files",
            );
        }
        let first = project
            .strip_prefix(&home)
            .ok()
            .and_then(|rest| rest.components().next());
        if first.is_some_and(|c| c.as_os_str().to_string_lossy().starts_with('.')) {
            return refuse(
                "is below a hidden folder of home, where programs keep their settings: a \
                 contained command could change what runs outside it",
            );
        }
    }
    Ok(())
}

/// Expands `~/` with home.
fn from_home(p: &str, home: Option<&Path>) -> Option<PathBuf> {
    match p.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)),
        None => Some(PathBuf::from(p)),
    }
}

/// Prepares the sandbox for `setup`: its mounts in order (later ones win), the placeholders
/// made, the seccomp filters written.
#[cfg(not(target_os = "linux"))]
pub fn prepare(_setup: &Setup) -> Result<Prepared, SandboxError> {
    Err(not_linux())
}

/// Why there is no sandbox on another system.
fn not_linux() -> SandboxError {
    SandboxError::Unavailable(
        "the sandbox is built on Linux's namespaces and bubblewrap; this system is not Linux"
            .into(),
    )
}

#[cfg(target_os = "linux")]
pub fn prepare(setup: &Setup) -> Result<Prepared, SandboxError> {
    let project = setup.project.canonicalize().map_err(io(format!(
        "cannot find the project `{}`",
        setup.project.display()
    )))?;
    refuse_project(&project, setup.home)?;
    let caches: Vec<PathBuf> = setup
        .profile
        .caches
        .iter()
        .filter_map(|c| from_home(c, setup.home))
        .filter_map(|c| c.canonicalize().ok())
        .filter(|c| c.is_dir())
        .collect();
    let writable = |p: &Path| within(p, &project) || caches.iter().any(|c| within(p, c));

    if project.as_os_str().as_encoded_bytes().contains(&b'\n') {
        return Err(SandboxError::Refused(
            "the project's path holds a line break".into(),
        ));
    }
    let mut prepared = Prepared {
        args: Vec::new(),
        filters: Vec::new(),
        project: project.clone(),
        lock: Some(ProjectLock::take(&lock_folder(setup.home)?, &project)?),
    };
    let mut made: Vec<PathBuf> = Vec::new();
    let mut args: Vec<OsString> = Vec::new();
    let mut arg = |a: &[&OsStr]| args.extend(a.iter().map(|s| s.to_os_string()));
    let o = OsStr::new;

    arg(&[
        o("--unshare-all"),
        // `--unshare-all` tries a user namespace; without one (bubblewrap run by root) no
        // further one could be refused.
        o("--unshare-user"),
        o("--disable-userns"),
        o("--die-with-parent"),
        o("--new-session"),
        o("--cap-drop"),
        o("ALL"),
        o("--ro-bind"),
        o("/"),
        o("/"),
        o("--dev"),
        o("/dev"),
        o("--proc"),
        o("/proc"),
        o("--tmpfs"),
        o("/dev/shm"),
    ]);
    // Sockets of services outside (D-Bus, Docker, an SSH agent) live in `/run`.
    for run in ["/run", "/var/run"] {
        let real = Path::new(run).symlink_metadata().is_ok_and(|m| m.is_dir());
        if real {
            arg(&[o("--tmpfs"), o(run)]);
        }
    }
    let mut temps = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    let tmpdir = std::env::temp_dir();
    if let Ok(t) = tmpdir.canonicalize() {
        if !temps.contains(&t) && !within(&project, &t) {
            temps.push(t);
        }
    }
    for t in &temps {
        if t.is_dir() {
            arg(&[o("--tmpfs"), t.as_os_str()]);
        }
    }
    arg(&[o("--bind"), project.as_os_str(), project.as_os_str()]);
    for c in &caches {
        arg(&[o("--bind"), c.as_os_str(), c.as_os_str()]);
    }

    // The project's guarded paths: read-only, made first when missing.
    let git_folder = project.join(".git").is_dir();
    let mut guarded = Vec::new();
    for &(rel, kind) in PROJECT_GUARDED {
        if rel.starts_with(".git/") && !git_folder {
            continue;
        }
        guarded.push((project.join(rel), kind));
    }
    for hooks in hooks_paths(&project, setup.home) {
        guarded.push((hooks, Kind::Folder));
    }
    // A `.git` that is not a folder (a worktree's pointer to its repository) may not be changed
    // to point elsewhere; where there is none, none may be made (its configuration would run
    // code at the next `git status`): an empty folder stands there for the run, which git
    // passes over to the repository above, if any.
    if !git_folder {
        guarded.push((project.join(".git"), Kind::Folder));
    }
    let mut over: Vec<Over> = Vec::new();
    for (path, kind) in &guarded {
        let path = &path.canonicalize().unwrap_or_else(|_| path.clone());
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() && std::fs::metadata(path).is_err() => {
                return Err(SandboxError::Refused(format!(
                    "`{}` is a symlink to nothing: a contained command could make what it \
                     names",
                    path.display()
                )));
            }
            Ok(_) => {}
            Err(_) => {
                let r = make(path, *kind, &mut made);
                prepared.record(&mut made)?;
                r?;
            }
        }
        over.push(Over::ReadOnly(path.clone()));
    }

    // The hard protections: hidden, last, so that no mount above shows them again. Each is
    // mounted over where it really is (bubblewrap cannot mount through a symlink on the way).
    let mut hidden: Vec<PathBuf> = Vec::new();
    for path in protected_paths(setup)? {
        // Not there and not where the command may write: nothing to hide, nothing to keep
        // from being made (checked first: it is most of them, and the cheapest).
        let there = std::fs::symlink_metadata(&path).is_ok();
        if !there && !writable(&path) {
            continue;
        }
        let path = path.canonicalize().unwrap_or(path);
        if hidden.contains(&path) {
            continue;
        }
        hidden.push(path.clone());
        let meta = std::fs::metadata(&path);
        let meta = match meta {
            Ok(m) => m,
            Err(_) if std::fs::symlink_metadata(&path).is_ok() => {
                // A symlink to nothing: what it names must not be makeable either.
                let target = std::fs::read_link(&path)
                    .map(|t| path.parent().map(|d| d.join(&t)).unwrap_or(t))
                    .unwrap_or_else(|_| path.clone());
                if writable(&path) || writable(&target) {
                    return Err(SandboxError::Refused(format!(
                        "the protected path `{}` is a symlink to nothing in a folder the \
                         command may write (`{}`)",
                        path.display(),
                        target.display()
                    )));
                }
                continue;
            }
            Err(_) => {
                // Not there: only where the command may write could it be made.
                if !writable(&path) {
                    continue;
                }
                let r = make(&path, Kind::Folder, &mut made);
                prepared.record(&mut made)?;
                r?;
                match std::fs::metadata(&path) {
                    Ok(m) => m,
                    Err(e) => return Err(io(format!("cannot read `{}`", path.display()))(e)),
                }
            }
        };
        over.push(if meta.is_dir() {
            Over::HideFolder(path)
        } else {
            Over::HideFile(path)
        });
    }

    // A mount moves with a folder renamed above it (`mv .git x` would take the read-only
    // hooks along and leave a writable `.git` to make anew): every folder between a writable
    // root and a path mounted over is bound onto itself, and a mount point cannot be renamed.
    let mut pins: Vec<PathBuf> = Vec::new();
    for m in &over {
        let path = m.path();
        let Some(root) = std::iter::once(&project)
            .chain(&caches)
            .find(|r| within(path, r))
        else {
            continue;
        };
        let mut at = path.parent();
        while let Some(a) = at {
            if a == root.as_path() || !within(a, root) {
                break;
            }
            if !pins.iter().any(|p| p == a) {
                pins.push(a.to_path_buf());
            }
            at = a.parent();
        }
    }
    pins.sort_by_key(|p| p.components().count());
    for p in &pins {
        arg(&[o("--bind"), p.as_os_str(), p.as_os_str()]);
    }
    for m in &over {
        match m {
            Over::ReadOnly(p) => arg(&[o("--ro-bind"), p.as_os_str(), p.as_os_str()]),
            Over::HideFolder(p) => arg(&[
                o("--tmpfs"),
                p.as_os_str(),
                o("--remount-ro"),
                p.as_os_str(),
            ]),
            Over::HideFile(p) => arg(&[o("--ro-bind"), o("/dev/null"), p.as_os_str()]),
        }
    }

    let filter = |e: seccomp::FilterError| SandboxError::Filter(e.to_string());
    for (fd, program) in [
        (3, seccomp::denials().map_err(filter)?),
        (4, seccomp::not_here().map_err(filter)?),
    ] {
        let mut f = tempfile::NamedTempFile::new()
            .map_err(io("cannot write the sandbox's seccomp filter"))?;
        f.write_all(&seccomp::to_bytes(&program))
            .and_then(|()| f.flush())
            .map_err(io("cannot write the sandbox's seccomp filter"))?;
        prepared.filters.push(f);
        arg(&[o("--add-seccomp-fd"), o(&fd.to_string())]);
    }
    arg(&[o("--chdir"), project.as_os_str()]);
    prepared.args = args;
    Ok(prepared)
}

impl Prepared {
    /// Records the placeholders just made with the project's lock (and forgets them here).
    fn record(&mut self, made: &mut Vec<PathBuf>) -> Result<(), SandboxError> {
        if let Some(lock) = &mut self.lock {
            lock.record(made)?;
        }
        made.clear();
        Ok(())
    }

    /// The command that runs `cmd` contained, through `bwrap`: a shell opens the seccomp
    /// filters' files as descriptors 3 and 4 for bubblewrap to read (and close) before it
    /// starts `cmd`. The environment is passed in, less what [`secret_env`] keeps out.
    pub fn command(&self, bwrap: &Path, cmd: &[OsString]) -> Command {
        close_inherited();
        let mut c = Command::new("/bin/sh");
        c.arg("-c")
            .arg(r#"f3=$1; f4=$2; shift 2; exec "$@" 3<"$f3" 4<"$f4""#)
            .arg("sh");
        for f in &self.filters {
            c.arg(f.path());
        }
        c.arg(bwrap).args(&self.args).arg("--").args(cmd);
        for (name, _) in std::env::vars_os() {
            if secret_env(&name) {
                c.env_remove(name);
            }
        }
        c.current_dir(&self.project);
        c
    }

    /// Runs `cmd` contained and waits for it; its exit code comes back (128 + the signal's
    /// number when a signal ended it, as a shell says). SIGINT, SIGTERM and SIGHUP to this
    /// process end the sandbox (bubblewrap is killed, and with it all it contains) and leave
    /// this process to tidy up the project's placeholders before it exits.
    pub fn run(&self, bwrap: &Path, cmd: &[OsString]) -> Result<i32, SandboxError> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use std::sync::atomic::AtomicUsize;
        use std::sync::Arc;
        let got = Arc::new(AtomicUsize::new(0));
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let number = usize::try_from(sig).unwrap_or(0);
            let id = signal_hook::flag::register_usize(sig, got.clone(), number)
                .map_err(io("cannot watch for signals"))?;
            ids.push(id);
        }
        let result = self.wait(bwrap, cmd, &got);
        for id in ids {
            signal_hook::low_level::unregister(id);
        }
        let (status, signalled) = result?;
        if let Some(sig) = signalled {
            return Ok(128 + sig);
        }
        Ok(exit_code(status))
    }

    fn wait(
        &self,
        bwrap: &Path,
        cmd: &[OsString],
        got: &std::sync::atomic::AtomicUsize,
    ) -> Result<(std::process::ExitStatus, Option<i32>), SandboxError> {
        let what = || format!("cannot run `{}`", bwrap.display());
        let mut child = self.command(bwrap, cmd).spawn().map_err(io(what()))?;
        let mut signalled = None;
        // Short at first, so that a quick command is not kept waiting for; then at most 10 ms.
        let mut pause = std::time::Duration::from_millis(1);
        let step = std::time::Duration::from_millis(1);
        loop {
            if let Some(status) = child.try_wait().map_err(io(what()))? {
                return Ok((status, signalled));
            }
            let sig = got.load(std::sync::atomic::Ordering::SeqCst);
            if sig != 0 && signalled.is_none() {
                signalled = i32::try_from(sig).ok();
                let _ = child.kill();
            }
            std::thread::sleep(pause);
            pause = (pause + step).min(std::time::Duration::from_millis(10));
        }
    }

    /// Bubblewrap's arguments (for `--explain`-like output and tests).
    pub fn args(&self) -> &[OsString] {
        &self.args
    }
}

/// A command's exit code; 128 + the signal's number when a signal ended it.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 1,
    }
}

/// Marks every descriptor above standard error close-on-exec: one this process was handed
/// open (a pipe, a folder) would otherwise pass through bubblewrap into the sandbox, a way out
/// of it. (Those this process opened are close-on-exec already.)
fn close_inherited() {
    #[cfg(target_os = "linux")]
    close_inherited_linux();
}

#[cfg(target_os = "linux")]
fn close_inherited_linux() {
    use nix::fcntl::{fcntl, FcntlArg, FdFlag};
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        let _ = fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC));
    }
}

/// Where bubblewrap is: the system's own copy first, then `PATH`.
pub fn find_bwrap() -> Result<PathBuf, SandboxError> {
    bwrap_in(
        &["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"],
        std::env::var_os("PATH"),
    )
}

fn bwrap_in(fixed: &[&str], path: Option<OsString>) -> Result<PathBuf, SandboxError> {
    for p in fixed {
        if Path::new(p).is_file() {
            return Ok(PathBuf::from(p));
        }
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("bwrap");
            if dir.is_absolute() && p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(SandboxError::Unavailable(
        "bubblewrap (`bwrap`) is not installed (Debian and Ubuntu: `apt-get install \
         bubblewrap`; Fedora: `dnf install bubblewrap`)"
            .into(),
    ))
}

/// The environment variable that turns contained decisions into asks (`HARNESS9_NO_SANDBOX=1`):
/// for a machine where the sandbox starts but a project's commands cannot work in it.
pub const NO_SANDBOX_ENV: &str = "HARNESS9_NO_SANDBOX";

/// Whether commands can be run contained here, by a cheap look (no process is started, so a
/// hook or `check` can ask it on every call): Linux, bubblewrap where [`find_bwrap`] looks,
/// and unprivileged user namespaces not turned off (`/proc/sys/user/max_user_namespaces`,
/// Debian's `kernel.unprivileged_userns_clone`, Ubuntu's AppArmor restriction unless
/// bubblewrap has its profile). [`probe`] is the thorough check `harness9 doctor` runs:
/// where this says yes and bubblewrap still fails, `harness9 sandbox` exits 125 without
/// running the command, never running it free.
pub fn support() -> Support {
    if std::env::var_os(NO_SANDBOX_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        return Support::Unavailable(format!("{NO_SANDBOX_ENV} is set"));
    }
    if !cfg!(target_os = "linux") {
        return Support::Unavailable(not_linux().to_string());
    }
    if let Err(e) = find_bwrap() {
        return Support::Unavailable(e.to_string());
    }
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    namespaces_support(
        read("/proc/sys/user/max_user_namespaces").as_deref(),
        read("/proc/sys/kernel/unprivileged_userns_clone").as_deref(),
        read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref(),
        Path::new("/etc/apparmor.d/bwrap-userns-restrict").exists()
            || Path::new("/etc/apparmor.d/bwrap").exists(),
    )
}

/// What the kernel's settings say of unprivileged user namespaces (each `None` when the file
/// is not there).
fn namespaces_support(
    max: Option<&str>,
    clone: Option<&str>,
    apparmor: Option<&str>,
    bwrap_profile: bool,
) -> Support {
    let off = |why: &str| Support::Unavailable(format!("user namespaces are off here ({why})"));
    match max {
        None => return off("no /proc/sys/user/max_user_namespaces"),
        Some("0") => return off("user.max_user_namespaces is 0"),
        Some(_) => {}
    }
    if clone == Some("0") {
        return off("kernel.unprivileged_userns_clone is 0");
    }
    if apparmor == Some("1") && !bwrap_profile {
        return off(
            "AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns is 1) and \
             bubblewrap has no AppArmor profile",
        );
    }
    Support::Available
}

/// Whether the sandbox works here: `true` run contained in an empty project. `Ok` tells
/// bubblewrap's version and path; `Err` why it does not work.
pub fn probe() -> Result<String, SandboxError> {
    if !cfg!(target_os = "linux") {
        return Err(not_linux());
    }
    probe_with(&find_bwrap()?)
}

fn probe_with(bwrap: &Path) -> Result<String, SandboxError> {
    let version = Command::new(bwrap)
        .arg("--version")
        .output()
        .map_err(io(format!("cannot run `{}`", bwrap.display())))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let dir = tempfile::tempdir().map_err(io("cannot make a folder to try the sandbox in"))?;
    let project = dir.path().join("project");
    std::fs::create_dir(&project).map_err(io("cannot make a folder to try the sandbox in"))?;
    let ctx = PathContext::new(project.clone(), None);
    let protections = Protections::new(None);
    // A home of its own, for the project's lock.
    let home = dir.path().join("home");
    let setup = Setup {
        project: &project,
        home: Some(&home),
        protections: &protections,
        ctx: &ctx,
        profile: &PROFILES[0],
    };
    let prepared = prepare(&setup)?;
    let out = prepared
        .command(bwrap, &[OsString::from("true")])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(io(format!("cannot run `{}`", bwrap.display())))?;
    if out.status.success() {
        return Ok(format!("{version} at {}", bwrap.display()));
    }
    let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
    Err(SandboxError::Unavailable(format!(
        "{} does not start a sandbox: {said}{}",
        bwrap.display(),
        hint(&said)
    )))
}

/// What bubblewrap's complaint most likely means here.
fn hint(said: &str) -> &'static str {
    if said.contains("Unknown option") {
        " (bubblewrap 0.8 or newer is needed)"
    } else if said.contains("namespace") || said.contains("uid map") || said.contains("uid_map") {
        " (user namespaces are off or restricted here: see `sysctl \
         kernel.unprivileged_userns_clone`, `user.max_user_namespaces` and, on Ubuntu, \
         `kernel.apparmor_restrict_unprivileged_userns`; a container may forbid them)"
    } else if said.contains("seccomp") {
        " (the kernel does not take the sandbox's seccomp filter)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_variables_are_kept_out_and_others_passed() {
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "ANTHROPIC_API_KEY",
            "npm_config__authToken",
            "SSH_AUTH_SOCK",
        ] {
            assert!(secret_env(OsStr::new(name)), "{name} should be kept out");
        }
        for name in [
            "PATH",
            "HOME",
            "GIT_AUTHOR_NAME",
            "CARGO_HOME",
            "LANG",
            "TERM",
        ] {
            assert!(!secret_env(OsStr::new(name)), "{name} should be passed");
        }
    }

    #[test]
    fn without_bwrap_the_sandbox_is_unavailable_and_says_how_to_install_it() {
        let empty = tempfile::tempdir().unwrap();
        let e = bwrap_in(
            &["/nonexistent/bwrap"],
            Some(empty.path().as_os_str().to_os_string()),
        )
        .unwrap_err();
        assert!(matches!(e, SandboxError::Unavailable(_)));
        assert!(e.to_string().contains("apt-get install bubblewrap"), "{e}");
    }

    /// A `bwrap` that answers as bubblewrap does where it cannot work.
    fn fake_bwrap(dir: &Path, complaint: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let p = dir.join("bwrap");
        let script = format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'bubblewrap 0.4.0'; exit 0; }}\n\
             echo '{complaint}' >&2\nexit 1\n"
        );
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_bwrap_that_cannot_start_a_sandbox_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let userns = dir.path().join("userns");
        let old = dir.path().join("old");
        std::fs::create_dir_all(&userns).unwrap();
        std::fs::create_dir_all(&old).unwrap();
        let e = probe_with(&fake_bwrap(
            &userns,
            "bwrap: No permissions to create new namespace, likely because the kernel does \
             not allow non-privileged user namespaces.",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("No permissions to create new namespace"), "{e}");
        assert!(e.contains("user namespaces are off or restricted"), "{e}");
        let e = probe_with(&fake_bwrap(&old, "bwrap: Unknown option --disable-userns"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("0.8 or newer"), "{e}");
    }

    #[test]
    fn projects_that_would_open_the_system_or_the_settings_in_home_are_refused() {
        let home = Path::new("/home/u");
        for p in [
            "/",
            "/home",
            "/home/u",
            "/etc/nginx",
            "/usr/lib/x",
            "/home/u/.config",
        ] {
            assert!(
                refuse_project(Path::new(p), Some(home)).is_err(),
                "{p} should be refused"
            );
        }
        assert!(refuse_project(Path::new("/home/u/.local/src/app"), Some(home)).is_err());
        // A CI's workspace may be anywhere (`/var/lib/jenkins/workspace`, `/usr/src/app`).
        for p in [
            "/home/u/src/app",
            "/work/app",
            "/tmp/x",
            "/var/lib/jenkins/workspace/app",
            "/usr/src/app",
        ] {
            assert!(
                refuse_project(Path::new(p), Some(home)).is_ok(),
                "{p} should run"
            );
        }
    }

    #[test]
    fn the_cheap_check_reads_the_kernels_user_namespace_settings() {
        let yes = |s: Support| s.is_available();
        assert!(yes(namespaces_support(Some("1000"), None, None, false)));
        assert!(yes(namespaces_support(
            Some("1000"),
            Some("1"),
            Some("0"),
            false
        )));
        assert!(yes(namespaces_support(Some("1000"), None, Some("1"), true)));
        for (max, clone, aa) in [
            (None, None, None),
            (Some("0"), None, None),
            (Some("1000"), Some("0"), None),
            (Some("1000"), None, Some("1")),
        ] {
            let s = namespaces_support(max, clone, aa, false);
            assert!(!yes(s.clone()), "{max:?} {clone:?} {aa:?}");
            assert!(s.to_string().contains("user namespaces are off"), "{s}");
        }
    }

    #[test]
    fn every_profile_is_found_by_its_name() {
        for p in PROFILES {
            assert_eq!(profile(p.name).map(|f| f.name), Some(p.name));
        }
        assert!(profile("network").is_none());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn placeholders_go_with_the_last_contained_command_of_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let locks = dir.path().join("locks");
        let project = dir.path().join("p");
        std::fs::create_dir(&project).unwrap();
        let mut first = ProjectLock::take(&locks, &project).unwrap();
        let second = ProjectLock::take(&locks, &project).unwrap();
        let mut made = Vec::new();
        make(&project.join("a/b/.envrc"), Kind::File, &mut made).unwrap();
        make(&project.join(".claude"), Kind::Folder, &mut made).unwrap();
        first.record(&made).unwrap();
        assert_eq!(made.len(), 4);
        std::fs::write(project.join(".claude/kept"), "x").unwrap();
        // Another command still runs in the project: nothing goes.
        first.tidy();
        assert!(project.join("a/b/.envrc").exists());
        // The last one takes away what is still as made, and leaves what was written.
        second.tidy();
        assert!(!project.join("a").exists());
        assert!(project.join(".claude/kept").exists());
        // Another project's lock is its own.
        let other = dir.path().join("q");
        std::fs::create_dir(&other).unwrap();
        let _held = ProjectLock::take(&locks, &project).unwrap();
        let q = ProjectLock::take(&locks, &other).unwrap();
        make(&other.join(".envrc"), Kind::File, &mut Vec::new()).unwrap();
        let mut q = q;
        q.record(&[other.join(".envrc")]).unwrap();
        q.tidy();
        assert!(!other.join(".envrc").exists());
    }
}
