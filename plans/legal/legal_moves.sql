-- Stage `legal_moves` (seed +stage12, +stage13, +next's legality test): the pseudo-legal moves
-- that do not leave the own king attacked (FIDE art. 3.9, 3.10), plus legal castlings, with
-- promotions expanded to all four pieces (art. 3.7.5.1). Each test is an AND against the
-- position's `threats` square sets:
--   king moves      : the target is not attacked (attacks see through the king);
--   other moves     : in double check none; in single check only onto the `evasion` squares
--                     (capture the checker or block its line); a pinned piece stays on the
--                     line through its king (the three squares collinear);
--   en passant      : both pawns leave their squares, so no enemy piece may attack the king
--                     across the board as it is after the capture (the rank pin of
--                     art. 3.7.4 included).
-- En passant legality is decided on a second path, for speed: replay (`replay_moves`, its
-- `ep_probe` rows) tests it with the attack test it makes for every replayed move, on one row
-- per game, without this stage's joins. tests/stages.rs
-- (`en_passant_legality_agrees_between_full_stages_and_replay`) checks on 1,500 positions
-- after a double step that both paths and shakmaty agree.
-- Pieces are codes (rule `role_code`: P 0, N 1, B 2, R 3, Q 4, K 5); `san` writes their
-- letters. Every move is the side to move's.
-- Columns: position_id, move_code (from_sq + 64 * to_sq + 4096 * promotion_index, unique per
--          position; for castling the rook's square stands for to_sq, king takes own rook as
--          in Chess960 UCI, since a Chess960 king may castle onto a square it can also step
--          to), piece_code, from_sq, to_sq, promotion_code (NULL unless promoting),
--          captured_code (NULL unless capturing), is_capture, is_en_passant, is_castling,
--          cap_sq, rook_from, rook_to.
WITH plain AS (
  SELECT m.position_id, m.piece_code, m.from_sq, m.to_sq, m.captured_code, m.cap_sq
  FROM threats t
  JOIN pseudo_moves m ON m.position_id = t.position_id
  WHERE NOT m.is_en_passant
    AND CASE WHEN m.piece_code = 5 /* K */
             THEN t.attacked & m.to_bit = 0
             ELSE t.n_checkers <= 1
              AND (t.n_checkers = 0
                   OR t.evasion & m.to_bit <> 0)
              AND (t.pinned & m.from_bit = 0
                   OR (m.from_sq % 8 - t.king_sq % 8) * (m.to_sq / 8 - t.king_sq / 8)
                    = (m.from_sq / 8 - t.king_sq / 8) * (m.to_sq % 8 - t.king_sq % 8))
        END
),
en_passant AS (
  SELECT m.position_id, m.from_sq, m.to_sq, m.cap_sq, m.from_bit, m.to_bit, t.king_sq
  FROM threats t
  JOIN pseudo_moves m ON m.position_id = t.position_id
  WHERE m.is_en_passant
),
en_passant_exposed AS (
  -- an enemy piece other than the captured pawn attacks the king once both pawns have moved
  SELECT DISTINCT e.position_id, e.from_sq
  FROM en_passant e
  JOIN boards b ON b.position_id = e.position_id
  JOIN placed x ON x.position_id = e.position_id AND NOT x.own AND x.square <> e.cap_sq
  JOIN piece_rays r ON r.piece_key = x.piece_key AND r.to_sq = e.king_sq
  WHERE r.attacks
    AND (b.occupied - e.from_bit - (CAST(1 AS BIGINT UNSIGNED) << CAST(e.cap_sq AS BIGINT UNSIGNED)) + e.to_bit)
        & r.between_mask = 0
),
moves AS (
  SELECT position_id, piece_code, from_sq, to_sq, captured_code, cap_sq,
         false AS is_en_passant, false AS is_castling,
         CAST(NULL AS INT) AS rook_from, CAST(NULL AS INT) AS rook_to
  FROM plain
  UNION ALL
  SELECT e.position_id, CAST(0 /* P */ AS INT), e.from_sq, e.to_sq, CAST(0 /* P */ AS INT), e.cap_sq, true, false,
         CAST(NULL AS INT), CAST(NULL AS INT)
  FROM en_passant e
  LEFT ANTI JOIN en_passant_exposed x ON x.position_id = e.position_id AND x.from_sq = e.from_sq
  UNION ALL
  SELECT position_id, CAST(5 /* K */ AS INT), from_sq, to_sq, CAST(NULL AS INT), CAST(NULL AS INT), false, true,
         rook_from, rook_to
  FROM castling
)
SELECT m.position_id,
       CAST(m.from_sq + 64 * COALESCE(m.rook_from, m.to_sq) + 4096 * pr.promotion_index AS INT) AS move_code,
       m.piece_code, m.from_sq, m.to_sq, pr.promotion_code, m.captured_code,
       m.captured_code IS NOT NULL AS is_capture, m.is_en_passant, m.is_castling,
       m.cap_sq, m.rook_from, m.rook_to
FROM moves m
JOIN promotions pr ON pr.promotes = (m.piece_code = 0 AND (m.to_sq >= 56 OR m.to_sq < 8))
