//! Profiling and EXPLAIN of the two pipelines: ours (`fide`, [`crate::session`]) and the
//! seed replica (`seed`, [`crate::seed`]): the library side of `sqlchess profile`,
//! `sqlchess explain` and `sqlchess validate --profile` (workloads, profile reports as tables,
//! record batches or JSON lines, EXPLAIN text); the command line prints them.
//!
//! A profile runs a [`Workload`] and reads the per-stage figures both pipelines record on
//! every stage run ([`StageProfile`]): runs, output rows, wall time spent creating physical
//! plans (planning) and executing them (execution), DataFusion's `elapsed_compute` summed
//! over the operators of the executed plans, and their peak-memory metrics. Each stage's
//! share is its part of the summed execution wall time; planning is reported separately.
//!
//! What runs:
//!
//! * `fide`, positions: [`Engine::legal_moves`] (legal moves with SAN, check and mate), in
//!   batches of [`POSITION_BATCH`] positions.
//! * `fide`, PGN files: [`validate_games`] (ply-synchronous replay), in batches of
//!   [`GAME_BATCH`] games, as `sqlchess validate` does.
//! * `seed`, positions: [`SeedPipeline::load_fens`] + [`SeedPipeline::all_moves`] (the
//!   post's "similar WITH statement which generates all possible moves"), in batches of
//!   [`POSITION_BATCH`].
//! * `seed`, PGN files: the seed cannot replay a game (it has no SAN and no game-end
//!   rules), so each game contributes its start position (the `FEN` tag, else the standard
//!   position; games whose FEN tag does not parse are skipped) and those positions run as
//!   above.
//!
//! The default workload is the first [`DEFAULT_POSITIONS`] FENs of `data/positions.fen`
//! (288 real-game positions, cycled; compiled into the library): the `fen` column of
//! `tests/data/oracle_positions.csv`, whose README says where they come from.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::display::DisplayableExecutionPlan;

use crate::chess::fen::Setup;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::io::report::{self, Format};
use crate::pgn::{PgnReader, RawGame};
use crate::seed::{self, SEED_STAGES, SeedMove, SeedPipeline, SeedStageKind};
use crate::session::StageProfile;
use crate::stages::{Pipeline, Stage};
use crate::validate::validate_games;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Positions in the default workload.
pub const DEFAULT_POSITIONS: usize = 1000;

/// Positions per pipeline batch when a workload of positions runs.
pub const POSITION_BATCH: usize = 1000;

/// Games per pipeline batch when a workload of PGN files runs on our pipeline (the default
/// of `sqlchess validate --batch`).
pub const GAME_BATCH: usize = 2000;

/// `data/positions.fen`, the source of the default workload.
const DEFAULT_FENS: &str = include_str!("../data/positions.fen");

/// Which pipeline to profile or explain, named `fide` or `seed` ([`PipelineKind::as_str`],
/// `Display`; `FromStr` reads them).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Display, EnumString, IntoStaticStr, VariantArray,
)]
#[strum(serialize_all = "lowercase")]
pub enum PipelineKind {
    /// Ours: the FIDE-exact stages of `plans/` ([`crate::session`]).
    #[default]
    Fide,
    /// The seed replica: the SAP blog's statement, `plans/seed/` ([`crate::seed`]).
    Seed,
}

impl PipelineKind {
    /// `"fide"` or `"seed"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What a profile (or `explain --analyze`) runs.
#[derive(Debug, Clone)]
pub enum Workload {
    /// Positions: legal move generation.
    Positions {
        /// The positions.
        setups: Vec<Setup>,
        /// Where they come from (for the report's heading).
        source: String,
    },
    /// PGN files: game validation on our pipeline, the games' start positions on the seed's.
    Games(Vec<PathBuf>),
}

impl Workload {
    /// The default workload: the first `n` FENs of `data/positions.fen`, cycled.
    pub fn default_positions(n: usize) -> Workload {
        let all = parse_fens(DEFAULT_FENS, "data/positions.fen").unwrap_or_default();
        let setups: Vec<Setup> = all.iter().copied().cycle().take(n).collect();
        let source = format!(
            "{n} positions: data/positions.fen ({} real-game positions, cycled)",
            all.len()
        );
        Workload::Positions { setups, source }
    }

    /// The positions of a FEN file (see [`parse_fens`]).
    ///
    /// Errors: [`Error::Io`], [`Error::Fen`] for a line that is not a FEN.
    pub fn fen_file(path: &Path) -> Result<Workload> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let setups = parse_fens(&text, &path.display().to_string())?;
        let source = format!("{} positions: {}", setups.len(), path.display());
        Ok(Workload::Positions { setups, source })
    }

    /// One line describing the workload.
    pub fn describe(&self) -> String {
        match self {
            Workload::Positions { source, .. } => source.clone(),
            Workload::Games(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                format!("games of {}", names.join(", "))
            }
        }
    }
}

/// FENs from text: either one FEN per line (empty lines skipped), or CSV whose header line
/// has a column named `fen` (that column is read; FENs contain no commas).
///
/// Errors: [`Error::Fen`] for the first value that is not a FEN (the message names `source`
/// and the line).
pub fn parse_fens(text: &str, source: &str) -> Result<Vec<Setup>> {
    let mut lines = text.lines().enumerate().peekable();
    let column = lines.peek().and_then(|(_, header)| {
        header
            .split(',')
            .position(|f| f.trim().eq_ignore_ascii_case("fen"))
    });
    if column.is_some() {
        lines.next();
    }
    let mut out = vec![];
    for (i, line) in lines {
        let fen = match column {
            Some(c) => line.split(',').nth(c).unwrap_or(""),
            None => line,
        }
        .trim();
        if fen.is_empty() {
            continue;
        }
        let setup = Setup::from_fen(fen).map_err(|e| Error::Fen {
            fen: format!("{source} line {}: {fen}", i + 1),
            source: e,
        })?;
        out.push(setup);
    }
    Ok(out)
}

/// One stage's row of a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    /// Stage name (a file of `plans/` or `plans/seed/`).
    pub stage: String,
    /// How many times it ran.
    pub runs: u64,
    /// Output rows, summed over runs.
    pub rows: u64,
    /// Wall time creating physical plans.
    pub planning: Duration,
    /// Wall time executing them.
    pub execution: Duration,
    /// DataFusion `elapsed_compute`, summed over operators, partitions and runs.
    pub compute: Duration,
    /// Percentage of the summed execution time of all stages.
    pub share: f64,
    /// Largest summed operator peak memory of a run, in bytes, where DataFusion reports it.
    pub peak_memory: Option<u64>,
}

/// A profile: the pipeline, what ran, and one row per stage that ran (in stage order).
#[derive(Debug, Clone)]
pub struct ProfileReport {
    /// The pipeline.
    pub pipeline: PipelineKind,
    /// The workload, described.
    pub input: String,
    /// Wall time of the whole workload (loading and moving batches included), if measured.
    pub wall: Option<Duration>,
    /// Per-stage rows.
    pub rows: Vec<ProfileRow>,
}

impl ProfileReport {
    /// Builds the rows from the per-stage figures of [`crate::Pipeline::profile`] or
    /// [`SeedPipeline::profile`].
    pub fn from_stages(
        pipeline: PipelineKind,
        input: String,
        wall: Option<Duration>,
        stages: &[(String, StageProfile)],
    ) -> ProfileReport {
        let total: f64 = stages.iter().map(|(_, p)| p.execution.as_secs_f64()).sum();
        let rows = stages
            .iter()
            .map(|(name, p)| ProfileRow {
                stage: name.clone(),
                runs: p.runs,
                rows: p.rows,
                planning: p.planning,
                execution: p.execution,
                compute: p.compute,
                share: if total > 0.0 {
                    100.0 * p.execution.as_secs_f64() / total
                } else {
                    0.0
                },
                peak_memory: p.peak_memory,
            })
            .collect();
        ProfileReport {
            pipeline,
            input,
            wall,
            rows,
        }
    }

    /// The profile of everything the engines' pipelines have run since they were made (or
    /// their profiles were reset), summed over engines stage by stage (peak memory: the
    /// largest), with no workload description and no wall time (`sqlchess validate
    /// --profile`).
    pub fn of_engines(engines: &[Engine]) -> ProfileReport {
        let mut stages: Vec<(String, StageProfile)> = vec![];
        for engine in engines {
            for (name, p) in engine.pipeline().profile() {
                match stages.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sum)) => sum.merge(&p),
                    None => stages.push((name, p)),
                }
            }
        }
        ProfileReport::from_stages(PipelineKind::Fide, String::new(), None, &stages)
    }

    /// Planning wall time summed over stages.
    pub fn planning(&self) -> Duration {
        self.rows.iter().map(|r| r.planning).sum()
    }

    /// Execution wall time summed over stages.
    pub fn execution(&self) -> Duration {
        self.rows.iter().map(|r| r.execution).sum()
    }

    /// DataFusion `elapsed_compute` summed over stages.
    pub fn compute(&self) -> Duration {
        self.rows.iter().map(|r| r.compute).sum()
    }

    /// The rows as a text table (stage, runs, rows, plan ms, exec ms, compute ms, share,
    /// peak memory), a total line and a line with planning, execution and wall times.
    pub fn to_table(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<18} {:>5} {:>11} {:>9} {:>10} {:>11} {:>6} {:>10}",
            "stage", "runs", "rows", "plan ms", "exec ms", "compute ms", "share", "peak mem"
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{:<18} {:>5} {:>11} {:>9.1} {:>10.1} {:>11.1} {:>5.1}% {:>10}",
                r.stage,
                r.runs,
                r.rows,
                ms(r.planning),
                ms(r.execution),
                ms(r.compute),
                r.share,
                r.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
            );
        }
        let _ = writeln!(
            s,
            "{:<18} {:>5} {:>11} {:>9.1} {:>10.1} {:>11.1} {:>5.1}% {:>10}",
            "total",
            self.rows.iter().map(|r| r.runs).sum::<u64>(),
            self.rows.iter().map(|r| r.rows).sum::<u64>(),
            ms(self.planning()),
            ms(self.execution()),
            ms(self.compute()),
            self.rows.iter().map(|r| r.share).sum::<f64>(),
            ""
        );
        let _ = write!(
            s,
            "planning {:.1} ms, execution {:.1} ms (stage wall times), DataFusion compute {:.1} ms",
            ms(self.planning()),
            ms(self.execution()),
            ms(self.compute())
        );
        if let Some(w) = self.wall {
            let _ = write!(s, "; workload wall time {:.1} ms", ms(w));
        }
        s.push('\n');
        s
    }

    /// Schema of [`ProfileReport::to_batch`]: `pipeline`, `stage` Utf8, `runs`, `rows`
    /// UInt64, `planning_ms`, `execution_ms`, `compute_ms`, `share_pct` Float64,
    /// `peak_memory_bytes` UInt64 (nullable).
    pub fn schema() -> SchemaRef {
        let f = |n: &str, t: DataType| Field::new(n, t, false);
        Arc::new(Schema::new(vec![
            f("pipeline", DataType::Utf8),
            f("stage", DataType::Utf8),
            f("runs", DataType::UInt64),
            f("rows", DataType::UInt64),
            f("planning_ms", DataType::Float64),
            f("execution_ms", DataType::Float64),
            f("compute_ms", DataType::Float64),
            f("share_pct", DataType::Float64),
            Field::new("peak_memory_bytes", DataType::UInt64, true),
        ]))
    }

    /// The rows (not the total) as one record batch of [`ProfileReport::schema`].
    ///
    /// Errors: [`Error::Arrow`].
    pub fn to_batch(&self) -> Result<RecordBatch> {
        let r = &self.rows;
        let ms = |g: fn(&ProfileRow) -> Duration| {
            Arc::new(Float64Array::from_iter_values(
                r.iter().map(|x| g(x).as_secs_f64() * 1e3),
            )) as ArrayRef
        };
        Ok(RecordBatch::try_new(
            ProfileReport::schema(),
            vec![
                Arc::new(StringArray::from_iter_values(
                    r.iter().map(|_| self.pipeline.as_str()),
                )),
                Arc::new(StringArray::from_iter_values(
                    r.iter().map(|x| x.stage.as_str()),
                )),
                Arc::new(UInt64Array::from_iter_values(r.iter().map(|x| x.runs))),
                Arc::new(UInt64Array::from_iter_values(r.iter().map(|x| x.rows))),
                ms(|x| x.planning),
                ms(|x| x.execution),
                ms(|x| x.compute),
                Arc::new(Float64Array::from_iter_values(r.iter().map(|x| x.share))),
                Arc::new(r.iter().map(|x| x.peak_memory).collect::<UInt64Array>()),
            ],
        )?)
    }

    /// Writes the rows as JSON lines (one object per stage, fields as in
    /// [`ProfileReport::schema`]; a null peak memory is left out).
    ///
    /// Errors: [`Error::Io`], [`Error::Arrow`].
    pub fn write_json(&self, path: &Path) -> Result<()> {
        report::write_batches(
            path,
            Format::Json,
            ProfileReport::schema(),
            &[self.to_batch()?],
        )
    }
}

/// `1.5 MiB`, `12 KiB`, `512 B`.
pub fn format_bytes(b: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = b as f64;
    if f >= KIB * KIB * KIB {
        format!("{:.1} GiB", f / (KIB * KIB * KIB))
    } else if f >= KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else if f >= KIB {
        format!("{:.0} KiB", f / KIB)
    } else {
        format!("{b} B")
    }
}

/// The DataFusion target partitions of the engine's session, for a seed pipeline that
/// should use the same number.
fn partitions(engine: &Engine) -> usize {
    engine
        .pipeline()
        .context()
        .state()
        .config()
        .target_partitions()
}

fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = std::fs::File::open(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    Ok(Box::new(std::io::BufReader::new(file)))
}

/// Streams the games of PGN files in batches of `batch` and calls `f` on each batch (with
/// each game's file name).
async fn for_game_batches<F, Fut>(paths: &[PathBuf], batch: usize, mut f: F) -> Result<()>
where
    F: FnMut(Vec<(String, RawGame)>) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let mut games: Vec<(String, RawGame)> = vec![];
    for path in paths {
        let name = path.display().to_string();
        for game in PgnReader::new(open(path)?) {
            let game = game.map_err(|e| Error::Io {
                path: name.clone(),
                source: std::io::Error::other(e),
            })?;
            games.push((name.clone(), game));
            if games.len() == batch {
                f(std::mem::take(&mut games)).await?;
            }
        }
    }
    if !games.is_empty() {
        f(games).await?;
    }
    Ok(())
}

/// Runs a workload on our pipeline (see the module documentation).
async fn run_fide(engine: &Engine, workload: &Workload) -> Result<()> {
    match workload {
        Workload::Positions { setups, .. } => {
            for chunk in setups.chunks(POSITION_BATCH) {
                engine.legal_moves(chunk).await?;
            }
        }
        Workload::Games(paths) => {
            for_game_batches(paths, GAME_BATCH, |games| async move {
                let (names, games): (Vec<String>, Vec<RawGame>) = games.into_iter().unzip();
                let refs: Vec<(&str, RawGame)> =
                    names.iter().map(String::as_str).zip(games).collect();
                validate_games(engine, &refs).await.map(|_| ())
            })
            .await?;
        }
    }
    Ok(())
}

/// The start positions of the games of PGN files: the `FEN` tag, else the standard
/// position; games whose FEN tag does not parse are left out.
pub fn start_positions(paths: &[PathBuf]) -> Result<Vec<Setup>> {
    let mut out = vec![];
    for path in paths {
        let name = path.display().to_string();
        for game in PgnReader::new(open(path)?) {
            let game = game.map_err(|e| Error::Io {
                path: name.clone(),
                source: std::io::Error::other(e),
            })?;
            match game.tag("FEN") {
                Some(fen) => {
                    if let Ok(s) = Setup::from_fen(fen) {
                        out.push(s);
                    }
                }
                None => out.push(Setup::standard()),
            }
        }
    }
    Ok(out)
}

/// The positions the seed runs for a workload.
fn seed_positions(workload: &Workload) -> Result<Vec<Setup>> {
    match workload {
        Workload::Positions { setups, .. } => Ok(setups.clone()),
        Workload::Games(paths) => start_positions(paths),
    }
}

/// Runs a workload on the seed pipeline: `load_fens` + `all_moves` per batch.
async fn run_seed(seed: &mut SeedPipeline, setups: &[Setup]) -> Result<()> {
    for chunk in setups.chunks(POSITION_BATCH) {
        seed.load_fens(chunk).await?;
        seed.all_moves().await?;
    }
    Ok(())
}

/// Runs `workload` on the chosen pipeline with fresh per-stage figures and returns the
/// profile. The seed pipeline is built on a session with the engine's target partitions.
///
/// Errors: [`Error::DataFusion`] and the input errors of the workload ([`Error::Io`]).
pub async fn run_profile(
    engine: &Engine,
    pipeline: PipelineKind,
    workload: &Workload,
) -> Result<ProfileReport> {
    match pipeline {
        PipelineKind::Fide => {
            engine.pipeline().reset_profile();
            let t0 = Instant::now();
            run_fide(engine, workload).await?;
            let wall = t0.elapsed();
            Ok(ProfileReport::from_stages(
                pipeline,
                workload.describe(),
                Some(wall),
                &engine.pipeline().profile(),
            ))
        }
        PipelineKind::Seed => {
            let setups = seed_positions(workload)?;
            let mut seed = SeedPipeline::with_partitions(partitions(engine)).await?;
            let t0 = Instant::now();
            run_seed(&mut seed, &setups).await?;
            let wall = t0.elapsed();
            let input = match workload {
                Workload::Games(_) => format!(
                    "{} start positions of the {}",
                    setups.len(),
                    workload.describe()
                ),
                Workload::Positions { .. } => workload.describe(),
            };
            Ok(ProfileReport::from_stages(
                pipeline,
                input,
                Some(wall),
                &seed.profile(),
            ))
        }
    }
}

/// The text of `sqlchess explain`: for each stage (one, or all of the pipeline's in order)
/// its optimised logical plan and its physical plan.
///
/// With `analyze` a workload, that workload runs first (with the stages' last executed
/// plans kept) and each stage's physical plan is printed as it last ran, with DataFusion's
/// metrics per operator (`output_rows`, `elapsed_compute`, memory, …) and a summary line
/// of the stage's profile. On our pipeline a stage the workload did not run (e.g. the
/// token, perft and key stages after [`Engine::legal_moves`]) is run once, in stage order,
/// on the tables the workload left (input tables it did not fill, `tokens`, `perft_nodes`
/// and `perft_bucket`, are empty then). On the seed's, the workload is `load_fens` +
/// `all_moves` and then `validate_move` for the first legal move of the first game that has
/// one; the seed's view stages have no run of their own (DataFusion inlines them into the
/// table stage that reads them), so they are printed unexecuted. Without `analyze`, the
/// seed's `validate_move` is planned with an example move bound (white knight g1-f3 of
/// game 0). On the seed's pipeline the stage name `legal_moves` stands for `stage13`, the
/// seed's legal moves.
///
/// Errors: [`Error::Usage`] for a name that is not a stage of the pipeline, listing the stages;
/// [`Error::DataFusion`].
pub async fn explain(
    engine: &Engine,
    pipeline: PipelineKind,
    stage: Option<&str>,
    analyze: Option<&Workload>,
) -> Result<String> {
    let (mut plans, stages) = match pipeline {
        PipelineKind::Fide => (Plans::Fide(engine.pipeline()), fide_stages(stage)?),
        PipelineKind::Seed => (
            Plans::Seed(SeedPipeline::with_partitions(partitions(engine)).await?),
            seed_stages(stage)?,
        ),
    };
    let mut out = String::new();
    if analyze.is_some() {
        plans.keep_last_plans(true);
    }
    let explained = async {
        if let Some(workload) = analyze {
            match &mut plans {
                Plans::Fide(_) => analyze_fide(engine, workload, &stages, &mut out).await?,
                Plans::Seed(seed) => analyze_seed(seed, workload, &mut out).await?,
            }
        }
        let profile = plans.profile();
        for st in &stages {
            explain_stage(&plans, st, analyze.is_some(), &profile, &mut out).await?;
        }
        Ok::<(), Error>(())
    }
    .await;
    if analyze.is_some() {
        plans.keep_last_plans(false);
    }
    explained.map(|()| out)
}

/// The pipeline [`explain`] reads plans from.
enum Plans<'a> {
    /// Ours.
    Fide(&'a Pipeline),
    /// A seed replica made for the explanation.
    Seed(SeedPipeline),
}

impl Plans<'_> {
    fn plan(&self, stage: &str) -> Result<&LogicalPlan> {
        match self {
            Plans::Fide(p) => Ok(p.session().plan(stage)?),
            Plans::Seed(seed) => seed.plan(stage),
        }
    }

    async fn physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        match self {
            Plans::Fide(p) => Ok(p.session().physical_plan(plan).await?),
            Plans::Seed(seed) => seed.create_physical_plan(plan).await,
        }
    }

    fn last_plan(&self, stage: &str) -> Option<Arc<dyn ExecutionPlan>> {
        match self {
            Plans::Fide(p) => p.session().last_plan(stage),
            Plans::Seed(seed) => seed.last_plan(stage),
        }
    }

    fn keep_last_plans(&self, keep: bool) {
        match self {
            Plans::Fide(p) => p.keep_last_plans(keep),
            Plans::Seed(seed) => seed.keep_last_plans(keep),
        }
    }

    fn profile(&self) -> Vec<(String, StageProfile)> {
        match self {
            Plans::Fide(p) => p.profile(),
            Plans::Seed(seed) => seed.profile(),
        }
    }
}

/// A stage to explain: its name and, on the seed's pipeline, how it is registered.
struct Explained {
    name: String,
    seed: Option<SeedStageKind>,
}

/// The stages of our pipeline to explain: `stage` (which must plan), or all in order.
fn fide_stages(stage: Option<&str>) -> Result<Vec<Explained>> {
    let names: Vec<&str> = match stage {
        Some(s) => vec![
            s.parse::<Stage>()
                .map_err(|_| unknown_stage(s, Stage::ALL.iter().map(|s| s.name())))?
                .name(),
        ],
        None => Stage::ALL.iter().map(|s| s.name()).collect(),
    };
    Ok(names
        .into_iter()
        .map(|name| Explained {
            name: name.to_string(),
            seed: None,
        })
        .collect())
}

/// [`Error::Usage`] for a stage name that is not one, listing the names that are.
fn unknown_stage<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Error {
    Error::Usage(format!(
        "unknown stage {name:?}; the stages: {}",
        names.collect::<Vec<_>>().join(", ")
    ))
}

/// The seed's stages to explain: `stage` (`legal_moves` stands for `stage13`), or all.
fn seed_stages(stage: Option<&str>) -> Result<Vec<Explained>> {
    let stages: Vec<&seed::SeedStage> = match stage {
        Some(s) => {
            let s = if s == "legal_moves" { "stage13" } else { s };
            vec![
                SEED_STAGES
                    .iter()
                    .find(|st| st.name == s)
                    .ok_or_else(|| unknown_stage(s, SEED_STAGES.iter().map(|st| st.name)))?,
            ]
        }
        None => SEED_STAGES.iter().collect(),
    };
    Ok(stages
        .into_iter()
        .map(|st| Explained {
            name: st.name.to_string(),
            seed: Some(st.kind),
        })
        .collect())
}

/// Runs `workload` on our pipeline, then once each stage of `stages` it did not run (on
/// the tables it left).
async fn analyze_fide(
    engine: &Engine,
    workload: &Workload,
    stages: &[Explained],
    out: &mut String,
) -> Result<()> {
    let p = engine.pipeline();
    p.reset_profile();
    run_fide(engine, workload).await?;
    let _ = writeln!(out, "-- analyzed: {}", workload.describe());
    for st in Stage::ALL
        .iter()
        .filter(|s| stages.iter().any(|e| e.name == s.name()))
    {
        if p.last_plan(*st).is_none() {
            let _ = writeln!(
                out,
                "-- stage {st} is not part of the workload: ran once on the tables it left"
            );
            p.run(*st).await?;
        }
    }
    Ok(())
}

/// Runs the seed's workload: `load_fens` + `all_moves` on the first [`POSITION_BATCH`]
/// positions of `workload`, then `validate_move` for the first legal move of the first game
/// that has one.
async fn analyze_seed(
    seed: &mut SeedPipeline,
    workload: &Workload,
    out: &mut String,
) -> Result<()> {
    let setups = seed_positions(workload)?;
    let chunk = &setups[..setups.len().min(POSITION_BATCH)];
    seed.load_fens(chunk).await?;
    let moves = seed.all_moves_uci().await?;
    let _ = writeln!(
        out,
        "-- analyzed: {} (seed: load_fens + all_moves on {} positions)",
        workload.describe(),
        chunk.len()
    );
    if let Some((game, mv)) = moves
        .iter()
        .enumerate()
        .find_map(|(g, m)| m.first().map(|m| (g, m)))
    {
        let mv = seed.move_from_uci(game, mv)?;
        seed.validate_move(&mv).await?;
        let _ = writeln!(out, "-- validate_move: {} of game {game}", mv.uci());
    }
    Ok(())
}

/// One stage's part of [`explain`]: heading, logical plan, and the physical plan, as it last
/// ran (with metrics and the profile's summary line) when `analyzed` and it ran.
async fn explain_stage(
    plans: &Plans<'_>,
    st: &Explained,
    analyzed: bool,
    profile: &[(String, StageProfile)],
    out: &mut String,
) -> Result<()> {
    let name = st.name.as_str();
    match (plans, st.seed) {
        (Plans::Seed(seed), Some(SeedStageKind::View)) => {
            let _ = writeln!(out, "== seed stage {name} ({:?})", SeedStageKind::View);
            let df = seed.context().table(name).await?;
            let logical = df.clone().into_optimized_plan()?;
            let physical = df.create_physical_plan().await?;
            let _ = writeln!(
                out,
                "-- logical plan (view, inlined into the stage that reads it)\n{}",
                logical.display_indent()
            );
            let _ = writeln!(
                out,
                "-- physical plan (the view alone; it has no run of its own)\n{}",
                physical_text(physical.as_ref(), false)
            );
            return Ok(());
        }
        (_, Some(kind)) => {
            let _ = writeln!(out, "== seed stage {name} ({kind:?})");
        }
        (_, None) => {
            let _ = writeln!(out, "== stage {name}");
        }
    }
    let plan = plans.plan(name)?;
    let _ = writeln!(out, "-- logical plan\n{}", plan.display_indent());
    match analyzed.then(|| plans.last_plan(name)).flatten() {
        Some(physical) => {
            out.push_str(&summary(
                profile.iter().find(|(n, _)| n == name).map(|(_, s)| s),
            ));
            let _ = writeln!(
                out,
                "-- physical plan with metrics (last run)\n{}",
                physical_text(physical.as_ref(), true)
            );
        }
        None => {
            let (plan, note) = match plans {
                Plans::Seed(seed) if st.seed == Some(SeedStageKind::Query) => (
                    seed.validate_move_plan(&example_move())?,
                    " (example move bound: white knight g1-f3 of game 0)",
                ),
                _ => (plan.clone(), ""),
            };
            let physical = plans.physical_plan(&plan).await?;
            let _ = writeln!(
                out,
                "-- physical plan{note}\n{}",
                physical_text(physical.as_ref(), false)
            );
        }
    }
    Ok(())
}

fn physical_text(plan: &dyn ExecutionPlan, metrics: bool) -> String {
    if metrics {
        DisplayableExecutionPlan::with_metrics(plan)
            .indent(true)
            .to_string()
    } else {
        DisplayableExecutionPlan::new(plan).indent(true).to_string()
    }
}

fn summary(p: Option<&StageProfile>) -> String {
    match p {
        Some(p) => format!(
            "-- profile: {} runs, {} rows, plan {:.1} ms, exec {:.1} ms, compute {:.1} ms, peak mem {}\n",
            p.runs,
            p.rows,
            p.planning.as_secs_f64() * 1e3,
            p.execution.as_secs_f64() * 1e3,
            p.compute.as_secs_f64() * 1e3,
            p.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
        ),
        None => String::new(),
    }
}

/// The example move bound into `validate_move` when it is explained without a run: the
/// white knight g1-f3 of game 0.
fn example_move() -> SeedMove {
    SeedMove {
        gameuuid: seed::game_uuid(0),
        movecnt: 0,
        color: seed::WHITE.to_string(),
        chessman: seed::KNIGHT.to_string(),
        from_x: 7,
        from_y: 1,
        to_x: 6,
        to_y: 3,
    }
}
