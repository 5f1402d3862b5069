-- Stage `pseudo_moves` (seed +stage1 ... +stage7, +stage10, +stage11): moves of the side to
-- move that obey each piece's movement rules (FIDE art. 3.1-3.7) before king safety is
-- checked: every own piece joined with its rays from `piece_rays`, kept when three ANDs
-- against the position's square sets hold, where the seed walks each path stage by stage:
--   the squares before the target (and a pawn push's target) are empty (`empty_mask`);
--   the target holds no own piece;
--   a pawn capture (`capture_bit`) lands on an enemy piece or on the empty en passant
--   square (art. 3.7.4): not on `boards.no_capture_target`.
-- Castling: `castling`. Pieces are codes (rule `role_code`: P 0, N 1, B 2, R 3, Q 4, K 5);
-- every move is the side to move's.
-- Columns: position_id, piece_code, from_sq, to_sq, captured_code (Int32: the captured
--          piece's code, NULL for a quiet move), is_en_passant, cap_sq (square of the
--          captured piece, NULL for quiet moves; en passant: beside the capturing pawn's
--          start, on the target's file), from_bit, to_bit (UInt64: 1 << from_sq, 1 << to_sq).
SELECT p.position_id, p.kind AS piece_code, p.square AS from_sq, r.to_sq,
       CASE WHEN b.enemy & r.to_bit = 0 THEN CASE WHEN r.capture_bit <> 0 THEN 0 END
            WHEN b.pawns & r.to_bit <> 0 THEN 0
            WHEN b.knights & r.to_bit <> 0 THEN 1
            WHEN b.bishops & r.to_bit <> 0 THEN 2
            WHEN b.rooks & r.to_bit <> 0 THEN 3
            WHEN b.queens & r.to_bit <> 0 THEN 4
            ELSE 5 END AS captured_code,
       r.capture_bit <> 0 AND b.enemy & r.to_bit = 0 AS is_en_passant,
       CASE WHEN b.enemy & r.to_bit <> 0 THEN r.to_sq
            WHEN r.capture_bit <> 0 THEN p.square - p.square % 8 + r.to_sq % 8
       END AS cap_sq,
       p.bit AS from_bit, r.to_bit
FROM boards b
JOIN placed p ON p.position_id = b.position_id AND p.own
JOIN piece_rays r ON r.piece_key = p.piece_key
WHERE b.occupied & r.empty_mask = 0
  AND b.own & r.to_bit = 0
  AND b.no_capture_target & r.capture_bit = 0
