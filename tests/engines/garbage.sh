#!/bin/sh
# A broken UCI engine for tests: answers with junk, invalid bytes, malformed
# info lines and finally a `bestmove` without a move.
while read -r cmd rest; do
    case "$cmd" in
        uci)
            printf 'id name \377\376 garbage\n'
            echo "option name"
            echo "option name UCI_Variant type combo var"
            echo "uciok" ;;
        isready) echo "readyok" ;;
        go)
            printf 'info depth x score cp abc pv\n'
            printf 'info score mate\n'
            printf '\000\001\002 nonsense\n'
            printf 'info depth 99999999999999999999 score cp 99999999999 pv e2e4\n'
            echo "bestmove" ;;
        quit) exit 0 ;;
    esac
done
