//! The `searchlight` binary: UCI on stdin/stdout without a subcommand, otherwise one of
//! the tools (`perft`, `bench`, `epd`).

use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    searchlight::cli::main()
}
