//! `sqlchess profile` and `sqlchess explain --analyze` on both pipelines (ours: `fide`, the
//! seed replica: `seed`), through the library functions of `sqlchess::profile` and once
//! through the binary.

use std::process::Command;

use sqlchess::profile::{self, DEFAULT_POSITIONS, PipelineKind, ProfileReport, Workload};
use sqlchess::stages::Stage;
use sqlchess::{Engine, PipelineConfig};

use crate::common::scratch;

/// Stages `Engine::legal_moves` runs, all of which produce rows on the default positions
/// (`castling` and `king_lines` run inside `legal_moves` and `move_checks`: `stages::FUSED`).
const FIDE_STAGES: &[&str] = &[
    "placed",
    "boards",
    "pseudo_moves",
    "threats",
    "legal_moves",
    "move_checks",
    "checking_moves",
    "reply_counts",
    "move_flags",
    "san",
    "next_positions",
    "next_pieces",
];

/// The seed's table stages (views are inlined into them), all with rows on the default
/// positions.
const SEED_STAGES: &[&str] = &[
    "positions",
    "stage1",
    "stage6",
    "stage7",
    "stage8",
    "stage13",
];

async fn engine() -> Engine {
    Engine::new(PipelineConfig::default())
        .await
        .expect("engine")
}

fn check_report(report: &ProfileReport, stages: &[&str]) {
    let names: Vec<&str> = report.rows.iter().map(|r| r.stage.as_str()).collect();
    assert_eq!(names, stages, "stages of the {:?} profile", report.pipeline);
    for r in &report.rows {
        assert!(r.runs >= 1, "{}: no run", r.stage);
        assert!(r.rows > 0, "{}: no rows", r.stage);
        assert!(
            r.execution > std::time::Duration::ZERO,
            "{}: no execution time",
            r.stage
        );
        assert!(
            (0.0..=100.0).contains(&r.share),
            "{}: share {}",
            r.stage,
            r.share
        );
    }
    let shares: f64 = report.rows.iter().map(|r| r.share).sum();
    assert!((shares - 100.0).abs() < 0.01, "shares sum to {shares}");
    // DataFusion's metrics were read: compute time on the heavy stages, peak memory somewhere
    assert!(report.compute() > std::time::Duration::ZERO);
    assert!(
        report
            .rows
            .iter()
            .any(|r| r.peak_memory.is_some_and(|m| m > 0))
    );
    let table = report.to_table();
    assert_eq!(table.lines().count(), stages.len() + 3, "{table}");
    for st in stages {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(st)),
            "no row for {st}:\n{table}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_fide_default_positions() {
    let engine = engine().await;
    let workload = Workload::default_positions(DEFAULT_POSITIONS);
    let report = profile::run_profile(&engine, PipelineKind::Fide, &workload)
        .await
        .expect("profile");
    check_report(&report, FIDE_STAGES);
    let legal = report
        .rows
        .iter()
        .find(|r| r.stage == "legal_moves")
        .expect("legal_moves row");
    // 1,000 positions (the fixture's 288, cycled): their 29,086 legal moves (python-chess's
    // legal_move_count) plus the 3,783 legal replies to their checking moves (python-chess:
    // tests/data/oracle_positions.csv checking_moves_uci, one ply on)
    assert_eq!(legal.rows, 32_869);
    // the fused stages are named beside their readers, in the rows and in the table
    let fused: Vec<(&str, Vec<String>)> = report
        .rows
        .iter()
        .filter(|r| !r.fused.is_empty())
        .map(|r| (r.stage.as_str(), r.fused.clone()))
        .collect();
    assert_eq!(
        fused,
        [
            ("legal_moves", vec!["castling".to_string()]),
            ("move_checks", vec!["king_lines".to_string()])
        ]
    );
    let table = report.to_table();
    let line = |st: &str| -> &str {
        let found = table.lines().find(|l| l.starts_with(&format!("{st} ")));
        found.unwrap_or_else(|| panic!("no row for {st}:\n{table}"))
    };
    assert!(line("legal_moves").ends_with(" +castling"), "{table}");
    assert!(line("move_checks").ends_with(" +king_lines"), "{table}");
    assert!(!line("san").contains('+'), "{table}");
    let dir = scratch("profile");
    let path = dir.join("fide.json");
    report.write_json(&path).expect("json");
    let text = std::fs::read_to_string(&path).expect("read json");
    assert_eq!(text.lines().count(), FIDE_STAGES.len());
    for (line, st) in text.lines().zip(FIDE_STAGES) {
        let fused = match *st {
            "legal_moves" => "castling",
            "move_checks" => "king_lines",
            _ => "",
        };
        assert!(
            line.starts_with(&format!(
                "{{\"pipeline\":\"fide\",\"stage\":\"{st}\",\"fused\":\"{fused}\",\"runs\":"
            )),
            "{line}"
        );
        assert!(line.contains("\"share_pct\":"), "{line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_seed_default_positions() {
    let engine = engine().await;
    let workload = Workload::default_positions(DEFAULT_POSITIONS);
    let report = profile::run_profile(&engine, PipelineKind::Seed, &workload)
        .await
        .expect("profile");
    check_report(&report, SEED_STAGES);
    assert!(report.rows.iter().all(|r| r.runs == 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_analyze_legal_moves_both_pipelines() {
    let engine = engine().await;
    let workload = Workload::default_positions(DEFAULT_POSITIONS);
    let fide = profile::explain(
        &engine,
        PipelineKind::Fide,
        Some("legal_moves"),
        Some(&workload),
    )
    .await
    .expect("explain fide");
    assert!(
        fide.contains("== stage legal_moves\n-- logical plan\n"),
        "{fide}"
    );
    assert!(fide.contains("-- profile: 2 runs, "), "{fide}");
    assert!(
        fide.contains("-- physical plan with metrics (last run)\n"),
        "{fide}"
    );
    assert!(
        fide.contains("output_rows=") && fide.contains("elapsed_compute="),
        "{fide}"
    );
    // the kept plans are dropped afterwards
    assert!(engine.pipeline().last_plan(Stage::LegalMoves).is_none());

    let seed = profile::explain(
        &engine,
        PipelineKind::Seed,
        Some("legal_moves"),
        Some(&workload),
    )
    .await
    .expect("explain seed");
    assert!(
        seed.contains("== seed stage stage13 (Table)\n-- logical plan\n"),
        "{seed}"
    );
    assert!(
        seed.contains("-- physical plan with metrics (last run)\n"),
        "{seed}"
    );
    assert!(
        seed.contains("output_rows=") && seed.contains("elapsed_compute="),
        "{seed}"
    );

    // without --analyze: plans only, every stage of each pipeline
    let all = profile::explain(&engine, PipelineKind::Seed, None, None)
        .await
        .expect("explain seed");
    assert_eq!(
        all.matches("== seed stage ").count(),
        sqlchess::seed::SEED_STAGES.len()
    );
    assert!(!all.contains("metrics="));
    assert!(
        profile::explain(&engine, PipelineKind::Fide, Some("no_such_stage"), None)
            .await
            .is_err()
    );
}

/// DataFusion's metrics are read per run: the root operator's `output_rows` of a stage's
/// last executed plan is that run's row count, not a sum over earlier runs (physical plans
/// are re-executed after `reset_plan_states`, which must give them fresh metrics).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_per_run() {
    let engine = engine().await;
    let Workload::Positions { setups, .. } = Workload::default_positions(300) else {
        unreachable!()
    };
    let p = engine.pipeline();
    p.keep_last_plans(true);
    engine.legal_moves(&setups).await.expect("legal moves");
    // run_legal leaves every LEGAL table as its last run made it (legal_moves restores some)
    engine.load(&setups[..100]).await.expect("load");
    engine.run_legal().await.expect("run_legal");
    let tables = sqlchess::stages::LEGAL.stages.iter();
    for st in tables.filter(|s| !sqlchess::stages::FUSED.contains(s)) {
        let rows: usize = p
            .table(*st)
            .await
            .expect("table")
            .iter()
            .map(|b| b.num_rows())
            .sum();
        let plan = p.last_plan(*st).expect("kept plan");
        let m = sqlchess::session::plan_metrics(plan.as_ref());
        assert_eq!(m.output_rows, Some(rows as u64), "{st}");
    }
    let profile = p.profile();
    let (_, legal) = profile
        .iter()
        .find(|(n, _)| n == "legal_moves")
        .expect("legal_moves");
    assert_eq!(legal.runs, 3);
    p.keep_last_plans(false);
    assert!(p.last_plan(Stage::LegalMoves).is_none());
}

#[test]
fn binary_profile_and_explain() {
    let exe = env!("CARGO_BIN_EXE_sqlchess");
    let dir = scratch("profile-bin");
    let json = dir.join("seed.json");
    let out = Command::new(exe)
        .args(["profile", "--pipeline", "seed", "--json"])
        .arg(&json)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sqlchess profile");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("pipeline seed: 1000 positions"),
        "{stdout}"
    );
    for st in SEED_STAGES {
        assert!(
            stdout
                .lines()
                .any(|l| l.split_whitespace().next() == Some(st)),
            "no row for {st}:\n{stdout}"
        );
    }
    assert!(stdout.contains("\ntotal "), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&json)
            .expect("json")
            .lines()
            .count(),
        SEED_STAGES.len()
    );

    let out = Command::new(exe)
        .args(["explain", "--analyze", "legal_moves"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sqlchess explain");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("-- physical plan with metrics (last run)"),
        "{stdout}"
    );
}

/// The default workload's positions are the `fen` column of tests/data/oracle_positions.csv
/// (the library's copy is data/positions.fen), cycled.
#[test]
fn default_workload_is_the_oracle_positions_cycled() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/oracle_positions.csv"
    );
    let text = std::fs::read_to_string(path).expect("oracle_positions.csv");
    let oracle = profile::parse_fens(&text, path).expect("fens");
    assert_eq!(oracle.len(), 288);
    let Workload::Positions { setups, source } = Workload::default_positions(300) else {
        panic!("default workload is not positions")
    };
    let want: Vec<_> = oracle.iter().copied().cycle().take(300).collect();
    assert_eq!(setups, want);
    assert_eq!(
        source,
        "300 positions: data/positions.fen (288 real-game positions, cycled)"
    );
}

/// (stage, runs, rows) of a profile: the figures that do not depend on timing.
fn figures(report: &ProfileReport) -> Vec<(String, u64, u64)> {
    report
        .rows
        .iter()
        .map(|r| (r.stage.clone(), r.runs, r.rows))
        .collect()
}

/// PGN files are read through the input layer: a zstd (or gzip) copy of a PGN file is
/// decompressed, recognised by its first bytes, and profiles as the plain file does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_reads_compressed_pgn_as_the_plain_file() {
    use std::io::Write as _;

    let engine = engine().await;
    let plain = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pgn/sample.pgn"
    ));
    let text = std::fs::read(&plain).expect("sample.pgn");
    let dir = tempfile::tempdir().expect("temp dir");
    let zst = dir.path().join("sample.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write zst");
    let gz = dir.path().join("sample.pgn.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&text).expect("gzip");
    std::fs::write(&gz, enc.finish().expect("gzip")).expect("write gz");

    let starts = profile::start_positions(std::slice::from_ref(&plain)).expect("starts");
    assert_eq!(starts.len(), 20, "the games of sample.pgn");
    for pipeline in [PipelineKind::Fide, PipelineKind::Seed] {
        let want = profile::run_profile(&engine, pipeline, &Workload::Games(vec![plain.clone()]))
            .await
            .expect("profile of the plain file");
        assert!(want.rows.iter().any(|r| r.rows > 0), "{pipeline}: {want:?}");
        for path in [&zst, &gz] {
            let got = profile::run_profile(&engine, pipeline, &Workload::Games(vec![path.clone()]))
                .await
                .unwrap_or_else(|e| panic!("{pipeline}: {}: {e}", path.display()));
            assert_eq!(
                figures(&got),
                figures(&want),
                "{pipeline}: {}",
                path.display()
            );
            assert_eq!(
                got.input,
                want.input
                    .replace(&plain.display().to_string(), &path.display().to_string()),
                "{pipeline}"
            );
        }
    }
    assert_eq!(
        profile::start_positions(&[zst]).expect("zst starts"),
        starts
    );
}

/// The games' start positions follow validation's rule (`validate::start_position`): a
/// Chess960 game (`Variant` and `FEN` tags) starts from its own set-up in Chess960 mode, a
/// game of another variant is left out. The FEN is one standard chess rejects (king on b1
/// with a castling right), so the game was dropped before; validation plays it to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_starts_chess960_games_from_their_own_position() {
    use sqlchess::Setup;
    use sqlchess::pgn::PgnReader;
    use sqlchess::validate::validate_games;

    const FEN: &str = "4k3/8/8/8/8/8/8/RK6 w Q - 0 1";
    let pgn = format!(
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN}\"]\n\n1. O-O-O Ke7 2. Rd2 Ke6 *\n\n\
         [Variant \"Crazyhouse\"]\n\n1. e4 e5 *\n\n\
         [Event \"standard\"]\n\n1. e4 e5 2. Nf3 *\n\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("chess960.pgn");
    std::fs::write(&path, &pgn).expect("write pgn");
    let c960 = Setup::from_fen_chess960(FEN).expect("Chess960 FEN");
    assert!(c960.chess960);
    assert!(Setup::from_fen(FEN).is_err(), "standard chess rejects it");

    // the seed pipeline runs the start positions: the Chess960 set-up and the standard one
    let starts = profile::start_positions(std::slice::from_ref(&path)).expect("starts");
    assert_eq!(starts, vec![c960, Setup::standard()]);
    let engine = engine().await;
    let seed = profile::run_profile(
        &engine,
        PipelineKind::Seed,
        &Workload::Games(vec![path.clone()]),
    )
    .await
    .expect("seed profile");
    assert!(
        seed.input.starts_with("2 start positions of the games of "),
        "{}",
        seed.input
    );
    let own = profile::run_profile(
        &engine,
        PipelineKind::Seed,
        &Workload::Positions {
            setups: vec![c960, Setup::standard()],
            source: "the two start positions".into(),
        },
    )
    .await
    .expect("seed profile of the positions");
    assert_eq!(figures(&seed), figures(&own));

    // our pipeline validates the games as `validate` does: the same stage figures, and the
    // Chess960 game played from its set-up to its end with no illegal move
    let fide = profile::run_profile(
        &engine,
        PipelineKind::Fide,
        &Workload::Games(vec![path.clone()]),
    )
    .await
    .expect("fide profile");
    let games: Vec<(&str, _)> = PgnReader::new(pgn.as_bytes())
        .map(|g| ("chess960.pgn", g.expect("game")))
        .collect();
    engine.pipeline().reset_profile();
    let reports = validate_games(&engine, &games).await.expect("validate");
    assert_eq!(
        figures(&ProfileReport::of_engines(std::slice::from_ref(&engine))),
        figures(&fide)
    );
    assert_eq!((reports[0].plies, reports[0].error_kind), (4, None));
    assert_eq!(
        reports[0].final_fen.as_deref(),
        Some("8/8/4k3/8/8/8/3R4/2K5 w - - 4 3")
    );
    assert_eq!(
        reports[1].error_kind.map(|k| k.as_str()),
        Some("unsupported_variant")
    );
    assert_eq!((reports[2].plies, reports[2].error_kind), (3, None));
}
