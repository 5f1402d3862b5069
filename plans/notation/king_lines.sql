-- Stage `king_lines`: every queen, rook or bishop on a line with the enemy king along which it
-- moves, with the pieces standing between them (at most two are kept). One piece of the
-- king's colour between = a pin (FIDE art. 3.9); one of the slider's colour = a possible
-- discovered check; two = the en passant case (both pawns leave the line). Read by
-- `move_checks` (discovered checks); `threats` finds pins and checks from the square sets.
-- Columns: position_id, slider_sq, king_sq, own_king (the king belongs to the side to move),
--          n_between, between_sq (the lowest square between, exact when n_between = 1),
--          between_own (that piece belongs to the side to move).
SELECT s.position_id, s.square AS slider_sq, k.square AS king_sq,
       k.color = pos.side_to_move AS own_king,
       COUNT(o.square) AS n_between, MIN(o.square) AS between_sq, MIN(o.color) = pos.side_to_move AS between_own
FROM positions pos
JOIN pieces k ON k.position_id = pos.position_id
JOIN pieces s ON s.position_id = k.position_id AND s.color <> k.color
JOIN lines l ON l.a = s.square AND l.b = k.square
LEFT JOIN pieces o ON o.position_id = s.position_id AND o.square = l.mid
WHERE k.piece = 'K' AND s.piece IN ('Q', 'R', 'B')
  AND (s.piece = 'Q' OR (s.piece = 'R' AND l.kind = 'orthogonal') OR (s.piece = 'B' AND l.kind = 'diagonal'))
GROUP BY s.position_id, s.square, k.square, k.color, pos.side_to_move
HAVING COUNT(o.square) <= 2
