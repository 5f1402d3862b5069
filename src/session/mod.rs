//! The stage session: SQL stages planned once into DataFusion [`LogicalPlan`]s over one
//! [`SessionContext`], each registered under its name. It knows nothing of chess: it is
//! given static tables, input table schemas and stage SQL (a [`SessionSpec`]); the chess
//! pipeline ([`crate::stages`]) and the seed replica ([`crate::seed`]) are built on it.
//!
//! Each stage reads tables by name (the input tables, the static tables and earlier stages)
//! and its result is materialised into an in-memory table of its own name ([`slot`]), so
//! that a stage read by several later stages is computed once, and so that users can query
//! any stage with their own SQL through [`Session::context`]. Logical plans are made at
//! start-up and optimised once, when first asked for (a pipeline plans every stage of its
//! spec, a run uses some of them); a stage's physical plan is created on its first run and
//! re-executed on later runs (DataFusion reads the tables' current batches then). Every run is timed and
//! its DataFusion metrics summed per stage ([`StageProfile`]).
//!
//! At start-up it is checked that every stage reads only tables produced before it (input
//! tables, static tables, earlier stages): see [`Session::check_order`].

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::TableProvider;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::execution_plan::reset_plan_states;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};

pub mod chain;
pub mod error;
pub mod known_type;
pub mod lookup;
pub mod memory;
pub mod metrics;
pub mod projection;
pub mod read;
pub mod slot;
mod twin;

pub use error::SessionError;
pub use metrics::{PlanMetrics, StageProfile, plan_metrics};
use slot::SlotTable;

/// Result with [`SessionError`].
pub type Result<T, E = SessionError> = std::result::Result<T, E>;

/// The most rows a stage's tables may hold together for [`Session::run`] to run it on one
/// partition in a session of several (32,768: about a thousand positions' pieces).
pub const SINGLE_PARTITION_ROWS: usize = 32_768;

/// Settings of a session.
#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// DataFusion target partitions (threads working on one stage). Default: the number of
    /// cores. A stage run on few rows runs on one partition whatever this is
    /// ([`SINGLE_PARTITION_ROWS`], [`Session::run`]).
    pub target_partitions: usize,
    /// Arrow batch size in rows. Default 8192.
    pub batch_size: usize,
    /// The memory limit shared by every session made with this config (and its clones).
    /// Default: [`memory::default_limit`].
    pub memory: memory::MemoryBudget,
    /// Whether hash joins with a static table become index lookups ([`lookup`]): the
    /// static side indexed once, not hashed at every run. Default `true`; `false` leaves
    /// DataFusion's `HashJoinExec` (the same rows; for comparisons).
    pub static_lookups: bool,
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
            static_lookups: true,
        }
    }
}

/// How a stage is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageKind {
    /// An in-memory table of the stage's name, filled when the stage runs.
    Table,
    /// A view: DataFusion inlines its plan into the stages that read it (the stage is fused
    /// into its reader: one run, no table between them). [`Session::run`] runs it on its own
    /// only when asked by name, and keeps no table of it.
    View,
    /// A final query: planned and optimised, not registered; run with
    /// [`Session::run_query`] (e.g. with bound parameters).
    Query,
}

/// One SQL stage: its name (the table it fills) and its SQL text.
#[derive(Clone, Copy, Debug)]
pub struct StageSql {
    /// Stage name.
    pub name: &'static str,
    /// The SQL text.
    pub sql: &'static str,
    /// How it is registered.
    pub kind: StageKind,
}

/// What a [`Session`] is made of.
#[derive(Clone, Debug, Default)]
pub struct SessionSpec {
    /// Static tables, built once at start-up by their SQL, in order (each may read the
    /// ones before it).
    pub statics: Vec<StageSql>,
    /// Input tables (filled by the caller with [`Session::set_table`]) and their schemas.
    pub inputs: Vec<(&'static str, SchemaRef)>,
    /// Further names of tables: (alias, table), e.g. a seed table under its SAP name.
    pub aliases: Vec<(&'static str, &'static str)>,
    /// The stages, in dependency order (each reads only tables before it).
    pub stages: Vec<StageSql>,
    /// Whether SQL string literals and `VARCHAR` casts are Utf8View (DataFusion's
    /// default) rather than Utf8.
    pub utf8_view_strings: bool,
}

/// The planned stages over one DataFusion [`SessionContext`].
pub struct Session {
    /// What it was made of ([`Session::twin`] makes another of it).
    spec: SessionSpec,
    ctx: SessionContext,
    tables: HashMap<&'static str, Arc<SlotTable>>,
    /// Names readable before any stage ran: inputs, statics, aliases.
    base: Vec<&'static str>,
    /// Stage names in the spec's order.
    order: Vec<&'static str>,
    /// Plans of the stages, optimised on first use.
    plans: HashMap<&'static str, LazyPlan>,
    /// The view stages' names ([`StageKind::View`]).
    views: HashSet<&'static str>,
    /// The tables each stage's SQL reads: its logical plan's table scans (a view's among them,
    /// inlined) and the views it names.
    reads: HashMap<&'static str, Vec<String>>,
    /// Physical plans created on a stage's first run, re-executed on later runs.
    physical: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
    /// The same for runs on few rows, planned for one partition (when `partitions` > 1).
    physical_single: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
    partitions: usize,
    /// [`PipelineConfig::static_lookups`].
    static_lookups: bool,
    profile: Mutex<HashMap<&'static str, StageProfile>>,
    keep_plans: AtomicBool,
    last_plans: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
    /// The Arrow memory of the tables kept, reserved in the memory limit's pool.
    memory: memory::TableMemory,
    /// The task context stage runs execute in, made at the first run: the session's config,
    /// functions and runtime do not change after [`Session::new`], and making one copies
    /// every function registry (per run, that was a measurable share of a small stage's).
    task: OnceLock<Arc<TaskContext>>,
}

impl Session {
    /// Builds the static tables, registers the empty input tables, plans every stage and
    /// checks that each reads only tables produced before it.
    ///
    /// Errors: [`SessionError::Plan`] naming a stage whose SQL does not plan,
    /// [`SessionError::StageOrder`], [`SessionError::DataFusion`].
    pub async fn new(spec: SessionSpec, config: &PipelineConfig) -> Result<Session> {
        let partitions = config.target_partitions.max(1);
        let mut s = Session::bare(spec.clone(), config);
        // Static tables: planned first (their schemas are all the stages need to be planned),
        // their contents taken from the process's earlier sessions of the same spec (one cell
        // per spec: sessions made at once, a validator's pipelines, build them once) or built
        // on a thread of their own while the stages are planned below.
        let cell = static_cache()
            .lock()
            .map_err(|_| SessionError::Poisoned)?
            .entry(StaticsKey::of(&spec))
            .or_default()
            .clone();
        let mut static_plans = vec![];
        for st in &spec.statics {
            let df = s.ctx.sql(st.sql).await.map_err(plan_error(st.name))?;
            s.register(st.name, Arc::new(df.schema().as_arrow().clone()), true)?;
            static_plans.push((st.name, df, s.table_ref(st.name)?.clone()));
            s.base.push(st.name);
        }
        let building = tokio::task::spawn_blocking(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .map_err(|e| SessionError::DataFusion(e.into()))?;
            rt.block_on(cell.get_or_try_init(|| async {
                build_statics(static_plans, partitions).await.map(Arc::new)
            }))
            .cloned()
        });
        for (name, schema) in &spec.inputs {
            s.register(name, schema.clone(), false)?;
            s.base.push(name);
        }
        for (alias, name) in &spec.aliases {
            let table = s.table_ref(name)?.clone();
            s.ctx.register_table(*alias, table)?;
            s.base.push(alias);
        }
        for st in &spec.stages {
            let df = s.ctx.sql(st.sql).await.map_err(plan_error(st.name))?;
            let mut reads = table_scans(df.logical_plan());
            reads.extend(s.views_named(st.sql)?);
            reads.sort();
            reads.dedup();
            s.reads.insert(st.name, reads);
            s.plans.insert(
                st.name,
                LazyPlan {
                    raw: df.logical_plan().clone(),
                    optimized: OnceLock::new(),
                },
            );
            match st.kind {
                StageKind::View => {
                    s.views.insert(st.name);
                    s.ctx.register_table(st.name, df.into_view())?;
                }
                // the optimiser keeps a plan's schema: the table is registered with it now
                StageKind::Table => {
                    let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
                    s.register(st.name, schema, false)?;
                }
                StageKind::Query => {}
            }
            s.order.push(st.name);
        }
        let order = s.order.clone();
        s.check_order("(all stages)", &order)?;
        let built = building.await.map_err(|e| {
            SessionError::DataFusion(datafusion::error::DataFusionError::External(Box::new(e)))
        })??;
        for (name, batches) in built.iter() {
            s.set_table(name, batches.clone()).await?;
        }
        Ok(s)
    }

    /// A session of `spec` with `config`'s settings, no table registered and no stage
    /// planned: what [`Session::new`] and [`Session::twin`] fill.
    fn bare(spec: SessionSpec, config: &PipelineConfig) -> Session {
        Session {
            ctx: SessionContext::new_with_config_rt(
                session_config(&spec, config),
                config.memory.runtime(),
            ),
            spec,
            tables: HashMap::new(),
            base: vec![],
            order: vec![],
            plans: HashMap::new(),
            views: HashSet::new(),
            reads: HashMap::new(),
            physical: Mutex::new(HashMap::new()),
            physical_single: Mutex::new(HashMap::new()),
            partitions: config.target_partitions.max(1),
            static_lookups: config.static_lookups,
            profile: Mutex::new(HashMap::new()),
            keep_plans: AtomicBool::new(false),
            last_plans: Mutex::new(HashMap::new()),
            memory: config.memory.tables("session"),
            task: OnceLock::new(),
        }
    }

    /// The view stages registered so far that `sql` names: DataFusion inlines a view when it
    /// plans the SQL, so its plan's table scans do not show it.
    ///
    /// Errors: [`SessionError::DataFusion`] when the SQL does not parse.
    fn views_named(&self, sql: &str) -> Result<Vec<String>> {
        let state = self.ctx.state();
        let dialect = state.config().options().sql_parser.dialect;
        let statement = state.sql_to_statement(sql, &dialect)?;
        Ok(state
            .resolve_table_references(&statement)?
            .iter()
            .map(|t| t.table().to_string())
            .filter(|t| self.views.contains(t.as_str()))
            .collect())
    }

    /// Whether `name` is one of the spec's static tables.
    fn is_static(&self, name: &str) -> bool {
        self.spec.statics.iter().any(|st| st.name == name)
    }

    fn register(&mut self, name: &'static str, schema: SchemaRef, is_static: bool) -> Result<()> {
        let table = SlotTable::new(name, schema, self.partitions);
        let table = Arc::new(if is_static {
            table.into_static()
        } else {
            table
        });
        self.ctx.register_table(name, table.clone())?;
        self.tables.insert(name, table);
        Ok(())
    }

    /// The DataFusion session: every static table, input table and stage is registered in it
    /// under its name, so `session.context().sql("SELECT ... FROM some_stage")` queries the
    /// last run's results.
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The optimised logical plan of a stage (of a view: the view on its own).
    ///
    /// Errors: [`SessionError::UnknownTable`] for an unknown name; [`SessionError::Plan`]
    /// when the optimiser fails on it (on first use).
    pub fn plan(&self, stage: &str) -> Result<&LogicalPlan> {
        Ok(self.stage_plan(stage)?.1)
    }

    /// A stage's name and optimised plan, optimised now if it was not yet.
    fn stage_plan(&self, stage: &str) -> Result<(&'static str, &LogicalPlan)> {
        let (name, lazy) = self
            .plans
            .get_key_value(stage)
            .ok_or_else(|| SessionError::UnknownTable(stage.to_string()))?;
        if let Some(plan) = lazy.optimized.get() {
            return Ok((name, plan));
        }
        let plan = self
            .ctx
            .state()
            .optimize(&lazy.raw)
            .map_err(plan_error(name))?;
        Ok((name, lazy.optimized.get_or_init(|| plan)))
    }

    /// The tables a stage's SQL reads (the table scans of its logical plan, those of the views
    /// it names included, and those views), sorted. Errors: [`SessionError::UnknownTable`].
    pub fn reads(&self, stage: &str) -> Result<&[String]> {
        self.reads
            .get(stage)
            .map(Vec::as_slice)
            .ok_or_else(|| SessionError::UnknownTable(stage.to_string()))
    }

    /// Checks that each stage of `stages`, run in that order, reads only tables produced
    /// before it: input tables, static tables, or earlier stages of the list.
    ///
    /// Errors: [`SessionError::StageOrder`] naming the workflow, the stage and the table it
    /// reads too early; [`SessionError::UnknownTable`] for a name that is not a stage.
    pub fn check_order(&self, workflow: &str, stages: &[&'static str]) -> Result<()> {
        let mut produced: HashSet<&str> = self.base.iter().copied().collect();
        for stage in stages {
            for table in self.reads(stage)? {
                if !produced.contains(table.as_str()) {
                    return Err(SessionError::StageOrder {
                        workflow: workflow.to_string(),
                        stage: stage.to_string(),
                        table: table.clone(),
                    });
                }
            }
            produced.insert(stage);
        }
        Ok(())
    }

    fn table_ref(&self, name: &str) -> Result<&Arc<SlotTable>> {
        self.tables
            .get(name)
            .ok_or_else(|| SessionError::UnknownTable(name.to_string()))
    }

    /// Replaces the contents of a table (input, static or table stage). The batches' columns
    /// are matched to the table's by name (and cast to the table's types).
    ///
    /// Errors: [`SessionError::UnknownTable`]; [`SessionError::Columns`] naming the table
    /// and the columns missing from the batches or not in the table;
    /// [`SessionError::Arrow`] when a column cannot be cast.
    pub async fn set_table(&self, name: &str, batches: Vec<RecordBatch>) -> Result<()> {
        let table = self.table_ref(name)?;
        self.memory.account(name, &batches)?;
        fill(table, batches, self.partitions)
    }

    /// Empties every table but the static ones, releasing their memory: what a run left,
    /// a failed one included (e.g. the tables filled before a stage ran out of memory).
    ///
    /// Errors: [`SessionError::Poisoned`].
    pub fn clear_tables(&self) -> Result<()> {
        for (name, table) in &self.tables {
            if !self.is_static(name) {
                fill(table, vec![], self.partitions)?;
                self.memory.account(name, &[])?;
            }
        }
        Ok(())
    }

    /// The current contents of a table. Errors: [`SessionError::UnknownTable`].
    pub async fn table(&self, name: &str) -> Result<Vec<RecordBatch>> {
        let table = self.table_ref(name)?;
        let mut out = vec![];
        for part in table
            .data()
            .read()
            .map_err(|_| SessionError::Poisoned)?
            .iter()
        {
            out.extend(part.iter().cloned());
        }
        Ok(out)
    }

    /// Runs one table stage on the current tables, stores its result under its name and
    /// returns it. Its logical plan is optimised and its physical plan created on the first
    /// run (or by [`Session::prepare`]), and re-executed after. A view stage runs on its own
    /// and its rows are returned, not kept (its readers compute it in their plans).
    ///
    /// A session of several partitions runs a stage whose tables hold at most
    /// [`SINGLE_PARTITION_ROWS`] rows together on a plan made for one partition (made on the
    /// first such run): on few rows, moving them between partitions costs more than the
    /// second core gives (one position's legal moves with notation: 3.0 against 6.4 ms,
    /// BENCHMARKS.md). The rows are the same.
    ///
    /// Errors: [`SessionError::UnknownTable`], [`SessionError::Plan`] (the optimiser, on the
    /// first run), [`SessionError::DataFusion`].
    pub async fn run(&self, stage: &str) -> Result<Vec<RecordBatch>> {
        let t0 = Instant::now();
        let (name, physical) =
            if self.partitions > 1 && self.input_rows(stage)? <= SINGLE_PARTITION_ROWS {
                self.planned_single(stage).await?
            } else {
                self.planned(stage).await?
            };
        let physical = reset_plan_states(physical)?;
        let batches = self.execute(name, physical, t0).await?;
        if !self.views.contains(name) {
            self.set_table(name, batches.clone()).await?;
        }
        Ok(batches)
    }

    /// Whether `stage` is a view stage ([`StageKind::View`]): fused into the stages that
    /// read it.
    pub fn is_view(&self, stage: &str) -> bool {
        self.views.contains(stage)
    }

    /// The view stages a stage's plan holds (the views it reads, theirs in turn), in stage
    /// order: the stages fused into it, whose work its profile counts.
    pub fn fused(&self, stage: &str) -> Vec<&'static str> {
        let mut wanted = vec![stage.to_string()];
        let mut out: Vec<&'static str> = vec![];
        while let Some(name) = wanted.pop() {
            for table in self.reads.get(name.as_str()).into_iter().flatten() {
                if let Some(view) = self.views.get(table.as_str())
                    && !out.contains(view)
                {
                    out.push(view);
                    wanted.push(table.clone());
                }
            }
        }
        out.sort_by_key(|v| self.order.iter().position(|o| o == v));
        out
    }

    /// Plans table stages ahead of their first run: each one's logical plan optimised and
    /// its physical plan made (static sides indexed), as the first [`Session::run`] would.
    /// A caller that knows which stages it will run can do this while it does something
    /// else (a validator while its input is read).
    ///
    /// Errors: as [`Session::run`]'s planning.
    pub async fn prepare(&self, stages: &[&str]) -> Result<()> {
        for stage in stages {
            self.planned(stage).await?;
        }
        Ok(())
    }

    /// The rows of the tables a stage reads (a view's are among its reads; views and unknown
    /// names count none).
    fn input_rows(&self, stage: &str) -> Result<usize> {
        let mut rows = 0;
        for name in self.reads.get(stage).into_iter().flatten() {
            if let Some(table) = self.tables.get(name.as_str())
                && !self.is_static(name)
            {
                rows += table
                    .data()
                    .read()
                    .map_err(|_| SessionError::Poisoned)?
                    .iter()
                    .flatten()
                    .map(RecordBatch::num_rows)
                    .sum::<usize>();
            }
        }
        Ok(rows)
    }

    /// A table stage's physical plan for one partition, made on first use and kept.
    async fn planned_single(&self, stage: &str) -> Result<(&'static str, Arc<dyn ExecutionPlan>)> {
        self.cached_plan(&self.physical_single, stage, 1).await
    }

    /// A table stage's physical plan, made on first use and kept (not reset).
    async fn planned(&self, stage: &str) -> Result<(&'static str, Arc<dyn ExecutionPlan>)> {
        self.cached_plan(&self.physical, stage, self.partitions)
            .await
    }

    /// A table stage's physical plan in `cache`, made for `partitions` on first use (the
    /// session's state is copied then only).
    async fn cached_plan(
        &self,
        cache: &Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
        stage: &str,
        partitions: usize,
    ) -> Result<(&'static str, Arc<dyn ExecutionPlan>)> {
        let (name, plan) = self.stage_plan(stage)?;
        let cached = cache
            .lock()
            .map_err(|_| SessionError::Poisoned)?
            .get(name)
            .cloned();
        Ok(match cached {
            Some(p) => (name, p),
            None => {
                let mut state = self.ctx.state();
                state.config_mut().options_mut().execution.target_partitions = partitions;
                let p = self.physical_plan_in(plan, &state).await?;
                cache
                    .lock()
                    .map_err(|_| SessionError::Poisoned)?
                    .insert(name, p.clone());
                (name, p)
            }
        })
    }

    /// Runs a plan of stage `stage` (e.g. a query stage's plan with parameters bound) without
    /// caching its physical plan or storing its result; timed and profiled as a run of the
    /// stage. Errors: [`SessionError::UnknownTable`], [`SessionError::DataFusion`].
    pub async fn run_query(&self, stage: &str, plan: &LogicalPlan) -> Result<Vec<RecordBatch>> {
        let name = self
            .order
            .iter()
            .find(|n| **n == stage)
            .copied()
            .ok_or_else(|| SessionError::UnknownTable(stage.to_string()))?;
        let t0 = Instant::now();
        let physical = self.physical_plan(plan).await?;
        self.execute(name, physical, t0).await
    }

    /// Executes a stage's physical plan (created from `t0` on) and records the run.
    async fn execute(
        &self,
        name: &'static str,
        physical: Arc<dyn ExecutionPlan>,
        t0: Instant,
    ) -> Result<Vec<RecordBatch>> {
        let t1 = Instant::now();
        let task = self.task.get_or_init(|| self.ctx.task_ctx()).clone();
        let batches = collect(physical.clone(), task)
            .await
            .map_err(|e| self.memory.budget().stage_error(name, e))?;
        let t2 = Instant::now();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        {
            let mut profile = self.profile.lock().map_err(|_| SessionError::Poisoned)?;
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
                .map_err(|_| SessionError::Poisoned)?
                .insert(name, physical);
        }
        Ok(batches)
    }

    /// The memory the tables kept between stages take, within the config's
    /// [`memory::MemoryBudget`].
    pub fn memory(&self) -> &memory::TableMemory {
        &self.memory
    }

    /// Creates the physical plan of an optimised logical plan (no re-optimisation), its
    /// projections without per-expression metrics ([`projection::lean_projections`]), its
    /// hash joins with a static table as index lookups ([`lookup::static_lookups`], unless
    /// [`PipelineConfig::static_lookups`] is off; the static sides are run and indexed here),
    /// and, planned for one partition, its partitions merged in the caller's task
    /// ([`chain::chain_partitions`]).
    ///
    /// Errors: [`SessionError::DataFusion`].
    pub async fn physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        self.physical_plan_in(plan, &self.ctx.state()).await
    }

    /// [`Session::physical_plan`] with `state`'s configuration.
    async fn physical_plan_in(
        &self,
        plan: &LogicalPlan,
        state: &datafusion::execution::SessionState,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let physical = state
            .query_planner()
            .create_physical_plan(plan, state)
            .await?;
        let mut physical = projection::lean_projections(physical)?;
        if state.config().target_partitions() == 1 {
            physical = chain::chain_partitions(physical)?;
        }
        if !self.static_lookups {
            return Ok(physical);
        }
        Ok(lookup::static_lookups(physical, self.ctx.task_ctx()).await?)
    }

    /// Per-stage figures summed since the session was made or [`Session::reset_profile`],
    /// in stage order, stages that ran only, each with the stages fused into it
    /// ([`Session::fused`]).
    pub fn profile(&self) -> Vec<(String, StageProfile)> {
        let profile = self.profile.lock().map(|p| p.clone()).unwrap_or_default();
        self.order
            .iter()
            .filter_map(|s| {
                let p = profile.get(s).filter(|p| p.runs > 0)?;
                let fused = self.fused(s);
                Some((s.to_string(), StageProfile { fused, ..p.clone() }))
            })
            .collect()
    }

    /// Stage runs since the session was made or [`Session::reset_profile`], all stages
    /// together.
    pub fn stage_runs(&self) -> u64 {
        self.profile
            .lock()
            .map(|p| p.values().map(|s| s.runs).sum())
            .unwrap_or(0)
    }

    /// Clears the per-stage figures.
    pub fn reset_profile(&self) {
        if let Ok(mut p) = self.profile.lock() {
            p.clear();
        }
    }

    /// Whether runs keep each stage's last executed physical plan (with its metrics) for
    /// [`Session::last_plan`]. Off by default: an executed plan holds its input batches and
    /// hash tables until it is replaced. Turning it off drops the kept plans.
    pub fn keep_last_plans(&self, keep: bool) {
        self.keep_plans.store(keep, Ordering::Relaxed);
        if !keep && let Ok(mut plans) = self.last_plans.lock() {
            plans.clear();
        }
    }

    /// The last executed physical plan of a stage, with its metrics (see
    /// `DisplayableExecutionPlan::with_metrics`), if [`Session::keep_last_plans`] was on
    /// when the stage last ran.
    pub fn last_plan(&self, stage: &str) -> Option<Arc<dyn ExecutionPlan>> {
        self.last_plans
            .lock()
            .ok()
            .and_then(|p| p.get(stage).cloned())
    }
}

/// The DataFusion settings of a session of `spec` made with `config`.
fn session_config(spec: &SessionSpec, config: &PipelineConfig) -> SessionConfig {
    SessionConfig::new()
        .with_target_partitions(config.target_partitions.max(1))
        .with_batch_size(config.batch_size)
        .with_information_schema(true)
        .set_bool(
            "datafusion.sql_parser.map_string_types_to_utf8view",
            spec.utf8_view_strings,
        )
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
        )
}

/// Replaces a slot table's batches. Rows are spread evenly over the partitions (batches
/// sliced, zero-copy), so that every core gets a share of each scan even when the input is
/// one batch; columns are matched by name ([`conform`]).
fn fill(table: &SlotTable, batches: Vec<RecordBatch>, partitions: usize) -> Result<()> {
    let schema = table.schema();
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let share = total.div_ceil(partitions).max(1);
    let mut parts: Vec<Vec<RecordBatch>> = vec![vec![]; partitions];
    let (mut part, mut filled) = (0, 0);
    for batch in batches.into_iter().filter(|b| b.num_rows() > 0) {
        let batch = conform(table.name(), batch, &schema)?;
        let mut offset = 0;
        while offset < batch.num_rows() {
            let rest = batch.num_rows() - offset;
            let len = if part + 1 == partitions {
                rest
            } else {
                (share - filled).min(rest)
            };
            parts[part].push(batch.slice(offset, len));
            offset += len;
            filled += len;
            if filled == share && part + 1 < partitions {
                (part, filled) = (part + 1, 0);
            }
        }
    }
    *table.data().write().map_err(|_| SessionError::Poisoned)? = parts;
    Ok(())
}

/// The contents of a spec's static tables, in the spec's order.
type BuiltStatics = Arc<Vec<(&'static str, Vec<RecordBatch>)>>;

/// What the contents of static tables depend on: their names and SQL, and the string type
/// of SQL literals.
#[derive(Clone, PartialEq, Eq, Hash)]
struct StaticsKey {
    statics: Vec<(&'static str, &'static str)>,
    utf8_view_strings: bool,
}

impl StaticsKey {
    fn of(spec: &SessionSpec) -> StaticsKey {
        StaticsKey {
            statics: spec.statics.iter().map(|s| (s.name, s.sql)).collect(),
            utf8_view_strings: spec.utf8_view_strings,
        }
    }
}

/// The static tables built in this process, one cell per spec: every session of the same
/// spec (the pipelines of `validate --threads N`, the SQL functions' engine pool) shares
/// their batches instead of running their plans again, and sessions made at once wait for
/// the first one's build. They are small (a few thousand rows) and never change.
fn static_cache() -> &'static Mutex<HashMap<StaticsKey, StaticsCell>> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<StaticsKey, StaticsCell>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The static tables of one spec, built once ([`static_cache`]).
type StaticsCell = Arc<tokio::sync::OnceCell<BuiltStatics>>;

/// Runs the planned static tables in order, filling each slot before the next one (which
/// may read it) runs, and returns their batches.
async fn build_statics(
    plans: Vec<(
        &'static str,
        datafusion::dataframe::DataFrame,
        Arc<SlotTable>,
    )>,
    partitions: usize,
) -> Result<Vec<(&'static str, Vec<RecordBatch>)>> {
    let mut built = vec![];
    for (name, df, table) in plans {
        let batches = df.collect().await?;
        // one compact batch, whatever the partitions that built it: each partition's batch
        // holds buffers of its own (256 partitions made `piece_rays` 96 MiB instead of 2)
        let batches = match batches.first() {
            Some(first) => vec![datafusion::arrow::compute::concat_batches(
                &first.schema(),
                &batches,
            )?],
            None => vec![],
        };
        fill(&table, batches.clone(), partitions)?;
        built.push((name, batches));
    }
    Ok(built)
}

/// A stage's logical plan ([`SessionSpec`]'s SQL planned at start-up) and, once a run or
/// [`Session::plan`] asked for it, the plan optimised.
struct LazyPlan {
    raw: LogicalPlan,
    optimized: OnceLock<LogicalPlan>,
}

fn plan_error(stage: &str) -> impl FnOnce(datafusion::error::DataFusionError) -> SessionError {
    let stage = stage.to_string();
    move |source| SessionError::Plan { stage, source }
}

/// The names of the tables a logical plan scans (subqueries included), sorted, once each.
fn table_scans(plan: &LogicalPlan) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            names.insert(scan.table_name.table().to_string());
        }
        Ok(TreeNodeRecursion::Continue)
    });
    names.into_iter().collect()
}

/// A batch with the columns of `schema`, taken from the batch by name and cast to the
/// schema's types.
///
/// Errors: [`SessionError::Columns`] naming the table and every column of the schema the
/// batch lacks and every column of the batch the schema lacks; [`SessionError::Arrow`].
pub fn conform(table: &str, batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema() == *schema {
        return Ok(batch);
    }
    let given = batch.schema();
    let missing: Vec<String> = schema
        .fields()
        .iter()
        .filter(|f| given.column_with_name(f.name()).is_none())
        .map(|f| f.name().clone())
        .collect();
    let extra: Vec<String> = given
        .fields()
        .iter()
        .filter(|f| schema.column_with_name(f.name()).is_none())
        .map(|f| f.name().clone())
        .collect();
    if !missing.is_empty() || !extra.is_empty() || given.fields().len() != schema.fields().len() {
        return Err(SessionError::Columns {
            table: table.to_string(),
            missing,
            extra,
        });
    }
    let columns = schema
        .fields()
        .iter()
        .map(|f| {
            let c = batch
                .column_by_name(f.name())
                .ok_or_else(|| SessionError::Columns {
                    table: table.to_string(),
                    missing: vec![f.name().clone()],
                    extra: vec![],
                })?;
            Ok(if c.data_type() == f.data_type() {
                c.clone()
            } else {
                cast(c, f.data_type())?
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use datafusion::arrow::array::{ArrayRef, Int32Array, Int64Array};
    use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Schema};

    use super::*;

    fn spec(stages: Vec<StageSql>) -> SessionSpec {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("value", DataType::Int32, true),
        ]));
        SessionSpec {
            inputs: vec![("numbers", schema)],
            stages,
            ..SessionSpec::default()
        }
    }

    fn table(name: &'static str, sql: &'static str) -> StageSql {
        StageSql {
            name,
            sql,
            kind: StageKind::Table,
        }
    }

    fn config() -> PipelineConfig {
        PipelineConfig {
            target_partitions: 2,
            batch_size: 8192,
            ..PipelineConfig::default()
        }
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        RecordBatch::try_from_iter(columns).expect("batch")
    }

    #[tokio::test]
    async fn a_view_stage_runs_inside_its_reader_and_alone_when_named() {
        let doubled = StageSql {
            kind: StageKind::View,
            ..table("doubled", "SELECT id, value * 2 AS doubled FROM numbers")
        };
        let summed = table("summed", "SELECT SUM(doubled) AS total FROM doubled");
        let s = Session::new(spec(vec![doubled, summed]), &config()).await;
        let s = s.expect("session");
        assert!(s.is_view("doubled") && !s.is_view("summed"));
        // the reader reads the view and, through it, the view's tables
        assert_eq!(s.reads("summed").expect("reads"), ["doubled", "numbers"]);
        assert_eq!(s.fused("summed"), ["doubled"]);
        let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
        let values: ArrayRef = Arc::new(Int32Array::from(vec![10, 20, 30]));
        let numbers = batch(vec![("id", ids), ("value", values)]);
        s.set_table("numbers", vec![numbers])
            .await
            .expect("numbers");
        // one run: the view's plan is in the reader's, no table scan of it
        let total = s.run("summed").await.expect("summed");
        let total: &Int64Array = total[0].column(0).as_any().downcast_ref().expect("i64");
        assert_eq!(total.value(0), 120);
        let (_, plan) = s.planned("summed").await.expect("plan");
        let shown = format!(
            "{}",
            datafusion::physical_plan::displayable(plan.as_ref()).indent(true)
        );
        assert!(
            shown.contains("table=numbers") && !shown.contains("table=doubled"),
            "{shown}"
        );
        // run by name, the view gives its rows and keeps no table
        let rows: usize = s
            .run("doubled")
            .await
            .expect("doubled")
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(rows, 3);
        assert!(matches!(
            s.table("doubled").await,
            Err(SessionError::UnknownTable(_))
        ));
        // the profile counts one run of the reader, naming the view fused into it
        let profile = s.profile();
        let (_, summed) = profile.iter().find(|(n, _)| n == "summed").expect("summed");
        assert_eq!((summed.runs, summed.fused.clone()), (1, vec!["doubled"]));
        // a twin keeps the view and its fusion
        let twin = s.twin(&config()).await.expect("twin");
        assert!(twin.is_view("doubled"));
        assert_eq!(twin.fused("summed"), ["doubled"]);
    }

    #[tokio::test]
    async fn a_stage_reading_a_later_stage_is_refused() {
        let doubled = table("doubled", "SELECT id, value * 2 AS doubled FROM numbers");
        let summed = table("summed", "SELECT SUM(doubled) AS total FROM doubled");
        let good = Session::new(spec(vec![doubled, summed]), &config()).await;
        let good = good.expect("stages in order");
        assert_eq!(good.reads("summed").expect("reads"), ["doubled"]);
        assert_eq!(good.reads("doubled").expect("reads"), ["numbers"]);
        // the same two stages in the wrong order: `doubled` is not there to plan against
        match Session::new(spec(vec![summed, doubled]), &config()).await {
            Err(SessionError::Plan { stage, .. }) => assert_eq!(stage, "summed"),
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("a wrong order was accepted"),
        }
        // a workflow (a list of the stages) is checked by what each stage reads
        assert!(good.check_order("w", &["doubled", "summed"]).is_ok());
        match good.check_order("w", &["summed", "doubled"]) {
            Err(SessionError::StageOrder {
                workflow,
                stage,
                table,
            }) => {
                assert_eq!(workflow, "w");
                assert_eq!(stage, "summed");
                assert_eq!(table, "doubled");
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    /// A session of two partitions runs a stage on few rows on a plan made for one partition
    /// (all of each table's partitions read as one), and on many rows on its partitioned plan;
    /// both give the same answers.
    #[tokio::test]
    async fn few_rows_run_on_one_partition_many_on_all() {
        fn partitions(plan: &Arc<dyn ExecutionPlan>) -> usize {
            plan.children()
                .iter()
                .map(|c| partitions(c))
                .chain([plan.properties().output_partitioning().partition_count()])
                .max()
                .unwrap_or(1)
        }
        let stage = table(
            "pairs",
            "SELECT a.value % 7 AS bucket, COUNT(*) AS n, SUM(b.value) AS total \
             FROM numbers a JOIN numbers b ON a.id = b.id GROUP BY a.value % 7",
        );
        let s = Session::new(spec(vec![stage]), &config())
            .await
            .expect("session");
        s.keep_last_plans(true);
        for n in [10i32, SINGLE_PARTITION_ROWS as i32 + 1] {
            let ids: Vec<i32> = (0..n).collect();
            let values: Vec<i32> = ids.iter().map(|i| i * 3).collect();
            // two batches: the table's two partitions hold one each
            let half = (n / 2) as usize;
            let part = |range: std::ops::Range<usize>| {
                batch(vec![
                    (
                        "id",
                        Arc::new(Int32Array::from(ids[range.clone()].to_vec())) as ArrayRef,
                    ),
                    ("value", Arc::new(Int32Array::from(values[range].to_vec()))),
                ])
            };
            s.set_table("numbers", vec![part(0..half), part(half..n as usize)])
                .await
                .expect("set");
            let out = s.run("pairs").await.expect("run");
            let mut got: Vec<(i32, i64, i64)> = out
                .iter()
                .flat_map(|b| {
                    let bucket = read::primitive::<Int32Type>(b, "bucket").expect("bucket");
                    let count = read::primitive::<datafusion::arrow::datatypes::Int64Type>(b, "n")
                        .expect("n");
                    let total =
                        read::primitive::<datafusion::arrow::datatypes::Int64Type>(b, "total")
                            .expect("total");
                    (0..b.num_rows())
                        .map(|i| (bucket.value(i), count.value(i), total.value(i)))
                        .collect::<Vec<_>>()
                })
                .collect();
            got.sort();
            let mut want: BTreeMap<i32, (i64, i64)> = BTreeMap::new();
            for v in &values {
                let e = want.entry(v % 7).or_default();
                e.0 += 1;
                e.1 += i64::from(*v);
            }
            let want: Vec<(i32, i64, i64)> =
                want.into_iter().map(|(k, (c, t))| (k, c, t)).collect();
            assert_eq!(got, want, "{n} rows");
            let plan = s.last_plan("pairs").expect("kept plan");
            assert_eq!(partitions(&plan) == 1, n == 10, "{n} rows");
        }
    }

    /// A plan made for one partition merges a `UNION ALL`'s branches in the caller's task
    /// (`ChainPartitionsExec`, no `CoalescePartitionsExec`), with every row of each branch.
    #[tokio::test]
    async fn one_partition_plans_chain_a_unions_branches() {
        fn names(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<String>) {
            out.push(plan.name().to_string());
            for c in plan.children() {
                names(c, out);
            }
        }
        let stage = table(
            "split",
            "SELECT id FROM numbers WHERE value > 5 UNION ALL SELECT id FROM numbers WHERE value <= 5 \
             UNION ALL SELECT b.id FROM numbers a JOIN \
               (SELECT id FROM numbers WHERE value < 3 UNION ALL SELECT id FROM numbers WHERE value >= 3) b \
             ON a.id = b.id",
        );
        let one = PipelineConfig {
            target_partitions: 1,
            ..config()
        };
        let s = Session::new(spec(vec![stage]), &one)
            .await
            .expect("session");
        s.keep_last_plans(true);
        let ids: Vec<i32> = (0..20).collect();
        let input = batch(vec![
            ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
            ("value", Arc::new(Int32Array::from(ids.clone()))),
        ]);
        s.set_table("numbers", vec![input]).await.expect("set");
        let out = s.run("split").await.expect("run");
        let mut got: Vec<i32> = out
            .iter()
            .flat_map(|b| {
                read::primitive::<Int32Type>(b, "id")
                    .expect("id")
                    .values()
                    .to_vec()
            })
            .collect();
        got.sort();
        let twice: Vec<i32> = ids.iter().flat_map(|i| [*i, *i]).collect();
        assert_eq!(got, twice);
        let mut ops = vec![];
        names(&s.last_plan("split").expect("kept plan"), &mut ops);
        assert!(ops.iter().any(|n| n == "ChainPartitionsExec"), "{ops:?}");
        assert!(
            !ops.iter().any(|n| n == "CoalescePartitionsExec"),
            "{ops:?}"
        );
    }

    /// A stage's projections run as `StageProjectionExec` (no per-expression metric names),
    /// give the same rows on each re-execution of the cached plan, and count their rows.
    #[tokio::test]
    async fn stage_projections_run_without_expression_metrics() {
        use datafusion::physical_plan::projection::ProjectionExec;
        fn count(plan: &Arc<dyn ExecutionPlan>, lean: &mut usize, plain: &mut usize) {
            if plan.is::<projection::StageProjectionExec>() {
                *lean += 1;
            }
            if plan.is::<ProjectionExec>() {
                *plain += 1;
            }
            for c in plan.children() {
                count(c, lean, plain);
            }
        }
        let stage = table(
            "labelled",
            "SELECT id, CASE WHEN value > 2 THEN 'big' ELSE 'small' END AS size, value + id AS total \
             FROM numbers",
        );
        let s = Session::new(spec(vec![stage]), &config())
            .await
            .expect("session");
        s.keep_last_plans(true);
        for (ids, values) in [(vec![1, 2], vec![1, 5]), (vec![7], vec![3])] {
            let n = ids.len();
            let input = batch(vec![
                ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
                ("value", Arc::new(Int32Array::from(values.clone()))),
            ]);
            s.set_table("numbers", vec![input]).await.expect("set");
            let out = s.run("labelled").await.expect("run");
            let got: Vec<(i32, String, i32)> = out
                .iter()
                .flat_map(|b| {
                    let id = read::primitive::<Int32Type>(b, "id").expect("id");
                    let size = read::strings(b, "size").expect("size");
                    let total = read::primitive::<Int32Type>(b, "total").expect("total");
                    (0..b.num_rows())
                        .map(|i| (id.value(i), size.value(i).to_string(), total.value(i)))
                        .collect::<Vec<_>>()
                })
                .collect();
            let mut want: Vec<(i32, String, i32)> = ids
                .iter()
                .zip(&values)
                .map(|(i, v)| {
                    (
                        *i,
                        (if *v > 2 { "big" } else { "small" }).to_string(),
                        i + v,
                    )
                })
                .collect();
            let mut got = got;
            got.sort();
            want.sort();
            assert_eq!(got, want);
            let plan = s.last_plan("labelled").expect("kept plan");
            let (mut lean, mut plain) = (0, 0);
            count(&plan, &mut lean, &mut plain);
            assert!(
                plan.is::<projection::StageProjectionExec>(),
                "the root projects"
            );
            assert!(lean >= 1, "a projection in the stage");
            assert_eq!(plain, 0, "no ProjectionExec left");
            assert_eq!(
                metrics::plan_metrics(plan.as_ref()).output_rows,
                Some(n as u64)
            );
            // baseline metrics only: no per-expression time (`expr_0_eval_time`, labelled
            // with the expression's SQL)
            let set = plan.metrics().expect("metrics");
            let names: Vec<String> = set.iter().map(|m| m.value().name().to_string()).collect();
            assert!(names.iter().any(|m| m == "output_rows"), "{names:?}");
            assert!(names.iter().all(|m| !m.starts_with("expr_")), "{names:?}");
            assert!(set.iter().all(|m| m.labels().is_empty()), "{names:?}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn static_tables_are_built_in_order_once_per_process() {
        // `evens` reads `small`, built before it; the stages are planned meanwhile
        let statics = vec![
            table(
                "small",
                "SELECT column1 AS n FROM (VALUES (1), (2), (3), (4)) WHERE column1 > 0",
            ),
            table("evens", "SELECT n * 10 AS tens FROM small WHERE n % 2 = 0"),
        ];
        let spec = SessionSpec {
            statics,
            stages: vec![table("total", "SELECT SUM(tens) AS total FROM evens")],
            ..spec(vec![])
        };
        let first = Session::new(spec.clone(), &config()).await.expect("first");
        let second = Session::new(spec, &config()).await.expect("second");
        for s in [&first, &second] {
            let total = s.run("total").await.expect("run");
            let total =
                read::primitive::<datafusion::arrow::datatypes::Int64Type>(&total[0], "total")
                    .expect("total");
            assert_eq!(total.value(0), 60);
        }
        // the second session holds the first one's batches (the same Arrow buffers)
        let buffer = |s: &Session| {
            s.tables["evens"].data().read().expect("data").concat()[0]
                .column(0)
                .to_data()
                .buffers()[0]
                .as_ptr()
        };
        assert_eq!(buffer(&first), buffer(&second));
    }

    #[tokio::test]
    async fn set_table_matches_columns_by_name() {
        let s = Session::new(spec(vec![]), &config())
            .await
            .expect("session");
        // columns given in the other order, `value` as Int64: matched by name, cast
        let given = batch(vec![
            (
                "value",
                Arc::new(Int64Array::from(vec![10, 20])) as ArrayRef,
            ),
            ("id", Arc::new(Int32Array::from(vec![1, 2]))),
        ]);
        s.set_table("numbers", vec![given]).await.expect("set");
        let rows = s.table("numbers").await.expect("table");
        let ids: Vec<i32> = rows
            .iter()
            .flat_map(|b| read::primitive::<datafusion::arrow::datatypes::Int32Type>(b, "id"))
            .flat_map(|a| a.values().to_vec())
            .collect();
        let values: Vec<i32> = rows
            .iter()
            .flat_map(|b| read::primitive::<datafusion::arrow::datatypes::Int32Type>(b, "value"))
            .flat_map(|a| a.values().to_vec())
            .collect();
        assert_eq!(ids, [1, 2]);
        assert_eq!(values, [10, 20]);
        // a missing and an extra column: refused, naming both
        let wrong = batch(vec![
            ("id", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("amount", Arc::new(Int32Array::from(vec![5]))),
        ]);
        match s.set_table("numbers", vec![wrong]).await {
            Err(SessionError::Columns {
                table,
                missing,
                extra,
            }) => {
                assert_eq!(table, "numbers");
                assert_eq!(missing, ["value"]);
                assert_eq!(extra, ["amount"]);
            }
            other => panic!("not refused by column name: {other:?}"),
        }
        // the table kept its rows
        let kept: usize = s
            .table("numbers")
            .await
            .expect("table")
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(kept, 2);
    }
}
