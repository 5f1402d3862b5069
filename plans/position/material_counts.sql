-- Stage `material_counts`: per position, how many pieces of each kind each side has: the
-- squares of each side's set of each kind in `replay_states` (the board as square sets),
-- counted by rule `popcount`. Read by `imbalances` and `material_matches`.
-- Columns: position_id, white_to_move (Boolean), white_pawns, white_knights, white_bishops,
--   white_rooks, white_queens, white_kings, black_pawns … black_kings (Int64).
WITH sets AS (
  SELECT position_id, white_to_move,
         white & pawns AS wp, white & knights AS wn, white & bishops AS wb, white & rooks AS wr, white & queens AS wq, white & kings AS wk,
         black & pawns AS bp, black & knights AS bn, black & bishops AS bb, black & rooks AS br, black & queens AS bq, black & kings AS bk
  FROM replay_states
)
SELECT position_id, white_to_move,
       CAST({{popcount(wp)}} AS BIGINT) AS white_pawns,
       CAST({{popcount(wn)}} AS BIGINT) AS white_knights,
       CAST({{popcount(wb)}} AS BIGINT) AS white_bishops,
       CAST({{popcount(wr)}} AS BIGINT) AS white_rooks,
       CAST({{popcount(wq)}} AS BIGINT) AS white_queens,
       CAST({{popcount(wk)}} AS BIGINT) AS white_kings,
       CAST({{popcount(bp)}} AS BIGINT) AS black_pawns,
       CAST({{popcount(bn)}} AS BIGINT) AS black_knights,
       CAST({{popcount(bb)}} AS BIGINT) AS black_bishops,
       CAST({{popcount(br)}} AS BIGINT) AS black_rooks,
       CAST({{popcount(bq)}} AS BIGINT) AS black_queens,
       CAST({{popcount(bk)}} AS BIGINT) AS black_kings
FROM sets
