-- Stage `blocked_paths` (seed +stage2 ... +stage5: "is a piece in the way"): per ray, the
-- distance of the first occupied square. `xray_block_step` ignores the king the ray's piece
-- attacks, so a king in check cannot step back along the checking line (FIDE art. 3.9).
-- Columns: position_id, ray, block_step, xray_block_step (NULL = nothing blocks).
SELECT c.position_id, c.ray,
       MIN(c.step) AS block_step,
       MIN(CASE WHEN o.piece = 'K' AND o.color <> c.color THEN NULL ELSE c.step END) AS xray_block_step
FROM candidates c
JOIN pieces o ON o.position_id = c.position_id AND o.square = c.to_sq
GROUP BY c.position_id, c.ray
