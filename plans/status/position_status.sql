-- Stage `position_status`: per position, what the game-ending rules need (FIDE art. 5, 9):
-- the number of legal moves, whether the side to move is in check, whether an en passant
-- capture is legal (python-chess writes the FEN en passant square and keys repetitions only
-- then), whether each side lacks mating material (python-chess `has_insufficient_material`:
-- no pawn, rook or queen, and a lone knight with nothing but the king (and queens) against
-- it, or bishops all on one square colour with no knight or pawn on the board), and a
-- position key for repetitions (FIDE art. 9.2.3: same pieces on the same squares, same side
-- to move, same castling rights and en passant capture): the columns of `position_keys`,
-- read with `ep_legal` (the en passant square counts only where a capture there is legal).
-- Columns: position_id, n_legal, in_check, ep_legal, white_insufficient, black_insufficient,
--          white, black, pawns, knights, bishops, rooks, queens, kings (square sets),
--          white_to_move, castling (the rook squares holding a right), ep_square (as given), ep_key (the en
--          passant square when a capture there is legal, else -1).
WITH counts AS (
  SELECT position_id, COUNT(*) AS n_legal, MAX(CASE WHEN is_en_passant THEN to_sq END) AS ep_to
  FROM legal_moves GROUP BY position_id
),
material AS (
  SELECT position_id,
    -- pieces by code (rule `role_code`): P 0, N 1, B 2, R 3, Q 4, K 5
    SUM(CASE WHEN white AND piece_code IN (0, 3, 4) THEN 1 ELSE 0 END) AS w_heavy,
    SUM(CASE WHEN NOT white AND piece_code IN (0, 3, 4) THEN 1 ELSE 0 END) AS b_heavy,
    SUM(CASE WHEN white THEN 1 ELSE 0 END) AS w_count,
    SUM(CASE WHEN NOT white THEN 1 ELSE 0 END) AS b_count,
    SUM(CASE WHEN white AND piece_code = 1 THEN 1 ELSE 0 END) AS w_knights,
    SUM(CASE WHEN NOT white AND piece_code = 1 THEN 1 ELSE 0 END) AS b_knights,
    SUM(CASE WHEN white AND piece_code = 2 THEN 1 ELSE 0 END) AS w_bishops,
    SUM(CASE WHEN NOT white AND piece_code = 2 THEN 1 ELSE 0 END) AS b_bishops,
    SUM(CASE WHEN white AND piece_code < 4 THEN 1 ELSE 0 END) AS w_minor_or_more,
    SUM(CASE WHEN NOT white AND piece_code < 4 THEN 1 ELSE 0 END) AS b_minor_or_more,
    SUM(CASE WHEN piece_code IN (0, 1) THEN 1 ELSE 0 END) AS pawns_knights,
    SUM(CASE WHEN piece_code = 2 AND (square / 8 + square % 8) % 2 = 0 THEN 1 ELSE 0 END) AS dark_bishops,
    SUM(CASE WHEN piece_code = 2 AND (square / 8 + square % 8) % 2 = 1 THEN 1 ELSE 0 END) AS light_bishops
  FROM pieces GROUP BY position_id
)
SELECT pos.position_id,
       COALESCE(c.n_legal, 0) AS n_legal,
       t.n_checkers > 0 AS in_check,
       c.ep_to IS NOT NULL AS ep_legal,
       -- a side cannot mate with: nothing; a knight when the other side has only king/queens; same-coloured bishops with no knight or pawn anywhere
       m.w_heavy = 0 AND (
         (m.w_knights > 0 AND m.w_count <= 2 AND m.b_minor_or_more = 0)
         OR (m.w_knights = 0 AND (m.w_bishops = 0 OR ((m.dark_bishops = 0 OR m.light_bishops = 0) AND m.pawns_knights = 0)))
       ) AS white_insufficient,
       m.b_heavy = 0 AND (
         (m.b_knights > 0 AND m.b_count <= 2 AND m.w_minor_or_more = 0)
         OR (m.b_knights = 0 AND (m.b_bishops = 0 OR ((m.dark_bishops = 0 OR m.light_bishops = 0) AND m.pawns_knights = 0)))
       ) AS black_insufficient,
       k.white, k.black, k.pawns, k.knights, k.bishops, k.rooks, k.queens, k.kings,
       k.white_to_move, k.castling,
       k.ep_square,
       CAST(COALESCE(c.ep_to, -1) AS INT) AS ep_key
FROM positions pos
JOIN material m ON m.position_id = pos.position_id
JOIN position_keys k ON k.position_id = pos.position_id
LEFT JOIN counts c ON c.position_id = pos.position_id
JOIN threats t ON t.position_id = pos.position_id
