//! A position as bitboards ([`Bitboards`]): one square set per colour and per role, as the
//! pipeline's `replay_states` rows hold it (see `crate::stages::tables::SET_COLUMNS`), for
//! rows that keep many positions (one per ply of `read_plies`): half the size of a
//! [`Setup`], read from a `replay_states` row without walking its squares, and its pieces
//! counted or hashed by set bits.

use crate::chess::castling::CastlingRights;
use crate::chess::color::Color;
use crate::chess::role::{Piece, Role};
use crate::chess::setup::Setup;

/// A position as square sets (bit n = square n, a1 = 0 … h8 = 63) and the FEN's other
/// fields ([`Setup`]'s). A square holds a piece when it is in a colour's set (White's when
/// in both) and in one role's set; [`Bitboards::cut_to_colors`] keeps no role bit outside the
/// colours' sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bitboards {
    /// White's pieces, Black's, then the pawns, knights, bishops, rooks, queens and kings of
    /// both colours ([`Bitboards::color_set`], [`Bitboards::role_set`]).
    pub sets: [u64; 8],
    /// [`Setup::side_to_move`].
    pub side_to_move: Color,
    /// [`Setup::castling`]: the rooks holding a right.
    pub castling: CastlingRights,
    /// [`Setup::chess960`].
    pub chess960: bool,
    /// [`Setup::ep_square`]: as the FEN writes it.
    pub ep_square: Option<u8>,
    /// [`Setup::halfmove_clock`] (FIDE Laws 9.3, 9.6.2).
    pub halfmove_clock: u32,
    /// [`Setup::fullmove_number`].
    pub fullmove_number: u32,
}

impl Bitboards {
    /// The sets `sets` (white, black, pawns … kings) with each role's set cut to the
    /// colours' squares: what [`Bitboards::sets`] holds.
    #[must_use]
    pub fn cut_to_colors(mut sets: [u64; 8]) -> [u64; 8] {
        let occupied = sets[0] | sets[1];
        for set in &mut sets[2..] {
            *set &= occupied;
        }
        sets
    }

    /// The squares of `color`'s pieces.
    #[must_use]
    pub fn color_set(&self, color: Color) -> u64 {
        self.sets[usize::from(color == Color::Black)]
    }

    /// The squares of the pieces of `role`, both colours.
    #[must_use]
    pub fn role_set(&self, role: Role) -> u64 {
        self.sets[2 + role as usize]
    }

    /// The piece on `sq` (0..64), if any.
    #[must_use]
    pub fn piece_at(&self, sq: u8) -> Option<Piece> {
        let bit = 1u64.checked_shl(u32::from(sq))?;
        let color = if self.sets[0] & bit != 0 {
            Color::White
        } else if self.sets[1] & bit != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = Role::ALL
            .into_iter()
            .find(|r| self.role_set(*r) & bit != 0)?;
        Some(Piece { color, role })
    }

    /// Every piece with its square, by role (pawns first), then square.
    pub fn pieces(&self) -> impl Iterator<Item = (u8, Piece)> + '_ {
        Role::ALL.into_iter().flat_map(move |role| {
            squares(self.role_set(role)).map(move |sq| {
                let color = if self.sets[0] >> sq & 1 == 1 {
                    Color::White
                } else {
                    Color::Black
                };
                (sq, Piece { color, role })
            })
        })
    }

    /// The same position as a [`Setup`] (its board filled square by square).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup::empty();
        for (sq, piece) in self.pieces() {
            s.board[usize::from(sq)] = Some(piece);
        }
        s.side_to_move = self.side_to_move;
        s.castling = self.castling;
        s.chess960 = self.chess960;
        s.ep_square = self.ep_square;
        s.halfmove_clock = self.halfmove_clock;
        s.fullmove_number = self.fullmove_number;
        s
    }
}

impl Default for Bitboards {
    /// The standard starting position.
    fn default() -> Bitboards {
        Bitboards::from(&Setup::standard())
    }
}

impl From<&Setup> for Bitboards {
    fn from(setup: &Setup) -> Bitboards {
        let mut sets = [0u64; 8];
        for (sq, cell) in setup.board.iter().enumerate() {
            if let Some(p) = cell {
                let bit = 1u64 << sq;
                sets[usize::from(p.color == Color::Black)] |= bit;
                sets[2 + p.role as usize] |= bit;
            }
        }
        Bitboards {
            sets,
            side_to_move: setup.side_to_move,
            castling: setup.castling,
            chess960: setup.chess960,
            ep_square: setup.ep_square,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number,
        }
    }
}

/// The squares of a set, lowest first.
pub fn squares(mut set: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let sq = set.trailing_zeros() as u8;
            set &= set - 1;
            sq
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_reads_back_from_its_bitboards() {
        for fen in [
            crate::chess::fen::STARTING_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - e3 0 7",
        ] {
            let s = Setup::parse_unchecked(fen).expect("FEN");
            let b = Bitboards::from(&s);
            assert_eq!(b.to_setup(), s, "{fen}");
            for sq in 0..64 {
                assert_eq!(b.piece_at(sq), s.piece_at(sq), "{fen} square {sq}");
            }
            assert_eq!(b.piece_at(64), None);
        }
    }

    #[test]
    fn role_bits_without_a_colour_hold_no_piece() {
        let s = Setup::empty();
        // a pawn on a2 without a colour
        let b = Bitboards {
            sets: Bitboards::cut_to_colors([0, 0, 1 << 8, 0, 0, 0, 0, 0]),
            ..Bitboards::from(&s)
        };
        assert_eq!(b.pieces().count(), 0);
        assert_eq!(b.piece_at(8), None);
        assert_eq!(b.to_setup(), s);
    }
}
