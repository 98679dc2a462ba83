//! Differential testing: the indexed engine against a reference evaluator that scans every
//! rule in order (`tests/reference/`). Random policies — policy files and settings.json,
//! generated as text, every matcher kind, several files at once — and random calls; both must
//! agree on the decision, the risk and the deciding rule, in every mode.
//!
//! `PROPTEST_CASES=5000 cargo test --test differential` searches harder; the fuzz target
//! `differential` runs the same check on inputs the fuzzer grows.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod reference;

use harness9::Engine;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use proptest::{collection::vec, prelude::any};
use reference::gen::{self, Gen};
use reference::{call, compare, Layout, World};

/// Calls decided against each generated world.
const CALLS_PER_WORLD: usize = 32;

fn build(world: &World, layout: &Layout) -> Result<Engine, String> {
    world
        .build(&layout.ctx())
        .map_err(|e| format!("a generated policy did not load: {e}\n{}", world.describe()))
}

/// Decides `calls` random calls with the engine and the reference; how many comparisons agreed.
fn check(engine: &Engine, world: &World, calls_seed: u64, calls: usize) -> Result<usize, String> {
    let mut g = Gen::from_seed(calls_seed);
    let mut compared = 0;
    for _ in 0..calls {
        let c = call(&mut g);
        compared += compare(engine, &c).map_err(|e| format!("{e}\n{}", world.describe()))?;
    }
    Ok(compared)
}

#[test]
fn the_indexed_engine_decides_random_calls_like_a_linear_scan_over_random_policies() {
    let cases = match std::env::var("PROPTEST_CASES") {
        Ok(_) => Config::default().cases,
        Err(_) => 192,
    };
    let mut runner = TestRunner::new(Config {
        cases,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    });
    let layout = Layout::new();
    let compared = std::cell::Cell::new(0usize);
    let result = runner.run(
        &(vec(any::<u8>(), 0..3072), any::<u64>()),
        |(bytes, seed)| {
            let world = World::generate(&mut Gen::from_bytes(&bytes), 40);
            let engine = build(&world, &layout).map_err(TestCaseError::fail)?;
            let n = check(&engine, &world, seed, CALLS_PER_WORLD).map_err(TestCaseError::fail)?;
            compared.set(compared.get() + n);
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "differential: {cases} random worlds, {} calls, {} comparisons agreed",
        cases as usize * CALLS_PER_WORLD,
        compared.get()
    );
}

/// Thousands of rules of every kind in three policy files and a settings.json: the index
/// proposes few candidates among many, where a wrong proposal would show.
#[test]
fn the_indexed_engine_decides_like_a_linear_scan_over_thousands_of_rules() {
    let layout = Layout::new();
    let mut compared = 0;
    let mut rules = 0;
    for seed in 1..=2u64 {
        let mut g = Gen::from_seed(seed);
        let world = World {
            policies: (0..3)
                .map(|i| (format!("big{i}.policy"), gen::policy_of(&mut g, 1200)))
                .collect(),
            settings: vec![("settings.json".into(), gen::settings(&mut g, 150))],
            builtin: true,
        };
        let engine = build(&world, &layout).unwrap_or_else(|e| panic!("{e}"));
        rules += engine
            .user_chains()
            .iter()
            .map(|c| c.rules.len())
            .sum::<usize>();
        match check(&engine, &world, seed, 400) {
            Ok(n) => compared += n,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(rules > 6000, "only {rules} rules were generated");
    eprintln!("differential: {rules} rules in 2 worlds, {compared} comparisons agreed");
}

/// Command lines the analysis refuses as too long: their words are judged without a parse,
/// each different word once, and a line of too many different words is denied.
#[test]
fn lines_too_long_to_analyse_decide_like_the_reference() {
    let layout = Layout::new();
    let lines = [
        format!("cat ~/.ssh/id_rsa {}", "x ".repeat(40_000)),
        format!("rm -rf / {}", "a b ".repeat(20_000)),
        (0..40_000).map(|i| format!("w{i} ")).collect::<String>(),
        format!("git status {}", "y".repeat(70_000)),
    ];
    for seed in 0..3u64 {
        let world = World::generate(&mut Gen::from_seed(seed), 40);
        let engine = build(&world, &layout).unwrap_or_else(|e| panic!("{e}"));
        for line in &lines {
            let call = harness9::ToolCall::primary("bash", line.as_str());
            if let Err(e) = compare(&engine, &call) {
                panic!(
                    "{}\n{}",
                    e.chars().take(2000).collect::<String>(),
                    world.describe()
                );
            }
        }
    }
}

/// Found by the random search: an `xargs` fed the names a `find` listed reaches the protections
/// inside the listed folders (the engine denied, the reference did not know the rule yet).
#[test]
fn an_xargs_fed_by_a_find_decides_like_the_reference() {
    let layout = Layout::new();
    let world = World::generate(&mut Gen::from_seed(7), 10);
    let engine = build(&world, &layout).unwrap_or_else(|e| panic!("{e}"));
    for line in [
        "find \"/\" czf run |& xargs +x origin",
        "find ~ | xargs cat",
        "find ~ -name '*.log' | xargs cat",
        "find . -type f | xargs wc -l",
        "find $D | xargs rm",
    ] {
        let call = harness9::ToolCall::primary("bash", line);
        if let Err(e) = compare(&engine, &call) {
            panic!("{e}\n{}", world.describe());
        }
    }
}
