"""python-chess against `sqlchess sql "SELECT count(*), count(DISTINCT position_key) FROM
read_plies(FILES)"`: every game of every PGN file read with `chess.pgn.read_game` (which
plays each main-line move and stops at the first illegal one), the Polyglot key
(`chess.polyglot.zobrist_hash`) of the position after every legal main-line ply.

Usage: python position_keys.py FILES...  (python-chess 1.11: pip install chess)
Prints the number of plies and of distinct keys; time the whole process.
"""
import sys

import chess.pgn
import chess.polyglot

plies = 0
keys = set()
for path in sys.argv[1:]:
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                keys.add(chess.polyglot.zobrist_hash(board))
                plies += 1
print(plies, len(keys))
