-- Stage `move_flags`: per checking move, whether it mates: the position after it (counted in
-- `reply_counts`, a snapshot of the replies' legal move counts) has no legal move.
-- Columns: position_id, move_code, is_check, is_mate.
SELECT c.position_id, c.move_code, true AS is_check, r.child_id IS NULL AS is_mate
FROM move_checks c
LEFT JOIN reply_counts r ON r.child_id = c.position_id * 32768 + CAST(c.move_code AS BIGINT UNSIGNED)
