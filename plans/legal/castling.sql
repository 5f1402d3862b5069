-- Stage `castling` (seed +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl): castlings of the side to
-- move that are legal (FIDE art. 3.8.2): the right is still held (it is lost when the king
-- or that rook moves, or the rook is captured on its square: see `next_positions`), every
-- square between king and rook is empty, and the king is not in check, does not cross an
-- attacked square and does not land on one (one AND each against `castling_rules`' masks).
-- Columns: position_id, color, from_sq, to_sq, rook_from, rook_to.
SELECT pos.position_id, c.color, c.king_from AS from_sq, c.king_to AS to_sq, c.rook_from, c.rook_to
FROM positions pos
JOIN castling_rules c ON c.color = pos.side_to_move
JOIN boards b ON b.position_id = pos.position_id
JOIN threats t ON t.position_id = pos.position_id
WHERE CASE c.castling_right WHEN 'K' THEN pos.white_kingside WHEN 'Q' THEN pos.white_queenside
                            WHEN 'k' THEN pos.black_kingside ELSE pos.black_queenside END
  AND b.occupied & c.empty_mask = 0
  AND t.attacked & c.safe_mask = 0
