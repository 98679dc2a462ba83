//! What earlier commands of a line leave for later ones: the files they wrote or downloaded
//! and the git remotes they added.

use std::path::PathBuf;

use super::fetch::fetcher_values;
use super::model::{is, FETCHER};
use super::opts::Opts;
use super::targets::writes_of;
use super::words::positional;
use super::Places;
use crate::command::SimpleCommand;
use crate::knowledge::Reading;

/// What earlier commands of the same line did that later ones depend on: files they wrote
/// (and whether fetched from the network), git remotes they added.
#[derive(Debug, Clone, Default)]
pub struct Line {
    pub(super) written: Vec<(PathBuf, bool)>,
    /// A fetcher saved a file under a name the analysis does not know (`curl -O`, `wget URL`).
    pub(super) unnamed_download: bool,
    /// An archive was unpacked (`tar x`, `unzip`): files the analysis cannot name were written.
    pub(super) unpacked: bool,
    pub(super) remotes: Vec<String>,
    /// A folder a download of the line wrote, that a `cd` of the line went into: the commands
    /// after it run there.
    pub(super) entered: Option<PathBuf>,
    /// Where a `cd` went (matched against the folders written before it on [`Line::extend`]).
    cd_to: Option<PathBuf>,
}

impl Line {
    /// Notes what `cmd` leaves behind for the commands after it.
    pub fn note(&mut self, cmd: &SimpleCommand, places: &Places) {
        self.note_read(cmd, &Reading::of(cmd), places);
    }

    /// Whether no command of the line left anything yet.
    pub fn is_empty(&self) -> bool {
        self.written.is_empty()
            && !self.unnamed_download
            && !self.unpacked
            && self.remotes.is_empty()
            && self.entered.is_none()
            && self.cd_to.is_none()
    }

    /// Adds what a later command left (see [`Line::note_read`]).
    pub fn extend(&mut self, later: Line) {
        self.written.extend(later.written);
        self.unnamed_download |= later.unnamed_download;
        self.unpacked |= later.unpacked;
        self.remotes.extend(later.remotes);
        if let Some(to) = later.cd_to {
            self.entered = self
                .written
                .iter()
                .find(|(q, fetched)| *fetched && to.starts_with(q))
                .map(|(q, _)| q.clone());
        }
        if later.entered.is_some() {
            self.entered = later.entered;
        }
    }

    /// [`Line::note`] with the command's reading at hand.
    pub fn note_read(&mut self, cmd: &SimpleCommand, reading: &Reading, places: &Places) {
        let program = cmd.program();
        if matches!(program, "cd" | "pushd") {
            if let Some(p) = cmd.argv.get(1).and_then(|w| w.path.as_deref()) {
                self.cd_to = Some((places.resolve)(p));
            }
        }
        let fetcher = is(program, FETCHER);
        for w in writes_of(cmd, reading) {
            if let Some(p) = w.path(cmd) {
                self.written.push(((places.resolve)(&p), fetcher));
            }
        }
        for r in cmd
            .redirects
            .iter()
            .filter(|r| r.writes() && !r.op.is_here())
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
        // `pip download -d DIR`: the folder holds what came from the network.
        if matches!(program, "pip" | "pip3" | "pip2")
            && positional(cmd).first() == Some(&"download")
        {
            let opts = Opts::of(
                cmd,
                &["-d", "--dest", "-r", "--requirement", "-i", "--index-url"],
            );
            let dir = opts.value(&["-d", "--dest"]).map_or(".", |v| v.text);
            self.written.push(((places.resolve)(dir), true));
        }
        if program == "git" {
            let pos = positional(cmd);
            if let ["remote", "add" | "set-url", name, ..] = pos.as_slice() {
                self.remotes.push(name.to_string());
            }
            // `git config [set] remote.NAME.url|pushurl URL` points a remote elsewhere;
            // `url.BASE.insteadOf|pushInsteadOf` every remote whose URL starts with BASE.
            let key = match pos.as_slice() {
                ["config", "set", key, _, ..] | ["config", key, _, ..] => {
                    Some(key.to_ascii_lowercase())
                }
                _ => None,
            };
            if let Some(key) = key {
                if let Some(name) = key.strip_prefix("remote.").and_then(|k| {
                    k.strip_suffix(".url")
                        .or_else(|| k.strip_suffix(".pushurl"))
                }) {
                    self.remotes.push(name.to_string());
                } else if key.starts_with("url.") && key.ends_with("insteadof") {
                    self.remotes.push("*".to_string());
                }
            }
            // A clone's folder holds what came from the network; so does a submodule's.
            if let ["submodule", "add", url, rest @ ..] = pos.as_slice() {
                let folder = rest.first().map(|d| d.to_string()).or_else(|| {
                    url.trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .map(|n| n.trim_end_matches(".git").to_string())
                });
                if let Some(f) = folder.filter(|f| !f.is_empty()) {
                    self.written.push(((places.resolve)(&f), true));
                }
            }
            if pos.first() == Some(&"clone") {
                let rest = clone_operands(cmd);
                let folder = match rest.as_slice() {
                    [url] => url
                        .trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .map(|n| n.trim_end_matches(".git").to_string()),
                    [_, dir, ..] => Some(dir.to_string()),
                    [] => None,
                };
                if let Some(f) = folder.filter(|f| !f.is_empty()) {
                    self.written.push(((places.resolve)(&f), true));
                }
            }
        }
        // An archive unpacked: files whose names are in the archive.
        let unpacks = match program {
            "tar" | "bsdtar" | "gtar" => cmd.argv.iter().skip(1).any(|w| {
                let v = w.value.as_str();
                (v.starts_with('-') && !v.starts_with("--") && v.contains('x'))
                    || v == "--extract"
                    || v == "--get"
                    || (!v.starts_with('-')
                        && v.contains('x')
                        && cmd.argv.get(1).is_some_and(|f| f.value == v))
            }),
            "unzip" | "7z" | "7za" | "unrar" | "cpio" | "ar" | "gunzip" | "bunzip2" | "unxz" => {
                true
            }
            _ => false,
        };
        self.unpacked |= unpacks;
    }
}

/// The operands of `git clone` (the address and the folder), its options and their values
/// skipped (`git clone --depth 1 URL DIR`).
fn clone_operands(cmd: &SimpleCommand) -> Vec<&str> {
    const VALUES: [&str; 16] = [
        "--depth",
        "-b",
        "--branch",
        "-o",
        "--origin",
        "-c",
        "--config",
        "--reference",
        "--reference-if-able",
        "--separate-git-dir",
        "-j",
        "--jobs",
        "--filter",
        "--template",
        "-u",
        "--upload-pack",
    ];
    let mut out = Vec::new();
    let mut words = cmd.argv.iter().skip(1).map(|w| w.value.as_str());
    let mut seen_clone = false;
    while let Some(w) = words.next() {
        if !seen_clone {
            seen_clone = w == "clone";
            if !seen_clone && (w == "-C" || w == "-c") {
                words.next();
            }
            continue;
        }
        if VALUES.contains(&w) || w == "--shallow-since" || w == "--shallow-exclude" {
            words.next();
        } else if w == "--" || !w.starts_with('-') {
            out.push(w);
        }
    }
    out
}
