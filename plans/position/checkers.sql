-- Stage `checkers` (FIDE art. 3.9: a king attacked by an enemy piece is in check;
-- python-chess `board.checkers()`): the enemy pieces whose attacking ray of `piece_rays`
-- ends on the king of the side to move with no piece between (as `threats` finds them, one
-- ray per piece, without building every attack of `piece_attacks`).
-- Columns: position_id, checker_sq (Int32), checker_color ('w'/'b'), checker_piece (Utf8).
SELECT p.position_id, p.square AS checker_sq, {{color_letter(p.white)}} AS checker_color,
       {{role_letter(p.kind)}} AS checker_piece
FROM boards b
JOIN placed p ON p.position_id = b.position_id AND NOT p.own
JOIN piece_rays r ON r.piece_key = p.piece_key AND r.to_sq = b.king_sq
WHERE r.attacks AND r.between_mask & b.occupied = 0
