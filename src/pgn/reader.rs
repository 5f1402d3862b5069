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
//!
//! [`PgnReader::with_text`] also keeps each game's text as written ([`RawGame::text`]),
//! to write the game out again unchanged.

use std::fmt;
use std::io::{self, BufRead};

pub use super::fault::{PgnFault, PgnFaultKind};
use super::source::{BOM, Source, Utf8Check, is_control, is_inline_space};

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
    /// With [`PgnReader::with_text`]: the game's text as it stands in the input, from its
    /// first tag pair (or first movetext element of a game without tags) through its
    /// termination marker (or its last byte before the next game or the end of the input,
    /// trailing whitespace left out), line endings as written, decoded as the game's
    /// [`encoding`](RawGame::encoding); else `None`. Escape lines (`%`) and `;` comments
    /// before the game's first tag are not part of it.
    pub text: Option<String>,
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
    /// Keep each game's text ([`RawGame::text`]).
    text: bool,
    /// With `text`: the bytes of the carried tag, the start of the next game's text.
    carry_text: Vec<u8>,
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

    /// A reader that also keeps each game's text as written ([`RawGame::text`]), to write
    /// the game out again as it was; memory per game grows by its size (comments and
    /// variations included, which the reader otherwise skips without storing).
    pub fn with_text(reader: R) -> Self {
        PgnReader {
            text: true,
            ..PgnReader::new(reader)
        }
    }

    /// Creates a reader over `reader`. Nothing is read until the first call to `next`.
    pub fn new(reader: R) -> Self {
        PgnReader {
            notes: false,
            text: false,
            carry_text: Vec::new(),
            src: Source {
                inner: reader,
                pushback: Vec::new(),
                at_line_start: true,
                utf8: Utf8Check::new(),
                raw: None,
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
    /// With the text kept: where the game's text starts in [`Source::raw`].
    text_start: Option<usize>,
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
        if self.text {
            self.src.raw = Some(std::mem::take(&mut self.carry_text));
        }
        if let Some((name, value)) = self.carry.take() {
            g.text_start = Some(0);
            if std::str::from_utf8(&name).is_err() || std::str::from_utf8(&value).is_err() {
                self.src.utf8.valid = false;
            }
            g.tags.push((name, value));
            g.content = true;
        }

        while let Some(c) = self.src.peek()? {
            // the game's text starts at its first element (not at blank lines, escape lines
            // or `;` comments before it)
            if g.text_start.is_none()
                && c != b'\n'
                && c != b';'
                && !is_inline_space(c)
                && !(c == b'%' && self.src.at_line_start)
            {
                g.text_start = Some(self.src.raw_len());
            }
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
        let mark = self.src.raw_len();
        self.src.bump()?;
        let read = self.src.read_tag()?;
        if let Some((name, value)) = read.tag {
            if g.blank_line && read.fault.is_none() && g.tags.iter().any(|t| t.0 == name) {
                // The game so far is header-only; this tag's bytes belong to the next game.
                self.src.utf8 = before;
                self.carry = Some((name, value));
                if let Some(raw) = &mut self.src.raw {
                    self.carry_text = raw.split_off(mark);
                }
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
        let text = self.src.raw.take().map(|raw| {
            let start = g.text_start.unwrap_or(raw.len()).min(raw.len());
            let text = raw[start..].trim_ascii_end();
            let text = text.strip_prefix(BOM.as_slice()).unwrap_or(text);
            decode(text.to_vec(), encoding)
        });
        Some(RawGame {
            text,
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
