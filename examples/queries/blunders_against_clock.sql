-- Evaluation swings of at least 200 centipawns (blunders) against the time left on the
-- mover's clock: the ply, the move, the evaluations before and after (White's view).
SELECT game_index, ply, san, eval_before, eval_cp AS eval_after, CAST(clock_s AS BIGINT) AS clock_s
FROM (
  SELECT game_index, ply, san, eval_cp, clock_s,
         lag(eval_cp) OVER (PARTITION BY game_index ORDER BY ply) AS eval_before
  FROM read_plies('tests/data/pgn/queries.pgn')
) t
WHERE abs(eval_cp - eval_before) >= 200
ORDER BY game_index, ply;
