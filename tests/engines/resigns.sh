#!/bin/sh
# An XBoard engine for tests: resigns whenever it is to move.
while read -r cmd rest; do
    case "$cmd" in
        protover) echo "feature myname=\"resigns\" usermove=1 setboard=1 ping=1 done=1" ;;
        ping) echo "pong $rest" ;;
        go|usermove) echo "resign" ;;
        quit) exit 0 ;;
    esac
done
