//! Games back out as PGN: `read_pgn`'s `pgn` column (the games' text as read) written by
//! `sqlchess sql --format pgn` and by `COPY (…) TO 'x.pgn'`, then read back with
//! `read_pgn`: the same games (tags, moves and the rules' verdicts), and files that are
//! byte for byte the selected games' texts joined as pgn-extract writes them. Also the
//! errors of a query without a `pgn` column and of reading a table STORED AS PGN.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{query, scratch};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use sqlchess::sql;

/// The columns that must read back the same: tags, moves and the rules columns
/// (`error_message` without its `game N: ` prefix, which names the game's index in its
/// file).
const COMPARED: &str = "tags, moves, plies, first_illegal_ply, error_kind, \
     regexp_replace(error_message, '^game [0-9]+: ', '') AS error_message, final_fen, \
     final_status, result_consistent";

/// One batch of a query's rows.
async fn rows(ctx: &datafusion::prelude::SessionContext, q: &str) -> RecordBatch {
    let batches = query(ctx, q).await;
    let schema = ctx
        .sql(q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .schema()
        .inner()
        .clone();
    concat_batches(&schema, &batches).expect("concat")
}

/// Selects the games of `source` where `condition` (ordered by `order`, `limit` rows at
/// most: e.g. `LIMIT 100`), writes them with `sqlchess sql --format pgn --out` and with
/// `COPY … TO` into `dir`, checks that each file is the selected texts joined (one blank
/// line between two games, a line break after each) and that `read_pgn` reads the same
/// tags, moves and rules columns back, in order. Returns the written files and the number
/// of games.
pub(crate) async fn write_and_read_back(
    source: &str,
    condition: &str,
    limit: &str,
    dir: &Path,
) -> (Vec<std::path::PathBuf>, usize) {
    let ctx = sql::context();
    let selected = format!(
        "SELECT pgn FROM read_pgn('{source}') WHERE {condition} ORDER BY file, game_index {limit}"
    );
    let expected = rows(
        &ctx,
        &format!(
            "SELECT pgn, {COMPARED} FROM read_pgn('{source}') WHERE {condition} \
             ORDER BY file, game_index {limit}"
        ),
    )
    .await;
    let n = expected.num_rows();
    let texts: Vec<&str> = expected
        .column(0)
        .as_string::<i32>()
        .iter()
        .flatten()
        .collect();
    assert_eq!(texts.len(), n, "a pgn value for every game");
    let joined = format!("{}\n", texts.join("\n\n"));

    let cli = dir.join("cli.pgn");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(["sql", "--format", "pgn", "--out"])
        .arg(&cli)
        .arg(&selected)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sqlchess");
    assert!(
        out.status.success(),
        "sqlchess sql --format pgn: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let copy = dir.join("copy.pgn");
    let count = rows(&ctx, &format!("COPY ({selected}) TO '{}'", copy.display())).await;
    assert_eq!(
        count
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::UInt64Type>()
            .value(0),
        n as u64,
        "COPY's count: the games written"
    );

    for file in [&cli, &copy] {
        let written = std::fs::read(file).expect("written file");
        assert!(
            written == joined.as_bytes(),
            "{}: not the selected games' text joined",
            file.display()
        );
        let back = rows(
            &ctx,
            &format!(
                "SELECT {COMPARED} FROM read_pgn('{}') ORDER BY game_index",
                file.display()
            ),
        )
        .await;
        assert_eq!(back.num_rows(), n, "{}: games read back", file.display());
        for (i, field) in back.schema().fields().iter().enumerate() {
            assert_eq!(
                back.column(i).to_data(),
                expected.column(i + 1).to_data(),
                "{}: column {} read back",
                file.display(),
                field.name()
            );
        }
    }
    (vec![cli, copy], n)
}

#[tokio::test(flavor = "multi_thread")]
async fn selected_games_written_as_pgn_read_back_the_same() {
    let dir = scratch("pgn-out");
    // the wins of White in every file of tests/data/pgn (lichess games with clocks and
    // evaluations, the sample's Chess960 and variant games, illegal moves): 50 games
    let (_, n) = write_and_read_back("tests/data/pgn/*.pgn", "result = '1-0'", "", &dir).await;
    assert_eq!(n, 50);
}

#[tokio::test(flavor = "multi_thread")]
async fn crlf_and_windows_1252_games_written_as_read() {
    let dir = scratch("pgn-out-bytes");
    // CRLF line ends kept inside a game, no byte order mark; Windows-1252 games written
    // in UTF-8 (as decoded)
    let (files, n) = write_and_read_back(
        "tests/data/pgn/malformed",
        "file LIKE '%bom_crlf.pgn' OR file LIKE '%nonutf8%'",
        "",
        &dir,
    )
    .await;
    assert!(n >= 3, "{n} games");
    let text = std::fs::read_to_string(&files[0]).expect("utf-8");
    assert!(text.contains("\r\n"), "CRLF kept");
    assert!(!text.starts_with('\u{feff}'), "no byte order mark");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_query_without_a_pgn_column_is_an_error_naming_it() {
    let dir = scratch("pgn-out-errors");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(["sql", "--format", "pgn", "--out"])
        .arg(dir.join("x.pgn"))
        .arg("SELECT white, moves FROM read_pgn('tests/data/pgn/sample.pgn')")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sqlchess");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--format pgn: the query has no column pgn (its columns: white, moves)"),
        "{stderr}"
    );
    assert!(!dir.join("x.pgn").exists(), "no file written");

    let ctx = sql::context();
    let target = dir.join("y.pgn");
    let e = ctx
        .sql(&format!(
            "COPY (SELECT white FROM read_pgn('tests/data/pgn/sample.pgn')) TO '{}'",
            target.display()
        ))
        .await
        .expect("plans")
        .collect()
        .await
        .expect_err("no pgn column");
    assert!(
        e.to_string()
            .contains("the query has no column pgn (its columns: white)"),
        "{e}"
    );
    assert!(!target.exists());

    let e = ctx
        .sql("CREATE EXTERNAL TABLE t STORED AS PGN LOCATION 'tests/data/pgn/sample.pgn'")
        .await
        .expect_err("not read");
    assert!(
        e.to_string().contains("read them with read_pgn('path')"),
        "{e}"
    );

    let e = ctx
        .sql(&format!(
            "COPY (SELECT pgn FROM read_pgn('tests/data/pgn/sample.pgn')) TO '{}' \
             OPTIONS (level 3)",
            target.display()
        ))
        .await
        .expect("plans")
        .collect()
        .await
        .expect_err("an option");
    assert!(
        e.to_string().contains("the PGN format takes no options"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pgn_column_holds_tags_comments_and_variations() {
    let ctx = sql::context();
    let count = |q: &'static str| {
        let ctx = ctx.clone();
        async move {
            let n = rows(&ctx, q).await;
            n.column(0)
                .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                .value(0)
        }
    };
    // the Capablanca game of the sample, by its tag; the two with {comments}
    assert_eq!(
        count(
            "SELECT count(*) FROM read_pgn('tests/data/pgn/sample.pgn') \
             WHERE pgn LIKE '%[White \"Capablanca%'"
        )
        .await,
        1
    );
    assert_eq!(
        count("SELECT count(*) FROM read_pgn('tests/data/pgn/sample.pgn') WHERE pgn LIKE '%{%'")
            .await,
        2
    );
    // the scan keeps the games' text only when pgn is projected
    let plan = query(
        &ctx,
        "EXPLAIN SELECT white FROM read_pgn('tests/data/pgn/sample.pgn') WHERE pgn LIKE '%{%'",
    )
    .await;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&plan)
        .expect("plan")
        .to_string();
    assert!(text.contains("projection=[white, pgn]"), "{text}");
}
