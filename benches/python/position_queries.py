"""python-chess against the SQL position functions of `benches/position_queries.rs`: per
function, the same work per board over the first N positions of
tests/data/position_queries_oracle.tsv.gz, each board built with chess.Board(fen) (the SQL
side parses its FENs too) and its result made as the SQL function's values (square names,
FEN piece letters).

Usage: python position_queries.py ORACLE_TSV_GZ N SUBFEN MATERIAL
(python-chess 1.11: pip install chess). SUBFEN is the matches_subfen pattern; MATERIAL must
be the pattern `material_ok` hard-codes (checked).
Prints one line per function: name, seconds (time.perf_counter around the loop over the
boards: interpreter start and file reading left out), the answer the SQL query gives:
- attacks, pins, checkers, hanging: the number of rows of all boards
  (SELECT sum(cardinality(f(fen))));
- matches_subfen, material_matches: the number of boards that match (count(*) FILTER);
- imbalance: the number of distinct imbalances (count(DISTINCT imbalance(fen))).
"""
import csv
import gzip
import sys
import time

import chess

NAMES = chess.SQUARE_NAMES
scan = chess.scan_forward


def boards(fens):
    for fen, c960 in fens:
        yield chess.Board(fen, chess960=c960)


def symbol(board, sq):
    p = board.piece_at(sq)
    return p.symbol() if p else None


def attacks(fens):
    # every piece of both sides, every square it attacks, with the piece there
    n = 0
    for board in boards(fens):
        rows = []
        for s in scan(board.occupied):
            p = board.piece_at(s).symbol()
            for t in board.attacks(s):
                rows.append((NAMES[s], p, NAMES[t], symbol(board, t)))
        n += len(rows)
    return n


def sign(x):
    return (x > 0) - (x < 0)


def pinner(board, s, king):
    """The first piece beyond s on the line from king through s."""
    df = sign(chess.square_file(s) - chess.square_file(king))
    dr = sign(chess.square_rank(s) - chess.square_rank(king))
    f, r = chess.square_file(s) + df, chess.square_rank(s) + dr
    while 0 <= f < 8 and 0 <= r < 8:
        t = chess.square(f, r)
        p = board.piece_at(t)
        if p is not None:
            return t, p
        f, r = f + df, r + dr
    raise AssertionError(("no pinner", board.fen(), s))


def pins(fens):
    # every non-king piece of both colours: is_pinned, then the pinner walk
    n = 0
    for board in boards(fens):
        rows = []
        for color in (chess.WHITE, chess.BLACK):
            king = board.king(color)
            for s in scan(board.occupied_co[color] & ~board.kings):
                if board.is_pinned(color, s):
                    t, q = pinner(board, s, king)
                    rows.append(
                        (NAMES[s], board.piece_at(s).symbol(), NAMES[t], q.symbol(), NAMES[king])
                    )
        n += len(rows)
    return n


def checkers(fens):
    n = 0
    for board in boards(fens):
        rows = [(NAMES[s], board.piece_at(s).symbol()) for s in board.checkers()]
        n += len(rows)
    return n


def hanging(fens):
    # every non-king piece: its attackers of both colours, the defenders looked up only when
    # it is attacked (as a python-chess user writes it; looking them up for every piece as
    # well made this loop about 15 % slower)
    n = 0
    for board in boards(fens):
        rows = []
        for s in scan(board.occupied & ~board.kings):
            p = board.piece_at(s)
            a = board.attackers(not p.color, s)
            if a and not board.attackers(p.color, s):
                rows.append((NAMES[s], p.symbol(), len(a)))
        n += len(rows)
    return n


def parse_subfen(pattern):
    """The (square, piece) pairs of a board pattern; digits are unconstrained squares."""
    out = []
    for i, rank in enumerate(pattern.split("/")):
        f = 0
        for c in rank:
            if c.isdigit():
                f += int(c)
            else:
                out.append((chess.square(f, 7 - i), chess.Piece.from_symbol(c)))
                f += 1
    return out


def matches_subfen(fens, pattern):
    squares = parse_subfen(pattern)  # parsed once, as the SQL side caches it
    n = 0
    for board in boards(fens):
        if all(board.piece_at(s) == p for s, p in squares):
            n += 1
    return n


ORDER = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
LETTERS = "QRBNP"


def counts(board, color):
    return [len(board.pieces(t, color)) for t in ORDER]


def imbalance(fens):
    seen = set()
    for board in boards(fens):
        w, b = counts(board, chess.WHITE), counts(board, chess.BLACK)
        text = (
            "".join(l * max(x - y, 0) for l, x, y in zip(LETTERS, w, b))
            + "v"
            + "".join(l * max(y - x, 0) for l, x, y in zip(LETTERS, w, b))
        )
        seen.add(text)
    return len(seen)


MATERIAL = "q*r*l*p* q=r=l1<=p*"


def material_ok(a, b):
    """MATERIAL with pieces1 = counts a, pieces2 = counts b (Q R B N P)."""
    qa, ra, ba, na, pa = a
    qb, rb, bb, nb, pb = b
    # pieces1 q*r*l*p*: any number of each; pieces2 q= r= (as many as pieces1), l1<= (minor
    # pieces: exactly one fewer), p* (any)
    return qb == qa and rb == ra and bb + nb + 1 == ba + na


def material_matches(fens):
    n = 0
    for board in boards(fens):
        w, b = counts(board, chess.WHITE), counts(board, chess.BLACK)
        # -z: either side may be pieces1
        if material_ok(w, b) or material_ok(b, w):
            n += 1
    return n


def main():
    path, limit, subfen, material = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    assert material == MATERIAL, (material, MATERIAL)
    with gzip.open(path, "rt", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        fens = [(r[0], r[1] == "true") for _, r in zip(range(limit), rows)]
    functions = [
        ("attacks", attacks),
        ("pins", pins),
        ("checkers", checkers),
        ("hanging", hanging),
        ("matches_subfen", lambda f: matches_subfen(f, subfen)),
        ("imbalance", imbalance),
        ("material_matches", material_matches),
    ]
    for name, fn in functions:
        start = time.perf_counter()
        answer = fn(fens)
        seconds = time.perf_counter() - start
        print(name, f"{seconds:.6f}", answer)


main()
