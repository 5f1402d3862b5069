-- Static table `promotions`: what a pawn move becomes (FIDE art. 3.7.5.1): a pawn reaching
-- its last rank (promotes = true) is exchanged for a queen, rook, bishop or knight; any
-- other move keeps its piece (promotion NULL). `promotion_index` numbers them for move codes.
-- Seed: the seed only promotes to a queen (stage with chessman = queen); ours has all four.
SELECT column1 AS promotes, column2 AS promotion, CAST(column3 AS INT) AS promotion_index
FROM (VALUES (false, NULL, 0), (true, 'N', 1), (true, 'B', 2), (true, 'R', 3), (true, 'Q', 4))
