//! Interpreters (`python -c`, `perl -e`, `node -e`, …): the commands their code shells out
//! to, found by `interp`.

use super::shells::stdin_scripts;
use super::{Env, Run};
use crate::knowledge::interp::{self, Lang, ShellOut};
use crate::shell::{Origin, SimpleCommand};

/// The shell-outs of an interpreter's code (`-c`, `-e`, …, or a script on its standard input).
pub(super) fn interpreter_runs(lang: Lang, cmd: &SimpleCommand, env: &Env<'_>) -> Vec<Run> {
    let inv = interp::invocation(lang, &cmd.argv);
    let mut codes: Vec<(String, bool)> = inv
        .codes
        .iter()
        .map(|w| (w.value.clone(), w.dynamic))
        .collect();
    if let Some(script) = &inv.script {
        // `python3 <(curl …)`: code only known when it runs.
        if script.dynamic && script.value.starts_with("<(") {
            return vec![Run::Unknown {
                source: script.value.clone(),
                origin: Origin::Interpreter,
            }];
        }
    }
    if inv.stdin {
        for run in stdin_scripts(cmd, env, Origin::Interpreter) {
            match run {
                Run::Script { text, dynamic, .. } => codes.push((text, dynamic)),
                other => return vec![other],
            }
        }
    }
    // Perl's and ruby's `-e` codes are lines of one program.
    if matches!(lang, Lang::Perl | Lang::Ruby) && codes.len() > 1 {
        let dynamic = codes.iter().any(|(_, d)| *d);
        let joined: Vec<String> = codes.drain(..).map(|(code, _)| code).collect();
        codes.push((joined.join("\n"), dynamic));
    }
    let mut runs = Vec::new();
    for (code, dynamic) in codes {
        let found = interp::shell_outs(lang, &code);
        // Code only known when it runs (`python -c "$(curl …)"`), or shell-outs in code the
        // shell changes before the interpreter reads it (`-e "system('rm $D')"`).
        let starts_dynamic = code.trim_start().starts_with(['$', '`']);
        if dynamic && (!found.is_empty() || starts_dynamic) {
            runs.push(Run::Unknown {
                source: code.clone(),
                origin: Origin::Interpreter,
            });
        }
        for shell_out in found {
            runs.push(match shell_out {
                ShellOut::Shell { text, dynamic } => Run::Script {
                    text,
                    dynamic,
                    origin: Origin::Interpreter,
                    piped: false,
                    same_shell: false,
                    stdin: !inv.stdin,
                },
                ShellOut::Argv(argv) => Run::Argv {
                    argv,
                    assignments: Vec::new(),
                    piped: false,
                    stdin: !inv.stdin,
                    origin: Origin::Interpreter,
                },
                ShellOut::Unknown(source) => Run::Unknown {
                    source,
                    origin: Origin::Interpreter,
                },
            });
        }
    }
    runs
}
