#!/usr/bin/env bash
# Self-play soak through the match runner, in every shipped variant.
#
#   scripts/soak.sh [GAMES_PER_VARIANT] [TC]      (defaults: 2 games, tc=1+0.01)
#
# Fails on any illegal move, crash (abandoned game), time forfeit, or growth
# of an engine's resident memory beyond the limit (RSS sampled once a second;
# the largest sample of each engine process is compared with MAX_RSS_MIB,
# default 40, the robustness target at Hash=16). Writes the PGNs to
# ${SOAK_DIR:-target/soak}. Needs a release build (`cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-2}
tc=${2:-tc=1+0.01}
max_rss=${MAX_RSS_MIB:-40}
bin=${MENAGERIE:-target/release/menagerie}
dir=${SOAK_DIR:-target/soak}
mkdir -p "$dir"
[ -x "$bin" ] || { echo "soak: build first: cargo build --release" >&2; exit 2; }

variants=$("$bin" variants | awk '{print $1}')
fail=0
total=0
start=$(date +%s)
# The variants the XBoard side offers (Clockwork is not: XBoard cannot hold its hands);
# the others are played UCI against UCI.
xboard_variants=$(printf 'xboard\nprotover 2\nquit\n' | "$bin" xboard | sed -n 's/.*variants="\([^"]*\)".*/,\1,/p')
for v in $variants; do
    pgn="$dir/$v.pgn"
    rm -f "$pgn"
    second=(--engine "cmd=$bin xboard" proto=xboard name=xboard option.Hash=16)
    parent=$(awk '$1 == "xboard-parent" {print $2; exit}' "variants/$v.var" 2>/dev/null || true)
    case $xboard_variants in
        *,"$v",* | *,"${parent:-$v}",*) ;;
        *) second=(--engine "cmd=$bin uci" name=uci2 option.Hash=16) ;;
    esac
    "$bin" match --quiet --variant "$v" --games "$games" --tc "$tc" --concurrency 2 --random-plies 4 \
        --max-moves 300 --pgn "$pgn" \
        --engine "cmd=$bin uci" name=uci option.Hash=16 "${second[@]}" > "$dir/$v.summary" 2>&1 &
    runner=$!
    peak=0
    while kill -0 "$runner" 2>/dev/null; do
        # Resident memory of the engines this runner started (KiB).
        for child in $(pgrep -P "$runner" 2>/dev/null || true); do
            for pid in $child $(pgrep -P "$child" 2>/dev/null || true); do
                rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
                [ "${rss:-0}" -gt "$peak" ] && peak=$rss
            done
        done
        sleep 1
    done
    status=0
    wait "$runner" || status=$?
    played=$(grep -c '^\[Result ' "$pgn" 2>/dev/null || true)
    bad=$(grep -E '^\[Termination "(illegal move|time forfeit|abandoned)"\]' "$pgn" 2>/dev/null | sort | uniq -c || true)
    total=$((total + played))
    printf '%-11s games %3s  peak engine RSS %5s MiB  %s\n' "$v" "$played" "$((peak / 1024))" "${bad:-clean}"
    if [ "$status" -ne 0 ] || [ -n "$bad" ] || [ "$played" -ne "$games" ] || [ $((peak / 1024)) -gt "$max_rss" ]; then
        echo "soak: FAILED in $v (runner exit $status); see $dir/$v.summary and $pgn" >&2
        fail=1
    fi
done
echo "soak: $total games in $(( $(date +%s) - start )) s"
exit $fail
