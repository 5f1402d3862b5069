-- Game length by termination (the Termination tag; plies legally played).
SELECT coalesce(termination, '(none)') AS termination, count(*) AS games,
       min(plies) AS min_plies, max(plies) AS max_plies, sum(plies) AS total_plies
FROM read_pgn('tests/data/pgn/queries.pgn')
GROUP BY 1
ORDER BY termination;
