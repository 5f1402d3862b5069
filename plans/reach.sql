-- Stage `reach` (seed +stage6 ... +stage8): the squares each piece really reaches, rays cut at
-- their first blocker (the blocker's square included), with what stands on the target.
-- Own rows are pseudo-legal move candidates, enemy rows (through the own king) are attacks.
-- Columns: position_id, from_sq, color, piece, ray, step, to_sq, mode, own, ep_square,
--          target_color, target_piece (NULL = empty square).
-- (the first step of a ray is never blocked: only longer steps look up their ray's blocker)
SELECT c.position_id, c.from_sq, c.color, c.piece, c.ray, c.step, c.to_sq, c.mode, c.own, c.ep_square,
       c.target_color, c.target_piece
FROM candidates c
WHERE c.step = 1
UNION ALL
SELECT c.position_id, c.from_sq, c.color, c.piece, c.ray, c.step, c.to_sq, c.mode, c.own, c.ep_square,
       c.target_color, c.target_piece
FROM candidates c
LEFT JOIN blocked_paths b ON b.position_id = c.position_id AND b.ray = c.ray
WHERE c.step > 1
  AND c.step <= COALESCE(CASE WHEN c.own THEN b.block_step ELSE b.xray_block_step END, 8)
