//! `sqlchess._sqlchess`, the extension module of the Python package `sqlchess`
//! (`python/sqlchess/__init__.py` is its interface; docs/python.md its guide):
//! - the chess functions as datafusion-python 55 takes foreign ones ([`capsules`]);
//! - queries on a session of our own, their results as Arrow streams ([`stream`]);
//! - `validate`, `perft`.
//!
//! Long calls release the GIL and raise `KeyboardInterrupt` on Ctrl-C ([`runtime::wait`]);
//! errors raise the package's `SqlchessError` with the Rust error's text and kind
//! ([`error::Failure`]).

mod capsules;
mod error;
mod in_runtime;
mod runtime;
mod stream;
mod validate;

use std::path::PathBuf;

use datafusion::sql::parser::DFParser;
use pyo3::prelude::*;
use sqlchess::sql::ChessOptions;
use sqlchess::{Engine, Error, PipelineConfig, Setup};

use crate::capsules::{ScalarFunction, Table, TableFunction};
use crate::error::Failure;
use crate::stream::{ArrowBatch, BatchStream};

/// The extension's Rust allocations (not Python's) go to mimalloc, as the command line's do:
/// `read_plies` from Python took 1.3–1.4 times the command line's time with the system
/// allocator (BENCHMARKS.md, "Python"). Buffers handed to pyarrow come back here to be freed
/// (their release callbacks are ours).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The table functions, their reads split at `split_bytes` (default 32 MiB) where the
/// calling session has no `sqlchess.split_bytes` (a datafusion-python session never has).
#[pyfunction]
#[pyo3(signature = (split_bytes = None))]
fn table_functions(split_bytes: Option<u64>) -> Vec<TableFunction> {
    let mut defaults = ChessOptions::default();
    if let Some(bytes) = split_bytes {
        defaults.split_bytes = bytes;
    }
    sqlchess::sql::table_functions(&defaults)
        .into_iter()
        .map(|(name, f)| TableFunction::new(name, f))
        .collect()
}

/// The scalar functions.
#[pyfunction]
fn scalar_functions() -> Vec<ScalarFunction> {
    sqlchess::sql::scalar_functions()
        .into_iter()
        .map(ScalarFunction::new)
        .collect()
}

/// The `openings` table.
#[pyfunction]
fn openings_table() -> Table {
    Table::new("openings", sqlchess::sql::openings_table())
}

/// The rows of the last of the SQL statements in `query` (`;`-separated, run in order) on
/// a session like `sqlchess sql`'s (every chess table and function, file paths as tables,
/// the default memory limit), as a stream.
#[pyfunction]
fn sql(py: Python<'_>, query: &str) -> PyResult<BatchStream> {
    let query = query.to_string();
    let stream = runtime::run(py, async move {
        let statements = DFParser::parse_sql(&query)?;
        let Some(last) = statements.len().checked_sub(1) else {
            let empty = "no SQL statement given: the query is empty";
            return Err(Failure::new("Usage", empty.into()));
        };
        let ctx = sqlchess::sql::context_with(&PipelineConfig::default()).enable_url_table();
        for (i, statement) in statements.into_iter().enumerate() {
            let plan = ctx.state().statement_to_plan(statement).await?;
            let df = ctx.execute_logical_plan(plan).await?;
            if i == last {
                return Ok(df.execute_stream().await?);
            }
            df.collect().await?;
        }
        Err(Failure::new("Internal", "no last statement".into()))
    })??;
    BatchStream::of_datafusion(stream)
}

/// `sqlchess validate`'s report rows of the games in `paths`, as a stream.
#[pyfunction(name = "validate")]
#[pyo3(signature = (paths, batch_size = 10_000, threads = None))]
fn validate_paths(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    batch_size: usize,
    threads: Option<usize>,
) -> PyResult<BatchStream> {
    let threads = threads.unwrap_or(PipelineConfig::default().target_partitions);
    validate::stream(py, paths, batch_size, threads)
}

/// The leaf nodes of the legal move tree of `fen`, `depth` plies deep.
#[pyfunction]
#[pyo3(signature = (fen, depth, chess960 = false))]
fn perft(py: Python<'_>, fen: &str, depth: u32, chess960: bool) -> PyResult<u64> {
    let fen = fen.to_string();
    let fen_error = |fen: &str, source| Error::Fen {
        fen: fen.to_string(),
        source,
    };
    let read = if chess960 {
        Setup::from_fen_chess960(&fen)
    } else {
        Setup::from_fen_auto(&fen)
    };
    let setup = read.map_err(|e| Failure::from(fen_error(&fen, e)))?;
    let nodes = runtime::run(py, async move {
        let engine = Engine::new(PipelineConfig::default()).await?;
        let checks = engine.check_setups(std::slice::from_ref(&setup)).await?;
        if let Some(Some(e)) = checks.first() {
            return Err(fen_error(&fen, e.clone()));
        }
        let counts = engine.perft(&[setup], depth).await?;
        Ok(counts.first().copied().unwrap_or(0))
    })?;
    Ok(nodes.map_err(Failure::from)?)
}

#[pymodule]
fn _sqlchess(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the DataFusion this module was built with, and the FFI's major version
    m.add("DATAFUSION_VERSION", datafusion::DATAFUSION_VERSION)?;
    m.add("DATAFUSION_MAJOR", datafusion_ffi::version())?;
    m.add_class::<TableFunction>()?;
    m.add_class::<ScalarFunction>()?;
    m.add_class::<Table>()?;
    m.add_class::<BatchStream>()?;
    m.add_class::<ArrowBatch>()?;
    m.add_function(wrap_pyfunction!(table_functions, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_functions, m)?)?;
    m.add_function(wrap_pyfunction!(openings_table, m)?)?;
    m.add_function(wrap_pyfunction!(sql, m)?)?;
    m.add_function(wrap_pyfunction!(validate_paths, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    Ok(())
}
