#!/usr/bin/env python3
"""Expected rows of the six tactical-pattern queries of examples/queries/ on
tests/data/pgn/patterns.pgn (made by make_patterns_fixture.py), computed with python-chess
1.11.2 (board.attacks, board.is_pinned, board.gives_check, board.is_checkmate; never with
sqlchess):

    /tmp/pyc/bin/python examples/queries/make_patterns_expected.py

Writes examples/queries/expected/<query>.csv for knight_fork, greek_gift,
rook_ending_extra_pawn, queen_won_through_pin, longest_check_streak and
underpromotion_mate (the rows each query must return, in its ORDER BY order; NULL as an
empty field). The other queries' CSVs are make_expected.py's.
"""
import csv
import os
import sys

import chess
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_expected import game_info, read_games, text  # noqa: E402
from make_patterns_fixture import pinner  # noqa: E402
from make_sql_functions_oracle import status  # noqa: E402

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
PGN = os.path.join(HERE, "..", "..", "tests", "data", "pgn", "patterns.pgn")


class Ply:
    """One main-line ply: the boards before and after, the move, as read_plies sees it."""

    def __init__(self, number, before, move):
        self.ply = number
        self.before = before.copy(stack=False)
        self.move = move
        self.color = "white" if before.turn == chess.WHITE else "black"
        self.move_number = before.fullmove_number
        self.san = before.san(move)
        self.piece = before.piece_type_at(move.from_square)
        self.to_square = move.to_square
        if before.is_en_passant(move):
            self.captured = chess.PAWN
        else:
            self.captured = before.piece_type_at(move.to_square) if before.is_capture(move) else None
        self.is_capture = before.is_capture(move)
        self.is_check = before.gives_check(move)
        self.after = before.copy(stack=False)
        self.after.push(move)
        self.is_checkmate = self.after.is_checkmate()


def plies_of(game):
    board = game.board()
    out = []
    for i, move in enumerate(game.mainline_moves()):
        out.append(Ply(i + 1, board, move))
        board.push(move)
    return out


def at(plies, i):
    """plies[i], or None past the end (LEAD's NULL)."""
    return plies[i] if 0 <= i < len(plies) else None




def knight_fork(P):
    rows = []
    for gi, plies in P.items():
        for i, p in enumerate(plies):
            if p.piece != chess.KNIGHT:
                continue
            enemy = not p.before.turn
            att = p.after.attacks(p.to_square)
            kings = att & p.after.pieces(chess.KING, enemy)
            queens = att & p.after.pieces(chess.QUEEN, enemy)
            if not kings or not queens:
                continue
            reply, nxt = at(plies, i + 1), at(plies, i + 2)
            rows.append([
                gi, p.ply, p.color, p.san,
                chess.square_name(kings.pop()),
                min(chess.square_name(s) for s in queens),
                reply.san if reply else None,
                nxt.san if nxt else None,
                nxt is not None and nxt.captured == chess.QUEEN,
            ])
    return ["game_index", "ply", "color", "san", "king_square", "queen_square", "reply",
            "next_move", "queen_taken"], rows


def greek_gift(P, G):
    rows = []
    for gi, plies in P.items():
        for i, p in enumerate(plies):
            white = p.color == "white"
            follow = at(plies, i + 2)
            if (p.piece == chess.BISHOP and p.is_capture and p.is_check
                    and p.to_square == (chess.H7 if white else chess.H2)
                    and follow is not None and follow.piece == chess.KNIGHT and follow.is_check
                    and follow.to_square == (chess.G5 if white else chess.G4)):
                rows.append([gi, p.ply, p.color, p.move_number, p.san, plies[i + 1].san,
                             follow.san, G[gi]["result"]])
    return ["game_index", "ply", "color", "move_number", "sacrifice", "reply", "knight_check",
            "result"], rows


def rook_ending_extra_pawn(P, G):
    rows = []
    for gi, plies in P.items():
        hits = []
        for p in plies:
            b = p.after
            n = lambda t, c: len(b.pieces(t, c))  # noqa: E731
            if n(chess.ROOK, chess.WHITE) != 1 or n(chess.ROOK, chess.BLACK) != 1:
                continue
            if any(n(t, c) for t in (chess.QUEEN, chess.BISHOP, chess.KNIGHT) for c in chess.COLORS):
                continue
            d = n(chess.PAWN, chess.WHITE) - n(chess.PAWN, chess.BLACK)
            if d == 1:
                hits.append((p.ply, "Pv", "white"))
            elif d == -1:
                hits.append((p.ply, "vP", "black"))
        if hits:
            g = G[gi]
            rows.append([gi, hits[0][0], hits[0][1], hits[0][2], len(hits), g["plies"],
                         g["result"], g["final_status"]])
    return ["game_index", "first_ply", "imbalance", "pawn_up", "plies_pawn_up", "plies",
            "result", "final_status"], rows




def queen_won_through_pin(P):
    rows = []
    for gi, plies in P.items():
        for i, p in enumerate(plies):
            nxt = at(plies, i + 1)
            if nxt is None:
                continue
            mover = p.before.turn
            for sq in sorted(p.after.pieces(chess.QUEEN, mover)):
                if not p.after.is_pinned(mover, sq):
                    continue
                psq, pname = pinner(p.after, mover, sq)
                # the pin line really ends at the king (python-chess's own pin mask)
                assert p.after.pin(mover, sq) & chess.BB_SQUARES[psq]
                if pname.upper() == "Q":
                    continue
                if nxt.to_square == sq and nxt.captured == chess.QUEEN:
                    rows.append([gi, p.ply, p.color, p.san, chess.square_name(sq), pname,
                                 chess.square_name(psq), nxt.ply, nxt.san])
    return ["game_index", "ply", "color", "san", "queen_square", "pinner", "pinner_square",
            "capture_ply", "capture"], rows


def longest_check_streak(P, G):
    best = []
    for gi, plies in P.items():
        streaks = []  # (checks, first_ply, last_ply, color)
        run = {}
        for p in plies:
            if p.is_check:
                if p.color in run:
                    run[p.color][1] = p.ply
                    run[p.color][2] += 1
                else:
                    run[p.color] = [p.ply, p.ply, 1]
            elif p.color in run:
                first, last, n = run.pop(p.color)
                streaks.append((n, first, last, p.color))
        for color, (first, last, n) in run.items():
            streaks.append((n, first, last, color))
        if streaks:
            n, first, last, color = sorted(streaks, key=lambda s: (-s[0], s[1]))[0]
            best.append([gi, G[gi]["white"], G[gi]["black"], color, first, last, n])
    best.sort(key=lambda r: (-r[6], r[0]))
    return ["game_index", "white", "black", "color", "first_ply", "last_ply", "checks"], best[:3]


def underpromotion_mate(P):
    rows = []
    for gi, plies in P.items():
        for i, p in enumerate(plies):
            if p.move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK) and p.is_checkmate:
                queen = p.before.copy(stack=False)
                queen.push(chess.Move(p.move.from_square, p.move.to_square, chess.QUEEN))
                prev = at(plies, i - 1)
                rows.append([gi, p.ply, p.color, p.move_number, prev.san if prev else None, p.san,
                             chess.piece_symbol(p.move.promotion).upper(), status(queen)])
    return ["game_index", "ply", "color", "move_number", "previous_move", "san", "promotion",
            "queen_instead"], rows


def main():
    games = read_games(PGN)
    G = {i: game_info(i, g) for i, g in enumerate(games)}
    P = {i: plies_of(g) for i, g in enumerate(games)}
    out = {
        "knight_fork": knight_fork(P),
        "greek_gift": greek_gift(P, G),
        "rook_ending_extra_pawn": rook_ending_extra_pawn(P, G),
        "queen_won_through_pin": queen_won_through_pin(P),
        "longest_check_streak": longest_check_streak(P, G),
        "underpromotion_mate": underpromotion_mate(P),
    }
    for name, (header, rows) in out.items():
        with open(os.path.join(HERE, "expected", name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for r in rows:
                w.writerow(["" if v is None else text(v) for v in r])
        print(name, len(rows), "rows")
    print(len(games), "games", sum(len(p) for p in P.values()), "plies")


if __name__ == "__main__":
    main()
