-- Seed CTE: +stage4 — the blocked +stage1 moves: a non-knight move with some other
-- chessman on the segment from..to (collinear: equal slopes; inside the bounding box:
-- both distances <= 1), unless that chessman is an enemy standing on the target square
-- (a capture). View `stage4`.
--
-- Constants: c_chessman_knight 'N'.
-- Translation notes: `~` -> `.`; otherwise verbatim.
SELECT source.gameuuid, source.movecnt, source.color, source.chessman,
       source.from_x, source.from_y, source.to_x, source.to_y
FROM stage3 AS source
WHERE source.chessman <> 'N' AND
      source.first_slope = source.second_slope AND
      source.first_distance  <= 1 AND
      source.second_distance <= 1 AND NOT
      (
        source.color <> source.other_color AND
        source.to_x  = source.other_x      AND
        source.to_y  = source.other_y
      )
