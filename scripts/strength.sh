#!/usr/bin/env bash
# Strength matches through the match runner.
#
#   scripts/strength.sh fairymax|fairy-stockfish|baseline [VARIANT...]
#
#   fairymax          Capablanca against Fairy-Max (XBoard, Debian package fairymax)
#   fairy-stockfish   Capablanca against Fairy-Stockfish (UCI, Debian package fairy-stockfish)
#   baseline          each VARIANT (default: every shipped variant) against a
#                     material-only, depth-1 baseline of this same binary
#
# Environment: GAMES (200), TC (tc=5+0.05), CONCURRENCY (1), SEED (11), OUT (target/strength)
# for the PGNs and summaries, MENAGERIE for the binary (target/release/menagerie).
# Openings: 4 random plies per pair of games (each opening is played with both
# colours). Games are adjudicated as lost after three moves at -10 pawns or
# worse (-20 in Clash Episodes 4 and 5, whose armies differ by about 12 pawns
# of material at the start), and drawn after 300 moves a side.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/strength.sh fairymax|fairy-stockfish|baseline [VARIANT...]}
shift
games=${GAMES:-200}
tc=${TC:-tc=5+0.05}
conc=${CONCURRENCY:-1}
out=${OUT:-target/strength}
bin=${MENAGERIE:-target/release/menagerie}
[ -x "$bin" ] || { echo "strength: build first: cargo build --release" >&2; exit 2; }
mkdir -p "$out"

run() { # name variant resign-score engine-args...
    local name=$1 variant=$2 resign=$3
    shift 3
    "$bin" match --quiet --variant "$variant" --games "$games" --tc "$tc" --concurrency "$conc" \
        --random-plies 4 --seed "${SEED:-11}" --max-moves 300 --resign movecount=3 "score=$resign" \
        --pgn "$out/$name.pgn" --engine "cmd=$bin uci" name=menagerie option.Hash=16 "$@" | tee "$out/$name.txt"
}

case $mode in
    fairymax)
        run capablanca-fairymax capablanca 1000 --engine cmd=fairymax proto=xboard name=Fairy-Max ;;
    fairy-stockfish)
        run capablanca-fairy-stockfish capablanca 1000 \
            --engine cmd=fairy-stockfish name=Fairy-Stockfish option.Hash=16 ;;
    baseline)
        variants=("$@")
        [ ${#variants[@]} -gt 0 ] || mapfile -t variants < <("$bin" variants | awk '{print $1}')
        for v in "${variants[@]}"; do
            case $v in clash4 | clash5) resign=2000 ;; *) resign=1000 ;; esac
            run "$v-baseline" "$v" "$resign" --engine "cmd=$bin uci" name=baseline option.Hash=16 \
                option.Evaluation=material "tc=$tc depth=1"
        done ;;
    *)
        echo "strength: unknown mode $mode (fairymax, fairy-stockfish or baseline)" >&2
        exit 2 ;;
esac
