//! Where a command runs and where the paths it touches are: the project, a temporary folder,
//! elsewhere, or a place whose files run later or grant privileges.

use std::path::{Path, PathBuf};

use super::model::{model, Globs};
use super::Effects;
use crate::knowledge::secrets::fold;

/// Where the command runs: the project (working) folder, home, and how a path as written
/// resolves (the engine's path rules).
pub struct Places<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    pub resolve: &'a dyn Fn(&str) -> PathBuf,
}

/// Where a path is, as far as writing or deleting it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Project,
    Temp,
    Outside,
    Persist,
    Privilege,
}

impl Effects<'_, '_> {
    /// A path for people: under home as `~/…`, inside the project relative to it.
    pub(super) fn show(&self, p: &Path) -> String {
        if let Ok(rel) = p.strip_prefix(self.places.cwd) {
            if !rel.as_os_str().is_empty() {
                return rel.display().to_string();
            }
        }
        if let Some(h) = self.places.home {
            if let Ok(rel) = p.strip_prefix(h) {
                return if rel.as_os_str().is_empty() {
                    "~".into()
                } else {
                    format!("~/{}", rel.display())
                };
            }
        }
        p.display().to_string()
    }

    /// Where `p` is: a place whose files run later or grant privileges (by the data's globs,
    /// as resolved or as `~/…`), the project, a temporary folder, or elsewhere.
    pub(super) fn place(&self, p: &Path) -> Place {
        /// The path of a text kept with `/_` after it.
        fn path((text, len): &(String, usize)) -> &str {
            text.get(..*len).unwrap_or(text)
        }
        let m = model();
        // Folded once: the globs are compared case-folded (see [`Globs`]). Each text is kept
        // with `/_` after it, the name of a file put into it, and sliced for the path itself.
        let with_file = |mut folded: String| {
            let len = folded.len();
            folded.push_str("/_");
            (folded, len)
        };
        let folded = with_file(fold(&p.to_string_lossy()));
        let tilde = self.places.home.and_then(|h| {
            p.strip_prefix(h)
                .ok()
                .map(|rel| with_file(fold(&format!("~/{}", rel.display()))))
        });
        let hit = |set: &Globs| {
            set.is_match_folded(path(&folded))
                || tilde.as_ref().is_some_and(|t| set.is_match_folded(path(t)))
        };
        // A file put into a folder whose files run later (`mv x.desktop ~/.config/autostart/`).
        let into = |set: &Globs| {
            set.is_match_folded(&folded.0)
                || tilde.as_ref().is_some_and(|t| set.is_match_folded(&t.0))
        };
        if hit(&m.persist) || into(&m.persist) {
            Place::Persist
        } else if hit(&m.privilege) {
            Place::Privilege
        } else if p.starts_with(self.places.cwd) && p != Path::new("/") {
            Place::Project
        } else if ["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .any(|t| p.starts_with(t) && p != Path::new(t))
            // A home folder in a temporary folder is a home folder still.
            && self.places.home.is_none_or(|h| !p.starts_with(h))
        {
            Place::Temp
        } else {
            Place::Outside
        }
    }
}
