//! What hovering shows: a rule in words (the calls it matches, what it does with them, and
//! which built-in rules it takes the place of), an effect's meaning, and what the other
//! statements do.

use std::fmt::Write;
use std::path::Path;

use crate::call::{is_file_tool, Action, Decision, Risk, RuleRef};
use crate::diag::Source;
use crate::engine::{rule::default_risk, Engine, PathContext};
use crate::knowledge::effects::Kind;
use crate::lint::expect_call;
use crate::policy::ast::{
    DefaultStmt, Expect, Include, Matcher, MatcherKind, Protect, Rule, Span, Statement,
};
use crate::policy::print::print_statement;
use crate::policy::{self, parse_policy, Origin};

/// The name of the built-in danger rules' policy.
const BUILTIN: &str = "builtin.policy";

/// The hover at a byte offset of a policy file's text: the span it is about and its text
/// (Markdown). `None` where there is nothing to say (a comment, blank space).
pub fn hover(name: &str, text: &str, offset: usize, ctx: &PathContext) -> Option<(Span, String)> {
    let source = Source::new(name, text);
    let (file, _) = parse_policy(&source);
    let stmt = file
        .statements
        .iter()
        .find(|s| s.span().start <= offset && offset <= s.span().end)?;
    let engine = || {
        Engine::builder()
            .context(ctx.clone())
            .policy_text(name, text)
            .build()
            .ok()
    };
    match stmt {
        Statement::Rule(r) => {
            if let Some((span, kind)) = effect_at(r, offset) {
                return Some((span, describe_effect(kind)));
            }
            let line = source.line(r.span.start);
            let label = RuleRef::file(name, line);
            let mut out = describe_rule(r);
            out.push_str("\n\n");
            out.push_str(&overrides_section(r, engine().as_ref(), &label));
            Some((r.span, out))
        }
        Statement::Default(d) => Some((d.span, describe_default(d))),
        Statement::Headless(d) => Some((d.span, describe_headless(d))),
        Statement::Include(i) => Some((i.span, describe_include(name, i))),
        Statement::Protect(p) => Some((p.span, describe_protect(p))),
        Statement::Expect(e) => Some((e.span, describe_expect(e, engine))),
        other => Some((other.span(), format!("`{}`", print_statement(other)))),
    }
}

fn describe_default(d: &DefaultStmt) -> String {
    let risk = d
        .risk
        .as_ref()
        .map_or(default_risk(d.action.value), |r| r.value);
    format!(
        "**default**: a call that no rule of any policy file matches, and no \
         built-in rule either, is {} ({risk} risk).",
        done(d.action.value)
    )
}

fn describe_headless(d: &DefaultStmt) -> String {
    let risk = d
        .risk
        .as_ref()
        .map_or("every".to_string(), |r| r.value.to_string());
    // Nobody can be asked: an ask there is a deny.
    let action = match d.action.value {
        Action::Ask => Action::Deny,
        a => a,
    };
    format!(
        "**headless**: where nobody can answer (a runtime without an approval \
         channel), an ask of {risk} risk is {} instead.",
        done(action)
    )
}

/// An `include` of the policy named `name`: where it reads, and whether that file is there.
fn describe_include(name: &str, i: &Include) -> String {
    let target = include_target(name, &i.path.value);
    let state = if target.is_file() {
        "; go to definition opens it"
    } else {
        ", but there is no such file: the policy does not load until there is"
    };
    format!(
        "**include**: the statements of `{}` take this statement's place{state}.",
        target.display()
    )
}

fn describe_protect(p: &Protect) -> String {
    format!(
        "**protect**: a hard protection. Every call that reads or writes `{}` or \
         anything under it (after resolving `~`, `..` and symlinks) is denied; no rule, \
         mode or approval lifts it.",
        p.path.value
    )
}

/// An `expect` test, and what the policy decides for its call now (when `engine` loads it).
fn describe_expect(e: &Expect, engine: impl FnOnce() -> Option<Engine>) -> String {
    let call = expect_call(e);
    let mut out = format!(
        "**expect**: a test that `harness9 test` and `harness9 lint` run: the policy \
         must {} this call",
        e.action.value
    );
    if let Some(r) = &e.risk {
        let _ = write!(out, " with {} risk", r.value);
    }
    out.push('.');
    if let Some(engine) = engine() {
        let d = engine.decide(&call);
        let _ = write!(
            out,
            "\n\nNow: {} ({} risk) by `{}`: {}",
            d.action, d.risk, d.rule, d.reason
        );
    }
    out
}

/// The file an `include` of a policy named `name` reads.
pub fn include_target(name: &str, include: &str) -> std::path::PathBuf {
    Path::new(name)
        .parent()
        .unwrap_or(Path::new(""))
        .join(include)
}

/// The effect named by an `effect` matcher's value under the offset.
fn effect_at(r: &Rule, offset: usize) -> Option<(Span, Kind)> {
    r.matchers
        .iter()
        .flatten()
        .chain(r.unless.iter().flatten())
        .filter(|m| m.kind == MatcherKind::Effect)
        .flat_map(|m| &m.values)
        .find(|v| v.span.start <= offset && offset <= v.span.end)
        .and_then(|v| Some((v.span, Kind::parse(&v.value)?)))
}

/// What a matcher kind compares, in a few words.
pub fn matcher_summary(kind: MatcherKind) -> &'static str {
    match kind {
        MatcherKind::Shorthand => {
            "a glob when it holds `*`, else a substring (settings.json's form)"
        }
        MatcherKind::Prefix => {
            "the command's words start with these words; for a path, inside this folder"
        }
        MatcherKind::Glob => "a glob over the command text or the absolute path",
        MatcherKind::Contains => "a substring of the command text or the path",
        MatcherKind::Regex => "a regular expression over the command text or the path",
        MatcherKind::Exact => "the whole command text or path, exactly",
        MatcherKind::Path => {
            "any path the command reads or writes (an allow: every one, all known); a file tool's path"
        }
        MatcherKind::Program => "the program (a glob), its folder stripped",
        MatcherKind::Flag => "a short flag (also inside `-rf`) or a long one (also `--force=…`)",
        MatcherKind::Argument => "any argument of the command",
        MatcherKind::Operand => "any operand (an argument that is not an option)",
        MatcherKind::Subcommand => "the first operand (`git -C dir reset`: `reset`)",
        MatcherKind::Redirect => "an output redirection's target (an allow: every one, all known)",
        MatcherKind::Piped => "the command reads from a pipe",
        MatcherKind::SelfCall => "the command calls the function it is defined in",
        MatcherKind::ReadOnly => "the command only reads (by the program knowledge)",
        MatcherKind::Unknown => "the analysis cannot say what the command does whole",
        MatcherKind::Secret => "the call reads a secret file (by the catalogue of secrets)",
        MatcherKind::Outside => "the call reads outside the project, where secrets may be",
        MatcherKind::Disposable => "every path the command deletes is a build output or temporary",
        MatcherKind::Host => "the hosts a command names or sends to; a URL's host",
        MatcherKind::Effect => "what the command does, by the effects model",
    }
}

/// What a rule matches and does, in words (Markdown).
pub fn describe_rule(r: &Rule) -> String {
    let action = r.action.value;
    let risk = r.risk.as_ref().map_or(default_risk(action), |x| x.value);
    let tool = &*r.tool.value;
    let mut out = format!("**{action}** rule, {risk} risk: ");
    let tools = if tool.chars().all(|c| c == '*') {
        "every tool".to_string()
    } else if tool.contains(['*', '?']) {
        format!("every tool whose name matches `{tool}`")
    } else {
        format!("`{tool}`")
    };
    let matchers = r.matchers.as_deref().unwrap_or(&[]);
    let calls = format!("calls of {tools}");
    if matchers.is_empty() {
        let _ = write!(out, "{} every call of {tools}", verb(action));
        if r.unless.is_empty() {
            out.push('.');
        }
    } else {
        let _ = write!(out, "{} {calls} where", verb(action));
        if matchers.len() > 1 {
            out.push_str(" all of these hold");
        }
        out.push(':');
        for m in matchers {
            let _ = write!(out, "\n- {}", describe_matcher(m, tool, action));
        }
    }
    for group in &r.unless {
        out.push_str("\n\nexcept when");
        if group.len() > 1 {
            out.push_str(" all of these hold");
        }
        out.push(':');
        for m in group {
            let _ = write!(out, "\n- {}", describe_matcher(m, tool, action));
        }
    }
    if let Some(reason) = &r.reason {
        let _ = write!(out, "\n\nReason shown: {}", reason.value);
    }
    if action == Action::Sandbox {
        let profile = r
            .profile
            .as_ref()
            .map_or(crate::sandbox::DEFAULT_PROFILE, |p| &*p.value);
        let about = crate::sandbox::profile(profile).map_or("", |p| p.about);
        let _ = write!(
            out,
            "\n\nContained under the sandbox profile `{profile}` ({about}). The built-in rules \
             still count: what they ask about or deny stays asked or denied. Where the sandbox \
             is not available (`harness9 doctor` says why), the call is asked about instead."
        );
    }
    if tool == "bash" || tool.contains(['*', '?']) {
        out.push_str("\n\nEach simple command of a bash line (across `&&`, pipes, `$(…)`) is judged on its own; ");
        out.push_str(match action {
            Action::Allow => "an allow rule reads a command as written (`./ls` is not `ls`).",
            Action::Sandbox => {
                "a sandbox rule reads a command by its meaning (`/usr/bin/make` is `make`), and \
                 its exceptions either way."
            }
            Action::Deny | Action::Ask => {
                "a deny or ask rule reads a command by its meaning (`/bin/rm` and `FOO=1 rm` are `rm`)."
            }
        });
    }
    out
}

fn verb(action: Action) -> &'static str {
    match action {
        Action::Allow => "allows",
        Action::Sandbox => "runs contained (no network, writes to the project only)",
        Action::Ask => "asks a person about",
        Action::Deny => "denies",
    }
}

fn done(action: Action) -> &'static str {
    match action {
        Action::Allow => "allowed",
        Action::Sandbox => "run contained",
        Action::Ask => "asked about",
        Action::Deny => "denied",
    }
}

/// One matcher in words, for a rule of `tool` doing `action`.
pub fn describe_matcher(m: &Matcher, tool: &str, action: Action) -> String {
    let v = values_in_words(m);
    let command = tool == "bash";
    let path = is_file_tool(tool);
    let what = subject_in_words(m, command, path);
    let allow = action == Action::Allow;
    match m.kind {
        MatcherKind::Shorthand if path && m.arg.is_none() => {
            format!("the path matches the glob {v}")
        }
        MatcherKind::Shorthand => format!(
            "{what} matches {v} (a glob when it holds `*`, a trailing ` *` also matching the \
             words alone; else a substring)"
        ),
        MatcherKind::Prefix if path && m.arg.is_none() => {
            format!("the path is inside the folder {v}")
        }
        MatcherKind::Prefix => format!(
            "{what}'s words start with the words {v} (`git log -p` starts with `git log`, \
             `git logx` does not)"
        ),
        MatcherKind::Glob => format!("{what} matches the glob {v}"),
        MatcherKind::Contains => format!("{what} contains {v}"),
        MatcherKind::Regex => format!("{what} matches the regular expression {v}"),
        MatcherKind::Exact => format!("{what} is exactly {v}"),
        MatcherKind::Path if m.arg.is_some() => format!(
            "`path` after `arg` compares no path, so this never matches (use `glob` for {what})"
        ),
        MatcherKind::Path if path => format!("the path matches {v}"),
        MatcherKind::Path if command => {
            format!("a path the command reads or writes (arguments, redirections) matches {v}")
        }
        MatcherKind::Path => format!(
            "a path of the call matches {v} (only `bash` and the file tools have paths it reads)"
        ),
        MatcherKind::Program if allow => format!("the program, as written, is {v}"),
        MatcherKind::Program => format!("the program, its folder stripped, is {v}"),
        MatcherKind::Flag => format!(
            "the command has the flag {v} (a short flag also inside `-rf`, a long one also as \
             `--flag=…`; options end at `--`)"
        ),
        MatcherKind::Argument => format!("an argument of the command matches {v}"),
        MatcherKind::Operand => {
            format!("an operand (an argument that is not an option) matches {v}")
        }
        MatcherKind::Subcommand => format!("the subcommand (the first operand) matches {v}"),
        MatcherKind::Redirect => format!("an output redirection writes to {v}"),
        MatcherKind::Piped => "the command reads from a pipe".to_string(),
        MatcherKind::SelfCall => {
            "the command calls the function it is defined in (a fork bomb's shape)".to_string()
        }
        MatcherKind::ReadOnly => "the command only reads: a read-only program named literally, \
             every option known to only read, every path static"
            .to_string(),
        MatcherKind::Unknown => "the analysis cannot say what the command does whole: a \
             program, subcommand or option no table knows, or a value only known when it runs"
            .to_string(),
        MatcherKind::Secret => "the call reads a secret file: one the catalogue of secrets \
             knows by its name (`.env`, `*.key`) or its first line (a private key)"
            .to_string(),
        MatcherKind::Outside => "the call reads a path outside the project that the catalogue \
             of secrets does not know to hold nothing secret"
            .to_string(),
        MatcherKind::Disposable => "every path the command deletes is a build output or cache \
             inside the project, or inside a temporary folder"
            .to_string(),
        MatcherKind::Host if m.arg.is_some() => {
            format!("the host of the URL in {what} matches {v}")
        }
        MatcherKind::Host if allow => format!(
            "every host the command names or sends to matches {v} (in a command the effects \
             model vouches for)"
        ),
        MatcherKind::Host => format!("a host the command names or sends to matches {v}"),
        MatcherKind::Effect => effects_in_words(m, allow),
    }
}

/// A matcher's values: `` `one` ``, or `` one of `a`, `b` ``.
fn values_in_words(m: &Matcher) -> String {
    let values: Vec<&str> = m.values.iter().map(|v| &*v.value).collect();
    match values.as_slice() {
        [one] => format!("`{one}`"),
        many => format!(
            "one of {}",
            many.iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What a matcher compares: its argument, else the command, the path or the primary argument.
fn subject_in_words(m: &Matcher, command: bool, path: bool) -> String {
    match &m.arg {
        Some(a) => format!("the argument `{}`", a.value),
        None if command => "the command".to_string(),
        None if path => "the path".to_string(),
        None => "the call's primary argument (a command, or a file tool's path)".to_string(),
    }
}

/// An `effect` matcher: each effect with its meaning; for an allow, all the command does.
fn effects_in_words(m: &Matcher, allow: bool) -> String {
    let meanings: Vec<String> = m
        .values
        .iter()
        .map(|x| match Kind::ALL.iter().find(|(_, n, _)| *n == x.value) {
            Some((_, n, what)) => format!("`{n}` ({what})"),
            None => format!("`{}` (not an effect)", x.value),
        })
        .collect();
    if allow {
        format!(
            "every effect the command has is among {} (and the effects model vouches \
             that it sees all the command does)",
            meanings.join(", ")
        )
    } else {
        format!("the call has the effect {}", meanings.join(" or "))
    }
}

/// An effect's meaning, and the built-in rules that give risk by it (Markdown).
pub fn describe_effect(kind: Kind) -> String {
    let (name, what) = Kind::ALL
        .iter()
        .find(|(k, ..)| *k == kind)
        .map_or(("", ""), |(_, n, w)| (*n, *w));
    let mut out = format!("**effect `{name}`**: {what}.");
    let Ok(builtin) = policy::load(&Origin::Embedded(BUILTIN)) else {
        return out;
    };
    let mut rules = Vec::new();
    for (src, st) in &builtin.statements {
        let Statement::Rule(r) = st else { continue };
        let names_it = r
            .matchers
            .iter()
            .flatten()
            .any(|m| m.kind == MatcherKind::Effect && m.values.iter().any(|v| v.value == name));
        if names_it {
            let line = src.line(r.span.start);
            rules.push(format!(
                "- `{}` ({BUILTIN}:{line})",
                print_statement(&Statement::Rule(r.clone()))
            ));
        }
    }
    if rules.is_empty() {
        out.push_str("\n\nNo built-in rule gives risk by it.");
    } else {
        out.push_str("\n\nBuilt-in rules on it:\n");
        out.push_str(&rules.join("\n"));
    }
    out
}

/// One built-in rule a rule takes the place of, with a call it was seen on.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// `builtin.policy:40`.
    pub builtin_rule: RuleRef,
    /// The built-in rule as written, on one line (empty when it is not found).
    pub builtin_text: String,
    /// What the built-in layer alone decides.
    pub builtin: Decision,
    /// What the policy decides instead, by the rule.
    pub now: Decision,
    /// The commands (or paths) it was seen on.
    pub calls: Vec<String>,
}

/// The built-in rules whose decision the rule labelled `label` (`team.policy:3`) changes,
/// found with the built-in policy's own `expect` calls as probes: a probe the built-in layer
/// decides, and that this rule decides differently.
pub fn overridden_builtins(engine: &Engine, label: &RuleRef) -> Vec<Override> {
    let Ok(builtin) = policy::load(&Origin::Embedded(BUILTIN)) else {
        return Vec::new();
    };
    let mut out: Vec<Override> = Vec::new();
    for (_, st) in &builtin.statements {
        let Statement::Expect(e) = st else { continue };
        let call = expect_call(e);
        let by_builtin = engine.decide_builtin(&call);
        if by_builtin.rule.file_name() != Some(BUILTIN) {
            continue;
        }
        let now = engine.decide(&call);
        if now.rule != *label || now.strictness() == by_builtin.strictness() {
            continue;
        }
        let shown = call.primary_arg().unwrap_or(&call.name).to_string();
        match out.iter_mut().find(|o| o.builtin_rule == by_builtin.rule) {
            Some(o) => o.calls.push(shown),
            None => {
                let builtin_text = engine
                    .builtin_chain()
                    .and_then(|c| c.rules.iter().find(|r| r.origin.rule == by_builtin.rule))
                    .map(|r| r.text())
                    .unwrap_or_default();
                out.push(Override {
                    builtin_rule: by_builtin.rule.clone(),
                    builtin_text,
                    builtin: by_builtin,
                    now,
                    calls: vec![shown],
                });
            }
        }
    }
    out
}

/// The hover's part on built-in rules.
fn overrides_section(r: &Rule, engine: Option<&Engine>, label: &RuleRef) -> String {
    let Some(engine) = engine else {
        return "Which built-in rules it overrides is shown once the file loads without errors."
            .to_string();
    };
    let found = overridden_builtins(engine, label);
    if found.is_empty() {
        return "It silences or overrides no built-in danger rule (checked with the built-in \
                policy's `expect` calls)."
            .to_string();
    }
    let mut out = if r.action.value == Action::Allow {
        "**Built-in rules it silences** (what they ask about or deny, this rule allows):"
            .to_string()
    } else {
        "**Built-in rules it overrides** (this rule decides instead):".to_string()
    };
    const SHOWN: usize = 8;
    for o in found.iter().take(SHOWN) {
        let calls: Vec<String> = o.calls.iter().take(2).map(|c| format!("`{c}`")).collect();
        let by = if o.builtin_text.is_empty() {
            o.builtin_rule.to_string()
        } else {
            format!("`{}` ({})", o.builtin_text, o.builtin_rule)
        };
        let _ = write!(
            out,
            "\n- {}: {}, {} risk ({}) becomes {} ({} risk); by {by}",
            calls.join(", "),
            o.builtin.action,
            o.builtin.risk,
            o.builtin.reason,
            o.now.action,
            o.now.risk,
        );
    }
    if found.len() > SHOWN {
        let _ = write!(out, "\n- and {} more", found.len() - SHOWN);
    }
    if r.action.value == Action::Allow
        && found
            .iter()
            .any(|o| o.builtin.risk == Risk::High && o.builtin.action != Action::Allow)
    {
        out.push_str(
            "\n\nAdd `unless` exceptions for what should still be asked, or allow narrower commands.",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> PathContext {
        PathContext::new("/work/project", Some("/home/u".into()))
    }

    fn hover_on(text: &str, needle: &str) -> (Span, String) {
        let at = text.find(needle).expect("the needle is in the text");
        hover("/work/project/team.policy", text, at, &ctx()).expect("a hover")
    }

    #[test]
    fn hover_on_a_rule_says_what_it_matches_in_words() {
        let text =
            "allow bash(prefix \"git status\") unless flag \"--porcelain\" reason \"read-only\";\n";
        let (span, h) = hover_on(text, "bash");
        assert_eq!(span, Span::new(0, text.find(';').unwrap()));
        assert!(
            h.starts_with("**allow** rule, low risk: allows calls of `bash` where:"),
            "{h}"
        );
        assert!(
            h.contains("the command's words start with the words `git status`"),
            "{h}"
        );
        assert!(
            h.contains("except when:\n- the command has the flag `--porcelain`"),
            "{h}"
        );
        assert!(h.contains("Reason shown: read-only"), "{h}");
        assert!(h.contains("reads a command as written"), "{h}");
        assert!(
            h.contains("silences or overrides no built-in danger rule"),
            "{h}"
        );
    }

    #[test]
    fn hover_on_a_sandbox_rule_says_it_contains_under_its_profile_and_keeps_the_builtin_rules() {
        let text = "sandbox bash(prefix \"cargo test\") profile \"cargo\";\n";
        let (_, h) = hover_on(text, "bash");
        assert!(
            h.starts_with("**sandbox** rule, low risk: runs contained"),
            "{h}"
        );
        assert!(h.contains("sandbox profile `cargo`"), "{h}");
        assert!(h.contains("Cargo's registry"), "{h}");
        assert!(h.contains("The built-in rules still count"), "{h}");
        assert!(h.contains("asked about instead"), "{h}");
    }

    #[test]
    fn hover_on_a_broad_allow_names_the_high_risk_builtin_rules_it_silences() {
        let (_, h) = hover_on("allow bash(prefix \"git\");\n", "allow");
        assert!(h.contains("**Built-in rules it silences**"), "{h}");
        assert!(h.contains("`git push --force"), "{h}");
        assert!(h.contains("becomes allow (low risk)"), "{h}");
        assert!(h.contains("Add `unless` exceptions"), "{h}");
    }

    #[test]
    fn hover_on_a_low_risk_ask_names_the_builtin_rules_it_overrides() {
        let (_, h) = hover_on("ask bash(program \"rm\") risk low;\n", "ask");
        assert!(h.contains("**Built-in rules it overrides**"), "{h}");
        assert!(h.contains("ask, high risk"), "{h}");
        assert!(h.contains("becomes ask (low risk)"), "{h}");
    }

    #[test]
    fn hover_on_a_rule_without_matchers_covers_every_call() {
        let (_, h) = hover_on("allow mcp__github__*;\n", "allow");
        assert!(
            h.starts_with("**allow** rule, low risk: allows every call of every tool whose name matches `mcp__github__*`."),
            "{h}"
        );
        let (_, h) = hover_on("deny *() unless arg path glob \"/tmp/**\";\n", "deny");
        assert!(h.starts_with("**deny** rule, high risk: denies every call of every tool\n\nexcept when:\n- the argument `path` matches the glob `/tmp/**`"), "{h}");
    }

    #[test]
    fn hover_on_a_file_rule_describes_the_path() {
        let (_, h) = hover_on("deny read_file(\"secrets/**\", prefix \"/etc\");\n", "deny");
        assert!(
            h.starts_with(
                "**deny** rule, high risk: denies calls of `read_file` where all of these hold:"
            ),
            "{h}"
        );
        assert!(
            h.contains("- the path matches the glob `secrets/**`"),
            "{h}"
        );
        assert!(h.contains("- the path is inside the folder `/etc`"), "{h}");
        assert!(
            !h.contains("bash line"),
            "no word on commands for a file rule: {h}"
        );
    }

    #[test]
    fn hover_on_an_effect_name_gives_its_meaning_and_the_builtin_rules_on_it() {
        let text = "ask bash(effect [\"install\", \"network-upload\"]);\n";
        let (span, h) = hover_on(text, "network-upload");
        assert_eq!(&text[span.start..span.end], "\"network-upload\"");
        assert!(
            h.starts_with("**effect `network-upload`**: sends local data over the network."),
            "{h}"
        );
        assert!(
            h.contains("Built-in rules on it:\n- `ask bash(effect \"network-upload\") risk high"),
            "{h}"
        );
        assert!(h.contains("(builtin.policy:"), "{h}");
    }

    #[test]
    fn hover_on_other_statements_says_what_they_do() {
        let (_, h) = hover_on("default deny;\n", "default");
        assert!(h.contains("is denied (high risk)"), "{h}");
        let (_, h) = hover_on("headless ask risk medium;\n", "headless");
        assert!(h.contains("an ask of medium risk is denied instead"), "{h}");
        let (_, h) = hover_on("include \"common.policy\";\n", "common");
        assert!(h.contains("`/work/project/common.policy`"), "{h}");
        assert!(h.contains("but there is no such file"), "{h}");
        let (_, h) = hover_on("expect deny bash(\"rm -rf /\");\n", "expect");
        assert!(h.contains("must deny this call"), "{h}");
        assert!(
            h.contains("Now: ask (high risk) by `builtin.policy:"),
            "{h}"
        );
    }

    #[test]
    fn hover_on_a_comment_or_a_broken_statement_is_nothing_or_no_panic() {
        let text = "# just a comment\nallow bash(\"é\" risk;\n";
        assert!(hover("t.policy", text, 3, &ctx()).is_none());
        for i in 0..=text.len() {
            let _ = hover("t.policy", text, i, &ctx());
        }
    }
}
