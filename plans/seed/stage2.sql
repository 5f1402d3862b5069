-- Seed CTE: +stage2 — every +stage1 move paired with every other chessman of its
-- position (the mover itself left out), with the cross products ("slopes") and the
-- coordinate comparisons that +stage3/+stage4 use to find chessmen on the move's path.
-- View `stage2` (inlined into +stage5 through +stage3 and +stage4).
--
-- Constants: none.
-- Translation notes: `~` -> `.`; otherwise verbatim.
SELECT moves.gameuuid, moves.movecnt, moves.color, moves.chessman,
       moves.from_x, moves.from_y, moves.to_x, moves.to_y,
       position.color AS other_color, position.x AS other_x,
       position.y AS other_y, moves.special_flag,
       moves.color_dep, moves.chessman_dep, moves.from_x_dep,
       moves.from_y_dep, moves.to_x_dep, moves.to_y_dep,
       moves.transform_pawn_flag,
       ( moves.to_x - moves.from_x ) * ( position.y - moves.from_y ) AS first_slope,
       ( position.x - moves.from_x ) * ( moves.to_y - moves.from_y ) AS second_slope,
       CASE WHEN moves.from_x < position.x THEN -1
            WHEN moves.from_x = position.x THEN  0
            ELSE                                 1
       END AS cmp_1x,
       CASE WHEN moves.to_x  < position.x THEN -1
            WHEN moves.to_x = position.x  THEN  0
            ELSE                                1
       END AS cmp_2x,
       CASE WHEN moves.from_y < position.y THEN -1
            WHEN moves.from_y = position.y THEN  0
            ELSE                                 1
       END AS cmp_1y,
       CASE WHEN moves.to_y  < position.y THEN -1
            WHEN moves.to_y = position.y  THEN  0
            ELSE                                1 END AS cmp_2y
FROM stage1 AS moves
     INNER JOIN positions AS position
       ON position.gameuuid = moves.gameuuid AND
          position.movecnt  = moves.movecnt
WHERE NOT ( position.chessman = moves.chessman AND
            position.color    = moves.color    AND
            position.x        = moves.from_x   AND
            position.y        = moves.from_y  )
