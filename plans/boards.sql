-- Stage `boards` (seed +positions): each position's pieces folded into 64-bit square sets
-- (bit n = square n, a1 = 0), so that later stages test emptiness, colour and piece of a
-- square with one AND instead of a join back to `pieces`.
-- Columns: position_id, side_to_move, ep_square, king_sq, enemy_king_sq (Int32: the kings of
--          the side to move and of the other side), and UInt64 sets: occupied, white, black,
--          own (the side to move's pieces), enemy, pawns, knights, bishops, rooks, queens,
--          kings, and occupied_xray (occupied without the king of the side to move: the
--          enemy's attacks go through it, so that the king cannot step back along a
--          checking line).
WITH sets AS (
  SELECT p.position_id,
    MAX(CASE WHEN p.piece = 'K' AND p.own THEN p.square END) AS king_sq,
    MAX(CASE WHEN p.piece = 'K' AND NOT p.own THEN p.square END) AS enemy_king_sq,
    bit_or(p.bit) AS occupied,
    bit_or(CASE WHEN p.color = 'w' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS white,
    bit_or(CASE WHEN p.color = 'b' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS black,
    bit_or(CASE WHEN p.piece = 'P' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS pawns,
    bit_or(CASE WHEN p.piece = 'N' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS knights,
    bit_or(CASE WHEN p.piece = 'B' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS bishops,
    bit_or(CASE WHEN p.piece = 'R' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS rooks,
    bit_or(CASE WHEN p.piece = 'Q' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS queens,
    bit_or(CASE WHEN p.piece = 'K' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS kings,
    bit_or(CASE WHEN p.piece = 'K' AND p.own THEN CAST(0 AS BIGINT UNSIGNED)
                ELSE p.bit END) AS occupied_xray
  FROM (SELECT position_id, color, piece, square, own,
               CAST(1 AS BIGINT UNSIGNED) << CAST(square AS BIGINT UNSIGNED) AS bit
        FROM placed) p
  GROUP BY p.position_id
)
SELECT pos.position_id, pos.side_to_move, pos.ep_square, s.king_sq, s.enemy_king_sq,
       s.occupied, s.white, s.black,
       CASE WHEN pos.side_to_move = 'w' THEN s.white ELSE s.black END AS own,
       CASE WHEN pos.side_to_move = 'w' THEN s.black ELSE s.white END AS enemy,
       s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.kings, s.occupied_xray
FROM positions pos
JOIN sets s ON s.position_id = pos.position_id
