//! `harness9 tui`: the agent TUI (also what a bare `harness9` runs on a terminal).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use tokio::sync::mpsc;

use harness9::engine::Mode;
use harness9::hooks::Project;
use harness9::model::config::{Config, Language};
use harness9::model::demo::DemoModel;
use harness9::model::openai::OpenAiModel;
use harness9::model::Model;
use harness9::runtime::hooks::{standard_registry_with, Options};
use harness9::runtime::tools::{self, Tools};
use harness9::runtime::{Approver, ModeHandle};
use harness9::tui::app::{self, App};
use harness9::tui::Entry;

use super::{parse_mode, plain_output, EXIT_USAGE};

#[derive(Args, Debug, Default)]
pub struct TuiArgs {
    /// Talk to the built-in scripted demo model (also used when no model is configured).
    #[arg(long)]
    demo: bool,
    /// The permission mode to start in: default, auto-approve, read-only, bypass
    /// (Shift+Tab cycles it while the TUI runs).
    #[arg(long, value_name = "M", value_parser = parse_mode, default_value = "default")]
    mode: Mode,
    /// The language of the texts, en or zh (default: the config's `[ui] language`, else the
    /// locale).
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    lang: Option<Language>,
    /// The working folder the agent's tools run in (default: the current folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

fn parse_lang(s: &str) -> Result<Language, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "en" | "english" => Ok(Language::En),
        "zh" | "chinese" | "中文" => Ok(Language::Zh),
        other => Err(format!("`{other}` is not a language: use en or zh")),
    }
}

/// Whether the TUI can run here: standard input and output are a terminal.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

pub fn tui(args: TuiArgs) -> i32 {
    if !on_terminal() {
        eprintln!("error: harness9 tui needs a terminal (standard input and output)");
        return EXIT_USAGE;
    }
    let here = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot read the current folder: {e}");
            return EXIT_USAGE;
        }
    };
    let cwd = match &args.cwd {
        Some(dir) => here.join(dir),
        None => here,
    };
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let config = match Config::load(&cwd) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", e.render(plain_output(false)));
            return EXIT_USAGE;
        }
    };
    let lang = args.lang.unwrap_or(config.language);
    let mut notes: Vec<String> = config.notes.clone();

    let configured = if args.demo {
        None
    } else {
        OpenAiModel::from_config(&config.model)
    };
    let demo = configured.is_none();
    let model: Arc<dyn Model> = match configured {
        Some(m) => Arc::new(m),
        None => {
            if !args.demo {
                notes.push(
                    "no model is configured, so the demo model runs: set HARNESS9_BASE_URL and \
                     HARNESS9_MODEL (or [model] in ~/.config/harness9/config.toml) to use your own"
                        .into(),
                );
            }
            Arc::new(DemoModel::new().with_language(lang))
        }
    };

    let mode = ModeHandle::new(args.mode);
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let approver = Approver::new(events_tx).with_timeout(config.runtime.approval_timeout);
    let options = Options {
        offload_bytes: config.runtime.offload_bytes,
    };
    let (registry, _loaded) = match standard_registry_with(
        Project::from_env(cwd.clone()),
        mode.clone(),
        Some(approver),
        options,
    ) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            if let harness9::hooks::SetupError::Load(load) = &e {
                super::report_load_error(load);
            }
            return EXIT_USAGE;
        }
    };
    let tools = Tools::new(cwd.clone())
        .timeout(config.runtime.bash_timeout)
        .output_cap(config.runtime.output_cap_bytes);

    let mut state = app::initial_state(lang, mode.get(), &model.name(), &cwd);
    state.entries.extend(notes.into_iter().map(Entry::Notice));
    let app = App {
        state,
        model,
        registry: Arc::new(registry),
        tools: Arc::new(tools),
        specs: tools::specs(),
        mode,
        runtime_events: events_rx,
        // The demo starts by itself, so a newcomer sees the approval dialog at once.
        auto_start: demo.then(String::new),
        system: (!demo).then(|| app::system_prompt(&cwd)),
    };
    match app::run(app) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            1
        }
    }
}
