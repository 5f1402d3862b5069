//! Squares: their numbering and algebraic names (PGN standard §8.2.1).
//!
//! Squares are numbered 0..=63 with a1 = 0, b1 = 1, …, h1 = 7, a2 = 8, …, h8 = 63
//! (`square = rank * 8 + file`, both 0-based).

/// The algebraic name of a square (`0` → `"a1"`, `28` → `"e4"`, `63` → `"h8"`;
/// PGN standard §8.2.1). Out-of-range numbers (64 and above) give `"??"`.
pub fn square_name(sq: u8) -> String {
    if sq >= 64 {
        return String::from("??");
    }
    let mut s = String::with_capacity(2);
    s.push(char::from(b'a' + sq % 8));
    s.push(char::from(b'1' + sq / 8));
    s
}

/// Parses a lower-case algebraic square name (`"e4"` → `Some(28)`); `None` for anything else
/// (upper-case files, `"-"`, extra characters, out-of-board names).
pub fn parse_square(s: &str) -> Option<u8> {
    match s.as_bytes() {
        &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some((r - b'1') * 8 + (f - b'a')),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(28), "e4");
        assert_eq!(square_name(63), "h8");
        assert_eq!(square_name(64), "??");
        for sq in 0..64u8 {
            assert_eq!(parse_square(&square_name(sq)), Some(sq));
        }
        for s in ["", "-", "e", "E4", "e9", "e0", "i1", "e44", "é4"] {
            assert_eq!(parse_square(s), None, "{s}");
        }
    }
}
