-- Seed CTE: +positions — DEMO_CHESS_POS plus moved_flag: true for a chessman whose
-- before square is a real square other than its current one (the chessman that made the
-- last move; the rook of a castling too). Materialised table `positions`.
--
-- Constants: @abap_true / @abap_false -> true / false (moved_flag is BOOLEAN).
-- Translation notes: `~` -> `.`; `select from .. fields ..` -> `SELECT .. FROM ..`;
-- the CLIENT key column of DEMO_CHESS_POS is dropped (one client).
SELECT gameuuid, movecnt, chessman,
       color, x, y, before_x, before_y,
       CASE WHEN before_x = x AND before_y = y THEN false
            WHEN before_x < 1 OR before_x > 8 THEN false
            WHEN before_y < 1 OR before_y > 8 THEN false
            ELSE true END AS moved_flag
FROM demo_chess_pos
