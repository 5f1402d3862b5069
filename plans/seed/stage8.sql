-- Seed CTE: +stage8 — for each candidate move (the move_* key of +stage7), the replies
-- of the other side in the position after it that land on the mover's king, or — for a
-- castling move — on the king's start square or the square it passes (d/e for long,
-- e/f for short castling). Same single-chessman rules as +stage1, including en passant
-- against the candidate move itself. Blocking is checked later (+stage9..+stage11).
-- Seed defects kept: a pawn capture ('P') needs an occupied target square, so a pawn
-- never "attacks" an empty square a castling king passes or starts from (castling out
-- of or through a pawn check is allowed); pawn pushes ('E') onto those empty squares do
-- count. Materialised table `stage8` (read by +stage9 and +stage12).
--
-- Constants: c_color_white 'W', c_color_black 'B', c_chessman_king 'K',
--   c_chessman_rook 'R'; @abap_true / @abap_false -> true / false.
-- Translation notes:
--   * `~` -> `.`; `moves~special_flag = @abap_false` -> `moves.special_flag = ' '`
--     (see stage1.sql).
--   * Seed behaviour kept: demo_chess_game joins +stage7 on gameuuid only; the
--     castling CASEs have ELSE false here (unlike +stage1).
SELECT source.gameuuid, source.movecnt, source.move_color,
       source.move_chessman, source.move_from_x,
       source.move_from_y, source.move_to_x, source.move_to_y,
       source.color, source.chessman,
       source.x AS from_x, source.y AS from_y, moves.to_x,
       moves.to_y, moves.special_flag,
       moves.color_dep, moves.chessman_dep, moves.from_x_dep,
       moves.from_y_dep, moves.to_x_dep,
       moves.to_y_dep, moves.transform_pawn_flag,
       CASE WHEN source.castling_black_long = true THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'K'
              THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'R' AND
                 source.x  = 1 AND
                 source.y  = 8
              THEN true
            ELSE false END AS castling_black_long,
       CASE WHEN source.castling_black_short = true THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'B' AND
                 source.chessman = 'R' AND
                 source.x  = 8 AND
                 source.y  = 8 THEN true
            ELSE false
       END AS castling_black_short,
       CASE WHEN source.castling_white_long = true THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'R' AND
                 source.x  = 1 AND
                 source.y  = 1 THEN true
            ELSE false END AS castling_white_long,
       CASE WHEN source.castling_white_short = true THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'K' THEN true
            WHEN source.color = 'W' AND
                 source.chessman = 'R' AND
                 source.x  = 8 AND
                 source.y  = 1 THEN true
            ELSE false END AS castling_white_short,
       last_move.chessman AS last_chessman,
       last_move.color AS last_color,
       last_move.before_x AS last_from_x,
       last_move.before_y AS last_from_y,
       last_move.x AS last_to_x,
       last_move.y AS last_to_y
FROM demo_chess_game AS game
     INNER JOIN stage7 AS source
       ON game.gameuuid = source.gameuuid
     INNER JOIN stage7 AS kings_pos
       ON kings_pos.gameuuid = source.gameuuid AND
          kings_pos.movecnt       = source.movecnt   AND
          kings_pos.move_color    = source.move_color AND
          kings_pos.move_chessman = source.move_chessman AND
          kings_pos.move_from_x   = source.move_from_x AND
          kings_pos.move_from_y   = source.move_from_y AND
          kings_pos.move_to_x     = source.move_to_x AND
          kings_pos.move_to_y     = source.move_to_y AND
          kings_pos.color         = source.move_color AND
          kings_pos.chessman      = 'K'
     INNER JOIN moves AS moves
       ON source.color    = moves.color    AND
          source.chessman = moves.chessman AND
          source.x        = moves.from_x   AND
          source.y        = moves.from_y
     LEFT OUTER JOIN stage7 AS target_field
       ON target_field.gameuuid      = source.gameuuid AND
          target_field.movecnt       = source.movecnt AND
          target_field.move_color    = source.move_color AND
          target_field.move_chessman = source.move_chessman AND
          target_field.move_from_x   = source.move_from_x AND
          target_field.move_from_y   = source.move_from_y AND
          target_field.move_to_x     = source.move_to_x AND
          target_field.move_to_y     = source.move_to_y AND
          target_field.x             = moves.to_x AND
          target_field.y             = moves.to_y
     LEFT OUTER JOIN stage7 AS last_move
       ON last_move.gameuuid      = source.gameuuid AND
          last_move.movecnt       = source.movecnt   AND
          last_move.move_color    = source.move_color AND
          last_move.move_chessman = source.move_chessman AND
          last_move.move_from_x   = source.move_from_x AND
          last_move.move_from_y   = source.move_from_y AND
          last_move.move_to_x     = source.move_to_x AND
          last_move.move_to_y     = source.move_to_y AND
          last_move.moved_flag    = true
WHERE
  ( ( source.color = 'B' AND
      game.color = 'W' ) OR
    ( source.color = 'W' AND
      game.color = 'B' ) ) AND
  ( target_field.color IS NULL OR target_field.color <> source.color ) AND
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
  ) AND
  ( ( moves.to_x     = kings_pos.x    AND
      moves.to_y     = kings_pos.y ) OR
    ( source.is_castling_black_long = true AND
      moves.to_y = 8 AND
      ( moves.to_x = 4 OR moves.to_x = 5 )
    ) OR
    ( source.is_castling_white_long = true AND
      moves.to_y = 1 AND
      ( moves.to_x = 4 OR moves.to_x = 5 )
    ) OR
    ( source.is_castling_black_short = true AND
      moves.to_y = 8 AND
      ( moves.to_x = 5 OR moves.to_x = 6 )
    ) OR
    ( source.is_castling_white_short = true AND
      moves.to_y = 1 AND
      ( moves.to_x = 5 OR moves.to_x = 6 )
    )
  )
