-- Stage `placed`: every piece with the `piece_rays` join key of its colour, kind and square
-- (one integer instead of three columns), and whether it belongs to the side to move.
-- Columns: position_id, square, white (Boolean: a White piece), piece_key (Int32), own
--          (Boolean), bit (UInt64, 1 << square), kind (Int32, rule `role_code`: P 0, N 1,
--          B 2, R 3, Q 4, K 5).
SELECT p.position_id, p.square, p.white,
       CAST(p.square * 16 + CASE WHEN p.white THEN 0 ELSE 8 END + p.piece_code AS INT) AS piece_key,
       p.white = pos.white_to_move AS own,
       CAST(1 AS BIGINT UNSIGNED) << CAST(p.square AS BIGINT UNSIGNED) AS bit,
       p.piece_code AS kind
FROM positions pos
JOIN pieces p ON p.position_id = pos.position_id
