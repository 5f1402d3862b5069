//! Profiling and EXPLAIN of the two pipelines: ours (`fide`, [`crate::session`]) and the
//! seed replica (`seed`, [`crate::seed`]): the library side of `sqlchess profile`,
//! `sqlchess explain` and `sqlchess validate --profile`; the command line prints them.
//!
//! A profile runs a [`Workload`] (`workload.rs`: what runs on each pipeline, PGN files read
//! through [`crate::io::input`]) and reads the per-stage figures both pipelines record on
//! every stage run ([`crate::session::StageProfile`]): runs, output rows, wall time spent
//! creating physical plans (planning) and executing them (execution), DataFusion's
//! `elapsed_compute` summed over the operators of the executed plans, and their peak-memory
//! metrics. Each stage's share is its part of the summed execution wall time; planning is
//! reported separately. The report ([`ProfileReport`], `report.rs`) is a text table, a
//! record batch or JSON lines; [`explain()`] (`explain.rs`) gives the stages' plans, after a
//! workload with their metrics.
//!
//! Entry points: [`run_profile`], [`explain()`], [`ProfileReport::of_engines`].

mod explain;
mod report;
mod workload;

pub use explain::explain;
pub use report::{ProfileReport, ProfileRow, format_bytes};
pub use workload::{
    DEFAULT_POSITIONS, GAME_BATCH, POSITION_BATCH, Workload, parse_fens, start_positions,
};

use std::time::Instant;

use strum::{Display, EnumString, IntoStaticStr, VariantArray};

use crate::engine::Engine;
use crate::error::Result;
use crate::seed::SeedPipeline;

use workload::{run_fide, run_seed, seed_positions};

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

/// Runs `workload` on the chosen pipeline with fresh per-stage figures and returns the
/// profile. The seed pipeline is built on a session with the engine's target partitions.
///
/// Errors: [`Error::DataFusion`](crate::Error::DataFusion) and the input errors of the workload
/// ([`Error::Io`](crate::Error::Io), [`Error::NotPgn`](crate::Error::NotPgn)).
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
