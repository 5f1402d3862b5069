-- Rule `role_letter`: the letter of a role's code (rule `role_code`): P 0, N 1, B 2, R 3,
-- Q 4, K 5 (PGN standard §8.2.3); NULL for NULL.
-- $1: the code (Int32).
substr('PNBRQK', $1 + 1, 1)
