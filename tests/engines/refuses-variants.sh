#!/bin/sh
# An XBoard engine for tests: offers normal and capablanca only, and says
# "Error (unsupported variant)" to any other `variant`. With the argument
# `noping` it announces no ping (so the runner cannot ask it first).
ping=1
[ "$1" = noping ] && ping=0
while read -r cmd rest; do
    case "$cmd" in
        protover) echo "feature myname=\"refuser\" ping=$ping usermove=1 setboard=1 variants=\"normal,capablanca\" done=1" ;;
        variant)
            case "$rest" in
                normal|capablanca) ;;
                *) echo "Error (unsupported variant): $rest" ;;
            esac ;;
        ping) echo "pong $rest" ;;
        go|usermove) echo "resign" ;;
        quit) exit 0 ;;
    esac
done
