-- Stage `token_moves`: the move each token stands for, when it stands for exactly one legal
-- move, or a null move ('--', 'Z0': the turn passes, as python-chess allows), in the form
-- `next_positions` and `next_pieces` read. The game keeps its id (child_id = position_id).
-- Columns: the columns of legal_moves, child_id, is_null.
SELECT m.*, m.position_id AS child_id, false AS is_null
FROM token_matches m
JOIN token_verdicts v ON v.position_id = m.position_id
WHERE v.n_matches = 1
UNION ALL
SELECT t.position_id, CAST(-1 AS INT) AS move_code, CAST(NULL AS INT) AS piece_code,
       CAST(-1 AS INT) AS from_sq, CAST(-1 AS INT) AS to_sq, CAST(NULL AS INT) AS promotion_code,
       CAST(NULL AS INT) AS captured_code, false AS is_capture, false AS is_en_passant, false AS is_castling,
       CAST(NULL AS INT) AS cap_sq, CAST(NULL AS INT) AS rook_from, CAST(NULL AS INT) AS rook_to,
       t.position_id AS child_id, true AS is_null
FROM tokens t
-- a null move: a token with none of the columns of `tables::TOKEN_FIELDS`
WHERE t.to_sq IS NULL AND t.castle_long IS NULL
