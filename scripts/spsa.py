#!/usr/bin/env python3
"""SPSA tuning of the search's margins at fixed nodes, through `menagerie match`.

Each step plays one build against itself: every margin nudged up by c_k on one side
and down on the other (a random sign per margin), and moves the margins towards the
side that scored (fishtest's SPSA: a_k = a / (A + k)^0.602, c_k = c / k^0.101). The
margins are the unlisted `search.NAME` options (`src/search/params.rs`).

    scripts/spsa.py --engine target/release/menagerie --out spsa.log \\
        --param rfp_margin:80:20:200:10 --param lmr_divisor_percent:225:150:350:15 \\
        --steps 500 --pairs 4 --tc nodes=10000 --variant relocation \\
        --openings variants/relocation-arrays.epd

A parameter is NAME:START:MIN:MAX:C (C: the last step's nudge, c at the end). Each
finished step appends a line to --out (step, result, then NAME=VALUE as floats), and a
run started again with the same --out goes on from its last line: a lost machine costs
one step. Fixed nodes make the games independent of the machine's load.
"""
import argparse
import random
import re
import subprocess
import sys

ALPHA, GAMMA = 0.602, 0.101


def parse_param(text):
    try:
        name, start, low, high, c_end = text.split(":")
        return name, float(start), float(low), float(high), float(c_end)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME:START:MIN:MAX:C, got {text!r}")


def play(args, plus, minus, seed):
    """Wins minus losses of the `plus` side over --pairs game pairs."""
    def engine(name, values):
        return ["--engine", f"cmd={args.engine} uci", f"name={name}"] + [
            f"option.search.{k}={round(v)}" for k, v in values.items()]
    cmd = [args.engine, "match", "--variant", args.variant, "--tc", args.tc, "--games", "2",
           "--rounds", str(args.pairs), "--concurrency", str(args.concurrency), "--quiet",
           "--seed", str(seed), "--max-moves", "300", "--resign", "movecount=3", "score=1000"]
    if args.openings:
        cmd += ["--openings", args.openings, "--openings-random"]
    else:
        cmd += ["--random-plies", "8"]
    cmd += engine("plus", plus) + engine("minus", minus)
    out = subprocess.run(cmd, capture_output=True, text=True)
    found = re.search(r"plus vs minus: W/D/L (\d+)/(\d+)/(\d+)", out.stdout)
    if out.returncode != 0 or not found:
        sys.exit(f"spsa: the match failed: {out.stderr.strip() or out.stdout.strip()}")
    wins, _, losses = map(int, found.groups())
    return wins - losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--param", type=parse_param, action="append", required=True)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--pairs", type=int, default=4, help="game pairs a step")
    ap.add_argument("--tc", default="nodes=10000")
    ap.add_argument("--variant", default="relocation")
    ap.add_argument("--openings")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--r-end", type=float, default=0.002, help="a_end / c_end^2, as fishtest's r_end")
    args = ap.parse_args()
    names = [p[0] for p in args.param]
    theta = {p[0]: p[1] for p in args.param}
    bounds = {p[0]: (p[2], p[3]) for p in args.param}
    c_end = {p[0]: p[4] for p in args.param}
    done = 0
    try:
        for line in open(args.out, encoding="utf-8"):
            fields = line.split()
            done = int(fields[0])
            theta.update({k: float(v) for k, v in (f.split("=") for f in fields[2:]) if k in theta})
    except FileNotFoundError:
        pass
    big_a = 0.1 * args.steps
    for k in range(done + 1, args.steps + 1):
        rng = random.Random(args.seed * 1_000_003 + k)
        plus, minus, flips = {}, {}, {}
        for n in names:
            c = c_end[n] * args.steps ** GAMMA / k ** GAMMA
            flips[n] = rng.choice((-1, 1))
            low, high = bounds[n]
            plus[n] = min(high, max(low, theta[n] + c * flips[n]))
            minus[n] = min(high, max(low, theta[n] - c * flips[n]))
        result = play(args, plus, minus, args.seed * 100_003 + k)
        for n in names:
            c = c_end[n] * args.steps ** GAMMA / k ** GAMMA
            a_end = args.r_end * c_end[n] ** 2
            a = a_end * (big_a + args.steps) ** ALPHA / (big_a + k) ** ALPHA
            low, high = bounds[n]
            theta[n] = min(high, max(low, theta[n] + a / c * result * flips[n]))
        with open(args.out, "a", encoding="utf-8") as log:
            log.write(f"{k} {result:+d} " + " ".join(f"{n}={theta[n]:.3f}" for n in names) + "\n")
        print(f"step {k}/{args.steps}: {result:+d} " + " ".join(f"{n}={theta[n]:.1f}" for n in names),
              flush=True)


if __name__ == "__main__":
    main()
