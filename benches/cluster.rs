//! The cluster's overhead (feature `ballista`): a `read_pgn` aggregate over the shared
//! standard PGN in process, on a local cluster of one executor and of two (scheduler and
//! executors in this process, on 127.0.0.1), medians of `SQLCHESS_BENCH_RUNS` runs (default
//! 3) after one warm-up; and the bytes of shuffle files the executors wrote for it.
//! `cargo bench --features ballista --bench cluster`. On 2 cores no speed-up is expected:
//! the figure is what the cluster adds.

mod common;

use std::path::Path;
use std::time::Instant;

use datafusion::prelude::SessionContext;
use sqlchess::cluster::{LocalCluster, SchedulerOptions};

/// Bytes of the files below `dir`.
fn bytes_below(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                bytes_below(&p)
            } else {
                p.metadata().map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

/// Median seconds of `query` on `ctx` and its row count.
async fn time(ctx: &SessionContext, query: &str, runs: usize) -> (f64, usize) {
    let mut secs = vec![];
    let mut rows = 0;
    for i in 0..=runs {
        let start = Instant::now();
        let batches = ctx
            .sql(query)
            .await
            .expect("plan")
            .collect()
            .await
            .expect("run");
        if i > 0 {
            secs.push(start.elapsed().as_secs_f64());
        }
        rows = common::rows(&batches);
    }
    (common::median(secs), rows)
}

#[tokio::main]
async fn main() {
    let runs = common::env_num("SQLCHESS_BENCH_RUNS", 3);
    let dir = common::shared_data()
        .join("pgn")
        .canonicalize()
        .expect("shared data");
    let query = format!(
        "SELECT final_status, count(*) AS games, sum(plies) AS plies \
         FROM read_pgn('{}/[!v]*/*.pgn') GROUP BY 1",
        dir.display()
    );
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let local = sqlchess::sql::context();
    let (base, rows) = time(&local, &query, runs).await;
    println!("in process ({cores} partitions): {base:.2} s median, {rows} rows");
    for (executors, tasks) in [(1, cores), (2, cores.div_ceil(2).max(1))] {
        let cluster =
            LocalCluster::start(executors, tasks, SchedulerOptions::default()).expect("cluster");
        let ctx = cluster.context().await.expect("client");
        ctx.sql(&format!(
            "SET datafusion.execution.target_partitions = {cores}"
        ))
        .await
        .expect("set");
        let (secs, n) = time(&ctx, &query, runs).await;
        assert_eq!(n, rows, "rows on the cluster");
        // the shuffle files of all runs (warm-up included) are still there
        let shuffled = bytes_below(cluster.work_dir()) / (runs as u64 + 1);
        println!(
            "{executors} executor(s) x {tasks} task(s): {secs:.2} s median ({:.2}x in process), \
             {shuffled} bytes of shuffle files per query",
            secs / base
        );
    }
}
