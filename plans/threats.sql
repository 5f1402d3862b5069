-- Stage `threats` (seed +stage8, +stage9 "king in check" test, generalised): per position,
-- what the side NOT to move does to the king of the side to move, as 64-bit square sets
-- (bit n = square n):
--   attacked : every square the enemy attacks, seen through the own king (FIDE art. 3.1,
--              3.9): a king may not move to such a square, nor castle from, through or into one;
--   checkers : the enemy pieces giving check (two = double check: only king moves are legal);
--   evasion  : in single check, the squares that end it for a piece other than the king:
--              the checker's square and the squares between it and the king (art. 3.9);
--   pinned   : own pieces that are the only piece between an enemy queen, rook or bishop
--              and the own king: they may only move along that line.
-- Columns: position_id, king_sq (Int32), n_checkers (Int64), attacked, checkers, evasion,
--          pinned (UInt64).
WITH attacks AS (
  SELECT b.position_id, bit_or(r.to_bit) AS attacked
  FROM boards b
  JOIN placed p ON p.position_id = b.position_id AND NOT p.own
  JOIN piece_rays r ON r.piece_key = p.piece_key
  WHERE r.mode <> 'push' AND b.occupied_xray & r.between_mask = 0
  GROUP BY b.position_id
),
checks AS (
  SELECT position_id, MAX(n_checkers) AS n_checkers,
         bit_or(CAST(1 AS BIGINT UNSIGNED) << CAST(checker_sq AS BIGINT UNSIGNED)) AS checkers,
         bit_or(line_mask) AS evasion
  FROM checkers
  GROUP BY position_id
),
pins AS (
  SELECT position_id, bit_or(CAST(1 AS BIGINT UNSIGNED) << CAST(between_sq AS BIGINT UNSIGNED)) AS pinned
  FROM king_lines
  WHERE own_king AND n_between = 1 AND between_own
  GROUP BY position_id
)
SELECT k.position_id, k.king_sq,
       COALESCE(c.n_checkers, 0) AS n_checkers,
       COALESCE(a.attacked, CAST(0 AS BIGINT UNSIGNED)) AS attacked,
       COALESCE(c.checkers, CAST(0 AS BIGINT UNSIGNED)) AS checkers,
       COALESCE(c.evasion, CAST(0 AS BIGINT UNSIGNED)) AS evasion,
       COALESCE(p.pinned, CAST(0 AS BIGINT UNSIGNED)) AS pinned
FROM boards k
LEFT JOIN attacks a ON a.position_id = k.position_id
LEFT JOIN checks c ON c.position_id = k.position_id
LEFT JOIN pins p ON p.position_id = k.position_id
