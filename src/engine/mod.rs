//! The library API over the pipeline: legal moves with SAN ([`legal`]), move tokens
//! ([`tokens`]), perft ([`perft`]) and replay ([`replay`]).
//!
//! Every rule is evaluated by the stages of [`crate::stages`]; this module only loads
//! positions into the input tables, runs stage sequences and moves batches between tables.

mod frontier;
mod legal;
mod perft;
pub(crate) mod replay;
pub(crate) mod tokens;

use datafusion::arrow::array::RecordBatch;

use crate::chess::setup::Setup;
use crate::error::Result;
use crate::session::PipelineConfig;
use crate::stages::{APPLY, InputTable, LEGAL, Pipeline, Stage, tables};

pub use perft::{PerftOptions, PerftProgress};

/// The rules engine: a planned [`Pipeline`] and the operations built from its stages.
pub struct Engine {
    pipeline: Pipeline,
    /// The configuration it was planned with (perft plans one-partition workers from it).
    config: PipelineConfig,
}

/// Multiplier of child position ids: a child of position `p` by move `m` is
/// `p * CHILD_STRIDE + m.move_code` (move codes are below 20,480).
pub const CHILD_STRIDE: u64 = 32768;

impl Engine {
    /// Plans the pipeline. Errors: [`crate::Error::Session`] (bugs in `plans/`).
    pub async fn new(config: PipelineConfig) -> Result<Engine> {
        Ok(Engine {
            pipeline: Pipeline::new(config.clone()).await?,
            config,
        })
    }

    /// Another engine like this one, with tables of its own, made from its plans instead of
    /// planning them again ([`Pipeline::twin`]): `config`'s memory share.
    ///
    /// Errors: as [`crate::session::Session::twin`].
    pub async fn twin(&self, config: PipelineConfig) -> Result<Engine> {
        Ok(Engine {
            pipeline: self.pipeline.twin(&config).await?,
            config,
        })
    }

    /// The pipeline, for profiling, EXPLAIN and user SQL over its tables.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Loads positions into `positions` and `pieces`, position_id = index in `setups`.
    pub async fn load(&self, setups: &[Setup]) -> Result<()> {
        let pairs: Vec<(u64, &Setup)> = setups
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u64, s))
            .collect();
        self.load_pairs(&pairs).await
    }

    /// Loads (position_id, setup) pairs into `positions` and `pieces`.
    pub async fn load_pairs(&self, pairs: &[(u64, &Setup)]) -> Result<()> {
        let (positions, pieces) = tables::setups_to_batches(pairs)?;
        self.pipeline
            .set_table(InputTable::Positions, vec![positions])
            .await?;
        self.pipeline
            .set_table(InputTable::Pieces, vec![pieces])
            .await
    }

    /// Legal moves of the loaded positions (stage `legal_moves`), without notation.
    pub async fn run_legal(&self) -> Result<Vec<RecordBatch>> {
        self.pipeline.run_all(LEGAL).await?;
        self.pipeline.table(Stage::LegalMoves).await
    }

    /// Applies the moves now in `chosen_moves` to the loaded positions and makes the
    /// resulting positions the loaded ones (stages `next_positions`, `next_pieces`; their
    /// columns are matched to those of `positions` and `pieces` by name).
    pub async fn advance(&self) -> Result<()> {
        let p = &self.pipeline;
        p.run_all(APPLY).await?;
        p.set_table(InputTable::Positions, p.table(Stage::NextPositions).await?)
            .await?;
        p.set_table(InputTable::Pieces, p.table(Stage::NextPieces).await?)
            .await
    }

    /// The setups now in `positions` and `pieces`, keyed by position_id.
    pub(crate) async fn loaded_setups(&self) -> Result<std::collections::BTreeMap<u64, Setup>> {
        let p = &self.pipeline;
        tables::batches_to_setups(
            &p.table(InputTable::Positions).await?,
            &p.table(InputTable::Pieces).await?,
        )
    }
}

/// A current-thread Tokio runtime for one blocking thread (the pipelines of
/// [`crate::validate::Validator`], perft's workers, the SQL functions' engines).
///
/// Errors: [`crate::Error::Io`] when the runtime cannot start.
pub(crate) fn thread_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| crate::Error::Io {
            path: "tokio runtime".into(),
            source: e,
        })
}

/// Counts rows of batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}
