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
use crate::knowledge::Reading;
use crate::shell::{interpreter_code, SimpleCommand};

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
    if let Some(what) = crate::knowledge::secrets::revealed_by(cmd) {
        out.push(Kind::RevealSecret, format!("prints {what}"), None);
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
}

#[cfg(test)]
mod tests;
