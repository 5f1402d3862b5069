//! The `sqlchess` command line: validate PGN games, list legal moves, count perft, profile
//! and explain the pipeline's stages.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt64Type};
use std::sync::Arc;

use sqlchess::pgn::{PgnReader, RawGame};
use sqlchess::report::{self, Format};
use sqlchess::validate::{GameReport, validate_games};
use sqlchess::{Engine, Error, PipelineConfig, Result, Setup};

/// A chess rules engine that runs as DataFusion query plans.
#[derive(Parser)]
#[command(name = "sqlchess", version, about)]
struct Cli {
    /// DataFusion target partitions (default: the number of cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate PGN games: per game the first illegal ply and why, final position and status.
    Validate {
        /// PGN files (default: data/sample.pgn).
        files: Vec<PathBuf>,
        /// Write one row per game here (.csv, .json, .parquet or .arrow).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Report format, when the extension of --out does not say.
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Games per pipeline batch.
        #[arg(long, default_value_t = 2000)]
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
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
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
    let engine = Engine::new(config).await?;
    match cli.command {
        Command::Validate { files, out, format, batch, profile } => {
            validate(&engine, files, out, format, batch.max(1), profile).await
        }
        Command::Moves { fen, fens, out } => moves(&engine, fen, fens, out).await,
        Command::Perft { fen, depth, divide } => {
            let setup = parse_fen(&fen)?;
            let t0 = Instant::now();
            let nodes = if divide {
                let rows = engine.perft_divide(&setup, depth).await?;
                for (uci, n) in &rows {
                    println!("{uci}: {n}");
                }
                rows.iter().map(|(_, n)| n).sum()
            } else {
                engine.perft(&[setup], depth).await?.first().copied().unwrap_or(0)
            };
            eprintln!("time: {:.3} s", t0.elapsed().as_secs_f64());
            println!("nodes: {nodes}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { pipeline, analyze, stage } => sqlchess::profile::explain_command(&engine, pipeline, stage, analyze).await,
        Command::Profile { pipeline, fens, pgn, json } => sqlchess::profile::profile_command(&engine, pipeline, fens, pgn, json).await,
    }
}

fn parse_fen(fen: &str) -> Result<Setup> {
    Setup::from_fen(fen).map_err(|e| Error::Fen { fen: fen.to_string(), source: e })
}

fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let io = |e: std::io::Error| Error::Io { path: path.display().to_string(), source: e };
    let file = std::fs::File::open(path).map_err(io)?;
    Ok(Box::new(std::io::BufReader::new(file)))
}

async fn validate(
    engine: &Engine,
    files: Vec<PathBuf>,
    out: Option<PathBuf>,
    format: Option<Format>,
    batch: usize,
    profile: bool,
) -> Result<ExitCode> {
    let files = if files.is_empty() { vec![PathBuf::from("data/sample.pgn")] } else { files };
    let format = match (&out, format) {
        (_, Some(f)) => Some(f),
        (Some(p), None) => Some(Format::from_path(p)?),
        (None, None) => None,
    };
    let t0 = Instant::now();
    let mut reports: Vec<GameReport> = vec![];
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let mut games: Vec<(&str, RawGame)> = vec![];
    for (path, name) in files.iter().zip(&names) {
        for game in PgnReader::new(open(path)?) {
            games.push((name, game.map_err(|e| Error::Io { path: name.clone(), source: std::io::Error::other(e) })?));
            if games.len() == batch {
                reports.extend(validate_games(engine, &games).await?);
                games.clear();
            }
        }
    }
    reports.extend(validate_games(engine, &games).await?);
    let secs = t0.elapsed().as_secs_f64();
    let plies: u64 = reports.iter().map(|r| u64::from(r.plies)).sum();
    let bad = reports.iter().filter(|r| r.error_kind.is_some()).count();
    if let (Some(path), Some(format)) = (&out, format) {
        let batch = report::reports_to_batch(&reports)?;
        report::write_batches(path, format, report::report_schema(), &[batch])?;
    } else {
        for r in &reports {
            println!(
                "{} #{}: {} plies, {}{}",
                r.file,
                r.game_index,
                r.plies,
                r.final_status.as_deref().unwrap_or("-"),
                match (&r.error_kind, &r.error_message) {
                    (Some(k), Some(m)) => format!(", {k}: {m}"),
                    _ => String::new(),
                }
            );
        }
    }
    println!(
        "games: {}, plies: {plies}, illegal games: {bad}, time: {secs:.2} s, games/s: {:.0}, plies/s: {:.0}",
        reports.len(),
        reports.len() as f64 / secs,
        plies as f64 / secs
    );
    if profile {
        sqlchess::profile::print_profile(engine);
    }
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

async fn moves(engine: &Engine, fen: Option<String>, fens: Option<PathBuf>, out: Option<PathBuf>) -> Result<ExitCode> {
    let lines: Vec<String> = match (&fen, &fens) {
        (Some(f), None) => vec![f.clone()],
        (None, Some(path)) => {
            let mut v = vec![];
            for line in open(path)?.lines() {
                v.push(line.map_err(|e| Error::Io { path: path.display().to_string(), source: e })?);
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
                eprintln!("line {}: invalid FEN {line:?}: {e}", i + 1);
                failed = true;
            }
        }
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
        let uci = b.column_by_name("uci").ok_or_else(|| Error::Schema("uci".into()))?.as_string::<i32>();
        let san = b.column_by_name("san").ok_or_else(|| Error::Schema("san".into()))?.as_string::<i32>();
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
            let pick = |v: &Vec<String>| Arc::new(StringArray::from_iter_values(order.iter().map(|&i| v[i].as_str()))) as ArrayRef;
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
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
