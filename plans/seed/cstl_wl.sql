-- Seed CTE: +cstl_wl — white long castling (e1-c1 with the rook a1-d1) for every game
-- whose castling_white_long flag is unset, with king e1 and rook a1 in place and b1, c1,
-- d1 empty. Seed behaviour kept: the side to move is not looked at, nor is check (left to
-- +stage8). View `cstl_wl` (read by +stage6).
--
-- Constants: c_color_white 'W', c_chessman_king 'K', c_chessman_rook 'R';
--   @abap_true / @abap_false -> true / false.
-- Translation notes: `~` -> `.`; integer literals are CAST to INT (see cstl_bl.sql).
SELECT game.gameuuid, game.movecnt,
       'W' AS color,
       'K' AS chessman,
       CAST(5 AS INT) AS from_x, CAST(1 AS INT) AS from_y,
       CAST(3 AS INT) AS to_x, CAST(1 AS INT) AS to_y, 'C' AS special_flag,
       'W' AS color_dep,
       'R' AS chessman_dep,
       CAST(1 AS INT) AS from_x_dep, CAST(1 AS INT) AS from_y_dep,
       CAST(4 AS INT) AS to_x_dep, CAST(1 AS INT) AS to_y_dep,
       false AS transform_pawn_flag, game.castling_black_long,
       game.castling_black_short,
       true AS castling_white_long,
       true AS castling_white_short
FROM demo_chess_game AS game
     LEFT OUTER JOIN positions AS a1
       ON game.gameuuid = a1.gameuuid AND
          game.movecnt  = a1.movecnt  AND
          a1.x          = 1           AND
          a1.y          = 1
     LEFT OUTER JOIN positions AS b1
       ON game.gameuuid = b1.gameuuid AND
          game.movecnt  = b1.movecnt  AND
          b1.x          = 2           AND
          b1.y          = 1
     LEFT OUTER JOIN positions AS c1
       ON game.gameuuid = c1.gameuuid AND
          game.movecnt  = c1.movecnt  AND
          c1.x          = 3           AND
          c1.y          = 1
     LEFT OUTER JOIN positions AS d1
       ON game.gameuuid = d1.gameuuid AND
          game.movecnt  = d1.movecnt  AND
          d1.x          = 4           AND
          d1.y          = 1
     LEFT OUTER JOIN positions AS e1
       ON game.gameuuid = e1.gameuuid AND
          game.movecnt  = e1.movecnt  AND
          e1.x          = 5           AND
          e1.y          = 1
WHERE game.castling_white_long = false AND
      e1.color = 'W' AND
      e1.chessman = 'K' AND
      b1.color IS NULL AND
      c1.color IS NULL AND
      d1.color IS NULL AND
      a1.color = 'W' AND
      a1.chessman = 'R'
