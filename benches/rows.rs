//! The rows of issue 15's table (BENCHMARKS.md, "The rows of issue 15") as whole processes.
//! Each row runs this build's `sqlchess` binary, and python-chess where the row compares with
//! it (the scripts of `benches/python/`, the two taking turns run by run), checks what it
//! printed, and prints the figure the row names: the median wall time of the runs, the peak
//! resident memory (the largest `VmHWM` of the process, read from `/proc` every 5 ms) and the
//! row's rate or ratio, next to the row's target.
//!
//! The speed of the library rows (`legal_moves` full API and generation only, batch 10,000;
//! one position with notation; one SAN move) is criterion's, in-process (`cargo bench --bench
//! legal_moves`, `--bench pipelines`); here each is also run as a whole process (`moves
//! --fens` of 10,000 positions, `moves` of one FEN, `fen_after` of one SAN move) for its peak
//! memory and its time with start-up.
//!
//! Environment: `SQLCHESS_BENCH_RUNS` (runs per row, default 3); `SQLCHESS_BENCH_DEEP=1`
//! (also perft 7, `moves --fens` of 1,000,000 positions, and `validate`, `read_pgn` tags
//! only and `read_pgn` with the rules over the 1 GiB file: about 16 minutes more per run on
//! 2 cores); `SQLCHESS_PYTHON` (a python with python-chess, default `python3`; rows against
//! python-chess print a message instead when it cannot `import chess`);
//! `SQLCHESS_SHARED_DATA` (default `../shared/data`: the `validate` and SQL rows, left out
//! when its `pgn` directory is not there). Arguments:
//! substrings of row names, to run only those rows (`cargo bench --bench rows -- perft`).
//!
//! The SQL rows of issue 13 (`read_plies`, `read_pgn` with and without the rules) are here
//! too, with the shared data, and `plies_of` over a Parquet movetext column against
//! `read_plies` over the same games as PGN (issue 33: at least as fast per ply; the games of
//! the shared standard files, written once under the target directory as
//! `bench-movetext.parquet` and `bench-movetext.pgn`).
//!
//! With `SQLCHESS_BENCH_DEEP=1`, `explorer(…, 20)` over the 1 GiB file against `read_plies`
//! of it (issue 33: at least 5×), and over 1,000,000 distinct random games
//! (`bench-random-1000000.pgn`, written once) under `--memory-limit 1GiB`.
//!
//! FEN inputs are `tests/data/oracle_positions.csv` cycled, written once under the target
//! directory (`bench-fens-N.txt`).

mod common;
use common::{
    env_num, fens, measure, median, one_gib_file, printed_number, python_chess, random_games_file,
    script, shared_data, standard_pgn_glob, standard_pgn_inputs, strings, target_dir,
};

use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "../tests/common/split_games.rs"]
mod split_games;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// One row of the table.
struct Row {
    name: String,
    /// The `sqlchess` arguments.
    sqlchess: Vec<String>,
    /// What the `sqlchess` output must contain.
    expect: String,
    /// What the row compares with, run by turns with it: a python-chess script (under
    /// `benches/python/`) and its arguments, or other `sqlchess` arguments.
    against: Option<Against>,
    /// What the row's rate counts.
    work: Work,
    target: &'static str,
}

/// The other side of a row that compares.
enum Against {
    Python(Vec<String>),
    Sqlchess(&'static str, Vec<String>),
}

/// What a row's rate counts.
enum Work {
    None,
    /// A fixed number of units (nodes, positions) and their name.
    Fixed(f64, &'static str),
    /// Games: the rows of the report `sqlchess validate --out` wrote.
    ReportRows,
    /// The number `sqlchess sql --format csv` printed first, and its name.
    Printed(&'static str),
}

/// `bench-fens-N.txt`: the oracle positions cycled to `n` lines.
fn fen_file(n: usize) -> String {
    let path = target_dir().join(format!("bench-fens-{n}.txt"));
    if !path.exists() {
        let lines: Vec<String> = fens().into_iter().map(|(f, _)| f).collect();
        let text: String = lines
            .iter()
            .cycle()
            .take(n)
            .flat_map(|l| [l.as_str(), "\n"])
            .collect();
        std::fs::write(&path, text).expect("write FENs");
    }
    path.display().to_string()
}

/// The rows, deep ones with `deep`.
fn rows(deep: bool) -> Vec<Row> {
    let out = |ext: &str| {
        target_dir()
            .join(format!("bench-rows.{ext}"))
            .display()
            .to_string()
    };
    let perft = |depth: u32, nodes: u64, python: bool, target| Row {
        name: format!("perft start {depth}"),
        sqlchess: strings(&["perft", START, &depth.to_string()]),
        expect: format!("nodes: {nodes}"),
        against: python.then(|| Against::Python(vec![script("perft.py"), depth.to_string()])),
        work: Work::Fixed(nodes as f64, "nodes"),
        target,
    };
    let moves = |n: usize, python: bool, target| Row {
        name: format!("moves --fens {n}"),
        sqlchess: vec![
            "moves".into(),
            "--fens".into(),
            fen_file(n),
            "--out".into(),
            out("csv"),
        ],
        expect: String::new(),
        against: python.then(|| Against::Python(vec![script("moves.py"), fen_file(n)])),
        work: Work::Fixed(n as f64, "positions"),
        target,
    };
    let mut rows = vec![
        perft(5, 4_865_609, true, "≥ 10× python-chess"),
        perft(6, 119_060_324, false, "≤ 20 s, ≤ 2 GiB"),
        moves(
            1_000,
            false,
            "cost per position flat within ±20 % from 1k to 1M",
        ),
        moves(
            10_000,
            false,
            "as the library row: ≥ 60,000 positions/s (criterion, in-process)",
        ),
        moves(20_000, true, "≥ 5× python-chess"),
        moves(100_000, false, "cost per position flat within ±20 %"),
        moves(300_000, false, "≤ 1 GiB"),
        Row {
            name: "moves, one position".into(),
            sqlchess: strings(&["moves", START]),
            expect: "Nf3".into(),
            against: None,
            work: Work::None,
            target: "≤ 3 ms in-process (criterion); here with start-up",
        },
        Row {
            name: "fen_after, one SAN move".into(),
            sqlchess: vec![
                "sql".into(),
                format!("SELECT fen_after('{START}', 'Nf3') AS f"),
                "--format".into(),
                "csv".into(),
            ],
            expect: "5N2".into(),
            against: None,
            work: Work::None,
            target: "≤ 1 ms in-process (criterion); here with start-up",
        },
    ];
    let pgn = shared_data().join("pgn");
    let files: Vec<String> = sqlchess::io::input::expand(&standard_pgn_inputs(&pgn))
        .map(|v| v.into_iter().map(|i| i.name).collect())
        .unwrap_or_default();
    if !files.is_empty() {
        let validate = [strings(&["validate", "--out", &out("csv")]), files.clone()].concat();
        rows.push(Row {
            name: "validate, shared standard PGN".into(),
            sqlchess: validate.clone(),
            expect: String::new(),
            against: Some(Against::Python(
                [vec![script("validate.py")], files.clone()].concat(),
            )),
            work: Work::ReportRows,
            target: "≥ 15× python-chess",
        });
        // the standard files only: the glob leaves out `variants/`
        let glob = standard_pgn_glob(&pgn);
        let sql = |query: String| strings(&["sql", &query, "--format", "csv"]);
        rows.push(Row {
            name: "read_plies, shared standard PGN".into(),
            sqlchess: sql(format!(
                "SELECT count(*), count(DISTINCT position_key) FROM read_plies('{glob}')"
            )),
            expect: String::new(),
            against: Some(Against::Python(
                [vec![script("position_keys.py")], files.clone()].concat(),
            )),
            work: Work::Printed("plies"),
            target: "≥ 20× python-chess (issue 32); ≥ 200,000 plies/s (issue 13)",
        });
        rows.push(Row {
            name: "read_pgn full rules, shared standard PGN".into(),
            sqlchess: sql(format!(
                "SELECT count(*), count(DISTINCT final_status) FROM read_pgn('{glob}')"
            )),
            expect: String::new(),
            against: Some(Against::Sqlchess("validate", validate.clone())),
            work: Work::Printed("games"),
            target: "at least as fast as validate (issue 13)",
        });
        let (parquet, pgn) = movetext_files(&files);
        rows.push(Row {
            name: "plies_of, Parquet movetext of the shared standard PGN".into(),
            sqlchess: sql(format!(
                "SELECT count(*), count(DISTINCT p['position_key']) FROM (SELECT \
                 unnest(plies_of(movetext, start_fen, chess960)) AS p FROM '{parquet}')"
            )),
            expect: String::new(),
            against: Some(Against::Sqlchess(
                "read_plies of the same games",
                sql(format!(
                    "SELECT count(*), count(DISTINCT position_key) FROM read_plies('{pgn}')"
                )),
            )),
            work: Work::Printed("plies"),
            target: "at least as fast per ply as read_plies (issue 33)",
        });
        // the same values on both sides: plies_of computes every field of its struct
        // whatever the query reads, read_plies only the columns selected
        let fields = "count(*), count(DISTINCT {position_key}), count(DISTINCT {fen_after}), \
                      count(DISTINCT {uci}), count(DISTINCT {san}), sum({ply}), \
                      sum({clock_s}), sum({eval_cp}), sum({eval_mate}), \
                      sum(CAST({is_capture} AS INT) + CAST({is_check} AS INT) \
                      + CAST({is_checkmate} AS INT))";
        let named = |item: &dyn Fn(&str) -> String| {
            let mut q = fields.to_string();
            for f in [
                "position_key",
                "fen_after",
                "uci",
                "san",
                "ply",
                "clock_s",
                "eval_cp",
                "eval_mate",
                "is_capture",
                "is_checkmate",
                "is_check",
            ] {
                q = q.replace(&format!("{{{f}}}"), &item(f));
            }
            q
        };
        rows.push(Row {
            name: "plies_of, Parquet movetext, the struct's 11 fields read on both sides".into(),
            sqlchess: sql(format!(
                "SELECT {} FROM (SELECT unnest(plies_of(movetext, start_fen, chess960)) AS p \
                 FROM '{parquet}')",
                named(&|f| format!("p['{f}']"))
            )),
            expect: String::new(),
            against: Some(Against::Sqlchess(
                "read_plies of the same games, the same columns",
                sql(format!(
                    "SELECT {} FROM read_plies('{pgn}')",
                    named(&|f| f.to_string())
                )),
            )),
            work: Work::Printed("plies"),
            target: "at least as fast per ply as read_plies (issue 33)",
        });
    } else {
        println!(
            "rows: {} not found: the validate rows are left out",
            pgn.display()
        );
    }
    if deep {
        rows.push(perft(7, 3_195_901_860, false, "exact, ≤ 10 min, ≤ 4 GiB"));
        rows.push(moves(1_000_000, false, "≤ 1 GiB, cost per position flat"));
        if pgn.is_dir() {
            let big = one_gib_file(&standard_pgn_inputs(&pgn));
            let file = big.display().to_string();
            rows.push(Row {
                name: "read_pgn tags only, 1 GiB file".into(),
                sqlchess: strings(&[
                    "sql",
                    &format!("SELECT count(*), count(DISTINCT white) FROM read_pgn('{file}')"),
                    "--format",
                    "csv",
                ]),
                expect: String::new(),
                against: None,
                work: Work::Printed("games"),
                target: "≥ 50,000 games/s (issue 13)",
            });
            rows.push(Row {
                name: "read_pgn full rules, 1 GiB file".into(),
                sqlchess: strings(&[
                    "sql",
                    &format!(
                        "SELECT count(*), count(DISTINCT final_status) FROM read_pgn('{file}')"
                    ),
                    "--format",
                    "csv",
                ]),
                expect: String::new(),
                against: None,
                work: Work::Printed("games"),
                target: "≥ validate's games/s, < 1 GiB (issue 13)",
            });
            let sql = |query: String| strings(&["sql", &query, "--format", "csv"]);
            rows.push(Row {
                name: "explorer(…, 20), 1 GiB file".into(),
                sqlchess: sql(format!(
                    "SELECT sum(games), count(*) FROM explorer('{file}', 20)"
                )),
                expect: String::new(),
                against: Some(Against::Sqlchess(
                    "read_plies of the same file",
                    sql(format!(
                        "SELECT count(*), count(DISTINCT position_key) FROM read_plies('{file}')"
                    )),
                )),
                work: Work::Printed("plies"),
                target: "≥ 5× read_plies (issue 33)",
            });
            let random = random_games_file(1_000_000).display().to_string();
            rows.push(Row {
                name: "explorer(…, 20), 1,000,000 random games, --memory-limit 1GiB".into(),
                sqlchess: [
                    strings(&["--memory-limit", "1GiB"]),
                    sql(format!(
                        "SELECT sum(games), count(*) FROM explorer('{random}', 20)"
                    )),
                ]
                .concat(),
                expect: String::new(),
                against: None,
                work: Work::Printed("plies"),
                target: "under --memory-limit 1GiB (issue 33)",
            });
            rows.push(Row {
                name: "validate, 1 GiB file".into(),
                sqlchess: strings(&["validate", &big.display().to_string(), "--out", &out("csv")]),
                expect: String::new(),
                against: None,
                work: Work::ReportRows,
                target: "≥ 10,000 games/s, ≤ 1 GiB",
            });
        }
    }
    rows
}

/// `bench-movetext.parquet` (columns `movetext`, `start_fen`, `chess960`) and
/// `bench-movetext.pgn` (the same games: their `FEN` and `Variant` tags and movetext) of the
/// games of `files`, the text after each tag section ([`split_games::movetexts`]; files it
/// splits otherwise than our reader left out), written once.
fn movetext_files(files: &[String]) -> (String, String) {
    use datafusion::arrow::array::{BooleanArray, RecordBatch, StringArray};
    use datafusion::dataframe::DataFrameWriteOptions;
    use sqlchess::validate::Variant;

    let parquet = target_dir().join("bench-movetext.parquet");
    let pgn = target_dir().join("bench-movetext.pgn");
    let name = |p: &Path| p.display().to_string();
    if parquet.exists() && pgn.exists() {
        return (name(&parquet), name(&pgn));
    }
    let (mut texts, mut fens, mut chess960, mut out) = (vec![], vec![], vec![], String::new());
    for f in files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let games: Vec<_> = sqlchess::pgn::PgnReader::new(&bytes[..])
            .filter_map(Result::ok)
            .collect();
        let moves = split_games::movetexts(text);
        if games.len() != moves.len() {
            continue;
        }
        for (g, m) in games.iter().zip(moves) {
            let c960 = g.tag("Variant").map(Variant::of) == Some(Variant::Chess960);
            if let Some(fen) = g.tag("FEN") {
                out += &format!("[FEN \"{fen}\"]\n");
            }
            if c960 {
                out += "[Variant \"Chess960\"]\n";
            }
            out += &format!("\n{m}\n\n");
            fens.push(g.tag("FEN").map(str::to_string));
            chess960.push(c960);
            texts.push(m);
        }
    }
    std::fs::write(&pgn, out).expect("write bench-movetext.pgn");
    let batch = RecordBatch::try_from_iter(vec![
        ("movetext", Arc::new(StringArray::from(texts)) as _),
        ("start_fen", Arc::new(StringArray::from(fens)) as _),
        ("chess960", Arc::new(BooleanArray::from(chess960)) as _),
    ])
    .expect("batch");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let ctx = datafusion::prelude::SessionContext::new();
        ctx.read_batch(batch)
            .expect("frame")
            .write_parquet(&name(&parquet), DataFrameWriteOptions::new(), None)
            .await
            .expect("write bench-movetext.parquet");
    });
    (name(&parquet), name(&pgn))
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let runs = env_num("SQLCHESS_BENCH_RUNS", 3);
    let deep = std::env::var("SQLCHESS_BENCH_DEEP").is_ok_and(|v| v == "1");
    let sqlchess = PathBuf::from(env!("CARGO_BIN_EXE_sqlchess"));
    let python = python_chess();
    if python.is_none() {
        println!(
            "rows: no python with python-chess (SQLCHESS_PYTHON, pip install chess): those figures are left out"
        );
    }
    let mut per_position: Vec<(usize, f64)> = vec![];
    let report = target_dir().join("bench-rows.csv");
    // one run not counted: the first start of a freshly built binary reads it from disk
    measure(&sqlchess, &strings(&["moves", START]));
    let mut ran = 0;
    for row in rows(deep) {
        if !filters.is_empty() && !filters.iter().any(|f| row.name.contains(f.as_str())) {
            continue;
        }
        // the other side's program and label, when it can run here
        let other = match &row.against {
            Some(Against::Python(args)) => python.clone().map(|p| (p, args, "python-chess")),
            Some(Against::Sqlchess(label, args)) => Some((sqlchess.clone(), args, *label)),
            None => None,
        };
        let (mut ours, mut theirs, mut peak, mut their_peak) = (vec![], vec![], 0f64, 0f64);
        let mut printed = String::new();
        for _ in 0..runs {
            let m = measure(&sqlchess, &row.sqlchess);
            assert!(
                m.stdout.contains(&row.expect),
                "{}: output lacks {:?}",
                row.name,
                row.expect
            );
            ours.push(m.wall);
            peak = peak.max(m.peak_mib);
            printed = m.stdout;
            if let Some((program, args, _)) = &other {
                let t = measure(program, args);
                theirs.push(t.wall);
                their_peak = their_peak.max(t.peak_mib);
            }
        }
        let wall = median(ours);
        let mut line = format!("{}: {wall:.3} s, peak {peak:.0} MiB", row.name);
        let work = match row.work {
            Work::None => None,
            Work::Fixed(units, name) => Some((units, name)),
            Work::ReportRows => {
                let report = std::fs::read_to_string(&report).unwrap_or_default();
                Some((report.lines().count().saturating_sub(1) as f64, "games"))
            }
            Work::Printed(name) => printed_number(&printed).map(|n| (n, name)),
        };
        if let Some((units, name)) = work {
            line += &format!(", {:.0} {name}/s", units / wall);
            if name == "positions" {
                per_position.push((units as usize, wall / units * 1e6));
                line += &format!(" ({:.1} µs each)", wall / units * 1e6);
            }
        }
        if let Some((_, _, label)) = &other {
            let t = median(theirs);
            line += &format!(
                "; {label} {t:.3} s, peak {their_peak:.0} MiB: {:.2}× faster",
                t / wall
            );
        }
        println!("{line}; target: {} ({runs} run(s))", row.target);
        ran += 1;
    }
    if ran == 0 {
        println!("rows: no row's name contains any of {filters:?}");
    }
    if let Some(&(_, base)) = per_position.iter().find(|(n, _)| *n == 100_000) {
        let spread: Vec<String> = per_position
            .iter()
            .map(|(n, us)| format!("{n}: {:+.0} %", (us / base - 1.0) * 100.0))
            .collect();
        println!(
            "moves --fens, cost per position against 100,000: {}",
            spread.join(", ")
        );
    }
}
