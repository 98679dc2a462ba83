//! Reads the shipped tables (`policies/programs/*.toml`) once, at build time, so that a hook
//! process does not parse 170 KB of TOML for every call it decides.
//!
//! It writes `$OUT_DIR/tables.rs`: every program of the program tables as its own JSON text
//! (with its name, aliases and file), each of its subcommands apart (so that naming `git
//! status` reads the JSON of `status`, not the whole 70 KB of git's), and the effects data as
//! JSON. The crate deserializes the
//! JSON into the same types as before, one program when a command first names it. What each
//! field means, and every check of it, stays in the crate: here the tables are only read. A
//! table that is not TOML at all fails the build, naming the file.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

/// The program tables, one per family, in the order they are read.
const PROGRAM_FILES: [&str; 6] = [
    "core.toml",
    "text.toml",
    "files.toml",
    "search.toml",
    "git.toml",
    "run.toml",
];

const EFFECTS_FILE: &str = "effects.toml";

fn main() -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/programs");
    let mut out = String::from("// Written by build.rs from policies/programs/*.toml.\n\n");
    out.push_str("pub(crate) const PROGRAMS: &[ShippedProgram] = &[\n");
    for file in PROGRAM_FILES {
        for (name, mut value) in read(&dir, file)? {
            let subs = match value.as_table_mut().and_then(|t| t.remove("sub")) {
                Some(toml::Value::Table(subs)) => subs
                    .iter()
                    .map(|(sub, v)| Ok((sub.clone(), serde_json::to_string(v)?)))
                    .collect::<Result<Vec<_>, serde_json::Error>>()
                    .map_err(|e| format!("{file}: {name}: {e}"))?,
                Some(_) => return Err(format!("{file}: {name}: `sub` is not a table")),
                None => Vec::new(),
            };
            let aliases: Vec<&str> = value
                .get("aliases")
                .and_then(|a| a.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            let json = serde_json::to_string(&value).map_err(|e| format!("{file}: {name}: {e}"))?;
            let _ = writeln!(
                out,
                "    ShippedProgram {{ file: {file:?}, name: {name:?}, aliases: &{aliases:?}, json: {json:?}, subs: &{subs:?} }},"
            );
        }
    }
    out.push_str("];\n\n");
    let effects = read(&dir, EFFECTS_FILE)?;
    let json = serde_json::to_string(&effects).map_err(|e| format!("{EFFECTS_FILE}: {e}"))?;
    let _ = writeln!(out, "pub(crate) const EFFECTS_JSON: &str = {json:?};");
    let target =
        Path::new(&env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?).join("tables.rs");
    fs::write(&target, out).map_err(|e| format!("{}: {e}", target.display()))
}

/// One table file as TOML, and a line that has cargo build again when it changes.
fn read(dir: &Path, file: &str) -> Result<toml::Table, String> {
    let path = dir.join(file);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("policies/programs/{file}: {e}"))
}
