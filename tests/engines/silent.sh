#!/bin/sh
# A broken UCI engine for tests: completes the handshake, then never answers `go`.
while read -r cmd rest; do
    case "$cmd" in
        uci) echo "id name silent"; echo "uciok" ;;
        isready) echo "readyok" ;;
        quit) exit 0 ;;
    esac
done
