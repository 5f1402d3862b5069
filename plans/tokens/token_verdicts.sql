-- Stage `token_verdicts`: per move token, how many legal moves it matches (1 = the move,
-- 2 or more = ambiguous, PGN standard §8.2.3.4) and, for the error taxonomy, whether the side
-- to move has a piece of the named kind on a square fitting the token's file and rank.
-- Columns: position_id, n_matches, has_piece.
WITH n AS (SELECT position_id, COUNT(*) AS n_matches FROM token_matches GROUP BY position_id),
owned AS (
  SELECT DISTINCT t.position_id
  FROM tokens t
  JOIN positions pos ON pos.position_id = t.position_id
  JOIN pieces p ON p.position_id = t.position_id AND p.white = pos.white_to_move
  -- a token with a target (not castling, not a null move); a piece when it names one
  WHERE t.to_sq IS NOT NULL
    AND (t.piece_code IS NULL OR p.piece_code = t.piece_code)
    AND p.square % 8 = COALESCE(t.from_file, CASE WHEN t.piece_code = 0 THEN t.to_sq % 8 END, p.square % 8)
    AND (t.from_rank IS NULL OR p.square / 8 = t.from_rank)
)
SELECT t.position_id, COALESCE(n.n_matches, 0) AS n_matches, o.position_id IS NOT NULL AS has_piece
FROM tokens t
LEFT JOIN n ON n.position_id = t.position_id
LEFT JOIN owned o ON o.position_id = t.position_id
