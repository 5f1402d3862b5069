//! The position functions of issue 34 against python-chess, and the collection searches as
//! Scoutfish users run them.
//!
//! 1. Each function over the first 10,000 positions of
//!    `tests/data/position_queries_oracle.tsv.gz`, in-process: the FENs registered once as a
//!    `MemTable` `t(fen)` in [`sqlchess::sql::context`], one partition per core as DataFusion
//!    reads a file (python-chess runs on one core), then a query that computes every
//!    value (`sum(cardinality(attacks(fen)))`, `count(*) FILTER (WHERE …)`,
//!    `count(DISTINCT imbalance(fen))`), timed run by run. Next to it python-chess
//!    (`benches/python/position_queries.py`) does the same per board, `chess.Board(fen)`
//!    included, timed inside the script (interpreter start and file reading left out). The
//!    two take turns run by run (python-chess first, all functions, then ours); one round of
//!    our queries before the first run is not counted (the engines are made then). Each
//!    query's answer must equal python-chess's. Printed per function: the median
//!    positions/s of each, the ratio, against the target of 5×.
//! 2. `sqlchess sql "SELECT count(*) FROM read_plies(<shared standard PGN>)"`, alone and
//!    `WHERE matches_subfen(fen_after, …)` and `WHERE imbalance(fen_after) = 'Pv'`, as whole
//!    processes of this build's binary, taking turns run by run. Printed: the median wall
//!    time, plies read per second and the speed against `read_plies` alone (target ≥ 0.5).
//!    Left out when `SQLCHESS_SHARED_DATA`'s `pgn` directory is not there.
//!
//! Environment: `SQLCHESS_BENCH_RUNS` (runs, default 5), `SQLCHESS_BENCH_PARTITIONS` (the
//! table's partitions, default: the cores), `SQLCHESS_PYTHON` (a python with
//! python-chess, default `python3`; without it part 1 prints our figures alone),
//! `SQLCHESS_SHARED_DATA` (default `../shared/data`). Arguments: substrings of function
//! names, to run only those functions, and `read_plies` for the collection searches
//! (`cargo bench --bench position_queries -- attacks read_plies`); none: everything.

mod common;
use common::{
    ORACLE, env_num, measure, median, oracle_fens, printed_number, python_chess, script,
    shared_data, standard_pgn_glob, strings,
};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

/// The positions each function is timed over.
const POSITIONS: usize = 10_000;
/// The `matches_subfen` pattern: White castled short behind f2, g2, h2.
const SUBFEN: &str = "8/8/8/8/8/8/5PPP/6K1";
/// The `material_matches` pattern (pgn-extract `-z`): queens and rooks even, one side a minor
/// piece up, any pawns. `benches/python/position_queries.py` hard-codes its logic.
const MATERIAL: &str = "q*r*l*p* q=r=l1<=p*";

/// The functions, each with its query over `t(fen)` (one number: the answer the python-chess
/// script prints for it).
fn functions() -> Vec<(&'static str, String)> {
    let total = |f: &str| format!("SELECT sum(cardinality({f}(fen))) FROM t");
    vec![
        ("attacks", total("attacks")),
        ("pins", total("pins")),
        ("checkers", total("checkers")),
        ("hanging", total("hanging")),
        (
            "matches_subfen",
            format!("SELECT count(*) FILTER (WHERE matches_subfen(fen, '{SUBFEN}')) FROM t"),
        ),
        (
            "imbalance",
            "SELECT count(DISTINCT imbalance(fen)) FROM t".into(),
        ),
        (
            "material_matches",
            format!("SELECT count(*) FILTER (WHERE material_matches(fen, '{MATERIAL}')) FROM t"),
        ),
    ]
}

/// The number a one-row, one-column answer holds.
fn answer(batches: &[RecordBatch]) -> i64 {
    let b = batches.iter().find(|b| b.num_rows() > 0).expect("one row");
    let v = cast(b.column(0), &DataType::Int64).expect("a number");
    let v = v.as_any().downcast_ref::<Int64Array>().expect("Int64");
    assert!(!v.is_null(0), "a NULL answer");
    v.value(0)
}

/// Runs `query` to the end: its wall seconds and its answer.
async fn time(ctx: &SessionContext, query: &str) -> (f64, i64) {
    let start = Instant::now();
    let batches = match ctx.sql(query).await {
        Ok(df) => df.collect().await,
        Err(e) => Err(e),
    }
    .unwrap_or_else(|e| panic!("{query}: {e}"));
    (start.elapsed().as_secs_f64(), answer(&batches))
}

/// One run of the python-chess script: per function, its seconds and answer.
fn python_run(python: &Path) -> HashMap<String, (f64, i64)> {
    let args = vec![
        script("position_queries.py"),
        ORACLE.to_string(),
        POSITIONS.to_string(),
        SUBFEN.to_string(),
        MATERIAL.to_string(),
    ];
    let out = measure(python, &args).stdout;
    out.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next()?.to_string();
            let seconds = f.next()?.parse().ok()?;
            let answer = f.next()?.parse().ok()?;
            Some((name, (seconds, answer)))
        })
        .collect()
}

/// Part 1: the functions `selected` keeps, each against python-chess.
fn functions_against_python(runs: usize, selected: impl Fn(&str) -> bool) {
    let fens = oracle_fens(POSITIONS);
    assert_eq!(fens.len(), POSITIONS, "oracle positions");
    let n = fens.len() as f64;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let ctx = sqlchess::sql::context();
    let schema = Arc::new(Schema::new(vec![Field::new("fen", DataType::Utf8, false)]));
    // one partition per core, as DataFusion reads a file of FENs (python-chess runs on one)
    let cores = env_num(
        "SQLCHESS_BENCH_PARTITIONS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )
    .max(1);
    let partitions: Vec<Vec<RecordBatch>> = fens
        .chunks(fens.len().div_ceil(cores))
        .map(|part| {
            let column = StringArray::from(part.to_vec());
            vec![RecordBatch::try_new(schema.clone(), vec![Arc::new(column)]).expect("batch")]
        })
        .collect();
    ctx.register_table(
        "t",
        Arc::new(MemTable::try_new(schema, partitions).expect("table")),
    )
    .expect("register t");
    let functions: Vec<(&str, String)> = functions()
        .into_iter()
        .filter(|(name, _)| selected(name))
        .collect();
    if functions.is_empty() {
        return;
    }
    let python = python_chess();
    if python.is_none() {
        println!(
            "position_queries: no python with python-chess (SQLCHESS_PYTHON, pip install chess): our figures alone"
        );
    }
    // not counted: the first query of each function makes its engines
    let expected: Vec<i64> = functions
        .iter()
        .map(|(_, q)| rt.block_on(time(&ctx, q)).1)
        .collect();
    let mut ours: Vec<Vec<f64>> = vec![vec![]; functions.len()];
    let mut theirs: Vec<Vec<f64>> = vec![vec![]; functions.len()];
    for _ in 0..runs {
        if let Some(python) = &python {
            let run = python_run(python);
            for (i, (name, _)) in functions.iter().enumerate() {
                let &(seconds, answer) = run
                    .get(*name)
                    .unwrap_or_else(|| panic!("python-chess printed no line for {name}"));
                assert_eq!(
                    answer, expected[i],
                    "{name}: python-chess's answer against ours"
                );
                theirs[i].push(seconds);
            }
        }
        for (i, (name, query)) in functions.iter().enumerate() {
            let (seconds, answer) = rt.block_on(time(&ctx, query));
            assert_eq!(answer, expected[i], "{name}: an answer that changed");
            ours[i].push(seconds);
        }
    }
    println!(
        "position functions, {POSITIONS} oracle positions, medians of {runs} run(s), python-chess {}:",
        if python.is_some() {
            "in the same run, by turns"
        } else {
            "not run"
        }
    );
    println!(
        "{:<18} {:>14} {:>16} {:>8}  {:>8}  {:<7}  answer",
        "function", "ours pos/s", "python pos/s", "ratio", "target", "met"
    );
    for (i, (name, _)) in functions.iter().enumerate() {
        let us = n / median(ours[i].clone());
        let (them, ratio, met) = if theirs[i].is_empty() {
            ("-".to_string(), "-".to_string(), "-")
        } else {
            let them = n / median(theirs[i].clone());
            (
                format!("{them:.0}"),
                format!("{:.2}×", us / them),
                if us >= 5.0 * them { "met" } else { "not met" },
            )
        };
        println!(
            "{name:<18} {us:>14.0} {them:>16} {ratio:>8}  {:>8}  {met:<7}  {}",
            "≥ 5×", expected[i]
        );
    }
}

/// Part 2: the collection searches against `read_plies` alone, as whole processes.
fn collection_searches(runs: usize) {
    let pgn = shared_data().join("pgn");
    if !pgn.is_dir() {
        println!(
            "position_queries: {} not found: the collection searches are left out",
            pgn.display()
        );
        return;
    }
    let sqlchess = PathBuf::from(env!("CARGO_BIN_EXE_sqlchess"));
    let from = format!("FROM read_plies('{}')", standard_pgn_glob(&pgn));
    let rows: Vec<(String, Vec<String>)> = [
        ("read_plies alone".to_string(), String::new()),
        (
            format!("WHERE matches_subfen(fen_after, '{SUBFEN}')"),
            format!(" WHERE matches_subfen(fen_after, '{SUBFEN}')"),
        ),
        (
            "WHERE imbalance(fen_after) = 'Pv'".to_string(),
            " WHERE imbalance(fen_after) = 'Pv'".to_string(),
        ),
    ]
    .into_iter()
    .map(|(name, filter)| {
        let query = format!("SELECT count(*) {from}{filter}");
        (name, strings(&["sql", &query, "--format", "csv"]))
    })
    .collect();
    // one run not counted: the first start of a freshly built binary reads it from disk
    measure(&sqlchess, &rows[0].1);
    let mut walls: Vec<Vec<f64>> = vec![vec![]; rows.len()];
    let mut counts: Vec<f64> = vec![0.0; rows.len()];
    let mut peaks: Vec<f64> = vec![0.0; rows.len()];
    for _ in 0..runs {
        for (i, (name, args)) in rows.iter().enumerate() {
            let m = measure(&sqlchess, args);
            walls[i].push(m.wall);
            peaks[i] = peaks[i].max(m.peak_mib);
            counts[i] = printed_number(&m.stdout)
                .unwrap_or_else(|| panic!("{name}: no count in {:?}", m.stdout));
        }
    }
    let plies = counts[0];
    assert!(plies > 0.0, "read_plies read no plies");
    let base = median(walls[0].clone());
    println!(
        "collection search, shared standard PGN ({plies:.0} plies), whole processes, medians of {runs} run(s), by turns:"
    );
    for (i, (name, _)) in rows.iter().enumerate() {
        assert!(counts[i] <= plies, "{name}: more rows than plies");
        let wall = median(walls[i].clone());
        let mut line = format!(
            "{name}: {wall:.3} s, peak {:.0} MiB, {:.0} plies/s, {:.0} rows",
            peaks[i],
            plies / wall,
            counts[i]
        );
        if i > 0 {
            let ratio = base / wall;
            line += &format!(
                "; {ratio:.2}× read_plies alone's speed; target ≥ 0.5: {}",
                if ratio >= 0.5 { "met" } else { "not met" }
            );
        }
        println!("{line}");
    }
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let selected = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    let runs = env_num("SQLCHESS_BENCH_RUNS", 5);
    functions_against_python(runs, selected);
    if selected("read_plies") {
        collection_searches(runs);
    }
}
