//! The SQL interface (`sqlchess::sql`): what the files of `tests/sql/*.slt` cannot say
//! (those pin the tables' and functions' rows, NULLs and errors; `tests/sql_files.rs` runs
//! them): projection pushdown seen in the scan's metrics (tag-only queries do not run the
//! rules), the `sqlchess sql` command (formats, scripts, COPY, exit codes), byte ranges of
//! one file read as several partitions, chunk sizes, plans that travel through the codecs.

use crate::common;

use std::sync::Arc;

use common::{data, query, scratch};
use datafusion::arrow::array::RecordBatch;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::SessionContext;
use sqlchess::sql::{self, PgnScanExec};

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

/// `EXPLAIN ANALYZE`'s `stage_runs` on the scan: none for tags only; with the rules, at
/// least three per ply of the longest game (replay runs three stages per ply while a game
/// of its chunk is in play).
#[tokio::test(flavor = "multi_thread")]
async fn the_scan_counts_its_stage_runs() {
    let ctx = sql::context();
    let runs = async |q: String| rows_and_stage_runs(&ctx, &q).await;
    let (_, tags) = runs(format!("SELECT count(white) FROM read_pgn('{}')", sample())).await;
    assert_eq!(tags, 0);
    let (got, rules) = runs(format!("SELECT max(plies) FROM read_pgn('{}')", sample())).await;
    let longest: usize = got[0][0].parse().expect("plies");
    assert!(longest > 0);
    assert!(
        rules >= 3 * longest,
        "{rules} stage runs, longest game {longest} plies"
    );
}

/// The rows of query `q` (one scan) and its scan's `stage_runs`.
async fn rows_and_stage_runs(ctx: &SessionContext, q: &str) -> (Vec<Vec<String>>, usize) {
    let (plan, found) = plan_and_scan(ctx, q).await;
    let batches = collect(plan, ctx.task_ctx()).await.expect("run");
    let m = found.metrics().expect("metrics");
    let runs = m.sum_by_name("stage_runs").map_or(0, |v| v.as_usize());
    (rows(&batches), runs)
}

/// Without a column made from the moves' notation, `read_plies` reads the plies' positions
/// alone (`ValidateOptions::positions_only`: stage `replay_plies` is not run): fewer stage
/// runs, and every position column as with the notation read.
#[tokio::test(flavor = "multi_thread")]
async fn positions_alone_are_read_without_the_notation() {
    let ctx = sql::context();
    let columns = "file, game_index, ply, color, move_number, fen_before, fen_after, \
                   white_pawns, black_queens, position_key, comment";
    let q = |extra: &str| {
        format!(
            "SELECT {columns}{extra} FROM read_plies('{}') ORDER BY file, game_index, ply",
            queries_pgn()
        )
    };
    let (alone, alone_runs) = rows_and_stage_runs(&ctx, &q("")).await;
    let (named, named_runs) = rows_and_stage_runs(&ctx, &q(", san")).await;
    assert_eq!(alone.len(), 4705);
    let without_san: Vec<Vec<String>> = named.iter().map(|r| r[..r.len() - 1].to_vec()).collect();
    assert_eq!(alone, without_san);
    assert!(named.iter().all(|r| !r[r.len() - 1].is_empty()), "SAN read");
    assert!(
        alone_runs < named_runs,
        "{alone_runs} stage runs alone, {named_runs} with the notation"
    );
}

/// An upper bound on `ply` is a cut of `read_plies`' replay (`max_ply=N` on the scan): the
/// rows are those of the whole replay up to that ply, every column alike (the last ply's
/// `+`/`#`, `fen_after`, the clocks), and the scan runs fewer stages.
#[tokio::test(flavor = "multi_thread")]
async fn a_bound_on_ply_cuts_the_replay() {
    let ctx = sql::context();
    let q = |filter: &str| {
        format!(
            "SELECT * FROM read_plies('{}') {filter} ORDER BY file, game_index, ply",
            queries_pgn()
        )
    };
    let runs = async |q: String| {
        let (plan, found) = plan_and_scan(&ctx, &q).await;
        let shown = datafusion::physical_plan::displayable(found.as_ref())
            .one_line()
            .to_string();
        let batches = collect(plan, ctx.task_ctx()).await.expect("run");
        let m = found.metrics().expect("metrics");
        let runs = m.sum_by_name("stage_runs").map_or(0, |v| v.as_usize());
        (rows(&batches), runs, shown)
    };
    let (all, all_runs, shown) = runs(q("")).await;
    assert!(!shown.contains("max_ply"), "{shown}");
    let ply_of = |r: &Vec<String>| r[2].parse::<u32>().expect("ply");
    for (filter, bound) in [
        ("WHERE ply <= 0", 0),
        ("WHERE ply < 2", 1),
        ("WHERE 7 >= ply", 7),
        ("WHERE ply BETWEEN 5 AND 40 AND san LIKE '%+'", 40),
        ("WHERE ply <= 40 AND ply <= 300", 40),
    ] {
        let (got, cut_runs, shown) = runs(q(filter)).await;
        assert!(shown.contains(&format!("max_ply={bound}")), "{shown}");
        let want: Vec<Vec<String>> = all
            .iter()
            .filter(|r| ply_of(r) <= bound)
            .filter(|r| !filter.contains("BETWEEN") || (ply_of(r) >= 5 && r[8].ends_with('+')))
            .cloned()
            .collect();
        assert_eq!(got, want, "{filter}");
        assert!(
            cut_runs < all_runs,
            "{filter}: {cut_runs} stage runs, {all_runs} uncut"
        );
    }
    assert!(all.iter().any(|r| ply_of(r) > 40 && r[8].ends_with('#')));
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
    let dir = scratch("sql-cli");
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
}

fn queries_pgn() -> String {
    data("pgn/queries.pgn").display().to_string()
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
        format!(
            "SELECT san, count(*) FROM read_plies('{}') WHERE ply <= 6 GROUP BY 1",
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
    let dir = scratch("sql-codec-missing");
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
}
