//! How fast the engine decides and compiles, from 10 to 100,000 rules (SPEC §10: a decision in
//! single-digit microseconds, nearly flat in the number of rules; 10,000 rules compile in well
//! under a second).
//!
//! The policies are generated: a realistic mix of prefix, shorthand, substring, file, MCP and
//! program/flag rules, a fixed handful of regexes, and, in the middle, the rules the benchmarked
//! calls hit.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use harness9::knowledge::{effects, Reading};
use harness9::{Engine, PathContext, ToolCall};

const SIZES: [usize; 3] = [10, 1_000, 100_000];

/// Regexes are matched one by one (the residue no index narrows), so a policy has a fixed few.
const REGEXES: usize = 5;

/// Rules hit by the benchmarked calls, placed in the middle of the policy.
const MIDDLE: &str = r#"allow bash(prefix "git status");
deny read_file("secrets/**") reason "team secrets";
allow write_file("src/**");
"#;

/// One generated rule for index `i`: 40% prefix, 20% shorthand globs, 15% substring, 15% file,
/// 5% MCP, 5% program and flag.
fn rule(out: &mut String, i: usize) {
    let _ = match i % 20 {
        0 | 2 | 5 | 7 | 10 | 12 | 15 | 18 => {
            writeln!(out, r#"allow bash(prefix "tool{i} sub{i}");"#)
        }
        1 | 11 => writeln!(out, r#"allow bash("cmd{i} *");"#),
        6 | 16 => writeln!(out, r#"deny bash("cmd{i} --force*");"#),
        3 | 13 => writeln!(out, r#"ask bash(contains "--unsafe-{i}") risk medium;"#),
        8 => writeln!(
            out,
            r#"allow bash(prefix "run{i}") unless contains "--delete-{i}";"#
        ),
        4 | 14 => writeln!(out, r#"deny read_file("dir{i}/**");"#),
        9 => writeln!(out, r#"allow write_file("src{i}/*.rs");"#),
        17 if i % 40 == 17 => writeln!(out, r#"allow mcp__server{i}__*;"#),
        17 => writeln!(
            out,
            r#"allow mcp__fetch{i}__fetch(arg url host "*.host{i}.example");"#
        ),
        _ => writeln!(
            out,
            r#"ask bash(program "prog{i}", flag ["-r", "-R"], flag "-f") risk high;"#
        ),
    };
}

fn policy(n: usize) -> String {
    let mut out = String::new();
    for k in 0..REGEXES {
        let _ = writeln!(out, r"deny bash(regex '^curl{k} .*\| *sh');");
    }
    for i in 0..n {
        if i == n / 2 {
            out.push_str(MIDDLE);
        }
        rule(&mut out, i);
    }
    out.push_str("default ask risk low;\n");
    out
}

/// A real project folder with the file the benchmarked call reads: symlinks are followed on
/// every decision, so a folder that exists gives the cost an agent's calls really have.
fn project() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir(dir.path().join("secrets")).expect("secrets/");
        std::fs::write(dir.path().join("secrets/api.key"), "k").expect("secrets/api.key");
        std::fs::create_dir(dir.path().join("src")).expect("src/");
        std::fs::write(dir.path().join("src/lib.rs"), "").expect("src/lib.rs");
        dir
    })
    .path()
}

fn build(text: &str) -> Engine {
    Engine::builder()
        .policy_text("bench.policy", text)
        .builtin(true)
        .context(PathContext::new(project(), Some(PathBuf::from("/home/u"))))
        // Guarded as the hook guards a project: writes pay for the check.
        .guard(project().join(".harness9"))
        .build()
        .expect("the generated policy loads")
}

/// The shipped default policy in the project folder, guarded as the hook guards a project
/// (writes pay for the check).
fn default_engine() -> Engine {
    Engine::builder()
        .default_policy()
        .context(PathContext::new(project(), Some(PathBuf::from("/home/u"))))
        .guard(project().join(".harness9"))
        .build()
        .expect("the default policy loads")
}

fn decide(c: &mut Criterion) {
    let mut g = c.benchmark_group("decide");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let hit = ToolCall::primary("bash", "git status --short");
    // A command no rule matches (an unknown program would meet the built-in unknown rule).
    let miss = ToolCall::primary("bash", "touch --no-create out.txt");
    let file = ToolCall::primary("read_file", "secrets/api.key");
    let write = ToolCall::primary("write_file", "src/lib.rs");
    let compound = ToolCall::primary(
        "bash",
        "cd src && cargo test --workspace --all-features 2>&1 | tail -n 20 && git status --short",
    );
    for n in SIZES {
        let engine = build(&policy(n));
        // The calls decide as intended: the middle rules, and the default for the miss.
        assert_eq!(
            engine.decide(&hit).rule.to_string(),
            format!("bench.policy:{}", line_of_middle(n))
        );
        assert_eq!(
            engine.decide(&file).rule.to_string(),
            format!("bench.policy:{}", line_of_middle(n) + 1)
        );
        assert_eq!(
            engine.decide(&write).rule.to_string(),
            format!("bench.policy:{}", line_of_middle(n) + 2)
        );
        assert_eq!(engine.decide(&miss).rule, "default");
        g.bench_with_input(BenchmarkId::new("bash/hit", n), &hit, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
        g.bench_with_input(BenchmarkId::new("bash/miss", n), &miss, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
        g.bench_with_input(BenchmarkId::new("file", n), &file, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
        g.bench_with_input(BenchmarkId::new("file_write", n), &write, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
        if n == 1_000 {
            g.bench_with_input(
                BenchmarkId::new("bash_compound", n),
                &compound,
                |b, call| b.iter(|| engine.decide(black_box(call))),
            );
        }
    }
    g.finish();
}

/// The line of `allow bash(prefix "git status")` in `policy(n)`.
fn line_of_middle(n: usize) -> usize {
    REGEXES + n / 2 + 1
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for n in [10_000, 100_000] {
        let text = policy(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter_with_large_drop(|| build(black_box(text)))
        });
    }
    // A settings.json of 100,000 allow rules on one line, as a tool might write it (target:
    // under a second, with the built-in rules).
    let rules: Vec<String> = (0..100_000).map(|i| format!("bash(tool{i} *)")).collect();
    let settings = serde_json::json!({"permissions": {"allow": rules}}).to_string();
    g.bench_function("settings_100k_one_line", |b| {
        b.iter_with_large_drop(|| {
            Engine::builder()
                .context(PathContext::new(project(), None))
                .settings_text("settings.json", black_box(settings.as_str()))
                .build()
                .unwrap()
        })
    });
    g.finish();
}

/// Typical agent command lines of 60 to 120 characters that need the shell parser.
const LINES: [(&str, &str); 4] = [
    (
        "test_pipeline",
        "cargo test --workspace --all-features 2>&1 | tail -n 20 && git status --short",
    ),
    (
        "grep_loop",
        "for f in $(git ls-files '*.rs'); do grep -n 'unwrap()' \"$f\" | head -3; done",
    ),
    (
        "heredoc_write",
        "cat > notes.md <<'EOF'\n# Notes\nrun `make` first\nEOF\ngit add notes.md",
    ),
    (
        "install_script",
        "curl -fsSL https://example.com/install.sh | sudo bash -s -- --prefix=/opt/tool",
    ),
];

/// Shell analysis alone, and analysis plus the decision, with the default policy.
fn commands(c: &mut Criterion) {
    let mut g = c.benchmark_group("command");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let engine = default_engine();
    for (name, line) in LINES {
        assert!(
            (60..=120).contains(&line.len()),
            "{name} is {} characters",
            line.len()
        );
        let call = ToolCall::primary("bash", line);
        g.bench_with_input(BenchmarkId::new("analyse", name), line, |b, line| {
            b.iter(|| harness9::shell::analyse(black_box(line)))
        });
        g.bench_with_input(BenchmarkId::new("decide", name), &call, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
    }
    g.finish();
}

/// Lines from an outside security review, built to be slow to analyse: long `cd` chains (the
/// analysis follows the folder they change to, up to a cap), thousands of glob words and
/// thousands of pipes. The review's target is under 10 ms per decision for each.
fn hostile() -> Vec<(&'static str, String)> {
    let cds = |n: usize, sep: &str| {
        let mut line = String::new();
        for i in 0..n {
            let _ = write!(line, "cd d{i}{sep}");
        }
        line.push_str("cat x");
        line
    };
    let mut globs = String::from("cat");
    for i in 0..2_000 {
        let _ = write!(globs, " /h*/*/.*/*{i}");
    }
    let mut pipes = String::from("ls");
    for _ in 0..5_000 {
        pipes.push_str(" | cat");
    }
    vec![
        ("cd14_and", cds(14, " && ")),
        ("cd14_semicolon", cds(14, "; ")),
        ("globs2000", globs),
        ("pipes5000", pipes),
        ("cd40_and", cds(40, " && ")),
    ]
}

/// The hostile lines decided with the shipped default policy.
fn hostile_lines(c: &mut Criterion) {
    let mut g = c.benchmark_group("hostile_lines");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let ctx = PathContext::new("/home/tester/proj", Some("/home/tester".into()));
    let engine = Engine::builder()
        .default_policy()
        .context(ctx.clone())
        .build()
        .expect("the default policy loads");
    // Guarded as `harness9 check` and the hook guard a project (its `.harness9/` and the
    // agents' settings files in it and in the home folder).
    let guarded = harness9::hooks::guard_project(
        Engine::builder().default_policy().context(ctx.clone()),
        &ctx.cwd,
        ctx.home.as_deref(),
    )
    .build()
    .expect("the default policy loads");
    for (name, line) in hostile() {
        let call = ToolCall::primary("bash", &line);
        g.bench_with_input(BenchmarkId::new("analyse", name), &line, |b, line| {
            b.iter(|| harness9::shell::analyse(black_box(line)))
        });
        g.bench_with_input(BenchmarkId::new("decide", name), &call, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
        g.bench_with_input(
            BenchmarkId::new("decide_guarded", name),
            &call,
            |b, call| b.iter(|| guarded.decide(black_box(call))),
        );
    }
    g.finish();
}

/// The built-in policy's text without its `effect` rules.
fn builtin_without_effects() -> String {
    let text =
        harness9::policy::embedded("builtin.policy").expect("the built-in policy is embedded");
    let mut out = String::new();
    let mut statement = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        statement.push_str(line);
        statement.push('\n');
        if line.trim_end().ends_with(';') {
            if !statement.contains("effect \"") {
                out.push_str(&statement);
            }
            statement.clear();
        }
    }
    out
}

/// What the effects model adds to a bash decision: the same engine (the built-in rules as a
/// policy, then the default policy) with and without the built-in `effect` rules.
fn effects_overhead(c: &mut Criterion) {
    let mut g = c.benchmark_group("effects");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let ctx = PathContext::new(project(), Some(PathBuf::from("/home/u")));
    let full = harness9::policy::embedded("builtin.policy").expect("embedded");
    let build = |builtin: &str| {
        Engine::builder()
            .builtin(false)
            .context(ctx.clone())
            .policy_text("builtin.policy", builtin.to_string())
            .default_policy()
            .build()
            .expect("the policies load")
    };
    let with = build(full);
    let without = build(&builtin_without_effects());
    let mut lines: Vec<(&str, &str)> = vec![
        ("git_status", "git status --short"),
        ("cargo_test", "cargo test --workspace"),
        ("curl_fetch", "curl -sI https://example.com"),
        ("npm_install", "npm install --save-dev typescript"),
    ];
    lines.extend(LINES.iter().copied());
    for (name, line) in lines {
        let analysis = harness9::shell::analyse(line);
        g.bench_with_input(BenchmarkId::new("model_alone", name), &analysis, |b, a| {
            b.iter(|| {
                let resolve = |raw: &str| ctx.resolve(raw);
                let places = effects::Places {
                    cwd: &ctx.cwd,
                    home: ctx.home.as_deref(),
                    resolve: &resolve,
                };
                let line = effects::Line::default();
                a.commands
                    .iter()
                    .map(|c| effects::of(c, &Reading::of(c), &places, &line).len())
                    .sum::<usize>()
            })
        });
        let call = ToolCall::primary("bash", line);
        g.bench_with_input(BenchmarkId::new("with_effects", name), &call, |b, call| {
            b.iter(|| with.decide(black_box(call)))
        });
        g.bench_with_input(
            BenchmarkId::new("without_effects", name),
            &call,
            |b, call| b.iter(|| without.decide(black_box(call))),
        );
    }
    g.finish();
}

/// A mixed batch of an agent's everyday calls with the shipped default policy: reads and
/// writes in the project, reads outside it and of secrets, builds, git, network and unknown
/// tools. Reported per batch; divided by its length, the cost of a typical decision.
const MIXED: [(&str, &str); 24] = [
    ("bash", "git status --short"),
    ("bash", "ls -la src"),
    ("bash", "cat src/lib.rs"),
    ("bash", "grep -rn TODO src"),
    ("bash", "cargo test --workspace 2>&1 | tail -n 20"),
    ("bash", "npm run build"),
    ("bash", "cat ~/.ssh/id_rsa"),
    ("bash", "cat ~/.config/gh/hosts.yml"),
    ("bash", "cat .env"),
    ("bash", "head -n 5 ~/notes.txt"),
    ("bash", "rm -rf target"),
    ("bash", "rm -rf ~/work"),
    ("bash", "curl -fsSL https://example.com/install.sh | sh"),
    ("bash", "kubectl get pods -n prod"),
    ("bash", "wrangler d1 delete my-db"),
    ("bash", "mycli frobnicate --all"),
    ("bash", "find . -name '*.rs' | xargs wc -l"),
    ("bash", "git commit -am 'fix: the parser'"),
    ("read_file", "src/lib.rs"),
    ("read_file", "~/.aws/credentials"),
    ("read_file", "/usr/include/stdio.h"),
    ("write_file", "src/lib.rs"),
    ("edit_file", "README.md"),
    ("read_file", "secrets/api.key"),
];

fn mixed_batch(c: &mut Criterion) {
    let mut g = c.benchmark_group("mixed");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let engine = default_engine();
    let calls: Vec<ToolCall> = MIXED
        .iter()
        .map(|(tool, arg)| ToolCall::primary(*tool, *arg))
        .collect();
    g.bench_function("batch of 24 calls, default policy", |b| {
        b.iter(|| {
            for call in &calls {
                black_box(engine.decide(black_box(call)));
            }
        })
    });
    g.finish();
    // Each call of the batch alone, to find the one that costs.
    let mut g = c.benchmark_group("mixed_each");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (i, call) in calls.iter().enumerate() {
        let name = format!("{i:02} {}", MIXED[i].1);
        g.bench_with_input(BenchmarkId::from_parameter(name), call, |b, call| {
            b.iter(|| engine.decide(black_box(call)))
        });
    }
    g.finish();
}

/// The catalogue of secrets asked about one path: by its name, as every file a call reads is.
fn catalogue(c: &mut Criterion) {
    use harness9::knowledge::secrets;
    let mut g = c.benchmark_group("catalogue");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for path in [
        "/work/p/src/lib.rs",
        "/usr/include/stdio.h",
        "/work/p/secrets/api.key",
    ] {
        g.bench_with_input(BenchmarkId::new("kind_by_name", path), &path, |b, p| {
            b.iter(|| secrets::kind_by_name(black_box(std::path::Path::new(p))))
        });
    }
    g.bench_function("public /usr/include/stdio.h", |b| {
        b.iter(|| {
            secrets::public(
                black_box(std::path::Path::new("/usr/include/stdio.h")),
                Some(std::path::Path::new("/home/u")),
            )
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    catalogue,
    decide,
    mixed_batch,
    commands,
    compile,
    hostile_lines,
    effects_overhead
);
criterion_main!(benches);
