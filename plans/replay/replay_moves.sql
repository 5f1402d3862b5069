-- Stage `replay_moves` (seed: the final SELECT, which joins the one requested move with the
-- moves of +stage13; here only the requested move is built, and checked on its own): for
-- each game of `replay_tokens` (its `replay_states` row beside its token, one table: no
-- join), the moves the token can stand for, read as
-- python-chess `Board.parse_san` reads it (see `token_matches`): the token's kind of piece
-- (a pawn: from the file named, else from the target's file) entering the target square
-- along a free ray of `piece_rays`, or castling to the side named (rules as in `castling`).
-- Each move gets the square on which its king must not be attacked afterwards (FIDE art.
-- 3.9) and whether it is: from that square, the nearest piece along each line of
-- `square_masks` (rules `line_pieces`, `line_attack` of plans/rules/), and the knights, pawns
-- and king a leap away. Castling adds a `transit` row
-- for the king's square and the squares it crosses (art. 3.8.2.2: none may be attacked;
-- tested on the board after castling, which attacks them the same way: the squares the rook
-- leaves or enters change no line into them that the king's target does not share, see
-- `castling_path`'s shield). A position with an
-- en passant square adds each en passant capture as an `ep_probe` (whether one is legal is
-- part of the position's repetition key, art. 9.2.3). This is the second of the two en
-- passant legality tests, kept for speed: the full stages decide it in `legal_moves`
-- (`en_passant_exposed`, joins over all enemy pieces); here it is the same attack test as
-- every other replayed move, on the game's one row. tests/stages.rs
-- (`en_passant_legality_agrees_between_full_stages_and_replay`) checks that both agree with
-- each other and with shakmaty. A token naming its origin square without a piece letter
-- (UCI `g1f3`, python-chess `Board.find_move`) moves the own piece standing there, whatever
-- its kind; castling so written (the king two squares, or onto its own rook) and null moves
-- get no rows: the full legal-move stages resolve those.
-- A token of a knight, bishop, rook or queen adds each other piece of its kind that reaches
-- the target but is left out by the file or rank the token names as a `rival` (same attack
-- test): `replay_plies` writes the move's SAN from the legal ones (PGN standard §8.2.3.4:
-- disambiguation by the other legal moves of the kind to the target, whatever the token
-- said, as `san` does among all legal moves).
-- Pieces and roles are integer codes here, as in `replay_tokens`; `replay_plies` writes the
-- letters of the moves it names.
-- Columns: position_id, role (Int32: 0 move, 1 rival, 2 transit, 3 ep_probe), piece_code
--   (Int32, rule `role_code`: P 0, N 1, B 2, R 3, Q 4, K 5), from_sq, to_sq (Int32),
--   promotion_code (Int32, nullable), is_capture (Boolean), to_bit, vacated (the squares the move
--   empties: its start, the captured piece's square, the castling rook's start),
--   rook_to_bit (UInt64, 0 unless castling), rook_from (Int32, NULL unless castling),
--   castling_lost (UInt64: the castling rights the move ends, from `piece_rays` or
--   `castling_rules`), attacked (Boolean).
WITH states AS (
  SELECT position_id, white_to_move, ep_square, castling,
         piece_code, from_file, from_rank, to_sq, promotion_code, castle_long,
         white | black AS occupied,
         CASE WHEN white_to_move THEN white ELSE black END AS own,
         CASE WHEN white_to_move THEN black ELSE white END AS enemy,
         CASE WHEN white_to_move THEN 0 ELSE 8 END AS color_code,
         white_to_move AS white_moves,
         pawns, knights, bishops, rooks, queens, kings
  FROM replay_tokens
),
-- the kind of piece each token moves (its code, rule `role_code`): the one it names, else
-- (a full origin square) the own piece on its origin square, if any (none for castling,
-- which names no square: no ray_key below, so castling tokens meet no ray)
token_pieces AS (
  SELECT * EXCEPT (piece_code),
         COALESCE(piece_code,
           CASE WHEN own & origin_bit & pawns <> 0 THEN 0 WHEN own & origin_bit & knights <> 0 THEN 1
                WHEN own & origin_bit & bishops <> 0 THEN 2 WHEN own & origin_bit & rooks <> 0 THEN 3
                WHEN own & origin_bit & queens <> 0 THEN 4 WHEN own & origin_bit & kings <> 0 THEN 5 END) AS piece_code
  FROM (
    SELECT *, CAST(1 AS BIGINT UNSIGNED) << CAST(from_rank * 8 + from_file AS BIGINT UNSIGNED) AS origin_bit
    FROM states
  ) t
),
-- each move token on its game's board: its kind of piece, target square and bit, the file
-- and rank it names (a pawn's SAN without a file moves straight; a token naming its origin
-- square names its file), the square of the piece it
-- captures if any (`cap_bit`: an enemy piece on the target, or the pawn beside the en
-- passant square), and the own pieces of its kind (`own_kind`)
token_rows AS (
  SELECT position_id, piece_code, to_sq, promotion_code, from_rank, white_moves, occupied,
         own, enemy, pawns, knights, bishops, rooks, queens, kings,
         COALESCE(from_file, CASE WHEN piece_code = 0 THEN to_sq % 8 END) AS from_file,
         to_sq * 16 + color_code + piece_code AS to_key,
         CAST(1 AS BIGINT UNSIGNED) << CAST(to_sq AS BIGINT UNSIGNED) AS to_bit,
         CASE WHEN piece_code = 0 AND to_sq = ep_square
              THEN CAST(1 AS BIGINT UNSIGNED) << CAST(to_sq + CASE WHEN color_code = 0 THEN -8 ELSE 8 END AS BIGINT UNSIGNED)
              ELSE (CAST(1 AS BIGINT UNSIGNED) << CAST(to_sq AS BIGINT UNSIGNED)) & enemy END AS cap_bit,
         -- one set chosen by a 0/1 factor each (a CASE over six columns costs half as much again)
         own & (pawns * CAST(piece_code = 0 AS BIGINT UNSIGNED) | knights * CAST(piece_code = 1 AS BIGINT UNSIGNED)
                | bishops * CAST(piece_code = 2 AS BIGINT UNSIGNED) | rooks * CAST(piece_code = 3 AS BIGINT UNSIGNED)
                | queens * CAST(piece_code = 4 AS BIGINT UNSIGNED) | kings * CAST(piece_code = 5 AS BIGINT UNSIGNED)) AS own_kind,
         CAST(18446744073709551615 AS BIGINT UNSIGNED) AS all_squares
  FROM token_pieces
),
-- the tokens whose target fits (a piece: not an own piece; a pawn moving straight: empty; a
-- pawn changing file: a piece to capture) and that name a promotion piece exactly when a
-- pawn reaches the last rank, with the own pieces that may move (`movers`: its kind, on
-- the file and rank it names) and the squares whose rays `token_moves` keeps (`kept`: the
-- movers, and for a knight, bishop, rook or queen every own piece of its kind, the rivals).
-- A token that does not fit gets no key to look its rays up by (`ray_key` NULL: no ray
-- matches it). This is a column, not a WHERE: DataFusion would push a WHERE down to the scan
-- of `replay_tokens`, its expressions copied into the filter and evaluated there again.
wanted AS (
  SELECT *,
         movers | own_kind * CAST(piece_code BETWEEN 1 AND 4 AS BIGINT UNSIGNED) AS kept,
         CASE WHEN piece_code IS NOT NULL
                   AND ((piece_code <> 0 AND to_bit & own = 0)
                        OR (piece_code = 0 AND from_file = to_sq % 8 AND to_bit & occupied = 0)
                        OR (piece_code = 0 AND from_file <> to_sq % 8 AND cap_bit <> 0))
                   AND ((piece_code = 0 AND to_sq / 8 IN (0, 7) AND promotion_code BETWEEN 1 AND 4)
                        OR (NOT (piece_code = 0 AND to_sq / 8 IN (0, 7)) AND promotion_code IS NULL))
              THEN to_key END AS ray_key
  FROM (
    SELECT *,
           own_kind & COALESCE(CAST(72340172838076673 AS BIGINT UNSIGNED) << CAST(from_file AS BIGINT UNSIGNED), all_squares)
                    & COALESCE(CAST(255 AS BIGINT UNSIGNED) << CAST(8 * from_rank AS BIGINT UNSIGNED), all_squares) AS movers
    FROM token_rows
  ) w
),
-- the wanted pieces that reach the target along a free ray; for a knight, bishop, rook or
-- queen also the other own pieces of its kind (`rival` rows, for its SAN)
token_moves AS (
  SELECT w.position_id, CASE WHEN r.from_bit & w.movers <> 0 THEN 0 /* move */ ELSE 1 /* rival */ END AS role,
         w.piece_code, r.from_sq, w.to_sq, w.promotion_code,
         r.from_bit, w.to_bit, w.cap_bit,
         CAST(0 AS BIGINT UNSIGNED) AS rook_from_bit, CAST(0 AS BIGINT UNSIGNED) AS rook_to_bit,
         CAST(NULL AS INT) AS rook_from, CAST(NULL AS BIGINT UNSIGNED) AS transit_bit, r.castling_lost,
         w.white_moves, w.occupied, w.own, w.enemy, w.pawns, w.knights, w.bishops, w.rooks, w.queens, w.kings
  FROM wanted w
  JOIN piece_rays r ON r.to_key = w.ray_key
  WHERE r.from_bit & w.kept <> 0
    AND r.between_mask & w.occupied = 0
),
-- castling (rules of `castling_rules`, as in stage `castling`): the right held by the rook's
-- square, the king on its square, the path empty; the king's destination is its 'move' row,
-- its start and the squares it crosses are 'transit' rows (a token that is no castling has
-- no `castle_long`, and meets no castling rule)
castles AS (
  SELECT s.position_id, CASE WHEN p.path_sq = c.king_to THEN 0 /* move */ ELSE 2 /* transit */ END AS role,
         CAST(5 /* K */ AS INT) AS piece_code, c.king_from AS from_sq, c.king_to AS to_sq, CAST(NULL AS INT) AS promotion_code,
         c.king_from_bit AS from_bit, c.king_to_bit AS to_bit, CAST(0 AS BIGINT UNSIGNED) AS cap_bit,
         c.rook_from_bit, c.rook_to_bit, c.rook_from,
         CAST(1 AS BIGINT UNSIGNED) << CAST(p.path_sq AS BIGINT UNSIGNED) AS transit_bit, c.castling_lost,
         s.white_moves, s.occupied, s.own, s.enemy, s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.kings
  FROM states s
  JOIN castling_rules c ON c.white = s.white_to_move AND c.castle_long = s.castle_long
  JOIN castling_path p ON p.king_from = c.king_from AND p.rook_from = c.rook_from AND p.need = 'safe'
  WHERE s.castling & c.rook_from_bit <> 0
    AND s.kings & s.own & c.king_from_bit <> 0
    AND s.occupied & c.empty_mask = 0
),
-- every en passant capture of the position, whatever the token
probes AS (
  SELECT s.position_id, 3 /* ep_probe */ AS role, CAST(0 /* P */ AS INT) AS piece_code, r.from_sq, r.to_sq, CAST(NULL AS INT) AS promotion_code,
         r.from_bit, r.to_bit,
         CAST(1 AS BIGINT UNSIGNED) << CAST(r.from_sq - r.from_sq % 8 + r.to_sq % 8 AS BIGINT UNSIGNED) AS cap_bit,
         CAST(0 AS BIGINT UNSIGNED) AS rook_from_bit, CAST(0 AS BIGINT UNSIGNED) AS rook_to_bit,
         CAST(NULL AS INT) AS rook_from, CAST(NULL AS BIGINT UNSIGNED) AS transit_bit, r.castling_lost,
         s.white_moves, s.occupied, s.own, s.enemy, s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.kings
  FROM states s
  JOIN piece_rays r ON r.to_key = s.ep_square * 16 + s.color_code
  WHERE s.ep_square IS NOT NULL
    AND r.mode = 'capture' AND r.from_bit & s.own & s.pawns <> 0
),
moves AS (
  SELECT * FROM token_moves
  UNION ALL SELECT * FROM castles
  UNION ALL SELECT * FROM probes
),
-- the board after the move, as far as the attack test needs it (each move row carries its
-- position's square sets: no second join with `states`)
after AS (
  SELECT m.position_id, m.role, m.piece_code, m.from_sq, m.to_sq, m.promotion_code, m.to_bit, m.rook_to_bit,
         m.rook_from, m.castling_lost, m.cap_bit <> 0 AS is_capture,
         m.from_bit | m.cap_bit | m.rook_from_bit AS vacated,
         COALESCE(m.transit_bit, CASE WHEN m.piece_code = 5 /* K */ THEN m.to_bit ELSE m.own & m.kings END) AS test_bit,
         (m.occupied - (m.occupied & (m.from_bit | m.cap_bit | m.rook_from_bit))) | m.to_bit | m.rook_to_bit AS occupied_after,
         m.enemy - (m.enemy & m.cap_bit) AS enemy_after,
         m.white_moves, m.pawns, m.knights, m.bishops, m.rooks, m.queens, m.kings
  FROM moves m
),
-- from the tested square: the pieces on each line, the enemy's line movers, its leapers
lines AS (
  SELECT a.position_id, a.role, a.piece_code, a.from_sq, a.to_sq, a.promotion_code, a.is_capture,
         a.to_bit, a.vacated, a.rook_to_bit, a.rook_from, a.castling_lost,
         {{line_pieces(m, a.occupied_after)}},
         a.enemy_after & (a.rooks | a.queens) AS orth,
         a.enemy_after & (a.bishops | a.queens) AS diag,
         m.knight_mask & a.enemy_after & a.knights <> 0
           OR m.king_mask & a.enemy_after & a.kings <> 0
           OR CASE WHEN a.white_moves THEN m.white_pawn_mask ELSE m.black_pawn_mask END
              & a.enemy_after & a.pawns <> 0 AS leaper_attack
  FROM square_masks m
  JOIN after a ON a.test_bit = m.bit
)
SELECT position_id, role, piece_code, from_sq, to_sq, promotion_code, is_capture, to_bit, vacated, rook_to_bit,
       rook_from, castling_lost,
       leaper_attack OR {{line_attack(orth, diag)}} AS attacked
FROM lines
