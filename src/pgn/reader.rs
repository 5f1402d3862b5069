//! A small streaming PGN reader that reports every main-line token.
//!
//! [`PgnReader`] reads games from any [`BufRead`] one at a time, following the import format of
//! the PGN standard (1994, §8: tag pair section §8.1, movetext section §8.2). Unlike readers that
//! only hand over what they could parse as SAN, it reports *every* main-line token verbatim in
//! [`RawGame::moves`] (`Sf3`, `0-0-0-0` and a 1 MiB `QQQ...` included), so that a validator can
//! report a syntax error at the right ply. Structural faults (unterminated comment, unclosed
//! variation, broken tag pair, ...) never stop the reader: the first one of each game is recorded
//! in [`RawGame::fault`] and reading goes on with the next game. Only I/O errors are returned as
//! [`PgnError`].
//!
//! What the reader does:
//!
//! * Byte-level lexing, no recursion: memory is bounded by the largest single game (its tags and
//!   main-line tokens; comments and variations are skipped, not stored). Nesting depth is a
//!   counter, so 10,000 nested variations or a 1 MiB line of sibling variations are fine.
//! * Each game's text is decoded as UTF-8 if all its bytes are valid UTF-8, else as
//!   Windows-1252 ([`Encoding`]; the superset of Latin-1 that files from older Windows
//!   databases use, `0x92` is `’`; decoded by `encoding_rs`). Any byte sequence is accepted;
//!   the reader never panics.
//! * A UTF-8 byte order mark at the start of the input is skipped (also one at the start of a
//!   token, as in concatenated files); LF, CRLF and CR-only line endings are all line breaks.
//! * Tag pairs `[Name "value"]` (several per line allowed; `\"` and `\\` escapes), `{...}`
//!   comments (they do not nest: the first `}` ends them), `;` rest-of-line comments, `%` escape
//!   lines (a `%` in the first column), variations `( ... )`, NAGs `$n` (any number of digits),
//!   glyphs `!`, `?`, `!!`, `??`, `!?`, `?!` (separate or attached to a move: `e4!` is reported as
//!   `e4`), move number indications (`12.`, `12...`, `12` alone, numbers of any size, glued to
//!   the move as in `12.e4` or `1...e5`; a lone `...` is skipped too).
//! * Tokens are delimited by whitespace and the PGN delimiters `{ } ( ) [ ] ; $`. Check and mate
//!   marks (`+`, `#`) stay on the move. Null moves (`--`, `Z0`, `0000`, `@@@@`) are moves.
//!   The en passant mark `e.p.` written as its own token is not a ply: it is glued to the
//!   main-line move before it (`exd6 e.p.` is reported as `exd6e.p.`), whose lexer
//!   ([`crate::chess::san::parse_san`]) reads the mark.
//!
//! Game boundaries:
//!
//! * a termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`, and `½-½` for `1/2-1/2`, in UTF-8
//!   or as the Windows-1252 byte `0xBD`) outside variations ends the game (a marker inside a
//!   variation is skipped);
//! * a `[` after the movetext has started (outside comments, at any nesting depth) ends the game
//!   and starts the next one's tag section, even without a blank line in between; this is also
//!   how a game without termination marker ends (or at end of input);
//! * an empty line inside the tag section is tolerated (python-chess reads
//!   `chessbase-empty-line.pgn` as one game), unless the tag after the empty line repeats a tag
//!   name already present: then the first game is a header-only game (0 moves) and the tag
//!   starts the next game (`headers_only_then_game.pgn`);
//! * input holding only whitespace, comments and escape lines yields no game.
//!
//! A missing termination marker is not a fault: [`RawGame::result`] is `None` then.

use std::fmt;
use std::io::{self, BufRead};

/// How the text of one game was decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// All bytes of the game are valid UTF-8.
    Utf8,
    /// The game's bytes are not valid UTF-8; every byte was read as one Windows-1252
    /// character (Latin-1 except `0x80..=0x9F`, where Windows-1252 has `€`, `’`, `…`, …).
    Windows1252,
}

impl Encoding {
    /// `"utf-8"` or `"windows-1252"` (WHATWG encoding labels).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Windows1252 => "windows-1252",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of structural fault the reader detects (see [`PgnFault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PgnFaultKind {
    /// End of input inside a `{` comment. By the grammar the comment runs to the end of the
    /// input, so nothing after the `{` is read (later games are comment text).
    UnterminatedComment,
    /// A `(` still open when the game ends. The main line is the moves before the `(`.
    UnclosedVariation,
    /// A `)` without matching `(`; it is ignored and the main line goes on after it.
    UnmatchedCloseParen,
    /// A `(` before the first main-line move (a variation must follow a move). The variation is
    /// skipped; the main line is what follows it.
    VariationBeforeFirstMove,
    /// A malformed tag pair: no name, no quoted value, an unterminated value string (the tag is
    /// dropped) or a missing `]` (the tag is kept).
    BadTag,
    /// End of input inside a tag pair.
    TruncatedTag,
    /// A control byte (NUL, other C0 controls except whitespace, DEL) outside comments and tag
    /// values. No further main-line tokens of the game are collected after it.
    BinaryData,
    /// A `}` outside a comment (comments do not nest). It is ignored.
    StrayCloseBrace,
    /// A `]` outside a tag pair. It is ignored.
    StrayCloseBracket,
}

impl PgnFaultKind {
    /// The `snake_case` name of the fault, e.g. `"unterminated_comment"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PgnFaultKind::UnterminatedComment => "unterminated_comment",
            PgnFaultKind::UnclosedVariation => "unclosed_variation",
            PgnFaultKind::UnmatchedCloseParen => "unmatched_close_paren",
            PgnFaultKind::VariationBeforeFirstMove => "variation_before_first_move",
            PgnFaultKind::BadTag => "bad_tag",
            PgnFaultKind::TruncatedTag => "truncated_tag",
            PgnFaultKind::BinaryData => "binary_data",
            PgnFaultKind::StrayCloseBrace => "stray_close_brace",
            PgnFaultKind::StrayCloseBracket => "stray_close_bracket",
        }
    }
}

impl fmt::Display for PgnFaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            PgnFaultKind::UnterminatedComment => "unterminated comment",
            PgnFaultKind::UnclosedVariation => "unclosed variation",
            PgnFaultKind::UnmatchedCloseParen => "unmatched )",
            PgnFaultKind::VariationBeforeFirstMove => "variation before first move",
            PgnFaultKind::BadTag => "malformed tag pair",
            PgnFaultKind::TruncatedTag => "truncated tag pair",
            PgnFaultKind::BinaryData => "binary data in movetext",
            PgnFaultKind::StrayCloseBrace => "unmatched }",
            PgnFaultKind::StrayCloseBracket => "unmatched ]",
        };
        f.write_str(text)
    }
}

/// A structural fault in one game's PGN text (the first one found in that game).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PgnFault {
    /// What is wrong.
    pub kind: PgnFaultKind,
    /// Number of main-line moves read before the fault (0 for faults in the tag section).
    pub ply: u32,
    /// A human-readable description (names the tag for tag faults).
    pub message: String,
}

impl fmt::Display for PgnFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} after {} plies: {}",
            self.kind, self.ply, self.message
        )
    }
}

/// One game as read from PGN text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawGame {
    /// 0-based game index within its input, in file order.
    pub index: usize,
    /// Tag pairs in order, values unescaped (`\"` and `\\`).
    pub tags: Vec<(String, String)>,
    /// Main-line movetext tokens in order, raw text (move numbers, NAGs, `!`/`?` glyphs,
    /// comments, variations and the result removed; an `e.p.` token glued to the move before
    /// it). Token `i` is ply `i + 1`.
    pub moves: Vec<String>,
    /// The termination marker if present: `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`.
    pub result: Option<String>,
    /// The first structural fault of this game, if any.
    pub fault: Option<PgnFault>,
    /// How the game's bytes were decoded.
    pub encoding: Encoding,
    /// With [`PgnReader::with_notes`]: the comments and NAGs after each main-line move
    /// (entry `i` belongs to ply `i + 1`, as `moves`); else empty.
    pub notes: Vec<PlyNotes>,
}

/// The annotations after one main-line move (read with [`PgnReader::with_notes`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlyNotes {
    /// The text of the `{…}` comments after the move, before the next move, as python-chess
    /// 1.11 keeps it ([`comment_text`]: line ends read as `\n`, without the one space after
    /// `{` and the one before `}`), the non-empty ones joined by a space (commands such as
    /// `[%clk 0:03:00]` included); `None` without a non-empty comment.
    pub comment: Option<String>,
    /// NAGs after the move (`$1`; values above 255 are dropped) and the suffix glyphs of
    /// the move token, as NAGs (PGN standard §10: `!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5,
    /// `?!` 6).
    pub nags: Vec<u8>,
}

impl RawGame {
    /// The value of the first tag pair named `name` (case-sensitive), if any.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An I/O error while reading PGN. Structural problems of the text are not errors but
/// [`PgnFault`]s in [`RawGame::fault`].
#[derive(Debug, thiserror::Error)]
pub enum PgnError {
    /// The underlying reader failed.
    #[error("I/O error while reading PGN: {0}")]
    Io(#[from] io::Error),
}

/// Streaming PGN reader: an iterator over the games of a [`BufRead`], one [`RawGame`] per item.
///
/// See the module documentation for the accepted syntax and how games are delimited. After an
/// I/O error the iterator yields that error once and then ends.
pub struct PgnReader<R: BufRead> {
    src: Source<R>,
    index: usize,
    /// A tag already read that belongs to the next game (see the empty-line rule).
    carry: Option<(Vec<u8>, Vec<u8>)>,
    started: bool,
    done: bool,
    /// Keep comments and NAGs ([`RawGame::notes`]).
    notes: bool,
}

impl<R: BufRead> PgnReader<R> {
    /// A reader that also keeps the comments and NAGs after each main-line move
    /// ([`RawGame::notes`]).
    pub fn with_notes(reader: R) -> Self {
        PgnReader {
            notes: true,
            ..PgnReader::new(reader)
        }
    }

    /// Creates a reader over `reader`. Nothing is read until the first call to `next`.
    pub fn new(reader: R) -> Self {
        PgnReader {
            notes: false,
            src: Source {
                inner: reader,
                pushback: Vec::new(),
                at_line_start: true,
                utf8: Utf8Check::new(),
            },
            index: 0,
            carry: None,
            started: false,
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = Result<RawGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_game() {
            Ok(Some(game)) => Some(Ok(game)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(PgnError::Io(e)))
            }
        }
    }
}

/// The UTF-8 byte order mark.
pub(super) const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Whitespace other than the line break (which is always `\n` after normalisation).
pub(super) fn is_inline_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0B | 0x0C)
}

/// C0 control bytes that are not whitespace, and DEL.
pub(super) fn is_control(b: u8) -> bool {
    (b < 0x20 && !is_inline_space(b) && b != b'\n' && b != b'\r') || b == 0x7F
}

/// Bytes that end a movetext token.
pub(super) fn ends_token(b: u8) -> bool {
    b == b'\n'
        || is_inline_space(b)
        || is_control(b)
        || matches!(b, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'$')
}

/// The game being read.
#[derive(Default)]
struct Game {
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    moves: Vec<Vec<u8>>,
    /// Per move, when notes are kept: comment bytes and NAGs.
    notes: Vec<(Option<Vec<u8>>, Vec<u8>)>,
    result: Option<&'static str>,
    fault: Option<(PgnFaultKind, u32, String)>,
    /// Anything that makes this a game (a tag, a movetext element, a fault) was seen.
    content: bool,
    /// A movetext element was seen: a further `[` starts the next game.
    in_movetext: bool,
    /// Variation nesting depth.
    depth: usize,
    /// Main-line tokens are no longer collected (after binary data).
    frozen: bool,
    /// The current line holds only whitespace so far.
    line_empty: bool,
    /// An empty line was seen since the last tag pair.
    blank_line: bool,
}

impl Game {
    fn set_fault(&mut self, kind: PgnFaultKind, message: impl Into<String>) {
        self.content = true;
        if self.fault.is_none() {
            let ply = u32::try_from(self.moves.len()).unwrap_or(u32::MAX);
            self.fault = Some((kind, ply, message.into()));
        }
    }

    fn movetext(&mut self) {
        self.content = true;
        self.in_movetext = true;
        self.line_empty = false;
    }
}

/// Outcome of reading one tag pair.
struct TagRead {
    tag: Option<(Vec<u8>, Vec<u8>)>,
    fault: Option<(PgnFaultKind, String)>,
}

impl<R: BufRead> PgnReader<R> {
    /// Reads the next game; `Ok(None)` at the end of the input.
    fn read_game(&mut self) -> io::Result<Option<RawGame>> {
        if !self.started {
            self.started = true;
            self.src.skip_bom()?;
        }
        self.src.utf8 = Utf8Check::new();
        let mut g = Game {
            line_empty: self.src.at_line_start,
            ..Game::default()
        };
        if let Some((name, value)) = self.carry.take() {
            if std::str::from_utf8(&name).is_err() || std::str::from_utf8(&value).is_err() {
                self.src.utf8.valid = false;
            }
            g.tags.push((name, value));
            g.content = true;
        }

        while let Some(c) = self.src.peek()? {
            match c {
                b'\n' => {
                    self.src.bump()?;
                    g.blank_line |= g.line_empty;
                    g.line_empty = true;
                }
                c if is_inline_space(c) => {
                    self.src.bump()?;
                }
                b'%' if self.src.at_line_start => {
                    g.line_empty = false;
                    self.src.skip_line()?;
                }
                b';' => {
                    g.line_empty = false;
                    self.src.skip_line()?;
                }
                b'{' => {
                    g.line_empty = false;
                    self.src.bump()?;
                    // a main-line comment after a move is kept with the notes
                    let keep = self.notes && g.depth == 0 && !g.frozen;
                    let mut text = Vec::new();
                    let closed = self.src.skip_comment(keep.then_some(&mut text))?;
                    if keep && let Some((comment, _)) = g.notes.last_mut() {
                        let text = comment_text(&text);
                        match comment {
                            _ if text.is_empty() => {}
                            Some(c) => {
                                c.push(b' ');
                                c.extend_from_slice(&text);
                            }
                            None => *comment = Some(text),
                        }
                    }
                    if !closed {
                        g.set_fault(
                            PgnFaultKind::UnterminatedComment,
                            "end of input inside a { comment",
                        );
                    }
                }
                b'[' => {
                    if g.in_movetext || self.tag_pair(&mut g)? {
                        break;
                    }
                }
                b'(' => {
                    self.src.bump()?;
                    g.movetext();
                    if g.depth == 0 && g.moves.is_empty() {
                        g.set_fault(
                            PgnFaultKind::VariationBeforeFirstMove,
                            "( before the first move",
                        );
                    }
                    g.depth = g.depth.saturating_add(1);
                }
                b')' => {
                    self.src.bump()?;
                    g.movetext();
                    if g.depth == 0 {
                        g.set_fault(PgnFaultKind::UnmatchedCloseParen, ") without matching (");
                    } else {
                        g.depth -= 1;
                    }
                }
                b'}' => {
                    self.src.bump()?;
                    g.movetext();
                    g.set_fault(PgnFaultKind::StrayCloseBrace, "} outside a comment");
                }
                b']' => {
                    self.src.bump()?;
                    g.movetext();
                    g.set_fault(PgnFaultKind::StrayCloseBracket, "] outside a tag pair");
                }
                b'$' => {
                    // NAG: any number of digits; kept with the notes when 0..=255.
                    self.src.bump()?;
                    g.movetext();
                    let mut value: Option<u32> = Some(0);
                    while let Some(b) = self.src.peek()?.filter(u8::is_ascii_digit) {
                        value = value
                            .and_then(|v| v.checked_mul(10))
                            .and_then(|v| v.checked_add(u32::from(b - b'0')));
                        self.src.bump()?;
                    }
                    if self.notes
                        && g.depth == 0
                        && !g.frozen
                        && let Some((_, nags)) = g.notes.last_mut()
                        && let Some(n) = value.and_then(|v| u8::try_from(v).ok())
                    {
                        nags.push(n);
                    }
                }
                c if is_control(c) => {
                    self.src.bump()?;
                    g.movetext();
                    g.set_fault(
                        PgnFaultKind::BinaryData,
                        format!("control byte 0x{c:02x} in movetext"),
                    );
                    g.frozen = true;
                }
                _ => {
                    let token = self.src.read_token()?;
                    // A byte order mark inside the input (concatenated files) is not text.
                    let token = token.strip_prefix(BOM.as_slice()).unwrap_or(&token);
                    if token.is_empty() {
                        continue;
                    }
                    g.movetext();
                    if let Some(result) = result_marker(token) {
                        if g.depth == 0 {
                            g.result = Some(result);
                            break;
                        }
                    } else if g.depth == 0 && !g.frozen {
                        let mv = move_of(token);
                        if mv == EN_PASSANT_MARK
                            && let Some(last) = g.moves.last_mut()
                        {
                            // the mark belongs to the move before it: not a ply
                            last.extend_from_slice(mv);
                        } else if !mv.is_empty() {
                            g.moves.push(mv.to_vec());
                            if self.notes {
                                let glyphs = token
                                    .iter()
                                    .rev()
                                    .take_while(|b| matches!(b, b'!' | b'?'))
                                    .count();
                                let glyph = glyph_nag(&token[token.len() - glyphs..]);
                                g.notes.push((None, glyph.into_iter().collect()));
                            }
                        } else if self.notes
                            && let Some(n) = glyph_nag(token)
                            && let Some((_, nags)) = g.notes.last_mut()
                        {
                            nags.push(n);
                        }
                    }
                }
            }
        }

        Ok(self.finish(g))
    }

    /// Reads a tag pair at `[` in the tag section. Returns `true` if the tag starts the next
    /// game instead (a repeated tag name after an empty line): it is kept for that game.
    fn tag_pair(&mut self, g: &mut Game) -> io::Result<bool> {
        g.line_empty = false;
        let before = self.src.utf8;
        self.src.bump()?;
        let read = self.src.read_tag()?;
        if let Some((name, value)) = read.tag {
            if g.blank_line && read.fault.is_none() && g.tags.iter().any(|t| t.0 == name) {
                // The game so far is header-only; this tag's bytes belong to the next game.
                self.src.utf8 = before;
                self.carry = Some((name, value));
                return Ok(true);
            }
            g.tags.push((name, value));
        }
        if let Some((kind, message)) = read.fault {
            g.set_fault(kind, message);
        }
        g.content = true;
        g.blank_line = false;
        Ok(false)
    }

    /// Turns the game read so far into a [`RawGame`] (`None` if there was nothing).
    fn finish(&mut self, mut g: Game) -> Option<RawGame> {
        if g.depth > 0 {
            let depth = g.depth;
            g.set_fault(
                PgnFaultKind::UnclosedVariation,
                format!("{depth} variation(s) still open at the end of the game"),
            );
        }
        if !g.content {
            return None;
        }
        let encoding = if self.src.utf8.is_complete() {
            Encoding::Utf8
        } else {
            Encoding::Windows1252
        };
        let index = self.index;
        self.index += 1;
        Some(RawGame {
            index,
            tags: g
                .tags
                .into_iter()
                .map(|(n, v)| (decode(n, encoding), decode(v, encoding)))
                .collect(),
            moves: g.moves.into_iter().map(|m| decode(m, encoding)).collect(),
            notes: g
                .notes
                .into_iter()
                .map(|(comment, nags)| PlyNotes {
                    comment: comment.map(|c| decode(c, encoding)),
                    nags,
                })
                .collect(),
            result: g.result.map(str::to_owned),
            fault: g
                .fault
                .map(|(kind, ply, message)| PgnFault { kind, ply, message }),
            encoding,
        })
    }
}

/// The en passant mark written as a token of its own (FIDE Laws, Appendix C.13).
const EN_PASSANT_MARK: &[u8] = b"e.p.";

/// The NAG of a suffix glyph (PGN standard §10), if `glyph` is one.
fn glyph_nag(glyph: &[u8]) -> Option<u8> {
    match glyph {
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => None,
    }
}

/// The termination marker a token is, if it is one (`½-½` in UTF-8 or Windows-1252 reads as
/// `1/2-1/2`).
fn result_marker(token: &[u8]) -> Option<&'static str> {
    match token {
        b"1-0" => Some("1-0"),
        b"0-1" => Some("0-1"),
        b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" | b"\xbd-\xbd" => Some("1/2-1/2"),
        b"*" => Some("*"),
        _ => None,
    }
}

/// The move in a movetext token: without a leading move number indication (digits followed by
/// periods, or digits alone; `0000` is the null move, not a number), leading periods (`...`) and
/// trailing `!`/`?` glyphs. Empty if nothing is left.
fn move_of(token: &[u8]) -> &[u8] {
    if token == b"0000" {
        return token;
    }
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    let after_digits = &token[digits..];
    let mut body = if digits > 0 && after_digits.first().is_some_and(|&b| b != b'.') {
        token // `0-0`, `4e5`, ...: not a move number
    } else {
        let dots = after_digits.iter().take_while(|&&b| b == b'.').count();
        &after_digits[dots..]
    };
    while let [rest @ .., b'!' | b'?'] = body {
        body = rest;
    }
    body
}

/// A tag name for messages: lossy UTF-8, cut after 40 characters.
fn shown(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    if text.chars().count() <= 40 {
        text.into_owned()
    } else {
        text.chars().take(40).chain("...".chars()).collect()
    }
}

/// Decodes bytes of a game whose encoding was determined beforehand.
fn decode(bytes: Vec<u8>, encoding: Encoding) -> String {
    match encoding {
        Encoding::Utf8 => String::from_utf8(bytes)
            .unwrap_or_else(|e| e.as_bytes().iter().map(|&b| char::from(b)).collect()),
        Encoding::Windows1252 => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(&bytes)
            .0
            .into_owned(),
    }
}

/// Incremental UTF-8 validity check over a game's bytes.
#[derive(Clone, Copy)]
struct Utf8Check {
    valid: bool,
    seq: [u8; 4],
    len: usize,
    need: usize,
}

impl Utf8Check {
    fn new() -> Self {
        Utf8Check {
            valid: true,
            seq: [0; 4],
            len: 0,
            need: 0,
        }
    }

    fn feed(&mut self, b: u8) {
        if !self.valid {
            return;
        }
        if self.need == 0 {
            self.need = match b {
                0x00..=0x7F => return,
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => {
                    self.valid = false;
                    return;
                }
            };
            self.seq[0] = b;
            self.len = 1;
        } else if b & 0xC0 == 0x80 {
            if let Some(slot) = self.seq.get_mut(self.len) {
                *slot = b;
            }
            self.len += 1;
            if self.len >= self.need {
                // Rejects overlong forms, surrogates and code points above U+10FFFF.
                self.valid = self
                    .seq
                    .get(..self.need)
                    .is_some_and(|s| std::str::from_utf8(s).is_ok());
                self.need = 0;
            }
        } else {
            self.valid = false;
        }
    }

    /// All bytes fed so far are valid UTF-8 and no sequence is cut.
    fn is_complete(&self) -> bool {
        self.valid && self.need == 0
    }
}

/// Byte source with line-ending normalisation, column tracking and UTF-8 checking.
struct Source<R> {
    inner: R,
    /// Bytes given back (only a partial byte order mark at the start); next byte last.
    pushback: Vec<u8>,
    /// The last byte consumed was a line break (or nothing was consumed yet).
    at_line_start: bool,
    /// Validity of the current game's bytes.
    utf8: Utf8Check,
}

impl<R: BufRead> Source<R> {
    fn peek_raw(&mut self) -> io::Result<Option<u8>> {
        if let Some(&b) = self.pushback.last() {
            return Ok(Some(b));
        }
        loop {
            match self.inner.fill_buf() {
                Ok(buf) => return Ok(buf.first().copied()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Consumes the byte `peek_raw` returned.
    fn consume_raw(&mut self) {
        if self.pushback.pop().is_none() {
            self.inner.consume(1);
        }
    }

    /// The next byte, CR reported as LF; not consumed.
    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.peek_raw()?.map(|b| if b == b'\r' { b'\n' } else { b }))
    }

    /// Consumes and returns the next byte; CRLF and CR are returned as one LF.
    fn bump(&mut self) -> io::Result<Option<u8>> {
        let Some(mut b) = self.peek_raw()? else {
            return Ok(None);
        };
        self.consume_raw();
        self.utf8.feed(b);
        if b == b'\r' {
            if self.peek_raw()? == Some(b'\n') {
                self.consume_raw();
                self.utf8.feed(b'\n');
            }
            b = b'\n';
        }
        self.at_line_start = b == b'\n';
        Ok(Some(b))
    }

    fn skip_bom(&mut self) -> io::Result<()> {
        let mut matched = 0;
        while matched < BOM.len() && self.peek_raw()? == Some(BOM[matched]) {
            self.consume_raw();
            matched += 1;
        }
        if matched < BOM.len() {
            self.pushback.extend(BOM[..matched].iter().rev());
        }
        Ok(())
    }

    /// Skips to the end of the line (the line break is not consumed).
    fn skip_line(&mut self) -> io::Result<()> {
        while self.peek()?.is_some_and(|b| b != b'\n') {
            self.bump()?;
        }
        Ok(())
    }

    /// Skips a comment whose `{` was consumed, keeping its bytes in `keep` if given;
    /// `false` if the input ends first.
    fn skip_comment(&mut self, mut keep: Option<&mut Vec<u8>>) -> io::Result<bool> {
        loop {
            match self.bump()? {
                None => return Ok(false),
                Some(b'}') => return Ok(true),
                Some(b) => {
                    if let Some(k) = keep.as_deref_mut() {
                        k.push(b);
                    }
                }
            }
        }
    }

    fn skip_inline_space(&mut self) -> io::Result<()> {
        while self.peek()?.is_some_and(is_inline_space) {
            self.bump()?;
        }
        Ok(())
    }

    /// Reads a movetext token (at least one byte; the caller checked the first).
    fn read_token(&mut self) -> io::Result<Vec<u8>> {
        let mut token = Vec::new();
        if let Some(b) = self.bump()? {
            token.push(b);
        }
        while let Some(b) = self.peek()? {
            if ends_token(b) {
                break;
            }
            token.push(b);
            self.bump()?;
        }
        Ok(token)
    }

    /// Reads a tag pair whose `[` was consumed: `Name "value"]` (PGN standard §8.1.1).
    fn read_tag(&mut self) -> io::Result<TagRead> {
        let truncated = |tag| TagRead {
            tag,
            fault: Some((
                PgnFaultKind::TruncatedTag,
                "end of input inside a tag pair".to_owned(),
            )),
        };
        self.skip_inline_space()?;
        let mut name = Vec::new();
        while let Some(b) = self.peek()? {
            if b == b'\n' || b == b'"' || b == b'[' || b == b']' || is_inline_space(b) {
                break;
            }
            name.push(b);
            self.bump()?;
        }
        self.skip_inline_space()?;
        let shown = shown(&name);
        match self.peek()? {
            None => return Ok(truncated(None)),
            Some(b'"') if !name.is_empty() => {
                self.bump()?;
            }
            Some(_) => {
                let message = if name.is_empty() {
                    "tag pair without a name".to_owned()
                } else {
                    format!("tag {shown}: value is not a quoted string")
                };
                self.skip_bad_tag()?;
                return Ok(TagRead {
                    tag: None,
                    fault: Some((PgnFaultKind::BadTag, message)),
                });
            }
        }
        let mut value = Vec::new();
        loop {
            match self.peek()? {
                None => return Ok(truncated(None)),
                Some(b'"') => {
                    self.bump()?;
                    break;
                }
                Some(b'\n') => {
                    return Ok(TagRead {
                        tag: None,
                        fault: Some((
                            PgnFaultKind::BadTag,
                            format!("tag {shown}: unterminated value string"),
                        )),
                    });
                }
                Some(b'\\') => {
                    self.bump()?;
                    match self.peek()? {
                        Some(e @ (b'"' | b'\\')) => {
                            value.push(e);
                            self.bump()?;
                        }
                        _ => value.push(b'\\'),
                    }
                }
                Some(b) => {
                    value.push(b);
                    self.bump()?;
                }
            }
        }
        self.skip_inline_space()?;
        let tag = Some((name, value));
        match self.peek()? {
            Some(b']') => {
                self.bump()?;
                Ok(TagRead { tag, fault: None })
            }
            None => Ok(truncated(tag)),
            Some(_) => {
                self.skip_bad_tag()?;
                Ok(TagRead {
                    tag,
                    fault: Some((
                        PgnFaultKind::BadTag,
                        format!("tag {shown}: missing closing ']'"),
                    )),
                })
            }
        }
    }

    /// Recovers from a malformed tag pair: skips to just after the next `]`, or to the next
    /// `[` or line break, whichever comes first.
    fn skip_bad_tag(&mut self) -> io::Result<()> {
        while let Some(b) = self.peek()? {
            match b {
                b'\n' | b'[' => break,
                b']' => {
                    self.bump()?;
                    break;
                }
                _ => {
                    self.bump()?;
                }
            }
        }
        Ok(())
    }
}

/// One `{…}` comment's bytes (between the braces) as python-chess 1.11 keeps them: line ends
/// as a file opened as text reads them (`\r\n` and a lone `\r` as `\n`), without one space
/// right after `{` and one space right before `}`; nothing else is trimmed.
fn comment_text(raw: &[u8]) -> Vec<u8> {
    let mut text = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if b == b'\r' {
            bytes.next_if_eq(&b'\n');
            text.push(b'\n');
        } else {
            text.push(b);
        }
    }
    if text.last() == Some(&b' ') {
        text.pop();
    }
    if text.first() == Some(&b' ') {
        text.remove(0);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor, Read};

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pgn");

    fn read_with_capacity(bytes: &[u8], capacity: usize) -> Vec<RawGame> {
        PgnReader::new(BufReader::with_capacity(capacity, bytes))
            .collect::<Result<Vec<_>, _>>()
            .expect("no I/O error on a byte slice")
    }

    /// Reads `bytes` with a normal buffer and with a 1-byte buffer; both must agree.
    fn read_bytes(bytes: &[u8]) -> Vec<RawGame> {
        let games = read_with_capacity(bytes, 8192);
        if bytes.len() <= 1 << 16 {
            assert_eq!(games, read_with_capacity(bytes, 1), "1-byte buffer differs");
        }
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.index, i);
        }
        games
    }

    fn read_str(text: &str) -> Vec<RawGame> {
        read_bytes(text.as_bytes())
    }

    fn read_fixture(rel: &str) -> Vec<RawGame> {
        let path = format!("{DATA}/{rel}");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        read_bytes(&bytes)
    }

    fn moves(g: &RawGame) -> Vec<&str> {
        g.moves.iter().map(String::as_str).collect()
    }

    fn fault_kind(g: &RawGame) -> Option<PgnFaultKind> {
        g.fault.as_ref().map(|f| f.kind)
    }

    /// What one game of a fixture must look like.
    #[derive(Debug, Clone, Copy)]
    enum Expect {
        /// No fault, this many main-line tokens.
        Ok(usize),
        /// This fault, after this many main-line tokens.
        Fault(PgnFaultKind, u32),
        /// No fault; the token count is not checked (a legality error found elsewhere).
        NoFault,
    }

    use Expect::{Fault, NoFault, Ok as V};
    use PgnFaultKind as K;

    fn check(name: &str, games: &[RawGame], expected: &[Expect]) {
        assert_eq!(games.len(), expected.len(), "{name}: game count");
        for (g, e) in games.iter().zip(expected) {
            match *e {
                V(n) => {
                    assert_eq!(g.fault, None, "{name} game {}", g.index);
                    assert_eq!(g.moves.len(), n, "{name} game {}: plies", g.index);
                }
                Fault(kind, ply) => {
                    let f = g.fault.as_ref().unwrap_or_else(|| {
                        panic!("{name} game {}: expected fault {kind}", g.index)
                    });
                    assert_eq!((f.kind, f.ply), (kind, ply), "{name} game {}", g.index);
                }
                NoFault => assert_eq!(g.fault, None, "{name} game {}", g.index),
            }
        }
    }

    /// Expected reading of every file of `shared/data/bad/malformed/` (games in file order).
    /// The valid games' ply counts are `valid_game_plies` of `malformed.csv`.
    fn malformed_table() -> Vec<(&'static str, Vec<Expect>)> {
        vec![
            (
                "unterminated_comment_at_end",
                vec![V(24), V(56), Fault(K::UnterminatedComment, 31)],
            ),
            (
                "unterminated_comment_swallows_games",
                vec![V(54), Fault(K::UnterminatedComment, 21)],
            ),
            (
                "unclosed_variation",
                vec![V(63), Fault(K::UnclosedVariation, 34), V(66)],
            ),
            (
                "unmatched_close_paren",
                vec![V(68), Fault(K::UnmatchedCloseParen, 27), V(58)],
            ),
            (
                "tag_missing_close_bracket",
                vec![V(36), Fault(K::BadTag, 0), V(32)],
            ),
            (
                "tag_unterminated_string",
                vec![V(51), Fault(K::BadTag, 0), V(62)],
            ),
            ("two_tags_on_one_line", vec![V(63), V(67), V(68)]),
            ("nonutf8_tag_value", vec![V(59), V(47), V(49)]),
            ("nonutf8_comment", vec![V(70), V(68), V(57)]),
            ("nonsense_5000_plies", vec![V(55), V(5000), V(66)]),
            ("nonsense_after_legal_prefix", vec![V(42), V(5000), V(67)]),
            ("empty", vec![]),
            ("whitespace_only", vec![]),
            ("headers_only", vec![V(0)]),
            ("headers_only_then_game", vec![V(65), V(0), V(67)]),
            (
                "binary_between_games",
                vec![V(29), Fault(K::BinaryData, 0), V(57)],
            ),
            ("fen_bad_rank_length", vec![V(50), NoFault, V(68)]),
            ("fen_too_many_ranks", vec![V(49), NoFault, V(62)]),
            ("fen_two_white_kings", vec![V(66), NoFault, V(69)]),
            ("fen_pawn_on_first_rank", vec![V(56), NoFault, V(48)]),
            ("fen_side_to_move_x", vec![V(67), NoFault, V(69)]),
            ("fen_castling_without_rook", vec![V(66), NoFault, V(65)]),
            ("fen_side_not_to_move_in_check", vec![V(63), NoFault, V(65)]),
            ("fen_no_black_king", vec![V(70), NoFault, V(59)]),
            ("fen_invalid_ep_square", vec![V(57), NoFault, V(64)]),
            ("fen_empty_value", vec![V(40), NoFault, V(68)]),
            ("fen_without_setup_tag", vec![V(52), V(22), V(43)]),
            ("setup_without_fen", vec![V(48), V(53), V(70)]),
            ("bom_crlf", vec![V(67), V(63), V(27)]),
            ("cr_only_line_endings", vec![V(63), V(36), V(46)]),
            ("no_blank_line_between_games", vec![V(54), V(63), V(45)]),
            (
                "close_paren_after_illegal_move",
                vec![V(58), Fault(K::UnmatchedCloseParen, 33), V(60)],
            ),
            ("missing_result", vec![V(58), V(53), V(56)]),
            // 'Qd' (cut at end of file) is reported as ply 19; the syntax error is the caller's.
            ("truncated_mid_token", vec![V(37), V(19)]),
            ("truncated_mid_tag", vec![V(54), Fault(K::TruncatedTag, 0)]),
            (
                "nested_braces",
                vec![V(69), Fault(K::StrayCloseBrace, 28), V(65)],
            ),
            (
                "variation_before_first_move",
                vec![V(46), Fault(K::VariationBeforeFirstMove, 0), V(67)],
            ),
            ("move_number_overflow", vec![V(56), V(44), V(61)]),
            ("nag_out_of_range", vec![V(55), V(58), V(59)]),
            ("escape_and_line_comments", vec![V(63), V(39), V(27)]),
            // > 50 KB, read from shared/data in `shared_pgn_ply_counts` and generated below.
            ("deep_variations_10000", vec![V(67), V(63), V(65)]),
            (
                "deep_variations_unclosed",
                vec![V(59), Fault(K::UnclosedVariation, 1), V(61)],
            ),
            ("long_comment_1mb", vec![V(35), V(55), V(27)]),
            ("long_line_variations_1mb", vec![V(62), V(65), V(60)]),
            ("long_tag_1mb", vec![V(63), V(70), V(62)]),
            ("long_token_1mb", vec![V(54), V(57), V(68)]),
        ]
    }

    #[test]
    fn malformed_fixtures() {
        let table = malformed_table();
        let dir = format!("{DATA}/malformed");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("tests/data/pgn/malformed") {
            let path = entry.expect("dir entry").path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if path.extension().is_none_or(|e| e != "pgn") {
                continue;
            }
            let (_, expected) = table
                .iter()
                .find(|(name, _)| *name == stem)
                .unwrap_or_else(|| panic!("{stem}.pgn has no expectation"));
            check(
                stem,
                &read_fixture(&format!("malformed/{stem}.pgn")),
                expected,
            );
            seen += 1;
        }
        assert_eq!(seen, 40, "all small malformed fixtures checked");
    }

    #[test]
    fn malformed_details() {
        let g = read_fixture("malformed/two_tags_on_one_line.pgn");
        assert_eq!(g[1].tag("Event"), Some("62nd ch-RUS HL w"));
        assert_eq!(g[1].tag("Site"), Some("Tyumen RUS"));

        let g = read_fixture("malformed/tag_missing_close_bracket.pgn");
        let f = g[1].fault.as_ref().expect("fault");
        assert!(f.message.contains("Site"), "{f}");
        assert_eq!(g[1].tag("Site"), Some("Minneapolis USA"), "value kept");

        let g = read_fixture("malformed/tag_unterminated_string.pgn");
        assert!(
            g[1].fault
                .as_ref()
                .is_some_and(|f| f.message.contains("White"))
        );
        assert_eq!(g[1].tag("White"), None, "broken tag dropped");
        assert_eq!(g[1].tag("Black"), Some("Makhmutov,R"));

        let g = read_fixture("malformed/nonutf8_tag_value.pgn");
        assert_eq!(
            [g[0].encoding, g[1].encoding, g[2].encoding],
            [Encoding::Utf8, Encoding::Windows1252, Encoding::Utf8]
        );
        assert!(
            g[1].tags
                .iter()
                .any(|(_, v)| v.contains('ü') || v.contains('ö'))
        );

        let g = read_fixture("malformed/nonutf8_comment.pgn");
        assert_eq!(g[1].encoding, Encoding::Windows1252);

        let g = read_fixture("malformed/bom_crlf.pgn");
        assert_eq!(g[0].tags[0].0, "Event");
        assert!(g.iter().all(|g| g.moves.iter().all(|m| !m.contains('\r'))));

        let g = read_fixture("malformed/headers_only_then_game.pgn");
        assert_eq!(g[1].tag("White"), Some("Maroczy, Geza"));
        assert_eq!(g[1].result, None);
        assert_eq!(g[2].tag("White"), Some("Karjakin,Sergey"));
        assert_eq!(g[2].tag("Event"), Some("2nd Norway Blitz 2014"));

        let g = read_fixture("malformed/headers_only.pgn");
        assert_eq!((g[0].tags.len(), g[0].result.as_deref()), (17, None));

        let g = read_fixture("malformed/nested_braces.pgn");
        assert_eq!(g[1].moves[27], "tail");
        assert_eq!(g[1].moves[28], "O-O-O");

        let g = read_fixture("malformed/close_paren_after_illegal_move.pgn");
        assert_eq!(g[1].moves[32], "Ba1");

        let g = read_fixture("malformed/truncated_mid_token.pgn");
        assert_eq!(g[1].moves.last().map(String::as_str), Some("Qd"));

        let g = read_fixture("malformed/variation_before_first_move.pgn");
        assert_eq!(moves(&g[1])[..2], ["c4", "g6"]);

        let g = read_fixture("malformed/missing_result.pgn");
        assert_eq!(g[1].result, None);
        assert!(g[0].result.is_some());

        let g = read_fixture("malformed/no_blank_line_between_games.pgn");
        assert!(g.iter().all(|g| g.tag("Event").is_some()));

        let g = read_fixture("malformed/unterminated_comment_swallows_games.pgn");
        assert_eq!(
            g[1].fault.as_ref().map(|f| f.to_string()).as_deref(),
            Some("unterminated comment after 21 plies: end of input inside a { comment")
        );
    }

    #[test]
    fn binary_blob_never_yields_a_clean_game() {
        let games = read_fixture("malformed/binary_blob.bin");
        assert!(!games.is_empty());
        for g in &games {
            assert!(g.fault.is_some() || g.moves.is_empty(), "game {}", g.index);
            assert_eq!(g.encoding, Encoding::Windows1252);
        }
    }

    #[test]
    fn sample_pgn_plies() {
        // `plies` of the rows of shared/data/oracle/games.csv whose file is sample.pgn.
        const PLIES: [usize; 20] = [
            24, 21, 33, 37, 117, 142, 83, 29, 115, 35, 107, 199, 261, 56, 70, 21, 74, 91, 90, 71,
        ];
        let games = read_fixture("sample.pgn");
        let plies: Vec<usize> = games.iter().map(|g| g.moves.len()).collect();
        assert_eq!(plies, PLIES);
        assert!(
            games
                .iter()
                .all(|g| g.fault.is_none() && g.result.is_some())
        );
        assert_eq!(games[14].tag("Variant"), Some("fischerandom"));
    }

    /// Three short games around a middle part, as the malformed fixtures are built.
    fn around(middle: &str) -> String {
        format!("[Event \"a\"]\n\n1. e4 e5 2. Nf3 1-0\n\n{middle}\n\n[Event \"c\"]\n\n1. d4 d5 *\n")
    }

    #[test]
    fn huge_comment_token_and_tag() {
        let mib = 1 << 20;
        let games = read_str(&around(&format!(
            "[Event \"b\"]\n\n1. e4 {{{}}} e5 2. Nf3 0-1",
            "x{(;[".repeat(mib / 5)
        )));
        check("1 MiB comment", &games, &[V(3), V(3), V(2)]);

        let games = read_str(&around(&format!(
            "[Event \"b\"]\n\n1. e4 e5 2. {} Nc6 0-1",
            "Q".repeat(mib)
        )));
        check("1 MiB token", &games, &[V(3), V(4), V(2)]);
        assert_eq!(games[1].moves[2].len(), mib);

        let games = read_str(&around(&format!(
            "[Event \"b\"]\n[Annotator \"{}\"]\n\n1. e4 0-1",
            "\\\"v".repeat(mib / 3)
        )));
        check("1 MiB tag", &games, &[V(3), V(1), V(2)]);
        assert_eq!(games[1].tag("Annotator").map(str::len), Some(2 * (mib / 3)));
    }

    #[test]
    fn deep_and_wide_variations() {
        let depth = 10_000;
        let closed = format!(
            "[Event \"b\"]\n\n1. Nf3 {} {} 1... d5 2. c4 1/2-1/2",
            "( 1. e4 ".repeat(depth),
            ")".repeat(depth)
        );
        check(
            "10,000 deep",
            &read_str(&around(&closed)),
            &[V(3), V(3), V(2)],
        );

        let open = format!(
            "[Event \"b\"]\n\n1. Nf3 {} 1-0",
            "( 1. e4 e5 ".repeat(depth)
        );
        let games = read_str(&around(&open));
        check(
            "10,000 deep unclosed",
            &games,
            &[V(3), Fault(K::UnclosedVariation, 1), V(2)],
        );
        assert_eq!(games[1].result, None, "1-0 inside the variation is skipped");

        let wide = format!(
            "[Event \"b\"]\n\n1. e4 {}1... e5 *",
            "(1. d4) ".repeat(128_536)
        );
        assert!(wide.len() > 1_000_000);
        check(
            "128,536 siblings",
            &read_str(&around(&wide)),
            &[V(3), V(2), V(2)],
        );
    }

    #[test]
    fn tags_escapes_and_several_per_line() {
        let g = read_str("[A \"x\\\"y\\\\z\"] [B \"\"][C \"a\\b\"]\n\n1. e4 *");
        assert_eq!(g.len(), 1);
        assert_eq!(
            g[0].tags,
            [
                ("A".to_owned(), "x\"y\\z".to_owned()),
                ("B".to_owned(), String::new()),
                ("C".to_owned(), "a\\b".to_owned())
            ]
        );
        assert_eq!(g[0].tag("B"), Some(""));
        assert_eq!(g[0].tag("D"), None);
        assert_eq!(g[0].result.as_deref(), Some("*"));
    }

    #[test]
    fn movetext_tokens() {
        let g = read_str(
            "1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 ! Nf6 ?? 5.O-O 5...Be7 6 Re1 \
             6. ... b5 99999999999999999999999999. Bb3 $1 d6 $184467440737095516160 \
             7.c3$14 O-O+ 8. h3# -- Z0 0000 @@@@ Sf3 Qz9 0-0-0-0 e9 e8=Q+ 1/2-1/2",
        );
        assert_eq!(
            moves(&g[0]),
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5",
                "Bb3", "d6", "c3", "O-O+", "h3#", "--", "Z0", "0000", "@@@@", "Sf3", "Qz9",
                "0-0-0-0", "e9", "e8=Q+"
            ]
        );
        assert_eq!(g[0].result.as_deref(), Some("1/2-1/2"));
    }

    #[test]
    fn comments_escapes_and_variations() {
        let g = read_str(
            "% escape line [Event \"no\"] {\n[Event \"x\"]\n; line comment {\n\
             1. e4 {a comment ( [ ;\n over lines} e5 ; rest ( {\n\
             % escape ( {\n2. Nf3 (2. Nc3 {c} (2. f4 exf4) Nc6 1-0) 2... Nc6 % not an escape *",
        );
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].tags.len(), 1);
        assert_eq!(
            moves(&g[0]),
            ["e4", "e5", "Nf3", "Nc6", "%", "not", "an", "escape"]
        );
        assert_eq!(g[0].result.as_deref(), Some("*"));
        assert_eq!(g[0].fault, None);
    }

    #[test]
    fn game_boundaries() {
        // Games without tags, ended by their markers.
        let g = read_str("1. e4 e5 1-0 1. d4 0-1\n1. c4 *");
        assert_eq!(
            g.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
            [2, 1, 1]
        );
        // A tag section ends a game without marker, even mid-line; and at any depth.
        let g = read_str("1. e4 e5 [Event \"2\"] 1. d4 (1. c4 [Event \"3\"]\n1. Nf3");
        assert_eq!(
            g.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
            [2, 1, 1]
        );
        assert_eq!(fault_kind(&g[1]), Some(K::UnclosedVariation));
        assert_eq!(g[2].tag("Event"), Some("3"));
        // An empty line inside the tag section is tolerated...
        let g = read_str("[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 *");
        assert_eq!((g.len(), g[0].tags.len()), (1, 2));
        // ...unless a tag repeats: then the first game has headers only.
        let g = read_str("[Event \"a\"]\n[Site \"b\"]\n\n[Event \"c\"]\n\n1. e4 *");
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].tags.len(), g[0].moves.len()), (2, 0));
        assert_eq!((g[1].tag("Event"), g[1].moves.len()), (Some("c"), 1));
        // Without the empty line a repeated tag stays in the same section.
        let g = read_str("[Event \"a\"]\n[Event \"c\"]\n\n1. e4 *");
        assert_eq!((g.len(), g[0].tags.len()), (1, 2));
        // Header-only game with a marker.
        let g = read_str("\u{feff}[Event \"a\"]\n\n *\n\n[Event \"b\"]\n\n *\n");
        assert_eq!(g.len(), 2);
        assert!(
            g.iter()
                .all(|g| g.moves.is_empty() && g.result.as_deref() == Some("*"))
        );
        assert_eq!(g[0].tags[0].0, "Event");
        // Nothing but whitespace, comments and escapes: no game.
        assert!(read_str("").is_empty());
        assert!(read_str(" \n\r\n\t\r").is_empty());
        assert!(read_str("\u{feff}\n% x\n; y\n{ z }\n").is_empty());
        assert!(read_bytes(b"\xef\xbb").len() == 1, "a partial BOM is text");
        // Concatenated files: a BOM before a later game's tags is skipped.
        let g = read_str("\u{feff}[Event \"a\"]\n1. e4 *\n\u{feff}[Event \"b\"]\n1. d4 *\n");
        assert_eq!(g.len(), 2);
        assert_eq!(g[1].tag("Event"), Some("b"));
        assert_eq!(g[1].encoding, Encoding::Utf8);
    }

    #[test]
    fn line_endings() {
        let text =
            "[Event \"1\"]\r\r1. e4\re5 *\r[Event \"2\"]\r\n\r\n1. d4\r\n% esc ( {\r\nd5 *\n";
        let g = read_str(text);
        assert_eq!(g.len(), 2);
        assert_eq!(moves(&g[0]), ["e4", "e5"]);
        assert_eq!(moves(&g[1]), ["d4", "d5"]);
    }

    #[test]
    fn structural_faults() {
        let one = |text: &str| {
            let g = read_str(text);
            assert_eq!(g.len(), 1, "{text:?}");
            g.into_iter()
                .next()
                .map(|g| (fault_kind(&g), g.fault.map(|f| f.ply), g.moves.len()))
        };
        let f = |k, p, n| Some((Some(k), Some(p), n));
        assert_eq!(
            one("1. e4 e5 { never closed 2. Nf3 *"),
            f(K::UnterminatedComment, 2, 2)
        );
        assert_eq!(one("1. e4 ) e5 *"), f(K::UnmatchedCloseParen, 1, 2));
        assert_eq!(one("(1. d4) 1. e4 *"), f(K::VariationBeforeFirstMove, 0, 1));
        assert_eq!(one("1. e4 } e5 *"), f(K::StrayCloseBrace, 1, 2));
        assert_eq!(one("1. e4 ] e5 *"), f(K::StrayCloseBracket, 1, 2));
        assert_eq!(one("1. e4 e5 \x00\x01 2. Nf3 *"), f(K::BinaryData, 2, 2));
        assert_eq!(one("1. e4 (1. d4 (1. c4) *"), f(K::UnclosedVariation, 1, 1));
        assert_eq!(one("[Event \"x\"\n1. e4 *"), f(K::BadTag, 0, 1));
        assert_eq!(one("[Event x]\n1. e4 *"), f(K::BadTag, 0, 1));
        assert_eq!(one("[ \"x\"]\n1. e4 *"), f(K::BadTag, 0, 1));
        assert_eq!(one("[Event \"x]\n1. e4 *"), f(K::BadTag, 0, 1));
        assert_eq!(one("[Event \"x"), f(K::TruncatedTag, 0, 0));
        assert_eq!(one("[Event \"x\""), f(K::TruncatedTag, 0, 0));
        assert_eq!(one("[Event"), f(K::TruncatedTag, 0, 0));
        assert_eq!(one("1. e4 {"), f(K::UnterminatedComment, 1, 1));
        // Only the first fault is kept.
        assert_eq!(one("1. e4 ) } ] e5 (*"), f(K::UnmatchedCloseParen, 1, 2));
        for kind in [
            K::UnterminatedComment,
            K::UnclosedVariation,
            K::UnmatchedCloseParen,
            K::VariationBeforeFirstMove,
            K::BadTag,
            K::TruncatedTag,
            K::BinaryData,
            K::StrayCloseBrace,
            K::StrayCloseBracket,
        ] {
            let name = kind.as_str();
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert!(!kind.to_string().is_empty());
        }
    }

    #[test]
    fn encodings() {
        let g =
            read_bytes(b"[White \"M\xfcller\"]\n\n1. e4 *\n\n[White \"M\xc3\xbcller\"]\n\n1. e4 *");
        assert_eq!(g[0].tag("White"), Some("Müller"));
        assert_eq!(g[0].encoding, Encoding::Windows1252);
        assert_eq!(g[1].tag("White"), Some("Müller"));
        assert_eq!(g[1].encoding, Encoding::Utf8);
        // A truncated or overlong sequence is not UTF-8.
        for bad in [
            &b"{\xc3} 1. e4 *"[..],
            b"{\xc0\xaf} 1. e4 *",
            b"{\xed\xa0\x80} 1. e4 *",
        ] {
            assert_eq!(
                read_bytes(bad)[0].encoding,
                Encoding::Windows1252,
                "{bad:?}"
            );
        }
        assert_eq!(
            read_bytes("{\u{1F600}} 1. e4 *".as_bytes())[0].encoding,
            Encoding::Utf8
        );
        assert_eq!(Encoding::Windows1252.as_str(), "windows-1252");
        // Windows-1252, not Latin-1: 0x92 is a right single quotation mark, 0x80 the euro sign
        let g = read_bytes(b"[Event \"Players\x92 Cup\"]\n[Site \"\x80 \xe9\"]\n\n1. e4 *");
        assert_eq!(g[0].tag("Event"), Some("Players\u{2019} Cup"));
        assert_eq!(g[0].tag("Site"), Some("\u{20ac} \u{e9}"));
        assert_eq!(g[0].encoding, Encoding::Windows1252);
    }

    #[test]
    fn half_point_marker_ends_the_game() {
        for text in [
            "1. e4 e5 \u{bd}-\u{bd}\n\n1. d4 *".as_bytes(),
            b"1. e4 e5 \xbd-\xbd\n\n1. d4 *",
        ] {
            let g = read_bytes(text);
            assert_eq!(g.len(), 2, "{text:?}");
            assert_eq!(moves(&g[0]), ["e4", "e5"]);
            assert_eq!(g[0].result.as_deref(), Some("1/2-1/2"));
            assert_eq!(moves(&g[1]), ["d4"]);
            assert_eq!(g[1].result.as_deref(), Some("*"));
        }
        // inside a variation it is skipped, like any marker
        let g = read_str("1. e4 (1. d4 \u{bd}-\u{bd}) e5 1-0");
        assert_eq!(moves(&g[0]), ["e4", "e5"]);
        assert_eq!(g[0].result.as_deref(), Some("1-0"));
    }

    #[test]
    fn en_passant_mark_token_joins_its_move() {
        let g = read_str("1. e4 Nf6 2. e5 d5 3. exd6 e.p. Nc6 4. e.p. *");
        assert_eq!(
            moves(&g[0]),
            ["e4", "Nf6", "e5", "d5", "exd6e.p.", "Nc6e.p."]
        );
        let g = read_str("e.p. 1. e4 *");
        assert_eq!(moves(&g[0]), ["e.p.", "e4"]);
        // a mark inside a variation stays there
        let g = read_str("1. e4 (1. d4 e.p.) e5 *");
        assert_eq!(moves(&g[0]), ["e4", "e5"]);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // Deterministic pseudo-random inputs rich in PGN syntax and invalid bytes.
        let alphabet: &[u8] =
            b"[]{}()\"\\;%$!?.-*/ \n\r\t0123456789abcdefghNBRQKOx+#=Z@\x00\x7f\xc3\xff";
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..300 {
            let len = (next() % 400) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let games = read_bytes(&bytes);
            assert!(games.len() <= bytes.len());
        }
    }

    #[test]
    fn io_error_is_reported_once() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut reader = PgnReader::new(BufReader::new(Failing));
        assert!(matches!(reader.next(), Some(Err(PgnError::Io(_)))));
        assert!(reader.next().is_none());

        // A reader that fails after some valid input.
        let input = Cursor::new(b"1. e4 *\n\n1. d4".to_vec()).chain(Failing);
        let results: Vec<_> = PgnReader::new(BufReader::new(input)).collect();
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok() && results[1].is_err());
    }

    /// Minimal CSV reader (quoted fields, doubled quotes, line breaks inside quotes).
    #[cfg(feature = "shared-data")]
    fn parse_csv(text: &str) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        let mut row = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (true, c) => field.push(c),
                (false, '"') => quoted = true,
                (false, ',') => row.push(std::mem::take(&mut field)),
                (false, '\n') => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                (false, '\r') => {}
                (false, c) => field.push(c),
            }
        }
        if !field.is_empty() || !row.is_empty() {
            row.push(field);
            rows.push(row);
        }
        rows
    }

    /// Every `*.pgn` of `shared/data` (`pgn/**` and `sample.pgn`) against the oracle's
    /// `games.csv`: game count per file and main-line plies per game (all its games are fully
    /// legal); plus the large malformed fixtures and `malformed.pgn`. The data directory is
    /// `$SQLCHESS_SHARED_DATA`, by default `../shared/data` next to the crate.
    #[cfg(feature = "shared-data")]
    #[test]
    fn shared_pgn_ply_counts() {
        use std::collections::BTreeMap;
        use std::path::{Path, PathBuf};

        let root = std::env::var("SQLCHESS_SHARED_DATA")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data").to_owned());
        let root = Path::new(&root);
        let read_path = |path: &Path| -> Vec<RawGame> {
            let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            PgnReader::new(BufReader::new(file))
                .collect::<Result<Vec<_>, _>>()
                .unwrap_or_else(|e| panic!("{path:?}: {e}"))
        };

        let csv = std::fs::read_to_string(root.join("oracle/games.csv")).expect("games.csv");
        let rows = parse_csv(&csv);
        let header = &rows[0];
        let col = |name: &str| header.iter().position(|h| h == name).expect(name);
        let (file, index, plies, illegal) = (
            col("file"),
            col("game_index"),
            col("plies"),
            col("first_illegal_ply"),
        );
        let mut expected: BTreeMap<String, Vec<(usize, Option<usize>)>> = BTreeMap::new();
        for row in &rows[1..] {
            let n: usize = row[plies].parse().expect("plies");
            let legal = row[illegal].is_empty();
            let i: usize = row[index].parse().expect("game_index");
            expected
                .entry(row[file].clone())
                .or_default()
                .push((i, legal.then_some(n)));
        }

        let mut files = vec![PathBuf::from("sample.pgn")];
        let mut dirs = vec![root.join("pgn")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("read_dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "pgn") {
                    files.push(path.strip_prefix(root).expect("under root").to_path_buf());
                }
            }
        }
        assert_eq!(files.len(), expected.len(), "every file of games.csv found");
        let mut total = 0;
        for rel in &files {
            let name = rel.to_str().expect("utf-8 path").replace('\\', "/");
            let games = read_path(&root.join(rel));
            let want = expected
                .get(&name)
                .unwrap_or_else(|| panic!("{name} not in games.csv"));
            assert_eq!(games.len(), want.len(), "{name}: game count");
            for (g, &(i, n)) in games.iter().zip(want) {
                assert_eq!(g.index, i, "{name}");
                assert_eq!(g.fault, None, "{name} game {i}");
                if let Some(n) = n {
                    assert_eq!(g.moves.len(), n, "{name} game {i}: plies");
                }
            }
            total += games.len();
        }
        assert_eq!(total, rows.len() - 1);

        // The malformed fixtures too large to copy into tests/data.
        let bad = root.join("bad");
        for (name, expect) in malformed_table() {
            let games = read_path(&bad.join(format!("malformed/{name}.pgn")));
            check(name, &games, &expect);
        }
        let games = read_path(&bad.join("malformed/long_token_1mb.pgn"));
        assert!(games[1].moves[27].len() >= 1 << 20);

        // malformed.pgn is the concatenation of parts: it reads as the parts do, one after
        // the other.
        let rows = parse_csv(&std::fs::read_to_string(bad.join("malformed.csv")).expect("csv"));
        let fault_col = rows[0]
            .iter()
            .position(|h| h == "fault")
            .expect("fault column");
        let row = rows
            .iter()
            .find(|r| r[0] == "malformed.pgn")
            .expect("malformed.pgn row");
        let parts: Vec<&str> = row[fault_col]
            .trim_start_matches("concatenation of ")
            .split(", ")
            .map(|p| p.trim_start_matches("malformed/"))
            .collect();
        assert_eq!(parts.len(), 29);
        let summary = |g: &RawGame| (g.moves.clone(), g.fault.as_ref().map(|f| (f.kind, f.ply)));
        let mut from_parts = Vec::new();
        for part in parts {
            from_parts.extend(
                read_path(&bad.join("malformed").join(part))
                    .iter()
                    .map(summary),
            );
        }
        let whole: Vec<_> = read_path(&bad.join("malformed.pgn"))
            .iter()
            .map(summary)
            .collect();
        assert_eq!(whole, from_parts);
    }

    #[test]
    fn notes_after_main_line_moves() {
        let text = "[Event \"x\"]\n\n{before} 1. e4 {[%clk 0:03:00]} $1 e5!? {a} {b} \
                    (1... c5 {variation} $2) 2. Nf3 $300 $14 *\n";
        let g = PgnReader::with_notes(text.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(g.moves, ["e4", "e5", "Nf3"]);
        assert_eq!(
            g.notes,
            [
                PlyNotes {
                    comment: Some("[%clk 0:03:00]".into()),
                    nags: vec![1]
                },
                PlyNotes {
                    comment: Some("a b".into()),
                    nags: vec![5]
                },
                PlyNotes {
                    comment: None,
                    nags: vec![14]
                },
            ]
        );
        // without notes: none kept
        let g = PgnReader::new(text.as_bytes()).next().unwrap().unwrap();
        assert!(g.notes.is_empty());
    }
}
