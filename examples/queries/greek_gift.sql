-- Greek-gift sacrifices: a bishop takes on h7 with check (Black: on h2), and the same
-- side's next move (LEAD by two plies) is a knight check on g5 (Black: on g4), with the reply
-- in between and the game's result. In tests/data/pgn/patterns.pgn: game 3 (20.Bxh7+ Kxh7
-- 21.Ng5+) and game 4 (10...Bxh2+ 11.Kxh2 Ng4+); game 5's 9...Bxh2+ 10.Kxh2 is followed by
-- Qh4+, not a knight check, and is not returned.
WITH plies AS (
  SELECT game_index, ply, color, move_number, san, piece, to_square, is_capture, is_check,
         lead(san) OVER w AS reply,
         lead(san, 2) OVER w AS follow_up,
         lead(piece, 2) OVER w AS follow_piece,
         lead(to_square, 2) OVER w AS follow_square,
         lead(is_check, 2) OVER w AS follow_check
  FROM read_plies('tests/data/pgn/patterns.pgn')
  WINDOW w AS (PARTITION BY game_index ORDER BY ply)
)
SELECT p.game_index, p.ply, p.color, p.move_number, p.san AS sacrifice, p.reply,
       p.follow_up AS knight_check, g.result
FROM plies p
JOIN read_pgn('tests/data/pgn/patterns.pgn') g ON g.game_index = p.game_index
WHERE p.piece = 'B' AND p.is_capture AND p.is_check
  AND p.to_square = CASE WHEN p.color = 'white' THEN 'h7' ELSE 'h2' END
  AND p.follow_piece = 'N' AND p.follow_check
  AND p.follow_square = CASE WHEN p.color = 'white' THEN 'g5' ELSE 'g4' END
ORDER BY p.game_index, p.ply;
