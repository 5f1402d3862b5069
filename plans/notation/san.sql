-- Stage `san`: the notation of every legal move: UCI (rule `uci` of plans/rules/: 'e2e4',
-- 'e7e8q'; castling as the king's move 'e1g1' in standard chess, as the king taking its own
-- rook 'e1h1' in Chess960, the position's `chess960` mode) and SAN (rule `san`: PGN standard
-- §8.2.3, FIDE Laws appendix C; its rivals, the other pieces of the kind that legally reach
-- the target, from all legal moves here), with '+' for check, '#' for checkmate.
-- Reads `move_flags` (position_id, move_code, is_check, is_mate).
-- This is the first of the two SAN writers: `replay_plies` names the one move replay
-- accepted, from its rivals alone, for speed; tests/batch.rs
-- (`replay_plies_equal_full_stage_plies`) checks that both give the same ply rows.
-- The edge of the legal-move path: pieces, kept as codes in the stages before (rule
-- `role_code`), are written as letters here (rule `role_letter`), the colour as the side to
-- move's.
-- Columns: position_id, move_code, color (Utf8: 'w', 'b'), piece (Utf8: the uppercase
--   letter), from_sq, to_sq, promotion, captured (Utf8, nullable: letters), is_capture,
--   is_en_passant, is_castling, cap_sq, rook_from, rook_to (as in legal_moves), then
--   from_name, to_name, uci, san, is_check, is_mate.
WITH rivals AS (
  SELECT l.position_id, l.move_code,
         SUM(CASE WHEN o.from_sq % 8 = l.from_sq % 8 THEN 1 ELSE 0 END) AS same_file,
         SUM(CASE WHEN o.from_sq / 8 = l.from_sq / 8 THEN 1 ELSE 0 END) AS same_rank
  FROM legal_moves l
  JOIN legal_moves o ON o.position_id = l.position_id AND o.to_sq = l.to_sq AND o.piece_code = l.piece_code
  WHERE l.piece_code BETWEEN 1 AND 4 AND o.piece_code BETWEEN 1 AND 4 /* N, B, R, Q */ AND o.from_sq <> l.from_sq
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
       {{square_name(l.from_sq)}} AS from_name, {{square_name(l.to_sq)}} AS to_name,
       {{uci(l.from_sq, l.to_sq, l.is_castling, l.chess960, l.rook_from, l.promotion)}} AS uci,
       -- a rival: a row of `rivals` (same_file, same_rank: the rivals on the file and rank)
       {{san(l.is_castling, l.to_sq, l.piece, l.is_capture, l.from_sq, l.promotion, l.same_file IS NOT NULL, l.same_file > 0, l.same_rank > 0)}}
       || CASE WHEN l.is_mate THEN '#' WHEN l.is_check THEN '+' ELSE '' END AS san,
       COALESCE(l.is_check, false) AS is_check,
       COALESCE(l.is_mate, false) AS is_mate
FROM (
  SELECT l.*, pos.chess960, {{color_letter(pos.white_to_move)}} AS color,
         {{role_letter(l.piece_code)}} AS piece, {{role_letter(l.promotion_code)}} AS promotion,
         {{role_letter(l.captured_code)}} AS captured
  FROM positions pos
  JOIN (
    SELECT l.*, n.same_file, n.same_rank, n.is_check, n.is_mate
    FROM notes n
    RIGHT JOIN legal_moves l ON n.position_id = l.position_id AND n.move_code = l.move_code
  ) l ON pos.position_id = l.position_id
) l
