-- Seed CTE: +stage7 — the position after each candidate move of +stage6: every chessman
-- of the position, moved if it is the mover (a pawn reaching the last rank becomes a
-- queen) or the castling rook, dropped if it stands on the target square (captured) or
-- if it is the pawn named by a 'P' move's dependent move. Seed defect kept: that last
-- rule fires for every pawn capture from rank 5 to rank 6 (white) / rank 4 to rank 3
-- (black): an enemy pawn standing right behind the target square is removed too, whether
-- or not it just made a double step and even when the capture takes another chessman
-- (the "phantom en passant"). Materialised table `stage7` (read four times by +stage8
-- and by +stage9).
--
-- Constants: c_chessman_queen 'Q' (the seed writes the literal 'Q' here);
--   @abap_true / @abap_false -> true / false (moved_flag is BOOLEAN).
-- Translation notes: `~` -> `.`; otherwise verbatim.
SELECT moves.gameuuid, moves.movecnt, moves.color AS move_color,
       moves.chessman AS move_chessman,
       moves.from_x AS move_from_x, moves.from_y AS move_from_y,
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
FROM stage6 AS moves
     INNER JOIN positions AS pos
       ON moves.gameuuid = pos.gameuuid AND
          moves.movecnt  = pos.movecnt
WHERE ( NOT
        ( pos.x = moves.to_x AND pos.y = moves.to_y ) ) AND ( NOT
        ( moves.special_flag = 'P' AND
          moves.color_dep    = pos.color AND
          moves.chessman_dep = pos.chessman AND
          moves.to_x_dep     = pos.x AND
          moves.to_y_dep     = pos.y ) )
