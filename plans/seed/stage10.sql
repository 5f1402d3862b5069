-- Seed CTE: +stage10 — +stage9 with first_distance / second_distance (as +stage3).
-- View `stage10`.
--
-- Constants: none.
-- Translation notes: `~` -> `.`; the seed's unqualified column names are kept.
SELECT gameuuid, movecnt, move_color, move_chessman,
       move_from_x, move_from_y, move_to_x,
       move_to_y, color, chessman, from_x, from_y, to_x, to_y,
       other_color, other_x,
       other_y, special_flag, color_dep, chessman_dep,
       from_x_dep, from_y_dep, to_x_dep,
       to_y_dep, transform_pawn_flag, first_slope, second_slope,
       abs( cmp_1x + cmp_2x ) AS first_distance,
       abs( cmp_1y + cmp_2y ) AS second_distance
FROM stage9 AS source
