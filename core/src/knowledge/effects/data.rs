//! The effects data, `policies/programs/effects.toml`, as read: persistence and privilege
//! paths, schedulers, process, infrastructure and installer verbs, fetch-and-run tools and the
//! network programs with their options.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::knowledge::load::EFFECTS_JSON;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Data {
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
#[serde(deny_unknown_fields)]
pub(super) struct Persist {
    pub(super) paths: Vec<String>,
    pub(super) schedulers: Vec<String>,
    pub(super) scheduler_looks: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Privilege {
    pub(super) paths: Vec<String>,
    pub(super) programs: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Process {
    pub(super) programs: Vec<String>,
    pub(super) machine: Vec<String>,
    pub(super) verbs: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Infra {
    pub(super) verbs: BTreeMap<String, Vec<String>>,
    pub(super) databases: Vec<String>,
    pub(super) statements: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Install {
    pub(super) verbs: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Remote {
    pub(super) fetch_and_run: Vec<String>,
    pub(super) fetch_and_run_verbs: Vec<String>,
    pub(super) local_only: Vec<String>,
    pub(super) extra_sources: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Network {
    pub(super) fetchers: Vec<String>,
    pub(super) raw: Vec<String>,
    pub(super) copiers: Vec<String>,
    pub(super) lookups: Vec<String>,
    pub(super) curl_data: Vec<String>,
    pub(super) wget_data: Vec<String>,
    pub(super) file_sources: Vec<String>,
    pub(super) curl_known: Vec<String>,
    pub(super) wget_known: Vec<String>,
    pub(super) curl_writes: Vec<String>,
    pub(super) wget_writes: Vec<String>,
}

/// The data, read once from the JSON that `build.rs` wrote from
/// `policies/programs/effects.toml`. A mistake in it is a build that fails its tests
/// (`the_effects_data_loads`); should it happen anyway, the model knows nothing and the
/// default decides every command, as for a program it does not know.
pub(super) fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| load(EFFECTS_JSON).unwrap_or_default())
}

/// Reads the data (the path globs are compiled where they are used, and checked by the
/// tests).
pub(super) fn load(json: &str) -> Result<Data, serde_json::Error> {
    serde_json::from_str(json)
}

/// Why path globs do not compile: one pattern, or the set.
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

/// Compiles path globs (`*` stays within one folder, `**` crosses them).
pub(super) fn globs(paths: &[String]) -> Result<GlobSet, GlobsError> {
    let mut b = GlobSetBuilder::new();
    for p in paths {
        let g = GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|source| GlobsError::Pattern {
                pattern: p.clone(),
                source,
            })?;
        b.add(g);
    }
    b.build().map_err(GlobsError::Set)
}
