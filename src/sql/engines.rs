//! Engines for the SQL layer: a pool of planned [`Engine`]s and the bridge from DataFusion's
//! synchronous function calls to the asynchronous pipeline.
//!
//! An engine's stage tables are its state, so one engine serves one call at a time: each
//! scan chunk or function call takes an engine from the pool (making a new one when none
//! is idle, up to one per core), uses it alone and gives it back, and concurrent partitions
//! never share one. The pool plans its stages once: every engine it hands out is a twin of
//! one planned engine that never runs ([`Engine::twin`]), and a scan that will run the
//! rules has that engine planned while it reads its first games ([`EnginePool::warm_up`]).
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::engine::{Engine, thread_runtime};
use crate::error::{Error, Result};
use crate::session::PipelineConfig;
use crate::session::memory::{MIN_PIPELINE, MemoryBudget};
use crate::stages::Stage;

/// Engines kept between calls (the pipeline is planned once per pool: every engine is a
/// twin of its prototype), at most one per core: a call that finds none idle when that many
/// exist waits until one is given back, so that a scan of many files or many concurrent
/// batches never makes more engines (and holds more stage tables in memory) than the cores
/// can run. Engines are held only while their stages run, never while a caller waits on
/// its consumer, so waiting cannot deadlock.
pub(crate) struct EnginePool {
    /// Idle engines and the number made so far.
    state: Mutex<(Vec<Engine>, usize)>,
    given_back: Condvar,
    limit: usize,
    /// The run's settings ([`EnginePool::with_config`]): each engine gets an equal share of
    /// [`ENGINES_SHARE`] of its memory limit. `None`: each engine its own default settings.
    config: Option<PipelineConfig>,
    /// The engine every engine handed out is a twin of: planned once, when first needed or
    /// ahead of that ([`EnginePool::warm_up`]), and never run.
    prototype: OnceLock<Engine>,
    /// Held while the prototype is planned or stages are planned on it: the others wait.
    planning: Mutex<()>,
    /// Whether a thread planning the prototype ahead was started.
    warming: AtomicBool,
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
            prototype: OnceLock::new(),
            planning: Mutex::new(()),
            warming: AtomicBool::new(false),
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

    /// The prototype's settings: the run's, one partition, a memory budget of its own (it
    /// holds no rows but the static tables' and takes no share of the run's limit).
    fn prototype_config(&self) -> PipelineConfig {
        PipelineConfig {
            target_partitions: 1,
            memory: MemoryBudget::default(),
            ..self.config.clone().unwrap_or_default()
        }
    }

    /// The prototype, planned on `rt` if it is not yet, with `stages` planned on it (their
    /// physical plans, which its twins made afterwards share); waits while another thread
    /// plans. Errors: as [`Engine::new`] and [`crate::stages::Pipeline::prepare`];
    /// [`Error::Internal`] when the planning lock is poisoned.
    fn prototype(&self, rt: &tokio::runtime::Runtime, stages: &[Stage]) -> Result<&Engine> {
        let _planning = self
            .planning
            .lock()
            .map_err(|_| Error::Internal("engine pool planning lock poisoned".into()))?;
        let prototype = match self.prototype.get() {
            Some(p) => p,
            None => {
                let planned = rt.block_on(Engine::new(self.prototype_config()))?;
                self.prototype.get_or_init(|| planned)
            }
        };
        prepare_side_by_side(prototype, rt, stages)?;
        Ok(prototype)
    }

    /// Plans the prototype and `stages` on it on a thread of its own, once per pool, so that
    /// the engines a scan takes when its first games are read are its twins, made without
    /// planning. A scan that will run the rules calls this when it starts reading. A failure
    /// is not reported here: [`EnginePool::take`] meets it again and returns it.
    pub(crate) fn warm_up(self: &Arc<Self>, stages: Vec<Stage>) {
        if self.prototype.get().is_some() || self.warming.swap(true, Ordering::AcqRel) {
            return;
        }
        let pool = self.clone();
        // no thread, no head start: the first take plans as before
        let _ = std::thread::Builder::new()
            .name("planning engines".into())
            .spawn(move || {
                if let Ok(rt) = thread_runtime() {
                    let _ = pool.prototype(&rt, &stages);
                }
            });
    }

    /// An idle engine, or a new twin of the prototype (made on `rt`, the prototype planned
    /// first if it is not yet) while fewer than the limit exist, else the next one given
    /// back. Errors: planning the prototype, making the twin (its memory share included);
    /// [`Error::Internal`] when the pool's lock is poisoned.
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
                let planned = self.engine_config(k).and_then(|config| {
                    let prototype = self.prototype(rt, &[])?;
                    rt.block_on(prototype.twin(config))
                });
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

/// Plans `stages` on `engine` ([`crate::stages::Pipeline::prepare`]) in two halves side by
/// side, one on `rt` and one on a thread of its own: each stage's plans are its own, and
/// planning them is most of the time a scan's first games wait for their engine.
///
/// Errors: those of planning; [`Error::Io`] when the thread's runtime cannot start;
/// [`Error::Internal`] when the thread panicked.
fn prepare_side_by_side(
    engine: &Engine,
    rt: &tokio::runtime::Runtime,
    stages: &[Stage],
) -> Result<()> {
    if stages.is_empty() {
        return Ok(());
    }
    let half = |h: usize| -> Vec<Stage> { stages.iter().skip(h).step_by(2).copied().collect() };
    let (first, second) = (half(0), half(1));
    std::thread::scope(|s| {
        let other = s.spawn(|| thread_runtime()?.block_on(engine.pipeline().prepare(&second)));
        let mine = rt.block_on(engine.pipeline().prepare(&first));
        let other = other
            .join()
            .map_err(|_| Error::Internal("a thread planning stages panicked".into()))?;
        mine.and(other)
    })
}

/// Runs `f` with an engine of `pool` and a runtime to drive it, on a dedicated thread (see
/// the module docs), and waits for it. Errors: those of `f`; making a new engine;
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
    use super::*;
    use crate::chess::setup::Setup;
    use crate::engine::row_count;
    use crate::validate::ValidateOptions;

    /// A warmed-up pool plans one prototype, never runs it, and hands out twins of it that
    /// run side by side, each on its own tables.
    #[test]
    fn a_pools_engines_are_twins_of_one_planned_prototype() -> Result<()> {
        let pool = Arc::new(EnginePool {
            limit: 2,
            ..EnginePool::default()
        });
        pool.warm_up(ValidateOptions::default().stages());
        let moves = with_engines(&pool, &[0usize, 1], 1, (|_| 1, 0), |part, e, rt| {
            let batches = rt.block_on(e.legal_moves(&vec![Setup::standard(); part.len()]))?;
            Ok(row_count(&batches))
        })?;
        assert_eq!(moves, vec![20, 20]);
        let prototype = pool.prototype.get().expect("planned");
        assert_eq!(prototype.pipeline().stage_runs(), 0);
        let (idle, made) = &*pool.state.lock().expect("lock");
        assert_eq!((idle.len(), *made), (2, 2));
        assert!(idle.iter().all(|e| e.pipeline().stage_runs() > 0));
        Ok(())
    }

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
