//! Shell state a line may change: the variables that decide which program a name runs and
//! where a path leads. A line that changes one of them makes every command in it unknown to
//! the rules that allow (the analysis reads `git` and `~/x` as they are before the line runs).

use crate::command::SimpleCommand;

/// Variables that decide what a program name runs (`PATH`, and what bash reads at start) or
/// where a path leads (`HOME` for `~`, `CDPATH` for `cd`, `PWD`/`OLDPWD` for `~+`/`~-`, `IFS`
/// for how words split).
pub const STATE_VARIABLES: [&str; 9] = [
    "HOME",
    "PATH",
    "CDPATH",
    "IFS",
    "BASH_ENV",
    "ENV",
    "PWD",
    "OLDPWD",
    "GLOBIGNORE",
];

/// Variables whose value bash runs as code or expands as a prompt when it next shows one or
/// traces a command (`PS4='$(…)'` with `set -x`), and those a program runs or loads as code:
/// git's commands and extra settings, the dynamic loader's preloads, pagers and editors, a
/// shell's start-up file, interpreters' start-up options. See [`runs_code`].
pub const CODE_VARIABLES: [&str; 36] = [
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PROMPT_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
];

/// Whether a variable's value is run or loaded as code by bash or a program it starts: one of
/// [`CODE_VARIABLES`], git's `GIT_CONFIG_*` settings and its `GIT_*_COMMAND`s.
pub fn runs_code(name: &str) -> bool {
    CODE_VARIABLES.contains(&name)
        || name.starts_with("GIT_CONFIG_")
        || (name.ends_with("_COMMAND") && name.starts_with("GIT_"))
}

/// Builtins that give a variable a value or take it away; their operands name variables.
const SETTERS: [&str; 10] = [
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "read",
    "unset",
    "mapfile",
    "readarray",
    "getopts",
];

/// Why the line changes the shell state the analysis relies on, if it does: an assignment,
/// `export`/`declare`/`read`/`unset`/`printf -v` of a variable in [`STATE_VARIABLES`] (or of a
/// name only known when the line runs), or a builtin that changes what names run (`alias`,
/// `enable`, `hash`).
pub fn changes_shell_state(commands: &[SimpleCommand]) -> Option<String> {
    for cmd in commands {
        // `HOME=/x` alone sets it for the rest of the line; before a program only for that
        // program, which reads it as it will (not read-only there: see `reads_only`).
        if cmd.argv.is_empty() {
            if let Some(name) = cmd.assignments.iter().find_map(|a| state_name(a)) {
                return Some(format!("the line changes `{name}`"));
            }
            continue;
        }
        let program = cmd.program();
        // `declare -n r=PATH; r=/tmp`: a name reference sets whatever it names.
        let nameref = matches!(program, "declare" | "typeset" | "local")
            && cmd.argv.iter().skip(1).any(|w| {
                w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains('n')
            });
        if nameref {
            return Some(format!(
                "`{program} -n` makes a name that sets another variable"
            ));
        }
        let names: Vec<&crate::command::Word> = match program {
            p if SETTERS.contains(&p) => cmd.argv[1..].iter().collect(),
            // `printf -v NAME …`, `printf -vNAME …`
            "printf" => cmd
                .argv
                .iter()
                .skip(1)
                .zip(cmd.argv.iter().skip(2))
                .filter(|(o, _)| o.value == "-v")
                .map(|(_, n)| n)
                .collect(),
            "alias" | "enable" | "hash" => {
                if cmd.argv.len() > 1 {
                    return Some(format!("the line changes what names run (`{program}`)"));
                }
                continue;
            }
            _ => continue,
        };
        for w in names {
            let name = w.value.split_once('=').map_or(w.value.as_str(), |(n, _)| n);
            if w.dynamic && !w.value.starts_with('-') {
                return Some(format!(
                    "`{program}` sets a variable whose name is computed (`{}`)",
                    w.value
                ));
            }
            if let Some(n) = state_name(name) {
                return Some(format!("the line changes `{n}` (`{program}`)"));
            }
        }
        if program == "printf"
            && cmd
                .argv
                .iter()
                .any(|w| w.value.starts_with("-v") && w.value.len() > 2)
        {
            return Some("`printf -v` sets a variable".into());
        }
    }
    None
}

/// The values a line gives its variables where they are known before it runs: `NAME=value`
/// alone, `export`/`declare`/`local`/`readonly NAME=value`, `printf -v NAME %s value`. Every
/// value a name is given is kept (branches may give several). The protections check paths
/// with each (`D=~/.ssh; cat $D/id_rsa`, `HOME=/; cat ~/home/u/.ssh/id_rsa`).
pub fn line_values(commands: &[SimpleCommand]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |name: &str, value: &str| {
        // A value from home (`X=$HOME/.ssh`) is as known as `~/.ssh`: paths resolve `$HOME`.
        let from_home = ["${HOME}", "$HOME"]
            .iter()
            .find_map(|h| value.strip_prefix(h))
            .unwrap_or(value);
        let plain = !from_home.contains(['$', '`'])
            && (from_home.len() == value.len()
                || from_home.is_empty()
                || from_home.starts_with('/'));
        let entry = (name.to_string(), value.to_string());
        if plain && is_name(name) && !out.contains(&entry) {
            out.push(entry);
        }
    };
    for cmd in commands {
        if cmd.argv.is_empty() {
            for a in &cmd.assignments {
                if let Some((n, v)) = a.split_once('=') {
                    push(n.trim_end_matches('+'), v);
                }
            }
            continue;
        }
        match cmd.program() {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for w in cmd.argv.iter().skip(1).filter(|w| !w.dynamic) {
                    if let Some((n, v)) = w.value.split_once('=') {
                        push(n, v);
                    }
                }
            }
            "printf" => {
                let words: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
                if cmd.argv.iter().any(|w| w.dynamic) {
                    continue;
                }
                if let ["printf", "-v", name, format, rest @ ..] = words.as_slice() {
                    let value = match (*format, rest) {
                        ("%s", args) => Some(args.concat()),
                        (f, []) if !f.contains(['%', '\\']) => Some(f.to_string()),
                        _ => None,
                    };
                    if let Some(v) = value {
                        push(name, &v);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn is_name(n: &str) -> bool {
    n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The state variable `text` (`NAME` or `NAME=value`, `NAME+=value`, `NAME[0]=…`) names.
fn state_name(text: &str) -> Option<&str> {
    let name = text.split(['=', '+', '[']).next().unwrap_or(text);
    // A variable run as code changes what the commands after it do (`LESSOPEN='|…'; less x`).
    STATE_VARIABLES
        .iter()
        .find(|v| **v == name)
        .copied()
        .or_else(|| runs_code(name).then_some(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::analyse;

    fn changes(line: &str) -> bool {
        changes_shell_state(&analyse(line).commands).is_some()
    }

    #[test]
    fn assignments_and_setters_of_state_variables_change_the_state() {
        for line in [
            "PATH=./bin:$PATH; git status",
            "export PATH=/tmp:$PATH && ls",
            "printf -v PATH %s \"bin:$PATH\"; git status",
            "printf -vPATH %s x; ls",
            "read HOME < f; cat ~/x",
            "declare -x HOME=/tmp; ls ~",
            "unset CDPATH; cd src",
            "IFS=/ ; ls",
            "alias ls='rm -rf ~'; ls",
            "hash -p /tmp/x ls; ls",
            "declare -n r=PATH; r=/tmp; ls",
        ] {
            assert!(changes(line), "{line}");
        }
        // A variable whose name is computed: not understood at all.
        assert!(analyse("n=PATH; export \"$n\"=/tmp; ls").failure.is_some());
    }

    #[test]
    fn values_known_before_the_line_runs_are_collected() {
        let values = |line: &str| line_values(&analyse(line).commands);
        assert_eq!(
            values("D=/home/u/.ssh; cat $D/id_rsa"),
            [("D".to_string(), "/home/u/.ssh".to_string())]
        );
        assert_eq!(
            values("printf -v HOME %s /; export CDPATH=/home/u X=$Y"),
            [
                ("HOME".to_string(), "/".to_string()),
                ("CDPATH".to_string(), "/home/u".to_string())
            ]
        );
        assert!(values("X=$(pwd); read Y").is_empty());
        // A value from home is known too; `$HOMEX` is another variable.
        assert_eq!(
            values("X=$HOME/.ssh; Y=${HOME}; Z=$HOMEX/.ssh; W=$HOME/$V"),
            [
                ("X".to_string(), "$HOME/.ssh".to_string()),
                ("Y".to_string(), "${HOME}".to_string())
            ]
        );
    }

    #[test]
    fn everyday_variables_leave_the_state_alone() {
        for line in [
            "ls -la",
            "x=1; echo $x",
            "export RUST_LOG=debug && cargo test",
            "read -r line < f; echo \"$line\"",
            "printf '%s\\n' PATH",
            "alias",
            "LC_ALL=C sort f",
        ] {
            assert!(!changes(line), "{line}");
        }
    }
}
