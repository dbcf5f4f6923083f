#!/bin/sh
# Takes the XBoard screenshots in docs/: XBoard 4.9 under Xvfb with menagerie
# as its engine, moves played on XBoard's board, the position captured.
#
#   scripts/xboard-screenshots.sh [DIR]
#
#   xboard-clash1-ep.png            Clash 1 right after an en-passant capture
#   xboard-clash5-special-pawn.png  Clash 5 right after a special pawn's
#                                   diagonal step to an empty square
#   xboard-relocation.png           Relocation from a swapped array, a game on
#
# Needs: xboard, Xvfb, xdotool, imagemagick (Debian: apt-get install -y
# xboard xvfb xdotool imagemagick), a release build. Writes the pictures to
# DIR (default: docs), XBoard debug logs to $OUT (default:
# target/xboard-screenshots). A manual tool, not run by CI.
#
# The moves are clicked on the board in XBoard's Edit Game mode, as a user
# would, after the engine has described the variant: XBoard checks each one
# against the engine's `piece` lines and refuses an illegal one, which the
# script reports (a game file given with -lgf would be read before those
# lines arrive). XBoard reads an empty settings file and saves none, so the
# pictures do not depend on ~/.xboardrc.
set -u
cd "$(dirname "$0")/.."
DEST=${1:-docs}
OUT=${OUT:-target/xboard-screenshots}
case "$OUT" in /*) ;; *) OUT="$(pwd)/$OUT" ;; esac
XBOARD=$(command -v xboard || echo /usr/games/xboard)

if [ ! -x "$XBOARD" ]; then
    echo "SKIPPED: xboard not installed"
    exit 0
fi
for tool in Xvfb xdotool import convert; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIPPED: $tool not installed"
        exit 0
    fi
done
[ -x target/release/menagerie ] || { echo "build first: cargo build --release"; exit 2; }
mkdir -p "$OUT" "$DEST"
cp target/release/menagerie "$OUT/menagerie"
ENGINE="$OUT/menagerie xboard"

# The first display number nobody uses.
n=${DISPLAY_NUMBER:-60}
while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x1024x24 >/dev/null 2>&1 &
XVFB=$!
xboard=""
trap 'kill $xboard $XVFB 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP PIPE
export DISPLAY=":$n"
sleep 2

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
    tries=$(($1 * 5))
    shift
    while ! "$@" >/dev/null 2>&1; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || return 1
        sleep 0.2
    done
}

# shoot PICTURE FILES RANKS MOVES XBOARD_OPTIONS...: starts XBoard, plays
# MOVES (engine notation, ranks counted from 1, e.g. "h3h5 a8a7") by clicking
# on its FILESxRANKS board and saves its window as PICTURE.
shoot() {
    picture=$1
    files=$2
    ranks=$3
    moves=$4
    shift 4
    log="$OUT/$(basename "$picture" .png).log"
    rm -f "$log"
    : > "$OUT/xboardrc"
    timeout 120 "$XBOARD" -settingsFile "$OUT/xboardrc" -saveSettingsOnExit false -fcp "$ENGINE" "$@" \
        -initialMode EditGame -size medium -testLegality true -popupExitMessage false \
        -debug -nameOfDebugFile "$log" >/dev/null 2>&1 &
    xboard=$!
    status=0
    if ! wait_for 30 grep -q '<first : setup' "$log"; then
        echo "$picture: the engine sent no setup line (see $log)"
        status=1
    else
        window=$(xdotool search --sync --onlyvisible --class xboard | head -n 1)
        sleep 1
        # The board fills the window's width and sits at its bottom.
        eval "$(xdotool getwindowgeometry --shell "$window")"
        square=$((WIDTH / files))
        left=$(((WIDTH - square * files) / 2))
        top=$((HEIGHT - 1 - square * ranks))
        played=0
        for move in $moves; do
            for square_name in $(echo "$move" | sed 's/^\([a-z][0-9]*\)\([a-z][0-9]*\)$/\1 \2/'); do
                file=$(($(printf '%d' "'$square_name") - 97))
                rank=${square_name#?}
                xdotool mousemove --window "$window" $((left + square * file + square / 2)) \
                    $((top + square * (ranks - rank) + square / 2)) click 1
                sleep 0.3
            done
            played=$((played + 1))
            # XBoard passes a move it accepts on to the engine.
            if ! wait_for 5 test "$(grep -c '>first : usermove' "$log")" -ge "$played"; then
                echo "$picture: XBoard refused $move (see $log)"
                status=1
                break
            fi
        done
        if [ "$status" = 0 ] && grep -q -i 'illegal' "$log"; then
            echo "$picture: $(grep -i 'illegal' "$log" | head -n 1)"
            status=1
        fi
        if [ "$status" = 0 ]; then
            xdotool mousemove 1270 1010
            sleep 1
            import -window "$window" "$OUT/shot.png"
            # A palette keeps the picture small; the board needs few colours.
            convert "$OUT/shot.png" -colors 128 "PNG8:$DEST/$picture"
            echo "$DEST/$picture: $played moves played, each accepted by XBoard"
        fi
    fi
    kill "$xboard" 2>/dev/null
    wait "$xboard" 2>/dev/null
    xboard=""
    return $status
}

failed=0

# Clash 1: the h-pawn reaches h6, Black's g-pawn steps past it, h6 takes it en
# passant on g7.
shoot xboard-clash1-ep.png 10 10 "h3h5 a8a7 h5h6 g8g6 h6g7" -variant clash1 || failed=1

# Clash 5: Black's special pawn steps diagonally from e9 to the empty d8, a
# move no pawn can make.
shoot xboard-clash5-special-pawn.png 10 10 "e3e5 e9d8" -variant clash5 || failed=1

# Relocation from array 98 of variants/relocation-arrays.epd (White swapped
# queen and knight, Black king and archbishop), then moves menagerie chose.
# XBoard loads the array as the start, as in scripts/xboard-check.sh.
grep -v '^#' variants/relocation-arrays.epd | grep . > "$OUT/arrays.fen"
shoot xboard-relocation.png 10 8 "e1f3 f7f6 h1i3 f8g6 c2c3 f6f5 d2d4 i8h6 f3e5 g6h4" -variant relocation \
    -boardWidth 10 -boardHeight 8 -pieceToCharTable PNBRQ..AC............Kpnbrq..ac............k \
    -lpf "$OUT/arrays.fen" -lpi 98 || failed=1

exit $failed
