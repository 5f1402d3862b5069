//! Stage outputs read into per-game values.

use std::collections::{BTreeMap, HashMap};

use datafusion::arrow::array::{
    Array, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array,
};

use crate::chess::outcome::Key;
use crate::engine::replay::repetition_keys;
use crate::error::Result;
use crate::stages::tables::column;

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
pub(super) fn read_verdicts(batches: &[RecordBatch]) -> Result<BTreeMap<u64, (i64, bool)>> {
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

/// Per chosen move: whether it is zeroing (pawn move or capture, FIDE art. 9.3) and whether
/// it is an en passant capture (art. 3.7.4.1).
pub(super) fn move_flags(batches: &[RecordBatch]) -> Result<HashMap<u64, (bool, bool)>> {
    let mut out = HashMap::new();
    for b in batches {
        let id: &UInt64Array = column(b, "position_id")?;
        let piece: &StringArray = column(b, "piece")?;
        let captured: &StringArray = column(b, "captured")?;
        let en_passant: &BooleanArray = column(b, "is_en_passant")?;
        for i in 0..b.num_rows() {
            let zeroing = (!piece.is_null(i) && piece.value(i) == "P") || !captured.is_null(i);
            out.insert(id.value(i), (zeroing, en_passant.value(i)));
        }
    }
    Ok(out)
}
