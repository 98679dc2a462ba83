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

/// Entries a glob's expansion reads before it stops (what it found so far is kept).
pub const MAX_GLOB_ENTRIES: usize = 5_000;

/// Where the files a glob pattern (an absolute path with `*`, `?` or `[…]` in it) matches on
/// disk really are, links followed: bash expands the pattern before the command runs, so
/// `cat docs/*/id_rsa` reads through a link `docs/keys -> ~/.ssh` though no word names it.
pub fn glob_targets(pattern: &Path) -> Vec<PathBuf> {
    let mut frontier = vec![PathBuf::from("/")];
    let mut budget = MAX_GLOB_ENTRIES;
    for part in pattern.components().skip(1) {
        let name = part.as_os_str().to_string_lossy();
        if !super::paths::has_meta(&name) {
            frontier.iter_mut().for_each(|p| p.push(&*name));
            continue;
        }
        // A part of `*` alone is compared byte by byte; any other glob is compiled, once, when
        // first needed (a name that is not UTF-8 needs it too).
        let star_only = crate::knowledge::wild::simple(&name);
        let mut compiled: Option<globset::GlobMatcher> = None;
        let mut next = Vec::new();
        for dir in &frontier {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if budget == 0 {
                    break;
                }
                budget -= 1;
                let file_name = entry.file_name();
                let hit = match file_name.to_str() {
                    Some(n) if star_only => crate::knowledge::wild::name_matches(&name, n),
                    _ => {
                        if compiled.is_none() {
                            let Ok(glob) = globset::GlobBuilder::new(&name)
                                .literal_separator(true)
                                .build()
                            else {
                                return Vec::new();
                            };
                            compiled = Some(glob.compile_matcher());
                        }
                        compiled.as_ref().is_some_and(|m| m.is_match(&file_name))
                    }
                };
                if hit {
                    next.push(entry.path());
                }
            }
        }
        frontier = next;
    }
    frontier
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect()
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

    #[cfg(unix)]
    #[test]
    fn a_glob_is_expanded_on_disk_and_its_matches_followed() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(r.join("proj/docs/plain")).unwrap();
        std::fs::create_dir_all(r.join("home/.ssh")).unwrap();
        std::fs::write(r.join("home/.ssh/id_rsa"), "k").unwrap();
        std::os::unix::fs::symlink(r.join("home/.ssh"), r.join("proj/docs/keys")).unwrap();
        let found = glob_targets(&r.join("proj/docs/*/id_rsa"));
        assert_eq!(found, [r.join("home/.ssh/id_rsa")]);
        let mut dirs = glob_targets(&r.join("proj/d?cs/*"));
        dirs.sort();
        assert_eq!(dirs, [r.join("home/.ssh"), r.join("proj/docs/plain")]);
        assert!(glob_targets(&r.join("proj/nothing/*")).is_empty());
    }
}
