-- Stage `imbalances` (Scoutfish's `imbalance`): per position, the material one side has more
-- than the other, kind by kind from `material_counts`: White's surplus, `v`, Black's
-- surplus, each as piece letters in the order Q, R, B, N, P repeated by the difference
-- (`PPvN`: White two pawns up, Black a knight up; `v` alone when the material is equal).
-- Kings are never counted.
-- Columns: position_id, imbalance (Utf8).
WITH surplus AS (
  SELECT position_id,
         white_queens - black_queens AS q, white_rooks - black_rooks AS r,
         white_bishops - black_bishops AS b, white_knights - black_knights AS n,
         white_pawns - black_pawns AS p
  FROM material_counts
)
SELECT position_id,
       repeat('Q', greatest(q, 0)) || repeat('R', greatest(r, 0)) || repeat('B', greatest(b, 0))
         || repeat('N', greatest(n, 0)) || repeat('P', greatest(p, 0))
         || 'v'
         || repeat('Q', greatest(-q, 0)) || repeat('R', greatest(-r, 0)) || repeat('B', greatest(-b, 0))
         || repeat('N', greatest(-n, 0)) || repeat('P', greatest(-p, 0)) AS imbalance
FROM surplus
