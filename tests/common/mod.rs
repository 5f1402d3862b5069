//! Helpers shared by the test targets.
#![allow(dead_code)]

pub mod cli;
pub mod movetext;
pub mod perft;
pub mod split_games;

use std::path::PathBuf;

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::UInt64Type;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use sqlchess::pgn::PgnReader;
use sqlchess::validate::{GameReport, validate_games};
use sqlchess::{Engine, PipelineConfig, Setup};

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

pub async fn engine() -> Engine {
    Engine::new(PipelineConfig::default())
        .await
        .expect("engine")
}

pub fn setup(fen: &str) -> Setup {
    Setup::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The rows of a SQL query on `ctx`; panics naming the query when it fails.
pub async fn query(
    ctx: &datafusion::prelude::SessionContext,
    q: &str,
) -> Vec<datafusion::arrow::array::RecordBatch> {
    ctx.sql(q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// A file of tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A legal move as the engine reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Mv {
    pub uci: String,
    pub san: String,
    /// The engine's `is_check` column: the move gives check.
    pub is_check: bool,
    /// The engine's `is_mate` column: the move gives checkmate.
    pub is_mate: bool,
}

/// Legal moves per position (index into `setups`), sorted by UCI.
pub async fn moves_by_position(e: &Engine, setups: &[Setup]) -> Vec<Vec<Mv>> {
    let mut out = vec![vec![]; setups.len()];
    for b in e.legal_moves(setups).await.expect("legal moves") {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let uci = b.column_by_name("uci").expect("uci").as_string::<i32>();
        let san = b.column_by_name("san").expect("san").as_string::<i32>();
        let check = b.column_by_name("is_check").expect("is_check").as_boolean();
        let mate = b.column_by_name("is_mate").expect("is_mate").as_boolean();
        for i in 0..b.num_rows() {
            out[id.value(i) as usize].push(Mv {
                uci: uci.value(i).to_string(),
                san: san.value(i).to_string(),
                is_check: check.value(i),
                is_mate: mate.value(i),
            });
        }
    }
    for v in &mut out {
        v.sort_by(|a, b| a.uci.cmp(&b.uci));
    }
    out
}

pub async fn ucis(e: &Engine, fen: &str) -> Vec<String> {
    moves_by_position(e, &[setup(fen)])
        .await
        .remove(0)
        .into_iter()
        .map(|m| m.uci)
        .collect()
}

/// Validates PGN text and returns the reports.
pub async fn validate_text(e: &Engine, pgn: &str) -> Vec<GameReport> {
    let games: Vec<_> = PgnReader::new(pgn.as_bytes())
        .map(|g| ("test.pgn", g.expect("read")))
        .collect();
    validate_games(e, &games).await.expect("validate")
}

/// Plays SAN moves from a FEN and returns the final FEN (all moves must be legal).
pub async fn play(e: &Engine, fen: &str, sans: &[&str]) -> String {
    let pgn = format!("[FEN \"{fen}\"]\n[SetUp \"1\"]\n\n{} *\n", sans.join(" "));
    let r = validate_text(e, &pgn).await.remove(0);
    assert_eq!(r.error_kind, None, "{r:?}");
    r.final_fen.expect("final fen")
}

/// A seeded pseudo-random number generator (64-bit LCG, high bits): the same sequence on
/// every run.
pub fn seeded_rng(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    }
}

/// Positions of seeded random games played with shakmaty, with their legal moves as
/// (UCI, SAN with +/#) sorted by UCI.
pub fn random_playout_positions(seed: u64, n: usize) -> Vec<(String, Vec<(String, String)>)> {
    let mut next = seeded_rng(seed);
    let mut out = vec![];
    while out.len() < n {
        let mut pos = Chess::default();
        for _ in 0..160 {
            let moves = pos.legal_moves();
            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            let mut listed: Vec<(String, String)> = moves
                .iter()
                .map(|m| {
                    (
                        m.to_uci(CastlingMode::Standard).to_string(),
                        SanPlus::from_move(pos.clone(), *m).to_string(),
                    )
                })
                .collect();
            listed.sort();
            out.push((fen, listed));
            if moves.is_empty() || out.len() >= n {
                break;
            }
            let m = moves[next() % moves.len()];
            pos.play_unchecked(m);
        }
    }
    out
}

/// Reports of one move-less game per FEN (tags `FEN`, `SetUp "1"`): the engine's final FEN
/// (python-chess conventions) and status (`position_status`) of each position as given.
pub async fn reports_of_positions(e: &Engine, fens: &[&str]) -> Vec<GameReport> {
    let pgn: String = fens
        .iter()
        .map(|f| format!("[FEN \"{}\"]\n[SetUp \"1\"]\n\n*\n\n", f.trim()))
        .collect();
    let reports = validate_text(e, &pgn).await;
    assert_eq!(reports.len(), fens.len(), "one game per FEN");
    reports
}

/// The FEN with the other side to move and no en passant square: the side to move of `fen`
/// is in check exactly when the engine refuses this one as `opposite_check`.
pub fn other_side_to_move(fen: &str) -> String {
    let mut f: Vec<&str> = fen.split_whitespace().collect();
    f[1] = if f[1] == "w" { "b" } else { "w" };
    if f.len() > 3 {
        f[3] = "-";
    }
    f.join(" ")
}

/// Whether the side to move is in check, by the engine: [`Engine::check_setups`] of
/// [`other_side_to_move`] says `opposite_check` (FIDE Laws art. 3.9: the side not to move
/// cannot be in check).
pub async fn side_to_move_in_check(e: &Engine, fens: &[&str]) -> Vec<bool> {
    let flipped: Vec<Setup> = fens.iter().map(|f| setup(&other_side_to_move(f))).collect();
    e.check_setups(&flipped)
        .await
        .expect("setup checks")
        .into_iter()
        .map(|v| match v {
            None => false,
            Some(e) if e.kind.as_str() == "opposite_check" => true,
            Some(other) => panic!("unexpected verdict {other:?}"),
        })
        .collect()
}

/// A small seeded pseudo-random generator (SplitMix64): the same seed gives the same
/// sequence on every machine, so every failing case can be made again.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }
}

/// A count from the environment variable `name` (digits, `_` allowed), else `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// The position after a null move as python-chess plays it (`board.push(Move.null())`): the
/// other side to move, no en passant square, the halfmove clock one more, the fullmove
/// number one more after Black's. (shakmaty's `swap_turn` keeps the clocks.)
pub fn after_null_move(pos: &Chess) -> Chess {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    let mut f: Vec<String> = fen.split(' ').map(str::to_string).collect();
    let black = f[1] == "b";
    f[1] = if black { "w" } else { "b" }.into();
    f[3] = "-".into();
    f[4] = (f[4].parse::<u32>().expect("halfmove clock") + 1).to_string();
    if black {
        f[5] = (f[5].parse::<u32>().expect("fullmove number") + 1).to_string();
    }
    f.join(" ")
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("position after a null move")
}

/// A session of `partitions` target partitions with the chess tables and
/// `SET sqlchess.split_bytes = {split_bytes}`.
pub async fn split_context(
    partitions: usize,
    split_bytes: u64,
) -> datafusion::prelude::SessionContext {
    let ctx = datafusion::prelude::SessionContext::new_with_config(
        datafusion::prelude::SessionConfig::new().with_target_partitions(partitions),
    );
    sqlchess::sql::register(&ctx);
    ctx.sql(&format!("SET sqlchess.split_bytes = {split_bytes}"))
        .await
        .expect("set")
        .collect()
        .await
        .expect("set");
    ctx
}

/// The rows of `SELECT {columns} FROM {table}('{path}') ORDER BY {order}` (one batch) on `ctx`,
/// and the byte ranges its scan reads ([`sqlchess::sql::PgnScanExec::partitions`]): how
/// many, and how many are less than a whole file.
pub async fn read_with_split(
    ctx: &datafusion::prelude::SessionContext,
    columns: &str,
    table: &str,
    path: &str,
    order: &str,
) -> (datafusion::arrow::array::RecordBatch, usize, usize) {
    use datafusion::physical_plan::{ExecutionPlan, collect};
    use sqlchess::sql::PgnScanExec;
    fn scan_ranges(plan: &std::sync::Arc<dyn ExecutionPlan>, out: &mut (usize, usize)) {
        if let Some(s) = plan.downcast_ref::<PgnScanExec>() {
            for r in s.partitions().iter().flatten() {
                out.0 += 1;
                out.1 += usize::from(!r.is_whole());
            }
        }
        for c in plan.children() {
            scan_ranges(c, out);
        }
    }
    let df = ctx
        .sql(&format!(
            "SELECT {columns} FROM {table}('{path}') ORDER BY {order}"
        ))
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let schema = df.schema().inner().clone();
    let plan = df.create_physical_plan().await.expect("plan");
    let batches = collect(plan.clone(), ctx.task_ctx())
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut ranges = (0, 0);
    scan_ranges(&plan, &mut ranges);
    let all = datafusion::arrow::compute::concat_batches(&schema, &batches).expect("concat");
    (all, ranges.0, ranges.1)
}

/// Every `.pgn` file below `dir`, sorted.
pub fn pgn_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pgn") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The columns of `read_pgn` that need no rules.
pub const READ_PGN_TAG_COLUMNS: &str = "file, game_index, event, site, date, round, white, \
     black, result, white_elo, black_elo, time_control, termination, eco, opening, utc_date, \
     utc_time, start_fen, tags, moves";

/// Each file read cut into up to `partitions` ranges at game boundaries
/// (`sqlchess.split_bytes` 1) gives exactly the rows read as one partition (0): the
/// columns of `read_pgn` that need no rules for every file, every column (the rules run)
/// for the files `rules` accepts, and every column of `read_plies` for those `plies`
/// accepts (files that are not text at all are left out: they are
/// refused whole). Returns the number of files that were cut.
pub async fn split_reads_agree(
    files: &[PathBuf],
    rules: impl Fn(&std::path::Path) -> bool,
    plies: impl Fn(&std::path::Path) -> bool,
    partitions: usize,
) -> usize {
    let one = split_context(partitions, 0).await;
    let cut_ctx = split_context(partitions, 1).await;
    let mut cut = 0;
    for f in files {
        // a file that is not text at all is refused whole (`not a PGN file`), cut or not
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if sqlchess::io::input::not_text(&bytes[..bytes.len().min(64 * 1024)]).is_some() {
            continue;
        }
        let path = f.display().to_string();
        let columns = if rules(f) { "*" } else { READ_PGN_TAG_COLUMNS };
        let q = |ctx| read_with_split(ctx, columns, "read_pgn", &path, "game_index");
        let (whole, n, _) = q(&one).await;
        assert_eq!(n, 1, "{path}: one range unsplit");
        let (split, _, parts) = q(&cut_ctx).await;
        assert_eq!(split, whole, "{path}: read_pgn split in {parts} ranges");
        cut += usize::from(parts > 0);
        if plies(f) {
            let order = "game_index, ply";
            let (whole, _, _) = read_with_split(&one, "*", "read_plies", &path, order).await;
            let (split, _, _) = read_with_split(&cut_ctx, "*", "read_plies", &path, order).await;
            assert_eq!(split, whole, "{path}: read_plies split");
        }
    }
    cut
}

/// A fresh, empty directory under the system temp dir (`sqlchess-NAME-…`), removed with
/// everything in it when the value is dropped: at the end of its test, passed or failed.
/// Reads as the [`Path`](std::path::Path) of the directory.
pub struct Scratch(tempfile::TempDir);

/// A [`Scratch`] directory for a test named `name`.
pub fn scratch(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("sqlchess-{name}-"))
        .tempdir()
        .expect("temp dir");
    Scratch(dir)
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// The text of every cell of `batches`, row by row (NULL as the empty string).
pub fn cells(batches: &[datafusion::arrow::array::RecordBatch]) -> Vec<Vec<String>> {
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let mut out = vec![];
    for b in batches {
        let cols: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).expect("fmt"))
            .collect();
        for i in 0..b.num_rows() {
            out.push(cols.iter().map(|c| c.value(i).to_string()).collect());
        }
    }
    out
}

/// The cells ([`cells`]) of `q` run on a new [`sqlchess::sql::context`].
pub async fn sql_cells(q: &str) -> Vec<Vec<String>> {
    cells(&query(&sqlchess::sql::context(), q).await)
}
