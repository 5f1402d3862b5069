-- Seed CTE: +stage5 — the +stage1 moves that +stage4 does not block (anti join written,
-- as in the seed, as LEFT OUTER JOIN .. WHERE forbidden.gameuuid IS NULL). View `stage5`
-- (read once, by +stage6).
--
-- Constants: none.
-- Translation notes: `~` -> `.`; `allowed~*` -> `allowed.*`.
SELECT allowed.*
FROM stage1 AS allowed
     LEFT OUTER JOIN stage4 AS forbidden
       ON  allowed.gameuuid = forbidden.gameuuid AND
           allowed.movecnt  = forbidden.movecnt  AND
           allowed.color    = forbidden.color    AND
           allowed.chessman = forbidden.chessman AND
           allowed.from_x   = forbidden.from_x   AND
           allowed.from_y   = forbidden.from_y   AND
           allowed.to_x     = forbidden.to_x     AND
           allowed.to_y     = forbidden.to_y
WHERE forbidden.gameuuid IS NULL
