-- Static table `aligned`: every ordered pair of distinct squares (a, b) on one rank or file
-- (the lines of rooks and queens) or on one diagonal (bishops and queens), FIDE art. 3.2-3.4.
-- Columns: a, b (Int32 squares), slider (Int32: the code of rule `role_code` of the piece
-- other than the queen that moves along the line: 3, a rook, on a rank or file; 2, a bishop,
-- on a diagonal).
SELECT a.square AS a, b.square AS b,
       CAST(CASE WHEN a.file = b.file OR a.rank = b.rank THEN 3 ELSE 2 END AS INT) AS slider
FROM squares a CROSS JOIN squares b
WHERE a.square <> b.square
  AND (a.file = b.file OR a.rank = b.rank
       OR a.file - b.file = a.rank - b.rank OR a.file - b.file = b.rank - a.rank)
