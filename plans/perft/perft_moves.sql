-- Stage `perft_moves`: every legal move as a move to apply, each child position numbered
-- position_id * 32768 + move_code (move codes are below 20480).
-- Columns: the columns of legal_moves, child_id, is_null.
SELECT l.*, l.position_id * 32768 + CAST(l.move_code AS BIGINT UNSIGNED) AS child_id, false AS is_null
FROM legal_moves l
