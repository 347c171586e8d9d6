//! The UCI protocol server, thin over [`crate::engine::Engine`]: input parsing
//! ([`command`]), reading lines ([`input`]), the session state ([`session`]), and
//! everything written back ([`output`]). The client side — driving external engines — is
//! in [`crate::matches::uci_client`].

pub mod command;
pub mod debug;
pub mod input;
pub mod output;
pub mod session;

pub use output::Output;
pub use session::{Flow, Session};

/// Runs the UCI loop on stdin/stdout until `quit` or end of input.
pub fn run() {
    let out = Output::stdout();
    let mut session = Session::new(out.clone());
    let stdin = std::io::stdin();
    // A person at a terminal gets a hint; a GUI (stdin a pipe) sees nothing it did not ask for.
    if std::io::IsTerminal::is_terminal(&stdin) {
        out.line(&format!(
            "{} (UCI engine): type uci, then position startpos and go depth 10; quit to leave",
            crate::ENGINE_NAME
        ));
    }
    let mut reader = stdin.lock();
    let mut buf = Vec::new();
    loop {
        match input::read_line(&mut reader, &mut buf) {
            input::Line::Text(line) => {
                if session.handle(&line) == Flow::Quit {
                    break;
                }
            }
            input::Line::TooLong(n) => {
                out.error(&format!("input line of {n} bytes is too long; ignored"));
            }
            // End of input means the GUI is gone: stop searching and leave.
            input::Line::Eof => break,
        }
    }
    session.shutdown();
}
