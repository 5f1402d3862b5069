//! Engines for the SQL layer: a pool of planned [`Engine`]s and the bridge from DataFusion's
//! synchronous function calls to the asynchronous pipeline.
//!
//! An engine's stage tables are its state, so one engine serves one call at a time: each
//! scan chunk or function call takes an engine from the pool (planning a new one when none
//! is idle, up to one per core), uses it alone and gives it back, and concurrent partitions
//! never share one.
//!
//! How a synchronous call reaches the pipeline ([`with_engine`]): DataFusion calls
//! `ScalarUDFImpl::invoke_with_args` and `TableFunctionImpl::call_with_args` on a thread of
//! its own (async) runtime, where blocking on another future is not allowed
//! (`Runtime::block_on` panics inside a runtime, `block_in_place` needs a multi-threaded
//! one). So the call runs on a dedicated scoped thread with a current-thread Tokio runtime,
//! which drives the engine's stages to completion while the caller waits for the thread.
//! The pipeline's own parallelism is one partition per engine; parallelism comes from
//! DataFusion running partitions (batches) on several threads, each with its own engine.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::engine::{Engine, thread_runtime};
use crate::error::{Error, Result};
use crate::session::PipelineConfig;
use crate::session::memory::MIN_PIPELINE;

/// Engines kept between calls (the pipeline is planned once per engine), at most one per
/// core: a call that finds none idle when that many exist waits until one is given back, so
/// that a scan of many files or many concurrent batches never plans more engines (and holds
/// more stage tables in memory) than the cores can run. Engines are held only while their
/// stages run, never while a caller waits on its consumer, so waiting cannot deadlock.
pub(crate) struct EnginePool {
    /// Idle engines and the number planned so far.
    state: Mutex<(Vec<Engine>, usize)>,
    given_back: Condvar,
    limit: usize,
    /// The run's settings ([`EnginePool::with_config`]): each engine gets an equal share of
    /// [`ENGINES_SHARE`] of its memory limit. `None`: each engine its own default settings.
    config: Option<PipelineConfig>,
}

/// The part of a session's memory limit ([`EnginePool::with_config`]) its engines' shares
/// take together; the rest is for the query's own operators (aggregations, sorts, joins).
pub(crate) const ENGINES_SHARE: f64 = 0.5;

impl Default for EnginePool {
    fn default() -> EnginePool {
        EnginePool {
            state: Mutex::new((vec![], 0)),
            given_back: Condvar::new(),
            limit: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            config: None,
        }
    }
}

impl fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EnginePool(limit {})", self.limit)
    }
}

impl EnginePool {
    /// The process's pool: [`super::register`] and the codecs' decoded scans
    /// ([`super::codec`]) share it, so a process never plans more engines than it has
    /// cores, however many sessions it serves.
    pub(crate) fn shared() -> Arc<EnginePool> {
        static SHARED: OnceLock<Arc<EnginePool>> = OnceLock::new();
        SHARED
            .get_or_init(|| Arc::new(EnginePool::default()))
            .clone()
    }

    /// A pool for one session of `config` (`sqlchess sql --threads N --memory-limit SIZE`):
    /// at most `config.target_partitions` engines (fewer when a share would be below
    /// [`crate::session::memory::MIN_PIPELINE`]: at least one), each with an equal share of
    /// [`ENGINES_SHARE`] of `config.memory`, reserved when the engine is planned
    /// ([`crate::session::memory::MemoryBudget::share`]).
    pub(crate) fn with_config(config: &PipelineConfig) -> EnginePool {
        EnginePool {
            // as many as get their smallest share
            limit: config.memory.pipelines(
                config.target_partitions.max(1),
                ENGINES_SHARE,
                MIN_PIPELINE,
            ),
            config: Some(config.clone()),
            ..EnginePool::default()
        }
    }

    /// The settings of the `k`-th engine (1-based) this pool plans. Errors: its memory share
    /// cannot be reserved.
    fn engine_config(&self, k: usize) -> Result<PipelineConfig> {
        Ok(match &self.config {
            None => PipelineConfig {
                target_partitions: 1,
                ..PipelineConfig::default()
            },
            Some(c) => {
                let bytes = c.memory.share_bytes(self.limit, ENGINES_SHARE);
                PipelineConfig {
                    target_partitions: 1,
                    memory: c.memory.share(&format!("SQL engine {k}"), bytes)?,
                    ..c.clone()
                }
            }
        })
    }

    /// An idle engine, or a newly planned one (planned on `rt`) while fewer than the limit
    /// exist, else the next one given back. Errors: planning a new engine (its memory share
    /// included); [`Error::Internal`] when the pool's lock is poisoned.
    pub(crate) fn take(&self, rt: &tokio::runtime::Runtime) -> Result<Engine> {
        let poisoned = || Error::Internal("engine pool lock poisoned".into());
        let mut state = self.state.lock().map_err(|_| poisoned())?;
        loop {
            if let Some(e) = state.0.pop() {
                return Ok(e);
            }
            if state.1 < self.limit {
                state.1 += 1;
                let k = state.1;
                drop(state);
                let planned = self
                    .engine_config(k)
                    .and_then(|config| rt.block_on(Engine::new(config)));
                if planned.is_err()
                    && let Ok(mut s) = self.state.lock()
                {
                    s.1 -= 1;
                    self.given_back.notify_one();
                }
                return planned;
            }
            state = self.given_back.wait(state).map_err(|_| poisoned())?;
        }
    }

    /// Returns an engine to the pool.
    pub(crate) fn give_back(&self, engine: Engine) {
        if let Ok(mut s) = self.state.lock() {
            s.0.push(engine);
            self.given_back.notify_one();
        }
    }
}

/// Runs `f` with an engine of `pool` and a runtime to drive it, on a dedicated thread (see
/// the module docs), and waits for it. Errors: those of `f`; planning a new engine;
/// [`Error::Internal`] when the thread panicked.
pub(crate) fn with_engine<T: Send>(
    pool: &EnginePool,
    f: impl FnOnce(&Engine, &tokio::runtime::Runtime) -> Result<T> + Send,
) -> Result<T> {
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = thread_runtime()?;
            let engine = pool.take(&rt)?;
            let out = f(&engine, &rt);
            pool.give_back(engine);
            out
        })
        .join()
        .map_err(|_| Error::Internal("a chess function's engine thread panicked".into()))?
    })
}

/// Runs `f` on consecutive parts of `items` at once, each part on an engine of its own
/// ([`with_engine`]): as many parts as `pool` has engines at most, each of at least
/// `min_part` items, cut where the items' `weight` (their work: a game's movetext bytes)
/// is shared equally. A function call gets one batch from one partition; this gives its
/// work every core. Returns the results in the order of the parts. Errors: the first of
/// the parts' errors.
pub(crate) fn with_engines<I: Sync, T: Send>(
    pool: &EnginePool,
    items: &[I],
    min_part: usize,
    weight: impl Fn(&I) -> usize,
    f: impl Fn(&[I], &Engine, &tokio::runtime::Runtime) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let parts = pool.limit.min(items.len() / min_part.max(1)).max(1);
    if parts == 1 {
        return Ok(vec![with_engine(pool, |e, rt| f(items, e, rt))?]);
    }
    // part k ends at the first item where the running weight reaches k / parts of the total
    let total: usize = items.iter().map(&weight).sum::<usize>().max(1);
    let mut ends = vec![];
    let mut running = 0usize;
    for (i, item) in items.iter().enumerate() {
        running += weight(item);
        if ends.len() + 1 < parts && running.saturating_mul(parts) >= total * (ends.len() + 1) {
            ends.push(i + 1);
        }
    }
    ends.push(items.len());
    let mut start = 0;
    let cut: Vec<&[I]> = ends
        .into_iter()
        .filter_map(|end| {
            let part = items.get(start..end).filter(|p| !p.is_empty());
            start = end;
            part
        })
        .collect();
    let f = &f;
    std::thread::scope(|s| {
        let running: Vec<_> = cut
            .into_iter()
            .map(|part| s.spawn(move || with_engine(pool, |e, rt| f(part, e, rt))))
            .collect();
        running
            .into_iter()
            .map(|t| {
                t.join().map_err(|_| {
                    Error::Internal("a chess function's engine thread panicked".into())
                })?
            })
            .collect()
    })
}
