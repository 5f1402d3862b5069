//! EXPLAIN of either pipeline's stages ([`explain`]): each stage's optimised logical plan and
//! its physical plan, after a workload with DataFusion's metrics per operator. The plans are
//! collected once ([`explain_plans`]: an [`Explanation`] of [`StagePlans`]) and written as
//! text ([`Explanation::to_text`]) or drawn (`crate::picture::plan_tree`, from each
//! physical plan's [`PlanNode`] tree).

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::display::DisplayableExecutionPlan;
use datafusion::physical_plan::{ExecutionPlan, displayable};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::seed::{self, SEED_STAGES, SeedMove, SeedPipeline, SeedStageKind};
use crate::session::StageProfile;
use crate::stages::{Pipeline, Stage};

use super::PipelineKind;
use super::report::format_bytes;
use super::run::partitions;
use super::workload::{POSITION_BATCH, Workload, run_fide, seed_positions};

/// The text of `sqlchess explain`: for each stage (one, or all of the pipeline's in order)
/// its optimised logical plan and its physical plan; [`explain_plans`]'s
/// [`Explanation::to_text`].
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
    Ok(explain_plans(engine, pipeline, stage, analyze)
        .await?
        .to_text())
}

/// The plans [`explain`] prints, collected once for every output (the text of
/// [`Explanation::to_text`], the drawing of `crate::picture::plan_tree`): runs the
/// workload when `analyze` is given, then plans (or takes the last executed plan of) each
/// stage, as [`explain`] describes.
///
/// Errors: as [`explain`].
pub async fn explain_plans(
    engine: &Engine,
    pipeline: PipelineKind,
    stage: Option<&str>,
    analyze: Option<&Workload>,
) -> Result<Explanation> {
    let (mut plans, stages) = match pipeline {
        PipelineKind::Fide => (Plans::Fide(engine.pipeline()), fide_stages(stage)?),
        PipelineKind::Seed => (
            Plans::Seed(Box::new(
                SeedPipeline::with_partitions(partitions(engine)).await?,
            )),
            seed_stages(stage)?,
        ),
    };
    let mut explanation = Explanation {
        pipeline,
        notes: vec![],
        stages: vec![],
    };
    if analyze.is_some() {
        plans.keep_last_plans(true);
    }
    let explained = async {
        if let Some(workload) = analyze {
            match &mut plans {
                Plans::Fide(_) => {
                    analyze_fide(engine, workload, &stages, &mut explanation.notes).await?;
                }
                Plans::Seed(seed) => analyze_seed(seed, workload, &mut explanation.notes).await?,
            }
        }
        let profile = plans.profile();
        for st in &stages {
            let collected = collect_stage(&plans, st, analyze.is_some(), &profile).await?;
            explanation.stages.push(collected);
        }
        Ok::<(), Error>(())
    }
    .await;
    if analyze.is_some() {
        plans.keep_last_plans(false);
    }
    explained.map(|()| explanation)
}

/// What [`explain_plans`] collects: notes on the workload, then each stage's plans in
/// order.
#[derive(Debug)]
pub struct Explanation {
    /// The pipeline explained.
    pub pipeline: PipelineKind,
    /// Lines on what ran before the plans were read (`analyzed: …`, stages run once on the
    /// tables the workload left, the seed's `validate_move`), without the `-- ` the text
    /// puts before them; empty without a workload.
    pub notes: Vec<String>,
    /// The stages, in the pipeline's order (one when a stage was named).
    pub stages: Vec<StagePlans>,
}

/// One stage's plans, as [`explain_plans`] collected them.
#[derive(Debug)]
pub struct StagePlans {
    /// The stage's name (a file of `plans/` or `plans/seed/`; `stage13` for the seed's
    /// `legal_moves`).
    pub name: String,
    /// Its heading: `stage NAME`, or `seed stage NAME (Table|View|Query)`.
    pub heading: String,
    /// Its optimised logical plan, indented (`LogicalPlan::display_indent`).
    pub logical: String,
    /// What the logical plan is, when not the stage's own (a seed view's: ` (view, inlined
    /// into the stage that reads it)`); else empty.
    pub logical_note: String,
    /// Its physical plan: as it last ran when [`StagePlans::metrics`], else freshly planned.
    pub physical: Arc<dyn ExecutionPlan>,
    /// What the physical plan is: ` with metrics (last run)`, ` (example move bound: …)`,
    /// ` (the view alone; it has no run of its own)`, or empty.
    pub physical_note: String,
    /// Whether [`StagePlans::physical`] ran and carries DataFusion's metrics.
    pub metrics: bool,
    /// The stage's profile over the workload, when [`StagePlans::metrics`] and it has one.
    pub profile: Option<StageProfile>,
}

impl Explanation {
    /// The text of `sqlchess explain` (see [`explain`]): the notes as `-- ` lines, then per
    /// stage `== HEADING`, `-- logical plan` and the plan, the profile's summary line when
    /// analyzed, `-- physical plan` and the plan indented (with metrics when it ran).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for note in &self.notes {
            let _ = writeln!(out, "-- {note}");
        }
        for st in &self.stages {
            let _ = writeln!(out, "== {}", st.heading);
            let _ = writeln!(out, "-- logical plan{}\n{}", st.logical_note, st.logical);
            out.push_str(&summary(st.profile.as_ref()));
            let _ = writeln!(
                out,
                "-- physical plan{}\n{}",
                st.physical_note,
                physical_text(st.physical.as_ref(), st.metrics)
            );
        }
        out
    }
}

impl StagePlans {
    /// The physical plan as a tree of [`PlanNode`]s (with each operator's metrics when
    /// [`StagePlans::metrics`]), for drawing.
    #[must_use]
    pub fn tree(&self) -> PlanNode {
        PlanNode::of(self.physical.as_ref(), self.metrics)
    }
}

/// One operator of a physical plan and its inputs: what a drawing of the plan needs
/// (`crate::picture::plan_tree`), read from an [`ExecutionPlan`] by [`PlanNode::of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanNode {
    /// The operator's one-line display, as the indented EXPLAIN text writes its line
    /// without metrics (`displayable(plan).one_line()`: `FilterExec: …`).
    pub operator: String,
    /// Rows the operator output, summed over partitions (DataFusion's `output_rows`), when
    /// read with metrics and the operator reports them.
    pub output_rows: Option<u64>,
    /// DataFusion's `elapsed_compute` of the operator, summed over partitions, when read
    /// with metrics and the operator reports it.
    pub elapsed_compute: Option<Duration>,
    /// Whether the figures were read (the plan ran): with metrics but no figure, the
    /// operator reports none.
    pub with_metrics: bool,
    /// Its input operators, in the plan's order.
    pub children: Vec<PlanNode>,
}

impl PlanNode {
    /// The tree of `plan`: each operator's one-line display and, when `metrics` (the plan
    /// ran), its `output_rows` and `elapsed_compute`.
    #[must_use]
    pub fn of(plan: &dyn ExecutionPlan, metrics: bool) -> PlanNode {
        let set = if metrics { plan.metrics() } else { None };
        PlanNode {
            operator: displayable(plan)
                .one_line()
                .to_string()
                .trim_end()
                .to_string(),
            output_rows: set.as_ref().and_then(|m| m.output_rows()).map(|r| r as u64),
            elapsed_compute: set
                .as_ref()
                .and_then(|m| m.elapsed_compute())
                .map(|n| Duration::from_nanos(n as u64)),
            with_metrics: metrics,
            children: plan
                .children()
                .into_iter()
                .map(|c| PlanNode::of(c.as_ref(), metrics))
                .collect(),
        }
    }

    /// How many operators the tree holds (this one and all below it).
    #[must_use]
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(PlanNode::count).sum::<usize>()
    }

    /// How many levels the tree has (1 for a lone operator).
    #[must_use]
    pub fn depth(&self) -> usize {
        1 + self.children.iter().map(PlanNode::depth).max().unwrap_or(0)
    }

    /// How many operators without inputs (leaves) the tree holds.
    #[must_use]
    pub fn leaves(&self) -> usize {
        if self.children.is_empty() {
            1
        } else {
            self.children.iter().map(PlanNode::leaves).sum()
        }
    }
}

/// The pipeline [`explain`] reads plans from.
enum Plans<'a> {
    /// Ours.
    Fide(&'a Pipeline),
    /// A seed replica made for the explanation.
    Seed(Box<SeedPipeline>),
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
    notes: &mut Vec<String>,
) -> Result<()> {
    let p = engine.pipeline();
    p.reset_profile();
    run_fide(engine, workload).await?;
    notes.push(format!("analyzed: {}", workload.describe()));
    for st in Stage::ALL
        .iter()
        .filter(|s| stages.iter().any(|e| e.name == s.name()))
    {
        if p.last_plan(*st).is_none() {
            let fused_into = Stage::ALL
                .iter()
                .find(|r| p.session().fused(r.name()).contains(&st.name()));
            notes.push(match fused_into {
                Some(reader) => format!(
                    "stage {st} is fused into {reader} (it runs inside {reader}'s plan, whose \
                     profile counts it): ran once alone on the tables the workload left"
                ),
                None => format!(
                    "stage {st} is not part of the workload: ran once on the tables it left"
                ),
            });
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
    notes: &mut Vec<String>,
) -> Result<()> {
    let setups = seed_positions(workload)?;
    let chunk = &setups[..setups.len().min(POSITION_BATCH)];
    seed.load_fens(chunk).await?;
    let moves = seed.all_moves_uci().await?;
    notes.push(format!(
        "analyzed: {} (seed: load_fens + all_moves on {} positions)",
        workload.describe(),
        chunk.len()
    ));
    if let Some((game, mv)) = moves
        .iter()
        .enumerate()
        .find_map(|(g, m)| m.first().map(|m| (g, m)))
    {
        let mv = seed.move_from_uci(game, mv)?;
        seed.validate_move(&mv).await?;
        notes.push(format!("validate_move: {} of game {game}", mv.uci()));
    }
    Ok(())
}

/// One stage's plans for [`explain_plans`]: heading, logical plan, and the physical plan, as
/// it last ran (with metrics and the profile) when `analyzed` and it ran.
async fn collect_stage(
    plans: &Plans<'_>,
    st: &Explained,
    analyzed: bool,
    profile: &[(String, StageProfile)],
) -> Result<StagePlans> {
    let name = st.name.as_str();
    let stage = |heading: String, logical: String, physical| StagePlans {
        name: name.to_string(),
        heading,
        logical,
        logical_note: String::new(),
        physical,
        physical_note: String::new(),
        metrics: false,
        profile: None,
    };
    let heading = match (plans, st.seed) {
        (Plans::Seed(seed), Some(SeedStageKind::View)) => {
            let df = seed.context().table(name).await?;
            let logical = df.clone().into_optimized_plan()?;
            let physical = df.create_physical_plan().await?;
            return Ok(StagePlans {
                logical_note: " (view, inlined into the stage that reads it)".into(),
                physical_note: " (the view alone; it has no run of its own)".into(),
                ..stage(
                    format!("seed stage {name} ({:?})", SeedStageKind::View),
                    logical.display_indent().to_string(),
                    physical,
                )
            });
        }
        (_, Some(kind)) => format!("seed stage {name} ({kind:?})"),
        (_, None) => format!("stage {name}"),
    };
    let plan = plans.plan(name)?;
    let logical = plan.display_indent().to_string();
    Ok(match analyzed.then(|| plans.last_plan(name)).flatten() {
        Some(physical) => StagePlans {
            physical_note: " with metrics (last run)".into(),
            metrics: true,
            profile: profile
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| s.clone()),
            ..stage(heading, logical, physical)
        },
        None => {
            let (plan, note) = match plans {
                Plans::Seed(seed) if st.seed == Some(SeedStageKind::Query) => (
                    seed.validate_move_plan(&example_move())?,
                    " (example move bound: white knight g1-f3 of game 0)",
                ),
                _ => (plan.clone(), ""),
            };
            let physical = plans.physical_plan(&plan).await?;
            StagePlans {
                physical_note: note.into(),
                ..stage(heading, logical, physical)
            }
        }
    })
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
