//! Options read by a list of the names that take a value, the way getopt reads them: enough for
//! curl and wget, whose options the program knowledge does not hold.

use crate::command::{SimpleCommand, Word};

/// Options as given to a program whose grammar is a list of value-taking names (`-Xvalue`,
/// `-X value`, `--name=value`, `--name value`).
pub(super) struct Opts<'c> {
    pub(super) given: Vec<(String, Option<Val<'c>>)>,
    /// Indices in argv of the words that are values of options.
    pub(super) values: Vec<usize>,
}

/// An option's value and the word it was written in (itself, or the option's word).
#[derive(Clone, Copy)]
pub(super) struct Val<'c> {
    pub(super) text: &'c str,
    pub(super) word: &'c Word,
}

impl<'c> Opts<'c> {
    /// Reads `cmd`'s options up to `--`, `takes` naming those that take a value.
    pub(super) fn of(cmd: &'c SimpleCommand, takes: &[&str]) -> Opts<'c> {
        let mut given = Vec::new();
        let mut values = Vec::new();
        let mut i = 1;
        while let Some(w) = cmd.argv.get(i) {
            let v = w.value.as_str();
            i += 1;
            if v == "--" {
                break;
            }
            let mut next =
                |given: &mut Vec<(String, Option<Val<'c>>)>, name: String, i: &mut usize| {
                    let value = cmd.argv.get(*i).map(|x| Val {
                        text: x.value.as_str(),
                        word: x,
                    });
                    if value.is_some() {
                        values.push(*i);
                    }
                    given.push((name, value));
                    *i += 1;
                };
            if let Some(long) = v.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, text)) => {
                        given.push((format!("--{name}"), Some(Val { text, word: w })))
                    }
                    None if takes.iter().any(|t| names_option(v, t)) => {
                        next(&mut given, v.to_string(), &mut i)
                    }
                    None => given.push((v.to_string(), None)),
                }
                continue;
            }
            if v.len() > 1 && v.starts_with('-') {
                for (k, c) in v.char_indices().skip(1) {
                    let name = format!("-{c}");
                    if takes.contains(&name.as_str()) {
                        let rest = &v[k + c.len_utf8()..];
                        if rest.is_empty() {
                            next(&mut given, name, &mut i);
                        } else {
                            given.push((
                                name,
                                Some(Val {
                                    text: rest,
                                    word: w,
                                }),
                            ));
                        }
                        break;
                    }
                    given.push((name, None));
                }
            }
        }
        Opts { given, values }
    }

    /// Whether one of `names` is given.
    pub(super) fn given(&self, names: &[&str]) -> bool {
        self.given
            .iter()
            .any(|(n, _)| names.iter().any(|name| names_option(n, name)))
    }

    /// The value of the first of `names` given with one.
    pub(super) fn value(&self, names: &[&str]) -> Option<Val<'c>> {
        self.given
            .iter()
            .find(|(n, v)| v.is_some() && names.iter().any(|name| names_option(n, name)))
            .and_then(|(_, v)| *v)
    }
}

/// Whether an option as written names `option`: the same, or (getopt_long, which wget and
/// older curl use) an abbreviation of a long one (`--output-doc` for `--output-document`).
/// An ambiguous abbreviation names every option it could be, which only finds more effects;
/// [`vouched`](super::vouched) compares names exactly, so an abbreviation is never vouched for.
pub(super) fn names_option(written: &str, option: &str) -> bool {
    written == option
        || (written.starts_with("--") && written.len() > 3 && option.starts_with(written))
}
