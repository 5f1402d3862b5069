-- Stage `placed`: every piece with the `piece_rays` join key of its colour, kind and square
-- (one integer instead of three columns, two of them strings), its kind as an integer,
-- and whether it belongs to the side to move.
-- Columns: position_id, square, color, piece, piece_key (Int32), own (Boolean),
--          bit (UInt64, 1 << square), kind (Int32: P 0, N 1, B 2, R 3, Q 4, K 5).
WITH coded AS (
  SELECT p.position_id, p.square, p.color, p.piece,
         {{role_code(p.piece)}} AS kind,
         (p.color = 'w') = pos.white_to_move AS own
  FROM positions pos
  JOIN pieces p ON p.position_id = pos.position_id
)
SELECT position_id, square, color, piece,
       CAST(square * 16 + CASE color WHEN 'w' THEN 0 ELSE 8 END + kind AS INT) AS piece_key,
       own,
       CAST(1 AS BIGINT UNSIGNED) << CAST(square AS BIGINT UNSIGNED) AS bit,
       CAST(kind AS INT) AS kind
FROM coded
