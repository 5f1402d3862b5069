-- Duplicate games by final position: final positions (Polyglot key) reached by more than
-- one game, with the games.
SELECT position_key(final_fen) AS final_key, count(*) AS games,
       min(game_index) AS first_game, max(game_index) AS last_game
FROM read_pgn('tests/data/pgn/queries.pgn')
WHERE final_fen IS NOT NULL
GROUP BY 1
HAVING count(*) > 1
ORDER BY first_game;
