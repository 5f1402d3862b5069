-- Stage `reach` (seed +stage1 ... +stage8): the squares each piece really reaches: its rays
-- from `piece_rays`, kept while the squares before the target are empty (the first blocker's
-- square included), with what stands on the target. Enemy pawn pushes are dropped (they
-- attack nothing). Own rows are pseudo-legal move candidates; enemy rows are attacks, seen
-- through the own king (`occupied_xray`).
-- Columns: position_id, from_sq, color, piece, ray, step, to_sq, mode,
--          own (the piece belongs to the side to move), ep_square (of the position),
--          target_color, target_piece (NULL = empty square).
SELECT p.position_id, p.square AS from_sq, p.color, p.piece,
       r.ray, r.step, r.to_sq, r.mode,
       p.color = b.side_to_move AS own, b.ep_square,
       CASE WHEN b.white & r.to_bit <> 0 THEN 'w' WHEN b.black & r.to_bit <> 0 THEN 'b' END AS target_color,
       CASE WHEN b.occupied & r.to_bit = 0 THEN NULL
            WHEN b.pawns & r.to_bit <> 0 THEN 'P'
            WHEN b.knights & r.to_bit <> 0 THEN 'N'
            WHEN b.bishops & r.to_bit <> 0 THEN 'B'
            WHEN b.rooks & r.to_bit <> 0 THEN 'R'
            WHEN b.queens & r.to_bit <> 0 THEN 'Q'
            ELSE 'K' END AS target_piece
FROM boards b
JOIN pieces p ON p.position_id = b.position_id
JOIN piece_rays r ON r.color = p.color AND r.piece = p.piece AND r.from_sq = p.square
WHERE CASE WHEN p.color = b.side_to_move THEN b.occupied & r.between_mask = 0
           ELSE r.mode <> 'push' AND b.occupied_xray & r.between_mask = 0 END
