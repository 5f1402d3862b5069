-- Stage `setup_checks`: set-up positions (FEN) that no legal game reaches, by the attack
-- rules python-chess `Board.status()` applies: the side not to move is in check (FIDE art.
-- 3.9: a king cannot be left attacked; adjacent kings included), more than two pieces give
-- check, or two checkers stand on one line with the king (no single move uncovers both),
-- or an en passant square says the last move was a double pawn push (art. 3.7.4.1) that
-- cannot have given the check the side to move is in: any double check, or a check by a
-- piece that reaches the king with the pawn back on its start square (python-chess 1.11
-- `status()` IMPOSSIBLE_CHECK with a valid en passant square).
-- Columns: position_id, kind ('kings_adjacent' | 'opposite_check' | 'too_many_checkers' |
--          'impossible_check'), message.
WITH opposite AS (
  SELECT position_id, MIN(CASE WHEN piece_code = 5 THEN 1 ELSE 2 END) AS by_king
  FROM pseudo_moves
  WHERE captured_code = 5 /* K */
  GROUP BY position_id
),
-- set-ups in check with an en passant square (valid: checked by the FEN reader), with the
-- pushed pawn's square and its start square as square sets
ep_checks AS (
  SELECT t.position_id, t.n_checkers, t.checkers, b.king_sq, b.occupied,
         CASE WHEN b.white_to_move THEN b.ep_bit >> 8 ELSE b.ep_bit << 8 END AS pushed_bit,
         CASE WHEN b.white_to_move THEN b.ep_bit << 8 ELSE b.ep_bit >> 8 END AS start_bit
  FROM threats t
  JOIN boards b ON b.position_id = t.position_id
  WHERE b.ep_square IS NOT NULL AND t.n_checkers > 0
),
-- of those, the ones whose king an enemy piece attacks on the board before the push
-- (the pawn back on its start square)
checked_before AS (
  SELECT DISTINCT e.position_id
  FROM ep_checks e
  JOIN placed p ON p.position_id = e.position_id AND NOT p.own
  JOIN piece_rays r ON r.piece_key = p.piece_key AND r.to_sq = e.king_sq
  WHERE r.attacks AND r.between_mask & ((e.occupied - e.pushed_bit) | e.start_bit) = 0
)
SELECT position_id,
       CASE WHEN by_king = 1 THEN 'kings_adjacent' ELSE 'opposite_check' END AS kind,
       CASE WHEN by_king = 1 THEN 'the two kings stand on adjacent squares'
            ELSE 'the side not to move is in check' END AS message
FROM opposite
UNION ALL
SELECT position_id, 'too_many_checkers', 'more than two pieces give check' FROM threats WHERE n_checkers > 2
UNION ALL
-- both checkers on one rank, file or diagonal through the king: its two opposite rays
SELECT t.position_id, 'impossible_check', 'two checking pieces stand on one line with the king'
FROM threats t
JOIN square_masks m ON m.square = t.king_sq
WHERE t.n_checkers = 2
  AND (t.checkers & (m.ray_n | m.ray_s) = t.checkers OR t.checkers & (m.ray_e | m.ray_w) = t.checkers
       OR t.checkers & (m.ray_ne | m.ray_sw) = t.checkers OR t.checkers & (m.ray_nw | m.ray_se) = t.checkers)
UNION ALL
SELECT e.position_id, 'impossible_check',
       'the en passant square says the last move was a double pawn push, which cannot have given this check'
FROM ep_checks e
LEFT JOIN checked_before c ON c.position_id = e.position_id
WHERE e.n_checkers > 1 OR (e.checkers <> e.pushed_bit AND c.position_id IS NOT NULL)
