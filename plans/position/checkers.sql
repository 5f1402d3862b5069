-- Stage `checkers` (FIDE art. 3.9: a king attacked by an enemy piece is in check;
-- python-chess `board.checkers()`): the pieces of `piece_attacks` that attack the king of
-- the side to move.
-- Columns: position_id, checker_sq (Int32), checker_color ('w'/'b'), checker_piece (Utf8).
SELECT a.position_id, a.square AS checker_sq, a.color AS checker_color, a.piece AS checker_piece
FROM boards b
JOIN piece_attacks a ON a.position_id = b.position_id
WHERE a.target_sq = b.king_sq AND a.color <> b.side_to_move
