-- How the games ended on the board: the status of the last position reached.
SELECT final_status, count(*) AS games
FROM read_pgn('tests/data/pgn/queries.pgn')
GROUP BY final_status
ORDER BY final_status;
