-- Opening prefix match: the games that began 1. e4 c5 (Sicilian), with their ECO code.
SELECT p.game_index, g.eco
FROM read_plies('tests/data/pgn/queries.pgn') p
JOIN read_pgn('tests/data/pgn/queries.pgn') g ON g.game_index = p.game_index
WHERE (p.ply = 1 AND p.san = 'e4') OR (p.ply = 2 AND p.san = 'c5')
GROUP BY p.game_index, g.eco
HAVING count(*) = 2
ORDER BY p.game_index;
