//! Why a FEN is rejected: [`FenError`] (the field, the kind of defect, a message), the
//! kinds ([`FenErrorKind`], named as in the shared test file `fen_bad.txt`) and the fields
//! ([`FenField`]). Returned by FEN reading ([`super::fen`]) and by the set-up checks
//! ([`super::setup::Setup::validate`]).

use std::fmt;

use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// The `kind`s of `fen_bad.txt` that need attack detection and are therefore **not** checked
/// here: a FEN showing only one of these defects is accepted by [`Setup::from_fen`] and must
/// be rejected by the engine (python-chess `Board.status()` flags `OPPOSITE_CHECK`,
/// `TOO_MANY_CHECKERS`, `IMPOSSIBLE_CHECK`).
pub const ENGINE_CHECKED_KINDS: [&str; 5] = [
    "opposite_check_added",
    "opposite_check_flipped",
    "kings_adjacent",
    "too_many_checkers",
    "impossible_check",
];

/// Why a FEN was rejected: the value of [`FenError::kind`], written as its `snake_case`
/// name ([`FenErrorKind::as_str`], `Display`; `FromStr` reads it back).
///
/// The names are those of the shared test file `fen_bad.txt`, except `empty_fen`,
/// `bad_character` and `seventeen_black_pieces` (the black counterpart of
/// `seventeen_white_pieces`). Syntax kinds come first, then whole-position kinds checked by
/// [`Setup::from_fen`], then the kinds that need attack detection: those are never returned
/// by [`Setup::from_fen`] but by the engine's set-up checks (stage `setup_checks`; see
/// [`ENGINE_CHECKED_KINDS`] for their names in `fen_bad.txt`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Display, EnumString, IntoStaticStr, VariantArray,
)]
pub enum FenErrorKind {
    // syntax
    /// Nothing but whitespace.
    #[strum(serialize = "empty_fen")]
    EmptyFen,
    /// A rank does not describe exactly 8 squares.
    #[strum(serialize = "bad_rank_length")]
    BadRankLength,
    /// More than 8 ranks.
    #[strum(serialize = "too_many_ranks")]
    TooManyRanks,
    /// Fewer than 8 ranks.
    #[strum(serialize = "too_few_ranks")]
    TooFewRanks,
    /// Two digits in a row within a rank.
    #[strum(serialize = "consecutive_digits")]
    ConsecutiveDigits,
    /// The digit 9 in a rank.
    #[strum(serialize = "digit_nine")]
    DigitNine,
    /// The digit 0 in a rank.
    #[strum(serialize = "digit_zero")]
    DigitZero,
    /// A letter that is not a piece letter (`PNBRQK`, `pnbrqk`).
    #[strum(serialize = "bad_piece_letter")]
    BadPieceLetter,
    /// A character in the placement that is neither a piece letter, a digit 1–8, `/`, nor a rank separator look-alike.
    #[strum(serialize = "bad_character")]
    BadCharacter,
    /// A rank separator other than `/`.
    #[strum(serialize = "bad_separator")]
    BadSeparator,
    /// The placement ends with `/`.
    #[strum(serialize = "trailing_slash")]
    TrailingSlash,
    /// An empty rank (`//`).
    #[strum(serialize = "empty_rank")]
    EmptyRank,
    /// The side to move is not `w` or `b`.
    #[strum(serialize = "bad_side_to_move")]
    BadSideToMove,
    /// The side to move is missing after other fields.
    #[strum(serialize = "missing_side_to_move")]
    MissingSideToMove,
    /// Castling letters out of order (white before black, kingside before queenside).
    #[strum(serialize = "castling_order")]
    CastlingOrder,
    /// A castling letter names the same castling twice.
    #[strum(serialize = "castling_duplicate")]
    CastlingDuplicate,
    /// A character that is not a castling letter.
    #[strum(serialize = "castling_bad_char")]
    CastlingBadChar,
    /// The en passant field is not `-` or a square.
    #[strum(serialize = "ep_bad_square")]
    EpBadSquare,
    /// The halfmove clock is not a number of at most [`super::fen::MAX_COUNTER`].
    #[strum(serialize = "bad_halfmove")]
    BadHalfmove,
    /// The fullmove number is not a number of at most [`super::fen::MAX_COUNTER`].
    #[strum(serialize = "bad_fullmove")]
    BadFullmove,
    /// More than six fields.
    #[strum(serialize = "too_many_fields")]
    TooManyFields,
    // position
    /// No piece on the board.
    #[strum(serialize = "empty_board")]
    EmptyBoard,
    /// White has no king.
    #[strum(serialize = "no_white_king")]
    NoWhiteKing,
    /// Black has no king.
    #[strum(serialize = "no_black_king")]
    NoBlackKing,
    /// White has more than one king.
    #[strum(serialize = "two_white_kings")]
    TwoWhiteKings,
    /// Black has more than one king.
    #[strum(serialize = "two_black_kings")]
    TwoBlackKings,
    /// A white pawn on rank 1.
    #[strum(serialize = "white_pawn_rank1")]
    WhitePawnRank1,
    /// A white pawn on rank 8.
    #[strum(serialize = "white_pawn_rank8")]
    WhitePawnRank8,
    /// A black pawn on rank 1.
    #[strum(serialize = "black_pawn_rank1")]
    BlackPawnRank1,
    /// A black pawn on rank 8.
    #[strum(serialize = "black_pawn_rank8")]
    BlackPawnRank8,
    /// More than 8 white pawns.
    #[strum(serialize = "nine_white_pawns")]
    NineWhitePawns,
    /// More than 8 black pawns.
    #[strum(serialize = "nine_black_pawns")]
    NineBlackPawns,
    /// More than 16 white men.
    #[strum(serialize = "seventeen_white_pieces")]
    SeventeenWhitePieces,
    /// More than 16 black men.
    #[strum(serialize = "seventeen_black_pieces")]
    SeventeenBlackPieces,
    /// A castling right whose king is not on its home square.
    #[strum(serialize = "castling_king_moved")]
    CastlingKingMoved,
    /// A castling right without its rook in the corner.
    #[strum(serialize = "castling_without_rook")]
    CastlingWithoutRook,
    /// An en passant square not on rank 3 (black to move) or 6 (white to move).
    #[strum(serialize = "ep_wrong_rank")]
    EpWrongRank,
    /// An en passant square (or the square the pawn passed from) that is occupied.
    #[strum(serialize = "ep_square_occupied")]
    EpSquareOccupied,
    /// No pawn stands where a double push to the en passant square would have put it.
    #[strum(serialize = "ep_no_double_push")]
    EpNoDoublePush,
    // attack rules, checked by the engine
    /// The two kings stand on adjacent squares.
    #[strum(serialize = "kings_adjacent")]
    KingsAdjacent,
    /// The side not to move is in check (FIDE art. 3.9).
    #[strum(serialize = "opposite_check")]
    OppositeCheck,
    /// More than two pieces give check.
    #[strum(serialize = "too_many_checkers")]
    TooManyCheckers,
    /// Two checking pieces stand on one line with the king: no single move uncovers both.
    #[strum(serialize = "impossible_check")]
    ImpossibleCheck,
}

impl FenErrorKind {
    /// The `snake_case` name, e.g. `FenErrorKind::BadRankLength`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The FEN field an error is about (PGN standard §16.1.3), or `Position` for rules about the
/// position as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenField {
    /// Field 1, piece placement (also used for an empty record).
    Placement,
    /// Field 2, active colour.
    SideToMove,
    /// Field 3, castling availability (also castling rights the board contradicts).
    Castling,
    /// Field 4, en passant target square (also a square the board contradicts).
    EnPassant,
    /// Field 5, halfmove clock.
    HalfmoveClock,
    /// Field 6, fullmove number (also used for fields after it).
    FullmoveNumber,
    /// Whole-position rules: kings, pawns on the back ranks, too many pawns or men.
    Position,
}

impl FenField {
    /// `snake_case` name: `"placement"`, `"side_to_move"`, `"castling"`, `"en_passant"`,
    /// `"halfmove_clock"`, `"fullmove_number"`, `"position"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FenField::Placement => "placement",
            FenField::SideToMove => "side_to_move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en_passant",
            FenField::HalfmoveClock => "halfmove_clock",
            FenField::FullmoveNumber => "fullmove_number",
            FenField::Position => "position",
        }
    }
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a FEN was rejected. Displays as `"{field}: {message}"`, e.g.
/// `placement: rank 4 describes 9 squares`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FenError {
    /// The field at fault (or `Position`).
    pub field: FenField,
    /// Machine-readable `snake_case` reason, one of [`FenErrorKind`] (names of `fen_bad.txt`).
    pub kind: FenErrorKind,
    /// Human-readable explanation, quoting the offending text (shortened when very long).
    pub message: String,
}

impl FenError {
    pub(crate) fn new(field: FenField, kind: FenErrorKind, message: impl Into<String>) -> FenError {
        FenError {
            field,
            kind,
            message: message.into(),
        }
    }
}
