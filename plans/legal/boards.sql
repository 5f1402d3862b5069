-- Stage `boards` (seed +positions): each position's pieces folded into 64-bit square sets
-- (bit n = square n, a1 = 0), so that later stages test emptiness, colour and piece of a
-- square with one AND instead of a join back to `pieces`. A set takes the bits of the
-- pieces it holds as `bit * (condition as 0 or 1)`, which DataFusion evaluates faster than
-- a CASE per row.
-- Columns: position_id, white_to_move, ep_square, king_sq, enemy_king_sq (Int32: the kings of
--          the side to move and of the other side), color_key (Int32: 0 when White is to
--          move, 8 when Black: the colour part of the side to move's piece keys, see
--          `placed`), and UInt64 sets: occupied, own (the side
--          to move's pieces), enemy, pawns, knights, bishops, rooks, queens, occupied_xray
--          (occupied without the king of the side to move: the enemy's attacks go through
--          it, so that the king cannot step back along a checking line), ep_bit (the en
--          passant square, 0 if none), no_capture_target (the squares a pawn's capture
--          cannot go to: all but the enemy's pieces and an empty en passant square, so that
--          `pseudo_moves` tests a capture with `no_capture_target & capture_bit = 0`, a test
--          the index lookup makes pair by pair).
WITH sets AS (
  SELECT p.position_id,
    MAX(CASE WHEN p.kind = 5 AND p.own THEN p.square END) AS king_sq,
    MAX(CASE WHEN p.kind = 5 AND NOT p.own THEN p.square END) AS enemy_king_sq,
    bit_or(p.bit) AS occupied,
    bit_or(p.bit * CAST(p.own AS BIGINT UNSIGNED)) AS own,
    bit_or(p.bit * CAST(NOT p.own AS BIGINT UNSIGNED)) AS enemy,
    bit_or(p.bit * CAST(p.kind = 0 AS BIGINT UNSIGNED)) AS pawns,
    bit_or(p.bit * CAST(p.kind = 1 AS BIGINT UNSIGNED)) AS knights,
    bit_or(p.bit * CAST(p.kind = 2 AS BIGINT UNSIGNED)) AS bishops,
    bit_or(p.bit * CAST(p.kind = 3 AS BIGINT UNSIGNED)) AS rooks,
    bit_or(p.bit * CAST(p.kind = 4 AS BIGINT UNSIGNED)) AS queens,
    bit_or(p.bit * CAST(p.kind <> 5 OR NOT p.own AS BIGINT UNSIGNED)) AS occupied_xray
  FROM placed p
  GROUP BY p.position_id
)
SELECT position_id, white_to_move, ep_square, king_sq, enemy_king_sq, color_key,
       occupied, own, enemy, pawns, knights, bishops, rooks, queens, occupied_xray, ep_bit,
       CAST(18446744073709551615 AS BIGINT UNSIGNED) - (enemy | (ep_bit - (ep_bit & occupied))) AS no_capture_target
FROM (
  SELECT pos.position_id, pos.white_to_move, pos.ep_square, s.king_sq, s.enemy_king_sq,
         CASE WHEN pos.white_to_move THEN 0 ELSE 8 END AS color_key,
         s.occupied, s.own, s.enemy,
         s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.occupied_xray,
         CASE WHEN pos.ep_square IS NULL THEN CAST(0 AS BIGINT UNSIGNED)
              ELSE CAST(1 AS BIGINT UNSIGNED) << CAST(pos.ep_square AS BIGINT UNSIGNED) END AS ep_bit
  FROM positions pos
  JOIN sets s ON s.position_id = pos.position_id
) b
