-- Stage `next_positions` (seed +next, the DEMO_CHESS_GAME update): the state after each move
-- of `chosen_moves` (a null move only passes the turn): side to move flips; the castling
-- rights (rook squares) lose those `castling_loss` gives for the moving piece and its square,
-- and the target square's (a rook captured there, FIDE art. 3.8.2.1); the en passant square
-- is the square a pawn's double step passed over (art. 3.7.4; writers show it only when a
-- capture there is legal); the halfmove clock restarts after a pawn move or a capture
-- (art. 9.3) and the fullmove number grows after Black moves. `replay_next` applies the
-- same rules to square sets.
-- Columns: the columns of `positions`, position_id being chosen_moves.child_id.
SELECT m.child_id AS position_id,
       CASE WHEN p.side_to_move = 'w' THEN 'b' ELSE 'w' END AS side_to_move,
       p.castling - (p.castling & (COALESCE(l.lost, CAST(0 AS BIGINT UNSIGNED))
                                   | CASE WHEN m.is_null THEN CAST(0 AS BIGINT UNSIGNED)
                                          ELSE CAST(1 AS BIGINT UNSIGNED) << CAST(m.to_sq AS BIGINT UNSIGNED) END)) AS castling,
       p.chess960,
       CASE WHEN m.piece = 'P' AND m.to_sq - m.from_sq IN (16, -16) THEN (m.from_sq + m.to_sq) / 2 END AS ep_square,
       CASE WHEN m.piece = 'P' OR m.captured IS NOT NULL THEN 0 ELSE p.halfmove_clock + 1 END AS halfmove_clock,
       p.fullmove_number + CASE WHEN p.side_to_move = 'b' THEN 1 ELSE 0 END AS fullmove_number
FROM chosen_moves m
JOIN positions p ON p.position_id = m.position_id
LEFT JOIN castling_loss l
  ON l.mover_key = m.from_sq * 16 + CASE WHEN m.color = 'w' THEN 0 ELSE 8 END
     + CASE m.piece WHEN 'P' THEN 0 WHEN 'N' THEN 1 WHEN 'B' THEN 2 WHEN 'R' THEN 3 WHEN 'Q' THEN 4 ELSE 5 END
