//! The README's examples are true: every `$ command` line of a fenced block (with the indented
//! lines that continue it) runs in a scratch project with the built binary first on `PATH`,
//! and prints exactly the lines the README shows after it (standard output and error merged, in
//! order).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

/// One example: the command as written and the output the README shows.
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

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md reads");
    let found = examples(&readme);
    assert!(
        found.len() >= 3,
        "the README's `$ ` examples were not found"
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_harness9"));
    let bin_dir = bin.parent().expect("the binary has a folder");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for ex in &found {
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
                "README.md:{}: $ {}\n  the README shows:\n    {}\n  it prints:\n    {}",
                ex.line,
                ex.command,
                ex.output.join("\n    "),
                got.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
