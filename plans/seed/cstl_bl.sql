-- Seed CTE: +cstl_bl — black long castling (e8-c8 with the rook a8-d8) for every game
-- whose castling_black_long flag is unset, with king e8 and rook a8 in place and b8, c8,
-- d8 empty. Seed behaviour kept: the side to move is not looked at (the row is made when
-- white is to move too; +stage8 then removes it, see stage13.sql), and neither is check
-- (that is left to +stage8 through the is_castling_* flags). View `cstl_bl` (read by
-- +stage6).
--
-- Constants: c_color_black 'B', c_chessman_king 'K', c_chessman_rook 'R';
--   @abap_true / @abap_false -> true / false.
-- Translation notes: `~` -> `.`; integer literals are CAST to INT so that the UNION of
-- +stage6 keeps the Int32 coordinate columns of +moves (ABAP types them from the first
-- UNION branch).
SELECT game.gameuuid, game.movecnt,
       'B' AS color,
       'K' AS chessman,
       CAST(5 AS INT) AS from_x, CAST(8 AS INT) AS from_y,
       CAST(3 AS INT) AS to_x, CAST(8 AS INT) AS to_y, 'C' AS special_flag,
       'B' AS color_dep,
       'R' AS chessman_dep,
       CAST(1 AS INT) AS from_x_dep,
       CAST(8 AS INT) AS from_y_dep,
       CAST(4 AS INT) AS to_x_dep, CAST(8 AS INT) AS to_y_dep,
       false AS transform_pawn_flag,
       true AS castling_black_long,
       true AS castling_black_short,
       game.castling_white_long, game.castling_white_short
FROM demo_chess_game AS game
     LEFT OUTER JOIN positions AS a8
       ON game.gameuuid = a8.gameuuid AND
          game.movecnt  = a8.movecnt  AND
          a8.x          = 1           AND
          a8.y          = 8
     LEFT OUTER JOIN positions AS b8
       ON game.gameuuid = b8.gameuuid AND
          game.movecnt  = b8.movecnt  AND
          b8.x          = 2           AND
          b8.y          = 8
     LEFT OUTER JOIN positions AS c8
       ON game.gameuuid = c8.gameuuid AND
          game.movecnt  = c8.movecnt  AND
          c8.x          = 3           AND
          c8.y          = 8
     LEFT OUTER JOIN positions AS d8
       ON game.gameuuid = d8.gameuuid AND
          game.movecnt  = d8.movecnt  AND
          d8.x          = 4           AND
          d8.y          = 8
     LEFT OUTER JOIN positions AS e8
       ON game.gameuuid = e8.gameuuid AND
          game.movecnt  = e8.movecnt  AND
          e8.x          = 5           AND
          e8.y          = 8
WHERE game.castling_black_long = false AND
      e8.color = 'B' AND
      e8.chessman = 'K' AND
      b8.color IS NULL AND
      c8.color IS NULL AND
      d8.color IS NULL AND
      a8.color = 'B' AND
      a8.chessman = 'R'
