-- Static table `square_masks`: per square, as 64-bit square sets (bit n = square n), where
-- the pieces that could attack it stand (FIDE art. 3.2-3.7): a knight's or a king's move
-- away, diagonally in front of a pawn of either colour, or along one of the eight lines to
-- the board's edge, so that "is this square attacked?" is one join and a few ANDs. Built
-- from the white queen's, knight's and king's rays of `piece_rays`.
-- The lines are named by direction (a1 = 0, h8 = 63): ray_n, ray_e, ray_ne, ray_nw run
-- towards higher squares, where the nearest piece on a line is its lowest set bit; ray_s,
-- ray_w, ray_se, ray_sw run towards lower squares, where it is the highest.
-- white_pawn_mask: the squares diagonally in front of the square for White (where a black
-- pawn attacking a white king there stands); black_pawn_mask: the same for Black.
-- Columns: square (Int32), bit, knight_mask, king_mask, white_pawn_mask, black_pawn_mask,
--          ray_n, ray_e, ray_ne, ray_nw, ray_s, ray_w, ray_se, ray_sw (UInt64).
WITH m AS (
  SELECT from_sq, from_bit, piece, ray % 16 AS dir, to_bit
  FROM piece_rays
  WHERE color = 'w' AND piece IN ('N', 'K', 'Q')
)
SELECT from_sq AS square, from_bit AS bit,
       COALESCE(bit_or(CASE WHEN piece = 'N' THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS knight_mask,
       COALESCE(bit_or(CASE WHEN piece = 'K' THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS king_mask,
       COALESCE(bit_or(CASE WHEN piece = 'K' AND dir IN (4, 7) THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS white_pawn_mask,
       COALESCE(bit_or(CASE WHEN piece = 'K' AND dir IN (5, 6) THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS black_pawn_mask,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 0 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_n,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 1 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_e,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 4 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_ne,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 7 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_nw,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 2 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_s,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 3 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_w,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 5 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_se,
       COALESCE(bit_or(CASE WHEN piece = 'Q' AND dir = 6 THEN to_bit END), CAST(0 AS BIGINT UNSIGNED)) AS ray_sw
FROM m
GROUP BY from_sq, from_bit
