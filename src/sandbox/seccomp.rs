//! The seccomp filters a contained command runs under, compiled to BPF by `seccompiler` and
//! loaded by bubblewrap (`--add-seccomp-fd`) just before the command starts.
//!
//! Namespaces and the dropped capabilities already keep these calls from reaching outside the
//! sandbox; the filter is a second wall, so that a kernel bug in one of them is not enough:
//! - no debugging of another process (`ptrace`, `process_vm_readv`/`writev`);
//! - no new namespace and no joining one (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag);
//! - no mounting (`mount`, `umount2`, `pivot_root`, the new mount API);
//! - no Unix socket made by `socket` (one bound to a path, like a Docker or D-Bus socket, is
//!   reached through the file system, which a read-only mount does not stop; `socketpair`
//!   stays allowed, it reaches nothing);
//! - none of the kernel's interfaces a build never needs and an exploit often does (`bpf`,
//!   `perf_event_open`, `userfaultfd`, the key ring, modules, `kexec`, `open_by_handle_at`).
//!
//! `clone3` gets `ENOSYS`, not `EPERM`: its flags sit in memory a filter cannot read, and the C
//! library falls back to `clone` (whose flags it can) on `ENOSYS` only. `io_uring` gets
//! `ENOSYS` too: its operations bypass the filter, and its users fall back to plain calls.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Calls refused outright (`EPERM`).
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
];

/// The `clone` flags that make a new namespace.
const CLONE_NEW: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
    0x80, // CLONE_NEWTIME (not named by every libc)
];

/// The bit x32 system call numbers carry.
const X32: libc::c_long = 0x4000_0000;

/// Why a filter could not be compiled (only on an architecture `seccompiler` does not know).
#[derive(Debug, thiserror::Error)]
#[error("cannot compile the sandbox's seccomp filter: {0}")]
pub struct FilterError(String);

fn arch() -> Result<TargetArch, FilterError> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| FilterError(e.to_string()))
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    on_match: SeccompAction,
) -> Result<BpfProgram, FilterError> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, on_match, arch()?)
        .map_err(|e| FilterError(e.to_string()))?;
    BpfProgram::try_from(filter).map_err(|e| FilterError(e.to_string()))
}

fn when_arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, FilterError> {
    let cond = SeccompCondition::new(index, SeccompCmpArgLen::Qword, op, value)
        .map_err(|e| FilterError(e.to_string()))?;
    SeccompRule::new(vec![cond]).map_err(|e| FilterError(e.to_string()))
}

/// The filter whose calls fail with `EPERM`.
pub fn denials() -> Result<BpfProgram, FilterError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &nr in DENIED {
        // An empty rule list matches the call whatever its arguments.
        rules.insert(nr, Vec::new());
    }
    // On x86-64 the same calls have x32 numbers too (bit 30 set), which the architecture
    // check does not tell apart: refuse those as well, and x32's own numbers for the calls
    // whose x32 form differs (`ptrace`, `process_vm_readv`, `process_vm_writev`).
    if cfg!(target_arch = "x86_64") {
        for &nr in DENIED.iter().chain(&[libc::SYS_clone, libc::SYS_socket]) {
            rules.insert(nr | X32, Vec::new());
        }
        for nr in [521, 539, 540] {
            rules.insert(X32 | nr, Vec::new());
        }
    }
    let mut clone = Vec::new();
    for &flag in CLONE_NEW {
        let flag = flag as u64;
        clone.push(when_arg(0, SeccompCmpOp::MaskedEq(flag), flag)?);
    }
    rules.insert(libc::SYS_clone, clone);
    let unix = libc::AF_UNIX as u64;
    rules.insert(libc::SYS_socket, vec![when_arg(0, SeccompCmpOp::Eq, unix)?]);
    compile(rules, SeccompAction::Errno(libc::EPERM as u32))
}

/// The filter that answers `ENOSYS`, as a kernel without the call would, so that a program
/// falls back to the older way: `clone3`, and `io_uring` (whose operations, among them
/// `socket` and `connect`, the kernel carries out without asking a seccomp filter).
pub fn not_here() -> Result<BpfProgram, FilterError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in [
        libc::SYS_clone3,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(nr, Vec::new());
        if cfg!(target_arch = "x86_64") {
            rules.insert(nr | X32, Vec::new());
        }
    }
    compile(rules, SeccompAction::Errno(libc::ENOSYS as u32))
}

/// A program as the kernel (and bubblewrap's `--add-seccomp-fd`) reads it: an array of
/// `struct sock_filter`, in the machine's byte order.
pub fn to_bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for ins in program {
        out.extend_from_slice(&ins.code.to_ne_bytes());
        out.push(ins.jt);
        out.push(ins.jf);
        out.extend_from_slice(&ins.k.to_ne_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_compile_on_this_machine() {
        let d = denials().unwrap();
        let c = not_here().unwrap();
        assert!(!d.is_empty() && !c.is_empty());
        assert_eq!(to_bytes(&d).len(), d.len() * 8);
    }
}
