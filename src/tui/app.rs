//! The app loop: sets the terminal up (and always restores it: on exit, on error, on panic),
//! reads keys on a thread of its own, and feeds keys, approval requests and the agent's events
//! through [`update`], carrying out the [`Action`]s that come back. It holds the approval
//! requests themselves: the dialog answers by id, and the loop responds.

use std::collections::HashMap;
use std::io::{self, Stdout};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self as ct, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste,
    EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::agent::{Agent, AgentEvent};
use super::i18n::{texts, Lang};
use super::state::{ApprovalView, Entry, State};
use super::update::{update, Action, Event, PermissionsCommand};
use super::view::render;
use crate::engine::Mode;
use crate::model::{Model, ToolSpec};
use crate::runtime::{
    ApprovalRequest, CancelToken, HookRegistry, ModeHandle, ProposedRule, RuntimeEvent, ToolRunner,
};

/// Everything the app loop needs; the command line builds it.
pub struct App {
    pub state: State,
    pub model: Arc<dyn Model>,
    pub registry: Arc<HookRegistry>,
    pub tools: Arc<dyn ToolRunner>,
    pub specs: Vec<ToolSpec>,
    pub mode: ModeHandle,
    /// Approval requests and runtime notices (the approver's channel).
    pub runtime_events: UnboundedReceiver<RuntimeEvent>,
    /// The first turn starts by itself with this message (the demo's, so a newcomer sees the
    /// dialog at once).
    pub auto_start: Option<String>,
    /// The system message the conversation starts with.
    pub system: Option<String>,
    /// The folder the tools work in (file changes are diffed there).
    pub cwd: PathBuf,
    /// The project's history of sent messages (`history.jsonl` in its state folder,
    /// [`crate::audit::state_dir`]); `None` keeps it in memory only.
    pub history_file: Option<PathBuf>,
    /// The allowlist `/permissions` lists and edits (`.harness9/settings.json`).
    pub settings_file: Option<PathBuf>,
    /// Makes the client of another model of the same server (`/model NAME`); `None` for the
    /// demo, which has no other.
    pub switch_model: Option<ModelSwitch>,
    /// Lists the server's models (`/model`); `None` for the demo.
    pub list_models: Option<ModelLister>,
}

/// Makes the client of the named model, or says why it cannot.
pub type ModelSwitch = Box<dyn Fn(&str) -> Option<Arc<dyn Model>> + Send>;

/// Lists the models of the server (it blocks: the app loop calls it on a thread of its own).
pub type ModelLister = Arc<dyn Fn() -> Result<Vec<String>, String> + Send + Sync>;

/// The history file in a project's state folder ([`crate::audit::state_dir`]), outside the
/// repository.
pub const HISTORY_FILE: &str = "history.jsonl";

/// The messages of a history file, oldest first: one JSON string a line; other lines are
/// skipped.
pub fn read_history(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let all: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<String>(l).ok())
        .collect();
    let skip = all.len().saturating_sub(super::input::HISTORY_MAX);
    all.into_iter().skip(skip).collect()
}

/// Adds a message to a history file (created with its folder when missing).
pub fn append_history(path: &Path, text: &str) -> io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let line = serde_json::to_string(text).map_err(io::Error::other)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(f, "{line}")
}

/// The system message for a model working in `cwd`.
pub fn system_prompt(cwd: &Path) -> String {
    format!(
        "You are a coding agent working in the folder {}. Use the tools to read and change files \
         and to run commands. Every tool call is checked by harness9's permission policy; some \
         wait for a person's approval. A denied call comes back with the reason, sometimes with \
         the person's feedback: follow it, and do not repeat a denied call unchanged.",
        cwd.display()
    )
}

/// The working folder as the status bar shows it: under the home folder as `~/…`.
pub fn display_cwd(cwd: &Path, home: Option<&Path>) -> String {
    if let Some(home) = home.filter(|h| !h.as_os_str().is_empty()) {
        if let Ok(rest) = cwd.strip_prefix(home) {
            return if rest.as_os_str().is_empty() {
                "~".into()
            } else {
                format!("~/{}", rest.display())
            };
        }
    }
    cwd.display().to_string()
}

/// A new state for the TUI.
pub fn initial_state(lang: Lang, mode: Mode, model: &str, cwd: &Path) -> State {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    State::new(lang, mode, model, display_cwd(cwd, home.as_deref()))
}

type Term = Terminal<CrosstermBackend<Stdout>>;

/// How often the screen is redrawn while nothing happens (the spinner, arming, countdowns).
const TICK: Duration = Duration::from_millis(100);

/// Restores the terminal: raw mode off, main screen back, mouse released, cursor shown. Safe
/// to call more than once.
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped, so that every way out of [`run`] restores it.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// A panic restores the terminal before its message is printed.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // A hook's or a tool's panic becomes a denial and the session goes on: the
            // terminal stays as it is, and the message reaches the conversation instead.
            if crate::runtime::panic_is_caught() {
                return;
            }
            restore_terminal();
            previous(info);
        }));
    });
}

fn setup_terminal() -> io::Result<(Term, Restore)> {
    install_panic_hook();
    enable_raw_mode()?;
    let guard = Restore;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok((terminal, guard))
}

/// Reads terminal events on a thread of its own (crossterm's reading blocks).
fn spawn_input_thread() -> UnboundedReceiver<ct::Event> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(ev) = ct::read() {
            if tx.send(ev).is_err() {
                break;
            }
        }
    });
    rx
}

/// The signals that end the TUI the way quitting does (SIGTERM, and SIGHUP from a closed
/// terminal): the number of the first one that came, 0 before any. A second one of them ends
/// the process at once, as it would without the TUI.
#[derive(Clone, Default)]
struct Signals(Arc<std::sync::atomic::AtomicUsize>);

impl Signals {
    fn register() -> io::Result<Signals> {
        let signals = Signals::default();
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGHUP, SIGTERM};
            use signal_hook::flag;
            let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
            for sig in [SIGTERM, SIGHUP] {
                flag::register_conditional_default(sig, seen.clone())?;
                flag::register(sig, seen.clone())?;
                let number = usize::try_from(sig).unwrap_or(0);
                flag::register_usize(sig, signals.0.clone(), number)?;
            }
        }
        Ok(signals)
    }

    /// The signal that came, if one did.
    fn received(&self) -> Option<i32> {
        let n = self.0.load(std::sync::atomic::Ordering::SeqCst);
        i32::try_from(n).ok().filter(|&n| n != 0)
    }
}

/// Runs the TUI until the person quits, or a signal (SIGTERM, SIGHUP) ends it: then its number
/// comes back. The terminal is restored however it ends, and the caller's clean-up (the demo's
/// scratch folder) runs after either.
pub fn run(app: App) -> io::Result<Option<i32>> {
    let signals = Signals::register()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (mut terminal, guard) = setup_terminal()?;
    let keys = spawn_input_thread();
    let result = rt.block_on(event_loop(&mut terminal, app, keys, signals.clone()));
    drop(guard);
    // Tool tasks still running (a command being killed) must not hold the exit up.
    rt.shutdown_background();
    match signals.received() {
        // The terminal may be gone (SIGHUP): a failure to draw on it is no error then.
        Some(sig) => Ok(Some(sig)),
        None => result.map(|()| None),
    }
}

/// A terminal event as the UI's event; `None` for what the UI ignores.
fn from_terminal(ev: ct::Event) -> Option<Event> {
    match ev {
        ct::Event::Key(k) => Some(Event::Key(k)),
        ct::Event::Mouse(m) => Some(Event::Mouse(m)),
        ct::Event::Paste(s) => Some(Event::Paste(s)),
        ct::Event::Resize(w, h) => Some(Event::Resize(w, h)),
        _ => None,
    }
}

/// What the agent task is asked to do.
enum AgentCommand {
    Turn(String, CancelToken),
    Clear,
    SetModel(Arc<dyn Model>),
}

/// What the loop holds besides the state: the requests waiting for an answer and the turn.
struct Runner {
    pending: HashMap<u64, ApprovalRequest>,
    turn: CancelToken,
    turns: UnboundedSender<AgentCommand>,
    mode: ModeHandle,
    registry: Arc<HookRegistry>,
    cwd: PathBuf,
    home: Option<PathBuf>,
    history_file: Option<PathBuf>,
    settings_file: Option<PathBuf>,
    switch_model: Option<ModelSwitch>,
    list_models: Option<ModelLister>,
    /// Events the loop's own work sends back later (the list of models).
    later: UnboundedSender<Event>,
}

/// Where a rule listed by `/permissions` lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleSource {
    /// The session's memory only: this rule of it.
    Session(ProposedRule),
    /// The allowlist file (and, for an "always allow" of this session, the session's memory
    /// as well: removing it removes both).
    Settings(PathBuf),
}

/// The rules `/permissions` lists, numbered from 1 in this order: the session's, then the
/// allowlist's. Each grant is listed once: a rule of the session that the allowlist holds too
/// (what "always allow" grants) is listed where it lives on, in the allowlist.
pub fn listed_rules(
    session: &[ProposedRule],
    settings: Option<(&Path, Vec<String>)>,
) -> Vec<(String, RuleSource)> {
    let in_file: &[String] = settings.as_ref().map_or(&[], |(_, rules)| rules);
    let mut out: Vec<(String, RuleSource)> = session
        .iter()
        .map(|r| (r.to_string(), r))
        .filter(|(text, _)| !in_file.contains(text))
        .map(|(text, r)| (text, RuleSource::Session(r.clone())))
        .collect();
    if let Some((path, rules)) = settings {
        let mut seen = std::collections::HashSet::new();
        out.extend(
            rules
                .into_iter()
                .filter(|r| seen.insert(r.clone()))
                .map(|r| (r, RuleSource::Settings(path.to_path_buf()))),
        );
    }
    out
}

/// `/model`'s listing: the server's models, the one in use marked with `*`.
pub fn models_text(t: &super::i18n::Texts, current: &str, models: &[String]) -> String {
    let mut s = t.models_listed.replace("{model}", current);
    for m in models {
        let mark = if m == current { "*" } else { " " };
        s.push_str(&format!("\n  {mark} {m}"));
    }
    s
}

/// `/permissions`'s listing.
pub fn permissions_text(
    lang: Lang,
    rules: &[(String, RuleSource)],
    settings: Option<&Path>,
) -> String {
    let t = texts(lang);
    let mut s = String::from(t.perms_title);
    let mut n = 0;
    let mut section = |title: String, pick: &dyn Fn(&RuleSource) -> bool, s: &mut String| {
        s.push_str(&format!("\n  {title}"));
        let mut any = false;
        for (rule, src) in rules {
            if pick(src) {
                n += 1;
                any = true;
                s.push_str(&format!("\n    {n}. {rule}"));
            }
        }
        if !any {
            s.push_str(&format!("\n    {}", t.perms_none));
        }
    };
    section(
        t.perms_session.to_string(),
        &|s| matches!(s, RuleSource::Session(_)),
        &mut s,
    );
    if let Some(path) = settings {
        section(
            path.display().to_string(),
            &|s| matches!(s, RuleSource::Settings(_)),
            &mut s,
        );
    }
    if !rules.is_empty() {
        s.push_str(&format!("\n{}", t.perms_remove_hint));
    }
    s
}

impl Runner {
    /// Carries out an action; false to quit.
    fn act(&mut self, state: &mut State, action: Action) -> bool {
        match action {
            Action::Respond { id, answer } => {
                if let Some(req) = self.pending.remove(&id) {
                    if !req.respond(answer) && !state.cancelling {
                        state.entries.push(Entry::Notice(
                            texts(state.lang)
                                .request_ended
                                .replace("{id}", &id.to_string()),
                        ));
                    }
                }
            }
            Action::Submit(text) => {
                self.turn = CancelToken::new();
                if self
                    .turns
                    .send(AgentCommand::Turn(text, self.turn.clone()))
                    .is_err()
                {
                    state.turn_running = false;
                    state
                        .entries
                        .push(Entry::Error(texts(state.lang).agent_gone.into()));
                }
            }
            Action::CancelTurn => self.turn.cancel(),
            Action::SetMode(m) => self.mode.set(m),
            Action::SaveHistory(text) => {
                if let Some(path) = &self.history_file {
                    if let Err(e) = append_history(path, &text) {
                        state.entries.push(Entry::Error(
                            texts(state.lang)
                                .history_failed
                                .replace("{path}", &path.display().to_string())
                                .replace("{error}", &e.to_string()),
                        ));
                        // Once is enough: the history stays in memory from now on.
                        self.history_file = None;
                    }
                }
            }
            Action::ClearConversation => {
                let _ = self.turns.send(AgentCommand::Clear);
            }
            Action::Permissions(cmd) => self.permissions(state, cmd),
            Action::SwitchModel(name) => self.switch_model(state, &name),
            Action::ListModels => self.list_models(state),
            Action::Quit => {
                self.turn.cancel();
                // Dropping the requests denies them.
                self.pending.clear();
                return false;
            }
        }
        true
    }

    /// Tells the runtime that the request in the dialog is on the screen (its approval
    /// timeout starts then; the requests queued behind it wait without a clock).
    fn shown(&mut self, state: &State) {
        if let Some(req) = state
            .current_approval()
            .and_then(|v| self.pending.get_mut(&v.id))
        {
            req.shown();
        }
    }

    /// `/model`: the server's models, the one in use marked, listed when the server answers
    /// (on a thread of its own: the screen goes on meanwhile).
    fn list_models(&self, state: &mut State) {
        let t = texts(state.lang);
        let Some(list) = self.list_models.clone() else {
            state
                .entries
                .push(Entry::Notice(t.model_is.replace("{model}", &state.model)));
            return;
        };
        let current = state
            .model
            .split(" @ ")
            .next()
            .unwrap_or(&state.model)
            .to_string();
        let later = self.later.clone();
        let spawned = std::thread::Builder::new()
            .name("harness9-models".into())
            .spawn(move || {
                let event = match list() {
                    Ok(models) => Event::Notice(models_text(t, &current, &models)),
                    Err(e) => Event::Error(t.models_failed.replace("{error}", &e)),
                };
                let _ = later.send(event);
            });
        if let Err(e) = spawned {
            state.entries.push(Entry::Error(
                t.models_failed.replace("{error}", &e.to_string()),
            ));
        }
    }

    /// `/model NAME`: the agent talks to that model from its next turn on.
    fn switch_model(&self, state: &mut State, name: &str) {
        let t = texts(state.lang);
        let Some(model) = self.switch_model.as_ref().and_then(|make| make(name)) else {
            state.entries.push(Entry::Error(t.model_fixed.into()));
            return;
        };
        state.model = model.name();
        if self.turns.send(AgentCommand::SetModel(model)).is_err() {
            state.entries.push(Entry::Error(t.agent_gone.into()));
            return;
        }
        state.entries.push(Entry::Notice(
            t.model_switched.replace("{model}", &state.model),
        ));
    }

    /// A path under the project as the person reads it: relative to the project.
    fn shown_path(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.cwd)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf())
    }

    fn rules(&self) -> Vec<(String, RuleSource)> {
        let (session, _) = self.registry.session().rules();
        let settings = self
            .settings_file
            .as_deref()
            .map(|p| (p, crate::runtime::allowlist::allow_rules(p)));
        listed_rules(&session, settings)
    }

    fn permissions(&mut self, state: &mut State, cmd: PermissionsCommand) {
        let t = texts(state.lang);
        match cmd {
            PermissionsCommand::List => {
                let rules = self.rules();
                let shown = self.settings_file.as_deref().map(|p| self.shown_path(p));
                state.entries.push(Entry::Notice(permissions_text(
                    state.lang,
                    &rules,
                    shown.as_deref(),
                )));
            }
            PermissionsCommand::Remove(n) => {
                let rules = self.rules();
                let Some((rule, src)) = n.checked_sub(1).and_then(|i| rules.get(i)) else {
                    state
                        .entries
                        .push(Entry::Error(t.perms_no_such.replace("{n}", &n.to_string())));
                    return;
                };
                // A grant is removed everywhere it was granted: the session forgets it (and
                // the calls it approved exactly) whichever list it was picked from.
                self.registry.session().revoke(rule);
                let done = match src {
                    RuleSource::Session(_) => Ok(t.perms_session.to_string()),
                    RuleSource::Settings(path) => {
                        crate::runtime::allowlist::remove_allow_rule(path, Some(&self.cwd), rule)
                            .map(|_| self.shown_path(path).display().to_string())
                            .map_err(|e| e.to_string())
                    }
                };
                state.entries.push(match done {
                    Ok(from) => Entry::Notice(
                        t.perms_removed
                            .replace("{rule}", rule)
                            .replace("{from}", &from),
                    ),
                    Err(e) => Entry::Error(e),
                });
            }
        }
    }

    /// A runtime event as the UI's event; approval requests are kept here.
    fn runtime_event(&mut self, lang: Lang, ev: RuntimeEvent) -> Event {
        match ev {
            RuntimeEvent::Approval(req) => {
                let diff = super::diff::proposed(
                    &req.call.name,
                    &req.call.arguments,
                    &self.cwd,
                    self.home.as_deref(),
                );
                let view = ApprovalView::from_request(&req).with_diff(diff);
                self.pending.insert(req.id, req);
                Event::Approval(view)
            }
            RuntimeEvent::PolicyReloaded { path } => {
                Event::Notice(format!("{}: {path}", texts(lang).policy_reloaded))
            }
            RuntimeEvent::PolicyError { message } => Event::PolicyError(message),
            RuntimeEvent::Notice(m) => Event::Notice(m),
        }
    }
}

async fn event_loop(
    terminal: &mut Term,
    app: App,
    keys: UnboundedReceiver<ct::Event>,
    signals: Signals,
) -> io::Result<()> {
    let App {
        mut state,
        model,
        registry,
        tools,
        specs,
        mode,
        runtime_events,
        auto_start,
        system,
        cwd,
        history_file,
        settings_file,
        switch_model,
        list_models,
    } = app;
    let (later_tx, later_rx) = mpsc::unbounded_channel::<Event>();
    let (agent_tx, agent_rx) = mpsc::unbounded_channel::<AgentEvent>();
    let (turn_tx, turn_rx) = mpsc::unbounded_channel::<AgentCommand>();
    let mut agent = Agent::new(model, registry.clone(), tools, specs, agent_tx).with_cwd(&cwd);
    if let Some(s) = system {
        agent = agent.with_system(s);
    }
    spawn_agent(agent, turn_rx);
    let mut inputs = Inputs {
        keys,
        runtime_events,
        agent: agent_rx,
        later: later_rx,
        signals,
    };
    if let Some(path) = &history_file {
        state.input.set_history(read_history(path));
    }
    let mut runner = Runner {
        pending: HashMap::new(),
        turn: CancelToken::new(),
        turns: turn_tx,
        mode,
        registry,
        cwd,
        home: std::env::var_os("HOME").map(PathBuf::from),
        history_file,
        settings_file,
        switch_model,
        list_models,
        later: later_tx,
    };
    state.mode = runner.mode.get();
    if let Ok(size) = terminal.size() {
        state.size = (size.width, size.height);
    }
    state.now = Instant::now();
    if let Some(text) = auto_start {
        for a in update(&mut state, Event::StartTurn { text, shown: false }) {
            runner.act(&mut state, a);
        }
    }
    run_until_quit(terminal, &mut state, &mut runner, &mut inputs).await?;
    runner.turn.cancel();
    runner.pending.clear();
    Ok(())
}

/// Runs the agent's turns on a task of its own, one command at a time.
fn spawn_agent(mut agent: Agent, mut commands: UnboundedReceiver<AgentCommand>) {
    tokio::spawn(async move {
        while let Some(cmd) = commands.recv().await {
            match cmd {
                AgentCommand::Turn(text, cancel) => agent.turn(text, cancel).await,
                AgentCommand::Clear => agent.clear(),
                AgentCommand::SetModel(m) => agent.set_model(m),
            }
        }
    });
}

/// What the loop waits on besides the clock.
struct Inputs {
    keys: UnboundedReceiver<ct::Event>,
    /// Approval requests and runtime notices.
    runtime_events: UnboundedReceiver<RuntimeEvent>,
    agent: UnboundedReceiver<AgentEvent>,
    /// What the loop's own work sends back.
    later: UnboundedReceiver<Event>,
    /// A signal that ends the TUI (checked at least every tick).
    signals: Signals,
}

/// Draws, waits for the next event, updates the state and carries out the actions, until the
/// person quits; ends early only when drawing fails.
async fn run_until_quit(
    terminal: &mut Term,
    state: &mut State,
    runner: &mut Runner,
    inputs: &mut Inputs,
) -> io::Result<()> {
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        terminal.draw(|f| render(state, f))?;
        let event = tokio::select! {
            Some(ev) = inputs.keys.recv() => match from_terminal(ev) {
                Some(e) => e,
                None => continue,
            },
            Some(ev) = inputs.runtime_events.recv() => runner.runtime_event(state.lang, ev),
            Some(ev) = inputs.agent.recv() => Event::Agent(ev),
            Some(ev) = inputs.later.recv() => ev,
            _ = ticks.tick() => Event::Tick(Instant::now()),
        };
        state.now = Instant::now();
        let mut go_on = true;
        for a in update(state, event) {
            go_on &= runner.act(state, a);
        }
        runner.shown(state);
        if !go_on || state.quit || inputs.signals.received().is_some() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_file_keeps_messages_of_several_lines_one_a_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(".harness9").join(HISTORY_FILE);
        assert!(read_history(&path).is_empty(), "no file: no history");
        append_history(&path, "first").expect("written");
        append_history(&path, "two\nlines").expect("written");
        let mut text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 2);
        text.push_str("not json\n");
        std::fs::write(&path, text).expect("written");
        assert_eq!(read_history(&path), ["first", "two\nlines"]);
    }

    #[test]
    fn permissions_lists_the_sessions_rules_then_the_allowlists_numbered() {
        let path = Path::new(".harness9/settings.json");
        let rules = listed_rules(
            &[ProposedRule::prefix(&["git", "init"])],
            Some((path, vec!["bash(npm test *)".to_string()])),
        );
        assert_eq!(
            rules[1],
            ("bash(npm test *)".into(), RuleSource::Settings(path.into()))
        );
        let text = permissions_text(Lang::En, &rules, Some(path));
        assert_eq!(
            text,
            "Rules that allow without asking:\n  this session (in memory)\n    1. bash(git init *)\n  \
             .harness9/settings.json\n    2. bash(npm test *)\nRemove one with /permissions rm N."
        );
        let none = permissions_text(Lang::En, &[], Some(path));
        assert!(none.contains("(none)") && !none.contains("rm N"), "{none}");
    }

    #[test]
    fn a_grant_in_the_session_and_the_allowlist_is_listed_once_where_it_lives() {
        let path = Path::new(".harness9/settings.json");
        let rules = listed_rules(
            &[
                ProposedRule::prefix(&["git", "init"]),
                ProposedRule::prefix(&["cargo", "build"]),
            ],
            Some((
                path,
                vec![
                    "bash(git init *)".to_string(),
                    "bash(git init *)".to_string(),
                ],
            )),
        );
        assert_eq!(
            rules,
            [
                (
                    "bash(cargo build *)".to_string(),
                    RuleSource::Session(ProposedRule::prefix(&["cargo", "build"]))
                ),
                (
                    "bash(git init *)".to_string(),
                    RuleSource::Settings(path.into())
                ),
            ]
        );
    }

    #[test]
    fn the_working_folder_under_home_reads_with_a_tilde() {
        let home = Path::new("/home/ann");
        assert_eq!(
            display_cwd(Path::new("/home/ann/src/x"), Some(home)),
            "~/src/x"
        );
        assert_eq!(display_cwd(Path::new("/home/ann"), Some(home)), "~");
        assert_eq!(
            display_cwd(Path::new("/home/annie"), Some(home)),
            "/home/annie"
        );
        assert_eq!(display_cwd(Path::new("/tmp/w"), None), "/tmp/w");
    }
}
