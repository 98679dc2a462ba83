//! `harness9 lsp`: a language server for policy files and `.harness9/settings.json`, over
//! standard input and output.
//!
//! - diagnostics: what `harness9 lint` says (the same code), published when a document is
//!   opened, changed or saved;
//! - hover: a rule in words, with the built-in rules it silences or overrides; an effect's
//!   meaning; what the other statements do;
//! - completion: keywords, matchers, tools and effects, by what the cursor follows;
//! - formatting: `harness9 fmt`, as one edit of the whole document (none when it is
//!   unchanged or does not parse);
//! - go to definition on an `include` path.
//!
//! The server is one thread answering one message at a time; a burst of changes is linted
//! once, when no message is waiting. Bad input is answered with an error (or ignored, for a
//! notification), never with a panic.

mod complete;
mod diagnostics;
mod hover;
pub mod text;
pub mod transport;

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response, ResponseError};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, Formatting, GotoDefinition, HoverRequest, Initialize, Request as LspRequest,
    Shutdown,
};
use lsp_types::{
    CompletionOptions, CompletionParams, CompletionResponse, DocumentFormattingParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams,
    HoverProviderCapability, InitializeParams, InitializeResult, Location, MarkupContent,
    MarkupKind, OneOf, PublishDiagnosticsParams, Range, SaveOptions, ServerCapabilities,
    ServerInfo, TextDocumentContentChangeEvent, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Url,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use complete::{complete, option_keywords, statement_keywords};
pub use diagnostics::{lint_document, to_lsp};
pub use hover::{describe_effect, describe_matcher, describe_rule, hover, overridden_builtins};
pub use text::LineIndex;

use crate::diag::Source;
use crate::engine::PathContext;
use crate::lint::Options;
use crate::policy::ast::Statement;
use crate::policy::fmt::format_policy;
use crate::policy::parse_policy;

/// How the conversation with the client ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown`: the orderly end.
    Exit,
    /// `exit` without `shutdown`.
    ExitWithoutShutdown,
    /// The client closed the connection (or sent what is not a message), after `shutdown`
    /// or not.
    Closed { after_shutdown: bool },
}

/// Why a conversation with the client did not end in order.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot start the server's threads: {0}")]
    Start(#[source] std::io::Error),
    #[error("the client sent `exit` before `shutdown`")]
    ExitWithoutShutdown,
    #[error("the client closed the connection without `shutdown`")]
    ClosedWithoutShutdown,
    /// An answer could not be sent.
    #[error("cannot write to the client: its end of the connection is closed")]
    ClientGone,
    /// Reading the client's messages or writing the answers failed.
    #[error(transparent)]
    Transport(#[from] transport::TransportError),
}

/// Serves on standard input and output until the client ends the conversation. `Err` says
/// why it did not end in order (an `exit` without `shutdown`, a closed or unreadable input).
pub fn run_stdio() -> Result<(), ServerError> {
    let (connection, io) = transport::stdio().map_err(ServerError::Start)?;
    let ending = serve(&connection);
    // The writer stops once every sender is gone.
    drop(connection);
    // When answers could not be sent, the reader may still wait for input: leave it.
    match ending? {
        Ending::Exit => Ok(io.join()?),
        Ending::ExitWithoutShutdown => {
            io.join()?;
            Err(ServerError::ExitWithoutShutdown)
        }
        Ending::Closed { after_shutdown } => {
            io.join()?;
            if after_shutdown {
                Ok(())
            } else {
                Err(ServerError::ClosedWithoutShutdown)
            }
        }
    }
}

/// Answers the client's messages until `exit` or the end of its input. `Err` when answers
/// can no longer be sent.
pub fn serve(connection: &Connection) -> Result<Ending, ServerError> {
    let mut server = Server::default();
    loop {
        let msg = if server.stale.is_empty() {
            match connection.receiver.recv() {
                Ok(m) => m,
                Err(_) => return Ok(server.closed()),
            }
        } else {
            match connection.receiver.try_recv() {
                Ok(m) => m,
                Err(e) if e.is_empty() => {
                    server.publish_stale(connection)?;
                    continue;
                }
                Err(_) => return Ok(server.closed()),
            }
        };
        match msg {
            Message::Request(req) => {
                let response = server.request(req);
                send(connection, response.into())?;
            }
            Message::Notification(n) if n.method == "exit" => {
                return Ok(if server.state == State::ShutDown {
                    Ending::Exit
                } else {
                    Ending::ExitWithoutShutdown
                });
            }
            Message::Notification(n) => {
                if let Some(cleared) = server.notification(n) {
                    send(connection, cleared.into())?;
                }
            }
            // The server sends no requests, so a response answers nothing.
            Message::Response(_) => {}
        }
    }
}

fn send(connection: &Connection, msg: Message) -> Result<(), ServerError> {
    connection
        .sender
        .send(msg)
        .map_err(|_| ServerError::ClientGone)
}

/// Why a notification was ignored (noted on standard error).
#[derive(Debug, thiserror::Error)]
enum Ignored {
    #[error("invalid parameters: {0}")]
    InvalidParameters(#[source] serde_json::Error),
    /// A change to a document that was not opened.
    #[error("`{0}` changed but is not open")]
    NotOpen(Url),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Uninitialized,
    Running,
    ShutDown,
}

/// What a document is to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `*.policy` file (or one the client calls `harness9…`): every feature.
    Policy,
    /// `.harness9/settings.json`: lint's diagnostics for settings.
    Settings,
    /// Anything else a client sends (a generic client attaches to all plain-text or JSON
    /// files): left alone.
    Other,
}

impl Kind {
    fn of(path: &Path, language_id: &str) -> Kind {
        let in_harness9 = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".harness9");
        if path.file_name().is_some_and(|n| n == "settings.json") && in_harness9 {
            Kind::Settings
        } else if path.extension().is_some_and(|e| e == "policy")
            || (language_id.starts_with("harness9") && !language_id.contains("json"))
        {
            Kind::Policy
        } else {
            Kind::Other
        }
    }
}

/// An open document.
#[derive(Debug)]
struct Document {
    text: String,
    version: i32,
    /// Where it is (or would be) saved: its diagnostics' name, what includes are relative to.
    path: PathBuf,
    kind: Kind,
}

impl Document {
    fn name(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// Whether hover, completion, formatting and definition apply.
    fn is_policy(&self) -> bool {
        self.kind == Kind::Policy
    }
}

#[derive(Debug)]
struct Server {
    state: State,
    docs: HashMap<Url, Document>,
    /// Documents whose diagnostics are out of date, in the order they changed.
    stale: Vec<Url>,
    opts: Options,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            state: State::default(),
            docs: HashMap::new(),
            stale: Vec::new(),
            opts: Options {
                builtin: true,
                ctx: PathContext::from_env(),
                strict: false,
                allow_dead: false,
                managed: crate::hooks::managed_policies().unwrap_or_default(),
            },
        }
    }
}

/// An error answer: its code and message.
type Failure = (ErrorCode, String);

impl Server {
    fn closed(&self) -> Ending {
        Ending::Closed {
            after_shutdown: self.state == State::ShutDown,
        }
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let refuse =
            |code: ErrorCode, message: String| Response::new_err(id.clone(), code as i32, message);
        match (self.state, req.method.as_str()) {
            (State::Uninitialized, Initialize::METHOD) => {
                self.answer::<Initialize>(req, Server::initialize)
            }
            (State::Uninitialized, m) => refuse(
                ErrorCode::ServerNotInitialized,
                format!("`{m}` before `initialize`"),
            ),
            (State::ShutDown, m) => refuse(
                ErrorCode::InvalidRequest,
                format!("`{m}` after `shutdown`: only `exit` is left"),
            ),
            (State::Running, Initialize::METHOD) => refuse(
                ErrorCode::InvalidRequest,
                "`initialize` was already received".into(),
            ),
            (State::Running, Shutdown::METHOD) => {
                self.state = State::ShutDown;
                Response::new_ok(id, ())
            }
            (State::Running, HoverRequest::METHOD) => {
                self.answer::<HoverRequest>(req, Server::hover)
            }
            (State::Running, Completion::METHOD) => {
                self.answer::<Completion>(req, Server::completion)
            }
            (State::Running, Formatting::METHOD) => self.answer::<Formatting>(req, Server::format),
            (State::Running, GotoDefinition::METHOD) => {
                self.answer::<GotoDefinition>(req, Server::definition)
            }
            (State::Running, m) => refuse(
                ErrorCode::MethodNotFound,
                format!("harness9 lsp does not answer `{m}`"),
            ),
        }
    }

    /// Runs a request's handler on its parameters: an error for parameters of the wrong
    /// shape, and for a handler that fails or panics.
    fn answer<R>(
        &mut self,
        req: Request,
        handler: fn(&mut Server, R::Params) -> Result<R::Result, Failure>,
    ) -> Response
    where
        R: LspRequest,
        R::Params: DeserializeOwned,
        R::Result: Serialize,
    {
        let id = req.id;
        let params: R::Params = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => {
                return Response::new_err(
                    id,
                    ErrorCode::InvalidParams as i32,
                    format!("invalid parameters of `{}`: {e}", R::METHOD),
                )
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| handler(self, params)));
        let (code, message) = match outcome {
            Ok(Ok(result)) => match serde_json::to_value(result) {
                Ok(value) => {
                    return Response {
                        id,
                        response_result: Ok(value),
                    }
                }
                Err(e) => (
                    ErrorCode::InternalError,
                    format!("cannot encode the answer to `{}`: {e}", R::METHOD),
                ),
            },
            Ok(Err(failure)) => failure,
            Err(panic) => (
                ErrorCode::InternalError,
                format!(
                    "an internal error while answering `{}`: {}",
                    R::METHOD,
                    panic_message(panic.as_ref())
                ),
            ),
        };
        Response {
            id,
            response_result: Err(ResponseError {
                code: code as i32,
                message,
                data: None,
            }),
        }
    }

    fn initialize(&mut self, params: InitializeParams) -> Result<InitializeResult, Failure> {
        // Relative paths in rules are read against the workspace's folder, as `harness9 lint`
        // run there reads them.
        #[allow(deprecated)]
        let root = params
            .workspace_folders
            .iter()
            .flatten()
            .map(|f| &f.uri)
            .chain(params.root_uri.as_ref())
            .find_map(|u| u.to_file_path().ok())
            .or_else(|| params.root_path.as_ref().map(PathBuf::from));
        if let Some(root) = root {
            self.opts.ctx = PathContext::new(root, self.opts.ctx.home.clone());
        }
        self.state = State::Running;
        Ok(InitializeResult {
            capabilities: capabilities(),
            server_info: Some(ServerInfo {
                name: "harness9".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    /// Handles a notification; returns a message to send at once (cleared diagnostics of a
    /// closed document).
    fn notification(&mut self, n: Notification) -> Option<Notification> {
        if self.state != State::Running {
            return None;
        }
        let method = n.method.clone();
        let result = match method.as_str() {
            DidOpenTextDocument::METHOD => parse::<DidOpenTextDocument>(n).map(|p| {
                let doc = p.text_document;
                let path = path_of(&doc.uri, &self.opts.ctx.cwd);
                let kind = Kind::of(&path, &doc.language_id);
                self.docs.insert(
                    doc.uri.clone(),
                    Document {
                        text: doc.text,
                        version: doc.version,
                        path,
                        kind,
                    },
                );
                self.mark_stale(doc.uri);
                None
            }),
            DidChangeTextDocument::METHOD => parse::<DidChangeTextDocument>(n).and_then(|p| {
                let uri = p.text_document.uri;
                let doc = self
                    .docs
                    .get_mut(&uri)
                    .ok_or_else(|| Ignored::NotOpen(uri.clone()))?;
                for change in p.content_changes {
                    apply_change(&mut doc.text, change);
                }
                doc.version = p.text_document.version;
                self.mark_stale(uri);
                Ok(None)
            }),
            DidSaveTextDocument::METHOD => parse::<DidSaveTextDocument>(n).map(|p| {
                let uri = p.text_document.uri;
                if let Some(doc) = self.docs.get_mut(&uri) {
                    if let Some(text) = p.text {
                        doc.text = text;
                    }
                    // Saved, an included file may have changed too: lint again.
                    self.mark_stale(uri);
                }
                None
            }),
            DidCloseTextDocument::METHOD => parse::<DidCloseTextDocument>(n).map(|p| {
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                self.stale.retain(|u| *u != uri);
                Some(publish(uri, Vec::new(), None))
            }),
            // `$/cancelRequest` (answers are never pending), configuration, and the rest.
            _ => Ok(None),
        };
        result.unwrap_or_else(|e| {
            eprintln!("harness9 lsp: `{method}` ignored: {e}");
            None
        })
    }

    fn mark_stale(&mut self, uri: Url) {
        if !self.stale.contains(&uri) {
            self.stale.push(uri);
        }
    }

    /// Lints every stale document and publishes its diagnostics.
    fn publish_stale(&mut self, connection: &Connection) -> Result<(), ServerError> {
        for uri in std::mem::take(&mut self.stale) {
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            if doc.kind == Kind::Other {
                continue;
            }
            let linted = catch_unwind(AssertUnwindSafe(|| {
                lint_document(&uri, &doc.path, &doc.text, &self.opts)
            }));
            let diagnostics = match linted {
                Ok(d) => d,
                Err(panic) => {
                    eprintln!(
                        "harness9 lsp: an internal error while linting `{uri}`: {}",
                        panic_message(panic.as_ref())
                    );
                    continue;
                }
            };
            send(
                connection,
                publish(uri, diagnostics, Some(doc.version)).into(),
            )?;
        }
        Ok(())
    }

    fn doc(&self, uri: &Url) -> Result<&Document, Failure> {
        self.docs.get(uri).ok_or_else(|| {
            (
                ErrorCode::RequestFailed,
                format!("`{uri}` is not open (send `textDocument/didOpen` first)"),
            )
        })
    }

    fn hover(&mut self, p: HoverParams) -> Result<Option<Hover>, Failure> {
        let at = p.text_document_position_params;
        let doc = self.doc(&at.text_document.uri)?;
        if !doc.is_policy() {
            return Ok(None);
        }
        let ix = LineIndex::new(&doc.text);
        let offset = ix.offset(at.position);
        Ok(
            hover::hover(&doc.name(), &doc.text, offset, &self.opts.ctx).map(|(span, value)| {
                Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    }),
                    range: Some(ix.range(span)),
                }
            }),
        )
    }

    fn completion(&mut self, p: CompletionParams) -> Result<Option<CompletionResponse>, Failure> {
        let at = p.text_document_position;
        let doc = self.doc(&at.text_document.uri)?;
        if !doc.is_policy() {
            return Ok(None);
        }
        let offset = LineIndex::new(&doc.text).offset(at.position);
        Ok(Some(CompletionResponse::Array(complete(&doc.text, offset))))
    }

    fn format(&mut self, p: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>, Failure> {
        let doc = self.doc(&p.text_document.uri)?;
        if !doc.is_policy() {
            return Ok(None);
        }
        // A file that does not parse is left as it is, as `harness9 fmt` leaves it; lint's
        // diagnostics say why.
        let Ok(formatted) = format_policy(&Source::new(doc.name(), doc.text.as_str())) else {
            return Ok(None);
        };
        if formatted == doc.text {
            return Ok(None);
        }
        Ok(Some(vec![TextEdit {
            range: LineIndex::new(&doc.text).whole(),
            new_text: formatted,
        }]))
    }

    fn definition(
        &mut self,
        p: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>, Failure> {
        let at = p.text_document_position_params;
        let doc = self.doc(&at.text_document.uri)?;
        if !doc.is_policy() {
            return Ok(None);
        }
        let offset = LineIndex::new(&doc.text).offset(at.position);
        let name = doc.name();
        let (file, _) = parse_policy(&Source::new(name.as_str(), doc.text.as_str()));
        let target = file.statements.iter().find_map(|s| match s {
            Statement::Include(i) if i.span.start <= offset && offset <= i.span.end => {
                Some(hover::include_target(&name, &i.path.value))
            }
            _ => None,
        });
        let Some(target) = target.filter(|t| t.is_file()) else {
            return Ok(None);
        };
        let absolute = std::path::absolute(&target).unwrap_or(target);
        Ok(Url::from_file_path(&absolute)
            .ok()
            .map(|uri| GotoDefinitionResponse::Scalar(Location::new(uri, Range::default()))))
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["(".into(), "\"".into()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

fn parse<N: lsp_types::notification::Notification>(n: Notification) -> Result<N::Params, Ignored>
where
    N::Params: DeserializeOwned,
{
    serde_json::from_value(n.params).map_err(Ignored::InvalidParameters)
}

fn publish(
    uri: Url,
    diagnostics: Vec<lsp_types::Diagnostic>,
    version: Option<i32>,
) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    )
}

/// Where a document is saved: its file, or for another kind of URI (`untitled:`) a name in
/// the working folder.
fn path_of(uri: &Url, cwd: &Path) -> PathBuf {
    uri.to_file_path()
        .unwrap_or_else(|()| cwd.join(uri.path().trim_start_matches('/')))
}

/// Applies one change: the whole text, or a range of it (for a client that sends
/// incremental changes although full ones were asked for).
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let ix = LineIndex::new(text);
            let start = ix.offset(range.start);
            let end = ix.offset(range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::Position;

    #[test]
    fn only_policy_files_and_harness9_settings_are_served() {
        let kind = |p: &str, lang: &str| Kind::of(Path::new(p), lang);
        assert_eq!(kind("/p/team.policy", "plaintext"), Kind::Policy);
        assert_eq!(kind("/p/rules.txt", "harness9"), Kind::Policy);
        assert_eq!(kind("/p/.harness9/settings.json", "json"), Kind::Settings);
        assert_eq!(kind("/p/.vscode/settings.json", "json"), Kind::Other);
        assert_eq!(kind("/p/package.json", "json"), Kind::Other);
        assert_eq!(kind("/p/notes.txt", "plaintext"), Kind::Other);
    }

    #[test]
    fn an_incremental_change_replaces_its_utf16_range() {
        let mut text = "allow bash(\"😀\");\nask x;\n".to_string();
        apply_change(
            &mut text,
            TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(0, 12), Position::new(0, 14))),
                range_length: None,
                text: "git".into(),
            },
        );
        assert_eq!(text, "allow bash(\"git\");\nask x;\n");
        apply_change(
            &mut text,
            TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "deny y;".into(),
            },
        );
        assert_eq!(text, "deny y;");
    }
}
