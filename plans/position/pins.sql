-- Stage `pins` (FIDE art. 3.9: a piece that shields its own king from an enemy bishop, rook
-- or queen is absolutely pinned, it may not leave that line; python-chess `board.pin`,
-- `board.is_pinned`): for the king of each side, every enemy line piece whose ray of
-- `piece_rays` ends on that king with exactly one piece between, that piece being the
-- king's own. The squares between are the ray's `between_mask` (as in `threats`, which
-- keeps only the side to move's pins, as a square set); "exactly one piece" is the join of
-- the occupied squares between with a single piece's square of `placed` (a set of two
-- squares equals no one square, an empty one none).
-- Columns: position_id, pinned_sq (Int32), pinned_color ('w'/'b'), pinned_piece, pinner_sq
--   (Int32), pinner_color, pinner_piece (Utf8), king_sq (Int32).
WITH king_lines AS (
  SELECT k.position_id, k.white AS king_white, k.square AS king_sq,
         s.square AS pinner_sq, {{color_letter(s.white)}} AS pinner_color, {{role_letter(s.kind)}} AS pinner_piece,
         b.occupied & r.between_mask AS shields
  FROM boards b
  JOIN placed k ON k.position_id = b.position_id AND k.kind = 5
  JOIN placed s ON s.position_id = k.position_id
  JOIN piece_rays r ON r.piece_key = s.piece_key AND r.to_sq = k.square
  WHERE s.white <> k.white AND s.kind IN (2, 3, 4)
)
SELECT l.position_id, p.square AS pinned_sq, {{color_letter(p.white)}} AS pinned_color,
       {{role_letter(p.kind)}} AS pinned_piece,
       l.pinner_sq, l.pinner_color, l.pinner_piece, l.king_sq
FROM king_lines l
JOIN placed p ON p.position_id = l.position_id AND p.bit = l.shields
WHERE p.white = l.king_white
