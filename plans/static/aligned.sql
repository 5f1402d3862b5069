-- Static table `aligned`: every ordered pair of distinct squares (a, b) on one rank or file
-- (kind 'orthogonal', the lines of rooks and queens) or on one diagonal (kind 'diagonal',
-- bishops and queens), FIDE art. 3.2-3.4.
SELECT a.square AS a, b.square AS b,
       CASE WHEN a.file = b.file OR a.rank = b.rank THEN 'orthogonal' ELSE 'diagonal' END AS kind
FROM squares a CROSS JOIN squares b
WHERE a.square <> b.square
  AND (a.file = b.file OR a.rank = b.rank
       OR a.file - b.file = a.rank - b.rank OR a.file - b.file = b.rank - a.rank)
