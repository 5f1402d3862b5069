-- Stage `setup_checks`: set-up positions (FEN) that no legal game reaches, by the attack
-- rules python-chess `Board.status()` applies: the side not to move is in check (FIDE art.
-- 3.9: a king cannot be left attacked; adjacent kings included), more than two pieces give
-- check, or two checkers stand on one line with the king (no single move uncovers both).
-- Columns: position_id, kind ('kings_adjacent' | 'opposite_check' | 'too_many_checkers' |
--          'impossible_check'), message.
WITH opposite AS (
  SELECT position_id, MIN(CASE WHEN piece = 'K' THEN 1 ELSE 2 END) AS by_king
  FROM pseudo_moves
  WHERE captured = 'K'
  GROUP BY position_id
)
SELECT position_id,
       CASE WHEN by_king = 1 THEN 'kings_adjacent' ELSE 'opposite_check' END AS kind,
       CASE WHEN by_king = 1 THEN 'the two kings stand on adjacent squares'
            ELSE 'the side not to move is in check' END AS message
FROM opposite
UNION ALL
SELECT position_id, 'too_many_checkers', 'more than two pieces give check' FROM threats WHERE n_checkers > 2
UNION ALL
-- both checkers on one rank, file or diagonal through the king: its two opposite rays
SELECT t.position_id, 'impossible_check', 'two checking pieces stand on one line with the king'
FROM threats t
JOIN square_masks m ON m.square = t.king_sq
WHERE t.n_checkers = 2
  AND (t.checkers & (m.ray_n | m.ray_s) = t.checkers OR t.checkers & (m.ray_e | m.ray_w) = t.checkers
       OR t.checkers & (m.ray_ne | m.ray_sw) = t.checkers OR t.checkers & (m.ray_nw | m.ray_se) = t.checkers)
