//! Batch validation throughput: every standard PGN file under `../shared/data/pgn` (the
//! `variants` directory left out) validated through the library API in batches of 2,000
//! games, as `sqlchess validate` does (reading and parsing included, no report written).
//!
//! One timed run per repetition (a run takes tens of seconds, too long for criterion's
//! sampling); prints games, plies, wall time, games/s and plies/s of each run and the medians.
//! Environment: `SQLCHESS_BENCH_RUNS` (repetitions, default 1), `SQLCHESS_BENCH_PLIES=1`
//! (also build the per-ply rows, `ValidateOptions { plies: true }`), `SQLCHESS_BENCH_BATCH`
//! (games per batch, default 2,000).
//!
//! Without `../shared/data` it prints a message and exits successfully.
//!
//! `cargo bench --bench validate`

use std::path::{Path, PathBuf};
use std::time::Instant;

use sqlchess::input::{ByteCounter, expand, is_pgn_name};
use sqlchess::pgn::{PgnReader, RawGame};
use sqlchess::validate::{ValidateOptions, validate_games_with};
use sqlchess::{Engine, PipelineConfig};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// The directories and PGN files directly under `root`, sorted, without `variants`.
fn inputs(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().is_some_and(|n| n != "variants")
                        && (p.is_dir() || is_pgn_name(&p.to_string_lossy()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Games, plies and ply rows counted.
#[derive(Default)]
struct Counts {
    games: u64,
    plies: u64,
    rows: u64,
}

/// Validates one batch and counts it.
async fn flush(
    engine: &Engine,
    pending: &mut Vec<(&str, RawGame)>,
    options: ValidateOptions,
    counts: &mut Counts,
) {
    if pending.is_empty() {
        return;
    }
    let v = validate_games_with(engine, pending, options)
        .await
        .expect("validate");
    counts.games += v.reports.len() as u64;
    counts.plies += v.reports.iter().map(|r| u64::from(r.plies)).sum::<u64>();
    counts.rows += v.plies.len() as u64;
    pending.clear();
}

/// Validates everything once: counts and seconds.
async fn run(
    engine: &Engine,
    paths: &[PathBuf],
    batch: usize,
    options: ValidateOptions,
) -> (Counts, f64) {
    let inputs = expand(paths).expect("inputs");
    let bytes = ByteCounter::new();
    let t0 = Instant::now();
    let mut counts = Counts::default();
    let mut pending: Vec<(&str, RawGame)> = Vec::with_capacity(batch);
    for input in &inputs {
        let reader = input.open(&bytes).expect("open");
        for g in PgnReader::new(reader) {
            pending.push((input.name.as_str(), g.expect("read")));
            if pending.len() >= batch {
                flush(engine, &mut pending, options, &mut counts).await;
            }
        }
    }
    flush(engine, &mut pending, options, &mut counts).await;
    (counts, t0.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/pgn"));
    if !root.is_dir() {
        println!(
            "validate bench: {} not found, nothing to measure",
            root.display()
        );
        return;
    }
    let runs = env_num("SQLCHESS_BENCH_RUNS", 1);
    let batch = env_num("SQLCHESS_BENCH_BATCH", 2000);
    let options = ValidateOptions {
        plies: std::env::var("SQLCHESS_BENCH_PLIES").is_ok_and(|v| v == "1"),
    };
    let paths = inputs(&root);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = rt
        .block_on(Engine::new(PipelineConfig::default()))
        .expect("engine");
    println!(
        "validate bench: {} (variants left out), batch {batch}, plies table {}, {runs} run(s)",
        root.display(),
        if options.plies { "on" } else { "off" }
    );
    let (mut games_s, mut plies_s, mut secs) = (vec![], vec![], vec![]);
    for i in 0..runs {
        let (c, t) = rt.block_on(run(&engine, &paths, batch, options));
        let (games, plies, rows) = (c.games, c.plies, c.rows);
        println!(
            "run {}: {games} games, {plies} plies, {rows} ply rows, {t:.2} s: {:.1} games/s, {:.0} plies/s",
            i + 1,
            games as f64 / t,
            plies as f64 / t
        );
        games_s.push(games as f64 / t);
        plies_s.push(plies as f64 / t);
        secs.push(t);
    }
    println!(
        "median: {:.2} s, {:.1} games/s, {:.0} plies/s",
        median(secs),
        median(games_s),
        median(plies_s)
    );
}
