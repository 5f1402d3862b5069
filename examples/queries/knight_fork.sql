-- Knight forks of king and queen: a knight move after which the knight, on its arrival
-- square, attacks both the enemy king and an enemy queen (attacks(fen_after)), with the
-- reply and the mover's next move (LEAD over the game's plies), and whether that next move
-- took a queen. In tests/data/pgn/patterns.pgn: game 0 (12.Nxf6+ Ke7 13.Nxh5) and game 1
-- (18...Ne2+ 19.Kh1 Nxd4); game 2's 12.Nc7+ forks king and rook only and is not returned.
WITH plies AS (
  SELECT game_index, ply, color, san, piece, to_square, fen_after,
         lead(san) OVER w AS reply,
         lead(san, 2) OVER w AS next_move,
         lead(captured, 2) OVER w AS next_captured
  FROM read_plies('tests/data/pgn/patterns.pgn')
  WINDOW w AS (PARTITION BY game_index ORDER BY ply)
),
attacked AS (
  SELECT game_index, ply, color, to_square, unnest(attacks(fen_after)) AS a
  FROM plies
  WHERE piece = 'N'
),
forks AS (
  -- the enemy pieces are lower case after a white move, upper case after a black one
  SELECT game_index, ply,
         min(CASE WHEN lower(a['attacked']) = 'k' THEN a['attacked_square'] END) AS king_square,
         min(CASE WHEN lower(a['attacked']) = 'q' THEN a['attacked_square'] END) AS queen_square
  FROM attacked
  WHERE a['attacker_square'] = to_square
    AND a['attacked'] IN (CASE WHEN color = 'white' THEN 'k' ELSE 'K' END,
                          CASE WHEN color = 'white' THEN 'q' ELSE 'Q' END)
  GROUP BY game_index, ply
)
SELECT p.game_index, p.ply, p.color, p.san, f.king_square, f.queen_square, p.reply, p.next_move,
       coalesce(p.next_captured = 'Q', false) AS queen_taken
FROM forks f
JOIN plies p ON p.game_index = f.game_index AND p.ply = f.ply
WHERE f.king_square IS NOT NULL AND f.queen_square IS NOT NULL
ORDER BY p.game_index, p.ply;
