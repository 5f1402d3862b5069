//! The index of a static join side ([`StaticIndex`]): the side's rows, computed once, and
//! for each join key the rows that hold it.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::error::Result;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, MemoryReservation};
use datafusion::physical_expr::PhysicalExprRef;

/// A static join side's rows ([`StaticIndex::batch`]) with, for each join key, the rows
/// that hold it: what a hash join builds from its build side at every run, built once.
///
/// Keys compare as a hash join's do with `NullEquality::NullEqualsNothing`: a row with a
/// NULL key column matches nothing.
#[derive(Debug)]
pub struct StaticIndex {
    batch: RecordBatch,
    keys: Keys,
    /// Row numbers of `batch`, grouped by key: `keys` maps a key to a range of it.
    rows: Vec<u64>,
    /// The index's memory, reserved in the session's memory pool for as long as it lives.
    _reservation: Option<MemoryReservation>,
}

/// Where the rows of a key are in [`StaticIndex::rows`]: start and length.
type Range = (u32, u32);

#[derive(Debug)]
enum Keys {
    /// One integer key column, its value read as 64 bits.
    Integer(HashMap<u64, Range>),
    /// Any other key: its columns in Arrow's row format.
    Rows {
        converter: RowConverter,
        map: HashMap<Box<[u8]>, Range>,
    },
}

impl StaticIndex {
    /// Indexes `batch` (the static side's rows) by the values of `key_exprs` over it.
    ///
    /// Errors: a key expression that does not evaluate over `batch`, or key types Arrow's
    /// row format does not take.
    pub fn build(batch: RecordBatch, key_exprs: &[PhysicalExprRef]) -> Result<StaticIndex> {
        let keys = evaluate(&batch, key_exprs)?;
        let mut groups: Vec<Vec<u64>> = vec![];
        let (index, rows) = match integer_keys(&keys)? {
            Some(values) => {
                let mut map: HashMap<u64, u32> = HashMap::new();
                for (row, v) in values.iter().enumerate() {
                    if let Some(v) = v {
                        let g = *map.entry(*v).or_insert_with(|| {
                            groups.push(vec![]);
                            groups.len() as u32 - 1
                        });
                        groups[g as usize].push(row as u64);
                    }
                }
                let (rows, ranges) = flatten(groups);
                let map = map.into_iter().map(|(k, g)| (k, ranges[g as usize]));
                (Keys::Integer(map.collect()), rows)
            }
            None => {
                let converter = RowConverter::new(
                    keys.iter()
                        .map(|k| SortField::new(k.data_type().clone()))
                        .collect(),
                )?;
                let converted = converter.convert_columns(&keys)?;
                let mut map: HashMap<Box<[u8]>, u32> = HashMap::new();
                for row in 0..batch.num_rows() {
                    if keys.iter().any(|k| k.is_null(row)) {
                        continue;
                    }
                    let key = converted.row(row);
                    let key: &[u8] = key.as_ref();
                    let g = match map.get(key) {
                        Some(g) => *g,
                        None => {
                            groups.push(vec![]);
                            map.insert(key.into(), groups.len() as u32 - 1);
                            groups.len() as u32 - 1
                        }
                    };
                    groups[g as usize].push(row as u64);
                }
                let (rows, ranges) = flatten(groups);
                let map = map.into_iter().map(|(k, g)| (k, ranges[g as usize]));
                (
                    Keys::Rows {
                        converter,
                        map: map.collect(),
                    },
                    rows,
                )
            }
        };
        Ok(StaticIndex {
            batch,
            keys: index,
            rows,
            _reservation: None,
        })
    }

    /// The index with its memory (its rows, keys and row numbers, estimated) reserved in
    /// `pool` under the consumer name `static index`.
    ///
    /// Errors: [`datafusion::error::DataFusionError::ResourcesExhausted`] when the pool
    /// cannot grant it.
    pub fn reserved(mut self, pool: &Arc<dyn MemoryPool>) -> Result<StaticIndex> {
        let keys = match &self.keys {
            Keys::Integer(m) => m.len() * (8 + 8),
            Keys::Rows { map, .. } => map.keys().map(|k| k.len() + 16 + 8).sum(),
        };
        let bytes = self.batch.get_array_memory_size() + self.rows.len() * 8 + keys;
        let reservation = MemoryConsumer::new("static index").register(pool);
        reservation.try_grow(bytes)?;
        self._reservation = Some(reservation);
        Ok(self)
    }

    /// The static side's rows.
    pub fn batch(&self) -> &RecordBatch {
        &self.batch
    }

    /// How many distinct keys the index holds.
    pub fn key_count(&self) -> usize {
        match &self.keys {
            Keys::Integer(m) => m.len(),
            Keys::Rows { map, .. } => map.len(),
        }
    }

    /// The matching pairs of a probe batch whose key columns are `probe_keys` (evaluated by
    /// the caller, of the index's key types): the static rows and the probe rows, in probe
    /// row order.
    ///
    /// Errors: key columns the index's row format does not take.
    pub fn probe(&self, probe_keys: &[ArrayRef]) -> Result<(UInt64Array, UInt32Array)> {
        let mut statics: Vec<u64> = vec![];
        let mut probes: Vec<u32> = vec![];
        let mut push = |probe: usize, range: Option<&Range>| {
            if let Some(&(start, len)) = range {
                let rows = &self.rows[start as usize..(start + len) as usize];
                statics.extend_from_slice(rows);
                probes.extend(std::iter::repeat_n(probe as u32, rows.len()));
            }
        };
        match &self.keys {
            Keys::Integer(map) => {
                let values = integer_keys(probe_keys)?.unwrap_or_default();
                for (probe, v) in values.iter().enumerate() {
                    push(probe, v.as_ref().and_then(|v| map.get(v)));
                }
            }
            Keys::Rows { converter, map } => {
                let converted = converter.convert_columns(probe_keys)?;
                let n = probe_keys.first().map_or(0, |k| k.len());
                for probe in 0..n {
                    if probe_keys.iter().any(|k| k.is_null(probe)) {
                        continue;
                    }
                    push(probe, map.get(converted.row(probe).as_ref()));
                }
            }
        }
        Ok((UInt64Array::from(statics), UInt32Array::from(probes)))
    }
}

/// The key columns: `exprs` evaluated over `batch`.
pub fn evaluate(batch: &RecordBatch, exprs: &[PhysicalExprRef]) -> Result<Vec<ArrayRef>> {
    exprs
        .iter()
        .map(|e| e.evaluate(batch)?.into_array(batch.num_rows()))
        .collect()
}

/// A single integer key column's values as 64 bits (signed types sign-extended), or `None`
/// when the key is not one integer column.
fn integer_keys(keys: &[ArrayRef]) -> Result<Option<Vec<Option<u64>>>> {
    let [key] = keys else {
        return Ok(None);
    };
    let signed = match key.data_type() {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => true,
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => false,
        _ => return Ok(None),
    };
    Ok(if signed {
        let a = cast(key, &DataType::Int64)?;
        a.as_primitive_opt::<Int64Type>()
            .map(|a| a.iter().map(|v| v.map(|v| v as u64)).collect())
    } else {
        let a = cast(key, &DataType::UInt64)?;
        a.as_primitive_opt::<UInt64Type>()
            .map(|a| a.iter().collect())
    })
}

/// The groups' rows one after another, and each group's range.
fn flatten(groups: Vec<Vec<u64>>) -> (Vec<u64>, Vec<Range>) {
    let mut rows = Vec::with_capacity(groups.iter().map(Vec::len).sum());
    let mut ranges = Vec::with_capacity(groups.len());
    for g in groups {
        ranges.push((rows.len() as u32, g.len() as u32));
        rows.extend(g);
    }
    (rows, ranges)
}
