-- Stage `perft_children`: the perft tree one level down: each child position of
-- `chosen_moves` inherits its parent's root and multiplicity (how many move paths lead to
-- the parent). Columns: position_id, root_id, multiplicity.
SELECT c.child_id AS position_id, n.root_id, n.multiplicity
FROM perft_nodes n
JOIN chosen_moves c ON c.position_id = n.position_id
