//! Running a profile: a [`Workload`] on the chosen pipeline with fresh per-stage figures.

use std::time::Instant;

use crate::engine::Engine;
use crate::error::Result;
use crate::seed::SeedPipeline;

use super::PipelineKind;
use super::report::ProfileReport;
use super::workload::{Workload, run_fide, run_seed, seed_positions};

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
pub(super) fn partitions(engine: &Engine) -> usize {
    engine
        .pipeline()
        .context()
        .state()
        .config()
        .target_partitions()
}
