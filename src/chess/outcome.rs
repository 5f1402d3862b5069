//! Game outcome: the status a game ends in ([`FinalStatus`], FIDE Laws art. 5 and 9) and the
//! repetition history it needs (FIDE Laws art. 9.2 and 9.6).

use crate::chess::color::Color;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Status of the last position of a game (the `final_status` column of a validation
/// report), written as its `snake_case` name ([`FinalStatus::as_str`], `Display`; `FromStr`
/// reads it back). [`FinalStatus::of`] decides it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Display, EnumString, IntoStaticStr, VariantArray,
)]
pub enum FinalStatus {
    /// The side to move is in check and has no legal move (FIDE art. 5.1.1).
    #[strum(serialize = "checkmate")]
    Checkmate,
    /// The side to move is not in check and has no legal move (FIDE art. 5.2.1).
    #[strum(serialize = "stalemate")]
    Stalemate,
    /// Neither side can checkmate by any series of legal moves (FIDE art. 5.2.2, as
    /// python-chess `is_insufficient_material`).
    #[strum(serialize = "insufficient_material")]
    InsufficientMaterial,
    /// 75 moves by each side without a pawn move or capture (FIDE art. 9.6.2).
    #[strum(serialize = "seventyfive_moves")]
    SeventyfiveMoves,
    /// The position occurred five times (FIDE art. 9.6.1).
    #[strum(serialize = "fivefold_repetition")]
    FivefoldRepetition,
    /// A draw can be claimed: 50 moves by each side without a pawn move or capture
    /// (FIDE art. 9.3).
    #[strum(serialize = "fifty_moves")]
    FiftyMoves,
    /// A draw can be claimed: the position occurred three times (FIDE art. 9.2).
    #[strum(serialize = "threefold_repetition")]
    ThreefoldRepetition,
    /// None of the above.
    #[strum(serialize = "ongoing")]
    Ongoing,
}

impl FinalStatus {
    /// The `snake_case` name, e.g. `"insufficient_material"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The status of a position in python-chess `outcome(claim_draw=False)` order, then the
    /// fifty-move and threefold claims (see `shared/data/oracle/README.md`):
    /// `has_legal_moves` and `in_check` of the side to move, `insufficient_material` of both
    /// sides, the halfmove clock in plies, and how often the position has occurred
    /// ([`History::repetitions`]).
    #[must_use]
    pub fn of(
        has_legal_moves: bool,
        in_check: bool,
        insufficient_material: bool,
        halfmove_clock: u32,
        repetitions: usize,
    ) -> FinalStatus {
        // python-chess 1.11.2 `outcome()`: insufficient material before stalemate
        if !has_legal_moves && in_check {
            FinalStatus::Checkmate
        } else if insufficient_material {
            FinalStatus::InsufficientMaterial
        } else if !has_legal_moves {
            FinalStatus::Stalemate
        } else if halfmove_clock >= 150 {
            FinalStatus::SeventyfiveMoves
        } else if repetitions >= 5 {
            FinalStatus::FivefoldRepetition
        } else if halfmove_clock >= 100 {
            FinalStatus::FiftyMoves
        } else if repetitions >= 3 {
            FinalStatus::ThreefoldRepetition
        } else {
            FinalStatus::Ongoing
        }
    }

    /// Whether a PGN `Result` tag (`1-0`, `0-1`, `1/2-1/2`, `*`) agrees with the board:
    /// after checkmate the side not to move (`side_to_move` is the mated side; unknown: no
    /// contradiction) has won, after stalemate the game is drawn; every other status agrees
    /// with any result.
    #[must_use]
    pub fn agrees_with(self, result: &str, side_to_move: Option<Color>) -> bool {
        match self {
            FinalStatus::Checkmate => match side_to_move {
                Some(Color::White) => result == "0-1",
                Some(Color::Black) => result == "1-0",
                None => true,
            },
            FinalStatus::Stalemate => result == "1/2-1/2",
            _ => true,
        }
    }
}

/// Position key for repetitions (FIDE art. 9.2.3, python-chess `_transposition_key`): the
/// columns of stage `position_keys` (the same as `replay_states`'), with the en passant
/// square only when a capture there is legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The board as square sets (bit n = square n, a1 = 0): white, black, pawns, knights,
    /// bishops, rooks, queens, kings.
    pub sets: [u64; 8],
    /// Side to move.
    pub side_to_move: Color,
    /// Castling rights: the squares of the rooks that keep one (bit n = square n).
    pub castling: u64,
    /// The en passant square (0..63) when an en passant capture is legal, else -1.
    pub ep_square: i32,
}

/// The positions of a game since its last irreversible move, for repetitions (FIDE art.
/// 9.2): a position before an irreversible move (a capture, a pawn move, a change of
/// castling rights, or any move from a position with a legal en passant capture) cannot
/// occur again, so it is dropped when the next position is recorded (memory per game: the
/// plies since the last irreversible move, not the whole game).
#[derive(Debug, Clone, Default)]
pub struct History {
    keys: Vec<Key>,
    /// irreversible[j]: the move played from position j cannot be undone (python-chess
    /// `is_irreversible`: zeroing, castling rights lost, or a legal en passant existed).
    irreversible: Vec<bool>,
}

impl History {
    /// Records the position reached; the move that reached it was irreversible too if it
    /// changed the castling rights. After an irreversible move, the positions before it are
    /// dropped.
    pub fn push_position(&mut self, key: Key) {
        if let (Some(before), Some(last)) = (self.keys.last(), self.irreversible.last_mut()) {
            *last |= before.castling != key.castling;
            if *last {
                self.keys.clear();
                self.irreversible.clear();
            }
        }
        self.keys.push(key);
    }

    /// Records the move played from the last position: whether it was zeroing (a pawn move
    /// or a capture, FIDE art. 9.3) and whether that position had a legal en passant capture
    /// (`ep_legal`, art. 9.2.3: the right is lost whatever the move). Either makes the move
    /// irreversible (python-chess `is_irreversible`), as does a change of castling rights
    /// ([`History::push_position`]).
    pub fn push_move(&mut self, zeroing: bool, ep_legal: bool) {
        self.irreversible.push(zeroing || ep_legal);
    }

    /// How often the last position has occurred since the last irreversible move
    /// (python-chess `Board.is_repetition`).
    pub fn repetitions(&self) -> usize {
        let Some(current) = self.keys.last() else {
            return 0;
        };
        let mut count = 1;
        for j in (0..self.keys.len() - 1).rev() {
            if self.irreversible.get(j).copied().unwrap_or(true) {
                break;
            }
            if &self.keys[j] == current {
                count += 1;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn final_status_names_read_back() {
        let names: Vec<&str> = FinalStatus::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            names,
            [
                "checkmate",
                "stalemate",
                "insufficient_material",
                "seventyfive_moves",
                "fivefold_repetition",
                "fifty_moves",
                "threefold_repetition",
                "ongoing"
            ]
        );
        for s in FinalStatus::VARIANTS {
            assert_eq!(s.as_str().parse::<FinalStatus>(), Ok(*s));
            assert_eq!(s.to_string(), s.as_str());
        }
        assert!("draw".parse::<FinalStatus>().is_err());
    }

    /// python-chess `outcome(claim_draw=False)` order (checkmate, insufficient material,
    /// stalemate, …), then the claims: a mate on the 150th
    /// halfmove is a mate, 75 moves beat a fivefold repetition, a fivefold repetition beats
    /// the fifty-move claim, the fifty-move claim beats threefold.
    #[test]
    fn final_status_precedence() {
        use FinalStatus::*;
        let of = FinalStatus::of;
        assert_eq!(of(false, true, false, 150, 5), Checkmate);
        assert_eq!(of(false, false, true, 0, 1), InsufficientMaterial);
        assert_eq!(of(false, false, false, 0, 1), Stalemate);
        assert_eq!(of(true, false, true, 150, 5), InsufficientMaterial);
        assert_eq!(of(true, true, false, 150, 5), SeventyfiveMoves);
        assert_eq!(of(true, false, false, 149, 5), FivefoldRepetition);
        assert_eq!(of(true, false, false, 100, 4), FiftyMoves);
        assert_eq!(of(true, false, false, 99, 3), ThreefoldRepetition);
        assert_eq!(of(true, true, false, 99, 2), Ongoing);
    }

    /// Repetitions count back to the last irreversible move only (python-chess
    /// `is_repetition`), and the positions before it are not kept.
    #[test]
    fn history_counts_since_the_last_irreversible_move() {
        let key = |n: u64, castling: u64| Key {
            sets: [n, 0, 0, 0, 0, 0, 0, 0],
            side_to_move: Color::White,
            castling,
            ep_square: -1,
        };
        let mut h = History::default();
        for n in [1, 2, 1, 2] {
            h.push_position(key(n, 1));
            h.push_move(false, false);
        }
        h.push_position(key(1, 1));
        assert_eq!(h.repetitions(), 3);
        // a pawn move: position 1 cannot come back
        h.push_move(true, false);
        for n in [3, 1, 3] {
            h.push_position(key(n, 1));
            assert!(h.keys.len() <= 3, "positions before the pawn move dropped");
            h.push_move(false, false);
        }
        h.push_position(key(1, 1));
        assert_eq!(h.repetitions(), 2);
        // castling rights lost: irreversible, though the move itself was not zeroing
        h.push_move(false, false);
        h.push_position(key(1, 0));
        assert_eq!(h.keys.len(), 1);
        assert_eq!(h.repetitions(), 1);
    }

    #[test]
    fn result_tag_agreement() {
        use FinalStatus::*;
        assert!(Checkmate.agrees_with("0-1", Some(Color::White)));
        assert!(!Checkmate.agrees_with("1-0", Some(Color::White)));
        assert!(Checkmate.agrees_with("1-0", Some(Color::Black)));
        assert!(Checkmate.agrees_with("*", None));
        assert!(Stalemate.agrees_with("1/2-1/2", Some(Color::White)));
        assert!(!Stalemate.agrees_with("1-0", Some(Color::Black)));
        assert!(Ongoing.agrees_with("1-0", Some(Color::White)));
    }
}
