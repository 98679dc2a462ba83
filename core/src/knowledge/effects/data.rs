//! The effects data, `policies/programs/effects.toml`, as read: persistence and privilege
//! paths, schedulers, process, infrastructure and installer verbs, fetch-and-run tools and the
//! network programs with their options.

use std::collections::BTreeMap;
use std::sync::OnceLock;

#[cfg(test)]
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::knowledge::load::EFFECTS;
use crate::knowledge::packed::{from_packed, Packed, PackedError};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Data {
    pub(super) disposable: Disposable,
    pub(super) persist: Persist,
    pub(super) privilege: Privilege,
    #[serde(rename = "process-control")]
    pub(super) process: Process,
    #[serde(rename = "infra-change")]
    pub(super) infra: Infra,
    pub(super) install: Install,
    #[serde(rename = "run-remote-code")]
    pub(super) remote: Remote,
    pub(super) network: Network,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Disposable {
    pub(super) folders: Vec<&'static str>,
    pub(super) temp: Vec<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Persist {
    pub(super) paths: Vec<&'static str>,
    pub(super) schedulers: Vec<&'static str>,
    pub(super) scheduler_looks: Vec<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Privilege {
    pub(super) paths: Vec<&'static str>,
    pub(super) programs: Vec<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Process {
    pub(super) programs: Vec<&'static str>,
    pub(super) machine: Vec<&'static str>,
    pub(super) verbs: BTreeMap<&'static str, Vec<&'static str>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Infra {
    pub(super) verbs: BTreeMap<&'static str, Vec<&'static str>>,
    pub(super) databases: Vec<&'static str>,
    pub(super) statements: Vec<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Install {
    pub(super) verbs: BTreeMap<&'static str, Vec<&'static str>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Remote {
    pub(super) fetch_and_run: Vec<&'static str>,
    pub(super) fetch_and_run_verbs: Vec<&'static str>,
    pub(super) local_only: Vec<&'static str>,
    pub(super) extra_sources: BTreeMap<&'static str, Vec<&'static str>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub(super) struct Network {
    pub(super) fetchers: Vec<&'static str>,
    pub(super) raw: Vec<&'static str>,
    pub(super) copiers: Vec<&'static str>,
    pub(super) lookups: Vec<&'static str>,
    pub(super) curl_data: Vec<&'static str>,
    pub(super) wget_data: Vec<&'static str>,
    pub(super) file_sources: Vec<&'static str>,
    pub(super) curl_known: Vec<&'static str>,
    pub(super) wget_known: Vec<&'static str>,
    pub(super) curl_writes: Vec<&'static str>,
    pub(super) wget_writes: Vec<&'static str>,
}

/// The data, read once from what `build.rs` packed from `policies/programs/effects.toml`, its
/// words borrowed from the packed texts in the binary (no copy of each). A mistake in it is a build that fails its
/// tests (`the_effects_data_loads`); should it happen anyway, the model knows nothing and the
/// default decides every command, as for a program it does not know.
pub(super) fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| load(EFFECTS).unwrap_or_default())
}

/// Reads the data (the path globs are compiled where they are used, and checked by the
/// tests).
pub(super) fn load(packed: Packed) -> Result<Data, PackedError> {
    from_packed(packed)
}

/// Why path globs do not compile: one pattern, or the set.
#[cfg(test)]
#[derive(Debug, thiserror::Error)]
pub(super) enum GlobsError {
    #[error("`{pattern}`: {source}")]
    Pattern {
        pattern: String,
        source: globset::Error,
    },
    #[error(transparent)]
    Set(globset::Error),
}

/// Compiles path globs (`*` stays within one folder, `**` crosses them): the tests' check of
/// the data, and the reference [`super::model::Globs`] is held to.
#[cfg(test)]
pub(super) fn globs(paths: &[&str]) -> Result<GlobSet, GlobsError> {
    let mut b = GlobSetBuilder::new();
    for p in paths {
        // Compared case-folded, as macOS and Windows compare names (`.Claude/settings.json`).
        let g = GlobBuilder::new(p)
            .literal_separator(true)
            .case_insensitive(true)
            .build()
            .map_err(|source| GlobsError::Pattern {
                pattern: p.to_string(),
                source,
            })?;
        b.add(g);
    }
    b.build().map_err(GlobsError::Set)
}
