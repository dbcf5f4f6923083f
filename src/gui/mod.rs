//! `menagerie gui`: a board in the browser for every loaded variant. The
//! engine runs in this process; the page talks to it through a small JSON
//! API ([`api`]) and server-sent events ([`hub`]), served over HTTP
//! ([`server`]) with its files built in ([`assets`]), to its own page only
//! ([`access`]).

pub mod access;
pub mod api;
pub mod assets;
pub mod hub;
pub mod server;
pub mod session;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::eval::catalogue::Catalogue;
use access::TokenRule;

/// Arguments of `menagerie gui`.
#[derive(clap::Args, Debug, Clone)]
pub struct GuiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on (only this machine by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser; `--open GAME.pgn` also puts
    /// the file's first game on the board (its variant from the Variant tag).
    #[arg(long, num_args = 0..=1, value_name = "GAME.pgn")]
    pub open: Option<Option<PathBuf>>,
    /// On an address other machines can reach, serve without the token
    /// (anyone who reaches the port can then drive the board and the engine).
    #[arg(long)]
    pub no_token: bool,
}

/// Serves the page until the process is stopped.
pub fn run_gui(args: &GuiArgs, catalogue: Catalogue) -> ExitCode {
    let Some(app) = api::App::new(catalogue) else {
        eprintln!("error: no loaded variant has a valid start position");
        return ExitCode::FAILURE;
    };
    if let Some(Some(path)) = &args.open {
        if let Err(e) = open_game(&app, path) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let rule = if args.no_token { TokenRule::Off } else { TokenRule::Auto };
    let server = match server::start_with(Arc::new(app), &args.host, args.port, rule) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = server.addr();
    // On every interface, the page is shown at this machine's loopback address.
    let shown = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::from((Ipv4Addr::LOCALHOST, addr.port())),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::from((Ipv6Addr::LOCALHOST, addr.port())),
        _ => addr,
    };
    if !addr.ip().is_loopback() {
        let elsewhere = if shown == addr {
            String::new()
        } else {
            format!(" (from another machine, use this machine's address in place of {})", shown.ip())
        };
        match server.token() {
            Some(_) => eprintln!(
                "warning: listening on {addr}, which other machines can reach: the board asks for the token in the address below{elsewhere}"
            ),
            None => eprintln!(
                "warning: listening on {addr} without a token (--no-token): anyone who can reach this port can drive the board and make the engine think{elsewhere}"
            ),
        }
    }
    let url = match server.token() {
        Some(token) => format!("http://{shown}/?token={token}"),
        None => format!("http://{shown}/"),
    };
    println!("menagerie gui: {url} (Ctrl-C to stop)");
    if args.open.is_some() {
        open_browser(&url);
    }
    server.join();
    ExitCode::SUCCESS
}

/// Puts the first game of the PGN file at `path` on the board, through
/// the page's own import; the reason in one line when it cannot.
fn open_game(app: &api::App, path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let reply = api::handle(app, "POST", "/api/pgn", &serde_json::json!({ "pgn": text }).to_string());
    if reply.status == 200 {
        return Ok(());
    }
    let error = serde_json::from_str::<serde_json::Value>(&reply.body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string));
    Err(error.unwrap_or(reply.body))
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
