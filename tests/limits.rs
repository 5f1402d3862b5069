//! Limits and outputs (issue 11): report files appear under their name only when complete,
//! Ctrl-C stops `validate` cleanly with a summary of what was written where, and
//! `--memory-limit` stops a run that cannot stay within it with an error naming the limit
//! (exit 2); perft stays within it (levels spilled to disk, positions in chunks).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use sqlchess::session::SessionError;
use sqlchess::session::memory::MemoryBudget;
use sqlchess::{Engine, Error, PipelineConfig};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.pgn")
}

/// A fresh, empty directory of its own under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sqlchess-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn sqlchess(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqlchess"));
    c.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(args: &[&str]) -> Output {
    sqlchess(args).output().expect("run sqlchess")
}

/// The names of the files in a directory, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_complete_run_renames_its_outputs_and_leaves_no_temporary_file() {
    let dir = temp_dir("complete");
    let out = dir.join("report.csv");
    let plies = dir.join("plies.parquet");
    let sample = sample();
    let o = run(&[
        "validate",
        sample.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
        "--plies",
        plies.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(names(&dir), ["plies.parquet", "report.csv"]);
    // header + the 20 games of sample.pgn
    let text = std::fs::read_to_string(&out).expect("report");
    assert_eq!(text.lines().count(), 21);
    // a second run replaces the file in one rename
    let o = run(&[
        "validate",
        sample.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).expect("report"), text);
    assert_eq!(names(&dir), ["plies.parquet", "report.csv"]);
}

#[test]
fn a_failing_run_leaves_no_file_at_out() {
    let dir = temp_dir("failing");
    let out = dir.join("report.csv");
    let sample = sample();
    // the ply table cannot be created: the run fails after the report file was opened
    let o = run(&[
        "validate",
        sample.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
        "--plies",
        dir.join("missing/plies.csv").to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing"), "{}", stderr(&o));
    assert_eq!(names(&dir), Vec::<String>::new());
    // the run stops in the middle (memory limit): nothing at --out, no temporary file
    let o = run(&[
        "--memory-limit",
        "16MiB",
        "validate",
        sample.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("memory limit of 16.0 MiB exceeded"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&dir), Vec::<String>::new());
}

#[test]
fn ctrl_c_stops_validate_cleanly_with_a_summary() {
    let dir = temp_dir("sigint");
    // a large input: sample.pgn 400 times (8,000 games)
    let sample = std::fs::read(sample()).expect("sample");
    let big = dir.join("big.pgn");
    std::fs::write(&big, sample.repeat(400)).expect("write input");
    let out = dir.join("report.csv");
    let child = sqlchess(&[
        "validate",
        big.to_str().expect("path"),
        "--batch",
        "100",
        "--threads",
        "1",
        "--out",
        out.to_str().expect("path"),
    ])
    .spawn()
    .expect("spawn");
    // wait until some batches are written to the temporary file
    let t0 = Instant::now();
    loop {
        let written = std::fs::read_dir(&dir).expect("dir").flatten().any(|e| {
            e.file_name().to_string_lossy().ends_with(".tmp")
                && e.metadata().is_ok_and(|m| m.len() > 10_000)
        });
        if written {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "no rows written");
        std::thread::sleep(Duration::from_millis(50));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let o = child.wait_with_output().expect("wait");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    // the summary, and where the games went
    let games: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("games: "))
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {err}"));
    assert!(
        games > 0 && games < 8_000 && games % 100 == 0,
        "{games}: {err}"
    );
    let partial = dir.join("report.csv.partial");
    assert!(
        err.contains(&format!(
            "interrupted: {games} games validated and written to {}",
            partial.display()
        )),
        "{err}"
    );
    assert_eq!(names(&dir), ["big.pgn", "report.csv.partial"]);
    let text = std::fs::read_to_string(&partial).expect("partial report");
    assert_eq!(text.lines().count() as u64, games + 1);
}

#[test]
fn perft_stays_within_a_small_memory_limit() {
    // a level larger than its share of 64 MiB (an 8th) goes to disk, positions go through
    // the stages in chunks that fit: depth 5 (its level 4: 197,281 nodes, 72,078 positions
    // once merged) completes exactly
    let o = run(&["--memory-limit", "64MiB", "perft", START, "5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("nodes: 4865609"));
    assert!(stderr(&o).contains("peak memory: "), "{}", stderr(&o));
    // a size that is not one
    let o = run(&["--memory-limit", "lots", "perft", START, "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("memory limit \"lots\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_library_reports_the_limit_as_a_typed_error() {
    common::rt().block_on(async {
        let config = PipelineConfig {
            memory: MemoryBudget::new(40 << 20).expect("budget"),
            ..PipelineConfig::default()
        };
        let e = Engine::new(config).await.expect("engine");
        let start = common::setup(START);
        assert_eq!(e.perft(&[start], 3).await.expect("perft 3"), [8902]);
        // the legal moves of 20,000 positions at once do not fit in 40 MiB
        match e.legal_moves(&vec![start; 20_000]).await {
            Err(Error::Session(SessionError::MemoryLimit { limit, what })) => {
                assert_eq!(limit, 40 << 20);
                assert!(!what.is_empty());
            }
            other => panic!("expected a memory limit error, got {:?}", other.map(|_| ())),
        }
        // the stage tables count: the engine is usable again after the refusal
        assert!(e.pipeline().session().memory().bytes() < 40 << 20);
        assert_eq!(e.perft(&[start], 4).await.expect("perft 4"), [197_281]);
    });
}
