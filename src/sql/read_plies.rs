//! `read_plies(path)`: PGN files as a table of plies, one row per legal main-line ply of
//! every game (columns: [`super::read_plies_schema`]), read by the PGN scan
//! ([`super::scan`]) with the rules always on.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};

use super::ChessOptions;
use super::engines::EnginePool;
use super::scan::{PgnTable, Rows};

/// The `read_plies` table function. Its argument is a path literal as for `read_pgn` (a
/// file, a directory, a glob; compressed files by name or magic number).
///
/// Errors (planning): as `read_pgn`'s.
#[derive(Debug, Default)]
pub struct ReadPlies {
    pool: Arc<EnginePool>,
    /// The settings used when the calling session has none.
    defaults: ChessOptions,
}

impl ReadPlies {
    /// `read_plies` with engines from `pool`, and `defaults` where the calling session has no
    /// [`ChessOptions`].
    pub(crate) fn new(pool: Arc<EnginePool>, defaults: ChessOptions) -> ReadPlies {
        ReadPlies { pool, defaults }
    }
}

impl TableFunctionImpl for ReadPlies {
    fn call_with_args(
        &self,
        args: TableFunctionArgs,
    ) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        Ok(Arc::new(PgnTable::of_call(
            &args,
            self.pool.clone(),
            Rows::Plies,
            &self.defaults,
        )?))
    }
}
