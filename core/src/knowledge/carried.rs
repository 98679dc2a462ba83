//! Code carried in options: a command of its own, decided on its own. `sort
//! --compress-program=sh`, `rg --pre=./x`, `git -c core.fsmonitor='rm -rf ~' status` run what
//! their option says; the shell analysis emits that as a payload, so that the outer program's
//! allow never covers it.

use super::reading::Reading;
use super::table::{Role, Takes};

/// A command line an option carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The command as shell text (a program with its arguments is also one).
    pub text: String,
    /// Its text is only known when the command runs.
    pub dynamic: bool,
    /// It reads what the carrying program writes (`awk '{print | "sh"}'`).
    pub piped: bool,
}

/// Configuration keys whose value is a command the program runs (lowercase; `*` is one
/// subsection): ssh's `-o`, and git's `-c KEY=VALUE`, which runs code in any subcommand that
/// reads the key.
const CODE_KEYS: [&str; 40] = [
    // cargo --config
    "target.*.runner",
    "target.*.linker",
    "build.rustc",
    "build.rustc-wrapper",
    "build.rustc-workspace-wrapper",
    "build.rustdoc",
    // npm pkg set
    "scripts.*",
    // ssh
    "proxycommand",
    "localcommand",
    "knownhostscommand",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "core.gitproxy",
    "core.hookspath",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "pager.*",
    "alias.*",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "uploadpack.packobjectshook",
    "interactive.difffilter",
    "web.browser",
    "browser.*.cmd",
    "man.*.cmd",
    "difftool.*.cmd",
    "mergetool.*.cmd",
];

impl Reading<'_> {
    /// The commands the options given carry: values in the roles `code` and `program`, and
    /// git configuration whose key runs code.
    pub fn carried(&self) -> Vec<Carried> {
        let mut out = Vec::new();
        for o in &self.operands {
            let dynamic = o.word.dynamic;
            match o.role {
                // `npm pkg set scripts.test='…'`: operands that set configuration.
                Some(Role::Config) => out.extend(config_code(&o.word.value, dynamic)),
                // `trap 'rm -rf ~' EXIT`
                Some(Role::Code) => out.push(Carried {
                    text: o.word.value.clone(),
                    dynamic,
                    piped: false,
                }),
                // `sed '1e rm -rf ~'`, `awk 'BEGIN{system("…")}'`
                Some(Role::Sed) => out.extend(script_runs(
                    super::sed::commands_run(&o.word.value),
                    dynamic,
                )),
                Some(Role::Awk) => out.extend(script_runs(
                    super::sed::awk_commands(&o.word.value),
                    dynamic,
                )),
                // `alias x='rm -rf ~'`
                Some(Role::Define) => {
                    if let Some((_, code)) = o.word.value.split_once('=') {
                        out.push(Carried {
                            text: code.to_string(),
                            dynamic,
                            piped: false,
                        });
                    }
                }
                _ => {}
            }
        }
        for u in &self.options {
            let (Some(spec), Some(value)) = (u.spec, &u.value) else {
                continue;
            };
            let role = match spec.takes {
                Takes::Required(r) | Takes::Optional(r) => r,
                Takes::Nothing => continue,
            };
            let dynamic = value.word.dynamic;
            match role {
                Role::Sed => {
                    out.extend(script_runs(super::sed::commands_run(&value.text), dynamic))
                }
                Role::Awk => {
                    out.extend(script_runs(super::sed::awk_commands(&value.text), dynamic))
                }
                // `tar --checkpoint-action=exec=CMD`
                Role::Code => out.push(Carried {
                    text: value
                        .text
                        .strip_prefix("exec=")
                        .unwrap_or(&value.text)
                        .to_string(),
                    dynamic,
                    piped: false,
                }),
                Role::Program => out.push(Carried {
                    text: value.text.to_string(),
                    dynamic,
                    piped: false,
                }),
                // `rg --pre=sh`: the program is given each file, a path known only then.
                Role::Filter => out.push(Carried {
                    text: format!("{} \"$1\"", value.text),
                    dynamic,
                    piped: false,
                }),
                Role::Config => out.extend(config_code(&value.text, dynamic)),
                _ => {}
            }
        }
        out
    }
}

impl Reading<'_> {
    /// The command the operands from the first in the role `command` on make (`git bisect run
    /// CMD…`, `time CMD…`), as one command line.
    pub fn carried_command(&self) -> Option<Carried> {
        let command: Vec<_> = self
            .operands
            .iter()
            .skip_while(|o| o.role != Some(Role::Command))
            .collect();
        (!command.is_empty()).then(|| Carried {
            text: command
                .iter()
                .map(|o| o.word.value.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            dynamic: command.iter().any(|o| o.word.dynamic),
            piped: false,
        })
    }
}

/// Commands found in a script: `None` for one only known when it runs.
fn script_runs(found: Vec<(Option<String>, bool)>, dynamic: bool) -> Vec<Carried> {
    found
        .into_iter()
        .map(|(c, piped)| match c {
            Some(text) => Carried {
                text,
                dynamic,
                piped,
            },
            None => Carried {
                text: "…".to_string(),
                dynamic: true,
                piped,
            },
        })
        .collect()
}

/// The command a configuration assignment carries, if its key runs code: git's `-c
/// KEY=VALUE`, ssh's `-o KEY=VALUE` or `-o 'KEY VALUE'`. A git alias runs a shell command
/// only when its value starts with `!`; `core.hooksPath` names a folder of hooks, code not
/// known here.
pub fn config_code(assignment: &str, dynamic: bool) -> Option<Carried> {
    let (key, value) = assignment
        .split_once(['=', ' ', '\t'])
        .unwrap_or((assignment, ""));
    let value = value.trim_start_matches(['=', ' ', '\t']);
    let key = key.to_ascii_lowercase();
    if dynamic && !key_is_plain(&key) {
        // `-c "$K=…"`: which key is set is not known.
        return Some(Carried {
            text: assignment.to_string(),
            dynamic: true,
            piped: false,
        });
    }
    if !CODE_KEYS.iter().any(|k| key_matches(k, &key)) {
        return None;
    }
    let text = if key.starts_with("alias.") {
        value.strip_prefix('!')?.to_string()
    } else {
        // cargo's values are TOML strings: `runner="rm -rf ~"`.
        value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value)
            .to_string()
    };
    let opaque = key == "core.hookspath";
    Some(Carried {
        text,
        dynamic: dynamic || opaque,
        piped: false,
    })
}

fn key_is_plain(key: &str) -> bool {
    !key.contains(['$', '`'])
}

/// `diff.*.textconv` matches `diff.foo.textconv` and `diff.a.b.textconv` (a subsection may
/// hold dots); `pager.*` matches `pager.log`.
fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == key,
        Some((head, tail)) => {
            key.len() > head.len() + tail.len() && key.starts_with(head) && key.ends_with(tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_configuration_that_runs_code_is_carried() {
        let code = |a: &str| config_code(a, false).map(|c| c.text);
        assert_eq!(code("core.fsmonitor=rm -rf ~").as_deref(), Some("rm -rf ~"));
        assert_eq!(code("Core.Pager=sh").as_deref(), Some("sh"));
        assert_eq!(code("alias.st=!rm -rf ~").as_deref(), Some("rm -rf ~"));
        assert_eq!(code("diff.x.y.textconv=./conv").as_deref(), Some("./conv"));
        assert_eq!(code("alias.st=status"), None);
        assert_eq!(code("color.ui=always"), None);
        assert_eq!(code("user.name=x"), None);
        assert!(config_code("core.hooksPath=.hooks", false).is_some_and(|c| c.dynamic));
        assert!(config_code("$K=x", true).is_some_and(|c| c.dynamic));
        assert_eq!(code("ProxyCommand=sh -c id").as_deref(), Some("sh -c id"));
        assert_eq!(code("ProxyCommand sh -c id").as_deref(), Some("sh -c id"));
        assert_eq!(code("StrictHostKeyChecking=no"), None);
    }
}
