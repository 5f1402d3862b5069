#!/usr/bin/env python3
"""Expected values of the SQL position functions attacks, pins, checkers and hanging.

Run from the repository root (deterministic; the argument is the shared data root,
default /work/shared/data):
    python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2
    /tmp/pyc/bin/python tests/data/make_position_queries_oracle.py /work/shared/data

Writes tests/data/position_queries_oracle.tsv.gz (gzip with mtime 0 and no file name, so
the bytes are the same on every run).

Inputs, in this order, de-duplicated by full FEN (first occurrence kept):
1. every row of oracle/positions.csv.gz, read as chess.Board(fen, chess960=(chess960 == 'true'));
2. the positions of the standard games of pgn/*/*.pgn (sorted paths; pgn/variants left out;
   games with a FEN tag or a Variant tag other than 'Standard' skipped), every tenth ply of
   the main line as chess.pgn.read_game gives it (ply 0, the start position, included).
   Each file is decoded as UTF-8, or Latin-1 when it is not valid UTF-8 (as
   oracle/README.md describes), line endings kept.

Output: tab-separated, header line first, one line per position:
fen, chess960 (true/false), then for attacks, pins, checkers, hanging: the number of rows
and a hash of the rows. The rows of a function are canonical text lines (square names
a1..h8, FEN piece letters, fields separated by one space), sorted (Python str order),
joined with "\\n" (no trailing newline) and hashed with 64-bit FNV-1a over the UTF-8 bytes
(offset 0xcbf29ce484222325, prime 0x100000001b3), written as 16 lowercase hex digits;
no rows hash the empty string (cbf29ce484222325).
- attacks: "<square> <piece> <attacked square> <piece there or ->" for every piece of both
  sides and every square of board.attacks(square).
- pins: "<pinned square> <pinned> <pinner square> <pinner> <king square>" for every non-king
  piece with board.is_pinned(its color, square); the pinner is the first piece beyond the
  pinned one on the line from its king (an enemy bishop/rook/queen moving along that line).
- checkers: "<square> <piece>" for every square of board.checkers().
- hanging: "<square> <piece> <number of enemy attackers>" for every non-king piece with
  board.attackers(enemy, square) non-empty and board.attackers(own color, square) empty.
"""
import csv
import glob
import gzip
import io
import os
import sys

import chess
import chess.pgn

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "position_queries_oracle.tsv.gz")
PLY_STEP = 10
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1
HEADER = [
    "fen", "chess960",
    "attacks_n", "attacks_hash", "pins_n", "pins_hash",
    "checkers_n", "checkers_hash", "hanging_n", "hanging_hash",
]


def fnv1a(text):
    h = FNV_OFFSET
    for b in text.encode("utf-8"):
        h = ((h ^ b) * FNV_PRIME) & MASK
    return "%016x" % h


def name(sq):
    return chess.square_name(sq)


def sym_at(board, sq):
    p = board.piece_at(sq)
    return p.symbol() if p else "-"


def attacks_rows(board):
    rows = []
    for s in chess.SQUARES:
        p = board.piece_at(s)
        if p is None:
            continue
        for t in board.attacks(s):
            rows.append(f"{name(s)} {p.symbol()} {name(t)} {sym_at(board, t)}")
    return rows


def sign(x):
    return (x > 0) - (x < 0)


def pinner_of(board, color, s, king):
    """The enemy slider beyond s on the line from king through s."""
    df = sign(chess.square_file(s) - chess.square_file(king))
    dr = sign(chess.square_rank(s) - chess.square_rank(king))
    # king and s on one rank, file or diagonal
    fd = abs(chess.square_file(s) - chess.square_file(king))
    rd = abs(chess.square_rank(s) - chess.square_rank(king))
    assert fd == 0 or rd == 0 or fd == rd, (board.fen(), s)
    f, r = chess.square_file(s) + df, chess.square_rank(s) + dr
    while 0 <= f < 8 and 0 <= r < 8:
        t = chess.square(f, r)
        p = board.piece_at(t)
        if p is not None:
            assert p.color != color, (board.fen(), s)
            diagonal = df != 0 and dr != 0
            ok = (chess.QUEEN, chess.BISHOP) if diagonal else (chess.QUEEN, chess.ROOK)
            assert p.piece_type in ok, (board.fen(), s)
            return t, p
        f, r = f + df, r + dr
    raise AssertionError(("no pinner", board.fen(), s))


def pins_rows(board):
    rows = []
    for color in (chess.WHITE, chess.BLACK):
        king = board.king(color)
        for s in chess.SQUARES:
            p = board.piece_at(s)
            if p is None or p.color != color or p.piece_type == chess.KING:
                continue
            if board.is_pinned(color, s):
                t, q = pinner_of(board, color, s, king)
                rows.append(f"{name(s)} {p.symbol()} {name(t)} {q.symbol()} {name(king)}")
    return rows


def checkers_rows(board):
    return [f"{name(s)} {board.piece_at(s).symbol()}" for s in board.checkers()]


def hanging_rows(board):
    rows = []
    for s in chess.SQUARES:
        p = board.piece_at(s)
        if p is None or p.piece_type == chess.KING:
            continue
        a = board.attackers(not p.color, s)
        d = board.attackers(p.color, s)
        if a and not d:
            rows.append(f"{name(s)} {p.symbol()} {len(a)}")
    return rows


FUNCTIONS = [attacks_rows, pins_rows, checkers_rows, hanging_rows]


def all_rows(board):
    return [sorted(fn(board)) for fn in FUNCTIONS]


def line_of(board):
    cols = [board.fen(), "true" if board.chess960 else "false"]
    for rows in all_rows(board):
        cols += [str(len(rows)), fnv1a("\n".join(rows))]
    return "\t".join(cols) + "\n"


def oracle_boards(root):
    with gzip.open(os.path.join(root, "oracle", "positions.csv.gz"), "rt", newline="") as f:
        for row in csv.DictReader(f):
            board = chess.Board(row["fen"], chess960=(row["chess960"] == "true"))
            assert board.fen() == row["fen"], row["fen"]
            yield board


def pgn_files(root):
    skip = os.path.join(root, "pgn", "variants")
    return [p for p in sorted(glob.glob(os.path.join(root, "pgn", "*", "*.pgn")))
            if os.path.dirname(p) != skip]


def read_text(path):
    data = open(path, "rb").read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def game_boards(root, stats):
    for path in pgn_files(root):
        handle = io.StringIO(read_text(path), newline="")
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            stats["games"] += 1
            if "FEN" in game.headers or game.headers.get("Variant", "Standard").lower() != "standard":
                stats["skipped"] += 1
                continue
            board = game.board()
            assert not board.chess960 and board.fen() == chess.STARTING_FEN
            yield board.copy(stack=False)
            for ply, move in enumerate(game.mainline_moves(), start=1):
                board.push(move)
                if ply % PLY_STEP == 0:
                    yield board.copy(stack=False)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data"
    seen = set()
    counts = {"positions.csv.gz": 0, "games": 0}
    stats = {"games": 0, "skipped": 0}
    invalid = 0
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        out = io.TextIOWrapper(gz, encoding="utf-8", newline="")
        out.write("\t".join(HEADER) + "\n")
        for source, boards in [("positions.csv.gz", oracle_boards(root)),
                               ("games", game_boards(root, stats))]:
            for board in boards:
                fen = board.fen()
                if fen in seen:
                    continue
                seen.add(fen)
                if not board.is_valid():
                    invalid += 1
                counts[source] += 1
                out.write(line_of(board))
        out.flush()
        out.detach()
    with open(OUT, "wb") as f:
        f.write(buf.getvalue())

    # self-check: the start position
    start = [len(rows) for rows in all_rows(chess.Board())]
    print("start position attacks/pins/checkers/hanging:", start)
    # per side: pawns 6 x 2 + 2 x 1 (a- and h-pawn) = 14, knights 2 x 3, bishops 2 x 2,
    # queen 5, king 5, rooks 2 x 2 = 38; own pieces count, so 76 in all
    assert start == [76, 0, 0, 0], start
    print("games read:", stats["games"], "skipped (FEN/Variant tag):", stats["skipped"])
    print("positions from positions.csv.gz:", counts["positions.csv.gz"])
    print("positions from games (new FENs):", counts["games"])
    print("positions total:", len(seen), "not is_valid():", invalid)
    print("file:", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
