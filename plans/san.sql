-- Stage `san`: the notation of every legal move: UCI ('e2e4', 'e7e8q', castling as the king's
-- move 'e1g1') and SAN (PGN standard §8.2.3, FIDE Laws appendix C): piece letter; the file,
-- else the rank, else the square of the moving piece when another piece of the same kind can
-- legally reach the same square; 'x' for a capture (a pawn capture names its file); the
-- target; '=Q' for a promotion; 'O-O' / 'O-O-O'; '+' for check, '#' for checkmate.
-- Reads `move_flags` (position_id, move_code, is_check, is_mate).
-- Columns: the columns of legal_moves, then from_name, to_name, uci, san, is_check, is_mate.
WITH rivals AS (
  SELECT l.position_id, l.move_code,
         SUM(CASE WHEN o.from_sq % 8 = l.from_sq % 8 THEN 1 ELSE 0 END) AS same_file,
         SUM(CASE WHEN o.from_sq / 8 = l.from_sq / 8 THEN 1 ELSE 0 END) AS same_rank
  FROM legal_moves l
  JOIN legal_moves o ON o.position_id = l.position_id AND o.to_sq = l.to_sq AND o.piece = l.piece
  WHERE l.piece IN ('N', 'B', 'R', 'Q') AND o.from_sq <> l.from_sq
  GROUP BY l.position_id, l.move_code
)
SELECT l.position_id, l.move_code, l.color, l.piece, l.from_sq, l.to_sq, l.promotion, l.captured,
       l.is_capture, l.is_en_passant, l.is_castling, l.cap_sq, l.rook_from, l.rook_to,
       f.name AS from_name, t.name AS to_name,
       f.name || t.name || COALESCE(lower(l.promotion), '') AS uci,
       CASE
         WHEN l.is_castling THEN CASE WHEN l.to_sq > l.from_sq THEN 'O-O' ELSE 'O-O-O' END
         WHEN l.piece = 'P' THEN
           CASE WHEN l.is_capture THEN substr(f.name, 1, 1) || 'x' ELSE '' END
           || t.name || COALESCE('=' || l.promotion, '')
         ELSE l.piece
           || CASE WHEN r.move_code IS NULL THEN ''
                   WHEN r.same_file = 0 THEN substr(f.name, 1, 1)
                   WHEN r.same_rank = 0 THEN substr(f.name, 2, 1)
                   ELSE f.name END
           || CASE WHEN l.is_capture THEN 'x' ELSE '' END
           || t.name
       END
       || CASE WHEN g.is_mate THEN '#' WHEN g.is_check THEN '+' ELSE '' END AS san,
       COALESCE(g.is_check, false) AS is_check,
       COALESCE(g.is_mate, false) AS is_mate
FROM legal_moves l
JOIN squares f ON f.square = l.from_sq
JOIN squares t ON t.square = l.to_sq
LEFT JOIN rivals r ON r.position_id = l.position_id AND r.move_code = l.move_code
LEFT JOIN move_flags g ON g.position_id = l.position_id AND g.move_code = l.move_code
