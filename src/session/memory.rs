//! The memory limit of a run: one budget for DataFusion's operators and for the stage tables
//! kept between stages.
//!
//! A [`MemoryBudget`] is a DataFusion [`RuntimeEnv`] whose memory pool is a
//! [`FairSpillPool`] of the limit, with a disk manager in the OS temporary folder: operators
//! that can spill (sorts, aggregations) spill to disk first when the pool is short, the
//! others (hash-join build sides) fail with `ResourcesExhausted`. The stage tables a
//! [`crate::session::Session`] keeps between stages (its slot tables) live outside
//! DataFusion's operators, so each pipeline also holds one unspillable reservation in the same
//! pool, resized to the Arrow memory of its tables every time one is replaced
//! ([`TableMemory::account`]): operators then see only what the tables leave.
//! Every pipeline made with the same budget (clones share it) draws on the same pool, so
//! the limit holds for all of them together (e.g. `validate --threads 3`).
//!
//! A run that cannot stay within the limit stops with [`SessionError::MemoryLimit`], naming the
//! limit and what needed the memory; code that can predict a size (perft levels) checks it
//! first with [`MemoryBudget::check_estimate`].

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryPool, MemoryReservation,
};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};

use super::{Result, SessionError};

/// Share of the physical memory a run may use when no limit is given.
pub const DEFAULT_FRACTION: f64 = 0.5;

/// The default limit when the physical memory cannot be read (not Linux): 4 GiB.
const FALLBACK_LIMIT: u64 = 4 << 30;

/// A memory limit and the DataFusion runtime that enforces it; cheap to clone (clones share
/// the pool).
#[derive(Clone)]
pub struct MemoryBudget {
    limit: u64,
    runtime: Arc<RuntimeEnv>,
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemoryBudget({})", human(self.limit))
    }
}

impl Default for MemoryBudget {
    /// [`default_limit`]. Falls back to DataFusion's default runtime (no limit) in the
    /// unlikely case the runtime cannot be built.
    fn default() -> Self {
        let limit = default_limit();
        MemoryBudget::new(limit).unwrap_or_else(|_| MemoryBudget {
            limit,
            runtime: Arc::new(RuntimeEnv::default()),
        })
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes (at least 1 MiB).
    ///
    /// Errors: [`SessionError::DataFusion`] when the runtime cannot be built.
    pub fn new(limit: u64) -> Result<MemoryBudget> {
        let limit = limit.max(1 << 20);
        let pool: Arc<dyn MemoryPool> = Arc::new(FairSpillPool::new(
            usize::try_from(limit).unwrap_or(usize::MAX),
        ));
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(pool)
            .with_disk_manager_builder(
                DiskManagerBuilder::default().with_mode(DiskManagerMode::OsTmpDirectory),
            )
            .build_arc()?;
        Ok(MemoryBudget { limit, runtime })
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The runtime to build a `SessionContext` on.
    pub fn runtime(&self) -> Arc<RuntimeEnv> {
        self.runtime.clone()
    }

    /// Bytes reserved in the pool now (operators and kept tables of every pipeline).
    pub fn reserved(&self) -> u64 {
        self.runtime.memory_pool.reserved() as u64
    }

    /// A new account for one pipeline's kept tables.
    pub fn tables(&self, name: &str) -> TableMemory {
        TableMemory {
            budget: self.clone(),
            reservation: MemoryConsumer::new(format!("{name} stage tables"))
                .register(&self.runtime.memory_pool),
            sizes: Mutex::new(HashMap::new()),
        }
    }

    /// Refuses work predicted to need `bytes` more than is reserved now (e.g. the next
    /// perft level) when that exceeds the limit.
    ///
    /// Errors: [`SessionError::MemoryLimit`] naming `what`.
    pub fn check_estimate(&self, what: &str, bytes: u64) -> Result<()> {
        let total = self.reserved().saturating_add(bytes);
        if total > self.limit {
            return Err(self.exceeded(format!(
                "{what} would need about {} more ({} in all)",
                human(bytes),
                human(total)
            )));
        }
        Ok(())
    }

    /// The error of a stage that failed: [`SessionError::MemoryLimit`] when DataFusion ran out of
    /// pool memory (`ResourcesExhausted`, also when wrapped), else [`SessionError::DataFusion`].
    pub fn stage_error(&self, stage: &str, e: DataFusionError) -> SessionError {
        match e.find_root() {
            DataFusionError::ResourcesExhausted(why) => {
                self.exceeded(format!("stage {stage} ran out of memory: {why}"))
            }
            _ => SessionError::DataFusion(e),
        }
    }

    fn exceeded(&self, what: String) -> SessionError {
        SessionError::MemoryLimit {
            limit: self.limit,
            what,
        }
    }
}

/// The Arrow memory of one pipeline's kept tables, reserved in its [`MemoryBudget`]'s pool.
#[derive(Debug)]
pub struct TableMemory {
    budget: MemoryBudget,
    reservation: MemoryReservation,
    sizes: Mutex<HashMap<String, u64>>,
}

impl TableMemory {
    /// Records that table `name` now holds `batches` (their Arrow memory, buffers shared
    /// between batches counted once per batch), resizing the reservation.
    ///
    /// Errors: [`SessionError::MemoryLimit`] when the tables no longer fit in what the pool has
    /// left; the table's old size stays recorded then.
    pub fn account(&self, name: &str, batches: &[RecordBatch]) -> Result<()> {
        let bytes: u64 = batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum();
        self.account_bytes(name, bytes)
    }

    /// Records that `name` (a table, or other data kept between stages such as a perft
    /// level's nodes) now holds `bytes`, resizing the reservation.
    ///
    /// Errors: as [`TableMemory::account`].
    pub fn account_bytes(&self, name: &str, bytes: u64) -> Result<()> {
        let mut sizes = self.sizes.lock().map_err(|_| SessionError::Poisoned)?;
        let old = sizes.get(name).copied().unwrap_or(0);
        let total = (self.reservation.size() as u64 - old.min(self.reservation.size() as u64))
            .saturating_add(bytes);
        self.reservation
            .try_resize(usize::try_from(total).unwrap_or(usize::MAX))
            .map_err(|_| {
                self.budget.exceeded(format!(
                    "table {name} ({}) with the other stage tables kept ({} in all)",
                    human(bytes),
                    human(total)
                ))
            })?;
        sizes.insert(name.to_string(), bytes);
        Ok(())
    }

    /// Bytes of the tables now kept.
    pub fn bytes(&self) -> u64 {
        self.reservation.size() as u64
    }

    /// Bytes of the named tables (0 for a table never set).
    pub fn bytes_of<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> u64 {
        let Ok(sizes) = self.sizes.lock() else {
            return 0;
        };
        names.into_iter().filter_map(|n| sizes.get(n)).sum()
    }

    /// The budget this account draws on.
    pub fn budget(&self) -> &MemoryBudget {
        &self.budget
    }
}

/// The Arrow memory of batches with every buffer counted once, however many batches share
/// it (slices of one batch, a stage's output kept in two tables).
pub fn arrow_bytes<'a>(batches: impl IntoIterator<Item = &'a RecordBatch>) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0u64;
    for batch in batches {
        for c in batch.columns() {
            let data = c.to_data();
            let nulls = data.nulls().map(|n| n.buffer());
            for buf in data.buffers().iter().chain(nulls) {
                if seen.insert(buf.data_ptr()) {
                    bytes += buf.capacity() as u64;
                }
            }
        }
    }
    bytes
}

/// [`DEFAULT_FRACTION`] of the physical memory (`MemTotal` of `/proc/meminfo`), or 4 GiB
/// where that cannot be read.
pub fn default_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some((kib as f64 * 1024.0 * DEFAULT_FRACTION) as u64)
        })
        .unwrap_or(FALLBACK_LIMIT)
}

/// Parses a size: bytes (`1000000`) or a number with a unit as the `bytesize` crate reads
/// it (`512 MiB`, `2GiB`, `1.5G`; `K`/`KB`/`M`/`MB`/`G`/`GB` are powers of 1000,
/// `Ki`/`KiB`/`Mi`/`MiB`/`Gi`/`GiB` of 1024, case-insensitive).
///
/// Errors: [`SessionError::Size`] naming the text.
pub fn parse_size(text: &str) -> Result<u64> {
    text.trim()
        .parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|reason| SessionError::Size {
            text: text.to_string(),
            reason,
        })
}

/// Bytes as `1.5 GiB`.
pub fn human(bytes: u64) -> String {
    bytesize::ByteSize(bytes).display().iec().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Int64Array};

    fn batch(rows: i64) -> RecordBatch {
        let col: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows));
        RecordBatch::try_from_iter([("x", col)]).expect("batch")
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1000000").ok(), Some(1_000_000));
        assert_eq!(parse_size("512 MiB").ok(), Some(512 << 20));
        assert_eq!(parse_size("2GiB").ok(), Some(2 << 30));
        assert_eq!(parse_size("3 GB").ok(), Some(3_000_000_000));
        assert!(matches!(parse_size("lots"), Err(SessionError::Size { .. })));
        assert!(default_limit() >= 1 << 20);
    }

    #[test]
    fn tables_are_reserved_and_limited() {
        let budget = MemoryBudget::new(2 << 20).expect("budget");
        let t = budget.tables("test");
        t.account("a", &[batch(1000)]).expect("fits");
        let one = t.bytes();
        assert!(one >= 8000, "{one}");
        assert_eq!(budget.reserved(), one);
        // replacing a table replaces its size
        t.account("a", &[batch(1000)]).expect("fits");
        assert_eq!(t.bytes(), one);
        t.account("b", &[batch(1000)]).expect("fits");
        assert_eq!(t.bytes(), 2 * one);
        assert_eq!(t.bytes_of(["b", "never"]), one);
        // 4 MiB of rows do not fit in 2 MiB
        let err = t
            .account("c", &[batch(1 << 19)])
            .expect_err("over the limit");
        assert!(matches!(err, SessionError::MemoryLimit { limit, .. } if limit == 2 << 20));
        assert!(
            err.to_string()
                .contains("memory limit of 2.0 MiB exceeded: table c"),
            "{err}"
        );
        assert_eq!(t.bytes(), 2 * one);
        t.account("a", &[]).expect("shrinks");
        assert_eq!(t.bytes(), one);
        assert!(budget.check_estimate("level 5", 1 << 30).is_err());
        assert!(budget.check_estimate("level 2", 1 << 10).is_ok());
    }
}
