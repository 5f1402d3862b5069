-- Seed CTE: +stage6 — the candidate moves: the unblocked +stage5 moves (with the '-'
-- placeholders of color_dep / chessman_dep turned into NULL) plus the four castling
-- CTEs, each tagged with is_castling_* flags. UNION (not UNION ALL) as in the seed, so
-- duplicates (from several moved chessmen in +stage1) go. Materialised table `stage6`
-- (read by +stage7 and +stage13).
--
-- Constants: c_color_invalid / c_chessman_invalid '-'; @abap_true / @abap_false ->
--   true / false.
-- Translation notes: `~` -> `.`; ABAP `union select from X fields ..` -> `UNION SELECT
--   .. FROM X`. Seed behaviour kept: the CASEs have no ELSE (NULL).
SELECT allowed.gameuuid, allowed.movecnt, allowed.color, allowed.chessman,
       allowed.from_x, allowed.from_y, allowed.to_x, allowed.to_y,
       allowed.special_flag,
       CASE WHEN allowed.color_dep <> '-'
            THEN allowed.color_dep END AS color_dep,
       CASE WHEN chessman_dep <> '-'
            THEN chessman_dep END AS chessman_dep,
       allowed.from_x_dep, allowed.from_y_dep, allowed.to_x_dep,
       allowed.to_y_dep,
       allowed.transform_pawn_flag, allowed.castling_black_long,
       allowed.castling_black_short,
       allowed.castling_white_long, allowed.castling_white_short,
       false AS is_castling_black_long,
       false AS is_castling_black_short,
       false AS is_castling_white_long,
       false AS is_castling_white_short
FROM stage5 AS allowed
UNION SELECT
       gameuuid, movecnt, color, chessman,
       from_x, from_y, to_x, to_y, special_flag,
       color_dep, chessman_dep, from_x_dep, from_y_dep,
       to_x_dep, to_y_dep, transform_pawn_flag, castling_black_long,
       castling_black_short, castling_white_long,
       castling_white_short,
       true AS is_castling_black_long,
       false AS is_castling_black_short,
       false AS is_castling_white_long,
       false AS is_castling_white_short
FROM cstl_bl
UNION SELECT
       gameuuid, movecnt, color, chessman,
       from_x, from_y, to_x, to_y, special_flag,
       color_dep, chessman_dep, from_x_dep, from_y_dep,
       to_x_dep, to_y_dep, transform_pawn_flag, castling_black_long,
       castling_black_short, castling_white_long,
       castling_white_short,
       false AS is_castling_black_long,
       true AS is_castling_black_short,
       false AS is_castling_white_long,
       false AS is_castling_white_short
FROM cstl_bs
UNION SELECT
       gameuuid, movecnt, color, chessman,
       from_x, from_y, to_x, to_y, special_flag,
       color_dep, chessman_dep, from_x_dep, from_y_dep,
       to_x_dep, to_y_dep, transform_pawn_flag, castling_black_long,
       castling_black_short, castling_white_long,
       castling_white_short,
       false AS is_castling_black_long,
       false AS is_castling_black_short,
       true AS is_castling_white_long,
       false AS is_castling_white_short
FROM cstl_wl
UNION SELECT
       gameuuid, movecnt, color, chessman,
       from_x, from_y, to_x, to_y, special_flag,
       color_dep, chessman_dep, from_x_dep, from_y_dep,
       to_x_dep, to_y_dep, transform_pawn_flag, castling_black_long,
       castling_black_short, castling_white_long,
       castling_white_short,
       false AS is_castling_black_long,
       false AS is_castling_black_short,
       false AS is_castling_white_long,
       true AS is_castling_white_short
FROM cstl_ws
