//! The agent TUI: a conversation with a model whose tool calls go through harness9's hooks,
//! and the approval dialog for the calls a person decides.
//!
//! Split in layers, each naming only those below it: [`State`] is plain data, the floor;
//! [`dialog`] lays the approval dialog out and [`layout`] the screen's areas and the
//! conversation's rows, both over the state; [`render`] draws what they laid out and changes
//! nothing; [`update()`] turns an [`Event`] (a key, the mouse, an approval request, what the
//! agent did) into changes of the state and [`Action`]s for the app loop (answer a request,
//! start or cancel a turn, switch the mode), reading [`layout`] for scrolling. The app loop ([`app`]) owns the terminal,
//! the approval requests (with their responders) and the agent task ([`agent`]).

pub mod agent;
pub mod app;
pub mod dialog;
pub mod diff;
pub mod i18n;
pub mod input;
pub mod layout;
pub mod state;
pub mod text;
pub mod update;
pub mod view;
pub mod zh;

pub use agent::{Agent, AgentEvent};
pub use dialog::risk_color;
pub use i18n::{texts, Lang, Texts};
pub use state::{ApprovalView, Dialog, Entry, State, SubjectKind};
pub use update::{update, Action, Event, PermissionsCommand};
pub use view::render;
