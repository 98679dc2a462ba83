//! The shipped hooks, all thin layers over the one [`Engine`]:
//! - [`PermissionHook`]: the engine's decision (read-only mode applied; session memory
//!   consulted), with an "always allow" proposal on asks. The engine is built again only when a
//!   policy or settings file changed (size, modification time, then content hash); an invalid
//!   edit keeps the last good policy in force and reports a diagnostic event.
//! - [`DangerHook`]: the same engine's built-in layer (hard protections, danger rules, what the
//!   analysis refuses), for chains that do not run the permission hook first.
//! - [`OffloadHook`]: large outputs go to `.harness9/offload/`, the model gets head, tail and
//!   the file's path.
//! - [`AuditHook`]: one JSON line per decision to `.harness9/audit.jsonl`.

use std::collections::hash_map::DefaultHasher;
use std::fs::{self, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;

use super::allowlist::SettingsWriter;
use super::propose::propose;
use super::{
    Approver, DecisionRecord, HookContext, HookDecision, HookError, HookRegistry, ModeHandle,
    RuntimeEvent, SessionMemory, ToolHook, ToolResult,
};
use crate::call::{Action, Decision, ToolCall};
use crate::diag;
use crate::engine::{Chain, Engine, Mode};
use crate::hooks::{project_engine, Project, SetupError, PROJECT_DIR};
use crate::settings::SETTINGS_PATH;

/// Builds the engine from its files.
pub type EngineFactory = Box<dyn Fn() -> Result<Engine, SetupError> + Send + Sync>;

/// What a file looked like when the engine was built.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    hash: u64,
}

/// Size and modification time; a folder's size is left out (it changes with any entry, and
/// only its `*.policy` files matter, see [`stamp`]).
fn stat(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let m = fs::metadata(path).ok()?;
    let len = if m.is_dir() { 0 } else { m.len() };
    Some((len, m.modified().ok()))
}

/// A file's stamp hashes its content; a folder's hashes the names of its `*.policy` files, so
/// the audit log or an offloaded output appearing beside them changes nothing.
fn stamp(path: &Path) -> Option<Stamp> {
    let (len, modified) = stat(path)?;
    let mut h = DefaultHasher::new();
    if path.is_dir() {
        let mut names: Vec<_> = fs::read_dir(path)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().ends_with(".policy"))
            .collect();
        names.sort();
        names.hash(&mut h);
    } else {
        fs::read(path).ok()?.hash(&mut h);
    }
    Some(Stamp {
        len,
        modified,
        hash: h.finish(),
    })
}

struct State {
    engine: Arc<Engine>,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
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
        let stamps = watched.iter().map(|p| (p.clone(), stamp(p))).collect();
        let engine = Arc::new(factory()?);
        Ok(LiveEngine {
            factory,
            watched,
            state: RwLock::new(State {
                engine,
                stamps,
                generation: 0,
            }),
            events,
            reloads: AtomicU64::new(0),
        })
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
            let unchanged = state.stamps.iter().all(|(p, s)| match (stat(p), s) {
                (None, None) => true,
                (Some((len, modified)), Some(s)) => len == s.len && modified == s.modified,
                _ => false,
            });
            if unchanged {
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
                (Some(a), Some(b)) => a.hash != b.hash || a.len != b.len,
                _ => true,
            })
            .map(|((p, _), _)| p.display().to_string())
            .collect();
        state.stamps = fresh;
        if changed.is_empty() {
            return (state.engine.clone(), state.generation);
        }
        self.reloads.fetch_add(1, Ordering::Relaxed);
        match (self.factory)() {
            Ok(engine) => {
                state.engine = Arc::new(engine);
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
        // The rules compiled once already; a failure here leaves the session without them
        // (asks, never allows).
        let chain = Arc::new(engine.compile_allow_rules("session", &rules).ok()?);
        *cache = Some((generation, session_gen, chain.clone()));
        Some(chain)
    }
}

/// The hook's verdict from an engine decision.
fn verdict(engine: &Engine, call: &ToolCall, d: Decision) -> HookDecision {
    match d.action {
        Action::Allow => HookDecision {
            reason: d.reason,
            ..HookDecision::allow().with_rule(d.rule).with_risk(d.risk)
        },
        Action::Deny => HookDecision::deny(d.reason)
            .with_rule(d.rule)
            .with_risk(d.risk),
        Action::Ask => {
            let proposal = propose(engine, call, &d);
            HookDecision {
                proposal,
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
        let d = engine.decide_with_session(call, mode, session.as_deref());
        Ok((ctx, verdict(&engine, call, d)))
    }
}

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
        let engine = self.engine.snapshot();
        let d = engine.decide_builtin(call);
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
        let path = self.dir.join(format!("{stamp}-{n}-{}-{id}.txt", call.name));
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

/// Appends one JSON line per decision.
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

    fn append(&self, record: &DecisionRecord) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write on a file opened for appending: lines of concurrent calls do not mix.
        f.write_all(line.as_bytes())
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            offload_bytes: 32 * 1024,
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
    let (_, sources) = project_engine(&project, None)?;
    let mut watched = vec![project_dir.clone(), settings.clone()];
    watched.extend(sources.policies.iter().cloned());
    if let Some(user_dir) = &project.user_dir {
        watched.push(user_dir.clone());
    }
    let events = approver.as_ref().map(|a| a.events().clone());
    let factory_project = project.clone();
    let engine = Arc::new(LiveEngine::new(
        Box::new(move || project_engine(&factory_project, None).map(|(e, _)| e)),
        watched,
        events.clone(),
    )?);
    let session = SessionMemory::default();
    let audit = project_dir.join(crate::hooks::audit::AUDIT_FILE);
    let headless = engine.snapshot().headless();
    let mut registry = HookRegistry::new(mode.clone())
        .with_session(session.clone())
        .with_headless(headless)
        .with_writer(Arc::new(SettingsWriter::new(settings.clone())))
        .with_hook(Arc::new(PermissionHook::new(engine.clone(), mode, session)))
        .with_hook(Arc::new(DangerHook::new(engine.clone())))
        .with_hook(Arc::new(OffloadHook::new(
            project_dir.join("offload"),
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
