//! Configuration of the agent: which model to talk to, the UI language, and runtime limits.
//!
//! Read, later overriding earlier, key by key:
//! 1. `$XDG_CONFIG_HOME/harness9/config.toml` (else `~/.config/harness9/config.toml`);
//! 2. `.harness9/config.toml` of the working folder;
//! 3. the environment: `HARNESS9_BASE_URL`, `HARNESS9_MODEL`, `HARNESS9_API_KEY`, with
//!    `OPENAI_BASE_URL` and `OPENAI_API_KEY` as fallbacks when nothing else sets them.
//!
//! ```toml
//! [model]
//! base_url = "http://localhost:11434/v1"
//! model = "qwen2.5-coder"
//! api_key_env = "MY_KEY"        # or api_key = "…"
//!
//! [ui]
//! language = "zh"               # "en" or "zh"; else from LC_ALL / LC_MESSAGES / LANG
//!
//! [runtime]
//! approval_timeout_secs = 300   # leave out to wait for a person forever; counted from
//!                               # when the request's dialog is shown
//! bash_timeout_secs = 120
//! output_cap_bytes = 262144
//! offload_bytes = 16384
//! ```
//!
//! A file that does not parse, holds a wrong type or an unknown key is a
//! [`Diagnostic`] pointing into it: the command line prints it before the TUI starts.
//!
//! A project's config file cannot send your API key elsewhere: when `base_url` comes from
//! `.harness9/config.toml` of the working folder, a key from your own config or the
//! environment is not sent to it (a key written in that same file is); [`Config::notes`] says
//! so.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::diag::{Diagnostic, Source};
use crate::policy::ast::Span;

/// The UI's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    Zh,
}

impl Language {
    /// The language a locale name (`zh_CN.UTF-8`, `en_US`) asks for; `None` when empty.
    pub fn from_locale(locale: &str) -> Option<Language> {
        let l = locale.trim();
        if l.is_empty() {
            None
        } else if l.to_ascii_lowercase().starts_with("zh") {
            Some(Language::Zh)
        } else {
            Some(Language::En)
        }
    }

    /// The config file's spelling: `en` or `zh`.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Zh => "zh",
        }
    }
}

/// Which model to talk to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelConfig {
    /// The API's base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8080/v1`.
    pub base_url: Option<String>,
    /// The model's name as the server knows it.
    pub model: Option<String>,
    /// The key to send as `Authorization: Bearer …`, resolved from `api_key`, `api_key_env`
    /// or the environment.
    pub api_key: Option<String>,
    /// The environment variable the key was read from, when it was.
    pub api_key_env: Option<String>,
}

/// Limits of the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Deny a call nobody answered within this time; `None` waits forever.
    pub approval_timeout: Option<Duration>,
    /// Kill a `bash` command after this long.
    pub bash_timeout: Duration,
    /// The most output a tool keeps (head and tail).
    pub output_cap_bytes: usize,
    /// Outputs larger than this go to a file under `.harness9/`; the model gets head, tail and
    /// the path.
    pub offload_bytes: usize,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            approval_timeout: None,
            bash_timeout: crate::runtime::tools::DEFAULT_TIMEOUT,
            output_cap_bytes: crate::runtime::tools::DEFAULT_OUTPUT_CAP,
            offload_bytes: DEFAULT_OFFLOAD_BYTES,
        }
    }
}

/// Outputs larger than this are offloaded to a file unless configured otherwise.
pub const DEFAULT_OFFLOAD_BYTES: usize = 16 * 1024;

/// Where a config file sits, which decides what it may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own file (`~/.config/harness9/config.toml`).
    User,
    /// The working folder's `.harness9/config.toml`: it came with the project.
    Project,
}

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub model: ModelConfig,
    pub language: Language,
    pub runtime: RuntimeConfig,
    /// The files that were read, in order.
    pub files: Vec<PathBuf>,
    /// Things a person should know about the configuration (a key that was not used, …).
    pub notes: Vec<String>,
}

/// Why the configuration could not be loaded.
#[derive(Debug)]
pub enum ConfigError {
    /// A file exists but could not be read.
    Read { path: PathBuf, error: String },
    /// A file does not parse, or holds a wrong type, an unknown key or a bad value.
    Invalid(Box<Diagnostic>),
}

impl ConfigError {
    /// The error as the command line prints it (no colours when `plain`).
    pub fn render(&self, plain: bool) -> String {
        match self {
            ConfigError::Read { .. } => format!("error: {self}\n"),
            ConfigError::Invalid(d) => crate::diag::render(std::slice::from_ref(d), plain),
        }
    }

    /// The diagnostic, when the problem is in a file's text.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            ConfigError::Invalid(d) => Some(d),
            ConfigError::Read { .. } => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, error } => {
                write!(f, "could not read {}: {error}", path.display())
            }
            ConfigError::Invalid(d) => write!(f, "{}: {}", d.location(), d.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl miette::Diagnostic for ConfigError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            ConfigError::Read { .. } => Some(Box::new("harness9::config-unreadable")),
            ConfigError::Invalid(d) => miette::Diagnostic::code(&**d),
        }
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            ConfigError::Read { .. } => None,
            ConfigError::Invalid(d) => miette::Diagnostic::help(&**d),
        }
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            ConfigError::Read { .. } => None,
            ConfigError::Invalid(d) => miette::Diagnostic::source_code(&**d),
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            ConfigError::Read { .. } => None,
            ConfigError::Invalid(d) => miette::Diagnostic::labels(&**d),
        }
    }
}

const KEYS_HELP: &str = "the keys are: [model] base_url, model, api_key, api_key_env; \
                         [ui] language (\"en\" or \"zh\"); [runtime] approval_timeout_secs, \
                         bash_timeout_secs, output_cap_bytes, offload_bytes";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    model: ModelSection,
    #[serde(default)]
    ui: UiSection,
    #[serde(default)]
    runtime: RuntimeSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSection {
    base_url: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    api_key: Option<String>,
    api_key_env: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UiSection {
    language: Option<Language>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimeSection {
    approval_timeout_secs: Option<Spanned<u64>>,
    bash_timeout_secs: Option<Spanned<u64>>,
    output_cap_bytes: Option<Spanned<u64>>,
    offload_bytes: Option<Spanned<u64>>,
}

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    File(Scope),
    Env,
}

impl RuntimeSection {
    /// Sets the limits this file names.
    fn apply_to(self, r: &mut RuntimeConfig) {
        if let Some(t) = self.approval_timeout_secs {
            r.approval_timeout = Some(Duration::from_secs(*t.get_ref()));
        }
        if let Some(t) = self.bash_timeout_secs {
            r.bash_timeout = Duration::from_secs(*t.get_ref());
        }
        if let Some(n) = self.output_cap_bytes {
            r.output_cap_bytes = usize::try_from(*n.get_ref()).unwrap_or(usize::MAX);
        }
        if let Some(n) = self.offload_bytes {
            r.offload_bytes = usize::try_from(*n.get_ref()).unwrap_or(usize::MAX);
        }
    }
}

/// The model's settings as the files, then the environment, set them; the server and the key
/// with where they came from.
#[derive(Default)]
struct ModelPicks {
    base_url: Option<(String, Origin)>,
    model: Option<String>,
    key: Option<(String, Origin)>,
    /// The variable a file said the key is in.
    key_env: Option<String>,
    /// The variable the key was read from.
    key_from_env: Option<String>,
}

impl ModelPicks {
    /// The `[model]` section of a file, over what earlier files set.
    fn take_file(&mut self, section: ModelSection, origin: Origin) {
        if let Some(u) = section.base_url {
            self.base_url = Some((u.into_inner(), origin));
        }
        if let Some(m) = section.model {
            self.model = Some(m.into_inner());
        }
        // A file that names where the key comes from overrides an earlier file's key.
        if let Some(k) = section.api_key {
            self.key = Some((k, origin));
            self.key_env = None;
        } else if let Some(e) = section.api_key_env {
            self.key = None;
            self.key_env = Some(e.into_inner());
        }
    }

    /// The environment's server, model and key, over the files'; OpenAI's variables only
    /// where nothing else set them.
    fn take_env(&mut self, env: &HashMap<String, String>, notes: &mut Vec<String>) {
        if let Some(u) = var(env, "HARNESS9_BASE_URL") {
            self.base_url = Some((u.to_string(), Origin::Env));
        } else if self.base_url.is_none() {
            self.base_url = var(env, "OPENAI_BASE_URL").map(|u| (u.to_string(), Origin::Env));
        }
        if let Some(m) = var(env, "HARNESS9_MODEL") {
            self.model = Some(m.to_string());
        }
        if let Some(k) = var(env, "HARNESS9_API_KEY") {
            self.key = Some((k.to_string(), Origin::Env));
            self.key_from_env = Some("HARNESS9_API_KEY".into());
        } else if self.key.is_none() {
            if let Some(name) = &self.key_env {
                match var(env, name) {
                    Some(k) => {
                        self.key = Some((k.to_string(), Origin::Env));
                        self.key_from_env = Some(name.clone());
                    }
                    None => notes.push(format!(
                        "api_key_env names `{name}`, but that environment variable is not set"
                    )),
                }
            } else if let Some(k) = var(env, "OPENAI_API_KEY") {
                self.key = Some((k.to_string(), Origin::Env));
                self.key_from_env = Some("OPENAI_API_KEY".into());
            }
        }
    }

    /// Drops a key that did not come from the project's own file when the project's file
    /// chose the server, and says so.
    fn withhold_key_from_project_server(&mut self, notes: &mut Vec<String>) {
        if let (Some((url, Origin::File(Scope::Project))), Some((_, key_origin))) =
            (&self.base_url, &self.key)
        {
            if *key_origin != Origin::File(Scope::Project) {
                notes.push(format!(
                    "not sending your API key to {url}: that base_url comes from this folder's \
                     .harness9/config.toml; set it in your own config file or HARNESS9_BASE_URL \
                     to use your key there"
                ));
                self.key = None;
                self.key_from_env = None;
            }
        }
    }

    fn into_model(self) -> ModelConfig {
        ModelConfig {
            base_url: self.base_url.map(|(u, _)| u),
            model: self.model.filter(|m| !m.trim().is_empty()),
            api_key: self.key.map(|(k, _)| k).filter(|k| !k.is_empty()),
            api_key_env: self.key_from_env,
        }
    }
}

/// The process's environment, as a map (variables that are not UTF-8 are left out).
pub fn process_env() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

fn var<'e>(env: &'e HashMap<String, String>, name: &str) -> Option<&'e str> {
    env.get(name).map(|s| s.trim()).filter(|s| !s.is_empty())
}

/// The config files read for working folder `cwd`, in order: the user's, then the project's.
pub fn default_files(cwd: &Path, env: &HashMap<String, String>) -> Vec<(PathBuf, Scope)> {
    let mut files = Vec::new();
    let user_dir = var(env, "XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var(env, "HOME").map(|h| Path::new(h).join(".config")));
    if let Some(dir) = user_dir {
        files.push((dir.join("harness9").join("config.toml"), Scope::User));
    }
    files.push((cwd.join(".harness9").join("config.toml"), Scope::Project));
    files
}

impl Config {
    /// Loads the configuration for working folder `cwd` from the default files and the
    /// process's environment.
    pub fn load(cwd: &Path) -> Result<Config, ConfigError> {
        let env = process_env();
        Config::load_from(&default_files(cwd, &env), &env)
    }

    /// Loads the configuration from `files` (missing ones are skipped; later ones override
    /// earlier ones key by key) and then `env`.
    pub fn load_from(
        files: &[(PathBuf, Scope)],
        env: &HashMap<String, String>,
    ) -> Result<Config, ConfigError> {
        let mut parsed = Vec::new();
        for (path, scope) in files {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(ConfigError::Read {
                        path: path.clone(),
                        error: e.to_string(),
                    })
                }
            };
            let name = path.display().to_string();
            parsed.push((path.clone(), *scope, parse_file(&name, &text)?));
        }
        Ok(Config::merge(parsed, env))
    }

    fn merge(files: Vec<(PathBuf, Scope, FileConfig)>, env: &HashMap<String, String>) -> Config {
        let mut config = Config::default();
        let mut picks = ModelPicks::default();
        let mut language: Option<Language> = None;

        for (path, scope, f) in files {
            config.files.push(path);
            picks.take_file(f.model, Origin::File(scope));
            if let Some(l) = f.ui.language {
                language = Some(l);
            }
            f.runtime.apply_to(&mut config.runtime);
        }

        picks.take_env(env, &mut config.notes);
        // A project's file must not send the user's key to a server it chose.
        picks.withhold_key_from_project_server(&mut config.notes);

        config.model = picks.into_model();
        config.language = language.unwrap_or_else(|| locale_language(env));
        config
    }

    /// Whether a real model is configured (a base URL and a model name); otherwise the agent
    /// runs the demo model.
    pub fn model_configured(&self) -> bool {
        let set = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
        set(&self.model.base_url) && set(&self.model.model)
    }
}

/// The language the locale asks for: the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set.
pub fn locale_language(env: &HashMap<String, String>) -> Language {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|k| var(env, k).and_then(Language::from_locale))
        .unwrap_or_default()
}

fn parse_file(name: &str, text: &str) -> Result<FileConfig, ConfigError> {
    let source = Source::new(name, text);
    let f: FileConfig = toml::from_str(text).map_err(|e| {
        let span = e
            .span()
            .map(|r| Span::new(r.start, r.end))
            .unwrap_or_default();
        let message = e.message().trim().replace('\n', " ");
        invalid(&source, span, message, KEYS_HELP.to_string())
    })?;

    if let Some(u) = &f.model.base_url {
        check_url(&source, u)?;
    }
    if let Some(m) = &f.model.model {
        if m.get_ref().trim().is_empty() {
            return Err(invalid(
                &source,
                span_of(m),
                "`model` is empty".into(),
                "give the model's name as the server knows it, e.g. \"gpt-4o-mini\"".into(),
            ));
        }
    }
    if let Some(e) = &f.model.api_key_env {
        let name = e.get_ref();
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(invalid(
                &source,
                span_of(e),
                format!("`{name}` is not an environment variable's name"),
                "api_key_env names the variable that holds the key, e.g. \"OPENAI_API_KEY\"".into(),
            ));
        }
    }
    let r = &f.runtime;
    for (key, value, min) in [
        ("approval_timeout_secs", &r.approval_timeout_secs, 1),
        ("bash_timeout_secs", &r.bash_timeout_secs, 1),
        ("output_cap_bytes", &r.output_cap_bytes, 1024),
        ("offload_bytes", &r.offload_bytes, 1024),
    ] {
        if let Some(v) = value {
            if *v.get_ref() < min {
                let help = if key == "approval_timeout_secs" {
                    "leave approval_timeout_secs out to wait for an answer without a limit"
                        .to_string()
                } else {
                    format!("{key} must be at least {min}")
                };
                return Err(invalid(
                    &source,
                    span_of(v),
                    format!("`{key}` is {}, less than {min}", v.get_ref()),
                    help,
                ));
            }
        }
    }
    Ok(f)
}

fn check_url(source: &Arc<Source>, u: &Spanned<String>) -> Result<(), ConfigError> {
    let text = u.get_ref();
    let problem = match url::Url::parse(text) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => return Ok(()),
        Ok(parsed) => format!("`{}` is not an http or https URL", parsed.scheme()),
        Err(e) => format!("`{text}` is not a URL: {e}"),
    };
    Err(invalid(
        source,
        span_of(u),
        problem,
        "base_url is the API's root, e.g. \"https://api.openai.com/v1\" or \
         \"http://localhost:8080/v1\""
            .into(),
    ))
}

fn span_of<T>(s: &Spanned<T>) -> Span {
    let r = s.span();
    Span::new(r.start, r.end)
}

fn invalid(source: &Arc<Source>, span: Span, message: String, help: String) -> ConfigError {
    ConfigError::Invalid(Box::new(
        Diagnostic::error(source, "bad-config", span, message).help(help),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    struct Dirs {
        _tmp: tempfile::TempDir,
        user: PathBuf,
        project: PathBuf,
    }

    fn dirs(user: Option<&str>, project: Option<&str>) -> Dirs {
        let tmp = tempfile::tempdir().expect("temp dir");
        let user_path = tmp.path().join("xdg/harness9/config.toml");
        let project_path = tmp.path().join("work/.harness9/config.toml");
        for (p, text) in [(&user_path, user), (&project_path, project)] {
            if let Some(text) = text {
                std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
                std::fs::write(p, text).expect("write");
            }
        }
        Dirs {
            user: user_path,
            project: project_path,
            _tmp: tmp,
        }
    }

    fn load(d: &Dirs, env: &HashMap<String, String>) -> Result<Config, ConfigError> {
        Config::load_from(
            &[
                (d.user.clone(), Scope::User),
                (d.project.clone(), Scope::Project),
            ],
            env,
        )
    }

    #[test]
    fn no_files_and_no_env_give_the_defaults_and_no_model() {
        let d = dirs(None, None);
        let c = load(&d, &env(&[])).expect("loads");
        assert_eq!(c.model, ModelConfig::default());
        assert!(!c.model_configured());
        assert_eq!(c.language, Language::En);
        assert_eq!(c.runtime, RuntimeConfig::default());
        assert!(c.files.is_empty());
    }

    #[test]
    fn default_files_respect_xdg_config_home_then_home() {
        let cwd = Path::new("/w");
        let files = default_files(cwd, &env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")]));
        assert_eq!(
            files,
            vec![
                (PathBuf::from("/x/harness9/config.toml"), Scope::User),
                (PathBuf::from("/w/.harness9/config.toml"), Scope::Project),
            ]
        );
        let files = default_files(cwd, &env(&[("HOME", "/h")]));
        assert_eq!(files[0].0, PathBuf::from("/h/.config/harness9/config.toml"));
        let files = default_files(
            cwd,
            &env(&[("XDG_CONFIG_HOME", "relative"), ("HOME", "/h")]),
        );
        assert_eq!(
            files[0].0,
            PathBuf::from("/h/.config/harness9/config.toml"),
            "a relative XDG_CONFIG_HOME is ignored, as the spec says"
        );
    }

    #[test]
    fn the_project_file_overrides_the_user_file_key_by_key() {
        let d = dirs(
            Some(
                "[model]\nbase_url = \"https://api.example.com/v1\"\nmodel = \"big\"\n\
                 [runtime]\nbash_timeout_secs = 30\noffload_bytes = 4096\n",
            ),
            Some("[model]\nmodel = \"small\"\n[runtime]\nbash_timeout_secs = 5\n[ui]\nlanguage = \"zh\"\n"),
        );
        let c = load(&d, &env(&[])).expect("loads");
        assert_eq!(
            c.model.base_url.as_deref(),
            Some("https://api.example.com/v1")
        );
        assert_eq!(c.model.model.as_deref(), Some("small"));
        assert_eq!(c.runtime.bash_timeout, Duration::from_secs(5));
        assert_eq!(c.runtime.offload_bytes, 4096);
        assert_eq!(c.language, Language::Zh);
        assert!(c.model_configured());
        assert_eq!(c.files, vec![d.user.clone(), d.project.clone()]);
    }

    #[test]
    fn the_environment_overrides_the_files() {
        let d = dirs(
            Some("[model]\nbase_url = \"https://a.example/v1\"\nmodel = \"m\"\napi_key = \"file-key\"\n"),
            None,
        );
        let c = load(
            &d,
            &env(&[
                ("HARNESS9_BASE_URL", "http://localhost:8080/v1"),
                ("HARNESS9_MODEL", "local"),
                ("HARNESS9_API_KEY", "env-key"),
            ]),
        )
        .expect("loads");
        assert_eq!(
            c.model.base_url.as_deref(),
            Some("http://localhost:8080/v1")
        );
        assert_eq!(c.model.model.as_deref(), Some("local"));
        assert_eq!(c.model.api_key.as_deref(), Some("env-key"));
        assert_eq!(c.model.api_key_env.as_deref(), Some("HARNESS9_API_KEY"));
    }

    #[test]
    fn openai_variables_are_only_fallbacks() {
        let d = dirs(None, None);
        let c = load(
            &d,
            &env(&[
                ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
                ("OPENAI_API_KEY", "sk-openai"),
                ("HARNESS9_MODEL", "gpt-4o-mini"),
            ]),
        )
        .expect("loads");
        assert_eq!(
            c.model.base_url.as_deref(),
            Some("https://api.openai.com/v1")
        );
        assert_eq!(c.model.api_key.as_deref(), Some("sk-openai"));
        assert!(c.model_configured());

        let d = dirs(
            Some("[model]\nbase_url = \"https://mine.example/v1\"\napi_key = \"mine\"\n"),
            None,
        );
        let c = load(
            &d,
            &env(&[
                ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
                ("OPENAI_API_KEY", "sk-openai"),
            ]),
        )
        .expect("loads");
        assert_eq!(c.model.base_url.as_deref(), Some("https://mine.example/v1"));
        assert_eq!(c.model.api_key.as_deref(), Some("mine"));
        assert!(!c.model_configured(), "no model name");
    }

    #[test]
    fn api_key_env_names_the_variable_holding_the_key() {
        let d = dirs(Some("[model]\napi_key_env = \"GROQ_KEY\"\n"), None);
        let c = load(&d, &env(&[("GROQ_KEY", "gsk"), ("OPENAI_API_KEY", "sk")])).expect("loads");
        assert_eq!(c.model.api_key.as_deref(), Some("gsk"));
        assert_eq!(c.model.api_key_env.as_deref(), Some("GROQ_KEY"));

        let c = load(&d, &env(&[("OPENAI_API_KEY", "sk")])).expect("loads");
        assert_eq!(
            c.model.api_key, None,
            "the named variable is unset: no fallback"
        );
        assert!(
            c.notes.iter().any(|n| n.contains("GROQ_KEY")),
            "{:?}",
            c.notes
        );
    }

    #[test]
    fn a_project_file_cannot_send_the_users_key_to_its_own_server() {
        let d = dirs(
            Some("[model]\nbase_url = \"https://api.openai.com/v1\"\nmodel = \"m\"\n"),
            Some("[model]\nbase_url = \"https://collector.example/v1\"\n"),
        );
        let c = load(&d, &env(&[("OPENAI_API_KEY", "sk-secret")])).expect("loads");
        assert_eq!(
            c.model.base_url.as_deref(),
            Some("https://collector.example/v1")
        );
        assert_eq!(c.model.api_key, None);
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("not sending your API key")),
            "{:?}",
            c.notes
        );

        // A key written in the project's own file goes to the project's server.
        let d = dirs(
            None,
            Some("[model]\nbase_url = \"http://localhost:1234/v1\"\nmodel = \"m\"\napi_key = \"local\"\n"),
        );
        let c = load(&d, &env(&[])).expect("loads");
        assert_eq!(c.model.api_key.as_deref(), Some("local"));

        // The user's HARNESS9_BASE_URL is the user's choice.
        let d = dirs(
            None,
            Some("[model]\nbase_url = \"https://collector.example/v1\"\n"),
        );
        let c = load(
            &d,
            &env(&[
                ("HARNESS9_BASE_URL", "https://api.openai.com/v1"),
                ("OPENAI_API_KEY", "sk"),
            ]),
        )
        .expect("loads");
        assert_eq!(c.model.api_key.as_deref(), Some("sk"));
    }

    #[test]
    fn language_comes_from_config_else_the_locale() {
        let d = dirs(None, None);
        let c = load(&d, &env(&[("LANG", "zh_CN.UTF-8")])).expect("loads");
        assert_eq!(c.language, Language::Zh);
        let c = load(
            &d,
            &env(&[("LC_ALL", "en_US.UTF-8"), ("LANG", "zh_CN.UTF-8")]),
        )
        .expect("loads");
        assert_eq!(c.language, Language::En, "LC_ALL comes first");
        let c = load(&d, &env(&[("LC_MESSAGES", "zh_TW"), ("LANG", "C")])).expect("loads");
        assert_eq!(c.language, Language::Zh);

        let d = dirs(Some("[ui]\nlanguage = \"en\"\n"), None);
        let c = load(&d, &env(&[("LANG", "zh_CN.UTF-8")])).expect("loads");
        assert_eq!(c.language, Language::En, "the config wins over the locale");
    }

    #[test]
    fn approval_timeout_is_optional() {
        let d = dirs(Some("[runtime]\napproval_timeout_secs = 90\n"), None);
        let c = load(&d, &env(&[])).expect("loads");
        assert_eq!(c.runtime.approval_timeout, Some(Duration::from_secs(90)));
        let d = dirs(None, None);
        assert_eq!(
            load(&d, &env(&[])).expect("loads").runtime.approval_timeout,
            None
        );
    }

    fn error_for(text: &str) -> Diagnostic {
        let d = dirs(None, Some(text));
        match load(&d, &env(&[])) {
            Err(ConfigError::Invalid(diag)) => *diag,
            other => panic!("{text:?} should be invalid, got {other:?}"),
        }
    }

    fn spanned<'a>(text: &'a str, diag: &Diagnostic) -> &'a str {
        let s = diag.span();
        &text[s.start..s.end]
    }

    #[test]
    fn bad_toml_points_at_the_problem() {
        let text = "[model]\nmodel = \"m\n";
        let diag = error_for(text);
        assert_eq!(diag.code, "bad-config");
        assert!(
            diag.location().ends_with("config.toml:2:11"),
            "{}",
            diag.location()
        );
    }

    #[test]
    fn a_wrong_type_points_at_the_value() {
        let text = "[runtime]\nbash_timeout_secs = \"ten\"\n";
        let diag = error_for(text);
        assert_eq!(spanned(text, &diag), "\"ten\"");
        assert!(diag.message.contains("invalid type"), "{}", diag.message);
    }

    #[test]
    fn an_unknown_key_points_at_the_key_and_lists_the_keys() {
        let text = "[model]\nbase_ur = \"http://x\"\n";
        let diag = error_for(text);
        assert_eq!(spanned(text, &diag), "base_ur");
        assert!(
            diag.message.contains("unknown field `base_ur`"),
            "{}",
            diag.message
        );
        assert!(diag.help.as_deref().is_some_and(|h| h.contains("base_url")));

        let text = "[models]\nmodel = \"m\"\n";
        let diag = error_for(text);
        assert!(
            diag.message.contains("unknown field `models`"),
            "{}",
            diag.message
        );
    }

    #[test]
    fn bad_values_point_at_the_value() {
        let text = "[ui]\nlanguage = \"fr\"\n";
        let diag = error_for(text);
        assert_eq!(spanned(text, &diag), "\"fr\"");

        let text = "[model]\nbase_url = \"ftp://x\"\n";
        let diag = error_for(text);
        assert_eq!(spanned(text, &diag), "\"ftp://x\"");
        assert!(
            diag.message.contains("not an http or https URL"),
            "{}",
            diag.message
        );

        let text = "[runtime]\nbash_timeout_secs = 0\n";
        let diag = error_for(text);
        assert_eq!(spanned(text, &diag), "0");

        let text = "[model]\napi_key_env = \"sk-abc123\"\n";
        let diag = error_for(text);
        assert!(
            diag.message.contains("not an environment variable"),
            "{}",
            diag.message
        );
    }

    #[test]
    fn a_rendered_error_shows_the_file_and_the_line() {
        let d = dirs(Some("[runtime]\noutput_cap_bytes = -5\n"), None);
        let err = load(&d, &env(&[])).expect_err("invalid");
        let text = err.render(true);
        assert!(text.contains("config.toml"), "{text}");
        assert!(text.contains("output_cap_bytes = -5"), "{text}");
    }

    #[test]
    fn an_unreadable_file_is_an_error_not_a_default() {
        let d = dirs(None, None);
        std::fs::create_dir_all(&d.user).expect("a folder where the file should be");
        match load(&d, &env(&[])) {
            Err(ConfigError::Read { path, .. }) => assert_eq!(path, d.user),
            other => panic!("expected a read error, got {other:?}"),
        }
    }
}
