-- Stage `kings`: per position, the side to move and both kings' squares.
-- Columns: position_id, side_to_move, king_sq, enemy_king_sq.
SELECT position_id, side_to_move, king_sq, enemy_king_sq
FROM boards
