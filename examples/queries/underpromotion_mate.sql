-- Underpromotions that mate: a pawn promoted to a knight, bishop or rook with checkmate,
-- the move before it (LAG), and the status had the pawn become a queen instead
-- (position_status of fen_after(fen_before, the move with a queen)). In
-- tests/data/pgn/patterns.pgn: game 18 (63.h8=R#) and game 19 (60...g1=R#). Not returned:
-- game 20 (35.g8=Q#, a queen) and game 21 (19.fxe8=N+, no mate).
SELECT game_index, ply, color, move_number, previous_move, san, promotion,
       position_status(fen_after(fen_before, substr(uci, 1, 4) || 'q')) AS queen_instead
FROM (
  SELECT game_index, ply, color, move_number, san, uci, promotion, is_checkmate, fen_before,
         lag(san) OVER (PARTITION BY game_index ORDER BY ply) AS previous_move
  FROM read_plies('tests/data/pgn/patterns.pgn')
) t
WHERE promotion IN ('N', 'B', 'R') AND is_checkmate
ORDER BY game_index, ply;
