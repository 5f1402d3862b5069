//! `sqlchess profile` and `sqlchess explain`: the per-stage figures and the plans of either
//! pipeline ([`sqlchess::profile`]), printed.

use std::path::PathBuf;
use std::process::ExitCode;

use sqlchess::io::report::{Format, ReportWriter};
use sqlchess::profile::{self, DEFAULT_POSITIONS, PipelineKind, ProfileReport, Workload};
use sqlchess::{Engine, Error, Result};

/// What each pipeline is (`--help`).
fn pipeline_help(p: PipelineKind) -> &'static str {
    match p {
        PipelineKind::Fide => "Ours: the FIDE-exact stages of `plans/`",
        PipelineKind::Seed => "The seed replica: the SAP blog's statement, `plans/seed/`",
    }
}

/// Arguments of `sqlchess explain`.
#[derive(clap::Args)]
pub struct ExplainArgs {
    /// Which pipeline: ours (fide) or the seed replica (seed).
    #[arg(long, value_parser = crate::names(pipeline_help), default_value_t = PipelineKind::Fide)]
    pipeline: PipelineKind,
    /// Run the stage(s) on the default input (1,000 positions) first and print the
    /// physical plan with DataFusion's metrics.
    #[arg(long)]
    analyze: bool,
    /// Stage name (see plans/README.md, plans/seed/README.md).
    stage: Option<String>,
}

/// Arguments of `sqlchess profile`.
#[derive(clap::Args)]
pub struct ProfileArgs {
    /// Which pipeline: ours (fide) or the seed replica (seed).
    #[arg(long, value_parser = crate::names(pipeline_help), default_value_t = PipelineKind::Fide)]
    pipeline: PipelineKind,
    /// Positions: one FEN per line, or CSV with a `fen` column (default: 1,000
    /// positions of data/positions.fen).
    #[arg(long)]
    fens: Option<PathBuf>,
    /// PGN files (fide: games validated; seed: their start positions).
    pgn: Vec<PathBuf>,
    /// Also write the per-stage rows here as JSON lines.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// `sqlchess profile`: builds the workload (`--fens FILE`, PGN files, or the default), runs
/// it, prints the per-stage table and writes the rows to `--json` as JSON lines if given
/// (the file is created before the run, so a path that cannot be written fails at once).
///
/// Errors: [`Error::Usage`] when both a FEN file and PGN files are given; [`Error::Io`]
/// naming `--json` when it cannot be created; as [`profile::run_profile`].
pub async fn profile_command(engine: &Engine, args: ProfileArgs) -> Result<ExitCode> {
    let workload = match (args.fens, args.pgn.is_empty()) {
        (Some(_), false) => {
            return Err(Error::Usage(
                "give either --fens FILE or PGN files, not both".into(),
            ));
        }
        (Some(path), true) => Workload::fen_file(&path)?,
        (None, false) => Workload::Games(args.pgn),
        (None, true) => Workload::default_positions(DEFAULT_POSITIONS),
    };
    let json = match &args.json {
        Some(path) => Some(ReportWriter::create(
            path,
            Format::Json,
            ProfileReport::schema(),
        )?),
        None => None,
    };
    let report = profile::run_profile(engine, args.pipeline, &workload).await?;
    out!("pipeline {}: {}\n", args.pipeline.as_str(), report.input)?;
    out!("{}", report.to_table())?;
    if let Some(mut w) = json {
        w.write(&report.to_batch()?)?;
        w.finish()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `sqlchess explain`: prints [`profile::explain`] for one stage or all; with `--analyze` on
/// the default workload ([`DEFAULT_POSITIONS`] positions).
///
/// Errors: as [`profile::explain`].
pub async fn explain_command(engine: &Engine, args: ExplainArgs) -> Result<ExitCode> {
    let workload = args
        .analyze
        .then(|| Workload::default_positions(DEFAULT_POSITIONS));
    let plans = profile::explain(
        engine,
        args.pipeline,
        args.stage.as_deref(),
        workload.as_ref(),
    )
    .await?;
    out!("{plans}")?;
    Ok(ExitCode::SUCCESS)
}
