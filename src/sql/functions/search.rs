//! Position searches over the board as square sets (`replay_states`): `matches_subfen`
//! (stage `subfen_matches`), `imbalance` (`material_counts`, `imbalances`) and
//! `material_matches` (`material_counts`, `material_matches`). Patterns are parsed once per
//! distinct text and function ([`Patterns`]), not once per row.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, ListArray, RecordBatch, StringArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, UInt64Type};
use datafusion::logical_expr::ColumnarValue;

use super::{distinct, parsed};
use crate::chess::color::Color;
use crate::chess::material_pattern::MaterialPattern;
use crate::chess::setup::Setup;
use crate::chess::subfen::SubfenPattern;
use crate::engine::Engine;
use crate::error::Result;
use crate::session::read;
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

/// The side-to-move argument of `matches_subfen`: `'w'` or `'b'`, as FEN writes the side to
/// move; `None` for anything else.
pub(super) fn side_argument(text: &str) -> Option<Color> {
    let mut letters = text.chars();
    match (letters.next(), letters.next()) {
        (Some(letter), None) => Color::from_char(letter),
        _ => None,
    }
}

/// The pattern argument of `matches_subfen` / `material_matches`, cast once per batch: one
/// string per row, or a list of strings per row (any matches).
enum PatternColumn {
    /// A literal: the same pattern texts for every row (`None`: NULL), never expanded to
    /// one copy per row.
    Same(Option<Vec<Option<String>>>),
    One(StringArray),
    Lists(ListArray),
}

impl PatternColumn {
    /// The argument as strings or lists of strings; `None` for another type (refused when
    /// the query is planned).
    fn new(patterns: &ColumnarValue) -> Option<PatternColumn> {
        let item = Arc::new(Field::new("item", DataType::Utf8, true));
        match patterns {
            ColumnarValue::Scalar(v) => {
                let array = v.to_array().ok()?;
                let column = match v.data_type() {
                    DataType::List(_) | DataType::LargeList(_) => PatternColumn::Lists(
                        cast(&array, &DataType::List(item))
                            .ok()?
                            .as_list::<i32>()
                            .clone(),
                    ),
                    _ => PatternColumn::One(
                        cast(&array, &DataType::Utf8)
                            .ok()?
                            .as_string::<i32>()
                            .clone(),
                    ),
                };
                Some(PatternColumn::Same(column.texts(0)))
            }
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::List(_) | DataType::LargeList(_) => Some(PatternColumn::Lists(
                    cast(a, &DataType::List(item))
                        .ok()?
                        .as_list::<i32>()
                        .clone(),
                )),
                _ => Some(PatternColumn::One(
                    cast(a, &DataType::Utf8).ok()?.as_string::<i32>().clone(),
                )),
            },
        }
    }

    /// Row `i`'s pattern texts (a NULL item of a list as `None`); `None` when the row is
    /// NULL.
    fn texts(&self, i: usize) -> Option<Vec<Option<String>>> {
        match self {
            PatternColumn::Same(texts) => texts.clone(),
            PatternColumn::One(t) => t.is_valid(i).then(|| vec![Some(t.value(i).to_string())]),
            PatternColumn::Lists(l) => {
                if l.is_null(i) {
                    return None;
                }
                let items = l.value(i);
                Some(
                    items
                        .as_string::<i32>()
                        .iter()
                        .map(|t| t.map(str::to_string))
                        .collect(),
                )
            }
        }
    }
}

/// The position ids a stage's `matched_id` column lists.
fn matched(batches: &[RecordBatch]) -> Result<HashSet<u64>> {
    let mut out = HashSet::new();
    for b in batches {
        out.extend(
            read::primitive::<UInt64Type>(b, "matched_id")?
                .iter()
                .flatten(),
        );
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

/// A row to test: its position id (the row), its position, the patterns of the row that
/// parse, whether some item of its list was NULL or did not parse, and its extra argument.
struct Tested<'a, T, E> {
    row: usize,
    setup: &'a Setup,
    /// Shared by every row when the pattern is a literal.
    patterns: Arc<Vec<T>>,
    unknown: bool,
    extra: E,
}

/// The rows to test: those whose FEN keeps the FEN rules, whose pattern argument is not
/// NULL and whose `extra(row)` is given, with the items of their pattern that `parse` reads.
fn rows_to_test<'a, T, E>(
    setups: &'a [Option<Setup>],
    patterns: &ColumnarValue,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
    extra: impl Fn(usize) -> Option<E>,
) -> Vec<Tested<'a, T, E>> {
    let Some(patterns) = PatternColumn::new(patterns) else {
        return vec![];
    };
    // the items of a list parsed, with whether one was NULL or bad
    let read = |items: Vec<Option<String>>| -> (Arc<Vec<T>>, bool) {
        let parsed: Vec<Option<T>> = items
            .iter()
            .map(|t| t.as_deref().and_then(|t| parse(t).ok()))
            .collect();
        let unknown = parsed.iter().any(Option::is_none);
        (Arc::new(parsed.into_iter().flatten().collect()), unknown)
    };
    let same = match &patterns {
        PatternColumn::Same(None) => return vec![],
        PatternColumn::Same(Some(items)) => Some(read(items.clone())),
        _ => None,
    };
    setups
        .iter()
        .enumerate()
        .filter_map(|(row, setup)| {
            let setup = setup.as_ref()?;
            let extra = extra(row)?;
            let (patterns, unknown) = match &same {
                Some((p, unknown)) => (p.clone(), *unknown),
                None => read(patterns.texts(row)?),
            };
            Some(Tested {
                row,
                setup,
                patterns,
                unknown,
                extra,
            })
        })
        .collect()
}

/// Patterns per run of a search's stages: the rows are tested in chunks so that the pattern
/// table (rows × patterns) stays bounded whatever the list's length: a board pattern is one
/// row of `subfen_patterns` (about 100 bytes), a material description up to 26 rows of
/// `material_patterns` (its terms both ways round), so a run's table stays under about 8 MB.
const SUBFEN_PATTERNS_PER_RUN: usize = 65_536;
/// See [`SUBFEN_PATTERNS_PER_RUN`].
const MATERIAL_PATTERNS_PER_RUN: usize = 4_096;

/// Runs `stages` over the tested rows in chunks of at most `per_run` patterns: their
/// positions in `replay_states` (position id = row), their patterns in `table` (`batch`
/// builds it from a chunk). Per row: true when a pattern matched (stage `matched_id`); else
/// NULL when an item of its list was NULL or bad, or the row was not tested; else false
/// (SQL's OR over the items).
async fn run_search<T, E>(
    engine: &Engine,
    rows: usize,
    tested: &[Tested<'_, T, E>],
    table: InputTable,
    batch: impl Fn(&[Tested<'_, T, E>]) -> Result<RecordBatch>,
    stages: &[Stage],
    per_run: usize,
) -> Result<ArrayRef> {
    let mut verdict: Vec<Option<bool>> = vec![None; rows];
    let p = engine.pipeline();
    let mut start = 0;
    while start < tested.len() {
        let mut end = start;
        let mut n = 0;
        while end < tested.len() && (end == start || n + tested[end].patterns.len() <= per_run) {
            n += tested[end].patterns.len();
            end += 1;
        }
        let chunk = &tested[start..end];
        let states: Vec<(u64, &Setup)> = chunk.iter().map(|t| (t.row as u64, t.setup)).collect();
        load_states(engine, &states).await?;
        p.set_table(table, vec![batch(chunk)?]).await?;
        let mut last = vec![];
        for s in stages {
            last = p.run(*s).await?;
        }
        let hits = matched(&last)?;
        for t in chunk {
            verdict[t.row] = if hits.contains(&(t.row as u64)) {
                Some(true)
            } else if t.unknown {
                None
            } else {
                Some(false)
            };
        }
        start = end;
    }
    Ok(Arc::new(verdict.into_iter().collect::<BooleanArray>()))
}

/// `matches_subfen(fen, pattern [, side])`: per row, whether the position matches any of its
/// patterns (stage `subfen_matches`); NULL for a NULL or bad FEN, a NULL pattern, a side
/// other than `w`/`b`, and, when no item matched, a NULL or bad item of the row's list (a
/// literal bad pattern is refused when the query is planned).
pub(super) async fn matches_subfen(
    engine: &Engine,
    cache: &Patterns,
    fens: &StringArray,
    patterns: &ColumnarValue,
    sides: Option<&StringArray>,
) -> Result<ArrayRef> {
    let setups = parsed(fens);
    let side_of = |i: usize| -> Option<Option<Color>> {
        match sides {
            None => Some(None),
            Some(s) if s.is_null(i) => None,
            Some(s) => side_argument(s.value(i)).map(Some),
        }
    };
    let tested = rows_to_test(&setups, patterns, |t| cache.subfen(t), side_of);
    let batch = |chunk: &[Tested<'_, SubfenPattern, Option<Color>>]| {
        let rows: Vec<(u64, Option<Color>, &SubfenPattern)> = chunk
            .iter()
            .flat_map(|t| t.patterns.iter().map(move |p| (t.row as u64, t.extra, p)))
            .collect();
        tables::subfen_patterns_to_batch(&rows)
    };
    run_search(
        engine,
        setups.len(),
        &tested,
        InputTable::SubfenPatterns,
        batch,
        &[Stage::SubfenMatches],
        SUBFEN_PATTERNS_PER_RUN,
    )
    .await
}

/// `material_matches(fen, pattern)`: per row, whether the position's material matches any
/// of its pgn-extract material descriptions (stage `material_matches`, after
/// `material_counts`); NULL as for [`matches_subfen`].
pub(super) async fn material_matches(
    engine: &Engine,
    cache: &Patterns,
    fens: &StringArray,
    patterns: &ColumnarValue,
) -> Result<ArrayRef> {
    let setups = parsed(fens);
    let tested = rows_to_test(&setups, patterns, |t| cache.material(t), |_| Some(()));
    let batch = |chunk: &[Tested<'_, MaterialPattern, ()>]| {
        let rows: Vec<(u64, &MaterialPattern)> = chunk
            .iter()
            .flat_map(|t| t.patterns.iter().map(move |p| (t.row as u64, p)))
            .collect();
        tables::material_patterns_to_batch(&rows)
    };
    run_search(
        engine,
        setups.len(),
        &tested,
        InputTable::MaterialPatterns,
        batch,
        &[Stage::MaterialCounts, Stage::MaterialMatches],
        MATERIAL_PATTERNS_PER_RUN,
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
            let ids = read::primitive::<UInt64Type>(&b, "position_id")?;
            let values = read::strings(&b, "imbalance")?;
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
