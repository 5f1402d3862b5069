-- Stage `token_matches` (seed: the final SELECT's join of the requested move with +stage13):
-- the legal moves each move token of `tokens` can mean, judged as python-chess
-- `Board.parse_san` judges (PGN standard §8.2.3): castling tokens match the castling to
-- that side (and only they do in SAN: `Kg1` is not castling, §8.2.3.3); a piece letter
-- matches that piece's other moves, a pawn token matches pawn moves from the
-- named file (a push: the target's file); a full from-square without piece letter (UCI,
-- long algebraic) matches the move from that square, 'e1h1' being castling; the target and
-- the promotion piece (or none) must agree.
-- Columns: the columns of legal_moves.
SELECT l.*
FROM tokens t
JOIN legal_moves l ON l.position_id = t.position_id
WHERE COALESCE(l.promotion, '') = COALESCE(t.promotion, '')
  AND CASE t.kind
        WHEN 'castle' THEN l.is_castling AND (l.to_sq % 8 = 2) = t.castle_long
        WHEN 'square' THEN l.from_sq = t.from_file + 8 * t.from_rank
                           AND (l.to_sq = t.to_sq OR (l.is_castling AND l.rook_from = t.to_sq))
        -- a king move token is never castling, even onto castling's target (Kg1, Ke1g1)
        WHEN 'piece' THEN l.piece = t.piece AND l.to_sq = t.to_sq AND NOT l.is_castling
                          AND (t.from_file IS NULL OR l.from_sq % 8 = t.from_file)
                          AND (t.from_rank IS NULL OR l.from_sq / 8 = t.from_rank)
        WHEN 'pawn' THEN l.piece = 'P' AND l.to_sq = t.to_sq
                         AND l.from_sq % 8 = COALESCE(t.from_file, t.to_sq % 8)
                         AND (t.from_rank IS NULL OR l.from_sq / 8 = t.from_rank)
        ELSE false
      END
