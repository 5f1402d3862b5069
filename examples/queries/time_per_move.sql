-- Time spent per move from the [%clk] comments: the clock before the player's previous
-- move minus the clock after this one plus the increment of the TimeControl tag
-- ("300+3"); per game and side (`color`, the mover) the moves timed and the seconds spent.
WITH timed AS (
  SELECT p.game_index, p.color,
         lag(p.clock_s) OVER (PARTITION BY p.game_index, p.color ORDER BY p.ply) - p.clock_s
           + CAST(split_part(g.time_control, '+', 2) AS DOUBLE) AS spent
  FROM read_plies('tests/data/pgn/queries.pgn') p
  JOIN read_pgn('tests/data/pgn/queries.pgn') g ON g.game_index = p.game_index
  WHERE g.time_control LIKE '%+%'
)
SELECT game_index, color AS side,
       count(spent) AS moves_timed, CAST(sum(spent) AS BIGINT) AS seconds_spent
FROM timed
GROUP BY game_index, color
HAVING count(spent) > 0
ORDER BY game_index, side;
