-- Stage `checkers` (seed +stage9): the enemy pieces that attack the king of the side to move
-- (FIDE art. 3.9): an enemy piece whose ray from `piece_rays` reaches the king's square with
-- every square before it empty, one row each, for `setup_checks` (which pairs them);
-- `threats` counts them as square sets for the legal moves.
-- Columns: position_id, checker_sq, checker_piece, n_checkers,
--          line_mask (UInt64: the checker's square and the squares between it and the king,
--          where a piece other than the king can end the check).
WITH c AS (
  SELECT b.position_id, p.square AS checker_sq, p.piece AS checker_piece,
         r.between_mask | p.bit AS line_mask
  FROM boards b
  JOIN placed p ON p.position_id = b.position_id AND NOT p.own
  JOIN piece_rays r ON r.piece_key = p.piece_key AND r.to_sq = b.king_sq
  WHERE r.mode <> 'push' AND b.occupied & r.between_mask = 0
)
SELECT c.position_id, c.checker_sq, c.checker_piece, n.n_checkers, c.line_mask
FROM c JOIN (SELECT position_id, COUNT(*) AS n_checkers FROM c GROUP BY position_id) n
  ON n.position_id = c.position_id
