-- Stage `perft_frontier`: the children of the positions being expanded, as nodes of the next
-- perft level: each child's position key (`position_keys`: the board as the eight square
-- sets, side to move, castling rights, en passant square) with its root and multiplicity
-- (`perft_children`). The engine hashes these rows by key into the buckets of the next level
-- (kept in memory, or spilled to Arrow IPC files when the level is large), where
-- `perft_merge` merges transpositions bucket by bucket.
-- Columns: the columns of `perft_bucket`: root_id, multiplicity, side_to_move, castling,
--          ep_square, white, black, pawns, knights, bishops, rooks, queens, kings.
SELECT c.root_id, c.multiplicity, k.side_to_move, k.castling, k.ep_square,
       k.white, k.black, k.pawns, k.knights, k.bishops, k.rooks, k.queens, k.kings
FROM perft_children c
JOIN position_keys k ON k.position_id = c.position_id
