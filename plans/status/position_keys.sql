-- Stage `position_keys`: per position, the board as five 64-bit sets (occupied squares,
-- white squares, and three bits of the piece code P=1 N=2 B=3 R=4 Q=5 K=6), with side to
-- move, castling rights and en passant square: equal keys = the same position (FIDE art.
-- 9.2.3, up to the en passant square being capturable). Used to merge transpositions in
-- perft and to count repetitions.
-- Columns: position_id, key_occupied, key_white, key_bit0, key_bit1, key_bit2 (UInt64),
--          side_to_move, castling (UInt64: the rook squares holding a castling right), ep_square.
WITH boards AS (
  SELECT position_id,
    bit_or(bit) AS key_occupied,
    bit_or(CASE WHEN color = 'w' THEN bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS key_white,
    bit_or(CASE WHEN piece IN ('P', 'B', 'Q') THEN bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS key_bit0,
    bit_or(CASE WHEN piece IN ('N', 'B', 'K') THEN bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS key_bit1,
    bit_or(CASE WHEN piece IN ('R', 'Q', 'K') THEN bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS key_bit2
  FROM (SELECT position_id, color, piece,
               CAST(1 AS BIGINT UNSIGNED) << CAST(square AS BIGINT UNSIGNED) AS bit
        FROM pieces)
  GROUP BY position_id
)
SELECT b.position_id, b.key_occupied, b.key_white, b.key_bit0, b.key_bit1, b.key_bit2,
       p.side_to_move, p.castling,
       p.ep_square
FROM boards b JOIN positions p ON p.position_id = b.position_id
