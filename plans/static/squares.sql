-- Static table `squares`: the 64 squares of the board.
-- Seed: DEMO_CHESS_POS_T (x_pos, y_pos in 1..8). Ours: square 0..63 with a1 = 0, h8 = 63,
-- square = rank * 8 + file, file and rank 0..7, plus the algebraic name ('e4') and its two
-- letters (file_name 'e', rank_name '4').
SELECT CAST(r.column1 * 8 + f.column1 AS INT) AS square,
       CAST(f.column1 AS INT)                 AS file,
       CAST(r.column1 AS INT)                 AS rank,
       {{square_name(r.column1 * 8 + f.column1)}} AS name,
       chr(97 + f.column1)                    AS file_name,
       chr(49 + r.column1)                    AS rank_name
FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7)) AS f
CROSS JOIN (VALUES (0), (1), (2), (3), (4), (5), (6), (7)) AS r
