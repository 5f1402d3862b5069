-- Stage `hanging`: every piece other than a king that the other side attacks and none of
-- its own side defends (attacks); python-chess: `board.attackers` of the other colour on
-- its square is not empty, `board.attackers` of its own colour is. The attacks are those
-- of `piece_attacks` (a piece's attacking rays of `piece_rays` up to the first piece), kept
-- only where they land on a piece and counted per square and side; every attack counts,
-- those of pinned pieces too (as in python-chess).
-- Columns: position_id, hanging_sq (Int32), hanging_color ('w'/'b'), hanging_piece (Utf8),
--   attackers (Int64: how many enemy pieces attack it).
WITH hits AS (
  SELECT p.position_id, r.to_bit, CAST(p.own AS BIGINT) AS by_own, CAST(NOT p.own AS BIGINT) AS by_other
  FROM boards b
  JOIN placed p ON p.position_id = b.position_id
  JOIN piece_rays r ON r.piece_key = p.piece_key
  WHERE r.attacks AND r.between_mask & b.occupied = 0 AND r.to_bit & b.occupied <> 0
),
counted AS (
  SELECT position_id, to_bit, sum(by_own) AS by_side_to_move, sum(by_other) AS by_other_side
  FROM hits
  GROUP BY position_id, to_bit
)
SELECT t.position_id, t.square AS hanging_sq, {{color_letter(t.white)}} AS hanging_color,
       {{role_letter(t.kind)}} AS hanging_piece,
       CASE WHEN t.own THEN c.by_other_side ELSE c.by_side_to_move END AS attackers
FROM counted c
JOIN placed t ON t.position_id = c.position_id AND t.bit = c.to_bit
WHERE t.kind <> 5
  AND CASE WHEN t.own THEN c.by_side_to_move = 0 ELSE c.by_other_side = 0 END
  AND CASE WHEN t.own THEN c.by_other_side > 0 ELSE c.by_side_to_move > 0 END
