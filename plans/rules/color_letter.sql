-- Rule `color_letter`: the FEN's letter of a colour (PGN standard §16.1.3.2: `w` White,
-- `b` Black) for a Boolean "is White" (`positions.white_to_move`, `pieces.white`).
-- $1: whether the colour is White (Boolean).
CASE WHEN $1 THEN 'w' ELSE 'b' END
