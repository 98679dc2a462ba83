//! Reads the shipped tables (`policies/programs/*.toml`) once, at build time, so that a hook
//! process does not parse 170 KB of TOML for every call it decides.
//!
//! It writes `$OUT_DIR/tables.rs`: every program of the program tables as its own JSON text
//! (with its name, aliases and file), each of its subcommands apart (so that naming `git
//! status` reads the JSON of `status`, not the whole 70 KB of git's), and the effects data
//! packed (see [`Packed`]), which every bash call reads and which is cheaper to read than JSON.
//! The crate deserializes both into the same types as before, one program when a command first
//! names it. What each field means, and every check of it, stays in the crate: here the tables
//! are only read. A table that is not TOML at all fails the build, naming the file.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

/// The program tables, one per family, in the order they are read.
const PROGRAM_FILES: [&str; 7] = [
    "core.toml",
    "text.toml",
    "files.toml",
    "search.toml",
    "git.toml",
    "run.toml",
    "containers.toml",
];

const EFFECTS_FILE: &str = "effects.toml";

/// The catalogue of secrets, `policies/secrets.toml`.
const SECRETS_FILE: &str = "secrets.toml";

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
    let out_dir = env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?;
    let mut effects = Packed::default();
    effects
        .pack(&toml::Value::Table(read(&dir, EFFECTS_FILE)?), 0)
        .map_err(|e| format!("policies/programs/{EFFECTS_FILE}: {e}"))?;
    let _ = writeln!(
        out,
        "pub(crate) const EFFECTS: Packed = Packed {{ shape: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/effects.bin\")), texts: {:?}, listed: &{:?} }};",
        effects.texts,
        effects.listed()
    );
    write(&Path::new(&out_dir).join("effects.bin"), effects.shape)?;
    // The catalogue of secrets and the verb tables, packed the same way.
    let policies = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies");
    for (name, folder, file) in [
        ("SECRETS", &policies, SECRETS_FILE),
        ("VERBS_DEVTOOLS", &dir, "devtools.toml"),
        ("VERBS_OPS", &dir, "ops.toml"),
        ("VERBS_SYSTEM", &dir, "system.toml"),
        ("LEXICON", &dir, "lexicon.toml"),
    ] {
        let mut packed = Packed::default();
        packed
            .pack(&toml::Value::Table(read(folder, file)?), 0)
            .map_err(|e| format!("{file}: {e}"))?;
        let bin = format!("{}.bin", name.to_ascii_lowercase());
        let _ = writeln!(
            out,
            "pub(crate) const {name}: Packed = Packed {{ shape: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{bin}\")), texts: {:?}, listed: &[] }};",
            packed.texts
        );
        write(&Path::new(&out_dir).join(&bin), packed.shape)?;
    }
    write(&Path::new(&out_dir).join("tables.rs"), out.into_bytes())
}

fn write(target: &Path, bytes: Vec<u8>) -> Result<(), String> {
    fs::write(target, bytes).map_err(|e| format!("{}: {e}", target.display()))
}

/// A table packed as `knowledge/packed.rs` reads it: its texts one after another, and its
/// shape. In the shape a text is `s`, where it starts in the texts and its length (four bytes
/// each, little-endian); a list is `l`, its length and its items; a table is `t`, its length
/// and each key (start and length) with its value. Its listed texts are the items of the lists
/// two tables deep (`[network] fetchers = [...]`), by start and length, each once, in the order
/// of the texts.
#[derive(Default)]
struct Packed {
    shape: Vec<u8>,
    texts: String,
    listed: Vec<(u32, u32)>,
}

impl Packed {
    fn listed(&self) -> Vec<(u32, u32)> {
        let text = |&(start, len): &(u32, u32)| &self.texts[start as usize..(start + len) as usize];
        let mut listed = self.listed.clone();
        listed.sort_by(|a, b| text(a).cmp(text(b)));
        listed.dedup_by(|a, b| text(a) == text(b));
        listed
    }

    /// Packs `value`, found under `depth` tables.
    fn pack(&mut self, value: &toml::Value, depth: usize) -> Result<(), String> {
        match value {
            toml::Value::String(s) => {
                self.shape.push(b's');
                self.text(s).map(|_| ())
            }
            toml::Value::Array(items) => {
                self.shape.push(b'l');
                self.number(items.len())?;
                for item in items {
                    match item {
                        toml::Value::String(s) if depth == 2 => {
                            self.shape.push(b's');
                            let span = self.text(s)?;
                            self.listed.push(span);
                        }
                        _ => self.pack(item, depth)?,
                    }
                }
                Ok(())
            }
            toml::Value::Table(t) => {
                self.shape.push(b't');
                self.number(t.len())?;
                t.iter().try_for_each(|(k, v)| {
                    self.text(k)?;
                    self.pack(v, depth + 1).map_err(|e| format!("{k}: {e}"))
                })
            }
            other => Err(format!(
                "only texts, lists and tables are read here, not `{other}`"
            )),
        }
    }

    fn number(&mut self, n: usize) -> Result<u32, String> {
        let n = u32::try_from(n).map_err(|_| format!("{n} is too large to pack"))?;
        self.shape.extend(n.to_le_bytes());
        Ok(n)
    }

    fn text(&mut self, s: &str) -> Result<(u32, u32), String> {
        let span = (self.number(self.texts.len())?, self.number(s.len())?);
        self.texts.push_str(s);
        Ok(span)
    }
}

/// One table file as TOML, and a line that has cargo build again when it changes.
fn read(dir: &Path, file: &str) -> Result<toml::Table, String> {
    let path = dir.join(file);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("policies/programs/{file}: {e}"))
}
