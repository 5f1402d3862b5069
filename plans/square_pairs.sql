-- Static table `square_pairs`: every (from, to) pair of squares with their names, keyed by
-- `pair` = from_sq + 64 * to_sq (a move code without its promotion part), so that notation
-- needs one join per move instead of two.
-- Columns: pair, from_sq, to_sq (Int32), from_name, to_name, from_file ('a'..'h'),
--          from_rank ('1'..'8'), uci_squares (from_name || to_name) (Utf8).
SELECT CAST(f.square + 64 * t.square AS INT) AS pair, f.square AS from_sq, t.square AS to_sq,
       f.name AS from_name, t.name AS to_name,
       substr(f.name, 1, 1) AS from_file, substr(f.name, 2, 1) AS from_rank,
       f.name || t.name AS uci_squares
FROM squares f
CROSS JOIN squares t
