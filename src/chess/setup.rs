//! A set-up position, [`Setup`]: what the six fields of a FEN record say, nothing derived,
//! and its static validity checks ([`Setup::validate`]: kings, pawns, men, castling rights and
//! the en passant square against the board; no attack detection). Reading and writing it as
//! FEN is in [`super::fen`].

use crate::chess::castling::CastlingRights;
use crate::chess::color::{Color, back_rank};
use crate::chess::fen_error::{FenError, FenErrorKind, FenField};
use crate::chess::role::{Piece, Role};
use crate::chess::square::square_name;

/// A position as described by a FEN record: what the six fields say, nothing derived.
///
/// Built by [`Setup::from_fen`] (validated), [`Setup::parse_unchecked`] (syntax only),
/// [`Setup::standard`], or directly; [`Setup::validate`] checks a hand-built one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Board, indexed by square (a1 = 0, …, h8 = 63).
    pub board: [Option<Piece>; 64],
    /// Side to move.
    pub side_to_move: Color,
    /// Castling rights (rook squares).
    pub castling: CastlingRights,
    /// Chess960 (Fischer Random) castling rules: rights on any rook of the back rank with the
    /// king between the castling rooks ([`Setup::validate`]), UCI castling written as the king
    /// taking its own rook (`e1h1`; standard chess: `e1g1`). Set by
    /// [`Setup::from_fen_chess960`] and [`Setup::from_fen_auto`]; the moves are the same
    /// rules in both modes (standard castling is the Chess960 castling of the e-file king
    /// with the corner rooks).
    pub chess960: bool,
    /// En passant target square, as written in the FEN (the square behind a pawn that has
    /// just made a double step), even when no en passant capture is possible.
    pub ep_square: Option<u8>,
    /// Halfmove clock: plies since the last capture or pawn move (FIDE Laws 9.3, 9.6.2).
    pub halfmove_clock: u32,
    /// Fullmove number, starting at 1.
    pub fullmove_number: u32,
}

impl Default for Setup {
    /// The standard starting position.
    fn default() -> Setup {
        Setup::standard()
    }
}

impl Setup {
    /// The initial position (FIDE Laws, Article 2.3): `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR
    /// w KQkq - 0 1`.
    pub fn standard() -> Setup {
        const BACK: [Role; 8] = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        let mut board = [None; 64];
        for (file, role) in BACK.iter().enumerate() {
            board[file] = Some(Piece {
                color: Color::White,
                role: *role,
            });
            board[8 + file] = Some(Piece {
                color: Color::White,
                role: Role::Pawn,
            });
            board[48 + file] = Some(Piece {
                color: Color::Black,
                role: Role::Pawn,
            });
            board[56 + file] = Some(Piece {
                color: Color::Black,
                role: *role,
            });
        }
        Setup {
            board,
            side_to_move: Color::White,
            castling: CastlingRights::ALL,
            chess960: false,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// An empty board, white to move, no rights, clocks `0 1`. Not a valid position by itself.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 64],
            side_to_move: Color::White,
            castling: CastlingRights::NONE,
            chess960: false,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// Whether the castling rights that Chess960 accepts here are ones standard chess does
    /// not have (python-chess `Board.has_chess960_castling_rights`): a right on a rook that is
    /// not in a corner, or a king not on e1/e8 with rights of its colour. Rights that no
    /// rook backs count for neither.
    pub fn has_chess960_castling_rights(&self) -> bool {
        let rights = self.chess960_rights();
        let king_home = |color: Color, sq: u8, rank: u64| {
            rights & rank != 0
                && self.piece_at(sq)
                    != Some(Piece {
                        color,
                        role: Role::King,
                    })
        };
        rights & !CastlingRights::ALL.rooks() != 0
            || king_home(Color::White, 4, 0xff)
            || king_home(Color::Black, 60, 0xff << 56)
    }

    /// The rights that are valid in Chess960 (python-chess `clean_castling_rights` with
    /// `chess960 = True`): per colour, a rook of that colour on the square, the king on the
    /// back rank, the lowest right on its a-side and the highest on its h-side.
    fn chess960_rights(&self) -> u64 {
        let mut out = 0u64;
        for color in [Color::White, Color::Black] {
            let back = back_rank(color);
            let rights: u64 = self
                .castling
                .squares_desc()
                .filter(|sq| {
                    sq / 8 == back
                        && self.piece_at(*sq)
                            == Some(Piece {
                                color,
                                role: Role::Rook,
                            })
                })
                .fold(0, |m, sq| m | 1 << sq);
            let Some(king) = self.king_on_rank(color, back) else {
                continue;
            };
            if rights == 0 {
                continue;
            }
            let a_side = rights.trailing_zeros() as u8;
            let h_side = 63 - rights.leading_zeros() as u8;
            if a_side < king {
                out |= 1 << a_side;
            }
            if h_side > king {
                out |= 1 << h_side;
            }
        }
        out
    }

    /// The square of `color`'s king when it stands on `rank` (0-based).
    pub(super) fn king_on_rank(&self, color: Color, rank: u8) -> Option<u8> {
        let king = Piece {
            color,
            role: Role::King,
        };
        (rank * 8..rank * 8 + 8).find(|sq| self.piece_at(*sq) == Some(king))
    }

    /// Runs the static position checks (no attack detection), in this order: empty board,
    /// king counts, pawns on rank 1/8, pawn counts, men counts, castling rights against the
    /// board, en passant square against the board (FIDE Laws 3.7.4 and 3.8.2; python-chess
    /// `Board.status()` minus the check-related flags).
    ///
    /// # Errors
    ///
    /// A [`FenError`] with a position `kind` (see [`FenErrorKind`]), or `ep_bad_square` when
    /// a hand-built `ep_square` is 64 or more.
    pub fn validate(&self) -> Result<(), FenError> {
        use Color::{Black, White};

        if self.board.iter().all(Option::is_none) {
            return Err(FenError::new(
                FenField::Position,
                FenErrorKind::EmptyBoard,
                "the board is empty (no kings)",
            ));
        }

        let count = |pred: &dyn Fn(Piece) -> bool| {
            self.board.iter().flatten().filter(|p| pred(**p)).count()
        };

        for (color, none_kind, many_kind, name) in [
            (
                White,
                FenErrorKind::NoWhiteKing,
                FenErrorKind::TwoWhiteKings,
                "white",
            ),
            (
                Black,
                FenErrorKind::NoBlackKing,
                FenErrorKind::TwoBlackKings,
                "black",
            ),
        ] {
            let kings = count(&|p| p.color == color && p.role == Role::King);
            if kings == 0 {
                return Err(FenError::new(
                    FenField::Position,
                    none_kind,
                    format!("there is no {name} king"),
                ));
            }
            if kings > 1 {
                return Err(FenError::new(
                    FenField::Position,
                    many_kind,
                    format!("there are {kings} {name} kings"),
                ));
            }
        }

        for (rank, rank_number) in [(0u8, 1), (7u8, 8)] {
            for file in 0..8u8 {
                let sq = rank * 8 + file;
                if let Some(Piece {
                    color,
                    role: Role::Pawn,
                }) = self.board[usize::from(sq)]
                {
                    let (kind, name) = match (color, rank_number) {
                        (White, 1) => (FenErrorKind::WhitePawnRank1, "white"),
                        (White, _) => (FenErrorKind::WhitePawnRank8, "white"),
                        (Black, 1) => (FenErrorKind::BlackPawnRank1, "black"),
                        (Black, _) => (FenErrorKind::BlackPawnRank8, "black"),
                    };
                    return Err(FenError::new(
                        FenField::Position,
                        kind,
                        format!("{name} pawn on {} (rank {rank_number})", square_name(sq)),
                    ));
                }
            }
        }

        for (color, kind, name) in [
            (White, FenErrorKind::NineWhitePawns, "white"),
            (Black, FenErrorKind::NineBlackPawns, "black"),
        ] {
            let pawns = count(&|p| p.color == color && p.role == Role::Pawn);
            if pawns > 8 {
                return Err(FenError::new(
                    FenField::Position,
                    kind,
                    format!("{name} has {pawns} pawns, at most 8 are possible"),
                ));
            }
        }

        for (color, kind, name) in [
            (White, FenErrorKind::SeventeenWhitePieces, "white"),
            (Black, FenErrorKind::SeventeenBlackPieces, "black"),
        ] {
            let men = count(&|p| p.color == color);
            if men > 16 {
                return Err(FenError::new(
                    FenField::Position,
                    kind,
                    format!("{name} has {men} men (pieces and pawns), at most 16 are possible"),
                ));
            }
        }

        self.validate_castling()?;
        self.validate_ep()
    }

    /// Castling rights against the board: standard chess (king on e1/e8, corner rooks) or,
    /// with [`Setup::chess960`], the Chess960 rules (python-chess `clean_castling_rights`).
    fn validate_castling(&self) -> Result<(), FenError> {
        let err = |kind: FenErrorKind, message: String| {
            Err(FenError::new(FenField::Castling, kind, message))
        };
        // Standard chess names the corner rights in `KQkq` order first.
        let mut order: Vec<u8> = [7u8, 0, 63, 56]
            .into_iter()
            .filter(|sq| self.castling.has(*sq))
            .collect();
        order.extend(
            self.castling
                .squares_desc()
                .filter(|sq| !CastlingRights::ALL.has(*sq)),
        );
        for sq in order {
            let color = if sq < 8 { Color::White } else { Color::Black };
            let name = color.name();
            let letter = self.castling_letter(sq);
            let back = back_rank(color);
            let king = Piece {
                color,
                role: Role::King,
            };
            let king_at = self
                .board
                .iter()
                .position(|p| *p == Some(king))
                .and_then(|i| u8::try_from(i).ok());
            let king_text = king_at.map_or_else(
                || String::from("missing"),
                |k| format!("on {}", square_name(k)),
            );
            let has_rook = self.piece_at(sq)
                == Some(Piece {
                    color,
                    role: Role::Rook,
                });
            let without_rook = || {
                err(
                    FenErrorKind::CastlingWithoutRook,
                    format!(
                        "castling right '{letter}' but no {name} rook on {}",
                        square_name(sq)
                    ),
                )
            };
            if !self.chess960 {
                if !CastlingRights::ALL.has(sq) {
                    return err(
                        FenErrorKind::CastlingWithoutRook,
                        format!(
                            "castling right '{letter}' names a rook on {}; in standard chess only \
                             the rooks on the a- and h-file corners can castle (Chess960 rules \
                             allow it)",
                            square_name(sq)
                        ),
                    );
                }
                let king_home = back * 8 + 4;
                if king_at != Some(king_home) {
                    return err(
                        FenErrorKind::CastlingKingMoved,
                        format!(
                            "castling right '{letter}' but the {name} king is {king_text}, not on {}",
                            square_name(king_home)
                        ),
                    );
                }
                if !has_rook {
                    return without_rook();
                }
                continue;
            }
            let Some(k) = king_at.filter(|k| k / 8 == back) else {
                return err(
                    FenErrorKind::CastlingKingMoved,
                    format!(
                        "castling right '{letter}' but the {name} king is {king_text}, not on rank {}",
                        back + 1
                    ),
                );
            };
            if !has_rook {
                return without_rook();
            }
            let same_side = self
                .castling
                .squares_desc()
                .find(|o| *o != sq && o / 8 == back && (*o < k) == (sq < k));
            if let Some(o) = same_side {
                return err(
                    FenErrorKind::CastlingDuplicate,
                    format!(
                        "castling rights on {} and {}: two rooks on the same side of the {name} king \
                         on {} (one castling per side)",
                        square_name(sq),
                        square_name(o),
                        square_name(k)
                    ),
                );
            }
        }
        Ok(())
    }

    fn validate_ep(&self) -> Result<(), FenError> {
        let Some(ep) = self.ep_square else {
            return Ok(());
        };
        if ep >= 64 {
            return Err(FenError::new(
                FenField::EnPassant,
                FenErrorKind::EpBadSquare,
                format!("en passant square number {ep} is off the board"),
            ));
        }
        let mover = self.side_to_move;
        // Rank (0-based) of the ep square, the square of the pawn that double-stepped and
        // the square it came from.
        let (ep_rank, pawn_sq, origin_sq) = match mover {
            Color::White => (5u8, ep.wrapping_sub(8), ep.wrapping_add(8)),
            Color::Black => (2u8, ep.wrapping_add(8), ep.wrapping_sub(8)),
        };
        if ep / 8 != ep_rank {
            return Err(FenError::new(
                FenField::EnPassant,
                FenErrorKind::EpWrongRank,
                format!(
                    "en passant square {} is not on rank {} ({} to move)",
                    square_name(ep),
                    ep_rank + 1,
                    mover.name()
                ),
            ));
        }
        let at = |sq: u8| self.board.get(usize::from(sq)).copied().flatten();
        if let Some(p) = at(ep) {
            return Err(FenError::new(
                FenField::EnPassant,
                FenErrorKind::EpSquareOccupied,
                format!(
                    "en passant square {} is occupied by '{}'",
                    square_name(ep),
                    p.fen_char()
                ),
            ));
        }
        let pawn = Piece {
            color: mover.other(),
            role: Role::Pawn,
        };
        if at(pawn_sq) != Some(pawn) {
            return Err(FenError::new(
                FenField::EnPassant,
                FenErrorKind::EpNoDoublePush,
                format!(
                    "en passant square {} but no {} pawn on {} (no double push)",
                    square_name(ep),
                    mover.other().name(),
                    square_name(pawn_sq)
                ),
            ));
        }
        if let Some(p) = at(origin_sq) {
            return Err(FenError::new(
                FenField::EnPassant,
                FenErrorKind::EpNoDoublePush,
                format!(
                    "en passant square {} but the double push origin {} is occupied by '{}'",
                    square_name(ep),
                    square_name(origin_sq),
                    p.fen_char()
                ),
            ));
        }
        Ok(())
    }

    /// The piece on a square, `None` when empty or when `sq` is 64 or more.
    pub fn piece_at(&self, sq: u8) -> Option<Piece> {
        self.board.get(usize::from(sq)).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::STARTING_FEN;

    #[test]
    fn validate_hand_built_setups() {
        let mut s = Setup::standard();
        assert_eq!(s.validate(), Ok(()));
        s.ep_square = Some(200);
        assert_eq!(
            s.validate().map_err(|e| e.kind.as_str()),
            Err("ep_bad_square")
        );
        assert_eq!(s.to_fen(), STARTING_FEN);
        assert_eq!(
            Setup::empty().validate().map_err(|e| e.kind.as_str()),
            Err("empty_board")
        );
    }
}
