//! Same answers whatever the settings: `sqlchess validate` gives byte-identical reports and
//! ply tables for `--threads 1/2/3` × `--batch 1/7/default` on about 200 varied shared games,
//! and identical reports over all shared PGN at the default batch with `--threads 1/2/3`.
//! `SQLCHESS_SETTINGS_FULL=1`: the full matrix (threads × batches, reports and ply tables)
//! over all shared PGN instead (opt-in; long).

use std::path::{Path, PathBuf};
use std::process::Command;

use sqlchess::pgn::PgnReader;

use crate::common::scratch;

const THREADS: [&str; 3] = ["1", "2", "3"];
const BATCHES: [Option<&str>; 3] = [Some("1"), Some("7"), None];

/// Runs `validate` on `inputs` with the settings; returns the report (and the ply table).
fn validate(
    inputs: &[PathBuf],
    threads: &str,
    batch: Option<&str>,
    plies: bool,
    dir: &Path,
) -> (Vec<u8>, Option<Vec<u8>>) {
    let tag = format!("t{threads}-b{}", batch.unwrap_or("default"));
    let report = dir.join(format!("report-{tag}.csv"));
    let ply_table = dir.join(format!("plies-{tag}.csv"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlchess"));
    cmd.arg("validate")
        .args(inputs)
        .arg("--out")
        .arg(&report)
        .args(["--threads", threads]);
    if let Some(b) = batch {
        cmd.args(["--batch", b]);
    }
    if plies {
        cmd.arg("--plies").arg(&ply_table);
    }
    let out = cmd.output().expect("run sqlchess");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{tag}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read(&report).expect("report");
    let plies = plies.then(|| std::fs::read(&ply_table).expect("ply table"));
    (report, plies)
}

/// Every setting's output equals the first one's (`--threads 1`, `--batch 1`).
fn same_answers(inputs: &[PathBuf], batches: &[Option<&str>], plies: bool, dir: &Path) -> usize {
    // the first setting's name, its report and its per-ply table
    type Output = (String, (Vec<u8>, Option<Vec<u8>>));
    let mut first: Option<Output> = None;
    let mut runs = 0;
    for threads in THREADS {
        for &batch in batches {
            let got = validate(inputs, threads, batch, plies, dir);
            let tag = format!("--threads {threads} --batch {}", batch.unwrap_or("default"));
            runs += 1;
            match &first {
                None => first = Some((tag, got)),
                Some((first_tag, want)) => {
                    assert!(got.0 == want.0, "report of {tag} differs from {first_tag}");
                    assert!(
                        got.1 == want.1,
                        "ply table of {tag} differs from {first_tag}"
                    );
                }
            }
        }
    }
    if let Some((_, (report, table))) = &first {
        let rows = csv::Reader::from_reader(&report[..]).records().count();
        eprintln!(
            "same answers in {runs} runs: {rows} report rows{}",
            table
                .as_ref()
                .map(|t| format!(
                    ", {} ply rows",
                    csv::Reader::from_reader(&t[..]).records().count()
                ))
                .unwrap_or_default()
        );
    }
    runs
}

/// All shared PGN: the `pgn` directory, sample.pgn, the Chess960 games and the bad inputs,
/// file by file, without those `validate` refuses whole as not PGN files
/// (`bad/malformed/binary_blob.pgn`: an I/O error, exit status 2).
fn all_shared() -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = ["pgn", "sample.pgn", "chess960", "bad"]
        .iter()
        .map(|p| super::shared(p))
        .filter(|p| p.exists())
        .collect();
    sqlchess::io::input::expand(&dirs)
        .expect("inputs")
        .into_iter()
        .filter(|i| {
            !matches!(
                i.open(&sqlchess::io::input::ByteCounter::new()),
                Err(sqlchess::Error::NotPgn { .. })
            )
        })
        .map(|i| PathBuf::from(i.name))
        .collect()
}

/// 200 games spread evenly over all shared PGN (in input order) among those of at most 60
/// move tokens without a structural fault (short, so that `--batch 1` with the ply table
/// stays quick): miniatures with mates, forfeits, set-up endgames, Chess960 and other
/// variants, illegal and malformed games.
fn varied_games(dir: &Path) -> (PathBuf, usize) {
    let inputs = sqlchess::io::input::expand(&all_shared()).expect("inputs");
    let mut candidates = vec![];
    for input in &inputs {
        let mut r = input
            .open(&sqlchess::io::input::ByteCounter::new())
            .expect("open");
        let mut bytes = vec![];
        std::io::Read::read_to_end(&mut r, &mut bytes).expect("read");
        candidates.extend(
            PgnReader::new(&bytes[..])
                .map(|g| g.expect("read"))
                .filter(|g| g.fault.is_none() && g.moves.len() <= 60),
        );
    }
    let n = candidates.len().min(200);
    let mut out = String::new();
    for i in 0..n {
        let g = &candidates[i * candidates.len() / n];
        for (k, v) in &g.tags {
            out += &format!(
                "[{k} \"{}\"]\n",
                v.replace('\\', "\\\\").replace('"', "\\\"")
            );
        }
        out += "\n";
        out += &g.moves.join(" ");
        out += &format!(" {}\n\n", g.result.as_deref().unwrap_or("*"));
    }
    let path = dir.join("varied.pgn");
    std::fs::write(&path, out).expect("write");
    (path, n)
}

#[test]
fn same_reports_and_ply_tables_for_threads_and_batches() {
    let dir = scratch("settings-varied");
    let full = std::env::var("SQLCHESS_SETTINGS_FULL").is_ok_and(|v| v == "1");
    if full {
        let runs = same_answers(&all_shared(), &BATCHES, true, &dir);
        assert_eq!(runs, 9);
    } else {
        let (varied, n) = varied_games(&dir);
        assert_eq!(n, 200, "varied games");
        let runs = same_answers(&[varied], &BATCHES, true, &dir);
        assert_eq!(runs, 9);
        // everything at the default batch
        let runs = same_answers(&all_shared(), &[None], false, &dir);
        assert_eq!(runs, 3);
    }
}
