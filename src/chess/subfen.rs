//! Board patterns of `matches_subfen` (Scoutfish's "sub-fen"): a FEN board field in which a
//! piece letter must stand on its square and every other square is unconstrained.
//!
//! The syntax is the board field of FEN (PGN standard §16.1.3.1): eight ranks from the 8th to
//! the 1st separated by `/`, each naming its eight squares from the a-file to the h-file,
//! a piece letter (`PNBRQK` White, `pnbrqk` Black) for one square or a digit `1`–`8` for
//! that many squares. In a pattern the squares a digit covers are "any", not "empty"
//! (Scoutfish `sub-fen`, aix `matches_subfen`).

use crate::chess::role::Piece;

/// A parsed pattern: the squares it requires, as the pipeline's square sets (bit n = square
/// n, a1 = 0): `sets[0]` White's, `sets[1]` Black's, `sets[2 + role]` each kind's in
/// [`crate::chess::role::Role`] order (pawn … king), the columns of `replay_states` (see
/// [`crate::stages::tables::SET_COLUMNS`]). A piece on a square puts it in its colour's set
/// and its kind's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubfenPattern {
    /// The required squares per set, in `SET_COLUMNS` order.
    pub sets: [u64; 8],
}

/// Why a text is not a board pattern: the rank (8 … 1, as written) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubfenError {
    /// The text is empty (or only spaces).
    #[error("the pattern is empty")]
    Empty,
    /// Not eight ranks separated by `/`.
    #[error("{0} rank{s}, not 8 (ranks are separated by '/')", s = if *.0 == 1 { "" } else { "s" })]
    RankCount(usize),
    /// A character that is neither a piece letter nor a digit 1-8.
    #[error("rank {rank}: {found:?} is neither a piece letter (PNBRQK, pnbrqk) nor a digit 1-8")]
    BadChar {
        /// The rank, 8 … 1.
        rank: u8,
        /// The character.
        found: char,
    },
    /// Two digits in a row on a rank (FEN writes one digit for a run of empty squares).
    #[error("rank {rank}: two digits in a row ({found:?}): one digit stands for a run of squares")]
    TwoDigits {
        /// The rank, 8 … 1.
        rank: u8,
        /// The two digits.
        found: String,
    },
    /// A rank whose letters and digits do not cover exactly eight squares.
    #[error("rank {rank}: {squares} squares, not 8")]
    RankLength {
        /// The rank, 8 … 1.
        rank: u8,
        /// How many squares it covers.
        squares: u32,
    },
}

impl SubfenPattern {
    /// Parses a pattern (surrounding spaces ignored; a full FEN's other fields are not
    /// accepted: give the board field only).
    ///
    /// Errors: [`SubfenError`] naming the rank and what is wrong.
    pub fn parse(text: &str) -> Result<SubfenPattern, SubfenError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SubfenError::Empty);
        }
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 8 {
            return Err(SubfenError::RankCount(ranks.len()));
        }
        let mut sets = [0u64; 8];
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u32;
            let mut file = 0u32;
            let mut after_digit: Option<char> = None;
            for c in rank_text.chars() {
                let rank_no = (rank + 1) as u8;
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    if let Some(prev) = after_digit {
                        return Err(SubfenError::TwoDigits {
                            rank: rank_no,
                            found: format!("{prev}{c}"),
                        });
                    }
                    after_digit = Some(c);
                    file += d;
                    continue;
                }
                after_digit = None;
                if let Some(piece) = Piece::from_fen_char(c) {
                    if file < 8 {
                        let bit = 1u64 << (rank * 8 + file);
                        sets[piece.color as usize] |= bit;
                        sets[2 + piece.role as usize] |= bit;
                    }
                    file += 1;
                } else {
                    return Err(SubfenError::BadChar {
                        rank: rank_no,
                        found: c,
                    });
                }
                if file > 8 {
                    break;
                }
            }
            if file != 8 {
                return Err(SubfenError::RankLength {
                    rank: (rank + 1) as u8,
                    squares: file,
                });
            }
        }
        Ok(SubfenPattern { sets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_go_to_their_colour_and_kind() {
        // a white knight on f3 (square 21) and a black king on g8 (62)
        let p = SubfenPattern::parse("6k1/8/8/8/8/5N2/8/8").unwrap();
        assert_eq!(p.sets[0], 1 << 21);
        assert_eq!(p.sets[1], 1 << 62);
        assert_eq!(p.sets[2 + 1], 1 << 21);
        assert_eq!(p.sets[2 + 5], 1 << 62);
        assert_eq!(p.sets.iter().filter(|s| **s != 0).count(), 4);
        let any = SubfenPattern::parse(" 8/8/8/8/8/8/8/8 ").unwrap();
        assert_eq!(any.sets, [0; 8]);
        let start = SubfenPattern::parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").unwrap();
        assert_eq!(start.sets[0], 0xffff);
        assert_eq!(start.sets[2], 0x00ff_0000_0000_ff00);
    }

    #[test]
    fn bad_patterns_say_where() {
        use SubfenError::*;
        assert_eq!(SubfenPattern::parse(""), Err(Empty));
        assert_eq!(SubfenPattern::parse("8/8"), Err(RankCount(2)));
        assert_eq!(
            SubfenPattern::parse("8").map_err(|e| e.to_string()),
            Err("1 rank, not 8 (ranks are separated by '/')".to_string())
        );
        assert_eq!(
            SubfenPattern::parse("44/8/8/8/8/8/8/8"),
            Err(TwoDigits {
                rank: 8,
                found: "44".into()
            })
        );
        assert_eq!(
            SubfenPattern::parse("9/8/8/8/8/8/8/8"),
            Err(BadChar {
                rank: 8,
                found: '9'
            })
        );
        assert_eq!(
            SubfenPattern::parse("8/8/8/8/8/8/8/ppppppppp"),
            Err(RankLength {
                rank: 1,
                squares: 9
            })
        );
        assert_eq!(
            SubfenPattern::parse("8/8/8/8/8/8/8/7"),
            Err(RankLength {
                rank: 1,
                squares: 7
            })
        );
        assert_eq!(
            SubfenPattern::parse("8/8/8/8/x7/8/8/8"),
            Err(BadChar {
                rank: 4,
                found: 'x'
            })
        );
        assert!(
            SubfenPattern::parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1").is_err()
        );
        assert!(SubfenPattern::parse("8/8/8/8/8/8/8/4é3").is_err());
    }
}
