//! One game read from a string: the value of a table's movetext column, as lichess's
//! Parquet exports hold it (`1. e4 {[%clk 0:03:00]} e5 2. Nf3 … 1-0`: comments, NAGs,
//! variations and a result marker at the end, no tag section).

use super::fault::{PgnFault, PgnFaultKind};
use super::reader::{Encoding, PgnReader, RawGame};

/// The game of one movetext value, read by [`PgnReader`] (with the comments and NAGs after
/// each move when `notes`), index 0:
///
/// - text with no game in it (empty, only whitespace or comments) is a game with no tags and
///   no moves;
/// - a tag section in the text is read as the game's tags (a whole PGN game is one value
///   too);
/// - text after the end of the first game (after its result marker, or a `[` after its
///   moves: what a PGN file reads as a second game) is the first game's fault, kind
///   [`PgnFaultKind::TextAfterGame`] (unless it has an earlier one), after its last move;
///   the second game is not read further.
///
/// Never fails: reading a string has no I/O error, and faults of the text are the game's.
#[must_use]
pub fn read_movetext(text: &str, notes: bool) -> RawGame {
    let bytes = text.as_bytes();
    let mut reader = if notes {
        PgnReader::with_notes(bytes)
    } else {
        PgnReader::new(bytes)
    };
    let Some(Ok(mut game)) = reader.next() else {
        return RawGame {
            index: 0,
            tags: vec![],
            moves: vec![],
            result: None,
            fault: None,
            encoding: Encoding::Utf8,
            notes: vec![],
            text: None,
        };
    };
    if let Some(Ok(next)) = reader.next()
        && game.fault.is_none()
    {
        let what = match (next.tags.first(), next.moves.first(), &next.result) {
            (Some((name, _)), _, _) => format!("tag pair [{name} …]"),
            (None, Some(token), _) => {
                let head: String = token.chars().take(40).collect();
                format!("move {head:?}")
            }
            (None, None, Some(result)) => format!("result marker {result}"),
            (None, None, None) => "text".to_string(),
        };
        game.fault = Some(PgnFault {
            kind: PgnFaultKind::TextAfterGame,
            ply: u32::try_from(game.moves.len()).unwrap_or(u32::MAX),
            message: format!("{what} after the end of the game"),
        });
    }
    game
}
