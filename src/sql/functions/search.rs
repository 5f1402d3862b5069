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
use datafusion::arrow::datatypes::{DataType, Field};

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

/// The pattern argument of `matches_subfen` / `material_matches`, cast once per batch: one
/// string per row, or a list of strings per row (any matches).
enum PatternColumn {
    One(StringArray),
    Lists(ListArray),
}

impl PatternColumn {
    /// The argument as strings or lists of strings; `None` for another type (refused when
    /// the query is planned).
    fn new(patterns: &ArrayRef) -> Option<PatternColumn> {
        match patterns.data_type() {
            DataType::List(_) | DataType::LargeList(_) => {
                let item = Arc::new(Field::new("item", DataType::Utf8, true));
                let lists = cast(patterns, &DataType::List(item)).ok()?;
                Some(PatternColumn::Lists(
                    lists.as_any().downcast_ref::<ListArray>()?.clone(),
                ))
            }
            _ => {
                let texts = cast(patterns, &DataType::Utf8).ok()?;
                Some(PatternColumn::One(
                    texts.as_any().downcast_ref::<StringArray>()?.clone(),
                ))
            }
        }
    }

    /// Row `i`'s pattern texts; `None` when the row or an item of its list is NULL.
    fn texts(&self, i: usize) -> Option<Vec<String>> {
        match self {
            PatternColumn::One(t) => t.is_valid(i).then(|| vec![t.value(i).to_string()]),
            PatternColumn::Lists(l) => {
                if l.is_null(i) {
                    return None;
                }
                let items = l.value(i);
                let items = items.as_any().downcast_ref::<StringArray>()?;
                items.iter().map(|t| t.map(str::to_string)).collect()
            }
        }
    }
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

/// The rows to test, with the FEN rules kept, every pattern of the row parsed by `parse`
/// and `extra(row)` given: per row its setup, its patterns and the extra argument.
fn rows_to_test<'a, T, E>(
    setups: &'a [Option<Setup>],
    patterns: &ArrayRef,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
    extra: impl Fn(usize) -> Option<E>,
) -> Vec<(usize, &'a Setup, Vec<T>, E)> {
    let Some(patterns) = PatternColumn::new(patterns) else {
        return vec![];
    };
    setups
        .iter()
        .enumerate()
        .filter_map(|(i, setup)| {
            let setup = setup.as_ref()?;
            let e = extra(i)?;
            let texts = patterns.texts(i)?;
            let parsed = texts
                .iter()
                .map(|t| parse(t))
                .collect::<std::result::Result<Vec<T>, _>>();
            Some((i, setup, parsed.ok()?, e))
        })
        .collect()
}

/// Runs `stage` after loading the tested rows' positions into `replay_states` (position
/// id = row) and `patterns` into `table`: per row NULL when not tested, else whether the
/// stage matched it.
async fn run_search(
    engine: &Engine,
    rows: usize,
    tested: &[(u64, &Setup)],
    table: InputTable,
    patterns: RecordBatch,
    stages: &[Stage],
) -> Result<ArrayRef> {
    let mut is_tested = vec![false; rows];
    for (id, _) in tested {
        is_tested[*id as usize] = true;
    }
    let mut hits = HashSet::new();
    if !tested.is_empty() {
        load_states(engine, tested).await?;
        let p = engine.pipeline();
        p.set_table(table, vec![patterns]).await?;
        let mut last = vec![];
        for s in stages {
            last = p.run(*s).await?;
        }
        hits = matched(&last)?;
    }
    Ok(Arc::new(
        is_tested
            .iter()
            .enumerate()
            .map(|(i, t)| t.then(|| hits.contains(&(i as u64))))
            .collect::<BooleanArray>(),
    ))
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
    let side_of = |i: usize| -> Option<Option<Color>> {
        match sides {
            None => Some(None),
            Some(s) if s.is_null(i) => None,
            Some(s) => side_argument(s.value(i)).map(Some),
        }
    };
    let rows = rows_to_test(&setups, patterns, |t| cache.subfen(t), side_of);
    let table: Vec<(u64, Option<Color>, &SubfenPattern)> = rows
        .iter()
        .flat_map(|(i, _, ps, side)| ps.iter().map(move |p| (*i as u64, *side, p)))
        .collect();
    let tested: Vec<(u64, &Setup)> = rows.iter().map(|(i, s, _, _)| (*i as u64, *s)).collect();
    let batch = tables::subfen_patterns_to_batch(&table)?;
    run_search(
        engine,
        setups.len(),
        &tested,
        InputTable::SubfenPatterns,
        batch,
        &[Stage::SubfenMatches],
    )
    .await
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
    let rows = rows_to_test(&setups, patterns, |t| cache.material(t), |_| Some(()));
    let table: Vec<(u64, &MaterialPattern)> = rows
        .iter()
        .flat_map(|(i, _, ps, _)| ps.iter().map(move |p| (*i as u64, p)))
        .collect();
    let tested: Vec<(u64, &Setup)> = rows.iter().map(|(i, s, _, _)| (*i as u64, *s)).collect();
    let batch = tables::material_patterns_to_batch(&table)?;
    run_search(
        engine,
        setups.len(),
        &tested,
        InputTable::MaterialPatterns,
        batch,
        &[Stage::MaterialCounts, Stage::MaterialMatches],
    )
    .await
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
