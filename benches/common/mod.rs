//! Helpers shared by the benches.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use datafusion::arrow::array::RecordBatch;
use sqlchess::io::input::{ByteCounter, expand, is_pgn_name};

/// The positions of tests/data/oracle_positions.csv with python-chess's number of legal
/// moves (`legal_move_count`).
pub fn fens() -> Vec<(String, usize)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/oracle_positions.csv"
    );
    let mut rdr = csv::Reader::from_path(path).expect("oracle positions");
    rdr.records()
        .map(|r| {
            let r = r.expect("row");
            (r[0].to_string(), r[1].parse().expect("legal_move_count"))
        })
        .collect()
}

/// Rows of record batches.
pub fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}

/// The positive number in environment variable `name`, else `default`.
pub fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// The shared data directory: `SQLCHESS_SHARED_DATA`, default `../shared/data`.
pub fn shared_data() -> PathBuf {
    std::env::var("SQLCHESS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")))
}

/// The directories and PGN files directly under `root` (the shared `pgn` directory),
/// sorted, without `variants`: the shared standard PGN.
pub fn standard_pgn_inputs(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().is_some_and(|n| n != "variants")
                        && (p.is_dir() || is_pgn_name(&p.to_string_lossy()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The median of `v` (0 when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The target directory (`CARGO_TARGET_DIR`, default `target`): where benches keep the
/// inputs they make.
pub fn target_dir() -> PathBuf {
    let dir = PathBuf::from(
        std::env::var("CARGO_TARGET_DIR")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target").into()),
    );
    std::fs::create_dir_all(&dir).expect("target dir");
    dir
}

/// `bench-1gib.pgn` in the target directory: the PGN files of `paths` (decompressed)
/// concatenated, in order and whole passes, until the file reaches 1 GiB; made once.
pub fn one_gib_file(paths: &[PathBuf]) -> PathBuf {
    use std::io::Write;
    const GIB: u64 = 1 << 30;
    let big = target_dir().join("bench-1gib.pgn");
    if std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0) < GIB {
        let files: Vec<Vec<u8>> = expand(paths)
            .expect("inputs")
            .iter()
            .map(|i| {
                let mut text = vec![];
                std::io::Read::read_to_end(
                    &mut i.open(&ByteCounter::new()).expect("open"),
                    &mut text,
                )
                .expect("read");
                text
            })
            .collect();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&big).expect("create"));
        let mut written = 0u64;
        while written < GIB {
            for f in &files {
                out.write_all(f).expect("write");
                out.write_all(b"\n\n").expect("write");
                written += f.len() as u64 + 2;
            }
        }
        out.flush().expect("flush");
    }
    big
}
