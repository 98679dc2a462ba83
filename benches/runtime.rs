//! The runtime's cost per call: the whole standard chain (permission + danger + offload +
//! audit, one JSON line appended per call) around a tool that does nothing, and the check that
//! the settings file has not changed (a `stat`, not a parse).
//!
//! `cargo bench --bench runtime`

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use criterion::{criterion_group, criterion_main, Criterion};
use harness9::hooks::Project;
use harness9::runtime::standard::{standard_registry_with, Options};
use harness9::runtime::{
    CancelToken, HookContext, InvalidCall, ModeHandle, ToolResult, ToolRunner,
};
use harness9::{Mode, ToolCall};

struct Nothing;

#[async_trait]
impl ToolRunner for Nothing {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, _call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        ToolResult::ok("")
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cwd = dir.path().to_path_buf();
    std::fs::create_dir_all(cwd.join(".harness9")).expect("the project folder");
    std::fs::write(
        cwd.join(".harness9/settings.json"),
        r#"{"permissions": {"allow": ["bash(git status *)", "bash(cargo test *)"], "deny": ["bash(sudo *)"]}}"#,
    )
    .expect("settings.json");
    let project = Project {
        cwd: cwd.clone(),
        home: Some(cwd.join("home")),
        user_dir: None,
    };
    let (registry, loaded) = standard_registry_with(
        project,
        ModeHandle::new(Mode::Default),
        None,
        Options::default(),
    )
    .expect("the project loads");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let call = ToolCall::primary("bash", "cargo test --workspace");

    let mut g = c.benchmark_group("runtime");
    g.bench_function(
        "chain: permission+danger+offload+audit, bash allowed",
        |b| {
            b.iter(|| rt.block_on(registry.execute(HookContext::default(), call.clone(), &Nothing)))
        },
    );
    g.bench_function("settings unchanged check", |b| {
        b.iter(|| loaded.engine.current())
    });
    g.bench_function("engine decision alone, same call", |b| {
        let engine = loaded.engine.snapshot();
        b.iter(|| engine.decide(&call))
    });
    g.finish();
    assert_eq!(
        loaded.engine.reloads(),
        0,
        "the settings file was never read again"
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
