-- Rule `popcount`: how many squares a square set holds (UInt64): its bits summed in pairs,
-- the pairs in fours, the fours in bytes, and the eight byte sums added up in the top byte by
-- one multiplication, which wraps (H. S. Warren, "Hacker's Delight", 2nd ed., section 5-1:
-- 0x5555…, 0x3333…, 0x0f0f… and 0x0101… in decimal). The set is written eight times;
-- DataFusion evaluates the repeated parts once (common subexpression elimination).
-- $1: a UInt64 square set (a column).
(((((((($1 - (($1 >> CAST(1 AS BIGINT UNSIGNED)) & CAST(6148914691236517205 AS BIGINT UNSIGNED))) & CAST(3689348814741910323 AS BIGINT UNSIGNED))
   + ((($1 - (($1 >> CAST(1 AS BIGINT UNSIGNED)) & CAST(6148914691236517205 AS BIGINT UNSIGNED))) >> CAST(2 AS BIGINT UNSIGNED)) & CAST(3689348814741910323 AS BIGINT UNSIGNED)))
  + (((($1 - (($1 >> CAST(1 AS BIGINT UNSIGNED)) & CAST(6148914691236517205 AS BIGINT UNSIGNED))) & CAST(3689348814741910323 AS BIGINT UNSIGNED))
   + ((($1 - (($1 >> CAST(1 AS BIGINT UNSIGNED)) & CAST(6148914691236517205 AS BIGINT UNSIGNED))) >> CAST(2 AS BIGINT UNSIGNED)) & CAST(3689348814741910323 AS BIGINT UNSIGNED))) >> CAST(4 AS BIGINT UNSIGNED))) & CAST(1085102592571150095 AS BIGINT UNSIGNED))) * CAST(72340172838076673 AS BIGINT UNSIGNED)) >> CAST(56 AS BIGINT UNSIGNED))
