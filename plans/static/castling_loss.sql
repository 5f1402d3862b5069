-- Static table `castling_loss`: the castling rights a move takes away (FIDE art. 3.8.2.1:
-- castling is impossible once the king or that rook has moved), as a set of rook squares
-- (the same square sets as the `castling` column of `positions`), keyed like
-- `piece_rays.piece_key` by the moving piece and its square: a move from a square ends the
-- right of a rook standing there, and a king's move ends every right of its colour (rule
-- `side_rights`: the rook squares of its back rank). The right of a rook captured on its square ends with the
-- target square's bit: rule `rights_lost` (plans/rules/), which `next_positions` and
-- `piece_rays.castling_lost` apply (the loss of each single-piece move, read by
-- `replay_moves` and `replay_next`; castling's is `castling_rules.castling_lost`).
-- Columns: mover_key (Int32: from_sq * 16 + 8 for black + P0 N1 B2 R3 Q4 K5), lost (UInt64).
WITH pieces AS (
  SELECT column1 AS code, column1 % 8 = 5 AS is_king
  FROM (VALUES (0), (1), (2), (3), (4), (5), (8), (9), (10), (11), (12), (13))
)
SELECT CAST(s.square * 16 + p.code AS INT) AS mover_key,
       (CAST(1 AS BIGINT UNSIGNED) << CAST(s.square AS BIGINT UNSIGNED))
       | CASE WHEN p.is_king THEN {{side_rights(p.code < 8)}} ELSE CAST(0 AS BIGINT UNSIGNED) END AS lost
FROM squares s CROSS JOIN pieces p
