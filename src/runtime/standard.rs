//! The shipped hooks, all thin layers over the one [`Engine`]:
//! - [`PermissionHook`]: the engine's decision (read-only mode applied; session memory
//!   consulted), with an "always allow" proposal on asks; a contained decision is an allow to
//!   run the call in the sandbox (see [`Options::sandbox`]). The engine is built again only when a
//!   policy or settings file changed (size, modification time, then content hash); an invalid
//!   edit keeps the last good policy in force and reports a diagnostic event.
//! - [`DangerHook`]: the same engine's built-in layer (hard protections, danger rules, what the
//!   analysis refuses), for chains that do not run the permission hook first.
//! - [`OffloadHook`]: large outputs go to `offload/` of the project's state folder, the model
//!   gets head, tail and the file's path.
//! - [`AuditHook`]: one JSON line per decision to the project's audit log in the user's state
//!   folder ([`crate::audit::state_dir`]).

use std::collections::hash_map::DefaultHasher;
use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;

use super::allowlist::SettingsWriter;
use super::propose::{compile, propose, ProposedRule};
use super::{
    Approver, DecisionRecord, HookContext, HookDecision, HookError, HookRegistry, ModeHandle,
    RuntimeEvent, SessionMemory, ToolHook, ToolResult,
};
use crate::call::{Action, Decision, ToolCall};
use crate::diag;
use crate::engine::{Chain, Engine, Mode};
use crate::hooks::{project_engine, Project, SetupError, PROJECT_DIR};
use crate::policy::read_bounded;
use crate::rule_ref::Held;
use crate::sandbox::Support;
use crate::settings::SETTINGS_PATH;

/// Builds the engine from its files.
pub type EngineFactory = Box<dyn Fn() -> Result<Engine, SetupError> + Send + Sync>;

/// A watched timestamp this close to the moment its file was read may hide a later write
/// within the file system's timestamp granularity: until it is older, the content is compared.
const RACY: Duration = Duration::from_secs(2);

/// What `stat` says about one file: size, modification and change times, identity. The change
/// time and the inode catch what the modification time alone misses: a `cp -p`, `touch -d` or
/// `mv` over the file that keeps its size and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Meta {
    len: u64,
    modified: Option<SystemTime>,
    changed: (i64, i64),
    id: (u64, u64),
    regular: bool,
}

fn meta(path: &Path) -> Option<Meta> {
    let m = fs::metadata(path).ok()?;
    #[cfg(unix)]
    let (changed, id) = {
        use std::os::unix::fs::MetadataExt;
        ((m.ctime(), m.ctime_nsec()), (m.dev(), m.ino()))
    };
    #[cfg(not(unix))]
    let (changed, id) = ((0, 0), (0, 0));
    Some(Meta {
        len: if m.is_dir() { 0 } else { m.len() },
        modified: m.modified().ok(),
        changed,
        id,
        regular: m.is_file(),
    })
}

impl Meta {
    /// Whether a write may have come after `read_at` without changing these times.
    fn racy(&self, read_at: SystemTime) -> bool {
        let changed = u64::try_from(self.changed.0)
            .ok()
            .map(|s| SystemTime::UNIX_EPOCH + Duration::new(s, self.changed.1 as u32));
        [self.modified, changed]
            .into_iter()
            .any(|t| t.is_none_or(|t| t + RACY >= read_at))
    }
}

/// The stamps of watched paths, now.
fn stamps_of(watched: &[PathBuf]) -> Vec<(PathBuf, Option<Stamp>)> {
    watched.iter().map(|p| (p.clone(), stamp(p))).collect()
}

/// A quick look at a watched path: a file's [`Meta`]; for a folder, the `*.policy` files in it
/// with theirs (so that a policy file added after the start and edited later is seen, and the
/// audit log or an offloaded output appearing beside them changes nothing). `None`: missing.
fn look(path: &Path) -> Option<Vec<(OsString, Meta)>> {
    let own = meta(path)?;
    if !path.is_dir() {
        return Some(vec![(OsString::new(), own)]);
    }
    let mut files: Vec<(OsString, Meta)> = fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().ends_with(".policy"))
        .filter_map(|n| {
            let m = meta(&path.join(&n))?;
            Some((n, m))
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Some(files)
}

/// What a watched path looked like when the engine was built: the quick look, and a hash of
/// the content behind it (a folder: its policy files' names and contents).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    look: Vec<(OsString, Meta)>,
    hash: u64,
    /// When the content was read (before reading it).
    read_at: SystemTime,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let read_at = SystemTime::now();
    let look = look(path)?;
    let mut h = DefaultHasher::new();
    if path.is_dir() {
        for (name, m) in &look {
            name.hash(&mut h);
            // An unreadable policy file hashes as a change each time, so it is tried again.
            match m
                .regular
                .then(|| read_bounded(&path.join(name)).ok())
                .flatten()
            {
                Some(bytes) => bytes.hash(&mut h),
                None => read_at.hash(&mut h),
            }
        }
    } else {
        match read_bounded(path).ok() {
            Some(bytes) => bytes.hash(&mut h),
            None => read_at.hash(&mut h),
        }
    }
    Some(Stamp {
        look,
        hash: h.finish(),
        read_at,
    })
}

/// Whether a path looks as it did when `s` was taken (one `stat`, or a folder listing, and no
/// reading), and is not so recent that a same-size write in the same timestamp tick could hide.
fn unchanged(path: &Path, s: &Option<Stamp>) -> bool {
    match (look(path), s) {
        (None, None) => true,
        // A folder without policy files holds no policy, there or not: the audit log creating
        // `.harness9/` on the first call changes nothing.
        (Some(now), None) => now.is_empty() && path.is_dir(),
        (None, Some(s)) => s.look.is_empty(),
        (Some(now), Some(s)) => now == s.look && !now.iter().any(|(_, m)| m.racy(s.read_at)),
    }
}

struct State {
    engine: Arc<Engine>,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
    /// The stamps the engine in force was built from.
    good: Vec<(PathBuf, Option<Stamp>)>,
    /// Bumped on every reload, so cached session chains are compiled again.
    generation: u64,
}

/// The engine of a running session, built again when its files change.
pub struct LiveEngine {
    factory: EngineFactory,
    watched: Vec<PathBuf>,
    state: RwLock<State>,
    events: Option<UnboundedSender<RuntimeEvent>>,
    reloads: AtomicU64,
}

impl LiveEngine {
    /// Builds the engine now; `watched` are the files (and folders) whose change triggers a
    /// rebuild, whether they exist yet or not.
    pub fn new(
        factory: EngineFactory,
        watched: Vec<PathBuf>,
        events: Option<UnboundedSender<RuntimeEvent>>,
    ) -> Result<Self, SetupError> {
        let stamps = stamps_of(&watched);
        let engine = factory()?;
        Ok(LiveEngine::built(engine, stamps, factory, watched, events))
    }

    /// An engine built already, with the stamps of `watched` taken before it was built (a
    /// change during the build then shows as a change later).
    fn built(
        engine: Engine,
        stamps: Vec<(PathBuf, Option<Stamp>)>,
        factory: EngineFactory,
        watched: Vec<PathBuf>,
        events: Option<UnboundedSender<RuntimeEvent>>,
    ) -> Self {
        LiveEngine {
            factory,
            watched,
            state: RwLock::new(State {
                engine: Arc::new(engine),
                good: stamps.clone(),
                stamps,
                generation: 0,
            }),
            events,
            reloads: AtomicU64::new(0),
        }
    }

    /// The engine as it is now, without looking at the files.
    pub fn snapshot(&self) -> Arc<Engine> {
        self.read().engine.clone()
    }

    /// How many times the files changed and were read again (successfully or not).
    pub fn reloads(&self) -> u64 {
        self.reloads.load(Ordering::Relaxed)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The current engine, built again first if a watched file changed. An unchanged file
    /// costs one `stat`.
    pub fn current(&self) -> (Arc<Engine>, u64) {
        {
            let state = self.read();
            if state.stamps.iter().all(|(p, s)| unchanged(p, s)) {
                return (state.engine.clone(), state.generation);
            }
        }
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        let fresh: Vec<(PathBuf, Option<Stamp>)> =
            self.watched.iter().map(|p| (p.clone(), stamp(p))).collect();
        // Same content (a touch, a rewrite with the same bytes): keep the engine.
        let changed: Vec<String> = fresh
            .iter()
            .zip(&state.stamps)
            .filter(|((_, a), (_, b))| match (a, b) {
                (None, None) => false,
                (Some(a), Some(b)) => a.hash != b.hash || a.look.len() != b.look.len(),
                _ => true,
            })
            .map(|((p, _), _)| p.display().to_string())
            .collect();
        state.stamps = fresh.clone();
        if changed.is_empty() {
            return (state.engine.clone(), state.generation);
        }
        self.reloads.fetch_add(1, Ordering::Relaxed);
        // A policy file the engine in force was built from is gone (deleted, or caught in the
        // middle of an editor's save): building without it could allow what it denied, so the
        // last good policy stays until the file is back.
        let gone = removed(&state.good, &fresh);
        if !gone.is_empty() {
            self.tell(RuntimeEvent::PolicyError {
                message: format!(
                    "{} can no longer be read; the last good policy stays in force until it is \
                     back (restart the session to run without it)",
                    gone.join(", ")
                ),
            });
            return (state.engine.clone(), state.generation);
        }
        match (self.factory)() {
            Ok(engine) => {
                state.engine = Arc::new(engine);
                state.good = fresh;
                state.generation += 1;
                self.tell(RuntimeEvent::PolicyReloaded {
                    path: changed.join(", "),
                });
            }
            Err(e) => {
                let message = match &e {
                    SetupError::Load(l) => {
                        let mut m = diag::render(&l.diagnostics, true);
                        for msg in &l.messages {
                            m.push_str(msg);
                            m.push('\n');
                        }
                        format!("{m}the last good policy stays in force")
                    }
                    other => format!("{other}; the last good policy stays in force"),
                };
                self.tell(RuntimeEvent::PolicyError { message });
            }
        }
        (state.engine.clone(), state.generation)
    }

    fn tell(&self, e: RuntimeEvent) {
        if let Some(tx) = &self.events {
            let _ = tx.send(e);
        }
    }
}

/// The files present in `good` and missing from `now`, for messages: watched files, and the
/// policy files of watched folders.
fn removed(good: &[(PathBuf, Option<Stamp>)], now: &[(PathBuf, Option<Stamp>)]) -> Vec<String> {
    let mut out = Vec::new();
    for ((path, before), (_, after)) in good.iter().zip(now) {
        let Some(before) = before else { continue };
        let names = |s: &Stamp| s.look.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        let left = after.as_ref().map(names).unwrap_or_default();
        for name in names(before) {
            let unreadable = after.is_none() && name.is_empty();
            if unreadable || (!name.is_empty() && !left.contains(&name)) {
                let file = if name.is_empty() {
                    path.clone()
                } else {
                    path.join(&name)
                };
                let shown = format!("`{}`", file.display());
                if !out.contains(&shown) {
                    out.push(shown);
                }
            }
        }
    }
    out
}

/// The engine's decision on every call.
pub struct PermissionHook {
    engine: Arc<LiveEngine>,
    mode: ModeHandle,
    session: SessionMemory,
    /// The session's rules compiled against an engine: (engine generation, session
    /// generation, chain).
    compiled: Mutex<Option<(u64, u64, Arc<Chain>)>>,
}

impl PermissionHook {
    pub fn new(engine: Arc<LiveEngine>, mode: ModeHandle, session: SessionMemory) -> Self {
        PermissionHook {
            engine,
            mode,
            session,
            compiled: Mutex::new(None),
        }
    }

    fn session_chain(&self, engine: &Engine, generation: u64) -> Option<Arc<Chain>> {
        let (rules, session_gen) = self.session.rules();
        if rules.is_empty() {
            return None;
        }
        let mut cache = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, s, chain)) = cache.as_ref() {
            if *g == generation && *s == session_gen {
                return Some(chain.clone());
            }
        }
        // The rules compiled once already (as a proposal). Should one no longer compile, the
        // others still count: it alone is left out (its calls are asked about, never allowed).
        let chain = match compile(engine, Held::Session, &rules) {
            Ok(c) => c,
            Err(_) => {
                let good: Vec<ProposedRule> = rules
                    .iter()
                    .filter(|r| compile(engine, Held::Session, std::slice::from_ref(r)).is_ok())
                    .cloned()
                    .collect();
                compile(engine, Held::Session, &good).ok()?
            }
        };
        let chain = Arc::new(chain);
        *cache = Some((generation, session_gen, chain.clone()));
        Some(chain)
    }
}

/// The project's engine, answering a `sandbox` decision where `support` says the caller runs
/// such a call contained (the TUI's `bash` tool, where [`crate::sandbox::support`] says the
/// sandbox works). Elsewhere the engine asks instead, saying why.
fn tui_engine(
    project: &crate::hooks::Project,
    support: &Support,
) -> Result<(Engine, crate::hooks::Sources), SetupError> {
    let (mut engine, sources) = project_engine(project, None, None)?;
    engine.set_sandbox_support(support.clone());
    Ok((engine, sources))
}

/// Why a contained decision is asked about when the engine that gave it was not told the
/// sandbox works (it does not give one then; were it to, it is asked, never run free).
const NOT_CONTAINED: &str = "the sandbox is not available here";

/// The hook's verdict from an engine decision: a contained decision is an allow to run the
/// call contained (where the engine was told the sandbox works); an ask carries the proposal,
/// if one helps.
fn verdict(engine: &Arc<Engine>, call: &ToolCall, d: Decision) -> HookDecision {
    let contained = match d.contained() {
        Some(profile) if engine.sandbox_support().is_available() => Some(super::Containment {
            profile: profile.to_string(),
            engine: engine.clone(),
        }),
        _ => None,
    };
    let d = match contained {
        Some(_) => d,
        None => d.asked_instead(NOT_CONTAINED),
    };
    match d.action {
        Action::Allow => HookDecision {
            reason: d.reason,
            ..HookDecision::allow().with_rule(d.rule).with_risk(d.risk)
        },
        Action::Sandbox if contained.is_some() => HookDecision {
            reason: d.reason,
            contained,
            ..HookDecision::allow().with_rule(d.rule).with_risk(d.risk)
        },
        Action::Deny => HookDecision::deny(d.reason)
            .with_rule(d.rule)
            .with_risk(d.risk),
        Action::Ask | Action::Sandbox => {
            let proposal = propose(engine, call, &d);
            let managed = engine.managed_floor(call).is_some();
            // A line some of whose parts run contained: what a mode approves runs so too.
            let contained = d
                .profile
                .as_ref()
                .filter(|_| d.action == Action::Ask && engine.sandbox_support().is_available())
                .map(|profile| super::Containment {
                    profile: profile.clone(),
                    engine: engine.clone(),
                });
            HookDecision {
                proposal,
                managed,
                unknown: d.unknown,
                contained,
                ..HookDecision::ask(d.reason, d.risk).with_rule(d.rule)
            }
        }
    }
}

#[async_trait]
impl ToolHook for PermissionHook {
    fn name(&self) -> &str {
        "permission"
    }

    async fn before_execute(
        &self,
        ctx: HookContext,
        call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        let (engine, generation) = self.engine.current();
        let session = self.session_chain(&engine, generation);
        // Auto-approve and bypass are settled by the registry, so the record says "mode";
        // read-only changes the decision itself.
        let mode = match self.mode.get() {
            Mode::ReadOnly => Mode::ReadOnly,
            _ => Mode::Default,
        };
        // The engine follows a file tool's symlinks and guards the policy's own files.
        let d = engine.decide_with_session(call, mode, session.as_deref());
        Ok((ctx, verdict(&engine, call, d)))
    }
}

/// The rule named by an ask about a write to the policy's own files.
pub use crate::engine::POLICY_FILES_RULE;

/// The built-in layer of the same engine.
pub struct DangerHook {
    engine: Arc<LiveEngine>,
}

impl DangerHook {
    pub fn new(engine: Arc<LiveEngine>) -> Self {
        DangerHook { engine }
    }
}

#[async_trait]
impl ToolHook for DangerHook {
    fn name(&self) -> &str {
        "danger"
    }

    async fn before_execute(
        &self,
        ctx: HookContext,
        call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        // Built again if a file changed, like the permission hook's (in a chain without it).
        let (engine, _) = self.engine.current();
        let d = engine.decide_builtin(call);
        if d.action == Action::Allow {
            // "No built-in rule matched" is nothing to say, not an explicit allow: it must not
            // skip a later hook's ask (see `HookRegistry::execute`).
            return Ok((ctx, HookDecision::allow()));
        }
        Ok((ctx, verdict(&engine, call, d)))
    }
}

/// Keeps large outputs out of the model's context.
pub struct OffloadHook {
    dir: PathBuf,
    limit: usize,
    keep: usize,
    counter: AtomicU64,
}

impl OffloadHook {
    /// Outputs over `limit` bytes are saved under `dir`; the result keeps about `limit / 4`
    /// bytes from each end.
    pub fn new(dir: impl Into<PathBuf>, limit: usize) -> Self {
        OffloadHook {
            dir: dir.into(),
            limit: limit.max(64),
            keep: (limit / 4).max(16),
            counter: AtomicU64::new(0),
        }
    }

    fn save(&self, call: &ToolCall, content: &str) -> std::io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
        // A cloned repository's `offload` link would send outputs to a folder of its choice.
        if fs::symlink_metadata(&self.dir)?.file_type().is_symlink() {
            return Err(std::io::Error::other(
                "the offload folder is a symbolic link",
            ));
        }
        let stamp = humantime::format_rfc3339_millis(SystemTime::now())
            .to_string()
            .replace([':', '.'], "-");
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = call
            .id
            .as_deref()
            .filter(|id| {
                id.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
            .unwrap_or("call");
        let safe = |s: &str| {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(64)
                .collect::<String>()
        };
        let path = self
            .dir
            .join(format!("{stamp}-{n}-{}-{id}.txt", safe(&call.name)));
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        f.write_all(content.as_bytes())?;
        Ok(path)
    }
}

#[async_trait]
impl ToolHook for OffloadHook {
    fn name(&self) -> &str {
        "offload"
    }

    async fn after_execute(
        &self,
        _ctx: &HookContext,
        call: &ToolCall,
        result: ToolResult,
    ) -> ToolResult {
        if result.content.len() <= self.limit {
            return result;
        }
        let Ok(path) = self.save(call, &result.content) else {
            // Nothing is lost: the model gets the whole output when it cannot be saved.
            return result;
        };
        let text = &result.content;
        let head_end = floor_char(text, self.keep);
        let tail_start = ceil_char(text, text.len() - self.keep);
        let omitted = tail_start - head_end;
        ToolResult {
            content: format!(
                "{}\n[… {omitted} bytes omitted; the whole output ({} bytes) is in {} …]\n{}",
                &text[..head_end],
                text.len(),
                path.display(),
                &text[tail_start..]
            ),
            status: result.status,
        }
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The runtime's name in the audit log's `agent` field.
pub const AGENT: &str = "harness9";

/// Appends one line per decision to the audit log, in its one schema ([`crate::audit::Record`]).
pub struct AuditHook {
    path: PathBuf,
    events: Option<UnboundedSender<RuntimeEvent>>,
    failed: std::sync::atomic::AtomicBool,
}

impl AuditHook {
    pub fn new(path: impl Into<PathBuf>, events: Option<UnboundedSender<RuntimeEvent>>) -> Self {
        AuditHook {
            path: path.into(),
            events,
            failed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn append(&self, r: &DecisionRecord) -> std::io::Result<()> {
        let by = crate::audit::Caller {
            agent: AGENT,
            session_id: None,
            call_id: None,
            tool: &r.call.name,
        };
        let verdict = crate::audit::Verdict {
            action: r.action,
            risk: r.risk,
            rule: r.rule.clone(),
            reason: r.reason.clone(),
            decided_by: r.decided_by.clone(),
        };
        let record = crate::audit::Record::decision(by, &r.call, r.mode.as_str(), verdict);
        crate::audit::append_line(&self.path, &record.to_line())
    }
}

#[async_trait]
impl ToolHook for AuditHook {
    fn name(&self) -> &str {
        "audit"
    }

    fn on_decision(&self, record: &DecisionRecord) {
        if let Err(e) = self.append(record) {
            // Said once, not on every call.
            if !self.failed.swap(true, Ordering::Relaxed) {
                if let Some(tx) = &self.events {
                    let _ = tx.send(RuntimeEvent::Notice(format!(
                        "cannot write the audit log `{}`: {e}",
                        self.path.display()
                    )));
                }
            }
        }
    }
}

/// Settings of [`standard_registry`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Outputs over this many bytes are offloaded to a file.
    pub offload_bytes: usize,
    /// Whether the tool runner runs a call the policy contains in the sandbox (the TUI's
    /// [`super::tools::Tools`] does, where [`crate::sandbox::support`] says it works). By
    /// default it does not, and such a call is asked about, saying why.
    pub sandbox: Support,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            offload_bytes: 32 * 1024,
            sandbox: Support::Unavailable(
                "this session's tool runner runs its commands outside the sandbox".into(),
            ),
        }
    }
}

/// What [`standard_registry`] loaded.
pub struct Loaded {
    pub engine: Arc<LiveEngine>,
    pub settings: PathBuf,
    pub audit: PathBuf,
}

/// The standard chain for an agent working in `cwd`: permission, danger, offload and audit
/// hooks over the project's engine (see [`project_engine`]), "always allow" rules written to
/// `.harness9/settings.json`, and asks put to `approver` (or, without one, settled by the
/// policy's headless setting).
pub fn standard_registry(
    cwd: &Path,
    mode: ModeHandle,
    approver: Option<Approver>,
) -> Result<(HookRegistry, Loaded), SetupError> {
    standard_registry_with(Project::from_env(cwd), mode, approver, Options::default())
}

/// [`standard_registry`] with an explicit project (home and configuration folders) and options.
pub fn standard_registry_with(
    project: Project,
    mode: ModeHandle,
    approver: Option<Approver>,
    options: Options,
) -> Result<(HookRegistry, Loaded), SetupError> {
    let cwd = project.cwd.clone();
    let project_dir = cwd.join(PROJECT_DIR);
    let settings = cwd.join(SETTINGS_PATH);
    // What to watch is known before the engine is built (folder listings); the engine is
    // built once, after the stamps are taken.
    let mut watched = vec![project_dir.clone(), settings.clone()];
    watched.extend(crate::hooks::managed_dirs());
    watched.extend(crate::hooks::managed_policies()?);
    watched.extend(crate::hooks::discovered_policies(&project)?);
    if let Some(user_dir) = &project.user_dir {
        watched.push(user_dir.clone());
    }
    let stamps = stamps_of(&watched);
    let (first, _) = tui_engine(&project, &options.sandbox)?;
    let events = approver.as_ref().map(|a| a.events().clone());
    let factory_project = project.clone();
    let support = options.sandbox.clone();
    let engine = Arc::new(LiveEngine::built(
        first,
        stamps,
        Box::new(move || tui_engine(&factory_project, &support).map(|(e, _)| e)),
        watched,
        events.clone(),
    ));
    let session = SessionMemory::default();
    // The log and offloaded outputs are the machine's, kept in the user's state folder: the
    // repository gets nothing from a session.
    let state = crate::audit::state_dir_in(&cwd, project.home.as_deref()).map_err(|e| {
        SetupError::Folder(format!(
            "cannot keep the audit log of `{}`: {e}",
            cwd.display()
        ))
    })?;
    let audit = state.join(crate::audit::AUDIT_FILE);
    let headless = engine.snapshot().headless();
    let mut registry = HookRegistry::new(mode.clone())
        .with_session(session.clone())
        .with_headless(headless)
        .with_headless_from(engine.clone())
        .with_writer(Arc::new(SettingsWriter::new(settings.clone()).within(&cwd)))
        .with_hook(Arc::new(PermissionHook::new(engine.clone(), mode, session)))
        .with_hook(Arc::new(DangerHook::new(engine.clone())))
        .with_hook(Arc::new(OffloadHook::new(
            state.join("offload"),
            options.offload_bytes,
        )))
        .with_hook(Arc::new(AuditHook::new(audit.clone(), events)));
    if let Some(a) = approver {
        registry = registry.with_approver(a);
    }
    Ok((
        registry,
        Loaded {
            engine,
            settings,
            audit,
        },
    ))
}

#[cfg(test)]
mod sandbox_tests {
    use super::*;

    fn engine_for(dir: &Path, support: Support) -> Arc<Engine> {
        let project = Project {
            cwd: dir.to_path_buf(),
            home: Some(dir.join("home")),
            user_dir: None,
        };
        let (engine, _) = tui_engine(&project, &support).expect("the project's engine builds");
        Arc::new(engine)
    }

    /// Where the sandbox works, a call the shipped default policy contains is allowed to run
    /// contained, under the rule's profile, with the engine whose protections it hides.
    #[test]
    fn the_tui_runs_a_call_the_policy_would_contain_in_the_sandbox() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let engine = engine_for(dir.path(), Support::Available);
        let call = ToolCall::primary("bash", "cargo test");
        let d = engine.decide(&call);
        assert_eq!(d.action, Action::Sandbox, "{d:?}");
        let v = verdict(&engine, &call, d);
        assert_eq!(v.action, Action::Allow);
        let how = v.contained.expect("an allow to run contained");
        assert_eq!(how.profile, "build");
        assert!(Arc::ptr_eq(&how.engine, &engine));
        assert!(v.rule.is_some(), "the rule that contains it is named");
        // A call the policy allows runs free, as before.
        let v = verdict(
            &engine,
            &ToolCall::primary("bash", "git status"),
            engine.decide(&ToolCall::primary("bash", "git status")),
        );
        assert_eq!(v.action, Action::Allow);
        assert!(v.contained.is_none());
    }

    /// Where the sandbox does not work, a call the policy would contain is asked about, saying
    /// why, and an approval of it can be proposed; a contained decision reaching the hook from
    /// such an engine is asked about too, never run free.
    #[test]
    fn without_the_sandbox_the_tui_asks_about_a_call_the_policy_would_contain() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let engine = engine_for(
            dir.path(),
            Support::Unavailable("bubblewrap (`bwrap`) is not installed".into()),
        );
        let call = ToolCall::primary("bash", "cargo test");
        let d = engine.decide(&call);
        assert_eq!(d.action, Action::Ask, "{d:?}");
        assert!(
            d.reason.starts_with(
                "the sandbox is not available here: bubblewrap (`bwrap`) is not installed; it \
                 would run contained"
            ),
            "{}",
            d.reason
        );
        let v = verdict(&engine, &call, d);
        assert_eq!(v.action, Action::Ask);
        assert!(v.contained.is_none());
        assert!(v.proposal.is_some(), "an approval can become a rule");
        let contained = Decision::contained_by(
            crate::call::Risk::Low,
            "runs the project's code",
            crate::rule_ref::RuleRef::Default,
            "cargo",
        );
        let v = verdict(&engine, &call, contained);
        assert_eq!(v.action, Action::Ask);
        assert!(v.contained.is_none());
        assert!(v.reason.starts_with("the sandbox is not available here; it would run contained (sandbox profile `cargo`)"), "{}", v.reason);
    }
}
