-- Rule `rights_lost` (FIDE art. 3.8.2.1): the castling rights (as rook squares) a move ends:
-- those its piece loses by leaving its square (`castling_loss.lost`: the rook's own right;
-- every right of its colour for a king), and the right of a rook captured on the target
-- square. `piece_rays.castling_lost` and `next_positions` take it from here.
-- $1: `castling_loss.lost` of the piece and its start square (UInt64, NULL as none); $2: the
-- target square's bit (UInt64).
COALESCE($1, CAST(0 AS BIGINT UNSIGNED)) | $2
