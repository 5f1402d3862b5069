-- Seed CTE: +stage12 — the +stage8 replies that +stage11 does not block: real attacks
-- on the king (or on the castling squares) after a candidate move. View `stage12`
-- (read once, by +stage13).
--
-- Constants: none.
-- Translation notes: `~` -> `.`; `allowed~*` -> `allowed.*`.
SELECT allowed.*
FROM stage8 AS allowed
     LEFT OUTER JOIN stage11 AS forbidden
       ON  allowed.gameuuid = forbidden.gameuuid AND
           allowed.movecnt  = forbidden.movecnt  AND
           allowed.move_color = forbidden.move_color AND
           allowed.move_chessman = forbidden.move_chessman AND
           allowed.move_from_x = forbidden.move_from_x AND
           allowed.move_from_y = forbidden.move_from_y AND
           allowed.move_to_x = forbidden.move_to_x AND
           allowed.move_to_y = forbidden.move_to_y AND
           allowed.color    = forbidden.color    AND
           allowed.chessman = forbidden.chessman AND
           allowed.from_x   = forbidden.from_x   AND
           allowed.from_y   = forbidden.from_y   AND
           allowed.to_x     = forbidden.to_x     AND
           allowed.to_y     = forbidden.to_y
WHERE forbidden.gameuuid IS NULL
