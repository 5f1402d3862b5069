-- Stage `checking_moves`: the legal moves that give check, as moves to apply, so that the
-- replies of the positions after them can be counted (no reply = checkmate, FIDE art. 5.1.1).
-- Columns: the columns of legal_moves, child_id, is_null.
SELECT l.*, l.position_id * 32768 + CAST(l.move_code AS BIGINT UNSIGNED) AS child_id, false AS is_null
FROM legal_moves l
JOIN move_checks c ON c.position_id = l.position_id AND c.move_code = l.move_code
