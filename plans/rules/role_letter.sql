-- Rule `role_letter`: the letter of a role's code (rule `role_code`): P 0, N 1, B 2, R 3,
-- Q 4, K 5 (PGN standard §8.2.3); NULL for NULL. (A CASE: DataFusion evaluates it in half
-- the time of a substring of 'PNBRQK'.)
-- $1: the code (Int32).
CASE $1 WHEN 0 THEN 'P' WHEN 1 THEN 'N' WHEN 2 THEN 'B' WHEN 3 THEN 'R' WHEN 4 THEN 'Q' WHEN 5 THEN 'K' END
