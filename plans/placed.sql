-- Stage `placed`: every piece with the `piece_rays` join key of its colour, kind and square
-- (one integer instead of three columns, two of them strings), and whether it belongs to
-- the side to move.
-- Columns: position_id, square, color, piece, piece_key (Int32), own (Boolean),
--          bit (UInt64, 1 << square).
SELECT p.position_id, p.square, p.color, p.piece,
       CAST(p.square * 16 + CASE p.color WHEN 'w' THEN 0 ELSE 8 END
            + CASE p.piece WHEN 'P' THEN 0 WHEN 'N' THEN 1 WHEN 'B' THEN 2 WHEN 'R' THEN 3 WHEN 'Q' THEN 4 ELSE 5 END
            AS INT) AS piece_key,
       p.color = pos.side_to_move AS own,
       CAST(1 AS BIGINT UNSIGNED) << CAST(p.square AS BIGINT UNSIGNED) AS bit
FROM positions pos
JOIN pieces p ON p.position_id = pos.position_id
