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

    /// Into how many parts [`with_engines`] cuts `items` items of which a part holds at
    /// least `min_part`: one per engine at most, at least one.
    pub(crate) fn parts(&self, items: usize, min_part: usize) -> usize {
        self.limit.min(items / min_part.max(1)).max(1)
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
    std::thread::scope(|s| joined(s.spawn(|| on_engine(pool, f))))
}

/// `f` with an engine of `pool` and a runtime of this thread's; the engine goes back to
/// the pool afterwards.
fn on_engine<T>(
    pool: &EnginePool,
    f: impl FnOnce(&Engine, &tokio::runtime::Runtime) -> Result<T>,
) -> Result<T> {
    let rt = thread_runtime()?;
    let engine = pool.take(&rt)?;
    let out = f(&engine, &rt);
    pool.give_back(engine);
    out
}

/// What an engine thread returned; [`Error::Internal`] when it panicked.
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    thread
        .join()
        .map_err(|_| Error::Internal("a chess function's engine thread panicked".into()))?
}

/// Runs `f` on consecutive parts of `items` at once, each part on an engine of its own
/// ([`with_engine`]): as many parts as `pool` has engines at most, each of at least
/// `min_part` items when all are cut alike. A function call gets one batch from one
/// partition; this gives its work every core. Returns the results in the order of the
/// parts. Errors: the first of the parts' errors.
///
/// A part's cost is its items' `weight` (their plies) plus `step` times its heaviest
/// item's: replay runs one step per ply of a part's longest game, and each step has a
/// fixed cost whatever its rows ([`cut_parts`]). The cuts make the dearest part as cheap
/// as they can; items sorted by weight, heaviest first, put the long games together so
/// that one part pays for the long tail of steps.
pub(crate) fn with_engines<I: Sync, T: Send>(
    pool: &EnginePool,
    items: &[I],
    min_part: usize,
    (weight, step): (impl Fn(&I) -> usize, usize),
    f: impl Fn(&[I], &Engine, &tokio::runtime::Runtime) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let parts = pool.parts(items.len(), min_part);
    if parts == 1 {
        return Ok(vec![with_engine(pool, |e, rt| f(items, e, rt))?]);
    }
    let weights: Vec<usize> = items.iter().map(weight).collect();
    let mut start = 0;
    let cut: Vec<&[I]> = cut_parts(&weights, step, parts)
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
            .map(|part| s.spawn(move || on_engine(pool, |e, rt| f(part, e, rt))))
            .collect();
        running.into_iter().map(joined).collect()
    })
}

/// The ends of at most `parts` consecutive parts of items of weights `weights`, a part's
/// cost being the sum of its weights plus `step` times its largest: the least largest
/// cost found by bisection, the parts packed greedily under it.
fn cut_parts(weights: &[usize], step: usize, parts: usize) -> Vec<usize> {
    // the ends of parts of cost at most `most` each, packed greedily
    let pack = |most: usize| {
        let mut ends = vec![];
        let (mut sum, mut max) = (0usize, 0usize);
        for (i, &w) in weights.iter().enumerate() {
            let (s, m) = (sum + w, max.max(w));
            if i > 0 && s + step * m > most {
                ends.push(i);
                (sum, max) = (w, w);
            } else {
                (sum, max) = (s, m);
            }
        }
        ends.push(weights.len());
        ends
    };
    let total: usize = weights.iter().sum();
    let heaviest = weights.iter().copied().max().unwrap_or(0);
    let (mut low, mut high) = (heaviest * (step + 1), total + step * heaviest);
    while low < high {
        let mid = low + (high - low) / 2;
        if pack(mid).len() <= parts {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    pack(high)
}

#[cfg(test)]
mod tests {
    use super::cut_parts;

    /// The dearest part's cost: its weights plus `step` times its largest.
    fn dearest(weights: &[usize], ends: &[usize], step: usize) -> usize {
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let part = &weights[start..end];
                start = end;
                part.iter().sum::<usize>() + step * part.iter().max().copied().unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }

    /// The cuts are consecutive, cover every item, and leave the dearest part as cheap as
    /// the best cut in two found by trying every one.
    #[test]
    fn parts_are_as_cheap_as_the_best_cut() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize
        };
        for round in 0..200 {
            let n = 2 + next() % 40;
            let mut weights: Vec<usize> = (0..n).map(|_| next() % 300).collect();
            if round % 2 == 0 {
                weights.sort_by(|a, b| b.cmp(a));
            }
            let step = [0, 1, 4, 400][round % 4];
            let ends = cut_parts(&weights, step, 2);
            assert!(
                ends.len() <= 2 && ends.last() == Some(&n),
                "{weights:?}: {ends:?}"
            );
            assert!(ends.windows(2).all(|w| w[0] < w[1]), "{ends:?}");
            let best = (1..n)
                .map(|c| dearest(&weights, &[c, n], step))
                .chain([dearest(&weights, &[n], step)])
                .min()
                .unwrap_or(0);
            assert_eq!(
                dearest(&weights, &ends, step),
                best,
                "{weights:?} step {step}"
            );
        }
        assert_eq!(cut_parts(&[], 400, 2), vec![0]);
        assert_eq!(cut_parts(&[0, 0, 0], 400, 2), vec![3]);
        assert_eq!(cut_parts(&[5, 5, 5, 5], 0, 4), vec![1, 2, 3, 4]);
    }
}
