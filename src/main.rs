//! The `harness9` command line.

mod cli;

fn main() {
    quiet_on_a_closed_pipe();
    std::process::exit(cli::run());
}

/// `harness9 explain … | head -1`: standard output closed early is the reader's choice, not a
/// crash. `println!` panics on it; this ends the process quietly instead, with the status a
/// shell gives a command ended by SIGPIPE (128 + 13).
fn quiet_on_a_closed_pipe() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        previous(info);
    }));
}
