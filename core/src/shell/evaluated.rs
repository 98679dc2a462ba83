//! Operands that bash evaluates as code although they are written as data: variable names with
//! a subscript (`read 'a[$(…)]'`, `test -v 'a[$(…)]'`, `printf -v`, `declare`, `unset`),
//! arithmetic expressions (`let`, `declare -i`), and `mapfile`'s callback. A subscript is an
//! arithmetic expression, and bash runs the command substitutions in it: such an operand that
//! holds `$(` or a back-tick, or that is only known when the line runs, is not understood.

use super::driver::Res;
use super::{SimpleCommand, Word};

/// Checks every command's evaluated operands (see the module's documentation).
pub(super) fn check(commands: &[SimpleCommand]) -> Res<()> {
    for cmd in commands {
        if cmd.argv.first().is_none_or(|w| w.dynamic) {
            continue;
        }
        let program = cmd.program();
        // `mapfile -C CALLBACK` runs the callback as code for every few lines read.
        let callback = matches!(program, "mapfile" | "readarray")
            && cmd.argv[1..]
                .iter()
                .any(|w| w.dynamic || (w.value.starts_with('-') && w.value.contains('C')));
        if callback {
            return Err(format!("`{program} -C` runs its callback as code"));
        }
        for (word, what) in evaluated_operands(program, &cmd.argv[1..]) {
            let code = word.value.contains("$(") || word.value.contains('`');
            if code || word.dynamic {
                return Err(format!(
                    "`{program}` evaluates {what} `{}` as code (a subscript or an arithmetic \
                     expression runs the commands in it)",
                    word.value
                ));
            }
        }
    }
    Ok(())
}

/// The operands of `program` that bash evaluates (with what they are, for the reason).
fn evaluated_operands<'w>(program: &str, args: &'w [Word]) -> Vec<(&'w Word, &'static str)> {
    let mut out = Vec::new();
    match program {
        // `test -v NAME`, `[ -v NAME ]`
        "test" | "[" => {
            for pair in args.windows(2) {
                if pair[0].value == "-v" && !pair[0].dynamic {
                    out.push((&pair[1], "the variable name"));
                }
            }
        }
        "let" => out.extend(args.iter().map(|w| (w, "the expression"))),
        "read" => names_after_options(args, "adinNptu", "a", &mut out),
        "mapfile" | "readarray" => names_after_options(args, "dnOsuCc", "", &mut out),
        "printf" => {
            for (i, w) in args.iter().enumerate() {
                if w.value == "-v" {
                    out.extend(args.get(i + 1).map(|n| (n, "the variable name")));
                } else if w.value.starts_with("-v") {
                    out.push((w, "the variable name"));
                }
                if w.value == "--" || !w.value.starts_with('-') {
                    break;
                }
            }
        }
        "getopts" => out.extend(args.get(1).map(|n| (n, "the variable name"))),
        "wait" => {
            for (i, w) in args.iter().enumerate() {
                if w.value == "-p" {
                    out.extend(args.get(i + 1).map(|n| (n, "the variable name")));
                }
            }
        }
        "unset" => out.extend(
            args.iter()
                .filter(|w| w.dynamic || !w.value.starts_with('-'))
                .map(|w| (w, "the variable name")),
        ),
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            // With `-i` every value is an arithmetic expression too.
            let integer = args.iter().any(|w| {
                w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains('i')
            });
            let nameref = args.iter().any(|w| {
                w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains('n')
            });
            for w in args
                .iter()
                .filter(|w| w.dynamic || !w.value.starts_with(['-', '+']))
            {
                if integer {
                    out.push((w, "the assignment"));
                } else if let Some((name, value)) = w.value.split_once('=') {
                    // `declare -n r=NAME`: the value is a name, its subscript evaluated when
                    // `r` is used.
                    if nameref && (w.dynamic || value.contains("$(") || value.contains('`')) {
                        out.push((w, "the name it refers to"));
                        continue;
                    }
                    // The value is data; the name (and its subscript) is evaluated.
                    if name.contains("$(") || name.contains('`') || name.contains('$') {
                        out.push((w, "the variable name"));
                    }
                } else {
                    out.push((w, "the variable name"));
                }
            }
        }
        _ => {}
    }
    out
}

/// The operands after a builtin's options (`read -r -p PROMPT NAME…`): `with_value` are the
/// option letters that take a value; `named` those whose value is itself a variable name
/// (`read -a NAME`).
fn names_after_options<'w>(
    args: &'w [Word],
    with_value: &str,
    named: &str,
    out: &mut Vec<(&'w Word, &'static str)>,
) {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') || v == "-" || w.dynamic {
            break;
        }
        // A cluster (`-rp PROMPT`): the first letter that takes a value ends it.
        let mut takes = None;
        for (at, c) in v[1..].char_indices() {
            if with_value.contains(c) {
                let attached = &v[1 + at + c.len_utf8()..];
                takes = Some((c, attached.is_empty()));
                break;
            }
        }
        match takes {
            Some((c, true)) => {
                if named.contains(c) {
                    out.extend(args.get(i + 1).map(|n| (n, "the variable name")));
                }
                i += 2;
            }
            Some((c, false)) => {
                if named.contains(c) {
                    out.push((w, "the variable name"));
                }
                i += 1;
            }
            None => i += 1,
        }
    }
    out.extend(
        args.get(i..)
            .unwrap_or_default()
            .iter()
            .map(|w| (w, "the variable name")),
    );
}

#[cfg(test)]
mod tests {
    use crate::shell::analyse;

    fn refused(line: &str) -> bool {
        analyse(line).failure.is_some()
    }

    #[test]
    fn a_subscript_bash_evaluates_in_a_builtins_operand_is_not_understood() {
        for line in [
            "test -v 'a[$(rm -rf ~)]'",
            "[ -v 'a[$(id)]' ]",
            "read 'a[$(id)]' <<< x",
            "read -r -p prompt 'a[`id`]' <<< x",
            "read -a 'a[$(id)]' <<< x",
            "printf -v 'a[$(id)]' x",
            "printf -v\"a[\\$(id)]\" x",
            "declare 'a[$(id)]=1'",
            "unset 'a[$(id)]'",
            "let 'a[$(id)]'",
            "let \"$x\"",
            "declare -i x='a[$(id)]'",
            "mapfile -C 'rm -rf ~' -c 1 lines < f",
            "getopts ab 'a[$(id)]'",
            "wait -p 'a[$(id)]'",
            "read \"$name\" <<< x",
            "bash -c \"read 'a[\\$(id)]' <<< x\"",
        ] {
            assert!(refused(line), "{line}");
        }
    }

    #[test]
    fn plain_names_and_values_stay_understood() {
        for line in [
            "test -v HOME",
            "read -r line < f",
            "read -rp 'name? ' answer <<< x",
            "printf -v out '%s' '$(not run)'",
            "declare x='$(not run)'",
            "export A=1 B=\"$HOME\"",
            "let i=i+1",
            "mapfile -t lines < f",
            "unset -f f",
            "test -f 'a[$(x)]'",
        ] {
            assert!(!refused(line), "{line}: {:?}", analyse(line).failure);
        }
    }
}
