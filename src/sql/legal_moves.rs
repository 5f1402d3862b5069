//! `legal_moves(fen)`: the legal moves of one position as a table.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{DataFusionError, plan_err};
use datafusion::datasource::MemTable;

use super::arguments::string_argument;
use super::engines::{EnginePool, with_engine};
use super::functions::{check_fens, legal_move_fields, legal_moves_of, shown};

/// The Arrow schema of `legal_moves(fen)`, one row per legal move ordered by `uci`: the
/// columns of [`crate::Engine::legal_moves`] without `position_id`: `move_code: Int32`,
/// `color`, `piece: Utf8`, `from_sq`, `to_sq: Int32` (a1 = 0), `promotion`, `captured: Utf8`
/// (uppercase letters, nullable), `is_capture`, `is_en_passant`, `is_castling: Boolean`,
/// `cap_sq`, `rook_from`, `rook_to: Int32` (nullable), `from_name`, `to_name`, `uci`,
/// `san: Utf8`, `is_check`, `is_mate: Boolean` (all nullable).
#[must_use]
pub fn legal_moves_schema() -> SchemaRef {
    Arc::new(Schema::new(legal_move_fields()))
}

/// The `legal_moves` table function. Its argument is a FEN string literal.
///
/// Errors (planning): no argument or a non-literal one; a FEN that breaks the FEN rules or
/// describes a position no game reaches (the message names the argument and the FEN field).
#[derive(Debug, Default)]
pub struct LegalMoves {
    pool: Arc<EnginePool>,
}

impl LegalMoves {
    pub(crate) fn new(pool: Arc<EnginePool>) -> LegalMoves {
        LegalMoves { pool }
    }
}

impl TableFunctionImpl for LegalMoves {
    fn call_with_args(
        &self,
        args: TableFunctionArgs,
    ) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let fen = string_argument("legal_moves", "a FEN", &args)?;
        let moves = with_engine(&self.pool, |engine, rt| {
            rt.block_on(async {
                match check_fens(engine, &[fen.as_str()]).await?.pop() {
                    Some(Ok(setup)) => Ok(Ok(legal_moves_of(engine, &[setup]).await?.0)),
                    Some(Err(e)) => Ok(Err(e)),
                    None => Err(crate::Error::Internal("legal_moves: no verdict".into())),
                }
            })
        })
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let moves = match moves {
            Ok(m) => m,
            Err(e) => {
                return plan_err!(
                    "legal_moves(fen): argument 1, the FEN {}, is not a valid position: field {e}",
                    shown(&fen)
                );
            }
        };
        let batch = RecordBatch::from(moves);
        Ok(Arc::new(MemTable::try_new(
            legal_moves_schema(),
            vec![vec![batch]],
        )?))
    }
}
