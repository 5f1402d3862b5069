//! The scan of the PGN tables (`read_pgn`, `read_plies`): the provider of one call
//! ([`PgnTable`]) and its execution plan ([`PgnScanExec`]), parameterised by what a row is
//! ([`Rows`]: a game, [`super::game_columns`], or a ply, [`super::ply_columns`]).
//!
//! The provider knows the files at planning time; its scan has one partition per group of
//! files or byte ranges ([`super::ranges`]: at most DataFusion's target partitions, spread
//! by size), so several files are read in parallel. Each partition reads its ranges in turn
//! on a blocking thread (decompression and parsing stay off the async workers), cuts them
//! into chunks of `batch_size` games (for plies also ending once a chunk has
//! [`PLIES_PER_GAME`] × `batch_size` move tokens) and sends its record batches per chunk as
//! soon as they are built: memory is bounded by a few chunks, whatever the size of the
//! input.
//!
//! Projection pushdown: only the projected columns are built, and the rules (the pipeline's
//! validation, [`crate::validate::validate_games_with`]) run only when a rules column is
//! projected (always for plies). A query over tags only reads and parses the games and
//! never starts an engine; the games' text is kept only for `read_pgn`'s `pgn` column.
//! `EXPLAIN` shows `rules=true|false` on the scan, and its metrics count `games`,
//! `rules_games`, `rules_chunks` (pipeline runs) and `stage_runs` (the stage runs of those
//! pipeline runs: replay's long tail shows here).

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableFunctionArgs, TableProvider};
use datafusion::common::DataFusionError;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use futures::TryStreamExt;

use super::arguments::{inputs_of, string_argument};
use super::engines::EnginePool;
use super::explorer::plies::{explorer_batches, explorer_plies_schema};
use super::game_columns::{
    games_batch, needs_openings, needs_text, read_pgn_schema, validation_for,
};
use super::openings::{Book, book};
use super::options::split_bytes_of;
use super::ply_bound::{max_ply, ply_bound};
use super::ply_columns::{needs_notation, needs_notes, plies_batches, read_plies_schema};
use super::ranges::{partitions, planned_ranges, ranges_of, ranges_plan};
use crate::engine::thread_runtime;
use crate::io::input::{ByteCounter, Input};
use crate::io::split::PgnRange;
use crate::pgn::{PgnError, PgnReader, RawGame};
use crate::validate::{
    PrefixPlies, ValidateOptions, Validation, replay_prefixes, validate_games_with,
};

/// What a row of a PGN scan is: the table function whose rows it makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// `read_pgn`: one row per game ([`read_pgn_schema`]).
    Games,
    /// `read_plies`: one row per legal main-line ply ([`read_plies_schema`]).
    Plies,
    /// `explorer`'s input: one row per legal main-line ply of a standard game, with the
    /// position before it and the game's facts ([`explorer_plies_schema`]).
    ExplorerPlies,
}

impl Rows {
    /// The table function's name (named in errors).
    #[must_use]
    pub fn table_name(self) -> &'static str {
        match self {
            Rows::Games => "read_pgn",
            Rows::Plies => "read_plies",
            Rows::ExplorerPlies => "explorer",
        }
    }

    /// The table's full Arrow schema.
    #[must_use]
    pub fn schema(self) -> SchemaRef {
        match self {
            Rows::Games => read_pgn_schema(),
            Rows::Plies => read_plies_schema(),
            Rows::ExplorerPlies => explorer_plies_schema(),
        }
    }

    /// Its number in a plan that travels ([`super::codec`]).
    pub(crate) fn code(self) -> u32 {
        match self {
            Rows::Games => 0,
            Rows::Plies => 1,
            Rows::ExplorerPlies => 2,
        }
    }

    /// The rows of [`Rows::code`] `code`; `None` for a number no kind has.
    pub(crate) fn of_code(code: u32) -> Option<Rows> {
        [Rows::Games, Rows::Plies, Rows::ExplorerPlies]
            .into_iter()
            .find(|r| r.code() == code)
    }

    /// Whether a scan of these columns (indices into [`Rows::schema`]) runs the rules:
    /// always for plies, for games when a rules column is projected.
    fn needs_rules(self, projection: &[usize]) -> bool {
        match self {
            Rows::Games => validation_for(projection).is_some(),
            Rows::Plies | Rows::ExplorerPlies => true,
        }
    }
}

/// The table of one `read_pgn(path)` or `read_plies(path)` call: its files, known at
/// planning time, and the calling session's [`super::ChessOptions::split_bytes`] (a table that
/// travels to a cluster's scheduler is scanned there with the client's setting).
#[derive(Debug)]
pub struct PgnTable {
    inputs: Vec<Input>,
    pool: Arc<EnginePool>,
    /// What a row is.
    rows: Rows,
    split_bytes: u64,
    /// Plies replayed at most per game, whatever the query (`explorer`'s `max_ply`).
    max_ply: Option<u32>,
}

impl PgnTable {
    /// The table of `inputs` with these `rows`; plain files of at least twice
    /// `split_bytes` are read as several partitions.
    pub(crate) fn new(
        inputs: Vec<Input>,
        pool: Arc<EnginePool>,
        rows: Rows,
        split_bytes: u64,
    ) -> PgnTable {
        PgnTable {
            inputs,
            pool,
            rows,
            split_bytes,
            max_ply: None,
        }
    }

    /// The same table with each game replayed up to `max_ply` only.
    #[must_use]
    pub fn with_max_ply(self, max_ply: u32) -> PgnTable {
        PgnTable {
            max_ply: Some(max_ply),
            ..self
        }
    }

    /// Plies replayed at most per game, whatever the query; `None`: all.
    #[must_use]
    pub fn max_ply(&self) -> Option<u32> {
        self.max_ply
    }

    /// The table of a call of the table function whose rows are `rows`: the files its one
    /// string literal names ([`string_argument`], [`inputs_of`]), split by the calling
    /// session's `sqlchess.split_bytes` (`defaults`' when the session has no
    /// [`super::ChessOptions`]).
    ///
    /// Errors (planning): see [`super::ReadPgn`].
    pub(crate) fn of_call(
        args: &TableFunctionArgs,
        pool: Arc<EnginePool>,
        rows: Rows,
        defaults: &super::ChessOptions,
    ) -> datafusion::common::Result<PgnTable> {
        let name = rows.table_name();
        let path = string_argument(name, "a file, a directory or a glob", args)?;
        let split_bytes = split_bytes_of(args, defaults);
        Ok(PgnTable::new(
            inputs_of(name, &path)?,
            pool,
            rows,
            split_bytes,
        ))
    }

    /// Plain files of at least twice this many bytes are read as several partitions
    /// ([`super::ChessOptions::split_bytes`]).
    #[must_use]
    pub fn split_bytes(&self) -> u64 {
        self.split_bytes
    }

    /// What a row is: a game (`read_pgn`) or a ply (`read_plies`).
    #[must_use]
    pub fn rows(&self) -> Rows {
        self.rows
    }

    /// The files read.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }
}

#[async_trait]
impl TableProvider for PgnTable {
    fn schema(&self) -> SchemaRef {
        self.rows.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// `read_plies` takes an upper bound on `ply` ([`super::ply_bound`]) as a cut of the
    /// replay; the filter still runs above the scan.
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::common::Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| match self.rows {
                Rows::Plies if ply_bound(f).is_some() => TableProviderFilterPushDown::Inexact,
                _ => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let projection: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema().fields().len()).collect(),
        };
        let split_bytes = self.split_bytes;
        let (inputs, batch, target) = (
            self.inputs.clone(),
            state.config().batch_size(),
            state.config().target_partitions(),
        );
        let (pool, rows) = (self.pool.clone(), self.rows);
        let plan =
            move || PgnScanExec::new(inputs, projection, batch, (target, split_bytes), pool, rows);
        // finding the cuts reads the large files: off the async workers (when on tokio)
        let exec: PgnScanExec = match tokio::runtime::Handle::try_current() {
            Ok(rt) => rt
                .spawn_blocking(plan)
                .await
                .map_err(|e| DataFusionError::External(Box::new(e)))??,
            Err(_) => plan()?,
        };
        let max_ply = match (self.rows, self.max_ply) {
            (Rows::Plies, _) => max_ply(filters),
            (_, fixed) => fixed,
        };
        Ok(Arc::new(PgnScanExec {
            limited: limit.is_some(),
            max_ply,
            ..exec
        }))
    }
}

/// A `read_plies` chunk ends once it has `batch_size` games or this many times
/// `batch_size` move tokens, whichever comes first (393,216 tokens at the default batch
/// size; the game that reaches it is the chunk's last): the ply rows of a chunk are held
/// until sent, so this bounds the scan's memory per partition.
const PLIES_PER_GAME: usize = 48;

/// What a [`PgnScanExec`] reads and builds: everything of it but its engines.
#[derive(Debug, Clone)]
pub(crate) struct ScanParts {
    /// The files read.
    pub inputs: Vec<Input>,
    /// What each partition reads: the ranges plan ([`super::ranges`]).
    pub ranges: Arc<dyn ExecutionPlan>,
    /// The projected columns of the full schema.
    pub projection: Vec<usize>,
    /// Games per pipeline run and rows per batch.
    pub batch_games: usize,
    /// What a row is.
    pub rows: Rows,
    /// Under a LIMIT (small first chunks).
    pub limited: bool,
    /// Plies replayed at most per game ([`super::ply_bound`]); `None`: all.
    pub max_ply: Option<u32>,
}

/// The scan of `read_pgn` and `read_plies`: one partition per group of files or byte ranges
/// of files ([`PgnRange`]), the projected columns only, the rules only when a rules column
/// is projected. Its one input is the plan of the ranges each partition reads
/// (`src/sql/ranges.rs`): partition `i` of the scan reads the ranges of partition `i` of it.
#[derive(Debug)]
pub struct PgnScanExec {
    inputs: Vec<Input>,
    /// What each partition reads ([`super::ranges`]).
    ranges: Arc<dyn ExecutionPlan>,
    projection: Vec<usize>,
    schema: SchemaRef,
    rules: bool,
    batch_games: usize,
    pool: Arc<EnginePool>,
    /// What a row is.
    rows: Rows,
    /// The query reads only some rows (a LIMIT reached the scan): the first chunks of
    /// games are small, so the first rows come soon.
    limited: bool,
    /// Plies replayed at most per game: a filter on `ply` the scan took.
    max_ply: Option<u32>,
    /// Where the scan runs when its plan came from elsewhere (a cluster's executor), for
    /// its errors.
    site: Option<String>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl PgnScanExec {
    /// The scan of `inputs` (reads the plain files to find where to split them).
    fn new(
        inputs: Vec<Input>,
        projection: Vec<usize>,
        batch_games: usize,
        (target_partitions, split_bytes): (usize, u64),
        pool: Arc<EnginePool>,
        rows: Rows,
    ) -> datafusion::common::Result<PgnScanExec> {
        let name = rows.table_name();
        let rules = rows.needs_rules(&projection);
        let groups = partitions(&inputs, target_partitions, split_bytes, rules)
            .map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
        let ranges = ranges_plan(&inputs, &groups)?;
        PgnScanExec::from_parts(
            ScanParts {
                inputs,
                ranges,
                projection,
                batch_games,
                rows,
                limited: false,
                max_ply: None,
            },
            pool,
            None,
        )
    }

    /// The scan of `parts`, as planned elsewhere (a plan decoded by
    /// [`super::codec::ChessPhysicalCodec`]); `site` names where it runs in its errors
    /// (e.g. `executor 127.0.0.1:50051`). Nothing is read until it executes.
    ///
    /// Errors: a projection outside the schema.
    pub(crate) fn from_parts(
        parts: ScanParts,
        pool: Arc<EnginePool>,
        site: Option<String>,
    ) -> datafusion::common::Result<PgnScanExec> {
        let ScanParts {
            inputs,
            ranges,
            projection,
            batch_games,
            rows,
            limited,
            max_ply,
        } = parts;
        let schema = Arc::new(rows.schema().project(&projection)?);
        let rules = rows.needs_rules(&projection);
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(
                ranges.properties().output_partitioning().partition_count(),
            ),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(PgnScanExec {
            inputs,
            ranges,
            projection,
            schema,
            rules,
            batch_games: batch_games.max(1),
            pool,
            rows,
            limited,
            max_ply,
            site,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// What the scan reads and builds, without its engines: what a plan that travels
    /// carries ([`super::codec`]).
    pub(crate) fn parts(&self) -> ScanParts {
        ScanParts {
            inputs: self.inputs.clone(),
            ranges: self.ranges.clone(),
            projection: self.projection.clone(),
            batch_games: self.batch_games,
            rows: self.rows,
            limited: self.limited,
            max_ply: self.max_ply,
        }
    }

    /// What each partition reads: whole files and byte ranges of large plain files, each
    /// with the file index of its first game.
    pub fn partitions(&self) -> Vec<Vec<PgnRange>> {
        planned_ranges(&self.ranges, &self.inputs)
    }

    /// Whether the scan runs the rules (a rules column is projected).
    pub fn runs_rules(&self) -> bool {
        self.rules
    }

    /// The files read (see [`PgnScanExec::partitions`] for what each partition reads).
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// The partitions as `[file:start..end@first_game, …]` each (`end` empty: to the end),
    /// when some range is less than a whole file.
    fn ranges_text(&self) -> Option<String> {
        let partitions = self.partitions();
        if partitions.iter().flatten().all(PgnRange::is_whole) {
            return None;
        }
        Some(
            partitions
                .iter()
                .map(|p| {
                    let r: Vec<String> = p
                        .iter()
                        .map(|r| {
                            format!(
                                "{}:{}..{}@{}",
                                r.input.name,
                                r.start,
                                r.end.map(|e| e.to_string()).unwrap_or_default(),
                                r.first_game
                            )
                        })
                        .collect();
                    format!("[{}]", r.join(", "))
                })
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

impl DisplayAs for PgnScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                let cols: Vec<&str> = self
                    .schema
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect();
                write!(
                    f,
                    "PgnScanExec: {}files={}, rules={}, projection=[{}]",
                    match self.rows {
                        Rows::Games => "",
                        Rows::Plies => "plies, ",
                        Rows::ExplorerPlies => "explorer plies, ",
                    },
                    self.inputs.len(),
                    self.rules,
                    cols.join(", ")
                )?;
                if let Some(m) = self.max_ply {
                    write!(f, ", max_ply={m}")?;
                }
                if let Some(ranges) = self.ranges_text() {
                    write!(f, ", ranges=[{ranges}]")?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => {
                write!(f, "files={}\nrules={}", self.inputs.len(), self.rules)?;
                if let Some(m) = self.max_ply {
                    write!(f, "\nmax_ply={m}")?;
                }
                if let Some(ranges) = self.ranges_text() {
                    write!(f, "\nranges={ranges}")?;
                }
                Ok(())
            }
        }
    }
}

impl ExecutionPlan for PgnScanExec {
    fn name(&self) -> &str {
        "PgnScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.ranges]
    }

    /// The ranges are work to share out, not rows to spread: no repartitioning below.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> datafusion::common::Result<TreeNodeRecursion>,
    ) -> datafusion::common::Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    /// The same scan over other ranges (a task's share of the partitions).
    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let [ranges] = children.as_slice() else {
            return Err(DataFusionError::Internal(format!(
                "PgnScanExec has one input, given {}",
                children.len()
            )));
        };
        Ok(Arc::new(PgnScanExec::from_parts(
            ScanParts {
                ranges: ranges.clone(),
                ..self.parts()
            },
            self.pool.clone(),
            self.site.clone(),
        )?))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> datafusion::common::Result<SendableRecordBatchStream> {
        let partitions = self.properties.output_partitioning().partition_count();
        if partition >= partitions {
            return Err(DataFusionError::Internal(format!(
                "PgnScanExec: partition {partition} of {partitions}"
            )));
        }
        let scan = Scan {
            rows: self.rows,
            projection: self.projection.clone(),
            schema: self.schema.clone(),
            batch_rows: self.batch_games,
            max_ply: self.max_ply,
        };
        if let Some(options) = scan.options() {
            // the engines planned while the first games are read; the explorer's plies are
            // always named (`replay_prefixes`)
            let named = scan.rows == Rows::ExplorerPlies;
            self.pool.warm_up(
                ValidateOptions {
                    positions_only: options.positions_only && !named,
                    ..options
                }
                .stages(),
            );
        }
        let mut builder = RecordBatchReceiverStream::builder(self.schema.clone(), 2);
        let ranges = self.ranges.execute(partition, context)?;
        let inputs = self.inputs.clone();
        let flush = Flush {
            scan,
            pool: self.pool.clone(),
            tx: builder.tx(),
            games: MetricBuilder::new(&self.metrics).counter("games", partition),
            rules_games: MetricBuilder::new(&self.metrics).counter("rules_games", partition),
            rules_chunks: MetricBuilder::new(&self.metrics).counter("rules_chunks", partition),
            stage_runs: MetricBuilder::new(&self.metrics).counter("stage_runs", partition),
        };
        // Games per pipeline run: `batch_size`. Replay's cost per ply is mostly fixed per
        // stage run, so smaller chunks make the rules slower (512 games: 1.6 times the time
        // over the shared PGN), but a LIMIT would wait for a whole chunk: under one, the
        // first chunk with the rules is a sixteenth of that and each next one four times
        // as large, up to `batch_size`.
        let full = self.batch_games;
        let mut chunk = if self.rules && self.limited {
            (full / 16).max(1)
        } else {
            full
        };
        // read_plies holds a chunk's ply rows (about 200 bytes each) until they are sent:
        // its chunks also end at `PLIES_PER_GAME` move tokens a game on average
        let ply_cap = if self.rows != Rows::Games {
            full.saturating_mul(PLIES_PER_GAME)
        } else {
            usize::MAX
        };
        let cut = self
            .max_ply
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        let name = self.rows.table_name();
        let site = self.site.clone();
        // the ranges on the caller's runtime (an input plan may need its drivers), then the
        // reading, parsing and rules on a blocking thread
        builder.spawn(async move {
            let batches: Vec<RecordBatch> = ranges.try_collect().await?;
            let group = ranges_of(&batches, &inputs)?;
            tokio::task::spawn_blocking(move || {
                let df = |e: crate::Error| DataFusionError::External(Box::new(e));
                // a file that cannot be read: named with the scan and, on a cluster, the executor
                let io = |e: crate::Error| match &site {
                    Some(site) => DataFusionError::Execution(format!("{name} on {site}: {e}")),
                    None => df(e),
                };
                let rt = thread_runtime().map_err(df)?;
                // games of several files go into one chunk: fewer, larger pipeline runs
                let mut games: Vec<(&str, RawGame)> = Vec::with_capacity(full.min(65_536));
                let mut plies = 0usize;
                for range in &group {
                    let input = &range.input;
                    let first = usize::try_from(range.first_game).unwrap_or(usize::MAX);
                    let reader = input
                        .open_range(range.start, range.end, &ByteCounter::new())
                        .map_err(io)?;
                    let read = if flush.scan.rows == Rows::Plies
                        && needs_notes(&flush.scan.projection)
                    {
                        PgnReader::with_notes(reader)
                    } else if flush.scan.rows == Rows::Games && needs_text(&flush.scan.projection) {
                        // the games' text only for the `pgn` column
                        PgnReader::with_text(reader)
                    } else {
                        PgnReader::new(reader)
                    };
                    for next in read {
                        match next {
                            Ok(mut g) => {
                                g.index = g.index.saturating_add(first);
                                plies += g.moves.len().min(cut);
                                games.push((input.name.as_str(), g));
                            }
                            Err(PgnError::Io(e)) => {
                                return Err(io(crate::Error::Io {
                                    path: input.name.clone(),
                                    source: e,
                                }));
                            }
                        }
                        if games.len() >= chunk || plies >= ply_cap {
                            plies = 0;
                            if !flush.send(&rt, &mut games)? {
                                return Ok(());
                            }
                            chunk = chunk.saturating_mul(4).min(full);
                        }
                    }
                }
                if !games.is_empty() {
                    flush.send(&rt, &mut games)?;
                }
                Ok(())
            })
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
        });
        Ok(builder.build())
    }
}

/// What a partition does with each chunk of games: validate them when the rules are
/// needed, build the batches, send them.
struct Flush {
    scan: Scan,
    pool: Arc<EnginePool>,
    tx: tokio::sync::mpsc::Sender<datafusion::common::Result<RecordBatch>>,
    games: datafusion::physical_plan::metrics::Count,
    rules_games: datafusion::physical_plan::metrics::Count,
    /// Chunks validated (pipeline runs of [`validate_games_with`]).
    rules_chunks: datafusion::physical_plan::metrics::Count,
    /// Stage runs of those chunks' validation (executions of a stage's physical plan).
    stage_runs: datafusion::physical_plan::metrics::Count,
}

impl Flush {
    /// Sends the batches of `games` and empties it; `false` when the query stopped reading
    /// (LIMIT, cancelled).
    fn send(
        &self,
        rt: &tokio::runtime::Runtime,
        games: &mut Vec<(&str, RawGame)>,
    ) -> datafusion::common::Result<bool> {
        let df = |e: crate::Error| DataFusionError::External(Box::new(e));
        // the named openings (replayed on first use) before this partition takes an engine
        let book = match self.scan.rows {
            Rows::Games if needs_openings(&self.scan.projection) => {
                Some(book(&self.pool).map_err(df)?)
            }
            _ => None,
        };
        let ruled = if let Some(options) = self.scan.options() {
            // the engine goes back before the batch is sent: a partition waiting for its
            // consumer holds none
            let e = self.pool.take(rt).map_err(df)?;
            let runs = e.pipeline().stage_runs();
            let r = rt.block_on(async {
                Ok(match self.scan.rows {
                    // the explorer's games share their first plies: each replayed once
                    Rows::ExplorerPlies => Ruled::Prefixes(
                        replay_prefixes(&e, games, options.max_plies.unwrap_or(u32::MAX)).await?,
                    ),
                    _ => Ruled::Games(validate_games_with(&e, games, options).await?),
                })
            });
            let runs = e.pipeline().stage_runs().saturating_sub(runs);
            self.pool.give_back(e);
            self.stage_runs
                .add(usize::try_from(runs).unwrap_or(usize::MAX));
            self.rules_games.add(games.len());
            self.rules_chunks.add(1);
            r.map_err(df)?
        } else {
            Ruled::None
        };
        self.games.add(games.len());
        let sent = self.scan.batches(games, &ruled, book.as_deref(), |b| {
            Ok(self.tx.blocking_send(Ok(b)).is_ok())
        })?;
        games.clear();
        Ok(sent)
    }
}

/// What the rules gave a chunk of games.
enum Ruled {
    /// No rules column: none ran.
    None,
    /// The games validated ([`validate_games_with`]).
    Games(Validation),
    /// The explorer's plies ([`replay_prefixes`]).
    Prefixes(PrefixPlies),
}

/// What one partition builds.
struct Scan {
    rows: Rows,
    /// The projected columns of `rows`' schema.
    projection: Vec<usize>,
    /// The projected schema.
    schema: SchemaRef,
    /// Rows per batch.
    batch_rows: usize,
    /// Plies replayed at most per game.
    max_ply: Option<u32>,
}

impl Scan {
    /// What the rules give these rows: `None` when no rules column is projected.
    fn options(&self) -> Option<ValidateOptions> {
        match self.rows {
            Rows::Games => validation_for(&self.projection),
            Rows::Plies | Rows::ExplorerPlies => Some(ValidateOptions {
                plies: true,
                positions_only: !needs_notation(&self.projection),
                max_plies: self.max_ply,
            }),
        }
    }

    /// The record batches of a chunk of games, each handed to `emit` as it is built: one
    /// (games) or as many as the plies need (at most `batch_rows` rows each); `false` when
    /// `emit` returned `false` (the query stopped reading).
    fn batches(
        &self,
        games: &[(&str, RawGame)],
        ruled: &Ruled,
        book: Option<&Book>,
        mut emit: impl FnMut(RecordBatch) -> datafusion::common::Result<bool>,
    ) -> datafusion::common::Result<bool> {
        match (self.rows, ruled) {
            (Rows::Games, Ruled::Games(_) | Ruled::None) => {
                let v = match ruled {
                    Ruled::Games(v) => Some(v),
                    _ => None,
                };
                emit(games_batch(&self.projection, &self.schema, games, v, book)?)
            }
            (Rows::Plies, Ruled::Games(v)) => plies_batches(
                games,
                v,
                (&self.projection, &self.schema),
                self.batch_rows,
                emit,
            ),
            (Rows::ExplorerPlies, Ruled::Prefixes(p)) => explorer_batches(
                games,
                p,
                (&self.projection, &self.schema),
                self.batch_rows,
                emit,
            ),
            (rows, _) => Err(DataFusionError::Internal(format!(
                "{}: rows without their rules",
                rows.table_name()
            ))),
        }
    }
}
