//! The `searchlight` binary: UCI on stdin/stdout without a subcommand, otherwise one of
//! the tools (`perft`, `bench`, `epd`, `match`, `traps`, ...).

use std::process::ExitCode;

use searchlight::search::control::panic_message;

/// The exit status of a process whose reader went away (128 + SIGPIPE), as a shell reports it.
const BROKEN_PIPE_EXIT: i32 = 141;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    quiet_on_closed_stdout();
    searchlight::cli::main()
}

/// `searchlight traps ... | head` closes stdout early, and `println!` then panics. That is
/// no error of the program: end quietly, as a C tool killed by SIGPIPE would. (SIGPIPE
/// itself stays ignored, so that `match` still sees a crashed engine's pipe as an error
/// instead of dying with it.)
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = panic_message(info.payload());
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        default(info);
    }));
}
