//! The `openings` table: one row per named opening of lichess-org/chess-openings
//! ([`super::Book`]), replayed on the first scan of the process.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{RecordBatch, StringArray, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::DataFusionError;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;

use super::{Opening, book};
use crate::sql::engines::EnginePool;

/// The table `openings` ([`crate::sql::register`] registers it on every session), in file
/// order (`a.tsv` … `e.tsv`, 3,807 rows). Arrow schema:
///
/// | column | type | |
/// |---|---|---|
/// | `eco` | Utf8 | ECO code (`B90`) |
/// | `name` | Utf8 | the opening's name (`Sicilian Defense: Najdorf Variation`) |
/// | `pgn` | Utf8 | its moves as the file writes them (`1. e4 c5 2. Nf3 d6 …`) |
/// | `uci` | Utf8 | the moves in UCI, separated by spaces (castling as the king's move, `e1g1`) |
/// | `epd` | Utf8 | the position reached: placement, side to move, castling, en passant square only when an en passant capture is legal (python-chess `board.epd()`, as `epd(fen)` writes it) |
/// | `ply` | UInt32 | plies of the line |
///
/// `uci`, `epd` and `ply` come from the pipeline's replay of `pgn`, once per process on the
/// first scan (not when the table is registered). Errors: that replay's (pipeline errors).
#[derive(Debug)]
pub struct OpeningsTable {
    pool: Arc<EnginePool>,
}

impl OpeningsTable {
    /// The table, replayed on engines of `pool`.
    pub(crate) fn new(pool: Arc<EnginePool>) -> OpeningsTable {
        OpeningsTable { pool }
    }
}

fn schema() -> SchemaRef {
    let text = |n: &str| Field::new(n, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        text("eco"),
        text("name"),
        text("pgn"),
        text("uci"),
        text("epd"),
        Field::new("ply", DataType::UInt32, false),
    ]))
}

fn batch(openings: &[Opening]) -> datafusion::common::Result<RecordBatch> {
    let text = |f: fn(&Opening) -> &str| {
        Arc::new(StringArray::from_iter_values(openings.iter().map(f))) as _
    };
    Ok(RecordBatch::try_new(
        schema(),
        vec![
            text(|o| &o.eco),
            text(|o| &o.name),
            text(|o| &o.pgn),
            text(|o| &o.uci),
            text(|o| &o.epd),
            Arc::new(UInt32Array::from_iter_values(
                openings.iter().map(|o| o.ply),
            )),
        ],
    )?)
}

#[async_trait]
impl TableProvider for OpeningsTable {
    fn schema(&self) -> SchemaRef {
        schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let pool = self.pool.clone();
        // the first scan replays the lines: off the async workers
        let book = tokio::task::spawn_blocking(move || book(&pool))
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let batch = batch(&book.openings)?;
        Ok(MemorySourceConfig::try_new_exec(
            &[vec![batch]],
            schema(),
            projection.cloned(),
        )?)
    }
}
