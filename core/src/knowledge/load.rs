//! Loading the program tables (`policies/programs/*.toml`, compiled into the binary) into one
//! registry by program name, with every mistake in a table reported by file and program.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;

use super::table::{parse_spec, Examples, Operands, Program, Style};

/// The tables, one file per family of programs.
pub const FILES: [(&str, &str); 6] = [
    (
        "core.toml",
        include_str!("../../../policies/programs/core.toml"),
    ),
    (
        "text.toml",
        include_str!("../../../policies/programs/text.toml"),
    ),
    (
        "files.toml",
        include_str!("../../../policies/programs/files.toml"),
    ),
    (
        "search.toml",
        include_str!("../../../policies/programs/search.toml"),
    ),
    (
        "git.toml",
        include_str!("../../../policies/programs/git.toml"),
    ),
    (
        "run.toml",
        include_str!("../../../policies/programs/run.toml"),
    ),
];

/// Every program the tables know, by name and alias.
#[derive(Debug, Default)]
pub struct Registry {
    programs: Vec<Program>,
    by_name: HashMap<String, usize>,
    /// Programs with an option (here or in a subcommand) whose value is code, a program or
    /// git configuration: the shell analysis reads their options for what they carry.
    carriers: std::collections::HashSet<String>,
    /// Mistakes in the tables (`file: program: message`). A program with a mistake is left
    /// out, so it is unknown: never read-only.
    pub errors: Vec<String>,
}

impl Registry {
    pub fn get(&self, name: &str) -> Option<&Program> {
        self.by_name.get(name).map(|i| &self.programs[*i])
    }

    /// Whether an option of `name` may carry a command (see [`Registry::carriers`]).
    pub fn carries_code(&self, name: &str) -> bool {
        self.carriers.contains(name)
    }

    pub fn programs(&self) -> impl Iterator<Item = &Program> {
        self.programs.iter()
    }

    /// Loads tables given as `(file name, TOML text)`.
    pub fn load(files: &[(&'static str, &str)]) -> Registry {
        let mut reg = Registry::default();
        for (file, text) in files {
            let table: toml::Table = match toml::from_str(text) {
                Ok(t) => t,
                Err(e) => {
                    reg.errors.push(format!("{file}: {e}"));
                    continue;
                }
            };
            for (name, value) in table {
                // One program at a time, so that a mistake leaves only that one out.
                let raw: RawProgram = match value.try_into() {
                    Ok(r) => r,
                    Err(e) => {
                        let e = e.to_string();
                        reg.errors.push(format!("{file}: {name}: {}", e.trim()));
                        continue;
                    }
                };
                let aliases = raw.aliases.clone();
                match compile(&name, file, raw) {
                    Ok(program) => {
                        let i = reg.programs.len();
                        let carries = carries(&program);
                        for n in std::iter::once(&name).chain(&aliases) {
                            if carries {
                                reg.carriers.insert(n.clone());
                            }
                            if reg.by_name.insert(n.clone(), i).is_some() {
                                reg.errors
                                    .push(format!("{file}: `{n}` is described more than once"));
                            }
                        }
                        reg.programs.push(program);
                    }
                    Err(e) => reg.errors.push(format!("{file}: {name}: {e}")),
                }
            }
        }
        reg
    }
}

/// The registry of the shipped tables, loaded on first use.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::load(&FILES))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    /// What the program does, in a few words (for reviewers).
    #[serde(default)]
    #[allow(dead_code)]
    summary: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    style: Option<String>,
    #[serde(default)]
    numeric: bool,
    /// Words starting with `+` are options (`less +cmd`, `vim +cmd`).
    #[serde(default)]
    plus: bool,
    #[serde(default)]
    readonly: bool,
    #[serde(default)]
    options: Vec<RawOption>,
    #[serde(default)]
    operands: Option<Vec<String>>,
    #[serde(default)]
    sub: BTreeMap<String, RawProgram>,
    #[serde(default)]
    readonly_examples: Vec<String>,
    #[serde(default)]
    not_readonly_examples: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawOption {
    Spec(String),
    Table(RawOptionTable),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOptionTable {
    spec: String,
    /// The operands' roles when this option is given.
    operands: Vec<String>,
}

fn compile(name: &str, family: &'static str, raw: RawProgram) -> Result<Program, String> {
    compile_node(name, family, raw, None)
}

fn compile_node(
    name: &str,
    family: &'static str,
    raw: RawProgram,
    parent: Option<Style>,
) -> Result<Program, String> {
    let style = match raw.style.as_deref() {
        None => parent.unwrap_or(Style::Gnu),
        Some("gnu") => Style::Gnu,
        Some("posix") => Style::Posix,
        Some("git") => Style::Git,
        Some("find") => Style::Find,
        Some(other) => return Err(format!("unknown style `{other}` (gnu, posix, git, find)")),
    };
    if parent.is_some() && !raw.aliases.is_empty() {
        return Err("a subcommand has no aliases".into());
    }
    let mut options = Vec::new();
    for o in raw.options {
        options.push(match o {
            RawOption::Spec(s) => parse_spec(&s)?,
            RawOption::Table(t) => {
                let mut spec = parse_spec(&t.spec)?;
                spec.operands = Some(Operands::parse(&t.operands)?);
                spec
            }
        });
    }
    let operands = match (&raw.operands, raw.readonly) {
        (Some(o), _) => Operands::parse(o)?,
        (None, true) if raw.sub.is_empty() => {
            return Err("a read-only program must say what its operands are".into())
        }
        (None, _) => Operands::default(),
    };
    let mut program = Program::new(name.to_string(), family, style, options, operands);
    check_duplicates(&program)?;
    program.set_flags(raw.numeric, raw.readonly);
    program.plus = raw.plus;
    program.set_examples(Examples {
        readonly: raw.readonly_examples,
        not_readonly: raw.not_readonly_examples,
    });
    for (sub_name, sub) in raw.sub {
        let full = format!("{name} {sub_name}");
        let compiled = compile_node(&full, family, sub, Some(style))?;
        program.add_sub(sub_name, compiled);
    }
    Ok(program)
}

fn carries(p: &Program) -> bool {
    use super::table::{Role, Takes};
    p.operands.fixed.iter().chain(&p.operands.rest).any(|r| {
        matches!(
            r,
            Role::Command | Role::Config | Role::Code | Role::Define | Role::Sed | Role::Awk
        )
    }) || p.options.iter().any(|o| {
        matches!(
            o.takes,
            Takes::Required(Role::Code | Role::Program | Role::Config | Role::Sed | Role::Awk)
                | Takes::Optional(
                    Role::Code | Role::Program | Role::Config | Role::Sed | Role::Awk
                )
        )
    }) || p.sub.values().any(carries)
}

fn check_duplicates(p: &Program) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for spec in &p.options {
        for n in &spec.names {
            if !seen.insert(n.as_str()) {
                return Err(format!("option `{n}` is described twice"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_tables_load_without_a_mistake() {
        let reg = registry();
        assert!(reg.errors.is_empty(), "{}", reg.errors.join("\n"));
        assert!(reg.get("git").is_some() && reg.get("find").is_some());
    }

    #[test]
    fn a_mistake_names_its_file_and_program_and_leaves_the_program_unknown() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [good]
            readonly = true
            options = ["-n --number"]
            operands = ["read..."]
            [bad]
            options = ["--out=file"]
            [noops]
            readonly = true
            "#,
        )]);
        assert!(reg.get("good").is_some());
        assert!(reg.get("bad").is_none() && reg.get("noops").is_none());
        assert_eq!(reg.errors.len(), 2, "{:?}", reg.errors);
        assert!(reg.errors[0].starts_with("t.toml: bad: unknown value role `file`"));
        assert!(reg.errors[1].contains("noops: a read-only program must say"));
    }

    #[test]
    fn unknown_keys_and_duplicates_are_mistakes() {
        let reg = Registry::load(&[(
            "t.toml",
            r#"
            [a]
            readonlyy = true
            [b]
            options = ["-x", "-x --ex"]
            "#,
        )]);
        assert_eq!(reg.errors.len(), 2, "{:?}", reg.errors);
        assert!(reg.errors[0].contains("unknown field `readonlyy`"));
        assert!(reg.errors[1].contains("option `-x` is described twice"));
    }
}
