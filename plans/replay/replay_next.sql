-- Stage `replay_next` (seed +next, on square sets): the state after each accepted move of
-- `replay_verdicts`. Every set loses the squares the move empties and its target square;
-- then the moved piece (or the promotion piece) enters the target and a castling rook its
-- new square. Side to move, castling rights (FIDE art. 3.8.2.1: the move's `castling_lost`,
-- which `piece_rays` and `castling_rules` take from `castling_loss` and the target square by
-- rule `rights_lost`; a captured king's side's), en passant square (art. 3.7.4) and clocks (art. 9.3) change by rule
-- `after_move` (plans/rules/), as in `next_positions`; this stage works on square sets,
-- `next_positions` on the `positions` rows of the full legal-move stages.
-- Columns: the columns of `replay_states`.
WITH chosen AS (
  SELECT m.position_id, m.piece_code, m.from_sq, m.to_sq, m.is_capture, m.to_bit, m.rook_to_bit,
         m.castling_lost,
         -- the code of the piece that stands on the target (rule `role_code`)
         COALESCE(m.promotion_code, m.piece_code) AS placed,
         m.vacated | m.to_bit AS cleared
  FROM {{replay_accepted}}
)
SELECT s.position_id,
       {{after_move(s.white_to_move, s.castling, c.castling_lost, s.chess960, c.piece_code = 0, c.from_sq, c.to_sq, c.is_capture, s.halfmove_clock, s.fullmove_number, c.to_bit & s.kings & CASE WHEN s.white_to_move THEN s.black ELSE s.white END <> 0)}},
       (s.white - (s.white & c.cleared))
         | (c.to_bit | c.rook_to_bit) * CAST(s.white_to_move AS BIGINT UNSIGNED) AS white,
       (s.black - (s.black & c.cleared))
         | (c.to_bit | c.rook_to_bit) * CAST(NOT s.white_to_move AS BIGINT UNSIGNED) AS black,
       (s.pawns - (s.pawns & c.cleared)) | c.to_bit * CAST(c.placed = 0 AS BIGINT UNSIGNED) AS pawns,
       (s.knights - (s.knights & c.cleared)) | c.to_bit * CAST(c.placed = 1 AS BIGINT UNSIGNED) AS knights,
       (s.bishops - (s.bishops & c.cleared)) | c.to_bit * CAST(c.placed = 2 AS BIGINT UNSIGNED) AS bishops,
       (s.rooks - (s.rooks & c.cleared)) | c.to_bit * CAST(c.placed = 3 AS BIGINT UNSIGNED)
         | c.rook_to_bit AS rooks,
       (s.queens - (s.queens & c.cleared)) | c.to_bit * CAST(c.placed = 4 AS BIGINT UNSIGNED) AS queens,
       (s.kings - (s.kings & c.cleared)) | c.to_bit * CAST(c.placed = 5 AS BIGINT UNSIGNED) AS kings
FROM chosen c
JOIN replay_states s ON s.position_id = c.position_id
