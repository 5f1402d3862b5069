-- Stage `material_matches` (pgn-extract's material balance `-z`: its manual, "Material
-- matches"): the positions of `material_counts` whose material satisfies every term of one
-- orientation of one of their descriptions in `material_patterns` (`pattern_no`). A term counts one side's pieces of
-- one kind (`L`: knights and bishops together) and requires the count to lie between
-- `min_count` and `max_count` and to stand in `relation` to the other side's count of that
-- kind: `same`, `different`; `at_least_more`, `at_least_fewer` (by at least `by`);
-- `exactly_more`, `exactly_fewer` (by exactly `by`). A description is tested both ways round
-- (orientation 0: its first side is White; 1: Black), as `-z` does; each side has a `K`
-- term that admits any count, so that an orientation whose other terms admit anything is
-- still there; kings are never counted.
-- Columns: matched_id (UInt64: the position_id; once per description and orientation that
--   matches).
WITH counted AS (
  SELECT t.position_id, t.pattern_no, t.orientation, t.color, t.min_count, t.max_count, t.relation, t.by,
         CASE t.kind WHEN 'P' THEN c.white_pawns WHEN 'N' THEN c.white_knights
                     WHEN 'B' THEN c.white_bishops WHEN 'R' THEN c.white_rooks
                     WHEN 'Q' THEN c.white_queens WHEN 'L' THEN c.white_knights + c.white_bishops
                     ELSE c.white_kings END AS white_n,
         CASE t.kind WHEN 'P' THEN c.black_pawns WHEN 'N' THEN c.black_knights
                     WHEN 'B' THEN c.black_bishops WHEN 'R' THEN c.black_rooks
                     WHEN 'Q' THEN c.black_queens WHEN 'L' THEN c.black_knights + c.black_bishops
                     ELSE c.black_kings END AS black_n
  FROM material_patterns t
  JOIN material_counts c ON c.position_id = t.position_id
),
terms AS (
  SELECT position_id, pattern_no, orientation, min_count, max_count, relation, by,
         CASE WHEN color = 'w' THEN white_n ELSE black_n END AS own_n,
         CASE WHEN color = 'w' THEN black_n ELSE white_n END AS other_n
  FROM counted
)
SELECT position_id AS matched_id
FROM terms
GROUP BY position_id, pattern_no, orientation
HAVING bool_and(own_n BETWEEN min_count AND max_count
                AND CASE relation
                      WHEN 'same' THEN own_n = other_n
                      WHEN 'different' THEN own_n <> other_n
                      WHEN 'at_least_more' THEN own_n >= other_n + by
                      WHEN 'at_least_fewer' THEN own_n + by <= other_n
                      WHEN 'exactly_more' THEN own_n = other_n + by
                      WHEN 'exactly_fewer' THEN own_n + by = other_n
                      ELSE true END)
