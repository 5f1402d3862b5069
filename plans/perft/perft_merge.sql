-- Stage `perft_merge`: transpositions merged: positions of one root with equal keys become
-- one node whose multiplicity is the sum, so each distinct position is expanded once.
-- `approx_multiplicity` (a float) tells when a multiplicity exceeds 2^64.
-- Columns: position_id (a representative), root_id, multiplicity, approx_multiplicity.
SELECT MIN(n.position_id) AS position_id, n.root_id, SUM(n.multiplicity) AS multiplicity,
       SUM(CAST(n.multiplicity AS DOUBLE) * 1.0) AS approx_multiplicity
FROM perft_nodes n
JOIN position_keys k ON k.position_id = n.position_id
GROUP BY n.root_id, k.white, k.black, k.pawns, k.knights, k.bishops, k.rooks, k.queens, k.kings,
         k.side_to_move, k.castling,
         k.ep_square
