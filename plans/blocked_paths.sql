-- Stage `blocked_paths` (seed +stage2 ... +stage5: "is a piece in the way"): per ray, the
-- distance of the first occupied square. `xray_block_step` ignores the king the ray's piece
-- attacks, so a king in check cannot step back along the checking line (FIDE art. 3.9).
-- Columns: position_id, ray, block_step, xray_block_step (NULL = nothing blocks).
SELECT position_id, ray,
       MIN(step) AS block_step,
       MIN(CASE WHEN target_piece = 'K' AND target_color <> color THEN NULL ELSE step END) AS xray_block_step
FROM candidates
WHERE target_color IS NOT NULL
GROUP BY position_id, ray
