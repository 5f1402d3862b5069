//! The chess pipeline: the generic [`Session`] given the static tables ([`StaticTable`]),
//! the input tables ([`InputTable`]) and the stages ([`Stage`]) of `plans/`, with tables
//! and stages named by type.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;

use super::{FUSED, InputTable, Stage, StaticTable, Table, WORKFLOWS, Workflow};
use crate::error::Result;
use crate::session::{PipelineConfig, Session, SessionSpec, StageKind, StageProfile, StageSql};

/// The planned chess pipeline over one DataFusion [`SessionContext`].
///
/// Static tables: `squares`, `castling_loss`, `piece_rays`, `aligned`, `lines`, `castling_path`,
/// `castling_rules`, `promotions`, `square_masks` ([`StaticTable`]). Input tables (filled by
/// the caller, schemas in [`crate::stages::tables`]): `positions`, `pieces`,
/// `chosen_moves`, `tokens`, `perft_nodes`, `perft_bucket`, `replay_states` ([`InputTable`]).
pub struct Pipeline {
    session: Session,
}

impl Pipeline {
    /// Builds the static tables, registers the empty input tables, plans every stage and
    /// checks every workflow of [`WORKFLOWS`] ([`Pipeline::check`]).
    ///
    /// Errors: [`crate::Error::Session`] if a plan fails or a workflow reads a table before
    /// it is produced (bugs in `plans/` or in the workflow lists).
    pub async fn new(config: PipelineConfig) -> Result<Pipeline> {
        let sql = |name, sql| StageSql {
            name,
            sql,
            kind: StageKind::Table,
        };
        let stage = |s: &Stage| StageSql {
            kind: if FUSED.contains(s) {
                StageKind::View
            } else {
                StageKind::Table
            },
            ..sql(s.name(), s.sql())
        };
        let spec = SessionSpec {
            statics: StaticTable::ALL
                .iter()
                .map(|t| sql(t.name(), t.sql()))
                .collect(),
            inputs: InputTable::ALL
                .iter()
                .map(|t| (t.name(), t.schema()))
                .collect(),
            aliases: vec![],
            stages: Stage::ALL.iter().map(stage).collect(),
            utf8_view_strings: false,
        };
        let pipeline = Pipeline {
            session: Session::new(spec, &config).await?,
        };
        for w in WORKFLOWS {
            pipeline.check(w)?;
        }
        Ok(pipeline)
    }

    /// Another pipeline with tables of its own, made from this one's plans
    /// ([`Session::twin`]): `config`'s memory share, this one's partitions.
    ///
    /// Errors: as [`Session::twin`].
    pub async fn twin(&self, config: &PipelineConfig) -> Result<Pipeline> {
        Ok(Pipeline {
            session: self.session.twin(config).await?,
        })
    }

    /// Checks that each stage of the workflow, run after the workflows it needs
    /// ([`Workflow::sequence`]), reads only input tables, static tables and stages before it.
    ///
    /// Errors: [`crate::Error::Session`] with
    /// [`crate::session::SessionError::StageOrder`] naming the workflow, the stage and the
    /// table it reads too early.
    pub fn check(&self, workflow: &Workflow) -> Result<()> {
        let names: Vec<&'static str> = workflow.sequence().iter().map(|s| s.name()).collect();
        Ok(self.session.check_order(workflow.name, &names)?)
    }

    /// The generic session under the pipeline.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The DataFusion session: every static table, input table and stage is registered in it
    /// under its name, so `pipeline.context().sql("SELECT ... FROM legal_moves")` queries the
    /// last run's results.
    pub fn context(&self) -> &SessionContext {
        self.session.context()
    }

    /// The optimised logical plan of a stage.
    pub fn plan(&self, stage: Stage) -> Result<&LogicalPlan> {
        Ok(self.session.plan(stage.name())?)
    }

    /// The tables a stage's SQL reads, sorted.
    pub fn reads(&self, stage: Stage) -> Result<&[String]> {
        Ok(self.session.reads(stage.name())?)
    }

    /// Replaces the contents of a table (input, static or stage). Columns are matched by
    /// name and cast to the table's types.
    ///
    /// Errors: [`crate::Error::Session`] with [`crate::session::SessionError::Columns`]
    /// naming the table and the missing or extra columns, or an Arrow cast error.
    pub async fn set_table(
        &self,
        table: impl Into<Table>,
        batches: Vec<RecordBatch>,
    ) -> Result<()> {
        Ok(self.session.set_table(table.into().name(), batches).await?)
    }

    /// The current contents of a table.
    pub async fn table(&self, table: impl Into<Table>) -> Result<Vec<RecordBatch>> {
        Ok(self.session.table(table.into().name()).await?)
    }

    /// Runs one stage on the current tables, stores its result under its name and returns it
    /// (a stage fused into its reader, [`FUSED`], runs on its own: its rows are returned,
    /// not stored). Errors: [`crate::Error::Session`] (DataFusion failures).
    pub async fn run(&self, stage: Stage) -> Result<Vec<RecordBatch>> {
        Ok(self.session.run(stage.name()).await?)
    }

    /// Plans stages ahead of their first run ([`Session::prepare`]).
    ///
    /// Errors: [`crate::Error::Session`] if a plan fails.
    pub async fn prepare(&self, stages: &[Stage]) -> Result<()> {
        let names: Vec<&str> = stages.iter().map(|s| s.name()).collect();
        Ok(self.session.prepare(&names).await?)
    }

    /// Runs the workflow's own stages in order (not those of the workflows it needs).
    pub async fn run_all(&self, workflow: Workflow) -> Result<()> {
        self.run_stages(workflow.stages).await
    }

    /// Runs stages in order, but those fused into a later one ([`FUSED`]): its plan holds
    /// theirs.
    pub async fn run_stages(&self, stages: &[Stage]) -> Result<()> {
        for stage in stages.iter().filter(|s| !FUSED.contains(s)) {
            self.run(*stage).await?;
        }
        Ok(())
    }

    /// Creates the physical plan of a stage's optimised logical plan (no re-optimisation).
    pub async fn physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self.session.physical_plan(plan).await?)
    }

    /// Per-stage figures summed since the pipeline was made or [`Pipeline::reset_profile`],
    /// in stage order.
    pub fn profile(&self) -> Vec<(String, StageProfile)> {
        self.session.profile()
    }

    /// Stage runs since the pipeline was made or [`Pipeline::reset_profile`], all stages
    /// together (each is one execution of a stage's physical plan).
    pub fn stage_runs(&self) -> u64 {
        self.session.stage_runs()
    }

    /// Clears the per-stage figures.
    pub fn reset_profile(&self) {
        self.session.reset_profile()
    }

    /// Whether [`Pipeline::run`] keeps each stage's last executed physical plan (with its
    /// metrics) for [`Pipeline::last_plan`]. Off by default: an executed plan holds its
    /// input batches and hash tables until it is replaced. Turning it off drops the kept
    /// plans.
    pub fn keep_last_plans(&self, keep: bool) {
        self.session.keep_last_plans(keep)
    }

    /// The last executed physical plan of a stage, with its metrics (see
    /// `DisplayableExecutionPlan::with_metrics`), if [`Pipeline::keep_last_plans`] was on
    /// when the stage last ran.
    pub fn last_plan(&self, stage: Stage) -> Option<Arc<dyn ExecutionPlan>> {
        self.session.last_plan(stage.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::session::SessionError;
    use crate::stages::{InputTable, LEGAL, NOTATION};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_workflow_in_the_wrong_order_is_refused() {
        let p = Pipeline::new(PipelineConfig::default())
            .await
            .expect("pipeline");
        assert!(p.check(&LEGAL).is_ok());
        assert!(p.check(&NOTATION).is_ok());
        // `legal_moves` before the stages it reads
        let wrong = Workflow {
            name: "legal_backwards",
            after: &[],
            stages: &[Stage::LegalMoves, Stage::Placed, Stage::Boards],
        };
        match p.check(&wrong) {
            Err(Error::Session(SessionError::StageOrder {
                workflow,
                stage,
                table,
            })) => {
                assert_eq!(workflow, "legal_backwards");
                assert_eq!(stage, "legal_moves");
                assert_eq!(table, "boards");
            }
            other => panic!("not refused: {other:?}"),
        }
        // notation without the legal-move stages it needs
        let alone = Workflow {
            name: "notation_alone",
            after: &[],
            stages: NOTATION.stages,
        };
        assert!(matches!(
            p.check(&alone),
            Err(Error::Session(SessionError::StageOrder { stage, .. })) if stage == "king_lines"
        ));
        assert_eq!(
            p.reads(Stage::NextPositions).expect("reads"),
            ["castling_loss", "chosen_moves", "positions"]
        );
    }

    /// A fused stage has one reader among the stages, which names it once (two readers or
    /// two references would compute it twice), and it keeps no table.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_fused_stage_has_one_reader() {
        let p = Pipeline::new(PipelineConfig::default())
            .await
            .expect("pipeline");
        for fused in FUSED {
            let readers: Vec<Stage> = Stage::ALL
                .iter()
                .copied()
                .filter(|s| {
                    p.reads(*s)
                        .expect("reads")
                        .iter()
                        .any(|t| t == fused.name())
                })
                .collect();
            assert_eq!(readers.len(), 1, "{fused}: {readers:?}");
            assert_eq!(p.session().fused(readers[0].name()), [fused.name()]);
            // named once in its reader's SQL: DataFusion plans a view once per reference
            let words: Vec<&str> = readers[0].sql().split_whitespace().collect();
            let references = words
                .windows(2)
                .filter(|w| matches!(w[0], "FROM" | "JOIN") && w[1] == fused.name())
                .count();
            assert_eq!(references, 1, "{fused} in {}", readers[0]);
            assert!(p.session().is_view(fused.name()));
            assert!(p.table(*fused).await.is_err(), "{fused} keeps a table");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn set_table_refuses_a_stage_output_of_other_columns() {
        let p = Pipeline::new(PipelineConfig::default())
            .await
            .expect("pipeline");
        p.set_table(
            InputTable::Positions,
            vec![
                crate::stages::tables::setups_to_batches(&[(0, &crate::Setup::default())])
                    .expect("batches")
                    .0,
            ],
        )
        .await
        .expect("positions");
        // `pieces` rows are not `positions` rows
        let (_, pieces) =
            crate::stages::tables::setups_to_batches(&[(0, &crate::Setup::default())])
                .expect("batches");
        match p.set_table(InputTable::Positions, vec![pieces]).await {
            Err(Error::Session(SessionError::Columns {
                table,
                missing,
                extra,
            })) => {
                assert_eq!(table, "positions");
                assert!(
                    missing.contains(&"white_to_move".to_string()),
                    "{missing:?}"
                );
                assert_eq!(extra, ["square", "white", "piece_code"]);
            }
            other => panic!("not refused: {other:?}"),
        }
    }
}
