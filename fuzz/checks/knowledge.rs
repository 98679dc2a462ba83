//! What the `knowledge` fuzz target checks, shared by `fuzz/fuzz_targets/knowledge.rs` and by
//! `tests/fuzz_seeds.rs` (which replays `fuzz/seeds/knowledge/`), both including this file by
//! path.
//!
//! An input is one of two things:
//!
//! - a command line (any input not starting with [`TOML_MARKER`]): analysed by the shell
//!   analysis, every simple command read with the program knowledge, and the readings checked
//!   against what the knowledge promises (see [`command_line`]);
//! - after a leading [`TOML_MARKER`] byte, a program table: loaded with
//!   `Registry::load`, which must report mistakes rather than panic, and every program it
//!   gives checked for a consistent option index and fed its own examples (see [`table`]).
#![allow(dead_code)]

use std::sync::OnceLock;

use harness9::knowledge::{self, Effect, Long, Program, Reading, Registry, Role};
use harness9::shell::{self, Analysis, Redirect, SimpleCommand};
use harness9::{Action, Engine, Mode, PathContext, ToolCall};

/// The first byte of an input that is a program table rather than a command line.
pub const TOML_MARKER: u8 = 0;

/// Longest command line checked: the engine decides each line several times.
const MAX_LINE: usize = 16 * 1024;

/// The engine with the shipped default policy, in folders that do not exist (so that no
/// decision depends on the machine's files), built once.
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        Engine::builder()
            .context(PathContext::new(
                "/nonexistent-harness9-fuzz/work",
                Some("/nonexistent-harness9-fuzz/home".into()),
            ))
            .default_policy()
            .build()
            .unwrap_or_else(|e| panic!("the default policy loads: {e:?}"))
    })
}

/// The whole check on one input.
pub fn knowledge(data: &[u8]) {
    match data.split_first() {
        Some((&TOML_MARKER, rest)) => {
            if let Ok(text) = std::str::from_utf8(rest) {
                table(text);
            }
        }
        _ => {
            if let Ok(line) = std::str::from_utf8(data) {
                if line.len() <= MAX_LINE {
                    command_line(line);
                }
            }
        }
    }
}

/// A command line: every simple command read with the knowledge, and the knowledge's answers
/// checked against each other and against the engine with the default policy.
pub fn command_line(line: &str) {
    let analysis = shell::analyse(line);
    let ok = analysis.failure.is_none();
    for cmd in &analysis.commands {
        simple_command(cmd, line);
        if ok {
            carried_code_is_analysed(cmd, &analysis, line);
        }
    }

    // `changes_shell_state` looks at one command at a time: the line changes the state when
    // one of its commands does.
    let state = knowledge::changes_shell_state(&analysis.commands);
    let one_by_one = analysis
        .commands
        .iter()
        .any(|c| knowledge::changes_shell_state(std::slice::from_ref(c)).is_some());
    assert_eq!(
        state.is_some(),
        one_by_one,
        "changes_shell_state of the whole line ({state:?}) and of its commands one by one \
         ({one_by_one}) disagree on {line:?}"
    );

    effects_hold(&analysis, line);

    let all_read_only = ok
        && !analysis.commands.is_empty()
        && state.is_none()
        && analysis.commands.iter().all(knowledge::reads_only);

    let engine = engine();
    let call = ToolCall::primary("bash", line);
    let decision = engine.decide_in_mode(&call, Mode::Default);
    let read_only_mode = engine.decide_in_mode(&call, Mode::ReadOnly);
    let is_read_only = engine.is_read_only(&call);

    if let Some(why) = &state {
        // A line that changes `PATH`, `HOME`, … makes every command in it unknown: no allow.
        assert_ne!(
            decision.action,
            Action::Allow,
            "the default policy allows {line:?}, which changes the shell state ({why}): \
             {decision:?}"
        );
        assert_ne!(
            read_only_mode.action,
            Action::Allow,
            "read-only mode allows {line:?}, which changes the shell state ({why})"
        );
        assert!(
            !is_read_only,
            "the engine calls {line:?} read-only, but it changes the shell state ({why})"
        );
    }
    // The default policy allows only through `allow bash(read_only)` (the built-in policy
    // has no allow rules): an allow means every command reads only.
    if decision.action == Action::Allow {
        assert!(
            all_read_only,
            "the default policy allows {line:?}, but not every command of it reads only by \
             the knowledge: {decision:?}\n{}",
            describe(&analysis)
        );
    }
    if read_only_mode.action == Action::Allow {
        assert!(
            all_read_only,
            "read-only mode allows {line:?}, but not every command of it reads only"
        );
    }
    // A command whose verb destroys (`wrangler d1 delete`, `kubectl delete`) is never
    // approved without a person, in any mode.
    let auto = engine.decide_in_mode(&call, Mode::AutoApprove);
    if let Some(cmd) = analysis.commands.iter().find(|c| {
        knowledge::verbs::classify(c).is_some_and(|r| r.class == knowledge::verbs::Class::Destroy)
    }) {
        assert_ne!(
            auto.action,
            Action::Allow,
            "auto-approve allows {line:?}, whose `{}` destroys: {auto:?}",
            cmd.program()
        );
    }

    // `Engine::is_read_only` is `readonly.policy` (`allow bash(read_only) unless (secret) unless
    // (outside)`) over every command: it may refuse a line the knowledge reads as read-only
    // (a read of a secret, or of a place outside the project, such as a glob that may reach
    // one), never the other way round.
    if is_read_only {
        assert!(
            all_read_only,
            "Engine::is_read_only is true but the knowledge does not read {line:?} as \
             read-only\n{}",
            describe(&analysis)
        );
    }

    // The same line after an assignment to `PATH` (or `HOME`) on a line of its own: the
    // assignment changes the state, so nothing in the line may be allowed any more.
    if ok && !analysis.commands.is_empty() {
        let var = if line.len().is_multiple_of(2) {
            "PATH"
        } else {
            "HOME"
        };
        let prefixed = format!("{var}=/tmp/fuzz\n{line}");
        let again = shell::analyse(&prefixed);
        if again.failure.is_none() {
            let why = knowledge::changes_shell_state(&again.commands);
            assert!(
                why.is_some(),
                "`{var}=/tmp/fuzz` before {line:?} is not seen as a change of the shell state"
            );
            let d = engine.decide_in_mode(&ToolCall::primary("bash", &prefixed), Mode::Default);
            assert_ne!(
                d.action,
                Action::Allow,
                "the default policy allows {prefixed:?}, which changes `{var}`: {d:?}"
            );
        }
    }
}

/// The effects model on every command of a line: it never panics; a command that only reads
/// does nothing but read and fetch; an effect the built-in policy asks about with high risk
/// keeps the line from being allowed, in `auto-approve` mode too.
fn effects_hold(analysis: &Analysis, line: &str) {
    use knowledge::effects::{self, Kind, Line, Places};
    const HIGH: [Kind; 8] = [
        Kind::NetworkUpload,
        Kind::RunRemoteCode,
        Kind::RunCode,
        Kind::Persist,
        Kind::Privilege,
        Kind::DeleteHistory,
        Kind::InfraChange,
        Kind::DeleteOutside,
    ];
    let ctx = PathContext::new(
        "/nonexistent-harness9-fuzz/work",
        Some("/nonexistent-harness9-fuzz/home".into()),
    );
    let resolve = |raw: &str| ctx.resolve(raw);
    let places = Places {
        cwd: &ctx.cwd,
        home: ctx.home.as_deref(),
        resolve: &resolve,
    };
    let mut facts = Line::default();
    let mut high = None;
    for cmd in &analysis.commands {
        let found = effects::of(cmd, &Reading::of(cmd), &places, &facts);
        facts.note(cmd, &places);
        if knowledge::reads_only(cmd) {
            assert!(
                found
                    .iter()
                    .all(|f| matches!(f.kind, Kind::Read | Kind::NetworkFetch)),
                "{:?} of {line:?} reads only, yet has the effects {found:?}",
                cmd.words(shell::View::Literal)
            );
        }
        if let Some(f) = found.iter().find(|f| HIGH.contains(&f.kind)) {
            high.get_or_insert(f.clone());
        }
    }
    if let Some(f) = high {
        let call = ToolCall::primary("bash", line);
        let d = engine().decide_in_mode(&call, Mode::AutoApprove);
        assert_ne!(
            d.action,
            Action::Allow,
            "auto-approve allows {line:?}, which has the effect {f}: {d:?}"
        );
    }
}

/// The checks on one simple command and its reading.
fn simple_command(cmd: &SimpleCommand, line: &str) {
    let reading = Reading::of(cmd);
    let reads_only = knowledge::reads_only(cmd);
    let reading_reads_only = reading.reads_only();
    let carried = reading.carried();
    let ctx = || format!("{line:?}, command {:?}", cmd.words(shell::View::Literal));

    reading_is_consistent(cmd, &reading, &ctx);

    // `Reading::reads_only` holds only for a reading that understood everything, of a
    // read-only program (or subcommand), with options and operands that only read.
    if reading_reads_only {
        assert!(
            reading.unknown.is_empty(),
            "a reading with unknown parts {:?} reads only: {}",
            reading.unknown,
            ctx()
        );
        let node = reading
            .node
            .unwrap_or_else(|| panic!("a reading without a program reads only: {}", ctx()));
        assert!(
            node.readonly,
            "`{}` is not read-only, yet a reading of it is: {}",
            node.name,
            ctx()
        );
        for u in &reading.options {
            match u.spec {
                Some(spec) => {
                    assert!(
                        spec.reads_only(),
                        "option `{}` ({:?}) does more than read, yet the reading reads only: {}",
                        u.written,
                        spec.names,
                        ctx()
                    );
                }
                None => assert!(
                    u.written.len() > 1 && u.written[1..].bytes().all(|b| b.is_ascii_digit()),
                    "option `{}` is not in the table, yet the reading reads only: {}",
                    u.written,
                    ctx()
                ),
            }
        }
        for effect in [
            Effect::Write,
            Effect::Delete,
            Effect::Run,
            Effect::Network,
            Effect::System,
        ] {
            assert!(
                !reading.has_effect(effect),
                "an option with effect {effect:?} is given, yet the reading reads only: {}",
                ctx()
            );
        }
        for o in &reading.operands {
            let role = o.role.unwrap_or_else(|| {
                panic!(
                    "operand `{}` has no role, yet the reading reads only: {}",
                    o.word.value,
                    ctx()
                )
            });
            for r in std::iter::once(role).chain(o.roles.iter().copied()) {
                assert!(
                    !matches!(r, Role::Write | Role::Program | Role::Code | Role::Config),
                    "operand `{}` may be in the role {r:?}, yet the reading reads only: {}",
                    o.word.value,
                    ctx()
                );
                if matches!(r, Role::Read | Role::Chdir) && !o.word.value.starts_with("<(") {
                    assert!(
                        !o.word.dynamic,
                        "operand `{}` read as a path is computed, yet the reading reads only: {}",
                        o.word.value,
                        ctx()
                    );
                    assert!(
                        !computed_path(&o.word.value),
                        "operand `{}` read as a path leads wherever a process is, yet the \
                         reading reads only: {}",
                        o.word.value,
                        ctx()
                    );
                }
            }
        }
        // Options that carry code (roles program, code, config) never read only.
        assert!(
            carried.is_empty(),
            "the options carry code {carried:?}, yet the reading reads only: {}",
            ctx()
        );
    }

    // Assignments alone read only by the knowledge (see `only_assigns`), with no reading.
    if reads_only && !cmd.argv.is_empty() {
        assert!(
            reading_reads_only,
            "knowledge::reads_only without Reading::reads_only: {}",
            ctx()
        );
        let first = cmd.argv.first().unwrap_or_else(|| {
            panic!("a command without words reads only: {}", ctx());
        });
        assert!(
            !first.dynamic,
            "a command whose program is computed reads only: {}",
            ctx()
        );
        assert!(
            !first.value.contains('/'),
            "a command whose program is named by a path reads only: {}",
            ctx()
        );
        assert!(
            reading.program.is_some(),
            "a program the tables do not know reads only: {}",
            ctx()
        );
        for a in &cmd.assignments {
            let name = a.split(['=', '+', '[']).next().unwrap_or(a);
            assert!(
                !risky_variable(name),
                "a command given `{a}` reads only: {}",
                ctx()
            );
            assert!(
                a.contains('='),
                "a command given the assignment `{a}` without a value reads only: {}",
                ctx()
            );
        }
        for r in &cmd.redirects {
            assert!(
                !writes_a_file(r),
                "a command redirected `{} {}` (to a file) reads only: {}",
                r.op,
                r.target.value,
                ctx()
            );
            assert!(
                r.op.as_str() != "<>",
                "a command opening `<>` reads only: {}",
                ctx()
            );
            if !r.op.as_str().starts_with("<<") && !is_fd_dup(r) {
                assert!(
                    !r.target.dynamic,
                    "a command redirected to a computed target `{}` reads only: {}",
                    r.target.value,
                    ctx()
                );
                assert!(
                    r.writes() || !computed_path(&r.target.value),
                    "a command reading `{}` (a connection or another process's folder) reads \
                     only: {}",
                    r.target.value,
                    ctx()
                );
            }
        }
    }
}

/// The structure of a reading: its indices point into the command's words, its subcommand
/// path names the node it reached, its options answer `has_flag` and `value_of`.
fn reading_is_consistent(cmd: &SimpleCommand, r: &Reading<'_>, ctx: &dyn Fn() -> String) {
    let argv = &cmd.argv;
    let Some(first) = argv.first() else {
        assert!(
            r.program.is_none()
                && r.node.is_none()
                && r.options.is_empty()
                && r.operands.is_empty()
                && !r.reads_only(),
            "a command without words has a reading: {}",
            ctx()
        );
        // Assignments alone (`n=1`) change only variables, which the line's values follow;
        // with nothing to assign, there is nothing that reads.
        assert!(
            !knowledge::reads_only(cmd) || !cmd.assignments.is_empty(),
            "a command without words or assignments reads only"
        );
        return;
    };
    if first.dynamic {
        assert!(
            r.program.is_none() && !r.unknown.is_empty() && !r.reads_only(),
            "a command whose program is computed is read with a table: {}",
            ctx()
        );
        return;
    }
    let known = knowledge::registry().get(cmd.program());
    match (r.program, known) {
        (Some(p), Some(k)) => assert!(
            std::ptr::eq(p, k),
            "the reading's program is not the registry's `{}`: {}",
            cmd.program(),
            ctx()
        ),
        (None, None) => {}
        (p, k) => panic!(
            "the reading has a program: {}, the registry knows `{}`: {}; {}",
            p.is_some(),
            cmd.program(),
            k.is_some(),
            ctx()
        ),
    }
    if let (Some(program), Some(node)) = (r.program, r.node) {
        let mut name = program.name.clone();
        let mut at = program;
        for word in &r.path {
            name.push(' ');
            name.push_str(word);
            at = at.sub.get(word).unwrap_or_else(|| {
                panic!(
                    "the subcommand path {:?} leaves the table: {}",
                    r.path,
                    ctx()
                )
            });
        }
        assert!(
            std::ptr::eq(at, node) && node.name == name,
            "the reading reached `{}` by the path {:?} (expected `{name}`): {}",
            node.name,
            r.path,
            ctx()
        );
        assert!(
            r.path.len() < argv.len(),
            "a longer path than words: {}",
            ctx()
        );
    } else {
        assert!(
            r.node.is_none() && r.path.is_empty(),
            "a subcommand without a program: {}",
            ctx()
        );
    }

    let mut last = 0;
    for o in &r.operands {
        assert!(
            o.at >= 1 && o.at < argv.len() && std::ptr::eq(o.word, &argv[o.at]),
            "operand `{}` is not the command's word {}: {}",
            o.word.value,
            o.at,
            ctx()
        );
        assert!(
            o.at > last,
            "operands are not in order at {}: {}",
            o.at,
            ctx()
        );
        last = o.at;
        if !o.roles.is_empty() {
            // A word that may become several words fills its own position's role too.
            if let Some(role) = o.role {
                assert!(
                    o.roles.contains(&role),
                    "operand `{}`: its role {role:?} is not among the roles {:?}: {}",
                    o.word.value,
                    o.roles,
                    ctx()
                );
            }
        }
    }
    for u in &r.options {
        assert!(
            u.at >= 1 && u.at < argv.len(),
            "option `{}` at word {} of {}: {}",
            u.written,
            u.at,
            argv.len(),
            ctx()
        );
        assert!(
            r.operands.iter().all(|o| o.at != u.at),
            "word {} is both an option (`{}`) and an operand: {}",
            u.at,
            u.written,
            ctx()
        );
        if let Some(v) = &u.value {
            let own = std::ptr::eq(v.word, &argv[u.at]);
            let next = argv.get(u.at + 1).is_some_and(|w| std::ptr::eq(v.word, w));
            assert!(
                own || next,
                "the value `{}` of option `{}` is neither its word nor the next: {}",
                v.text,
                u.written,
                ctx()
            );
            if next && !own {
                assert!(
                    r.operands.iter().all(|o| o.at != u.at + 1),
                    "word {} is both the value of `{}` and an operand: {}",
                    u.at + 1,
                    u.written,
                    ctx()
                );
            }
        }
        if let Some(spec) = u.spec {
            if !u.negated {
                for n in &spec.names {
                    assert!(
                        r.has_flag(n, false),
                        "option `{}` was read as {:?}, but has_flag({n:?}) is false: {}",
                        u.written,
                        spec.names,
                        ctx()
                    );
                }
                if u.value.is_some() {
                    let names: Vec<&str> = spec.names.iter().map(String::as_str).collect();
                    assert!(
                        r.value_of(&names).is_some(),
                        "option `{}` has a value, but value_of({names:?}) has none: {}",
                        u.written,
                        ctx()
                    );
                }
            }
        } else {
            assert!(
                u.candidates.len() != 1,
                "option `{}` has exactly one candidate but no spec: {}",
                u.written,
                ctx()
            );
        }
    }
}

/// Code an option carries is a command of its own in the analysis, so that the outer
/// program's allow never covers it: a computed one is a command with a computed program, a
/// static one's commands are among the line's.
fn carried_code_is_analysed(cmd: &SimpleCommand, analysis: &Analysis, line: &str) {
    if cmd.argv.first().is_none_or(|w| w.dynamic) {
        return;
    }
    let reading = Reading::of(cmd);
    for c in reading.carried() {
        if c.dynamic {
            assert!(
                analysis
                    .commands
                    .iter()
                    .any(SimpleCommand::computed_program),
                "{line:?}: the computed code {:?} carried by `{}` is not a computed command \
                 in the analysis\n{}",
                c.text,
                cmd.program(),
                describe(analysis)
            );
            continue;
        }
        let inner = shell::analyse(&c.text);
        if inner.failure.is_some() {
            continue;
        }
        for ic in &inner.commands {
            let want = words(ic);
            assert!(
                analysis.commands.iter().any(|a| words(a) == want),
                "{line:?}: the code {:?} carried by `{}` runs {want:?}, which is not among \
                 the analysed commands\n{}",
                c.text,
                cmd.program(),
                describe(analysis)
            );
        }
    }
}

fn words(c: &SimpleCommand) -> Vec<&str> {
    c.argv.iter().map(|w| w.value.as_str()).collect()
}

fn describe(a: &Analysis) -> String {
    let mut out = format!("failure: {:?}\n", a.failure);
    for c in &a.commands {
        let r = Reading::of(c);
        out.push_str(&format!(
            "  {:?} {:?} redirects {:?} origin {:?} reads_only {} unknown {:?}\n",
            c.assignments,
            c.argv
                .iter()
                .map(|w| (w.value.as_str(), w.dynamic))
                .collect::<Vec<_>>(),
            c.redirects
                .iter()
                .map(|r| format!("{}{}", r.op, r.target.value))
                .collect::<Vec<_>>(),
            c.origin,
            knowledge::reads_only(c),
            r.unknown
        ));
    }
    out
}

/// `2>&1`, `>&-`: a redirection that copies or closes a descriptor.
fn is_fd_dup(r: &Redirect) -> bool {
    let t = r.target.value.as_str();
    r.op.as_str().ends_with('&')
        && !r.target.dynamic
        && !t.is_empty()
        && (t == "-" || t.bytes().all(|b| b.is_ascii_digit()))
}

/// A redirection that writes a file: not a descriptor copy, not a device that shows or
/// discards output.
fn writes_a_file(r: &Redirect) -> bool {
    let devices = ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];
    r.writes()
        && !r.op.as_str().starts_with("<<")
        && !is_fd_dup(r)
        && !r.target.value.is_empty()
        && (r.target.dynamic || !devices.contains(&r.target.value.as_str()))
}

/// A path that leads wherever a process is, or opens a connection.
fn computed_path(p: &str) -> bool {
    ["/dev/tcp/", "/dev/udp/", "/dev/fd/"]
        .iter()
        .any(|d| p.starts_with(d))
        || ["~+", "~-"]
            .iter()
            .any(|t| p == *t || p.starts_with(&format!("{t}/")))
        || p.starts_with("/proc/self/cwd")
        || p.starts_with("/proc/self/root")
}

/// Variables that change what a command runs or where its paths lead.
fn risky_variable(name: &str) -> bool {
    knowledge::STATE_VARIABLES.contains(&name)
        || ["LD_", "DYLD_", "GIT_", "BASH_FUNC_"]
            .iter()
            .any(|p| name.starts_with(p))
        || name.contains("PAGER")
        || name.contains("EDITOR")
        || matches!(
            name,
            "SHELLOPTS" | "BASHOPTS" | "PS4" | "PROMPT_COMMAND" | "NODE_OPTIONS" | "PERL5OPT"
        )
        || name.starts_with("PYTHON")
}

/// A program table: loading reports mistakes and never panics; every program it gives has an
/// option index that finds every option by each of its names, and is fed its own examples.
pub fn table(text: &str) {
    let reg = Registry::load(&[("fuzz.toml", text)]);
    registry_is_consistent(&reg);
    for program in reg.programs() {
        let mut nodes = Vec::new();
        walk(program, &mut nodes);
        for node in nodes {
            for e in node
                .examples
                .readonly
                .iter()
                .chain(&node.examples.not_readonly)
            {
                example(node, e);
            }
        }
    }
}

/// The shipped tables pass the same checks.
pub fn shipped_tables() {
    registry_is_consistent(knowledge::registry());
}

fn registry_is_consistent(reg: &Registry) {
    let errors = reg.errors();
    for program in reg.programs() {
        let got = reg.get(&program.name).unwrap_or_else(|| {
            panic!(
                "`{}` is loaded but not found by its name ({:?})",
                program.name, errors
            )
        });
        if errors.is_empty() {
            assert!(
                std::ptr::eq(got, program),
                "`{}` finds another program",
                program.name
            );
        }
        let mut nodes = Vec::new();
        walk(program, &mut nodes);
        for node in nodes {
            options_are_indexed(node);
        }
    }
}

fn walk<'p>(p: &'p Program, out: &mut Vec<&'p Program>) {
    out.push(p);
    for s in p.sub.values() {
        walk(s, out);
    }
}

/// Every name of every option finds that option: a long name exactly (an exact name is never
/// an ambiguous abbreviation), a one-letter name as a short option, any other as written.
fn options_are_indexed(p: &Program) {
    for spec in &p.options {
        assert!(
            !spec.names.is_empty(),
            "`{}`: an option without a name",
            p.name
        );
        for n in &spec.names {
            let found = if let Some(long) = n.strip_prefix("--") {
                match p.long(long) {
                    Long::Found(s) => Some(s),
                    other => panic!("`{}`: `{n}` looks up as {other:?}", p.name),
                }
            } else if let Some(short) = n.strip_prefix('-') {
                let mut chars = short.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => p.short(c),
                    _ => p.single_dash(n),
                }
            } else {
                p.single_dash(n)
            };
            let found = found.unwrap_or_else(|| panic!("`{}`: `{n}` is not found", p.name));
            assert!(
                std::ptr::eq(found, spec),
                "`{}`: `{n}` finds {:?}, not {:?}",
                p.name,
                found.names,
                spec.names
            );
        }
    }
    for name in p.long_names() {
        assert!(
            !matches!(p.long(name), Long::Unknown | Long::Ambiguous(_)),
            "`{}`: the long name `{name}` is not found",
            p.name
        );
    }
}

/// An example of a loaded table: analysed, and each of its option words looked up in the
/// table's program, without panicking; the line itself goes through the command-line checks
/// (read with the shipped tables).
fn example(node: &Program, e: &str) {
    if e.len() > MAX_LINE {
        return;
    }
    let analysis = shell::analyse(e);
    for cmd in &analysis.commands {
        for w in cmd.argv.iter().skip(1) {
            let v = w.value.as_str();
            if let Some(long) = v.strip_prefix("--") {
                let name = long.split_once('=').map_or(long, |(n, _)| n);
                let _ = node.long(name);
            } else if let Some(cluster) = v.strip_prefix('-') {
                let _ = node.single_dash(v);
                for c in cluster.chars() {
                    let _ = node.short(c);
                }
            }
        }
    }
    command_line(e);
}
