//! The seed replica on the stage session: its tables, its stages and their figures.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;

use super::{
    GameRow, SEED_MOVES, SEED_STAGES, SeedPosRow, SeedStageKind, game_schema, moves_schema,
    pos_schema,
};
use crate::error::Result;
use crate::session::{PipelineConfig, Session, SessionSpec, StageProfile};

/// The seed engine on one stage session ([`crate::session::Session`]): every file of
/// `plans/seed/` planned once, the game tables, and the per-stage figures.
pub struct SeedPipeline {
    pub(super) session: Session,
    pub(super) games: Vec<GameRow>,
    pub(super) positions: Vec<SeedPosRow>,
}

impl SeedPipeline {
    /// [`SeedPipeline::with_partitions`] with one partition per core.
    ///
    /// Errors: as [`SeedPipeline::with_partitions`].
    pub async fn new() -> Result<SeedPipeline> {
        SeedPipeline::with_partitions(PipelineConfig::default().target_partitions).await
    }

    /// Registers the empty `demo_chess_game` and `demo_chess_pos` tables, plans every file
    /// of [`SEED_STAGES`] once (DataFusion target partitions = `partitions`, at least 1) and
    /// builds the baby-monster table `moves` (also named `demo_chess_moves`).
    ///
    /// Errors: [`crate::Error::Session`] naming the file whose SQL does not plan, or if
    /// building `moves` fails.
    pub async fn with_partitions(partitions: usize) -> Result<SeedPipeline> {
        let spec = SessionSpec {
            statics: vec![],
            inputs: vec![
                ("demo_chess_game", game_schema()),
                ("demo_chess_pos", pos_schema()),
                (SEED_MOVES.name, moves_schema()),
            ],
            aliases: vec![("demo_chess_moves", SEED_MOVES.name)],
            stages: SEED_STAGES.to_vec(),
            utf8_view_strings: true,
        };
        let config = PipelineConfig {
            target_partitions: partitions.max(1),
            batch_size: 8192,
            ..PipelineConfig::default()
        };
        let session = Session::new(spec, &config).await?;
        let moves = session
            .context()
            .sql(SEED_MOVES.sql)
            .await
            .map_err(|source| crate::session::SessionError::Plan {
                stage: SEED_MOVES.name.to_string(),
                source,
            })?
            .collect()
            .await?;
        session.set_table(SEED_MOVES.name, moves).await?;
        Ok(SeedPipeline {
            session,
            games: Vec::new(),
            positions: Vec::new(),
        })
    }

    /// The DataFusion session: `demo_chess_game`, `demo_chess_pos`, `moves` /
    /// `demo_chess_moves` and every seed stage are registered in it under their names
    /// (table stages hold the last run's rows).
    pub fn context(&self) -> &SessionContext {
        self.session.context()
    }

    /// The cached optimised logical plan of a table stage or of `validate_move`.
    ///
    /// Errors: [`crate::Error::Session`] for a view stage or an unknown name.
    pub fn plan(&self, stage: &str) -> Result<&LogicalPlan> {
        Ok(self.session.plan(stage)?)
    }

    /// The current rows of a table (`demo_chess_game`, `demo_chess_pos`, `moves`, or a
    /// table stage after a run), with the table's schema.
    ///
    /// Errors: [`crate::Error::Session`] for a view stage or an unknown name.
    pub async fn table(&self, name: &str) -> Result<Vec<RecordBatch>> {
        Ok(self.session.table(name).await?)
    }

    /// Runs every table stage, `positions` to `stage13`, on the current game tables.
    pub(super) async fn run_to_stage13(&self) -> Result<()> {
        for st in SEED_STAGES
            .iter()
            .filter(|s| s.kind == SeedStageKind::Table)
        {
            self.session.run(st.name).await?;
        }
        Ok(())
    }

    /// Per-stage figures (table stages and `validate_move`, in run order) summed since the
    /// pipeline was made or [`SeedPipeline::reset_profile`]. View stages are inlined into
    /// the table stage that reads them, so their work is counted there.
    pub fn profile(&self) -> Vec<(String, StageProfile)> {
        self.session.profile()
    }

    /// Clears the per-stage figures.
    pub fn reset_profile(&self) {
        self.session.reset_profile()
    }

    /// Whether runs keep each table stage's (and `validate_move`'s) last executed physical
    /// plan, with its metrics, for [`SeedPipeline::last_plan`]. Off by default: an executed
    /// plan holds its input batches and hash tables until it is replaced. Turning it off
    /// drops the kept plans.
    pub fn keep_last_plans(&self, keep: bool) {
        self.session.keep_last_plans(keep)
    }

    /// The last executed physical plan of a table stage or of `validate_move`, if
    /// [`SeedPipeline::keep_last_plans`] was on when it last ran.
    pub fn last_plan(&self, stage: &str) -> Option<Arc<dyn ExecutionPlan>> {
        self.session.last_plan(stage)
    }

    /// Creates the physical plan of a logical plan on this pipeline's session (no
    /// re-optimisation), as a run does; for EXPLAIN.
    ///
    /// Errors: [`crate::Error::Session`].
    pub async fn create_physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self.session.physical_plan(plan).await?)
    }
}
