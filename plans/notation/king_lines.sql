-- Stage `king_lines`: every queen, rook or bishop on a line with the enemy king along which it
-- moves, with the pieces standing between them (at most two are kept). One piece of the
-- king's colour between = a pin (FIDE art. 3.9); one of the slider's colour = a possible
-- discovered check; two = the en passant case (both pawns leave the line). Read by
-- `move_checks` (discovered checks); `threats` finds pins and checks from the square sets.
-- The pieces are those of `placed` (kinds as codes: B 2, R 3, Q 4, K 5).
-- Columns: position_id, slider_sq, king_sq, own_king (the king belongs to the side to move),
--          n_between, between_sq (the lowest square between, exact when n_between = 1),
--          between_own (the pieces between belong to the side to move: that piece's, when
--          n_between = 1).
SELECT s.position_id, s.square AS slider_sq, k.square AS king_sq,
       k.own AS own_king,
       COUNT(o.square) AS n_between, MIN(o.square) AS between_sq, bool_and(o.own) AS between_own
FROM placed k
JOIN placed s ON s.position_id = k.position_id AND s.own <> k.own
JOIN lines l ON l.a = s.square AND l.b = k.square
LEFT JOIN placed o ON o.position_id = s.position_id AND o.square = l.mid
WHERE k.kind = 5 /* K */ AND s.kind BETWEEN 2 AND 4 /* B, R, Q */
  AND (s.kind = 4 OR s.kind = l.slider)
GROUP BY s.position_id, s.square, k.square, k.own
HAVING COUNT(o.square) <= 2
