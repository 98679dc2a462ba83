//! A UI's panic hook can tell a panic the runtime catches (a hook's, which becomes a denial)
//! from one that ends the program, so the TUI restores the terminal only for the latter.
//! Alone in its file: panic hooks are global to the process.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use harness9::runtime::{panic_is_caught, HookContext, HookRegistry, ModeHandle};
use harness9::{Action, Mode, ToolCall};

mod common;
use common::{Output, Panicking};

/// 0: no panic seen; 1: a caught one; 2: an uncaught one.
static SEEN: AtomicU8 = AtomicU8::new(0);

#[test]
fn a_panic_hook_can_tell_a_caught_hook_panic_from_an_uncaught_one() {
    std::panic::set_hook(Box::new(|_| {
        SEEN.store(if panic_is_caught() { 1 } else { 2 }, Ordering::SeqCst);
    }));
    let reg = HookRegistry::new(ModeHandle::new(Mode::Default)).with_hook(Arc::new(Panicking));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let done = rt.block_on(reg.execute(
        HookContext::default(),
        ToolCall::primary("bash", "ls"),
        &Output(String::new()),
    ));
    assert_eq!(done.record.action, Action::Deny);
    assert_eq!(SEEN.load(Ordering::SeqCst), 1, "the hook's panic is caught");
    assert!(!panic_is_caught(), "nothing is being caught now");
    let _ = std::thread::spawn(|| panic!("a bug elsewhere")).join();
    assert_eq!(SEEN.load(Ordering::SeqCst), 2, "a thread's panic is not");
    let _ = std::panic::take_hook();
}
