//! `harness9 fmt`: canonical formatting of policy files, in place (or `--check` for CI).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::{print_diags, EXIT_USAGE};
use harness9::diag::Source;
use harness9::policy::fmt::format_policy;

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Change nothing: show how each file would change (a unified diff), and exit 1 if any
    /// would.
    #[arg(long)]
    check: bool,
    /// Policy files to format (`-` reads standard input and writes the result to standard output).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

enum Outcome {
    Unchanged,
    Changed,
    Failed,
}

pub fn fmt(a: FmtArgs) -> i32 {
    let mut changed = false;
    let mut failed = false;
    for f in &a.files {
        match format_one(f, a.check) {
            Outcome::Unchanged => {}
            Outcome::Changed => changed = true,
            Outcome::Failed => failed = true,
        }
    }
    if failed {
        EXIT_USAGE
    } else if a.check && changed {
        1
    } else {
        0
    }
}

fn format_one(path: &Path, check: bool) -> Outcome {
    let stdin = path.as_os_str() == "-";
    let text = if stdin {
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut buf) {
            eprintln!("error: cannot read standard input: {e}");
            return Outcome::Failed;
        }
        buf
    } else {
        match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                return Outcome::Failed;
            }
        }
    };
    let name = if stdin {
        "<stdin>".to_string()
    } else {
        path.to_string_lossy().into_owned()
    };
    let text = match String::from_utf8(text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "error: `{name}` is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            );
            return Outcome::Failed;
        }
    };
    let source = Source::new(name.as_str(), text.as_str());
    let formatted = match format_policy(&source) {
        Ok(f) => f,
        Err(diags) => {
            print_diags(diags.iter());
            eprintln!("error: `{name}` has syntax errors; it was not formatted");
            return Outcome::Failed;
        }
    };
    let differs = formatted != text;
    if check {
        if differs {
            print!("{}", check_diff(&name, &text, &formatted));
            return Outcome::Changed;
        }
        return Outcome::Unchanged;
    }
    if stdin {
        let mut out = std::io::stdout().lock();
        if out
            .write_all(formatted.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return Outcome::Failed;
        }
        return if differs {
            Outcome::Changed
        } else {
            Outcome::Unchanged
        };
    }
    if !differs {
        return Outcome::Unchanged;
    }
    match write_atomically(path, formatted.as_bytes()) {
        Ok(()) => Outcome::Changed,
        Err(e) => {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            Outcome::Failed
        }
    }
}

/// What `fmt --check` prints for a file that would change: a unified diff from the file as
/// it is to the file formatted.
fn check_diff(name: &str, text: &str, formatted: &str) -> String {
    let diff = similar::TextDiff::from_lines(text, formatted);
    let mut out = diff
        .unified_diff()
        .context_radius(2)
        .header(name, &format!("{name} (formatted)"))
        .to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Replaces a file's content through a temporary file beside it and a rename, keeping its
/// permissions, so that a reader never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Through a symlink, the file it points to is rewritten; the link stays.
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let path = real.as_path();
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
