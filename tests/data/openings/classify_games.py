#!/usr/bin/env python3
"""The openings classification of every shared standard game, by python-chess (1.11.2).

For each game of ../shared/data/oracle/games.csv without a FEN tag (variant standard): its
main line (`mainline_uci`, null moves `0000`) is replayed up to ply 40; after each ply the
position's EPD (python-chess `Board.epd()`: en passant square only when an en passant capture
is legal) is looked up among the EPDs of oracle/openings.csv; the deepest ply found wins.
Writes file, game_index, ply and the ECO codes and names of every opening line with
that EPD (joined by `|`); games with no named position have empty fields.

    python3 classify_games.py ../shared/data > classified.csv
"""
import csv
import sys

import chess

PLIES = 40


def main(root):
    named = {}
    with open(f"{root}/oracle/openings.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            named.setdefault(row["epd"], []).append((row["eco"], row["name"]))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["file", "game_index", "ply", "ecos", "names"])
    csv.field_size_limit(1 << 24)
    with open(f"{root}/oracle/games.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["variant"] != "standard" or row["start_fen"]:
                continue
            board = chess.Board()
            found = None
            for ply, uci in enumerate(row["mainline_uci"].split()[:PLIES], start=1):
                board.push(chess.Move.from_uci(uci))
                epd = board.epd()
                if epd in named:
                    found = (ply, epd)
            if found:
                ply, epd = found
                names = named[epd]
                out.writerow([row["file"], row["game_index"], ply,
                              "|".join(e for e, _ in names), "|".join(n for _, n in names)])
            else:
                out.writerow([row["file"], row["game_index"], "", "", ""])


if __name__ == "__main__":
    main(sys.argv[1])
