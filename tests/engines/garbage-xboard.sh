#!/bin/sh
# A broken XBoard engine for tests: malformed features, junk thinking output,
# then `move` without a move.
while read -r cmd rest; do
    case "$cmd" in
        protover)
            echo 'feature = ="" myname="unterminated'
            echo 'feature usermove=1 variants="" done=1' ;;
        go|usermove)
            echo "1 2"
            echo "99999999999999999999 -999999999999 0 0 e2e4"
            echo "move" ;;
        quit) exit 0 ;;
    esac
done
