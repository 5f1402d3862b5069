-- Stage `castling` (seed +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl): castlings of the side to
-- move that are legal (FIDE art. 3.8.2; Chess960: the Laws' Guidelines II): the right is
-- still held (the `castling` set holds the rook's square; it is lost when the king or that
-- rook moves, or the rook is captured on its square: `castling_loss`), the squares between
-- king and rook and their targets are empty but for the two of them, the king is not in
-- check, does not cross an attacked square and does not land on one, and no enemy rook or
-- queen stands behind the castling rook on the rank, where the rook hides the king's target
-- (one AND each against `castling_rules`' masks; `threats.attacked` sees through the king).
-- Written once: `castling_rules` is the rule; this stage and `replay_moves` (which tests the
-- king's squares on the board after castling instead) both read it.
-- Columns: position_id, from_sq, to_sq, rook_from, rook_to.
SELECT pos.position_id, c.king_from AS from_sq, c.king_to AS to_sq, c.rook_from, c.rook_to
FROM positions pos
JOIN boards b ON b.position_id = pos.position_id
JOIN castling_rules c ON c.white = pos.white_to_move AND c.king_from = b.king_sq
JOIN threats t ON t.position_id = pos.position_id
WHERE pos.castling & c.rook_from_bit <> 0
  AND b.occupied & c.empty_mask = 0
  AND t.attacked & c.safe_mask = 0
  AND b.enemy & (b.rooks | b.queens) & c.shield_mask = 0
