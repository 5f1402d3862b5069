-- Stage `attacked` (seed +stage9 "king in check" test, generalised): every square the side
-- NOT to move attacks, seen through the own king (FIDE art. 3.1, 3.9). A king may not move
-- to such a square, nor castle from, through or into one.
-- Columns: position_id, square.
SELECT DISTINCT position_id, to_sq AS square
FROM reach
WHERE NOT own AND mode <> 'push'
