//! The policy language: syntax tree, parser, canonical printer, and loading files with their
//! includes.

pub mod ast;
pub mod fmt;
pub mod parse;
pub mod print;
mod shipped;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use parse::parse_policy;
pub use print::print_policy;

use crate::diag::{Diagnostic, Source};
use ast::Statement;

/// Policies compiled into the binary, by name.
pub const EMBEDDED: [(&str, &str); 7] = [
    (
        "builtin.policy",
        include_str!("../../../policies/builtin.policy"),
    ),
    (
        "default.policy",
        include_str!("../../../policies/default.policy"),
    ),
    (
        "readonly.policy",
        include_str!("../../../policies/readonly.policy"),
    ),
    (
        "claude-code.policy",
        include_str!("../../../policies/claude-code.policy"),
    ),
    (
        "gemini-cli.policy",
        include_str!("../../../policies/gemini-cli.policy"),
    ),
    (
        "codex.policy",
        include_str!("../../../policies/codex.policy"),
    ),
    (
        "copilot.policy",
        include_str!("../../../policies/copilot.policy"),
    ),
];

pub fn embedded(name: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Where the lines of each of [`EMBEDDED`] start, worked out when the binary is compiled.
static EMBEDDED_LINES: [&[usize]; EMBEDDED.len()] = {
    macro_rules! lines {
        ($($i:literal),*) => {
            [$({
                const LINES: [usize; crate::diag::line_count(EMBEDDED[$i].1)] =
                    crate::diag::line_starts(EMBEDDED[$i].1);
                &LINES
            }),*]
        };
    }
    lines!(0, 1, 2, 3, 4, 5, 6)
};

/// An embedded policy as a source, its lines found when it was compiled.
fn embedded_source(name: &str) -> Option<Arc<Source>> {
    let i = EMBEDDED.iter().position(|(n, _)| *n == name)?;
    let (name, text) = EMBEDDED[i];
    Some(Source::embedded(name, text, EMBEDDED_LINES[i]))
}

/// The shipped policy every other policy sits on, unless one says `replace "default.policy";`.
pub const DEFAULT_POLICY: &str = "default.policy";

/// Includes nest at most this deep.
const MAX_INCLUDE_DEPTH: usize = 32;

/// A policy with its includes expanded in place: every statement with the source it came from.
#[derive(Debug, Default)]
pub struct Loaded {
    pub statements: Vec<(Arc<Source>, Statement)>,
    pub sources: Vec<Arc<Source>>,
    /// The files read, the top one and every include.
    pub files: Vec<PathBuf>,
    pub diags: Vec<Diagnostic>,
}

/// Where a policy comes from.
#[derive(Debug, Clone)]
pub enum Origin {
    File(PathBuf),
    Embedded(&'static str),
    /// Text given directly (tests, the library, an editor's buffer), with a display name;
    /// includes are relative to the name's folder (the working folder for a bare name).
    Text {
        name: String,
        text: String,
    },
}

/// Why a policy's text could not be had: its file cannot be read or is not text, or no
/// built-in policy has its name.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read `{}`: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `offset` is where the first byte that is not UTF-8 is.
    #[error("`{}` is not UTF-8 text (invalid byte at offset {offset})", path.display())]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("no built-in policy `{0}`")]
    NoBuiltin(String),
}

/// Reads and parses a policy and everything it includes. A top-level file that cannot be read
/// is an `Err` with the reason; problems inside files are diagnostics.
pub fn load(origin: &Origin) -> Result<Loaded, ReadError> {
    load_with(origin, &parse_policy)
}

/// A shipped policy (and what it includes) for an engine, which does not read `expect`
/// statements: they are left out unparsed (the shipped policies' tests run them). An engine
/// that decides one tool (`only_tool`) may get the rules of other tools left out too (see
/// [`rule_meets`]): the engine leaves them out in any case.
pub fn load_shipped_rules(
    name: &'static str,
    only_tool: Option<&str>,
) -> Result<Loaded, ReadError> {
    load_with(&Origin::Embedded(name), &|source| {
        parse_shipped(source, only_tool)
    })
}

/// Whether a rule for `tool` can meet a call of an engine that decides the one tool `only`
/// (every tool when `None`): its tool is that one, or a glob.
pub fn rule_meets(tool: &str, only: Option<&str>) -> bool {
    only.is_none_or(|only| tool == only || tool.contains(['*', '?']))
}

/// [`parse::parse_policy_without_expects`], but a shipped policy's text gets the tree
/// generated from it at build time (see [`shipped`]), without the rules no call of
/// `only_tool` meets.
fn parse_shipped(
    source: &Arc<Source>,
    only_tool: Option<&str>,
) -> (ast::PolicyFile, Vec<Diagnostic>) {
    match shipped::tree(&source.name, &source.text, only_tool) {
        Some(file) => (file, Vec::new()),
        None => parse::parse_policy_without_expects(source),
    }
}

/// How a file's text becomes statements: [`parse_policy`], or one that leaves some out.
type Parse<'p> = &'p dyn Fn(&Arc<Source>) -> (ast::PolicyFile, Vec<Diagnostic>);

fn load_with(origin: &Origin, parse: Parse) -> Result<Loaded, ReadError> {
    let mut loaded = Loaded::default();
    let source = match origin {
        Origin::File(p) => {
            let text = read_text(p)?;
            Source::new(p.to_string_lossy(), text)
        }
        Origin::Embedded(name) => {
            embedded_source(name).ok_or_else(|| ReadError::NoBuiltin(name.to_string()))?
        }
        Origin::Text { name, text } => Source::new(name.as_str(), text.as_str()),
    };
    let mut stack = vec![identity(origin)];
    expand(origin, &source, &mut loaded, &mut stack, parse);
    Ok(loaded)
}

fn read_text(p: &Path) -> Result<String, ReadError> {
    let bytes = read_bounded(p).map_err(|source| ReadError::Unreadable {
        path: p.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        path: p.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The most a policy or settings file may hold.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// A policy or settings file's bytes. Not what is not a regular file (a link to `/dev/zero`
/// or a FIFO in a cloned repository would be read forever) nor more than
/// [`MAX_FILE_BYTES`].
pub fn read_bounded(p: &Path) -> std::io::Result<Vec<u8>> {
    read_bounded_up_to(p, MAX_FILE_BYTES)
}

/// [`read_bounded`] with another limit.
pub fn read_bounded_up_to(p: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    // Checked before opening too: opening a FIFO waits for a writer.
    if !std::fs::metadata(p)?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let f = std::fs::File::open(p)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!(
            "it is larger than {max} bytes"
        )));
    }
    Ok(bytes)
}

fn identity(origin: &Origin) -> String {
    match origin {
        Origin::File(p) => p
            .canonicalize()
            .unwrap_or_else(|_| p.clone())
            .to_string_lossy()
            .into_owned(),
        Origin::Embedded(n) => format!("embedded:{n}"),
        Origin::Text { name, .. } => format!("text:{name}"),
    }
}

fn expand(
    origin: &Origin,
    source: &Arc<Source>,
    loaded: &mut Loaded,
    stack: &mut Vec<String>,
    parse: Parse,
) {
    loaded.sources.push(source.clone());
    if let Origin::File(p) = origin {
        loaded.files.push(p.clone());
    }
    let (file, diags) = parse(source);
    loaded.diags.extend(diags);
    for stmt in file.statements {
        let Statement::Include(inc) = &stmt else {
            loaded.statements.push((source.clone(), stmt));
            continue;
        };
        let Some(target) = include_target(origin, &inc.path.value) else {
            loaded.diags.push(
                Diagnostic::error(
                    source,
                    "include",
                    inc.path.span,
                    format!("no built-in policy `{}`", inc.path.value),
                )
                .help("built-in policies include only each other"),
            );
            continue;
        };
        let id = identity(&target);
        if let Some(refused) = refused_include(inc, &id, stack, source) {
            loaded.diags.push(refused);
            continue;
        }
        match origin_text(&target) {
            Ok(text) => {
                let child = match &target {
                    Origin::Embedded(name) => embedded_source(name),
                    _ => None,
                }
                .unwrap_or_else(|| Source::new(origin_name(&target), text));
                stack.push(id);
                expand(&target, &child, loaded, stack, parse);
                stack.pop();
            }
            Err(e) => loaded.diags.push(
                Diagnostic::error(source, "include", inc.path.span, e.to_string())
                    .label("included here")
                    .help("include paths are relative to the file that includes them"),
            ),
        }
    }
}

/// What `include "path"` in a policy from `origin` names: a file beside it, or (from a
/// built-in policy) another built-in policy, if there is one of that name.
fn include_target(origin: &Origin, path: &str) -> Option<Origin> {
    match origin {
        Origin::Embedded(_) => match embedded(path) {
            Some(_) => EMBEDDED
                .iter()
                .find(|(n, _)| *n == path)
                .map(|(n, _)| Origin::Embedded(n)),
            None => None,
        },
        Origin::File(p) => Some(Origin::File(
            p.parent().unwrap_or(Path::new(".")).join(path),
        )),
        Origin::Text { name, .. } => Some(Origin::File(
            Path::new(name).parent().unwrap_or(Path::new("")).join(path),
        )),
    }
}

/// The error of an include not followed: one that closes a cycle (`id` already on the
/// `stack` of includes), or one nested too deep.
fn refused_include(
    inc: &ast::Include,
    id: &String,
    stack: &[String],
    source: &Arc<Source>,
) -> Option<Diagnostic> {
    if stack.contains(id) {
        return Some(
            Diagnostic::error(
                source,
                "include",
                inc.path.span,
                format!("`{}` includes itself", inc.path.value),
            )
            .label("this include closes a cycle")
            .help("remove one of the includes in the cycle"),
        );
    }
    if stack.len() >= MAX_INCLUDE_DEPTH {
        return Some(
            Diagnostic::error(source, "include", inc.path.span, "includes nest too deep").help(
                format!("includes may nest at most {MAX_INCLUDE_DEPTH} levels"),
            ),
        );
    }
    None
}

/// The text of a policy, or why it cannot be read.
fn origin_text(origin: &Origin) -> Result<String, ReadError> {
    match origin {
        Origin::File(p) => read_text(p),
        Origin::Embedded(n) => embedded(n)
            .map(str::to_string)
            .ok_or_else(|| ReadError::NoBuiltin(n.to_string())),
        Origin::Text { text, .. } => Ok(text.clone()),
    }
}

/// The name a policy's diagnostics give it.
fn origin_name(origin: &Origin) -> String {
    match origin {
        Origin::File(p) => p.to_string_lossy().into_owned(),
        Origin::Embedded(n) => n.to_string(),
        Origin::Text { name, .. } => name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_embedded_policy_has_the_lines_a_source_made_at_run_time_would_find() {
        for (name, text) in EMBEDDED {
            let compiled = embedded_source(name).unwrap();
            let scanned = Source::new(name, text);
            let ends = text.match_indices('\n').map(|(i, _)| i);
            for offset in ends.flat_map(|i| [i, i + 1]).chain([0, text.len()]) {
                assert_eq!(
                    compiled.line_col(offset),
                    scanned.line_col(offset),
                    "{name} at byte {offset}"
                );
            }
            assert!(scanned.line(text.len()) > 10, "{name} has its lines");
        }
    }

    #[test]
    fn embedded_policies_parse_cleanly() {
        for (name, _) in EMBEDDED {
            let l = load(&Origin::Embedded(name)).unwrap();
            let msgs: Vec<_> = l
                .diags
                .iter()
                .map(|d| format!("{}: {}", d.location(), d.message))
                .collect();
            assert!(msgs.is_empty(), "{name}: {msgs:?}");
        }
    }

    #[test]
    fn includes_expand_in_place_and_cycles_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.policy"),
            "allow bash(\"a\");\ninclude \"b.policy\";\nallow bash(\"c\");\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("b.policy"),
            "allow bash(\"b\");\ninclude \"a.policy\";\n",
        )
        .unwrap();
        let l = load(&Origin::File(dir.path().join("a.policy"))).unwrap();
        let texts: Vec<_> = l
            .statements
            .iter()
            .map(|(_, s)| print::print_statement(s))
            .collect();
        assert_eq!(
            texts,
            [
                "allow bash(\"a\");",
                "allow bash(\"b\");",
                "allow bash(\"c\");"
            ]
        );
        assert_eq!(l.diags.len(), 1);
        assert_eq!(l.diags[0].message, "`a.policy` includes itself");
    }

    #[test]
    fn a_missing_include_is_reported_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.policy"), "include \"nope.policy\";\n").unwrap();
        let l = load(&Origin::File(dir.path().join("a.policy"))).unwrap();
        assert_eq!(l.diags.len(), 1);
        assert_eq!(
            l.diags[0].source.slice(l.diags[0].span()),
            "\"nope.policy\""
        );
    }

    // `include "/dev/zero"` was read until memory ran out.
    #[test]
    fn an_include_of_a_device_or_a_fifo_is_an_error_not_an_endless_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.policy");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let mut targets = vec!["/dev/zero".to_string()];
        if made.is_ok_and(|s| s.success()) {
            targets.push(fifo.to_string_lossy().into_owned());
        }
        for target in targets {
            let main = dir.path().join("main.policy");
            std::fs::write(&main, format!("include \"{target}\";\n")).unwrap();
            let l = load(&Origin::File(main)).unwrap();
            let d = l.diags.iter().find(|d| d.is_error()).expect("an error");
            assert!(
                d.message.contains("not a regular file"),
                "{target}: {}",
                d.message
            );
        }
        let err = load(&Origin::File("/dev/zero".into())).unwrap_err();
        assert!(matches!(err, ReadError::Unreadable { .. }), "{err:?}");
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
}
