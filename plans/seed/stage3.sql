-- Seed CTE: +stage3 — +stage2 with first_distance / second_distance: 0 when the other
-- chessman lies strictly between from and to on that axis (or all three coincide), 1 when
-- it is level with one end, 2 when it is outside. View `stage3`.
--
-- Constants: none.
-- Translation notes: `~` -> `.`; otherwise verbatim.
SELECT source.gameuuid, source.movecnt, source.color,
       source.chessman, source.from_x,
       source.from_y, source.to_x, source.to_y,
       source.other_color, source.other_x,
       source.other_y, source.special_flag,
       source.color_dep, source.chessman_dep,
       source.from_x_dep, source.from_y_dep,
       source.to_x_dep, source.to_y_dep,
       source.transform_pawn_flag,
       source.first_slope,  source.second_slope,
       abs( source.cmp_1x + source.cmp_2x ) AS first_distance,
       abs( source.cmp_1y + source.cmp_2y ) AS second_distance
FROM stage2 AS source
