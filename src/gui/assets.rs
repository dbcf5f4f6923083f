//! The page's files, built into the binary (plain HTML, CSS and JavaScript
//! with the piece drawings in SVG; no build step, nothing from the network).

const INDEX_HTML: &str = include_str!("assets/index.html");
const STYLE_CSS: &str = include_str!("assets/style.css");
/// The page's script: its parts, one file a job, joined into one file so
/// the page asks for as few files as before (each part's functions are
/// global, as in separate classic scripts): premoves against the engine,
/// arrows and circles on the board, the sounds and the mute switch, the game
/// kept in the page's address, then the board itself.
const APP_JS: &str = concat!(
    include_str!("assets/premove.js"),
    "\n",
    include_str!("assets/arrows.js"),
    "\n",
    include_str!("assets/sounds.js"),
    "\n",
    include_str!("assets/share.js"),
    "\n",
    include_str!("assets/app.js"),
);
const PIECES_JS: &str = include_str!("assets/pieces.js");
/// The tab's icon, drawn in SVG (browsers ask for `/favicon.ico` by themselves).
const FAVICON_SVG: &str = include_str!("assets/favicon.svg");

/// The content type and text of the file served at `path`, if any.
pub fn lookup(path: &str) -> Option<(&'static str, &'static str)> {
    match path {
        "/" | "/index.html" => Some(("text/html", INDEX_HTML)),
        "/style.css" => Some(("text/css", STYLE_CSS)),
        "/app.js" => Some(("text/javascript", APP_JS)),
        "/pieces.js" => Some(("text/javascript", PIECES_JS)),
        "/favicon.svg" | "/favicon.ico" => Some(("image/svg+xml", FAVICON_SVG)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_only_files_that_are_served() {
        let (kind, html) = lookup("/").expect("the page");
        assert_eq!(kind, "text/html");
        for file in ["style.css", "app.js", "pieces.js", "favicon.svg"] {
            assert!(html.contains(file), "index.html loads {file}");
            assert!(lookup(&format!("/{file}")).is_some());
        }
        assert!(!html.contains("http://") && !html.contains("https://"), "nothing from the network");
        let (_, script) = lookup("/app.js").expect("the script");
        // Its parts, joined: premoves, drawings, sounds, the address, the board.
        let parts = [
            "function playPremove",
            "function renderShapes",
            "function playSound",
            "function gameLink",
            "async function start",
        ];
        for part in parts {
            assert!(script.contains(part), "app.js holds {part}");
        }
        assert!(lookup("/../Cargo.toml").is_none());
        let (kind, icon) = lookup("/favicon.ico").expect("the icon browsers ask for");
        assert!(kind == "image/svg+xml" && icon.starts_with("<svg"), "{kind}");
    }
}
