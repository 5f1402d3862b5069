-- Static table `lines`: for every pair of squares in `aligned`, the squares strictly between
-- them (`mid` is NULL for adjacent squares: one row, no square between).
-- Used for pins, check blocking, discovered checks and en passant exposure (FIDE art. 3.9).
-- Seed: the stage CTEs test blocking square by square; this table replaces those rules.
WITH pairs AS (
  SELECT l.a, l.b, l.slider, a.file AS a_file, a.rank AS a_rank, b.file AS b_file, b.rank AS b_rank
  FROM aligned l
  JOIN squares a ON a.square = l.a
  JOIN squares b ON b.square = l.b
)
SELECT l.a, l.b, l.slider, m.square AS mid
FROM pairs l
LEFT JOIN squares m
  -- m lies strictly between a and b on their line
  ON m.square <> l.a AND m.square <> l.b
 AND (m.file - l.a_file) * (l.b_rank - l.a_rank) = (m.rank - l.a_rank) * (l.b_file - l.a_file)
 AND m.file BETWEEN LEAST(l.a_file, l.b_file) AND GREATEST(l.a_file, l.b_file)
 AND m.rank BETWEEN LEAST(l.a_rank, l.b_rank) AND GREATEST(l.a_rank, l.b_rank)
