//! `read_pgn(path)`: PGN files as a table, one row per game (columns:
//! [`super::read_pgn_schema`]), read by the PGN scan ([`super::scan`]).

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};

use super::ChessOptions;
use super::engines::EnginePool;
use super::scan::{PgnTable, Rows};

/// The `read_pgn` table function. Its argument is a string literal: a file, a directory
/// (every `*.pgn`, `*.pgn.zst`, `*.pgn.gz`, `*.pgn.bz2` below it, see
/// [`crate::io::input::expand`]) or a glob pattern (`games/*.pgn.zst`). Compression is
/// recognised by the first bytes, whatever the name, as in `validate`.
///
/// Errors (planning): no argument or a non-literal one; a path that does not exist; a glob
/// that matches nothing; a directory (or glob) with no PGN file. Errors (execution): an
/// input that is not a PGN file ([`crate::Error::NotPgn`]).
#[derive(Debug, Default)]
pub struct ReadPgn {
    pool: Arc<EnginePool>,
    /// The settings used when the calling session has none.
    defaults: ChessOptions,
}

impl TableFunctionImpl for ReadPgn {
    fn call_with_args(
        &self,
        args: TableFunctionArgs,
    ) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        Ok(Arc::new(PgnTable::of_call(
            &args,
            self.pool.clone(),
            Rows::Games,
            &self.defaults,
        )?))
    }
}

impl ReadPgn {
    /// `read_pgn` with engines from `pool`, and `defaults` where the calling session has no
    /// [`ChessOptions`].
    pub(crate) fn new(pool: Arc<EnginePool>, defaults: ChessOptions) -> ReadPgn {
        ReadPgn { pool, defaults }
    }
}
