//! The byte source under [`super::PgnReader`]: line endings normalised (LF, CRLF, CR), the
//! column tracked (escape lines, tag sections), each game's bytes checked as UTF-8 as they
//! pass ([`Utf8Check`]) and, when the text is kept, copied as read; and the lexing of its
//! smallest units: tokens, comments, tag pairs ([`Source::read_tag`]).

use std::io::{self, BufRead};

use super::fault::PgnFaultKind;

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

/// Outcome of reading one tag pair.
pub(super) struct TagRead {
    pub(super) tag: Option<(Vec<u8>, Vec<u8>)>,
    pub(super) fault: Option<(PgnFaultKind, String)>,
}

/// A tag name for messages: lossy UTF-8, cut after 40 characters.
pub(super) fn shown(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    if text.chars().count() <= 40 {
        text.into_owned()
    } else {
        text.chars().take(40).chain("...".chars()).collect()
    }
}

/// Incremental UTF-8 validity check over a game's bytes.
#[derive(Clone, Copy)]
pub(super) struct Utf8Check {
    pub(super) valid: bool,
    pub(super) seq: [u8; 4],
    pub(super) len: usize,
    pub(super) need: usize,
}

impl Utf8Check {
    pub(super) fn new() -> Self {
        Utf8Check {
            valid: true,
            seq: [0; 4],
            len: 0,
            need: 0,
        }
    }

    pub(super) fn feed(&mut self, b: u8) {
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
    pub(super) fn is_complete(&self) -> bool {
        self.valid && self.need == 0
    }
}

/// Byte source with line-ending normalisation, column tracking and UTF-8 checking.
pub(super) struct Source<R> {
    pub(super) inner: R,
    /// Bytes given back (only a partial byte order mark at the start); next byte last.
    pub(super) pushback: Vec<u8>,
    /// The last byte consumed was a line break (or nothing was consumed yet).
    pub(super) at_line_start: bool,
    /// Validity of the current game's bytes.
    pub(super) utf8: Utf8Check,
    /// When the text is kept: every byte consumed since the game began, as read (CRLF
    /// kept).
    pub(super) raw: Option<Vec<u8>>,
}

impl<R: BufRead> Source<R> {
    pub(super) fn peek_raw(&mut self) -> io::Result<Option<u8>> {
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
    pub(super) fn consume_raw(&mut self) {
        if self.pushback.pop().is_none() {
            self.inner.consume(1);
        }
    }

    /// The next byte, CR reported as LF; not consumed.
    pub(super) fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.peek_raw()?.map(|b| if b == b'\r' { b'\n' } else { b }))
    }

    /// Consumes and returns the next byte; CRLF and CR are returned as one LF.
    pub(super) fn bump(&mut self) -> io::Result<Option<u8>> {
        let Some(mut b) = self.peek_raw()? else {
            return Ok(None);
        };
        self.consume_raw();
        self.utf8.feed(b);
        if let Some(raw) = &mut self.raw {
            raw.push(b);
        }
        if b == b'\r' {
            if self.peek_raw()? == Some(b'\n') {
                self.consume_raw();
                self.utf8.feed(b'\n');
                if let Some(raw) = &mut self.raw {
                    raw.push(b'\n');
                }
            }
            b = b'\n';
        }
        self.at_line_start = b == b'\n';
        Ok(Some(b))
    }

    /// Consumes the bytes before the first one that is not ASCII, is a carriage return or
    /// `stop`s, straight from the buffer, appending them to `out` (if given): for those
    /// bytes, what [`Source::bump`] does one at a time. Consumes nothing while bytes given
    /// back or a begun UTF-8 sequence wait for `bump`.
    ///
    /// Errors: the reader's.
    pub(super) fn take_ascii(
        &mut self,
        mut out: Option<&mut Vec<u8>>,
        stop: impl Fn(u8) -> bool,
    ) -> io::Result<()> {
        if !self.pushback.is_empty() || self.utf8.need != 0 {
            return Ok(());
        }
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let n = buf
                .iter()
                .position(|&b| !b.is_ascii() || b == b'\r' || stop(b))
                .unwrap_or(buf.len());
            let Some(&last) = n.checked_sub(1).and_then(|i| buf.get(i)) else {
                return Ok(());
            };
            let (run, whole) = (&buf[..n], n == buf.len());
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(run);
            }
            if let Some(raw) = &mut self.raw {
                raw.extend_from_slice(run);
            }
            self.at_line_start = last == b'\n';
            self.inner.consume(n);
            if !whole {
                return Ok(());
            }
        }
    }

    /// Bytes kept of the current game so far (0 when the text is not kept).
    pub(super) fn raw_len(&self) -> usize {
        self.raw.as_ref().map_or(0, Vec::len)
    }

    pub(super) fn skip_bom(&mut self) -> io::Result<()> {
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
    pub(super) fn skip_line(&mut self) -> io::Result<()> {
        while self.peek()?.is_some_and(|b| b != b'\n') {
            self.bump()?;
        }
        Ok(())
    }

    /// Skips a comment whose `{` was consumed, keeping its bytes in `keep` if given;
    /// `false` if the input ends first.
    pub(super) fn skip_comment(&mut self, mut keep: Option<&mut Vec<u8>>) -> io::Result<bool> {
        loop {
            self.take_ascii(keep.as_deref_mut(), |b| b == b'}')?;
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

    pub(super) fn skip_inline_space(&mut self) -> io::Result<()> {
        while self.peek()?.is_some_and(is_inline_space) {
            self.bump()?;
        }
        Ok(())
    }

    /// Reads a movetext token (at least one byte; the caller checked the first).
    pub(super) fn read_token(&mut self) -> io::Result<Vec<u8>> {
        let mut token = Vec::new();
        if let Some(b) = self.bump()? {
            token.push(b);
        }
        self.take_ascii(Some(&mut token), ends_token)?;
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
    pub(super) fn read_tag(&mut self) -> io::Result<TagRead> {
        let truncated = |tag| TagRead {
            tag,
            fault: Some((
                PgnFaultKind::TruncatedTag,
                "end of input inside a tag pair".to_owned(),
            )),
        };
        self.skip_inline_space()?;
        let mut name = Vec::new();
        let ends_name = |b| b == b'\n' || b == b'"' || b == b'[' || b == b']' || is_inline_space(b);
        self.take_ascii(Some(&mut name), ends_name)?;
        while let Some(b) = self.peek()? {
            if ends_name(b) {
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
            self.take_ascii(Some(&mut value), |b| matches!(b, b'"' | b'\n' | b'\\'))?;
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
    pub(super) fn skip_bad_tag(&mut self) -> io::Result<()> {
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
