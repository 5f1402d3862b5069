//! What validation gives back: one [`GameReport`] per game (first illegal ply, [`ErrorKind`],
//! final position and [`FinalStatus`]) and, on request, one [`PlyRow`] per legal ply.

use crate::chess::bitboards::Bitboards;
use crate::chess::color::Color;
use crate::chess::outcome::FinalStatus;
use crate::chess::setup::Setup;
use crate::pgn::RawGame;

use crate::stages::rows::PositionStatus;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Why a game stopped before the end of its movetext: the `error_kind` column of a game
/// report (taxonomy of `shared/data/bad/README.md`), written as its `snake_case` name
/// ([`ErrorKind::as_str`], `Display`; `FromStr` reads it back).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Display, EnumString, IntoStaticStr, VariantArray,
)]
pub enum ErrorKind {
    /// The token is not a move (not SAN, UCI or a null move), or the PGN text is broken.
    #[strum(serialize = "syntax")]
    Syntax,
    /// Two or more legal moves match the token.
    #[strum(serialize = "ambiguous_move")]
    AmbiguousMove,
    /// The token names a legal move of the side not to move.
    #[strum(serialize = "wrong_side")]
    WrongSide,
    /// The side to move has no piece of that kind where the token says.
    #[strum(serialize = "no_such_piece")]
    NoSuchPiece,
    /// Any other token that matches no legal move.
    #[strum(serialize = "illegal_move")]
    IllegalMove,
    /// The FEN tag does not give a legal position.
    #[strum(serialize = "setup")]
    Setup,
    /// The game's `Variant` tag names rules other than standard chess.
    #[strum(serialize = "unsupported_variant")]
    UnsupportedVariant,
}

impl ErrorKind {
    /// The `snake_case` name, e.g. `"ambiguous_move"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One row of the validation report.
///
/// Columns (in this order): `file: Utf8, game_index: UInt64 (0-based, in file order),
/// plies: UInt32 (legal main-line plies applied), first_illegal_ply: UInt32 (nullable; 1-based;
/// 0 = the game could not be set up), error_kind: Utf8 (nullable, [`ErrorKind`]),
/// error_message: Utf8 (nullable), final_fen: Utf8 (nullable when the game could not be set
/// up), final_status: Utf8 ([`FinalStatus`], the first that holds of: checkmate,
/// insufficient_material, stalemate, seventyfive_moves, fivefold_repetition, fifty_moves,
/// threefold_repetition, ongoing), white,
/// black, event, date, result: Utf8 (tags), start_fen: Utf8 (nullable: the FEN tag),
/// result_consistent: Boolean (false when the Result tag contradicts a checkmate or stalemate
/// on the board)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameReport {
    /// Input file name.
    pub file: String,
    /// 0-based index of the game in its file.
    pub game_index: u64,
    /// Legal plies applied.
    pub plies: u32,
    /// 1-based ply of the first illegal or unreadable move; 0 = set-up error.
    pub first_illegal_ply: Option<u32>,
    /// Why the game stopped early.
    pub error_kind: Option<ErrorKind>,
    /// What is wrong, naming the ply and token.
    pub error_message: Option<String>,
    /// FEN of the last position reached.
    pub final_fen: Option<String>,
    /// Status of the last position reached.
    pub final_status: Option<FinalStatus>,
    /// Tags.
    pub white: String,
    /// Tags.
    pub black: String,
    /// Tags.
    pub event: String,
    /// Tags.
    pub date: String,
    /// Tags.
    pub result: String,
    /// The FEN tag, when the game starts from a set-up position.
    pub start_fen: Option<String>,
    /// False when the Result tag contradicts a checkmate or stalemate on the board.
    pub result_consistent: bool,
}

impl GameReport {
    /// The report of a game before validation: its file and tags (`?` for a missing tag, `*`
    /// for a missing Result), no plies, no error.
    pub(crate) fn new(file: &str, g: &RawGame) -> GameReport {
        let tag = |n: &str| g.tag(n).unwrap_or("?").to_string();
        GameReport {
            file: file.to_string(),
            game_index: g.index as u64,
            white: tag("White"),
            black: tag("Black"),
            event: tag("Event"),
            date: tag("Date"),
            result: g.tag("Result").unwrap_or("*").to_string(),
            start_fen: g.tag("FEN").map(str::to_string),
            result_consistent: true,
            ..Default::default()
        }
    }

    /// Records the game's error at `ply` (0: set-up); `message` comes after `game N: `
    /// ([`GameReport::error_detail`] is the message without it).
    pub(crate) fn set_error(&mut self, ply: u32, kind: ErrorKind, message: &str) {
        self.first_illegal_ply = Some(ply);
        self.error_kind = Some(kind);
        self.error_message = Some(format!("{}{message}", self.game_prefix()));
    }

    /// The error message without its `game N: ` prefix (what is wrong, naming the ply and
    /// token): the message of a game that is a row of its own (SQL `validate_moves`).
    #[must_use]
    pub fn error_detail(&self) -> Option<&str> {
        let m = self.error_message.as_deref()?;
        Some(m.strip_prefix(self.game_prefix().as_str()).unwrap_or(m))
    }

    /// `game N: `, how an error message names the game.
    fn game_prefix(&self) -> String {
        format!("game {}: ", self.game_index)
    }

    /// Records the last position reached: its FEN (python-chess style, see [`fen_of`]), its
    /// status and whether the Result tag agrees with it. `position` is `None` when the
    /// pipeline gave no position for the game; then the FEN stays empty and the clock counts
    /// as 0.
    pub(crate) fn finish(
        &mut self,
        position: Option<&Setup>,
        status: &PositionStatus,
        repetitions: usize,
    ) {
        if let Some(s) = position {
            self.final_fen = Some(fen_of(s, status));
        }
        let halfmove = position.map(|s| s.halfmove_clock).unwrap_or(0);
        let final_status = FinalStatus::of(
            status.n_legal > 0,
            status.in_check,
            status.insufficient,
            halfmove,
            repetitions,
        );
        self.final_status = Some(final_status);
        // the Result tag is held against the board's ending: a stalemate is a draw whatever
        // the material (the status then says insufficient_material)
        let ending = match (status.n_legal, status.in_check) {
            (0, true) => FinalStatus::Checkmate,
            (0, false) => FinalStatus::Stalemate,
            _ => final_status,
        };
        self.result_consistent = ending.agrees_with(&self.result, position.map(|s| s.side_to_move));
    }
}

/// FEN of a position as python-chess writes it: the en passant square only when an en
/// passant capture is legal (`position_status`).
pub(crate) fn fen_of(setup: &Setup, status: &PositionStatus) -> String {
    as_written(setup, status).to_fen()
}

/// The position as its FEN is written: the en passant square only when `status` says an
/// en passant capture is legal (python-chess style).
pub(crate) fn as_written(setup: &Setup, status: &PositionStatus) -> Setup {
    Setup {
        ep_square: status.ep_legal_sq,
        ..*setup
    }
}

/// A token for messages: as it is, or its first 32 characters and its length when it is
/// longer than 40 bytes.
pub(crate) fn short(token: &str) -> String {
    if token.len() > 40 {
        let cut: String = token.chars().take(32).collect();
        format!("{cut}... ({} bytes)", token.len())
    } else {
        token.to_string()
    }
}

/// One legal ply of a game: a row of the per-ply table (`sqlchess validate --plies`).
///
/// Arrow schema ([`crate::io::report::plies_schema`], the columns `read_plies` has too), in
/// this order: `game_index: UInt64` (the game's `game_index` in the per-game report:
/// 0-based, in file order), `ply: UInt32`
/// (1-based), `color: Utf8` (the mover: `white` or `black`), `move_number: UInt32` (the
/// fullmove number of the position before the move, as a PGN writes it before White's
/// move: `12.` and `12...` are move 12; it starts at the `FEN` tag's fullmove number),
/// `fen_before: Utf8` (FEN of the position before the move, python-chess style:
/// en passant square only when an en passant capture is legal), `uci: Utf8` (`e2e4`,
/// `e7e8q`, castling as the king's move `e1g1`; `0000` for a null move), `san: Utf8` (as
/// python-chess `board.san(move)` writes it: with `+` / `#`, `O-O`, `=Q`; `--` for a null
/// move), `promotion: Utf8` (nullable: the upper-case letter of the piece promoted to, `Q`,
/// `R`, `B`, `N`, as SAN writes it, whatever the colour), `is_capture`, `is_check` (`san`
/// ends with `+` or `#`), `is_castling`, `is_en_passant: Boolean`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlyRow {
    /// `game_index` of the game's report.
    pub game_index: u64,
    /// 1-based ply.
    pub ply: u32,
    /// The position before the move, its en passant square set only when an en passant
    /// capture is legal: the `fen_before` column ([`PlyRow::fen_before`]). As bitboards: a
    /// table of plies keeps one per ply.
    pub position_before: Bitboards,
    /// UCI of the move.
    pub uci: String,
    /// SAN of the move, with `+` / `#`.
    pub san: String,
    /// The move captures (en passant included).
    pub is_capture: bool,
    /// The move gives check (or mate).
    pub is_check: bool,
    /// The move castles.
    pub is_castling: bool,
    /// The move captures en passant.
    pub is_en_passant: bool,
    /// Upper-case letter of the promotion piece (`Q`, `R`, `B`, `N`).
    pub promotion: Option<String>,
    /// The square the move passed over when it is a pawn's double step (FIDE art. 3.7.4):
    /// the en passant square of the position after it, whether or not a capture there is
    /// legal (the Polyglot key counts it so); `None` for any other move.
    pub double_step_square: Option<u8>,
}

/// UCI of a null move (python-chess `Move.null().uci()`).
pub(crate) const NULL_UCI: &str = "0000";

impl PlyRow {
    /// The FEN before the move (python-chess style: the en passant square only when an en
    /// passant capture is legal).
    #[must_use]
    pub fn fen_before(&self) -> String {
        self.position_before.to_setup().to_fen()
    }

    /// The mover: the side to move before the move (the `color` column).
    #[must_use]
    pub fn color(&self) -> Color {
        self.position_before.side_to_move
    }

    /// The fullmove number of the ply (the `move_number` column): the position before
    /// the move's, as a PGN writes it (`12.` for White's move, `12...` for Black's).
    #[must_use]
    pub fn move_number(&self) -> u32 {
        self.position_before.fullmove_number
    }

    /// The row of a move from `position_before`, before its game, ply and notation are
    /// filled in.
    pub(crate) fn from_position(position_before: Bitboards) -> PlyRow {
        PlyRow {
            game_index: 0,
            ply: 0,
            position_before,
            uci: String::new(),
            san: String::new(),
            is_capture: false,
            is_check: false,
            is_castling: false,
            is_en_passant: false,
            promotion: None,
            double_step_square: None,
        }
    }

    /// The row of a null move (`0000`, `--`), before its game, ply and position are filled in.
    pub(crate) fn null_move() -> PlyRow {
        PlyRow {
            uci: NULL_UCI.into(),
            san: "--".into(),
            ..Default::default()
        }
    }

    /// Adds the check or mate suffix from the status of the position after the move (not
    /// to a null move).
    pub(crate) fn add_check_suffix(&mut self, after: &PositionStatus) {
        if self.uci != NULL_UCI && after.in_check {
            self.mark_check(after.n_legal == 0);
        }
    }

    /// Marks the move as giving check: `#` when it mates, else `+`.
    pub(crate) fn mark_check(&mut self, mate: bool) {
        self.is_check = true;
        self.san.push(if mate { '#' } else { '+' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn error_kind_names_read_back() {
        let names: Vec<&str> = ErrorKind::VARIANTS.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "syntax",
                "ambiguous_move",
                "wrong_side",
                "no_such_piece",
                "illegal_move",
                "setup",
                "unsupported_variant"
            ]
        );
        for k in ErrorKind::VARIANTS {
            assert_eq!(k.as_str().parse::<ErrorKind>(), Ok(*k));
            assert_eq!(k.to_string(), k.as_str());
        }
        assert!("illegal".parse::<ErrorKind>().is_err());
    }
}
