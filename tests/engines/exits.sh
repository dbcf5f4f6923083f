#!/bin/sh
# A broken UCI engine for tests: exits with status 3 when asked to move.
while read -r cmd rest; do
    case "$cmd" in
        uci) echo "id name exits"; echo "uciok" ;;
        isready) echo "readyok" ;;
        go) exit 3 ;;
        quit) exit 0 ;;
    esac
done
