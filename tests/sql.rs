//! The SQL interface (`sqlchess::sql`): `read_pgn` over files, directories, globs and
//! compressed files, projection pushdown (tag-only queries do not run the rules), bad games
//! as rows. Expected values come from python-chess (`tests/data/sample_oracle.csv`) and from
//! the fault descriptions of `shared/data/bad/malformed.csv`.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use common::data;
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::SessionContext;
use sqlchess::sql::{self, PgnScanExec};

async fn query(ctx: &SessionContext, q: &str) -> Vec<RecordBatch> {
    ctx.sql(q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// The text of every cell, row by row (NULL as "NULL").
fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out = vec![];
    for b in batches {
        let cols: Vec<_> = b
            .columns()
            .iter()
            .map(|c| {
                datafusion::arrow::util::display::ArrayFormatter::try_new(
                    c.as_ref(),
                    &datafusion::arrow::util::display::FormatOptions::default().with_null("NULL"),
                )
                .expect("formatter")
            })
            .collect();
        for i in 0..b.num_rows() {
            out.push(cols.iter().map(|c| c.value(i).to_string()).collect());
        }
    }
    out
}

fn sample() -> String {
    data("pgn/sample.pgn").display().to_string()
}

/// A fresh directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sqlchess-sql-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The `read_pgn` scans of a physical plan.
fn scans(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<Arc<dyn ExecutionPlan>>) {
    if plan.downcast_ref::<PgnScanExec>().is_some() {
        out.push(plan.clone());
    }
    for c in plan.children() {
        scans(c, out);
    }
}

/// The physical plan of `q` and its one `read_pgn` / `read_plies` scan.
async fn plan_and_scan(
    ctx: &SessionContext,
    q: &str,
) -> (Arc<dyn ExecutionPlan>, Arc<dyn ExecutionPlan>) {
    let plan = ctx
        .sql(q)
        .await
        .expect("plan")
        .create_physical_plan()
        .await
        .expect("physical plan");
    let mut found = vec![];
    scans(&plan, &mut found);
    assert_eq!(found.len(), 1, "one scan in {q}");
    let scan = found.remove(0);
    (plan, scan)
}

/// Runs `q` and returns its rows and, from its `read_pgn` scan, (runs the rules, games
/// read, games validated).
async fn run_with_scan(ctx: &SessionContext, q: &str) -> (Vec<Vec<String>>, bool, usize, usize) {
    let (plan, found) = plan_and_scan(ctx, q).await;
    let batches = collect(plan, ctx.task_ctx()).await.expect("run");
    let scan = found.downcast_ref::<PgnScanExec>().expect("scan");
    let m = found.metrics().expect("metrics");
    let count = |n: &str| m.sum_by_name(n).map(|v| v.as_usize()).unwrap_or(0);
    (
        rows(&batches),
        scan.runs_rules(),
        count("games"),
        count("rules_games"),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_columns_match_python_chess_on_the_sample() {
    let ctx = sql::context();
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT game_index, plies, first_illegal_ply, final_fen, final_status, result \
                 FROM read_pgn('{}') ORDER BY game_index",
                sample()
            ),
        )
        .await,
    );
    let text = std::fs::read_to_string(data("sample_oracle.csv")).expect("oracle");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect(n);
    let want: Vec<Vec<String>> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let cell = |n: &str| match f[col(n)] {
                "" => "NULL".to_string(),
                v => v.to_string(),
            };
            if !["standard", "chess960"].contains(&cell("variant").as_str()) {
                // validate (and so read_pgn) reports other variants as unsupported
                return vec![
                    cell("game_index"),
                    "0".into(),
                    "0".into(),
                    "NULL".into(),
                    "NULL".into(),
                    cell("result"),
                ];
            }
            vec![
                cell("game_index"),
                cell("plies"),
                cell("first_illegal_ply"),
                cell("final_fen"),
                cell("final_status"),
                cell("result"),
            ]
        })
        .collect();
    assert_eq!(got.len(), 20);
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn tag_only_queries_do_not_run_the_rules() {
    let ctx = sql::context();
    let q = format!(
        "SELECT count(*), count(DISTINCT white), min(white_elo) FROM read_pgn('{}')",
        sample()
    );
    let (got, rules, games, validated) = run_with_scan(&ctx, &q).await;
    assert!(!rules, "a tag-only scan runs no rules");
    assert_eq!((games, validated), (20, 0));
    assert_eq!(got[0][0], "20");
    // the same file with a rules column: every game validated once
    let q = format!(
        "SELECT final_status, count(*) FROM read_pgn('{}') GROUP BY 1",
        sample()
    );
    let (_, rules, games, validated) = run_with_scan(&ctx, &q).await;
    assert!(rules);
    assert_eq!((games, validated), (20, 20));
    let plan = rows(
        &query(
            &ctx,
            &format!("EXPLAIN SELECT white FROM read_pgn('{}')", sample()),
        )
        .await,
    );
    let text = format!("{plan:?}");
    assert!(
        text.contains("PgnScanExec: files=1, rules=false, projection=[white]"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tags_elo_and_moves() {
    let ctx = sql::context();
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT event, white, black, date, result, \
                 white_elo IS NULL, eco IS NULL \
                 FROM read_pgn('{}') WHERE game_index = 0",
                sample()
            ),
        )
        .await,
    );
    // the first game of the file, as written in it
    assert_eq!(
        got,
        vec![vec![
            "32nd ol",
            "Gostisa,L",
            "Petrosian,A",
            "1996.09.17",
            "1/2-1/2",
            "true",
            "true"
        ]]
    );
    // elo columns: integers when the tag is one
    let dir = temp_dir("elo");
    let f = dir.join("elo.pgn");
    std::fs::write(
        &f,
        "[White \"a\"]\n[WhiteElo \"2710\"]\n[BlackElo \"?\"]\n[ECO \"C20\"]\n\n1. e4 e5 *\n",
    )
    .expect("write");
    // the main line's tokens as written
    let b = query(
        &ctx,
        &format!(
            "SELECT moves FROM read_pgn('{}') WHERE game_index = 0",
            sample()
        ),
    )
    .await;
    let list = b[0].column(0).as_list::<i32>().value(0);
    let tokens: Vec<&str> = list.as_string::<i32>().iter().flatten().collect();
    assert_eq!(tokens.len(), 24);
    assert_eq!(&tokens[..4], ["d4", "Nf6", "Nf3", "e6"]);
    assert_eq!(tokens[23], "Qb8");
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT white_elo, black_elo, eco, tags, event FROM read_pgn('{}')",
                f.display()
            ),
        )
        .await,
    );
    assert_eq!(
        got,
        vec![vec![
            "2710",
            "NULL",
            "C20",
            "{White: a, WhiteElo: 2710, BlackElo: ?, ECO: C20}",
            "NULL"
        ]]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn globs_directories_zstd_and_several_files() {
    let dir = temp_dir("files");
    let text = std::fs::read(data("pgn/sample.pgn")).expect("sample");
    std::fs::write(dir.join("a.pgn"), &text).expect("write");
    std::fs::create_dir_all(dir.join("sub")).expect("sub");
    std::fs::write(dir.join("sub/b.pgn"), &text).expect("write");
    std::fs::write(
        dir.join("c.pgn.zst"),
        zstd::encode_all(text.as_slice(), 3).expect("zstd"),
    )
    .expect("write");
    std::fs::write(dir.join("notes.txt"), "not pgn").expect("write");
    let ctx = sql::context();
    let count = |q: String| {
        let ctx = ctx.clone();
        async move {
            let b = query(&ctx, &q).await;
            b[0].column(0).as_primitive::<Int64Type>().value(0)
        }
    };
    // a directory: every PGN file below it (3 files)
    let d = dir.display();
    assert_eq!(
        count(format!("SELECT count(*) FROM read_pgn('{d}')")).await,
        60
    );
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT regexp_replace(file, '^.*/', ''), count(*), sum(plies), \
                 count(DISTINCT final_fen) FROM read_pgn('{d}') GROUP BY 1 ORDER BY 1"
            ),
        )
        .await,
    );
    let plies: u64 = std::fs::read_to_string(data("sample_oracle.csv"))
        .expect("oracle")
        .lines()
        .skip(1)
        .filter(|l| matches!(l.split(',').nth(1), Some("standard" | "chess960")))
        .map(|l| {
            l.split(',')
                .nth(2)
                .expect("plies")
                .parse::<u64>()
                .expect("n")
        })
        .sum();
    let (a, b) = (got[0][2].clone(), plies.to_string());
    assert_eq!(a, b);
    let names: Vec<&str> = got.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["a.pgn", "b.pgn", "c.pgn.zst"]);
    assert!(
        got.iter()
            .all(|r| r[1] == "20" && r[2] == b && r[3] == got[0][3])
    );
    // a glob
    assert_eq!(
        count(format!("SELECT count(*) FROM read_pgn('{d}/*.pgn*')")).await,
        40
    );
    assert_eq!(
        count(format!("SELECT count(*) FROM read_pgn('{d}/*/*.pgn')")).await,
        20
    );
    // the zstd file alone gives the plain file's rows
    let same = rows(
        &query(
            &ctx,
            &format!(
                "SELECT count(*) FROM read_pgn('{d}/a.pgn') x JOIN read_pgn('{d}/c.pgn.zst') y \
                 ON x.game_index = y.game_index AND coalesce(x.final_fen, '-') = coalesce(y.final_fen, '-') AND x.moves = y.moves"
            ),
        )
        .await,
    );
    assert_eq!(same, vec![vec!["20"]]);
    // errors at planning time, naming the function and what it got
    for f in ["read_pgn", "read_plies"] {
        for (arg, want) in [
            (format!("'{d}/missing.pgn'"), "missing.pgn"),
            (format!("'{d}/*.nothing'"), "no file matches"),
            (
                "1".to_string(),
                "one string literal (a file, a directory or a glob), got 1 argument(s): Int64(1)",
            ),
        ] {
            let err = ctx
                .sql(&format!("SELECT count(*) FROM {f}({arg})"))
                .await
                .expect_err(&arg)
                .to_string();
            assert!(err.contains(want), "{f}({arg}): {err}");
            assert!(err.contains(&format!("{f}: ")), "{f}({arg}): {err}");
        }
    }
    let err = ctx
        .sql("SELECT count(*) FROM legal_moves(1)")
        .await
        .expect_err("legal_moves(1)")
        .to_string();
    assert!(
        err.contains(
            "legal_moves: expects one string literal (a FEN), got 1 argument(s): Int64(1)"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_games_are_rows_with_their_error() {
    let ctx = sql::context();
    let dir = data("pgn/malformed").display().to_string();
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT regexp_replace(file, '^.*/', ''), game_index, plies, first_illegal_ply, \
                 error_kind FROM read_pgn('{dir}') \
                 WHERE file LIKE '%fen_no_black_king.pgn' OR file LIKE '%close_paren_after_illegal_move.pgn' \
                 ORDER BY 1, 2"
            ),
        )
        .await,
    );
    // shared/data/bad/malformed.csv: games 0 and 2 validate (58 and 60 plies; 70 and 59),
    // game 1 has its first illegal ply at 33 ('Ba1') / is a set-up error (ply 0)
    assert_eq!(
        got,
        vec![
            vec![
                "close_paren_after_illegal_move.pgn",
                "0",
                "58",
                "NULL",
                "NULL"
            ],
            vec![
                "close_paren_after_illegal_move.pgn",
                "1",
                "32",
                "33",
                "illegal_move"
            ],
            vec![
                "close_paren_after_illegal_move.pgn",
                "2",
                "60",
                "NULL",
                "NULL"
            ],
            vec!["fen_no_black_king.pgn", "0", "70", "NULL", "NULL"],
            vec!["fen_no_black_king.pgn", "1", "0", "0", "setup"],
            vec!["fen_no_black_king.pgn", "2", "59", "NULL", "NULL"],
        ]
    );
    // the whole directory (binary blobs, broken tags, bad FENs) gives one row per game
    let all = query(
        &ctx,
        &format!("SELECT count(*), count(error_kind), sum(plies) FROM read_pgn('{dir}')"),
    )
    .await;
    let b = &all[0];
    assert!(b.column(0).as_primitive::<Int64Type>().value(0) > 50);
    assert!(b.column(1).as_primitive::<Int64Type>().value(0) > 10);
    assert!(!b.column(2).is_null(0));
}

/// `sqlchess sql` with `args` and `stdin`: (exit code, stdout, stderr).
fn cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .arg("sql")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sqlchess");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_statements_formats_copy_and_errors() {
    let dir = temp_dir("cli");
    let s = sample();
    // a table by default
    let (code, out, _) = cli(
        &[&format!(
            "SELECT final_status, count(*) AS n FROM read_pgn('{s}') \
             WHERE final_status IN ('checkmate', 'stalemate') GROUP BY 1 ORDER BY 1"
        )],
        "",
    );
    assert_eq!(code, 0);
    assert!(out.contains("| checkmate    | 3 |"), "{out}");
    assert!(out.contains("| stalemate    | 1 |"), "{out}");
    // several statements from a file: a view, a table, COPY to Parquet; the last one as CSV
    let parquet = dir.join("white.parquet");
    let script = dir.join("q.sql");
    std::fs::write(
        &script,
        format!(
            "CREATE VIEW g AS SELECT * FROM read_pgn('{s}');\n\
             CREATE TABLE wins AS SELECT white FROM g WHERE result = '1-0';\n\
             COPY (SELECT white, plies FROM g ORDER BY game_index) TO '{}';\n\
             SELECT count(*) AS n FROM wins;\n",
            parquet.display()
        ),
    )
    .expect("write");
    let (code, out, err) = cli(
        &["-f", &script.display().to_string(), "--format", "csv"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    // results: python-chess oracle's result column has eight 1-0 games
    let oracle = std::fs::read_to_string(data("sample_oracle.csv")).expect("oracle");
    let wins = oracle.lines().filter(|l| l.ends_with(",1-0")).count();
    assert_eq!(out, format!("n\n{wins}\n"));
    let file = std::fs::File::open(&parquet).expect("parquet written");
    let rows: usize = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("parquet")
        .build()
        .expect("reader")
        .map(|b| b.expect("batch").num_rows())
        .sum();
    assert_eq!(rows, 20);
    // the query from standard input
    let (code, out, _) = cli(
        &["--format", "json"],
        &format!("SELECT count(*) AS n FROM read_pgn('{s}')"),
    );
    assert_eq!((code, out.trim()), (0, "{\"n\":20}"));
    // no hint on stderr when standard input is not a terminal
    let (_, _, err) = cli(&[], "SELECT 1 AS one");
    assert_eq!(err, "");
    // CSV: the map and list columns as JSON text (the first game of the file)
    let (code, out, err) = cli(
        &[
            &format!(
                "SELECT game_index, tags, moves[1:4] AS first_moves FROM read_pgn('{s}') \
                 WHERE game_index = 0"
            ),
            "--format",
            "csv",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "game_index,tags,first_moves\n\
         0,\"{\"\"Event\"\":\"\"32nd ol\"\",\"\"Site\"\":\"\"Yerevan ARM\"\",\
         \"\"Date\"\":\"\"1996.09.17\"\",\"\"Round\"\":\"\"02\"\",\"\"White\"\":\"\"Gostisa,L\"\",\
         \"\"Black\"\":\"\"Petrosian,A\"\",\"\"Result\"\":\"\"1/2-1/2\"\"}\",\
         \"[\"\"d4\"\",\"\"Nf6\"\",\"\"Nf3\"\",\"\"e6\"\"]\"\n"
    );
    // a bad query: exit 2 with the SQL error
    let (code, _, err) = cli(&["SELEC 1"], "");
    assert_eq!(code, 2);
    assert!(err.contains("SELEC"), "{err}");
    let (code, _, err) = cli(&["SELECT nope FROM read_pgn('/no/such/file.pgn')"], "");
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/file.pgn"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rows of a tab-separated oracle file of `tests/data` (header skipped), by column name.
fn tsv(name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(data(name)).expect(name);
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("header")
        .split('\t')
        .map(String::from)
        .collect();
    let rows = lines
        .map(|l| l.split('\t').map(String::from).collect())
        .collect();
    (header, rows)
}

/// A table of string columns (`Utf8View` when `view`), `partitions` partitions.
fn string_table(
    ctx: &SessionContext,
    name: &str,
    columns: &[(&str, Vec<Option<String>>)],
    view: bool,
    partitions: usize,
) {
    use datafusion::arrow::array::{ArrayRef, StringArray, StringViewArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let t = if view {
        DataType::Utf8View
    } else {
        DataType::Utf8
    };
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, _)| Field::new(*n, t.clone(), true))
            .collect::<Vec<_>>(),
    ));
    let n = columns[0].1.len();
    let per = n.div_ceil(partitions).max(1);
    let mut parts = vec![];
    for start in (0..n).step_by(per) {
        let end = (start + per).min(n);
        let arrays: Vec<ArrayRef> = columns
            .iter()
            .map(|(_, v)| {
                let slice = &v[start..end];
                if view {
                    Arc::new(
                        slice
                            .iter()
                            .map(|s| s.as_deref())
                            .collect::<StringViewArray>(),
                    ) as ArrayRef
                } else {
                    Arc::new(slice.iter().map(|s| s.as_deref()).collect::<StringArray>())
                }
            })
            .collect();
        parts.push(vec![
            RecordBatch::try_new(schema.clone(), arrays).expect("batch"),
        ]);
    }
    let table = datafusion::datasource::MemTable::try_new(schema, parts).expect("table");
    ctx.register_table(name, Arc::new(table)).expect("register");
}

/// The FENs of `fen/fen_bad.txt` (each breaks one FEN rule or an attack rule of standard
/// chess) that python-chess rejects in the mode its PGN reader chooses: the two whose
/// castling rights can only mean Chess960 (`q` for a rook on c8, `Q` for a rook on d1) are
/// valid Chess960 positions, in the oracle with their values.
fn bad_fens() -> Vec<String> {
    let (_, positions) = tsv("sql_functions_positions.tsv");
    let bad: Vec<String> = std::fs::read_to_string(data("fen/fen_bad.txt"))
        .expect("fen_bad")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').next().expect("fen").to_string())
        .filter(|f| !positions.iter().any(|r| &r[0] == f))
        .collect();
    assert_eq!(bad.len(), 58);
    bad
}

/// `position_status`, `position_key`, `epd`, `material`, `fen_error`, `legal_moves_list`
/// against python-chess (`tests/data/make_sql_functions_oracle.py`) on 704 positions (121 of
/// them Chess960: X-FEN and Shredder-FEN, and two FENs whose castling rights can only mean
/// Chess960; 26 with an en passant square, which `epd` keeps only where a capture is legal,
/// as `board.epd()`), plus the 58 bad FENs (NULL everywhere, `fen_error` set, the query
/// does not fail), over a Utf8View column in four partitions.
#[tokio::test(flavor = "multi_thread")]
async fn position_functions_match_python_chess() {
    use datafusion::arrow::array::{ListArray, StructArray};
    use datafusion::arrow::datatypes::{DataType, UInt64Type};
    let (header, want) = tsv("sql_functions_positions.tsv");
    let col = |n: &str| header.iter().position(|h| h == n).expect(n);
    let bad = bad_fens();
    let mut fens: Vec<Option<String>> = want.iter().map(|r| Some(r[0].clone())).collect();
    fens.extend(bad.iter().cloned().map(Some));
    fens.push(None);
    let ctx = SessionContext::new_with_config(
        datafusion::prelude::SessionConfig::new().with_target_partitions(4),
    );
    sql::register(&ctx);
    string_table(&ctx, "positions", &[("fen", fens.clone())], true, 4);
    let batches = query(
        &ctx,
        "SELECT fen, fen_error(fen) AS e, position_status(fen) AS s, position_key(fen) AS k, \
         epd(fen) AS epd, material(fen) AS m, legal_moves_list(fen) AS l FROM positions",
    )
    .await;
    let mut seen = 0;
    let (mut moves_checked, mut bad_seen) = (0, 0);
    for b in &batches {
        let fen = datafusion::arrow::compute::cast(b.column(0), &DataType::Utf8).expect("cast");
        let fen = fen.as_string::<i32>();
        let err = b.column(1).as_string::<i32>();
        let status = b.column(2).as_string::<i32>();
        let key = b.column(3).as_primitive::<UInt64Type>();
        let epd = b.column(4).as_string::<i32>();
        let m = b
            .column(5)
            .as_any()
            .downcast_ref::<StructArray>()
            .expect("struct");
        let sig = m
            .column_by_name("signature")
            .expect("signature")
            .as_string::<i32>();
        let wk = m
            .column_by_name("white_kings")
            .expect("white_kings")
            .as_primitive::<datafusion::arrow::datatypes::UInt8Type>();
        let l = b
            .column(6)
            .as_any()
            .downcast_ref::<ListArray>()
            .expect("list");
        for i in 0..b.num_rows() {
            seen += 1;
            if fen.is_null(i) {
                assert!(err.is_null(i) && status.is_null(i) && key.is_null(i) && l.is_null(i));
                continue;
            }
            let f = fen.value(i);
            if let Some(r) = want.iter().find(|r| r[0] == f) {
                assert!(err.is_null(i), "{f}: {}", err.value(i));
                assert_eq!(status.value(i), r[col("position_status")], "{f}");
                assert_eq!(
                    format!("{:016x}", key.value(i)),
                    r[col("position_key")],
                    "{f}"
                );
                assert_eq!(epd.value(i), r[col("epd")], "{f}");
                assert_eq!(sig.value(i), r[col("signature")], "{f}");
                assert_eq!(wk.value(i), 1, "{f}");
                let list = l.value(i);
                let list = list.as_any().downcast_ref::<StructArray>().expect("moves");
                let uci = list.column_by_name("uci").expect("uci").as_string::<i32>();
                let san = list.column_by_name("san").expect("san").as_string::<i32>();
                let join = |a: &datafusion::arrow::array::StringArray| {
                    a.iter()
                        .map(|s| s.unwrap_or("NULL"))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                assert_eq!(join(uci), r[col("legal_uci")], "{f}");
                assert_eq!(join(san), r[col("legal_san")], "{f}");
                moves_checked += uci.len();
            } else {
                assert!(bad.iter().any(|x| x == f), "{f}");
                bad_seen += 1;
                assert!(!err.is_null(i), "{f}: no fen_error");
                assert!(status.is_null(i) && l.is_null(i) && epd.is_null(i), "{f}");
            }
        }
    }
    assert_eq!(seen, fens.len());
    assert_eq!(bad_seen, bad.len());
    assert!(moves_checked > 10_000, "{moves_checked}");
}

/// `fen_after` and `is_legal` against python-chess on 5,532 (FEN, move) pairs (SAN, UCI,
/// castling, illegal and ambiguous tokens), over Utf8 columns; a bad FEN gives NULL.
#[tokio::test(flavor = "multi_thread")]
async fn move_functions_match_python_chess() {
    let (_, want) = tsv("sql_functions_moves.tsv");
    let mut fens: Vec<Option<String>> = want.iter().map(|r| Some(r[0].clone())).collect();
    let mut moves: Vec<Option<String>> = want.iter().map(|r| Some(r[1].clone())).collect();
    let bad = bad_fens();
    fens.push(Some(bad[0].clone()));
    moves.push(Some("e4".into()));
    fens.push(Some(want[0][0].clone()));
    moves.push(None);
    let ctx = sql::context();
    string_table(&ctx, "pairs", &[("fen", fens), ("mv", moves)], false, 3);
    let got = rows(
        &query(
            &ctx,
            "SELECT fen, mv, is_legal(fen, mv), fen_after(fen, mv) FROM pairs",
        )
        .await,
    );
    assert_eq!(got.len(), want.len() + 2);
    let mut legal = 0;
    for r in &got {
        if r[1] == "NULL" || r[0] == bad[0] {
            assert_eq!((r[2].as_str(), r[3].as_str()), ("NULL", "NULL"), "{r:?}");
            continue;
        }
        let w = want
            .iter()
            .find(|w| w[0] == r[0] && w[1] == r[1])
            .expect("pair");
        let is_legal = if w[2] == "1" { "true" } else { "false" };
        let after = if w[3].is_empty() {
            "NULL"
        } else {
            w[3].as_str()
        };
        assert_eq!((r[2].as_str(), r[3].as_str()), (is_legal, after), "{r:?}");
        legal += usize::from(w[2] == "1");
    }
    assert_eq!(legal, want.iter().filter(|w| w[2] == "1").count());
    assert!(legal > 1000, "{legal}");
}

/// A bad literal FEN is a planning error naming the argument and the FEN field; `legal_moves`
/// lists the moves of a literal FEN (python-chess: 20 from the start, the SAN of e2e4);
/// `unnest(legal_moves_list(..))` gives the same rows.
#[tokio::test(flavor = "multi_thread")]
async fn literal_fens_legal_moves_table_and_unnest() {
    let ctx = sql::context();
    for q in [
        "SELECT position_status('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1')",
        "SELECT * FROM legal_moves('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1')",
    ] {
        let e = match ctx.sql(q).await {
            Ok(df) => df.collect().await.err().expect("an error").to_string(),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("argument 1") && e.contains("en_passant"),
            "{q}: {e}"
        );
    }
    // kings adjacent: an attack rule, still a planning error naming the field `position`
    let e = ctx
        .sql("SELECT fen_after('8/8/8/8/8/8/8/Kk6 w - - 0 1', 'Kb2')")
        .await
        .err()
        .expect("plan error")
        .to_string();
    assert!(e.contains("argument 1") && e.contains("position"), "{e}");
    // fen_error takes bad literals
    let got = rows(&query(&ctx, "SELECT fen_error('8/8/8/8/8/8/8/8 w - - 0 1')").await);
    assert!(got[0][0].starts_with("position: "), "{got:?}");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // LargeUtf8 and Utf8View arguments; the start position's published Polyglot key
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT position_key(arrow_cast('{start}', 'LargeUtf8')), \
                 position_key(arrow_cast('{start}', 'Utf8View')), \
                 position_status(arrow_cast('{start}', 'LargeUtf8'))"
            ),
        )
        .await,
    );
    assert_eq!(
        got,
        [[
            0x463b96181691fc9c_u64.to_string(),
            0x463b96181691fc9c_u64.to_string(),
            "ongoing".to_string()
        ]]
    );
    let got = rows(
        &query(
            &ctx,
            &format!("SELECT count(*), count(DISTINCT uci) FROM legal_moves('{start}')"),
        )
        .await,
    );
    assert_eq!(got, [["20", "20"]]);
    let got = rows(
        &query(
            &ctx,
            &format!("SELECT san, piece, from_name, to_name FROM legal_moves('{start}') WHERE uci = 'e2e4'"),
        )
        .await,
    );
    assert_eq!(got, [["e4", "P", "e2", "e4"]]);
    let got = rows(
        &query(
            &ctx,
            &format!("SELECT count(*) FROM (SELECT unnest(legal_moves_list('{start}')) AS m)"),
        )
        .await,
    );
    assert_eq!(got, [["20"]]);
}

fn queries_pgn() -> String {
    data("pgn/queries.pgn").display().to_string()
}

/// Every column of `read_plies` against python-chess (`examples/queries/make_expected.py`,
/// `tests/data/queries_plies.tsv`) on the 68 games of `pgn/queries.pgn` (lichess games with
/// clocks, evaluations and NAGs, en passant captures, underpromotions, two games with an
/// illegal move whose plies stop before it): 4,705 plies. `fen_before` is the previous
/// ply's `fen_after` (the start position at ply 1). Also with batches of 100 rows, so that
/// batches end inside games and a ply's position after comes from the next batch's first row.
#[tokio::test(flavor = "multi_thread")]
async fn read_plies_matches_python_chess() {
    for batch_size in [8192, 100] {
        let ctx = SessionContext::new_with_config(
            datafusion::prelude::SessionConfig::new().with_batch_size(batch_size),
        );
        sql::register(&ctx);
        plies_match_python_chess(&ctx).await;
    }
}

async fn plies_match_python_chess(ctx: &SessionContext) {
    let got = rows(
        &query(
            ctx,
            &format!(
                "SELECT game_index, ply, color, move_number, fen_after, uci, san, piece, \
                 from_square, to_square, \
                 captured, promotion, is_capture, is_check, is_checkmate, is_castling, \
                 is_en_passant, clock_s, eval_cp, eval_mate, comment, nags, \
                 white_pawns, white_knights, white_bishops, white_rooks, white_queens, \
                 black_pawns, black_knights, black_bishops, black_rooks, black_queens, \
                 position_key, fen_before, file \
                 FROM read_plies('{}') ORDER BY game_index, ply",
                queries_pgn()
            ),
        )
        .await,
    );
    let (header, want) = tsv("queries_plies.tsv");
    assert_eq!(header.len(), 24);
    assert_eq!(got.len(), want.len());
    assert!(got.len() > 4000, "{}", got.len());
    let mut previous_after = String::new();
    for (g, w) in got.iter().zip(&want) {
        let cell = |s: &str| {
            if s == "NULL" {
                String::new()
            } else {
                s.to_string()
            }
        };
        let mut nags: Vec<&str> = g[21]
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .filter(|s| !s.is_empty())
            .collect();
        nags.sort_by_key(|n| n.parse::<u32>().unwrap_or(0));
        let mut mine: Vec<String> = g[..21].iter().map(|s| cell(s)).collect();
        mine.push(nags.join(" "));
        mine.push(g[22..32].join(" "));
        mine.push(format!("{:016x}", g[32].parse::<u64>().expect("key")));
        assert_eq!(&mine, w, "game {} ply {}", w[0], w[1]);
        let before = if g[1] == "1" {
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()
        } else {
            previous_after.clone()
        };
        assert_eq!(g[33], before, "fen_before of game {} ply {}", g[0], g[1]);
        assert_eq!(g[34], queries_pgn());
        previous_after = g[4].clone();
    }
}

/// `read_plies` over a glob and a `.zst` copy, in two partitions and in one (a chunk of games
/// then spans the files): the same plies, once per file; a query of
/// one column only still gives every ply.
#[tokio::test(flavor = "multi_thread")]
async fn read_plies_streams_several_files_and_zstd() {
    let dir = temp_dir("plies");
    let text = std::fs::read(queries_pgn()).expect("read");
    std::fs::write(dir.join("a.pgn"), &text).expect("write");
    let z = zstd::encode_all(text.as_slice(), 3).expect("zstd");
    std::fs::write(dir.join("b.pgn.zst"), z).expect("write");
    // two partitions (a file each) and one (a chunk of games spans both files)
    for partitions in [2, 1] {
        let ctx = SessionContext::new_with_config(
            datafusion::prelude::SessionConfig::new()
                .with_target_partitions(partitions)
                .with_batch_size(256),
        );
        sql::register(&ctx);
        let got = rows(
            &query(
                &ctx,
                &format!(
                    "SELECT file, count(*), count(DISTINCT game_index), \
                     sum(CAST(is_en_passant AS INT)) \
                     FROM read_plies('{}/*') GROUP BY file ORDER BY file",
                    dir.display()
                ),
            )
            .await,
        );
        check_plies_per_file(&dir, got);
    }
}

/// Under a LIMIT the scan validates small chunks of games first, growing (batch size 32: 2,
/// 8, then 32 games): a LIMIT larger than the table still gives every ply, and LIMIT 5 the
/// first five plies of the first game.
#[tokio::test(flavor = "multi_thread")]
async fn read_plies_under_a_limit_grows_its_chunks() {
    let ctx = SessionContext::new_with_config(
        datafusion::prelude::SessionConfig::new()
            .with_target_partitions(1)
            .with_batch_size(32),
    );
    sql::register(&ctx);
    let (_, want) = tsv("queries_plies.tsv");
    let all = rows(
        &query(
            &ctx,
            &format!(
                "SELECT count(*), sum(ply) FROM \
                 (SELECT ply FROM read_plies('{}') LIMIT 1000000)",
                queries_pgn()
            ),
        )
        .await,
    );
    let plies: u64 = want.iter().map(|w| w[1].parse::<u64>().expect("ply")).sum();
    assert_eq!(all, [[want.len().to_string(), plies.to_string()]]);
    let first = rows(
        &query(
            &ctx,
            &format!(
                "SELECT game_index, ply, san FROM read_plies('{}') LIMIT 5",
                queries_pgn()
            ),
        )
        .await,
    );
    let expected: Vec<Vec<String>> = want[..5]
        .iter()
        .map(|w| vec![w[0].clone(), w[1].clone(), w[6].clone()])
        .collect();
    assert_eq!(first, expected);
}

fn check_plies_per_file(dir: &std::path::Path, got: Vec<Vec<String>>) {
    let (_, want) = tsv("queries_plies.tsv");
    let ep = want.iter().filter(|w| w[16] == "true").count();
    let games = want
        .iter()
        .map(|w| w[0].clone())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let n = want.len().to_string();
    let a = dir.join("a.pgn").display().to_string();
    let b = dir.join("b.pgn.zst").display().to_string();
    assert!(ep > 0);
    assert_eq!(
        got,
        [
            [a, n.clone(), games.to_string(), ep.to_string()],
            [b, n, games.to_string(), ep.to_string()]
        ]
    );
}

/// List, map and struct access (DataFusion's `nested_expressions`): `tags['Event']`,
/// `moves[1]`, `cardinality(moves)`, `material(fen)['signature']`; values from the first
/// game of the sample (tags as written in the file, python-chess's material).
#[tokio::test(flavor = "multi_thread")]
async fn list_map_and_struct_access() {
    let ctx = sql::context();
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT tags['Event'], moves[1], moves[2], tags['NoSuchTag'], \
                 material('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1')['signature'], \
                 material('8/8/8/8/8/8/8/KR4rk w - - 0 1')['white_rooks'] \
                 FROM read_pgn('{}') WHERE game_index = 0",
                sample()
            ),
        )
        .await,
    );
    let text = std::fs::read_to_string(sample()).expect("sample");
    let event = text
        .lines()
        .find_map(|l| l.strip_prefix("[Event \""))
        .and_then(|l| l.strip_suffix("\"]"))
        .expect("Event tag");
    assert_eq!(
        got,
        [[
            event,
            "d4",
            "Nf6",
            "NULL",
            "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP",
            "1"
        ]]
    );
}

/// One file read by up to 4 partitions (byte ranges starting at game boundaries,
/// `SET sqlchess.split_bytes = 1`) gives exactly the rows of one partition, `game_index`
/// included, over every PGN file of `tests/data` (the malformed ones too: comments,
/// variations and tag sections across the cuts, header-only games, binary data); with the
/// rules columns and `read_plies` for four of them (all in `tests/shared_data.rs`).
/// `EXPLAIN` shows the ranges. Every cut of these files is checked by the unit tests of
/// `sqlchess::pgn::split`.
#[tokio::test(flavor = "multi_thread")]
async fn split_files_read_as_one_partition() {
    let files = common::pgn_files(&data("pgn"));
    assert!(files.len() > 40, "{} files", files.len());
    // the rules (ply-synchronous, so as slow for a small file as for a large one) on a few
    let full = |p: &std::path::Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        [
            "sample.pgn",
            "headers_only_then_game.pgn",
            "unterminated_comment_swallows_games.pgn",
            "binary_between_games.pgn",
        ]
        .contains(&name)
    };
    let cut = common::split_reads_agree(&files, full, full, 4).await;
    assert!(cut > 30, "{cut} files cut");
    let ctx = SessionContext::new_with_config(
        datafusion::prelude::SessionConfig::new().with_target_partitions(3),
    );
    sql::register(&ctx);
    query(&ctx, "SET sqlchess.split_bytes = 1000").await;
    let text = format!(
        "{:?}",
        rows(
            &query(
                &ctx,
                &format!("EXPLAIN SELECT white FROM read_pgn('{}')", queries_pgn())
            )
            .await
        )
    );
    assert!(text.contains("ranges=[["), "{text}");
    assert!(text.contains(&format!("{}:0..", queries_pgn())), "{text}");
    // the default leaves a small file whole
    let ctx = sql::context();
    let text = format!(
        "{:?}",
        rows(
            &query(
                &ctx,
                &format!("EXPLAIN SELECT white FROM read_pgn('{}')", queries_pgn())
            )
            .await
        )
    );
    assert!(!text.contains("ranges="), "{text}");
}

/// The rows of `plan` after a trip through bytes: the logical plan with
/// [`sql::ChessLogicalCodec`], the physical plan with [`sql::ChessPhysicalCodec`]; both sorted.
async fn rows_after_the_trip(
    ctx: &SessionContext,
    q: &str,
) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    use datafusion_proto::bytes::{
        logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
        physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
    };
    let df = ctx.sql(q).await.expect("plan");
    let logical = sql::ChessLogicalCodec::default();
    let bytes = logical_plan_to_bytes_with_extension_codec(df.logical_plan(), &logical)
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let back = logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &logical)
        .expect("logical plan from bytes");
    let mut from_logical = rows(
        &ctx.execute_logical_plan(back)
            .await
            .expect("plan")
            .collect()
            .await
            .expect("run"),
    );
    let physical = sql::ChessPhysicalCodec::default();
    let plan = df.create_physical_plan().await.expect("physical plan");
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical)
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let back = physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &physical)
        .expect("physical plan from bytes");
    let mut from_physical = rows(&collect(back, ctx.task_ctx()).await.expect("run"));
    from_logical.sort();
    from_physical.sort();
    (from_logical, from_physical)
}

#[tokio::test(flavor = "multi_thread")]
async fn plans_travel_through_the_codecs() {
    let ctx = SessionContext::new_with_config(
        datafusion::prelude::SessionConfig::new().with_target_partitions(2),
    );
    sql::register(&ctx);
    // byte ranges of one file travel too
    query(&ctx, "SET sqlchess.split_bytes = 2000").await;
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for q in [
        format!(
            "SELECT final_status, count(*) AS n, sum(plies) AS p FROM read_pgn('{}') GROUP BY 1",
            queries_pgn()
        ),
        format!(
            "SELECT white, count(*) FROM read_pgn('{}') GROUP BY 1",
            data("pgn").display()
        ),
        format!(
            "SELECT piece, count(*), sum(position_key % 1000) FROM read_plies('{}') GROUP BY 1",
            queries_pgn()
        ),
        format!("SELECT uci, san, is_check FROM legal_moves('{fen}')"),
        format!(
            "SELECT position_status(final_fen), count(*) FROM read_pgn('{}') GROUP BY 1",
            sample()
        ),
    ] {
        let mut want = rows(&query(&ctx, &q).await);
        want.sort();
        assert!(!want.is_empty(), "{q}");
        let (logical, physical) = rows_after_the_trip(&ctx, &q).await;
        assert_eq!(logical, want, "logical plan of {q}");
        assert_eq!(physical, want, "physical plan of {q}");
    }
}

/// With the rules (`read_plies`, `read_pgn`'s rules columns) a plain file from 128 KiB up
/// is cut below `sqlchess.split_bytes` (pieces of at least 64 KiB: the rules cost per ply,
/// so every partition gets its share of the file), a tags-only scan of it is not, `0` cuts
/// nothing, and the cut scans give the rows of the whole file.
#[tokio::test(flavor = "multi_thread")]
async fn scans_with_the_rules_cut_files_from_128_kib() {
    let config = || datafusion::prelude::SessionConfig::new().with_target_partitions(4);
    let cut = SessionContext::new_with_config(config());
    sql::register(&cut);
    let whole = SessionContext::new_with_config(config());
    sql::register(&whole);
    query(&whole, "SET sqlchess.split_bytes = 0").await;
    let f = queries_pgn();
    let size = std::fs::metadata(&f).expect("queries.pgn").len();
    assert!((128 * 1024..192 * 1024).contains(&size), "{size} bytes");
    let partitions = |ctx: SessionContext, q: String| async move {
        let (_, scan) = plan_and_scan(&ctx, &q).await;
        let scan = scan.downcast_ref::<PgnScanExec>().expect("scan");
        (scan.runs_rules(), scan.partitions().len())
    };
    let plies = format!(
        "SELECT count(*), sum(ply), count(DISTINCT position_key), sum(white_queens) FROM read_plies('{f}')"
    );
    let status =
        format!("SELECT final_status, count(*) FROM read_pgn('{f}') GROUP BY 1 ORDER BY 1");
    let tags = format!("SELECT count(*), count(DISTINCT white) FROM read_pgn('{f}')");
    // 161 KB: two pieces of at least 64 KiB
    assert_eq!(partitions(cut.clone(), plies.clone()).await, (true, 2));
    assert_eq!(partitions(cut.clone(), status.clone()).await, (true, 2));
    assert_eq!(partitions(cut.clone(), tags.clone()).await, (false, 1));
    assert_eq!(partitions(whole.clone(), plies.clone()).await, (true, 1));
    for q in [&plies, &status, &tags] {
        let got = rows(&query(&cut, q).await);
        assert_eq!(got, rows(&query(&whole, q).await), "{q}");
        if q == &plies {
            assert_ne!(got[0][0], "0", "plies read");
        }
    }
}

/// A `read_plies` chunk ends once it has `batch_size` games or 48 × `batch_size` move
/// tokens, whichever comes first (the ply rows of a chunk are held until sent); the rows do
/// not depend on where chunks end.
#[tokio::test(flavor = "multi_thread")]
async fn read_plies_chunks_end_at_a_ply_cap() {
    let one_partition = || datafusion::prelude::SessionConfig::new().with_target_partitions(1);
    let small = SessionContext::new_with_config(one_partition().with_batch_size(4));
    sql::register(&small);
    let large = SessionContext::new_with_config(one_partition());
    sql::register(&large);
    let f = sample();
    // the move tokens of each game, in file order (one partition reads them in turn)
    let tokens: Vec<usize> = rows(
        &query(
            &large,
            &format!("SELECT cardinality(moves) FROM read_pgn('{f}') ORDER BY game_index"),
        )
        .await,
    )
    .iter()
    .map(|r| r[0].parse().expect("count"))
    .collect();
    assert_eq!(tokens.len(), 20);
    // the chunks the rule makes: at most 4 games and 4 × 48 = 192 tokens each
    let (mut want, mut games, mut plies) = (0, 0, 0);
    for t in &tokens {
        games += 1;
        plies += t;
        if games >= 4 || plies >= 192 {
            (want, games, plies) = (want + 1, 0, 0);
        }
    }
    want += usize::from(games > 0);
    assert!(want > tokens.len() / 4, "the cap ends some chunks: {want}");
    let q = format!(
        "SELECT count(*), sum(ply), count(DISTINCT position_key), sum(white_queens) FROM read_plies('{f}')"
    );
    let chunks = |ctx: SessionContext| {
        let q = q.clone();
        async move {
            let (plan, scan) = plan_and_scan(&ctx, &q).await;
            let got = rows(&collect(plan, ctx.task_ctx()).await.expect("run"));
            let m = scan.metrics().expect("metrics");
            let n = m.sum_by_name("rules_chunks").map(|v| v.as_usize());
            (got, n)
        }
    };
    let (capped, n) = chunks(small).await;
    assert_eq!(n, Some(want));
    let (whole, n) = chunks(large).await;
    assert_eq!(n, Some(1));
    assert_eq!(capped, whole);
    assert_ne!(whole[0][0], "0", "plies read");
}

/// The split setting is the calling session's and travels with the table: a plan made
/// where `sqlchess.split_bytes = 2000` and planned again in a session with the default
/// (32 MiB: one range for this 160 KB file) still reads the file as several partitions, as a
/// cluster's scheduler does with a client's plan.
#[tokio::test(flavor = "multi_thread")]
async fn the_split_setting_travels_with_the_table() {
    use datafusion_proto::bytes::{
        logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    };
    let config = || datafusion::prelude::SessionConfig::new().with_target_partitions(4);
    let client = SessionContext::new_with_config(config());
    sql::register(&client);
    query(&client, "SET sqlchess.split_bytes = 2000").await;
    let elsewhere = SessionContext::new_with_config(config());
    sql::register(&elsewhere);
    // tags only: no rules, which cut files from 128 KiB up whatever the setting
    let q = format!("SELECT count(*) FROM read_pgn('{}')", queries_pgn());
    let partitions = |plan: &Arc<dyn ExecutionPlan>| {
        let mut found = vec![];
        scans(plan, &mut found);
        assert_eq!(found.len(), 1, "one scan in {q}");
        let scan = found[0].downcast_ref::<PgnScanExec>().expect("scan");
        scan.partitions().len()
    };
    let df = client.sql(&q).await.expect("plan");
    let codec = sql::ChessLogicalCodec::default();
    let bytes =
        logical_plan_to_bytes_with_extension_codec(df.logical_plan(), &codec).expect("encode");
    let here = partitions(&df.create_physical_plan().await.expect("physical plan"));
    assert_eq!(here, 4, "split in the client's session");
    let back = logical_plan_from_bytes_with_extension_codec(&bytes, &elsewhere.task_ctx(), &codec)
        .expect("decode");
    let there = elsewhere
        .execute_logical_plan(back)
        .await
        .expect("plan elsewhere")
        .create_physical_plan()
        .await
        .expect("physical plan elsewhere");
    assert_eq!(partitions(&there), here, "split where the plan was decoded");
    // the same table function called in the default session reads the file whole
    let whole = elsewhere.sql(&q).await.expect("plan");
    assert_eq!(
        partitions(&whole.create_physical_plan().await.expect("physical plan")),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plans_that_travel_need_absolute_paths_and_name_where_a_file_is_missing() {
    use datafusion_proto::bytes::{
        logical_plan_to_bytes_with_extension_codec, physical_plan_from_bytes_with_extension_codec,
        physical_plan_to_bytes_with_extension_codec,
    };
    let ctx = sql::context();
    // tests run in the package root: a relative path that the local session reads
    let df = ctx
        .sql("SELECT count(*) FROM read_pgn('tests/data/pgn/sample.pgn')")
        .await
        .expect("plan");
    let err = logical_plan_to_bytes_with_extension_codec(
        df.logical_plan(),
        &sql::ChessLogicalCodec::default(),
    )
    .expect_err("a relative path does not travel")
    .to_string();
    assert!(
        err.contains("tests/data/pgn/sample.pgn") && err.contains("absolute"),
        "{err}"
    );
    // a file there when planned, gone when the scan runs elsewhere
    let dir = temp_dir("codec-missing");
    let file = dir.join("gone.pgn");
    std::fs::copy(sample(), &file).expect("copy");
    let df = ctx
        .sql(&format!(
            "SELECT count(*) FROM read_pgn('{}')",
            file.display()
        ))
        .await
        .expect("plan");
    let plan = df.create_physical_plan().await.expect("physical plan");
    let bytes =
        physical_plan_to_bytes_with_extension_codec(plan, &sql::ChessPhysicalCodec::default())
            .expect("encode");
    std::fs::remove_file(&file).expect("remove");
    let codec = sql::ChessPhysicalCodec::default().with_site("executor test-7");
    let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec)
        .expect("decoding reads no file");
    let err = collect(plan, ctx.task_ctx())
        .await
        .expect_err("the file is gone")
        .to_string();
    assert!(
        err.contains(&file.display().to_string()) && err.contains("executor test-7"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A query's first error, as text.
async fn query_error(ctx: &SessionContext, q: &str) -> String {
    match ctx.sql(q).await {
        Err(e) => e.to_string(),
        Ok(df) => match df.collect().await {
            Err(e) => e.to_string(),
            Ok(b) => panic!("{q}: expected an error, got {:?}", rows(&b)),
        },
    }
}

/// Issue 31, 2: every input is recognised by its first bytes, whatever its name: a gzip, a
/// zstd and a bzip2 file, each named `.pgn`, give the rows of the plain file (and a plain
/// file named `.pgn.gz` is read as text); a file that is not text is one error naming it
/// ("not a PGN file"), never a table of syntax games; an empty directory is an error, as
/// `validate` warns of it.
#[tokio::test(flavor = "multi_thread")]
async fn inputs_are_recognised_by_their_first_bytes() {
    use std::io::Write;
    let dir = temp_dir("sniff");
    let text = std::fs::read(sample()).expect("sample");
    let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
    gz.write_all(&text).expect("gzip");
    let mut bz = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
    bz.write_all(&text).expect("bzip2");
    let files = [
        ("gzip.pgn", gz.finish().expect("gzip")),
        (
            "zstd.pgn",
            zstd::encode_all(text.as_slice(), 3).expect("zstd"),
        ),
        ("bzip2.pgn", bz.finish().expect("bzip2")),
        ("plain.pgn.gz", text.clone()),
    ];
    let ctx = sql::context();
    let q = |f: &str| {
        format!(
            "SELECT game_index, white, plies, final_fen, final_status FROM read_pgn('{f}') \
             ORDER BY game_index"
        )
    };
    let want = rows(&query(&ctx, &q(&sample())).await);
    assert_eq!(want.len(), 20);
    for (name, bytes) in &files {
        let f = dir.join(name);
        std::fs::write(&f, bytes).expect("write");
        let got = rows(&query(&ctx, &q(&f.display().to_string())).await);
        assert_eq!(got, want, "{name}");
    }
    // not text: one error naming the file and what it is
    let blob = data("pgn/malformed/binary_blob.bin").display().to_string();
    let e = query_error(&ctx, &format!("SELECT count(*) FROM read_pgn('{blob}')")).await;
    assert!(
        e.contains(&format!("{blob}: not a PGN file: binary data")),
        "{e}"
    );
    let xz = dir.join("games.pgn");
    std::fs::write(&xz, b"\xfd7zXZ\0\0\x04\xe6\xd6\xb4F\x02\0!\x01").expect("write");
    let e = query_error(
        &ctx,
        &format!("SELECT count(*) FROM read_plies('{}')", xz.display()),
    )
    .await;
    assert!(e.contains("not a PGN file: xz-compressed"), "{e}");
    // a directory without PGN files
    let empty = temp_dir("sniff-empty");
    let e = query_error(
        &ctx,
        &format!("SELECT count(*) FROM read_pgn('{}')", empty.display()),
    )
    .await;
    assert!(e.contains("no PGN files in"), "{e}");
}

/// Issue 31, 4-6: `read_plies` names the mover (`color`) and the move number as a PGN writes
/// it, right for a game from a FEN with Black to move; `piece`, `captured` and `promotion`
/// follow one letter-case rule (upper case, as SAN writes them, whatever the colour: a black
/// pawn captured is `P`, a black promotion to a knight `N`); several comments after a move
/// are joined as python-chess 1.11.2 joins them (its `node.comment` printed for this PGN:
/// `'[%eval 0.64] [%clk 0:09:59] C41 Philidor Defense'`, `' a  b c'`).
#[tokio::test(flavor = "multi_thread")]
async fn plies_name_the_mover_and_write_letters_and_comments_one_way() {
    let dir = temp_dir("mover");
    let f = dir.join("g.pgn");
    std::fs::write(
        &f,
        "[Event \"black to move\"]\n[SetUp \"1\"]\n\
         [FEN \"4k3/8/8/8/8/8/1p5p/R3K1N1 b - - 0 40\"]\n[Result \"*\"]\n\n\
         40... bxa1=N { [%eval 0.64] [%clk 0:09:59] } { C41 Philidor Defense } \
         41. Kd2 {  a  }  {b} {} {c} 41... hxg1=Q 42. Kc3 *\n",
    )
    .expect("write");
    let ctx = sql::context();
    let got = rows(
        &query(
            &ctx,
            &format!(
                "SELECT ply, color, move_number, san, piece, captured, promotion, comment \
                 FROM read_plies('{}') ORDER BY ply",
                f.display()
            ),
        )
        .await,
    );
    let want = [
        [
            "1",
            "black",
            "40",
            "bxa1=N",
            "P",
            "R",
            "N",
            "[%eval 0.64] [%clk 0:09:59] C41 Philidor Defense",
        ],
        ["2", "white", "41", "Kd2", "K", "NULL", "NULL", " a  b c"],
        ["3", "black", "41", "hxg1=Q", "P", "N", "Q", "NULL"],
        ["4", "white", "42", "Kc3", "K", "NULL", "NULL", "NULL"],
    ];
    assert_eq!(got, want);
    // the legal moves of a black position: the same letters
    let black = rows(
        &query(
            &ctx,
            "SELECT piece, captured, promotion FROM legal_moves('4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1') \
             WHERE uci = 'b2a1n'",
        )
        .await,
    );
    assert_eq!(black, [["P", "R", "N"]]);
}
