-- Stage `piece_attacks` (FIDE art. 3.2-3.7: the squares a piece attacks; python-chess
-- `board.attacks(square)`): for every piece of both sides, every square it attacks and the
-- piece standing there. The piece's rays of `piece_rays` that attack (every ray but a pawn's
-- push) reach a square when the squares before it are empty (`between_mask`, as in
-- `pseudo_moves`), every piece blocking, kings too; the square's occupant, own or enemy, is
-- attacked (an own piece is defended) and the ray stops there. A pawn attacks its two
-- diagonals whether or not a piece stands on them. Unlike `threats`, which folds the side
-- not to move's attacks into one square set seen through the own king, this stage keeps
-- one row per piece and square, for both sides. The occupant is read from the square sets
-- of `boards`: its colour is the attacker's when the square is in the attacker's side's set.
-- Columns: position_id, square (Int32: the attacking piece's), color ('w'/'b'), piece
--   (K Q R B N P), target_sq (Int32: the attacked square), target_color, target_piece
--   (Utf8, NULL when the square is empty).
SELECT p.position_id, p.square, {{color_letter(p.white)}} AS color, {{role_letter(p.kind)}} AS piece,
       r.to_sq AS target_sq,
       CASE WHEN r.to_bit & b.occupied = 0 THEN NULL
            ELSE {{color_letter(p.white = ((r.to_bit & b.own <> 0) = p.own))}} END AS target_color,
       CASE WHEN r.to_bit & b.occupied = 0 THEN NULL
            WHEN r.to_bit & b.pawns <> 0 THEN 'P'
            WHEN r.to_bit & b.knights <> 0 THEN 'N'
            WHEN r.to_bit & b.bishops <> 0 THEN 'B'
            WHEN r.to_bit & b.rooks <> 0 THEN 'R'
            WHEN r.to_bit & b.queens <> 0 THEN 'Q'
            ELSE 'K' END AS target_piece
FROM boards b
JOIN placed p ON p.position_id = b.position_id
JOIN piece_rays r ON r.piece_key = p.piece_key
WHERE r.attacks AND r.between_mask & b.occupied = 0
