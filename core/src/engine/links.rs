//! The links inside the folders a command walks while following links (`grep -R`, `rg -L`,
//! `zip -r`; see [`super::rule::follows_links`]): the command reads where each one leads, so
//! a planted `docs/keys -> ~/.ssh` takes `grep -R key .` into `~/.ssh`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Entries looked at, over all the folders of one command, before the walk counts as too
/// large to check.
pub const MAX_ENTRIES: usize = 20_000;

/// A walk cut at [`MAX_ENTRIES`]: where its links lead is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// Where the links below `folders` lead (links that lead nowhere left out), walked as a
/// command that follows links walks them: the folder a link leads to is walked in turn, once.
pub fn targets_below(folders: &[PathBuf]) -> Result<Vec<PathBuf>, TooLarge> {
    let mut stack: Vec<PathBuf> = folders.to_vec();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut targets = Vec::new();
    let mut budget = MAX_ENTRIES;
    while let Some(dir) = stack.pop() {
        let Ok(real) = dir.canonicalize() else {
            continue;
        };
        if !seen.insert(real) {
            continue;
        }
        // A folder that cannot be read cannot be walked by the command either.
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            budget = budget.checked_sub(1).ok_or(TooLarge)?;
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                if let Ok(target) = entry.path().canonicalize() {
                    if target.is_dir() {
                        stack.push(target.clone());
                    }
                    targets.push(target);
                }
            } else if kind.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Ok(targets)
}

/// Whether `target`, a place a link leads to, reaches `protected`: it is inside it or holds it.
pub fn reaches(target: &Path, protected: &Path) -> bool {
    target.starts_with(protected) || protected.starts_with(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_below_a_folder_are_followed_once_each_and_dangling_ones_left_out() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(r.join("proj/docs")).unwrap();
        std::fs::create_dir_all(r.join("elsewhere/deeper")).unwrap();
        std::fs::create_dir_all(r.join("home/.ssh")).unwrap();
        let link = |to: &Path, at: &str| std::os::unix::fs::symlink(to, r.join(at)).unwrap();
        link(&r.join("elsewhere"), "proj/docs/more");
        link(&r.join("home/.ssh"), "elsewhere/deeper/keys");
        link(&r.join("proj"), "proj/docs/loop");
        link(&r.join("missing"), "proj/dangling");
        let mut found = targets_below(&[r.join("proj")]).unwrap();
        found.sort();
        assert_eq!(
            found,
            [r.join("elsewhere"), r.join("home/.ssh"), r.join("proj")]
        );
        assert!(reaches(&r.join("home"), &r.join("home/.ssh")));
        assert!(reaches(&r.join("home/.ssh/id_rsa"), &r.join("home/.ssh")));
        assert!(!reaches(&r.join("elsewhere"), &r.join("home/.ssh")));
    }
}
