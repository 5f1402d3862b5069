//! `read_pgn(path)`: PGN files as a table, one row per game (see [`read_pgn_schema`]).
//!
//! The provider ([`PgnTable`]) knows the files at planning time; its scan ([`PgnScanExec`])
//! has one partition per group of files (at most DataFusion's target partitions, the files
//! spread by size), so several files are read in parallel. Each partition reads its files
//! in turn on a blocking thread (decompression and parsing stay off the async workers),
//! cuts it into chunks of `batch_size` games (for `read_plies` also ending once a chunk has
//! [`PLIES_PER_GAME`] × `batch_size` move tokens) and sends one record batch per chunk as soon as
//! it is built: memory is bounded by a few chunks, whatever the size of the input.
//!
//! Projection pushdown: only the projected columns are built, and the rules (the pipeline's
//! validation, [`crate::validate::validate_games`]) run only when a rules column
//! (`plies`, `first_illegal_ply`, `error_kind`, `error_message`, `final_fen`, `final_status`,
//! `result_consistent`) is projected. A query over tags only reads and parses the games and
//! never starts an engine. `EXPLAIN` shows `rules=true|false` on the scan, and its metrics
//! count `games`, `rules_games` and `rules_chunks` (pipeline runs).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Int32Array, ListBuilder, MapBuilder, RecordBatch, RecordBatchOptions,
    StringArray, StringBuilder, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, ScalarValue, plan_err};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use futures::TryStreamExt;

use super::ChessOptions;
use super::engines::EnginePool;
use super::ranges::{planned_ranges, ranges_of, ranges_plan};
use super::read_plies::{plies_batches, read_plies_schema};
use crate::chess::outcome::FinalStatus;
use crate::engine::thread_runtime;
use crate::io::input::{ByteCounter, Input};
use crate::io::split::{PgnRange, split};
use crate::pgn::{PgnError, PgnReader, RawGame};
use crate::validate::{ErrorKind, GameReport, ValidateOptions, Validation, validate_games_with};

/// What a column of `read_pgn` is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    File,
    GameIndex,
    /// A tag's value (NULL when the game has no such tag).
    Tag(&'static str),
    /// An Elo tag as an integer (NULL when absent or not an integer).
    Elo(&'static str),
    Tags,
    Moves,
    Plies,
    FirstIllegalPly,
    ErrorKind,
    ErrorMessage,
    FinalFen,
    FinalStatus,
    ResultConsistent,
}

impl Col {
    /// Whether the column needs the rules (a validation of the game).
    fn needs_rules(self) -> bool {
        matches!(
            self,
            Col::Plies
                | Col::FirstIllegalPly
                | Col::ErrorKind
                | Col::ErrorMessage
                | Col::FinalFen
                | Col::FinalStatus
                | Col::ResultConsistent
        )
    }
}

/// The columns of `read_pgn`, in order.
const COLUMNS: &[(&str, Col)] = &[
    ("file", Col::File),
    ("game_index", Col::GameIndex),
    ("event", Col::Tag("Event")),
    ("site", Col::Tag("Site")),
    ("date", Col::Tag("Date")),
    ("round", Col::Tag("Round")),
    ("white", Col::Tag("White")),
    ("black", Col::Tag("Black")),
    ("result", Col::Tag("Result")),
    ("white_elo", Col::Elo("WhiteElo")),
    ("black_elo", Col::Elo("BlackElo")),
    ("time_control", Col::Tag("TimeControl")),
    ("termination", Col::Tag("Termination")),
    ("eco", Col::Tag("ECO")),
    ("opening", Col::Tag("Opening")),
    ("utc_date", Col::Tag("UTCDate")),
    ("utc_time", Col::Tag("UTCTime")),
    ("start_fen", Col::Tag("FEN")),
    ("tags", Col::Tags),
    ("moves", Col::Moves),
    ("plies", Col::Plies),
    ("first_illegal_ply", Col::FirstIllegalPly),
    ("error_kind", Col::ErrorKind),
    ("error_message", Col::ErrorMessage),
    ("final_fen", Col::FinalFen),
    ("final_status", Col::FinalStatus),
    ("result_consistent", Col::ResultConsistent),
];

fn tags_type() -> DataType {
    DataType::Map(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(
                vec![
                    Field::new("keys", DataType::Utf8, false),
                    Field::new("values", DataType::Utf8, true),
                ]
                .into(),
            ),
            false,
        )),
        false,
    )
}

fn moves_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

fn field(name: &str, col: Col) -> Field {
    use DataType::*;
    let (t, nullable) = match col {
        Col::File => (Utf8, false),
        Col::GameIndex => (UInt64, false),
        Col::Tag(_) | Col::ErrorKind | Col::ErrorMessage | Col::FinalFen | Col::FinalStatus => {
            (Utf8, true)
        }
        Col::Elo(_) => (Int32, true),
        Col::Tags => (tags_type(), false),
        Col::Moves => (moves_type(), false),
        Col::Plies | Col::FirstIllegalPly => (UInt32, col == Col::FirstIllegalPly),
        Col::ResultConsistent => (Boolean, false),
    };
    Field::new(name, t, nullable)
}

/// The Arrow schema of `read_pgn(path)`, one row per game, in this order:
///
/// | column | type | |
/// |---|---|---|
/// | `file` | Utf8 | the file as found (the path given, or below the directory / glob) |
/// | `game_index` | UInt64 | 0-based index of the game in its file |
/// | `event`, `site`, `date`, `round`, `white`, `black`, `result` | Utf8, nullable | the seven-tag roster (NULL when the tag is absent) |
/// | `white_elo`, `black_elo` | Int32, nullable | `WhiteElo` / `BlackElo` (NULL when absent or not an integer) |
/// | `time_control`, `termination`, `eco`, `opening`, `utc_date`, `utc_time` | Utf8, nullable | tags `TimeControl`, `Termination`, `ECO`, `Opening`, `UTCDate`, `UTCTime` |
/// | `start_fen` | Utf8, nullable | the `FEN` tag (set-up position) |
/// | `tags` | Map<Utf8, Utf8> | every tag pair in file order (`tags['WhiteElo']`) |
/// | `moves` | List<Utf8> | the main line's move tokens as written (SAN, check marks kept, glyphs removed) |
/// | `plies` | UInt32 | legal main-line plies applied (rules) |
/// | `first_illegal_ply` | UInt32, nullable | 1-based ply of the first illegal or unreadable move; 0 = the game could not be set up (rules) |
/// | `error_kind` | Utf8, nullable | see [`crate::validate::kind`] (rules) |
/// | `error_message` | Utf8, nullable | what is wrong, naming the game, ply and token (rules) |
/// | `final_fen` | Utf8, nullable | FEN of the last position reached (rules) |
/// | `final_status` | Utf8, nullable | `checkmate`, `stalemate`, `insufficient_material`, `seventyfive_moves`, `fivefold_repetition`, `fifty_moves`, `threefold_repetition`, `ongoing` (rules) |
/// | `result_consistent` | Boolean | false when the Result tag contradicts a checkmate or stalemate on the board (rules) |
///
/// The rules columns hold the values of `sqlchess validate`'s report
/// ([`crate::validate::GameReport`]); they are computed only when projected.
#[must_use]
pub fn read_pgn_schema() -> SchemaRef {
    Arc::new(Schema::new(
        COLUMNS
            .iter()
            .map(|(n, c)| field(n, *c))
            .collect::<Vec<_>>(),
    ))
}

/// The `read_pgn` table function. Its argument is a string literal: a file, a directory
/// (every `*.pgn`, `*.pgn.zst`, `*.pgn.gz`, `*.pgn.bz2` below it, see
/// [`crate::io::input::expand`]) or a glob pattern (`games/*.pgn.zst`). Compression is
/// recognised by the first bytes, whatever the name, as in `validate`.
///
/// Errors (planning): no argument or a non-literal one; a path that does not exist; a glob
/// that matches nothing; a directory (or glob) with no PGN file. Errors (execution): an
/// input that is not a PGN file ([`crate::Error::NotPgn`]).
#[derive(Debug, Default)]
pub struct ReadPgn {
    pool: Arc<EnginePool>,
}

/// The one string literal argument of a table function `name`, described as `what` (e.g.
/// "a file, a directory or a glob") in the planning error for anything else.
pub(crate) fn string_argument(
    name: &str,
    what: &str,
    args: &TableFunctionArgs,
) -> datafusion::common::Result<String> {
    match args.exprs() {
        [Expr::Literal(ScalarValue::Utf8(Some(s)), _)]
        | [Expr::Literal(ScalarValue::Utf8View(Some(s)), _)]
        | [Expr::Literal(ScalarValue::LargeUtf8(Some(s)), _)] => Ok(s.clone()),
        other => plan_err!(
            "{name}: expects one string literal ({what}), got {} argument(s): {}",
            other.len(),
            other
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The inputs a path argument names: a glob pattern (`*`, `?` or `[` in it) expands to the
/// matching paths (sorted), each then a file or a directory.
/// Errors name the table function, `name`.
fn inputs_of(name: &str, path: &str) -> datafusion::common::Result<Vec<Input>> {
    let ext = |e: crate::Error| DataFusionError::Plan(format!("{name}: {e}"));
    if path == "-" {
        return plan_err!("{name}: standard input (-) is not a table; give a file");
    }
    let paths: Vec<PathBuf> = if path.contains(['*', '?', '[']) {
        let mut found = vec![];
        for entry in glob::glob(path)
            .map_err(|e| DataFusionError::Plan(format!("{name}: glob {path:?}: {e}")))?
        {
            found.push(
                entry.map_err(|e| DataFusionError::Plan(format!("{name}: glob {path:?}: {e}")))?,
            );
        }
        if found.is_empty() {
            return plan_err!("{name}: no file matches {path:?}");
        }
        found.sort();
        found
    } else {
        vec![PathBuf::from(path)]
    };
    let inputs = crate::io::input::expand(&paths).map_err(ext)?;
    if inputs.is_empty() {
        return plan_err!(
            "{name}: no PGN files in {path:?} (directories are searched for *.pgn, *.pgn.zst, \
             *.pgn.gz and *.pgn.bz2)"
        );
    }
    Ok(inputs)
}

impl TableFunctionImpl for ReadPgn {
    fn call_with_args(
        &self,
        args: TableFunctionArgs,
    ) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        Ok(Arc::new(PgnTable::of_call(
            &args,
            self.pool.clone(),
            false,
        )?))
    }
}

impl ReadPgn {
    /// `read_pgn` with engines from `pool`.
    pub(crate) fn new(pool: Arc<EnginePool>) -> ReadPgn {
        ReadPgn { pool }
    }
}

/// The table of one `read_pgn(path)` or `read_plies(path)` call: its files, known at
/// planning time, and the calling session's [`ChessOptions::split_bytes`] (a table that
/// travels to a cluster's scheduler is scanned there with the client's setting).
#[derive(Debug)]
pub struct PgnTable {
    inputs: Vec<Input>,
    pool: Arc<EnginePool>,
    /// One row per ply ([`super::read_plies_schema`]) instead of one per game.
    plies: bool,
    split_bytes: u64,
}

impl PgnTable {
    /// The table of `inputs`: `read_plies` when `plies`, else `read_pgn`; plain files of
    /// at least twice `split_bytes` are read as several partitions.
    pub(crate) fn new(
        inputs: Vec<Input>,
        pool: Arc<EnginePool>,
        plies: bool,
        split_bytes: u64,
    ) -> PgnTable {
        PgnTable {
            inputs,
            pool,
            plies,
            split_bytes,
        }
    }

    /// The table of a `read_pgn` / `read_plies` (`plies`) call: the files its one string
    /// literal names ([`string_argument`], [`inputs_of`]), split by the calling session's
    /// `sqlchess.split_bytes` (the default when the session has no [`ChessOptions`]).
    ///
    /// Errors (planning): see [`ReadPgn`].
    pub(crate) fn of_call(
        args: &TableFunctionArgs,
        pool: Arc<EnginePool>,
        plies: bool,
    ) -> datafusion::common::Result<PgnTable> {
        let name = table_name(plies);
        let path = string_argument(name, "a file, a directory or a glob", args)?;
        let split_bytes = args
            .session()
            .config_options()
            .extensions
            .get::<ChessOptions>()
            .map_or(ChessOptions::default().split_bytes, |o| o.split_bytes);
        Ok(PgnTable::new(
            inputs_of(name, &path)?,
            pool,
            plies,
            split_bytes,
        ))
    }

    /// Plain files of at least twice this many bytes are read as several partitions
    /// ([`ChessOptions::split_bytes`]).
    #[must_use]
    pub fn split_bytes(&self) -> u64 {
        self.split_bytes
    }

    /// Whether the rows are plies (`read_plies`) rather than games (`read_pgn`).
    #[must_use]
    pub fn is_plies(&self) -> bool {
        self.plies
    }

    /// The files read.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }
}

#[async_trait]
impl TableProvider for PgnTable {
    fn schema(&self) -> SchemaRef {
        if self.plies {
            read_plies_schema()
        } else {
            read_pgn_schema()
        }
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
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
        let (pool, plies) = (self.pool.clone(), self.plies);
        let plan = move || {
            PgnScanExec::new(
                inputs,
                projection,
                batch,
                (target, split_bytes),
                pool,
                plies,
            )
        };
        // finding the cuts reads the large files: off the async workers (when on tokio)
        let exec: PgnScanExec = match tokio::runtime::Handle::try_current() {
            Ok(rt) => rt
                .spawn_blocking(plan)
                .await
                .map_err(|e| DataFusionError::External(Box::new(e)))??,
            Err(_) => plan()?,
        };
        Ok(Arc::new(PgnScanExec {
            limited: limit.is_some(),
            ..exec
        }))
    }
}

/// With the rules, plain files of at least twice this many bytes are cut too (when
/// `split_bytes` is larger): see [`partitions`].
const RULES_SPLIT_BYTES: u64 = 64 * 1024;

/// A `read_plies` chunk ends once it has `batch_size` games or this many times
/// `batch_size` move tokens, whichever comes first (393,216 tokens at the default batch
/// size; the game that reaches it is the chunk's last): the ply rows of a chunk are held
/// until sent, so this bounds the scan's memory per partition.
const PLIES_PER_GAME: usize = 48;

/// The ranges of each scan partition: plain files of at least twice `split_bytes` cut
/// into at most `target_partitions` ranges at game boundaries ([`split`]; 0 never
/// splits), then at most `target_partitions` groups, the largest ranges first each to the
/// group with the fewest bytes so far, each group in file order.
///
/// When the scan runs the `rules`, files of at least twice [`RULES_SPLIT_BYTES`] are cut
/// as well (pieces of at least that size, at most `target_partitions`): the rules cost per
/// ply, not per byte (a file whose moves carry clock and eval comments has about three
/// times the bytes per ply of one without), so groups balanced by bytes of whole files may
/// differ by half in plies (one partition working alone at the end); with the large files
/// cut, every group gets about its share of each, and so of the plies.
///
/// Errors: [`crate::Error::Io`] naming a file that cannot be read.
fn partitions(
    inputs: &[Input],
    target_partitions: usize,
    split_bytes: u64,
    rules: bool,
) -> crate::Result<Vec<Vec<PgnRange>>> {
    let target = target_partitions.max(1);
    let unit = if rules {
        split_bytes.min(RULES_SPLIT_BYTES)
    } else {
        split_bytes
    };
    let mut ranges: Vec<(u64, usize, PgnRange)> = vec![];
    for (i, input) in inputs.iter().enumerate() {
        let size = input.size().unwrap_or(0);
        let pieces = if unit == 0 {
            1
        } else {
            usize::try_from(size / unit)
                .unwrap_or(usize::MAX)
                .min(target)
        };
        for r in split(input, pieces)? {
            let bytes = r.end.unwrap_or(size).saturating_sub(r.start);
            ranges.push((bytes, i, r));
        }
    }
    let n = ranges.len().min(target);
    ranges.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.start.cmp(&b.2.start))
    });
    let mut groups: Vec<(u64, Vec<(usize, PgnRange)>)> = vec![(0, vec![]); n];
    for (bytes, i, r) in ranges {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += bytes;
            g.1.push((i, r));
        }
    }
    Ok(groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort_by_key(|(i, r)| (*i, r.start));
            g.into_iter().map(|(_, r)| r).collect()
        })
        .collect())
}

/// Whether a scan of `read_plies` (`plies`) or of these columns of `read_pgn` runs the
/// rules.
fn rules_needed(plies: bool, projection: &[usize]) -> bool {
    plies
        || projection
            .iter()
            .any(|&i| COLUMNS.get(i).is_some_and(|(_, c)| c.needs_rules()))
}

/// The table function whose rows a scan makes: `read_plies` when `plies`, else `read_pgn`
/// (named in errors).
pub(crate) fn table_name(plies: bool) -> &'static str {
    if plies { "read_plies" } else { "read_pgn" }
}

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
    /// Rows are plies (`read_plies`).
    pub plies: bool,
    /// Under a LIMIT (small first chunks).
    pub limited: bool,
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
    /// Rows are plies ([`super::read_plies_schema`]).
    plies: bool,
    /// The query reads only some rows (a LIMIT reached the scan): the first chunks of
    /// games are small, so the first rows come soon.
    limited: bool,
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
        plies: bool,
    ) -> datafusion::common::Result<PgnScanExec> {
        let name = table_name(plies);
        let rules = rules_needed(plies, &projection);
        let groups = partitions(&inputs, target_partitions, split_bytes, rules)
            .map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
        let ranges = ranges_plan(&inputs, &groups)?;
        PgnScanExec::from_parts(
            ScanParts {
                inputs,
                ranges,
                projection,
                batch_games,
                plies,
                limited: false,
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
            plies,
            limited,
        } = parts;
        let full = if plies {
            read_plies_schema()
        } else {
            read_pgn_schema()
        };
        let schema = Arc::new(full.project(&projection)?);
        let rules = rules_needed(plies, &projection);
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
            plies,
            limited,
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
            plies: self.plies,
            limited: self.limited,
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
                    if self.plies { "plies, " } else { "" },
                    self.inputs.len(),
                    self.rules,
                    cols.join(", ")
                )?;
                if let Some(ranges) = self.ranges_text() {
                    write!(f, ", ranges=[{ranges}]")?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => {
                write!(f, "files={}\nrules={}", self.inputs.len(), self.rules)?;
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
        let mut builder = RecordBatchReceiverStream::builder(self.schema.clone(), 2);
        let ranges = self.ranges.execute(partition, context)?;
        let inputs = self.inputs.clone();
        let flush = Flush {
            scan: Scan {
                cols: self
                    .projection
                    .iter()
                    .filter_map(|&i| COLUMNS.get(i).map(|c| c.1))
                    .collect(),
                schema: self.schema.clone(),
                rules: self.rules,
                plies: self.plies.then(|| self.projection.clone()),
                rows: self.batch_games,
            },
            pool: self.pool.clone(),
            tx: builder.tx(),
            games: MetricBuilder::new(&self.metrics).counter("games", partition),
            rules_games: MetricBuilder::new(&self.metrics).counter("rules_games", partition),
            rules_chunks: MetricBuilder::new(&self.metrics).counter("rules_chunks", partition),
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
        // read_plies holds a chunk's ply rows (a few hundred bytes each) until they are sent:
        // its chunks also end at `PLIES_PER_GAME` move tokens a game on average
        let ply_cap = if self.plies {
            full.saturating_mul(PLIES_PER_GAME)
        } else {
            usize::MAX
        };
        let name = table_name(self.plies);
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
                    let read = if flush.scan.plies.is_some() {
                        PgnReader::with_notes(reader)
                    } else {
                        PgnReader::new(reader)
                    };
                    for next in read {
                        match next {
                            Ok(mut g) => {
                                g.index = g.index.saturating_add(first);
                                plies += g.moves.len();
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
        let validation = if self.scan.rules {
            // the engine goes back before the batch is sent: a partition waiting for its
            // consumer holds none
            let e = self.pool.take(rt).map_err(df)?;
            let options = ValidateOptions {
                plies: self.scan.plies.is_some(),
            };
            let r = rt.block_on(validate_games_with(&e, games, options));
            self.pool.give_back(e);
            self.rules_games.add(games.len());
            self.rules_chunks.add(1);
            Some(r.map_err(df)?)
        } else {
            None
        };
        self.games.add(games.len());
        let sent = self.scan.batches(games, validation.as_ref(), |b| {
            Ok(self.tx.blocking_send(Ok(b)).is_ok())
        })?;
        games.clear();
        Ok(sent)
    }
}

/// What one partition builds.
struct Scan {
    cols: Vec<Col>,
    schema: SchemaRef,
    rules: bool,
    /// For `read_plies`: the projection of [`super::read_plies_schema`].
    plies: Option<Vec<usize>>,
    /// Rows per batch.
    rows: usize,
}

impl Scan {
    /// The record batches of a chunk of games, each handed to `emit` as it is built: one
    /// (games) or as many as the plies need (at most `rows` rows each); `false` when `emit`
    /// returned `false` (the query stopped reading).
    fn batches(
        &self,
        games: &[(&str, RawGame)],
        validation: Option<&Validation>,
        mut emit: impl FnMut(RecordBatch) -> datafusion::common::Result<bool>,
    ) -> datafusion::common::Result<bool> {
        let Some(projection) = &self.plies else {
            let reports = validation.map(|v| v.reports.as_slice());
            return emit(self.batch(games, reports)?);
        };
        let Some(v) = validation else {
            return Err(DataFusionError::Internal(
                "read_plies: plies without validation".into(),
            ));
        };
        plies_batches(games, v, (projection, &self.schema), self.rows, emit)
    }

    /// One record batch of the projected columns for a chunk of games.
    fn batch(
        &self,
        games: &[(&str, RawGame)],
        reports: Option<&[GameReport]>,
    ) -> datafusion::common::Result<RecordBatch> {
        let columns = self
            .cols
            .iter()
            .map(|c| column(*c, games, reports))
            .collect::<datafusion::common::Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(games.len())),
        )?)
    }
}

fn column(
    col: Col,
    games: &[(&str, RawGame)],
    reports: Option<&[GameReport]>,
) -> datafusion::common::Result<ArrayRef> {
    if col.needs_rules() {
        let Some(r) = reports else {
            return Err(DataFusionError::Internal(format!(
                "read_pgn: rules column {col:?} without validation"
            )));
        };
        return Ok(report_column(col, r));
    }
    Ok(match col {
        Col::File => Arc::new(StringArray::from_iter_values(games.iter().map(|(f, _)| *f))),
        Col::GameIndex => Arc::new(UInt64Array::from_iter_values(
            games.iter().map(|(_, g)| g.index as u64),
        )),
        Col::Elo(name) => Arc::new(
            games
                .iter()
                .map(|(_, g)| g.tag(name).and_then(|v| v.trim().parse::<i32>().ok()))
                .collect::<Int32Array>(),
        ),
        Col::Tags => {
            let mut b = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
            for (_, g) in games {
                for (k, v) in &g.tags {
                    b.keys().append_value(k);
                    b.values().append_value(v);
                }
                b.append(true)?;
            }
            Arc::new(b.finish())
        }
        Col::Moves => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for (_, g) in games {
                for m in &g.moves {
                    b.values().append_value(m);
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
        // tags; the rules columns returned above
        _ => {
            let name = match col {
                Col::Tag(name) => name,
                _ => "",
            };
            Arc::new(
                games
                    .iter()
                    .map(|(_, g)| g.tag(name))
                    .collect::<StringArray>(),
            )
        }
    })
}

/// A rules column from the validation reports of a chunk.
fn report_column(col: Col, reports: &[GameReport]) -> ArrayRef {
    let text = |f: fn(&GameReport) -> Option<&str>| {
        Arc::new(reports.iter().map(f).collect::<StringArray>()) as ArrayRef
    };
    match col {
        Col::Plies => Arc::new(UInt32Array::from_iter_values(
            reports.iter().map(|r| r.plies),
        )),
        Col::FirstIllegalPly => Arc::new(
            reports
                .iter()
                .map(|r| r.first_illegal_ply)
                .collect::<UInt32Array>(),
        ),
        Col::ErrorKind => text(|r| r.error_kind.map(ErrorKind::as_str)),
        Col::ErrorMessage => text(|r| r.error_message.as_deref()),
        Col::FinalFen => text(|r| r.final_fen.as_deref()),
        Col::FinalStatus => text(|r| r.final_status.map(FinalStatus::as_str)),
        _ => Arc::new(
            reports
                .iter()
                .map(|r| Some(r.result_consistent))
                .collect::<BooleanArray>(),
        ),
    }
}
