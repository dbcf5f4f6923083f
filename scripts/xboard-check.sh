#!/bin/sh
# Plays XBoard 4.9 (under Xvfb) two-machine games of menagerie against itself
# and reports per variant whether each game reached a normal end (mate,
# stalemate, a draw by the rules) with no "Illegal move" and no forfeit.
#
#   scripts/xboard-check.sh [GAMES_PER_VARIANT] [VARIANT...]
#
# Needs: xboard, Xvfb (Debian: apt-get install -y xboard xvfb), a release
# build (target/release/menagerie). Writes PGNs and XBoard debug logs to
# $OUT (default: target/xboard-check). Exits non-zero when a game failed.
# Legality testing stays on (XBoard checks every move against the engine's
# `piece` lines); Relocation games start from arrays of
# variants/relocation-arrays.epd that XBoard loads (-lpf) and sends with setboard.
set -u
cd "$(dirname "$0")/.."
GAMES=${1:-2}
[ $# -gt 0 ] && shift
VARIANTS=${*:-"normal capablanca caparandom relocation clash1 clash2 clash3 clash4 clash5"}
OUT=${OUT:-target/xboard-check}
case "$OUT" in /*) ;; *) OUT="$(pwd)/$OUT" ;; esac
ENGINE="$OUT/menagerie xboard"
XBOARD=$(command -v xboard || echo /usr/games/xboard)
# Fast games that still end by the rules: depth 5 at most, 30 s + 0.5 s a move.
TC=${TC:-"-tc 0:30 -inc 0.5 -searchDepth 5"}

if [ ! -x "$XBOARD" ] || ! command -v Xvfb >/dev/null; then
    echo "SKIPPED: xboard or Xvfb not installed"
    exit 0
fi
[ -x target/release/menagerie ] || { echo "build first: cargo build --release"; exit 2; }
mkdir -p "$OUT"
# A copy, so that a rebuild during the run does not pull the engine away.
cp target/release/menagerie "$OUT/menagerie"
DISPLAY_NUMBER=${DISPLAY_NUMBER:-57}
Xvfb ":$DISPLAY_NUMBER" -screen 0 1280x1024x24 >/dev/null 2>&1 &
XVFB=$!
trap 'kill $XVFB 2>/dev/null' EXIT
sleep 2
export DISPLAY=":$DISPLAY_NUMBER"
grep -v '^#' variants/relocation-arrays.epd | grep . > "$OUT/arrays.fen"

failed=0
for variant in $VARIANTS; do
    ok=0
    notes=""
    game=1
    while [ "$game" -le "$GAMES" ]; do
        pgn="$OUT/$variant-$game.pgn"
        log="$OUT/$variant-$game.log"
        rm -f "$pgn" "$log"
        position=""
        if [ "$variant" = relocation ]; then
            # Arrays 1, 60, 100, ... of the 144.
            # XBoard learns the 10x8 board from the engine's `setup` line, after
            # it has loaded the array: the size and letters make it loadable.
            position="-boardWidth 10 -boardHeight 8 -pieceToCharTable PNBRQ..AC............Kpnbrq..ac............k"
            position="$position -lpf $OUT/arrays.fen -lpi $(( (game * 59) % 144 + 1 ))"
        fi
        # shellcheck disable=SC2086
        timeout 600 "$XBOARD" -fcp "$ENGINE" -scp "$ENGINE" -variant "$variant" -mg 1 $TC $position \
            -sgf "$pgn" -debug -nameOfDebugFile "$log" -popupExitMessage false -autoCallFlag true \
            -testLegality true >/dev/null 2>&1
        result=$(sed -n 's/^\[Result "\(.*\)"\]/\1/p' "$pgn" 2>/dev/null | head -n 1)
        # The closing comment XBoard writes before the result.
        reason=$(tr '\n' ' ' < "$pgn" 2>/dev/null | sed -n 's/.*{\([^}]*\)} *\(1-0\|0-1\|1\/2-1\/2\|\*\) *$/\1/p')
        illegal=$(grep -c -i 'illegal move' "$log" 2>/dev/null)
        moves=$(grep -c '^[0-9]* [<>]' "$log" 2>/dev/null)
        case "$reason" in
            *"on time"*|*"llegal"*|*"orfeit"*|*"disconnect"*|*"xited"*|*"resign"*|"") normal=no ;;
            *) normal=yes ;;
        esac
        [ "${result:-*}" = "*" ] && normal=no
        [ "${illegal:-0}" -gt 0 ] && normal=no
        if [ "$normal" = yes ]; then ok=$((ok + 1)); else failed=1; fi
        notes="$notes | game $game: ${result:-none} {${reason:-no end}}, illegal $illegal"
        game=$((game + 1))
    done
    echo "$variant: $ok/$GAMES normal ends$notes"
done
exit $failed
