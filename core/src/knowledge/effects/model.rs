//! The effects data compiled for use: which programs the model reads at all, the lists each
//! program is in, the path globs and the interpreter-code patterns.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{LazyLock, OnceLock};

use regex::Regex;

use super::data::{data, Data};
use super::interpreter::{INTERP_DYNAMIC, INTERP_NET, INTERP_SEND, INTERP_WRITES};
use crate::knowledge::load::EFFECTS;
use crate::knowledge::wild::WildSet;

/// Programs the code reads on its own (besides every program the data names).
const CODE_PROGRAMS: [&str; 22] = [
    "git",
    "chmod",
    "gh",
    "glab",
    "docker",
    "podman",
    "nerdctl",
    "xargs",
    "parallel",
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "gvim",
    "vimdiff",
    "rvim",
    "go",
    "deno",
    "uv",
    "nix-shell",
    "systemctl",
];

// The lists of the data a program can be in, as bits of [`Model::roles`].
pub(super) const FETCHER: u16 = 1;
pub(super) const RAW: u16 = 1 << 1;
pub(super) const COPIER: u16 = 1 << 2;
pub(super) const LOOKUP: u16 = 1 << 3;
pub(super) const SCHEDULER: u16 = 1 << 4;
pub(super) const PRIVILEGED: u16 = 1 << 5;
pub(super) const PROCESS: u16 = 1 << 6;
pub(super) const MACHINE: u16 = 1 << 7;
pub(super) const DATABASE: u16 = 1 << 8;
pub(super) const FETCH_RUN: u16 = 1 << 9;

/// Whether the data lists `program` in one of the `roles` (one hash lookup, not a scan of
/// every list). Those lists are all two tables deep (`[network] fetchers`); a program in none
/// of the data's lists that deep, as most are (`git`, `ls`, `rm`), is in no role, and the data
/// is not read for it.
pub(super) fn is(program: &str, roles: u16) -> bool {
    // A command's effects ask after its program's roles a dozen times: the last answer is kept.
    thread_local! {
        static LAST: std::cell::RefCell<(String, u16)> = const {
            std::cell::RefCell::new((String::new(), 0))
        };
    }
    let of = |program: &str| {
        if EFFECTS.lists(program) {
            model().roles.get(program).copied().unwrap_or(0)
        } else {
            0
        }
    };
    let mine = LAST.with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        if last.0 != program || last.0.is_empty() {
            let r = of(program);
            last.0.clear();
            last.0.push_str(program);
            last.1 = r;
        }
        Some(last.1)
    });
    mine.unwrap_or_else(|| of(program)) & roles != 0
}

/// One compiled pattern per interpreter language.
pub(super) type Patterns = BTreeMap<&'static str, Regex>;

/// Compiled forms of the data and the interpreter-code patterns.
pub(super) struct Model {
    /// Every program the data or the code knows something about (names borrowed from the
    /// data, which lives as long as the process).
    pub(super) programs: HashSet<&'static str, foldhash::fast::RandomState>,
    /// The lists each program is in (`FETCHER`, `RAW`, …).
    pub(super) roles: HashMap<&'static str, u16>,
    pub(super) persist: LazyLock<Globs>,
    pub(super) privilege: LazyLock<Globs>,
    pub(super) url: LazyLock<Option<Regex>>,
    pub(super) net: LazyLock<Patterns>,
    pub(super) send: LazyLock<Patterns>,
    pub(super) dynamic: LazyLock<Patterns>,
    pub(super) writes: LazyLock<Patterns>,
}

/// The model, compiled once from [`data`].
pub(super) fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let d = data();
        Model {
            programs: known_programs(d),
            roles: program_roles(d),
            // Compiled when first used: a call that writes no path and runs no interpreter
            // code compiles none of them.
            persist: LazyLock::new(|| Globs::new(&data().persist.paths)),
            privilege: LazyLock::new(|| Globs::new(&data().privilege.paths)),
            url: LazyLock::new(|| {
                regex(r#"(?:https?|ftp|wss?)://(?:[^@/\s"']*@)?([A-Za-z0-9.\-]+)"#)
            }),
            net: LazyLock::new(|| patterns(INTERP_NET)),
            send: LazyLock::new(|| patterns(INTERP_SEND)),
            dynamic: LazyLock::new(|| patterns(INTERP_DYNAMIC)),
            writes: LazyLock::new(|| patterns(INTERP_WRITES)),
        }
    })
}

/// Path globs (`*` stays within one folder, `**` crosses them), compared case-folded as macOS
/// and Windows compare names (`.Claude/settings.json`); indexed, so that building them costs
/// next to nothing where a compiled set of regular expressions costs milliseconds of a hook's
/// start (the tests check each compiles as a glob: see [`super::data::globs`]).
pub(super) struct Globs(WildSet);

impl Globs {
    pub(super) fn new(paths: &[&str]) -> Globs {
        Globs(WildSet::folded(paths.iter().copied()))
    }

    #[cfg(test)]
    pub(super) fn is_match(&self, path: impl AsRef<std::path::Path>) -> bool {
        self.is_match_folded(&crate::knowledge::secrets::fold(
            &path.as_ref().to_string_lossy(),
        ))
    }

    /// Whether a path folded already (see [`crate::knowledge::secrets::fold`]) matches.
    pub(super) fn is_match_folded(&self, folded: &str) -> bool {
        self.0.is_match(folded)
    }
}

fn regex(s: &str) -> Option<Regex> {
    Regex::new(s).ok()
}

/// One compiled pattern per language (a pattern that does not compile is left out).
fn patterns(items: &[(&'static str, &str)]) -> Patterns {
    items
        .iter()
        .filter_map(|(lang, s)| Some((*lang, regex(s)?)))
        .collect()
}

/// Every program the data names, and the ones the code reads on its own.
fn known_programs(d: &'static Data) -> HashSet<&'static str, foldhash::fast::RandomState> {
    let net = &d.network;
    let lists = [
        &d.persist.schedulers,
        &d.privilege.programs,
        &d.process.programs,
        &d.infra.databases,
        &d.remote.fetch_and_run,
        &net.fetchers,
        &net.raw,
        &net.copiers,
        &net.lookups,
    ];
    let maps = [
        &d.process.verbs,
        &d.infra.verbs,
        &d.install.verbs,
        &d.remote.extra_sources,
    ];
    // Sized once for every name (an upper bound: names repeat), not grown list by list.
    let names = CODE_PROGRAMS.len()
        + lists.iter().map(|l| l.len()).sum::<usize>()
        + maps.iter().map(|m| m.len()).sum::<usize>()
        + d.remote.fetch_and_run_verbs.len();
    let mut programs: HashSet<&str, _> =
        HashSet::with_capacity_and_hasher(names, Default::default());
    programs.extend(CODE_PROGRAMS);
    for list in lists {
        programs.extend(list.iter().copied());
    }
    for map in maps {
        programs.extend(map.keys().copied());
    }
    programs.extend(
        d.remote
            .fetch_and_run_verbs
            .iter()
            .filter_map(|v| v.split_whitespace().next()),
    );
    programs
}

/// The lists each program is in, as role bits.
fn program_roles(d: &'static Data) -> HashMap<&'static str, u16> {
    let net = &d.network;
    let lists = [
        (&net.fetchers, FETCHER),
        (&net.raw, RAW),
        (&net.copiers, COPIER),
        (&net.lookups, LOOKUP),
        (&d.persist.schedulers, SCHEDULER),
        (&d.privilege.programs, PRIVILEGED),
        (&d.process.programs, PROCESS),
        (&d.process.machine, MACHINE),
        (&d.infra.databases, DATABASE),
        (&d.remote.fetch_and_run, FETCH_RUN),
    ];
    let mut roles: HashMap<&str, u16> =
        HashMap::with_capacity(lists.iter().map(|(l, _)| l.len()).sum());
    for (list, role) in lists {
        for p in list {
            *roles.entry(*p).or_default() |= role;
        }
    }
    roles
}
