//! The effects by name: the closed set `explain`, the policy language and the dialog share,
//! and one effect found with what it is done to.

use std::fmt;

/// The effects, in the order `explain` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Reads local files named on the command line.
    Read,
    /// Writes or creates files inside the project (the working folder).
    WriteProject,
    /// Writes files outside the project (temporary folders aside).
    WriteOutside,
    /// Deletes files inside the project.
    Delete,
    /// Deletes files outside the project (temporary folders aside).
    DeleteOutside,
    /// Destroys version-control history or uncommitted work.
    DeleteHistory,
    /// Fetches from the network.
    NetworkFetch,
    /// Sends local data (a file, a variable, piped output) over the network.
    NetworkUpload,
    /// Runs code the analysis cannot read: built at run time, or written earlier in the line.
    RunCode,
    /// Runs code fetched from the network.
    RunRemoteCode,
    /// Installs packages from a registry.
    Install,
    /// Makes something run later: shell start-up files, schedulers, services, git hooks, agent
    /// settings.
    Persist,
    /// Changes who may do what: users, sudoers, setuid bits, capabilities, privileged
    /// containers.
    Privilege,
    /// Stops processes, services or the machine.
    ProcessControl,
    /// Changes infrastructure: clusters, clouds, containers, databases, package registries.
    InfraChange,
    /// Prints a credential: the job of the command is to show a token, a password or a key
    /// (`gcloud auth print-access-token`, `vault kv get`); see `policies/secrets.toml`.
    RevealSecret,
    /// Runs the project's own code: builds, tests, linters, the project's scripts.
    RunProject,
    /// Changes a remote service in a way that can be undone (an HTTP POST, `gh pr create`).
    RemoteChange,
    /// Destroys data or resources beyond the project (`kubectl delete`, an HTTP DELETE, a
    /// sync that deletes, `restic forget`).
    Destroy,
}

impl Kind {
    pub const ALL: [(Kind, &'static str, &'static str); 19] = [
        (Kind::Read, "read", "reads local files"),
        (
            Kind::WriteProject,
            "write-project",
            "writes files inside the project",
        ),
        (
            Kind::WriteOutside,
            "write-outside",
            "writes files outside the project",
        ),
        (Kind::Delete, "delete", "deletes files inside the project"),
        (
            Kind::DeleteOutside,
            "delete-outside",
            "deletes files outside the project",
        ),
        (
            Kind::DeleteHistory,
            "delete-history",
            "destroys version-control history or uncommitted work",
        ),
        (
            Kind::NetworkFetch,
            "network-fetch",
            "fetches from the network",
        ),
        (
            Kind::NetworkUpload,
            "network-upload",
            "sends local data over the network",
        ),
        (
            Kind::RunCode,
            "run-code",
            "runs code the analysis cannot read",
        ),
        (
            Kind::RunRemoteCode,
            "run-remote-code",
            "runs code fetched from the network",
        ),
        (
            Kind::Install,
            "install",
            "installs packages from a registry",
        ),
        (Kind::Persist, "persist", "makes something run later"),
        (Kind::Privilege, "privilege", "changes privileges"),
        (
            Kind::ProcessControl,
            "process-control",
            "stops processes, services or the machine",
        ),
        (Kind::InfraChange, "infra-change", "changes infrastructure"),
        (Kind::RevealSecret, "reveal-secret", "prints a credential"),
        (
            Kind::RunProject,
            "run-project",
            "runs the project's own code",
        ),
        (
            Kind::RemoteChange,
            "remote-change",
            "changes a remote service",
        ),
        (
            Kind::Destroy,
            "destroy",
            "destroys data or resources beyond the project",
        ),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(k, ..)| *k == self)
            .map_or("", |(_, n, _)| n)
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Self::ALL.iter().find(|(_, n, _)| *n == s).map(|(k, ..)| *k)
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::ALL.iter().map(|(_, n, _)| *n)
    }
}

/// One effect of a command, with what it is done to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Kind,
    /// In plain words: `sends .env to paste.example`, `writes ~/.bashrc`.
    pub detail: String,
    /// The host it talks to, when known (lower case).
    pub host: Option<String>,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)
    }
}
