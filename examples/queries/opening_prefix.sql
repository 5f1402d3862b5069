-- Opening prefix match: the games that began 1. e4 c5 (Sicilian), with their ECO code. The
-- moves as written (list `moves`, 1-based) are enough: no rules run (projection pushdown).
SELECT game_index, eco
FROM read_pgn('tests/data/pgn/queries.pgn')
WHERE moves[1] = 'e4' AND moves[2] = 'c5'
ORDER BY game_index;
