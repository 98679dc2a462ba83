//! What earlier commands of a line leave for later ones: the files they wrote or downloaded
//! and the git remotes they added.

use std::path::PathBuf;

use super::fetch::fetcher_values;
use super::model::{is, FETCHER};
use super::opts::Opts;
use super::targets::writes_of;
use super::words::positional;
use super::Places;
use crate::knowledge::Reading;
use crate::shell::SimpleCommand;

/// What earlier commands of the same line did that later ones depend on: files they wrote
/// (and whether fetched from the network), git remotes they added.
#[derive(Debug, Clone, Default)]
pub struct Line {
    pub(super) written: Vec<(PathBuf, bool)>,
    /// A fetcher saved a file under a name the analysis does not know (`curl -O`, `wget URL`).
    pub(super) unnamed_download: bool,
    pub(super) remotes: Vec<String>,
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
        if program == "git" {
            let pos = positional(cmd);
            if let ["remote", "add" | "set-url", name, ..] = pos.as_slice() {
                self.remotes.push(name.to_string());
            }
        }
    }
}
