#!/usr/bin/env python3
"""How each engine of a `menagerie match` PGN used its clock.

The runner writes each move's thinking time into its comment (`{+0.35/12 0.412s}`).
This prints, per engine, the mean time a move, over all moves and by move number
(1-20, 21-40, 41-60, 61+), and the mean game length: to compare time management
with an opponent's in the same games.

Usage: scripts/clock_use.py GAMES.pgn
"""
import re
import sys
from collections import defaultdict

BUCKETS = [(1, 20), (21, 40), (41, 60), (61, 10**6)]
TOKEN = re.compile(r"(\d+)\.(?:\.\.)?|(\{[^}]*\})|([^\s{}]+)")


def games(text):
    """Yields (tags, movetext) for each game."""
    for block in re.split(r"\n\n(?=\[)", text.strip()):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        body = re.sub(r"^\[.*\]\s*$", "", block, flags=re.M)
        yield tags, body


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        text = open(sys.argv[1], encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"error: {e}")
    spent = defaultdict(lambda: defaultdict(list))
    lengths = defaultdict(list)
    for tags, body in games(text):
        white_to_move = " b " not in tags.get("FEN", " w ")
        names = {True: tags.get("White", "?"), False: tags.get("Black", "?")}
        number, white, moves = 1, white_to_move, 0
        for m in TOKEN.finditer(body):
            num, comment, word = m.groups()
            if num:
                number = int(num)
                white = not m.group(0).endswith("...")
            elif word and not re.fullmatch(r"1-0|0-1|1/2-1/2|\*", word):
                moves += 1
                last_mover, last_number = white, number
                white = not white
            elif comment and moves:
                t = re.search(r"(\d+\.\d+)s\}$", comment)
                if t:
                    spent[names[last_mover]][last_number].append(float(t.group(1)))
        for side in (True, False):
            lengths[names[side]].append(moves / 2)
    head = "engine".ljust(20) + "moves  mean s" + "".join(f"  {a}-{b if b < 10**6 else ''}".ljust(10) for a, b in BUCKETS)
    print(head + "  game length")
    for name, by_number in sorted(spent.items()):
        every = [t for ts in by_number.values() for t in ts]
        row = f"{name:<20}{len(every):>5}  {sum(every) / len(every):6.3f}"
        for a, b in BUCKETS:
            ts = [t for n, v in by_number.items() if a <= n <= b for t in v]
            row += f"  {sum(ts) / len(ts):8.3f}" if ts else "         -"
        ls = lengths[name]
        print(row + f"  {sum(ls) / len(ls):6.1f}")


if __name__ == "__main__":
    main()
