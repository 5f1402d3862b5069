#!/usr/bin/env python3
"""Makes tests/data/pgn/patterns.pgn, the fixed input of the six tactical-pattern queries
(knight_fork, greek_gift, rook_ending_extra_pawn, queen_won_through_pin,
longest_check_streak, underpromotion_mate in examples/queries/):

    /tmp/pyc/bin/python examples/queries/make_patterns_fixture.py /work/shared/data
    /tmp/pyc/bin/python examples/queries/make_patterns_fixture.py /work/shared/data --search

For each pattern, games that show it and near misses that do not, copied verbatim (LF line
endings) from the shared PGN files, in the order of PICKS below (its position is the
game_index). Each pick is checked with python-chess 1.11.2 when the fixture is written: the
script stops if a game does not show the motif it was picked for (`motifs` below). With
`--search` it lists, per motif, the games of the shared files that show it (shortest games
first): how the picks were found. Deterministic; the games are standard chess (no FEN tag)
and legal to the end.
"""
import io
import os
import sys

import chess
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixture import games_text  # noqa: E402

assert chess.__version__ == "1.11.2", chess.__version__

# (file below pgn/, 0-based index of the game in the file, the motif it is picked for)
PICKS = [
    # knight_fork.sql
    # 0: Carlsen-Kuzubov, 12.Nxf6+ forks Ke8, Qh5
    ("notnil-chess/Carlsen.pgn", 80, "knight_fork_kq"),
    # 1: Tkachiev-Carlsen, 18...Ne2+ forks Kg1, Qd4
    ("notnil-chess/Carlsen.pgn", 877, "knight_fork_kq"),
    # 2: Carlsen-Dominguez, 12.Nc7+ forks Ke8, Ra8
    ("notnil-chess/Carlsen.pgn", 801, "knight_fork_kr_only"),
    # greek_gift.sql
    # 3: Zhang-Wang, 20.Bxh7+ Kxh7 21.Ng5+
    ("shakmaty/twic1599_1000k.pgn", 826, "greek_gift"),
    # 4: Gary2024-Elohimtercero, 10...Bxh2+ 11.Kxh2 Ng4+
    ("shakmaty/lichess_db_1000k.pgn", 260, "greek_gift"),
    # 5: Jasny-Kubik, 9...Bxh2+ 10.Kxh2 Qh4+
    ("notnil-chess/twic0920.pgn", 1454, "bishop_h_check_only"),
    # rook_ending_extra_pawn.sql
    # 6: Leko-Carlsen, drawn
    ("notnil-chess/Carlsen.pgn", 844, "rook_ending_pawn_up"),
    # 7: Carlsen-Moskow, 1-0
    ("notnil-chess/Carlsen.pgn", 534, "rook_ending_pawn_up"),
    # 8: Carlsen-Leko, equal pawns
    ("notnil-chess/Carlsen.pgn", 700, "rook_ending_equal_only"),
    # queen_won_through_pin.sql
    # 9: Sander-Carlsen, 18...hxg5 leaves Qc7 pinned by Rc3: 19.Rxc7+
    ("notnil-chess/Carlsen.pgn", 86, "queen_won_through_pin"),
    # 10: Wyvill-Kennedy, 20.Qf1 pinned by Re1: 20...Rxf1#
    ("pgn2tex/London1851.pgn", 32, "queen_won_through_pin"),
    # 11: Svidler-Carlsen, 20...Qe6 pinned by Re1, not taken
    ("notnil-chess/Carlsen.pgn", 455, "pinned_queen_not_taken"),
    # 12: Harrwitz-Szen, 20...Rg7 pinned by Qf6: 21.Qxg7#
    ("pgn2tex/London1851.pgn", 28, "pinned_rook_taken"),
    # 13: Vidmar-Capablanca, 9.Qe2 pinned by Qe5: 9...Qxe2+ (a trade)
    ("pgn2tex/Capablanca.pgn", 261, "pinned_queen_traded"),
    # longest_check_streak.sql
    # 14: Zukertort-Steinitz
    ("pgn2tex/WorldChamp1886.pgn", 7, "check_streak_12"),
    # 15: Vachier Lagrave-Carlsen
    ("notnil-chess/Carlsen.pgn", 1345, "check_streak_12"),
    # 16: Leko-Carlsen
    ("notnil-chess/Carlsen.pgn", 522, "check_streak_12"),
    # 17: Carlsen-Lie, 15 checks by White in streaks of at most 5
    ("notnil-chess/Carlsen.pgn", 232, "many_checks_short_streaks"),
    # underpromotion_mate.sql
    # 18: Barbosa-Atharvaa, 63.h8=R#
    ("notnil-chess/twic0920.pgn", 446, "underpromotion_mate"),
    # 19: Jasinski-Yang, 60...g1=R#
    ("shakmaty/twic1599_1000k.pgn", 290, "underpromotion_mate"),
    # 20: Psyk-Pasztor, 35.g8=Q#
    ("shakmaty/twic1599_1000k.pgn", 898, "queen_promotion_mate"),
    # 21: Korchenkova-Rassokhina, 19.fxe8=N+
    ("notnil-chess/twic0920.pgn", 243, "underpromotion_no_mate"),
]

SEARCHED = [
    "shakmaty/lichess_db_1000k.pgn", "shakmaty/twic1599_1000k.pgn", "notnil-chess/Carlsen.pgn",
    "notnil-chess/twic0920.pgn", "pgn2tex/Capablanca.pgn", "pgn2tex/London1851.pgn",
    "pgn2tex/WorldChamp1886.pgn", "pgn2tex/tatamast22.pgn", "pgn-extract/fischer.pgn",
    "pgn-extract/petrosian.pgn", "chess.js/benchmark.pgn",
]


def pinner(board, color, square):
    """The enemy piece beyond `square` on the line from `color`'s king (square, symbol)."""
    king = board.king(color)
    df = chess.square_file(square) - chess.square_file(king)
    dr = chess.square_rank(square) - chess.square_rank(king)
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    f, r = chess.square_file(square) + sf, chess.square_rank(square) + sr
    while 0 <= f < 8 and 0 <= r < 8:
        s = chess.square(f, r)
        if board.piece_at(s):
            return s, board.piece_at(s).symbol()
        f, r = f + sf, r + sr
    raise AssertionError("a pinned piece without a pinner")


def motifs(game):
    """The motifs a game shows (python-chess), the names of PICKS."""
    found = set()
    board = game.board()
    moves = list(game.mainline_moves())
    greek = set()  # plies of a bishop capture with check on h7 (White) / h2 (Black)
    greek_followed = False
    knight_kq = knight_kr = False
    rook_up = rook_equal = False
    pinned_q_taken = pinned_q_kept = pinned_r_taken = pinned_q_traded = False
    streak = {chess.WHITE: 0, chess.BLACK: 0}
    checks = {chess.WHITE: 0, chess.BLACK: 0}
    best = 0
    for i, move in enumerate(moves):
        ply = i + 1
        mover = board.turn
        piece = board.piece_type_at(move.from_square)
        check = board.gives_check(move)
        capture = board.is_capture(move)
        board.push(move)
        enemy = board.turn
        if piece == chess.KNIGHT:
            att = board.attacks(move.to_square)
            k = bool(att & board.pieces(chess.KING, enemy))
            q = bool(att & board.pieces(chess.QUEEN, enemy))
            r = bool(att & board.pieces(chess.ROOK, enemy))
            knight_kq |= k and q
            knight_kr |= k and r and not q
        if piece == chess.BISHOP and check and capture and move.to_square == (chess.H7 if mover else chess.H2):
            greek.add(ply)
        if piece == chess.KNIGHT and check and move.to_square == (chess.G5 if mover else chess.G4) and ply - 2 in greek:
            greek_followed = True
        n = lambda t, c: len(board.pieces(t, c))  # noqa: E731
        if all(n(t, c) == 0 for t in (chess.QUEEN, chess.BISHOP, chess.KNIGHT) for c in chess.COLORS) \
                and n(chess.ROOK, chess.WHITE) == 1 and n(chess.ROOK, chess.BLACK) == 1:
            d = n(chess.PAWN, chess.WHITE) - n(chess.PAWN, chess.BLACK)
            rook_up |= abs(d) == 1
            rook_equal |= d == 0
        nxt = moves[i + 1] if i + 1 < len(moves) else None
        for sq in board.pieces(chess.QUEEN, mover) | board.pieces(chess.ROOK, mover):
            if board.is_pinned(mover, sq):
                taken = nxt is not None and nxt.to_square == sq
                by_queen = pinner(board, mover, sq)[1].upper() == "Q"
                if board.piece_type_at(sq) == chess.QUEEN:
                    pinned_q_taken |= taken and not by_queen
                    pinned_q_traded |= taken and by_queen
                    pinned_q_kept |= not taken
                else:
                    pinned_r_taken |= taken
        if check:
            streak[mover] += 1
            checks[mover] += 1
            best = max(best, streak[mover])
        else:
            streak[mover] = 0
        if move.promotion:
            mate = board.is_checkmate()
            if move.promotion == chess.QUEEN:
                found |= {"queen_promotion_mate"} if mate else set()
            else:
                found.add("underpromotion_mate" if mate else "underpromotion_no_mate")
    flags = {
        "knight_fork_kq": knight_kq,
        "knight_fork_kr_only": knight_kr and not knight_kq,
        "greek_gift": greek_followed,
        "bishop_h_check_only": bool(greek) and not greek_followed,
        "rook_ending_pawn_up": rook_up,
        "rook_ending_equal_only": rook_equal and not rook_up,
        "queen_won_through_pin": pinned_q_taken,
        "pinned_queen_not_taken": pinned_q_kept and not pinned_q_taken,
        "pinned_rook_taken": pinned_r_taken and not pinned_q_taken,
        "pinned_queen_traded": pinned_q_traded and not pinned_q_taken,
        "check_streak_12": best >= 12,
        "many_checks_short_streaks": max(checks.values()) >= 14 and best <= 6,
    }
    return found | {k for k, v in flags.items() if v}


def standard(game):
    return (game is not None and not game.errors and "FEN" not in game.headers
            and game.headers.get("Variant", "Standard") == "Standard")


def file_games(shared, rel):
    games = games_text(os.path.join(shared, "pgn", rel))
    # the shakmaty files end in a game cut off mid-way
    return games[:-1] if rel.startswith("shakmaty/") else games


def search(shared):
    wanted = sorted({m for _, _, m in PICKS})
    hits = {m: [] for m in wanted}
    for rel in SEARCHED:
        for i, text in enumerate(file_games(shared, rel)):
            game = chess.pgn.read_game(io.StringIO(text))
            if not standard(game):
                continue
            for m in motifs(game) & set(wanted):
                hits[m].append((len(text), rel, i, game.headers.get("White"), game.headers.get("Black")))
    for m in wanted:
        print(f"{m}: {len(hits[m])} games")
        for h in sorted(hits[m])[:8]:
            print("   ", *h)


def main():
    shared = sys.argv[1]
    if "--search" in sys.argv[2:]:
        search(shared)
        return
    cache = {}
    games = []
    for index, (rel, i, motif) in enumerate(PICKS):
        if rel not in cache:
            cache[rel] = file_games(shared, rel)
        text = cache[rel][i]
        game = chess.pgn.read_game(io.StringIO(text))
        assert standard(game), (rel, i)
        got = motifs(game)
        assert motif in got, (index, rel, i, motif, got)
        games.append(text)
    out = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "pgn", "patterns.pgn")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(games))
    print(len(games), "games")


if __name__ == "__main__":
    main()
