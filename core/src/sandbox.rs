//! What the engine knows of the sandbox: its profiles by name (the policy language's
//! `profile "cargo"`), and whether a caller can run a command contained ([`Support`]). Running
//! it is the `harness9` crate's (`harness9 sandbox`, on bubblewrap).

use std::fmt;

/// A named set of caches outside the project that a contained command may write.
#[derive(Debug)]
pub struct Profile {
    pub name: &'static str,
    pub about: &'static str,
    /// Folders from home (`~/.cargo/registry`); those that do not exist are left out.
    pub caches: &'static [&'static str],
}

const CARGO: &[&str] = &["~/.cargo/registry", "~/.cargo/git"];
const NPM: &[&str] = &["~/.npm", "~/.cache/yarn", "~/.cache/pnpm"];
const PIP: &[&str] = &["~/.cache/pip", "~/.cache/uv"];
const GO: &[&str] = &["~/.cache/go-build", "~/go/pkg/mod"];
const BUILD: &[&str] = &[
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/.npm",
    "~/.cache/yarn",
    "~/.cache/pnpm",
    "~/.cache/pip",
    "~/.cache/uv",
    "~/.cache/go-build",
    "~/go/pkg/mod",
];

/// The profile a `sandbox` rule without `profile` runs under.
pub const DEFAULT_PROFILE: &str = "default";
/// The profile whose caches are every other profile's: what a line whose commands need
/// different profiles runs under.
pub const UNION_PROFILE: &str = "build";

/// The profiles: none of them has the network (a host allow-list is not built yet).
pub const PROFILES: &[Profile] = &[
    Profile {
        name: DEFAULT_PROFILE,
        about: "the project and the temporary folder only",
        caches: &[],
    },
    Profile {
        name: "cargo",
        about: "also Cargo's registry and git caches",
        caches: CARGO,
    },
    Profile {
        name: "npm",
        about: "also the npm, Yarn and pnpm caches",
        caches: NPM,
    },
    Profile {
        name: "pip",
        about: "also the pip and uv caches",
        caches: PIP,
    },
    Profile {
        name: "go",
        about: "also Go's build and module caches",
        caches: GO,
    },
    Profile {
        name: UNION_PROFILE,
        about: "also every cache of the profiles above",
        caches: BUILD,
    },
];

/// The profile of that name.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// The names of the profiles, in order.
pub fn profile_names() -> impl Iterator<Item = &'static str> + Clone {
    PROFILES.iter().map(|p| p.name)
}

/// The profile a line runs under whose commands are contained under `a` and `b`: the same
/// one, the one that is not `default`, or else the one with every cache.
pub fn joined_profile<'a>(a: &'a str, b: &'a str) -> &'a str {
    if a == b || b == DEFAULT_PROFILE {
        a
    } else if a == DEFAULT_PROFILE {
        b
    } else {
        UNION_PROFILE
    }
}

/// What a contained command may do, in one line (for `check`, `explain` and the dialogs).
pub const CONTAINED_MEANS: &str = "no network, writes to the project only";

/// Whether the caller of an engine can run a command contained. An engine's answer is a
/// `sandbox` decision only where it can: elsewhere such a decision is asked instead, saying
/// why (see [`crate::EngineBuilder::sandbox`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Commands can be run contained here.
    Available,
    /// They cannot; why (`bubblewrap is not installed`).
    Unavailable(String),
}

impl Default for Support {
    /// A library caller that did not say it runs contained commands gets no contained answer
    /// it could not honour.
    fn default() -> Self {
        Support::Unavailable("the program deciding does not run commands contained".into())
    }
}

impl Support {
    pub fn is_available(&self) -> bool {
        matches!(self, Support::Available)
    }
}

impl fmt::Display for Support {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Support::Available => f.write_str("the sandbox is available"),
            Support::Unavailable(why) => write!(f, "the sandbox is not available here: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_union_profile_holds_every_cache_of_every_profile() {
        let union = profile(UNION_PROFILE).map(|p| p.caches).unwrap_or_default();
        for p in PROFILES {
            for c in p.caches {
                assert!(
                    union.contains(c),
                    "{} of {} is not in {UNION_PROFILE}",
                    c,
                    p.name
                );
            }
        }
    }

    #[test]
    fn two_profiles_join_to_the_one_that_holds_both() {
        assert_eq!(joined_profile("cargo", "cargo"), "cargo");
        assert_eq!(joined_profile("default", "npm"), "npm");
        assert_eq!(joined_profile("pip", "default"), "pip");
        assert_eq!(joined_profile("cargo", "npm"), "build");
    }

    #[test]
    fn a_caller_that_says_nothing_has_no_sandbox() {
        let s = Support::default();
        assert!(!s.is_available());
        assert!(s
            .to_string()
            .starts_with("the sandbox is not available here: "));
    }
}
