-- Seed CTE: +cstl_bs — black short castling (e8-g8 with the rook h8-f8) for every game
-- whose castling_black_short flag is unset, with king e8 and rook h8 in place and f8, g8
-- empty. Seed behaviour kept: the side to move is not looked at, nor is check (left to
-- +stage8). View `cstl_bs` (read by +stage6).
--
-- Constants: c_color_black 'B', c_chessman_king 'K', c_chessman_rook 'R';
--   @abap_true / @abap_false -> true / false.
-- Translation notes: `~` -> `.`; integer literals are CAST to INT (see cstl_bl.sql).
SELECT game.gameuuid, game.movecnt,
       'B' AS color,
       'K' AS chessman,
       CAST(5 AS INT) AS from_x, CAST(8 AS INT) AS from_y,
       CAST(7 AS INT) AS to_x, CAST(8 AS INT) AS to_y, 'C' AS special_flag,
       'B' AS color_dep,
       'R' AS chessman_dep,
       CAST(8 AS INT) AS from_x_dep,
       CAST(8 AS INT) AS from_y_dep,
       CAST(6 AS INT) AS to_x_dep, CAST(8 AS INT) AS to_y_dep,
       false AS transform_pawn_flag,
       true AS castling_black_long,
       true AS castling_black_short,
       game.castling_white_long, game.castling_white_short
FROM demo_chess_game AS game
     LEFT OUTER JOIN positions AS e8
       ON game.gameuuid = e8.gameuuid AND
          game.movecnt  = e8.movecnt  AND
          e8.x          = 5           AND
          e8.y          = 8
     LEFT OUTER JOIN positions AS f8
       ON game.gameuuid = f8.gameuuid AND
          game.movecnt  = f8.movecnt  AND
          f8.x          = 6           AND
          f8.y          = 8
     LEFT OUTER JOIN positions AS g8
       ON game.gameuuid = g8.gameuuid AND
          game.movecnt  = g8.movecnt  AND
          g8.x          = 7           AND
          g8.y          = 8
     LEFT OUTER JOIN positions AS h8
       ON game.gameuuid = h8.gameuuid AND
          game.movecnt  = h8.movecnt  AND
          h8.x          = 8           AND
          h8.y          = 8
WHERE game.castling_black_short = false AND
      e8.color = 'B' AND
      e8.chessman = 'K' AND
      f8.color IS NULL AND
      g8.color IS NULL AND
      h8.color = 'B' AND
      h8.chessman = 'R'
