-- Rule `role_code`: a piece's role as a number, the order of python-chess's piece types less
-- one: P 0, N 1, B 2, R 3, Q 4, K 5. The stages key a piece on a square by
-- square * 16 + (0 for White, 8 for Black) + role_code (`piece_rays.to_key`,
-- `castling_loss.mover_key`, `placed.kind`, `pieces.piece_code`).
-- $1: the piece letter, uppercase.
CASE $1 WHEN 'P' THEN 0 WHEN 'N' THEN 1 WHEN 'B' THEN 2 WHEN 'R' THEN 3 WHEN 'Q' THEN 4 ELSE 5 END
