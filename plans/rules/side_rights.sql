-- Rule `side_rights`: every castling right a side can hold, as rook squares (the squares of
-- its back rank, as the `castling` column of `positions` holds them): what a king's move ends
-- (FIDE art. 3.8.2.1, `castling_loss`) and what a side loses with its king when a move takes
-- it (rule `after_move`; the Laws never reach it, art. 1.2, but a null move may leave a king
-- attacked, and python-chess's `clean_castling_rights` keeps no right of a side without its
-- king).
-- $1: whether the side is White (Boolean).
CASE WHEN $1 THEN CAST(255 AS BIGINT UNSIGNED) ELSE CAST(18374686479671623680 AS BIGINT UNSIGNED) END
