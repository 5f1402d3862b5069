-- Stage `candidates` (seed +moves, +stage1): every square each piece would reach on an
-- empty board, joined from `piece_rays`, with what stands on that square. Enemy pawn pushes
-- are dropped (they attack nothing).
-- Columns: position_id, from_sq, color, piece, ray, step, to_sq, mode,
--          own (the piece belongs to the side to move), ep_square (of the position),
--          target_color, target_piece (NULL = empty square).
SELECT p.position_id, p.square AS from_sq, p.color, p.piece,
       r.ray, r.step, r.to_sq, r.mode,
       p.color = pos.side_to_move AS own, pos.ep_square,
       t.color AS target_color, t.piece AS target_piece
FROM positions pos
JOIN pieces p ON p.position_id = pos.position_id
JOIN piece_rays r ON r.color = p.color AND r.piece = p.piece AND r.from_sq = p.square
LEFT JOIN pieces t ON t.position_id = p.position_id AND t.square = r.to_sq
WHERE r.mode <> 'push' OR p.color = pos.side_to_move
