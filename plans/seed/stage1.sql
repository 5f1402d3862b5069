-- Seed CTE: +stage1 — the moves of +moves that the side to move can make from the squares
-- its chessmen stand on, ignoring blocking chessmen: target square empty or enemy, pawn
-- captures ('P') only onto an enemy or as en passant after the matching double step of
-- the "last move" (any chessman with moved_flag), pawn pushes ('E') only onto an empty
-- square; castling rows ('C') are left out (they come from +cstl_*). Also computes the
-- castling-done flags after the move. Materialised table `stage1` (read by +stage2 and
-- +stage5).
--
-- Constants: c_color_white 'W', c_color_black 'B', c_chessman_king 'K',
--   c_chessman_rook 'R'; @abap_true -> true (castling flags are BOOLEAN).
-- Translation notes:
--   * `~` -> `.`; `select from .. fields .. where ..` -> `SELECT .. FROM .. WHERE ..`.
--   * `moves~special_flag = @abap_false` compares the CHAR(1) flag with abap_false,
--     which is a space in ABAP, i.e. c_special_flag_none -> `moves.special_flag = ' '`.
--   * The castling CASEs have no ELSE, as in the seed: NULL when the flag stays unset.
--   * Seed behaviour kept: demo_chess_game joins +positions on gameuuid only (not
--     movecnt); several moved chessmen (after castling) multiply the rows (removed by
--     the UNION of +stage6).
SELECT source.gameuuid, source.movecnt, source.color, source.chessman,
       source.x AS from_x,
       source.y AS from_y, moves.to_x, moves.to_y,
       moves.special_flag, moves.color_dep,
       moves.chessman_dep, moves.from_x_dep, moves.from_y_dep,
       moves.to_x_dep, moves.to_y_dep,
       moves.transform_pawn_flag,
       CASE WHEN game.castling_black_long = true THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'R' AND
                 source.x = 1 AND
                 source.y = 8 THEN true
            END AS castling_black_long,
       CASE WHEN game.castling_black_short = true THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'R' AND
                 source.x = 8 AND
                 source.y = 8 THEN true END AS castling_black_short,
       CASE WHEN game.castling_white_long = true THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'R' AND
                 source.x = 1 AND source.y = 1 THEN true END AS castling_white_long,
       CASE WHEN game.castling_white_short = true THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'R' AND
                 source.x = 8 AND
                 source.y = 1 THEN true END AS castling_white_short,
       last_move.chessman AS last_chessman,
       last_move.color AS last_color,
       last_move.before_x AS last_from_x,
       last_move.before_y AS last_from_y,
       last_move.x AS last_to_x,
       last_move.y AS last_to_y
FROM ( demo_chess_game AS game
       INNER JOIN positions AS source ON game.gameuuid = source.gameuuid )
     INNER JOIN moves AS moves ON source.color    = moves.color    AND
                                  source.chessman = moves.chessman AND
                                  source.x        = moves.from_x   AND
                                  source.y        = moves.from_y
     LEFT OUTER JOIN positions AS target_field
       ON target_field.gameuuid = source.gameuuid AND
          target_field.movecnt = source.movecnt AND
          target_field.x = moves.to_x AND
          target_field.y = moves.to_y
     LEFT OUTER JOIN positions AS last_move
       ON last_move.gameuuid   = source.gameuuid AND
          last_move.movecnt    = source.movecnt   AND
          last_move.moved_flag = true
WHERE source.color = game.color AND
      ( target_field.color IS NULL OR
        target_field.color <> source.color ) AND
      ( moves.special_flag = ' ' OR
        moves.special_flag = 'P' OR
        moves.special_flag = 'E' ) AND
      (
        moves.special_flag <> 'P' OR
        target_field.color IS NOT NULL OR
        (
          last_move.chessman = moves.chessman_dep AND
          last_move.color    = moves.color_dep    AND
          last_move.before_x = moves.from_x_dep   AND
          last_move.before_y = moves.from_y_dep   AND
          last_move.x        = moves.to_x_dep     AND
          last_move.y        = moves.to_y_dep
        )
      )
      AND
      (
        moves.special_flag <> 'E' OR
        target_field.color IS NULL
      )
