//! `menagerie gui`: a board in the browser for every loaded variant. The
//! engine runs in this process; the page talks to it through a small JSON
//! API ([`api`]) and server-sent events ([`hub`]), served over HTTP
//! ([`server`]) with its files built in ([`assets`]).

pub mod api;
pub mod assets;
pub mod hub;
pub mod server;
pub mod session;

use std::process::ExitCode;
use std::sync::Arc;

use crate::catalogue::Catalogue;

/// Arguments of `menagerie gui`.
#[derive(clap::Args, Debug, Clone)]
pub struct GuiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on (only this machine by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
}

/// Serves the page until the process is stopped.
pub fn run_gui(args: &GuiArgs, catalogue: Catalogue) -> ExitCode {
    let Some(app) = api::App::new(catalogue) else {
        eprintln!("error: no loaded variant has a valid start position");
        return ExitCode::FAILURE;
    };
    let server = match server::start(Arc::new(app), &args.host, args.port) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let url = format!("http://{}/", server.addr());
    println!("menagerie gui: {url} (Ctrl-C to stop)");
    if args.open {
        open_browser(&url);
    }
    server.join();
    ExitCode::SUCCESS
}

/// Asks the desktop to open `url`; a failure only costs a line of advice.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if std::process::Command::new(opener).arg(url).spawn().is_err() {
        eprintln!("could not start {opener}; open {url} in a browser");
    }
}
