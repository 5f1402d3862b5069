-- Stage `hanging`: every piece other than a king that the other side attacks and none of
-- its own side defends (attacks), from `piece_attacks`; python-chess: `board.attackers` of
-- the other colour on its square is not empty, `board.attackers` of its own colour is.
-- Every attack counts, those of pinned pieces too (as in python-chess).
-- Columns: position_id, hanging_sq (Int32), hanging_color ('w'/'b'), hanging_piece (Utf8),
--   attackers (Int64: how many enemy pieces attack it).
SELECT position_id, target_sq AS hanging_sq, target_color AS hanging_color,
       target_piece AS hanging_piece, count(*) AS attackers
FROM piece_attacks
WHERE target_piece IS NOT NULL AND target_piece <> 'K'
GROUP BY position_id, target_sq, target_color, target_piece
HAVING bool_and(color <> target_color)
