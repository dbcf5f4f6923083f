#!/usr/bin/env python3
"""Writes the 144 Capablanca Relocation start arrays (variants/relocation-arrays.epd).

The 12 first-rank arrays per side are written out by hand from the setup rules
in docs/rules.md#capablanca-relocation (independent of the engine's
generator); Black's rank 8
is the lower-case mirror of its own choice. Usage: python3 scripts/relocation_arrays.py > variants/relocation-arrays.epd
"""

ARRAYS = [
    "RNABQKBCNR",  # 0 keep
    "RQABNKBCNR",  # 1 Q<->N b1
    "RNQBAKBCNR",  # 2 Q<->A c1
    "RNABKQBCNR",  # 3 Q<->K
    "RNABBKQCNR",  # 4 Q<->B g1
    "RNABCKBQNR",  # 5 Q<->C h1
    "RNABNKBCQR",  # 6 Q<->N i1
    "RKABQNBCNR",  # 7 K<->N b1
    "RNKBQABCNR",  # 8 K<->A c1
    "RNAKQBBCNR",  # 9 K<->B d1
    "RNABQCBKNR",  # 10 K<->C h1
    "RNABQNBCKR",  # 11 K<->N i1
]

def main():
    print("# Capablanca Relocation Chess: the 144 post-setup start positions (12 x 12).")
    print("# One FEN per line; usable as an openings file (Cute Chess variant 'caparandom').")
    for black in ARRAYS:
        for white in ARRAYS:
            print(f"{black.lower()}/pppppppppp/10/10/10/10/PPPPPPPPPP/{white} w KQkq - 0 1")

if __name__ == "__main__":
    main()
