-- Rule `king_capture_rights`: the castling rights (rook squares) a move ends by capturing the
-- other side's king: every right of that side (its back rank), as python-chess's
-- `clean_castling_rights` keeps no right of a side without its king. The Laws never reach
-- it (art. 1.2: a king is not captured), but a null move may leave a king attacked.
-- $1: whether White moved (Boolean); $2: whether the move captures a king (NULL as no).
CASE WHEN $2 THEN CASE WHEN $1 THEN CAST(18374686479671623680 AS BIGINT UNSIGNED)
                       ELSE CAST(255 AS BIGINT UNSIGNED) END
     ELSE CAST(0 AS BIGINT UNSIGNED) END
