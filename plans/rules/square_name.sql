-- Rule `square_name`: a square's algebraic name, file letter then rank digit ('e4'; PGN
-- standard §8.2.3.2, FIDE Laws appendix C.2).
-- $1: the square (Int32, 0..63, a1 = 0, square = rank * 8 + file).
chr(97 + ($1) % 8) || chr(49 + ($1) / 8)
