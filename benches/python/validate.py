"""python-chess against `sqlchess validate FILES`: every game of every PGN file read with
`chess.pgn.read_game` (which plays each main-line move and records the first illegal one in
`game.errors`), its final position and `outcome()`.

Usage: python validate.py FILES...  (python-chess 1.11: pip install chess)
Prints the number of games and plies; time the whole process.
"""
import sys

import chess.pgn

games = plies = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.end().board()
            board.outcome(claim_draw=True)
            games += 1
            plies += board.ply() - game.board().ply()
print(games, plies)
