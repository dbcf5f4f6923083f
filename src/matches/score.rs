//! `menagerie score`: the match table of games read back from PGN files,
//! with the match runner's own statistics (W/D/L, Elo, pentanomial pairs,
//! SPRT). For runs cut short by a time limit, and for several runs pooled.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::runner::MatchSummary;
use super::stats::Sprt;
use crate::game::pgn::{read_pgn, PgnGame};
use crate::game::record::Termination;

/// `menagerie score`: score the games of PGN files.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// PGN files (games of every file are pooled).
    #[arg(required = true, value_name = "FILE.pgn")]
    pub files: Vec<PathBuf>,
    /// SPRT over the first two engines: `elo0=0 elo1=5 alpha=0.05 beta=0.05`.
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
}

/// One finished game: its players, White's points, termination and pairing key.
struct Scored<'a> {
    white: &'a str,
    black: &'a str,
    white_points: f64,
    termination: Termination,
    /// `(file, opening slot)`: the match runner numbers games so that
    /// rounds 2k-1 and 2k share an opening with colours swapped.
    slot: Option<(usize, u32)>,
}

/// The table of the finished games of each file (unfinished ones are
/// skipped). Engines are numbered in order of first appearance. Two games
/// pair up when their `Round`s are 2k-1 and 2k of the same file and their
/// players are the same with colours swapped; other games count unpaired.
pub fn score_games(files: &[Vec<PgnGame>], sprt: Option<Sprt>) -> MatchSummary {
    let mut scored = Vec::new();
    for (f, games) in files.iter().enumerate() {
        for g in games {
            let (Some(white), Some(black), Some(points)) = (g.tag("White"), g.tag("Black"), g.white_points()) else {
                continue;
            };
            let round = g.tag("Round").and_then(|r| r.trim().parse::<u32>().ok()).filter(|&r| r > 0);
            scored.push(Scored {
                white,
                black,
                white_points: points,
                termination: Termination::from_tag(g.tag("Termination")),
                slot: round.map(|r| (f, r.div_ceil(2))),
            });
        }
    }
    let mut by_slot: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
    for (i, s) in scored.iter().enumerate() {
        if let Some(slot) = s.slot {
            by_slot.entry(slot).or_default().push(i);
        }
    }
    let mut pair_of = vec![None; scored.len()];
    for (id, members) in by_slot.values().enumerate() {
        if let [a, b] = members[..] {
            if scored[a].white == scored[b].black && scored[a].black == scored[b].white {
                pair_of[a] = Some(id as u64);
                pair_of[b] = Some(id as u64);
            }
        }
    }
    let mut names: Vec<String> = Vec::new();
    for s in &scored {
        for name in [s.white, s.black] {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    let index = |name: &str| names.iter().position(|n| n == name).unwrap_or(0);
    let indices: Vec<(usize, usize)> = scored.iter().map(|s| (index(s.white), index(s.black))).collect();
    let mut summary = MatchSummary::for_engines(names.clone(), scored.len() as u32, sprt);
    for ((s, (white, black)), pair) in scored.iter().zip(indices).zip(pair_of) {
        summary.record(white, black, s.white_points, s.termination, pair, true);
    }
    summary
}

/// Runs `menagerie score`: prints the table, or an error and a failure status.
pub fn run_score(args: &ScoreArgs) -> ExitCode {
    match score_files(args) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn score_files(args: &ScoreArgs) -> Result<MatchSummary, String> {
    let sprt = match &args.sprt {
        Some(parts) => Some(parts.join(" ").parse::<Sprt>().map_err(|e| e.to_string())?),
        None => None,
    };
    let mut files = Vec::new();
    for path in &args.files {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        files.push(read_pgn(&String::from_utf8_lossy(&bytes)));
    }
    let summary = score_games(&files, sprt);
    if summary.played == 0 {
        return Err("no finished game (with White, Black and a result) in the PGN files".to_string());
    }
    if summary.sprt.is_some() && summary.names.len() != 2 {
        return Err(format!("--sprt needs exactly two engines; the files hold {}", summary.names.len()));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(round: u32, white: &str, black: &str, result: &str, termination: &str) -> String {
        format!(
            "[Event \"t\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\
             [Termination \"{termination}\"]\n\n1. e4 e5 {result}\n\n"
        )
    }

    #[test]
    fn pairs_and_totals_from_rounds() {
        // Written in completion order; rounds 1+2 and 3+4 are pairs, 5 has no partner.
        let text = [
            game(2, "b", "a", "0-1", "normal"),
            game(1, "a", "b", "1/2-1/2", "normal"),
            game(4, "b", "a", "1-0", "time forfeit"),
            game(3, "a", "b", "0-1", "adjudication"),
            game(5, "a", "b", "1-0", "normal"),
            game(6, "a", "b", "*", "unterminated"),
        ]
        .concat();
        let s = score_games(&[read_pgn(&text)], None);
        assert_eq!(s.names, ["b", "a"]);
        assert_eq!(s.played, 5);
        // From a's side: 1 + 0.5 + 0 + 0 + 1.
        let a = s.totals[1];
        assert_eq!((a.wins, a.draws, a.losses), (2, 1, 2));
        let pair = &s.pairs[&(0, 1)];
        // From b's side: pair one 0 + 0.5, pair two 1 + 1.
        assert_eq!(pair.penta.0, [0, 1, 0, 0, 1]);
        assert_eq!(s.terminations[&Termination::TimeForfeit], 1);
        assert_eq!(s.terminations[&Termination::Adjudication], 1);
        assert_eq!(s.terminations[&Termination::Normal], 3);
    }

    #[test]
    fn files_pool_but_do_not_pair_across() {
        let one = read_pgn(&game(1, "a", "b", "1-0", "normal"));
        let two = read_pgn(&game(2, "b", "a", "0-1", "normal"));
        let s = score_games(&[one, two], None);
        assert_eq!(s.played, 2);
        assert_eq!(s.pairs[&(0, 1)].penta.pairs(), 0);
        // Same colours in both rounds: not a pair either.
        let same = [game(1, "a", "b", "1-0", "normal"), game(2, "a", "b", "1-0", "normal")].concat();
        assert_eq!(score_games(&[read_pgn(&same)], None).pairs[&(0, 1)].penta.pairs(), 0);
        // No usable game at all.
        assert_eq!(score_games(&[read_pgn("garbage {")], None).played, 0);
    }

    #[test]
    fn sprt_llr_follows_the_pairs() {
        // Pairs worth 1.5 (three in four) and 1 to `a`.
        let text: String = (0..40)
            .map(|k| {
                let second = if k % 4 == 0 { "1-0" } else { "1/2-1/2" };
                game(2 * k + 1, "a", "b", "1-0", "normal") + &game(2 * k + 2, "b", "a", second, "normal")
            })
            .collect();
        let sprt: Sprt = "elo0=0 elo1=5".parse().unwrap();
        let s = score_games(&[read_pgn(&text)], Some(sprt));
        let llr = s.sprt.as_ref().map_or(0.0, |(_, llr, _)| *llr);
        assert!(llr > 0.0, "{llr}");
        assert_eq!(llr, sprt.llr_pentanomial(&crate::matches::stats::Pentanomial([0, 0, 10, 30, 0])));
        assert_eq!(s.pairs[&(0, 1)].penta.0, [0, 0, 10, 30, 0]);
        assert!(s.to_string().contains("SPRT elo0=0 elo1=5"), "{s}");
    }
}
