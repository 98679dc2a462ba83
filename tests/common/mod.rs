//! Test doubles and a scratch project shared by the runtime's integration tests.
#![allow(dead_code)]
// each test crate uses its own part of this module
// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;
use harness9::hooks::SetupError;
use harness9::runtime::standard::{standard_registry_with, Loaded, Options};
use harness9::runtime::{
    Approver, CancelToken, HookContext, HookDecision, HookError, HookRegistry, InvalidCall,
    ModeHandle, ToolHook, ToolResult, ToolRunner,
};
use harness9::{Mode, ToolCall};
use serde_json::Value;

/// The single-threaded runtime the agent uses, with timers.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
}

pub fn bash(cmd: &str) -> ToolCall {
    ToolCall::primary("bash", cmd)
}

/// A tool that records the calls it ran and answers "ran". It accepts any call except a
/// `bash` call without a string `command`.
#[derive(Default)]
pub struct Echo {
    pub ran: Mutex<Vec<ToolCall>>,
}

#[async_trait]
impl ToolRunner for Echo {
    fn validate(&self, call: &ToolCall) -> Result<(), InvalidCall> {
        match call.name.as_str() {
            "bash" => match call.arguments.get("command") {
                Some(Value::String(_)) => Ok(()),
                _ => Err(InvalidCall::Rejected(
                    "`bash` needs a string `command`".into(),
                )),
            },
            _ => Ok(()),
        }
    }

    async fn run(&self, call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        self.ran.lock().expect("not poisoned").push(call.clone());
        ToolResult::ok("ran")
    }
}

/// A tool that takes any call and answers with this output.
pub struct Output(pub String);

#[async_trait]
impl ToolRunner for Output {
    fn validate(&self, _call: &ToolCall) -> Result<(), InvalidCall> {
        Ok(())
    }

    async fn run(&self, _call: &ToolCall, _cancel: &CancelToken) -> ToolResult {
        ToolResult::ok(self.0.clone())
    }
}

/// A hook whose `before_execute` fails with "the policy server is down".
pub struct Failing;

#[async_trait]
impl ToolHook for Failing {
    fn name(&self) -> &str {
        "failing"
    }

    async fn before_execute(
        &self,
        _ctx: HookContext,
        _call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        Err(HookError("the policy server is down".into()))
    }
}

/// A hook whose `before_execute` panics with "index out of bounds in a hook".
pub struct Panicking;

#[async_trait]
impl ToolHook for Panicking {
    fn name(&self) -> &str {
        "panicking"
    }

    async fn before_execute(
        &self,
        _ctx: HookContext,
        _call: &ToolCall,
    ) -> Result<(HookContext, HookDecision), HookError> {
        panic!("index out of bounds in a hook");
    }
}

/// A scratch working folder with a home folder of its own.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        Project {
            dir: tempfile::tempdir().expect("a temporary folder"),
            home: tempfile::tempdir().expect("a temporary home"),
        }
    }

    pub fn cwd(&self) -> &Path {
        self.dir.path()
    }

    /// `.harness9/`, created.
    pub fn h9(&self) -> PathBuf {
        let d = self.cwd().join(".harness9");
        std::fs::create_dir_all(&d).expect("the project folder");
        d
    }

    /// The project's state folder (audit log, offloaded outputs) under this home.
    pub fn state(&self) -> PathBuf {
        harness9::audit::state_dir_in(self.cwd(), Some(self.home.path())).expect("a state folder")
    }

    /// `.harness9/settings.json` (its folder created).
    pub fn settings(&self) -> PathBuf {
        self.h9().join("settings.json")
    }

    /// The standard chain over this project; outputs over 200 bytes are offloaded.
    pub fn try_registry(
        &self,
        mode: Mode,
        approver: Option<Approver>,
    ) -> Result<(HookRegistry, Loaded), SetupError> {
        let project = harness9::hooks::Project {
            cwd: self.cwd().to_path_buf(),
            home: Some(self.home.path().to_path_buf()),
            user_dir: None,
        };
        standard_registry_with(
            project,
            ModeHandle::new(mode),
            approver,
            Options {
                offload_bytes: 200,
                ..Options::default()
            },
        )
    }

    pub fn registry(&self, mode: Mode, approver: Option<Approver>) -> (HookRegistry, Loaded) {
        self.try_registry(mode, approver)
            .expect("the project loads")
    }

    /// The standard chain over this project, for a tool runner that contains the calls the
    /// policy contains (as the TUI's does where the sandbox works).
    pub fn containing_registry(&self, mode: Mode, approver: Option<Approver>) -> HookRegistry {
        let project = harness9::hooks::Project {
            cwd: self.cwd().to_path_buf(),
            home: Some(self.home.path().to_path_buf()),
            user_dir: None,
        };
        let options = Options {
            offload_bytes: 200,
            sandbox: harness9::sandbox::Support::Available,
        };
        standard_registry_with(project, ModeHandle::new(mode), approver, options)
            .expect("the project loads")
            .0
    }
}
