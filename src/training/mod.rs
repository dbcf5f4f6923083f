//! Learning from self-play: games played by the engine ([`selfplay`]) kept
//! as training data, the network's data ([`datagen`], its shards joined by
//! [`join`]) and trainer
//! ([`train`], reading positions as a stream: [`source`]; the command and
//! its checkpoints: [`train_command`], [`checkpoint`]), and the linear
//! evaluation's tuner ([`tune`], fitting with [`fit`]), which read the same
//! data files; the math the two fits share ([`math`]). The commands'
//! `run_*_command` functions return the one-line error the command line prints.

pub mod checkpoint;
pub mod datagen;
pub mod fit;
pub mod join;
pub mod math;
pub mod positions;
pub mod selfplay;
pub mod source;
pub mod train;
pub mod train_command;
pub mod tune;

/// The command line that runs this process, as a data or network header
/// names it (`menagerie ARGS`).
fn command_line() -> String {
    format!("menagerie {}", std::env::args().skip(1).collect::<Vec<_>>().join(" "))
}
