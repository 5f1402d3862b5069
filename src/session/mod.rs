//! The staged relational pipeline: every SQL file of `plans/` planned once into a DataFusion
//! [`LogicalPlan`] and registered under its stage name.
//!
//! Each stage reads tables by name (the input tables, the static tables and earlier stages)
//! and its result is materialised into an in-memory table of its own name, so that a stage
//! read by several later stages is computed once, and so that users can query any stage with
//! their own SQL through [`Pipeline::context`]. Logical plans are optimised once at start-up;
//! a run only creates the physical plan (DataFusion reads the tables' current batches then)
//! and executes it.
//!
//! Static tables (built once per pipeline by plans over coordinate cross joins, the seed's
//! "baby monster"): `squares`, `piece_rays`, `aligned`, `lines`,
//! `castling_path`, `castling_rules`, `promotions`, `square_masks`.
//!
//! Input tables (filled by the caller, schemas in [`crate::stages::tables`]): `positions`, `pieces`,
//! `chosen_moves`, `tokens`, `perft_nodes`, `replay_states`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::datasource::TableProvider;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::execution_plan::reset_plan_states;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::error::{Error, Result};
pub mod memory;
pub mod metrics;
pub mod slot;

pub use metrics::{PlanMetrics, StageProfile, plan_metrics};
use slot::SlotTable;
use crate::stages::{STAGES, STATIC_TABLES, tables};

/// Settings of a [`Pipeline`].
#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// DataFusion target partitions (threads working on one stage). Default: the number of
    /// cores.
    pub target_partitions: usize,
    /// Arrow batch size in rows. Default 8192.
    pub batch_size: usize,
    /// The memory limit shared by every pipeline made with this config (and its clones).
    /// Default: [`memory::default_limit`].
    pub memory: memory::MemoryBudget,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        PipelineConfig {
            target_partitions: cores,
            batch_size: 8192,
            memory: memory::MemoryBudget::default(),
        }
    }
}

/// The planned pipeline over one DataFusion [`SessionContext`].
pub struct Pipeline {
    ctx: SessionContext,
    tables: HashMap<&'static str, Arc<SlotTable>>,
    /// Physical plans created on a stage's first run, re-executed on later runs.
    physical: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
    plans: HashMap<&'static str, LogicalPlan>,
    partitions: usize,
    profile: Mutex<HashMap<&'static str, StageProfile>>,
    keep_plans: AtomicBool,
    last_plans: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
    /// The Arrow memory of the tables kept, reserved in the memory limit's pool.
    memory: memory::TableMemory,
}

impl Pipeline {
    /// Builds the static tables, registers the empty input tables and plans every stage.
    ///
    /// Errors: [`Error::DataFusion`] if a plan fails (a bug in `plans/`).
    pub async fn new(config: PipelineConfig) -> Result<Pipeline> {
        let partitions = config.target_partitions.max(1);
        let session = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_batch_size(config.batch_size)
            .with_information_schema(true)
            // our tables use Utf8; keep SQL string literals and casts in the same type
            .set_bool("datafusion.sql_parser.map_string_types_to_utf8view", false)
            // physical plans are re-executed (see crate::session::slot): no dynamic filters in them
            .set_bool("datafusion.optimizer.enable_dynamic_filter_pushdown", false)
            .set_bool(
                "datafusion.optimizer.enable_join_dynamic_filter_pushdown",
                false,
            )
            .set_bool(
                "datafusion.optimizer.enable_topk_dynamic_filter_pushdown",
                false,
            )
            .set_bool(
                "datafusion.optimizer.enable_aggregate_dynamic_filter_pushdown",
                false,
            );
        let ctx = SessionContext::new_with_config_rt(session, config.memory.runtime());
        let mut pipeline = Pipeline {
            ctx,
            tables: HashMap::new(),
            plans: HashMap::new(),
            partitions,
            profile: Mutex::new(HashMap::new()),
            physical: Mutex::new(HashMap::new()),
            keep_plans: AtomicBool::new(false),
            last_plans: Mutex::new(HashMap::new()),
            memory: config.memory.tables("pipeline"),
        };
        for st in STATIC_TABLES {
            let df = pipeline.ctx.sql(st.sql).await?;
            let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
            let batches = df.collect().await?;
            pipeline.register(st.name, schema)?;
            pipeline.set_table(st.name, batches).await?;
        }
        for (name, schema) in tables::input_schemas() {
            pipeline.register(name, schema)?;
        }
        for st in STAGES {
            let plan = pipeline.ctx.sql(st.sql).await.map_err(|e| Error::Plan {
                stage: st.name.to_string(),
                source: e,
            })?;
            let plan = pipeline.ctx.state().optimize(plan.logical_plan())?;
            let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
            pipeline.register(st.name, schema)?;
            pipeline.plans.insert(st.name, plan);
        }
        Ok(pipeline)
    }

    fn register(&mut self, name: &'static str, schema: SchemaRef) -> Result<()> {
        let table = Arc::new(SlotTable::new(name, schema, self.partitions));
        self.ctx.register_table(name, table.clone())?;
        self.tables.insert(name, table);
        Ok(())
    }

    /// The DataFusion session: every static table, input table and stage is registered in it
    /// under its name, so `pipeline.context().sql("SELECT ... FROM legal_moves")` queries the
    /// last run's results.
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The optimised logical plan of a stage. Errors: [`Error::UnknownStage`].
    pub fn plan(&self, stage: &str) -> Result<&LogicalPlan> {
        self.plans
            .get(stage)
            .ok_or_else(|| Error::UnknownStage(stage.to_string()))
    }

    fn table_ref(&self, name: &str) -> Result<&Arc<SlotTable>> {
        self.tables
            .get(name)
            .ok_or_else(|| Error::UnknownStage(name.to_string()))
    }

    /// Replaces the contents of a table (input, static or stage). Columns are cast to the
    /// table's schema by position. Errors: [`Error::UnknownStage`], [`Error::Arrow`] when a
    /// column cannot be cast.
    pub async fn set_table(&self, name: &str, batches: Vec<RecordBatch>) -> Result<()> {
        let table = self.table_ref(name)?;
        let schema = table.schema();
        self.memory.account(name, &batches)?;
        // Rows are spread evenly over the partitions (batches sliced, zero-copy), so that every
        // core gets a share of each scan even when the input is one batch.
        let total: usize = batches.iter().map(|b| b.num_rows()).sum();
        let share = total.div_ceil(self.partitions).max(1);
        let mut parts: Vec<Vec<RecordBatch>> = vec![vec![]; self.partitions];
        let (mut part, mut filled) = (0, 0);
        for batch in batches.into_iter().filter(|b| b.num_rows() > 0) {
            let batch = conform(batch, &schema)?;
            let mut offset = 0;
            while offset < batch.num_rows() {
                let rest = batch.num_rows() - offset;
                let len = if part + 1 == self.partitions {
                    rest
                } else {
                    (share - filled).min(rest)
                };
                parts[part].push(batch.slice(offset, len));
                offset += len;
                filled += len;
                if filled == share && part + 1 < self.partitions {
                    (part, filled) = (part + 1, 0);
                }
            }
        }
        *table.data().write().map_err(|_| Error::Poisoned)? = parts;
        Ok(())
    }

    /// The current contents of a table. Errors: [`Error::UnknownStage`].
    pub async fn table(&self, name: &str) -> Result<Vec<RecordBatch>> {
        let table = self.table_ref(name)?;
        let mut out = vec![];
        for part in table.data().read().map_err(|_| Error::Poisoned)?.iter() {
            out.extend(part.iter().cloned());
        }
        Ok(out)
    }

    /// Runs one stage on the current tables, stores its result under its name and returns it.
    /// Errors: [`Error::UnknownStage`], [`Error::DataFusion`].
    pub async fn run(&self, stage: &str) -> Result<Vec<RecordBatch>> {
        let (name, plan) = self
            .plans
            .get_key_value(stage)
            .ok_or_else(|| Error::UnknownStage(stage.to_string()))?;
        let t0 = Instant::now();
        let cached = self
            .physical
            .lock()
            .map_err(|_| Error::Poisoned)?
            .get(name)
            .cloned();
        let physical = match cached {
            Some(p) => reset_plan_states(p)?,
            None => {
                let p = self.physical_plan(plan).await?;
                self.physical
                    .lock()
                    .map_err(|_| Error::Poisoned)?
                    .insert(name, p.clone());
                p
            }
        };
        let t1 = Instant::now();
        let batches = collect(physical.clone(), self.ctx.task_ctx())
            .await
            .map_err(|e| self.memory.budget().stage_error(name, e))?;
        let t2 = Instant::now();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        {
            let mut profile = self.profile.lock().map_err(|_| Error::Poisoned)?;
            profile.entry(name).or_default().add_run(
                rows,
                t1 - t0,
                t2 - t1,
                &plan_metrics(physical.as_ref()),
            );
        }
        if self.keep_plans.load(Ordering::Relaxed) {
            self.last_plans
                .lock()
                .map_err(|_| Error::Poisoned)?
                .insert(name, physical);
        }
        self.set_table(name, batches.clone()).await?;
        Ok(batches)
    }

    /// The memory the tables kept between stages take, within the config's
    /// [`memory::MemoryBudget`].
    pub fn memory(&self) -> &memory::TableMemory {
        &self.memory
    }

    /// Runs stages in order.
    pub async fn run_all(&self, stages: &[&str]) -> Result<()> {
        for stage in stages {
            self.run(stage).await?;
        }
        Ok(())
    }

    /// Creates the physical plan of a stage's optimised logical plan (no re-optimisation).
    pub async fn physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        let state = self.ctx.state();
        Ok(state
            .query_planner()
            .create_physical_plan(plan, &state)
            .await?)
    }

    /// Per-stage figures summed since the pipeline was made or [`Pipeline::reset_profile`].
    pub fn profile(&self) -> Vec<(String, StageProfile)> {
        let profile = self.profile.lock().map(|p| p.clone()).unwrap_or_default();
        let mut out: Vec<(String, StageProfile)> = STAGES
            .iter()
            .filter_map(|s| profile.get(s.name).map(|p| (s.name.to_string(), p.clone())))
            .collect();
        out.retain(|(_, p)| p.runs > 0);
        out
    }

    /// Clears the per-stage figures.
    pub fn reset_profile(&self) {
        if let Ok(mut p) = self.profile.lock() {
            p.clear();
        }
    }

    /// Whether [`Pipeline::run`] keeps each stage's last executed physical plan (with its
    /// metrics) for [`Pipeline::last_plan`]. Off by default: an executed plan holds its
    /// input batches and hash tables until it is replaced. Turning it off drops the kept
    /// plans.
    pub fn keep_last_plans(&self, keep: bool) {
        self.keep_plans.store(keep, Ordering::Relaxed);
        if !keep && let Ok(mut plans) = self.last_plans.lock() {
            plans.clear();
        }
    }

    /// The last executed physical plan of a stage, with its metrics (see
    /// `DisplayableExecutionPlan::with_metrics`), if [`Pipeline::keep_last_plans`] was on
    /// when the stage last ran.
    pub fn last_plan(&self, stage: &str) -> Option<Arc<dyn ExecutionPlan>> {
        self.last_plans
            .lock()
            .ok()
            .and_then(|p| p.get(stage).cloned())
    }
}

/// Casts a batch's columns (by position) to a schema.
pub(crate) fn conform(batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema() == *schema {
        return Ok(batch);
    }
    if batch.num_columns() != schema.fields().len() {
        return Err(Error::Schema(format!(
            "{} columns given for a table of {} ({:?})",
            batch.num_columns(),
            schema.fields().len(),
            schema.fields().iter().map(|f| f.name()).collect::<Vec<_>>()
        )));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                cast(c, f.data_type())
            }
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
