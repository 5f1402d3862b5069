-- Results by opening (ECO code) and rating bucket (the players' mean Elo, in bands of 200):
-- games, white wins, draws, black wins.
SELECT eco,
       CAST((white_elo + black_elo) / 2 / 200 * 200 AS BIGINT) AS rating_bucket,
       count(*) AS games,
       sum(CASE WHEN result = '1-0' THEN 1 ELSE 0 END) AS white_wins,
       sum(CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END) AS draws,
       sum(CASE WHEN result = '0-1' THEN 1 ELSE 0 END) AS black_wins
FROM read_pgn('tests/data/pgn/queries.pgn')
WHERE eco IS NOT NULL AND white_elo IS NOT NULL AND black_elo IS NOT NULL
GROUP BY 1, 2
ORDER BY eco, rating_bucket;
