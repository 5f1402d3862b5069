//! Polyglot opening books ([`book_bytes`]): a book is a file of 16-byte entries, one per
//! (position, move), that chess programs and GUIs read to play an opening (python-chess
//! `chess.polyglot.open_reader`, Polyglot itself, Stockfish's GUIs). The position is its
//! Polyglot key ([`crate::chess::polyglot::polyglot_key`]), the move a 16-bit code
//! ([`encode_move`]), the weight how often the move should be chosen.
//!
//! Source: the Polyglot book format (Michel Van den Bergh, "PolyGlot opening book format",
//! <http://hgm.nubati.net/book_format.html>): entries big-endian `key: u64, move: u16,
//! weight: u16, learn: u32`, sorted by key (a reader finds a position by binary search) and,
//! by convention, by weight descending within a key.

/// Bytes of one book entry.
pub const ENTRY_BYTES: usize = 16;

/// The largest weight an entry holds (a `u16`).
pub const MAX_WEIGHT: u16 = u16::MAX;

/// One entry of a Polyglot book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookEntry {
    /// The Polyglot key of the position the move is played from.
    pub key: u64,
    /// The move, [`encode_move`]'s code.
    pub mv: u16,
    /// The move's weight: readers choose among a position's moves in proportion to it.
    pub weight: u16,
    /// Polyglot's learning field; the books written here hold 0.
    pub learn: u32,
}

impl BookEntry {
    /// The entry's 16 bytes as the book stores them: key, move, weight and learn, each
    /// big-endian.
    #[must_use]
    pub fn to_bytes(self) -> [u8; ENTRY_BYTES] {
        let mut out = [0u8; ENTRY_BYTES];
        out[0..8].copy_from_slice(&self.key.to_be_bytes());
        out[8..10].copy_from_slice(&self.mv.to_be_bytes());
        out[10..12].copy_from_slice(&self.weight.to_be_bytes());
        out[12..16].copy_from_slice(&self.learn.to_be_bytes());
        out
    }
}

/// A move that has no Polyglot code ([`encode_move`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{uci:?} is not a UCI move (from and to squares a1…h8, then n, b, r or q)")]
pub struct BookMoveError {
    /// The move as given.
    pub uci: String,
}

/// The Polyglot code of a move given in UCI (`e2e4`, `e7e8q`): bits 0–2 the to-file, 3–5
/// the to-rank, 6–8 the from-file, 9–11 the from-rank (a = 0, rank 1 = 0), 12–14 the
/// promotion piece (none 0, knight 1, bishop 2, rook 3, queen 4).
///
/// `castling`: the move is castling (its SAN is `O-O` or `O-O-O`). Polyglot writes castling
/// as the king taking its own rook: a castling move written as the king's two-square move
/// from e1 or e8, as UCI writes it (`e1g1`, `e1c1`, `e8g8`, `e8c8`), becomes `e1h1`, `e1a1`,
/// `e8h8`, `e8a8`; any other castling move is taken to be written that way already.
///
/// Errors: [`BookMoveError`] for text that is not a UCI move (a null move `0000` included).
pub fn encode_move(uci: &str, castling: bool) -> Result<u16, BookMoveError> {
    let err = || BookMoveError {
        uci: uci.to_string(),
    };
    let b = uci.as_bytes();
    if !(b.len() == 4 || b.len() == 5) {
        return Err(err());
    }
    let file = |c: u8| (b'a'..=b'h').contains(&c).then(|| u16::from(c - b'a'));
    let rank = |c: u8| (b'1'..=b'8').contains(&c).then(|| u16::from(c - b'1'));
    let (Some(from_file), Some(from_rank), Some(mut to_file), Some(to_rank)) =
        (file(b[0]), rank(b[1]), file(b[2]), rank(b[3]))
    else {
        return Err(err());
    };
    let promotion = match b.get(4) {
        None => 0,
        Some(b'n') => 1,
        Some(b'b') => 2,
        Some(b'r') => 3,
        Some(b'q') => 4,
        Some(_) => return Err(err()),
    };
    let back_rank = from_rank == 0 || from_rank == 7;
    if castling && from_file == 4 && back_rank && to_rank == from_rank {
        to_file = match to_file {
            6 => 7, // g → h
            2 => 0, // c → a
            other => other,
        };
    }
    Ok(to_file | to_rank << 3 | from_file << 6 | from_rank << 9 | promotion << 12)
}

/// A position's weights brought within a `u16`: as given when the largest is at most
/// [`MAX_WEIGHT`], else each scaled by `MAX_WEIGHT / largest` (rounded down, and at least 1
/// for a weight above 0, so that no move of the position drops out), which keeps their
/// order and, within rounding, their proportions.
#[must_use]
pub fn scale_weights(weights: &[u64]) -> Vec<u16> {
    let largest = weights.iter().copied().max().unwrap_or(0);
    weights
        .iter()
        .map(|&w| match u16::try_from(w) {
            Ok(w) if largest <= u64::from(MAX_WEIGHT) => w,
            _ if w == 0 => 0,
            _ => {
                let scaled = u128::from(w) * u128::from(MAX_WEIGHT) / u128::from(largest);
                u16::try_from(scaled).unwrap_or(MAX_WEIGHT).max(1)
            }
        })
        .collect()
}

/// The bytes of a book of `entries`: sorted by key, then by weight descending (then by
/// move, so that the same entries always give the same file), [`ENTRY_BYTES`] each.
#[must_use]
pub fn book_bytes(mut entries: Vec<BookEntry>) -> Vec<u8> {
    entries.sort_by(|a, b| {
        a.key
            .cmp(&b.key)
            .then(b.weight.cmp(&a.weight))
            .then(a.mv.cmp(&b.mv))
    });
    entries.iter().flat_map(|e| e.to_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_coded_by_squares_and_promotion() {
        // e2e4: to e4 (file 4, rank 3), from e2 (file 4, rank 1)
        assert_eq!(encode_move("e2e4", false), Ok(4 | 3 << 3 | 4 << 6 | 1 << 9));
        assert_eq!(encode_move("a1h8", false), Ok(7 | 7 << 3));
        assert_eq!(
            encode_move("e7e8q", false),
            Ok(4 | 7 << 3 | 4 << 6 | 6 << 9 | 4 << 12)
        );
        assert_eq!(encode_move("b2a1n", false), Ok(1 << 6 | 1 << 9 | 1 << 12));
    }

    #[test]
    fn castling_written_as_the_king_taking_its_rook() {
        for (uci, as_written) in [
            ("e1g1", "e1h1"),
            ("e1c1", "e1a1"),
            ("e8g8", "e8h8"),
            ("e8c8", "e8a8"),
        ] {
            assert_eq!(
                encode_move(uci, true),
                encode_move(as_written, false),
                "{uci}"
            );
        }
        // a rook's e1g1 is not castling; castling already written king takes rook stays
        assert_ne!(encode_move("e1g1", false), encode_move("e1h1", false));
        assert_eq!(encode_move("e1h1", true), encode_move("e1h1", false));
    }

    #[test]
    fn text_that_is_not_a_uci_move_refused() {
        for bad in ["0000", "e2e9", "e2e4k", "e2", "i2i4", "e2e4qq"] {
            assert_eq!(
                encode_move(bad, false),
                Err(BookMoveError {
                    uci: bad.to_string()
                }),
                "{bad}"
            );
        }
    }

    #[test]
    fn weights_over_a_u16_scaled_down_in_proportion() {
        assert_eq!(scale_weights(&[3, 65535, 0]), vec![3, 65535, 0]);
        assert_eq!(scale_weights(&[131_070, 65535, 1]), vec![65535, 32767, 1]);
        assert_eq!(scale_weights(&[]), Vec::<u16>::new());
    }

    #[test]
    fn entries_sorted_by_key_then_weight_descending() {
        let e = |key, mv, weight| BookEntry {
            key,
            mv,
            weight,
            learn: 0,
        };
        let bytes = book_bytes(vec![e(2, 1, 5), e(1, 7, 1), e(1, 8, 9), e(u64::MAX, 3, 2)]);
        assert_eq!(bytes.len(), 4 * ENTRY_BYTES);
        let entry = |i: usize| &bytes[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES];
        assert_eq!(entry(0), e(1, 8, 9).to_bytes());
        assert_eq!(entry(1), e(1, 7, 1).to_bytes());
        assert_eq!(entry(2), e(2, 1, 5).to_bytes());
        assert_eq!(entry(3), e(u64::MAX, 3, 2).to_bytes());
        assert_eq!(
            e(0x0102_0304_0506_0708, 0x090a, 0x0b0c).to_bytes(),
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0, 0]
        );
    }
}
