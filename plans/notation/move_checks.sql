-- Stage `move_checks`: the legal moves that give check (FIDE art. 3.9; SAN '+' / '#'):
-- directly, by the piece that stands on its target afterwards (the new piece for a promotion,
-- the rook for castling), or by opening a line from another queen, rook or bishop (the
-- captured pawn's square counts for en passant). Lines are recounted with the squares the
-- move empties and fills. Pieces are codes (rule `role_code`: P 0, N 1, B 2, R 3, Q 4).
-- Columns: position_id, move_code.
WITH mv AS (
  SELECT l.position_id, l.move_code, l.from_sq, l.to_sq, l.cap_sq, l.rook_from,
         k.enemy_king_sq AS ksq, k.color_key,
         CASE WHEN l.is_castling THEN 3 /* R */ ELSE COALESCE(l.promotion_code, l.piece_code) END AS chk_code,
         CASE WHEN l.is_castling THEN l.rook_to ELSE l.to_sq END AS chk_sq
  FROM legal_moves l
  JOIN boards k ON k.position_id = l.position_id
),
jumps AS (
  SELECT mv.position_id, mv.move_code
  FROM mv
  JOIN piece_rays r ON r.piece_key = mv.chk_sq * 16 + mv.color_key + mv.chk_code AND r.to_sq = mv.ksq
  WHERE mv.chk_code <= 1 /* P, N */ AND r.attacks
),
candidate_lines AS (
  -- the moved queen, rook or bishop
  SELECT mv.position_id, mv.move_code, mv.from_sq, mv.to_sq, mv.cap_sq, mv.rook_from, mv.ksq, mv.chk_sq AS line_sq
  FROM mv
  JOIN aligned a ON a.a = mv.chk_sq AND a.b = mv.ksq
  WHERE mv.chk_code = 4 OR mv.chk_code = a.slider
  UNION ALL
  -- another of our sliders whose line to the enemy king the move leaves, or the captured en
  -- passant pawn leaves (`king_lines` read once: it is fused into this stage)
  -- (the few lines first: DataFusion hashes the left side, and has no row count of a view)
  SELECT mv.position_id, mv.move_code, mv.from_sq, mv.to_sq, mv.cap_sq, mv.rook_from, mv.ksq, kl.slider_sq
  FROM king_lines kl
  JOIN mv ON mv.position_id = kl.position_id
  JOIN lines l ON l.a = kl.slider_sq AND l.b = kl.king_sq
  WHERE NOT kl.own_king
    AND (l.mid = mv.from_sq OR (l.mid = mv.cap_sq AND mv.cap_sq <> mv.to_sq))
),
open_lines AS (
  SELECT c.position_id, c.move_code
  FROM candidate_lines c
  LEFT JOIN lines l ON l.a = c.line_sq AND l.b = c.ksq
  LEFT JOIN pieces o ON o.position_id = c.position_id AND o.square = l.mid
  GROUP BY c.position_id, c.move_code, c.line_sq
  HAVING SUM(CASE WHEN l.mid IS NULL THEN 0
                  WHEN l.mid = c.to_sq THEN 1
                  WHEN l.mid = c.from_sq OR l.mid = c.cap_sq OR l.mid = c.rook_from THEN 0
                  WHEN o.square IS NOT NULL THEN 1
                  ELSE 0 END) = 0
)
SELECT DISTINCT position_id, move_code FROM (
  SELECT position_id, move_code FROM jumps
  UNION ALL
  SELECT position_id, move_code FROM open_lines
)
