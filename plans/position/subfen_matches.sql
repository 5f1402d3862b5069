-- Stage `subfen_matches` (Scoutfish's `sub-fen`): the positions of `replay_states` that hold
-- every piece one of their patterns of `subfen_patterns` places, each on its square, the
-- pattern's other squares being unconstrained, and that have the pattern's side to move
-- when it names one. A pattern is square sets as the position is (a white knight on f3 puts
-- f3 in `white` and in `knights`; one piece stands on a square, so the position has f3 in
-- both only when that piece does): each of the pattern's sets is a subset of the
-- position's.
-- Columns: matched_id (UInt64: the position_id; once per pattern it matches).
SELECT s.position_id AS matched_id
FROM subfen_patterns p
JOIN replay_states s ON s.position_id = p.position_id
WHERE (p.white_to_move IS NULL OR p.white_to_move = s.white_to_move)
  AND s.white & p.white = p.white AND s.black & p.black = p.black
  AND s.pawns & p.pawns = p.pawns AND s.knights & p.knights = p.knights
  AND s.bishops & p.bishops = p.bishops AND s.rooks & p.rooks = p.rooks
  AND s.queens & p.queens = p.queens AND s.kings & p.kings = p.kings
