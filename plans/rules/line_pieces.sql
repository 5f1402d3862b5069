-- Rule `line_pieces`: from a square, the pieces standing on each of its eight lines to the
-- board's edge (the first half of the nearest-piece attack test, `line_attack`): columns
-- on_n, on_e, on_ne, on_nw, on_s, on_w, on_se, on_sw (UInt64 square sets).
-- $1: the square's `square_masks` row; $2: the occupied squares.
$1.ray_n & $2 AS on_n, $1.ray_e & $2 AS on_e,
$1.ray_ne & $2 AS on_ne, $1.ray_nw & $2 AS on_nw,
$1.ray_s & $2 AS on_s, $1.ray_w & $2 AS on_w,
$1.ray_se & $2 AS on_se, $1.ray_sw & $2 AS on_sw
