//! `harness9 lsp`: the language server, on standard input and output.

use clap::Args;

#[derive(Args, Debug)]
pub struct LspArgs {
    /// Serve on standard input and output (the only transport; accepted because editors'
    /// clients often pass it).
    #[arg(long)]
    stdio: bool,
}

/// Serves until the client sends `exit`: 0 after `shutdown`, 1 when the conversation ended
/// any other way (the reason on standard error).
pub fn lsp(a: LspArgs) -> i32 {
    let _ = a.stdio;
    match harness9::lsp::run_stdio() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("harness9 lsp: {e}");
            1
        }
    }
}
