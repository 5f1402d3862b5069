-- Seed CTE: +stage11 — the blocked +stage8 replies (as +stage4: a non-knight reply with
-- another chessman on its segment that is not an enemy on its target square). View
-- `stage11`.
--
-- Constants: c_chessman_knight 'N'.
-- Translation notes: `~` -> `.`; the seed's mix of qualified and unqualified names kept.
SELECT gameuuid, movecnt, move_color, move_chessman,
       move_from_x, move_from_y, move_to_x,
       move_to_y, color, chessman, from_x, from_y, to_x, to_y
FROM stage10 AS source
WHERE chessman <> 'N' AND
      first_slope = source.second_slope AND
      first_distance  <= 1 AND
      second_distance <= 1 AND NOT
      (
        color <> source.other_color AND
        to_x  = source.other_x      AND
        to_y  = source.other_y
      )
