//! Effects on files: what writing or deleting a path means by where it is, output
//! redirections, and the files a program writes, deletes or reads by its operands and options.

use std::path::Path;

use super::opts::Val;
use super::places::Place;
use super::targets::{deletes_of, writes_of, Written};
use super::words::positional;
use super::{Effects, Kind};
use crate::command::{SimpleCommand, Word};
use crate::knowledge::{operand, Reading, Role};

impl Effects<'_, '_> {
    /// Writing `p` (shown as `shown`), by where it is: nothing in a temporary folder.
    pub(super) fn write(&mut self, p: &Path, shown: &str) {
        let place = self.place(p);
        if matches!(place, Place::Project | Place::Outside) && in_repository_database(p) {
            self.push(
                Kind::DeleteHistory,
                format!("writes {shown}, inside the repository's own records"),
                None,
            );
        }
        match place {
            Place::Persist => self.push(Kind::Persist, format!("writes {shown}"), None),
            Place::Privilege => self.push(Kind::Privilege, format!("writes {shown}"), None),
            Place::Project => self.push(Kind::WriteProject, format!("writes {shown}"), None),
            Place::Temp => {}
            Place::Outside => self.push(Kind::WriteOutside, format!("writes {shown}"), None),
        }
    }

    /// Writing the path a word names, or a path computed when the command runs.
    pub(super) fn write_word(&mut self, w: &Word) {
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
    pub(super) fn write_value(&mut self, v: Val) {
        if v.text == "-" {
            return;
        }
        if v.word.value == v.text {
            // `-o x=/tmp/a` writes `./x=/tmp/a`.
            self.write_word(&v.word.clone().as_written());
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

    /// Writing a path as written, resolved the way the engine resolves it.
    pub(super) fn write_text(&mut self, p: &str) {
        let resolved = (self.places.resolve)(p);
        let shown = self.show(&resolved);
        self.write(&resolved, &shown);
    }

    /// Deleting the path a word names, by where it is.
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
        // A repository's `.git` is its whole history.
        if resolved
            .components()
            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
        {
            self.push(
                Kind::DeleteHistory,
                format!("deletes {shown}, the repository's history"),
                None,
            );
        }
        match self.place(&resolved) {
            Place::Project => self.push(Kind::Delete, format!("deletes {shown}"), None),
            Place::Temp => {}
            _ => self.push(Kind::DeleteOutside, format!("deletes {shown}"), None),
        }
    }

    /// Output redirections write their targets; `/dev/tcp/HOST/PORT` talks to a host.
    pub(super) fn redirects(&mut self, cmd: &SimpleCommand) {
        for r in &cmd.redirects {
            if r.op.is_here() {
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
            if !r.writes() || r.writes_no_file() {
                continue;
            }
            self.write_word(&r.target);
        }
    }

    /// An archive unpacked: its members are written where their names say, names the archive
    /// holds, not the command line. Inside the folder it unpacks into, unless the program is
    /// told to keep absolute names and `..` (`tar -P`, `bsdtar -P`, `unzip -:`), or keeps them
    /// by default (`cpio -i`, `cpio -p`): then a member may land anywhere.
    pub(super) fn archives(&mut self, cmd: &SimpleCommand) {
        let Some((unpacks, anywhere)) = unpacking(cmd) else {
            return;
        };
        if anywhere {
            self.push(
                Kind::WriteOutside,
                format!("`{unpacks}` writes the archive's members wherever their names lead"),
                None,
            );
        } else {
            // Into the working folder; a folder named by `-C`/`-d` is read from the words.
            let here = (self.places.resolve)(".");
            let shown = self.show(&here);
            self.write(&here, &format!("the archive's members into {shown}"));
        }
    }

    /// Files the program writes, deletes or reads by its operands and options.
    pub(super) fn files(&mut self, cmd: &SimpleCommand, reading: &Reading) {
        for w in writes_of(cmd, reading) {
            match &w {
                Written::Word(word) => self.write_word(&operand(cmd, word)),
                Written::Value(text, word) => self.write_value(super::opts::Val { text, word }),
            }
        }
        for w in deletes_of(cmd) {
            self.delete_word(&operand(cmd, w));
        }
        if let Some(op) = reading
            .operands
            .iter()
            .find(|o| o.role == Some(Role::Read) && o.word.path.is_some())
        {
            if let Some(p) = &operand(cmd, op.word).path {
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

/// A path inside a repository's `.git` (or the `.git` file of a worktree or submodule, which
/// names where the repository is): what git keeps for itself, its objects, refs, logs, index
/// and `HEAD`. Writing there by hand can lose commits and staged work. A local ignore list and
/// the description are a person's to edit; hooks and settings are found as files that run later.
fn in_repository_database(p: &Path) -> bool {
    let mut parts = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase());
    if !parts.any(|c| c == ".git") {
        return false;
    }
    let rest: Vec<String> = parts.collect();
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    !matches!(rest.as_slice(), ["info", "exclude"] | ["description"])
}

/// Whether `cmd` unpacks an archive, and whether its members may land anywhere: the program as
/// named, and `true` when absolute names and `..` are kept.
fn unpacking(cmd: &SimpleCommand) -> Option<(&str, bool)> {
    let program = cmd.program();
    let args: Vec<&str> = cmd.argv.iter().skip(1).map(|w| w.value.as_str()).collect();
    // A long option or an unambiguous abbreviation of it (getopt's rule; three letters here).
    let long = |arg: &str, name: &str| {
        arg.strip_prefix("--")
            .map(|a| a.split('=').next().unwrap_or(a))
            .is_some_and(|a| a == name || (a.len() >= 3 && name.starts_with(a)))
    };
    match program {
        "tar" | "gtar" | "bsdtar" => {
            // Short options that take a value: the letters after one of them are its value.
            const VALUED: &str = "fCbHVNgKLTXFIs";
            let (mut extract, mut absolute) = (false, false);
            let mut letters = |cluster: &str, stop_at_value: bool| {
                for c in cluster.chars() {
                    extract |= c == 'x';
                    absolute |= c == 'P';
                    if stop_at_value && VALUED.contains(c) {
                        break;
                    }
                }
            };
            let mut longs = (false, false);
            for (i, a) in args.iter().enumerate() {
                if a.starts_with("--") {
                    longs.0 |= long(a, "extract") || *a == "--get";
                    longs.1 |= long(a, "absolute-names");
                } else if let Some(cluster) = a.strip_prefix('-') {
                    letters(cluster, true);
                } else if i == 0 {
                    // The old style: the first word is options, their values follow.
                    letters(a, false);
                }
            }
            let (extract, absolute) = (extract || longs.0, absolute || longs.1);
            extract.then_some((program, absolute))
        }
        "cpio" => {
            let unpacks = args.iter().any(|a| {
                long(a, "extract")
                    || long(a, "pass-through")
                    || a.strip_prefix('-')
                        .is_some_and(|c| !c.starts_with('-') && c.contains(['i', 'p']))
            });
            unpacks.then_some((program, true))
        }
        "unzip" => {
            let keeps = args.iter().any(|a| {
                a.strip_prefix('-')
                    .is_some_and(|c| !c.starts_with('-') && c.contains(':'))
            });
            keeps.then_some((program, true))
        }
        _ => None,
    }
}
