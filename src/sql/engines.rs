//! Engines for the SQL layer: a pool of planned [`Engine`]s and the bridge from DataFusion's
//! synchronous function calls to the asynchronous pipeline.
//!
//! An engine's stage tables are its state, so one engine serves one call at a time: each
//! scan partition or function call takes an engine from the pool (planning a new one when
//! none is idle), uses it alone and gives it back, and concurrent partitions never share
//! one.
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
use std::sync::Mutex;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::session::PipelineConfig;

/// Engines kept between calls (the pipeline is planned once per engine).
#[derive(Default)]
pub(crate) struct EnginePool {
    idle: Mutex<Vec<Engine>>,
}

impl fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EnginePool")
    }
}

impl EnginePool {
    /// An idle engine, or a newly planned one (planned on `rt`).
    pub(crate) fn take(&self, rt: &tokio::runtime::Runtime) -> Result<Engine> {
        if let Some(e) = self.idle.lock().ok().and_then(|mut v| v.pop()) {
            return Ok(e);
        }
        rt.block_on(Engine::new(PipelineConfig {
            target_partitions: 1,
            ..PipelineConfig::default()
        }))
    }

    /// Returns an engine to the pool.
    pub(crate) fn give_back(&self, engine: Engine) {
        if let Ok(mut v) = self.idle.lock() {
            v.push(engine);
        }
    }
}

/// A current-thread Tokio runtime for one blocking thread.
pub(crate) fn thread_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| Error::Io {
            path: "tokio runtime".into(),
            source: e,
        })
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
