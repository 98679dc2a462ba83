//! A reference evaluator for the engine, written to be obviously right rather than fast: for
//! every subject it scans every rule of every chain in order. It shares with the engine only
//! what one rule is (`CompiledRule::matches`, over one `Subject`), the shell analysis (with
//! `pseudo_commands`, the words of a line it cannot parse) and the path primitives; the order of the layers, first match per chain, strictest across chains,
//! the computed-program floor, the default, the per-command split of bash calls, `cd`, the hard
//! protections and the modes are written again here, from the precedence section of
//! `docs/policy-language.md`.
//!
//! Used by `tests/differential.rs` (a proptest and fixed large cases) and by the fuzz target
//! `fuzz/fuzz_targets/differential.rs`.
// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

pub mod gen;

use std::path::{Path, PathBuf};

use harness9::call::RuleRef;
use harness9::engine::links::{glob_targets, reaches, targets_below};
use harness9::engine::paths::wildcard_may_reach;
use harness9::engine::rule::{
    find_name_filter, follows_links, walks_folders, CommandView, CompiledRule, FileView, Match,
    NameFilter, Subject, Target,
};
use harness9::engine::{pseudo_commands, Chain, Protection};
use harness9::knowledge::effects::{Line, Places};
use harness9::shell::{self, SimpleCommand};
use harness9::{Action, Decision, Engine, Mode, PathContext, Risk, ToolCall};
use serde_json::Value;

/// Deny beats ask beats sandbox beats allow.
fn action_rank(a: Action) -> u8 {
    match a {
        Action::Allow => 0,
        Action::Sandbox => 1,
        Action::Ask => 2,
        Action::Deny => 3,
    }
}

fn risk_rank(r: Risk) -> u8 {
    match r {
        Risk::Low => 0,
        Risk::Medium => 1,
        Risk::High => 2,
    }
}

/// Whether `a` is strictly stricter than `b`: a stricter action, or the same action at a
/// higher risk.
pub fn stricter_than(a: &Decision, b: &Decision) -> bool {
    (action_rank(a.action), risk_rank(a.risk)) > (action_rank(b.action), risk_rank(b.risk))
}

/// Keeps the decision found first unless a later one is strictly stricter.
fn keep_strictest(best: &mut Option<Decision>, d: Decision) {
    match best {
        Some(b) if !stricter_than(&d, b) => {}
        _ => *best = Some(d),
    }
}

fn decision_of(r: &CompiledRule) -> Decision {
    Decision::new(r.action, r.risk, r.reason(), r.origin.rule.clone())
}

fn first_match<'c>(chain: &'c Chain, s: &Subject) -> Option<&'c CompiledRule> {
    chain.rules.iter().find(|r| r.matches(s))
}

/// What a chain decides on `s`, scanning in order every rule that matches up to the first
/// that matches surely (a deny or ask whose exception holds in one view only matches unsurely,
/// and the scan goes on past it): the strictest of them, the first on a tie; and whether a sure
/// match ended the scan.
fn chain_decision<'c>(chain: &'c Chain, s: &Subject) -> Option<(&'c CompiledRule, Decision, bool)> {
    let mut best: Option<(&CompiledRule, Decision)> = None;
    for r in &chain.rules {
        let m = r.matching(s);
        if m == Match::No {
            continue;
        }
        let d = decision_of(r);
        if best.as_ref().is_none_or(|(_, b)| stricter_than(&d, b)) {
            best = Some((r, d));
        }
        if m == Match::Sure {
            return best.map(|(r, d)| (r, d, true));
        }
    }
    best.map(|(r, d)| (r, d, false))
}

/// What the built-in rules decide on `s`: every rule that matches counts, the strictest
/// standing (the first on a tie); sure when any of them matched surely.
fn builtin_decision<'c>(
    chain: &'c Chain,
    s: &Subject,
) -> Option<(&'c CompiledRule, Decision, bool)> {
    let mut best: Option<(&CompiledRule, Decision)> = None;
    let mut sure = false;
    for r in &chain.rules {
        let m = r.matching(s);
        if m == Match::No {
            continue;
        }
        sure |= m == Match::Sure;
        let d = decision_of(r);
        if best.as_ref().is_none_or(|(_, b)| stricter_than(&d, b)) {
            best = Some((r, d));
        }
    }
    best.map(|(r, d)| (r, d, sure))
}

fn protected_decision(p: &Protection) -> Decision {
    Decision::new(
        Action::Deny,
        Risk::High,
        p.reason(),
        RuleRef::from(format!("protected:{}", p.written).as_str()),
    )
}

/// The reference evaluator over the rules and protections an engine compiled.
pub struct Reference<'e> {
    engine: &'e Engine,
    /// The folders an earlier `cd` of the line being decided may have moved to.
    cd_folders: std::cell::RefCell<Vec<PathBuf>>,
}

impl<'e> Reference<'e> {
    pub fn new(engine: &'e Engine) -> Self {
        Reference {
            engine,
            cd_folders: Default::default(),
        }
    }

    fn ctx(&self) -> &PathContext {
        self.engine.context()
    }

    pub fn decide_in_mode(&self, call: &ToolCall, mode: Mode) -> Decision {
        let d = self.decide(call);
        match mode {
            Mode::Default => d,
            Mode::AutoApprove => {
                // Only what the analysis knows whole is approved; a line with contained parts
                // is approved contained.
                if d.action == Action::Ask && d.risk != Risk::High && !d.unknown {
                    Decision {
                        action: if d.profile.is_some() {
                            Action::Sandbox
                        } else {
                            Action::Allow
                        },
                        ..d
                    }
                } else {
                    d
                }
            }
            Mode::Bypass => {
                if d.action == Action::Ask {
                    Decision {
                        action: if d.profile.is_some() {
                            Action::Sandbox
                        } else {
                            Action::Allow
                        },
                        ..d
                    }
                } else {
                    d
                }
            }
            Mode::ReadOnly => {
                if d.action == Action::Deny || self.read_only(call) {
                    d
                } else {
                    let risk = if d.risk == Risk::High {
                        Risk::High
                    } else {
                        Risk::Medium
                    };
                    Decision::new(
                        Action::Deny,
                        risk,
                        "read-only mode",
                        "mode:read-only".into(),
                    )
                }
            }
        }
    }

    /// Read-only tools, and bash lines whose every command `readonly.policy` allows first.
    pub fn read_only(&self, call: &ToolCall) -> bool {
        match call.name.as_str() {
            "read_file" | "list_dir" => true,
            "bash" => {
                let Some(Value::String(command)) = call.arguments.get("command") else {
                    return false;
                };
                let analysis = shell::analyse(command);
                if analysis.failure.is_some() || analysis.commands.is_empty() {
                    return false;
                }
                let readonly = self.engine.readonly_chain();
                for cmd in &analysis.commands {
                    let s = Subject {
                        tool: "bash",
                        args: &call.arguments,
                        target: Target::Command(CommandView::new(cmd, self.ctx())),
                        ctx: Some(self.ctx()),
                    };
                    match first_match(readonly, &s) {
                        Some(r) if r.action == Action::Allow => {}
                        _ => return false,
                    }
                }
                true
            }
            _ => false,
        }
    }

    pub fn decide(&self, call: &ToolCall) -> Decision {
        let args = &call.arguments;
        let malformed = |why: &str| {
            Decision::new(
                Action::Deny,
                Risk::High,
                format!("malformed call: {why}"),
                "analysis".into(),
            )
        };
        let tool = call.name.as_str();
        if tool == "bash" {
            return match args.get("command") {
                Some(Value::String(command)) => self.decide_command_line(call, command),
                _ => malformed("`bash` needs a string argument `command`"),
            };
        }
        if ["read_file", "write_file", "edit_file", "list_dir"].contains(&tool) {
            let path = ["path", "file_path"]
                .iter()
                .find_map(|k| args.get(*k).and_then(Value::as_str));
            return match path {
                Some(raw) => self.decide_subject(&Subject {
                    tool,
                    args,
                    target: Target::File(FileView::new(self.ctx().resolve(raw))),
                    ctx: Some(self.ctx()),
                }),
                None => malformed(&format!("`{tool}` needs a string argument `path`")),
            };
        }
        self.decide_subject(&Subject {
            tool,
            args,
            target: Target::Other,
            ctx: None,
        })
    }

    /// Each simple command on its own; the first strictest decision stands.
    fn decide_command_line(&self, call: &ToolCall, line: &str) -> Decision {
        let analysis = shell::analyse(line);
        let mut best: Option<Decision> = None;
        let commands = match &analysis.failure {
            // Judged by its words (as written, and as a shell would split them), so a deny rule
            // or a protected path still holds; with too many different words, denied.
            Some(why) => match pseudo_commands(line) {
                Some(words) => {
                    best = Some(
                        Decision::new(Action::Ask, Risk::High, why.clone(), "analysis".into())
                            .unknown(),
                    );
                    words
                }
                None => {
                    return Decision::new(Action::Deny, Risk::High, why.clone(), "analysis".into())
                }
            },
            None => analysis.commands,
        };
        if analysis.failure.is_none() && commands.is_empty() {
            best = Some(Decision::new(
                Action::Ask,
                Risk::Low,
                "the command is empty",
                "analysis".into(),
            ));
        }
        // The line's values put in each command's words (shared with the engine, like the
        // analysis), and why a value a command evaluates as code may hold some.
        let (commands, evaluations): (Vec<SimpleCommand>, Vec<Option<(String, bool)>>) =
            if analysis.failure.is_none() {
                let values = harness9::knowledge::LineValues::of(&commands);
                let mut out = Vec::new();
                for cmd in commands {
                    let why = values.evaluates_unknown(&cmd);
                    for c in values.substituted(vec![cmd]) {
                        out.push((c, why.clone()));
                    }
                }
                out.into_iter().unzip()
            } else {
                let n = commands.len();
                (commands, vec![None; n])
            };
        let mut unknown = best.as_ref().is_some_and(|d| d.unknown);
        // A part of the line is contained.
        let mut contained_part = false;
        // Symbolic links an earlier `ln -s` of the line made (where each is, where it leads).
        let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
        // Every folder an earlier `cd` may have moved to.
        let mut cd_folders: Vec<PathBuf> = Vec::new();
        // The folders the previous command (a `find`) listed whole.
        let mut listed: (Vec<PathBuf>, Option<NameFilter>) = (Vec::new(), None);
        // What earlier commands of the line left (files written, remotes added).
        let mut line = Line::default();
        let resolve = |raw: &str| self.ctx().resolve(raw);
        let places = Places {
            cwd: &self.ctx().cwd,
            home: self.ctx().home.as_deref(),
            resolve: &resolve,
        };
        for (cmd, why) in commands.iter().zip(evaluations) {
            self.cd_folders.replace(cd_folders.clone());
            let mut left = Line::default();
            let view = CommandView::new(cmd, self.ctx())
                .evaluating(why)
                .after(&line)
                .moved_to(cd_folders.clone())
                .through_links(links.clone());
            let unknown_here = view.unknown().is_some();
            // A value evaluated as code that holds a command substitution runs it.
            if let Some((why, true)) = &view.evaluation {
                keep_strictest(
                    &mut best,
                    Decision::new(Action::Ask, Risk::High, why.clone(), "analysis".into()),
                );
            }
            left.note(cmd, &places);
            let lists = self.listed_by_find(&view);
            let d = match self
                .protected_after_cd(&view, &cd_folders)
                .or_else(|| self.walked_from_here(&view, &cd_folders))
                .or_else(|| self.fed_by_find(cmd, &listed))
            {
                Some(p) => protected_decision(p),
                None => self.decide_subject(&Subject {
                    tool: "bash",
                    args: &call.arguments,
                    target: Target::Command(view),
                    ctx: Some(self.ctx()),
                }),
            };
            self.remember_cd(cmd, &mut cd_folders);
            self.remember_link(cmd, &mut links);
            listed = lists;
            contained_part |= d.action == Action::Sandbox;
            let asks = matches!(d.action, Action::Ask | Action::Sandbox);
            unknown |= unknown_here && asks;
            keep_strictest(&mut best, d);
            line.extend(left);
        }
        let mut d = best.unwrap_or_else(|| self.engine.default_decision().clone());
        d.unknown = unknown && matches!(d.action, Action::Ask | Action::Sandbox);
        // An ask about a line with a contained part: a mode that approves it contains it.
        if d.action == Action::Ask && contained_part {
            d.profile = Some("contained parts".into());
        }
        d
    }

    fn protected_after_cd(&self, view: &CommandView, folders: &[PathBuf]) -> Option<&Protection> {
        for folder in folders {
            let ctx = self.ctx().with_cwd(folder.clone());
            for raw in &view.raw_paths {
                if raw.starts_with('/') || raw.starts_with('~') || raw.starts_with('$') {
                    continue;
                }
                if let Some(p) = self.protection_of_path(&ctx.resolve(raw), raw, &ctx, false) {
                    return Some(p);
                }
            }
        }
        None
    }

    /// The folders a `find` lists (its operands before the expression, or the working
    /// folder; a `-name` filter keeps no protected folder out); a folder only known when the
    /// line runs is `/`.
    fn listed_by_find(&self, view: &CommandView) -> (Vec<PathBuf>, Option<NameFilter>) {
        if view.cmd.program() != "find" {
            return (Vec::new(), None);
        }
        let mut starts = Vec::new();
        for w in view.cmd.argv.iter().skip(1) {
            if w.value == "--" {
                continue;
            }
            if w.value.starts_with(['-', '(', '!']) {
                break;
            }
            starts.push(match &w.path {
                Some(p) if !w.dynamic => self.ctx().resolve(p),
                _ => PathBuf::from("/"),
            });
        }
        if starts.is_empty() {
            starts.push(self.ctx().cwd.clone());
        }
        (starts, find_name_filter(view))
    }

    /// `find DIR | xargs CMD`: the command runs on every name the find listed, so it reaches
    /// each protection inside those folders.
    /// With a `-name` filter, only the protections where a file of those names may be: any,
    /// when the names may be a secret's; else where one is found on disk.
    fn fed_by_find(
        &self,
        cmd: &SimpleCommand,
        (listed, names): &(Vec<PathBuf>, Option<NameFilter>),
    ) -> Option<&Protection> {
        if !cmd.piped || cmd.program() != "xargs" {
            return None;
        }
        listed.iter().find_map(|dir| {
            self.engine.protections().iter().find(|p| {
                p.inside(dir, self.ctx())
                    && names.as_ref().is_none_or(|n| {
                        n.secret
                            || holds_file_named(p.base(), &|f| {
                                n.matchers.iter().all(|m| m.is_match(f))
                            })
                    })
            })
        })
    }

    /// A command that walks folders and names none walks the one it is in.
    fn walked_from_here(&self, view: &CommandView, folders: &[PathBuf]) -> Option<&Protection> {
        if !walks_folders(view) {
            return None;
        }
        let names_folder = view
            .reading()
            .operands
            .iter()
            .any(|o| o.role == Some(harness9::knowledge::Role::Read) || o.word.dynamic);
        if names_folder {
            return None;
        }
        let here = std::iter::once(&self.ctx().cwd).chain(folders);
        for dir in here {
            for p in self.engine.protections().iter() {
                if p.inside(dir, self.ctx()) {
                    return Some(p);
                }
            }
        }
        None
    }

    /// `ln -s TARGET LINK` (or `ln -s TARGET`, the link named as the target's last part), its
    /// words all known: the link, resolved, and where it leads.
    fn remember_link(&self, cmd: &SimpleCommand, links: &mut Vec<(PathBuf, PathBuf)>) {
        if cmd.program() != "ln" || cmd.argv.iter().any(|w| w.dynamic) {
            return;
        }
        let words: Vec<&str> = cmd.argv[1..].iter().map(|w| w.value.as_str()).collect();
        let symbolic = words.iter().any(|w| {
            *w == "--symbolic" || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
        });
        let operands: Vec<&str> = words.into_iter().filter(|w| !w.starts_with('-')).collect();
        let (target, link) = match operands.as_slice() {
            [t] => (*t, t.rsplit('/').next().unwrap_or(t)),
            [t, l] => (*t, *l),
            _ => return,
        };
        if symbolic {
            links.push((self.ctx().resolve(link), self.ctx().resolve(target)));
        }
    }

    fn remember_cd(&self, cmd: &SimpleCommand, folders: &mut Vec<PathBuf>) {
        if cmd.program() != "cd" && cmd.program() != "pushd" {
            return;
        }
        let target = cmd
            .argv
            .iter()
            .skip(1)
            .find(|w| w.value == "-" || !w.value.starts_with('-'));
        let mut reached = Vec::new();
        // `cd x=/home` enters `./x=/home`: the operand as written, never a name=value reading.
        match target.and_then(|w| w.clone().as_written().path) {
            Some(t) if t != "-" => {
                let mut bases = vec![self.ctx().cwd.clone()];
                bases.extend(folders.iter().cloned());
                for base in bases {
                    reached.push(self.ctx().with_cwd(base).resolve(&t));
                }
            }
            // `cd`, `cd -`, `cd $X`: home is as good a guess as any.
            _ => reached.extend(self.ctx().home.clone()),
        }
        for r in reached {
            if r != self.ctx().cwd && !folders.contains(&r) {
                folders.push(r);
            }
        }
    }

    /// The layers, in order, then what the sandbox cannot hold: see `decide_layers`.
    fn decide_subject(&self, s: &Subject) -> Decision {
        let mut d = self.decide_layers(s);
        // What would run contained after a `cd` out of the project is asked: the sandbox
        // writes only the project.
        if let Target::Command(view) = &s.target {
            if d.action == Action::Sandbox && view.moved_outside_project() {
                d.action = Action::Ask;
                d.profile = None;
            }
        }
        d
    }

    /// The layers, in order: hard protections, the user's chains, the built-in rules (with the
    /// computed-program floor), the default.
    fn decide_layers(&self, s: &Subject) -> Decision {
        if let Some(p) = self.protection_of_subject(s) {
            return protected_decision(p);
        }
        let mut user: Option<Decision> = None;
        let mut settings_allow = false;
        // No chain that decided found a sure match: the layers below count too.
        let mut open = true;
        for chain in self.engine.user_chains() {
            if let Some((r, d, sure)) = chain_decision(chain, s) {
                settings_allow |= chain.from_settings && r.action == Action::Allow && !r.is_exact();
                open &= !sure;
                keep_strictest(&mut user, d);
            }
        }
        let mut held = None;
        // A `sandbox` rule that surely decides: the built-in rules still count (the stricter
        // stands), the default does not.
        let mut contained = false;
        if let Some(d) = user.clone().filter(|_| open) {
            held = Some(d);
        } else if let Some(d) = user.clone().filter(|d| d.action == Action::Sandbox) {
            held = Some(d);
            contained = true;
        } else if let Some(d) = user {
            // An allow from settings.json does not lift a high-risk built-in rule, unless an
            // exact entry there names the command.
            let exact = self.engine.user_chains().iter().any(|c| {
                c.from_settings
                    && c.rules
                        .iter()
                        .any(|r| r.action == Action::Allow && r.is_exact() && r.matches(s))
            });
            if d.action == Action::Allow && settings_allow && !exact {
                if let Some(b) = self
                    .engine
                    .builtin_chain()
                    .and_then(|c| builtin_decision(c, s))
                    .map(|(_, b, _)| b)
                    .filter(|b| b.risk == Risk::High && b.action != Action::Allow)
                {
                    return b;
                }
            }
            return d;
        }
        let builtin = self
            .engine
            .builtin_chain()
            .and_then(|c| builtin_decision(c, s));
        let mut found = held;
        let mut sure = false;
        if let Some((_, d, builtin_sure)) = builtin {
            keep_strictest(&mut found, d);
            sure = builtin_sure;
        }
        if let Target::Command(view) = &s.target {
            if view.cmd.computed_program() {
                keep_strictest(
                    &mut found,
                    Decision::new(
                        Action::Ask,
                        Risk::High,
                        "computed program",
                        "analysis".into(),
                    ),
                );
                sure = true;
            }
        }
        match found {
            Some(d) if sure => d,
            Some(d) if contained && d.action == Action::Sandbox => d,
            _ => {
                keep_strictest(&mut found, self.engine.default_decision().clone());
                found.unwrap_or_else(|| self.engine.default_decision().clone())
            }
        }
    }

    fn protection_of_subject(&self, s: &Subject) -> Option<&Protection> {
        match &s.target {
            Target::File(resolved) => {
                let raw = ["path", "file_path"]
                    .iter()
                    .find_map(|k| s.args.get(*k).and_then(Value::as_str))
                    .unwrap_or("");
                self.protection_of_path(resolved, raw, self.ctx(), s.tool == "read_file")
                    .or_else(|| self.protection_of_path_arguments(s))
            }
            Target::Command(view) => {
                for (resolved, raw) in view.paths.iter().zip(&view.raw_paths) {
                    let read = view.reads_only();
                    if let Some(p) = self.protection_of_path(resolved, raw, self.ctx(), read) {
                        return Some(p);
                    }
                }
                if walks_folders(view) {
                    // A folder as named and where its links lead.
                    let ctx = self.ctx();
                    let folders = view.paths.iter().zip(&view.raw_paths).flat_map(|(f, raw)| {
                        std::iter::once(f.clone()).chain(ctx.real(raw).map(|r| ctx.logical(r)))
                    });
                    for folder in folders {
                        for p in self.engine.protections().iter() {
                            if p.inside(&folder, ctx) {
                                return Some(p);
                            }
                        }
                    }
                }
                let cd_folders = self.cd_folders.borrow().clone();
                if let Some(p) = self.reached_by_links(view, &cd_folders) {
                    return Some(p);
                }
                None
            }
            Target::Other => self.protection_of_path_arguments(s),
        }
    }

    /// A command that follows links while walking: the protection a link below its folders
    /// leads into. A relative folder may start at the working folder or at any folder a `cd`
    /// moved to; with no folder named, those folders are walked.
    fn reached_by_links(&self, view: &CommandView, cd_folders: &[PathBuf]) -> Option<&Protection> {
        if !follows_links(view) {
            return None;
        }
        let ctx = self.ctx();
        let bases: Vec<PathBuf> = std::iter::once(ctx.cwd.clone())
            .chain(cd_folders.iter().cloned())
            .collect();
        let mut folders: Vec<PathBuf> = Vec::new();
        for (p, raw) in view.paths.iter().zip(&view.raw_paths) {
            if raw.starts_with(['/', '~', '$']) {
                folders.push(ctx.real(raw).map_or_else(|| p.clone(), |r| ctx.logical(r)));
            } else {
                folders.extend(bases.iter().map(|b| b.join(raw)));
            }
        }
        folders.retain(|f| f.is_dir());
        if folders.is_empty() {
            folders = bases;
        }
        let targets = targets_below(&folders).ok()?;
        let ctx = self.ctx();
        self.engine.protections().iter().find(|p| {
            targets
                .iter()
                .any(|t| reaches(t, p.base()) || p.canonical(ctx).is_some_and(|c| reaches(t, c)))
        })
    }

    fn protection_of_path_arguments(&self, s: &Subject) -> Option<&Protection> {
        for key in ["path", "file_path", "filepath", "directory", "dir"] {
            let raws: Vec<&str> = match s.args.get(key) {
                Some(Value::String(raw)) => vec![raw.as_str()],
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            for raw in raws {
                if let Some(p) =
                    self.protection_of_path(&self.ctx().resolve(raw), raw, self.ctx(), false)
                {
                    return Some(p);
                }
            }
        }
        None
    }

    /// A path is protected when it is inside a protected path as written (case-folded; a
    /// `read` of a file the protection lets be read is not), when it holds wildcards that may
    /// expand into one, or when its symlinks lead into one.
    fn protection_of_path(
        &self,
        lexical: &Path,
        raw: &str,
        ctx: &PathContext,
        read: bool,
    ) -> Option<&Protection> {
        use harness9::knowledge::secrets::fold;
        let home = self.ctx();
        let wildcard = lexical
            .to_string_lossy()
            .contains(['*', '?', '[', '{', '\\']);
        for prot in self.engine.protections().iter() {
            if prot.covers(lexical, read, home) {
                return Some(prot);
            }
        }
        if wildcard {
            let folded = PathBuf::from(fold(&lexical.to_string_lossy()));
            for prot in self.engine.protections().iter() {
                let base = PathBuf::from(fold(&prot.base().to_string_lossy()));
                if !prot.covers(lexical, false, home) && wildcard_may_reach(&folded, &base) {
                    return Some(prot);
                }
            }
            // What the pattern matches on disk, where it really is: the first match that
            // reaches a protection names it.
            let found = glob_targets(lexical);
            let protections = || self.engine.protections().iter();
            return found.iter().find_map(|t| {
                protections()
                    .find(|prot| prot.covers(t, read, home))
                    .or_else(|| protections().find(|prot| prot.base().starts_with(t)))
                    .or_else(|| {
                        protections()
                            .find(|prot| prot.canonical(home).is_some_and(|c| c.starts_with(t)))
                    })
            });
        }
        if raw.is_empty() {
            return None;
        }
        let real = ctx.real(raw)?;
        if real == lexical {
            return None;
        }
        self.engine
            .protections()
            .iter()
            .find(|prot| prot.covers(&real, read, home))
    }
}

// ---- a folder to decide in -------------------------------------------------------------------

/// A throw-away folder with a working folder `w` and a home `h` (with keys in it, and a
/// symlink `w/link` into `h/.ssh`), removed on drop.
pub struct Layout {
    pub root: PathBuf,
}

impl Layout {
    pub fn new() -> Layout {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let root = std::env::temp_dir().join(format!(
            "harness9-reference-{}-{n}-{nanos}",
            std::process::id()
        ));
        let files = [
            "w/src/main.rs",
            "w/sub/a.rs",
            "w/secrets/k.pem",
            "w/notes.md",
            "h/.ssh/id_rsa",
            "h/.aws/credentials",
            "h/.netrc",
        ];
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().expect("a parent")).expect("create a folder");
            std::fs::write(&p, "x").expect("write a file");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("h/.ssh"), root.join("w/link"))
            .expect("create a symlink");
        Layout { root }
    }

    pub fn ctx(&self) -> PathContext {
        PathContext::new(self.root.join("w"), Some(self.root.join("h")))
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::new()
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

// ---- a generated world and the differential check --------------------------------------------

/// The sources of one engine, as text.
#[derive(Debug, Clone, Default)]
pub struct World {
    pub policies: Vec<(String, String)>,
    pub settings: Vec<(String, String)>,
    pub builtin: bool,
}

impl World {
    /// Up to three policy files of up to `max_rules` rules each and up to two settings files.
    pub fn generate(g: &mut gen::Gen, max_rules: usize) -> World {
        let mut w = World {
            builtin: !g.chance(15),
            ..World::default()
        };
        for i in 0..g.below(4) {
            w.policies
                .push((format!("p{i}.policy"), gen::policy(g, max_rules)));
        }
        for i in 0..g.below(3) {
            let max = (max_rules / 4).max(2);
            w.settings
                .push((format!("s{i}.json"), gen::settings(g, max)));
        }
        w
    }

    pub fn build(&self, ctx: &PathContext) -> Result<Engine, harness9::LoadError> {
        self.builder(ctx).build()
    }

    /// The engine's sources, to build it with more (a guarded folder).
    pub fn builder(&self, ctx: &PathContext) -> harness9::EngineBuilder {
        // `sandbox` rules decide as where the sandbox is available (what becomes of them where
        // it is not is checked by the corpus).
        let mut b = Engine::builder()
            .context(ctx.clone())
            .builtin(self.builtin)
            .sandbox(harness9::sandbox::Support::Available);
        for (name, text) in &self.policies {
            b = b.policy_text(name.as_str(), text.as_str());
        }
        for (name, text) in &self.settings {
            b = b.settings_text(name.as_str(), text.as_str());
        }
        b
    }

    pub fn describe(&self) -> String {
        let mut out = format!("builtin: {}\n", self.builtin);
        for (name, text) in self.policies.iter().chain(&self.settings) {
            out.push_str(&format!("---- {name}\n{text}\n"));
        }
        out
    }
}

/// `default` cases for a property test, or `PROPTEST_CASES` when set (a harder search).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Generates a call.
pub fn call(g: &mut gen::Gen) -> ToolCall {
    let (name, args) = gen::call(g);
    ToolCall::new(name, args)
}

fn same(engine: &Decision, reference: &Decision) -> bool {
    engine.action == reference.action
        && engine.risk == reference.risk
        && engine.rule == reference.rule
}

/// Decides a call with the engine and the reference, in every mode, and with `explain`;
/// returns how many comparisons agreed, or what disagreed.
pub fn compare(engine: &Engine, call: &ToolCall) -> Result<usize, String> {
    let reference = Reference::new(engine);
    let fast = engine.decide(call);
    let slow = reference.decide(call);
    // Reasons: the engine adds where in a command line the deciding part is.
    if !same(&fast, &slow) || !(fast.reason.starts_with(&slow.reason) || slow.rule == "analysis") {
        return Err(format!(
            "call {}\nengine:    {fast:?}\nreference: {slow:?}",
            serde_json::to_string(call).unwrap_or_default()
        ));
    }
    let explained = engine.explain(call).decision;
    if explained != fast {
        return Err(format!(
            "call {}\ndecide:  {fast:?}\nexplain: {explained:?}",
            serde_json::to_string(call).unwrap_or_default()
        ));
    }
    let mut n = 2;
    for mode in [Mode::AutoApprove, Mode::ReadOnly, Mode::Bypass] {
        let fast = engine.decide_in_mode(call, mode);
        let slow = reference.decide_in_mode(call, mode);
        if !same(&fast, &slow) {
            return Err(format!(
                "call {} in mode {mode}\nengine:    {fast:?}\nreference: {slow:?}",
                serde_json::to_string(call).unwrap_or_default()
            ));
        }
        n += 1;
    }
    Ok(n)
}

/// One differential case from raw bytes (the fuzz target): a world, then calls, until the
/// bytes run out. A world that does not load is skipped.
pub fn fuzz_one(data: &[u8], layout: &Layout) {
    let mut g = gen::Gen::from_bytes(data);
    g.raw_text = true;
    let world = World::generate(&mut g, 24);
    let Ok(engine) = world.build(&layout.ctx()) else {
        return;
    };
    for _ in 0..16 {
        let call = call(&mut g);
        if let Err(e) = compare(&engine, &call) {
            panic!(
                "the engine and the reference disagree:\n{e}\n{}",
                world.describe()
            );
        }
        if g.exhausted() {
            break;
        }
    }
}

/// Whether a file every pattern matches is at `base` or below it (links not followed).
fn holds_file_named(base: &Path, named: &dyn Fn(&std::ffi::OsStr) -> bool) -> bool {
    let matches = |p: &Path| p.file_name().is_some_and(named);
    let Ok(meta) = std::fs::symlink_metadata(base) else {
        return false;
    };
    if !meta.is_dir() {
        return matches(base);
    }
    std::fs::read_dir(base)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let p = e.path();
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => holds_file_named(&p, named),
                Ok(_) => matches(&p),
                Err(_) => false,
            }
        })
}
