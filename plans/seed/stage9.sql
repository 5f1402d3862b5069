-- Seed CTE: +stage9 — every +stage8 reply paired with every other chessman of the
-- position after the candidate move (the replying chessman left out), with the same
-- slopes and comparisons as +stage2. View `stage9` (inlined into +stage12 through
-- +stage10 and +stage11).
--
-- Constants: none.
-- Translation notes: `~` -> `.`; otherwise verbatim.
SELECT moves.gameuuid, moves.movecnt, moves.move_color,
       moves.move_chessman,
       moves.move_from_x,
       moves.move_from_y, moves.move_to_x, moves.move_to_y,
       moves.color, moves.chessman,
       moves.from_x, moves.from_y, moves.to_x, moves.to_y,
       position.color AS other_color,
       position.x AS other_x, position.y AS other_y,
       moves.special_flag, moves.color_dep,
       moves.chessman_dep, moves.from_x_dep, moves.from_y_dep,
       moves.to_x_dep, moves.to_y_dep,
       moves.transform_pawn_flag,
       ( moves.to_x - moves.from_x ) * ( position.y - moves.from_y )
         AS first_slope,
       ( position.x - moves.from_x ) * ( moves.to_y - moves.from_y )
         AS second_slope,
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
            ELSE                                1
       END AS cmp_2y
FROM stage8 AS moves
     INNER JOIN stage7 AS position
       ON position.gameuuid = moves.gameuuid AND
          position.movecnt  = moves.movecnt  AND
          position.move_color = moves.move_color AND
          position.move_chessman = moves.move_chessman AND
          position.move_from_x = moves.move_from_x AND
          position.move_from_y = moves.move_from_y AND
          position.move_to_x = moves.move_to_x AND
          position.move_to_y = moves.move_to_y
WHERE NOT ( position.chessman = moves.chessman AND
            position.color    = moves.color    AND
            position.x        = moves.from_x   AND
            position.y        = moves.from_y
          )
