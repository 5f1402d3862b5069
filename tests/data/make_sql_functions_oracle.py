#!/usr/bin/env python3
"""Expected values of the SQL chess functions (tests/sql/functions_oracle.slt).

Run from the repository root (deterministic):
    python3 -m venv /tmp/pyc && /tmp/pyc/bin/pip install chess==1.11.2
    /tmp/pyc/bin/python tests/data/make_sql_functions_oracle.py

Inputs: the positions of tests/data/oracle_positions.csv, oracle_endings.csv, the valid
FENs of fen/fen_edge.txt, the en passant cases of EN_PASSANT below, the first 60 Chess960 FENs of chess960/xfen.tsv (as X-FEN and
as Shredder-FEN) and the FENs of fen/fen_bad.txt that python-chess reads as Chess960 (their
castling rights can only mean Chess960, e.g. `q` for a rook on c8). Each FEN is read as
python-chess's PGN reader reads a FEN tag: Chess960 when `has_chess960_castling_rights()`,
else standard chess; the SQL functions read it the same way (`Setup::from_fen_auto`).
Outputs (tab-separated, header line first):
- sql_functions_positions.tsv: fen, fen_error (1 when python-chess rejects it: ValueError or
  not is_valid()), position_status, position_key (Polyglot, 16 hex digits,
  chess.polyglot.zobrist_hash), epd (board.epd(): the en passant square only when an en
  passant capture is legal), material
  signature, legal moves as UCI (sorted, space-separated) and their SAN in the same order.
- sql_functions_moves.tsv: fen, move, is_legal (1/0), fen_after (board.fen(), empty when
  not legal). Moves per position: the SAN of the first and the UCI of the last legal move
  (UCI order), and the tokens e4, O-O, Ke2, Nf3, exd6, a7a8q (legal or not, as python-chess
  decides; ambiguous SAN is not legal).
"""
import csv
import os

import chess
import chess.polyglot

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CHESS960_ROWS = 60
TOKENS = ["e4", "O-O", "Ke2", "Nf3", "exd6", "a7a8q"]
# en passant squares with and without a legal capture: no pawn to take, a capture that
# would expose the king (pinned along the rank), legal captures on either wing
EN_PASSANT = [
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "rnbqkbnr/1ppppppp/8/p7/8/8/PPPPPPPP/RNBQKBNR w KQkq a6 0 2",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pp1ppppp/8/8/2pPP3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 3",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 1",
    "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1",
    "4k3/8/8/8/3pP3/8/8/R3K2R b KQ e3 0 1",
    "7k/8/8/4pP2/8/8/8/K7 w - e6 0 2",
]


def fens():
    out = []
    for name in ["oracle_positions.csv", "oracle_endings.csv"]:
        with open(os.path.join(HERE, name)) as f:
            for row in csv.DictReader(f):
                out.append(row["fen"])
    with open(os.path.join(HERE, "fen", "fen_edge.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[3] == "True":
                out.append(cols[0])
    out += EN_PASSANT
    with open(os.path.join(HERE, "chess960", "xfen.tsv")) as f:
        rows = [l for l in f if not l.startswith("#") and l.strip()]
        for line in rows[:CHESS960_ROWS]:
            cols = line.rstrip("\n").split("\t")
            out += [cols[2], cols[3]]
    with open(os.path.join(HERE, "fen", "fen_bad.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fen = line.split("\t")[0]
            try:
                if board_of(fen).is_valid():
                    out.append(fen)
            except ValueError:
                pass
    seen = set()
    return [f for f in out if not (f in seen or seen.add(f))]


def board_of(fen):
    """The board of a FEN as python-chess's PGN reader makes it from a FEN tag."""
    board = chess.Board(fen)
    if board.has_chess960_castling_rights():
        board = chess.Board(fen, chess960=True)
    return board


def status(board):
    if board.is_checkmate():
        return "checkmate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_stalemate():
        return "stalemate"
    if board.is_seventyfive_moves():
        return "seventyfive_moves"
    if board.halfmove_clock >= 100:
        return "fifty_moves"
    return "ongoing"


def signature(board):
    def side(color):
        return "".join(
            chess.piece_symbol(r).upper() * len(board.pieces(r, color))
            for r in [chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN]
        )

    return side(chess.WHITE) + "v" + side(chess.BLACK)


def play(board, token):
    """The legal move a token stands for (SAN, else UCI), or None."""
    try:
        move = board.parse_san(token)
    except ValueError:
        try:
            move = board.parse_uci(token)
        except ValueError:
            return None
    return None if move == chess.Move.null() else move


def main():
    positions = []
    moves = []
    for fen in fens():
        board = board_of(fen)
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        positions.append([
            fen,
            "0" if board.is_valid() else "1",
            status(board),
            "%016x" % chess.polyglot.zobrist_hash(board),
            board.epd(),
            signature(board),
            " ".join(m.uci() for m in legal),
            " ".join(board.san(m) for m in legal),
        ])
        tokens = list(TOKENS)
        if legal:
            tokens = [board.san(legal[0]), legal[-1].uci()] + tokens
        for token in tokens:
            move = play(board, token)
            after = ""
            if move is not None:
                b = board.copy()
                b.push(move)
                after = b.fen()
            moves.append([fen, token, "1" if move is not None else "0", after])
    with open(os.path.join(HERE, "sql_functions_positions.tsv"), "w") as f:
        f.write("fen\tfen_error\tposition_status\tposition_key\tepd\tsignature\tlegal_uci\tlegal_san\n")
        for r in positions:
            f.write("\t".join(r) + "\n")
    with open(os.path.join(HERE, "sql_functions_moves.tsv"), "w") as f:
        f.write("fen\tmove\tis_legal\tfen_after\n")
        for r in moves:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
