-- Stage `flipped_positions`: the positions of the unresolved `tokens` with the other side to
-- move and no en passant square, to tell a move of the wrong side (error kind wrong_side,
-- shared/data/bad/README.md) from an illegal one. Columns: the columns of `positions`.
SELECT pos.position_id,
       NOT pos.white_to_move AS white_to_move,
       pos.castling, pos.chess960,
       CAST(NULL AS INT) AS ep_square, pos.halfmove_clock, pos.fullmove_number
FROM positions pos
JOIN tokens t ON t.position_id = pos.position_id
