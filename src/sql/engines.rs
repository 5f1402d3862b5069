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
}

impl Default for EnginePool {
    fn default() -> EnginePool {
        EnginePool {
            state: Mutex::new((vec![], 0)),
            given_back: Condvar::new(),
            limit: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
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

    /// An idle engine, or a newly planned one (planned on `rt`) while fewer than the limit
    /// exist, else the next one given back. Errors: planning a new engine;
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
                drop(state);
                let planned = rt.block_on(Engine::new(PipelineConfig {
                    target_partitions: 1,
                    ..PipelineConfig::default()
                }));
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
