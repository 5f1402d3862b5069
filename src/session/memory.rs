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
//! the limit holds for all of them together; pipelines that run side by side are given
//! shares instead (below).
//!
//! A run that cannot stay within the limit stops with [`SessionError::MemoryLimit`], naming the
//! limit, what needed the memory and the limit to try instead; code that can predict a size
//! (perft levels) checks it first with [`MemoryBudget::check_estimate`].
//!
//! **Shares.** Pipelines that run side by side (`validate`'s, perft's workers, the SQL
//! functions' engines) do not draw on one pool: each gets a share of the limit, reserved in
//! the run's pool when the pipeline is made ([`MemoryBudget::share`]) and enforced by a pool of
//! its own. Whether a pipeline fits then depends on its own work only, never on how its
//! allocations interleave with the others' on other threads (with one shared pool, the same
//! run could fit one time and fail the next). Limits below [`MIN_LIMIT`] are refused up
//! front ([`MemoryBudget::for_run`]).

use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, TrackConsumersPool,
};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};

use super::{Result, SessionError};

/// Share of the physical memory a run may use when no limit is given.
pub const DEFAULT_FRACTION: f64 = 0.5;

/// The default limit when the physical memory cannot be read (not Linux): 4 GiB.
const FALLBACK_LIMIT: u64 = 4 << 30;

/// The smallest `--memory-limit` a run can work with: one pipeline ([`MIN_PIPELINE`]) and
/// room for the run's own operators. Smaller limits are refused up front
/// ([`MemoryBudget::for_run`]).
pub const MIN_LIMIT: u64 = 32 << 20;

/// The smallest `--memory-limit` a run of `threads` target partitions works with:
/// [`MIN_LIMIT`], or 16 MiB and 1 MiB per partition, whichever is more (each partition of a
/// stage builds hash tables of its own; measured on `moves` and `perft`: 32 partitions fail
/// under 32 MiB, 48 work under 48 MiB, 256 under 128 MiB).
#[must_use]
pub fn min_limit(threads: usize) -> u64 {
    MIN_LIMIT.max((16 << 20) + (threads as u64).saturating_mul(1 << 20))
}

/// The smallest share of a limit one pipeline works with: the hash tables its stages build
/// over the static tables and its stage tables for a few positions take up to about 16 MiB
/// (measured: `perft` workers need 16 MiB, `validate` of the sample's games one at a time
/// 20 MiB). Runs with pipelines side by side have as many as get this much each
/// ([`MemoryBudget::pipelines`]) or, where the count is the user's (`validate --threads`),
/// refuse a smaller limit up front ([`MemoryBudget::check_pipelines`]).
pub const MIN_PIPELINE: u64 = 24 << 20;

/// Refuses `n` pipelines side by side in a pool of `limit` bytes (of a run's `run_limit`,
/// named in the error) when each would get less than [`MIN_PIPELINE`].
fn side_by_side(limit: u64, run_limit: u64, n: usize) -> Result<()> {
    let min = MIN_PIPELINE.saturating_mul(n as u64).max(MIN_LIMIT);
    if n > 1 && limit < min {
        return Err(SessionError::LimitTooSmall {
            limit: run_limit,
            min,
            what: format!(
                "{n} pipelines side by side (--threads {n}), which need {} each",
                human(MIN_PIPELINE)
            ),
        });
    }
    Ok(())
}

/// Consumers named in a [`SessionError::MemoryLimit`] message: the largest holders of the
/// pool when an allocation failed.
const TOP_CONSUMERS: usize = 3;

/// A memory limit and the DataFusion runtime that enforces it; cheap to clone (clones share
/// the pool).
#[derive(Clone)]
pub struct MemoryBudget {
    /// Bytes of this budget's pool.
    limit: u64,
    /// The run's limit (`--memory-limit`) this budget is a share of (its own limit when it is
    /// no share): the limit errors name.
    run_limit: u64,
    /// A share's name and reservation ([`MemoryBudget::share`]); `None` for a run's budget.
    share: Option<Arc<Share>>,
    pool: Arc<PeakPool>,
    runtime: Arc<RuntimeEnv>,
}

/// A share's name and its reservation in the run's pool (released when the share's last
/// clone is dropped).
#[derive(Debug)]
struct Share {
    name: String,
    _held: MemoryReservation,
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.share {
            Some(s) => write!(
                f,
                "MemoryBudget({} of {}, {})",
                human(self.limit),
                human(self.run_limit),
                s.name
            ),
            None => write!(f, "MemoryBudget({})", human(self.limit)),
        }
    }
}

/// The pool of a budget: DataFusion's [`FairSpillPool`] (spilling operators share what the
/// others leave), wrapped to name the largest holders when an allocation fails
/// ([`TrackConsumersPool`]) and to record the most ever reserved at once.
#[derive(Debug)]
struct PeakPool {
    inner: TrackConsumersPool<FairSpillPool>,
    peak: AtomicUsize,
}

impl PeakPool {
    fn new(bytes: usize) -> PeakPool {
        PeakPool {
            inner: TrackConsumersPool::new(
                FairSpillPool::new(bytes),
                NonZeroUsize::new(TOP_CONSUMERS).unwrap_or(NonZeroUsize::MIN),
            ),
            peak: AtomicUsize::new(0),
        }
    }

    fn note(&self) {
        self.peak
            .fetch_max(self.inner.reserved(), Ordering::Relaxed);
    }
}

impl fmt::Display for PeakPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "peak({})", self.inner)
    }
}

impl MemoryPool for PeakPool {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.inner.register(consumer);
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.inner.unregister(consumer);
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.grow(reservation, additional);
        self.note();
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.shrink(reservation, shrink);
    }

    fn try_grow(
        &self,
        reservation: &MemoryReservation,
        additional: usize,
    ) -> datafusion::error::Result<()> {
        self.inner.try_grow(reservation, additional)?;
        self.note();
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.inner.memory_limit()
    }
}

impl Default for MemoryBudget {
    /// [`default_limit`]. Falls back to DataFusion's default runtime (no limit) in the
    /// unlikely case the runtime cannot be built.
    fn default() -> Self {
        let limit = default_limit();
        MemoryBudget::new(limit).unwrap_or_else(|_| {
            let pool = Arc::new(PeakPool::new(usize::try_from(limit).unwrap_or(usize::MAX)));
            MemoryBudget {
                limit,
                run_limit: limit,
                share: None,
                pool,
                runtime: Arc::new(RuntimeEnv::default()),
            }
        })
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes (at least 1 MiB), for library use and tests; the command
    /// line uses [`MemoryBudget::for_run`].
    ///
    /// Errors: [`SessionError::DataFusion`] when the runtime cannot be built.
    pub fn new(limit: u64) -> Result<MemoryBudget> {
        let limit = limit.max(1 << 20);
        let pool = Arc::new(PeakPool::new(usize::try_from(limit).unwrap_or(usize::MAX)));
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(pool.clone() as Arc<dyn MemoryPool>)
            .with_disk_manager_builder(
                DiskManagerBuilder::default().with_mode(DiskManagerMode::OsTmpDirectory),
            )
            .build_arc()?;
        Ok(MemoryBudget {
            limit,
            run_limit: limit,
            share: None,
            pool,
            runtime,
        })
    }

    /// The budget of a run given `--memory-limit limit` and `--threads threads`, of which
    /// `pipelines` run side by side (`validate`'s; 1 for other commands).
    ///
    /// Errors: [`SessionError::LimitTooSmall`] below [`min_limit`] or below what the
    /// pipelines side by side need ([`MemoryBudget::check_pipelines`]), naming the larger of
    /// the two; as [`MemoryBudget::new`].
    pub fn for_run(limit: u64, threads: usize, pipelines: usize) -> Result<MemoryBudget> {
        let min = min_limit(threads);
        if pipelines > 1 && MIN_PIPELINE.saturating_mul(pipelines as u64) > min {
            side_by_side(limit, limit, pipelines)?;
        }
        if limit < min {
            return Err(SessionError::LimitTooSmall {
                limit,
                min,
                what: if min > MIN_LIMIT {
                    format!("a run with --threads {threads}")
                } else {
                    "a run".into()
                },
            });
        }
        MemoryBudget::new(limit)
    }

    /// A share of `bytes` of this budget for one of several pipelines that run side by side
    /// (`name` says which, in errors): reserved in this budget's pool now, for as long as the
    /// share (or a clone) lives, and enforced by a pool of its own, so that what the share's
    /// pipeline can do never depends on the others' allocations (see the module docs).
    ///
    /// Errors: [`SessionError::MemoryLimit`] when this budget's pool cannot give `bytes`
    /// now; as [`MemoryBudget::new`].
    pub fn share(&self, name: &str, bytes: u64) -> Result<MemoryBudget> {
        let held = MemoryConsumer::new(format!("{name} (its share, reserved up front)"))
            .register(&self.runtime.memory_pool);
        held.try_grow(usize::try_from(bytes).unwrap_or(usize::MAX))
            .map_err(|_| {
                self.exceeded(format!(
                    "{name} could not reserve its share of {} ({} of the pool in use)",
                    human(bytes),
                    human(self.reserved())
                ))
            })?;
        let mut share = MemoryBudget::new(bytes)?;
        share.run_limit = self.run_limit;
        share.share = Some(Arc::new(Share {
            name: name.to_string(),
            _held: held,
        }));
        Ok(share)
    }

    /// `n` shares of an equal part of `fraction` of this budget, named `name 1` … `name n`
    /// ([`MemoryBudget::share`]).
    ///
    /// Errors: as [`MemoryBudget::share`].
    pub fn shares(&self, name: &str, n: usize, fraction: f64) -> Result<Vec<MemoryBudget>> {
        let each = self.share_bytes(n, fraction);
        (1..=n.max(1))
            .map(|k| self.share(&format!("{name} {k}"), each))
            .collect()
    }

    /// The bytes of each of `n` equal shares of `fraction` of this budget.
    #[must_use]
    pub fn share_bytes(&self, n: usize, fraction: f64) -> u64 {
        (self.limit as f64 * fraction / n.max(1) as f64) as u64
    }

    /// How many pipelines side by side get at least `min` bytes each ([`MIN_PIPELINE`], or
    /// less for a pipeline that runs fewer stages) out of `fraction` of this budget: `wanted`
    /// at most, 1 at least.
    #[must_use]
    pub fn pipelines(&self, wanted: usize, fraction: f64, min: u64) -> usize {
        let fit = (self.limit as f64 * fraction / min.max(1) as f64) as usize;
        wanted.min(fit).max(1)
    }

    /// Refuses `n` pipelines side by side sharing the whole budget when each would get less
    /// than [`MIN_PIPELINE`].
    ///
    /// Errors: [`SessionError::LimitTooSmall`] naming the limit they need.
    pub fn check_pipelines(&self, n: usize) -> Result<()> {
        side_by_side(self.limit, self.run_limit, n)
    }

    /// The bytes of this budget's pool (for a share, the share's).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The run's limit: [`MemoryBudget::limit`], or for a share the limit of the budget it
    /// was taken from.
    pub fn run_limit(&self) -> u64 {
        self.run_limit
    }

    /// The most bytes this budget's pool held at once so far (operators and kept tables; a
    /// share's reservation counts in the budget it was taken from).
    pub fn peak(&self) -> u64 {
        self.pool.peak.load(Ordering::Relaxed) as u64
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
        self.query_error(&format!("stage {stage}"), e)
    }

    /// [`MemoryBudget::stage_error`] for any query (`what` names it, e.g. `"the query"`).
    pub fn query_error(&self, what: &str, e: DataFusionError) -> SessionError {
        match e.find_root() {
            DataFusionError::ResourcesExhausted(why) => {
                self.exceeded(format!("{what} ran out of memory: {why}"))
            }
            _ => SessionError::DataFusion(e),
        }
    }

    fn exceeded(&self, what: String) -> SessionError {
        let what = match &self.share {
            Some(s) => format!("{} (its share: {}): {what}", s.name, human(self.limit)),
            None => what,
        };
        SessionError::MemoryLimit {
            limit: self.run_limit,
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
    /// Records that table `name` now holds `batches` (their Arrow memory, every buffer
    /// counted once however many batches share it: [`arrow_bytes`]; a static table cut
    /// into one slice per partition is counted once, whatever `--threads`), resizing the
    /// reservation.
    ///
    /// Errors: [`SessionError::MemoryLimit`] when the tables no longer fit in what the pool has
    /// left; the table's old size stays recorded then.
    pub fn account(&self, name: &str, batches: &[RecordBatch]) -> Result<()> {
        self.account_bytes(name, arrow_bytes(batches))
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

/// The limit to try after a run failed at `limit`: twice as much, in whole MiB and at least
/// [`MIN_LIMIT`], written as `--memory-limit` takes it (`128MiB`, `2GiB`).
pub fn suggested_limit(limit: u64) -> String {
    as_argument(limit.saturating_mul(2).max(MIN_LIMIT))
}

/// `bytes` rounded up to whole MiB, written as `--memory-limit` takes it (`96MiB`, `2GiB`).
pub fn as_argument(bytes: u64) -> String {
    let mib = bytes.div_ceil(1 << 20);
    if mib.is_multiple_of(1024) {
        format!("{}GiB", mib / 1024)
    } else {
        format!("{mib}MiB")
    }
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
