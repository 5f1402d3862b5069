-- Rule `line_attack` (FIDE art. 3.2-3.4: a bishop, rook or queen attacks along its lines up
-- to the first piece in the way): whether the nearest piece on some line from the square
-- (the columns of `line_pieces`) is an enemy piece moving along that kind of line.
-- $1: the enemy pieces that move along ranks and files (rooks, queens); $2: along
-- diagonals (bishops, queens). Knights, pawns and kings are a leap away: the stages test
-- them with `square_masks`' knight, king and pawn masks.
(
  -- towards higher squares the nearest piece is the lowest set bit of the line, x & (0 - x)
  ((on_n & (CAST(0 AS BIGINT UNSIGNED) - on_n)) | (on_e & (CAST(0 AS BIGINT UNSIGNED) - on_e))) & $1 <> 0
  OR ((on_ne & (CAST(0 AS BIGINT UNSIGNED) - on_ne)) | (on_nw & (CAST(0 AS BIGINT UNSIGNED) - on_nw))) & $2 <> 0
  -- towards lower squares it is the highest: the line's attackers, read as a number,
  -- exceed the line's other pieces
  OR (on_s & $1) > on_s - (on_s & $1) OR (on_w & $1) > on_w - (on_w & $1)
  OR (on_se & $2) > on_se - (on_se & $2) OR (on_sw & $2) > on_sw - (on_sw & $2)
)
