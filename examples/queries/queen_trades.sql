-- Games with a queen trade: a queen captured, and the other queen captured on the next ply.
SELECT game_index, ply - 1 AS first_capture_ply
FROM (
  SELECT game_index, ply, captured,
         lag(captured) OVER (PARTITION BY game_index ORDER BY ply) AS captured_before
  FROM read_plies('tests/data/pgn/queries.pgn')
) t
WHERE captured = 'Q' AND captured_before = 'Q'
ORDER BY game_index, first_capture_ply;
