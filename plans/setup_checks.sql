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
),
pairs AS (
  SELECT a.position_id, a.checker_sq AS c1, b.checker_sq AS c2, k.king_sq
  FROM checkers a
  JOIN checkers b ON b.position_id = a.position_id AND b.checker_sq > a.checker_sq
  JOIN boards k ON k.position_id = a.position_id
  WHERE a.n_checkers = 2
),
collinear AS (
  SELECT p.position_id FROM pairs p JOIN lines l ON l.a = p.c1 AND l.b = p.c2 AND l.mid = p.king_sq
  UNION ALL
  SELECT p.position_id FROM pairs p JOIN lines l ON l.a = p.c1 AND l.b = p.king_sq AND l.mid = p.c2
  UNION ALL
  SELECT p.position_id FROM pairs p JOIN lines l ON l.a = p.c2 AND l.b = p.king_sq AND l.mid = p.c1
)
SELECT position_id,
       CASE WHEN by_king = 1 THEN 'kings_adjacent' ELSE 'opposite_check' END AS kind,
       CASE WHEN by_king = 1 THEN 'the two kings stand on adjacent squares'
            ELSE 'the side not to move is in check' END AS message
FROM opposite
UNION ALL
SELECT DISTINCT position_id, 'too_many_checkers', 'more than two pieces give check' FROM checkers WHERE n_checkers > 2
UNION ALL
SELECT DISTINCT position_id, 'impossible_check', 'two checking pieces stand on one line with the king' FROM collinear
