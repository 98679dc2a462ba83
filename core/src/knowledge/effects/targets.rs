//! Which words of a command name the files it writes or deletes: by the program knowledge's
//! roles, and for the common file tools (`cp`, `tee`, `sed -i`, `rm`, `find -delete`, …) by
//! their words.

use super::git::positional_after_globals;
use crate::command::{SimpleCommand, Word};
use crate::knowledge::{Reading, Role, Takes};

/// Programs whose written files are read from their words (besides their table's roles).
const WRITERS: [&str; 25] = [
    "cp", "mv", "install", "ln", "link", "tee", "touch", "mkdir", "mkfifo", "mknod", "truncate",
    "chmod", "chown", "chgrp", "setfacl", "chattr", "sed", "perl", "dd", "unzip", "find", "git",
    "tar", "rsync", "scp",
];

/// A file a command writes: an operand (a word of its own), or an option's value, which may be
/// part of the option's word (`-o/tmp/x`, `-uo~/.bashrc`, `--output=…`, `--target-directory=…`):
/// the value is the path, never the option's word read as a file of the project.
#[derive(Debug, Clone)]
pub enum Written<'c> {
    Word(&'c Word),
    Value(String, &'c Word),
}

impl<'c> Written<'c> {
    /// The word the file is named in.
    pub fn word(&self) -> &'c Word {
        match self {
            Written::Word(w) | Written::Value(_, w) => w,
        }
    }

    /// The path as written, when it is known before the command runs (an operand as its
    /// program reads it, see [`operand`](crate::knowledge::operand)).
    pub fn path(&self, cmd: &SimpleCommand) -> Option<String> {
        match self {
            Written::Word(w) => crate::knowledge::operand(cmd, w).path,
            Written::Value(text, w) if w.value == *text => (*w).clone().as_written().path,
            Written::Value(text, w) => (!w.dynamic).then(|| text.clone()),
        }
    }
}

/// Programs whose deleted files are read from their words.
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

/// Whether the effects model reads `program`'s files from its words (the common file tools:
/// `cp`, `tee`, `rm`, …), whatever tables say of it.
pub fn files_by_spelling(program: &str) -> bool {
    WRITERS.contains(&program) || DELETERS.contains(&program)
}

/// Files a command writes by its options and operands (not its redirections).
pub fn writes_of<'c>(cmd: &'c SimpleCommand, reading: &Reading<'c>) -> Vec<Written<'c>> {
    let mut out = written_by_roles(reading);
    if !WRITERS.contains(&cmd.program()) {
        return out;
    }
    // The short option whose value a word may hold attached (`cp -t~/bin`, `tar -C/x`).
    let letter = match cmd.program() {
        "tar" => 'C',
        "git" => 'o',
        _ => 't',
    };
    for w in written_by_words(cmd) {
        // `--target-directory=DIR` (its path is the value), `-tDIR`: the value for the
        // option's word.
        let long = w.value.starts_with("--") && w.value.contains('=');
        let value = if long {
            w.path.clone().map(|v| Written::Value(v, w))
        } else if w.value.starts_with('-') && w.value.len() > 2 {
            attached_short(w, letter, "").map(|v| Written::Value(v, w))
        } else {
            None
        };
        let item = value.unwrap_or(Written::Word(w));
        if !out.iter().any(|o| std::ptr::eq(o.word(), w)) {
            out.push(item);
        }
    }
    out
}

/// The option values and operands the program knowledge says are written.
fn written_by_roles<'c>(reading: &Reading<'c>) -> Vec<Written<'c>> {
    let mut out = Vec::new();
    for u in &reading.options {
        if let (Some(spec), Some(v)) = (u.spec, &u.value) {
            let writes = matches!(
                spec.takes,
                Takes::Required(Role::Write) | Takes::Optional(Role::Write)
            );
            if writes {
                out.push(Written::Value(v.text.to_string(), v.word));
            }
        }
    }
    for o in &reading.operands {
        if o.role == Some(Role::Write) {
            out.push(Written::Word(o.word));
        }
    }
    out
}

/// The files one of [`WRITERS`] writes, read from its words: the destination of a copy, the
/// files a tool creates or changes, `sed -i`'s files, `dd of=`, `unzip -d`, `find -fprint`,
/// `git clone`'s folder.
fn written_by_words(cmd: &SimpleCommand) -> Vec<&Word> {
    let args: Vec<&Word> = cmd.argv.iter().skip(1).collect();
    let operands: Vec<&Word> = args
        .iter()
        .copied()
        .filter(|w| !w.value.starts_with('-') || w.value == "-")
        .collect();
    let mut out: Vec<&Word> = Vec::new();
    match cmd.program() {
        "cp" | "mv" | "install" | "ln" | "link" => match target_directory(&args) {
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
        "sed" | "perl" if edits_in_place(&args) => out.extend(
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
        "tar" => out.extend(tar_extracts_into(&args)),
        // The destination, when it is on this machine (`host:path` is another's).
        "rsync" | "scp" if operands.len() > 1 => {
            out.extend(operands.last().copied().filter(|w| !remote_spec(&w.value)))
        }
        // `git format-patch -o DIR`: the patches are written there.
        "git" if matches!(positional_after_globals(cmd), Some("format-patch")) => {
            for (i, w) in args.iter().enumerate() {
                if w.value == "-o" || w.value == "--output-directory" {
                    out.extend(args.get(i + 1).copied());
                } else if w.value.starts_with("--output-directory=")
                    || attached_short(w, 'o', "").is_some()
                {
                    out.push(w);
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
    out
}

/// The folder `-t DIR`, `--target-directory DIR` or `--target-directory=DIR` names.
fn target_directory<'c>(args: &[&'c Word]) -> Option<&'c Word> {
    args.iter()
        .position(|w| w.value == "-t" || w.value == "--target-directory")
        .and_then(|i| args.get(i + 1).copied())
        .or_else(|| {
            args.iter()
                .find(|w| {
                    w.value.starts_with("--target-directory=")
                        || attached_short(w, 't', "S").is_some()
                })
                .copied()
        })
}

/// The value attached to short option `letter` in a cluster (`-tDIR`, `-vt~/x`, `-o$HOME/x`
/// read as `-o~/x`), when the letters before it take no value (`valued` lists those that do).
pub(crate) fn attached_short(w: &Word, letter: char, valued: &str) -> Option<String> {
    let text = w.path.as_deref().unwrap_or(&w.value);
    let cluster = text.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    for (i, c) in cluster.char_indices() {
        if c == letter {
            let rest = &cluster[i + c.len_utf8()..];
            return (!rest.is_empty()).then(|| rest.to_string());
        }
        if valued.contains(c) || !c.is_ascii_alphanumeric() {
            return None;
        }
    }
    None
}

/// The folder `tar` extracts into (`-x … -C DIR`), when it extracts.
fn tar_extracts_into<'c>(args: &[&'c Word]) -> Option<&'c Word> {
    let extracts = args.iter().enumerate().any(|(i, w)| {
        let v = w.value.as_str();
        v == "--extract"
            || v == "--get"
            || (v.starts_with('-') && !v.starts_with("--") && v.contains('x'))
            // The old style: the first word is the letters (`tar xzf a.tgz`).
            || (i == 0 && !v.starts_with('-') && v.contains('x'))
    });
    if !extracts {
        return None;
    }
    args.iter()
        .position(|w| w.value == "-C" || w.value == "--directory")
        .and_then(|i| args.get(i + 1).copied())
        .or_else(|| {
            args.iter()
                .find(|w| {
                    w.value.starts_with("--directory=")
                        || attached_short(w, 'C', "fbHVgKLNT").is_some()
                })
                .copied()
        })
}

/// `host:path`, `user@host:path`, `rsync://…`: a place on another machine.
fn remote_spec(text: &str) -> bool {
    text.contains("://")
        || text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
}

/// `-i`, `-i.bak`, `--in-place`, or `-i` in a cluster after options that take no value
/// (`perl -pi -e …`, `sed -ni …`): `sed` and `perl` change their files.
fn edits_in_place(args: &[&Word]) -> bool {
    // Letters of sed and perl that take no value (`-e` does: `-ei` is a script `i`).
    const FLAGS: &str = "nrEsuzpalwTtWXcU";
    args.iter().any(|w| {
        let v = w.value.as_str();
        v.starts_with("--in-place")
            || v.strip_prefix('-').is_some_and(|cluster| {
                !cluster.starts_with('-')
                    && cluster
                        .chars()
                        .take_while(|c| *c != 'i')
                        .all(|c| FLAGS.contains(c))
                    && cluster.contains('i')
            })
    })
}

/// Files a command deletes.
pub fn deletes_of(cmd: &SimpleCommand) -> Vec<&Word> {
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
