-- Rule `uci`: a move in UCI notation, as python-chess `Move.uci()` writes it: the start and
-- target squares ('e2e4'), the promotion piece in lowercase ('e7e8q'); a castling is the
-- king's move to its target ('e1g1'), in Chess960 the king taking its own rook ('e1h1').
-- $1: from square, $2: to square (Int32, a1 = 0), $3: whether it is a castling, $4: whether
-- the game is Chess960, $5: the castling rook's square, $6: the promotion piece (uppercase
-- letter, or NULL).
{{square_name($1)}}
  || CASE WHEN $3 AND $4 THEN {{square_name($5)}} ELSE {{square_name($2)}} END
  || COALESCE(lower($6), '')
