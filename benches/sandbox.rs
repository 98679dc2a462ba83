//! What containing a command costs at start-up: `true` run by `harness9 sandbox` against the
//! same `true` started plainly, and the parts of the difference (the harness9 process that
//! loads the project's policy and prepares the mounts, and bubblewrap's namespaces and mounts
//! with the seccomp filters).
//!
//! `cargo bench --bench sandbox`. Needs the sandbox (Linux, bubblewrap): without it the bench
//! stops and says why.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};

fn run(c: &mut Command) {
    let status = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .unwrap();
    assert!(status.success(), "{c:?} failed: {status}");
}

fn contained(dir: &Path, profile: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_harness9"));
    c.args(["sandbox", "--profile", profile, "--", "true"])
        .current_dir(dir.join("proj"))
        .env("HOME", dir.join("home"))
        .env_remove("XDG_CONFIG_HOME");
    c
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("proj/.git/hooks")).unwrap();
    std::fs::create_dir_all(dir.path().join("home/.ssh")).unwrap();
    std::fs::write(dir.path().join("proj/.git/config"), "[core]\n").unwrap();
    if let Err(e) = harness9::sandbox::probe() {
        panic!("the sandbox's start-up cannot be measured here: {e}");
    }
    let mut g = c.benchmark_group("sandbox start-up");
    g.bench_function("plain true", |b| b.iter(|| run(&mut Command::new("true"))));
    g.bench_function("harness9 sandbox -- true", |b| {
        b.iter(|| run(&mut contained(dir.path(), "default")))
    });
    g.bench_function("harness9 sandbox --profile build -- true", |b| {
        b.iter(|| run(&mut contained(dir.path(), "build")))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
