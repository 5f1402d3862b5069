-- Stage `replay_verdicts`: per game of `replay_moves`, whether its token stands for exactly
-- one legal move (FIDE art. 3.9, and art. 3.8.2.2 for castling's transit squares; two or
-- more legal moves = ambiguous, PGN standard §8.2.3.4) and whether the position has a legal
-- en passant capture (whether the move resets the halfmove clock is `replay_next`'s
-- halfmove_clock, rule `after_move`); for `replay_plies`, the squares from which the token's kind of piece
-- legally reaches its target (the `move` and `rival` rows not attacked: SAN disambiguation).
-- Games whose token gave no rows are missing.
-- Columns: position_id, accepted, ep_legal (Boolean), kind_from (UInt64, NULL when
--   none).
-- (`role` codes: 0 move, 1 rival, 2 transit, 3 ep_probe)
SELECT position_id,
       SUM(CASE WHEN role = 0 /* move */ AND NOT attacked THEN 1 ELSE 0 END) = 1
         AND NOT bool_or(role = 2 /* transit */ AND attacked) AS accepted,
       bool_or(role = 3 /* ep_probe */ AND NOT attacked) AS ep_legal,
       bit_or(CASE WHEN role <= 1 /* move, rival */ AND NOT attacked
                   THEN CAST(1 AS BIGINT UNSIGNED) << CAST(from_sq AS BIGINT UNSIGNED) END) AS kind_from
FROM replay_moves
GROUP BY position_id
