-- Games that reached a given position (the Polyglot key of the position after 1. d4 d5,
-- reached by any move order), with the ply it was first reached at.
SELECT p.game_index, g.white, g.black, min(p.ply) AS first_ply
FROM read_plies('tests/data/pgn/queries.pgn') p
JOIN read_pgn('tests/data/pgn/queries.pgn') g ON g.game_index = p.game_index
WHERE p.position_key = position_key('rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2')
GROUP BY p.game_index, g.white, g.black
ORDER BY p.game_index;
