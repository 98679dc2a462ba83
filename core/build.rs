//! Reads the shipped tables (`policies/programs/*.toml`) once, at build time, so that a hook
//! process does not parse 170 KB of TOML for every call it decides.
//!
//! Each entry of a program file is all that is known of one program, and is split here into
//! what its three readers take: its grammar, as its own JSON text (with its name, aliases and
//! file), each of its subcommands apart (so that naming `git status` reads the JSON of
//! `status`, not the whole 70 KB of git's); its verb table (`verbs`, `verb_options`,
//! `examples`, `global_values`), packed with every other; its `[NAME.effects]`, gathered into
//! the effects data (see `entries`). The verb tables, the effects data and the lexicon are
//! packed (see [`Packed`]), which every bash call reads and which is cheaper to read than JSON.
//! The crate deserializes them into the same types as before, one program when a command first
//! names it. What each field means, and every check of it, stays in the crate: here the tables
//! are only read. A table that is not TOML at all, or a name two entries describe, fails the
//! build, naming the file.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

use entries::{words as texts, Entries};

/// How an entry is split: shared with the crate, whose tests check it.
#[path = "src/knowledge/entries.rs"]
mod entries;

/// The program files, one per family, in the order they are read. Each entry is one program,
/// all that is known of it: its grammar (how it reads its options, what is read-only), its
/// verb table, its effects, or any of them together.
const PROGRAM_FILES: [&str; 10] = [
    "devtools.toml",
    "ops.toml",
    "system.toml",
    "core.toml",
    "text.toml",
    "files.toml",
    "search.toml",
    "git.toml",
    "run.toml",
    "launch.toml",
];

const EFFECTS_FILE: &str = "effects.toml";

/// The catalogue of secrets, `policies/secrets.toml`.
const SECRETS_FILE: &str = "secrets.toml";

fn main() -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/programs");
    let out_dir = env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?;
    let mut entries = Entries::new(read(&dir, EFFECTS_FILE)?)?;
    for file in PROGRAM_FILES {
        for (name, value) in read(&dir, file)? {
            let at = format!("policies/programs/{file}: {name}");
            entries
                .add(file, name, value)
                .map_err(|e| format!("{at}: {e}"))?;
        }
    }
    let mut out = String::from("// Written by build.rs from policies/programs/*.toml.\n\n");
    out.push_str("pub(crate) const PROGRAMS: &[ShippedProgram] = &[\n");
    for (file, name, names, mut grammar) in entries.grammars {
        let at = |e: String| format!("policies/programs/{file}: {name}: {e}");
        let subs = match grammar.remove("sub") {
            Some(toml::Value::Table(subs)) => subs
                .iter()
                .map(|(sub, v)| Ok((sub.clone(), serde_json::to_string(v)?)))
                .collect::<Result<Vec<_>, serde_json::Error>>()
                .map_err(|e| at(e.to_string()))?,
            Some(_) => return Err(at("`sub` is not a table".into())),
            None => Vec::new(),
        };
        let json = serde_json::to_string(&grammar).map_err(|e| at(e.to_string()))?;
        let _ = writeln!(
            out,
            "    ShippedProgram {{ file: {file:?}, name: {name:?}, aliases: &{names:?}, json: {json:?}, subs: &{subs:?} }},"
        );
    }
    out.push_str("];\n\n");
    // The catalogue of secrets, the verb tables and the lexicon, packed.
    let policies = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies");
    out.push_str(&catalogue(&read(&policies, SECRETS_FILE)?));
    for (name, file, table) in [
        ("SECRETS", SECRETS_FILE, read(&policies, SECRETS_FILE)?),
        ("VERBS", "the verb tables", entries.verbs),
        ("LEXICON", "lexicon.toml", read(&dir, "lexicon.toml")?),
    ] {
        let mut packed = Packed::default();
        packed
            .pack(&toml::Value::Table(table), 0)
            .map_err(|e| format!("{file}: {e}"))?;
        let bin = format!("{}.bin", name.to_ascii_lowercase());
        // The catalogue is read from the constants above; packed, only by the tests that
        // check those.
        if name == "SECRETS" {
            out.push_str("#[cfg(test)]\n");
        }
        let _ = writeln!(
            out,
            "pub(crate) const {name}: Packed = Packed {{ shape: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{bin}\")), texts: {:?}, listed: &[] }};",
            packed.texts
        );
        write(&Path::new(&out_dir).join(&bin), packed.shape)?;
    }
    let mut packed = Packed::default();
    packed
        .pack(&toml::Value::Table(entries.effects), 0)
        .map_err(|e| format!("policies/programs/{EFFECTS_FILE}: {e}"))?;
    let _ = writeln!(
        out,
        "pub(crate) const EFFECTS: Packed = Packed {{ shape: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/effects.bin\")), texts: {:?}, listed: &{:?} }};",
        packed.texts,
        packed.listed()
    );
    write(&Path::new(&out_dir).join("effects.bin"), packed.shape)?;
    write(&Path::new(&out_dir).join("tables.rs"), out.into_bytes())
}

/// The catalogue's sections read by every hook process as constants, so that none is
/// deserialized at run time: the credential stores (`STORES`), and every store path by its
/// first part below home, case-folded (`STORE_PATHS`, sorted by that part; `STORE_GROUPS`,
/// each part once with where its paths are): the engine looks a path up by its first part and
/// builds the protections of that part alone. A path that does not start with `~/`, or whose
/// first part has a wildcard, is in the group named `""`, which every lookup takes. The kinds
/// of secret files (`KINDS`, their names indexed: see [`name_index`]) and their first lines
/// (`CONTENTS`), the commands that print a credential (`REVEALS`, sorted by program), the
/// public places (`PUBLIC`) and the environment's secrets (`ENVIRONMENT`), each table as a
/// list of one. A field missing or of the wrong type is written empty: the crate's tests read
/// the same sections with its own types, which check every field, and hold the two equal.
fn catalogue(secrets: &toml::Table) -> String {
    let mut out = String::new();
    let section = |name: &str| {
        secrets
            .get(name)
            .and_then(|s| s.as_array())
            .cloned()
            .unwrap_or_default()
    };
    let stores = section("store");
    constants(
        &mut out,
        "STORES",
        "Store",
        &stores,
        &["tool", "paths", "holds", "readable"],
    );
    let mut paths: Vec<(String, usize, usize)> = Vec::new();
    for (i, store) in stores.iter().enumerate() {
        for (j, path) in texts(store.get("paths")).iter().enumerate() {
            let first = path
                .strip_prefix("~/")
                .and_then(|rel| rel.split('/').next())
                .filter(|first| !first.contains(['*', '?', '[', '{', '\\']))
                .map(fold)
                .unwrap_or_default();
            paths.push((first, i, j));
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    let _ = writeln!(out, "pub(crate) const STORE_PATHS: &[(u16, u16)] = &[");
    for (_, i, j) in &paths {
        let _ = writeln!(out, "    ({i}, {j}),");
    }
    out.push_str("];\n\npub(crate) const STORE_GROUPS: &[(&str, u16, u16)] = &[\n");
    let mut start = 0;
    while start < paths.len() {
        let first = &paths[start].0;
        let end = start + paths[start..].iter().take_while(|p| &p.0 == first).count();
        let _ = writeln!(out, "    ({first:?}, {start}, {end}),");
        start = end;
    }
    out.push_str("];\n\n");
    let kinds = section("kind");
    constants(
        &mut out,
        "KINDS",
        "KindData",
        &kinds,
        &["name", "files", "except", "holds"],
    );
    name_index(&mut out, &kinds);
    let mut reveals = section("reveal");
    reveals.sort_by_key(|r| {
        r.get("program")
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .to_string()
    });
    let fields = ["program", "commands", "flags", "holds"];
    constants(&mut out, "REVEALS", "Reveal", &reveals, &fields);
    let contents = section("content");
    constants(
        &mut out,
        "CONTENTS",
        "Content",
        &contents,
        &["name", "starts", "holds"],
    );
    let table = |name: &str| {
        vec![secrets
            .get(name)
            .cloned()
            .unwrap_or(toml::Value::Table(Default::default()))]
    };
    constants(&mut out, "PUBLIC", "Public", &table("public"), &["paths"]);
    let fields = [
        "listers",
        "dumps",
        "printers",
        "names",
        "public_ends",
        "public",
    ];
    constants(
        &mut out,
        "ENVIRONMENT",
        "Environment",
        &table("environment"),
        &fields,
    );
    out
}

/// The kinds' file-name patterns (those without a `/`), folded, indexed so that a name is
/// compared with a few of them and nothing is built at run time. `NAMES` is every pattern, in
/// the catalogue's order, with its kind; a name is looked up in `NAME_LITERALS` (the patterns
/// without a wildcard, sorted) and compared with the globs of `*` a name ending with its last
/// byte may match (`NAME_BY_LAST`: the pattern's last byte, when it is not `*`), else with its
/// first (`NAME_BY_FIRST`), else with every name (`NAME_ANY`, with the globs of other
/// wildcards, which the crate compiles). Each entry is a pattern's index in `NAMES`.
fn name_index(out: &mut String, kinds: &[toml::Value]) {
    let mut names: Vec<(String, usize)> = Vec::new();
    for (kind, k) in kinds.iter().enumerate() {
        for f in texts(k.get("files")) {
            if !f.contains('/') {
                names.push((fold(&f), kind));
            }
        }
    }
    let (mut literals, mut by_last, mut by_first, mut any) = (vec![], vec![], vec![], vec![]);
    for (i, (p, _)) in names.iter().enumerate() {
        let bytes = p.as_bytes();
        if p.contains(['?', '[', ']', '{', '}', '\\']) {
            any.push(i);
        } else if !p.contains('*') {
            literals.push((p.clone(), i));
        } else if let Some(&last) = bytes.last().filter(|&&b| b != b'*') {
            by_last.push((last, i));
        } else if let Some(&first) = bytes.first().filter(|&&b| b != b'*') {
            by_first.push((first, i));
        } else {
            any.push(i);
        }
    }
    literals.sort();
    by_last.sort();
    by_first.sort();
    let _ = writeln!(out, "pub(crate) const NAMES: &[(&str, u16)] = &{names:?};");
    let _ = writeln!(
        out,
        "pub(crate) const NAME_LITERALS: &[(&str, u16)] = &{literals:?};"
    );
    let _ = writeln!(
        out,
        "pub(crate) const NAME_BY_LAST: &[(u8, u16)] = &{by_last:?};"
    );
    let _ = writeln!(
        out,
        "pub(crate) const NAME_BY_FIRST: &[(u8, u16)] = &{by_first:?};"
    );
    let _ = writeln!(out, "pub(crate) const NAME_ANY: &[u16] = &{any:?};\n");
}

/// `const NAME: &[TYPE]` of `entries`, each with `fields`: those named in [`LISTS`] as lists
/// of texts, the others as texts.
fn constants(out: &mut String, name: &str, ty: &str, entries: &[toml::Value], fields: &[&str]) {
    let _ = writeln!(out, "pub(crate) const {name}: &[{ty}] = &[");
    for entry in entries {
        let _ = write!(out, "    {ty} {{");
        for field in fields {
            let value = entry.get(*field);
            if LISTS.contains(field) {
                let _ = write!(out, " {field}: &{:?},", texts(value));
            } else {
                let text = value.and_then(|v| v.as_str()).unwrap_or("");
                let _ = write!(out, " {field}: {text:?},");
            }
        }
        out.push_str(" },\n");
    }
    out.push_str("];\n\n");
}

/// The catalogue's fields that are lists of texts.
const LISTS: [&str; 13] = [
    "paths",
    "readable",
    "files",
    "except",
    "commands",
    "flags",
    "starts",
    "listers",
    "dumps",
    "printers",
    "names",
    "public_ends",
    "public",
];

/// The catalogue's case folding (`knowledge::secrets::fold`; a test holds the two together).
fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.to_uppercase().to_lowercase()
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
