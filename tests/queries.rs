//! The example queries `examples/queries/*.sql`, run on their fixed inputs
//! (`tests/data/pgn/queries.pgn`; the six pattern queries `tests/data/pgn/patterns.pgn`)
//! through `sqlchess::sql::context()`. Each query's rows must equal
//! `examples/queries/expected/<name>.csv`, computed by python-chess 1.11.2
//! (`examples/queries/make_expected.py`, `make_patterns_expected.py`); the seed 002 query's
//! selection is worked out by hand in its comment.

use std::path::{Path, PathBuf};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use sqlchess::sql;

fn queries_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/queries")
}

/// Runs the statements of a file (separated by `;` at a line end) and returns the rows of
/// the last, every cell as text (NULL as the empty string).
async fn run_file(ctx: &SessionContext, path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("query file");
    let statements: Vec<&str> = text
        .split(";\n")
        .map(str::trim)
        .filter(|s| {
            s.lines()
                .any(|l| !l.trim().is_empty() && !l.trim().starts_with("--"))
        })
        .collect();
    let mut last: Vec<RecordBatch> = vec![];
    for s in statements {
        last = ctx
            .sql(s)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .collect()
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let mut rows = vec![];
    for b in &last {
        let cols: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).expect("fmt"))
            .collect();
        for i in 0..b.num_rows() {
            rows.push(cols.iter().map(|c| c.value(i).to_string()).collect());
        }
    }
    rows
}

fn expected(name: &str) -> Vec<Vec<String>> {
    let path = queries_dir().join("expected").join(format!("{name}.csv"));
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    reader
        .records()
        .map(|r| r.expect("csv row").iter().map(String::from).collect())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn example_queries_match_python_chess() {
    // the queries name their input relative to the repository root
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd");
    let mut names: Vec<String> = std::fs::read_dir(queries_dir())
        .expect("examples/queries")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".sql").map(String::from)
        })
        .filter(|n| n != "seed002_sum10")
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    let ctx = sql::context();
    let mut nonempty = 0;
    for name in &names {
        let got = run_file(&ctx, &queries_dir().join(format!("{name}.sql"))).await;
        let want = expected(name);
        assert_eq!(got, want, "examples/queries/{name}.sql");
        nonempty += usize::from(!want.is_empty());
    }
    assert_eq!(nonempty, names.len(), "every query returns rows");
}

/// Seed 002's recursive direction-offset walk on DataFusion's `WITH RECURSIVE`: the blocks
/// summing to 10, worked out by hand in the query's comment.
#[tokio::test(flavor = "multi_thread")]
async fn seed002_selects_the_blocks_summing_to_10() {
    let ctx = sql::context();
    let got = run_file(&ctx, &queries_dir().join("seed002_sum10.sql")).await;
    // origin_row, origin_col, angle, erow, ecol, num
    let want = [
        ["0", "1", "0", "0", "1", "5"],
        ["0", "1", "1", "0", "2", "5"],
        ["1", "0", "0", "1", "0", "5"],
        ["1", "0", "4", "0", "1", "5"],
    ];
    assert_eq!(got, want);
}
