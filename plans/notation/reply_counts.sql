-- Stage `reply_counts`: positions that have at least one legal move, with how many.
-- Columns: child_id (the position), n_replies.
SELECT position_id AS child_id, COUNT(*) AS n_replies FROM legal_moves GROUP BY position_id
