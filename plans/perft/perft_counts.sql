-- Stage `perft_counts`: the last level of perft: per root, the legal moves of every node
-- times the node's multiplicity. `approx_nodes` (a float) tells when the count exceeds 2^64.
-- Columns: root_id, nodes, approx_nodes.
SELECT n.root_id, CAST(SUM(n.multiplicity * CAST(c.n_moves AS BIGINT UNSIGNED)) AS BIGINT UNSIGNED) AS nodes,
       SUM(CAST(n.multiplicity AS DOUBLE) * CAST(c.n_moves AS DOUBLE) * 1.0) AS approx_nodes
FROM perft_nodes n
JOIN (SELECT position_id, COUNT(*) AS n_moves FROM legal_moves GROUP BY position_id) c
  ON c.position_id = n.position_id
GROUP BY n.root_id
