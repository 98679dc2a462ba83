//! `harness9 tui`: the agent TUI (also what a bare `harness9` runs on a terminal).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use tokio::sync::mpsc;

use harness9::engine::Mode;
use harness9::hooks::Project;
use harness9::model::config::{Config, Language, ModelConfig};
use harness9::model::demo::DemoModel;
use harness9::model::openai::OpenAiModel;
use harness9::model::Model;
use harness9::runtime::standard::{standard_registry_with, Options};
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

/// A model configuration with a server and no model name, or a name and no server: the
/// person meant to use their own model, so the demo must not run in its place.
pub fn half_configured(m: &ModelConfig) -> Option<String> {
    let set = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
    match (set(&m.base_url), set(&m.model)) {
        (true, false) => Some(format!(
            "a model server is set ({}) but no model: set HARNESS9_MODEL (or `model` under \
             [model] in ~/.config/harness9/config.toml), or run `harness9 tui --demo` for the \
             offline demo",
            m.base_url.as_deref().unwrap_or_default()
        )),
        (false, true) => Some(format!(
            "a model is set ({}) but no server: set HARNESS9_BASE_URL (or `base_url` under \
             [model] in ~/.config/harness9/config.toml), or run `harness9 tui --demo` for the \
             offline demo",
            m.model.as_deref().unwrap_or_default()
        )),
        _ => None,
    }
}

/// The demo's scratch folder, with a README for it to read.
fn make_scratch() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("harness9-demo-")
        .tempdir()?;
    std::fs::write(
        dir.path().join(harness9::model::demo::README_PATH),
        "# harness9 demo\n\nA scratch folder the offline demo made for itself; it is removed \
         when the TUI ends.\n",
    )?;
    Ok(dir)
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
    let cwd = match working_folder(&args) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let config = match Config::load(&cwd) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", e.render(plain_output(false)));
            return EXIT_USAGE;
        }
    };
    let lang = args.lang.unwrap_or(config.language);
    let mut notes: Vec<String> = config.notes.clone();

    if !args.demo {
        if let Some(problem) = half_configured(&config.model) {
            eprintln!("error: {problem}");
            return EXIT_USAGE;
        }
    }
    let configured = if args.demo {
        None
    } else {
        OpenAiModel::from_config(&config.model)
    };
    let demo = configured.is_none();
    let (scratch, cwd) = match demo_folder(demo, lang, cwd, &mut notes) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let model: Arc<dyn Model> = match configured {
        Some(m) => Arc::new(m),
        None => {
            if !args.demo {
                notes.push(harness9::tui::texts(lang).no_model.into());
            }
            Arc::new(DemoModel::new().with_language(lang))
        }
    };
    let setup = Setup {
        mode: args.mode,
        lang,
        model,
        demo,
        cwd,
        notes,
    };
    let app = match build_app(&config, setup) {
        Ok(app) => app,
        Err(code) => return code,
    };
    let result = app::run(app);
    drop(scratch);
    match result {
        Ok(None) => 0,
        // Ended by a signal: the shell's exit status for it, after the clean-up.
        Ok(Some(signal)) => 128 + signal,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            1
        }
    }
}

/// The folder the agent works in: `--cwd` (relative to the current folder), else the current
/// folder; canonical when it can be.
fn working_folder(args: &TuiArgs) -> Result<PathBuf, i32> {
    let here = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot read the current folder: {e}");
            return Err(EXIT_USAGE);
        }
    };
    let cwd = match &args.cwd {
        Some(dir) => here.join(dir),
        None => here,
    };
    Ok(std::fs::canonicalize(&cwd).unwrap_or(cwd))
}

/// The demo runs real commands (`git init`, `rm -rf`): in a scratch folder of its own, never
/// in the person's folder. It goes when the TUI ends (when the returned folder is dropped).
/// The folder the agent works in comes back with it: the scratch folder for the demo, else
/// `cwd`.
fn demo_folder(
    demo: bool,
    lang: Language,
    cwd: PathBuf,
    notes: &mut Vec<String>,
) -> Result<(Option<tempfile::TempDir>, PathBuf), i32> {
    let scratch = if demo {
        match make_scratch() {
            Ok(dir) => Some(dir),
            Err(e) => {
                eprintln!("error: cannot make a scratch folder for the demo: {e}");
                return Err(1);
            }
        }
    } else {
        None
    };
    let cwd = match &scratch {
        Some(dir) => {
            notes.push(
                harness9::tui::texts(lang)
                    .demo_scratch
                    .replace("{dir}", &dir.path().display().to_string()),
            );
            dir.path().to_path_buf()
        }
        None => cwd,
    };
    Ok((scratch, cwd))
}

/// What the app is built from, once the model and the working folder are settled.
struct Setup {
    mode: Mode,
    lang: Language,
    model: Arc<dyn Model>,
    demo: bool,
    cwd: PathBuf,
    notes: Vec<String>,
}

/// The hooks, the tools and the first state around the model, ready to run.
fn build_app(config: &Config, s: Setup) -> Result<App, i32> {
    let Setup {
        mode,
        lang,
        model,
        demo,
        cwd,
        notes,
    } = s;
    let mode = ModeHandle::new(mode);
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    // The TUI shows one request at a time: a request's timeout counts from its dialog.
    let approver = Approver::new(events_tx)
        .with_timeout(config.runtime.approval_timeout)
        .timing_from_shown();
    let options = Options {
        offload_bytes: config.runtime.offload_bytes,
        // The `bash` tool runs a contained call in the sandbox where it works here; where it
        // does not, the engine asks about such a call, saying why. The demo is there to show
        // the approval dialog: it asks about what the policy would contain.
        sandbox: match demo {
            true => harness9::sandbox::Support::Unavailable(
                "the demo asks about what the policy would run contained, to show the dialog"
                    .into(),
            ),
            false => harness9::sandbox::support(),
        },
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
            return Err(EXIT_USAGE);
        }
    };
    let tools = Tools::new(cwd.clone())
        .timeout(config.runtime.bash_timeout)
        .output_cap(config.runtime.output_cap_bytes);

    let mut state = app::initial_state(lang, mode.get(), &model.name(), &cwd);
    state.entries.extend(notes.into_iter().map(Entry::Notice));
    state.approval_timeout = config.runtime.approval_timeout;
    if let Some(secs) = std::env::var("HARNESS9_INACTIVITY_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        state.inactivity_timeout = (secs > 0).then(|| Duration::from_secs(secs));
    }
    let project_dir = cwd.join(".harness9");
    let switch_model: Option<app::ModelSwitch> = (!demo).then(|| {
        let base = config.model.clone();
        Box::new(move |name: &str| {
            let m = ModelConfig {
                model: Some(name.to_string()),
                ..base.clone()
            };
            OpenAiModel::from_config(&m).map(|m| Arc::new(m) as Arc<dyn Model>)
        }) as app::ModelSwitch
    });
    let list_models: Option<app::ModelLister> = OpenAiModel::from_config(&config.model)
        .filter(|_| !demo)
        .map(|m| Arc::new(move || m.list_models()) as app::ModelLister);
    Ok(App {
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
        // The history is the machine's: in the project's state folder, not the repository.
        history_file: harness9::audit::state_dir(&cwd)
            .ok()
            .map(|d| d.join(app::HISTORY_FILE)),
        settings_file: Some(project_dir.join("settings.json")),
        cwd,
        switch_model,
        list_models,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(base_url: Option<&str>, model: Option<&str>) -> ModelConfig {
        ModelConfig {
            base_url: base_url.map(String::from),
            model: model.map(String::from),
            ..ModelConfig::default()
        }
    }

    #[test]
    fn a_server_without_a_model_or_a_model_without_a_server_is_an_error() {
        let e = half_configured(&model(Some("http://127.0.0.1:8080/v1"), None));
        assert!(e.is_some_and(|e| e.contains("but no model") && e.contains("--demo")));
        let e = half_configured(&model(None, Some("qwen")));
        assert!(e.is_some_and(|e| e.contains("but no server")));
        assert_eq!(
            half_configured(&model(Some("http://x/v1"), Some("m"))),
            None
        );
        assert_eq!(
            half_configured(&model(None, None)),
            None,
            "nothing set: the demo"
        );
        assert_eq!(half_configured(&model(Some("  "), None)), None);
    }
}
