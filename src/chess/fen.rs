//! FEN (Forsyth–Edwards Notation): reading a [`Setup`] from a FEN record and writing it back
//! (castling as X-FEN or Shredder-FEN), and why a FEN is rejected ([`FenError`]). The static
//! validity checks that reading runs are [`Setup::validate`] (in [`super::setup`]).
//!
//! Source: PGN standard (Steven J. Edwards, 1994), section 16.1 "FEN", and the FIDE Laws of
//! Chess (Article 3: pieces and their moves, en passant 3.7.4, castling 3.8.2; Article 2: the
//! initial position). Where the standard leaves room, this module follows python-chess 1.11
//! (`chess.Board.set_fen`, `Board.status`, `Board._valid_ep_square`).
//!
//! A FEN record has six fields separated by spaces:
//!
//! 1. piece placement, rank 8 first, ranks separated by `/`, files a to h within a rank, upper
//!    case = white (`PNBRQK`), lower case = black, a digit 1–8 = that many empty squares;
//! 2. side to move, `w` or `b`;
//! 3. castling availability, `-` or letters naming the rooks that may still castle: `KQkq`
//!    (X-FEN: `K`/`Q` the outermost rook on the king's h-/a-side, a file letter `A`–`H` /
//!    `a`–`h` a rook on that file, Shredder-FEN when every letter is a file);
//! 4. en passant target square, `-` or the square passed over by the last double pawn push;
//! 5. halfmove clock (plies since the last capture or pawn move);
//! 6. fullmove number (starts at 1, incremented after Black's move).
//!
//! # What [`Setup::from_fen`] checks
//!
//! Every syntax rule of the six fields, then these whole-position rules (each failure is a
//! [`FenError`] whose `kind` names it; the names are those of the shared test file
//! `fen_bad.txt`): exactly one king per side, no pawn on rank 1 or 8, at most 8 pawns and 16
//! men per side, castling rights only with the king on e1/e8 and the rook in the corner
//! (Chess960: the king on its back rank between the castling rooks, at most one right on
//! each side of it), and an en passant square only where a double pawn push can just have
//! happened. See
//! [`FenErrorKind`] for the full list.
//!
//! It does **not** check anything that needs attack detection: the side not to move being in
//! check (`opposite_check_added`, `opposite_check_flipped`, `kings_adjacent`), more than two
//! checkers (`too_many_checkers`) and impossible check alignments (`impossible_check`). Those
//! are left to the SQL engine; see [`ENGINE_CHECKED_KINDS`]. Nor does it decide whether an en
//! passant capture is actually *legal*: the en passant square is kept as written when a double
//! push is plausible, and [`Setup::to_fen`] writes it back as stored. A caller that wants
//! python-chess's `Board.fen()` output clears [`Setup::ep_square`] first when no legal en
//! passant capture exists. Reachability (material, pawn structure) is not checked either,
//! as in python-chess.
//!
//! # Lenient inputs (accepted, as python-chess accepts them)
//!
//! * **Missing trailing fields.** A FEN may stop after any field: a missing side to move
//!   reads as `w`, missing castling as `-` (no rights — *not* `KQkq`), missing en passant as
//!   `-`, missing halfmove clock as `0` and missing fullmove number as `1`. So a bare
//!   placement and an EPD-like four-field record both load.
//! * **Whitespace.** Fields may be separated by any run of whitespace and the record may have
//!   leading or trailing whitespace (Python `str.split()` semantics: Unicode white space plus
//!   the ASCII separators U+001C–U+001F).
//! * **Fullmove number 0** reads as 1 (python-chess: `max(fullmove, 1)`), so it is written
//!   back as 1.
//! * **Shredder-FEN and X-FEN castling letters**, read as python-chess reads them: `K` is
//!   the outermost rook on the king's h-side (the h-file square when there is none), `Q` the
//!   outermost on its a-side, a file letter the rook on that file of the back rank (`HAha`
//!   loads as `KQkq` and is written back as `KQkq`). In standard chess only the corner rooks
//!   with the king on e1/e8 can castle (else `castling_king_moved` / `castling_without_rook`);
//!   in Chess960 ([`Setup::chess960`]) any rook of the back rank with the king between the
//!   castling rooks. [`Setup::from_fen_auto`] chooses Chess960 when the rights can only mean
//!   it, as python-chess does for a PGN `FEN` tag.
//! * **Promoted-piece marker** `~` directly after a piece letter (crazyhouse notation, e.g.
//!   `Q~`) is accepted and ignored; anywhere else it is a `bad_character`.
//!
//! # Stricter than python-chess
//!
//! * Castling letters must be in the order white before black and, per colour, kingside
//!   before queenside (`KQkq`, `HAha`); python-chess also accepts `QK`. A letter naming the
//!   same castling twice (`KK`, `KH`) is `castling_duplicate`; python-chess accepts `KK`.
//! * Halfmove clock and fullmove number must be plain ASCII digits and at most 10^9
//!   ([`MAX_COUNTER`]: the pipeline's Int32 columns, with room for a billion more plies);
//!   Python's `int()` also accepts `+5`, `-0`, `1_0`, non-ASCII digits and huge numbers.
//! * Positions that python-chess parses but reports as not `is_valid()` are rejected here
//!   (every status flag except the attack-based ones listed above). In particular castling
//!   rights whose king or rook is not on its home square (`castling_king_moved`,
//!   `castling_without_rook`) and impossible en passant squares (`ep_wrong_rank`,
//!   `ep_square_occupied`, `ep_no_double_push`) are errors, not silently dropped as
//!   python-chess's `fen()` does.
//! * Two castling rights on the same side of the king (Chess960) are `castling_duplicate`.
//! * Standard chess and Chess960 only, no other variants.

use std::fmt;
use std::str::FromStr;

use crate::chess::castling::CastlingRights;
use crate::chess::color::{Color, back_rank, cased};
use crate::chess::role::{Piece, Role};
use crate::chess::setup::Setup;
use crate::chess::square::{parse_square, square_name};

pub use crate::chess::fen_error::{ENGINE_CHECKED_KINDS, FenError, FenErrorKind, FenField};

/// The standard starting position (FIDE Laws, Article 2) in FEN (PGN standard §16.1.2).
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Setup {
    /// Parses a FEN record (PGN standard §16.1) and runs every static check of
    /// [`Setup::validate`].
    ///
    /// Lenient inputs (missing trailing fields, extra whitespace, fullmove 0, Shredder
    /// letters `HAha`, `~` markers) are accepted as described in the module documentation.
    ///
    /// # Errors
    ///
    /// A [`FenError`] for the first defect found, fields in order (placement, side to move,
    /// castling, en passant, halfmove clock, fullmove number, extra fields), then the
    /// whole-position rules. The attack-based rules ([`ENGINE_CHECKED_KINDS`]) are not
    /// checked.
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let setup = Setup::parse_unchecked(fen)?;
        setup.validate()?;
        Ok(setup)
    }

    /// [`Setup::from_fen`] in Chess960 mode ([`Setup::chess960`] set): castling rights on any
    /// rook of the back rank, the king between the castling rooks.
    ///
    /// # Errors
    ///
    /// As [`Setup::from_fen`]; castling rights are checked by the Chess960 rules.
    pub fn from_fen_chess960(fen: &str) -> Result<Setup, FenError> {
        let mut setup = Setup::parse_unchecked(fen)?;
        setup.chess960 = true;
        setup.validate()?;
        Ok(setup)
    }

    /// [`Setup::from_fen`], in Chess960 mode when the castling rights can only mean Chess960
    /// ([`Setup::has_chess960_castling_rights`]: a right on a rook off the corners, or a king
    /// off the e-file with rights), as python-chess reads a PGN `FEN` tag.
    ///
    /// # Errors
    ///
    /// As [`Setup::from_fen`], by the rules of the mode chosen.
    pub fn from_fen_auto(fen: &str) -> Result<Setup, FenError> {
        let mut setup = Setup::parse_unchecked(fen)?;
        setup.chess960 = setup.has_chess960_castling_rights();
        setup.validate()?;
        Ok(setup)
    }

    /// Parses a FEN record checking only its syntax, like python-chess `Board(fen)` (which
    /// raises `ValueError` only for syntax errors and leaves the rest to `is_valid()`).
    ///
    /// Castling letters are resolved against the board as python-chess resolves them (see
    /// the module documentation); whether a rook backs each right is for [`Setup::validate`].
    /// The mode is standard chess ([`Setup::chess960`] unset).
    ///
    /// # Errors
    ///
    /// A [`FenError`] with a syntax `kind` (see [`FenErrorKind`]).
    pub fn parse_unchecked(fen: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = fen
            .split(is_python_whitespace)
            .filter(|s| !s.is_empty())
            .collect();
        let Some(&placement) = fields.first() else {
            return Err(FenError::new(
                FenField::Placement,
                FenErrorKind::EmptyFen,
                "the FEN is empty",
            ));
        };
        let board = parse_placement(placement)?;

        let side_to_move = match fields.get(1) {
            None => Color::White,
            Some(&"w") => Color::White,
            Some(&"b") => Color::Black,
            Some(&s) => return Err(side_to_move_error(s, &fields)),
        };

        let castling = match fields.get(2) {
            None => CastlingRights::NONE,
            Some(&s) => resolve_castling(&parse_castling(s)?, &board),
        };

        let ep_square = match fields.get(3) {
            None | Some(&"-") => None,
            Some(&s) => match parse_square(s) {
                Some(sq) => Some(sq),
                None => {
                    return Err(FenError::new(
                        FenField::EnPassant,
                        FenErrorKind::EpBadSquare,
                        format!(
                            "en passant field {} is neither '-' nor a square a1..h8",
                            quote(s)
                        ),
                    ));
                }
            },
        };

        let halfmove_clock = match fields.get(4) {
            None => 0,
            Some(&s) => parse_counter(s).map_err(|why| {
                FenError::new(
                    FenField::HalfmoveClock,
                    FenErrorKind::BadHalfmove,
                    format!("halfmove clock {} {why}", quote(s)),
                )
            })?,
        };

        let fullmove_number = match fields.get(5) {
            None => 1,
            // Lenient: 0 is read as 1, as python-chess does.
            Some(&s) => parse_counter(s)
                .map_err(|why| {
                    FenError::new(
                        FenField::FullmoveNumber,
                        FenErrorKind::BadFullmove,
                        format!("fullmove number {} {why}", quote(s)),
                    )
                })?
                .max(1),
        };

        if let Some(extra) = fields.get(6) {
            return Err(FenError::new(
                FenField::FullmoveNumber,
                FenErrorKind::TooManyFields,
                format!(
                    "the FEN has {} fields, expected at most 6; first extra field: {}",
                    fields.len(),
                    quote(extra)
                ),
            ));
        }

        Ok(Setup {
            board,
            side_to_move,
            castling,
            chess960: false,
            ep_square,
            halfmove_clock,
            fullmove_number,
        })
    }

    /// The piece placement field (FEN field 1, PGN standard §16.1.3.1).
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..8usize).rev() {
            let mut empty = 0u8;
            for file in 0..8usize {
                match self.board[rank * 8 + file] {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// Writes the six-field FEN (PGN standard §16.1). The en passant field is written as
    /// stored in [`Setup::ep_square`] (`-` when `None` or off the board); clear it first to
    /// get python-chess's `Board.fen()`, which names the square only when a legal en passant
    /// capture exists. Castling rights are written as X-FEN ([`Setup::castling_xfen`]: `KQkq`
    /// in standard chess), as python-chess and shakmaty write them.
    pub fn to_fen(&self) -> String {
        self.fen_with(self.castling_xfen())
    }

    /// [`Setup::to_fen`] with the castling field as Shredder-FEN ([`Setup::castling_shredder`]:
    /// `HAha` for the initial position).
    pub fn to_shredder_fen(&self) -> String {
        self.fen_with(self.castling_shredder())
    }

    /// The X-FEN castling field (python-chess `Board.castling_xfen`): per colour, white first,
    /// h-side before a-side, `K`/`Q` (`k`/`q`) when the castling rook is the outermost rook of
    /// its colour on that side of the king, else the rook's file letter; `-` when none.
    pub fn castling_xfen(&self) -> String {
        self.castling_field(|sq| self.castling_letter(sq))
    }

    /// The Shredder-FEN castling field: the file letters of the castling rooks, white's
    /// upper case first, each colour from the h-file down; `-` when none.
    pub fn castling_shredder(&self) -> String {
        self.castling_field(|sq| {
            let color = if sq < 8 { Color::White } else { Color::Black };
            cased(color, char::from(b'a' + sq % 8))
        })
    }

    /// A castling field: one letter per right, white's first, each colour from the h-file
    /// down; `-` when none.
    fn castling_field(&self, letter: impl Fn(u8) -> char) -> String {
        let (white, black): (Vec<u8>, Vec<u8>) =
            self.castling.squares_desc().partition(|sq| *sq < 8);
        let s: String = white.into_iter().chain(black).map(letter).collect();
        if s.is_empty() { String::from("-") } else { s }
    }

    /// The X-FEN letter of the right of the rook on `sq`: `K`/`Q` (case by colour) when no
    /// rook of its colour stands further out on that side of the king, else its file letter.
    pub(super) fn castling_letter(&self, sq: u8) -> char {
        let color = if sq < 8 { Color::White } else { Color::Black };
        let back = back_rank(color);
        let file = sq % 8;
        let king_file = self.king_on_rank(color, back).map_or(4, |k| k % 8);
        let a_side = file < king_file;
        let rook = Some(Piece {
            color,
            role: Role::Rook,
        });
        let outer = (0..8u8)
            .filter(|f| *f != file && self.piece_at(back * 8 + f) == rook)
            .any(|f| (f < file) == a_side);
        let c = match (outer, a_side) {
            (true, _) => char::from(b'a' + file),
            (false, true) => 'q',
            (false, false) => 'k',
        };
        cased(color, c)
    }

    fn fen_with(&self, castling: String) -> String {
        let ep = match self.ep_square {
            Some(sq) if sq < 64 => square_name(sq),
            _ => String::from("-"),
        };
        format!(
            "{} {} {} {} {} {}",
            self.board_fen(),
            self.side_to_move.char(),
            castling,
            ep,
            self.halfmove_clock,
            self.fullmove_number
        )
    }
}

impl FromStr for Setup {
    type Err = FenError;

    /// Same as [`Setup::from_fen`].
    fn from_str(s: &str) -> Result<Setup, FenError> {
        Setup::from_fen(s)
    }
}

impl fmt::Display for Setup {
    /// Same as [`Setup::to_fen`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

/// Whitespace as Python's `str.split()` sees it.
fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Quotes user text for a message, escaping control characters and shortening long text.
fn quote(s: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::from("'");
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out.push('\'');
    out
}

/// How a rank of the placement is called in messages (`row` counts from the top, 0-based).
fn rank_label(row: usize) -> String {
    if row < 8 {
        format!("rank {}", 8 - row)
    } else {
        format!("row {} (there is no rank below 1)", row + 1)
    }
}

fn parse_placement(placement: &str) -> Result<[Option<Piece>; 64], FenError> {
    let err =
        |kind: FenErrorKind, message: String| FenError::new(FenField::Placement, kind, message);

    // 1. Characters. Done first so that a stray separator is named as such rather than as a
    //    wrong number of ranks.
    let mut row = 0usize;
    let mut previous_was_piece = false;
    for c in placement.chars() {
        match c {
            '/' => {
                row += 1;
                previous_was_piece = false;
            }
            '1'..='8' => previous_was_piece = false,
            '~' if previous_was_piece => previous_was_piece = false,
            _ if Piece::from_fen_char(c).is_some() => previous_was_piece = true,
            '0' => {
                return Err(err(
                    FenErrorKind::DigitZero,
                    format!("digit 0 in {}", rank_label(row)),
                ));
            }
            '9' => {
                return Err(err(
                    FenErrorKind::DigitNine,
                    format!("digit 9 in {}", rank_label(row)),
                ));
            }
            '~' => {
                return Err(err(
                    FenErrorKind::BadCharacter,
                    format!(
                        "'~' (promoted marker) not after a piece letter in {}",
                        rank_label(row)
                    ),
                ));
            }
            _ if c.is_alphabetic() => {
                return Err(err(
                    FenErrorKind::BadPieceLetter,
                    format!(
                        "{} is not a piece letter ({})",
                        quote(&c.to_string()),
                        rank_label(row)
                    ),
                ));
            }
            _ => {
                let rows_if_separator = placement.split(['/', c]).count();
                return Err(if rows_if_separator == 8 && !c.is_ascii_digit() {
                    err(
                        FenErrorKind::BadSeparator,
                        format!(
                            "rank separator {} instead of '/' after {}",
                            quote(&c.to_string()),
                            rank_label(row)
                        ),
                    )
                } else {
                    err(
                        FenErrorKind::BadCharacter,
                        format!(
                            "invalid character {} in {}",
                            quote(&c.to_string()),
                            rank_label(row)
                        ),
                    )
                });
            }
        }
    }

    // 2. Rank count.
    let rows: Vec<&str> = placement.split('/').collect();
    if placement.ends_with('/') {
        return Err(err(
            FenErrorKind::TrailingSlash,
            String::from("the placement ends with '/' (an empty ninth rank)"),
        ));
    }
    if rows.len() > 8 {
        return Err(err(
            FenErrorKind::TooManyRanks,
            format!("{} ranks, expected 8", rows.len()),
        ));
    }
    if rows.len() < 8 {
        return Err(err(
            FenErrorKind::TooFewRanks,
            format!("{} ranks, expected 8", rows.len()),
        ));
    }

    // 3. Each rank.
    let mut board = [None; 64];
    for (row, text) in rows.iter().enumerate() {
        if text.is_empty() {
            return Err(err(
                FenErrorKind::EmptyRank,
                format!("{} is empty ('//')", rank_label(row)),
            ));
        }
        let rank = 7 - row; // row < 8 here
        let mut squares = 0usize;
        let mut previous_digit: Option<char> = None;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                if let Some(p) = previous_digit {
                    return Err(err(
                        FenErrorKind::ConsecutiveDigits,
                        format!("two consecutive digits '{p}{c}' in {}", rank_label(row)),
                    ));
                }
                previous_digit = Some(c);
                squares += d as usize;
            } else if c == '~' {
                previous_digit = None;
            } else if let Some(piece) = Piece::from_fen_char(c) {
                previous_digit = None;
                if squares < 8 {
                    board[rank * 8 + squares] = Some(piece);
                }
                squares += 1;
            }
        }
        if squares != 8 {
            return Err(err(
                FenErrorKind::BadRankLength,
                format!("{} describes {squares} squares", rank_label(row)),
            ));
        }
    }
    Ok(board)
}

/// Tells a missing side-to-move field (the castling field in its place) from a bad one.
fn side_to_move_error(s: &str, fields: &[&str]) -> FenError {
    let castling_like = s == "-"
        || s.chars()
            .all(|c| matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h'));
    let ep_like = |f: &str| f == "-" || f.len() == 2 && f.is_ascii();
    let missing = fields.len() <= 5
        && castling_like
        && s != "W"
        && s != "B"
        && fields.get(2).is_none_or(|f| ep_like(f));
    if missing {
        FenError::new(
            FenField::SideToMove,
            FenErrorKind::MissingSideToMove,
            format!(
                "side-to-move field missing: found {} (a castling field?) where 'w' or 'b' is expected",
                quote(s)
            ),
        )
    } else {
        FenError::new(
            FenField::SideToMove,
            FenErrorKind::BadSideToMove,
            format!("side to move {} is neither 'w' nor 'b'", quote(s)),
        )
    }
}

/// The castling field's letters (colour, nominal file: `K` 7, `Q` 0, a file letter its
/// file), checked for syntax, order and repeats.
fn parse_castling(s: &str) -> Result<Vec<(Color, CastlingLetter)>, FenError> {
    let err =
        |kind: FenErrorKind, message: String| FenError::new(FenField::Castling, kind, message);
    if s == "-" {
        return Ok(vec![]);
    }
    // Pass 1: syntax. Each letter names (colour, rook file); K/Q are the h/a files.
    let mut letters: Vec<(Color, u8, char)> = Vec::new();
    for c in s.chars() {
        let (color, file) = match c {
            'K' => (Color::White, 7),
            'Q' => (Color::White, 0),
            'k' => (Color::Black, 7),
            'q' => (Color::Black, 0),
            'A'..='H' => (Color::White, c as u8 - b'A'),
            'a'..='h' => (Color::Black, c as u8 - b'a'),
            _ => {
                return Err(err(
                    FenErrorKind::CastlingBadChar,
                    format!(
                        "castling field {} has the invalid character {}",
                        quote(s),
                        quote(&c.to_string())
                    ),
                ));
            }
        };
        if let Some(&(prev_color, prev_file, prev_c)) = letters.last() {
            if prev_color == Color::Black && color == Color::White {
                return Err(err(
                    FenErrorKind::CastlingOrder,
                    format!(
                        "castling field {}: black letter '{prev_c}' before white letter '{c}'",
                        quote(s)
                    ),
                ));
            }
            if prev_color == color && prev_file == file {
                return Err(err(
                    FenErrorKind::CastlingDuplicate,
                    format!(
                        "castling field {} names the same right twice ('{prev_c}', '{c}')",
                        quote(s)
                    ),
                ));
            }
            if prev_color == color && prev_file < file {
                return Err(err(
                    FenErrorKind::CastlingOrder,
                    format!(
                        "castling field {}: '{prev_c}' before '{c}' (kingside comes first)",
                        quote(s)
                    ),
                ));
            }
        }
        if letters.iter().any(|&(col, f, _)| col == color && f == file) {
            return Err(err(
                FenErrorKind::CastlingDuplicate,
                format!("castling field {} repeats '{c}'", quote(s)),
            ));
        }
        letters.push((color, file, c));
        if letters.len() > 4 {
            return Err(err(
                FenErrorKind::CastlingDuplicate,
                format!("castling field {} has more than four letters", quote(s)),
            ));
        }
    }
    Ok(letters
        .into_iter()
        .map(|(color, file, c)| {
            let letter = match c {
                'K' | 'k' => CastlingLetter::Outer { h_side: true },
                'Q' | 'q' => CastlingLetter::Outer { h_side: false },
                _ => CastlingLetter::File(file),
            };
            (color, letter)
        })
        .collect())
}

/// What a castling letter names: the outermost rook on one side of the king (`K`/`Q`, X-FEN)
/// or the rook on a file (Shredder-FEN, X-FEN for inner rooks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CastlingLetter {
    /// `K`/`k` (`h_side`) or `Q`/`q`.
    Outer { h_side: bool },
    /// `A`–`H` / `a`–`h`: the file, 0-based.
    File(u8),
}

/// The rook squares the castling letters name on this board, as python-chess
/// `Board._set_castling_fen` resolves them: `K` is the highest rook of the colour on its back
/// rank when it stands on the king's h-side, else the h-file square; `Q` the lowest rook on
/// the a-side, else the a-file square; a file letter that file's back-rank square.
fn resolve_castling(
    letters: &[(Color, CastlingLetter)],
    board: &[Option<Piece>; 64],
) -> CastlingRights {
    let mut rooks = 0u64;
    for &(color, letter) in letters {
        let back = back_rank(color) * 8;
        let own = |role: Role| {
            (0..64u8)
                .filter(|sq| board[usize::from(*sq)] == Some(Piece { color, role }))
                .fold(0u64, |m, sq| m | 1 << sq)
        };
        let back_rooks = own(Role::Rook) & 0xff << back;
        let king = own(Role::King);
        // python-chess `Board.king`: the highest king square of the colour.
        let king_sq = (king != 0).then(|| 63 - king.leading_zeros() as u8);
        let sq = match letter {
            CastlingLetter::File(f) => back + f,
            CastlingLetter::Outer { h_side: true } => {
                let rook = (back_rooks != 0).then(|| 63 - back_rooks.leading_zeros() as u8);
                match (king_sq, rook) {
                    (Some(k), Some(r)) if k < r => r,
                    _ => back + 7,
                }
            }
            CastlingLetter::Outer { h_side: false } => {
                let rook = (back_rooks != 0).then(|| back_rooks.trailing_zeros() as u8);
                match (king_sq, rook) {
                    (Some(k), Some(r)) if r < k => r,
                    _ => back,
                }
            }
        };
        rooks |= 1 << sq;
    }
    CastlingRights::from_rooks(rooks)
}

/// The largest halfmove clock and fullmove number a FEN may give: 10^9. The pipeline keeps
/// both in Int32 columns (`positions`, `replay_states`), and a game may add a billion plies
/// before they would overflow; python-chess accepts any integer.
pub const MAX_COUNTER: u32 = 1_000_000_000;

/// Parses a non-negative decimal counter of ASCII digits, at most [`MAX_COUNTER`].
fn parse_counter(s: &str) -> Result<u32, &'static str> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("is not a non-negative integer");
    }
    match s.parse::<u32>() {
        Ok(n) if n <= MAX_COUNTER => Ok(n),
        _ => Err("is larger than 1000000000"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEN_BAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fen/fen_bad.txt");
    const FEN_EDGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fen/fen_edge.txt");

    /// Data lines of a fixture, split on tabs (the FEN column is not trimmed).
    fn rows(path: &str) -> Vec<Vec<String>> {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split('\t').map(str::to_owned).collect())
            .collect()
    }

    fn kind_of(fen: &str) -> &'static str {
        match Setup::from_fen(fen) {
            Ok(_) => "ok",
            Err(e) => e.kind.as_str(),
        }
    }

    #[test]
    fn fen_bad_lines_are_rejected_with_their_kind() {
        let rows = rows(FEN_BAD);
        assert_eq!(rows.len(), 60);
        let (mut rejected, mut left_to_engine) = (0, 0);
        for row in &rows {
            assert_eq!(row.len(), 5, "{row:?}");
            let (fen, kind, category, pychess) = (&row[0], row[2].as_str(), &row[3], &row[4]);
            assert!(
                kind.parse::<FenErrorKind>().is_ok() || ENGINE_CHECKED_KINDS.contains(&kind),
                "{kind}"
            );
            let result = Setup::from_fen(fen);
            if ENGINE_CHECKED_KINDS.contains(&kind) {
                assert!(
                    result.is_ok(),
                    "{kind} must be left to the engine: {fen}: {result:?}"
                );
                left_to_engine += 1;
            } else {
                let e = result.expect_err(fen);
                assert_eq!(e.kind.as_str(), kind, "{fen}: {e}");
                assert_eq!(e.to_string(), format!("{}: {}", e.field, e.message));
                rejected += 1;
            }
            // Syntax errors are exactly python-chess's ValueErrors.
            let unchecked = Setup::parse_unchecked(fen);
            if category == "syntax" {
                assert!(unchecked.is_err(), "{fen}");
            } else {
                let setup = unchecked.unwrap_or_else(|e| panic!("{fen}: {e}"));
                // python-chess normalises castling rights and ep squares away; for the other
                // kinds its fen() is the input.
                if !kind.starts_with("castling_") && !kind.starts_with("ep_") {
                    let py_fen = pychess
                        .split("fen()=")
                        .nth(1)
                        .expect("fen() in pychess column");
                    assert_eq!(setup.to_fen(), py_fen, "{kind}");
                }
            }
        }
        assert_eq!((rejected, left_to_engine), (55, 5));
    }

    #[test]
    fn fen_bad_fields() {
        for row in rows(FEN_BAD) {
            let Err(e) = Setup::from_fen(&row[0]) else {
                continue;
            };
            let expected = match e.kind.as_str() {
                k if k.starts_with("castling_") => FenField::Castling,
                k if k.starts_with("ep_") => FenField::EnPassant,
                "bad_side_to_move" | "missing_side_to_move" => FenField::SideToMove,
                "bad_halfmove" => FenField::HalfmoveClock,
                "bad_fullmove" | "too_many_fields" => FenField::FullmoveNumber,
                _ if row[3] == "syntax" => FenField::Placement,
                _ => FenField::Position,
            };
            assert_eq!(e.field, expected, "{e}");
        }
    }

    #[test]
    fn fen_edge_lines_load_and_write_back_as_python_chess() {
        let rows = rows(FEN_EDGE);
        assert_eq!(rows.len(), 40);
        for row in &rows {
            assert_eq!(row.len(), 8, "{row:?}");
            let (fen, note, py_fen) = (&row[0], &row[1], &row[5]);
            let mut setup = Setup::from_fen(fen).unwrap_or_else(|e| panic!("{fen} ({note}): {e}"));
            if py_fen.split(' ').nth(3) == Some("-") {
                setup.ep_square = None;
            }
            assert_eq!(&setup.to_fen(), py_fen, "{note}");
            // The normalised FEN loads to the same setup.
            assert_eq!(Setup::from_fen(py_fen), Ok(setup));
        }
    }

    #[test]
    fn fen_edge_ep_squares_are_kept() {
        for row in rows(FEN_EDGE) {
            let written = row[0].split_whitespace().nth(3).unwrap_or("-");
            let setup = Setup::from_fen(&row[0]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(setup.ep_square, parse_square(written), "{}", row[0]);
        }
    }

    #[test]
    fn start_position_round_trip() {
        let setup = Setup::from_fen(STARTING_FEN).expect("start position");
        assert_eq!(setup, Setup::standard());
        assert_eq!(setup.to_fen(), STARTING_FEN);
        assert_eq!(Setup::standard().to_string(), STARTING_FEN);
        assert_eq!(STARTING_FEN.parse::<Setup>(), Ok(Setup::default()));
        assert_eq!(setup.piece_at(4).map(Piece::fen_char), Some('K'));
        assert_eq!(setup.piece_at(59).map(Piece::fen_char), Some('q'));
        assert_eq!(setup.piece_at(64), None);
    }

    #[test]
    fn castling_fields() {
        assert_eq!(Setup::standard().castling_xfen(), "KQkq");
        assert_eq!(Setup::standard().castling_shredder(), "HAha");
        assert_eq!(Setup::empty().castling_xfen(), "-");
        assert_eq!(Setup::empty().castling_shredder(), "-");
    }

    #[test]
    fn castling_rights_are_rook_squares() {
        let s = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").expect("Shredder");
        assert_eq!(s.castling, CastlingRights::ALL);
        assert!(!s.chess960 && !s.has_chess960_castling_rights());
        let s = Setup::from_fen_chess960("4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1").expect("960");
        assert_eq!(s.castling.rooks(), 1 | 1 << 3);
        assert!(s.castling.has(3) && !s.castling.has(7));
        assert_eq!(s.to_fen(), "4k3/8/8/8/8/8/8/RK1R4 w KQ - 0 1");
        assert_eq!(s.to_shredder_fen(), "4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1");
        assert!(s.has_chess960_castling_rights());
        // X-FEN `K` is the outermost h-side rook; an inner rook is named by its file
        let s = Setup::from_fen_chess960("rk2r3/8/8/8/8/8/8/RK2R2R w EQk - 0 1").expect("960");
        assert_eq!(s.castling.rooks(), 1 | 1 << 4 | 1 << 60);
        assert_eq!(s.castling_xfen(), "EQk");
        assert_eq!(s.castling_shredder(), "EAe");
        assert_eq!(
            Setup::from_fen_auto("rk2r3/8/8/8/8/8/8/RK2R2R w EQk - 0 1"),
            Ok(s)
        );
    }

    #[test]
    fn error_display() {
        let e = Setup::from_fen(
            "r2qk2r/pp1n1ppp/2pbpnb1/8/3P1N2p/1B3QN1/PPP2PPP/R1B1K2R b KQkq - 7 10",
        )
        .expect_err("9 squares");
        assert_eq!(e.to_string(), "placement: rank 4 describes 9 squares");
        assert_eq!(e.field.as_str(), "placement");
        let e = Setup::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").expect_err("empty");
        assert_eq!(e.to_string(), "position: the board is empty (no kings)");
    }

    #[test]
    fn unit_cases() {
        let k = "4k3/8/8/8/8/8/8/4K3";
        let cases: &[(String, &str)] = &[
            (String::new(), "empty_fen"),
            (" \t\n".into(), "empty_fen"),
            (format!("{k} w - - 0 1"), "ok"),
            (k.into(), "ok"),
            (format!("{k} x"), "bad_side_to_move"),
            (format!("{k} W - - 0 1"), "bad_side_to_move"),
            (format!("{k} KQ - 0 1"), "missing_side_to_move"),
            (format!("{k} - e3 0 1"), "missing_side_to_move"),
            (format!("{k} - - - 0 1"), "bad_side_to_move"),
            (format!("{k} B - - 0 1"), "bad_side_to_move"),
            (format!("{k} w QK - 0 1"), "castling_order"),
            (format!("{k} w AH - 0 1"), "castling_order"),
            (format!("{k} w KK - 0 1"), "castling_duplicate"),
            (format!("{k} w KH - 0 1"), "castling_duplicate"),
            (format!("{k} w KQkqK - 0 1"), "castling_order"),
            (format!("{k} w K- - 0 1"), "castling_bad_char"),
            (format!("{k} w KQkq - 0 1"), "castling_without_rook"),
            (format!("{k} w C - 0 1"), "castling_without_rook"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1".into(), "ok"),
            (
                "r3k2r/8/8/8/8/8/8/R4K1R w K - 0 1".into(),
                "castling_king_moved",
            ),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into(), "ok"),
            (format!("{k} w - e9 0 1"), "ep_bad_square"),
            (format!("{k} w - e6 0 1"), "ep_no_double_push"),
            ("4k3/8/8/4p3/8/8/8/4K3 w - e6 0 1".into(), "ok"),
            (
                "4k3/4p3/8/4p3/8/8/8/4K3 w - e6 0 1".into(),
                "ep_no_double_push",
            ),
            (
                "4k3/8/4p3/4p3/8/8/8/4K3 w - e6 0 1".into(),
                "ep_square_occupied",
            ),
            ("4k3/8/8/4p3/8/8/8/4K3 b - e6 0 1".into(), "ep_wrong_rank"),
            ("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1".into(), "ok"),
            (
                "4k3/8/8/8/4P3/8/4P3/4K3 b - e3 0 1".into(),
                "ep_no_double_push",
            ),
            (format!("{k} w - - -0 1"), "bad_halfmove"),
            (format!("{k} w - - +5 1"), "bad_halfmove"),
            // counters above MAX_COUNTER (2^31 once aborted a validate run at the Int32
            // columns; 2^31 - 1 overflowed after one move)
            (format!("{k} w - - 1000000000 1000000000"), "ok"),
            (format!("{k} w - - 1000000001 1"), "bad_halfmove"),
            (format!("{k} b - - 2147483648 1"), "bad_halfmove"),
            (format!("{k} w - - 0 2147483647"), "bad_fullmove"),
            (format!("{k} w - - 4294967296 1"), "bad_halfmove"),
            (format!("{k} w - - 0 0"), "ok"),
            (format!("{k} w - - 0 1_0"), "bad_fullmove"),
            (format!("{k} w - - 0 1 x"), "too_many_fields"),
            ("4k3/8/8/8/8/8/8/4KQ~2 w - - 0 1".into(), "ok"),
            ("4k3/8/8/8/8/8/8/4K~3 w - - 0 1".into(), "ok"),
            ("4k3/8/8/8/8/8/8/~4K3 w - - 0 1".into(), "bad_character"),
            ("4k3/8/8/8/8/8/8/4K@2 w - - 0 1".into(), "bad_character"),
            ("4k3/8/8/8/8/8/8/4Kx2 w - - 0 1".into(), "bad_piece_letter"),
            ("4k3/8/8/8/8/8/8/4Kж2 w - - 0 1".into(), "bad_piece_letter"),
            ("4k3/8/8/8/8/8/8/4K10 w - - 0 1".into(), "digit_zero"),
            ("4k3/8/8/8\\8/8/8/4K3 w - - 0 1".into(), "bad_separator"),
            ("/4k3/8/8/8/8/8/8/4K3 w - - 0 1".into(), "too_many_ranks"),
            ("/".into(), "trailing_slash"),
            ("4k3/8/8/8/8/8/8/4K3/ w - - 0 1".into(), "trailing_slash"),
            (
                "4k3/8/8/8/8/8/8/4K21 w - - 0 1".into(),
                "consecutive_digits",
            ),
            ("4k3/8/8/8/8/8/8/4K4 w - - 0 1".into(), "bad_rank_length"),
            (
                "KNBRQKNBRQ/8/8/8/8/8/8/8 w - - 0 1".into(),
                "bad_rank_length",
            ),
            ("4k3/8/8/8/8/8/8/4K2k w - - 0 1".into(), "two_black_kings"),
            ("4k3/8/8/8/8/8/8/8 w - - 0 1".into(), "no_white_king"),
            ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1".into(), "white_pawn_rank8"),
            ("4k3/8/8/8/8/8/8/4K2p w - - 0 1".into(), "black_pawn_rank1"),
            (
                "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1".into(),
                "nine_black_pawns",
            ),
            (
                "qqqqkqqq/qqqqqqqq/q7/8/8/8/8/4K3 w - - 0 1".into(),
                "seventeen_black_pieces",
            ),
            // Whitespace as python-chess: tabs, newlines, NBSP, U+001F.
            (format!("\t{k}\u{a0}b\n-\u{1f}-  3\r\n 4\n"), "ok"),
        ];
        for (fen, expected) in cases {
            assert_eq!(kind_of(fen), *expected, "{fen:?}");
        }
    }

    #[test]
    fn lenient_defaults() {
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/4K3").expect("placement only");
        assert_eq!(s.to_fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        let s = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R b Hh").expect("three fields");
        assert_eq!(s.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R b Kk - 0 1");
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 7 0").expect("fullmove 0");
        assert_eq!(s.fullmove_number, 1);
        assert_eq!(s.halfmove_clock, 7);
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/4KQ~2 w - - 0 1").expect("promoted marker");
        assert_eq!(s.to_fen(), "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1");
    }
    /// xorshift64*: a tiny deterministic generator, so the test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Anything accepted must write back to a FEN that loads to the same setup.
    fn check_no_panic(input: &str) {
        if let Ok(setup) = Setup::from_fen(input) {
            assert_eq!(Setup::from_fen(&setup.to_fen()), Ok(setup), "{input:?}");
        }
        let _ = Setup::parse_unchecked(input).map(|s| s.to_fen());
    }

    #[test]
    fn random_inputs_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Random bytes.
        for _ in 0..500 {
            let len = rng.below(120);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            check_no_panic(&String::from_utf8_lossy(&bytes));
        }
        // Random strings over the FEN alphabet.
        let alphabet: Vec<char> = "pnbrqkPNBRQK012345678/9 -wbKQkqeh36~|x\té"
            .chars()
            .collect();
        for _ in 0..2000 {
            let len = rng.below(90);
            let s: String = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            check_no_panic(&s);
        }
        // Mutations of valid FENs.
        let mut seeds: Vec<String> = rows(FEN_EDGE).into_iter().map(|r| r[0].clone()).collect();
        seeds.push(STARTING_FEN.to_owned());
        let mut accepted = 0;
        for _ in 0..5000 {
            let mut chars: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
            for _ in 0..=rng.below(3) {
                let at = rng.below(chars.len() + 1);
                let c = alphabet[rng.below(alphabet.len())];
                match rng.below(3) {
                    0 => chars.insert(at, c),
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ if at < chars.len() => chars[at] = c,
                    _ => chars.push(c),
                }
            }
            let s: String = chars.into_iter().collect();
            if Setup::from_fen(&s).is_ok() {
                accepted += 1;
            }
            check_no_panic(&s);
        }
        assert!(accepted > 0);
    }
}
