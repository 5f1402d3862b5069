-- Longest check streaks: for each game the longest run of consecutive moves of one side
-- that all give check (is_check; runs found as the difference of two ROW_NUMBERs over the
-- side's moves), the three games with the longest. In tests/data/pgn/patterns.pgn: games 14
-- (14 checks by White), 15 (13) and 16 (12); game 17, with 15 checks by White in streaks of
-- at most 5, is not returned.
WITH moves AS (
  SELECT game_index, color, ply, is_check,
         row_number() OVER (PARTITION BY game_index, color ORDER BY ply)
           - row_number() OVER (PARTITION BY game_index, color, is_check ORDER BY ply) AS run
  FROM read_plies('tests/data/pgn/patterns.pgn')
),
streaks AS (
  SELECT game_index, color, min(ply) AS first_ply, max(ply) AS last_ply, count(*) AS checks
  FROM moves
  WHERE is_check
  GROUP BY game_index, color, run
),
longest AS (
  SELECT game_index, color, first_ply, last_ply, checks,
         row_number() OVER (PARTITION BY game_index ORDER BY checks DESC, first_ply) AS nth
  FROM streaks
)
SELECT l.game_index, g.white, g.black, l.color, l.first_ply, l.last_ply, l.checks
FROM longest l
JOIN read_pgn('tests/data/pgn/patterns.pgn') g ON g.game_index = l.game_index
WHERE l.nth = 1
ORDER BY l.checks DESC, l.game_index
LIMIT 3;
