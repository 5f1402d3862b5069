-- Stage `position_keys`: the position key, the one definition of "the same position" (FIDE
-- art. 9.2.3: the same pieces on the same squares, the same side to move, the same castling
-- rights and en passant capture): per position, the board as the eight square sets of
-- `replay_states` (bit n = square n; the same column names), with side to move, castling
-- rights and en passant square. Perft merges transpositions on it (`perft_merge`, where the
-- en passant square counts as given); repetitions are counted on it with the en passant
-- square kept only where a capture there is legal (`position_status.ep_legal`). Replay keeps
-- its games in `replay_states`, whose rows already hold these columns; both paths read the
-- key through one function, `engine::replay::repetition_keys`, and tests/stages.rs checks
-- that the two give equal keys for the same positions.
-- Columns: position_id, white, black, pawns, knights, bishops, rooks, queens, kings (UInt64),
--          white_to_move, castling (UInt64: the squares of the rooks that keep a castling
--          right), ep_square.
WITH sets AS (
  -- a set takes the bits of the pieces it holds as `bit * (condition as 0 or 1)`, which
  -- DataFusion evaluates faster than a CASE per row (as `boards` does)
  SELECT position_id,
    bit_or(bit * CAST(white AS BIGINT UNSIGNED)) AS white,
    bit_or(bit * CAST(NOT white AS BIGINT UNSIGNED)) AS black,
    bit_or(bit * CAST(piece_code = 0 AS BIGINT UNSIGNED)) AS pawns,
    bit_or(bit * CAST(piece_code = 1 AS BIGINT UNSIGNED)) AS knights,
    bit_or(bit * CAST(piece_code = 2 AS BIGINT UNSIGNED)) AS bishops,
    bit_or(bit * CAST(piece_code = 3 AS BIGINT UNSIGNED)) AS rooks,
    bit_or(bit * CAST(piece_code = 4 AS BIGINT UNSIGNED)) AS queens,
    bit_or(bit * CAST(piece_code = 5 AS BIGINT UNSIGNED)) AS kings
  FROM (SELECT position_id, white, piece_code,
               CAST(1 AS BIGINT UNSIGNED) << CAST(square AS BIGINT UNSIGNED) AS bit
        FROM pieces)
  GROUP BY position_id
)
SELECT s.position_id, s.white, s.black, s.pawns, s.knights, s.bishops, s.rooks, s.queens, s.kings,
       p.white_to_move, p.castling,
       p.ep_square
FROM sets s JOIN positions p ON p.position_id = s.position_id
