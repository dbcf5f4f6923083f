//! Learning from self-play: games played by the engine ([`selfplay`]) kept
//! as training data, the network's data ([`datagen`], its shards joined by
//! [`join`]; match games turned into data: [`import`]; games scored again by a
//! deeper search or on the other player's plies: [`rescore`], or by another
//! engine: [`teacher`]) and trainer
//! ([`train`], reading positions as a stream: [`source`]; the command and
//! its checkpoints: [`train_command`], [`checkpoint`]), and the linear
//! evaluation's tuner ([`tune`], fitting with [`fit`]), which read the same
//! data files; the math the two fits share ([`math`]); what a data file's
//! games are made of ([`census`]); the threads that play and score games
//! ([`workers`]). The commands'
//! `run_*_command` functions return the one-line error the command line prints.

pub mod census;
pub mod checkpoint;
pub mod datagen;
pub mod fit;
pub mod import;
pub mod join;
pub mod math;
pub mod positions;
pub mod rescore;
pub mod selfplay;
pub mod source;
pub mod teacher;
pub mod train;
pub mod train_command;
pub mod tune;
pub mod workers;

/// The command line that runs this process, as a data or network header
/// names it (`menagerie ARGS`), with files named without their folders.
fn command_line() -> String {
    format!("menagerie {}", std::env::args().skip(1).map(|arg| without_folders(&arg)).collect::<Vec<_>>().join(" "))
}

/// A command-line word as a header keeps it: a path loses its folders
/// (`/work/data/s8.data` is `s8.data`, `--init=nets/g6.nnue` is
/// `--init=g6.nnue`), since a header is read on other machines, where
/// only the file's name, and the command that made it, mean anything.
/// A shard (`3/8`, `--shard=3/8`) stays as it is.
pub fn without_folders(word: &str) -> String {
    let (flag, value) = match word.split_once('=') {
        Some((flag, value)) if flag.starts_with("--") => (Some(flag), value),
        _ => (None, word),
    };
    // `--shard 3/8` is a fraction, not a path.
    if value.split('/').all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())) {
        return word.to_string();
    }
    let name = match value.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next() {
        Some(name) if !name.is_empty() && value.contains(['/', '\\']) => name,
        _ => value,
    };
    match flag {
        Some(flag) => format!("{flag}={name}"),
        None => name.to_string(),
    }
}

/// The words of a header's command lines that name a file with its
/// folders: a header made before [`without_folders`], or written by hand.
/// `menagerie check` warns about them.
pub fn words_with_folders(command: &str) -> Vec<&str> {
    command.split_whitespace().filter(|word| without_folders(word) != *word).collect()
}

#[cfg(test)]
mod tests {
    use super::{without_folders, words_with_folders};

    #[test]
    fn paths_lose_their_folders_and_other_words_stay() {
        assert_eq!(without_folders("/work/data/clash1-n1000/shard-0000.data"), "shard-0000.data");
        assert_eq!(without_folders("nets/g6.nnue"), "g6.nnue");
        assert_eq!(without_folders("C:\\nets\\g6.nnue"), "g6.nnue");
        assert_eq!(without_folders("--init=/work/main/variants/capablanca.nnue"), "--init=capablanca.nnue");
        assert_eq!(without_folders("my-variants/"), "my-variants");
        for word in ["train", "--data", "s8.data", "--rate", "0.0001", "--shard", "3/8", "--shard=3/8", "--tc=10+0.1"] {
            assert_eq!(without_folders(word), word);
        }
    }

    #[test]
    fn words_with_folders_finds_only_paths() {
        let command = "menagerie train --variant clash1 --data /work/data/a.data b.data --init x/y.nnue --rate 0.1";
        assert_eq!(words_with_folders(command), vec!["/work/data/a.data", "x/y.nnue"]);
        assert!(words_with_folders("menagerie train --variant clash1 --data a.data").is_empty());
    }
}
