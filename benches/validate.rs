//! Batch validation throughput: every standard PGN file under `../shared/data/pgn` (the
//! `variants` directory left out) validated through the library API ([`Validator`], one
//! pipeline per core) in batches of 10,000 games, as `sqlchess validate` does (reading and
//! parsing included, no report written).
//!
//! One timed run per repetition (too long for criterion's sampling); prints games, plies,
//! wall time, games/s and plies/s of each run and the medians. Environment:
//! `SQLCHESS_BENCH_RUNS` (repetitions, default 3), `SQLCHESS_BENCH_PLIES=1` (also build the
//! per-ply rows, `ValidateOptions::with_plies(true)`), `SQLCHESS_BENCH_BATCH` (games per batch,
//! default 10,000), `SQLCHESS_BENCH_THREADS` (pipelines, default: the number of cores).
//!
//! `SQLCHESS_BENCH_GIB=1`: instead, concatenate those files (repeatedly) into one PGN file of
//! 1 GiB under the target directory, validate it once as a stream, and print games/s and
//! the process's peak resident memory (`VmHWM` of `/proc/self/status`).
//!
//! The shared data directory is `SQLCHESS_SHARED_DATA` (default `../shared/data`); without
//! it the bench prints a message and exits successfully. Each run's games and plies are
//! checked against `oracle/games.csv` after it is timed.
//!
//! `cargo bench --bench validate`

mod common;
use common::{env_num, median, one_gib_file, shared_data, standard_pgn_inputs as inputs};

use std::path::{Path, PathBuf};
use std::time::Instant;

use sqlchess::PipelineConfig;
use sqlchess::io::input::{ByteCounter, expand};
use sqlchess::pgn::{PgnReader, RawGame};
use sqlchess::validate::{ValidateOptions, Validator};

/// Games, plies and ply rows counted, and per game (file, game_index, plies, whether its
/// variant is unsupported) for the check after the timed run.
#[derive(Default)]
struct Counts {
    games: u64,
    plies: u64,
    rows: u64,
    per_game: Vec<(String, u64, u32, bool)>,
}

/// Validates one batch and counts it.
fn flush(
    validator: &Validator,
    pending: &mut Vec<(&str, RawGame)>,
    options: ValidateOptions,
    counts: &mut Counts,
) {
    if pending.is_empty() {
        return;
    }
    let v = validator.validate(pending, options).expect("validate");
    counts.games += v.reports.len() as u64;
    counts.plies += v.reports.iter().map(|r| u64::from(r.plies)).sum::<u64>();
    counts.rows += v.ply_count() as u64;
    counts.per_game.extend(v.reports.iter().map(|r| {
        (
            r.file.clone(),
            r.game_index,
            r.plies,
            r.error_kind == Some(sqlchess::validate::ErrorKind::UnsupportedVariant),
        )
    }));
    pending.clear();
}

/// Validates everything once: counts and seconds.
fn run(
    validator: &Validator,
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
                flush(validator, &mut pending, options, &mut counts);
            }
        }
    }
    flush(validator, &mut pending, options, &mut counts);
    (counts, t0.elapsed().as_secs_f64())
}

/// python-chess's plies per game (`oracle/games.csv`, key: file relative to the shared data
/// directory, game_index) of the games under `pgn/` outside `pgn/variants/`.
fn oracle_plies(shared: &Path) -> std::collections::HashMap<(String, u64), u32> {
    let mut rdr = csv::Reader::from_path(shared.join("oracle/games.csv")).expect("games.csv");
    let head = rdr.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect(n);
    let (file, index, plies) = (col("file"), col("game_index"), col("plies"));
    rdr.records()
        .map(|r| r.expect("row"))
        .filter(|r| r[file].starts_with("pgn/") && !r[file].starts_with("pgn/variants/"))
        .map(|r| {
            (
                (r[file].to_string(), r[index].parse().expect("index")),
                r[plies].parse().expect("plies"),
            )
        })
        .collect()
}

/// The file of an input name relative to the shared data directory.
fn rel(name: &str) -> &str {
    name.rsplit_once("/shared/data/")
        .map_or(name, |(_, rel)| rel)
}

/// Checks a run's counts (outside the timed part): every game of the oracle validated once
/// per pass, each with python-chess's plies unless its variant is unsupported (so that the
/// figures stay right when more variants are supported). `order` gives the game that each
/// game index of the 1 GiB file is (none for ordinary runs: the report's file and index say).
fn check_counts(
    c: &Counts,
    oracle: &std::collections::HashMap<(String, u64), u32>,
    order: Option<&[(String, u64)]>,
) {
    let passes = c.games / oracle.len() as u64;
    assert!(passes >= 1, "{} games validated", c.games);
    assert_eq!(
        c.games,
        oracle.len() as u64 * passes,
        "games validated: whole passes"
    );
    assert_eq!(c.per_game.len() as u64, c.games);
    let mut want = 0u64;
    for (file, index, plies, unsupported) in &c.per_game {
        let key = match order {
            Some(o) => o[*index as usize % o.len()].clone(),
            None => (rel(file).to_string(), *index),
        };
        let p = *oracle
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not in games.csv"));
        if !unsupported {
            assert_eq!(*plies, p, "plies of {key:?}");
            want += u64::from(p);
        }
    }
    assert_eq!(c.plies, want, "plies validated");
    if c.rows > 0 {
        assert_eq!(c.rows, c.plies, "one ply row per legal ply");
    }
}

fn main() {
    let root = shared_data().join("pgn");
    if !root.is_dir() {
        println!(
            "validate bench: {} not found, nothing to measure",
            root.display()
        );
        return;
    }
    let runs = env_num("SQLCHESS_BENCH_RUNS", 3);
    let batch = env_num("SQLCHESS_BENCH_BATCH", 10_000);
    let threads = env_num(
        "SQLCHESS_BENCH_THREADS",
        PipelineConfig::default().target_partitions,
    );
    let options =
        ValidateOptions::with_plies(std::env::var("SQLCHESS_BENCH_PLIES").is_ok_and(|v| v == "1"));
    let paths = inputs(&root);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let validator = rt
        .block_on(Validator::new(threads, PipelineConfig::default()))
        .expect("validator");
    if std::env::var("SQLCHESS_BENCH_GIB").is_ok_and(|v| v == "1") {
        one_gib(&validator, &paths, batch, options);
        return;
    }
    println!(
        "validate bench: {} (variants left out), batch {batch}, {threads} pipeline(s), plies table {}, {runs} run(s)",
        root.display(),
        if options.plies { "on" } else { "off" }
    );
    let oracle = oracle_plies(&root.join(".."));
    assert_eq!(
        oracle.len(),
        5_560,
        "games under pgn/ but pgn/variants/ in games.csv"
    );
    let (mut games_s, mut plies_s, mut secs) = (vec![], vec![], vec![]);
    for i in 0..runs {
        let (c, t) = run(&validator, &paths, batch, options);
        check_counts(&c, &oracle, None);
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

/// The 1 GiB run: the shared standard PGN concatenated until the file reaches 1 GiB, then
/// validated once; prints the figures and the peak resident memory.
fn one_gib(validator: &Validator, paths: &[PathBuf], batch: usize, options: ValidateOptions) {
    const GIB: u64 = 1 << 30;
    let big = one_gib_file(paths);
    let size = std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0);
    println!(
        "validate bench: {} ({:.2} GiB), batch {batch}",
        big.display(),
        size as f64 / GIB as f64
    );
    let (c, t) = run(validator, &[big], batch, options);
    // the file holds whole passes over the inputs, in their order
    let oracle = oracle_plies(&paths[0].join("../.."));
    let mut order: Vec<(String, u64)> = vec![];
    for input in expand(paths).expect("inputs") {
        let file = rel(&input.name).to_string();
        let n = oracle.keys().filter(|(f, _)| *f == file).count() as u64;
        order.extend((0..n).map(|i| (file.clone(), i)));
    }
    check_counts(&c, &oracle, Some(&order));
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "1 GiB: {} games, {} plies, {t:.1} s: {:.1} games/s, {:.0} plies/s, peak RSS {peak}",
        c.games,
        c.plies,
        c.games as f64 / t,
        c.plies as f64 / t
    );
}
