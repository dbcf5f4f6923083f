#!/bin/sh
# A broken UCI engine for tests: answers every `go` with an illegal move.
while read -r cmd rest; do
    case "$cmd" in
        uci) echo "id name illegal"; echo "uciok" ;;
        isready) echo "readyok" ;;
        go) echo "bestmove e2e5" ;;
        quit) exit 0 ;;
    esac
done
