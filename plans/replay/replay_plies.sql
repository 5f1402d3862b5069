-- Stage `replay_plies` (for the per-ply table, `validate --plies` and `read_plies`): the
-- notation and flags of each move `replay_verdicts` accepted, as python-chess
-- `Board.san(move)` writes it, without '+' / '#'. This is the second of the two SAN writers,
-- kept for speed: the full stages write SAN in `san`, among all legal moves of a position;
-- here a replayed move's rivals are the other squares of `replay_verdicts`' `kind_from`: the
-- own pieces of its kind that legally reach its target, whatever the token named (PGN
-- standard §8.2.3.4; `replay_moves`' `rival` rows). tests/batch.rs
-- (`replay_plies_equal_full_stage_plies`) checks that both writers give the same ply rows on
-- every PGN file of tests/data. The rules are those of `san`: `uci` and `san` of
-- plans/rules/ (FIDE Laws appendix C, PGN standard §8.2.3).
-- Whether the move gives check (FIDE art. 3.9): on the state after it (`replay_next`), the
-- same attack test as `replay_moves`' `attacked` (rules `line_pieces`, `line_attack`), on the king of the side now to move, by the
-- side that moved (a king never gives check). Checkmate is not decided here: a move followed
-- by an accepted move has a legal reply, and the position after the last replayed move goes
-- to the full stages (`position_status`), as everywhere replay stops.
-- Columns: position_id, ply_uci, ply_san (Utf8), ply_capture, ply_castling, ply_en_passant
--   (Boolean), ply_promotion (Utf8, nullable: the uppercase letter), gives_check (Boolean).
WITH chosen AS (
  SELECT m.position_id, m.from_sq, m.to_sq, m.is_capture, m.rook_from,
         -- the letters of the moved piece and of the promotion piece (codes of rule `role_code`)
         {{role_letter(m.piece_code)}} AS piece,
         {{role_letter(m.promotion_code)}} AS promotion,
         m.rook_to_bit <> 0 AS is_castling,
         -- an en passant capture empties a square other than its target
         m.piece_code = 0 AND m.is_capture AND m.vacated & m.to_bit = 0 AS is_en_passant,
         -- the rivals: the other squares the kind of piece legally comes from (a knight,
         -- bishop, rook or queen)
         CASE WHEN m.piece_code BETWEEN 1 AND 4
              THEN v.kind_from - (v.kind_from & (CAST(1 AS BIGINT UNSIGNED) << CAST(m.from_sq AS BIGINT UNSIGNED)))
              ELSE CAST(0 AS BIGINT UNSIGNED) END AS rivals
  FROM {{replay_accepted}}
),
-- the rivals on the moving piece's file (its squares: 0x0101010101010101 << file) and rank
rivals AS (
  SELECT position_id, piece, from_sq, to_sq, promotion, is_capture, rook_from, is_castling,
         is_en_passant,
         COALESCE(rivals, CAST(0 AS BIGINT UNSIGNED)) <> 0 AS has_rival,
         rivals & (CAST(72340172838076673 AS BIGINT UNSIGNED) << CAST(from_sq % 8 AS BIGINT UNSIGNED)) <> 0 AS rival_on_file,
         rivals & (CAST(255 AS BIGINT UNSIGNED) << CAST(8 * (from_sq / 8) AS BIGINT UNSIGNED)) <> 0 AS rival_on_rank
  FROM chosen
),
-- the state after the move: the king of the side to move, and the pieces of the side that moved
after AS (
  SELECT position_id, chess960, white | black AS occupied,
         CASE WHEN white_to_move THEN white ELSE black END & kings AS king_bit,
         CASE WHEN white_to_move THEN black ELSE white END AS movers,
         white_to_move AS white_king,
         pawns, knights, bishops, rooks, queens
  FROM replay_next
),
-- from the king's square: the pieces on each line, the movers' line pieces and leapers
lines AS (
  SELECT a.position_id, a.chess960,
         {{line_pieces(m, a.occupied)}},
         a.movers & (a.rooks | a.queens) AS orth,
         a.movers & (a.bishops | a.queens) AS diag,
         m.knight_mask & a.movers & a.knights <> 0
           OR CASE WHEN a.white_king THEN m.white_pawn_mask ELSE m.black_pawn_mask END
              & a.movers & a.pawns <> 0 AS leaper_check
  FROM after a
  -- no king after a move that took it (a null move left it attacked): no check
  LEFT JOIN square_masks m ON m.bit = a.king_bit
),
checks AS (
  SELECT position_id, chess960,
         leaper_check OR {{line_attack(orth, diag)}} AS gives_check
  FROM lines
)
SELECT c.position_id,
       {{uci(c.from_sq, c.to_sq, c.is_castling, k.chess960, c.rook_from, c.promotion)}} AS ply_uci,
       {{san(c.is_castling, c.to_sq, c.piece, c.is_capture, c.from_sq, c.promotion, c.has_rival, c.rival_on_file, c.rival_on_rank)}} AS ply_san,
       c.is_capture AS ply_capture,
       c.is_castling AS ply_castling,
       c.is_en_passant AS ply_en_passant,
       c.promotion AS ply_promotion,
       COALESCE(k.gives_check, false) AS gives_check
FROM checks k
JOIN rivals c ON c.position_id = k.position_id
