//! `menagerie join`: the shards of one `datagen` run as the file one
//! process would have made, in a canonical form: one game block, the games
//! in number order, under a header built from the run's settings alone.
//! Joined shards and a joined one-process run are then the same bytes,
//! which is what shows that a cluster made the same data set (`cat` of the
//! shards reads as the same positions too, but keeps one header a shard
//! and the games in the order threads finished them).

use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{header_text, BlockKind, DataHeader, Item, PositionReader};
use crate::eval::nnue::games::{Filter, Game};
use crate::rules::variant::Variant;

/// `menagerie join` arguments.
#[derive(Args, Debug, Clone)]
pub struct JoinArgs {
    /// The variant of the data.
    #[arg(long)]
    pub variant: String,
    /// The joined file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// The shards of one run (any order), or one run's file.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// What the blocks read so far agree on.
#[derive(Default)]
struct Run {
    /// The command before `datagen` (`menagerie --variants DIR`).
    prefix: Option<String>,
    /// The settings with `--shard 0/1`: the whole run's.
    settings: Option<String>,
    games: Vec<Game>,
    positions: usize,
    /// The first block that does not belong.
    refused: Option<String>,
}

impl Run {
    fn block(&mut self, header: &DataHeader) {
        let settings = header.settings.as_deref().and_then(whole_run_settings);
        let prefix = header.command.split_once(" datagen ").map(|(prefix, _)| prefix.to_string());
        let (Some(settings), Some(prefix), BlockKind::Games) = (settings, prefix, header.kind) else {
            self.refused.get_or_insert_with(|| format!("a block not made by datagen ({})", header.command));
            return;
        };
        if self.settings.get_or_insert_with(|| settings.clone()) != &settings {
            let first = self.settings.clone().unwrap_or_default();
            self.refused.get_or_insert_with(|| format!("another run's block ({settings}, not {first})"));
        }
        self.prefix.get_or_insert(prefix);
    }
}

/// `settings` with its shard replaced by `0/1`; None without a shard.
fn whole_run_settings(settings: &str) -> Option<String> {
    let mut words: Vec<&str> = settings.split_whitespace().collect();
    let shard = words.iter().position(|&w| w == "--shard")? + 1;
    *words.get_mut(shard)? = "0/1";
    Some(words.join(" "))
}

/// The number after `--games` in `settings`.
fn run_games(settings: &str) -> Option<usize> {
    let words: Vec<&str> = settings.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "--games")?;
    words.get(at + 1)?.parse().ok()
}

/// Runs `menagerie join`; the error is the line `main` prints.
pub fn run_join_command(args: &JoinArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    let mut run = Run::default();
    for path in &args.files {
        read_shard(path, &variant, &mut run)?;
    }
    let settings = run.settings.clone().unwrap_or_default();
    let games = run_games(&settings).ok_or_else(|| format!("no --games in the settings ({settings})"))?;
    run.games.sort_by_key(|game| game.number);
    check_every_game_once(&run.games, games)?;
    let command = format!(
        "{} datagen --variant {} {}",
        run.prefix.as_deref().unwrap_or("menagerie"),
        variant.name,
        settings.replace(" --shard 0/1", "")
    );
    let header = DataHeader::games(&variant, &command).with_settings(&settings);
    let mut bytes = header_text(&header).into_bytes();
    for game in &run.games {
        game.encode(&mut bytes);
    }
    let name = args.out.display();
    std::fs::File::create(&args.out)
        .and_then(|mut file| file.write_all(&bytes))
        .map_err(|e| format!("cannot write {name}: {e}"))?;
    println!(
        "joined {} games ({} positions) from {} files into {name} ({} bytes)",
        games,
        run.positions,
        args.files.len(),
        bytes.len()
    );
    Ok(())
}

/// Reads one file's games into `run` (every game replayed: a damaged one is the error).
fn read_shard(path: &std::path::Path, variant: &Arc<Variant>, run: &mut Run) -> Result<(), String> {
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    PositionReader::new(variant, Filter::default())
        .read(BufReader::new(file), &mut |item| match item {
            Item::Block(header) => run.block(header),
            Item::Game(game) => run.games.push(game.clone()),
            Item::Position(..) => run.positions += 1,
        })
        .map_err(|e| format!("{name}: {e}"))?;
    match run.refused.take() {
        Some(why) => Err(format!("{name}: cannot join {why}")),
        None => Ok(()),
    }
}

/// `sorted` must hold games `0..games`, each once.
fn check_every_game_once(sorted: &[Game], games: usize) -> Result<(), String> {
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0].number == pair[1].number) {
        return Err(format!("game {} is there twice (a shard given twice?)", pair[0].number));
    }
    if let Some(last) = sorted.last().filter(|game| game.number as usize >= games) {
        return Err(format!("game {} is beyond the run's {games} games", last.number));
    }
    if sorted.len() < games {
        let first = (0..games).find(|&n| sorted.get(n).is_none_or(|game| game.number as usize != n)).unwrap_or(0);
        return Err(format!(
            "{} of the run's {games} games are missing, the first is game {first} (a shard not given, or not finished: `datagen --resume` finishes it)",
            games - sorted.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{run_games, whole_run_settings};

    #[test]
    fn a_shard_settings_become_the_whole_run_settings() {
        let shard = "--games 40 --nodes 500 --seed 1 --random-plies 8 --shard 3/4";
        assert_eq!(
            whole_run_settings(shard).as_deref(),
            Some("--games 40 --nodes 500 --seed 1 --random-plies 8 --shard 0/1")
        );
        assert_eq!(whole_run_settings("--games 40"), None);
        assert_eq!(run_games(shard), Some(40));
        assert_eq!(run_games("--games x"), None);
    }
}
