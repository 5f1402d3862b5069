#!/usr/bin/env python3
"""Makes tests/data/oracle_positions.csv and tests/data/oracle_endings.csv with
python-chess 1.11.2 (python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2).

oracle_positions.csv keeps its 288 positions (drawn from shared/data/oracle/positions.csv.gz,
see README.md) and their columns, recomputed here, and gains two columns:
checking_moves_uci (the legal moves that give check, `Board.gives_check`) and
mating_moves_uci (those after which the side to move is checkmated).

oracle_endings.csv has the same columns for every distinct standard stalemate position of
the shared data (the stalemate rows of oracle/positions.csv.gz and the final positions of the
games of oracle/games.csv whose status is stalemate), then for the position before the last
move of every standard game of oracle/games.csv that ends in checkmate (a mate in one:
mating_moves_uci is not empty).

Usage: make_oracle_fixture.py SHARED_DATA_DIR (default ../shared/data from the crate root).
Deterministic: no clock, no randomness.
"""
import csv
import gzip
import os
import sys

import chess

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["fen", "legal_move_count", "legal_moves_uci", "is_check", "is_checkmate",
           "is_stalemate", "checking_moves_uci", "mating_moves_uci"]


def flag(b):
    return "true" if b else "false"


def row(fen):
    board = chess.Board(fen)
    assert board.is_valid(), fen
    moves = sorted(m.uci() for m in board.legal_moves)
    checking, mating = [], []
    for m in board.legal_moves:
        if board.gives_check(m):
            checking.append(m.uci())
            board.push(m)
            if board.is_checkmate():
                mating.append(m.uci())
            board.pop()
    return {
        "fen": fen,
        "legal_move_count": str(len(moves)),
        "legal_moves_uci": " ".join(moves),
        "is_check": flag(board.is_check()),
        "is_checkmate": flag(board.is_checkmate()),
        "is_stalemate": flag(board.is_stalemate()),
        "checking_moves_uci": " ".join(sorted(checking)),
        "mating_moves_uci": " ".join(sorted(mating)),
    }


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../shared/data")
    path = os.path.join(HERE, "oracle_positions.csv")
    with open(path, newline="") as f:
        old = list(csv.DictReader(f))
    rows = []
    for r in old:
        new = row(r["fen"])
        for k in COLUMNS[:6]:
            assert new[k] == r[k], (r["fen"], k, new[k], r[k])
        rows.append(new)
    write(path, rows)

    fens = []
    with gzip.open(os.path.join(shared, "oracle/positions.csv.gz"), "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r["is_stalemate"] == "true" and r["chess960"] != "true":
                fens.append(r["fen"])
    with open(os.path.join(shared, "oracle/games.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["final_status"] == "stalemate" and r["variant"] == "standard":
                fens.append(r["final_fen"])
    seen, stalemates = set(), []
    for fen in fens:
        key = " ".join(fen.split()[:4])
        if key not in seen:
            seen.add(key)
            stalemates.append(row(fen))
    assert all(r["is_stalemate"] == "true" for r in stalemates)
    mates = []
    with open(os.path.join(shared, "oracle/games.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["final_status"] != "checkmate" or r["variant"] != "standard":
                continue
            board = chess.Board(r["start_fen"]) if r["start_fen"] else chess.Board()
            for uci in r["mainline_uci"].split()[:-1]:
                board.push(chess.Move.null() if uci == "0000" else chess.Move.from_uci(uci))
            fen = board.fen(en_passant="legal")
            key = " ".join(fen.split()[:4])
            if key not in seen:
                seen.add(key)
                mates.append(row(fen))
    assert all(r["mating_moves_uci"] for r in mates)
    write(os.path.join(HERE, "oracle_endings.csv"), stalemates + mates)
    print(f"{len(rows)} positions, {len(stalemates)} stalemates, {len(mates)} mates in one")


if __name__ == "__main__":
    main()
