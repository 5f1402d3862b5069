-- Rook endings (each side a king, one rook and pawns) reached with one side a pawn up
-- (imbalance(fen_after) 'Pv': White, 'vP': Black): the first such ply of each game
-- (ROW_NUMBER), how many plies of the game stood so (COUNT OVER the game), and how the game
-- ended (read_pgn's Result tag and final status). In tests/data/pgn/patterns.pgn: games 6
-- (drawn), 7 and 21 (won by the side a pawn up); game 8's rook ending has equal pawns and is
-- not returned.
WITH up AS (
  SELECT game_index, ply, imbalance(fen_after) AS imbalance,
         row_number() OVER (PARTITION BY game_index ORDER BY ply) AS nth,
         count(*) OVER (PARTITION BY game_index) AS plies_pawn_up
  FROM read_plies('tests/data/pgn/patterns.pgn')
  WHERE white_rooks = 1 AND black_rooks = 1
    AND white_queens = 0 AND black_queens = 0 AND white_bishops = 0 AND black_bishops = 0
    AND white_knights = 0 AND black_knights = 0
    AND imbalance(fen_after) IN ('Pv', 'vP')
)
SELECT u.game_index, u.ply AS first_ply, u.imbalance,
       CASE WHEN u.imbalance = 'Pv' THEN 'white' ELSE 'black' END AS pawn_up,
       u.plies_pawn_up, g.plies, g.result, g.final_status
FROM up u
JOIN read_pgn('tests/data/pgn/patterns.pgn') g ON g.game_index = u.game_index
WHERE u.nth = 1
ORDER BY u.game_index;
