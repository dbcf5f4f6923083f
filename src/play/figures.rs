//! How `menagerie play` draws the men: the variant's letters (the default
//! off a terminal, so pipes and tests read plain text), or the six chess
//! figures in Unicode, on ANSI-coloured squares where the terminal takes
//! colour. A fairy man keeps its letter in every style.

use std::io::IsTerminal;

use crate::rules::piece::Color;

/// How the board's men are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardStyle {
    /// The variant's letters, upper case White (`K`, `n`), `.` for an empty square.
    Ascii,
    /// Chess figures (`♔`, `♞`); with `colour`, on light and dark squares in ANSI colours.
    Figures {
        /// Squares and men in ANSI colours.
        colour: bool,
    },
}

/// Background of light and dark squares, foreground of White's and Black's men (ANSI 256 colours).
const LIGHT: u8 = 180;
const DARK: u8 = 137;
const WHITE_MAN: u8 = 231;
const BLACK_MAN: u8 = 16;

impl BoardStyle {
    /// The style `--unicode` or `--ascii` asks for, else what this
    /// process's standard output and environment (`TERM`, `NO_COLOR`) take.
    pub fn choose(unicode: bool, ascii: bool) -> BoardStyle {
        let term = std::env::var("TERM").ok();
        let no_color = std::env::var("NO_COLOR").ok();
        BoardStyle::decide(unicode, ascii, std::io::stdout().is_terminal(), term.as_deref(), no_color.as_deref())
    }

    /// `--ascii`: letters. `--unicode`: figures, coloured only on a terminal
    /// (`tty`) that is not `TERM=dumb` and without `NO_COLOR`. Neither: as
    /// `--unicode` on such a terminal, else letters.
    pub fn decide(unicode: bool, ascii: bool, tty: bool, term: Option<&str>, no_color: Option<&str>) -> BoardStyle {
        let capable = tty && term.is_some_and(|t| !t.is_empty() && t != "dumb");
        let colour = capable && no_color.is_none_or(str::is_empty);
        if ascii || !(unicode || capable) {
            BoardStyle::Ascii
        } else {
            BoardStyle::Figures { colour }
        }
    }

    /// One square, two columns wide: `man` (its letter, name and colour) or
    /// none, on a light or dark square.
    pub fn square(self, man: Option<(char, &str, Color)>, light: bool) -> String {
        match self {
            BoardStyle::Ascii => format!("{} ", man.map_or('.', |(letter, _, _)| letter)),
            BoardStyle::Figures { colour: false } => {
                format!("{} ", man.map_or('.', |(letter, name, color)| figure(name, color, false).unwrap_or(letter)))
            }
            BoardStyle::Figures { colour: true } => {
                let background = if light { LIGHT } else { DARK };
                let Some((letter, name, color)) = man else {
                    return format!("\x1b[48;5;{background}m  \x1b[0m");
                };
                // Both sides in the filled figures, told apart by colour.
                let face = figure(name, color, true).unwrap_or(letter);
                let ink = if color == Color::White { WHITE_MAN } else { BLACK_MAN };
                format!("\x1b[48;5;{background};38;5;{ink};1m{face} \x1b[0m")
            }
        }
    }
}

/// The Unicode figure of a chess man by its name: the outline set for White
/// and the filled one for Black, or the filled one for both (`filled`).
fn figure(name: &str, color: Color, filled: bool) -> Option<char> {
    let at = ["king", "queen", "rook", "bishop", "knight", "pawn"].iter().position(|&n| n == name)?;
    let set = if filled || color == Color::Black { "♚♛♜♝♞♟" } else { "♔♕♖♗♘♙" };
    set.chars().nth(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_style_follows_the_flags_and_the_terminal() {
        use BoardStyle::*;
        let tty = Some("xterm-256color");
        assert_eq!(BoardStyle::decide(false, false, false, tty, None), Ascii, "a pipe reads letters");
        assert_eq!(BoardStyle::decide(false, false, true, tty, None), Figures { colour: true });
        assert_eq!(BoardStyle::decide(false, false, true, tty, Some("1")), Figures { colour: false });
        assert_eq!(BoardStyle::decide(false, false, true, Some("dumb"), None), Ascii);
        assert_eq!(
            BoardStyle::decide(true, false, false, None, None),
            Figures { colour: false },
            "--unicode in a pipe"
        );
        assert_eq!(BoardStyle::decide(false, true, true, tty, None), Ascii, "--ascii");
    }

    #[test]
    fn squares_in_each_style() {
        let king = Some(('K', "king", Color::White));
        let knight = Some(('n', "knight", Color::Black));
        let joker = Some(('J', "joker", Color::White));
        assert_eq!(BoardStyle::Ascii.square(king, true), "K ");
        assert_eq!(BoardStyle::Ascii.square(None, false), ". ");
        let plain = BoardStyle::Figures { colour: false };
        assert_eq!(
            [plain.square(king, true), plain.square(knight, true), plain.square(joker, true)],
            ["♔ ", "♞ ", "J "]
        );
        let coloured = BoardStyle::Figures { colour: true };
        assert_eq!(coloured.square(king, false), "\x1b[48;5;137;38;5;231;1m♚ \x1b[0m");
        assert_eq!(coloured.square(None, true), "\x1b[48;5;180m  \x1b[0m");
    }
}
