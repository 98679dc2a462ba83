//! Evaluating a call: each part of a bash line on its own, through the layers (`layers.rs`),
//! the strictest decision kept.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::chain::Chain;
use super::explain::{Explanation, Hit, Layer, Part};
use super::index::RuleId;
use super::paths::{Leaf, Real};
use super::protect::{Folders, Protection};
use super::pseudo::{pseudo_commands, MAX_PSEUDO_WORDS};
use super::rule::{CommandView, CompiledRule, Subject, Target};
use super::{Engine, PathContext, POLICY_FILES_RULE};
use crate::call::{is_file_tool, Action, Decision, Risk, ToolCall, WRITE_TOOLS};
use crate::knowledge;
use crate::rule_ref::RuleRef;
use crate::shell::{self, SimpleCommand};

/// What an evaluation consults besides the compiled layers.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Opts<'a> {
    /// Session memory: allow rules that settle parts that would be asked about.
    pub(super) session: Option<&'a Chain>,
    /// Only the hard protections, the built-in rules and the analysis (the danger hook).
    pub(super) builtin_only: bool,
    /// Only the managed tier's rules: what no mode or answer may loosen.
    pub(super) managed_only: bool,
    /// Where a file tool's path leads, when already followed.
    pub(super) followed: Followed<'a>,
    /// How long deciding a line may take ([`ANALYSIS_BUDGET`] when `None`).
    pub(super) budget: Option<Duration>,
    /// Answer as where the sandbox is available, whatever the caller said (`expect`s state
    /// what the policy decides).
    pub(super) contained_ok: bool,
}

/// What one evaluation knows of where a file tool's path leads, so that it follows the path
/// once (each step is an `lstat`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Followed<'a> {
    #[default]
    Unknown,
    /// [`PathContext::follow`] of the path.
    Known(&'a Real),
    /// The path is where another path leads: already followed.
    Itself,
    /// Looked up on first need, then kept (a command's paths, see [`CommandView::reals`]).
    Lazy(&'a OnceCell<Real>),
}

impl Followed<'_> {
    /// What was found at the path itself, when it was followed already.
    pub(super) fn leaf(self) -> Leaf {
        match self {
            Followed::Known(r) => r.leaf,
            Followed::Lazy(cell) => cell.get().map_or(Leaf::Unseen, |r| r.leaf),
            Followed::Unknown | Followed::Itself => Leaf::Unseen,
        }
    }

    /// Where `raw` leads; `None` when it cannot be followed or already was.
    pub(super) fn real(self, raw: &str, ctx: &PathContext) -> Option<PathBuf> {
        match self {
            Followed::Unknown => ctx.real(raw),
            Followed::Known(r) => r.path.clone(),
            Followed::Itself => None,
            Followed::Lazy(cell) => cell.get_or_init(|| ctx.follow(raw)).path.clone(),
        }
    }
}

impl Engine {
    pub(super) fn evaluate(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        mut trace: Option<&mut Explanation>,
    ) -> Decision {
        if let Some(only) = self.only_tool.as_deref().filter(|t| *t != call.name) {
            // Shipped rules for this call's tool were left out: asking is the safe answer.
            return Decision::new(
                Action::Ask,
                Risk::High,
                format!(
                    "this engine was built to decide `{only}` calls, not `{}`",
                    call.name
                ),
                RuleRef::Analysis,
            );
        }
        let mut touched = None;
        let real = match call.primary_arg() {
            Some(raw) if is_file_tool(&call.name) && !raw.is_empty() => self.ctx.follow(raw),
            _ => Real::default(),
        };
        let o = Opts {
            followed: Followed::Known(&real),
            ..o
        };
        let mut d = self.evaluate_call(call, o, trace.as_deref_mut(), &mut touched);
        if d.action != Action::Deny && is_file_tool(&call.name) {
            d = self.through_links(call, o, d, real.path.clone(), trace.as_deref_mut());
        }
        if let Some(path) = touched.filter(|_| d.action != Action::Deny) {
            // The agent changing its own policy (`allow bash(*)` in settings.json) would turn
            // every later ask into an allow: a person decides, whatever a rule, the session or
            // a mode short of bypass says.
            let also = match d.action {
                Action::Ask => format!("; also: {}", d.reason),
                _ => String::new(),
            };
            d = Decision::new(
                Action::Ask,
                Risk::High,
                format!(
                    "changes the permission policy's own files (`{}`){also}",
                    path.display()
                ),
                POLICY_FILES_RULE,
            );
            if let Some(t) = trace.as_deref_mut() {
                t.parts.push(Part {
                    subject: path.display().to_string(),
                    origin: None,
                    effects: Vec::new(),
                    hits: vec![Hit {
                        layer: Layer::Guard,
                        decision: d.clone(),
                        text: "a write to the policy's own files".into(),
                        deciding: true,
                    }],
                    decision: d.clone(),
                });
            }
        }
        if !o.contained_ok && !self.sandbox.is_available() {
            d = d.asked_instead(&self.sandbox.to_string());
            // Nothing runs contained here: an approved ask runs as any does.
            if d.action == Action::Ask {
                d.profile = None;
            }
        }
        if let Some(t) = trace {
            t.decision = d.clone();
        }
        d
    }

    /// The call decided as written; `touched` is set to a guarded path it may write.
    pub(super) fn evaluate_call(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        trace: Option<&mut Explanation>,
        touched: &mut Option<PathBuf>,
    ) -> Decision {
        let mut scratch = Vec::new();
        match call.name.as_str() {
            "bash" => {
                let Some(command) = call.arguments.get("command").and_then(Value::as_str) else {
                    return malformed("`bash` needs a string argument `command`");
                };
                self.evaluate_command(call, command, o, &mut scratch, trace, touched)
            }
            tool if is_file_tool(tool) => {
                let Some(raw) = call.primary_arg() else {
                    return malformed(&format!("`{tool}` needs a string argument `path`"));
                };
                if WRITE_TOOLS.contains(&tool) {
                    *touched =
                        self.guarded_path(&self.ctx.resolve(raw), raw, &self.ctx, o.followed);
                }
                let resolved = self.ctx.resolve(raw);
                let subject = Subject {
                    tool,
                    args: &call.arguments,
                    target: Target::File(super::rule::FileView::followed(
                        resolved,
                        o.followed.leaf(),
                    )),
                    ctx: Some(&self.ctx),
                };
                self.decide_subject(&subject, o, &mut scratch, trace, raw)
            }
            tool => {
                let subject = Subject {
                    tool,
                    args: &call.arguments,
                    target: Target::Other,
                    ctx: None,
                };
                self.decide_subject(&subject, o, &mut scratch, trace, tool)
            }
        }
    }

    /// For a file tool whose path leads elsewhere through a symlink (`src/notes.md` →
    /// `~/.bashrc`), the stricter of `d` and the decision on where it leads: a rule for a
    /// folder must not reach out of it through a link.
    pub(super) fn through_links(
        &self,
        call: &ToolCall,
        o: Opts<'_>,
        d: Decision,
        real: Option<PathBuf>,
        trace: Option<&mut Explanation>,
    ) -> Decision {
        let Some(raw) = call.primary_arg() else {
            return d;
        };
        let Some(real) = real.map(|r| self.ctx.logical(r)) else {
            return d;
        };
        if real == self.ctx.resolve(raw) {
            return d;
        }
        let key = ["path", "file_path"]
            .into_iter()
            .find(|k| call.arguments.get(*k).is_some_and(Value::is_string))
            .unwrap_or("path");
        let mut followed = call.clone();
        followed.arguments.insert(
            key.into(),
            Value::String(real.to_string_lossy().into_owned()),
        );
        let o = Opts {
            followed: Followed::Itself,
            ..o
        };
        let mut f = self.evaluate_call(&followed, o, trace, &mut None);
        if f.strictness() > d.strictness() {
            f.reason = format!("{} (`{raw}` leads to `{}`)", f.reason, real.display());
            f
        } else {
            d
        }
    }

    /// Decides a bash line: each simple command through the layers in order, what earlier
    /// commands did (a `cd`, a file written, a listing) carried to the later ones, the
    /// strictest decision kept; `touched` is set to a guarded path the line may write.
    pub(super) fn evaluate_command(
        &self,
        call: &ToolCall,
        command: &str,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        mut trace: Option<&mut Explanation>,
        touched: &mut Option<PathBuf>,
    ) -> Decision {
        let started = Instant::now();
        let analysis = self.recent.analyse(command);
        let parsed = analysis.failure.is_none();
        // `best` starts at what an unparsed or empty line can do no better than.
        let (parts, mut best) = commands_to_judge(command, &analysis, trace.as_deref_mut());
        let state = parsed
            .then(|| knowledge::changes_shell_state(&parts))
            .flatten();
        // Each command read with the values the line gives its variables (see
        // `knowledge::values`), and why a value it evaluates as code may hold some. The
        // analysis's commands are borrowed unless values are put into them.
        let line_values = knowledge::LineValues::of(&parts);
        let (parts, evaluations) = if !parsed {
            let none = vec![None; parts.len()];
            (parts, none)
        } else if line_values.substitutes() {
            let mut out = Vec::with_capacity(parts.len());
            let mut whys = Vec::with_capacity(parts.len());
            for cmd in parts.iter() {
                let why = line_values.evaluates_unknown(cmd);
                for c in line_values.substituted(vec![cmd.clone()]) {
                    out.push(c);
                    whys.push(why.clone());
                }
            }
            (Cow::Owned(out), whys)
        } else {
            let whys: Vec<_> = parts
                .iter()
                .map(|c| line_values.evaluates_unknown(c))
                .collect();
            (parts, whys)
        };
        let mut unknown_ask = best.as_ref().is_some_and(|d| d.unknown);
        let values = if parsed {
            knowledge::line_values(&parts)
        } else {
            Vec::new()
        };
        let facts = LineFacts {
            call,
            o,
            values: &values,
            guarding: !self.guarded.is_empty(),
            several: parts.len() > 1,
        };
        let mut so_far = self.line_start(&values);
        // The sandbox profile the contained parts so far need together.
        let mut profile: Option<String> = None;
        // What earlier commands of the line did: files written (a script run later), remotes
        // added (a push to them).
        let mut line = knowledge::effects::Line::default();
        let resolve = |raw: &str| self.ctx.resolve(raw);
        let places = knowledge::effects::Places {
            cwd: &self.ctx.cwd,
            home: self.ctx.home.as_deref(),
            resolve: &resolve,
        };
        // Decisions of the commands so far, while nothing in the line has changed what a
        // command's decision depends on (the folder, files written, a listing): a command met
        // again (`ls | cat | cat | …`) is decided once. Only long lines repeat enough to pay
        // for the keys.
        let mut repeats: Option<std::collections::HashMap<String, Decision>> =
            (trace.is_none() && parts.len() > 8).then(std::collections::HashMap::new);
        for (i, cmd) in parts.iter().enumerate() {
            if started.elapsed() > o.budget.unwrap_or(ANALYSIS_BUDGET) {
                return self.out_of_time_with_protections(&parts[i..], best);
            }
            if changes_context(cmd) {
                repeats = None;
            }
            let key = repeats.as_ref().map(|_| repeat_key(cmd));
            if let (Some(seen), Some(k)) = (&repeats, &key) {
                if let Some(d) = seen.get(k) {
                    profile = join_profile(profile, d);
                    best = Some(stricter(best, d.clone()));
                    continue;
                }
            }
            // What this command leaves for the next ones, noted once it is decided.
            let mut left = knowledge::effects::Line::default();
            let view = CommandView::new(cmd, &self.ctx)
                .in_changed_state(state.clone())
                .evaluating(evaluations[i].clone())
                .after(&line);
            left.note_read(cmd, view.reading(), &places);
            let d = self.decide_part(
                view,
                &facts,
                &mut so_far,
                scratch,
                trace.as_deref_mut(),
                touched,
            );
            if !left.is_empty() {
                repeats = None;
            }
            if let (Some(seen), Some(k)) = (&mut repeats, key) {
                seen.insert(k, d.clone());
            }
            unknown_ask |= matches!(d.action, Action::Ask | Action::Sandbox) && d.unknown;
            profile = join_profile(profile, &d);
            best = Some(stricter(best, d));
            line.extend(left);
        }
        // A line that names a guarded path may write it unless every part is read-only (checked
        // only then: few lines name one).
        if touched.is_some() && parsed && self.all_read_only(call, &parts, scratch) {
            *touched = None;
        }
        let mut d = best.unwrap_or_else(|| self.default.clone());
        // The line's answer is unknown when any part asked about (or contained) is.
        d.unknown = matches!(d.action, Action::Ask | Action::Sandbox) && unknown_ask;
        // A contained line runs in one sandbox, under a profile that holds each part's. An ask
        // about a line with contained parts keeps that profile too: a mode that approves the
        // ask runs the line contained, never its contained parts free (`touch x && make`).
        if matches!(d.action, Action::Sandbox | Action::Ask) {
            d.profile = profile;
        }
        d
    }

    /// What a line starts with before any command: no folder listed, and the folders a `cd`
    /// may move to through the line's `CDPATH`. (Subshells and conditions make the real folder
    /// uncertain, so relative paths are checked against every folder a `cd` may have moved to.)
    fn line_start(&self, values: &[(String, String)]) -> LineSoFar {
        let folders = Folders {
            cdpath: values
                .iter()
                .filter(|(n, _)| n == "CDPATH")
                .flat_map(|(_, v)| v.split(':'))
                .filter(|d| !d.is_empty())
                .map(|d| self.ctx.resolve(d))
                .collect(),
            ..Folders::default()
        };
        LineSoFar {
            folders,
            listed: None,
        }
    }

    /// The decision when the time to decide a line ran out before `rest`: the hard protections
    /// still hold for what was not analysed, however slow the machine, by a cheap look at every
    /// remaining word.
    fn out_of_time_with_protections(
        &self,
        rest: &[SimpleCommand],
        best: Option<Decision>,
    ) -> Decision {
        let rest = rest.iter().find_map(|c| self.protected_word(c));
        let best = match rest {
            Some(p) => Some(stricter(best, self.protected_decision(p, "", None))),
            None => best,
        };
        out_of_time(best)
    }

    /// Decides one command of a line with what the commands before it left in `so_far`, and
    /// notes what it leaves for the ones after it.
    fn decide_part<'a>(
        &'a self,
        view: CommandView<'a>,
        facts: &LineFacts<'a>,
        so_far: &mut LineSoFar,
        scratch: &mut Vec<RuleId>,
        mut trace: Option<&mut Explanation>,
        touched: &mut Option<PathBuf>,
    ) -> Decision {
        let view = view
            .moved_to(so_far.folders.list.clone())
            .through_links(so_far.folders.links.clone());
        let cmd = view.cmd;
        let unknown = view.unknown().is_some();
        let label = if view.canonical.is_empty() {
            describe_redirects(cmd)
        } else {
            view.canonical.clone()
        };
        let moved = self.protected_by_line(&view, so_far, facts.values);
        so_far.listed = self.listed_folders(&view);
        let lost = self.lost_after_cd(&view, &so_far.folders);
        // A value evaluated as code that holds a command substitution runs it.
        let runs = view
            .evaluation
            .as_ref()
            .filter(|(_, code)| *code)
            .map(|(why, _)| why.clone());
        self.note_cd(&view, &mut so_far.folders);
        self.note_link(&view, &mut so_far.folders);
        // A command that writes nothing cannot touch a guarded file; a `cd` into a guarded
        // folder still counts, for the commands after it write there.
        let moves = matches!(cmd.program(), "cd" | "pushd");
        if facts.guarding
            && touched.is_none()
            && (moves || !knowledge::writes_nothing_as(cmd, view.reading()))
        {
            *touched = self.guarded_in_view(&view);
        }
        let subject = Subject {
            tool: "bash",
            args: &facts.call.arguments,
            target: Target::Command(view),
            ctx: Some(&self.ctx),
        };
        let mut d = match moved {
            Some(p) => self.protected_decision(p, &label, trace.as_deref_mut()),
            None => self.decide_subject(&subject, facts.o, scratch, trace.as_deref_mut(), &label),
        };
        note_origin(trace, cmd, &subject);
        for why in lost.into_iter().chain(runs) {
            d = stricter(
                Some(d),
                Decision::new(Action::Ask, Risk::High, why, RuleRef::Analysis),
            );
        }
        if facts.several {
            d.reason = format!("{} (in `{}`)", d.reason, label);
        }
        d.unknown = unknown && matches!(d.action, Action::Ask | Action::Sandbox);
        d
    }

    /// A protection the command reaches only through what earlier commands of the line did:
    /// a `cd`, a variable's value, a walk of the folder, a link, or a listing fed to it.
    fn protected_by_line(
        &self,
        view: &CommandView,
        so_far: &LineSoFar,
        values: &[(String, String)],
    ) -> Option<&Protection> {
        self.protected_after_cd(view, &so_far.folders)
            .or_else(|| self.protected_with_values(view, values))
            .or_else(|| self.walked_from_here(view, &so_far.folders))
            .or_else(|| self.protected_through_links(view, &so_far.folders))
            .or_else(|| self.fed_from_listing(view, so_far.listed.as_ref()))
    }

    /// The first guarded path the command names, as an argument or inside another argument.
    fn guarded_in_view(&self, view: &CommandView) -> Option<PathBuf> {
        view.paths
            .iter()
            .zip(&view.raw_paths)
            .zip(&view.reals)
            .find_map(|((p, raw), r)| self.guarded_path(p, raw, &self.ctx, Followed::Lazy(r)))
            .or_else(|| {
                view.inner_paths
                    .iter()
                    .find_map(|(raw, p)| self.guarded_path(p, raw, &self.ctx, Followed::Unknown))
            })
    }

    /// Decides one subject through the layers.
    pub(super) fn decide_subject(
        &self,
        s: &Subject,
        o: Opts<'_>,
        scratch: &mut Vec<RuleId>,
        trace: Option<&mut Explanation>,
        label: &str,
    ) -> Decision {
        let mut hits = Vec::new();
        let tracing = trace.is_some();
        let mut d = uncontainable(self.layers(s, o, scratch, tracing.then_some(&mut hits)), s);
        // Where the call cannot be contained, a part the policy would contain is asked about,
        // and a person's session allow settles it as it settles an ask.
        let asked = d.action == Action::Ask
            || (d.action == Action::Sandbox && !o.contained_ok && !self.sandbox.is_available());
        if asked {
            if let Some(r) = o.session.and_then(|c| c.first_match(s, scratch)) {
                if r.action == Action::Allow {
                    let by = rule_decision(r);
                    if tracing {
                        hits.push(Hit {
                            layer: Layer::Session,
                            decision: by.clone(),
                            text: r.text(),
                            deciding: true,
                        });
                    }
                    d = Decision::new(
                        Action::Allow,
                        d.risk,
                        format!("allowed for this session (asked because: {})", d.reason),
                        by.rule,
                    );
                }
            }
        }
        if let Some(t) = trace {
            t.parts.push(Part {
                subject: label.to_string(),
                origin: None,
                effects: Vec::new(),
                hits,
                decision: d.clone(),
            });
        }
        d
    }

    /// Whether a call is known not to change anything: read-only tools, and bash commands
    /// whose every part an allow rule of `readonly.policy` matches.
    pub fn is_read_only(&self, call: &ToolCall) -> bool {
        match call.name.as_str() {
            "read_file" | "list_dir" => true,
            "bash" => {
                let Some(command) = call.arguments.get("command").and_then(Value::as_str) else {
                    return false;
                };
                let analysis = self.recent.analyse(command);
                analysis.failure.is_none()
                    && self.all_read_only(call, &analysis.commands, &mut Vec::new())
            }
            _ => false,
        }
    }

    /// Whether there are commands and an allow rule of `readonly.policy` matches each.
    pub(super) fn all_read_only(
        &self,
        call: &ToolCall,
        commands: &[SimpleCommand],
        scratch: &mut Vec<RuleId>,
    ) -> bool {
        let state = knowledge::changes_shell_state(commands);
        !commands.is_empty()
            && state.is_none()
            && commands.iter().all(|cmd| {
                let s = Subject {
                    tool: "bash",
                    args: &call.arguments,
                    target: Target::Command(CommandView::new(cmd, &self.ctx)),
                    ctx: Some(&self.ctx),
                };
                self.readonly
                    .first_match(&s, scratch)
                    .is_some_and(|r| r.action == Action::Allow)
            })
    }
}

/// How long deciding one command line may take before the analysis stops and asks: a hook
/// that times out lets the call through, so a line built to be slow must not reach that.
/// Debug builds (the tests) are some ten times slower, and get more.
pub const ANALYSIS_BUDGET: Duration = if cfg!(debug_assertions) {
    Duration::from_millis(2000)
} else {
    Duration::from_millis(50)
};

/// What deciding one command of a bash line needs to know of the whole line.
struct LineFacts<'a> {
    call: &'a ToolCall,
    o: Opts<'a>,
    /// The values the line gives variables.
    values: &'a [(String, String)],
    /// Whether any path is guarded, so writes to it are looked for.
    guarding: bool,
    /// Whether the line has more than one command, so reasons name the one they are about.
    several: bool,
}

/// What the commands decided so far leave for the next ones.
struct LineSoFar {
    /// Folders a `cd` may have moved to, and links an `ln -s` made.
    folders: Folders,
    /// The folders the previous command listed (`find ~ … | xargs cat`).
    listed: Option<super::protect::Listed>,
}

/// The commands to judge on a line and the decision the line can do no better than: an ask
/// when it could not be analysed (a deny when its words are too many to check) or is empty.
fn commands_to_judge<'a>(
    command: &str,
    analysis: &'a shell::Analysis,
    trace: Option<&mut Explanation>,
) -> (Cow<'a, [SimpleCommand]>, Option<Decision>) {
    let mut parts = Cow::Borrowed(analysis.commands.as_slice());
    let mut floor = None;
    if let Some(why) = &analysis.failure {
        // Still judge the words we can see, so a deny rule or a protected path holds; when
        // there are too many to judge, nothing vouches for the line at all.
        floor = Some(match pseudo_commands(command) {
            Some(p) => {
                parts = Cow::Owned(p);
                Decision::new(Action::Ask, Risk::High, why.clone(), RuleRef::Analysis).unknown()
            }
            None => {
                parts = Cow::Owned(Vec::new());
                Decision::new(
                    Action::Deny,
                    Risk::High,
                    format!(
                        "{why}, and it has more than {MAX_PSEUDO_WORDS} different words: too \
                         many to check against the protections"
                    ),
                    RuleRef::Analysis,
                )
            }
        });
        if let Some(t) = trace {
            t.failure = Some(why.clone());
        }
    } else if parts.is_empty() {
        floor = Some(Decision::new(
            Action::Ask,
            Risk::Low,
            "the command is empty",
            RuleRef::Analysis,
        ));
    }
    (parts, floor)
}

/// Whether the command may change what later commands' decisions depend on (the folder, a
/// link, a listing), so earlier decisions are not reused.
fn changes_context(cmd: &SimpleCommand) -> bool {
    matches!(
        cmd.program(),
        "cd" | "pushd" | "popd" | "ln" | "link" | "find" | "xargs"
    )
}

/// Notes on the part just traced where its command came from and what it does.
fn note_origin(trace: Option<&mut Explanation>, cmd: &SimpleCommand, subject: &Subject) {
    if let Some(t) = trace {
        if let Some(p) = t.parts.last_mut() {
            p.origin = Some(cmd.origin.as_str());
            if let Target::Command(v) = &subject.target {
                p.effects = v.effects().iter().map(ToString::to_string).collect();
            }
        }
    }
}

/// The decision on a line whose analysis ran out of time: at least a high-risk ask (a deny
/// already found stays).
fn out_of_time(best: Option<Decision>) -> Decision {
    stricter(
        best,
        Decision::new(
            Action::Ask,
            Risk::High,
            format!(
                "the command took longer than {} ms to analyse, so it was not analysed whole",
                ANALYSIS_BUDGET.as_millis()
            ),
            RuleRef::Analysis,
        ),
    )
}

/// Everything a command's decision depends on besides the line's context: its words, where
/// they came from, its redirections.
fn repeat_key(cmd: &SimpleCommand) -> String {
    use std::fmt::Write as _;
    let mut k = format!("{}|{}|{}|", cmd.origin.as_str(), cmd.piped, cmd.self_call);
    for a in &cmd.assignments {
        let _ = write!(k, "{a:?} ");
    }
    k.push('|');
    for w in &cmd.argv {
        let _ = write!(k, "{:?}{}{:?} ", w.value, w.dynamic, w.path);
    }
    k.push('|');
    for r in &cmd.redirects {
        let _ = write!(
            k,
            "{}{:?}{:?}{} ",
            r.op, r.fd, r.target.value, r.target.dynamic
        );
    }
    k
}

pub(super) fn rule_decision(r: &CompiledRule) -> Decision {
    Decision {
        profile: r.profile.clone(),
        ..Decision::new(r.action, r.risk, r.reason(), r.origin.rule.clone())
    }
}

/// The profile a line's contained parts need, `d` added (see
/// [`crate::sandbox::joined_profile`]).
fn join_profile(so_far: Option<String>, d: &Decision) -> Option<String> {
    let Some(p) = d.contained() else {
        return so_far;
    };
    Some(match so_far {
        Some(s) => crate::sandbox::joined_profile(&s, p).to_string(),
        None => p.to_string(),
    })
}

/// The sandbox writes only the project: a command a `cd` of its line may have taken elsewhere
/// is not one it can contain, and what the layers would contain is asked instead. (The sandbox
/// rule still decided: a later allow must not run free what it would only have contained, and
/// the built-in rules counted as they count after any sandbox rule.)
fn uncontainable(mut d: Decision, s: &Subject) -> Decision {
    if d.action != Action::Sandbox {
        return d;
    }
    if let Target::Command(c) = &s.target {
        if c.moved_outside_project() {
            d.action = Action::Ask;
            d.profile = None;
            d.reason = format!(
                "{}, but a `cd` of its line may take it out of the project, where the sandbox \
                 cannot hold it: asked instead",
                d.reason
            );
        }
    }
    d
}

/// A rule's decision on a subject: a rule about effects says which one it saw (`sends local
/// data over the network: sends .env to paste.example`).
pub(super) fn rule_decision_on(r: &CompiledRule, s: &Subject) -> Decision {
    let mut d = rule_decision(r);
    let detail = super::rule::effect_detail(r, s)
        .or_else(|| super::rule::secret_detail(r, s))
        .or_else(|| unknown_detail(r, s));
    if let Some(detail) = detail {
        d.reason = format!("{}: {detail}", d.reason);
    }
    d
}

/// What the analysis did not understand of a command, for a rule about `unknown` commands.
fn unknown_detail(r: &CompiledRule, s: &Subject) -> Option<String> {
    let about = r
        .matchers
        .iter()
        .any(|m| m.arg.is_none() && matches!(m.test, super::rule::Test::Unknown));
    match &s.target {
        Target::Command(c) if about => c.unknown().map(str::to_string),
        _ => None,
    }
}

/// The stricter of two decisions (deny > ask > allow, then higher risk); the first on a tie.
pub fn stricter(a: Option<Decision>, b: Decision) -> Decision {
    match a {
        Some(a) if a.strictness() >= b.strictness() => a,
        _ => b,
    }
}

fn malformed(why: &str) -> Decision {
    Decision::new(
        Action::Deny,
        Risk::High,
        format!("malformed call: {why}"),
        RuleRef::Analysis,
    )
}

fn describe_redirects(cmd: &SimpleCommand) -> String {
    let mut out: Vec<String> = cmd.assignments.clone();
    out.extend(
        cmd.redirects
            .iter()
            .map(|r| format!("{} {}", r.op, r.target.value)),
    );
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rule::ToolPattern;

    #[test]
    fn running_out_of_time_asks_at_high_risk_and_keeps_a_deny() {
        let allow = Decision::new(Action::Allow, Risk::Low, "ok", RuleRef::from("r"));
        let d = out_of_time(Some(allow));
        assert_eq!((d.action, d.risk), (Action::Ask, Risk::High));
        assert!(d.reason.contains("longer than"), "{}", d.reason);
        let deny = Decision::new(Action::Deny, Risk::High, "protected", RuleRef::from("p"));
        assert_eq!(out_of_time(Some(deny)).action, Action::Deny);
        assert_eq!(out_of_time(None).action, Action::Ask);
    }

    #[test]
    fn an_engine_for_one_tool_compiles_its_rules_only_and_asks_about_any_other_tool() {
        let builder = || {
            Engine::builder()
                .context(PathContext::new("/work/p", Some("/home/u".into())))
                .default_policy()
        };
        let whole = builder().build().expect("the default policy loads");
        let bash = builder()
            .for_tool("bash")
            .build()
            .expect("the default policy loads");
        let tools = |e: &Engine| -> Vec<String> {
            let chains = e.user_chains().iter().chain(e.builtin_chain());
            let mut tools: Vec<String> = chains
                .chain([e.readonly_chain()])
                .flat_map(|c| &c.rules)
                .map(|r| match &r.tool {
                    ToolPattern::Name(n) => n.clone(),
                    ToolPattern::Glob(g) => g.text.to_string(),
                })
                .collect();
            tools.sort_unstable();
            tools.dedup();
            tools
        };
        assert!(tools(&whole).len() > 1, "{:?}", tools(&whole));
        assert_eq!(tools(&bash), ["bash"]);
        let read = ToolCall::primary("read_file", "/work/p/notes.md");
        assert_eq!(whole.decide(&read).action, Action::Allow);
        let d = bash.decide(&read);
        assert_eq!((d.action, d.risk), (Action::Ask, Risk::High), "{d:?}");
        assert!(d.reason.contains("`bash` calls"), "{}", d.reason);
        let git = ToolCall::primary("bash", "git status");
        assert_eq!(bash.decide(&git), whole.decide(&git));
    }

    #[test]
    fn out_of_time_the_rest_of_the_line_still_meets_the_hard_protections() {
        let e = Engine::builder()
            .context(PathContext::new("/work/p", Some("/home/u".into())))
            .default_policy()
            .build()
            .expect("the default policy loads");
        let o = Opts {
            budget: Some(Duration::ZERO),
            ..Opts::default()
        };
        let call = ToolCall::primary("bash", "ls x; cat ~/.ssh/id_rsa");
        let d = e.evaluate(&call, o, None);
        assert_eq!(
            (d.action, d.rule.to_string().as_str()),
            (Action::Deny, "protected:~/.ssh"),
            "{d:?}"
        );
        let d = e.evaluate(&ToolCall::primary("bash", "ls x; cat notes"), o, None);
        assert_eq!((d.action, d.risk), (Action::Ask, Risk::High), "{d:?}");
        assert!(d.reason.contains("longer than"), "{}", d.reason);
    }
}
