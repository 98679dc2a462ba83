//! Installers: packages from a registry, or from a URL, a repository or another index (which
//! runs code from outside the registry); the program a package command runs.

use super::data::data;
use super::network::url_host;
use super::verbs::verb_match;
use super::words::{option_value, positional};
use super::{Effects, Kind};
use crate::command::{SimpleCommand, Word};
use std::collections::HashSet;
use std::sync::OnceLock;

impl Effects<'_, '_> {
    /// Installs from a registry (medium), or from a URL, a repository or another index
    /// (running remote code); cloud, cluster, database and registry changes.
    pub(super) fn packages(&mut self, cmd: &SimpleCommand) {
        let (program, pos) = package_manager(cmd);
        let program = program.as_str();
        self.install(cmd, program, &pos);
        self.package_source(program, &pos);
        self.infra(cmd, program, &pos);
    }

    /// An install verb of the data (`npm install`, `pip install`): from the registry, or
    /// from outside it.
    fn install(&mut self, cmd: &SimpleCommand, program: &str, pos: &[&str]) {
        let verbs = data().install.verbs.get(program);
        let Some(v) = verb_match(pos, verbs.map_or(&[][..], Vec::as_slice)) else {
            return;
        };
        let skip = v.split_whitespace().count();
        let npm_like = matches!(program, "npm" | "pnpm" | "yarn" | "bun");
        let remote_operand = pos.iter().skip(skip).find(|w| remote_package(w, npm_like));
        if let Some(op) = remote_operand {
            self.push(
                Kind::RunRemoteCode,
                format!("installs and runs the install scripts of {op}, from outside the registry"),
                url_host(op),
            );
        } else if let Some(e) = other_source(cmd, program) {
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

    /// A verb listed among the installer's sources that adds one (`brew tap`).
    fn package_source(&mut self, program: &str, pos: &[&str]) {
        if let Some(extra) = data().remote.extra_sources.get(program) {
            if let Some(v) = verb_match(pos, extra) {
                self.push(
                    Kind::RunRemoteCode,
                    format!("adds the package source `{v}`"),
                    None,
                );
            }
        }
    }
}

/// The option that makes an installer use another index or source (`--index-url=…`, `-i …`,
/// `-ihttps://…`).
fn other_source<'c>(cmd: &'c SimpleCommand, program: &str) -> Option<&'c Word> {
    let sources = data()
        .remote
        .extra_sources
        .get(program)
        .map_or(&[][..], Vec::as_slice);
    cmd.argv.iter().skip(1).find(|w| {
        sources.iter().any(|s| {
            w.value == *s
                || w.value.strip_prefix(*s).is_some_and(|r| r.starts_with('='))
                || (s.len() == 2
                    && s.starts_with('-')
                    && w.value.starts_with(*s)
                    && w.value.len() > 2
                    && !w.value.starts_with("--"))
        })
    })
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
pub(super) fn unversioned(program: &str) -> &str {
    // Without a version at its end, a name is its own (no table needs looking at).
    if !program.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
        return program;
    }
    // The programs the data lists as installers, infrastructure tools or sources of remote
    // code, in one set: asked of every command, where three ordered maps compared the name
    // with a dozen keys each.
    static LISTED: OnceLock<HashSet<&'static str, foldhash::fast::RandomState>> = OnceLock::new();
    let listed = LISTED.get_or_init(|| {
        let d = data();
        d.install
            .verbs
            .keys()
            .chain(d.infra.verbs.keys())
            .chain(d.remote.extra_sources.keys())
            .copied()
            .collect()
    });
    let listed = |p: &str| listed.contains(p);
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
