-- Static table `piece_rays`: every move of a single piece on an otherwise empty board
-- (the seed's "baby monster" DEMO_CHESS_MOVES), built from coordinate cross joins.
-- Unlike the seed, each row knows its ray (from square + direction) and its distance
-- along the ray, so that blocking is one bitwise test against the occupied squares (`between_mask`)
-- instead of a per-piece rule,
-- and each colour's pawns move towards the opponent (the seed's black castling rows
-- point at rank 1; castling lives in `castling_rules`).
--   mode 'slide'   : move to an empty square or capture (K, Q, R, B, N)
--   mode 'push'    : pawn push, empty target only (double step from the start rank)
--   mode 'capture' : pawn capture, enemy piece or en passant square only
-- Columns: color, piece, from_sq, piece_key (from_sq * 16 + 8 for black + P0 N1 B2 R3 Q4 K5:
--          one integer join key, see `placed`), to_key (the same code on to_sq: the rays of
--          one kind of piece into one square, see `replay_moves`), ray (from_sq * 16 +
--          direction), step (1..7), to_sq, mode, from_bit, to_bit (UInt64, 1 << square),
--          between_mask (UInt64: the ray's squares before to_sq, which must be empty for the
--          piece to get there), and the mode as square sets, so that `pseudo_moves` tests a
--          move with ANDs only: empty_mask (UInt64: between_mask, plus to_sq for a push),
--          capture_bit (UInt64: to_bit for a pawn capture, else 0), attacks (Boolean: the
--          piece attacks to_sq, i.e. the mode is not a push), castling_lost (UInt64: the
--          castling rights, as rook squares, the move ends: `castling_loss` for the piece
--          leaving from_sq, and a rook's right on to_sq, rule `rights_lost`; computed once here
--          so that `replay_moves` carries it without a join per ply).
WITH directions AS (
  SELECT column1 AS dir, column2 AS d_file, column3 AS d_rank, column4 AS kind FROM (VALUES
    (0, 0, 1, 'orthogonal'), (1, 1, 0, 'orthogonal'), (2, 0, -1, 'orthogonal'), (3, -1, 0, 'orthogonal'),
    (4, 1, 1, 'diagonal'), (5, 1, -1, 'diagonal'), (6, -1, -1, 'diagonal'), (7, -1, 1, 'diagonal'),
    (8, 1, 2, 'jump'), (9, 2, 1, 'jump'), (10, 2, -1, 'jump'), (11, 1, -2, 'jump'),
    (12, -1, -2, 'jump'), (13, -2, -1, 'jump'), (14, -2, 1, 'jump'), (15, -1, 2, 'jump'))
),
steps AS (SELECT column1 AS step FROM (VALUES (1), (2), (3), (4), (5), (6), (7))),
colors AS (SELECT column1 AS color FROM (VALUES ('w'), ('b'))),
-- which directions each piece uses, how far, and how its pawns move (by colour)
movers AS (
  SELECT column1 AS color, column2 AS piece, column3 AS kind, column4 AS dir,
         column5 AS max_step, column6 AS mode FROM (VALUES
    (NULL, 'K', 'orthogonal', NULL, 1, 'slide'), (NULL, 'K', 'diagonal', NULL, 1, 'slide'),
    (NULL, 'Q', 'orthogonal', NULL, 7, 'slide'), (NULL, 'Q', 'diagonal', NULL, 7, 'slide'),
    (NULL, 'R', 'orthogonal', NULL, 7, 'slide'), (NULL, 'B', 'diagonal', NULL, 7, 'slide'),
    (NULL, 'N', 'jump', NULL, 1, 'slide'),
    ('w', 'P', NULL, 0, 2, 'push'), ('w', 'P', NULL, 4, 1, 'capture'), ('w', 'P', NULL, 7, 1, 'capture'),
    ('b', 'P', NULL, 2, 2, 'push'), ('b', 'P', NULL, 5, 1, 'capture'), ('b', 'P', NULL, 6, 1, 'capture'))
),
rays AS (
  SELECT c.color, m.piece, s.square AS from_sq, s.rank AS from_rank, d.dir, st.step, m.mode,
         s.file + d.d_file * st.step AS to_file, s.rank + d.d_rank * st.step AS to_rank
  FROM movers m
  CROSS JOIN colors c
  CROSS JOIN directions d
  CROSS JOIN steps st
  CROSS JOIN squares s
  WHERE (m.color IS NULL OR m.color = c.color)
    AND (m.kind = d.kind OR m.dir = d.dir)
    AND st.step <= m.max_step
    -- pawns stand on ranks 2..7 and double-step only from their start rank
    AND (m.piece <> 'P' OR (s.rank BETWEEN 1 AND 6
         AND (st.step = 1 OR (c.color = 'w' AND s.rank = 1) OR (c.color = 'b' AND s.rank = 6))))
),
steps_on_board AS (
  SELECT color, piece, from_sq,
         CASE color WHEN 'w' THEN 0 ELSE 8 END
           + {{role_code(piece)}} AS code,
         CAST(from_sq * 16 + dir AS INT) AS ray,
         CAST(step AS INT) AS step,
         CAST(to_rank * 8 + to_file AS INT) AS to_sq,
         mode
  FROM rays
  WHERE to_file BETWEEN 0 AND 7 AND to_rank BETWEEN 0 AND 7
),
masked AS (
  SELECT s.color, s.piece, s.from_sq,
         CAST(s.from_sq * 16 + s.code AS INT) AS piece_key,
         CAST(s.to_sq * 16 + s.code AS INT) AS to_key,
         s.ray, s.step, s.to_sq, s.mode,
         CAST(1 AS BIGINT UNSIGNED) << CAST(s.from_sq AS BIGINT UNSIGNED) AS from_bit,
         CAST(1 AS BIGINT UNSIGNED) << CAST(s.to_sq AS BIGINT UNSIGNED) AS to_bit,
         COALESCE(bit_or(CAST(1 AS BIGINT UNSIGNED) << CAST(e.to_sq AS BIGINT UNSIGNED)),
                  CAST(0 AS BIGINT UNSIGNED)) AS between_mask
  FROM steps_on_board s
  LEFT JOIN steps_on_board e ON e.color = s.color AND e.piece = s.piece AND e.ray = s.ray AND e.step < s.step
  GROUP BY s.color, s.piece, s.from_sq, s.code, s.ray, s.step, s.to_sq, s.mode
)
SELECT m.color, m.piece, m.from_sq, m.piece_key, m.to_key, m.ray, m.step, m.to_sq, m.mode,
       m.from_bit, m.to_bit, m.between_mask,
       m.between_mask | CASE WHEN m.mode = 'push' THEN m.to_bit ELSE CAST(0 AS BIGINT UNSIGNED) END AS empty_mask,
       CASE WHEN m.mode = 'capture' THEN m.to_bit ELSE CAST(0 AS BIGINT UNSIGNED) END AS capture_bit,
       m.mode <> 'push' AS attacks,
       {{rights_lost(l.lost, m.to_bit)}} AS castling_lost
FROM masked m
JOIN castling_loss l ON l.mover_key = m.piece_key
