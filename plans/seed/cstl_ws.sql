-- Seed CTE: +cstl_ws — white short castling (e1-g1 with the rook h1-f1) for every game
-- whose castling_white_short flag is unset, with king e1 and rook h1 in place and f1, g1
-- empty. Seed behaviour kept: the side to move is not looked at, nor is check (left to
-- +stage8); a rook that arrives on h1 later (after the original was captured) is taken
-- for the original. View `cstl_ws` (read by +stage6).
--
-- Constants: c_color_white 'W', c_chessman_king 'K', c_chessman_rook 'R';
--   @abap_true / @abap_false -> true / false.
-- Translation notes: `~` -> `.`; integer literals are CAST to INT (see cstl_bl.sql).
--   The seed joins the CDS view DEMO_CHESS_V_POS_CDS here instead of +positions (the
--   only CTE that does); that view is the CDS form of +positions over DEMO_CHESS_POS,
--   and only its gameuuid, movecnt, x, y, color and chessman are read, so `positions`
--   is used.
SELECT game.gameuuid, game.movecnt, 'W' AS color,
       'K' AS chessman, CAST(5 AS INT) AS from_x, CAST(1 AS INT) AS from_y,
       CAST(7 AS INT) AS to_x, CAST(1 AS INT) AS to_y, 'C' AS special_flag,
       'W'  AS color_dep,
       'R' AS chessman_dep,
       CAST(8 AS INT) AS from_x_dep, CAST(1 AS INT) AS from_y_dep,
       CAST(6 AS INT) AS to_x_dep, CAST(1 AS INT) AS to_y_dep,
       false AS transform_pawn_flag, game.castling_black_long,
       game.castling_black_short,
       true AS castling_white_long,
       true AS castling_white_short
FROM demo_chess_game AS game
     LEFT OUTER JOIN positions AS e1
       ON game.gameuuid = e1.gameuuid AND
          game.movecnt  = e1.movecnt  AND
          e1.x          = 5           AND
          e1.y          = 1
     LEFT OUTER JOIN positions AS f1
       ON game.gameuuid = f1.gameuuid AND
          game.movecnt  = f1.movecnt  AND
          f1.x          = 6           AND
          f1.y          = 1
     LEFT OUTER JOIN positions AS g1
       ON game.gameuuid = g1.gameuuid AND
          game.movecnt  = g1.movecnt  AND
          g1.x          = 7           AND
          g1.y          = 1
     LEFT OUTER JOIN positions AS h1
       ON game.gameuuid = h1.gameuuid AND
          game.movecnt  = h1.movecnt  AND
          h1.x          = 8           AND
          h1.y          = 1
WHERE game.castling_white_short = false AND
      e1.color = 'W' AND
      e1.chessman = 'K' AND
      f1.color IS NULL AND
      g1.color IS NULL AND
      h1.color = 'W' AND
      h1.chessman = 'R'
