-- Static table `castling_rules`: the four castlings (FIDE art. 3.8.2): which right, which
-- colour, where king and rook start and end.
-- Seed: +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl (the seed's black rows use rank 1; ours rank 8).
SELECT column1 AS castling_right, column2 AS color,
       CAST(column3 AS INT) AS king_from, CAST(column4 AS INT) AS king_to,
       CAST(column5 AS INT) AS rook_from, CAST(column6 AS INT) AS rook_to
FROM (VALUES
  ('K', 'w', 4, 6, 7, 5), ('Q', 'w', 4, 2, 0, 3),
  ('k', 'b', 60, 62, 63, 61), ('q', 'b', 60, 58, 56, 59))
