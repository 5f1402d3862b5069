-- Stage `token_matches` (seed: the final SELECT's join of the requested move with +stage13):
-- the legal moves each move token of `tokens` can mean, judged as python-chess
-- `Board.parse_san` judges (PGN standard §8.2.3): castling tokens match the castling to
-- that side; a piece letter matches that piece, a pawn token matches pawn moves from the
-- named file (a push: the target's file); castling is only 'O-O'/'O-O-O', never a king-move
-- token; a full from-square without piece letter (UCI, long algebraic) matches the move from
-- that square, castling written as the king taking its own rook ('e1h1') or, in standard
-- chess only, as the king's move ('e1g1'; in Chess960 a king may castle onto a square it can
-- also step to, and python-chess `parse_san` has no 'e1g1' castling there); the target and
-- the promotion piece (or none) must agree. Tokens and moves name pieces by code (rule
-- `role_code`); the kind of token is told by its columns (`tables::TOKEN_FIELDS`).
-- Columns: the columns of legal_moves.
SELECT l.*
FROM positions pos
JOIN tokens t ON t.position_id = pos.position_id
JOIN legal_moves l ON l.position_id = t.position_id
WHERE COALESCE(l.promotion_code, -1) = COALESCE(t.promotion_code, -1)
  AND CASE
        -- castling: O-O, O-O-O
        WHEN t.castle_long IS NOT NULL THEN l.is_castling AND (l.to_sq % 8 = 2) = t.castle_long
        -- the full origin square, no piece (UCI, long algebraic); a null move matches nothing
        WHEN t.piece_code IS NULL THEN l.from_sq = t.from_file + 8 * t.from_rank
                           AND CASE WHEN l.is_castling
                                    THEN l.rook_from = t.to_sq OR (NOT pos.chess960 AND l.to_sq = t.to_sq)
                                    ELSE l.to_sq = t.to_sq END
        -- a pawn's SAN
        WHEN t.piece_code = 0 THEN l.piece_code = 0 AND l.to_sq = t.to_sq
                         AND l.from_sq % 8 = COALESCE(t.from_file, t.to_sq % 8)
                         AND (t.from_rank IS NULL OR l.from_sq / 8 = t.from_rank)
        -- a piece's SAN; a king move token is never castling, even onto castling's target (Kg1, Ke1g1)
        ELSE l.piece_code = t.piece_code AND l.to_sq = t.to_sq AND NOT l.is_castling
             AND (t.from_file IS NULL OR l.from_sq % 8 = t.from_file)
             AND (t.from_rank IS NULL OR l.from_sq / 8 = t.from_rank)
      END
