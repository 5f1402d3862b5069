-- Next-move statistics from a position (after 1. e4 e5 2. Nf3, whatever the move counters):
-- how often each move was played and how the games ended.
SELECT p.san,
       count(*) AS times,
       sum(CASE WHEN g.result = '1-0' THEN 1 ELSE 0 END) AS white_wins,
       sum(CASE WHEN g.result = '0-1' THEN 1 ELSE 0 END) AS black_wins
FROM read_plies('tests/data/pgn/queries.pgn') p
JOIN read_pgn('tests/data/pgn/queries.pgn') g ON g.game_index = p.game_index
WHERE epd(p.fen_before) = epd('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2')
GROUP BY p.san
ORDER BY times DESC, p.san;
