//! The crate's error type.

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;

use crate::chess::san::SanError;

/// Errors of sqlchess. Input faults of single games are not errors of the batch: they are
/// reported per game (see [`crate::validate::GameReport`]). [`Error::kind`] names the
/// variant.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr)]
pub enum Error {
    /// A picture could not be drawn or rasterised (`board_svg`, `sqlchess board`, charts).
    #[error("picture: {0}")]
    Picture(String),
    /// A FEN record is invalid (the field and the reason are given).
    #[error("invalid FEN {}: {source}", quoted(fen))]
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
    /// The stage session failed: a stage did not plan or reads a table before it is
    /// produced, batches do not have a table's columns, DataFusion failed running a stage.
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
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
    /// An input that is not PGN text: binary data, or a compression other than zstd, gzip
    /// and bzip2 ([`crate::io::input::not_text`]).
    #[error("{path}: not a PGN file: {reason}")]
    NotPgn {
        /// The input.
        path: String,
        /// What it is instead.
        reason: String,
    },
    /// No such table or stage.
    #[error("unknown table or stage {0:?}")]
    UnknownStage(String),
    /// A table's batches do not have the table's columns.
    #[error("schema mismatch: {0}")]
    Schema(String),
    /// Bad command-line or API argument.
    #[error("{0}")]
    Usage(String),
    /// A cluster could not be started, reached or used (feature `ballista`, `crate::cluster`),
    /// or a cluster command was given to a build without that feature.
    #[error("cluster: {0}")]
    Cluster(String),
    /// A broken invariant of the crate (a bug, not bad input): a lock poisoned by a panic in
    /// another thread, a worker thread that panicked, a stage output without a row the code
    /// relies on. The text says which.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why [`crate::Engine::play_tokens`] refused a move token in its position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The token is not a move (SAN, UCI, castling or a null move).
    #[error(transparent)]
    Syntax(#[from] SanError),
    /// No legal move of the side to move matches the token.
    #[error("no legal move matches")]
    NoLegalMove,
    /// Several legal moves match the token (SAN without enough disambiguation).
    #[error("{0} legal moves match")]
    Ambiguous(u64),
    /// The token carries the en passant mark (`exd6 e.p.`, FIDE Laws Appendix C.13) but
    /// the move it stands for is not an en passant capture.
    #[error("en passant mark on a move that is not an en passant capture")]
    NotEnPassant,
}

impl Error {
    /// The variant's name (`"Fen"`, `"Io"`, `"NotPgn"`, `"DataFusion"`, …), for bindings that
    /// raise an error of a kind (the Python package's `SqlchessError.kind`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// [`Error::Internal`] for a lock poisoned by a panic in another thread.
    pub fn poisoned<T>(_: std::sync::PoisonError<T>) -> Error {
        Error::Internal("lock poisoned by a panic in another thread".into())
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A text as an error message quotes it: at most 120 characters, then `…` and its length (a
/// megabyte argument gives a line, not a megabyte of message).
#[must_use]
pub fn quoted(text: &str) -> String {
    let n = text.chars().count();
    if n <= 120 {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(120).collect();
        format!("{head:?}… ({n} characters)")
    }
}
