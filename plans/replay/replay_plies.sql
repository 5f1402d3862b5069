-- Stage `replay_plies` (for the per-ply table, `validate --plies` and `read_plies`): the
-- notation and flags of each move `replay_verdicts` accepted, as python-chess
-- `Board.san(move)` writes it, without '+' / '#'. This is the second of the two SAN writers,
-- kept for speed: the full stages write SAN in `san`, among all legal moves of a position;
-- here a replayed move's rivals are the other squares of `replay_verdicts`' `kind_from`: the
-- own pieces of its kind that legally reach its target, whatever the token named (PGN
-- standard §8.2.3.4; `replay_moves`' `rival` rows). tests/batch.rs
-- (`replay_plies_equal_full_stage_plies`) checks that both writers give the same ply rows on
-- every PGN file of tests/data. The rules, as in `san`: UCI ('e2e4', 'e7e8q'; castling as the
-- king's move, as the king taking its own rook in Chess960); SAN (FIDE Laws appendix C): the
-- piece letter; when a rival is legal, the file of the moving piece if no rival stands on
-- it, else its rank if no rival stands on that, else its square; 'x' for a capture (a pawn
-- capture names its file); the target; '=Q' for a promotion; 'O-O' (king to the g-file) /
-- 'O-O-O'.
-- Whether the move gives check (FIDE art. 3.9): on the state after it (`replay_next`), the
-- same attack test as `replay_moves`' `attacked`, on the king of the side now to move, by the
-- side that moved (a king never gives check). Checkmate is not decided here: a move followed
-- by an accepted move has a legal reply, and the position after the last replayed move goes
-- to the full stages (`position_status`), as everywhere replay stops.
-- Columns: position_id, ply_uci, ply_san (Utf8), ply_capture, ply_castling, ply_en_passant
--   (Boolean), ply_promotion (Utf8, nullable: the uppercase letter), gives_check (Boolean).
WITH chosen AS (
  SELECT m.position_id, m.piece, m.from_sq, m.to_sq, m.promotion, m.is_capture, m.rook_from,
         m.rook_to_bit <> 0 AS is_castling,
         -- an en passant capture empties a square other than its target
         m.piece = 'P' AND m.is_capture AND m.vacated & m.to_bit = 0 AS is_en_passant,
         -- the rivals: the other squares the kind of piece legally comes from
         CASE WHEN m.piece IN ('N', 'B', 'R', 'Q')
              THEN v.kind_from - (v.kind_from & (CAST(1 AS BIGINT UNSIGNED) << CAST(m.from_sq AS BIGINT UNSIGNED)))
              ELSE CAST(0 AS BIGINT UNSIGNED) END AS rivals,
         chr(97 + m.from_sq % 8) AS from_file, chr(49 + m.from_sq / 8) AS from_rank,
         chr(97 + m.to_sq % 8) || chr(49 + m.to_sq / 8) AS to_name
  FROM replay_verdicts v
  JOIN replay_moves m ON m.position_id = v.position_id
  WHERE v.accepted AND m.role = 'move' AND NOT m.attacked
),
-- the state after the move: the king of the side to move, and the pieces of the side that moved
after AS (
  SELECT position_id, chess960, white | black AS occupied,
         CASE WHEN side_to_move = 'w' THEN white ELSE black END & kings AS king_bit,
         CASE WHEN side_to_move = 'w' THEN black ELSE white END AS movers,
         side_to_move = 'w' AS white_king,
         pawns, knights, bishops, rooks, queens
  FROM replay_next
),
-- from the king's square: the pieces on each line, the movers' line pieces and leapers
lines AS (
  SELECT a.position_id, a.chess960,
         m.ray_n & a.occupied AS on_n, m.ray_e & a.occupied AS on_e,
         m.ray_ne & a.occupied AS on_ne, m.ray_nw & a.occupied AS on_nw,
         m.ray_s & a.occupied AS on_s, m.ray_w & a.occupied AS on_w,
         m.ray_se & a.occupied AS on_se, m.ray_sw & a.occupied AS on_sw,
         a.movers & (a.rooks | a.queens) AS orth,
         a.movers & (a.bishops | a.queens) AS diag,
         m.knight_mask & a.movers & a.knights <> 0
           OR CASE WHEN a.white_king THEN m.white_pawn_mask ELSE m.black_pawn_mask END
              & a.movers & a.pawns <> 0 AS leaper_check
  FROM square_masks m
  JOIN after a ON a.king_bit = m.bit
),
checks AS (
  SELECT position_id, chess960,
         leaper_check
         -- towards higher squares the nearest piece is the lowest set bit of the line, x & (0 - x)
         OR ((on_n & (CAST(0 AS BIGINT UNSIGNED) - on_n)) | (on_e & (CAST(0 AS BIGINT UNSIGNED) - on_e))) & orth <> 0
         OR ((on_ne & (CAST(0 AS BIGINT UNSIGNED) - on_ne)) | (on_nw & (CAST(0 AS BIGINT UNSIGNED) - on_nw))) & diag <> 0
         -- towards lower squares it is the highest: the line's attackers, read as a number,
         -- exceed the line's other pieces
         OR (on_s & orth) > on_s - (on_s & orth) OR (on_w & orth) > on_w - (on_w & orth)
         OR (on_se & diag) > on_se - (on_se & diag) OR (on_sw & diag) > on_sw - (on_sw & diag)
         AS gives_check
  FROM lines
)
SELECT c.position_id,
       c.from_file || c.from_rank
         || CASE WHEN c.is_castling AND k.chess960 THEN chr(97 + c.rook_from % 8) || chr(49 + c.rook_from / 8)
                 ELSE c.to_name END
         || COALESCE(lower(c.promotion), '') AS ply_uci,
       CASE
         WHEN c.is_castling THEN CASE WHEN c.to_sq % 8 = 6 THEN 'O-O' ELSE 'O-O-O' END
         WHEN c.piece = 'P' THEN
           CASE WHEN c.is_capture THEN c.from_file || 'x' || c.to_name ELSE c.to_name END
           || COALESCE('=' || c.promotion, '')
         ELSE c.piece
           -- the squares of the moving piece's file, then of its rank
           || CASE WHEN COALESCE(c.rivals, CAST(0 AS BIGINT UNSIGNED)) = 0 THEN ''
                   WHEN c.rivals & (CAST(72340172838076673 AS BIGINT UNSIGNED) << CAST(c.from_sq % 8 AS BIGINT UNSIGNED)) = 0
                     THEN c.from_file
                   WHEN c.rivals & (CAST(255 AS BIGINT UNSIGNED) << CAST(8 * (c.from_sq / 8) AS BIGINT UNSIGNED)) = 0
                     THEN c.from_rank
                   ELSE c.from_file || c.from_rank END
           || CASE WHEN c.is_capture THEN 'x' ELSE '' END
           || c.to_name
       END AS ply_san,
       c.is_capture AS ply_capture,
       c.is_castling AS ply_castling,
       c.is_en_passant AS ply_en_passant,
       c.promotion AS ply_promotion,
       k.gives_check
FROM checks k
JOIN chosen c ON c.position_id = k.position_id
