-- Static table `castling_rules`: the four castlings (FIDE art. 3.8.2): which right, which
-- colour, where king and rook start and end, and as 64-bit square sets the squares of
-- `castling_path` that must be empty (`empty_mask`) and not attacked (`safe_mask`).
-- Seed: +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl (the seed's black rows use rank 1; ours rank 8).
-- Columns: castling_right, color, king_from, king_to, rook_from, rook_to (Int32),
--          empty_mask, safe_mask, and the same four squares as bits: king_from_bit,
--          king_to_bit, rook_from_bit, rook_to_bit (UInt64).
WITH rules AS (
  SELECT column1 AS castling_right, column2 AS color,
         CAST(column3 AS INT) AS king_from, CAST(column4 AS INT) AS king_to,
         CAST(column5 AS INT) AS rook_from, CAST(column6 AS INT) AS rook_to
  FROM (VALUES
    ('K', 'w', 4, 6, 7, 5), ('Q', 'w', 4, 2, 0, 3),
    ('k', 'b', 60, 62, 63, 61), ('q', 'b', 60, 58, 56, 59))
)
SELECT r.castling_right, r.color, r.king_from, r.king_to, r.rook_from, r.rook_to,
       bit_or(CASE WHEN p.need = 'empty' THEN CAST(1 AS BIGINT UNSIGNED) << CAST(p.path_sq AS BIGINT UNSIGNED)
                   ELSE CAST(0 AS BIGINT UNSIGNED) END) AS empty_mask,
       bit_or(CASE WHEN p.need = 'safe' THEN CAST(1 AS BIGINT UNSIGNED) << CAST(p.path_sq AS BIGINT UNSIGNED)
                   ELSE CAST(0 AS BIGINT UNSIGNED) END) AS safe_mask,
       CAST(1 AS BIGINT UNSIGNED) << CAST(r.king_from AS BIGINT UNSIGNED) AS king_from_bit,
       CAST(1 AS BIGINT UNSIGNED) << CAST(r.king_to AS BIGINT UNSIGNED) AS king_to_bit,
       CAST(1 AS BIGINT UNSIGNED) << CAST(r.rook_from AS BIGINT UNSIGNED) AS rook_from_bit,
       CAST(1 AS BIGINT UNSIGNED) << CAST(r.rook_to AS BIGINT UNSIGNED) AS rook_to_bit
FROM rules r
JOIN castling_path p ON p.castling_right = r.castling_right
GROUP BY r.castling_right, r.color, r.king_from, r.king_to, r.rook_from, r.rook_to
