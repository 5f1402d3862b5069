-- Stage `legal_moves` (seed +stage12, +stage13, +next's legality test): the pseudo-legal moves
-- that do not leave the own king attacked (FIDE art. 3.9, 3.10), plus legal castlings, with
-- promotions expanded to all four pieces (art. 3.7.5.1).
--   king moves      : the target is not attacked (attacks see through the king);
--   other moves     : in double check none; in single check only capturing the checker or
--                     blocking its line; a pinned piece stays on its pin line;
--   en passant      : both pawns leave their squares, so the lines through them are
--                     recounted (the rank pin of art. 3.7.4 included).
-- Columns: position_id, move_code (from_sq + 64 * to_sq + 4096 * promotion_index, unique per
--          position), color, piece, from_sq, to_sq, promotion, captured, is_capture,
--          is_en_passant, is_castling, cap_sq, rook_from, rook_to.
WITH check_counts AS (
  SELECT DISTINCT position_id, n_checkers FROM checkers
),
evasions AS (
  SELECT c.position_id, c.checker_sq AS square FROM checkers c WHERE c.n_checkers = 1
  UNION ALL
  SELECT c.position_id, l.mid AS square
  FROM checkers c
  JOIN kings k ON k.position_id = c.position_id
  JOIN lines l ON l.a = c.checker_sq AND l.b = k.king_sq
  WHERE c.n_checkers = 1 AND l.mid IS NOT NULL
),
pins AS (
  SELECT position_id, between_sq AS pinned_sq, slider_sq, king_sq
  FROM king_lines
  WHERE own_king AND n_between = 1 AND between_own
),
-- positions where a move other than the king's may be illegal: in check, or with a pin
restricted AS (
  SELECT position_id FROM check_counts
  UNION
  SELECT position_id FROM pins
),
plain AS (
  -- king moves: not onto an attacked square
  SELECT m.position_id, m.color, m.piece, m.from_sq, m.to_sq, m.captured, m.cap_sq
  FROM pseudo_moves m
  LEFT ANTI JOIN attacked a ON a.position_id = m.position_id AND a.square = m.to_sq
  WHERE m.piece = 'K'
  UNION ALL
  -- other moves where there is no check and no pin: all legal
  SELECT m.position_id, m.color, m.piece, m.from_sq, m.to_sq, m.captured, m.cap_sq
  FROM pseudo_moves m
  LEFT ANTI JOIN restricted r ON r.position_id = m.position_id
  WHERE m.piece <> 'K' AND NOT m.is_en_passant
  UNION ALL
  -- other moves under check or pin: capture or block a single checker, stay on the pin line
  SELECT m.position_id, m.color, m.piece, m.from_sq, m.to_sq, m.captured, m.cap_sq
  FROM restricted r
  JOIN pseudo_moves m ON m.position_id = r.position_id
  LEFT JOIN check_counts n ON n.position_id = m.position_id
  LEFT JOIN pins p ON p.position_id = m.position_id AND p.pinned_sq = m.from_sq
  LEFT JOIN lines pl ON pl.a = p.slider_sq AND pl.b = p.king_sq AND pl.mid = m.to_sq
  LEFT JOIN evasions e ON e.position_id = m.position_id AND e.square = m.to_sq
  WHERE m.piece <> 'K' AND NOT m.is_en_passant
    AND (COALESCE(n.n_checkers, 0) = 0 OR (n.n_checkers = 1 AND e.square IS NOT NULL))
    AND (p.pinned_sq IS NULL OR m.to_sq = p.slider_sq OR pl.mid IS NOT NULL)
),
en_passant AS (
  SELECT position_id, color, from_sq, to_sq, cap_sq FROM pseudo_moves WHERE is_en_passant
),
en_passant_exposed AS (
  -- a queen, rook or bishop line to the own king is empty once both pawns have moved
  SELECT e.position_id, e.from_sq
  FROM en_passant e
  JOIN king_lines kl ON kl.position_id = e.position_id AND kl.own_king
  LEFT JOIN lines l1 ON l1.a = kl.slider_sq AND l1.b = kl.king_sq AND l1.mid = e.from_sq
  LEFT JOIN lines l2 ON l2.a = kl.slider_sq AND l2.b = kl.king_sq AND l2.mid = e.cap_sq
  LEFT JOIN lines l3 ON l3.a = kl.slider_sq AND l3.b = kl.king_sq AND l3.mid = e.to_sq
  WHERE kl.n_between = CASE WHEN l1.mid IS NULL THEN 0 ELSE 1 END
                     + CASE WHEN l2.mid IS NULL THEN 0 ELSE 1 END
                     - CASE WHEN l3.mid IS NULL THEN 0 ELSE 1 END
  UNION ALL
  -- a knight or pawn check that the capture does not remove
  SELECT e.position_id, e.from_sq
  FROM en_passant e
  JOIN checkers c ON c.position_id = e.position_id
  WHERE c.checker_piece IN ('N', 'P') AND c.checker_sq <> e.cap_sq
),
moves AS (
  SELECT position_id, color, piece, from_sq, to_sq, captured, cap_sq,
         false AS is_en_passant, false AS is_castling,
         CAST(NULL AS INT) AS rook_from, CAST(NULL AS INT) AS rook_to
  FROM plain
  UNION ALL
  SELECT e.position_id, e.color, 'P', e.from_sq, e.to_sq, 'P', e.cap_sq, true, false,
         CAST(NULL AS INT), CAST(NULL AS INT)
  FROM en_passant e
  LEFT ANTI JOIN en_passant_exposed x ON x.position_id = e.position_id AND x.from_sq = e.from_sq
  UNION ALL
  SELECT position_id, color, 'K', from_sq, to_sq, CAST(NULL AS VARCHAR), CAST(NULL AS INT), false, true,
         rook_from, rook_to
  FROM castling
)
SELECT m.position_id,
       CAST(m.from_sq + 64 * m.to_sq + 4096 * pr.promotion_index AS INT) AS move_code,
       m.color, m.piece, m.from_sq, m.to_sq, pr.promotion, m.captured,
       m.captured IS NOT NULL AS is_capture, m.is_en_passant, m.is_castling,
       m.cap_sq, m.rook_from, m.rook_to
FROM moves m
JOIN promotions pr ON pr.promotes = (m.piece = 'P' AND (m.to_sq >= 56 OR m.to_sq < 8))
