-- Rule `after_move`: the state a move leaves (the columns white_to_move, castling, chess960,
-- ep_square, halfmove_clock, fullmove_number of `positions`, in that order): the turn
-- passes; the castling rights lose those the move ends (rule `rights_lost`, FIDE art.
-- 3.8.2.1; and a taken king's side's, rule `side_rights`); the en passant square is the
-- square a pawn's double step passed over (art. 3.7.4; whether a capture there is legal is decided where it matters, art. 9.2.3); the
-- halfmove clock restarts after a pawn move or a capture and grows otherwise (art. 9.3);
-- the fullmove number grows after Black's move.
-- $1: whether White moved (Boolean); $2: the castling rights before (UInt64, rook
-- squares); $3: the rights the move ends (UInt64); $4: chess960; $5: whether a pawn moved
-- (NULL for a null move); $6: from square; $7: to square; $8: whether the move
-- captures; $9: the halfmove clock before it; $10: the fullmove number before it; $11:
-- whether it captures the other side's king (only after a null move left it attacked).
NOT $1 AS white_to_move,
$2 - ($2 & ($3 | CASE WHEN $11 THEN {{side_rights(NOT $1)}} ELSE CAST(0 AS BIGINT UNSIGNED) END)) AS castling,
$4 AS chess960,
CAST(CASE WHEN $5 AND $7 - $6 IN (16, -16) THEN ($6 + $7) / 2 END AS INT) AS ep_square,
CAST(($9 + 1) * CAST(NOT COALESCE($5 OR $8, false) AS INT) AS INT) AS halfmove_clock,
CAST($10 + CAST(NOT $1 AS INT) AS INT) AS fullmove_number
