#!/usr/bin/env python3
"""W/D/L and pentanomial Elo of one engine from match PGNs (for instance runs cut short).

    scripts/pgn-elo.py NAME FILE.pgn...

Games are paired as `menagerie match` pairs them: rounds 2k-1 and 2k of each file share an
opening. A game whose partner is missing counts in W/D/L only. The Elo interval is the
match runner's: the pair score's 95 % interval mapped through the logistic curve.
"""
import sys, re, math
if len(sys.argv) < 3:
    sys.exit('usage: scripts/pgn-elo.py NAME FILE.pgn...')
name = sys.argv[1]
w = d = l = 0; penta = [0]*5; terms = {}
for f in sys.argv[2:]:
    pairs = {}
    for g in open(f).read().split('[Event ')[1:]:
        r = int(re.search(r'\[Round "(\d+)"', g).group(1))
        wh = re.search(r'\[White "([^"]+)"', g).group(1)
        if name not in (wh, re.search(r'\[Black "([^"]+)"', g).group(1)):
            continue
        res = re.search(r'\[Result "([^"]+)"', g).group(1)
        t = re.search(r'\[Termination "([^"]+)"', g); t = t.group(1) if t else '?'
        terms[t] = terms.get(t, 0) + 1
        s = 0.5 if res == '1/2-1/2' else (1.0 if (res == '1-0') == (wh == name) else 0.0)
        if s == 1: w += 1
        elif s == 0: l += 1
        else: d += 1
        pairs.setdefault((r + 1) // 2, []).append(s)
    for p in pairs.values():
        if len(p) == 2: penta[int(round(2 * sum(p)))] += 1
n = sum(penta)
if n == 0:
    sys.exit(f'pgn-elo: no complete pair of games for {name}')
mean = sum(i * c for i, c in enumerate(penta)) / n / 4
var = sum(c * (i / 4 - mean) ** 2 for i, c in enumerate(penta)) / n
elo = lambda s: -400 * math.log10(1 / s - 1) if 0 < s < 1 else float('inf') * (1 if s >= 1 else -1)
se = math.sqrt(var / n)
lo, hi = elo(mean - 1.96 * se), elo(mean + 1.96 * se)
print(f"{name}: games {w+d+l} W/D/L {w}/{d}/{l}; pentanomial {penta} over {n} pairs: Elo {elo(mean):+.1f} +/- {(hi-lo)/2:.1f} [{lo:+.1f}, {hi:+.1f}]; terminations {terms}")
