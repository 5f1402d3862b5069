//! Stage outputs read back into Rust values, one reader per stage whose rows a caller needs
//! by game or position id: `position_status` ([`read_status`]), `token_verdicts`
//! ([`token_verdicts`]), the chosen moves' flags ([`move_flags`]), `replay_verdicts`
//! ([`replay_verdicts`]), `replay_plies` ([`ReplayPly`]) and the repetition key of any
//! batch with the columns of stage `position_keys` ([`repetition_keys`]).

use std::collections::{BTreeMap, HashMap};

use datafusion::arrow::array::{
    Array, BooleanArray, Int32Array, Int64Array, RecordBatch, UInt64Array,
};
use datafusion::arrow::datatypes::{Int32Type, UInt64Type};

use crate::chess::color::Color;
use crate::chess::outcome::Key;
use crate::error::Result;
use crate::session::read::{self, Row};
use crate::stages::tables::{self, column};

/// What the stage `position_status` says of one position.
#[derive(Clone)]
pub(crate) struct PositionStatus {
    /// Legal moves of the side to move.
    pub n_legal: i64,
    /// The side to move is in check.
    pub in_check: bool,
    /// The en passant square when an en passant capture is legal.
    pub ep_legal_sq: Option<u8>,
    /// Neither side has mating material.
    pub insufficient: bool,
    /// The repetition key of the position.
    pub key: Key,
}

/// Per position id: what `position_status` says of it (legal move count, check, legal en
/// passant square, insufficient material, repetition key).
pub(crate) fn read_status(batches: &[RecordBatch]) -> Result<HashMap<u64, PositionStatus>> {
    let mut out = HashMap::new();
    for b in batches {
        let id: &UInt64Array = column(b, "position_id")?;
        let n: &Int64Array = column(b, "n_legal")?;
        let check: &BooleanArray = column(b, "in_check")?;
        let wi: &BooleanArray = column(b, "white_insufficient")?;
        let bi: &BooleanArray = column(b, "black_insufficient")?;
        let key = repetition_keys(b)?;
        let ep_legal: &BooleanArray = column(b, "ep_legal")?;
        let ep: &Int32Array = column(b, "ep_key")?;
        for i in 0..b.num_rows() {
            let ep_key = if ep.is_null(i) { -1 } else { ep.value(i) };
            out.insert(
                id.value(i),
                PositionStatus {
                    n_legal: n.value(i),
                    in_check: check.value(i),
                    ep_legal_sq: (ep_key >= 0).then_some(ep_key as u8),
                    insufficient: wi.value(i) && bi.value(i),
                    key: key(i, ep_legal.value(i)),
                },
            );
        }
    }
    Ok(out)
}

/// Per game id: `token_verdicts`' number of legal moves matching the token and whether the
/// side to move has a piece of the token's kind where it says.
pub(crate) fn token_verdicts(batches: &[RecordBatch]) -> Result<BTreeMap<u64, (i64, bool)>> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id: &UInt64Array = column(b, "position_id")?;
        let n: &Int64Array = column(b, "n_matches")?;
        let has: &BooleanArray = column(b, "has_piece")?;
        for i in 0..b.num_rows() {
            out.insert(id.value(i), (n.value(i), has.value(i)));
        }
    }
    Ok(out)
}

crate::table_row! {
    /// A row of stage `replay_verdicts`: whether a game's token stands for exactly one legal
    /// move, and whether the position has a legal en passant capture.
    struct ReplayVerdict {
        pub position_id: u64,
        pub accepted: Option<bool>,
        pub ep_legal: Option<bool>,
    }
}

crate::table_row! {
    /// A row of stage `replay_plies`: the notation and flags of an accepted move.
    pub(crate) struct ReplayPly {
        pub position_id: u64,
        pub ply_uci: String,
        pub ply_san: String,
        pub ply_capture: bool,
        pub ply_castling: bool,
        pub ply_en_passant: bool,
        pub ply_promotion: Option<String>,
        pub gives_check: bool,
    }
}

/// Per game whose move was accepted, in row order: its position_id and whether its position
/// has a legal en passant capture.
///
/// Errors: [`crate::Error::Session`] when a column is missing.
pub(crate) fn replay_verdicts(batches: &[RecordBatch]) -> Result<Vec<(u64, bool)>> {
    Ok(ReplayVerdict::read_rows(batches)?
        .into_iter()
        .filter(|v| v.accepted == Some(true))
        .map(|v| (v.position_id, v.ep_legal == Some(true)))
        .collect())
}

/// What the position after a move says of the move ([`after_moves`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AfterMove {
    /// The move reset the halfmove clock (a pawn move or a capture, FIDE art. 9.3).
    pub zeroing: bool,
    /// The square a pawn's double step passed over (FIDE art. 3.7.4): the en passant square
    /// of the position after the move, whether or not a capture there is legal; `None` after
    /// any other move.
    pub double_step_square: Option<u8>,
}

/// Per position of a batch with the columns `position_id`, `halfmove_clock` and `ep_square`
/// (a position after a move: `next_positions`, `replay_next`), in row order: its position_id
/// and what it says of the move that led there ([`AfterMove`], decided by rule `after_move`
/// of plans/rules/).
///
/// Errors: [`crate::Error::Session`] when a column is missing.
pub(crate) fn after_moves(batches: &[RecordBatch]) -> Result<Vec<(u64, AfterMove)>> {
    let mut out = Vec::with_capacity(batches.iter().map(RecordBatch::num_rows).sum());
    for b in batches {
        let id = read::primitive::<UInt64Type>(b, "position_id")?;
        let clock = read::primitive::<Int32Type>(b, "halfmove_clock")?;
        let ep = read::primitive::<Int32Type>(b, "ep_square")?;
        for i in 0..b.num_rows() {
            let after = AfterMove {
                zeroing: clock.is_valid(i) && clock.value(i) == 0,
                double_step_square: if ep.is_valid(i) {
                    u8::try_from(ep.value(i)).ok()
                } else {
                    None
                },
            };
            out.push((id.value(i), after));
        }
    }
    Ok(out)
}

/// The repetition keys of the rows of a batch holding the columns of stage `position_keys`
/// (`replay_states` rows, `position_status` rows): the one place where a key is read. The
/// returned function gives row `i`'s key, given whether an en passant capture is legal there
/// (only then does the en passant square count, FIDE art. 9.2.3).
///
/// Errors: [`crate::Error::Session`] when a column is missing.
pub(crate) fn repetition_keys(b: &RecordBatch) -> Result<impl Fn(usize, bool) -> Key + '_> {
    let sets = tables::SET_COLUMNS
        .iter()
        .map(|n| read::primitive::<UInt64Type>(b, n))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let white_to_move = read::booleans(b, "white_to_move")?;
    let rights = tables::castling_column(b)?;
    let ep = read::primitive::<Int32Type>(b, "ep_square")?;
    Ok(move |i: usize, ep_legal: bool| Key {
        sets: std::array::from_fn(|k| sets[k].value(i)),
        side_to_move: Color::of_white(white_to_move.value(i)),
        castling: rights.value(i),
        ep_square: if ep_legal && ep.is_valid(i) {
            ep.value(i)
        } else {
            -1
        },
    })
}
