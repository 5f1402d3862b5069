//! The index of a static join side ([`StaticIndex`]): the side's rows, computed once, and
//! for each join key the rows that hold it.

use std::hash::Hash;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
// hashbrown with foldhash, as DataFusion's own hash tables: several times faster than std's
// SipHash on 64-bit keys
use datafusion::common::HashMap;
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
    _reservation: MemoryReservation,
}

/// Where the rows of a key are in [`StaticIndex::rows`]: start and length.
type Range = (u32, u32);

/// Keys whose values lie within this span are addressed directly (a vector of ranges, at
/// most 32 KiB; `piece_rays.to_key` spans 1,022 values).
const DENSE_SPAN: u64 = 1 << 12;

#[derive(Debug)]
enum Keys {
    /// One integer key column whose values lie within [`DENSE_SPAN`] of the smallest
    /// (`to_key`): the ranges by value minus `min`, empty for values no row holds.
    Dense { min: u64, ranges: Vec<Range> },
    /// One integer key column whose values are all single bits (a square's bit, `bit` of
    /// `square_masks`): the ranges by bit number.
    Bits(Box<[Range; 64]>),
    /// One integer key column, its value read as 64 bits.
    Integer(HashMap<u64, Range>),
    /// Any other key: its columns in Arrow's row format.
    Rows {
        converter: RowConverter,
        map: HashMap<Box<[u8]>, Range>,
    },
}

impl StaticIndex {
    /// Indexes `batch` (the static side's rows) by the values of `key_exprs` over it, its
    /// memory (rows, keys and row numbers, estimated) reserved in `pool` under the consumer
    /// name `static index` for as long as the index lives.
    ///
    /// Errors: a key expression that does not evaluate over `batch`, key types Arrow's row
    /// format does not take, or
    /// [`datafusion::error::DataFusionError::ResourcesExhausted`] when the pool cannot grant
    /// the memory.
    pub fn build(
        batch: RecordBatch,
        key_exprs: &[PhysicalExprRef],
        pool: &Arc<dyn MemoryPool>,
    ) -> Result<StaticIndex> {
        let keys = evaluate(&batch, key_exprs)?;
        let (index, rows, key_bytes) = match integer_keys(&keys)? {
            Some(values) => {
                let (map, rows) = group(values.into_iter());
                let bytes = map.len() * (8 + 8);
                (integer_index(map), rows, bytes)
            }
            None => {
                let fields = keys.iter().map(|k| SortField::new(k.data_type().clone()));
                let converter = RowConverter::new(fields.collect())?;
                let converted = converter.convert_columns(&keys)?;
                let (map, rows) = group((0..batch.num_rows()).map(|row| {
                    let null = keys.iter().any(|k| k.is_null(row));
                    (!null).then(|| Box::<[u8]>::from(converted.row(row).as_ref()))
                }));
                let bytes = map.keys().map(|k| k.len() + 16 + 8).sum();
                (Keys::Rows { converter, map }, rows, bytes)
            }
        };
        let reservation = MemoryConsumer::new("static index").register(pool);
        reservation.try_grow(batch.get_array_memory_size() + rows.len() * 8 + key_bytes)?;
        Ok(StaticIndex {
            batch,
            keys: index,
            rows,
            _reservation: reservation,
        })
    }

    /// The static side's rows.
    pub fn batch(&self) -> &RecordBatch {
        &self.batch
    }

    /// How many distinct keys the index holds.
    pub fn key_count(&self) -> usize {
        match &self.keys {
            Keys::Dense { ranges, .. } => ranges.iter().filter(|r| r.1 > 0).count(),
            Keys::Bits(ranges) => ranges.iter().filter(|r| r.1 > 0).count(),
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
        self.probe_kept(probe_keys, |_, _| true)
    }

    /// [`StaticIndex::probe`], keeping only the pairs `keep(static row, probe row)` holds
    /// for: a join filter tested at each pair as it is found.
    ///
    /// Errors: as [`StaticIndex::probe`].
    pub fn probe_kept(
        &self,
        probe_keys: &[ArrayRef],
        mut keep: impl FnMut(u64, u32) -> bool,
    ) -> Result<(UInt64Array, UInt32Array)> {
        let mut statics: Vec<u64> = vec![];
        let mut probes: Vec<u32> = vec![];
        let mut push = |probe: usize, range: Option<&Range>| {
            if let Some(&(start, len)) = range
                && len > 0
            {
                let probe = probe as u32;
                for &row in &self.rows[start as usize..(start + len) as usize] {
                    if keep(row, probe) {
                        statics.push(row);
                        probes.push(probe);
                    }
                }
            }
        };
        match &self.keys {
            Keys::Dense { .. } | Keys::Bits(_) | Keys::Integer(_) => {
                let values = integer_keys(probe_keys)?.unwrap_or_default();
                for (probe, v) in values.iter().enumerate() {
                    push(probe, v.and_then(|v| self.keys.integer_range(v)));
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

impl Keys {
    /// The range of an integer key's rows, if the index is of one integer key column and a
    /// row holds the key.
    fn integer_range(&self, v: u64) -> Option<&Range> {
        match self {
            Keys::Dense { min, ranges } => ranges.get(usize::try_from(v.wrapping_sub(*min)).ok()?),
            Keys::Bits(ranges) => v
                .is_power_of_two()
                .then(|| &ranges[v.trailing_zeros() as usize]),
            Keys::Integer(map) => map.get(&v),
            Keys::Rows { .. } => None,
        }
    }
}

/// The index of one integer key column's groups: direct addressing when the values lie
/// within [`DENSE_SPAN`] or are all single bits, else the hash map.
fn integer_index(map: HashMap<u64, Range>) -> Keys {
    let (min, max) = (map.keys().min().copied(), map.keys().max().copied());
    if let (Some(min), Some(max)) = (min, max)
        && max - min < DENSE_SPAN
    {
        let mut ranges = vec![(0, 0); (max - min + 1) as usize];
        for (k, r) in &map {
            ranges[(k - min) as usize] = *r;
        }
        return Keys::Dense { min, ranges };
    }
    if !map.is_empty() && map.keys().all(|k| k.is_power_of_two()) {
        let mut ranges = Box::new([(0, 0); 64]);
        for (k, r) in &map {
            ranges[k.trailing_zeros() as usize] = *r;
        }
        return Keys::Bits(ranges);
    }
    Keys::Integer(map)
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

/// The rows of each key (row numbers in order, NULL keys left out): each key's range of
/// the returned row numbers, which hold one key's rows after another.
fn group<K: Hash + Eq>(keys: impl Iterator<Item = Option<K>>) -> (HashMap<K, Range>, Vec<u64>) {
    let mut groups: HashMap<K, Vec<u64>> = HashMap::new();
    for (row, key) in keys.enumerate() {
        if let Some(key) = key {
            groups.entry(key).or_default().push(row as u64);
        }
    }
    let mut rows = Vec::with_capacity(groups.values().map(Vec::len).sum());
    let map = groups
        .into_iter()
        .map(|(key, g)| {
            let range = (rows.len() as u32, g.len() as u32);
            rows.extend(g);
            (key, range)
        })
        .collect();
    (map, rows)
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Int64Array, UInt64Array};
    use datafusion::arrow::datatypes::{Field, Schema};
    use datafusion::execution::memory_pool::UnboundedMemoryPool;
    use datafusion::physical_expr::expressions::col;

    use super::*;

    /// The pairs of probing an index of `keys` (rows 0, 1, …) with `probe`.
    fn pairs(keys: ArrayRef, probe: ArrayRef) -> (Vec<u64>, Vec<u32>, &'static str) {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "k",
            keys.data_type().clone(),
            true,
        )]));
        let batch = RecordBatch::try_new(schema.clone(), vec![keys]).expect("batch");
        let pool: Arc<dyn MemoryPool> = Arc::new(UnboundedMemoryPool::default());
        let index =
            StaticIndex::build(batch, &[col("k", &schema).expect("k")], &pool).expect("build");
        let kind = match index.keys {
            Keys::Dense { .. } => "dense",
            Keys::Bits(_) => "bits",
            Keys::Integer(_) => "hashed",
            Keys::Rows { .. } => "rows",
        };
        let (s, p) = index.probe(&[probe]).expect("probe");
        (s.values().to_vec(), p.values().to_vec(), kind)
    }

    /// Each kind of integer index finds a key's rows in order, and nothing for a NULL or a
    /// value no row holds (below, above or between the keys, or not a single bit).
    #[test]
    fn integer_indexes_find_the_rows_of_each_key() {
        let dense = Arc::new(Int64Array::from(vec![Some(5), Some(7), None, Some(5)]));
        let probe = Arc::new(Int64Array::from(vec![
            Some(5),
            None,
            Some(6),
            Some(4),
            Some(7),
            Some(-1),
            Some(4_101),
        ]));
        assert_eq!(pairs(dense, probe), (vec![0, 3, 1], vec![0, 0, 4], "dense"));
        let bits = Arc::new(UInt64Array::from(vec![1, 1 << 63, 1 << 9]));
        let probe = Arc::new(UInt64Array::from(vec![
            Some(1 << 9),
            Some(3),
            Some(0),
            None,
            Some(1 << 63),
            Some(1 << 8),
        ]));
        assert_eq!(pairs(bits, probe), (vec![2, 1], vec![0, 4], "bits"));
        let sparse = Arc::new(UInt64Array::from(vec![3, 1 << 40]));
        let probe = Arc::new(UInt64Array::from(vec![1 << 40, 3, 4]));
        assert_eq!(pairs(sparse, probe), (vec![1, 0], vec![0, 1], "hashed"));
    }
}
