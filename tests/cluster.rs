//! The same SQL on a Ballista cluster (feature `ballista`), on 127.0.0.1 only: an in-process
//! scheduler with two executors ([`LocalCluster`]) and separate `sqlchess cluster`
//! processes give the in-process answers (rows order-normalised); a killed executor never
//! makes a wrong answer; a file gone when an executor reads it is an error naming the path
//! and the executor. Reads `../shared/data/pgn` (or `$SQLCHESS_SHARED_DATA/pgn`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use sqlchess::cluster::{LocalCluster, SchedulerOptions};
use sqlchess::sql;

use crate::common::scratch;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared standard PGN files (every folder of `shared/data/pgn` but `variants`), as a
/// glob.
fn shared_standard_pgn() -> String {
    let data = std::env::var("SQLCHESS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join("../shared/data"));
    let dir = data.join("pgn");
    assert!(dir.is_dir(), "{}: the shared data is needed", dir.display());
    let dir = dir.canonicalize().expect("shared data path");
    format!("{}/[!v]*/*.pgn", dir.display())
}

/// Every cell as text (NULL as "NULL"), rows sorted.
fn sorted_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![];
    for b in batches {
        let cols: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| {
                ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default().with_null("NULL"))
                    .expect("formatter")
            })
            .collect();
        for i in 0..b.num_rows() {
            out.push(cols.iter().map(|c| c.value(i).to_string()).collect());
        }
    }
    out.sort();
    out
}

/// Runs the statements of `text` (separated by `;` at a line end) and returns the sorted rows
/// of the last.
async fn run(ctx: &SessionContext, text: &str) -> datafusion::common::Result<Vec<Vec<String>>> {
    let mut last = vec![];
    for s in text.split(";\n").map(str::trim).filter(|s| {
        s.lines()
            .any(|l| !l.trim().is_empty() && !l.trim().starts_with("--"))
    }) {
        last = ctx.sql(s).await?.collect().await?;
    }
    Ok(sorted_rows(&last))
}

/// A query of `examples/queries` with its relative input paths made absolute.
fn example(path: &Path) -> String {
    std::fs::read_to_string(path).expect("query file").replace(
        "'tests/data/",
        &format!("'{}/tests/data/", root().display()),
    )
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples/queries"))
        .expect("examples/queries")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        // seed 002 reads no PGN; its WITH RECURSIVE does not travel (below)
        .filter(|p| !p.ends_with("seed002_sum10.sql"))
        .collect();
    files.sort();
    files
}

/// Short liveness settings, so that a lost executor is noticed within seconds (a busy
/// executor polls every 5 s: 20 s leaves room for a loaded machine).
fn quick() -> SchedulerOptions {
    SchedulerOptions {
        executor_timeout_seconds: 20,
        expire_interval_seconds: 2,
        ..SchedulerOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_cluster_of_two_executors_gives_the_in_process_answers() {
    let cluster = LocalCluster::start(2, 1, quick()).expect("cluster");
    let remote = cluster.context().await.expect("client");
    // several scan partitions, so that the stages are shared out among the executors; the
    // two large shared files (1.0 and 1.5 MB) read as ranges, a client setting that travels
    // with the tables to the scheduler
    let local = sql::context();
    for ctx in [&remote, &local] {
        for set in [
            "SET datafusion.execution.target_partitions = 4",
            "SET sqlchess.split_bytes = 262144",
        ] {
            ctx.sql(set).await.unwrap_or_else(|e| panic!("{set}: {e}"));
        }
    }
    let shared = shared_standard_pgn();
    let mut queries: Vec<(String, String)> = examples()
        .iter()
        .map(|p| (p.display().to_string(), example(p)))
        .collect();
    queries.push((
        "read_pgn aggregate over the shared standard PGN".into(),
        format!(
            "SELECT final_status, error_kind, count(*) AS games, sum(plies) AS plies, \
             count(DISTINCT white) AS whites FROM read_pgn('{shared}') GROUP BY 1, 2"
        ),
    ));
    queries.push((
        "read_plies aggregate over the shared standard PGN".into(),
        format!(
            "SELECT piece, is_check, count(*) AS plies, sum(position_key % 1000003) AS keys, \
             count(DISTINCT fen_after) AS positions FROM read_plies('{shared}') GROUP BY 1, 2"
        ),
    ));
    // the named openings: a registered table the scheduler and executors replay themselves
    queries.push((
        "read_pgn's openings classification over the shared standard PGN".into(),
        format!(
            "SELECT classified_eco, classified_opening, classified_ply, count(*) AS games \
             FROM read_pgn('{shared}') GROUP BY 1, 2, 3"
        ),
    ));
    queries.push((
        "explorer over the shared standard PGN".into(),
        format!(
            "SELECT speed, rating_band, month, count(*) AS moves, sum(games) AS games, \
             sum(white_wins) AS white, sum(draws) AS draws, sum(mover_elo_sum) AS elo, \
             max(last_date) AS last, sum(position_key % 1000003) AS keys \
             FROM explorer('{shared}', 12) GROUP BY 1, 2, 3"
        ),
    ));
    queries.push((
        "the openings table and opening(fen)".into(),
        "SELECT eco, count(*) AS lines, sum(ply) AS plies, \
         count(opening(epd || ' 0 1')) AS named FROM openings GROUP BY 1"
            .into(),
    ));
    // LIMIT and OFFSET over in-memory tables: DataFusion pushes them into the scan, where
    // Ballista 55 lost them (20 rows for LIMIT 2, none for OFFSET 1)
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let sample = root().join("tests/data/pgn/sample.pgn");
    for (name, q) in [
        (
            "LIMIT over legal_moves",
            format!("SELECT uci FROM legal_moves('{start}') LIMIT 2"),
        ),
        (
            "OFFSET over legal_moves",
            format!("SELECT uci FROM legal_moves('{start}') OFFSET 18"),
        ),
        (
            "an aggregate over a LIMIT of legal_moves",
            format!(
                "SELECT piece, count(*) AS n FROM (SELECT * FROM legal_moves('{start}') LIMIT 3) \
                 GROUP BY 1"
            ),
        ),
        (
            "LIMIT over VALUES",
            "SELECT x FROM (VALUES (1), (2), (3)) t(x) LIMIT 1".into(),
        ),
        (
            "OFFSET over VALUES",
            "SELECT x FROM (VALUES (1), (2), (3)) t(x) OFFSET 1".into(),
        ),
        (
            "LIMIT over a CREATE TABLE AS table",
            format!(
                "CREATE TABLE g AS SELECT game_index, final_status FROM read_pgn('{}');\n\
                 SELECT * FROM g LIMIT 2",
                sample.display()
            ),
        ),
    ] {
        queries.push((name.into(), q));
    }
    // a struct field inside an aggregate's expression: DataFusion 55.2's leaf-expression
    // pushdown made such a plan undecodable on the scheduler (off on every side)
    queries.push((
        "struct fields in an aggregate".into(),
        format!(
            "SELECT game_index, min(CASE WHEN m['is_check'] THEN m['san'] END) AS first_check, \
             count(*) FILTER (WHERE m['is_capture']) AS captures \
             FROM (SELECT game_index, unnest(legal_moves_list(final_fen)) AS m FROM read_pgn('{}')) t \
             GROUP BY 1",
            sample.display()
        ),
    ));
    // the position queries with their pattern arguments (literal, list, side), on plies
    queries.push((
        "the position queries over the plies of patterns.pgn".into(),
        format!(
            "SELECT game_index, sum(cardinality(attacks(fen_after))) AS attacks, \
             sum(cardinality(pins(fen_after))) AS pins, sum(cardinality(checkers(fen_after))) AS checks, \
             sum(cardinality(hanging(fen_after))) AS hanging, \
             count(*) FILTER (WHERE matches_subfen(fen_after, ['8/8/8/8/8/5N2/5PPP/6K1', \
             '6k1/5ppp/8/8/8/8/8/8'], 'b')) AS castled, \
             count(*) FILTER (WHERE material_matches(fen_after, 'r+p* r=p1>=')) AS rook_endings, \
             count(DISTINCT imbalance(fen_after)) AS imbalances \
             FROM read_plies('{}') GROUP BY 1",
            root().join("tests/data/pgn/patterns.pgn").display()
        ),
    ));
    for (name, q) in &queries {
        let want = run(&local, q)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = run(&remote, q)
            .await
            .unwrap_or_else(|e| panic!("{name} on the cluster: {e}"));
        assert!(!want.is_empty(), "{name}: no rows");
        assert_eq!(got, want, "{name}");
    }
    assert!(queries.len() >= 29, "{} queries", queries.len());
    // DataFusion 55 cannot serialize a recursive query's plan: a clear error, not rows
    let seed = example(&root().join("examples/queries/seed002_sum10.sql"));
    assert!(!run(&local, &seed).await.expect("in process").is_empty());
    let err = run(&remote, &seed)
        .await
        .expect_err("WITH RECURSIVE on the cluster");
    assert!(err.to_string().contains("Unsupported plan node"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_gone_when_an_executor_reads_it_names_the_path_and_the_executor() {
    let cluster = LocalCluster::start(1, 1, quick()).expect("cluster");
    let remote = cluster.context().await.expect("client");
    let dir = scratch("cluster-gone");
    let file = dir.join("gone.pgn");
    std::fs::copy(root().join("tests/data/pgn/sample.pgn"), &file).expect("copy");
    // planned (on the client) while the file is there
    let df = remote
        .sql(&format!(
            "SELECT final_status, count(*) FROM read_pgn('{}') GROUP BY 1",
            file.display()
        ))
        .await
        .expect("plan");
    std::fs::remove_file(&file).expect("remove");
    let err = df
        .collect()
        .await
        .expect_err("the file is gone")
        .to_string();
    let executor = &cluster.executor_ids()[0];
    assert!(
        err.contains(&file.display().to_string()) && err.contains(executor),
        "{err}"
    );
    // a relative path does not travel
    let err = remote
        .sql("SELECT count(*) FROM read_pgn('tests/data/pgn/sample.pgn')")
        .await
        .expect("plan")
        .collect()
        .await
        .expect_err("relative path")
        .to_string();
    assert!(err.contains("absolute"), "{err}");
}

/// Child processes of a test, killed when it ends however it ends.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("addr")
        .port()
}

fn wait_for(port: u16) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "nothing on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `sqlchess cluster scheduler` and `executors` executors as child processes; the
/// scheduler's port.
fn start_processes(children: &mut Children, executors: usize, work: &Path) -> u16 {
    let bin = env!("CARGO_BIN_EXE_sqlchess");
    let port = free_port();
    children.0.push(
        Command::new(bin)
            .args(["cluster", "scheduler", "--port", &port.to_string()])
            .args(["--executor-timeout", "20"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("scheduler"),
    );
    wait_for(port);
    for i in 0..executors {
        let flight = free_port();
        children.0.push(
            Command::new(bin)
                .args(["cluster", "executor", "--scheduler"])
                .arg(format!("127.0.0.1:{port}"))
                .args(["--port", &flight.to_string(), "--concurrent-tasks", "1"])
                .arg("--work-dir")
                .arg(work.join(format!("executor-{i}")))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("executor"),
        );
        wait_for(flight);
    }
    port
}

/// `sqlchess sql [--cluster URL] --format csv QUERY`: exit status, stdout, stderr.
fn sql_cli(cluster: Option<&str>, query: &str) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlchess"));
    cmd.arg("sql");
    if let Some(url) = cluster {
        cmd.args(["--cluster", url]);
    }
    let out = cmd
        .args(["--format", "csv", query])
        .stdin(Stdio::null())
        .output()
        .expect("sqlchess sql");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of CSV output, header first, the rows sorted.
fn csv_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    if lines.len() > 1 {
        lines[1..].sort();
    }
    lines
}

#[test]
fn separate_processes_answer_as_in_process_and_survive_a_killed_executor() {
    let work = scratch("cluster-procs");
    let mut children = Children(vec![]);
    let port = start_processes(&mut children, 2, &work);
    let url = format!("df://127.0.0.1:{port}");
    let shared = shared_standard_pgn();
    let query = format!(
        "SELECT final_status, count(*) AS games, sum(plies) AS plies \
         FROM read_pgn('{shared}') GROUP BY 1"
    );
    let (code, want, err) = sql_cli(None, &query);
    assert_eq!(code, 0, "{err}");
    let (code, got, err) = sql_cli(Some(&url), &query);
    assert_eq!(code, 0, "{err}");
    assert_eq!(csv_lines(&got), csv_lines(&want));
    assert!(csv_lines(&want).len() > 3, "{want}");

    // a query over many files; one executor is killed while it runs
    let many = format!(
        "SELECT piece, count(*) AS plies, sum(position_key % 1000003) AS keys \
         FROM read_plies('{shared}') GROUP BY 1"
    );
    let (code, want, err) = sql_cli(None, &many);
    assert_eq!(code, 0, "{err}");
    let mut client = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(["sql", "--cluster", &url, "--format", "csv", &many])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("client");
    std::thread::sleep(Duration::from_millis(1500));
    // SIGKILL: the executor says nothing to the scheduler
    let victim = children.0.last_mut().expect("executor");
    victim.kill().expect("kill");
    victim.wait().expect("reaped");
    let start = Instant::now();
    let out = loop {
        if client.try_wait().expect("client").is_some() {
            break client.wait_with_output().expect("client output");
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = client.kill();
            panic!("the query did not end within 180 s of the kill");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let got = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        // finished on the other executor: exactly the in-process answer
        assert_eq!(csv_lines(&got), csv_lines(&want), "after the kill");
    } else {
        // or a clear error, never a wrong answer
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("error:"), "{err}");
        assert!(csv_lines(&got).len() <= 1, "rows of a failed query: {got}");
        eprintln!("the query failed after the kill: {err}");
    }
    if out.status.success() {
        eprintln!("the query completed on the other executor after the kill");
    }
    drop(children);
}

/// Every job is planned whole with Ballista's static planner, whatever the client asks:
/// Ballista 55's adaptive planner never ends a query whose executor is lost at the wrong
/// moment (the re-run stage's outputs are refused). A stage whose input is gone fails the
/// query at once: a second attempt would keep the rows its first attempt delivered and
/// return them twice.
#[test]
fn the_scheduler_plans_statically_and_fails_a_stage_whose_input_is_lost() {
    use ballista_core::config::BALLISTA_ADAPTIVE_PLANNER_ENABLED;
    use ballista_core::extension::SessionConfigExt;
    let config = SchedulerOptions::default().scheduler_config();
    assert_eq!(config.stage_max_failures, 1);
    let builder = config.override_session_builder.expect("session builder");
    let asked =
        sqlchess::cluster::session_config().set_bool(BALLISTA_ADAPTIVE_PLANNER_ENABLED, true);
    assert!(asked.ballista_adaptive_query_planner_enabled());
    let state = builder(asked).expect("session state");
    assert!(!state.config().ballista_adaptive_query_planner_enabled());
}

/// `plies_of` and `validate_moves` over a Parquet movetext column (the games of
/// tests/data/pgn/sample.pgn and queries.pgn) run on the executors, whose sessions have the
/// chess functions (`crate::sql::register`), and give the in-process rows.
#[tokio::test(flavor = "multi_thread")]
async fn plies_of_over_a_parquet_movetext_column_gives_the_in_process_rows() {
    use datafusion::arrow::array::{StringArray, UInt64Array};
    use datafusion::dataframe::DataFrameWriteOptions;
    use std::sync::Arc;

    let dir = scratch("cluster-movetext");
    let mut texts = vec![];
    for f in ["sample.pgn", "queries.pgn"] {
        let text = std::fs::read_to_string(root().join("tests/data/pgn").join(f)).expect("pgn");
        texts.extend(crate::common::movetext::movetexts(&text));
    }
    let n = texts.len();
    let local = sql::context();
    let batch = RecordBatch::try_from_iter(vec![
        (
            "game",
            Arc::new(UInt64Array::from_iter_values(0..n as u64)) as _,
        ),
        ("movetext", Arc::new(StringArray::from(texts)) as _),
    ])
    .expect("batch");
    let parquet = dir.join("movetext.parquet").display().to_string();
    local
        .read_batch(batch)
        .expect("frame")
        .write_parquet(&parquet, DataFrameWriteOptions::new(), None)
        .await
        .expect("parquet");
    let cluster = LocalCluster::start(2, 1, quick()).expect("cluster");
    let remote = cluster.context().await.expect("client");
    let table = format!("CREATE EXTERNAL TABLE mt STORED AS PARQUET LOCATION '{parquet}';\n");
    for q in [
        "SELECT game, p.ply, p.san, p.uci, p.fen_after, p.position_key, p.is_checkmate, \
         p.clock_s, p.eval_cp FROM (SELECT game, unnest(plies_of(movetext)) AS p FROM mt)",
        "SELECT game, v.plies, v.first_illegal_ply, v.error_kind, v.final_fen, v.final_status \
         FROM (SELECT game, validate_moves(movetext) AS v FROM mt)",
    ] {
        let mut rows = vec![];
        for ctx in [&local, &remote] {
            let ctx_rows = run(ctx, &format!("{table}{q}"))
                .await
                .unwrap_or_else(|e| panic!("{q}: {e}"));
            ctx.sql("DROP TABLE mt").await.expect("drop");
            rows.push(ctx_rows);
        }
        assert!(rows[0].len() >= n, "{q}: {} rows", rows[0].len());
        assert_eq!(rows[1], rows[0], "{q} on the cluster");
    }
}
