//! Arrows and circled squares drawn on a board: what the `[%cal Ge2e4,Rd8d1]` and `[%csl
//! Gd4]` commands that lichess and ChessBase write into a move's comment hold (read from
//! the comment by [`crate::pgn::commands::mark_commands`]). A mark is written as a colour
//! letter (`G` green, `R` red, `Y` yellow, `B` blue) and one square (a circle) or two (an
//! arrow from the first to the second): `Gd4`, `Re2e4`.

use std::fmt;

use super::square::parse_square;

/// A mark's colour, by its letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkColor {
    /// `G`.
    Green,
    /// `R`.
    Red,
    /// `Y`.
    Yellow,
    /// `B`.
    Blue,
}

impl MarkColor {
    /// The colour of letter `c` (`G`, `R`, `Y`, `B`; lower case too, as lichess reads them).
    #[must_use]
    pub fn from_char(c: char) -> Option<MarkColor> {
        match c.to_ascii_uppercase() {
            'G' => Some(MarkColor::Green),
            'R' => Some(MarkColor::Red),
            'Y' => Some(MarkColor::Yellow),
            'B' => Some(MarkColor::Blue),
            _ => None,
        }
    }

    /// The letter, upper case.
    #[must_use]
    pub fn letter(self) -> char {
        match self {
            MarkColor::Green => 'G',
            MarkColor::Red => 'R',
            MarkColor::Yellow => 'Y',
            MarkColor::Blue => 'B',
        }
    }
}

/// An arrow or a circled square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// An arrow from the first square to the second (a1 = 0 … h8 = 63).
    Arrow(MarkColor, u8, u8),
    /// A circle around a square.
    Circle(MarkColor, u8),
}

/// A mark token that is not one: the token, quoted as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad arrow {0:?}: write a colour letter (G, R, Y or B) and one square to circle it (Gd4) \
     or two for an arrow (Ge2e4)"
)]
pub struct MarkError(pub String);

impl Mark {
    /// Reads one token (`Ge2e4`, `Gd4`). Errors: [`MarkError`] naming it.
    pub fn parse(token: &str) -> Result<Mark, MarkError> {
        let bad = || MarkError(token.to_string());
        let mut chars = token.chars();
        let color = chars
            .next()
            .and_then(MarkColor::from_char)
            .ok_or_else(bad)?;
        let rest = chars.as_str();
        let square = |s: Option<&str>| s.and_then(parse_square).ok_or_else(bad);
        match rest.len() {
            2 => Ok(Mark::Circle(color, square(Some(rest))?)),
            4 => {
                let (from, to) = (square(rest.get(..2))?, square(rest.get(2..))?);
                Ok(if from == to {
                    Mark::Circle(color, from)
                } else {
                    Mark::Arrow(color, from, to)
                })
            }
            _ => Err(bad()),
        }
    }

    /// Reads a list of tokens separated by spaces or commas (`"Ge2e4 Rd8d1"`,
    /// `"Ge2e4,Gd4"`). Errors: [`MarkError`] naming the first bad token.
    pub fn parse_list(text: &str) -> Result<Vec<Mark>, MarkError> {
        text.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(Mark::parse)
            .collect()
    }
}

impl fmt::Display for Mark {
    /// The token: `Ge2e4`, `Gd4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = super::square::square_name;
        match *self {
            Mark::Arrow(c, from, to) => write!(f, "{}{}{}", c.letter(), name(from), name(to)),
            Mark::Circle(c, sq) => write!(f, "{}{}", c.letter(), name(sq)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(
            Mark::parse("Ge2e4"),
            Ok(Mark::Arrow(MarkColor::Green, 12, 28))
        );
        assert_eq!(Mark::parse("rd4"), Ok(Mark::Circle(MarkColor::Red, 27)));
        assert_eq!(Mark::parse("Ge2e2"), Ok(Mark::Circle(MarkColor::Green, 12)));
        for bad in ["", "G", "Xe2e4", "Ge2e9", "Ge2e4x", "Gé2", "G e2"] {
            assert_eq!(Mark::parse(bad), Err(MarkError(bad.to_string())), "{bad:?}");
        }
        assert_eq!(
            Mark::parse_list(" Ge2e4,Rd8d1  Yh1 ").map(|v| v.len()),
            Ok(3)
        );
        assert_eq!(Mark::parse_list("Ge2e4 Qd1").unwrap_err().0, "Qd1");
        assert_eq!(
            Mark::parse("Bh8a1").map(|m| m.to_string()),
            Ok("Bh8a1".into())
        );
    }
}
