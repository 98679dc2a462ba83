//! Reading the options of a wrapper (`sudo -u root -E …`, `timeout -s KILL 5 …`) the way
//! `getopt` does, to find where the command it runs starts.
//!
//! Options end at the first word that is not one (the wrappers all stop there, as POSIX
//! `getopt` does), or after `--`. Short options combine (`-nu root`); an option that takes a
//! value takes the rest of its word or the next word; long options take `--name=value` or
//! `--name value` and may be abbreviated to a unique prefix.
//!
//! The tables cannot be perfect. An option the table does not know is read as a flag, and the
//! reading where it took the next word as its value is kept as an *alternative*: the caller
//! emits the command found both ways (an extra command only makes a decision stricter).

use super::Word;

/// How a program reads its options: written in the code (`Spec<'static>`), or borrowed from a
/// program table (`Spec<'_, String>`, see [`crate::knowledge::WrapperTable`]).
#[derive(Debug)]
pub(crate) struct Spec<'a, S: AsRef<str> = &'static str> {
    /// Short options that take a value (`-u root`, `-uroot`).
    pub short_value: &'a str,
    /// Short options whose value, if any, is attached (`xargs -i{}`).
    pub short_optional: &'a str,
    /// Short options that take no value.
    pub short_flags: &'a str,
    /// Short options that may take the next word or none (`sudo -h [host]`): read as flags,
    /// with the other reading as an alternative.
    pub short_ambiguous: &'a str,
    /// Long options that take a value (`--user=root`, `--user root`).
    pub long_value: &'a [S],
    /// Long options whose value, if any, is given with `=`.
    pub long_optional: &'a [S],
    /// Long options that take no value.
    pub long_flags: &'a [S],
    /// `-10` is an option (`nice -10 cmd`).
    pub numeric: bool,
}

impl Default for Spec<'_> {
    fn default() -> Self {
        Spec {
            short_value: "",
            short_optional: "",
            short_flags: "",
            short_ambiguous: "",
            long_value: &[],
            long_optional: &[],
            long_flags: &[],
            numeric: false,
        }
    }
}

/// One option found: its name (the letter of a short option, the full name of a long one) and
/// its value.
#[derive(Debug, Clone)]
pub(crate) struct Opt {
    pub name: String,
    pub value: Option<Word>,
}

/// The options of a command line.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub opts: Vec<Opt>,
    /// Index of the first operand (== `argv.len()` when there is none).
    pub operands: usize,
    /// The index of the first operand if the first unknown (or ambiguous) option took the
    /// next word as its value.
    pub alternative: Option<usize>,
}

impl Parsed {
    /// Whether the option `name` (a letter or a long name) was given.
    pub fn has(&self, name: &str) -> bool {
        self.opts.iter().any(|o| o.name == name)
    }

    /// The value of the last `name` option given.
    pub fn value(&self, names: &[&str]) -> Option<&Word> {
        self.opts
            .iter()
            .rev()
            .find(|o| names.contains(&o.name.as_str()))
            .and_then(|o| o.value.as_ref())
    }
}

enum Long<'a> {
    Value(&'a str),
    Optional(&'a str),
    Flag(&'a str),
    Unknown,
}

impl<'a, S: AsRef<str>> Spec<'a, S> {
    fn long(&self, name: &str) -> Long<'a> {
        let tables: [(&'a [S], u8); 3] = [
            (self.long_value, 0),
            (self.long_optional, 1),
            (self.long_flags, 2),
        ];
        let make = |kind: u8, full: &'a str| match kind {
            0 => Long::Value(full),
            1 => Long::Optional(full),
            _ => Long::Flag(full),
        };
        for (table, kind) in tables {
            if let Some(full) = table.iter().find(|n| n.as_ref() == name) {
                return make(kind, full.as_ref());
            }
        }
        if name.is_empty() {
            return Long::Unknown;
        }
        // getopt_long accepts a unique prefix.
        let mut found: Option<(u8, &'a str)> = None;
        for (table, kind) in tables {
            for full in table
                .iter()
                .map(AsRef::as_ref)
                .filter(|n| n.starts_with(name))
            {
                match found {
                    None => found = Some((kind, full)),
                    Some((k, _)) if k == kind => {}
                    Some(_) => return Long::Unknown,
                }
            }
        }
        match found {
            Some((kind, full)) => make(kind, full),
            None => Long::Unknown,
        }
    }
}

/// A word made from part of another (an attached option value).
fn part_of(word: &Word, text: &str) -> Word {
    Word {
        value: text.to_string(),
        dynamic: word.dynamic,
        path: (!word.dynamic).then(|| text.to_string()),
    }
}

/// Reads the options of `argv` from index `from`.
pub(crate) fn parse<S: AsRef<str>>(spec: &Spec<'_, S>, argv: &[Word], from: usize) -> Parsed {
    let mut parsed = parse_once(spec, argv, from, true);
    if let Some(k) = parsed.alternative {
        // `k` is the last word the unknown option would take.
        let alternative = parse_once(spec, argv, k + 1, false).operands;
        parsed.alternative = (alternative != parsed.operands).then_some(alternative);
    }
    parsed
}

/// One reading; with `track`, `alternative` is the index of the last word an unknown option
/// would take with its value.
fn parse_once<S: AsRef<str>>(
    spec: &Spec<'_, S>,
    argv: &[Word],
    from: usize,
    track: bool,
) -> Parsed {
    let mut parsed = Parsed::default();
    let mut i = from;
    while let Some(word) = argv.get(i) {
        let a = word.value.as_str();
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            i = parse_long(spec, argv, i, long, track, &mut parsed);
            continue;
        }
        let cluster = &a[1..];
        if spec.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            parsed.opts.push(Opt {
                name: "N".to_string(),
                value: Some(part_of(word, cluster)),
            });
            i += 1;
            continue;
        }
        i = parse_short_cluster(spec, argv, i, cluster, track, &mut parsed);
    }
    parsed.operands = i.min(argv.len());
    parsed
}

/// With `track`, notes that the first unknown option could take its value up to word `k`
/// included. (An option's own word, `current`, is always a plausible value; a next word
/// starting with `-` is not.)
fn note_unknown(parsed: &mut Parsed, argv: &[Word], track: bool, k: usize, current: usize) {
    let plausible = k == current
        || argv
            .get(k)
            .is_some_and(|w| !w.value.starts_with('-') || w.value == "-");
    if track && parsed.alternative.is_none() && plausible {
        parsed.alternative = Some(k);
    }
}

/// The long option `--long` at `argv[i]` (`long` without its dashes) and its value; returns
/// the index of the next word.
fn parse_long<S: AsRef<str>>(
    spec: &Spec<'_, S>,
    argv: &[Word],
    mut i: usize,
    long: &str,
    track: bool,
    parsed: &mut Parsed,
) -> usize {
    let word = &argv[i];
    let (name, attached) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let (full, value) = match spec.long(name) {
        Long::Value(full) => {
            let value = match attached {
                Some(v) => Some(part_of(word, v)),
                None => {
                    i += 1;
                    argv.get(i).cloned()
                }
            };
            (full, value)
        }
        Long::Optional(full) | Long::Flag(full) => (full, attached.map(|v| part_of(word, v))),
        Long::Unknown => {
            if attached.is_none() {
                note_unknown(parsed, argv, track, i + 1, i);
            }
            (name, attached.map(|v| part_of(word, v)))
        }
    };
    parsed.opts.push(Opt {
        name: full.to_string(),
        value,
    });
    i + 1
}

/// The cluster of short options at `argv[i]` (`cluster` without its dash), each letter on its
/// own; a letter that takes a value ends it. Returns the index of the next word.
fn parse_short_cluster<S: AsRef<str>>(
    spec: &Spec<'_, S>,
    argv: &[Word],
    i: usize,
    cluster: &str,
    track: bool,
    parsed: &mut Parsed,
) -> usize {
    let word = &argv[i];
    let mut taken_next = false;
    for (pos, c) in cluster.char_indices() {
        let rest = &cluster[pos + c.len_utf8()..];
        let takes_value = spec.short_value.contains(c)
            || spec.short_optional.contains(c)
            || (spec.short_ambiguous.contains(c) && !rest.is_empty());
        if takes_value {
            let value = if !rest.is_empty() {
                Some(part_of(word, rest))
            } else if spec.short_value.contains(c) {
                taken_next = true;
                argv.get(i + 1).cloned()
            } else {
                None
            };
            parsed.opts.push(Opt {
                name: c.to_string(),
                value,
            });
            break;
        }
        parsed.opts.push(Opt {
            name: c.to_string(),
            value: None,
        });
        if !spec.short_flags.contains(c) {
            // Unknown (or ambiguous): it may take the rest of its word, or the next word.
            note_unknown(
                parsed,
                argv,
                track,
                if rest.is_empty() { i + 1 } else { i },
                i,
            );
        }
    }
    i + if taken_next { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace()
            .map(|w| Word {
                value: w.to_string(),
                dynamic: false,
                path: Some(w.to_string()),
            })
            .collect()
    }

    const SUDO_LIKE: Spec = Spec {
        short_value: "ug",
        short_optional: "",
        short_flags: "En",
        short_ambiguous: "h",
        long_value: &["user", "group"],
        long_optional: &["preserve-env"],
        long_flags: &["login", "list"],
        numeric: false,
    };

    #[test]
    fn short_options_combine_and_take_values() {
        let argv = words("sudo -nu root -E rm -rf /");
        let p = parse(&SUDO_LIKE, &argv, 1);
        assert_eq!(p.operands, 4);
        assert_eq!(p.value(&["u"]).map(|w| w.value.as_str()), Some("root"));
        assert!(p.has("n") && p.has("E"));
        assert_eq!(p.alternative, None);
        let argv = words("sudo -uroot rm");
        assert_eq!(parse(&SUDO_LIKE, &argv, 1).operands, 2);
    }

    #[test]
    fn long_options_take_values_with_or_without_equals_and_abbreviate() {
        let argv = words("sudo --user=root --group wheel --us x --preserve-env rm");
        let p = parse(&SUDO_LIKE, &argv, 1);
        assert_eq!(p.operands, 7);
        assert_eq!(p.value(&["group"]).map(|w| w.value.as_str()), Some("wheel"));
        assert_eq!(p.value(&["user"]).map(|w| w.value.as_str()), Some("x"));
    }

    #[test]
    fn double_dash_ends_options() {
        let argv = words("sudo -n -- -rm x");
        assert_eq!(parse(&SUDO_LIKE, &argv, 1).operands, 3);
    }

    #[test]
    fn unknown_options_keep_the_reading_where_they_take_a_value() {
        let argv = words("sudo -X val rm -rf /");
        let p = parse(&SUDO_LIKE, &argv, 1);
        assert_eq!(p.operands, 2);
        assert_eq!(p.alternative, Some(3));
        let argv = words("sudo -h host rm");
        let p = parse(&SUDO_LIKE, &argv, 1);
        assert_eq!((p.operands, p.alternative), (2, Some(3)));
        let argv = words("sudo --frob val rm");
        assert_eq!(parse(&SUDO_LIKE, &argv, 1).alternative, Some(3));
        // The next word is an option: no alternative.
        let argv = words("sudo -X -n rm");
        let p = parse(&SUDO_LIKE, &argv, 1);
        assert_eq!((p.operands, p.alternative), (3, None));
    }

    #[test]
    fn numeric_options() {
        let spec = Spec {
            short_value: "n",
            numeric: true,
            ..Spec::default()
        };
        let argv = words("nice -10 make");
        assert_eq!(parse(&spec, &argv, 1).operands, 2);
    }

    #[test]
    fn missing_values_end_the_line() {
        let argv = words("sudo -u");
        assert_eq!(parse(&SUDO_LIKE, &argv, 1).operands, 2);
        let argv = words("sudo --user");
        assert_eq!(parse(&SUDO_LIKE, &argv, 1).operands, 2);
    }
}
