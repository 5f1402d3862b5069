//! The crate's error type.

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;

/// Errors of sqlchess. Input faults of single games are not errors of the batch: they are
/// reported per game (see [`crate::validate::GameReport`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A FEN record is invalid (the field and the reason are given).
    #[error("invalid FEN {fen:?}: {source}")]
    Fen {
        /// The FEN text.
        fen: String,
        /// What is wrong with it.
        #[source]
        source: crate::chess::fen::FenError,
    },
    /// A stage's SQL did not plan.
    #[error("stage {stage}: {source}")]
    Plan {
        /// The stage.
        stage: String,
        /// DataFusion's error.
        #[source]
        source: DataFusionError,
    },
    /// DataFusion failed while executing.
    #[error(transparent)]
    DataFusion(#[from] DataFusionError),
    /// Arrow failed (casting, building batches, writing reports).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// Parquet writer failed.
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    /// Reading input or writing output failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// No such table or stage.
    #[error("unknown table or stage {0:?}")]
    UnknownStage(String),
    /// A table's batches do not have the table's columns.
    #[error("schema mismatch: {0}")]
    Schema(String),
    /// A move given to the API is not legal in its position.
    #[error("position {position}: {message}")]
    Move {
        /// Index of the position in the input.
        position: usize,
        /// What is wrong.
        message: String,
    },
    /// Bad command-line or API argument.
    #[error("{0}")]
    Usage(String),
    /// The run needs more memory than its limit (`--memory-limit`,
    /// [`crate::session::memory::MemoryBudget`]) allows.
    #[error("memory limit of {} exceeded: {what} (raise --memory-limit or use smaller batches)", crate::session::memory::human(*.limit))]
    MemoryLimit {
        /// The limit in bytes.
        limit: u64,
        /// What needed the memory.
        what: String,
    },
    /// A lock was poisoned by a panic in another thread.
    #[error("internal lock poisoned")]
    Poisoned,
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
