//! Lexer for one movetext token in Standard Algebraic Notation (SAN).
//!
//! [`parse_san`] turns a single main-line token (as produced by
//! [`crate::pgn::PgnReader`]: move numbers, NAGs and `!`/`?` glyphs already removed) into a
//! structured [`SanToken`] or a [`SanError`]. Only the *shape* of the token is checked here;
//! whether the move is legal, ambiguous or names a missing piece is decided elsewhere (the SQL
//! resolver), so `Nf3` lexes fine even in a position without knights.
//!
//! The accepted language is the SAN of the PGN standard (1994, §8.2.3) as widened by
//! python-chess 1.11's `Board.parse_san`, so that a token is a syntax error here exactly when
//! python-chess raises `InvalidMoveError` for it:
//!
//! * castling `O-O`, `O-O-O`, `0-0`, `0-0-0`, each optionally followed by one `+` or `#`;
//! * the whole token matches
//!   `^([NBKRQ])?([a-h])?([1-8])?[-x]?([a-h][1-8])(=?[nbrqkNBRQK])?[+#]?$`
//!   (python-chess's `SAN_REGEX`). This covers ordinary SAN (`Nf3`, `exd5`, `e8=Q`, `Raxd1+`),
//!   long algebraic (`Ng1-f3`, `e2-e4`, `Nb1xc3`), UCI (`g1f3`, `e7e8q`, `e1g1`), `=`-less and
//!   lower-case promotions (`e8Q`, `d7d8R`, `e8=q`) and the pawn push written with a capture
//!   mark (`xe4`);
//! * the null moves `--`, `Z0`, `0000` and `@@@@`;
//! * an en passant mark `ep` or `e.p.` (FIDE Laws, Appendix C.13's handwriting suffix; the
//!   PGN reader glues an `e.p.` written as its own token to the move before it), directly
//!   before or after the check mark, on a pawn capture onto rank 3 or 6 only (`exd6ep`,
//!   `exd6e.p.+`, `e5d6ep`); [`SanSuffix::en_passant`] records it and the caller must
//!   refuse it (as a syntax error) when the move it resolves to is not an en passant capture.
//!
//! Everything else is a [`SanError`]: `Sf3`, `Qz9`, `Qd66`, `e9`, `Nf`, `N3f`, `e4=`, `Pe4`,
//! `0-0-0-0`, `O-O-O-O`, `e4++`, the empty token. The whole token must match (no substring
//! matching, unlike python-chess's PGN *reader*, which silently keeps SAN-shaped substrings).

use std::fmt;

pub use crate::chess::role::Role;

/// The structure of a syntactically valid move token.
///
/// Squares are numbered `0..64` with `a1 = 0`, `h1 = 7`, `a8 = 56`, `h8 = 63`
/// (`square = rank * 8 + file`); files and ranks are `0..8` (`a..h`, `1..8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanToken {
    /// A piece or pawn move in SAN or long algebraic form, with a piece letter or without a
    /// complete origin square.
    ///
    /// * `role` is the piece letter, or [`Role::Pawn`] when there is none. A pawn move without
    ///   `from_file` must come from the file of `to` (python-chess: `e5` and `xe5` are pushes; a
    ///   pawn capture names its file, `dxe5`); a pawn move never has both `from_file` and
    ///   `from_rank` (that form is [`SanToken::FromTo`]).
    /// * `from_file` / `from_rank` are the disambiguation (`Nbd2`, `R1e2`, `Qh4e1`); when both
    ///   are given with a piece letter the origin square is fully specified.
    /// * `capture` records an `x` in the token. python-chess ignores it when matching, so the
    ///   resolver should too (it is informative only).
    /// * `promotion` is the promotion piece, if the token has one (`e8=Q`, `e8q`). The lexer
    ///   accepts any of `NBRQK` after any move, as python-chess's regex does: `Some(King)` or a
    ///   promotion on a piece move or to a rank other than 8/1 is never legal in standard
    ///   chess and must be reported by the resolver as an illegal move, not a syntax error.
    Normal {
        /// The moving piece (`Pawn` if the token has no piece letter).
        role: Role,
        /// Origin file `0..8` given in the token, if any.
        from_file: Option<u8>,
        /// Origin rank `0..8` given in the token, if any.
        from_rank: Option<u8>,
        /// Whether the token contains the capture mark `x`.
        capture: bool,
        /// Destination square `0..64`.
        to: u8,
        /// Promotion piece, if the token names one.
        promotion: Option<Role>,
    },
    /// A move given by its complete origin square and no piece letter: UCI and long algebraic
    /// tokens such as `g1f3`, `e2-e4`, `e7e8q`, `d7d8R`, `e1g1`.
    ///
    /// python-chess resolves this as "the move from `from` to `to` of whatever piece of the side
    /// to move stands on `from`" (`Board.find_move`): it may be any piece, and `e1g1`/`e1c1`
    /// (and king-onto-own-rook like `e1h1`) are castling when castling is legal. When a pawn
    /// moves to the last rank and `promotion` is `None`, python-chess reports the move as illegal
    /// ("missing promotion piece type"), it does not promote implicitly.
    FromTo {
        /// Origin square `0..64`.
        from: u8,
        /// Destination square `0..64`.
        to: u8,
        /// Whether the token contains the capture mark `x` (`e4xd5`; informative only).
        capture: bool,
        /// Promotion piece, if the token names one (any of `NBRQK`, see [`SanToken::Normal`]).
        promotion: Option<Role>,
    },
    /// Castling: `O-O`/`0-0` (`long == false`) or `O-O-O`/`0-0-0` (`long == true`).
    Castle {
        /// `true` for queen-side castling.
        long: bool,
    },
    /// A null move (`--`, `Z0`, `0000`, `@@@@`): the side to move passes.
    Null,
}

/// The marks written after a move. python-chess ignores the check and mate marks when
/// resolving moves (`Nf3#` without mate is accepted), so they are reported here for
/// information only; the en passant mark is a claim the caller checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SanSuffix {
    /// The token ends with `+`.
    pub check: bool,
    /// The token ends with `#`.
    pub mate: bool,
    /// The token carries the en passant mark `ep` or `e.p.`: the move must be an en passant
    /// capture (FIDE Laws art. 3.7.4.1), else the token is a syntax error.
    pub en_passant: bool,
}

/// Why a token is not a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanErrorKind {
    /// The token is empty.
    Empty,
    /// The token contains whitespace, a control character or a non-ASCII character.
    BadChar,
    /// The token does not end with a destination square (after an optional promotion and
    /// `+`/`#`), e.g. `Nf`, `e9`, `Qz9`, `e4=`, `0-0-0-0`.
    NoDestination,
    /// Something before the destination square is not `[NBKRQ]?[a-h]?[1-8]?[-x]?`,
    /// e.g. `Sf3` (localised piece letter), `Qd66`, `Pe4`, `B5b`.
    BadPrefix,
    /// An en passant mark (`ep`, `e.p.`) on a token that cannot be an en passant capture:
    /// not a pawn capture onto rank 3 or 6 (`Nf3ep`, `O-O e.p.`, `e4ep`, `exd5ep`).
    BadEnPassant,
}

impl SanErrorKind {
    /// A short `snake_case` name for the reason (`empty`, `bad_char`, `no_destination`,
    /// `bad_prefix`, `bad_en_passant`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SanErrorKind::Empty => "empty",
            SanErrorKind::BadChar => "bad_char",
            SanErrorKind::NoDestination => "no_destination",
            SanErrorKind::BadPrefix => "bad_prefix",
            SanErrorKind::BadEnPassant => "bad_en_passant",
        }
    }
}

impl fmt::Display for SanErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            SanErrorKind::Empty => "empty token",
            SanErrorKind::BadChar => "character that is not printable ASCII",
            SanErrorKind::NoDestination => "no destination square at the end",
            SanErrorKind::BadPrefix => "unexpected characters before the destination square",
            SanErrorKind::BadEnPassant => {
                "en passant mark on a move that is not a pawn capture onto rank 3 or 6"
            }
        };
        f.write_str(text)
    }
}

/// A token that is not a move in SAN (PGN standard §8.2.3, widened as python-chess 1.11 does):
/// the `error_kind = "syntax"` case of a validator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid SAN {}: {kind}", shorten(.token))]
pub struct SanError {
    /// The offending token, in full.
    pub token: String,
    /// Why it is not a move.
    pub kind: SanErrorKind,
}

/// Quotes a token for messages, cutting very long ones (a 1 MiB garbage token must not make a
/// 1 MiB message).
fn shorten(token: &str) -> String {
    const MAX: usize = 40;
    if token.chars().count() <= MAX {
        format!("{token:?}")
    } else {
        let head: String = token.chars().take(MAX).collect();
        format!("{head:?}... ({} bytes)", token.len())
    }
}

/// Lexes one movetext token (without move number, NAG or `!`/`?` glyphs) into a move
/// description and its check/mate suffix.
///
/// Accepts exactly the tokens python-chess 1.11's `Board.parse_san` does not reject as
/// `InvalidMoveError` (see the module documentation); the whole token must match.
///
/// # Errors
///
/// [`SanError`] (carrying the token and a [`SanErrorKind`]) when the token is not SAN, long
/// algebraic, UCI, castling or a null move.
///
/// ```text
/// let (tok, suffix) = parse_san("exd8=Q+")?;
/// ```
pub fn parse_san(token: &str) -> Result<(SanToken, SanSuffix), SanError> {
    let fail = |kind| SanError {
        token: token.to_owned(),
        kind,
    };
    if token.is_empty() {
        return Err(fail(SanErrorKind::Empty));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(fail(SanErrorKind::BadChar));
    }
    match token {
        "--" | "Z0" | "0000" | "@@@@" => return Ok((SanToken::Null, SanSuffix::default())),
        _ => {}
    }

    // Check / mate suffix (at most one character), with the en passant mark before or after
    // it (no SAN body ends with `p` or `.`, so the mark never eats a move's own letters).
    let mut body = token.as_bytes();
    let mut suffix = SanSuffix::default();
    strip_en_passant(&mut body, &mut suffix);
    match body.last() {
        Some(b'+') => suffix.check = true,
        Some(b'#') => suffix.mate = true,
        _ => {}
    }
    if suffix.check || suffix.mate {
        body = &body[..body.len() - 1];
    }
    if !suffix.en_passant {
        strip_en_passant(&mut body, &mut suffix);
    }

    let castle = match body {
        b"O-O" | b"0-0" => Some(false),
        b"O-O-O" | b"0-0-0" => Some(true),
        _ => None,
    };
    if let Some(long) = castle {
        return with_marks(token, SanToken::Castle { long }, suffix);
    }

    // Promotion: the body ends with a digit (the destination rank) or a promotion letter,
    // optionally preceded by '='.
    let mut promotion = None;
    if let Some((&last, rest)) = body.split_last()
        && b"nbrqkNBRQK".contains(&last)
    {
        promotion = Role::from_char(char::from(last).to_ascii_uppercase());
        body = rest.strip_suffix(b"=").unwrap_or(rest);
    }

    // Destination square.
    let [prefix @ .., file, rank] = body else {
        return Err(fail(SanErrorKind::NoDestination));
    };
    let (Some(to_file), Some(to_rank)) = (file_index(*file), rank_index(*rank)) else {
        return Err(fail(SanErrorKind::NoDestination));
    };
    let to = to_rank * 8 + to_file;

    // Prefix: [NBKRQ]? [a-h]? [1-8]? [-x]? -- the classes are disjoint, so a greedy scan is
    // exactly the regular expression.
    let mut rest = prefix;
    let role = take(&mut rest, |b| {
        b"NBKRQ"
            .contains(&b)
            .then(|| Role::from_char(char::from(b).to_ascii_uppercase()))
            .flatten()
    });
    let from_file = take(&mut rest, file_index);
    let from_rank = take(&mut rest, rank_index);
    let capture = match rest {
        [] | [b'-'] => false,
        [b'x'] => true,
        _ => return Err(fail(SanErrorKind::BadPrefix)),
    };

    let san = match (role, from_file, from_rank) {
        (None, Some(file), Some(rank)) => SanToken::FromTo {
            from: rank * 8 + file,
            to,
            capture,
            promotion,
        },
        _ => SanToken::Normal {
            role: role.unwrap_or(Role::Pawn),
            from_file,
            from_rank,
            capture,
            to,
            promotion,
        },
    };
    with_marks(token, san, suffix)
}

/// The lexed token with its marks, or [`SanErrorKind::BadEnPassant`] when an en passant
/// mark stands on a token that cannot be an en passant capture.
fn with_marks(
    token: &str,
    san: SanToken,
    suffix: SanSuffix,
) -> Result<(SanToken, SanSuffix), SanError> {
    if suffix.en_passant && !may_capture_en_passant(&san) {
        return Err(SanError {
            token: token.to_owned(),
            kind: SanErrorKind::BadEnPassant,
        });
    }
    Ok((san, suffix))
}

/// Removes a trailing en passant mark (`e.p.` or `ep`) from `body`, noting it in `suffix`.
fn strip_en_passant(body: &mut &[u8], suffix: &mut SanSuffix) {
    for mark in [b"e.p.".as_slice(), b"ep"] {
        if let Some(rest) = body.strip_suffix(mark) {
            *body = rest;
            suffix.en_passant = true;
            return;
        }
    }
}

/// Whether a token has the shape of an en passant capture (FIDE Laws art. 3.7.4.1): a pawn
/// (no piece letter) moving one file sideways onto rank 3 or 6, without promotion.
fn may_capture_en_passant(san: &SanToken) -> bool {
    let (from_file, to) = match *san {
        SanToken::Normal {
            role: Role::Pawn,
            from_file: Some(file),
            from_rank: None,
            to,
            promotion: None,
            ..
        } => (file, to),
        SanToken::FromTo {
            from,
            to,
            promotion: None,
            ..
        } if from / 8 == if to / 8 == 5 { 4 } else { 3 } => (from % 8, to),
        _ => return false,
    };
    matches!(to / 8, 2 | 5) && from_file.abs_diff(to % 8) == 1
}

/// Takes the first byte of `rest` if `f` accepts it.
fn take<T>(rest: &mut &[u8], f: impl Fn(u8) -> Option<T>) -> Option<T> {
    let (&first, tail) = rest.split_first()?;
    let value = f(first)?;
    *rest = tail;
    Some(value)
}

/// `a..h` -> `0..8`.
fn file_index(b: u8) -> Option<u8> {
    (b'a'..=b'h').contains(&b).then(|| b - b'a')
}

/// `1..8` -> `0..8`.
fn rank_index(b: u8) -> Option<u8> {
    (b'1'..=b'8').contains(&b).then(|| b - b'1')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> u8 {
        let b = name.as_bytes();
        (b[1] - b'1') * 8 + (b[0] - b'a')
    }

    fn normal(
        role: Role,
        from_file: Option<u8>,
        from_rank: Option<u8>,
        capture: bool,
        to: &str,
        promotion: Option<Role>,
    ) -> SanToken {
        SanToken::Normal {
            role,
            from_file,
            from_rank,
            capture,
            to: sq(to),
            promotion,
        }
    }

    fn lex(token: &str) -> SanToken {
        match parse_san(token) {
            Ok((t, _)) => t,
            Err(e) => panic!("{token:?} should lex: {e}"),
        }
    }

    #[test]
    fn ordinary_san() {
        assert_eq!(lex("e4"), normal(Role::Pawn, None, None, false, "e4", None));
        assert_eq!(
            lex("Nf3"),
            normal(Role::Knight, None, None, false, "f3", None)
        );
        assert_eq!(
            lex("exd5"),
            normal(Role::Pawn, Some(4), None, true, "d5", None)
        );
        assert_eq!(
            lex("Nbd2"),
            normal(Role::Knight, Some(1), None, false, "d2", None)
        );
        assert_eq!(
            lex("R1e2"),
            normal(Role::Rook, None, Some(0), false, "e2", None)
        );
        assert_eq!(
            lex("Qh4xe1"),
            normal(Role::Queen, Some(7), Some(3), true, "e1", None)
        );
        assert_eq!(
            lex("Kxh8"),
            normal(Role::King, None, None, true, "h8", None)
        );
        assert_eq!(lex("a1"), normal(Role::Pawn, None, None, false, "a1", None));
        assert_eq!(lex("h8"), normal(Role::Pawn, None, None, false, "h8", None));
        assert_eq!(sq("h8"), 63);
    }

    #[test]
    fn promotions() {
        let q = Some(Role::Queen);
        assert_eq!(lex("e8=Q"), normal(Role::Pawn, None, None, false, "e8", q));
        assert_eq!(lex("e8Q"), normal(Role::Pawn, None, None, false, "e8", q));
        assert_eq!(lex("e8=q"), normal(Role::Pawn, None, None, false, "e8", q));
        assert_eq!(
            lex("bxa1=N"),
            normal(Role::Pawn, Some(1), None, true, "a1", Some(Role::Knight))
        );
        // Lexically fine, never legal: the resolver reports illegal_move.
        assert_eq!(
            lex("e8=K"),
            normal(Role::Pawn, None, None, false, "e8", Some(Role::King))
        );
        assert_eq!(
            lex("Nf8=Q"),
            normal(Role::Knight, None, None, false, "f8", q)
        );
        assert_eq!(lex("e5=Q"), normal(Role::Pawn, None, None, false, "e5", q));
    }

    #[test]
    fn long_algebraic_and_uci() {
        assert_eq!(
            lex("g1f3"),
            SanToken::FromTo {
                from: sq("g1"),
                to: sq("f3"),
                capture: false,
                promotion: None
            }
        );
        assert_eq!(
            lex("e7e8q"),
            SanToken::FromTo {
                from: sq("e7"),
                to: sq("e8"),
                capture: false,
                promotion: Some(Role::Queen)
            }
        );
        assert_eq!(
            lex("d7d8R"),
            SanToken::FromTo {
                from: sq("d7"),
                to: sq("d8"),
                capture: false,
                promotion: Some(Role::Rook)
            }
        );
        assert_eq!(
            lex("e1g1"),
            SanToken::FromTo {
                from: sq("e1"),
                to: sq("g1"),
                capture: false,
                promotion: None
            }
        );
        assert_eq!(
            lex("e4xd5"),
            SanToken::FromTo {
                from: sq("e4"),
                to: sq("d5"),
                capture: true,
                promotion: None
            }
        );
        assert_eq!(
            lex("Ng1-f3"),
            normal(Role::Knight, Some(6), Some(0), false, "f3", None)
        );
        assert_eq!(
            lex("e2-e4"),
            SanToken::FromTo {
                from: sq("e2"),
                to: sq("e4"),
                capture: false,
                promotion: None
            }
        );
        // python-chess accepts these shapes too.
        assert_eq!(lex("xe4"), normal(Role::Pawn, None, None, true, "e4", None));
        assert_eq!(
            lex("4e5"),
            normal(Role::Pawn, None, Some(3), false, "e5", None)
        );
        assert_eq!(
            lex("Nf3f3"),
            normal(Role::Knight, Some(5), Some(2), false, "f3", None)
        );
        assert_eq!(
            lex("N-f3"),
            normal(Role::Knight, None, None, false, "f3", None)
        );
    }

    #[test]
    fn castling_null_and_suffixes() {
        for t in ["O-O", "0-0", "O-O+", "0-0#"] {
            assert_eq!(lex(t), SanToken::Castle { long: false }, "{t}");
        }
        for t in ["O-O-O", "0-0-0", "O-O-O#", "0-0-0+"] {
            assert_eq!(lex(t), SanToken::Castle { long: true }, "{t}");
        }
        for t in ["--", "Z0", "0000", "@@@@"] {
            assert_eq!(lex(t), SanToken::Null, "{t}");
        }
        assert_eq!(
            parse_san("Qxf7#").map(|(_, s)| s),
            Ok(SanSuffix {
                check: false,
                mate: true,
                en_passant: false
            })
        );
        assert_eq!(
            parse_san("e8=Q+").map(|(_, s)| s),
            Ok(SanSuffix {
                check: true,
                mate: false,
                en_passant: false
            })
        );
        assert_eq!(parse_san("e4").map(|(_, s)| s), Ok(SanSuffix::default()));
    }

    #[test]
    fn en_passant_marks() {
        let ep = |t: &str| match parse_san(t) {
            Ok((tok, s)) => {
                assert!(s.en_passant, "{t:?}");
                (tok, s)
            }
            Err(e) => panic!("{t:?} should lex: {e}"),
        };
        let exd6 = normal(Role::Pawn, Some(4), None, true, "d6", None);
        assert_eq!(ep("exd6ep").0, exd6);
        assert_eq!(ep("exd6e.p.").0, exd6);
        assert_eq!(
            ep("exd6ep+"),
            (
                exd6,
                SanSuffix {
                    check: true,
                    mate: false,
                    en_passant: true
                }
            )
        );
        assert_eq!(
            ep("exd6+e.p.").1,
            SanSuffix {
                check: true,
                mate: false,
                en_passant: true
            }
        );
        assert_eq!(
            ep("exd6e.p.#").1,
            SanSuffix {
                check: false,
                mate: true,
                en_passant: true
            }
        );
        assert_eq!(
            ep("dxe3ep").0,
            normal(Role::Pawn, Some(3), None, true, "e3", None)
        );
        assert_eq!(
            ep("e5d6ep").0,
            SanToken::FromTo {
                from: sq("e5"),
                to: sq("d6"),
                capture: false,
                promotion: None
            }
        );
        assert_eq!(
            ep("b4xa3e.p.").0,
            SanToken::FromTo {
                from: sq("b4"),
                to: sq("a3"),
                capture: true,
                promotion: None
            }
        );
        assert!(!parse_san("exd6").is_ok_and(|(_, s)| s.en_passant));
        for t in [
            "Nf3ep",
            "O-Oep",
            "0-0-0e.p.",
            "e4ep",
            "xe6ep",
            "exd5ep",
            "exc6ep",
            "e5e6ep",
            "e2d3ep",
            "exd6=Qep",
            "Kxd6ep",
            "e6ep",
        ] {
            assert_eq!(
                parse_san(t).map_err(|e| e.kind),
                Err(SanErrorKind::BadEnPassant),
                "{t:?}"
            );
        }
        for t in ["ep", "e.p.", "exd6epep", "exd6e.p", "exd6 e.p.", "--ep"] {
            assert!(parse_san(t).is_err(), "{t:?}");
        }
    }

    #[test]
    fn syntax_errors() {
        let cases = [
            ("", SanErrorKind::Empty),
            ("Sf3", SanErrorKind::BadPrefix),
            ("Qz9", SanErrorKind::NoDestination),
            ("Qd66", SanErrorKind::NoDestination),
            ("e9", SanErrorKind::NoDestination),
            ("Nf", SanErrorKind::NoDestination),
            ("N3f", SanErrorKind::NoDestination),
            ("e4=", SanErrorKind::NoDestination),
            ("0-0-0-0", SanErrorKind::NoDestination),
            ("O-O-O-O", SanErrorKind::NoDestination),
            ("Pe4", SanErrorKind::BadPrefix),
            ("e4++", SanErrorKind::NoDestination),
            ("e4+#", SanErrorKind::NoDestination),
            ("Nxxf3", SanErrorKind::BadPrefix),
            ("nf3", SanErrorKind::BadPrefix),
            ("E4", SanErrorKind::NoDestination),
            ("e4!", SanErrorKind::NoDestination),
            ("e8==Q", SanErrorKind::NoDestination),
            ("e8=P", SanErrorKind::NoDestination),
            ("P@e4", SanErrorKind::BadPrefix),
            ("Nf3 ", SanErrorKind::BadChar),
            ("Ñf3", SanErrorKind::BadChar),
            ("1-0", SanErrorKind::NoDestination),
            ("O-O-", SanErrorKind::NoDestination),
            ("o-o", SanErrorKind::NoDestination),
            ("000", SanErrorKind::NoDestination),
            ("Z", SanErrorKind::NoDestination),
            ("-", SanErrorKind::NoDestination),
            ("+", SanErrorKind::NoDestination),
        ];
        for (token, kind) in cases {
            match parse_san(token) {
                Err(e) => {
                    assert_eq!(e.kind, kind, "{token:?}");
                    assert_eq!(e.token, token);
                }
                Ok(t) => panic!("{token:?} should not lex, got {t:?}"),
            }
        }
    }

    #[test]
    fn long_garbage_token_message_is_short() {
        let token = "Q".repeat(1 << 20);
        let err = parse_san(&token).expect_err("not SAN");
        assert!(err.to_string().len() < 200);
        assert_eq!(err.token.len(), 1 << 20);
    }

    /// Every `token` of `shared/data/bad/illegal.csv`: the 60 `syntax` rows must fail to lex,
    /// the 240 others (illegal, ambiguous, wrong side, no such piece) must lex.
    #[test]
    fn illegal_csv_tokens() {
        let syntax = [
            "0-0-0-0", "B5b", "B7g", "Bc", "Bf0", "Bm4", "Bp6", "Bxg0", "Dc1", "Kf", "Kf0", "Kh",
            "Kxg9", "Le6", "Lf4", "Nc9", "O-O-O-O", "Qa55", "Qe", "Qh0", "Qxe", "Qxe0", "Qxf9",
            "R5b", "Rd", "Rf8e", "Rxc", "Sa5", "Sc6", "Se8", "Sf6", "Sfd7", "Sgf3", "Tb8", "a",
            "a55", "axa0", "axb", "c55", "c66", "c9", "d0", "d33", "e9", "fxe0", "g9", "h0",
        ];
        let lexable = [
            "B4b3", "B4c2", "B8a2", "Ba3", "Bb5", "Bb6", "Bc2", "Bc3", "Bc6", "Bd3", "Bd4", "Bd6",
            "Be3", "Bf2", "Bf5", "Bf8", "Bg6", "Bh8", "Bxd4", "Bxf3", "Bxg7", "Kb1", "Kb7", "Kc7",
            "Kd2", "Ke2", "Ke3", "Kf3", "Kg2", "Kg6", "Kg7", "Kh6", "Kh8", "N3c5", "N3xd2", "N6f6",
            "Na2", "Na4", "Nac5", "Nb3", "Nb4", "Nb5", "Nb6", "Nc3", "Nc4", "Nc6", "Nc8", "Nd2",
            "Nd3", "Nd6", "Nd7", "Nd8", "Ne1", "Ne2", "Ne4", "Ne6", "Ne7", "Ne8", "Nf2", "Nf3",
            "Nf6", "Nf7", "Nf8", "Ng3", "Ng8", "Ngg4", "Nh6", "Nxa5", "Nxc3", "Nxg7", "O-O",
            "O-O-O", "Qb2", "Qb4", "Qb8", "Qbe3", "Qc6", "Qc7", "Qd1", "Qe1", "Qe7", "Qed7", "Qf3",
            "Qf5", "Qg4", "Qgg4", "Qh3", "Qhe2", "Qhf6", "Qxc4", "Qxc6", "Qxf2", "R2a7", "R2c5",
            "R4e1", "R4e4", "Ra2", "Ra8", "Raf1", "Rb1", "Rc1", "Rc2", "Rc3", "Rc5", "Rc6", "Rc7",
            "Rc8", "Rd1", "Rd3", "Rd5", "Rd8", "Re8", "Ree1", "Rf1", "Rf2", "Rf4", "Rf6", "Rf8",
            "Rg1", "Rg7", "Rg8", "Rh5", "Rhe1", "Rxe4", "Rxf6", "a2", "a4", "a5", "b3", "b4", "b5",
            "b6", "bxc6", "c2", "c4", "c6", "c7", "c8", "cxb5", "cxd3", "d7", "d8", "dxc3", "dxc6",
            "dxe6", "e4", "e5", "exd3", "exd6", "exf5", "exf6", "exf7", "f2", "f3", "f5", "f6=R",
            "fxe3", "fxe4", "fxg7", "g3", "g4", "g5=R", "g6", "g6=R", "gxf2", "h1", "h3", "h3=Q",
            "h4", "h5=R",
        ];
        for t in syntax {
            assert!(parse_san(t).is_err(), "{t:?} must be a syntax error");
        }
        for t in lexable {
            assert!(parse_san(t).is_ok(), "{t:?} must lex");
        }
    }

    #[test]
    fn role_letters_round_trip() {
        for role in Role::ALL {
            assert_eq!(Role::from_char(role.char()), Some(role));
        }
        assert_eq!(Role::from_char('S'), None);
    }
}
