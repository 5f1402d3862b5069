//! Castling rights ([`CastlingRights`]): which rooks may still castle, kept as their squares.
//! How they are read from and written to a FEN's castling field is in [`super::fen`];
//! whether they fit the board is [`super::setup::Setup::validate`].

/// Castling availability (PGN standard §16.1.3.3; FIDE Laws 3.8.2; Chess960: the Laws'
/// Guidelines II) as the set of rook squares that hold a right (bit n = square n, a1 = 0), as
/// python-chess and shakmaty keep it: in standard chess a subset of a1, h1, a8, h8; in
/// Chess960 any rook of the back rank. A right only says that neither the king nor that rook
/// has moved; whether castling is possible now is a question for move generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights(u64);

impl CastlingRights {
    /// No castling rights (`-`).
    pub const NONE: CastlingRights = CastlingRights(0);

    /// The four rights of the standard initial position (`KQkq`): rooks on a1, h1, a8, h8.
    pub const ALL: CastlingRights = CastlingRights(1 | 1 << 7 | 1 << 56 | 1 << 63);

    /// The rights of the rooks on the squares set in `rooks` (bit n = square n). Squares off
    /// the back ranks hold no right: their bits are dropped.
    pub const fn from_rooks(rooks: u64) -> CastlingRights {
        CastlingRights(rooks & (0xff | 0xff << 56))
    }

    /// The rook squares holding a right, as a square set (bit n = square n).
    pub const fn rooks(self) -> u64 {
        self.0
    }

    /// Whether the rook on `sq` holds a right.
    pub const fn has(self, sq: u8) -> bool {
        sq < 64 && self.0 >> sq & 1 == 1
    }

    /// True when no right is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The squares holding a right, highest first (h-side before a-side, python-chess's
    /// order of castling letters).
    pub(super) fn squares_desc(self) -> impl Iterator<Item = u8> {
        (0..64u8).rev().filter(move |sq| self.has(*sq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_rooks() {
        assert_eq!(CastlingRights::ALL.rooks(), 0x8100_0000_0000_0081);
        assert!(CastlingRights::NONE.is_empty());
    }
}
