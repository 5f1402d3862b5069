//! EXPLAIN of either pipeline's stages ([`explain`]): each stage's optimised logical plan and
//! its physical plan, after a workload with DataFusion's metrics per operator.

use std::fmt::Write as _;
use std::sync::Arc;

use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::display::DisplayableExecutionPlan;

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
            Plans::Seed(Box::new(
                SeedPipeline::with_partitions(partitions(engine)).await?,
            )),
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
