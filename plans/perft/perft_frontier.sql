-- Stage `perft_frontier`: the children of the positions being expanded, as nodes of the next
-- perft level: each child's position key (`position_keys`: the board as the eight square
-- sets, side to move, castling rights, en passant square) with its root and multiplicity
-- (`perft_children`). The engine hashes these rows by key into the buckets of the next level
-- (kept in memory, or spilled to Arrow IPC files when the level is large), where
-- `perft_merge` merges transpositions bucket by bucket.
-- The en passant square is kept only where a pawn of the side to move stands diagonally
-- behind it (`square_masks`: the squares from which a pawn attacks it), as the Polyglot key
-- does. Elsewhere no capture there is possible, so the child's whole subtree is that of the
-- same position without it, and dropping it lets the two merge: 1.e4 e6 2.d4 and 1.d4 e6
-- 2.e4 reach one board with en passant squares d3 and e3, neither capturable. Keeping a
-- square whose capture is pseudo-legal but illegal (a pinned pawn) only merges less.
-- Columns: the columns of `perft_bucket`: root_id, multiplicity, white_to_move, castling,
--          ep_square, white, black, pawns, knights, bishops, rooks, queens, kings.
SELECT c.root_id, c.multiplicity, k.white_to_move, k.castling,
       CASE WHEN k.pawns & (CASE WHEN k.white_to_move THEN k.white ELSE k.black END)
                 & (CASE WHEN k.white_to_move THEN m.black_pawn_mask ELSE m.white_pawn_mask END)
                 <> 0
            THEN k.ep_square END AS ep_square,
       k.white, k.black, k.pawns, k.knights, k.bishops, k.rooks, k.queens, k.kings
FROM perft_children c
JOIN position_keys k ON k.position_id = c.position_id
LEFT JOIN square_masks m ON m.square = k.ep_square
