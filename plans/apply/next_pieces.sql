-- Stage `next_pieces` (seed +next, the DEMO_CHESS_POS rows of the next movecnt): the pieces
-- after each move of `chosen_moves`: every piece of the position except the one that moved,
-- the one captured (on the target, or beside it for en passant) and the castling rook; then
-- the moved piece (or the promotion piece) on its target, and the rook on its castling square.
-- Unlike the seed, a plain capture on the 6th rank removes nothing else. The moved pieces
-- are the side to move's.
-- Columns: the columns of `pieces`: position_id (chosen_moves.child_id), square, white,
--          piece_code.
SELECT m.child_id AS position_id, o.square, o.white, o.piece_code
FROM chosen_moves m
JOIN pieces o ON o.position_id = m.position_id
WHERE o.square <> m.from_sq AND o.square <> m.to_sq
  AND o.square <> COALESCE(m.cap_sq, -1) AND o.square <> COALESCE(m.rook_from, -1)
UNION ALL
SELECT m.child_id, m.to_sq, p.white_to_move, COALESCE(m.promotion_code, m.piece_code)
FROM chosen_moves m
JOIN positions p ON p.position_id = m.position_id
WHERE NOT m.is_null
UNION ALL
SELECT m.child_id, m.rook_to, p.white_to_move, CAST(3 /* R */ AS INT)
FROM chosen_moves m
JOIN positions p ON p.position_id = m.position_id
WHERE m.is_castling
