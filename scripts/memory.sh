#!/usr/bin/env bash
# Peak resident memory of the engine during a long search.
#
#   scripts/memory.sh [HASH_MIB] [SECONDS] [VARIANT]     (defaults: 64 60 capablanca)
#
# Starts the engine over UCI with `Hash` set, runs `go infinite` from the
# variant's start position, samples VmRSS once a second, then stops the search
# and prints the largest sample. Needs a release build (`cargo build --release`);
# MENAGERIE overrides the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
hash=${1:-64}
secs=${2:-60}
variant=${3:-capablanca}
bin=${MENAGERIE:-target/release/menagerie}
[ -x "$bin" ] || { echo "memory: build first: cargo build --release" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
exec 3> >("$bin" uci > "$out" 2>&1)
engine=$!
printf 'uci\nsetoption name Hash value %s\nsetoption name UCI_Variant value %s\nisready\nposition startpos\ngo infinite\n' \
    "$hash" "$variant" >&3
peak=0
for _ in $(seq 1 "$secs"); do
    sleep 1
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$engine/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
done
printf 'stop\nquit\n' >&3
exec 3>&-
sleep 1
depth=$(grep -o '^info depth [0-9]*' "$out" | tail -1 | awk '{print $3}')
echo "Hash=$hash MiB, $variant, ${secs} s of go infinite: peak RSS $((peak / 1024)) MiB, depth ${depth:-?}, $(grep -m1 '^bestmove' "$out" || echo 'no bestmove')"
