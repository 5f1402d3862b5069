-- Stage `pseudo_moves` (seed +stage10, +stage11): moves of the side to move that obey each
-- piece's movement rules (FIDE art. 3.1-3.7) before king safety is checked: a slide or jump
-- to an empty square or onto an enemy piece, a pawn push to an empty square, a pawn capture
-- onto an enemy piece or onto the en passant square (art. 3.7.4). Castling: `castling`.
-- Columns: position_id, color, piece, from_sq, to_sq, captured (piece letter or NULL),
--          is_en_passant, cap_sq (square of the captured piece, NULL for quiet moves).
SELECT r.position_id, r.color, r.piece, r.from_sq, r.to_sq,
       CASE WHEN r.target_color IS NULL THEN CASE WHEN r.mode = 'capture' THEN 'P' END ELSE r.target_piece END AS captured,
       r.mode = 'capture' AND r.target_color IS NULL AS is_en_passant,
       CASE WHEN r.target_color IS NOT NULL THEN r.to_sq
            WHEN r.mode = 'capture' THEN CASE WHEN r.color = 'w' THEN r.to_sq - 8 ELSE r.to_sq + 8 END END AS cap_sq
FROM reach r
WHERE r.own
  AND CASE r.mode
        WHEN 'slide' THEN r.target_color IS NULL OR r.target_color <> r.color
        WHEN 'push' THEN r.target_color IS NULL
        ELSE (r.target_color IS NOT NULL AND r.target_color <> r.color)
          OR (r.target_color IS NULL AND r.to_sq = r.ep_square)
      END
