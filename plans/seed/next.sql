-- Seed CTE: +next — the position after each legal move of +stage13 (the same rules as
-- +stage7: the mover moves, a pawn on the last rank becomes a queen, the castling rook
-- moves, the captured chessman and the "phantom en passant" pawn go), keyed by the move
-- (move_*) and carrying the move's castling-done flags. View `next` (read by the final
-- SELECT, validate_move.sql).
--
-- Constants: c_chessman_queen 'Q'.
-- Translation notes:
--   * `~` -> `.`.
--   * The seed writes the ABAP boolean literals here: `transform_pawn_flag = 'X'` ->
--     `= true`; moved_flag `'X'` / `' '` -> true / false (BOOLEAN, as in +stage7).
SELECT moves.gameuuid,
       moves.movecnt,
       moves.color AS move_color,
       moves.chessman AS move_chessman,
       moves.from_x AS move_from_x,
       moves.from_y AS move_from_y,
       moves.to_x AS move_to_x,
       moves.to_y AS move_to_y,
       CASE WHEN moves.transform_pawn_flag = true AND
                 moves.chessman = pos.chessman AND
                 moves.color    = pos.color    AND
                 moves.from_x   = pos.x        AND
                 moves.from_y   = pos.y
            THEN 'Q'
            ELSE pos.chessman END AS chessman,
       pos.color,
       CASE WHEN moves.chessman = pos.chessman AND
                 moves.color    = pos.color    AND
                 moves.from_x   = pos.x        AND
                 moves.from_y   = pos.y
            THEN moves.to_x
            WHEN moves.special_flag = 'C' AND
                 moves.chessman_dep = pos.chessman AND
                 moves.color_dep    = pos.color    AND
                 moves.from_x_dep   = pos.x        AND
                 moves.from_y_dep   = pos.y
            THEN moves.to_x_dep
            ELSE pos.x END AS x,
       CASE WHEN moves.chessman = pos.chessman AND
                 moves.color    = pos.color    AND
                 moves.from_x   = pos.x        AND
                 moves.from_y   = pos.y
            THEN moves.to_y
            WHEN moves.special_flag = 'C' AND
                 moves.chessman_dep = pos.chessman AND
                 moves.color_dep    = pos.color    AND
                 moves.from_x_dep   = pos.x        AND
                 moves.from_y_dep   = pos.y
            THEN moves.to_y_dep
            ELSE pos.y END AS y,
       pos.x AS before_x,
       pos.y AS before_y,
       CASE WHEN moves.chessman = pos.chessman AND
                 moves.color    = pos.color    AND
                 moves.from_x   = pos.x        AND
                 moves.from_y   = pos.y
            THEN true
            WHEN moves.special_flag = 'C' AND
                 moves.chessman_dep = pos.chessman AND
                 moves.color_dep    = pos.color    AND
                 moves.from_x_dep   = pos.x        AND
                 moves.from_y_dep   = pos.y
            THEN true
            ELSE false END AS moved_flag,
       moves.castling_black_long,
       moves.castling_black_short,
       moves.castling_white_long,
       moves.castling_white_short,
       moves.is_castling_black_long,
       moves.is_castling_black_short,
       moves.is_castling_white_long,
       moves.is_castling_white_short
FROM stage13 AS moves
     INNER JOIN positions AS pos
       ON moves.gameuuid = pos.gameuuid AND
          moves.movecnt  = pos.movecnt
WHERE ( NOT -- capture chessman:
        ( pos.x = moves.to_x AND
          pos.y = moves.to_y ) ) AND ( NOT
        -- en passant:
        ( moves.special_flag = 'P' AND
          moves.color_dep    = pos.color AND
          moves.chessman_dep = pos.chessman AND
          moves.to_x_dep     = pos.x AND
          moves.to_y_dep     = pos.y ) )
