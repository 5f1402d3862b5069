-- Data quality: the games with an illegal or unreadable move, where (the 1-based ply) and
-- how many plies were legal before it.
SELECT game_index, white, black, plies, first_illegal_ply
FROM read_pgn('tests/data/pgn/queries.pgn')
WHERE first_illegal_ply IS NOT NULL
ORDER BY game_index;
