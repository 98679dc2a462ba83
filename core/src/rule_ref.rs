//! Which rule, or which part of the engine, made a decision.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What made a decision: a written rule, or one of the engine's own answers. Written in JSON
/// and messages as one string, as it always was: `team.policy:12`,
/// `managed:/etc/harness9/org.policy:3`, `session:2`, `protected:~/.ssh`,
/// `guard:policy-files`, `mode:read-only`, `analysis`, `default`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleRef {
    /// A rule written in a policy file or a settings.json, by the file's name and the line.
    File { file: Arc<str>, line: u32 },
    /// A rule of the managed tier (`/etc/harness9`), by its file and line.
    Managed { file: Arc<str>, line: u32 },
    /// Rule `n` (from 1) of allow rules held in memory: the session's or a proposal's.
    Memory { held: Held, n: u32 },
    /// A protected path (`~/.ssh`), as the protection writes it.
    Protected(Arc<str>),
    /// The guard that asks before a policy or settings file changes.
    PolicyFilesGuard,
    /// Read-only mode, which denies what may change something.
    ReadOnlyMode,
    /// The analysis itself: a malformed call, a line it could not read, or its budget spent.
    Analysis,
    /// No rule matched: the policy's `default`.
    Default,
    /// No built-in rule matched (when only the built-in rules are asked).
    NoBuiltinMatch,
    /// No managed rule matched (when only the managed tier is asked).
    NoManagedMatch,
    /// A name given by code outside the engine (a tool hook's own rule).
    Named(Arc<str>),
}

/// Where allow rules held in memory come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Held {
    /// Approvals remembered for this session ("always allow" without saving).
    Session,
    /// The rules "always allow" would write, tried before they are offered.
    Proposal,
}

impl Held {
    pub fn as_str(self) -> &'static str {
        match self {
            Held::Session => "session",
            Held::Proposal => "proposal",
        }
    }
}

const MANAGED: &str = "managed:";
const PROTECTED: &str = "protected:";
const POLICY_FILES_GUARD: &str = "guard:policy-files";
const READ_ONLY_MODE: &str = "mode:read-only";

impl RuleRef {
    /// A rule of a file (`team.policy`, `.claude/settings.json`) at `line`.
    pub fn file(file: &str, line: usize) -> RuleRef {
        RuleRef::File {
            file: file.into(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
        }
    }

    /// Whether a rule of the managed tier decided.
    pub fn is_managed(&self) -> bool {
        matches!(self, RuleRef::Managed { .. })
    }

    /// Whether a rule of the session's memory decided.
    pub fn is_session(&self) -> bool {
        matches!(
            self,
            RuleRef::Memory {
                held: Held::Session,
                ..
            }
        )
    }

    /// Whether a protected path decided.
    pub fn is_protected(&self) -> bool {
        matches!(self, RuleRef::Protected(_))
    }

    /// The same rule in the managed tier (a file rule becomes a managed one).
    pub fn managed(self) -> RuleRef {
        match self {
            RuleRef::File { file, line } => RuleRef::Managed { file, line },
            other => other,
        }
    }

    /// The file a written rule is in (`None` for the engine's own answers).
    pub fn file_name(&self) -> Option<&str> {
        match self {
            RuleRef::File { file, .. } | RuleRef::Managed { file, .. } => Some(file),
            _ => None,
        }
    }
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleRef::File { file, line } => write!(f, "{file}:{line}"),
            RuleRef::Managed { file, line } => write!(f, "{MANAGED}{file}:{line}"),
            RuleRef::Memory { held, n } => write!(f, "{}:{n}", held.as_str()),
            RuleRef::Protected(path) => write!(f, "{PROTECTED}{path}"),
            RuleRef::PolicyFilesGuard => f.write_str(POLICY_FILES_GUARD),
            RuleRef::ReadOnlyMode => f.write_str(READ_ONLY_MODE),
            RuleRef::Analysis => f.write_str("analysis"),
            RuleRef::Default => f.write_str("default"),
            RuleRef::NoBuiltinMatch => f.write_str("builtin"),
            RuleRef::NoManagedMatch => f.write_str("managed"),
            RuleRef::Named(name) => f.write_str(name),
        }
    }
}

/// Reads what [`RuleRef`]'s `Display` writes; any other text is a [`RuleRef::Named`].
impl FromStr for RuleRef {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let at_line = |s: &str| {
            let (file, line) = s.rsplit_once(':')?;
            let line = line.parse::<u32>().ok()?;
            (!file.is_empty()).then(|| (Arc::<str>::from(file), line))
        };
        Ok(match s {
            "default" => RuleRef::Default,
            "builtin" => RuleRef::NoBuiltinMatch,
            "managed" => RuleRef::NoManagedMatch,
            "analysis" => RuleRef::Analysis,
            POLICY_FILES_GUARD => RuleRef::PolicyFilesGuard,
            READ_ONLY_MODE => RuleRef::ReadOnlyMode,
            _ => {
                if let Some(path) = s.strip_prefix(PROTECTED) {
                    RuleRef::Protected(path.into())
                } else if let Some((file, line)) = s.strip_prefix(MANAGED).and_then(at_line) {
                    RuleRef::Managed { file, line }
                } else if let Some((file, line)) = at_line(s) {
                    match &*file {
                        "session" => RuleRef::Memory {
                            held: Held::Session,
                            n: line,
                        },
                        "proposal" => RuleRef::Memory {
                            held: Held::Proposal,
                            n: line,
                        },
                        _ => RuleRef::File { file, line },
                    }
                } else {
                    RuleRef::Named(s.into())
                }
            }
        })
    }
}

impl From<&str> for RuleRef {
    fn from(s: &str) -> Self {
        match s.parse() {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }
}

/// Whether the rule is written `other` (what JSON and messages show).
impl PartialEq<str> for RuleRef {
    fn eq(&self, other: &str) -> bool {
        // Compares what `Display` writes with `other` piece by piece, without a String.
        struct Rest<'a>(&'a str);
        impl fmt::Write for Rest<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0 = self.0.strip_prefix(s).ok_or(fmt::Error)?;
                Ok(())
            }
        }
        let mut rest = Rest(other);
        fmt::write(&mut rest, format_args!("{self}")).is_ok() && rest.0.is_empty()
    }
}

impl PartialEq<&str> for RuleRef {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl Serialize for RuleRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RuleRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(d)?;
        Ok(RuleRef::from(&*s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_what_it_writes() {
        let all = [
            RuleRef::file("builtin.policy", 12),
            RuleRef::file("/home/a/.claude/settings.json", 3),
            RuleRef::file("C:team.policy", 1),
            RuleRef::file("team.policy", 1).managed(),
            RuleRef::Memory {
                held: Held::Session,
                n: 2,
            },
            RuleRef::Memory {
                held: Held::Proposal,
                n: 1,
            },
            RuleRef::Protected("~/.ssh".into()),
            RuleRef::Protected("/etc/harness9:4".into()),
            RuleRef::PolicyFilesGuard,
            RuleRef::ReadOnlyMode,
            RuleRef::Analysis,
            RuleRef::Default,
            RuleRef::NoBuiltinMatch,
            RuleRef::NoManagedMatch,
            RuleRef::Named("my hook's rule".into()),
        ];
        for r in all {
            let text = r.to_string();
            assert_eq!(RuleRef::from(text.as_str()), r, "{text}");
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, serde_json::to_string(&text).unwrap());
            assert_eq!(serde_json::from_str::<RuleRef>(&json).unwrap(), r);
        }
    }

    #[test]
    fn the_json_of_a_decision_keeps_its_strings() {
        assert_eq!(RuleRef::file("team.policy", 4).to_string(), "team.policy:4");
        assert_eq!(
            RuleRef::file("/etc/harness9/org.policy", 3)
                .managed()
                .to_string(),
            "managed:/etc/harness9/org.policy:3"
        );
        assert_eq!(RuleRef::Protected("~/.ssh".into()), "protected:~/.ssh");
        assert_eq!(RuleRef::PolicyFilesGuard, "guard:policy-files");
        assert_eq!(RuleRef::ReadOnlyMode, "mode:read-only");
    }

    #[test]
    fn a_name_that_only_looks_like_a_kind_is_a_name() {
        assert_eq!(
            RuleRef::from("team.policy:x"),
            RuleRef::Named("team.policy:x".into())
        );
        assert_eq!(RuleRef::from(":3"), RuleRef::Named(":3".into()));
        assert!(!RuleRef::from("managed-ish:1").is_managed());
        assert_ne!(RuleRef::file("team.policy", 4), "team.policy:40");
        assert_ne!(RuleRef::file("team.policy", 40), "team.policy:4");
    }
}
