//! The two sides, [`Color`] (FIDE Laws, Article 2.1), and the colour-dependent helpers of
//! the chess vocabulary: a colour's back rank and letter case.

/// A side (colour) in chess (FIDE Laws, Article 2.1: White and Black).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// White, moves first.
    White,
    /// Black.
    Black,
}

impl Color {
    /// The FEN side-to-move letter: `'w'` or `'b'` (PGN standard §16.1.3.2).
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Parses a FEN side-to-move letter (`'w'` or `'b'`, lower case only); `None` otherwise.
    pub const fn from_char(c: char) -> Option<Color> {
        match c {
            'w' => Some(Color::White),
            'b' => Some(Color::Black),
            _ => None,
        }
    }

    /// The colour's name in the columns of plies (`color`): `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The colour a Boolean `white_to_move` or `white` column of the stage tables names:
    /// White when true.
    pub const fn of_white(white: bool) -> Color {
        if white { Color::White } else { Color::Black }
    }

    /// The opponent.
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// The back rank of a colour, 0-based (rank 1 for white, rank 8 for black).
pub(super) const fn back_rank(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => 7,
    }
}

/// A letter in the case of a colour: upper for white, lower for black.
pub(super) const fn cased(color: Color, c: char) -> char {
    match color {
        Color::White => c.to_ascii_uppercase(),
        Color::Black => c.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_opponent() {
        assert_eq!(Color::White.other(), Color::Black);
        assert_eq!((Color::White.char(), Color::Black.char()), ('w', 'b'));
        assert_eq!(Color::from_char('b'), Some(Color::Black));
        assert_eq!(Color::from_char('B'), None);
    }
}
