-- Stage `pseudo_moves` (seed +stage1 ... +stage7, +stage10, +stage11): moves of the side to
-- move that obey each piece's movement rules (FIDE art. 3.1-3.7) before king safety is
-- checked: every own piece joined with its rays from `piece_rays`, kept while the squares
-- before the target are empty (one AND with the ray's `between_mask`, where the seed walks
-- each path stage by stage), then: a slide or jump to an empty square or onto an enemy
-- piece, a pawn push to an empty square, a pawn capture onto an enemy piece or onto the en
-- passant square (art. 3.7.4). Castling: `castling`.
-- Columns: position_id, color, piece, from_sq, to_sq, captured (piece letter or NULL),
--          is_en_passant, cap_sq (square of the captured piece, NULL for quiet moves),
--          from_bit, to_bit (UInt64: 1 << from_sq, 1 << to_sq).
SELECT p.position_id, p.color, p.piece, p.square AS from_sq, r.to_sq,
       CASE WHEN b.enemy & r.to_bit = 0 THEN CASE WHEN r.mode = 'capture' THEN 'P' END
            WHEN b.pawns & r.to_bit <> 0 THEN 'P'
            WHEN b.knights & r.to_bit <> 0 THEN 'N'
            WHEN b.bishops & r.to_bit <> 0 THEN 'B'
            WHEN b.rooks & r.to_bit <> 0 THEN 'R'
            WHEN b.queens & r.to_bit <> 0 THEN 'Q'
            ELSE 'K' END AS captured,
       r.mode = 'capture' AND b.enemy & r.to_bit = 0 AS is_en_passant,
       CASE WHEN b.enemy & r.to_bit <> 0 THEN r.to_sq
            WHEN r.mode = 'capture' THEN CASE WHEN p.color = 'w' THEN r.to_sq - 8 ELSE r.to_sq + 8 END
       END AS cap_sq,
       p.bit AS from_bit, r.to_bit
FROM boards b
JOIN placed p ON p.position_id = b.position_id AND p.own
JOIN piece_rays r ON r.piece_key = p.piece_key
WHERE b.occupied & r.between_mask = 0
  AND CASE r.mode
        WHEN 'slide' THEN b.own & r.to_bit = 0
        WHEN 'push' THEN b.occupied & r.to_bit = 0
        ELSE b.enemy & r.to_bit <> 0 OR (b.occupied & r.to_bit = 0 AND r.to_sq = b.ep_square)
      END
