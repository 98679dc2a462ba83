//! The README's and the docs' examples are true: every `$ command` line of a fenced block (with
//! the indented lines that continue it) in `README.md` and in every `docs/*.md` runs in a scratch
//! project with the built binary first on `PATH`, and prints exactly the lines the file shows
//! after it (standard output and error merged, in order). Each file keeps the examples it has
//! ([`EXAMPLES`]), and the links between the files lead to a file and a heading that exist.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How many `$ ` examples each file shows. A file that loses one (the README or a docs page,
/// say when text moves between them) fails [`each_file_keeps_its_examples`] until this table says
/// so; a docs page that is not listed has none.
const EXAMPLES: &[(&str, usize)] = &[("README.md", 3), ("docs/reference.md", 1)];

/// One example: the command as written and the output the file shows.
struct Example {
    line: usize,
    command: String,
    output: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    let mut current: Option<Example> = None;
    let mut continuing = false;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            if in_block {
                out.extend(current.take());
            }
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some(Example {
                line: i + 1,
                command: cmd.to_string(),
                output: Vec::new(),
            });
            continuing = true;
            continue;
        }
        let Some(ex) = current.as_mut() else { continue };
        if continuing && line.starts_with(char::is_whitespace) {
            ex.command.push('\n');
            ex.command.push_str(line);
            continue;
        }
        continuing = false;
        ex.output.push(line.to_string());
    }
    out
}

/// `README.md` and every `docs/*.md`, by their path from the crate's root, with their text.
fn documents() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = vec![root.join("README.md")];
    let docs = std::fs::read_dir(root.join("docs")).expect("docs/ lists");
    for entry in docs {
        let path = entry.expect("a docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{} reads: {e}", path.display()));
            let name = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .into_owned();
            (name, text)
        })
        .collect()
}

#[test]
fn each_file_keeps_its_examples() {
    let docs = documents();
    let mut problems = Vec::new();
    for (name, want) in EXAMPLES {
        if !docs.contains_key(*name) {
            problems.push(format!(
                "{name}: the file is gone, with its {want} example(s)"
            ));
        }
    }
    for (name, text) in &docs {
        let found = examples(text).len();
        let want = EXAMPLES
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, w)| *w);
        if found != want {
            problems.push(format!(
                "{name}: {found} `$ ` example(s), where EXAMPLES says {want}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The anchor GitHub gives a heading: lower case, blanks as `-`, other punctuation left out.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a file's headings (outside fenced blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut in_block = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes > 0 && line[hashes..].starts_with(' ') {
            out.push(anchor(&line[hashes..]));
        }
    }
    out
}

#[test]
fn every_link_between_the_readme_and_docs_leads_somewhere() {
    let docs = documents();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut links = 0;
    for (name, text) in &docs {
        let here = Path::new(name).parent().unwrap_or(Path::new(""));
        for (i, line) in text.lines().enumerate() {
            for piece in line.split("](").skip(1) {
                let Some(end) = piece.find(')') else { continue };
                let target = &piece[..end];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                links += 1;
                let (file, frag) = target.split_once('#').unwrap_or((target, ""));
                let file_name = if file.is_empty() {
                    name.clone()
                } else {
                    let joined = here.join(file);
                    // `docs/../README.md` is `README.md`.
                    let mut parts: Vec<&str> = Vec::new();
                    for c in joined.to_str().expect("a UTF-8 link").split('/') {
                        match c {
                            ".." => {
                                parts.pop();
                            }
                            "." | "" => {}
                            c => parts.push(c),
                        }
                    }
                    parts.join("/")
                };
                let linked = match docs.get(&file_name) {
                    Some(text) => Some(text.clone()),
                    None => std::fs::read_to_string(root.join(&file_name)).ok(),
                };
                let Some(linked) = linked else {
                    problems.push(format!("{name}:{}: `{target}`: no file {file_name}", i + 1));
                    continue;
                };
                if !frag.is_empty() && !anchors(&linked).iter().any(|a| a == frag) {
                    problems.push(format!(
                        "{name}:{}: `{target}`: {file_name} has no heading `#{frag}`",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        links >= 5,
        "the links between the README and docs/ were not found"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_example_of_the_readme_and_docs_prints_what_it_shows() {
    let docs = documents();
    let found: Vec<(&String, Example)> = docs
        .iter()
        .flat_map(|(name, text)| examples(text).into_iter().map(move |ex| (name, ex)))
        .collect();
    assert!(found.len() >= 3, "the `$ ` examples were not found");
    let bin = Path::new(env!("CARGO_BIN_EXE_harness9"));
    let bin_dir = bin.parent().expect("the binary has a folder");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for (name, ex) in &found {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&work).expect("work");
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("( {} ) 2>&1", ex.command))
            .current_dir(&work)
            .env("PATH", &path)
            .env("HOME", &home)
            .env("NO_COLOR", "1")
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .expect("sh runs");
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if got != ex.output {
            failures.push(format!(
                "{name}:{}: $ {}\n  the file shows:\n    {}\n  it prints:\n    {}",
                ex.line,
                ex.command,
                ex.output.join("\n    "),
                got.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README's Neovim snippet for the Neovim Debian ships: the `lua` block after the line
/// that starts "Neovim 0.7 or later".
fn neovim_snippet(readme: &str) -> String {
    let after = readme
        .split_once("\nNeovim 0.7 or later")
        .expect("the README has a snippet for Neovim 0.7 or later")
        .1;
    let block = after
        .split_once("```lua\n")
        .expect("the snippet is a ```lua block")
        .1;
    block
        .split_once("\n```")
        .expect("the ```lua block ends")
        .0
        .to_string()
}

#[test]
fn the_neovim_snippet_attaches_the_server_on_the_installed_neovim() {
    let have_nvim = Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_nvim {
        assert!(
            std::env::var("HARNESS9_NVIM_TEST").as_deref() != Ok("require"),
            "HARNESS9_NVIM_TEST=require, but `nvim` is not on PATH"
        );
        eprintln!("skipped: no `nvim` on PATH (Debian: apt-get install neovim)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md reads");
    let bin = Path::new(env!("CARGO_BIN_EXE_harness9"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("the binary has a folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = tempfile::tempdir().expect("a scratch folder");
    let init = dir.path().join("init.lua");
    std::fs::write(&init, neovim_snippet(&readme)).expect("init.lua");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".harness9")).expect(".harness9");
    std::fs::write(
        project.join(".harness9/team.policy"),
        "deny read_flie(\"x\");\n",
    )
    .expect("a policy");
    std::fs::write(
        project.join(".harness9/settings.json"),
        "{ \"permisions\": { \"allow\": [\"bash(ls)\"] } }\n",
    )
    .expect("a settings file");
    // Waits for the server's diagnostics, then writes what the buffer has.
    let check = dir.path().join("check.lua");
    std::fs::write(
        &check,
        r#"vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local lines = { "filetype=" .. vim.bo.filetype, "clients=" .. #vim.lsp.buf_get_clients(0) }
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(lines, d.message) end
vim.fn.writefile(lines, vim.env.CHECK_OUT)
vim.cmd("qa!")
"#,
    )
    .expect("check.lua");
    for (file, filetype, message) in [
        (
            ".harness9/team.policy",
            "harness9",
            "no call names the tool `read_flie`",
        ),
        (
            ".harness9/settings.json",
            "json",
            "unknown key `permisions`",
        ),
    ] {
        let out_file = dir.path().join("check.out");
        let _ = std::fs::remove_file(&out_file);
        let run = Command::new("timeout")
            .arg("60")
            .arg("nvim")
            .args(["--headless", "-i", "NONE", "-u"])
            .arg(&init)
            .arg(file)
            .arg("-c")
            .arg(format!("luafile {}", check.display()))
            .current_dir(&project)
            .env("PATH", &path)
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env("CHECK_OUT", &out_file)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("nvim runs");
        let got = std::fs::read_to_string(&out_file).unwrap_or_else(|e| {
            panic!(
                "{file}: nvim wrote no result ({e}); it said: {}{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            )
        });
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(
            lines.first().copied(),
            Some(format!("filetype={filetype}").as_str()),
            "{file}: {got}"
        );
        assert_eq!(lines.get(1).copied(), Some("clients=1"), "{file}: {got}");
        assert!(
            lines.iter().any(|l| l.contains(message)),
            "{file}: the server's diagnostic `{message}` did not arrive: {got}"
        );
    }
}
