//! The `sqlchess` command line: validate PGN games, list legal moves, count perft, profile
//! and explain the pipeline's stages.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt64Type};
use std::sync::Arc;

use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use sqlchess::io::input::{ByteCounter, Input};
use sqlchess::io::report::{self, Format, ReportWriter};
use sqlchess::pgn::{PgnError, PgnReader, RawGame};
use sqlchess::validate::{GameReport, ValidateOptions, Validator};
use sqlchess::{Engine, Error, PipelineConfig, Result, Setup};

mod interrupt;

/// A chess rules engine that runs as DataFusion query plans.
#[derive(Parser)]
#[command(name = "sqlchess", version, about)]
struct Cli {
    /// Cores to use (default: all): DataFusion target partitions; `validate` runs this many
    /// pipelines of one partition each side by side instead, on shares of each batch.
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Memory limit of the run, for all --threads together (e.g. 2GiB, 512MiB; default: half
    /// the physical memory). Operators spill to disk first; a run that cannot stay within
    /// it stops with an error naming the limit (exit 2), perft before a level too big.
    #[arg(long, global = true, value_name = "SIZE")]
    memory_limit: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate PGN games: per game the first illegal ply and why, final position and status.
    ///
    /// Games are read, validated and written --batch at a time (memory does not grow with
    /// the input). Summary on stderr. Exit status: 0 all games legal, 1 some game illegal or
    /// malformed, 2 usage or I/O error, 130 stopped by Ctrl-C (after the batch being
    /// validated; the report written so far is kept as OUT.partial). Report files are
    /// written under a temporary name and renamed when complete.
    Validate {
        /// PGN files, directories (searched recursively for *.pgn, *.pgn.zst, *.pgn.gz,
        /// *.pgn.bz2) or - for standard input; .zst/.gz/.bz2 are decompressed on the fly
        /// (default: data/sample.pgn).
        files: Vec<PathBuf>,
        /// Write one row per game here (.csv, .json, .parquet or .arrow).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Report format, when the extension of --out does not say; without --out the report
        /// goes to standard output in this format.
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Also write one row per legal ply played here (game_id, ply, fen_before, uci, san,
        /// is_capture, is_check, is_castling, is_en_passant, promotion), in the format its
        /// extension names (.csv, .json, .parquet or .arrow; else --format).
        #[arg(long)]
        plies: Option<PathBuf>,
        /// Games per batch (validated and written together; shared out between the
        /// --threads pipelines).
        #[arg(long, default_value_t = 10_000)]
        batch: usize,
        /// Print the per-stage profile (rows, time) of the whole run.
        #[arg(long)]
        profile: bool,
    },
    /// List the legal moves of a position (SAN and UCI), or of every FEN line of a file.
    Moves {
        /// A FEN.
        fen: Option<String>,
        /// A file with one FEN per line.
        #[arg(long)]
        fens: Option<PathBuf>,
        /// With --fens: write rows (position_index, fen, uci, san) here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Count the leaf nodes of the legal move tree (perft).
    Perft {
        /// A FEN.
        fen: String,
        /// Depth in plies.
        depth: u32,
        /// Also print the count below each legal move.
        #[arg(long)]
        divide: bool,
    },
    /// Print the logical and physical plan of one stage, or of all.
    Explain {
        /// Which pipeline: ours (fide) or the seed replica (seed).
        #[arg(long, value_enum, default_value_t = sqlchess::profile::PipelineKind::Fide)]
        pipeline: sqlchess::profile::PipelineKind,
        /// Run the stage(s) on the default input (1,000 positions) first and print the
        /// physical plan with DataFusion's metrics.
        #[arg(long)]
        analyze: bool,
        /// Stage name (see plans/README.md, plans/seed/README.md).
        stage: Option<String>,
    },
    /// Run a pipeline with DataFusion's metrics and print one row per stage: rows, planning
    /// and execution time, compute time, share, peak memory.
    Profile {
        /// Which pipeline: ours (fide) or the seed replica (seed).
        #[arg(long, value_enum, default_value_t = sqlchess::profile::PipelineKind::Fide)]
        pipeline: sqlchess::profile::PipelineKind,
        /// Positions: one FEN per line, or CSV with a `fen` column (default: 1,000
        /// positions of tests/data/oracle_positions.csv).
        #[arg(long)]
        fens: Option<PathBuf>,
        /// PGN files (fide: games validated; seed: their start positions).
        pgn: Vec<PathBuf>,
        /// Also write the per-stage rows here as JSON lines.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let mut config = PipelineConfig::default();
    if let Some(t) = cli.threads {
        config.target_partitions = t.max(1);
    }
    if let Some(size) = &cli.memory_limit {
        let limit = sqlchess::session::memory::parse_size(size)?;
        config.memory = sqlchess::session::memory::MemoryBudget::new(limit)?;
    }
    // planned only when awaited: `validate` plans its own pipelines instead
    let engine = Engine::new(config.clone());
    match cli.command {
        Command::Validate {
            files,
            out,
            format,
            plies,
            batch,
            profile,
        } => {
            let validator = Validator::new(config.target_partitions, config).await?;
            let plies = plies.map(|path| (path, format));
            validate(&validator, files, out, format, plies, batch.max(1), profile).await
        }
        Command::Moves { fen, fens, out } => moves(&engine.await?, fen, fens, out).await,
        Command::Perft { fen, depth, divide } => {
            let engine = engine.await?;
            let setup = parse_fen(&fen)?;
            if let Some(Some((_, why))) = engine.check_setups(&[setup]).await?.first() {
                return Err(Error::Fen {
                    fen,
                    source: sqlchess::chess::fen::FenError {
                        field: sqlchess::chess::fen::FenField::Position,
                        kind: "impossible_position",
                        message: why.clone(),
                    },
                });
            }
            let t0 = Instant::now();
            let nodes = if divide {
                let rows = engine.perft_divide(&setup, depth).await?;
                for (uci, n) in &rows {
                    println!("{uci}: {n}");
                }
                rows.iter().map(|(_, n)| n).sum()
            } else {
                engine
                    .perft(&[setup], depth)
                    .await?
                    .first()
                    .copied()
                    .unwrap_or(0)
            };
            eprintln!("time: {:.3} s", t0.elapsed().as_secs_f64());
            println!("nodes: {nodes}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain {
            pipeline,
            analyze,
            stage,
        } => sqlchess::profile::explain_command(&engine.await?, pipeline, stage, analyze).await,
        Command::Profile {
            pipeline,
            fens,
            pgn,
            json,
        } => sqlchess::profile::profile_command(&engine.await?, pipeline, fens, pgn, json).await,
    }
}

fn parse_fen(fen: &str) -> Result<Setup> {
    Setup::from_fen(fen).map_err(|e| Error::Fen {
        fen: fen.to_string(),
        source: e,
    })
}

fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    Ok(Box::new(std::io::BufReader::new(file)))
}

async fn validate(
    validator: &Validator,
    files: Vec<PathBuf>,
    out: Option<PathBuf>,
    format: Option<Format>,
    plies: Option<(PathBuf, Option<Format>)>,
    batch: usize,
    profile: bool,
) -> Result<ExitCode> {
    let files = if files.is_empty() {
        vec![PathBuf::from("data/sample.pgn")]
    } else {
        files
    };
    let format = match (&out, format) {
        (_, Some(f)) => Some(f),
        (Some(p), None) => Some(Format::from_path(p)?),
        (None, None) => None,
    };
    let plies_format = match &plies {
        Some((path, fallback)) => Some(match Format::from_path(path) {
            Ok(f) => f,
            Err(e) => fallback.ok_or(e)?,
        }),
        None => None,
    };
    let inputs = sqlchess::io::input::expand(&files)?;
    if inputs.is_empty() {
        eprintln!("warning: no PGN files found");
    }
    let mut sink = match (&out, format) {
        (Some(path), Some(f)) => {
            ReportSink::Report(ReportWriter::create(path, f, report::report_schema())?)
        }
        (None, Some(f)) => ReportSink::Report(ReportWriter::new(
            Box::new(std::io::stdout()),
            STDOUT,
            f,
            report::report_schema(),
        )?),
        _ => ReportSink::Lines(std::io::BufWriter::new(std::io::stdout())),
    };
    let mut plies = match (plies, plies_format) {
        (Some((path, _)), Some(f)) => Some(ReportWriter::create(&path, f, report::plies_schema())?),
        _ => None,
    };
    let interrupt = interrupt::Interrupt::install().unwrap_or_else(|e| {
        eprintln!("warning: Ctrl-C will not stop cleanly: {e}");
        interrupt::Interrupt::default()
    });
    let bytes = ByteCounter::new();
    let pb = progress_bar(inputs.iter().map(Input::size).sum());
    pb.set_message("0 games validated");
    let t0 = Instant::now();
    let mut summary = Summary::default();
    let mut io_errors = 0u64;
    let mut games: Vec<(&str, RawGame)> = Vec::with_capacity(batch.min(65_536));
    let mut flush = |games: &[(&str, RawGame)]| {
        validate_batch(
            validator,
            games,
            &mut sink,
            &mut plies,
            &mut summary,
            &pb,
            t0,
        )
    };
    'inputs: for input in &inputs {
        let reader = match input.open(&bytes) {
            Ok(r) => r,
            Err(e) => {
                pb.suspend(|| eprintln!("error: {e}"));
                io_errors += 1;
                continue;
            }
        };
        for game in PgnReader::new(reader) {
            match game {
                Ok(g) => games.push((input.name.as_str(), g)),
                Err(PgnError::Io(e)) => {
                    pb.suspend(|| {
                        eprintln!(
                            "error: {}: {e} (the rest of this input is not read)",
                            input.name
                        )
                    });
                    io_errors += 1;
                    break;
                }
            }
            pb.set_position(bytes.get());
            if interrupt.requested() {
                break 'inputs;
            }
            if games.len() >= batch {
                flush(&games)?;
                games.clear();
            }
        }
    }
    let interrupted = interrupt.requested();
    let mut stopped = vec![];
    if interrupted {
        // the games read since the last batch are not validated
        stopped.push(format!(
            "interrupted: {} games validated and written to {}",
            summary.games,
            sink.finish_partial()?
        ));
        if let Some(w) = plies {
            let rows = w.rows();
            if let Some(path) = w.finish_partial()? {
                stopped.push(format!("{rows} plies written to {}", path.display()));
            }
        }
    } else {
        flush(&games)?;
        sink.finish()?;
        if let Some(w) = plies {
            w.finish()?;
        }
    }
    pb.finish_and_clear();
    summary.print(
        t0.elapsed().as_secs_f64(),
        bytes.get(),
        inputs.len(),
        io_errors,
    );
    for line in stopped {
        eprintln!("{line}");
    }
    if profile {
        sqlchess::profile::print_profile(validator.engines());
    }
    Ok(if interrupted {
        ExitCode::from(interrupt::EXIT_INTERRUPTED)
    } else if io_errors > 0 {
        ExitCode::from(2)
    } else if summary.bad() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Name of standard output in errors.
const STDOUT: &str = "<stdout>";

/// Where `validate` writes its per-game rows.
enum ReportSink {
    /// A report file (or standard output) in one of the report formats.
    Report(ReportWriter),
    /// One human-readable line per game on standard output.
    Lines(std::io::BufWriter<std::io::Stdout>),
}

impl ReportSink {
    fn write(&mut self, reports: &[GameReport], pb: &ProgressBar) -> Result<()> {
        match self {
            ReportSink::Report(w) => w.write(&report::reports_to_batch(reports)?),
            ReportSink::Lines(w) => pb
                .suspend(|| {
                    for r in reports {
                        writeln!(
                            w,
                            "{} #{}: {} plies, {}{}",
                            r.file,
                            r.game_index,
                            r.plies,
                            r.final_status.as_deref().unwrap_or("-"),
                            match (&r.error_kind, &r.error_message) {
                                (Some(k), Some(m)) => format!(", {k}: {m}"),
                                _ => String::new(),
                            }
                        )?;
                    }
                    w.flush()
                })
                .map_err(|e| Error::Io {
                    path: STDOUT.into(),
                    source: e,
                }),
        }
    }

    /// Ends an interrupted run: keeps the rows written so far (a file as NAME.partial) and
    /// returns where they are.
    fn finish_partial(self) -> Result<String> {
        match self {
            ReportSink::Report(w) => Ok(match w.finish_partial()? {
                Some(path) => path.display().to_string(),
                None => STDOUT.into(),
            }),
            lines => lines.finish().map(|()| STDOUT.into()),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            ReportSink::Report(w) => w.finish(),
            ReportSink::Lines(mut w) => w.flush().map_err(|e| Error::Io {
                path: STDOUT.into(),
                source: e,
            }),
        }
    }
}

/// Validates one batch of games, writes its rows (and its ply rows) and counts them.
fn validate_batch(
    validator: &Validator,
    games: &[(&str, RawGame)],
    sink: &mut ReportSink,
    plies: &mut Option<ReportWriter>,
    summary: &mut Summary,
    pb: &ProgressBar,
    t0: Instant,
) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    let options = ValidateOptions {
        plies: plies.is_some(),
    };
    let v = validator.validate(games, options)?;
    let reports = v.reports;
    sink.write(&reports, pb)?;
    if let Some(w) = plies {
        w.write(&report::plies_to_batch(&v.plies)?)?;
    }
    summary.add(&reports);
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    pb.set_message(format!(
        "{} games validated, {:.0} games/s",
        HumanCount(summary.games),
        summary.games as f64 / secs
    ));
    Ok(())
}

/// A progress bar on stderr (by bytes read when the total size is known), hidden when
/// stderr is not a terminal.
fn progress_bar(total_bytes: Option<u64>) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (pb, template) = match total_bytes {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            "{spinner} {elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} read, {msg}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {elapsed_precise} {bytes} read, {msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}

/// Counts of a validation run.
#[derive(Default)]
struct Summary {
    games: u64,
    plies: u64,
    legal: u64,
    /// Games per error kind.
    kinds: std::collections::BTreeMap<String, u64>,
}

impl Summary {
    fn add(&mut self, reports: &[GameReport]) {
        for r in reports {
            self.games += 1;
            self.plies += u64::from(r.plies);
            match &r.error_kind {
                None => self.legal += 1,
                Some(k) => *self.kinds.entry(k.clone()).or_default() += 1,
            }
        }
    }

    /// Games illegal or malformed (every error kind but `unsupported_variant`).
    fn bad(&self) -> u64 {
        self.kinds
            .iter()
            .filter(|(k, _)| k.as_str() != sqlchess::validate::kind::UNSUPPORTED_VARIANT)
            .map(|(_, n)| n)
            .sum()
    }

    /// The summary, on stderr.
    fn print(&self, secs: f64, bytes: u64, inputs: usize, io_errors: u64) {
        let rate = |n: u64| n as f64 / secs.max(1e-9);
        let kinds = if self.kinds.is_empty() {
            "none".to_string()
        } else {
            self.kinds
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        eprintln!(
            "games: {}, plies: {}, legal games: {}",
            self.games, self.plies, self.legal
        );
        eprintln!("games per error kind: {kinds}");
        eprintln!(
            "games/s: {:.0}, plies/s: {:.0}, wall time: {secs:.2} s, read: {} from {inputs} input(s)",
            rate(self.games),
            rate(self.plies),
            HumanBytes(bytes)
        );
        if io_errors > 0 {
            eprintln!("I/O errors: {io_errors} (see above)");
        }
    }
}

async fn moves(
    engine: &Engine,
    fen: Option<String>,
    fens: Option<PathBuf>,
    out: Option<PathBuf>,
) -> Result<ExitCode> {
    let lines: Vec<String> = match (&fen, &fens) {
        (Some(f), None) => {
            parse_fen(f)?;
            vec![f.clone()]
        }
        (None, Some(path)) => {
            let mut v = vec![];
            for line in open(path)?.lines() {
                v.push(line.map_err(|e| Error::Io {
                    path: path.display().to_string(),
                    source: e,
                })?);
            }
            v
        }
        _ => return Err(Error::Usage("give a FEN or --fens FILE".into())),
    };
    let mut setups: Vec<(u64, Setup)> = vec![];
    let mut failed = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Setup::from_fen(line) {
            Ok(s) => setups.push((i as u64, s)),
            Err(e) => {
                eprintln!(
                    "line {} (position_index {i}): invalid FEN {line:?}: {e}",
                    i + 1
                );
                failed = true;
            }
        }
    }
    // positions no game reaches (side not to move in check, ...): rejected too
    let plain: Vec<Setup> = setups.iter().map(|(_, s)| *s).collect();
    let verdicts = engine.check_setups(&plain).await?;
    let mut kept = vec![];
    for ((i, s), verdict) in setups.into_iter().zip(verdicts) {
        match verdict {
            None => kept.push((i, s)),
            Some((_, why)) => {
                eprintln!(
                    "line {} (position_index {i}): invalid FEN {:?}: position: {why}",
                    i + 1,
                    lines[i as usize]
                );
                failed = true;
            }
        }
    }
    let setups = kept;
    if fen.is_some() && failed {
        return Err(Error::Usage("the position cannot occur in a game".into()));
    }
    let pairs: Vec<(u64, &Setup)> = setups.iter().map(|(i, s)| (*i, s)).collect();
    engine.load_pairs(&pairs).await?;
    let batches = engine.legal_moves_loaded().await?;
    let mut idx = vec![];
    let mut fen_col = vec![];
    let mut uci_col = vec![];
    let mut san_col = vec![];
    for b in &batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let uci = b
            .column_by_name("uci")
            .ok_or_else(|| Error::Schema("uci".into()))?
            .as_string::<i32>();
        let san = b
            .column_by_name("san")
            .ok_or_else(|| Error::Schema("san".into()))?
            .as_string::<i32>();
        for i in 0..b.num_rows() {
            let pid = id.value(i);
            idx.push(pid);
            fen_col.push(lines[pid as usize].clone());
            uci_col.push(uci.value(i).to_string());
            san_col.push(san.value(i).to_string());
        }
    }
    let mut order: Vec<usize> = (0..idx.len()).collect();
    order.sort_by(|&a, &b| (idx[a], &uci_col[a]).cmp(&(idx[b], &uci_col[b])));
    match (out, fen) {
        (Some(path), _) => {
            let schema = Arc::new(Schema::new(vec![
                Field::new("position_index", DataType::UInt64, false),
                Field::new("fen", DataType::Utf8, false),
                Field::new("uci", DataType::Utf8, false),
                Field::new("san", DataType::Utf8, false),
            ]));
            let pick = |v: &Vec<String>| {
                Arc::new(StringArray::from_iter_values(
                    order.iter().map(|&i| v[i].as_str()),
                )) as ArrayRef
            };
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(UInt64Array::from_iter_values(order.iter().map(|&i| idx[i]))),
                    pick(&fen_col),
                    pick(&uci_col),
                    pick(&san_col),
                ],
            )?;
            report::write_batches(&path, Format::from_path(&path)?, schema, &[batch])?;
        }
        (None, Some(_)) => {
            for &i in &order {
                println!("{}\t{}", san_col[i], uci_col[i]);
            }
            println!("legal moves: {}", order.len());
        }
        (None, None) => {
            for &i in &order {
                println!("{}\t{}\t{}", idx[i], san_col[i], uci_col[i]);
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
