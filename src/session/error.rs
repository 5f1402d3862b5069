//! Errors of the stage session.

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;

/// Errors of [`crate::session::Session`]: planning, running and filling stage tables.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A stage's SQL did not plan.
    #[error("stage {stage}: {source}")]
    Plan {
        /// The stage.
        stage: String,
        /// DataFusion's error.
        #[source]
        source: DataFusionError,
    },
    /// A stage of a workflow reads a table that no input, static table or earlier stage of
    /// the workflow produces.
    #[error("workflow {workflow}: stage {stage} reads {table}, which is not produced before it")]
    StageOrder {
        /// The workflow (a named list of stages).
        workflow: String,
        /// The stage.
        stage: String,
        /// The table it reads too early.
        table: String,
    },
    /// Batches given for a table do not have the table's columns (matched by name).
    #[error("table {table}: columns missing {missing:?}, columns not in the table {extra:?}")]
    Columns {
        /// The table.
        table: String,
        /// Columns of the table the batches lack.
        missing: Vec<String>,
        /// Columns of the batches the table lacks.
        extra: Vec<String>,
    },
    /// A column read by name is missing, of a type that cannot be cast to the one asked
    /// for, or NULL where a value is required.
    #[error("column {column}: {reason}")]
    Column {
        /// The column.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// No such table or stage.
    #[error("unknown table or stage {0:?}")]
    UnknownTable(String),
    /// DataFusion failed while executing.
    #[error(transparent)]
    DataFusion(#[from] DataFusionError),
    /// Arrow failed (casting, building batches).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// The run needs more memory than its limit (`--memory-limit`,
    /// [`crate::session::memory::MemoryBudget`]) allows.
    /// The advice names a limit to try: twice this one
    /// ([`crate::session::memory::suggested_limit`]).
    #[error("memory limit of {} exceeded: {what}; raise it: --memory-limit {}", crate::session::memory::human(*.limit), crate::session::memory::suggested_limit(*.limit))]
    MemoryLimit {
        /// The run's limit in bytes.
        limit: u64,
        /// What needed the memory.
        what: String,
    },
    /// A `--memory-limit` below the smallest a run can work with
    /// ([`crate::session::memory::MIN_LIMIT`]), or its pipelines side by side
    /// ([`crate::session::memory::MIN_PIPELINE`] each).
    #[error("memory limit of {} is too small for {what}: give at least {} (--memory-limit {})", crate::session::memory::human(*.limit), crate::session::memory::human(*.min), crate::session::memory::as_argument(*.min))]
    LimitTooSmall {
        /// The limit given, in bytes.
        limit: u64,
        /// The smallest accepted.
        min: u64,
        /// What needs it (`a run`, `4 pipelines side by side …`).
        what: String,
    },
    /// A memory size that does not parse ([`crate::session::memory::parse_size`]).
    #[error("memory limit {text:?}: {reason}")]
    Size {
        /// The text given.
        text: String,
        /// Why it does not parse.
        reason: String,
    },
    /// A lock was poisoned by a panic in another thread.
    #[error("internal lock poisoned")]
    Poisoned,
}
