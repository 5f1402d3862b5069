//! `read_plies(path)`: PGN files as a table of plies, one row per legal main-line ply of
//! every game (columns: [`super::read_plies_schema`]), read by the PGN scan
//! ([`super::scan`]) with the rules always on.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};

use super::engines::EnginePool;
use super::scan::{PgnTable, Rows};

/// The `read_plies` table function. Its argument is a path literal as for `read_pgn` (a
/// file, a directory, a glob; compressed files by name or magic number).
///
/// Errors (planning): as `read_pgn`'s.
#[derive(Debug, Default)]
pub struct ReadPlies {
    pool: Arc<EnginePool>,
}

impl ReadPlies {
    /// `read_plies` with engines from `pool`.
    pub(crate) fn new(pool: Arc<EnginePool>) -> ReadPlies {
        ReadPlies { pool }
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
        )?))
    }
}
