//! Game boundaries without reading the games: where a large PGN file can be cut so that
//! each piece, read by its own [`PgnReader`](super::PgnReader), gives exactly the games
//! (and game indexes) of one reader over the whole file.
//!
//! [`BoundaryScanner`] is the game-splitting part of the reader's lexer (the module docs of
//! [`super::reader`], "Game boundaries"), byte for byte, without building anything: it
//! follows comments, `;` and `%` lines, tag pairs (quotes, escapes, bad tags), variations,
//! NAGs and tokens (termination markers, a byte order mark inside the input), the
//! empty-line rule of the tag section (a repeated tag name after an empty line starts a
//! new game: it keeps the tag names of the game) and counts the games the reader would
//! return. It gives up ([`BoundaryScanner::gave_up`]) only when a game's tag names exceed
//! 64 KiB; the caller then cuts nowhere after that point.
//!
//! A cut at byte `p` is safe when the scanner, fed the file from a safe start, stands at
//! `p` before a game in the state a new reader starts in ([`BoundaryScanner::games_before`]):
//! either `p` is a `[` in the movetext of a game (the reader ends the game there and starts
//! the next one at `p`), or nothing but whitespace and ASCII comments came since the last
//! game ended (the next game's bytes, and so its UTF-8 check, start at `p` for both
//! readers). A reader over the bytes before `p` then returns the same games (its last game
//! ends at the end of its input instead of at `p`, which the reader treats alike), and a
//! reader started at `p` returns the rest, their indexes offset by the count before `p`.
//! `tests`: every safe cut of every test file gives the whole file's games.

// the reader's byte classes: the scanner splits games by the reader's own rules
use super::source::{BOM, ends_token, is_control, is_inline_space};

/// Bytes that end a run of bytes the scanner passes over in one step: for tokens
/// ([`ends_token`] and CR), tag values (`"`, `\\`, line breaks) and `;`/`%` lines (line
/// breaks).
const fn stops(kind: u8) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let line_break = c == b'\n' || c == b'\r';
        t[b] = match kind {
            0 => {
                line_break
                    || matches!(c, b' ' | b'\t' | 0x0B | 0x0C)
                    || (c < 0x20 || c == 0x7F)
                    || matches!(c, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'$')
            }
            1 => line_break || c == b'"' || c == b'\\',
            _ => line_break,
        };
        b += 1;
    }
    t
}

static TOKEN_STOPS: [bool; 256] = stops(0);
static VALUE_STOPS: [bool; 256] = stops(1);
static LINE_STOPS: [bool; 256] = stops(2);

/// Where the lexer is inside an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// Between elements.
    Top,
    /// Inside a `{` comment.
    Comment,
    /// A `;` comment or a `%` escape line (to the line break, not included).
    Line,
    /// The digits after `$`.
    Nag,
    /// A movetext token: its length and first bytes (enough for a byte order mark and
    /// the longest termination marker).
    Token,
    /// Tag pair: spaces before the name.
    TagSpace,
    /// Tag pair: the name (`true` once a byte of it was read).
    TagName(bool),
    /// Tag pair: spaces after the name.
    TagAfterName(bool),
    /// Tag pair: the quoted value.
    TagValue,
    /// Tag pair: after a `\` in the value.
    TagEscape,
    /// Tag pair: after the value's closing quote.
    TagAfterValue,
    /// Tag pair: skipping a malformed rest (to `]`, or a `[` or line break); `true` when
    /// the value was read (the reader keeps the tag).
    TagSkip(bool),
}

/// Counts the games of PGN text fed in pieces, as [`super::PgnReader`] splits them, and
/// tells where a new reader could start (see the module docs).
#[derive(Debug, Clone)]
pub struct BoundaryScanner {
    games: u64,
    // the flags of the reader's game being read
    content: bool,
    in_movetext: bool,
    depth: usize,
    line_empty: bool,
    blank_line: bool,
    /// Every byte consumed since the game began is ASCII.
    ascii: bool,
    at_line_start: bool,
    /// The last byte was a CR: a LF right after it is part of the same line break.
    after_cr: bool,
    /// A byte order mark at the start of the input is still to be skipped (bytes seen).
    bom: Option<usize>,
    lex: Lex,
    token: [u8; 10],
    token_len: usize,
    /// The names of the game's tag pairs, one after the other (`name_ends`), the name
    /// being read last: for the empty-line rule.
    names: Vec<u8>,
    name_ends: Vec<usize>,
    /// An empty line came before the tag pair being read.
    tag_after_blank: bool,
    gave_up: bool,
}

/// The most bytes of tag names kept per game (beyond: the scanner gives up).
const MAX_NAMES: usize = 64 * 1024;

impl BoundaryScanner {
    /// A scanner at the start of a file (a byte order mark there is skipped, as the reader
    /// does).
    #[must_use]
    pub fn at_file_start() -> BoundaryScanner {
        BoundaryScanner {
            bom: Some(0),
            ..BoundaryScanner::at_cut()
        }
    }

    /// A scanner at a safe cut inside a file (what a reader started there sees).
    #[must_use]
    pub fn at_cut() -> BoundaryScanner {
        BoundaryScanner {
            games: 0,
            content: false,
            in_movetext: false,
            depth: 0,
            line_empty: true,
            blank_line: false,
            ascii: true,
            at_line_start: true,
            after_cr: false,
            bom: None,
            lex: Lex::Top,
            token: [0; 10],
            token_len: 0,
            names: Vec::new(),
            name_ends: Vec::new(),
            tag_after_blank: false,
            gave_up: false,
        }
    }

    /// The scanner gave up (a game's tag names over 64 KiB); its counts mean nothing from
    /// there on.
    #[must_use]
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    /// If the next byte fed is `[` and a new reader could start there: the number of games
    /// the reader returns before it (counting from where this scanner started). `None`
    /// when a cut here is not safe (inside a comment or a tag section, after non-ASCII
    /// bytes between games) or the scanner gave up.
    #[must_use]
    pub fn games_before(&self) -> Option<u64> {
        if self.gave_up || self.lex != Lex::Top || self.bom.is_some() {
            return None;
        }
        if self.in_movetext {
            Some(self.games + 1)
        } else if !self.content && self.ascii {
            Some(self.games)
        } else {
            None
        }
    }

    /// The number of games in all the text fed, when it was the whole input (the
    /// reader's game count); `None` if the scanner gave up.
    #[must_use]
    pub fn finish(mut self) -> Option<u64> {
        match self.lex {
            Lex::Token => self.end_token(),
            // end of input inside a comment or a tag pair: a fault, so a game
            Lex::Comment | Lex::TagSpace | Lex::TagName(_) | Lex::TagAfterName(_) => {
                self.content = true;
            }
            Lex::TagValue | Lex::TagEscape | Lex::TagAfterValue | Lex::TagSkip(_) => {
                self.content = true;
            }
            Lex::Top | Lex::Line | Lex::Nag => {}
        }
        if self.bom.is_some_and(|n| n > 0) {
            // a partial byte order mark, then the end: those bytes are one token
            self.content = true;
        }
        if self.gave_up {
            return None;
        }
        Some(self.games + u64::from(self.content))
    }

    /// Feeds the next bytes of the input.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() && !self.gave_up {
            if let Some(seen) = self.bom {
                if bytes[i] == BOM[seen] {
                    i += 1;
                    self.bom = (seen + 1 < BOM.len()).then_some(seen + 1);
                    continue;
                }
                // a partial mark: its bytes are read as text (they start a token)
                self.bom = None;
                for &b in &BOM[..seen] {
                    self.byte(b);
                }
                continue;
            }
            // fast paths over runs of bytes that only extend the element: none is a CR, so
            // no line break is pending after them
            let stops = match self.lex {
                _ if self.after_cr => None,
                Lex::Token => Some(&TOKEN_STOPS),
                Lex::TagValue => Some(&VALUE_STOPS),
                Lex::Line => Some(&LINE_STOPS),
                _ => None,
            };
            if let Some(stops) = stops {
                let rest = &bytes[i..];
                let n = rest
                    .iter()
                    .position(|&b| stops[usize::from(b)])
                    .unwrap_or(rest.len());
                if n > 0 {
                    let run = &rest[..n];
                    self.ascii &= run.is_ascii();
                    if self.lex == Lex::Token {
                        let room = self.token.len().saturating_sub(self.token_len);
                        for &b in run.iter().take(room) {
                            self.push_token(b);
                        }
                        self.token_len += n.saturating_sub(room);
                    }
                    self.after_cr = false;
                    self.at_line_start = false;
                    i += n;
                    continue;
                }
            }
            if self.lex == Lex::Comment {
                // fast path: to the closing brace
                let rest = &bytes[i..];
                match rest.iter().position(|&b| b == b'}') {
                    Some(n) => {
                        self.ascii &= rest[..n].is_ascii();
                        self.lex = Lex::Top;
                        self.after_cr = false;
                        self.at_line_start = false;
                        i += n + 1;
                    }
                    None => {
                        self.ascii &= rest.is_ascii();
                        self.after_cr = rest.last() == Some(&b'\r');
                        i = bytes.len();
                    }
                }
                continue;
            }
            self.byte(bytes[i]);
            i += 1;
        }
    }

    /// One raw byte: line breaks normalised as the reader's source does (CR LF and CR are
    /// one LF).
    fn byte(&mut self, raw: u8) {
        if self.after_cr {
            self.after_cr = false;
            if raw == b'\n' {
                return;
            }
        }
        let b = if raw == b'\r' {
            self.after_cr = true;
            b'\n'
        } else {
            raw
        };
        self.ascii &= raw.is_ascii();
        // the element handlers return false when `b` ends them without being consumed
        while !self.step(b) {}
        self.at_line_start = b == b'\n';
    }

    fn movetext(&mut self) {
        self.content = true;
        self.in_movetext = true;
        self.line_empty = false;
    }

    /// The reader's `finish` and the start of the next game's reading.
    fn end_game(&mut self) {
        self.games += u64::from(self.content);
        self.content = false;
        self.in_movetext = false;
        self.depth = 0;
        self.line_empty = self.at_line_start;
        self.blank_line = false;
        self.ascii = true;
        self.names.clear();
        self.name_ends.clear();
    }

    fn end_token(&mut self) {
        self.lex = Lex::Top;
        let len = self.token_len;
        let kept = &self.token[..len.min(self.token.len())];
        let (kept, len) = match kept.strip_prefix(BOM.as_slice()) {
            Some(rest) => (rest, len - BOM.len()),
            None => (kept, len),
        };
        if len == 0 {
            return;
        }
        let marker = len <= 7
            && matches!(
                kept,
                b"1-0" | b"0-1" | b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" | b"\xbd-\xbd" | b"*"
            );
        self.movetext();
        if marker && self.depth == 0 {
            self.end_game();
        }
    }

    fn push_token(&mut self, b: u8) {
        if let Some(slot) = self.token.get_mut(self.token_len) {
            *slot = b;
        }
        self.token_len += 1;
    }

    /// Handles `b` in the current element; `false` if `b` is left for the next one.
    fn step(&mut self, b: u8) -> bool {
        match self.lex {
            Lex::Top => self.top(b),
            Lex::Comment => {
                if b == b'}' {
                    self.lex = Lex::Top;
                }
                true
            }
            Lex::Line | Lex::Nag => {
                let go_on = if self.lex == Lex::Line {
                    b != b'\n'
                } else {
                    b.is_ascii_digit()
                };
                if !go_on {
                    self.lex = Lex::Top;
                }
                go_on
            }
            Lex::Token => {
                if ends_token(b) {
                    self.end_token();
                    false
                } else {
                    self.push_token(b);
                    true
                }
            }
            Lex::TagSpace => {
                if is_inline_space(b) {
                    return true;
                }
                self.lex = Lex::TagName(false);
                false
            }
            Lex::TagName(named) => {
                if b == b'\n' || b == b'"' || b == b'[' || b == b']' || is_inline_space(b) {
                    self.lex = Lex::TagAfterName(named);
                    return false;
                }
                self.lex = Lex::TagName(true);
                if self.names.len() >= MAX_NAMES {
                    self.gave_up = true;
                }
                self.names.push(b);
                true
            }
            Lex::TagAfterName(named) => {
                if is_inline_space(b) {
                    return true;
                }
                if b == b'"' && named {
                    self.lex = Lex::TagValue;
                    return true;
                }
                self.lex = Lex::TagSkip(false);
                false
            }
            Lex::TagValue => match b {
                b'"' => {
                    self.lex = Lex::TagAfterValue;
                    true
                }
                b'\n' => {
                    self.end_tag(false, false);
                    false
                }
                b'\\' => {
                    self.lex = Lex::TagEscape;
                    true
                }
                _ => true,
            },
            Lex::TagEscape => {
                self.lex = Lex::TagValue;
                b == b'"' || b == b'\\'
            }
            Lex::TagAfterValue => {
                if is_inline_space(b) {
                    return true;
                }
                if b == b']' {
                    self.end_tag(true, true);
                    return true;
                }
                self.lex = Lex::TagSkip(true);
                false
            }
            Lex::TagSkip(kept) => match b {
                b'\n' | b'[' => {
                    self.end_tag(kept, false);
                    false
                }
                b']' => {
                    self.end_tag(kept, false);
                    true
                }
                _ => true,
            },
        }
    }

    /// The end of a tag pair: `kept` when the reader keeps the tag (its value was read),
    /// `clean` when without fault. A clean tag after an empty line whose name the game
    /// already has starts the next game (the reader's empty-line rule): the game so far
    /// ends before it.
    fn end_tag(&mut self, kept: bool, clean: bool) {
        self.lex = Lex::Top;
        self.blank_line = false;
        let start = self.name_ends.last().copied().unwrap_or(0);
        if !kept {
            self.names.truncate(start);
            return;
        }
        let name = &self.names[start..];
        let mut from = 0;
        let repeated = self.name_ends.iter().any(|&end| {
            let same = &self.names[from..end] == name;
            from = end;
            same
        });
        if clean && self.tag_after_blank && repeated {
            let name = name.to_vec();
            self.end_game();
            // the next game, with this tag
            self.content = true;
            self.line_empty = false;
            self.names = name;
        }
        self.name_ends.push(self.names.len());
    }

    /// `b` between elements (the reader's `read_game` loop).
    fn top(&mut self, b: u8) -> bool {
        match b {
            b'\n' => {
                self.blank_line |= self.line_empty;
                self.line_empty = true;
            }
            b if is_inline_space(b) => {}
            b'%' if self.at_line_start => {
                self.line_empty = false;
                self.lex = Lex::Line;
            }
            b';' => {
                self.line_empty = false;
                self.lex = Lex::Line;
            }
            b'{' => {
                self.line_empty = false;
                self.lex = Lex::Comment;
            }
            b'[' => {
                if self.in_movetext {
                    // the game ends; `[` starts the next one
                    self.end_game();
                    return false;
                }
                self.tag_after_blank = self.blank_line;
                self.line_empty = false;
                self.content = true;
                self.lex = Lex::TagSpace;
            }
            b'(' => {
                self.movetext();
                self.depth = self.depth.saturating_add(1);
            }
            b')' => {
                self.movetext();
                self.depth = self.depth.saturating_sub(1);
            }
            b'}' | b']' => self.movetext(),
            b'$' => {
                self.movetext();
                self.lex = Lex::Nag;
            }
            b if is_control(b) => self.movetext(),
            b => {
                self.lex = Lex::Token;
                self.token_len = 0;
                self.push_token(b);
            }
        }
        true
    }
}

/// Whether the byte at `i` of `window` starts a line with `[` after a line that is not a
/// tag pair (`[` at line start): where a game's tag section likely begins, so a place to
/// try a cut. `window[0]` is taken as following a line break only if `at_line_start`.
#[must_use]
pub fn likely_game_start(window: &[u8], i: usize) -> bool {
    if window.get(i) != Some(&b'[') || i == 0 {
        return false;
    }
    if !matches!(window[i - 1], b'\n' | b'\r') {
        return false;
    }
    // the previous line: back over its line break (CR LF counts once) to its start
    let mut end = i - 1;
    if window[end] == b'\n' && end > 0 && window[end - 1] == b'\r' {
        end -= 1;
    }
    match window[..end]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
    {
        Some(start) => window.get(start + 1) != Some(&b'['),
        // the previous line starts before the window: unknown
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{PgnReader, RawGame};
    use std::io::BufReader;

    fn read(bytes: &[u8]) -> Vec<RawGame> {
        PgnReader::new(BufReader::new(bytes))
            .collect::<Result<Vec<_>, _>>()
            .expect("no I/O error on a byte slice")
    }

    fn files() -> Vec<(String, Vec<u8>)> {
        let mut out = vec![];
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data"
        ))];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).expect("dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "pgn") {
                    out.push((p.display().to_string(), std::fs::read(&p).expect("read")));
                }
            }
        }
        out.sort();
        out
    }

    /// Cuts `bytes` at every line-start `[` the scanner calls safe and checks the pieces'
    /// games against the whole file's; the scanner's count at the end too. Returns the
    /// number of safe cuts.
    pub(crate) fn check_cuts(name: &str, bytes: &[u8], chunk: usize) -> usize {
        let whole = read(bytes);
        let mut s = BoundaryScanner::at_file_start();
        let mut safe = 0;
        let mut fed = 0;
        for p in 1..bytes.len() {
            if bytes[p] != b'[' || !matches!(bytes[p - 1], b'\n' | b'\r') {
                continue;
            }
            // feed up to p in pieces of `chunk` bytes
            while fed < p {
                let to = (fed + chunk).min(p);
                s.feed(&bytes[fed..to]);
                fed = to;
            }
            let Some(n) = s.games_before() else {
                continue;
            };
            safe += 1;
            let n = n as usize;
            let (before, after) = (read(&bytes[..p]), read(&bytes[p..]));
            assert_eq!(before.len(), n, "{name}: games before byte {p}");
            assert_eq!(before, whole[..n], "{name}: games before byte {p}");
            let after: Vec<RawGame> = after
                .into_iter()
                .map(|mut g| {
                    g.index += n;
                    g
                })
                .collect();
            assert_eq!(after, whole[n..], "{name}: games from byte {p}");
        }
        s.feed(&bytes[fed..]);
        if let Some(total) = s.finish() {
            assert_eq!(total as usize, whole.len(), "{name}: game count");
        }
        safe
    }

    #[test]
    fn every_safe_cut_of_the_test_files_gives_the_same_games() {
        let mut safe = 0;
        for (name, bytes) in files() {
            safe += check_cuts(&name, &bytes, 1 << 20);
            check_cuts(&name, &bytes, 7);
        }
        assert!(safe > 100, "{safe} safe cuts");
    }

    #[test]
    fn unsafe_places_are_refused() {
        let cases: &[(&str, Option<u64>)] = &[
            // inside a comment
            ("[A \"1\"]\n\n1. e4 { a\n", None),
            // inside a tag section
            ("[A \"1\"]\n", None),
            // in the movetext: the game ends here
            ("[A \"1\"]\n\n1. e4\n", Some(1)),
            // after a result
            ("[A \"1\"]\n\n1. e4 1-0\n\n", Some(1)),
            // a result inside a variation does not end the game
            ("[A \"1\"]\n\n1. e4 (1. d4 1-0\n", Some(1)),
            // non-ASCII comment between games: the next game's encoding depends on it
            ("1. e4 1-0\n{ caf\u{e9} }\n", None),
            ("1. e4 1-0\n{ cafe }\n; x\n", Some(1)),
            // an escaped quote keeps the value open; a line break ends it
            ("[A \"x\\\"]\n", None),
            ("[A \"x\n1. e4\n", Some(1)),
            // CR LF is one line break
            ("[A \"1\"]\r\n\r\n1. e4 *\r\n", Some(1)),
            // a header-only game, then a repeated tag after an empty line starts a game
            ("[A \"1\"]\n\n[A \"2\"]\n1. e4\n", Some(2)),
            ("[A \"1\"]\n\n[B \"2\"]\n1. e4\n", Some(1)),
            ("[A \"1\"]\n\n[A \"2\"]\n", None),
        ];
        for (text, want) in cases {
            let mut s = BoundaryScanner::at_file_start();
            s.feed(text.as_bytes());
            assert_eq!(s.games_before(), *want, "{text:?}");
        }
    }

    #[test]
    fn generated_games_cut_anywhere() {
        // small games in every ending and spacing, cut at every line start
        let mut text = String::new();
        for i in 0..60 {
            let sep = ["\n", "\r\n", "\r"][i % 3];
            text.push_str(&format!("[Event \"g{i}\"]{sep}[Site \"s\"]{sep}"));
            if i % 4 == 0 {
                text.push_str(sep);
            }
            text.push_str(&format!(
                "1. e4 {{c{sep}[x]}} e5 (2. d4 {sep}1-0) 2. Nf3 ; r{sep}"
            ));
            if i % 5 != 0 {
                text.push_str(["1-0", "*", "1/2-1/2", "0-1"][i % 4]);
            }
            text.push_str(sep);
            if i % 7 == 0 {
                text.push_str(&format!("{{between}}{sep}%esc{sep}{sep}"));
            }
        }
        let safe = check_cuts("generated", text.as_bytes(), 3);
        assert!(safe >= 50, "{safe} safe cuts");
    }

    #[test]
    fn likely_starts() {
        let w = b"x\n[A \"1\"]\n[B \"2\"]\n\n1. e4 *\n[A \"3\"]\n";
        let at: Vec<usize> = (0..w.len()).filter(|&i| likely_game_start(w, i)).collect();
        // not the first `[` (its previous line starts before the window), not `[B` (after a
        // tag pair): the `[` after the movetext
        assert_eq!(at, vec![27]);
    }
}
