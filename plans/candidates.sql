-- Stage `candidates` (seed +moves, +stage1): every square each piece would reach on an
-- empty board, joined from `piece_rays`. Enemy pawn pushes are dropped (they attack nothing).
-- Columns: position_id, from_sq, color, piece, ray, step, to_sq, mode, own
--          (own = the piece belongs to the side to move).
SELECT p.position_id, p.square AS from_sq, p.color, p.piece,
       r.ray, r.step, r.to_sq, r.mode,
       p.color = pos.side_to_move AS own
FROM positions pos
JOIN pieces p ON p.position_id = pos.position_id
JOIN piece_rays r ON r.color = p.color AND r.piece = p.piece AND r.from_sq = p.square
WHERE r.mode <> 'push' OR p.color = pos.side_to_move
