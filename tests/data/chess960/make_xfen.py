#!/usr/bin/env python3
"""Writes xfen.tsv: the Chess960 FENs of the shared suites with python-chess 1.11.2's X-FEN and
Shredder-FEN of each, for the round-trip test of tests/chess960.rs (CI has no python-chess).

Usage (from the repository root, shared data next to it):
    python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2
    /tmp/pyc/bin/python tests/data/chess960/make_xfen.py ../shared/data > tests/data/chess960/xfen.tsv

Inputs: every `epd` of perft/python-chess/chess960.perft, the `xfen-*` positions of
perft/python-chess/tricky.perft, the start and final FENs of chess960/games.csv that hold a
castling right, and a few hand-made positions where an inner rook holds a right (X-FEN file
letters).
Columns (tab-separated): source, fen (as read), xfen (`Board(fen, chess960=True).fen(
en_passant="fen")`), shredder (the same with `shredder=True`).
"""
import csv
import sys
from pathlib import Path

import chess

assert chess.__version__ == "1.11.2", chess.__version__
root = Path(sys.argv[1])
rows = []


def epds(path, keep):
    ident = None
    for line in (root / path).read_text().splitlines():
        if line.startswith("id "):
            ident = line[3:].strip()
        elif line.startswith("epd ") and keep(ident):
            rows.append((f"{path}:{ident}", line[4:].strip() + " 0 1"))


epds("perft/python-chess/chess960.perft", lambda i: True)
epds("perft/python-chess/tricky.perft", lambda i: i.startswith("xfen"))
with open(root / "chess960/games.csv", newline="") as f:
    for r in csv.DictReader(f):
        for which in ("start", "final"):
            fen = r[f"{which}_fen"]
            if fen.split()[2] != "-":
                rows.append((f"chess960/games.csv:{r['game_index']}:{which}", fen))
HAND = [
    "rk2r3/8/8/8/8/8/8/RK2R2R w EAe - 0 1",
    "1r1kr1r1/8/8/8/8/8/8/RR1K1R1R w FBgb - 0 1",
    "r1rk2rr/8/8/8/8/8/8/R1RK2RR w GCgc - 0 1",
    "4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1",
    "4k3/8/8/8/8/8/8/RRK4R w HB - 0 1",
    "rrk3rr/8/8/8/8/8/8/4K3 b gb - 0 1",
]
rows.extend(("hand", fen) for fen in HAND)

print("# source\tfen\txfen\tshredder (python-chess 1.11.2, made by make_xfen.py)")
for source, fen in rows:
    board = chess.Board(fen, chess960=True)
    assert board.is_valid(), (source, fen, board.status())
    xfen = board.fen(en_passant="fen")
    shredder = board.fen(shredder=True, en_passant="fen")
    print(f"{source}\t{fen}\t{xfen}\t{shredder}")
