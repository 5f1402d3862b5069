//! Chessmen: the kinds of piece, [`Role`] (FIDE Laws, Article 2.2), and a role with its
//! colour, [`Piece`], with their letters (PGN standard §8.2.3 and §16.1.3.1).

use crate::chess::color::Color;

/// A kind of chessman (FIDE Laws, Article 2.2), without colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Pawn, `P`.
    Pawn,
    /// Knight, `N`.
    Knight,
    /// Bishop, `B`.
    Bishop,
    /// Rook, `R`.
    Rook,
    /// Queen, `Q`.
    Queen,
    /// King, `K`.
    King,
}

impl Role {
    /// All roles, pawn to king.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The upper-case English letter of the role: `'P'`, `'N'`, `'B'`, `'R'`, `'Q'`, `'K'`
    /// (PGN standard §8.2.3 and §16.1.3.1).
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// The role's code in the stages (rule `role_code` of plans/rules/, the order of
    /// python-chess's piece types less one): pawn 0, knight 1, bishop 2, rook 3, queen 4,
    /// king 5.
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// Parses an upper-case role letter (`P`, `N`, `B`, `R`, `Q`, `K`); `None` for anything
    /// else, including lower case.
    pub const fn from_char(c: char) -> Option<Role> {
        match c {
            'P' => Some(Role::Pawn),
            'N' => Some(Role::Knight),
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            'K' => Some(Role::King),
            _ => None,
        }
    }
}

/// A chessman: a role and a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind of piece.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: upper case for white, lower case for black (PGN standard §16.1.3.1).
    pub const fn fen_char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::White => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Parses a FEN piece letter (`PNBRQK` white, `pnbrqk` black); `None` otherwise.
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        match Role::from_char(c.to_ascii_uppercase()) {
            Some(role) => Some(Piece {
                color: if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                },
                role,
            }),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters() {
        for role in Role::ALL {
            assert_eq!(Role::from_char(role.char()), Some(role));
            for color in [Color::White, Color::Black] {
                let p = Piece { color, role };
                assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
            }
        }
        assert_eq!(Role::from_char('p'), None);
        assert_eq!(Piece::from_fen_char('x'), None);
    }
}
