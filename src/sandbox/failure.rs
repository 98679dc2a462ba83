//! Whether a contained command's failure looks like the sandbox's doing: what its output says
//! when it tried to write outside the project, reach the network or make a system call the
//! sandbox refuses. Only such a failure is offered a run outside the sandbox (by a person's
//! approval); a plain failure (a test that fails, a compiler error) is the command's own.

use std::path::Path;

/// What a failure caused by the sandbox says, and what of the sandbox it meets.
pub const SIGNS: &[(&str, &str)] = &[
    (
        "Read-only file system",
        "it writes only the project and the temporary folder",
    ),
    ("Could not resolve host", "it has no network"),
    ("Temporary failure in name resolution", "it has no network"),
    ("Name or service not known", "it has no network"),
    ("getaddrinfo EAI_AGAIN", "it has no network"),
    ("Network is unreachable", "it has no network"),
    (
        "Operation not permitted",
        "it refuses what could leave it (namespaces, tracing, privileges, sockets outside)",
    ),
];

/// What in a failure says "Permission denied" about a path outside the project: the sandbox
/// shows such a path read-only or hides it (inside the project it is the file's own mode).
const PERMISSION: &str = "Permission denied";

/// How bubblewrap starts what it says when it cannot make the sandbox (a mount, a namespace).
const BWRAP: &str = "bwrap: ";

/// Why a failed contained command's output looks like the sandbox's doing, if it does: the
/// words it said and what of the sandbox they meet (`` `Read-only file system`: it writes
/// only the project and the temporary folder ``). `project` is the folder it could write (as
/// written, and as it really is).
pub fn sandbox_sign(output: &str, project: &[&Path]) -> Option<String> {
    for line in output.lines() {
        if let Some(said) = line.strip_prefix(BWRAP) {
            return Some(format!("the sandbox could not start: `{}`", said.trim()));
        }
        for (said, means) in SIGNS {
            if line.contains(said) {
                return Some(format!("`{said}`: {means}"));
            }
        }
        if line.contains(PERMISSION) {
            let outside = |p: &&str| !project.iter().any(|d| Path::new(p).starts_with(d));
            if let Some(path) = paths_in(line).find(outside) {
                return Some(format!(
                    "`{PERMISSION}` on `{path}`, outside the project: it writes only the \
                     project and the temporary folder, and hides what is protected"
                ));
            }
        }
    }
    None
}

/// The absolute paths a line of output names (`touch: cannot touch '/home/u/x': …`,
/// `bash: /etc/x: Permission denied`).
fn paths_in(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’'))
        .map(|w| w.trim_end_matches([':', ',', ';', ')']))
        .map(|w| w.trim_start_matches('('))
        .filter(|w| w.starts_with('/') && w.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = "/home/u/app";

    fn sign(output: &str) -> Option<String> {
        sandbox_sign(output, &[Path::new(PROJECT)])
    }

    #[test]
    fn writing_outside_reaching_the_network_or_a_refused_call_is_the_sandboxs_doing() {
        for (output, said) in [
            (
                "touch: cannot touch '/home/u/.bashrc': Read-only file system\n",
                "Read-only file system",
            ),
            (
                "curl: (6) Could not resolve host: example.com\n",
                "Could not resolve host",
            ),
            (
                "ssh: Could not resolve hostname github.com: Temporary failure in name resolution",
                "it has no network",
            ),
            (
                "socket.gaierror: [Errno -3] Temporary failure in name resolution",
                "Temporary failure in name resolution",
            ),
            (
                "npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
                "getaddrinfo EAI_AGAIN",
            ),
            (
                "ping: connect: Network is unreachable",
                "Network is unreachable",
            ),
            (
                "unshare: unshare failed: Operation not permitted",
                "Operation not permitted",
            ),
            (
                "bash: /home/u/.profile: Permission denied",
                "/home/u/.profile",
            ),
            (
                "touch: cannot touch '/etc/hosts': Permission denied",
                "/etc/hosts",
            ),
            (
                "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
                "the sandbox could not start",
            ),
        ] {
            let s = sign(output).unwrap_or_else(|| panic!("no sign in {output:?}"));
            assert!(s.contains(said), "{s} for {output:?}");
        }
    }

    #[test]
    fn a_plain_failure_is_not_claimed_for_the_sandbox() {
        for output in [
            "running 3 tests\ntest adds ... FAILED\n\nfailures:\n    adds\n\ntest result: FAILED. 2 passed; 1 failed\n",
            "error[E0308]: mismatched types\n --> src/lib.rs:2:5\n",
            "make: *** [Makefile:3: test] Error 1\n",
            "AssertionError: expected 2, got 3\n",
            "bash: ./build.sh: Permission denied\n",
            "cat: /home/u/app/secret.txt: Permission denied\n",
            "ls: cannot access '/nope': No such file or directory\n",
            "",
        ] {
            assert_eq!(sign(output), None, "{output:?}");
        }
    }
}
