"""python-chess against `sqlchess moves --fens FILE --out X`: every legal move of every FEN
line, with its UCI and SAN (check and mate suffixes included), as CSV rows to /dev/null.

Usage: python moves.py FENS_FILE  (python-chess 1.11: pip install chess)
"""
import sys

import chess

with open("/dev/null", "w") as out:
    for i, line in enumerate(open(sys.argv[1])):
        fen = line.strip()
        if not fen:
            continue
        board = chess.Board(fen)
        for move in board.legal_moves:
            out.write(f"{i},{fen},{move.uci()},{board.san(move)}\n")
