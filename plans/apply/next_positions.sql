-- Stage `next_positions` (seed +next, the DEMO_CHESS_GAME update): the state after each move
-- of `chosen_moves` (a null move only passes the turn): side to move flips; a castling right
-- is lost when its king or rook leaves its square or the rook is captured there (FIDE art.
-- 3.8.2.1); the en passant square is the square a pawn's double step passed over (art.
-- 3.7.4; writers show it only when a capture there is legal); the halfmove clock restarts
-- after a pawn move or a capture (art. 9.3) and the fullmove number grows after Black moves.
-- Columns: the columns of `positions`, position_id being chosen_moves.child_id.
SELECT m.child_id AS position_id,
       CASE WHEN p.side_to_move = 'w' THEN 'b' ELSE 'w' END AS side_to_move,
       p.white_kingside AND NOT (m.from_sq IN (4, 7) OR m.to_sq = 7) AS white_kingside,
       p.white_queenside AND NOT (m.from_sq IN (4, 0) OR m.to_sq = 0) AS white_queenside,
       p.black_kingside AND NOT (m.from_sq IN (60, 63) OR m.to_sq = 63) AS black_kingside,
       p.black_queenside AND NOT (m.from_sq IN (60, 56) OR m.to_sq = 56) AS black_queenside,
       CASE WHEN m.piece = 'P' AND m.to_sq - m.from_sq IN (16, -16) THEN (m.from_sq + m.to_sq) / 2 END AS ep_square,
       CASE WHEN m.piece = 'P' OR m.captured IS NOT NULL THEN 0 ELSE p.halfmove_clock + 1 END AS halfmove_clock,
       p.fullmove_number + CASE WHEN p.side_to_move = 'b' THEN 1 ELSE 0 END AS fullmove_number
FROM chosen_moves m
JOIN positions p ON p.position_id = m.position_id
