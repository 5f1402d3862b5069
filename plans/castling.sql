-- Stage `castling` (seed +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl): castlings of the side to
-- move that are legal (FIDE art. 3.8.2): the right is still held (it is lost when the king
-- or that rook moves, or the rook is captured on its square: see `next_positions`), every
-- square between king and rook is empty, and the king is not in check, does not cross an
-- attacked square and does not land on one.
-- Columns: position_id, color, from_sq, to_sq, rook_from, rook_to.
WITH held AS (
  SELECT pos.position_id, c.castling_right, c.color, c.king_from, c.king_to, c.rook_from, c.rook_to
  FROM positions pos
  JOIN castling_rules c ON c.color = pos.side_to_move
  WHERE CASE c.castling_right WHEN 'K' THEN pos.white_kingside WHEN 'Q' THEN pos.white_queenside
                              WHEN 'k' THEN pos.black_kingside ELSE pos.black_queenside END
),
obstructed AS (
  SELECT h.position_id, h.castling_right
  FROM held h
  JOIN castling_path p ON p.castling_right = h.castling_right
  LEFT JOIN pieces o ON o.position_id = h.position_id AND o.square = p.path_sq
  LEFT JOIN attacked a ON a.position_id = h.position_id AND a.square = p.path_sq
  WHERE (p.need = 'empty' AND o.square IS NOT NULL) OR (p.need = 'safe' AND a.square IS NOT NULL)
)
SELECT h.position_id, h.color, h.king_from AS from_sq, h.king_to AS to_sq, h.rook_from, h.rook_to
FROM held h
LEFT ANTI JOIN obstructed x ON x.position_id = h.position_id AND x.castling_right = h.castling_right
