//! `sqlchess profile` and `sqlchess explain`: the per-stage figures and the plans of either
//! pipeline ([`sqlchess::profile`]), printed, or drawn ([`sqlchess::picture::profile_chart`],
//! [`sqlchess::picture::plan_tree`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sqlchess::io::report::{Format, ReportWriter};
use sqlchess::io::whole_file::{temp_beside, write_whole};
use sqlchess::picture::plan_tree;
use sqlchess::picture::profile_chart::ChartFile;
use sqlchess::profile::{self, DEFAULT_POSITIONS, PipelineKind, ProfileReport, Workload};
use sqlchess::{Engine, Error, Result};
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

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
    /// Output format (default: svg when --out ends in .svg, else text).
    #[arg(long, value_parser = crate::names(explain_format_help))]
    format: Option<ExplainFormat>,
    /// Write the output to this file (whole, or not at all) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// What `sqlchess explain` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum ExplainFormat {
    /// The logical and physical plans as text.
    Text,
    /// The physical plans drawn as trees, one per stage.
    Svg,
}

/// What each explain format is (`--help`).
fn explain_format_help(f: ExplainFormat) -> &'static str {
    match f {
        ExplainFormat::Text => "The logical and physical plans as indented text",
        ExplainFormat::Svg => {
            "The physical plans drawn as trees (a box per operator; with --analyze its rows \
             and compute time), one per stage, stacked"
        }
    }
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
    /// Also draw the profile here: time and rows per stage as bars, grouped by the rule
    /// (plans/ folder) each stage implements; .svg (the chart) or .html/.htm (the chart and
    /// the table, one page).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `sqlchess profile`: builds the workload (`--fens FILE`, PGN files, or the default), runs
/// it, prints the per-stage table, writes the rows to `--json` as JSON lines if given (the
/// file is created before the run, so a path that cannot be written fails at once) and the
/// chart to `--out` if given ([`ChartFile`]: its extension and folder checked before the
/// run, the file written whole after it).
///
/// Errors: [`Error::Usage`] when both a FEN file and PGN files are given, or `--out` has
/// an extension other than .svg, .html, .htm; [`Error::Io`] naming `--json` or `--out`
/// when it cannot be created; as [`profile::run_profile`].
pub async fn profile_command(engine: &Engine, args: ProfileArgs) -> Result<ExitCode> {
    let chart = match &args.out {
        Some(path) => Some((ChartFile::prepare(path)?, path)),
        None => None,
    };
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
    if let Some((kind, path)) = chart {
        kind.write(path, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `sqlchess explain`: [`profile::explain_plans`] for one stage or all (with `--analyze`
/// on the default workload, [`DEFAULT_POSITIONS`] positions), as text
/// ([`profile::Explanation::to_text`]) or drawn ([`plan_tree::explanation_svg`]), on
/// standard output or written whole to `--out`, whose folder is checked before the plans
/// are collected.
///
/// Errors: as [`profile::explain`]; [`Error::Io`] naming `--out` when it cannot be written.
pub async fn explain_command(engine: &Engine, args: ExplainArgs) -> Result<ExitCode> {
    let format = explain_format(args.format, args.out.as_deref());
    if let Some(path) = &args.out {
        // fails now, not after an --analyze run, when the folder is not there or writable
        drop(temp_beside(path)?);
    }
    let workload = args
        .analyze
        .then(|| Workload::default_positions(DEFAULT_POSITIONS));
    let plans = profile::explain_plans(
        engine,
        args.pipeline,
        args.stage.as_deref(),
        workload.as_ref(),
    )
    .await?;
    let text = match format {
        ExplainFormat::Text => plans.to_text(),
        ExplainFormat::Svg => plan_tree::explanation_svg(&plans) + "\n",
    };
    match &args.out {
        Some(path) => write_whole(path, text.as_bytes())?,
        None => out!("{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `--format`, else svg for an `--out` file ending in `.svg` (any case), else text.
fn explain_format(format: Option<ExplainFormat>, out: Option<&Path>) -> ExplainFormat {
    match (format, out) {
        (Some(f), _) => f,
        (None, Some(p)) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) => {
            ExplainFormat::Svg
        }
        _ => ExplainFormat::Text,
    }
}
