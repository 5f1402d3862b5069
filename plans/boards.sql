-- Stage `boards` (seed +positions): each position's pieces folded into 64-bit square sets
-- (bit n = square n, a1 = 0), so that later stages test emptiness, colour and piece of a
-- square with one AND instead of a join back to `pieces`.
-- Columns: position_id, side_to_move, ep_square, king_sq, enemy_king_sq (Int32: the kings of
--          the side to move and of the other side), and UInt64 sets: occupied, own (the side
--          to move's pieces), enemy, pawns, knights, bishops, rooks, queens, and occupied_xray (occupied without the king of the side to move: the
--          enemy's attacks go through it, so that the king cannot step back along a
--          checking line).
WITH sets AS (
  SELECT p.position_id,
    MAX(CASE WHEN p.piece = 'K' AND p.own THEN p.square END) AS king_sq,
    MAX(CASE WHEN p.piece = 'K' AND NOT p.own THEN p.square END) AS enemy_king_sq,
    bit_or(p.bit) AS occupied,
    bit_or(CASE WHEN p.own THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS own,
    bit_or(CASE WHEN p.own THEN CAST(0 AS BIGINT UNSIGNED) ELSE p.bit END) AS enemy,
    bit_or(CASE WHEN p.piece = 'P' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS pawns,
    bit_or(CASE WHEN p.piece = 'N' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS knights,
    bit_or(CASE WHEN p.piece = 'B' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS bishops,
    bit_or(CASE WHEN p.piece = 'R' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS rooks,
    bit_or(CASE WHEN p.piece = 'Q' THEN p.bit ELSE CAST(0 AS BIGINT UNSIGNED) END) AS queens,
    bit_or(CASE WHEN p.piece = 'K' AND p.own THEN CAST(0 AS BIGINT UNSIGNED)
                ELSE p.bit END) AS occupied_xray
  FROM placed p
  GROUP BY p.position_id
)
SELECT pos.position_id, pos.side_to_move, pos.ep_square, s.king_sq, s.enemy_king_sq,
       s.occupied,
       s.own, s.enemy,
       s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.occupied_xray
FROM positions pos
JOIN sets s ON s.position_id = pos.position_id
