-- Queens won through a pin: after a move, the mover's queen stands pinned to its king
-- (pins(fen_after)) by a rook or bishop, and the opponent takes it on the next ply (LEAD).
-- A queen pinned by the enemy queen and taken is a queen trade, not counted. In
-- tests/data/pgn/patterns.pgn: game 9 (18...hxg5 leaves the queen on c7 pinned by Rc3,
-- 19.Rxc7+) and game 10 (20.Qf1, pinned by Re1, 20...Rxf1#). Not returned: game 11 (20...Qe6
-- pinned by Re1, not taken), game 12 (20...Rg7: a rook pinned by Qf6 and taken, 21.Qxg7#) and
-- game 13 (9.Qe2 pinned by Qe5, 9...Qxe2+: a trade).
WITH plies AS (
  SELECT game_index, ply, color, san, fen_after,
         lead(ply) OVER w AS next_ply,
         lead(san) OVER w AS next_san,
         lead(to_square) OVER w AS next_to,
         lead(captured) OVER w AS next_captured
  FROM read_plies('tests/data/pgn/patterns.pgn')
  WINDOW w AS (PARTITION BY game_index ORDER BY ply)
),
pinned AS (
  SELECT game_index, ply, color, san, next_ply, next_san, next_to, next_captured,
         unnest(pins(fen_after)) AS p
  FROM plies
)
SELECT game_index, ply, color, san, p['pinned_square'] AS queen_square, p['pinner'] AS pinner,
       p['pinner_square'] AS pinner_square, next_ply AS capture_ply, next_san AS capture
FROM pinned
WHERE p['pinned'] = CASE WHEN color = 'white' THEN 'Q' ELSE 'q' END
  AND upper(p['pinner']) IN ('R', 'B')
  AND next_captured = 'Q' AND next_to = p['pinned_square']
ORDER BY game_index, ply;
