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
  WHERE l.piece IN ('N', 'B', 'R', 'Q') AND o.piece IN ('N', 'B', 'R', 'Q') AND o.from_sq <> l.from_sq
  GROUP BY l.position_id, l.move_code
),
notes AS (
  -- per move with a rival or a check: how it is disambiguated and whether it checks or mates
  SELECT position_id, move_code, MAX(same_file) AS same_file, MAX(same_rank) AS same_rank,
         bool_or(is_check) AS is_check, bool_or(is_mate) AS is_mate
  FROM (SELECT position_id, move_code, same_file, same_rank,
               CAST(NULL AS BOOLEAN) AS is_check, CAST(NULL AS BOOLEAN) AS is_mate
        FROM rivals
        UNION ALL
        SELECT position_id, move_code, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), is_check, is_mate
        FROM move_flags)
  GROUP BY position_id, move_code
)
-- small tables first (DataFusion builds its hash tables from the left input)
SELECT l.position_id, l.move_code, l.color, l.piece, l.from_sq, l.to_sq, l.promotion, l.captured,
       l.is_capture, l.is_en_passant, l.is_castling, l.cap_sq, l.rook_from, l.rook_to,
       sq.from_name, sq.to_name,
       sq.uci_squares || COALESCE(lower(l.promotion), '') AS uci,
       CASE
         WHEN l.is_castling THEN CASE WHEN l.to_sq > l.from_sq THEN 'O-O' ELSE 'O-O-O' END
         WHEN l.piece = 'P' THEN
           CASE WHEN l.is_capture THEN sq.from_file || 'x' || sq.to_name ELSE sq.to_name END
           || COALESCE('=' || l.promotion, '')
         ELSE l.piece
           || CASE WHEN l.same_file IS NULL THEN ''
                   WHEN l.same_file = 0 THEN sq.from_file
                   WHEN l.same_rank = 0 THEN sq.from_rank
                   ELSE sq.from_name END
           || CASE WHEN l.is_capture THEN 'x' ELSE '' END
           || sq.to_name
       END
       || CASE WHEN l.is_mate THEN '#' WHEN l.is_check THEN '+' ELSE '' END AS san,
       COALESCE(l.is_check, false) AS is_check,
       COALESCE(l.is_mate, false) AS is_mate
FROM square_pairs sq
JOIN (
  SELECT l.*, n.same_file, n.same_rank, n.is_check, n.is_mate
  FROM notes n
  RIGHT JOIN legal_moves l ON n.position_id = l.position_id AND n.move_code = l.move_code
) l ON sq.pair = l.move_code % 4096
