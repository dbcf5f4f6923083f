#!/usr/bin/env bash
# Strength of each `Skill Level` against the rating ladder, through the match runner.
#
#   scripts/strength-levels.sh [LEVEL...]        (default: 20 15 10 5 0)
#
# Each level plays a gauntlet in chess against three rungs: the material-only,
# depth-1 baseline of this binary, Fairy-Max (XBoard, Debian package fairymax;
# left out when not installed) and this binary at full strength (level 20
# does not play itself). One Markdown table row per level: its Elo on one scale
# where full strength is 0 (a logistic fit over every pairing, see below) and
# its W/D/L against each rung; then each rung's rating on that scale.
#
# Environment: GAMES per rung (40), TC (tc=2+0.02), CONCURRENCY (1), SEED (11),
# OUT (target/strength-levels) for PGNs and match output, MENAGERIE for the
# binary (target/release/menagerie), FAIRYMAX for Fairy-Max's command;
# RETABULATE=1 prints the table again from OUT/results.txt without playing.
# Openings: 4 random plies per pair of games (each opening is played with both
# colours); a loss after three moves at -10 pawns or worse, a draw after 300
# moves a side.
set -euo pipefail
cd "$(dirname "$0")/.."
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(20 15 10 5 0)
games=${GAMES:-40}
tc=${TC:-tc=2+0.02}
conc=${CONCURRENCY:-1}
out=${OUT:-target/strength-levels}
bin=${MENAGERIE:-target/release/menagerie}
fairymax=${FAIRYMAX:-$(command -v fairymax || echo /usr/games/fairymax)}
[ -x "$bin" ] || { echo "strength-levels: build first: cargo build --release" >&2; exit 2; }
mkdir -p "$out"

rungs=(--engine "cmd=$bin uci" name=baseline option.Hash=16 option.Evaluation=material "tc=$tc depth=1")
if [ -x "$fairymax" ]; then
    rungs+=(--engine "cmd=$fairymax" proto=xboard name=Fairy-Max)
else
    echo "strength-levels: $fairymax not found, Fairy-Max left out" >&2
fi

# "LEVEL OPPONENT W/D/L ELO MARGIN" per pairing, from each match's summary.
table=$out/results.txt
[ -n "${RETABULATE:-}" ] || : >"$table"
for level in "${levels[@]}"; do
    [ -z "${RETABULATE:-}" ] || break
    name=level$level
    engines=(--engine "cmd=$bin uci" "name=$name" option.Hash=16 "option.Skill Level=$level" "${rungs[@]}")
    [ "$level" = 20 ] || engines+=(--engine "cmd=$bin uci" name=full option.Hash=16)
    "$bin" match --quiet --variant chess --gauntlet --games "$games" --tc "$tc" --concurrency "$conc" \
        --random-plies 4 --seed "${SEED:-11}" --max-moves 300 --resign movecount=3 score=1000 \
        --pgn "$out/$name.pgn" "${engines[@]}" >"$out/$name.txt"
    awk -v level="$level" '
        /^level[0-9]+ vs / { opp = $3; sub(":", "", opp); wdl = $5; sub(",", "", wdl) }
        /^  Elo difference/ && opp != "" { print level, opp, wdl, $3, $5; opp = "" }' "$out/$name.txt" >>"$table"
done

# Ratings on one scale, full strength (level 20) = 0: the maximum-likelihood
# logistic (Elo) fit over every pairing's W/D/L, with one virtual draw added to
# each pairing so that a sweep gives a finite (lower-bound) rating. A rating's
# 95 % margin comes from its own games' information and leaves out the
# uncertainty of the ratings it leans on.
awk -v order="${levels[*]}" '
    function id(level) { return level == 20 ? "full" : "level" level }
    {
        split($3, g, "/"); a = id($1); b = $2; n++
        wdl[$1, b] = $3; pa[n] = a; pb[n] = b
        games[n] = g[1] + g[2] + g[3] + 1; score[n] = g[1] + g[2] / 2 + 0.5
        r[a] = 0; r[b] = 0
    }
    END {
        c = log(10) / 400
        for (it = 0; it < 500; it++)
            for (x in r) {
                if (x == "full") continue
                grad = 0; info[x] = 0
                for (k = 1; k <= n; k++) {
                    if (pa[k] == x) { o = pb[k]; s = score[k] } else if (pb[k] == x) { o = pa[k]; s = games[k] - score[k] } else continue
                    p = 1 / (1 + exp(c * (r[o] - r[x])))
                    grad += (s - games[k] * p) * c; info[x] += games[k] * p * (1 - p) * c * c
                }
                if (info[x] > 0) r[x] += grad / info[x]
            }
        print "| level | Elo (full strength = 0) | vs baseline W/D/L | vs Fairy-Max W/D/L | vs full strength W/D/L |"
        print "|---|---|---|---|---|"
        count = split(order, levels, " ")
        split("baseline Fairy-Max full", opps, " ")
        for (i = 1; i <= count; i++) {
            l = levels[i]; x = id(l)
            elo = x == "full" ? "0" : x in r ? sprintf("%+.0f ± %.0f", r[x], 1.96 / sqrt(info[x])) : "n/a"
            printf "| %s | %s |", l, elo
            for (j = 1; j <= 3; j++) printf " %s |", ((l, opps[j]) in wdl) ? wdl[l, opps[j]] : "-"
            print ""
        }
        for (x in r) if (x !~ /^level|^full$/) printf "rung %s: %+.0f ± %.0f\n", x, r[x], 1.96 / sqrt(info[x])
    }' "$table"
