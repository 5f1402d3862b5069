-- Static table `promotions`: what a pawn move becomes (FIDE art. 3.7.5.1): a pawn reaching
-- its last rank (promotes = true) is exchanged for a queen, rook, bishop or knight; any
-- other move keeps its piece (promotion_code NULL). `promotion_code` is the new piece's code
-- (rule `role_code`: N 1, B 2, R 3, Q 4), and numbers them for move codes (`promotion_index`,
-- 0 without promotion).
-- Seed: the seed only promotes to a queen (stage with chessman = queen); ours has all four.
SELECT column1 AS promotes, CAST(column2 AS INT) AS promotion_code, CAST(column3 AS INT) AS promotion_index
FROM (VALUES (false, NULL, 0), (true, 1, 1), (true, 2, 2), (true, 3, 3), (true, 4, 4))
