//! Reading a command's words: its operands, an option's value, a text cut short for a message.

use crate::command::SimpleCommand;

/// The first value of one of `names` (`--bind 0.0.0.0`, `--bind=0.0.0.0`, `-d DIR`).
pub(super) fn option_value<'w>(argv: &[&'w str], names: &[&str]) -> Option<&'w str> {
    for (i, w) in argv.iter().enumerate() {
        for n in names {
            if w == n {
                return argv.get(i + 1).copied();
            }
            if let Some(v) = w.strip_prefix(n).and_then(|r| r.strip_prefix('=')) {
                return Some(v);
            }
        }
    }
    None
}

/// The words of a command that are not options (`-x`, `--x`), after the program.
pub(super) fn positional(cmd: &SimpleCommand) -> Vec<&str> {
    cmd.argv
        .iter()
        .skip(1)
        .map(|w| w.value.as_str())
        .filter(|w| !w.starts_with('-') || *w == "-")
        .collect()
}

/// Text on one line and at most 40 characters, for a message.
pub(super) fn short(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 40 {
        one.chars().take(39).collect::<String>() + "…"
    } else {
        one
    }
}
