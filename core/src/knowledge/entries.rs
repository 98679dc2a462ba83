//! One entry of a program file (`policies/programs/*.toml`) is all that is known of one
//! program; here it is split into what each reader takes: its grammar, its verb table, and its
//! `[NAME.effects]`, which goes into the effects data (`effects.toml`'s format) under the
//! program's name and each alias. `build.rs` runs this on every entry of every file; the
//! crate's tests check it here.

use std::collections::HashMap;

/// The keys of an entry that are its verb table (with `summary` and `aliases`, which the
/// grammar has too); the others are its grammar.
const VERB_KEYS: [&str; 4] = ["verbs", "verb_options", "examples", "global_values"];

/// The entry of the program files that lists the tools `npx` and its like may run: no program.
const RUNNERS: &str = "well_known_runners";

/// Every entry of the program files, split as it was added.
pub(crate) struct Entries {
    /// The effects data, with what every entry's `effects` said.
    pub(crate) effects: toml::Table,
    /// Every verb table by program name, and the runners' entry.
    pub(crate) verbs: toml::Table,
    /// Every grammar, in the order added: its file, name, aliases and table.
    pub(crate) grammars: Vec<(&'static str, String, Vec<String>, toml::Table)>,
    /// Which file describes each name (a program's or an alias): one entry only, so that
    /// all that is known of a program is in one place.
    names: HashMap<String, &'static str>,
}

impl Entries {
    /// Starts from the effects data of `effects.toml`, with every list and map the entries
    /// may add to made if missing (so that the data has them all, given or not).
    pub(crate) fn new(mut effects: toml::Table) -> Result<Self, String> {
        for (_, section, list) in ROLES {
            words_at(&mut effects, section, list)?;
        }
        for (_, section, map) in VERB_MAPS {
            table_at(table_at(&mut effects, section)?, map)?;
        }
        words_at(&mut effects, "run-remote-code", "fetch_and_run_verbs")?;
        Ok(Entries {
            effects,
            verbs: toml::Table::new(),
            grammars: Vec::new(),
            names: HashMap::new(),
        })
    }

    /// Splits the entry `name` of `file`. A name (or an alias) whose grammar or verb table
    /// two entries give fails, as does a bad `effects` table.
    pub(crate) fn add(
        &mut self,
        file: &'static str,
        name: String,
        mut value: toml::Value,
    ) -> Result<(), String> {
        if name == RUNNERS {
            claim(&mut self.names, &name, file)?;
            self.verbs.insert(name, value);
            return Ok(());
        }
        take_effects(&mut self.effects, &name, &mut value)?;
        let toml::Value::Table(mut grammar) = value else {
            return Err("not a table".into());
        };
        let names = words(grammar.get("aliases"));
        let mut table = toml::Table::new();
        for key in VERB_KEYS {
            if let Some(v) = grammar.remove(key) {
                table.insert(key.into(), v);
            }
        }
        for n in std::iter::once(&name).chain(&names) {
            claim(&mut self.names, n, file)?;
        }
        if !table.is_empty() {
            for key in ["summary", "aliases"] {
                if let Some(v) = grammar.get(key) {
                    table.insert(key.into(), v.clone());
                }
            }
            self.verbs.insert(name.clone(), toml::Value::Table(table));
        }
        if grammar.keys().any(|k| k != "summary" && k != "aliases") {
            self.grammars.push((file, name, names, grammar));
        }
        Ok(())
    }
}

/// Records that `file` describes `name`; a name described twice is an error.
fn claim(
    claimed: &mut HashMap<String, &'static str>,
    name: &str,
    file: &'static str,
) -> Result<(), String> {
    match claimed.insert(name.to_string(), file) {
        Some(other) => Err(format!("`{name}` is described in {other} too")),
        None => Ok(()),
    }
}

/// The words of a list (a program entry's `aliases`; `build.rs` reads the catalogue's lists
/// with it too): what is not a word is left out.
pub(crate) fn words(list: Option<&toml::Value>) -> Vec<String> {
    list.and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The roles `[NAME.effects] roles` may give a program, and the list of the effects data
/// (section, key) that names the programs in each.
const ROLES: [(&str, &str, &str); 10] = [
    ("scheduler", "persist", "schedulers"),
    ("privilege", "privilege", "programs"),
    ("process-control", "process-control", "programs"),
    ("machine", "process-control", "machine"),
    ("database", "infra-change", "databases"),
    ("fetch-and-run", "run-remote-code", "fetch_and_run"),
    ("fetcher", "network", "fetchers"),
    ("raw", "network", "raw"),
    ("copier", "network", "copiers"),
    ("lookup", "network", "lookups"),
];

/// The verb lists `[NAME.effects]` may hold, and the map of the effects data (section, key)
/// that holds each program's.
const VERB_MAPS: [(&str, &str, &str); 4] = [
    ("process-control", "process-control", "verbs"),
    ("infra-change", "infra-change", "verbs"),
    ("install", "install", "verbs"),
    ("extra-sources", "run-remote-code", "extra_sources"),
];

/// Takes the `effects` table out of a program's entry and puts what it says into the effects
/// data, under the program's name and each of its aliases: its `roles`, its verb lists (see
/// [`VERB_MAPS`]) and its `run-remote-code` verbs (`npm exec`). A role or a verb list given
/// twice for one name (here and in `effects.toml`, or in two entries), an unknown key or role,
/// or a value of the wrong type fails the build. Returns whether anything besides `summary`
/// and `aliases` is left: an entry with nothing else says only what its program does, and is
/// no program table.
fn take_effects(
    data: &mut toml::Table,
    name: &str,
    entry: &mut toml::Value,
) -> Result<bool, String> {
    let Some(table) = entry.as_table_mut() else {
        return Ok(true);
    };
    let Some(effects) = table.remove("effects") else {
        return Ok(true);
    };
    let rest = table.keys().any(|k| k != "summary" && k != "aliases");
    let toml::Value::Table(effects) = effects else {
        return Err("`effects` is not a table".into());
    };
    let mut names = vec![name.to_string()];
    names.extend(words(entry.get("aliases")));
    for (key, value) in effects {
        let words: Vec<&str> = value
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        if value.as_array().map(|a| a.len()) != Some(words.len()) {
            return Err(format!("effects.{key}: not a list of words"));
        }
        if key == "roles" {
            for role in &words {
                let Some((_, section, list)) = ROLES.iter().find(|r| r.0 == *role) else {
                    let known: Vec<&str> = ROLES.iter().map(|r| r.0).collect();
                    return Err(format!(
                        "effects.roles: no role `{role}` (roles: {known:?})"
                    ));
                };
                for n in &names {
                    let list = words_at(data, section, list)?;
                    if list.iter().any(|v| v.as_str() == Some(n.as_str())) {
                        return Err(format!("`{n}` is given the role `{role}` twice"));
                    }
                    list.push(toml::Value::String(n.clone()));
                }
            }
        } else if key == "run-remote-code" {
            for n in &names {
                let list = words_at(data, "run-remote-code", "fetch_and_run_verbs")?;
                for verb in &words {
                    let line = format!("{n} {verb}");
                    if list.iter().any(|v| v.as_str() == Some(&line)) {
                        return Err(format!("`{line}` runs remote code twice"));
                    }
                    list.push(toml::Value::String(line));
                }
            }
        } else if let Some((_, section, map)) = VERB_MAPS.iter().find(|m| m.0 == key) {
            for n in &names {
                let map = table_at(table_at(data, section)?, map)?;
                if map.contains_key(n) {
                    return Err(format!("the `{key}` verbs of `{n}` are given twice"));
                }
                map.insert(n.clone(), value.clone());
            }
        } else {
            return Err(format!(
                "effects.{key}: not `roles`, `run-remote-code` or one of {:?}",
                VERB_MAPS.map(|m| m.0)
            ));
        }
    }
    Ok(rest)
}

/// The table `key` of `table`, made if missing.
fn table_at<'t>(table: &'t mut toml::Table, key: &str) -> Result<&'t mut toml::Table, String> {
    table
        .entry(key)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .ok_or_else(|| format!("`{key}` of the effects data is not a table"))
}

/// The list `section.key` of the effects data, made if missing.
fn words_at<'t>(
    data: &'t mut toml::Table,
    section: &str,
    key: &str,
) -> Result<&'t mut Vec<toml::Value>, String> {
    table_at(data, section)?
        .entry(key)
        .or_insert_with(|| toml::Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| format!("`{section}.{key}` of the effects data is not a list"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> toml::Table {
        toml::from_str(text).expect("the test's TOML reads")
    }

    /// Takes the effects of each entry of `file` into an empty data, as `build.rs` does.
    fn gather(file: &str) -> Result<(toml::Table, Vec<String>), String> {
        let mut data = toml::Table::new();
        let mut kept = Vec::new();
        for (name, mut value) in entry(file) {
            if take_effects(&mut data, &name, &mut value)? {
                kept.push(name);
            }
        }
        Ok((data, kept))
    }

    /// The words at `path` of the data.
    fn listed(data: &toml::Table, path: &[&str]) -> Vec<String> {
        let mut v = &data[path[0]];
        for key in &path[1..] {
            v = &v[*key];
        }
        words(Some(v))
    }

    #[test]
    fn a_programs_effects_go_to_the_data_under_its_name_and_aliases() {
        let (data, kept) = gather(
            r#"
            [mydb]
            aliases = ["mydb-cli"]
            [mydb.verbs]
            read = ["list"]
            [mydb.effects]
            roles = ["database"]
            infra-change = ["drop"]
            run-remote-code = ["exec"]
            "#,
        )
        .expect("the entry gathers");
        assert_eq!(kept, ["mydb"], "a table with verbs stays a table");
        assert_eq!(
            listed(&data, &["infra-change", "databases"]),
            ["mydb", "mydb-cli"]
        );
        assert_eq!(
            listed(&data, &["infra-change", "verbs", "mydb-cli"]),
            ["drop"]
        );
        assert_eq!(
            listed(&data, &["run-remote-code", "fetch_and_run_verbs"]),
            ["mydb exec", "mydb-cli exec"]
        );
    }

    #[test]
    fn an_entry_of_effects_alone_is_no_program_table() {
        let (data, kept) = gather(
            "[kill]\nsummary = \"signals processes\"\n[kill.effects]\nroles = [\"process-control\"]\n",
        )
        .expect("the entry gathers");
        assert!(kept.is_empty());
        assert_eq!(listed(&data, &["process-control", "programs"]), ["kill"]);
        // The effects are taken out of a table that stays.
        let mut value = toml::Value::Table(entry("[effects]\nroles = []\n[verbs]\nread = []\n"));
        assert!(take_effects(&mut toml::Table::new(), "x", &mut value).expect("gathers"));
        assert!(value.get("effects").is_none());
    }

    #[test]
    fn a_role_or_verb_list_given_twice_fails() {
        for twice in [
            "[a.effects]\nroles = [\"fetcher\"]\n[b]\naliases = [\"a\"]\n[b.effects]\nroles = [\"fetcher\"]\n",
            "[a.effects]\ninstall = [\"add\"]\n[b]\naliases = [\"a\"]\n[b.effects]\ninstall = [\"get\"]\n",
            "[a.effects]\nroles = [\"raw\", \"raw\"]\n",
            "[a.effects]\nrun-remote-code = [\"x\", \"x\"]\n",
        ] {
            let err = gather(twice).expect_err(twice);
            assert!(err.contains("twice"), "{twice}: {err}");
        }
    }

    #[test]
    fn an_unknown_key_or_role_or_a_value_not_a_list_of_words_fails() {
        for (bad, says) in [
            (
                "[a.effects]\nroles = [\"sheduler\"]\n",
                "no role `sheduler`",
            ),
            ("[a.effects]\ndestroy = [\"rm\"]\n", "effects.destroy"),
            ("[a.effects]\ninstall = \"add\"\n", "not a list of words"),
            (
                "[a.effects]\ninstall = [\"add\", 1]\n",
                "not a list of words",
            ),
            ("[a]\neffects = 1\n", "not a table"),
        ] {
            let err = gather(bad).expect_err(bad);
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    /// Adds every entry of each file in turn, as `build.rs` does.
    fn split(files: &[(&'static str, &str)]) -> Result<Entries, String> {
        let mut entries = Entries::new(toml::Table::new())?;
        for (file, text) in files {
            for (name, value) in entry(text) {
                entries.add(file, name, value)?;
            }
        }
        Ok(entries)
    }

    #[test]
    fn one_entry_gives_its_grammar_its_verb_table_and_its_effects_apart() {
        let entries = split(&[(
            "t.toml",
            r#"
            [mk]
            summary = "builds"
            aliases = ["gmk"]
            propose = "exact"
            options = ["-f --file=read"]
            global_values = ["-f"]
            [mk.verbs]
            run = ["*"]
            [mk.verb_options]
            "--eval" = "code"
            [mk.effects]
            roles = ["process-control"]
            "#,
        )])
        .expect("the entry splits");
        let (file, name, names, grammar) = &entries.grammars[0];
        assert_eq!(
            (*file, name.as_str(), names.as_slice()),
            ("t.toml", "mk", &["gmk".to_string()][..])
        );
        let keys: Vec<&str> = grammar.keys().map(String::as_str).collect();
        assert_eq!(keys, ["aliases", "options", "propose", "summary"]);
        let table = entries.verbs["mk"].as_table().expect("a verb table");
        let keys: Vec<&str> = table.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "aliases",
                "global_values",
                "summary",
                "verb_options",
                "verbs"
            ]
        );
        assert_eq!(
            listed(&entries.effects, &["process-control", "programs"]),
            ["mk", "gmk"]
        );
        // Every list the entries may add to is there, given or not.
        assert!(listed(&entries.effects, &["network", "fetchers"]).is_empty());
    }

    #[test]
    fn an_entry_of_one_part_gives_that_part_only() {
        let entries = split(&[(
            "t.toml",
            "[g]\nreadonly = true\n[v.verbs]\nread = [\"ls\"]\n[e.effects]\nroles = [\"lookup\"]\n",
        )])
        .expect("the entries split");
        let grammars: Vec<&str> = entries.grammars.iter().map(|g| g.1.as_str()).collect();
        assert_eq!(grammars, ["g"]);
        let verbs: Vec<&str> = entries.verbs.keys().map(String::as_str).collect();
        assert_eq!(verbs, ["v"]);
        assert_eq!(listed(&entries.effects, &["network", "lookups"]), ["e"]);
    }

    #[test]
    fn a_name_two_entries_describe_fails_naming_the_other_file() {
        for (a, b, name) in [
            ("[x]\nreadonly = true\n", "[x]\nreadonly = false\n", "x"),
            (
                "[x.verbs]\nread = []\n",
                "[y]\naliases = [\"x\"]\n[y.verbs]\nread = []\n",
                "x",
            ),
            (
                "[x.effects]\nroles = []\n[well_known_runners]\nnpm = []\n",
                "[well_known_runners]\npip = []\n",
                "well_known_runners",
            ),
        ] {
            let err = split(&[("a.toml", a), ("b.toml", b)])
                .err()
                .unwrap_or_else(|| panic!("{a} and {b} split"));
            assert_eq!(err, format!("`{name}` is described in a.toml too"));
        }
        // A grammar in one file and a verb table in another: the program is in one entry.
        let err = split(&[
            ("a.toml", "[x]\nreadonly = true\n"),
            ("b.toml", "[x.verbs]\nread = []\n"),
        ]);
        assert!(err.is_err_and(|e| e.contains("a.toml")));
    }
}
