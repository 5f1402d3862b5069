-- Stage `checkers`: the enemy pieces that attack the king of the side to move (FIDE art. 3.9),
-- with how many there are (two = double check: only king moves are legal).
-- Columns: position_id, checker_sq, checker_piece, n_checkers.
WITH c AS (
  SELECT r.position_id, r.from_sq AS checker_sq, r.piece AS checker_piece
  FROM reach r
  JOIN kings k ON k.position_id = r.position_id AND k.king_sq = r.to_sq
  WHERE NOT r.own AND r.mode <> 'push'
)
SELECT c.position_id, c.checker_sq, c.checker_piece, n.n_checkers
FROM c JOIN (SELECT position_id, COUNT(*) AS n_checkers FROM c GROUP BY position_id) n
  ON n.position_id = c.position_id
