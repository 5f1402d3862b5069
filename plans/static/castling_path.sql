-- Static table `castling_path`: every castling a side can have (FIDE art. 3.8.2 and, for
-- Chess960, the Laws' Guidelines II): the king on its back rank, a rook of its colour on
-- another square of that rank, on the a-side of the king (`castle_long`: O-O-O, king to the c-file,
-- rook to the d-file) or on its h-side (O-O, king to the g-file, rook to the f-file). Standard
-- chess is the case king on e1/e8, rooks in the corners. Per square of the rank, what castling
-- needs of it:
--   'empty'  : a square between the king and its target or between the rook and its target,
--              or a target, other than the king's and the rook's own squares: must be empty;
--   'safe'   : the king's square, the squares it crosses and its target: must not be
--              attacked (art. 3.8.2.2: not out of, through or into check);
--   'shield' : the square next to the rook on the side away from the king's target, when the
--              rook stands between them (a rook on b1 castling long: a1). The rook hides the
--              king's target from an enemy rook or queen there until it leaves.
-- Seed: +cstl_ws, +cstl_wl, +cstl_bs, +cstl_bl (the four standard castlings only).
-- Columns: white (Boolean: White's castling), castle_long (Boolean), king_from, king_to, rook_from, rook_to, path_sq
--          (Int32, squares a1 = 0), need (Utf8).
WITH sides AS (SELECT column1 AS white, column2 AS rank FROM (VALUES (true, 0), (false, 7))),
files AS (SELECT file FROM squares WHERE rank = 0),
pairs AS (
  SELECT s.white, s.rank, k.file AS king_file, r.file AS rook_file, r.file < k.file AS castle_long,
         CASE WHEN r.file < k.file THEN 2 ELSE 6 END AS king_to_file,
         CASE WHEN r.file < k.file THEN 3 ELSE 5 END AS rook_to_file
  FROM sides s CROSS JOIN files k CROSS JOIN files r
  WHERE k.file <> r.file
),
needs AS (
  SELECT p.*, f.file, n.column1 AS need
  FROM pairs p
  CROSS JOIN files f
  CROSS JOIN (VALUES ('empty'), ('safe'), ('shield')) n
)
SELECT white, castle_long,
       CAST(rank * 8 + king_file AS INT) AS king_from, CAST(rank * 8 + king_to_file AS INT) AS king_to,
       CAST(rank * 8 + rook_file AS INT) AS rook_from, CAST(rank * 8 + rook_to_file AS INT) AS rook_to,
       CAST(rank * 8 + file AS INT) AS path_sq, need
FROM needs
WHERE CASE need
        WHEN 'empty' THEN (file BETWEEN LEAST(king_file, king_to_file) AND GREATEST(king_file, king_to_file)
                           OR file BETWEEN LEAST(rook_file, rook_to_file) AND GREATEST(rook_file, rook_to_file))
                          AND file <> king_file AND file <> rook_file
        WHEN 'safe' THEN file BETWEEN LEAST(king_file, king_to_file) AND GREATEST(king_file, king_to_file)
        ELSE (file - rook_file) * (file - rook_file) = 1
             AND (rook_file - file) * (king_to_file - rook_file) > 0
      END
