//! Helpers shared by the benches.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use sqlchess::io::input::{ByteCounter, expand, is_pgn_name};

/// The allocator of the command line and the Python module (mimalloc, `no_thp`), so that the
/// benches time the library as they ship it (BENCHMARKS.md: the system allocator's figures
/// beside these).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// The positions of the position-query oracle: gzip TSV, header first, column 0 `fen`
/// (tests/data/README.md).
pub const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/position_queries_oracle.tsv.gz"
);

/// The first `n` FENs of [`ORACLE`].
pub fn oracle_fens(n: usize) -> Vec<String> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(ORACLE).expect("oracle positions");
    std::io::BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .skip(1)
        .take(n)
        .map(|l| {
            let l = l.expect("oracle line");
            l.split('\t').next().expect("fen").to_string()
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

/// The glob of the shared standard PGN files under `root` (the shared `pgn` directory): its
/// directories' `.pgn` files, without `variants/`, for `read_plies` and `read_pgn`.
pub fn standard_pgn_glob(root: &Path) -> String {
    format!("{}/[!v]*/*.pgn", root.display())
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

/// One run of a process: wall seconds, peak resident memory (MiB) and standard output.
pub struct Measured {
    pub wall: f64,
    pub peak_mib: f64,
    pub stdout: String,
}

/// Runs `program` with `args` to the end, polling its peak resident memory (the largest
/// `VmHWM` of the process, read from `/proc` every 5 ms).
///
/// Panics, with the end of its standard error, when it cannot start or exits with a status
/// other than 0, or 1 for `validate` (some game of the input is illegal): a bench's input
/// is fixed.
pub fn measure(program: &Path, args: &[String]) -> Measured {
    let out_path = target_dir().join("bench-process.stdout");
    let err_path = target_dir().join("bench-process.stderr");
    let out = std::fs::File::create(&out_path).expect("stdout file");
    let err = std::fs::File::create(&err_path).expect("stderr file");
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Some(kib) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak_kib = peak_kib.max(kib);
        }
        match child.try_wait().expect("wait") {
            Some(s) => break s,
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let wall = start.elapsed().as_secs_f64();
    let validate_found_illegal =
        args.first().is_some_and(|a| a == "validate") && status.code() == Some(1);
    if !status.success() && !validate_found_illegal {
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = &lines[lines.len().saturating_sub(5)..];
        panic!(
            "{} {args:?}: {status}\n{}",
            program.display(),
            tail.join("\n")
        );
    }
    Measured {
        wall,
        peak_mib: peak_kib as f64 / 1024.0,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
    }
}

/// The python that can `import chess`, if any: `SQLCHESS_PYTHON`, default `python3`.
pub fn python_chess() -> Option<PathBuf> {
    let python = PathBuf::from(std::env::var("SQLCHESS_PYTHON").unwrap_or("python3".into()));
    let ok = Command::new(&python)
        .args(["-c", "import chess"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// The strings of `v`, owned (a process's arguments).
pub fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The path of the python-chess script `name` of `benches/python/`.
pub fn script(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/benches/python/").to_string() + name
}

/// The first number `sqlchess sql --format csv` printed: the first field of the line after
/// the header.
pub fn printed_number(stdout: &str) -> Option<f64> {
    stdout
        .lines()
        .nth(1)
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.trim().parse::<f64>().ok())
}

/// `bench-random-N.pgn` under the target directory: `n` distinct games of seeded random
/// legal moves (10 to 80 plies each, moves drawn by a fixed xorshift; shakmaty, a
/// dev-dependency, plays them: the input of a bench, not its work), each with random Elo
/// tags, a `TimeControl` and a `UTCDate`, so that the explorer's groups spread. Written once.
pub fn random_games_file(n: usize) -> PathBuf {
    use shakmaty::{Chess, Position, san::SanPlus};
    use std::collections::HashSet;
    use std::io::Write;
    let path = target_dir().join(format!("bench-random-{n}.pgn"));
    if path.exists() {
        return path;
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let controls = ["60+0", "180+2", "300+0", "600+5", "1800+20"];
    let tmp = path.with_extension("tmp");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
    let mut seen: HashSet<u64> = HashSet::with_capacity(n);
    let mut written = 0;
    while written < n {
        let mut pos = Chess::default();
        let mut sans = vec![];
        let plies = 10 + next(71);
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let k = next(moves.len());
            // FNV-1a of the moves' indices: the game's identity
            hash = (hash ^ k as u64).wrapping_mul(0x0000_0100_0000_01b3);
            let m = moves[k];
            sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        if !seen.insert(hash) {
            continue;
        }
        let (white, black) = (800 + next(2000), 800 + next(2000));
        let movetext: Vec<String> = sans
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| format!("{}. {}", i + 1, pair.join(" ")))
            .collect();
        let result = ["1-0", "0-1", "1/2-1/2"][next(3)];
        writeln!(
            out,
            "[Event \"random {written}\"]\n[UTCDate \"2025.{:02}.{:02}\"]\n[WhiteElo \"{white}\"]\n\
             [BlackElo \"{black}\"]\n[TimeControl \"{}\"]\n[Result \"{result}\"]\n\n{} {result}\n",
            1 + next(12),
            1 + next(28),
            controls[next(controls.len())],
            movetext.join(" ")
        )
        .expect("write");
        written += 1;
    }
    out.flush().expect("flush");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename");
    path
}
