#!/usr/bin/env python3
"""Expected rows of examples/queries/*.sql on tests/data/pgn/queries.pgn, and the per-ply
oracle of read_plies, computed with python-chess 1.11.2 (never with sqlchess):

    python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2
    /tmp/pyc/bin/python examples/queries/make_expected.py

Writes tests/data/queries_plies.tsv (one row per legal main-line ply, the columns of
read_plies that tests/sql.rs checks; fen_before is the previous row's fen_after) and examples/queries/expected/<query>.csv (the rows
each query must return, in its ORDER BY order; NULL as an empty field).
"""
import csv
import io
import os

import chess
import chess.pgn
import chess.polyglot

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PGN = os.path.join(ROOT, "tests", "data", "pgn", "queries.pgn")
ROLES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]


def read_games():
    games = []
    with open(PGN, encoding="utf-8") as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            games.append(g)
    return games


def ply_rows(index, game):
    """One dict per legal main-line ply."""
    rows = []
    board = game.board()
    node = game
    ply = 0
    while node.variations:
        node = node.variations[0]
        move = node.move
        ply += 1
        before = board.fen()
        piece = board.piece_at(move.from_square)
        if board.is_en_passant(move):
            captured = "P"
        else:
            cap = board.piece_at(move.to_square) if board.is_capture(move) else None
            captured = cap.symbol().upper() if cap else ""
        row = {
            "game_index": index,
            "ply": ply,
            "fen_before": before,
            "uci": move.uci(),
            "san": board.san(move),
            "piece": piece.symbol().upper(),
            "from_square": chess.square_name(move.from_square),
            "to_square": chess.square_name(move.to_square),
            "captured": captured,
            "promotion": chess.piece_symbol(move.promotion) if move.promotion else "",
            "is_capture": board.is_capture(move),
            "is_check": board.gives_check(move),
            "is_castling": board.is_castling(move),
            "is_en_passant": board.is_en_passant(move),
        }
        board.push(move)
        ev = node.eval()
        white = ev.white() if ev else None
        row.update({
            "fen_after": board.fen(),
            "is_checkmate": board.is_checkmate(),
            "clock_s": "" if node.clock() is None else repr(float(node.clock())),
            "eval_cp": "" if white is None or white.is_mate() else white.score(),
            "eval_mate": "" if white is None or not white.is_mate() else white.mate(),
            "comment": node.comment,
            "nags": " ".join(str(n) for n in sorted(node.nags)),
            "material": " ".join(
                str(len(board.pieces(r, c))) for c in [chess.WHITE, chess.BLACK] for r in ROLES
            ),
            "position_key": "%016x" % chess.polyglot.zobrist_hash(board),
        })
        rows.append(row)
    return rows


PLY_COLUMNS = [
    "game_index", "ply", "fen_after", "uci", "san", "piece", "from_square",
    "to_square", "captured", "promotion", "is_capture", "is_check", "is_checkmate",
    "is_castling", "is_en_passant", "clock_s", "eval_cp", "eval_mate", "comment", "nags",
    "material", "position_key",
]


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def main():
    games = read_games()
    plies = []
    for i, g in enumerate(games):
        plies += ply_rows(i, g)
    with open(os.path.join(ROOT, "tests", "data", "queries_plies.tsv"), "w") as f:
        f.write("\t".join(PLY_COLUMNS) + "\n")
        for r in plies:
            f.write("\t".join(text(r[c]).replace("\t", " ").replace("\n", " ") for c in PLY_COLUMNS) + "\n")
    print(len(games), "games", len(plies), "plies")


if __name__ == "__main__":
    main()
