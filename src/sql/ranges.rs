//! What each partition of a PGN scan reads, as the scan's input plan: an in-memory table
//! ([`MemorySourceConfig`]) of one partition per group of byte ranges, one row per range:
//!
//! | column | type | |
//! |---|---|---|
//! | `input` | UInt32 | index of the file in the scan's inputs |
//! | `start` | UInt64 | first byte (a game boundary) |
//! | `end` | UInt64, nullable | the byte after the last one; NULL: to the end of the file |
//! | `first_game` | UInt64 | index in its file of the range's first game |
//!
//! Why a child plan and not a field of the scan: a distributed engine gives each task some
//! of a stage's partitions by restricting the plan's leaves. Ballista knows how to restrict
//! an in-memory source but not our scan; with the ranges below it, a task's scan reads the
//! ranges of its own partitions only, and no task reads another's games.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch, UInt32Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt32Type, UInt64Type};
use datafusion::catalog::memory::{DataSourceExec, MemorySourceConfig};
use datafusion::common::{DataFusionError, Result};
use datafusion::physical_plan::ExecutionPlan;

use crate::io::input::Input;
use crate::io::split::{PgnRange, split};

/// The schema of the ranges table (module docs).
fn ranges_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("input", DataType::UInt32, false),
        Field::new("start", DataType::UInt64, false),
        Field::new("end", DataType::UInt64, true),
        Field::new("first_game", DataType::UInt64, false),
    ]))
}

/// The ranges plan of `groups` (one partition each; one empty partition when there is none),
/// each range's file an index into `inputs`.
///
/// Errors: [`DataFusionError::Internal`] for a range of a file not in `inputs`.
pub(crate) fn ranges_plan(
    inputs: &[Input],
    groups: &[Vec<PgnRange>],
) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = ranges_schema();
    let mut partitions = vec![];
    for group in groups {
        let mut index = vec![];
        for r in group {
            let Some(i) = inputs.iter().position(|i| *i == r.input) else {
                return Err(DataFusionError::Internal(format!(
                    "a range of {} that is not an input of the scan",
                    r.input.name
                )));
            };
            index.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(UInt32Array::from(index)),
                Arc::new(group.iter().map(|r| r.start).collect::<UInt64Array>()),
                Arc::new(group.iter().map(|r| r.end).collect::<UInt64Array>()),
                Arc::new(group.iter().map(|r| r.first_game).collect::<UInt64Array>()),
            ],
        )?;
        partitions.push(vec![batch]);
    }
    if partitions.is_empty() {
        partitions.push(vec![]);
    }
    Ok(DataSourceExec::from_data_source(
        MemorySourceConfig::try_new(&partitions, schema, None)?,
    ))
}

/// The ranges of `batches` (of the ranges plan), their files taken from `inputs`.
///
/// Errors: [`DataFusionError::Internal`] when a batch is not of the ranges schema or names
/// a file index outside `inputs`.
pub(crate) fn ranges_of(batches: &[RecordBatch], inputs: &[Input]) -> Result<Vec<PgnRange>> {
    let bad = || DataFusionError::Internal("a PGN scan's input is not its ranges table".into());
    let mut out = vec![];
    for b in batches {
        if b.num_columns() != 4 {
            return Err(bad());
        }
        let input = b
            .column(0)
            .as_primitive_opt::<UInt32Type>()
            .ok_or_else(bad)?;
        let start = b
            .column(1)
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(bad)?;
        let end = b
            .column(2)
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(bad)?;
        let first = b
            .column(3)
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(bad)?;
        for i in 0..b.num_rows() {
            let file = inputs.get(input.value(i) as usize).ok_or_else(bad)?;
            out.push(PgnRange {
                input: file.clone(),
                start: start.value(i),
                end: end.is_valid(i).then(|| end.value(i)),
                first_game: first.value(i),
            });
        }
    }
    Ok(out)
}

/// The ranges of every partition of `plan`, when it is an in-memory ranges plan (as
/// [`ranges_plan`] makes it, or restricted to some partitions); empty otherwise.
pub(crate) fn planned_ranges(
    plan: &Arc<dyn ExecutionPlan>,
    inputs: &[Input],
) -> Vec<Vec<PgnRange>> {
    let Some(exec) = plan.downcast_ref::<DataSourceExec>() else {
        return vec![];
    };
    let Some(memory) = exec.data_source().downcast_ref::<MemorySourceConfig>() else {
        return vec![];
    };
    memory
        .partitions()
        .iter()
        .map(|p| ranges_of(p, inputs).unwrap_or_default())
        .collect()
}

/// With the rules, plain files of at least twice this many bytes are cut too (when
/// `split_bytes` is larger): see [`partitions`].
const RULES_SPLIT_BYTES: u64 = 64 * 1024;

/// The ranges of each scan partition: plain files of at least twice `split_bytes` cut
/// into at most `target_partitions` ranges at game boundaries ([`split`]; 0 never
/// splits), then at most `target_partitions` groups, the largest ranges first each to the
/// group with the fewest bytes so far, each group in file order.
///
/// When the scan runs the `rules`, files of at least twice [`RULES_SPLIT_BYTES`] are cut
/// as well (pieces of at least that size, at most `target_partitions`): the rules cost per
/// ply, not per byte (a file whose moves carry clock and eval comments has about three
/// times the bytes per ply of one without), so groups balanced by bytes of whole files may
/// differ by half in plies (one partition working alone at the end); with the large files
/// cut, every group gets about its share of each, and so of the plies.
///
/// Errors: [`crate::Error::Io`] naming a file that cannot be read.
pub(crate) fn partitions(
    inputs: &[Input],
    target_partitions: usize,
    split_bytes: u64,
    rules: bool,
) -> crate::Result<Vec<Vec<PgnRange>>> {
    let target = target_partitions.max(1);
    let unit = if rules {
        split_bytes.min(RULES_SPLIT_BYTES)
    } else {
        split_bytes
    };
    let mut ranges: Vec<(u64, usize, PgnRange)> = vec![];
    for (i, input) in inputs.iter().enumerate() {
        let size = input.size().unwrap_or(0);
        // (a split size of 0: one piece)
        let pieces = size
            .checked_div(unit)
            .map_or(1, |n| usize::try_from(n).unwrap_or(usize::MAX).min(target));
        for r in split(input, pieces)? {
            let bytes = r.end.unwrap_or(size).saturating_sub(r.start);
            ranges.push((bytes, i, r));
        }
    }
    let n = ranges.len().min(target);
    ranges.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.start.cmp(&b.2.start))
    });
    let mut groups: Vec<(u64, Vec<(usize, PgnRange)>)> = vec![(0, vec![]); n];
    for (bytes, i, r) in ranges {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += bytes;
            g.1.push((i, r));
        }
    }
    Ok(groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort_by_key(|(i, r)| (*i, r.start));
            g.into_iter().map(|(_, r)| r).collect()
        })
        .collect())
}
