#!/usr/bin/env python3
"""Makes tests/data/pgn/queries.pgn, the fixed input of examples/queries/*.sql.

    /tmp/pyc/bin/python examples/queries/make_fixture.py /work/shared/data

Games, verbatim (LF line endings), in this order:
1. from pgn/shakmaty/lichess_db_1000k.pgn (lichess May 2025, clocks `[%clk]` on every move,
   some with `[%eval]`): every game with an `[%eval]`, every game with an en passant capture
   or an underpromotion, then the first games of the file until 60 games are taken (file
   order; the file's last game is cut off and never taken);
2. the games of pgn/shakmaty/twic1599_1000k.pgn with an underpromotion (legal games; the
   file's last game is cut off and never taken);
3. the first 2 games of bad/illegal.pgn (each has an illegal move);
4. a copy of the first game taken (a duplicate, for the duplicate-games query).
Deterministic; needs python-chess 1.11.2 only to find the en passant captures and
underpromotions.
"""
import io
import os
import sys

import chess.pgn

assert chess.__version__ == "1.11.2"


def games_text(path):
    """The raw text of each game (split before each [Event line after a blank line)."""
    text = open(path, encoding="utf-8").read().replace("\r\n", "\n")
    parts = []
    cur = []
    for line in text.split("\n"):
        if line.startswith("[Event ") and cur and any(l.strip() for l in cur):
            parts.append("\n".join(cur).strip("\n") + "\n")
            cur = []
        cur.append(line)
    if any(l.strip() for l in cur):
        parts.append("\n".join(cur).strip("\n") + "\n")
    return parts


def special(text, en_passant=True):
    game = chess.pgn.read_game(io.StringIO(text))
    if game.errors:
        return False
    board = game.board()
    for move in game.mainline_moves():
        if (en_passant and board.is_en_passant(move)) or (
            move.promotion and move.promotion != chess.QUEEN
        ):
            return True
        board.push(move)
    return False


def main():
    shared = sys.argv[1]
    lichess = games_text(os.path.join(shared, "pgn/shakmaty/lichess_db_1000k.pgn"))[:-1]
    chosen = [i for i, g in enumerate(lichess) if "%eval" in g or special(g)]
    for i in range(len(lichess)):
        if len(chosen) >= 60:
            break
        if i not in chosen:
            chosen.append(i)
    chosen.sort()
    games = [lichess[i] for i in chosen]
    twic = games_text(os.path.join(shared, "pgn/shakmaty/twic1599_1000k.pgn"))[:-1]
    games += [g for g in twic if special(g, en_passant=False)]
    games += games_text(os.path.join(shared, "bad/illegal.pgn"))[:2]
    games.append(games[0])
    out = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "pgn", "queries.pgn")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(games))
    print(len(games), "games, lichess indexes", chosen)


if __name__ == "__main__":
    main()
