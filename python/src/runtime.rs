//! The extension's tokio runtime, and waiting on it from Python with the GIL released and
//! Ctrl-C honoured.

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use pyo3::prelude::*;
use tokio::runtime::{Handle, Runtime};

use crate::error::Failure;

/// How often a wait looks for a pending `KeyboardInterrupt` (Ctrl-C).
const TICK: Duration = Duration::from_millis(100);

/// The runtime every call of the package runs on, started on first use: DataFusion's
/// streams and our scans, and the FFI objects handed to datafusion-python (their scans
/// and streams enter it; the host's own runtime is another library's tokio).
///
/// Errors: [`Failure`] of kind `Io` when its threads cannot start.
pub(crate) fn runtime() -> PyResult<&'static Runtime> {
    static RUNTIME: OnceLock<std::io::Result<Runtime>> = OnceLock::new();
    let built = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("sqlchess")
            .enable_all()
            .build()
    });
    match built {
        Ok(rt) => Ok(rt),
        Err(e) => Err(Failure::new("Io", format!("cannot start the runtime: {e}")).into()),
    }
}

/// [`runtime`]'s handle.
pub(crate) fn handle() -> PyResult<Handle> {
    Ok(runtime()?.handle().clone())
}

/// Runs `fut` to its end on [`runtime`] with the GIL released, looking every 100 ms for a
/// pending signal: Ctrl-C drops the future and raises `KeyboardInterrupt`. For futures that
/// yield often (a channel's `recv`); a long computation goes through [`run`].
pub(crate) fn wait<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = runtime()?;
    let mut fut = std::pin::pin!(fut);
    loop {
        // the timer is made inside the runtime (its clock is the runtime's)
        let step =
            py.detach(|| rt.block_on(async { tokio::time::timeout(TICK, fut.as_mut()).await }));
        match step {
            Ok(value) => return Ok(value),
            Err(_) => py.check_signals()?,
        }
    }
}

/// Runs `fut` as a task of [`runtime`] and [`wait`]s for it: Ctrl-C raises
/// `KeyboardInterrupt` within 100 ms even while the task computes without yielding, and
/// aborts the task (it stops at its next await).
///
/// Errors: a task that panicked, as [`Failure`] of kind `Internal`.
pub(crate) fn run<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = runtime()?.spawn(fut);
    let abort = task.abort_handle();
    match wait(py, task) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(Failure::new("Internal", format!("the call's task failed: {e}")).into()),
        Err(interrupted) => {
            abort.abort();
            Err(interrupted)
        }
    }
}
