//! Functions of a position and its moves: `fen_after`, `is_legal` (stages of
//! [`Engine::play_tokens`]), `legal_moves_list` ([`Engine::legal_moves`]).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, RecordBatch, StringArray, StructArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::compute::{cast, concat_batches, take};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema};

use super::{check_fens, distinct, good_positions, list_column, statuses_of};
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::validate::fen_of;

/// The fields of a legal move: the columns of [`Engine::legal_moves`] without
/// `position_id`: `move_code: Int32` (`from + 64 * to + 4096 * promotion index`),
/// `color: Utf8` (`w`/`b`), `piece: Utf8` (uppercase letter), `from_sq`, `to_sq: Int32`
/// (0..63, a1 = 0), `promotion: Utf8` (uppercase letter or NULL), `captured: Utf8`
/// (uppercase letter or NULL), `is_capture`, `is_en_passant`, `is_castling: Boolean`,
/// `cap_sq`, `rook_from`, `rook_to: Int32` (NULL when not a capture / castling),
/// `from_name`, `to_name: Utf8` (`e2`), `uci`, `san: Utf8` (with `+` / `#`), `is_check`,
/// `is_mate: Boolean`.
#[must_use]
pub(crate) fn legal_move_fields() -> Fields {
    use DataType::{Boolean, Int32, Utf8};
    [
        ("move_code", Int32),
        ("color", Utf8),
        ("piece", Utf8),
        ("from_sq", Int32),
        ("to_sq", Int32),
        ("promotion", Utf8),
        ("captured", Utf8),
        ("is_capture", Boolean),
        ("is_en_passant", Boolean),
        ("is_castling", Boolean),
        ("cap_sq", Int32),
        ("rook_from", Int32),
        ("rook_to", Int32),
        ("from_name", Utf8),
        ("to_name", Utf8),
        ("uci", Utf8),
        ("san", Utf8),
        ("is_check", Boolean),
        ("is_mate", Boolean),
    ]
    .into_iter()
    .map(|(n, t)| Field::new(n, t, true))
    .collect()
}

/// The type of `legal_moves_list(fen)`: List<Struct<[`legal_move_fields`]>>.
pub(super) fn legal_moves_list_type() -> DataType {
    DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(legal_move_fields()),
        true,
    )))
}

/// The legal moves of `setups` ([`Engine::legal_moves`]) as one struct array of
/// [`legal_move_fields`] ordered by position, then UCI, and the position id (index in
/// `setups`) of each.
pub(crate) async fn legal_moves_of(
    engine: &Engine,
    setups: &[Setup],
) -> Result<(StructArray, Vec<u64>)> {
    let fields = legal_move_fields();
    let empty = || {
        StructArray::from(RecordBatch::new_empty(Arc::new(Schema::new(
            fields.clone(),
        ))))
    };
    if setups.is_empty() {
        return Ok((empty(), vec![]));
    }
    let batches = engine.legal_moves(setups).await?;
    let Some(schema) = batches.first().map(|b| b.schema()) else {
        return Ok((empty(), vec![]));
    };
    let all = concat_batches(&schema, &batches)?;
    let column = |name: &str| -> Result<&ArrayRef> {
        all.column_by_name(name)
            .ok_or_else(|| Error::Schema(format!("stage san has no column {name}")))
    };
    let ids = column("position_id")?
        .as_any()
        .downcast_ref::<UInt64Array>()
        .ok_or_else(|| Error::Schema("stage san: position_id is not UInt64".into()))?
        .clone();
    let uci = cast(column("uci")?, &DataType::Utf8)?;
    let uci = uci
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| Error::Schema("stage san: uci".into()))?;
    let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
    order.sort_by(|&a, &b| {
        (ids.value(a as usize), uci.value(a as usize))
            .cmp(&(ids.value(b as usize), uci.value(b as usize)))
    });
    let order = UInt32Array::from(order);
    let columns = fields
        .iter()
        .map(|f| {
            Ok(take(
                &cast(column(f.name())?, f.data_type())?,
                &order,
                None,
            )?)
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let sorted_ids = order
        .values()
        .iter()
        .map(|&i| ids.value(i as usize))
        .collect();
    Ok((StructArray::try_new(fields, columns, None)?, sorted_ids))
}

/// `legal_moves_list(fen)`: per row the list of its position's legal moves.
pub(super) async fn legal_moves_lists(engine: &Engine, fens: &StringArray) -> Result<ArrayRef> {
    let (rows, unique) = distinct(fens);
    let checked = check_fens(engine, &unique).await?;
    // rank among the good positions, per distinct FEN
    let (rank, good) = good_positions(checked.iter().map(|r| r.as_ref().ok().copied()));
    let (moves, ids) = legal_moves_of(engine, &good).await?;
    // the moves of each good position: a range of `moves`
    let mut ranges = vec![(0usize, 0usize); good.len()];
    for (row, id) in ids.iter().enumerate() {
        let r = &mut ranges[*id as usize];
        if r.1 == 0 {
            r.0 = row;
        }
        r.1 = row + 1;
    }
    list_column(
        &moves,
        DataType::Struct(legal_move_fields()),
        rows.iter().map(|r| {
            r.and_then(|i| rank[i]).map(|p| {
                let (from, to) = ranges[p];
                from as u32..to as u32
            })
        }),
    )
}

/// The distinct (FEN, move) pairs of two columns: per row the pair's index (`None` when
/// either is NULL) and the pairs.
fn distinct_pairs<'a>(
    fens: &'a StringArray,
    moves: &'a StringArray,
) -> (Vec<Option<usize>>, Vec<(&'a str, &'a str)>) {
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    let mut unique = vec![];
    let rows = fens
        .iter()
        .zip(moves.iter())
        .map(|pair| match pair {
            (Some(f), Some(m)) => Some(*index.entry((f, m)).or_insert_with(|| {
                unique.push((f, m));
                unique.len() - 1
            })),
            _ => None,
        })
        .collect();
    (rows, unique)
}

/// What playing each distinct (FEN, move) pair of two columns gives: per row the pair's
/// index (`None` when either is NULL), and per pair `None` for a bad FEN, else the position
/// after the move, or `Err(())` when the move is not exactly one legal move (a null move
/// included).
#[allow(clippy::type_complexity)]
async fn play(
    engine: &Engine,
    fens: &StringArray,
    moves: &StringArray,
) -> Result<(
    Vec<Option<usize>>,
    Vec<Option<std::result::Result<Setup, ()>>>,
)> {
    let (rows, pairs) = distinct_pairs(fens, moves);
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut fens: Vec<&str> = vec![];
    let fen_of_pair: Vec<usize> = pairs
        .iter()
        .map(|(f, _)| {
            *index.entry(f).or_insert_with(|| {
                fens.push(f);
                fens.len() - 1
            })
        })
        .collect();
    let checked = check_fens(engine, &fens).await?;
    let mut out: Vec<Option<std::result::Result<Setup, ()>>> = fen_of_pair
        .iter()
        .map(|&f| checked[f].as_ref().ok().map(|_| Err(())))
        .collect();
    let (ids, setups, tokens): (Vec<usize>, Vec<Setup>, Vec<&str>) = {
        let mut ids = vec![];
        let mut setups = vec![];
        let mut tokens = vec![];
        for (i, (f, (_, m))) in fen_of_pair.iter().zip(&pairs).enumerate() {
            if let Ok(s) = &checked[*f]
                && !matches!(parse_san(m), Ok((SanToken::Null, _)))
            {
                ids.push(i);
                setups.push(*s);
                tokens.push(*m);
            }
        }
        (ids, setups, tokens)
    };
    if !setups.is_empty() {
        for (i, r) in ids
            .into_iter()
            .zip(engine.play_tokens(&setups, &tokens).await?)
        {
            if let Ok(s) = r {
                out[i] = Some(Ok(s));
            }
        }
    }
    Ok((rows, out))
}

/// `fen_after(fen, move)`: the FEN after the move (python-chess style: the en passant square
/// only when an en passant capture is legal, from stage `position_status`).
pub(super) async fn fen_after(
    engine: &Engine,
    fens: &StringArray,
    moves: &StringArray,
) -> Result<ArrayRef> {
    let (rows, played) = play(engine, fens, moves).await?;
    let (ids, after): (Vec<usize>, Vec<Setup>) = played
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r {
            Some(Ok(s)) => Some((i, *s)),
            _ => None,
        })
        .unzip();
    let status = statuses_of(engine, &after).await?;
    let mut text: Vec<Option<String>> = vec![None; played.len()];
    for (rank, (i, s)) in ids.iter().zip(&after).enumerate() {
        text[*i] = status.get(&(rank as u64)).map(|st| fen_of(s, st));
    }
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| text[i].as_deref()))
            .collect::<StringArray>(),
    ))
}

/// `is_legal(fen, move)`: whether the move is exactly one legal move; NULL for a bad FEN.
pub(super) async fn is_legal(
    engine: &Engine,
    fens: &StringArray,
    moves: &StringArray,
) -> Result<ArrayRef> {
    let (rows, played) = play(engine, fens, moves).await?;
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| played[i].as_ref().map(|p| p.is_ok())))
            .collect::<BooleanArray>(),
    ))
}
