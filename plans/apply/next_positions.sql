-- Stage `next_positions` (seed +next, the DEMO_CHESS_GAME update): the state after each move
-- of `chosen_moves` (a null move only passes the turn), by rule `after_move` of plans/rules/:
-- side to move flips; the castling rights (rook squares) lose those the move ends (rule
-- `rights_lost`: `castling_loss` for the moving piece and its square, and the target
-- square's, a rook captured there, FIDE art. 3.8.2.1; a captured king's side's); the en
-- passant square is the square a
-- pawn's double step passed over (art. 3.7.4; writers show it only when a capture there is
-- legal); the halfmove clock restarts after a pawn move or a capture (art. 9.3) and the
-- fullmove number grows after Black moves. `replay_next` applies the same rules to square
-- sets.
-- Columns: the columns of `positions`, position_id being chosen_moves.child_id.
WITH moved AS (
  SELECT m.child_id, p.white_to_move, p.castling, p.chess960, m.piece_code, m.from_sq, m.to_sq,
         m.captured_code IS NOT NULL AS is_capture, m.captured_code = 5 /* K */ AS takes_king,
         p.halfmove_clock, p.fullmove_number,
         {{rights_lost(l.lost, CASE WHEN m.is_null THEN CAST(0 AS BIGINT UNSIGNED)
                                    ELSE CAST(1 AS BIGINT UNSIGNED) << CAST(m.to_sq AS BIGINT UNSIGNED) END)}} AS castling_lost
  FROM chosen_moves m
  JOIN positions p ON p.position_id = m.position_id
  LEFT JOIN castling_loss l
    ON l.mover_key = m.from_sq * 16 + CASE WHEN p.white_to_move THEN 0 ELSE 8 END + m.piece_code
)
SELECT child_id AS position_id,
       {{after_move(white_to_move, castling, castling_lost, chess960, piece_code = 0, from_sq, to_sq, is_capture, halfmove_clock, fullmove_number, takes_king)}}
FROM moved
