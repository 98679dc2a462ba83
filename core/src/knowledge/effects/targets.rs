//! Which words of a command name the files it writes or deletes: by the program knowledge's
//! roles, and for the common file tools (`cp`, `tee`, `sed -i`, `rm`, `find -delete`, …) by
//! their words.

use super::git::positional_after_globals;
use crate::knowledge::{Reading, Role, Takes};
use crate::shell::{SimpleCommand, Word};

/// Programs whose written files are read from their words (besides their table's roles).
const WRITERS: [&str; 22] = [
    "cp", "mv", "install", "ln", "link", "tee", "touch", "mkdir", "mkfifo", "mknod", "truncate",
    "chmod", "chown", "chgrp", "setfacl", "chattr", "sed", "perl", "dd", "unzip", "find", "git",
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

/// Files a command writes by its options and operands (not its redirections).
pub fn writes_of<'c>(cmd: &'c SimpleCommand, reading: &Reading<'c>) -> Vec<Written<'c>> {
    let mut out = written_by_roles(reading);
    if !WRITERS.contains(&cmd.program()) {
        return out;
    }
    for w in written_by_words(cmd) {
        // `--target-directory=DIR`, `of=…`: the part after `=` for the option's word.
        let value = w
            .value
            .strip_prefix("--target-directory=")
            .map(|v| Written::Value(v.to_string(), w));
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
                .find(|w| w.value.starts_with("--target-directory="))
                .copied()
        })
}

/// `-i`, `-i.bak`, `--in-place`: `sed` and `perl` change their files.
fn edits_in_place(args: &[&Word]) -> bool {
    args.iter().any(|w| {
        w.value == "-i"
            || w.value.starts_with("--in-place")
            || (w.value.starts_with("-i") && !w.value.starts_with("--"))
    })
}

/// Files a command deletes.
pub fn deletes_of(cmd: &SimpleCommand) -> Vec<&Word> {
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
