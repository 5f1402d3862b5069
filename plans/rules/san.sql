-- Rule `san` (PGN standard §8.2.3, FIDE Laws appendix C): a move in SAN, without the '+' or
-- '#' that `san` adds: 'O-O' (the king to the g-file) / 'O-O-O' (to the c-file), in Chess960
-- too; a pawn: its file and 'x' when it captures, the target, '=' and the promotion piece; a
-- piece: its letter, then, when another piece of its kind legally reaches the target (a
-- rival, §8.2.3.4), the file of its square if no rival stands on that file, else its rank
-- if no rival stands on that rank, else its square; 'x' for a capture; the target.
-- $1: whether it is a castling; $2: to square; $3: the piece letter (uppercase); $4: whether
-- it captures; $5: from square; $6: the promotion piece (uppercase, or NULL); $7: whether it
-- has a rival; $8: whether a rival stands on its file; $9: on its rank.
CASE
  WHEN $1 THEN CASE WHEN $2 % 8 = 6 THEN 'O-O' ELSE 'O-O-O' END
  WHEN $3 = 'P' THEN
    CASE WHEN $4 THEN chr(97 + $5 % 8) || 'x' ELSE '' END
    || {{square_name($2)}}
    || COALESCE('=' || $6, '')
  ELSE $3
    || CASE WHEN NOT ($7) THEN ''
            WHEN NOT ($8) THEN chr(97 + $5 % 8)
            WHEN NOT ($9) THEN chr(49 + $5 / 8)
            ELSE {{square_name($5)}} END
    || CASE WHEN $4 THEN 'x' ELSE '' END
    || {{square_name($2)}}
END
