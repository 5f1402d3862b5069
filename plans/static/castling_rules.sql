-- Static table `castling_rules`: the castlings of `castling_path` (FIDE art. 3.8.2, Chess960
-- included), one row per colour, king square and rook square, with the squares of the path as
-- 64-bit square sets: `empty_mask` (must be empty), `safe_mask` (must not be attacked),
-- `shield_mask` (must not hold an enemy rook or queen), and the four squares as bits.
-- A castling right is held by its rook's square (the `castling` set of `positions`), so a
-- position joins the rules of its king's square and keeps those whose rook bit it holds.
-- Seed: +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl (the seed's black rows use rank 1; ours rank 8).
-- Columns: white (Boolean: White's castling), castle_long (Boolean), king_from, king_to, rook_from, rook_to (Int32),
--          empty_mask, safe_mask, shield_mask, king_from_bit, king_to_bit, rook_from_bit,
--          rook_to_bit, castling_lost (UInt64: the rights the castling ends, those of
--          `castling_loss` for the king leaving king_from: every right of its colour).
SELECT r.*, l.lost AS castling_lost
FROM (
  SELECT white, castle_long, king_from, king_to, rook_from, rook_to,
         bit_or(CASE WHEN need = 'empty' THEN CAST(1 AS BIGINT UNSIGNED) << CAST(path_sq AS BIGINT UNSIGNED)
                     ELSE CAST(0 AS BIGINT UNSIGNED) END) AS empty_mask,
         bit_or(CASE WHEN need = 'safe' THEN CAST(1 AS BIGINT UNSIGNED) << CAST(path_sq AS BIGINT UNSIGNED)
                     ELSE CAST(0 AS BIGINT UNSIGNED) END) AS safe_mask,
         bit_or(CASE WHEN need = 'shield' THEN CAST(1 AS BIGINT UNSIGNED) << CAST(path_sq AS BIGINT UNSIGNED)
                     ELSE CAST(0 AS BIGINT UNSIGNED) END) AS shield_mask,
         CAST(1 AS BIGINT UNSIGNED) << CAST(king_from AS BIGINT UNSIGNED) AS king_from_bit,
         CAST(1 AS BIGINT UNSIGNED) << CAST(king_to AS BIGINT UNSIGNED) AS king_to_bit,
         CAST(1 AS BIGINT UNSIGNED) << CAST(rook_from AS BIGINT UNSIGNED) AS rook_from_bit,
         CAST(1 AS BIGINT UNSIGNED) << CAST(rook_to AS BIGINT UNSIGNED) AS rook_to_bit
  FROM castling_path
  GROUP BY white, castle_long, king_from, king_to, rook_from, rook_to
) r
JOIN castling_loss l ON l.mover_key = r.king_from * 16 + CASE WHEN r.white THEN 5 ELSE 13 END
