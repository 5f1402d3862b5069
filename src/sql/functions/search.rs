//! Position searches over the board as square sets (`replay_states`): `matches_subfen`
//! (stage `subfen_matches`), `imbalance` (`material_counts`, `imbalances`) and
//! `material_matches` (`material_counts`, `material_matches`). Patterns are parsed once per
//! distinct text and function ([`Patterns`]), not once per row.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, ListArray, RecordBatch, StringArray, UInt64Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;

use super::distinct;
use crate::chess::color::Color;
use crate::chess::material_pattern::MaterialPattern;
use crate::chess::setup::Setup;
use crate::chess::subfen::SubfenPattern;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::stages::{InputTable, Stage, tables};

/// Parsed patterns by text, kept for the function's life (a session): each distinct pattern
/// is parsed once, however many rows and batches use it. Bounded: cleared past 4,096 texts.
#[derive(Debug, Default)]
pub(super) struct Patterns {
    subfen: Mutex<HashMap<String, std::result::Result<SubfenPattern, String>>>,
    material: Mutex<HashMap<String, std::result::Result<MaterialPattern, String>>>,
}

/// `text` parsed by `parse`, from `cache` when seen before.
fn cached<T: Clone>(
    cache: &Mutex<HashMap<String, std::result::Result<T, String>>>,
    text: &str,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<T, String> {
    if let Some(v) = cache.lock().ok().and_then(|m| m.get(text).cloned()) {
        return v;
    }
    let v = parse(text);
    if let Ok(mut m) = cache.lock() {
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(text.to_string(), v.clone());
    }
    v
}

impl Patterns {
    /// A `matches_subfen` pattern. Errors: the parser's message.
    pub(super) fn subfen(&self, text: &str) -> std::result::Result<SubfenPattern, String> {
        cached(&self.subfen, text, |t| {
            SubfenPattern::parse(t).map_err(|e| e.to_string())
        })
    }

    /// A `material_matches` pattern. Errors: the parser's message.
    pub(super) fn material(&self, text: &str) -> std::result::Result<MaterialPattern, String> {
        cached(&self.material, text, |t| {
            crate::chess::material_pattern::parse(t).map_err(|e| e.to_string())
        })
    }
}

/// The side-to-move argument of `matches_subfen`: `'w'`, `'b'` (any case, surrounding spaces
/// ignored); `None` for anything else.
pub(super) fn side_argument(text: &str) -> Option<Color> {
    match text.trim() {
        "w" | "W" => Some(Color::White),
        "b" | "B" => Some(Color::Black),
        _ => None,
    }
}

/// The pattern texts of row `i` of a `matches_subfen` / `material_matches` pattern argument:
/// one string, or a list of them (any matches); `None` when the row (or a list item) is NULL.
fn pattern_texts(patterns: &ArrayRef, i: usize) -> Option<Vec<String>> {
    if patterns.is_null(i) {
        return None;
    }
    if let Some(list) = patterns.as_any().downcast_ref::<ListArray>() {
        let items = cast(&list.value(i), &DataType::Utf8).ok()?;
        let items = items.as_any().downcast_ref::<StringArray>()?;
        return items.iter().map(|t| t.map(str::to_string)).collect();
    }
    let texts = cast(patterns, &DataType::Utf8).ok()?;
    let texts = texts.as_any().downcast_ref::<StringArray>()?;
    Some(vec![texts.value(i).to_string()])
}

/// The rows' positions where the FEN keeps the FEN rules, keyed by row.
fn row_setups(fens: &StringArray) -> Vec<Option<Setup>> {
    fens.iter()
        .map(|f| f.and_then(|f| Setup::from_fen_auto(f).ok()))
        .collect()
}

/// The position ids a stage's `matched_id` column lists.
fn matched(batches: &[RecordBatch]) -> Result<HashSet<u64>> {
    let mut out = HashSet::new();
    for b in batches {
        let ids = cast(
            b.column_by_name("matched_id")
                .ok_or_else(|| Error::Schema("no column matched_id".into()))?,
            &DataType::UInt64,
        )?;
        let ids = ids
            .as_any()
            .downcast_ref::<UInt64Array>()
            .ok_or_else(|| Error::Schema("matched_id".into()))?;
        out.extend(ids.iter().flatten());
    }
    Ok(out)
}

/// Loads the rows' positions into `replay_states` (position id = row).
async fn load_states(engine: &Engine, setups: &[(u64, &Setup)]) -> Result<()> {
    engine
        .pipeline()
        .set_table(
            InputTable::ReplayStates,
            vec![tables::setups_to_states(setups)?],
        )
        .await
}

/// Each row's verdict: NULL where `tested` is false, else whether the stage matched it.
fn verdicts(tested: &[bool], hits: &HashSet<u64>) -> ArrayRef {
    Arc::new(
        tested
            .iter()
            .enumerate()
            .map(|(i, t)| t.then(|| hits.contains(&(i as u64))))
            .collect::<BooleanArray>(),
    )
}

/// `matches_subfen(fen, pattern [, side])`: per row, whether the position matches any of its
/// patterns (stage `subfen_matches`); NULL for a NULL or bad FEN, a NULL or bad pattern (a
/// literal bad pattern is refused when the query is planned), a side other than `w`/`b`.
pub(super) async fn matches_subfen(
    engine: &Engine,
    cache: &Patterns,
    fens: &StringArray,
    patterns: &ArrayRef,
    sides: Option<&StringArray>,
) -> Result<ArrayRef> {
    let setups = row_setups(fens);
    let mut tested = vec![false; setups.len()];
    let mut states: Vec<(u64, &Setup)> = vec![];
    let mut rows: Vec<(u64, Option<Color>, SubfenPattern)> = vec![];
    for (i, setup) in setups.iter().enumerate() {
        let Some(setup) = setup else { continue };
        let side = match sides {
            None => None,
            Some(s) if s.is_null(i) => continue,
            Some(s) => match side_argument(s.value(i)) {
                Some(c) => Some(c),
                None => continue,
            },
        };
        let Some(texts) = pattern_texts(patterns, i) else {
            continue;
        };
        let Ok(parsed) = texts
            .iter()
            .map(|t| cache.subfen(t))
            .collect::<std::result::Result<Vec<_>, _>>()
        else {
            continue;
        };
        tested[i] = true;
        states.push((i as u64, setup));
        rows.extend(parsed.into_iter().map(|p| (i as u64, side, p)));
    }
    if states.is_empty() {
        return Ok(verdicts(&tested, &HashSet::new()));
    }
    load_states(engine, &states).await?;
    let table: Vec<(u64, Option<Color>, &SubfenPattern)> =
        rows.iter().map(|(id, side, p)| (*id, *side, p)).collect();
    let p = engine.pipeline();
    p.set_table(
        InputTable::SubfenPatterns,
        vec![tables::subfen_patterns_to_batch(&table)?],
    )
    .await?;
    Ok(verdicts(
        &tested,
        &matched(&p.run(Stage::SubfenMatches).await?)?,
    ))
}

/// `material_matches(fen, pattern)`: per row, whether the position's material matches its
/// pgn-extract material description (stage `material_matches`, after `material_counts`);
/// NULL for a NULL or bad FEN, a NULL or bad pattern (a literal bad pattern is refused when
/// the query is planned).
pub(super) async fn material_matches(
    engine: &Engine,
    cache: &Patterns,
    fens: &StringArray,
    patterns: &ArrayRef,
) -> Result<ArrayRef> {
    let setups = row_setups(fens);
    let mut tested = vec![false; setups.len()];
    let mut states: Vec<(u64, &Setup)> = vec![];
    let mut rows: Vec<(u64, MaterialPattern)> = vec![];
    for (i, setup) in setups.iter().enumerate() {
        let Some(setup) = setup else { continue };
        let Some(texts) = pattern_texts(patterns, i) else {
            continue;
        };
        let Ok(parsed) = texts
            .iter()
            .map(|t| cache.material(t))
            .collect::<std::result::Result<Vec<_>, _>>()
        else {
            continue;
        };
        tested[i] = true;
        states.push((i as u64, setup));
        rows.extend(parsed.into_iter().map(|p| (i as u64, p)));
    }
    if states.is_empty() {
        return Ok(verdicts(&tested, &HashSet::new()));
    }
    load_states(engine, &states).await?;
    let p = engine.pipeline();
    let table: Vec<(u64, &MaterialPattern)> = rows.iter().map(|(id, p)| (*id, p)).collect();
    p.set_table(
        InputTable::MaterialPatterns,
        vec![tables::material_patterns_to_batch(&table)?],
    )
    .await?;
    p.run(Stage::MaterialCounts).await?;
    Ok(verdicts(
        &tested,
        &matched(&p.run(Stage::MaterialMatches).await?)?,
    ))
}

/// `imbalance(fen)`: Scoutfish's material imbalance (stages `material_counts`, `imbalances`);
/// NULL for a NULL or bad FEN. Each distinct FEN is counted once.
pub(super) async fn imbalances(engine: &Engine, fens: &StringArray) -> Result<ArrayRef> {
    let (rows, unique) = distinct(fens);
    let setups: Vec<Option<Setup>> = unique
        .iter()
        .map(|f| Setup::from_fen_auto(f).ok())
        .collect();
    let good: Vec<(u64, &Setup)> = setups
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| (i as u64, s)))
        .collect();
    let mut text: Vec<Option<String>> = vec![None; unique.len()];
    if !good.is_empty() {
        load_states(engine, &good).await?;
        let p = engine.pipeline();
        p.run(Stage::MaterialCounts).await?;
        for b in p.run(Stage::Imbalances).await? {
            let ids = cast(
                b.column_by_name("position_id")
                    .ok_or_else(|| Error::Schema("imbalances: no position_id".into()))?,
                &DataType::UInt64,
            )?;
            let values = cast(
                b.column_by_name("imbalance")
                    .ok_or_else(|| Error::Schema("imbalances: no imbalance".into()))?,
                &DataType::Utf8,
            )?;
            let (Some(ids), Some(values)) = (
                ids.as_any().downcast_ref::<UInt64Array>(),
                values.as_any().downcast_ref::<StringArray>(),
            ) else {
                return Err(Error::Schema("imbalances: column types".into()));
            };
            for (id, v) in ids.iter().zip(values.iter()) {
                if let (Some(id), Some(v)) = (id, v)
                    && let Some(slot) = text.get_mut(id as usize)
                {
                    *slot = Some(v.to_string());
                }
            }
        }
    }
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| text[i].as_deref()))
            .collect::<StringArray>(),
    ))
}
