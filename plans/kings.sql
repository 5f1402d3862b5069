-- Stage `kings`: per position, the side to move and both kings' squares.
-- Columns: position_id, side_to_move, king_sq, enemy_king_sq.
SELECT pos.position_id, pos.side_to_move, k.square AS king_sq, e.square AS enemy_king_sq
FROM positions pos
JOIN pieces k ON k.position_id = pos.position_id AND k.color = pos.side_to_move
JOIN pieces e ON e.position_id = pos.position_id AND e.color <> pos.side_to_move
WHERE k.piece = 'K' AND e.piece = 'K'
