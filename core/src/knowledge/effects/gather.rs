//! A program's `[NAME.effects]`, taken out of its entry in a program file and put into the
//! effects data (`policies/programs/effects.toml`'s format): what one program does is said
//! where the program is, and the model reads one set of data. `build.rs` runs this on every
//! entry of every program file; the crate's tests check it here.

/// A program entry's aliases.
pub(crate) fn aliases(entry: &toml::Value) -> Vec<&str> {
    entry
        .get("aliases")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

/// The roles `[NAME.effects] roles` may give a program, and the list of the effects data
/// (section, key) that names the programs in each.
pub(crate) const ROLES: [(&str, &str, &str); 10] = [
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
pub(crate) const VERB_MAPS: [(&str, &str, &str); 4] = [
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
pub(crate) fn take_effects(
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
    names.extend(aliases(entry).into_iter().map(String::from));
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
pub(crate) fn table_at<'t>(
    table: &'t mut toml::Table,
    key: &str,
) -> Result<&'t mut toml::Table, String> {
    table
        .entry(key)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .ok_or_else(|| format!("`{key}` of the effects data is not a table"))
}

/// The list `section.key` of the effects data, made if missing.
pub(crate) fn words_at<'t>(
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

    fn words(data: &toml::Table, path: &[&str]) -> Vec<String> {
        let mut v = &data[path[0]];
        for key in &path[1..] {
            v = &v[*key];
        }
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|w| w.as_str())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
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
            words(&data, &["infra-change", "databases"]),
            ["mydb", "mydb-cli"]
        );
        assert_eq!(
            words(&data, &["infra-change", "verbs", "mydb-cli"]),
            ["drop"]
        );
        assert_eq!(
            words(&data, &["run-remote-code", "fetch_and_run_verbs"]),
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
        assert_eq!(words(&data, &["process-control", "programs"]), ["kill"]);
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
}
