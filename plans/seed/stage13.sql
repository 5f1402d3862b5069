-- Seed CTE: +stage13 — the legal moves (by the seed's rules): the +stage6 candidates
-- with no +stage12 attack. This is what `SeedPipeline::all_moves` returns. (The +cstl_*
-- rows of the side *not* to move do not survive: for them +stage8 takes the castling
-- side's own rook, now on d/f, as a reply onto the e square.) Materialised table
-- `stage13` (read by +next).
--
-- Constants: none.
-- Translation notes: `~` -> `.`; `allowed~*` -> `allowed.*`.
SELECT allowed.*
FROM stage6 AS allowed
     LEFT OUTER JOIN stage12 AS forbidden
       ON  allowed.gameuuid = forbidden.gameuuid AND
           allowed.movecnt  = forbidden.movecnt  AND
           allowed.color = forbidden.move_color AND
           allowed.chessman = forbidden.move_chessman AND
           allowed.from_x = forbidden.move_from_x AND
           allowed.from_y = forbidden.move_from_y AND
           allowed.to_x = forbidden.move_to_x AND
           allowed.to_y = forbidden.move_to_y
WHERE forbidden.gameuuid IS NULL
