-- Rule `replay_accepted`: the move a replayed game plays at this ply: the one `move` row of
-- `replay_moves` (alias m) that `replay_verdicts` (alias v) accepted, its king not attacked
-- afterwards (FIDE art. 3.9). A FROM clause: `replay_next` and `replay_plies` read it.
replay_verdicts v
JOIN replay_moves m ON m.position_id = v.position_id
WHERE v.accepted AND m.role = 0 /* move */ AND NOT m.attacked
