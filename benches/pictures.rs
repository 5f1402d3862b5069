//! Pictures (issue 36): how fast `board_svg` draws boards, and how long and large the result
//! page of 10,000 rows with boards is.
//!
//! 1. `SELECT sum(length(board_svg(fen))) FROM t` over the first 10,000 positions of
//!    `tests/data/position_queries_oracle.tsv.gz`, the FENs registered once as a `MemTable` in
//!    [`sqlchess::sql::context`] (one partition per core), timed run by run after one run
//!    that is not counted (the engines are made then). Beside it the drawing alone: the
//!    library's [`board_svg`] over the parsed positions, no `checkers` stage. Printed: the
//!    median boards/s of each, against the target of 10,000 boards/s.
//! 2. The page: `sqlchess sql -f page.sql --out page.html`, a whole process of this build's
//!    binary, over the same positions read from a CSV file (`SELECT row_number, fen`).
//!    Printed: the median wall time and peak resident memory, and the page's size, against
//!    the targets of 1 s and 50 MB.
//!
//! Environment: `SQLCHESS_BENCH_RUNS` (runs, default 5).

mod common;
use common::{env_num, measure, median, oracle_fens};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use sqlchess::Setup;
use sqlchess::picture::board::{BoardOptions, Defs, board_svg};

/// The positions drawn.
const POSITIONS: usize = 10_000;

fn main() {
    let runs = env_num("SQLCHESS_BENCH_RUNS", 5).max(1);
    let positions = oracle_fens(POSITIONS);
    let n = positions.len();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "pictures: {n} positions, {runs} runs, load average {}",
        load.trim()
    );

    // 1. board_svg in SQL, and the drawing alone
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let ctx = sqlchess::sql::context();
    let parts = std::thread::available_parallelism().map_or(2, |c| c.get());
    let schema = Arc::new(Schema::new(vec![Field::new("fen", DataType::Utf8, false)]));
    let chunks: Vec<Vec<RecordBatch>> = positions
        .chunks(n.div_ceil(parts).max(1))
        .map(|c| {
            let fens: StringArray = c.iter().map(|f| Some(f.as_str())).collect();
            vec![RecordBatch::try_new(schema.clone(), vec![Arc::new(fens)]).expect("batch")]
        })
        .collect();
    let table = MemTable::try_new(schema, chunks).expect("table");
    ctx.register_table("t", Arc::new(table)).expect("register");
    let sql = "SELECT sum(length(board_svg(fen))) FROM t";
    let run_sql = || {
        rt.block_on(async {
            let b = ctx
                .sql(sql)
                .await
                .expect("plan")
                .collect()
                .await
                .expect("run");
            let col = b[0].column(0);
            col.as_any()
                .downcast_ref::<Int64Array>()
                .map_or(0, |a| a.value(0))
        })
    };
    let bytes = run_sql();
    let setups: Vec<Setup> = positions
        .iter()
        .map(|f| Setup::from_fen_auto(f).expect("oracle FEN"))
        .collect();
    let options = BoardOptions::default();
    let (mut in_sql, mut drawing) = (vec![], vec![]);
    for _ in 0..runs {
        let t = Instant::now();
        assert_eq!(run_sql(), bytes);
        in_sql.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let drawn: usize = setups
            .iter()
            .map(|s| board_svg(s, &options, false, Defs::Own).len())
            .sum();
        drawing.push(t.elapsed().as_secs_f64());
        assert!(drawn > 0);
    }
    let rate = |t: f64| n as f64 / t;
    println!(
        "board_svg in SQL: median {:.3} s, {:.0} boards/s (target 10,000), {:.1} kB a board",
        median(in_sql.clone()),
        rate(median(in_sql)),
        bytes as f64 / n as f64 / 1000.0
    );
    println!(
        "the drawing alone (no checkers stage, one core): median {:.3} s, {:.0} boards/s",
        median(drawing.clone()),
        rate(median(drawing))
    );

    // 2. the result page of 10,000 rows, a whole process
    let dir = tempfile::tempdir().expect("temporary folder");
    let csv = dir.path().join("positions.csv");
    let mut text = String::from("row_number,fen\n");
    for (i, f) in positions.iter().enumerate() {
        text.push_str(&format!("{i},\"{f}\"\n"));
    }
    std::fs::write(&csv, text).expect("csv");
    let query = dir.path().join("page.sql");
    std::fs::write(
        &query,
        format!(
            "CREATE EXTERNAL TABLE p STORED AS CSV LOCATION '{}' OPTIONS ('format.has_header' \
             'true');\nSELECT row_number, fen FROM p ORDER BY row_number;",
            csv.display()
        ),
    )
    .expect("sql");
    let page = dir.path().join("page.html");
    let sqlchess = PathBuf::from(env!("CARGO_BIN_EXE_sqlchess"));
    let args: Vec<String> = [
        "sql",
        "-f",
        query.to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (mut wall, mut peak) = (vec![], vec![]);
    for _ in 0..runs {
        let m = measure(&sqlchess, &args);
        wall.push(m.wall);
        peak.push(m.peak_mib);
    }
    let size = std::fs::metadata(&page).map_or(0, |m| m.len());
    let html = std::fs::read_to_string(&page).unwrap_or_default();
    assert_eq!(
        html.matches("<div class=\"board\">").count(),
        n,
        "a board per row"
    );
    println!(
        "result page of {n} rows with boards (sqlchess sql --out page.html, whole process): \
         median {:.3} s (target < 1 s), peak {:.0} MiB, page {:.1} MB (target < 50 MB)",
        median(wall),
        median(peak),
        size as f64 / 1e6
    );
}
