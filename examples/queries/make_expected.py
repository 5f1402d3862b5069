#!/usr/bin/env python3
"""Expected rows of examples/queries/*.sql on tests/data/pgn/queries.pgn, and the per-ply
oracle of read_plies, computed with python-chess 1.11.2 (never with sqlchess):

    python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2
    /tmp/pyc/bin/python examples/queries/make_expected.py

Writes tests/data/queries_plies.tsv (one row per legal main-line ply, the columns of
read_plies that tests/sql/read_plies.slt checks; fen_before is the previous row's fen_after) and examples/queries/expected/<query>.csv (the rows
each query must return, in its ORDER BY order; NULL as an empty field).
"""
import csv
import io
import os

import chess
import chess.pgn
import chess.polyglot

import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data"))
from make_sql_functions_oracle import signature  # noqa: E402

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PGN = os.path.join(ROOT, "tests", "data", "pgn", "queries.pgn")
ROLES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]


def read_games(path=PGN):
    games = []
    with open(path, encoding="utf-8") as f:
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
            "promotion": chess.piece_symbol(move.promotion).upper() if move.promotion else "",
            "color": "white" if board.turn == chess.WHITE else "black",
            "move_number": board.fullmove_number,
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
    "game_index", "ply", "color", "move_number", "fen_after", "uci", "san", "piece", "from_square",
    "to_square", "captured", "promotion", "is_capture", "is_check", "is_checkmate",
    "is_castling", "is_en_passant", "clock_s", "eval_cp", "eval_mate", "comment", "nags",
    "material", "position_key",
]


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def game_info(index, game):
    """What read_pgn says of a game (tags, legal plies, first illegal ply, final position)."""
    board = game.board()
    plies = 0
    for move in game.mainline_moves():
        board.push(move)
        plies += 1
    if board.is_checkmate():
        status = "checkmate"
    elif board.is_insufficient_material():
        status = "insufficient_material"
    elif board.is_stalemate():
        status = "stalemate"
    elif board.halfmove_clock >= 150:
        status = "seventyfive_moves"
    elif board.is_repetition(5):
        status = "fivefold_repetition"
    elif board.halfmove_clock >= 100:
        status = "fifty_moves"
    elif board.is_repetition(3):
        status = "threefold_repetition"
    else:
        status = "ongoing"

    def elo(name):
        v = game.headers.get(name)
        try:
            return int(v)
        except (TypeError, ValueError):
            return None

    h = game.headers
    return {
        "game_index": index,
        "white": h.get("White"),
        "black": h.get("Black"),
        "result": h.get("Result"),
        "eco": h.get("ECO"),
        "termination": h.get("Termination"),
        "time_control": h.get("TimeControl"),
        "white_elo": elo("WhiteElo"),
        "black_elo": elo("BlackElo"),
        "plies": plies,
        "first_illegal_ply": plies + 1 if game.errors else None,
        "final_status": status,
        "final_key": chess.polyglot.zobrist_hash(board),
    }


def by_game(plies):
    out = {}
    for r in plies:
        out.setdefault(r["game_index"], []).append(r)
    return out


def expected(games, plies):
    """query name -> (header, rows)"""
    info = [game_info(i, g) for i, g in enumerate(games)]
    G = {g["game_index"]: g for g in info}
    P = by_game(plies)
    out = {}

    groups = {}
    for g in info:
        if g["eco"] is None or g["white_elo"] is None or g["black_elo"] is None:
            continue
        key = (g["eco"], (g["white_elo"] + g["black_elo"]) // 2 // 200 * 200)
        c = groups.setdefault(key, [0, 0, 0, 0])
        c[0] += 1
        c[1] += g["result"] == "1-0"
        c[2] += g["result"] == "1/2-1/2"
        c[3] += g["result"] == "0-1"
    out["results_by_eco_and_rating"] = (
        ["eco", "rating_bucket", "games", "white_wins", "draws", "black_wins"],
        [[k[0], k[1]] + v for k, v in sorted(groups.items())],
    )

    target = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2").epd()
    moves = {}
    for r in plies:
        if chess.Board(r["fen_before"]).epd() == target:
            c = moves.setdefault(r["san"], [0, 0, 0])
            res = G[r["game_index"]]["result"]
            c[0] += 1
            c[1] += res == "1-0"
            c[2] += res == "0-1"
    out["next_moves_from_position"] = (
        ["san", "times", "white_wins", "black_wins"],
        sorted(([k] + v for k, v in moves.items()), key=lambda r: (-r[1], r[0])),
    )

    key = chess.polyglot.zobrist_hash(
        chess.Board("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"))
    rows = []
    for gi, rs in sorted(P.items()):
        hits = [r["ply"] for r in rs if int(r["position_key"], 16) == key]
        if hits:
            rows.append([gi, G[gi]["white"], G[gi]["black"], min(hits)])
    out["games_reaching_position"] = (["game_index", "white", "black", "first_ply"], rows)

    rows = []
    for gi, rs in sorted(P.items()):
        hits = []
        for r in rs:
            sig = signature(chess.Board(r["fen_after"]))
            if sig.replace("P", "") == "KRvKR":
                hits.append((r["ply"], sig))
        if hits:
            rows.append([gi, hits[0][0], hits[0][1], len(hits)])
    out["rook_endings"] = (["game_index", "first_ply", "signature", "plies_in_ending"], rows)

    rows = []
    for gi, rs in sorted(P.items()):
        for prev, r in zip(rs, rs[1:]):
            if prev["eval_cp"] != "" and r["eval_cp"] != "" and abs(r["eval_cp"] - prev["eval_cp"]) >= 200:
                clock = "" if r["clock_s"] == "" else int(float(r["clock_s"]))
                rows.append([gi, r["ply"], r["san"], prev["eval_cp"], r["eval_cp"], clock])
    out["blunders_against_clock"] = (
        ["game_index", "ply", "san", "eval_before", "eval_after", "clock_s"], rows)

    rows = []
    for gi, rs in sorted(P.items()):
        tc = G[gi]["time_control"]
        if tc is None or "+" not in tc:
            continue
        inc = float(tc.split("+")[1])
        sides = {}
        previous = {}
        for r in rs:
            side = r["color"]
            s = sides.setdefault(side, [0, 0.0])
            prev = previous.get(side)
            if prev is not None and prev["clock_s"] != "" and r["clock_s"] != "":
                s[0] += 1
                s[1] += float(prev["clock_s"]) - float(r["clock_s"]) + inc
            previous[side] = r
        for side in sorted(sides):
            if sides[side][0] > 0:
                rows.append([gi, side, sides[side][0], int(sides[side][1])])
    out["time_per_move"] = (["game_index", "side", "moves_timed", "seconds_spent"], rows)

    terms = {}
    for g in info:
        t = g["termination"] if g["termination"] is not None else "(none)"
        terms.setdefault(t, []).append(g["plies"])
    out["length_by_termination"] = (
        ["termination", "games", "min_plies", "max_plies", "total_plies"],
        [[t, len(v), min(v), max(v), sum(v)] for t, v in sorted(terms.items())],
    )

    out["special_moves"] = (
        ["en_passant", "underpromotions", "castles_kingside", "castles_queenside"],
        [[
            sum(r["is_en_passant"] for r in plies),
            sum(r["promotion"] in ("N", "B", "R") for r in plies),
            sum(r["is_castling"] and r["to_square"] in ("g1", "g8") for r in plies),
            sum(r["is_castling"] and r["to_square"] in ("c1", "c8") for r in plies),
        ]],
    )

    rows = []
    for gi, rs in sorted(P.items()):
        for prev, r in zip(rs, rs[1:]):
            if prev["captured"] == "Q" and r["captured"] == "Q":
                rows.append([gi, r["ply"] - 1])
    out["queen_trades"] = (["game_index", "first_capture_ply"], rows)

    out["illegal_moves"] = (
        ["game_index", "white", "black", "plies", "first_illegal_ply"],
        [[g["game_index"], g["white"], g["black"], g["plies"], g["first_illegal_ply"]]
         for g in info if g["first_illegal_ply"] is not None],
    )

    rows = []
    for gi, rs in sorted(P.items()):
        if len(rs) >= 2 and rs[0]["san"] == "e4" and rs[1]["san"] == "c5":
            rows.append([gi, G[gi]["eco"] or ""])
    out["opening_prefix"] = (["game_index", "eco"], rows)

    keys = {}
    for g in info:
        keys.setdefault(g["final_key"], []).append(g["game_index"])
    out["duplicate_games"] = (
        ["final_key", "games", "first_game", "last_game"],
        sorted(([k, len(v), min(v), max(v)] for k, v in keys.items() if len(v) > 1),
               key=lambda r: r[2]),
    )

    status = {}
    for g in info:
        status[g["final_status"]] = status.get(g["final_status"], 0) + 1
    out["final_status"] = (["final_status", "games"], sorted([k, v] for k, v in status.items()))

    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    rows = []
    for m in sorted(board.legal_moves, key=lambda m: m.uci()):
        if board.gives_check(m):
            san = board.san(m)
            rows.append([m.uci(), san, san.endswith("#")])
    out["checks_from_position"] = (["uci", "san", "is_mate"], rows)
    return out


def main():
    games = read_games()
    plies = []
    for i, g in enumerate(games):
        plies += ply_rows(i, g)
    with open(os.path.join(ROOT, "tests", "data", "queries_plies.tsv"), "w") as f:
        f.write("\t".join(PLY_COLUMNS) + "\n")
        for r in plies:
            f.write("\t".join(text(r[c]).replace("\t", " ").replace("\n", " ") for c in PLY_COLUMNS) + "\n")
    for name, (header, rows) in expected(games, plies).items():
        with open(os.path.join(HERE, "expected", name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for r in rows:
                w.writerow([text(v) for v in r])
    print(len(games), "games", len(plies), "plies")


if __name__ == "__main__":
    main()
