//! Material balance patterns in pgn-extract's syntax: the lines of a `-y`/`-z` file and the
//! strings of `--materialy`/`--materialz` (pgn-extract manual, `help.html`, section
//! "Material matches"; the parser is pgn-extract's `end.c`). [`parse`] reads one pattern
//! into a [`MaterialPattern`], plain data that a SQL table can hold, for the SQL function
//! `material_matches(fen, pattern)`, whose matching is a SQL stage elsewhere.
//!
//! # The syntax
//!
//! ```text
//! [depth] pieces1 [pieces2]
//! ```
//!
//! * `pieces1` and `pieces2` are the material of the two sides, each a run of terms without
//!   spaces, separated by whitespace (or `:`, as pgn-extract's parser also allows). Under
//!   `-y` `pieces1` is White and `pieces2` Black; under `-z` either way round (see
//!   [`MaterialPattern::swapped`]). `pieces2` may be left out: a lone king.
//! * A term is an English piece letter `K`, `Q`, `R`, `B`, `N`, `P`, or `L` for a minor piece
//!   (bishop or knight), in either case, optionally followed by one digit `d` and a suffix:
//!
//!   | term | the side's count `c` of that kind, the opponent's `o` |
//!   |---|---|
//!   | `X`, `Xd` | `c` = 1, `c` = d |
//!   | `X*` | any `c` (zero or more) |
//!   | `X+`, `Xd+` | `c` ≥ 1, `c` ≥ d |
//!   | `X-`, `Xd-` | `c` ≤ 1, `c` ≤ d |
//!   | `X?` (in `end.c`, not in the manual) | `c` ≤ 1 |
//!   | `X=`, `X#` | `c` = `o`, `c` ≠ `o` |
//!   | `X>`, `Xd>` | `c` ≥ `o` + 1, `c` ≥ `o` + d ("at least d more") |
//!   | `X<`, `Xd<` | `c` + 1 ≤ `o`, `c` + d ≤ `o` ("at least d less") |
//!   | `X>=`, `Xd>=` | `c` = `o` + 1, `c` = `o` + d ("exactly d more") |
//!   | `X<=`, `Xd<=` | `c` + 1 = `o`, `c` + d = `o` ("exactly d less") |
//!
//!   A kind not listed for a side is absent from it (`c` = 0), except the king: "There is no
//!   need to include Kings in the description except for the special case where pieces1
//!   would otherwise be empty" (`k p`: a lone king against king and pawn).
//! * `depth`, an optional decimal number before `pieces1`, is "how many half-moves you wish
//!   that material balance to last" (default 2, [`DEFAULT_DEPTH`]): `10 R2P+ R=P*`.
//!
//! The manual's examples: `rp nb`, `k p`, `bn pr`, `QR2B2N2P8 QR2B2N2P8` (the starting
//! material), `R+P+ R=P#`, `r2p* r=p1>=`, `q*r+n*b*p+ q=r<n>b>p1<`,
//! `q*r+n*b*p+ q=r1<=n>b>p1<`, `q*r+n*b*p+ q=r1<=n1>=b1>=p1<`, `q*r+l*p+ q=r1<=l2>=p1<`,
//! `q*r*b2n0p* q=r=b0n2p=`, `10 R2P+ R=P*` (all tested below).
//!
//! # Stricter than pgn-extract
//!
//! pgn-extract silently drops or alters some of what is written; [`parse`] refuses it
//! instead, so that a SQL user never gets a pattern other than the one they wrote: a digit
//! before `*`, `?`, `=` or `#` (pgn-extract ignores it), a king term other than `K` or `K1`
//! (forced to one king), the pawn count 9 (clamped to 8), a letter given twice for one side
//! (the later wins), `L` mixed with `N` or `B` on one side (the manual advises against it;
//! `N` and `B` would be ignored), an empty `pieces1` (a lone king), text after `pieces2`
//! (ignored as a comment), a `%` comment line and a blank pattern (skipped in a file). Like
//! pgn-extract, it refuses a two-digit count and any other character.

use std::fmt;
use std::str::FromStr;

/// The depth of a pattern written without one: 2 half-moves ("By default, this has a value of
/// 2 so that fleeting positions in the middle of pairs of exchanges do not produce unwanted
/// matches", pgn-extract manual).
pub const DEFAULT_DEPTH: u32 = 2;

/// The upper bound of [`CountRange`] for "or more" (`*`, `+`, `d+`) and for terms that bound
/// the count only relative to the opponent's: no upper limit.
pub const UNBOUNDED: u8 = u8::MAX;

/// The upper-case letters of the kinds in kind-code order (P 0, N 1, B 2, R 3, Q 4, K 5, as
/// [`crate::chess::role::Role::ALL`]): the index of [`SideMaterial::kinds`].
pub const KIND_LETTERS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

/// The kind code of the king in [`SideMaterial::kinds`].
const KING: usize = 5;
/// The kind code of the knight in [`SideMaterial::kinds`].
const KNIGHT: usize = 1;
/// The kind code of the bishop in [`SideMaterial::kinds`].
const BISHOP: usize = 2;
/// The kind code of the pawn in [`SideMaterial::kinds`].
const PAWN: usize = 0;

/// One piece kind's allowed count range for one side, inclusive: the side has between `min`
/// and `max` pieces of that kind (a number of pieces; [`UNBOUNDED`] as `max` means no upper
/// limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CountRange {
    /// The fewest pieces allowed.
    pub min: u8,
    /// The most pieces allowed; [`UNBOUNDED`] for no limit.
    pub max: u8,
}

impl CountRange {
    /// Any count: `0..=UNBOUNDED` (`X*`, and every relative term).
    pub const ANY: CountRange = CountRange {
        min: 0,
        max: UNBOUNDED,
    };

    /// Exactly `n` pieces (`Xd`; `X` is `exactly(1)`, a kind not listed `exactly(0)`).
    pub const fn exactly(n: u8) -> CountRange {
        CountRange { min: n, max: n }
    }

    /// `n` or more pieces (`Xd+`; `X+` is `at_least(1)`).
    pub const fn at_least(n: u8) -> CountRange {
        CountRange {
            min: n,
            max: UNBOUNDED,
        }
    }

    /// `n` or fewer pieces (`Xd-`; `X-` and `X?` are `at_most(1)`).
    pub const fn at_most(n: u8) -> CountRange {
        CountRange { min: 0, max: n }
    }

    /// Whether `count` pieces lie in the range.
    pub const fn contains(self, count: u8) -> bool {
        self.min <= count && count <= self.max
    }
}

/// How a side's count of a kind must compare with the opponent's count of the same kind (for
/// the minor piece `L`: bishops plus knights), the pgn-extract notations "relative to the
/// opponent's". `by` is the [`PieceConstraint::by`] of the term. Plain data:
/// [`Relation::name`] is its value in a table column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    /// No comparison with the opponent (the absolute terms `X`, `Xd`, `X*`, `X+`, `Xd+`, `X-`,
    /// `Xd-`, `X?`, and kinds not listed).
    Unconstrained,
    /// `X=`: the same count as the opponent.
    Same,
    /// `X#`: a count different from the opponent's.
    Different,
    /// `X>`, `Xd>`: at least `by` more than the opponent (`count >= opponent + by`).
    AtLeastMore,
    /// `X<`, `Xd<`: at least `by` fewer than the opponent (`count + by <= opponent`).
    AtLeastFewer,
    /// `X>=`, `Xd>=`: exactly `by` more than the opponent (`count == opponent + by`).
    ExactlyMore,
    /// `X<=`, `Xd<=`: exactly `by` fewer than the opponent (`count + by == opponent`).
    ExactlyFewer,
}

impl Relation {
    /// Every relation.
    pub const ALL: [Relation; 7] = [
        Relation::Unconstrained,
        Relation::Same,
        Relation::Different,
        Relation::AtLeastMore,
        Relation::AtLeastFewer,
        Relation::ExactlyMore,
        Relation::ExactlyFewer,
    ];

    /// Its name in a table column (`material_patterns.relation`): `none`, `same`,
    /// `different`, `at_least_more`, `at_least_fewer`, `exactly_more`, `exactly_fewer`.
    pub const fn name(self) -> &'static str {
        match self {
            Relation::Unconstrained => "none",
            Relation::Same => "same",
            Relation::Different => "different",
            Relation::AtLeastMore => "at_least_more",
            Relation::AtLeastFewer => "at_least_fewer",
            Relation::ExactlyMore => "exactly_more",
            Relation::ExactlyFewer => "exactly_fewer",
        }
    }

    /// Whether a side with `count` pieces of a kind stands in this relation to an opponent
    /// with `opponent` of them, with the difference `by` (pgn-extract's `piece_match`;
    /// computed without overflow).
    pub const fn holds(self, count: u8, opponent: u8, by: u8) -> bool {
        let (c, o, d) = (count as u16, opponent as u16, by as u16);
        match self {
            Relation::Unconstrained => true,
            Relation::Same => c == o,
            Relation::Different => c != o,
            Relation::AtLeastMore => c >= o + d,
            Relation::AtLeastFewer => c + d <= o,
            Relation::ExactlyMore => c == o + d,
            Relation::ExactlyFewer => c + d == o,
        }
    }
}

/// What one term (or its absence) requires of one side's count of one kind: the count must
/// lie in `range` **and** stand in `relation` (with `by`) to the opponent's count of the same
/// kind ([`PieceConstraint::admits`]). An absolute term has `relation`
/// [`Relation::Unconstrained`] and `by` 0; a relative term has `range` [`CountRange::ANY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceConstraint {
    /// The allowed counts, inclusive.
    pub range: CountRange,
    /// The comparison with the opponent's count.
    pub relation: Relation,
    /// The difference of [`Relation::AtLeastMore`], [`Relation::AtLeastFewer`],
    /// [`Relation::ExactlyMore`] and [`Relation::ExactlyFewer`] (the digit `d`, 1 when not
    /// written; 0 is allowed: `X0>` is "at least as many"); 0 for the other relations.
    pub by: u8,
}

impl PieceConstraint {
    /// Any count, whatever the opponent has (`X*`).
    pub const ANY: PieceConstraint = PieceConstraint::absolute(CountRange::ANY);

    /// The absolute constraint "count in `range`".
    pub const fn absolute(range: CountRange) -> PieceConstraint {
        PieceConstraint {
            range,
            relation: Relation::Unconstrained,
            by: 0,
        }
    }

    /// The relative constraint "count stands in `relation` to the opponent's, by `by`", with
    /// no bound of its own.
    pub const fn relative(relation: Relation, by: u8) -> PieceConstraint {
        PieceConstraint {
            range: CountRange::ANY,
            relation,
            by,
        }
    }

    /// Whether a side with `count` pieces of the kind, against an opponent with `opponent` of
    /// them, satisfies the constraint: `range` contains `count` and `relation` holds.
    pub const fn admits(self, count: u8, opponent: u8) -> bool {
        self.range.contains(count) && self.relation.holds(count, opponent, self.by)
    }
}

/// One side's material as the pattern describes it (`pieces1` or `pieces2`).
///
/// A side matches when every entry of `kinds` admits the side's count of that kind against
/// the opponent's, and `minor` (when present) admits the side's bishops plus knights against
/// the opponent's bishops plus knights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SideMaterial {
    /// The constraint per kind, indexed by kind code: P 0, N 1, B 2, R 3, Q 4, K 5
    /// ([`KIND_LETTERS`]). A kind not written is `exactly(0)`, except the king, which is
    /// always `exactly(1)` (only `K` or `K1` may be written; pgn-extract never compares kings,
    /// and a valid position has one king a side, so checking it or not gives the same answer).
    /// When `minor` is present, N and B are [`PieceConstraint::ANY`]: pgn-extract does not
    /// check knights and bishops one by one on a side with an `L` requirement.
    pub kinds: [PieceConstraint; 6],
    /// The `L` term: a constraint on bishops plus knights, or `None` when the side has no `L`
    /// term. `L0` is `None` too (it is pgn-extract's default, "no requirement"), with N and B
    /// left at `exactly(0)`, which means the same: no minor pieces.
    pub minor: Option<PieceConstraint>,
}

impl SideMaterial {
    /// A lone king: every kind `exactly(0)` but the king, `exactly(1)`; no `L` term. What an
    /// omitted `pieces2` (or a `pieces1` of just `K`) means.
    pub const LONE_KING: SideMaterial = {
        let none = PieceConstraint::absolute(CountRange::exactly(0));
        let mut kinds = [none; 6];
        kinds[KING] = PieceConstraint::absolute(CountRange::exactly(1));
        SideMaterial { kinds, minor: None }
    };
}

/// A parsed material balance description (see the [module documentation](self) for the
/// syntax, from pgn-extract's manual).
///
/// `material_matches(fen, pattern)` tests the pattern as written (`sides[0]` against White,
/// `sides[1]` against Black) **or** [`MaterialPattern::swapped`] (`sides[0]` against Black),
/// exactly as pgn-extract's `-z` and `--materialz` do; `-y`'s "as written only" is not offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaterialPattern {
    /// The sides as written: `sides[0]` is `pieces1` (White under `-y`), `sides[1]` is
    /// `pieces2` ([`SideMaterial::LONE_KING`] when not written).
    pub sides: [SideMaterial; 2],
    /// The stability depth in half-moves: pgn-extract reports a match only once the balance has
    /// held on `depth + 1` consecutive positions of a game ([`DEFAULT_DEPTH`] when not
    /// written). `material_matches` tests one position and ignores it, as pgn-extract itself
    /// does for the material constraint of a FEN pattern (a single position, depth 0); it is
    /// kept for a future per-game matcher.
    pub depth: u32,
}

impl MaterialPattern {
    /// The pattern with its sides exchanged: `sides[0]` and `sides[1]` swap places, the depth
    /// stays. The relative terms need no change: each still compares its side with the other.
    /// A position (White, Black) matches `p.swapped()` exactly when (Black, White) matches
    /// `p`; pgn-extract's `-z` accepts a position matching `p` or `p.swapped()` (the manual:
    /// "with -z the example above" (`rp nb`) "matches the same games as: bn pr").
    pub fn swapped(&self) -> MaterialPattern {
        MaterialPattern {
            sides: [self.sides[1], self.sides[0]],
            depth: self.depth,
        }
    }
}

impl FromStr for MaterialPattern {
    type Err = MaterialPatternError;

    /// [`parse`].
    fn from_str(text: &str) -> Result<MaterialPattern, MaterialPatternError> {
        parse(text)
    }
}

/// Why a material pattern was refused. Every `position` is a 1-based character (not byte)
/// index into the text given to [`parse`]; at the end of the text it is the number of
/// characters plus 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialPatternError {
    /// The text is empty or whitespace only.
    #[error("empty material pattern: expected pieces such as \"rp nb\"")]
    Empty,
    /// The text starts with `%`: a comment line of a pgn-extract material file, not a pattern.
    #[error("'%' at character 1 starts a comment line of a material file, not a material pattern")]
    CommentLine,
    /// A character (or the end of the text, `found` `None`) where something else was expected.
    #[error("{} at character {position}: expected {expected}", describe(*.found))]
    Unexpected {
        /// Where.
        position: usize,
        /// The character found; `None` at the end of the text.
        found: Option<char>,
        /// What the syntax allows there.
        expected: &'static str,
    },
    /// A count of two or more digits (pgn-extract: "Number > 9 is too big").
    #[error("count at character {position} has more than one digit: counts are 0 to 9")]
    CountTooBig {
        /// The first digit.
        position: usize,
    },
    /// The depth does not fit in 32 bits.
    #[error("depth at character {position} is too big: at most {}", u32::MAX)]
    DepthTooBig {
        /// The depth's first digit.
        position: usize,
    },
    /// A pawn count of 9.
    #[error("pawn count 9 at character {position}: a side has at most 8 pawns")]
    TooManyPawns {
        /// The digit.
        position: usize,
    },
    /// A king term other than `K` or `K1` (a side always has exactly one king).
    #[error(
        "king term at character {position} says other than one king: write K (or K1), a side always has exactly one"
    )]
    KingCount {
        /// The `K`.
        position: usize,
    },
    /// A digit before `*`, `?`, `=` or `#`, which take none.
    #[error("count before '{suffix}' at character {position}: '{suffix}' takes no count")]
    CountNotAllowed {
        /// The digit.
        position: usize,
        /// The suffix.
        suffix: char,
    },
    /// A piece letter given twice for one side.
    #[error("piece letter '{letter}' at character {position} is given twice for the same side")]
    RepeatedPiece {
        /// The second occurrence.
        position: usize,
        /// The letter, upper case.
        letter: char,
    },
    /// `L` together with `N` or `B` in one side (the manual advises against it).
    #[error(
        "'{letter}' at character {position} mixes the minor piece letter L with N or B in one side: use either L or N and B"
    )]
    MixedMinor {
        /// The later of the letters.
        position: usize,
        /// That letter, upper case.
        letter: char,
    },
    /// Text after `pieces2`.
    #[error(
        "{} at character {position} after the second side: a pattern has at most two sides",
        describe(Some(*.found))
    )]
    TrailingText {
        /// The first character after the second side's trailing whitespace.
        position: usize,
        /// That character.
        found: char,
    },
}

impl MaterialPatternError {
    /// The 1-based character index the error names; `None` for [`MaterialPatternError::Empty`],
    /// 1 for [`MaterialPatternError::CommentLine`].
    pub fn position(&self) -> Option<usize> {
        match self {
            MaterialPatternError::Empty => None,
            MaterialPatternError::CommentLine => Some(1),
            MaterialPatternError::Unexpected { position, .. }
            | MaterialPatternError::CountTooBig { position }
            | MaterialPatternError::DepthTooBig { position }
            | MaterialPatternError::TooManyPawns { position }
            | MaterialPatternError::KingCount { position }
            | MaterialPatternError::CountNotAllowed { position, .. }
            | MaterialPatternError::RepeatedPiece { position, .. }
            | MaterialPatternError::MixedMinor { position, .. }
            | MaterialPatternError::TrailingText { position, .. } => Some(*position),
        }
    }
}

/// `unexpected 'x'` (with the code point for control and non-ASCII characters) or
/// `unexpected end of pattern`.
fn describe(found: Option<char>) -> String {
    match found {
        None => "unexpected end of pattern".to_owned(),
        Some(c) if c.is_ascii_graphic() => format!("unexpected '{c}'"),
        Some(c) => format!("unexpected {c:?} (U+{:04X})", u32::from(c)),
    }
}

/// The message's `expected` at the start of a side.
const EXPECTED_LETTER: &str = "a piece letter K, Q, R, B, N, P or L";
/// The message's `expected` at the start of `pieces1`.
const EXPECTED_FIRST: &str = "a piece letter K, Q, R, B, N, P or L (write K for a lone king)";
/// The message's `expected` after a digit.
const EXPECTED_AFTER_DIGIT: &str = "a piece letter, a space or one of + - < > after the count";
/// The message's `expected` after a complete term.
const EXPECTED_AFTER_TERM: &str = "a piece letter, a space or the end of the side";

/// Whitespace as C's `isspace` in the C locale, which pgn-extract uses.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

/// What ends a side: whitespace or `:` (pgn-extract's material constraint separator).
fn is_separator(c: char) -> bool {
    is_space(c) || c == ':'
}

/// Parses one material balance description in pgn-extract's syntax (see the
/// [module documentation](self); source: pgn-extract's manual `help.html`, "Material
/// matches", and its parser `end.c`).
///
/// Leading and trailing whitespace is allowed (a line of a `-z` file with its line end
/// parses). Never panics; any input that is not a pattern is a [`MaterialPatternError`]
/// naming the character and what was expected.
///
/// # Errors
///
/// [`MaterialPatternError::Empty`] for blank text, [`MaterialPatternError::CommentLine`] for a
/// `%` line, and the other variants for the syntax errors and the refusals listed in the
/// module documentation ("Stricter than pgn-extract").
pub fn parse(text: &str) -> Result<MaterialPattern, MaterialPatternError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.first() == Some(&'%') {
        return Err(MaterialPatternError::CommentLine);
    }
    let mut cursor = Cursor {
        chars: &chars,
        at: 0,
    };
    cursor.skip_while(is_space);
    if cursor.peek().is_none() {
        return Err(MaterialPatternError::Empty);
    }

    let mut depth = DEFAULT_DEPTH;
    if cursor.peek().is_some_and(|c| c.is_ascii_digit()) {
        let position = cursor.position();
        depth = 0;
        while let Some(digit) = cursor.peek().and_then(|c| c.to_digit(10)) {
            depth = depth
                .checked_mul(10)
                .and_then(|d| d.checked_add(digit))
                .ok_or(MaterialPatternError::DepthTooBig { position })?;
            cursor.at += 1;
        }
        cursor.skip_while(is_space);
    }

    if cursor.peek().is_none_or(is_separator) {
        return Err(MaterialPatternError::Unexpected {
            position: cursor.position(),
            found: cursor.peek(),
            expected: EXPECTED_FIRST,
        });
    }
    let first = cursor.side()?;
    cursor.skip_while(is_separator);
    let second = if cursor.peek().is_some() {
        cursor.side()?
    } else {
        SideMaterial::LONE_KING
    };
    cursor.skip_while(is_space);
    if let Some(found) = cursor.peek() {
        return Err(MaterialPatternError::TrailingText {
            position: cursor.position(),
            found,
        });
    }
    Ok(MaterialPattern {
        sides: [first, second],
        depth,
    })
}

/// A position in the pattern's characters.
struct Cursor<'a> {
    chars: &'a [char],
    at: usize,
}

impl Cursor<'_> {
    /// The current character; `None` at the end.
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The current 1-based character index.
    fn position(&self) -> usize {
        self.at + 1
    }

    /// Moves past the characters satisfying `skip`.
    fn skip_while(&mut self, skip: fn(char) -> bool) {
        while self.peek().is_some_and(skip) {
            self.at += 1;
        }
    }

    /// Reads one side: terms up to a separator or the end. At least one term (the caller
    /// checks that one starts here).
    fn side(&mut self) -> Result<SideMaterial, MaterialPatternError> {
        let mut side = SideMaterial::LONE_KING;
        let mut seen = [false; 6];
        let mut seen_minor = false;
        let start = self.at;
        while let Some(c) = self.peek() {
            if is_separator(c) {
                break;
            }
            let position = self.position();
            let letter = c.to_ascii_uppercase();
            let kind = KIND_LETTERS.iter().position(|&k| k == letter);
            if kind.is_none() && letter != 'L' {
                let expected = if self.at == start {
                    EXPECTED_LETTER
                } else {
                    EXPECTED_AFTER_TERM
                };
                return Err(MaterialPatternError::Unexpected {
                    position,
                    found: Some(c),
                    expected,
                });
            }
            self.at += 1;
            let (constraint, digit) = self.term()?;
            match kind {
                Some(kind) => {
                    if seen[kind] {
                        return Err(MaterialPatternError::RepeatedPiece { position, letter });
                    }
                    if (kind == KNIGHT || kind == BISHOP) && seen_minor {
                        return Err(MaterialPatternError::MixedMinor { position, letter });
                    }
                    if kind == KING
                        && constraint != PieceConstraint::absolute(CountRange::exactly(1))
                    {
                        return Err(MaterialPatternError::KingCount { position });
                    }
                    if kind == PAWN && digit == Some(9) {
                        return Err(MaterialPatternError::TooManyPawns {
                            position: position + 1,
                        });
                    }
                    seen[kind] = true;
                    side.kinds[kind] = constraint;
                }
                None => {
                    if seen_minor {
                        return Err(MaterialPatternError::RepeatedPiece { position, letter });
                    }
                    if seen[KNIGHT] || seen[BISHOP] {
                        return Err(MaterialPatternError::MixedMinor { position, letter });
                    }
                    seen_minor = true;
                    // `L0` is pgn-extract's default ("no L requirement"): N and B stay
                    // `exactly(0)`, which means the same.
                    if constraint != PieceConstraint::absolute(CountRange::exactly(0)) {
                        side.minor = Some(constraint);
                        side.kinds[KNIGHT] = PieceConstraint::ANY;
                        side.kinds[BISHOP] = PieceConstraint::ANY;
                    }
                }
            }
        }
        Ok(side)
    }

    /// Reads what follows a piece letter: an optional digit and an optional suffix. Returns
    /// the constraint and the digit, if any.
    fn term(&mut self) -> Result<(PieceConstraint, Option<u8>), MaterialPatternError> {
        let digit_position = self.position();
        let digit = match self.peek().and_then(|c| c.to_digit(10)) {
            Some(d) => {
                self.at += 1;
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(MaterialPatternError::CountTooBig {
                        position: digit_position,
                    });
                }
                // A decimal digit is below 10.
                Some(d as u8)
            }
            None => None,
        };
        let n = digit.unwrap_or(1);
        let no_count = |suffix: char| match digit {
            Some(_) => Err(MaterialPatternError::CountNotAllowed {
                position: digit_position,
                suffix,
            }),
            None => Ok(()),
        };
        let constraint = match self.peek() {
            Some('*') => {
                no_count('*')?;
                PieceConstraint::ANY
            }
            Some('?') => {
                no_count('?')?;
                PieceConstraint::absolute(CountRange::at_most(1))
            }
            Some('=') => {
                no_count('=')?;
                PieceConstraint::relative(Relation::Same, 0)
            }
            Some('#') => {
                no_count('#')?;
                PieceConstraint::relative(Relation::Different, 0)
            }
            Some('+') => PieceConstraint::absolute(CountRange::at_least(n)),
            Some('-') => PieceConstraint::absolute(CountRange::at_most(n)),
            Some('>') => {
                self.at += 1;
                if self.peek() == Some('=') {
                    PieceConstraint::relative(Relation::ExactlyMore, n)
                } else {
                    return Ok((PieceConstraint::relative(Relation::AtLeastMore, n), digit));
                }
            }
            Some('<') => {
                self.at += 1;
                if self.peek() == Some('=') {
                    PieceConstraint::relative(Relation::ExactlyFewer, n)
                } else {
                    return Ok((PieceConstraint::relative(Relation::AtLeastFewer, n), digit));
                }
            }
            Some(c) if digit.is_some() && !is_separator(c) && !c.is_ascii_alphabetic() => {
                return Err(MaterialPatternError::Unexpected {
                    position: self.position(),
                    found: Some(c),
                    expected: EXPECTED_AFTER_DIGIT,
                });
            }
            _ => return Ok((PieceConstraint::absolute(CountRange::exactly(n)), digit)),
        };
        // The one-character suffix (or the '=' of ">=" and "<=").
        self.at += 1;
        Ok((constraint, digit))
    }
}

impl fmt::Display for PieceConstraint {
    /// The constraint as a pgn-extract term suffix (what follows the letter): `""` for
    /// exactly one, `"2"`, `"*"`, `"+"`, `"3+"`, `"-"`, `"2-"`, `"="`, `"#"`, `"2>"`, `"1<"`,
    /// `"1>="`, `"2<="`. Only what [`parse`] can produce is written faithfully: a range no
    /// term writes (such as `2..=5`) is written `{2..5}`, which [`parse`] refuses, and the
    /// range of a relative constraint is not written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let CountRange { min, max } = self.range;
        match self.relation {
            Relation::Unconstrained => match (min, max) {
                (1, 1) => Ok(()),
                (0, UNBOUNDED) => f.write_str("*"),
                (1, UNBOUNDED) => f.write_str("+"),
                (min, UNBOUNDED) => write!(f, "{min}+"),
                (min, max) if min == max => write!(f, "{min}"),
                (0, 1) => f.write_str("-"),
                (0, max) => write!(f, "{max}-"),
                (min, max) => write!(f, "{{{min}..{max}}}"),
            },
            Relation::Same => f.write_str("="),
            Relation::Different => f.write_str("#"),
            Relation::AtLeastMore => write!(f, "{}>", self.by),
            Relation::AtLeastFewer => write!(f, "{}<", self.by),
            Relation::ExactlyMore => write!(f, "{}>=", self.by),
            Relation::ExactlyFewer => write!(f, "{}<=", self.by),
        }
    }
}

impl fmt::Display for SideMaterial {
    /// The side in pgn-extract's syntax, kinds from queen to pawn, then `L`, leaving out the
    /// kinds that are absent (and the king, unless nothing else is written): `QR2B2N2P8`,
    /// `R+P+`, `K`. For a side with an `L` term the N and B entries are not written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let absent = PieceConstraint::absolute(CountRange::exactly(0));
        let mut written = false;
        for kind in [4, 3, BISHOP, KNIGHT, PAWN] {
            if self.minor.is_some() && (kind == KNIGHT || kind == BISHOP) {
                continue;
            }
            if self.kinds[kind] != absent {
                write!(f, "{}{}", KIND_LETTERS[kind], self.kinds[kind])?;
                written = true;
            }
        }
        if let Some(minor) = self.minor {
            write!(f, "L{minor}")?;
            written = true;
        }
        if !written {
            f.write_str("K")?;
        }
        Ok(())
    }
}

impl fmt::Display for MaterialPattern {
    /// The pattern in pgn-extract's syntax, the depth first when it is not the default:
    /// `RP BN`, `10 R2P+ R=P*`. [`parse`] reads the text of a pattern it made back to an
    /// equal pattern.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.depth != DEFAULT_DEPTH {
            write!(f, "{} ", self.depth)?;
        }
        write!(f, "{} {}", self.sides[0], self.sides[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Absent.
    const O: PieceConstraint = PieceConstraint::absolute(CountRange::exactly(0));

    fn exactly(n: u8) -> PieceConstraint {
        PieceConstraint::absolute(CountRange::exactly(n))
    }

    fn at_least(n: u8) -> PieceConstraint {
        PieceConstraint::absolute(CountRange::at_least(n))
    }

    fn at_most(n: u8) -> PieceConstraint {
        PieceConstraint::absolute(CountRange::at_most(n))
    }

    fn rel(relation: Relation, by: u8) -> PieceConstraint {
        PieceConstraint::relative(relation, by)
    }

    /// A side from its P, N, B, R, Q constraints (king exactly one, no L).
    fn side(
        p: PieceConstraint,
        n: PieceConstraint,
        b: PieceConstraint,
        r: PieceConstraint,
        q: PieceConstraint,
    ) -> SideMaterial {
        SideMaterial {
            kinds: [p, n, b, r, q, exactly(1)],
            minor: None,
        }
    }

    fn pattern(first: SideMaterial, second: SideMaterial) -> MaterialPattern {
        MaterialPattern {
            sides: [first, second],
            depth: DEFAULT_DEPTH,
        }
    }

    fn ok(text: &str) -> MaterialPattern {
        match parse(text) {
            Ok(p) => p,
            Err(e) => panic!("{text:?} refused: {e}"),
        }
    }

    fn err(text: &str) -> MaterialPatternError {
        match parse(text) {
            Ok(p) => panic!("{text:?} accepted as {p:?}"),
            Err(e) => e,
        }
    }

    /// Parses, checks the expected pattern and the Display round trip.
    fn check(text: &str, expected: MaterialPattern) {
        let parsed = ok(text);
        assert_eq!(parsed, expected, "{text:?}");
        let shown = parsed.to_string();
        assert_eq!(ok(&shown), parsed, "{text:?} shown as {shown:?}");
    }

    // The manual's examples, in its order.

    #[test]
    fn manual_rook_and_pawn_against_knight_and_bishop() {
        // "rp nb looks for a game in which a lone Rook and Pawn are competing against a lone
        // Knight and Bishop for the other."
        check(
            "rp nb",
            pattern(
                side(exactly(1), O, O, exactly(1), O),
                side(O, exactly(1), exactly(1), O, O),
            ),
        );
    }

    #[test]
    fn manual_lone_king_against_pawn() {
        // "to find matches where Black has a single pawn and White only has a King"
        check(
            "k p",
            pattern(SideMaterial::LONE_KING, side(exactly(1), O, O, O, O)),
        );
    }

    #[test]
    fn manual_z_matches_both_ways_round() {
        // "with -z the example above matches the same games as: bn pr"
        assert_eq!(ok("bn pr"), ok("rp nb").swapped());
        assert_eq!(ok("bn pr").swapped(), ok("rp nb"));
        assert_eq!(ok("rp nb").swapped().swapped(), ok("rp nb"));
        // "The case of the letters is immaterial and the order of the pieces does not matter."
        assert_eq!(ok("RP NB"), ok("pr bn"));
    }

    #[test]
    fn manual_starting_material() {
        // "QR2B2N2P8 QR2B2N2P8 is the starting material position."
        let start = side(exactly(8), exactly(2), exactly(2), exactly(2), exactly(1));
        check("QR2B2N2P8 QR2B2N2P8", pattern(start, start));
        let start_counts = [8, 2, 2, 2, 1, 1];
        for (constraint, count) in start.kinds.iter().zip(start_counts) {
            assert!(constraint.admits(count, count));
        }
    }

    #[test]
    fn manual_equal_rooks_unbalanced_pawns() {
        // "R+P+ R=P# looks for Rook and Pawn games with a non-zero equal number of Rooks but
        // unbalanced pawns."
        check(
            "R+P+ R=P#",
            pattern(
                side(at_least(1), O, O, at_least(1), O),
                side(rel(Relation::Different, 0), O, O, rel(Relation::Same, 0), O),
            ),
        );
    }

    #[test]
    fn manual_two_rooks_exactly_one_pawn_more() {
        // "both sides have a pair or Rooks but one has exactly one pawn more than the other:
        // r2p* r=p1>="
        let p = ok("r2p* r=p1>=");
        assert_eq!(
            p,
            pattern(
                side(PieceConstraint::ANY, O, O, exactly(2), O),
                side(
                    rel(Relation::ExactlyMore, 1),
                    O,
                    O,
                    rel(Relation::Same, 0),
                    O
                ),
            )
        );
        let pawns = p.sides[1].kinds[PAWN];
        assert!(pawns.admits(4, 3));
        assert!(!pawns.admits(5, 3));
        assert!(!pawns.admits(3, 3));
        assert!(!pawns.admits(2, 3));
    }

    #[test]
    fn manual_rook_and_pawn_sacrificed_for_knight_and_bishop() {
        // "q*r+n*b*p+ q=r<n>b>p1<"
        let any = PieceConstraint::ANY;
        let loose = pattern(
            side(at_least(1), any, any, at_least(1), any),
            side(
                rel(Relation::AtLeastFewer, 1),
                rel(Relation::AtLeastMore, 1),
                rel(Relation::AtLeastMore, 1),
                rel(Relation::AtLeastFewer, 1),
                rel(Relation::Same, 0),
            ),
        );
        check("q*r+n*b*p+ q=r<n>b>p1<", loose);
        // "The meaning of 'r<' is such that this could match positions in which one side as 2
        // Rooks and the other none."
        assert!(loose.sides[1].kinds[3].admits(0, 2));
        // "This can be corrected with: q*r+n*b*p+ q=r1<=n>b>p1< enforcing strictly one Rook
        // less."
        let mut strict_rook = loose;
        strict_rook.sides[1].kinds[3] = rel(Relation::ExactlyFewer, 1);
        check("q*r+n*b*p+ q=r1<=n>b>p1<", strict_rook);
        assert!(!strict_rook.sides[1].kinds[3].admits(0, 2));
        assert!(strict_rook.sides[1].kinds[3].admits(1, 2));
        // "We ought also to correct the same problem with the minor pieces:
        // q*r+n*b*p+ q=r1<=n1>=b1>=p1<"
        let mut strict = strict_rook;
        strict.sides[1].kinds[KNIGHT] = rel(Relation::ExactlyMore, 1);
        strict.sides[1].kinds[BISHOP] = rel(Relation::ExactlyMore, 1);
        check("q*r+n*b*p+ q=r1<=n1>=b1>=p1<", strict);
    }

    #[test]
    fn manual_minor_piece_letter() {
        // "the letter 'L' may be used to stand for a minor piece (Bishop or Knight) ...
        // q*r+l*p+ q=r1<=l2>=p1<"
        let any = PieceConstraint::ANY;
        let first = SideMaterial {
            kinds: [at_least(1), any, any, at_least(1), any, exactly(1)],
            minor: Some(any),
        };
        let second = SideMaterial {
            kinds: [
                rel(Relation::AtLeastFewer, 1),
                any,
                any,
                rel(Relation::ExactlyFewer, 1),
                rel(Relation::Same, 0),
                exactly(1),
            ],
            minor: Some(rel(Relation::ExactlyMore, 2)),
        };
        check("q*r+l*p+ q=r1<=l2>=p1<", pattern(first, second));
        // two minor pieces more: BN against nothing, NN against nothing
        assert!(second.minor.is_some_and(|m| m.admits(2, 0)));
        assert!(second.minor.is_some_and(|m| m.admits(3, 1)));
        assert!(!second.minor.is_some_and(|m| m.admits(2, 1)));
    }

    #[test]
    fn manual_bishop_pair_against_two_knights() {
        // "q*r*b2n0p* q=r=b0n2p= the -y flag would find all games where White had a Bishop
        // pair and Black had two Knights"
        let any = PieceConstraint::ANY;
        let same = rel(Relation::Same, 0);
        let p = pattern(
            side(any, O, exactly(2), any, any),
            side(same, exactly(2), O, same, same),
        );
        check("q*r*b2n0p* q=r=b0n2p=", p);
        // the --materialz command line form, quotes removed by the shell
        assert_eq!(ok("q*r*b2n0p* q=r=b0n2p="), p);
    }

    #[test]
    fn manual_depth() {
        // "This example looks for double-Rook and pawn games that last at least 10
        // half-moves: 10 R2P+ R=P*"
        check(
            "10 R2P+ R=P*",
            MaterialPattern {
                sides: [
                    side(at_least(1), O, O, exactly(2), O),
                    side(PieceConstraint::ANY, O, O, rel(Relation::Same, 0), O),
                ],
                depth: 10,
            },
        );
        // "By default, this has a value of 2"
        assert_eq!(ok("R2P+ R=P*").depth, DEFAULT_DEPTH);
        assert_eq!(DEFAULT_DEPTH, 2);
    }

    // The notation table, term by term.

    #[test]
    fn every_suffix() {
        let cases: [(&str, PieceConstraint); 19] = [
            ("R", exactly(1)),
            ("R0", exactly(0)),
            ("R3", exactly(3)),
            ("R*", PieceConstraint::ANY),
            ("R+", at_least(1)),
            ("R3+", at_least(3)),
            ("R0+", at_least(0)),
            ("R-", at_most(1)),
            ("R3-", at_most(3)),
            ("R?", at_most(1)),
            ("R=", rel(Relation::Same, 0)),
            ("R#", rel(Relation::Different, 0)),
            ("R>", rel(Relation::AtLeastMore, 1)),
            ("R2>", rel(Relation::AtLeastMore, 2)),
            ("R<", rel(Relation::AtLeastFewer, 1)),
            ("R2<", rel(Relation::AtLeastFewer, 2)),
            ("R>=", rel(Relation::ExactlyMore, 1)),
            ("R0>=", rel(Relation::ExactlyMore, 0)),
            ("R2<=", rel(Relation::ExactlyFewer, 2)),
        ];
        for (term, expected) in cases {
            let p = ok(&format!("K {term}"));
            assert_eq!(p.sides[1].kinds[3], expected, "{term}");
            // in the first side too (pgn-extract accepts relative terms there)
            let p = ok(&format!("{term} K"));
            assert_eq!(p.sides[0].kinds[3], expected, "{term}");
            assert_eq!(p.sides[1], SideMaterial::LONE_KING);
            assert_eq!(ok(&p.to_string()), p, "{term}");
        }
        assert_eq!(
            ok("K R<=").sides[1].kinds[3],
            rel(Relation::ExactlyFewer, 1)
        );
    }

    #[test]
    fn relations_hold() {
        use Relation::*;
        assert!(Same.holds(2, 2, 0) && !Same.holds(2, 1, 0));
        assert!(Different.holds(2, 1, 0) && !Different.holds(1, 1, 0));
        assert!(
            AtLeastMore.holds(3, 1, 2) && AtLeastMore.holds(4, 1, 2) && !AtLeastMore.holds(2, 1, 2)
        );
        assert!(
            AtLeastFewer.holds(1, 3, 2)
                && AtLeastFewer.holds(0, 3, 2)
                && !AtLeastFewer.holds(2, 3, 2)
        );
        assert!(ExactlyMore.holds(3, 1, 2) && !ExactlyMore.holds(4, 1, 2));
        assert!(ExactlyFewer.holds(1, 3, 2) && !ExactlyFewer.holds(0, 3, 2));
        assert!(AtLeastMore.holds(1, 1, 0) && ExactlyMore.holds(1, 1, 0));
        // no overflow at the extremes
        assert!(
            AtLeastFewer.holds(u8::MAX, u8::MAX, 0)
                && !AtLeastMore.holds(u8::MAX, u8::MAX, u8::MAX)
        );
        assert!(Unconstrained.holds(0, u8::MAX, u8::MAX));
        let names: std::collections::HashSet<&str> =
            Relation::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), Relation::ALL.len());
        assert!(CountRange::ANY.contains(0) && CountRange::ANY.contains(u8::MAX));
        assert!(!CountRange::at_most(1).contains(2));
    }

    #[test]
    fn depth_forms() {
        assert_eq!(ok("0 R R").depth, 0);
        assert_eq!(ok("007 R R").depth, 7);
        assert_eq!(ok("10R2P+ R=P*"), ok("10 R2P+ R=P*"));
        assert_eq!(ok("4294967295 R R").depth, u32::MAX);
        assert_eq!(ok("  10\tR R").depth, 10);
    }

    #[test]
    fn separators_and_omitted_second_side() {
        let p = ok("rp nb");
        assert_eq!(ok("  rp \t  nb \r\n"), p);
        assert_eq!(ok("rp:nb"), p);
        assert_eq!(ok("rp : nb"), p);
        assert_eq!(ok("rp\u{0B}nb\u{0C}"), p);
        let lone = ok("rp");
        assert_eq!(lone.sides[1], SideMaterial::LONE_KING);
        assert_eq!(ok("rp   "), lone);
        assert_eq!(ok("rp :"), lone);
        assert_eq!(ok("rp k"), lone);
        assert_eq!(ok("rpk K1"), lone);
        assert_eq!(ok("k").sides, [SideMaterial::LONE_KING; 2]);
    }

    #[test]
    fn minor_piece_letter_forms() {
        let p = ok("L2 l");
        assert_eq!(p.sides[0].minor, Some(exactly(2)));
        assert_eq!(p.sides[0].kinds[KNIGHT], PieceConstraint::ANY);
        assert_eq!(p.sides[0].kinds[BISHOP], PieceConstraint::ANY);
        assert_eq!(p.sides[1].minor, Some(exactly(1)));
        // L0 is pgn-extract's default: no L requirement, no minor pieces
        let zero = ok("RL0 R");
        assert_eq!(zero.sides[0].minor, None);
        assert_eq!(zero.sides[0], ok("R R").sides[0]);
        // the other side keeps its own knights and bishops
        assert_eq!(ok("L+ NB").sides[1].kinds[KNIGHT], exactly(1));
    }

    // Refusals.

    #[test]
    fn blank_and_comment() {
        assert_eq!(err(""), MaterialPatternError::Empty);
        assert_eq!(err(" \t\r\n"), MaterialPatternError::Empty);
        assert_eq!(err("% rp nb"), MaterialPatternError::CommentLine);
        assert_eq!(
            err(" % rp"),
            MaterialPatternError::Unexpected {
                position: 2,
                found: Some('%'),
                expected: EXPECTED_LETTER
            }
        );
    }

    #[test]
    fn empty_first_side() {
        for (text, position, found) in [
            ("10", 3, None),
            ("10 ", 4, None),
            (":p", 1, Some(':')),
            ("5 :p", 3, Some(':')),
        ] {
            assert_eq!(
                err(text),
                MaterialPatternError::Unexpected {
                    position,
                    found,
                    expected: EXPECTED_FIRST
                },
                "{text:?}"
            );
        }
    }

    #[test]
    fn unknown_characters() {
        assert_eq!(
            err("x"),
            MaterialPatternError::Unexpected {
                position: 1,
                found: Some('x'),
                expected: EXPECTED_LETTER
            }
        );
        assert_eq!(
            err("rp nx"),
            MaterialPatternError::Unexpected {
                position: 5,
                found: Some('x'),
                expected: EXPECTED_AFTER_TERM
            }
        );
        assert_eq!(
            err("rp xn"),
            MaterialPatternError::Unexpected {
                position: 4,
                found: Some('x'),
                expected: EXPECTED_LETTER
            }
        );
        assert_eq!(
            err("r2x"),
            MaterialPatternError::Unexpected {
                position: 3,
                found: Some('x'),
                expected: EXPECTED_AFTER_TERM
            }
        );
        assert_eq!(
            err("r2/"),
            MaterialPatternError::Unexpected {
                position: 3,
                found: Some('/'),
                expected: EXPECTED_AFTER_DIGIT
            }
        );
        assert_eq!(
            err("r+*"),
            MaterialPatternError::Unexpected {
                position: 3,
                found: Some('*'),
                expected: EXPECTED_AFTER_TERM
            }
        );
        assert_eq!(
            err("r>=="),
            MaterialPatternError::Unexpected {
                position: 4,
                found: Some('='),
                expected: EXPECTED_AFTER_TERM
            }
        );
        // unicode: positions count characters, not bytes
        assert_eq!(
            err("♖ p"),
            MaterialPatternError::Unexpected {
                position: 1,
                found: Some('♖'),
                expected: EXPECTED_LETTER
            }
        );
        assert_eq!(
            err("é♖rp nb♖"),
            MaterialPatternError::Unexpected {
                position: 1,
                found: Some('é'),
                expected: EXPECTED_LETTER
            }
        );
        assert_eq!(
            err("rp nb♖"),
            MaterialPatternError::Unexpected {
                position: 6,
                found: Some('♖'),
                expected: EXPECTED_AFTER_TERM
            }
        );
        // a non-breaking space is not a separator
        assert_eq!(err("rp\u{A0}nb").position(), Some(3));
        assert_eq!(
            err("*"),
            MaterialPatternError::Unexpected {
                position: 1,
                found: Some('*'),
                expected: EXPECTED_LETTER
            }
        );
    }

    #[test]
    fn counts() {
        assert_eq!(
            err("P10 K"),
            MaterialPatternError::CountTooBig { position: 2 }
        );
        assert_eq!(
            err("K R99999999999999999999"),
            MaterialPatternError::CountTooBig { position: 4 }
        );
        assert_eq!(
            err("P9"),
            MaterialPatternError::TooManyPawns { position: 2 }
        );
        assert_eq!(
            err("K p9+"),
            MaterialPatternError::TooManyPawns { position: 4 }
        );
        assert_eq!(ok("Q9 K").sides[0].kinds[4], exactly(9));
        assert_eq!(
            err("99999999999999 R R"),
            MaterialPatternError::DepthTooBig { position: 1 }
        );
        assert_eq!(
            err("4294967296 R R"),
            MaterialPatternError::DepthTooBig { position: 1 }
        );
        for suffix in ['*', '?', '=', '#'] {
            assert_eq!(
                err(&format!("K R2{suffix}")),
                MaterialPatternError::CountNotAllowed {
                    position: 4,
                    suffix
                },
                "{suffix}"
            );
        }
    }

    #[test]
    fn kings() {
        assert_eq!(ok("K1 K"), ok("K K"));
        for text in ["K2", "K0", "K*", "K+", "r K-", "r k=", "r k>", "r K2<="] {
            assert!(
                matches!(err(text), MaterialPatternError::KingCount { .. }),
                "{text}"
            );
        }
        assert_eq!(err("r k2"), MaterialPatternError::KingCount { position: 3 });
    }

    #[test]
    fn repeated_and_mixed_letters() {
        assert_eq!(
            err("RR"),
            MaterialPatternError::RepeatedPiece {
                position: 2,
                letter: 'R'
            }
        );
        assert_eq!(
            err("r p2P"),
            MaterialPatternError::RepeatedPiece {
                position: 5,
                letter: 'P'
            }
        );
        assert_eq!(
            err("KK"),
            MaterialPatternError::RepeatedPiece {
                position: 2,
                letter: 'K'
            }
        );
        assert_eq!(
            err("Ll"),
            MaterialPatternError::RepeatedPiece {
                position: 2,
                letter: 'L'
            }
        );
        assert_eq!(
            err("NL2"),
            MaterialPatternError::MixedMinor {
                position: 2,
                letter: 'L'
            }
        );
        assert_eq!(
            err("L2b"),
            MaterialPatternError::MixedMinor {
                position: 3,
                letter: 'B'
            }
        );
        assert_eq!(
            err("r L0n"),
            MaterialPatternError::MixedMinor {
                position: 5,
                letter: 'N'
            }
        );
        // the same letter on both sides, and L on one side with N on the other, are fine
        assert!(parse("R R").is_ok() && parse("L N").is_ok());
    }

    #[test]
    fn trailing_text() {
        assert_eq!(
            err("rp nb q"),
            MaterialPatternError::TrailingText {
                position: 7,
                found: 'q'
            }
        );
        assert_eq!(
            err("rp nb:q"),
            MaterialPatternError::TrailingText {
                position: 6,
                found: ':'
            }
        );
        assert_eq!(
            err("rp nb % comment"),
            MaterialPatternError::TrailingText {
                position: 7,
                found: '%'
            }
        );
    }

    #[test]
    fn messages_name_the_place() {
        let shown = |text: &str| err(text).to_string();
        assert_eq!(
            shown(""),
            "empty material pattern: expected pieces such as \"rp nb\""
        );
        assert_eq!(
            shown("rp nx"),
            "unexpected 'x' at character 5: expected a piece letter, a space or the end of the side"
        );
        assert_eq!(
            shown("10"),
            "unexpected end of pattern at character 3: expected a piece letter K, Q, R, B, N, P or L (write K for a lone king)"
        );
        assert_eq!(
            shown("rp\u{A0}nb"),
            "unexpected '\\u{a0}' (U+00A0) at character 3: expected a piece letter, a space or the end of the side"
        );
        assert_eq!(
            shown("P10"),
            "count at character 2 has more than one digit: counts are 0 to 9"
        );
        assert_eq!(
            shown("rp nb q"),
            "unexpected 'q' at character 7 after the second side: a pattern has at most two sides"
        );
        assert_eq!(
            shown("K R2="),
            "count before '=' at character 4: '=' takes no count"
        );
        assert_eq!(err("").position(), None);
        assert_eq!(err("%").position(), Some(1));
        let boxed: Box<dyn std::error::Error> = Box::new(err("x"));
        assert!(boxed.to_string().contains("character 1"));
    }

    #[test]
    fn from_str_and_display() {
        assert_eq!("rp nb".parse::<MaterialPattern>(), parse("rp nb"));
        assert_eq!(ok("rp nb").to_string(), "RP BN");
        assert_eq!(ok("k p").to_string(), "K P");
        assert_eq!(ok("10 r2p+ r=p*").to_string(), "10 R2P+ R=P*");
        assert_eq!(
            ok("q*r+l*p+ q=r1<=l2>=p1<").to_string(),
            "Q*R+P+L* Q=R1<=P1<L2>="
        );
        assert_eq!(ok("QR2B2N2P8 QR2B2N2P8").to_string(), "QR2B2N2P8 QR2B2N2P8");
    }

    /// Every string of up to 4 characters over the syntax's characters and a few others:
    /// no panic, an error names a character within the text (or just past its end), and an
    /// accepted pattern survives Display.
    #[test]
    fn never_panics() {
        let alphabet: Vec<char> = "KqRbNpL0129*+-?=#<> :%x\t♖".chars().collect();
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for t in &texts {
                for &c in &alphabet {
                    let mut s = t.clone();
                    s.push(c);
                    longer.push(s);
                }
            }
            for t in &longer {
                let n = t.chars().count();
                match parse(t) {
                    Ok(p) => assert_eq!(ok(&p.to_string()), p, "{t:?}"),
                    Err(e) => assert!(
                        e.position().is_none_or(|at| (1..=n + 1).contains(&at)),
                        "{t:?}: {e}"
                    ),
                }
            }
            texts = longer;
        }
        let huge = "p".repeat(1 << 20);
        assert!(matches!(
            parse(&huge),
            Err(MaterialPatternError::RepeatedPiece { position: 2, .. })
        ));
        let spaces = format!(
            "{} rp {} nb {}",
            " ".repeat(1 << 16),
            "\t".repeat(1 << 16),
            " ".repeat(1 << 16)
        );
        assert_eq!(ok(&spaces), ok("rp nb"));
    }
}
