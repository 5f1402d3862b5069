#!/usr/bin/env python3
"""Opening-explorer counts of the shared standard games, by python-chess (1.11.2).

For the games of ../shared/data/oracle/games.csv below `pgn/` without a FEN tag (variant
standard), the first 20 plies of the main line (`mainline_uci`) are replayed; for each
position (by python-chess `Board.epd()`) and move, the games that played it (each once,
however often it repeats the position) and their results by the `Result` tag (`1-0`, `1/2-1/2`, `0-1`; anything else counts in games only).
Written for four positions: the start, after 1. e4, after 1. e4 c5, and the position of
those plies reached by the most distinct move orders (a transposition; ties: most games,
then the EPD). Columns: position (which of the four), epd, uci, games, white_wins, draws,
black_wins.

    python3 explorer_counts.py ../shared/data > explorer_counts.csv
"""
import csv
import sys
from collections import defaultdict

import chess

PLIES = 20


def main(root):
    counts = defaultdict(lambda: [0, 0, 0, 0])
    orders = defaultdict(set)
    games_at = defaultdict(int)
    csv.field_size_limit(1 << 24)
    with open(f"{root}/oracle/games.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if not row["file"].startswith("pgn/") or row["variant"] != "standard" or row["start_fen"]:
                continue
            result = {"1-0": 1, "1/2-1/2": 2, "0-1": 3}.get(row["result"])
            board = chess.Board()
            moves = row["mainline_uci"].split()[:PLIES]
            seen = set()
            for i, uci in enumerate(moves):
                epd = board.epd()
                orders[epd].add(tuple(moves[:i]))
                # a game that plays the move from the position twice (a repetition) counts once
                if (epd, uci) not in seen:
                    seen.add((epd, uci))
                    c = counts[(epd, uci)]
                    c[0] += 1
                    if result:
                        c[result] += 1
                    games_at[epd] += 1
                board.push(chess.Move.from_uci(uci))
    start = chess.Board()
    e4 = chess.Board()
    e4.push_san("e4")
    sicilian = e4.copy()
    sicilian.push_san("c5")
    transposed = min(
        (epd for epd in orders if len(orders[epd]) >= 2),
        key=lambda epd: (-len(orders[epd]), -games_at[epd], epd),
    )
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["position", "epd", "uci", "games", "white_wins", "draws", "black_wins"])
    for name, epd in [("start", start.epd()), ("e4", e4.epd()), ("sicilian", sicilian.epd()),
                      ("transposition", transposed)]:
        for (e, uci), c in sorted(counts.items()):
            if e == epd:
                out.writerow([name, epd, uci] + c)


if __name__ == "__main__":
    main(sys.argv[1])
