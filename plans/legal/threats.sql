-- Stage `threats` (seed +stage8, +stage9 "king in check" test, generalised): per position,
-- what the side NOT to move does to the king of the side to move, as 64-bit square sets
-- (bit n = square n), from the enemy pieces joined with their rays (`piece_rays`): all of
-- them for the attacked squares, and the one ray to the own king's square for the rest:
--   attacked : every square the enemy attacks, seen through the own king (FIDE art. 3.1,
--              3.9): a king may not move to such a square, nor castle from, through or into
--              one. A ray reaches its square when the squares before it are empty;
--   checkers : the enemy pieces whose ray reaches the king with no piece between (art. 3.9;
--              two = double check: only king moves are legal);
--   evasion  : in single check, the squares that end it for a piece other than the king:
--              the checker's square and the squares between it and the king;
--   pinned   : own pieces that stand alone between an enemy piece and the own king on its
--              ray (a queen's, rook's or bishop's: the other pieces' rays have no square
--              between); they may only move along that line. `blockers & (blockers - 1) = 0`
--              tests that the set of pieces between holds one square.
-- A set is the bit_or of `bits * (condition as 0 or 1)` (see `boards`).
-- Columns: position_id, king_sq (Int32), n_checkers (Int64), attacked, checkers, evasion,
--          pinned (UInt64).
WITH attacks AS (
  SELECT b.position_id, bit_or(r.to_bit) AS attacked
  FROM boards b
  JOIN placed p ON p.position_id = b.position_id AND NOT p.own
  JOIN piece_rays r ON r.piece_key = p.piece_key
  WHERE r.attacks AND b.occupied_xray & r.between_mask = 0
  GROUP BY b.position_id
),
to_king AS (
  SELECT b.position_id, p.bit AS piece_bit, r.between_mask, b.own,
         b.occupied & r.between_mask AS blockers
  FROM boards b
  JOIN placed p ON p.position_id = b.position_id AND NOT p.own
  JOIN piece_rays r ON r.piece_key = p.piece_key AND r.to_sq = b.king_sq
  WHERE r.attacks
),
king_rays AS (
  SELECT position_id,
    SUM(CAST(blockers = 0 AS BIGINT)) AS n_checkers,
    bit_or(piece_bit * CAST(blockers = 0 AS BIGINT UNSIGNED)) AS checkers,
    bit_or((between_mask | piece_bit) * CAST(blockers = 0 AS BIGINT UNSIGNED)) AS evasion,
    bit_or(blockers * CAST(blockers & own <> 0
                           AND blockers & (blockers - CAST(1 AS BIGINT UNSIGNED)) = 0
                           AS BIGINT UNSIGNED)) AS pinned
  FROM to_king
  GROUP BY position_id
)
SELECT k.position_id, k.king_sq,
       COALESCE(l.n_checkers, 0) AS n_checkers,
       COALESCE(a.attacked, CAST(0 AS BIGINT UNSIGNED)) AS attacked,
       COALESCE(l.checkers, CAST(0 AS BIGINT UNSIGNED)) AS checkers,
       COALESCE(l.evasion, CAST(0 AS BIGINT UNSIGNED)) AS evasion,
       COALESCE(l.pinned, CAST(0 AS BIGINT UNSIGNED)) AS pinned
FROM boards k
LEFT JOIN attacks a ON a.position_id = k.position_id
LEFT JOIN king_rays l ON l.position_id = k.position_id
