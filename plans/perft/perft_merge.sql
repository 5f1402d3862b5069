-- Stage `perft_merge`: transpositions merged: the nodes of one bucket of a perft level
-- (`perft_bucket`: rows of `perft_frontier`, or the roots) with the same root and the same
-- position key (the columns of `position_keys`, the en passant square as given) become one
-- node whose multiplicity is the sum, so each distinct position is expanded or counted once.
-- Equal keys always hash to the same bucket, so merging bucket by bucket merges the level.
-- `approx_multiplicity` (a float) tells when a multiplicity exceeds 2^64.
-- Columns: root_id, multiplicity, approx_multiplicity, white_to_move, castling, ep_square,
--          white, black, pawns, knights, bishops, rooks, queens, kings.
SELECT b.root_id, SUM(b.multiplicity) AS multiplicity,
       SUM(CAST(b.multiplicity AS DOUBLE) * 1.0) AS approx_multiplicity,
       b.white_to_move, b.castling, b.ep_square,
       b.white, b.black, b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings
FROM perft_bucket b
GROUP BY b.root_id, b.white, b.black, b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings,
         b.white_to_move, b.castling, b.ep_square
