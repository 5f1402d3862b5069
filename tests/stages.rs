//! Stage tests as data (sqllogictest style, as DataFusion pins its SQL behaviour): each file
//! `tests/stages/<stage>.slt` holds cases of positions in (FEN, and a move token where the
//! stage needs one) and the rows expected out of that one stage, so that a wrong perft or game
//! result can be traced to the stage that goes wrong.
//!
//! File format (`#` starts a comment line):
//!
//! ```text
//! columns from_sq:sq to_sq:sq promotion     # default columns of the file's cases
//! case <title>
//! fen <FEN>                                  # one line per position: position_id 0, 1, …
//! fen960 <FEN>                               # a position in Chess960 mode (Setup::chess960)
//! token <SAN or UCI>                         # the move token of the fen line above
//! pattern <text> [w|b]                       # a pattern of the fen line above (several
//!                                            # lines: several patterns): a board pattern
//!                                            # with its side to move for `subfen_matches`,
//!                                            # a material description for `material_matches`
//! columns …                                  # optional: this case's own columns
//! ----
//! <one line per row: the columns' values separated by one space, rows sorted>
//! <a blank line ends the case>
//! ```
//!
//! A column is printed as its value (`NULL` for null), or with `:sq` as a square name
//! (`e4`), or with `:set` as the square set of a 64-bit column (`e1,e2`, `-` if empty), or
//! with `:move` as the UCI of a move code (`from + 64 * to + 4096 * promotion index`; a
//! castling names the rook's square, `e1h1`), or with `:child` as the child position id
//! `position_id * 32768 + move_code` written `<position_id>/<UCI of the move code>`; a
//! negative value (no square, no move) is printed as it is.
//! Rows are compared as sorted lists of such lines.
//!
//! Every stage of [`sqlchess::stages::Stage::ALL`] has its file, and every file names a stage
//! (`every_stage_has_a_file`).
//!
//! `SQLCHESS_BLESS=1 cargo test --release --test tests -- stages::` rewrites the expected rows of every
//! file with what the engine gives, for review with `git diff`. Blessing cannot make a wrong
//! value pass unnoticed: besides the comparison with the file, every case of every stage is
//! checked by [`facts`] against shakmaty 0.30 (legal moves, SAN, checks, mates, pins, attacks,
//! positions after a move, perft counts; the token stages by python-chess 1.11's
//! `Board.parse_san` rules over shakmaty's legal moves, the set-up checks by python-chess's
//! `Board.status()` rules over shakmaty's attacks), in both modes.

use crate::common;
use common::*;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, Int32Type, Int64Type, UInt64Type};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position,
    PositionErrorKinds, Role, Square, attacks,
};
use sqlchess::chess::san::{SanToken, parse_san};
use sqlchess::chess::square::square_name;
use sqlchess::engine::CHILD_STRIDE;
use sqlchess::stages::tables;
use sqlchess::{Engine, Setup};

// ---------------------------------------------------------------------------------------
// Running a stage

/// Loads a case's positions (and tokens), runs the pipeline up to `stage` and returns the
/// stage's rows. The one function of this file that names stages and tables.
async fn run_stage(e: &Engine, stage: &str, case: &Case) -> Vec<RecordBatch> {
    use sqlchess::stages::{APPLY, InputTable, LEGAL, POSITION, REPLAY, Stage, TOKENS};
    let p = e.pipeline();
    let setups: Vec<Setup> = case
        .fens
        .iter()
        .zip(&case.chess960)
        .map(|(f, c)| setup_in(f, *c))
        .collect();
    let pairs: Vec<(u64, &Setup)> = setups
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u64, s))
        .collect();
    let tokens: Vec<(u64, SanToken)> = case
        .tokens
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.as_ref().map(|t| (i as u64, t)))
        .map(|(i, t)| {
            (
                i,
                parse_san(t)
                    .unwrap_or_else(|err| panic!("token {t}: {err}"))
                    .0,
            )
        })
        .collect();
    let token_refs: Vec<(u64, &SanToken)> = tokens.iter().map(|(i, t)| (*i, t)).collect();
    let stage: Stage = stage.parse().unwrap_or_else(|err| panic!("{stage}: {err}"));
    let run = async |stages: &[Stage]| {
        let mut last = vec![];
        for s in stages {
            last = p.run(*s).await.unwrap_or_else(|err| panic!("{s}: {err}"));
            if *s == stage {
                break;
            }
        }
        last
    };
    let set = async |table: InputTable, batches: Vec<RecordBatch>| {
        p.set_table(table, batches)
            .await
            .unwrap_or_else(|err| panic!("{}: {err}", table.name()))
    };
    let set_tokens = async || {
        let batch = tables::tokens_to_batch(&token_refs).expect("tokens");
        set(InputTable::Tokens, vec![batch]).await;
    };
    match stage {
        Stage::San => return e.legal_moves(&setups).await.expect("legal moves"),
        // the notation workflow as `Engine::legal_moves` runs it (the legal-move stages once
        // more on the positions after the checking moves); each stage's table keeps its rows
        Stage::CheckingMoves | Stage::ReplyCounts | Stage::MoveFlags => {
            e.legal_moves(&setups).await.expect("legal moves");
            return p.table(stage).await.expect("table");
        }
        s if REPLAY.stages.contains(&s) => {
            let states = tables::setups_to_states(&pairs).expect("states");
            let joined = tables::replay_tokens_batch(std::slice::from_ref(&states), &token_refs)
                .expect("replay tokens");
            set(InputTable::ReplayTokens, vec![joined]).await;
            set(InputTable::ReplayStates, vec![states]).await;
            return run(REPLAY.stages).await;
        }
        // the searches on the board as square sets, with the case's patterns
        Stage::SubfenMatches
        | Stage::MaterialCounts
        | Stage::Imbalances
        | Stage::MaterialMatches => {
            let states = tables::setups_to_states(&pairs).expect("states");
            set(InputTable::ReplayStates, vec![states]).await;
            let mut subfen = vec![];
            let mut material = vec![];
            for (i, patterns) in case.patterns.iter().enumerate() {
                for text in patterns {
                    if stage == Stage::SubfenMatches {
                        let (board, side) = match text.split_once(' ') {
                            Some((b, "w")) => (b, Some(sqlchess::chess::color::Color::White)),
                            Some((b, "b")) => (b, Some(sqlchess::chess::color::Color::Black)),
                            _ => (text.as_str(), None),
                        };
                        let p = sqlchess::chess::subfen::SubfenPattern::parse(board)
                            .unwrap_or_else(|err| panic!("pattern {text}: {err}"));
                        subfen.push((i as u64, side, p));
                    } else {
                        let p = sqlchess::chess::material_pattern::parse(text)
                            .unwrap_or_else(|err| panic!("pattern {text}: {err}"));
                        material.push((i as u64, p));
                    }
                }
            }
            let subfen: Vec<_> = subfen.iter().map(|(i, s, p)| (*i, *s, p)).collect();
            let material: Vec<_> = material.iter().map(|(i, p)| (*i, p)).collect();
            set(
                InputTable::SubfenPatterns,
                vec![tables::subfen_patterns_to_batch(&subfen).expect("patterns")],
            )
            .await;
            set(
                InputTable::MaterialPatterns,
                vec![tables::material_patterns_to_batch(&material).expect("patterns")],
            )
            .await;
            return run(&[
                Stage::SubfenMatches,
                Stage::MaterialCounts,
                Stage::Imbalances,
                Stage::MaterialMatches,
            ])
            .await;
        }
        _ => {}
    }
    e.load(&setups).await.expect("load");
    let legal = run(LEGAL.stages).await;
    match stage {
        s if LEGAL.stages.contains(&s) => legal,
        Stage::KingLines | Stage::MoveChecks => run(&[Stage::KingLines, Stage::MoveChecks]).await,
        Stage::PositionKeys | Stage::PositionStatus => {
            run(&[Stage::PositionKeys, Stage::PositionStatus]).await
        }
        Stage::SetupChecks => run(&[Stage::SetupChecks]).await,
        s if POSITION.stages.contains(&s) => run(POSITION.stages).await,
        Stage::FlippedPositions => {
            set_tokens().await;
            run(&[Stage::FlippedPositions]).await
        }
        Stage::PerftMoves => run(&[Stage::PerftMoves]).await,
        Stage::PerftChildren | Stage::PerftFrontier | Stage::PerftMerge | Stage::PerftCounts => {
            // each position its own root, multiplicity position_id + 1; every legal move;
            // `perft_merge` and `perft_counts` after two levels, as `Engine::perft_with` runs
            // them (the level's nodes merged, loaded and expanded again)
            let ids: Vec<u64> = (0..setups.len() as u64).collect();
            let nodes = RecordBatch::try_from_iter([
                ("position_id", uint64s(&ids)),
                ("root_id", uint64s(&ids)),
                (
                    "multiplicity",
                    uint64s(&ids.iter().map(|i| i + 1).collect::<Vec<_>>()),
                ),
            ])
            .expect("nodes");
            set(InputTable::PerftNodes, vec![nodes]).await;
            for level in 1..=2 {
                let moves = run(&[Stage::PerftMoves]).await;
                set(InputTable::ChosenMoves, moves).await;
                let children = run(&[Stage::PerftChildren]).await;
                if stage == Stage::PerftChildren {
                    return children;
                }
                e.advance().await.expect("advance");
                let frontier = run(&[Stage::PositionKeys, Stage::PerftFrontier]).await;
                if stage == Stage::PerftFrontier {
                    return frontier;
                }
                set(InputTable::PerftBucket, frontier).await;
                let merged = run(&[Stage::PerftMerge]).await;
                if stage == Stage::PerftMerge && level == 2 {
                    return merged;
                }
                let Some(first) = merged.first() else {
                    return vec![];
                };
                let merged = concat_batches(&first.schema(), &merged).expect("concat");
                let modes = &case.chess960;
                let (positions, pieces, nodes) =
                    tables::nodes_to_batches(&merged, |root| modes[root as usize]).expect("nodes");
                set(InputTable::Positions, vec![positions]).await;
                set(InputTable::Pieces, vec![pieces]).await;
                set(InputTable::PerftNodes, vec![nodes]).await;
                run(LEGAL.stages).await;
            }
            run(&[Stage::PerftCounts]).await
        }
        s if TOKENS.stages.contains(&s) || APPLY.stages.contains(&s) => {
            set_tokens().await;
            let chosen = run(TOKENS.stages).await;
            if TOKENS.stages.contains(&stage) {
                return chosen;
            }
            set(InputTable::ChosenMoves, chosen).await;
            run(APPLY.stages).await
        }
        other => panic!("no workflow for stage {other} in tests/stages.rs"),
    }
}

// ---------------------------------------------------------------------------------------
// Files

/// How a column's values are printed.
#[derive(Clone, Copy, PartialEq)]
enum Render {
    Plain,
    Square,
    Set,
    Move,
    Child,
    /// A piece's code (rule `role_code`) as its letter.
    Piece,
    /// A `replay_moves` row's role code as its name.
    ReplayRole,
    /// A Boolean `white_to_move` or `white` as the FEN's colour letter (`w`, `b`).
    Side,
}

#[derive(Clone)]
struct Column {
    name: String,
    render: Render,
}

struct Case {
    title: String,
    fens: Vec<String>,
    /// Per position: loaded in Chess960 mode (`fen960`).
    chess960: Vec<bool>,
    tokens: Vec<Option<String>>,
    /// Per position: its patterns (`pattern` lines).
    patterns: Vec<Vec<String>>,
    columns: Vec<Column>,
    expected: Vec<String>,
    /// Lines of the file holding the expected rows (start, end exclusive), for blessing.
    rows: (usize, usize),
}

fn parse_columns(spec: &str) -> Vec<Column> {
    spec.split_whitespace()
        .map(|c| {
            let (name, render) = match c.split_once(':') {
                Some((n, "sq")) => (n, Render::Square),
                Some((n, "set")) => (n, Render::Set),
                Some((n, "move")) => (n, Render::Move),
                Some((n, "child")) => (n, Render::Child),
                Some((n, "piece")) => (n, Render::Piece),
                Some((n, "replay_role")) => (n, Render::ReplayRole),
                Some((n, "side")) => (n, Render::Side),
                Some((_, r)) => panic!("unknown rendering {r} in {c}"),
                None => (c, Render::Plain),
            };
            Column {
                name: name.to_string(),
                render,
            }
        })
        .collect()
}

fn parse_file(path: &Path, text: &str) -> Vec<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let mut default_columns: Option<Vec<Column>> = None;
    let mut cases: Vec<Case> = vec![];
    let mut i = 0;
    let at = |i: usize| format!("{}:{}", path.display(), i + 1);
    while i < lines.len() {
        let line = lines[i].trim_end();
        if line.is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        if let Some(spec) = line.strip_prefix("columns ") {
            default_columns = Some(parse_columns(spec));
            i += 1;
            continue;
        }
        let title = line
            .strip_prefix("case ")
            .unwrap_or_else(|| panic!("{}: expected `case`, `columns` or a comment", at(i)));
        let mut case = Case {
            title: title.to_string(),
            fens: vec![],
            chess960: vec![],
            tokens: vec![],
            patterns: vec![],
            columns: default_columns.clone().unwrap_or_default(),
            expected: vec![],
            rows: (0, 0),
        };
        i += 1;
        while i < lines.len() && lines[i].trim_end() != "----" {
            let l = lines[i].trim_end();
            let fen = l.strip_prefix("fen ").map(|f| (f, false));
            if let Some((fen, chess960)) =
                fen.or_else(|| l.strip_prefix("fen960 ").map(|f| (f, true)))
            {
                case.fens.push(fen.trim().to_string());
                case.chess960.push(chess960);
                case.tokens.push(None);
                case.patterns.push(vec![]);
            } else if let Some(t) = l.strip_prefix("token ") {
                let last = case
                    .tokens
                    .last_mut()
                    .unwrap_or_else(|| panic!("{}: token before any fen", at(i)));
                *last = Some(t.trim().to_string());
            } else if let Some(t) = l.strip_prefix("pattern ") {
                case.patterns
                    .last_mut()
                    .unwrap_or_else(|| panic!("{}: pattern before any fen", at(i)))
                    .push(t.trim().to_string());
            } else if let Some(spec) = l.strip_prefix("columns ") {
                case.columns = parse_columns(spec);
            } else if !(l.is_empty() || l.starts_with('#')) {
                panic!("{}: unexpected line {l:?}", at(i));
            }
            i += 1;
        }
        assert!(
            i < lines.len(),
            "{}: case {:?} has no ----",
            at(i),
            case.title
        );
        assert!(
            !case.fens.is_empty(),
            "{}: case {:?} has no fen",
            at(i),
            case.title
        );
        assert!(
            !case.columns.is_empty(),
            "{}: case {:?} has no columns",
            at(i),
            case.title
        );
        i += 1;
        let start = i;
        while i < lines.len() && !lines[i].trim().is_empty() {
            case.expected.push(lines[i].trim().to_string());
            i += 1;
        }
        case.rows = (start, i);
        cases.push(case);
    }
    cases
}

// ---------------------------------------------------------------------------------------
// Rows

/// One value of a stage's row.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Bool(bool),
    Text(String),
    Float(f64),
}

impl Value {
    fn u64(&self) -> u64 {
        match self {
            Value::UInt(v) => *v,
            Value::Int(v) => *v as u64,
            other => panic!("not an integer: {other:?}"),
        }
    }
    fn int(&self) -> Option<i64> {
        match self {
            Value::Null => None,
            Value::Int(v) => Some(*v),
            Value::UInt(v) => Some(*v as i64),
            other => panic!("not an integer: {other:?}"),
        }
    }
    fn bool(&self) -> bool {
        match self {
            Value::Bool(v) => *v,
            Value::Null => false,
            other => panic!("not a boolean: {other:?}"),
        }
    }
    fn float(&self) -> f64 {
        match self {
            Value::Float(v) => *v,
            other => panic!("not a float: {other:?}"),
        }
    }
    fn text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            Value::Null => None,
            other => panic!("not a string: {other:?}"),
        }
    }
}

type Row = BTreeMap<String, Value>;

fn rows_of(batches: &[RecordBatch]) -> Vec<Row> {
    let mut out = vec![];
    for b in batches {
        for i in 0..b.num_rows() {
            let mut row = Row::new();
            for (f, c) in b.schema().fields().iter().zip(b.columns()) {
                let v = if c.is_null(i) {
                    Value::Null
                } else {
                    match c.data_type() {
                        DataType::UInt64 => Value::UInt(c.as_primitive::<UInt64Type>().value(i)),
                        DataType::Int32 => {
                            Value::Int(c.as_primitive::<Int32Type>().value(i) as i64)
                        }
                        DataType::Int64 => Value::Int(c.as_primitive::<Int64Type>().value(i)),
                        DataType::Boolean => Value::Bool(c.as_boolean().value(i)),
                        DataType::Utf8 => Value::Text(c.as_string::<i32>().value(i).to_string()),
                        // `position_id * 32768 + move_code` (UInt64 times an integer
                        // literal) comes out of DataFusion as a decimal
                        DataType::Decimal128(_, 0) => {
                            let v = c
                                .as_primitive::<datafusion::arrow::datatypes::Decimal128Type>()
                                .value(i);
                            Value::UInt(u64::try_from(v).expect("a 64-bit id"))
                        }
                        DataType::Float64 => Value::Float(
                            c.as_primitive::<datafusion::arrow::datatypes::Float64Type>()
                                .value(i),
                        ),
                        other => panic!("column {} of type {other}", f.name()),
                    }
                };
                row.insert(f.name().clone(), v);
            }
            out.push(row);
        }
    }
    out
}

fn render(row: &Row, columns: &[Column]) -> String {
    let mut out = vec![];
    for c in columns {
        let v = row
            .get(&c.name)
            .unwrap_or_else(|| panic!("no column {} (has {:?})", c.name, row.keys()));
        out.push(match (v, c.render) {
            (Value::Null, _) => "NULL".to_string(),
            // no square or move: -1 (the null move's squares and code)
            (Value::Int(v), Render::Square | Render::Move | Render::Child) if *v < 0 => {
                v.to_string()
            }
            (v, Render::Square) => square_name(v.int().unwrap_or(-1) as u8),
            (v, Render::Set) => set_names(v.u64()),
            (v, Render::Piece) => piece_letter(v).to_string(),
            (v, Render::ReplayRole) => replay_role(v).to_string(),
            (v, Render::Side) => side_letter(v).to_string(),
            (v, Render::Move) => uci_of_code(v.u64() as u32),
            (v, Render::Child) => format!(
                "{}/{}",
                v.u64() / CHILD_STRIDE,
                uci_of_code((v.u64() % CHILD_STRIDE) as u32)
            ),
            (Value::Int(v), _) => v.to_string(),
            (Value::UInt(v), _) => v.to_string(),
            (Value::Bool(v), _) => v.to_string(),
            (Value::Text(v), _) => v.clone(),
            (Value::Float(v), _) => v.to_string(),
        });
    }
    out.join(" ")
}

/// The letter of a piece code (rule `role_code`: P 0, N 1, B 2, R 3, Q 4, K 5).
fn piece_letter(v: &Value) -> char {
    let code = v.int().expect("a piece code");
    Role::ALL
        .get(code as usize)
        .map(|r| role_letter(*r).chars().next().expect("a letter"))
        .unwrap_or_else(|| panic!("piece code {code}"))
}

/// The letter of a nullable piece code, as a string (`None` for NULL).
fn letter_of(v: &Value) -> Option<String> {
    (*v != Value::Null).then(|| piece_letter(v).to_string())
}

/// The FEN's colour letter of a Boolean `white_to_move` or `white`.
fn side_letter(v: &Value) -> &'static str {
    if v.bool() { "w" } else { "b" }
}

/// The name of a `replay_moves` role code (0 move, 1 rival, 2 transit, 3 ep_probe).
fn replay_role(v: &Value) -> &'static str {
    match v.int() {
        Some(0) => "move",
        Some(1) => "rival",
        Some(2) => "transit",
        Some(3) => "ep_probe",
        other => panic!("replay_moves role {other:?}"),
    }
}

fn set_names(bits: u64) -> String {
    if bits == 0 {
        return "-".into();
    }
    (0..64u8)
        .filter(|sq| bits >> sq & 1 == 1)
        .map(square_name)
        .collect::<Vec<_>>()
        .join(",")
}

// ---------------------------------------------------------------------------------------
// The test

fn stage_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/stages");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/stages")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "slt"))
        .collect();
    files.sort();
    files
}

fn stem(file: &Path) -> String {
    file.file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned()
}

/// Every pipeline stage (`Stage::ALL`, the stages the pipeline plans) has its file
/// `tests/stages/<stage>.slt`, and every file there names a stage; every SQL file of
/// `plans/` outside `static/` (the static tables), `seed/` (the seed's queries, not
/// planned) and `rules/` (the rule fragments, checked by `every_rule_fragment_is_used`) is a
/// stage's.
#[test]
fn every_stage_has_a_file() {
    use sqlchess::stages::Stage;
    let files: BTreeSet<String> = stage_files().iter().map(|f| stem(f)).collect();
    let missing: Vec<&str> = Stage::ALL
        .iter()
        .map(|s| s.name())
        .filter(|n| !files.contains(*n))
        .collect();
    assert!(
        missing.is_empty(),
        "stages without a file tests/stages/<stage>.slt: {missing:?}"
    );
    let unknown: Vec<&String> = files
        .iter()
        .filter(|f| f.parse::<Stage>().is_err())
        .collect();
    assert!(
        unknown.is_empty(),
        "tests/stages/<name>.slt naming no stage: {unknown:?}"
    );
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut sql = vec![];
    let mut dirs = vec![root.join("plans")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("plans") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(&root)
                .expect("under the crate")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if !["plans/static", "plans/seed", "plans/rules"].contains(&rel.as_str()) {
                    dirs.push(path);
                }
            } else if rel.ends_with(".sql") {
                sql.push(rel);
            }
        }
    }
    let paths: BTreeSet<&str> = Stage::ALL.iter().map(|s| s.path()).collect();
    let strays: Vec<&String> = sql.iter().filter(|p| !paths.contains(p.as_str())).collect();
    assert!(
        strays.is_empty(),
        "SQL files of plans/ that are no stage of Stage::ALL: {strays:?}"
    );
    assert_eq!(sql.len(), Stage::ALL.len(), "{sql:?}");
}

/// Every file of `plans/rules/` is a fragment of `sqlchess::stages::fragments::FRAGMENTS`
/// that some stage or static table names (`{{name}}` or `{{name(…)}}`), and no stage or
/// static table keeps a `{{` after its fragments are put in place.
#[test]
fn every_rule_fragment_is_used() {
    use sqlchess::stages::fragments::FRAGMENTS;
    use sqlchess::stages::{Stage, StaticTable};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("plans/rules");
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("plans/rules")
        .map(|e| stem(&e.expect("entry").path()))
        .collect();
    let names: BTreeSet<String> = FRAGMENTS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(files, names, "plans/rules/*.sql against FRAGMENTS");
    let written: Vec<(&str, &str)> = Stage::ALL
        .iter()
        .map(|s| (s.file_sql(), s.sql()))
        .chain(StaticTable::ALL.iter().map(|t| (t.file_sql(), t.sql())))
        .collect();
    for (_, sql) in &written {
        assert!(!sql.contains("{{"), "a fragment left in place:\n{sql}");
    }
    for (name, file) in FRAGMENTS {
        let used = written.iter().any(|(raw, _)| {
            raw.contains(&format!("{{{{{name}}}}}")) || raw.contains(&format!("{{{{{name}("))
        }) || FRAGMENTS
            .iter()
            .any(|(_, f)| f.contains(&format!("{{{{{name}(")));
        assert!(used, "plans/rules/{name}.sql is used by no stage");
        // every call gives as many arguments as the fragment has parameters ($1, $2, …)
        let parameters = (1..=20).filter(|i| file.contains(&format!("${i}"))).count();
        for (raw, _) in &written {
            let call = format!("{{{{{name}(");
            for (at, _) in raw.match_indices(&call) {
                let rest = &raw[at + call.len()..];
                let args = &rest[..rest.find(")}}").expect("a call ends with )}}")];
                let (mut depth, mut commas) = (0, 0);
                for c in args.chars() {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        ',' if depth == 0 => commas += 1,
                        _ => {}
                    }
                }
                assert_eq!(commas + 1, parameters, "{name}({args})");
            }
            if parameters == 0 {
                assert!(!raw.contains(&call), "{name} takes no arguments");
            }
        }
    }
}

#[test]
fn stage_files_give_their_rows() {
    let bless = std::env::var("SQLCHESS_BLESS").is_ok_and(|v| v == "1");
    let files = stage_files();
    let stages: Vec<String> = files.iter().map(|f| stem(f)).collect();
    let mut failures = vec![];
    let mut n_cases = 0;
    rt().block_on(async {
        let e = engine().await;
        for (path, stage) in files.iter().zip(&stages) {
            let text = std::fs::read_to_string(path).expect("read");
            let cases = parse_file(path, &text);
            assert!(cases.len() >= 3, "{}: fewer than 3 cases", path.display());
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            for case in cases.iter().rev() {
                n_cases += 1;
                let batches = run_stage(&e, stage, case).await;
                let rows = rows_of(&batches);
                facts(stage, case, &rows);
                let mut got: Vec<String> = rows.iter().map(|r| render(r, &case.columns)).collect();
                got.sort();
                let mut want = case.expected.clone();
                want.sort();
                if bless {
                    lines.splice(case.rows.0..case.rows.1, got).for_each(drop);
                } else if got != want {
                    let mut msg = String::new();
                    let _ = writeln!(msg, "{}: case {:?}", path.display(), case.title);
                    for l in want.iter().filter(|l| !got.contains(l)) {
                        let _ = writeln!(msg, "  - {l}");
                    }
                    for l in got.iter().filter(|l| !want.contains(l)) {
                        let _ = writeln!(msg, "  + {l}");
                    }
                    failures.push(msg);
                }
            }
            if bless {
                let mut out = lines.join("\n");
                out.push('\n');
                std::fs::write(path, out).expect("bless");
            }
        }
    });
    assert!(n_cases >= 120, "{n_cases} cases");
    assert!(
        failures.is_empty(),
        "rows differ (- expected, + engine; SQLCHESS_BLESS=1 rewrites the files):\n{}",
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Facts: each case's rows checked against shakmaty

fn position(fen: &str) -> Chess {
    position_in(fen, false)
}

/// The position of a FEN in standard chess or in Chess960 mode.
fn position_in(fen: &str, chess960: bool) -> Chess {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(mode)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The engine's set-up of a FEN in standard chess or in Chess960 mode.
fn setup_in(fen: &str, chess960: bool) -> Setup {
    if chess960 {
        Setup::from_fen_chess960(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    } else {
        setup(fen)
    }
}

/// A move's code as the stages number it: `from + 64 * to + 4096 * promotion index` (1..4 =
/// N, B, R, Q), where a castling's `to` is its rook's square.
fn code_of(m: &Move) -> u64 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (*king, *rook),
        m => (m.from().expect("from"), m.to()),
    };
    let promotion = match m.promotion() {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        Some(r) => panic!("promotion to {r:?}"),
    };
    from as u64 + 64 * to as u64 + 4096 * promotion
}

/// The child position id of a move of position `i`.
fn child_of(i: usize, m: &Move) -> u64 {
    i as u64 * CHILD_STRIDE + code_of(m)
}

/// The position key of a position as `perft_frontier` and `perft_merge` hold it: the eight
/// square sets, side to move, the rook squares keeping a right, and the en passant square
/// only where a pawn of the side to move could take there.
type PerftKey = (Vec<u64>, bool, u64, Option<i64>);

fn perft_key(pos: &Chess) -> PerftKey {
    let a = pos.board();
    let sets = [a.white().0, a.black().0]
        .into_iter()
        .chain(ROLE_SETS.iter().map(|(_, role)| a.by_role(*role).0))
        .collect();
    let side = pos.turn().is_white();
    let rooks = u64::from(pos.castles().castling_rights());
    let ep = pos.ep_square(EnPassantMode::PseudoLegal).map(|s| s as i64);
    (sets, side, rooks, ep)
}

fn row_perft_key(r: &Row) -> PerftKey {
    let sets = ["white", "black"]
        .into_iter()
        .chain(ROLE_SETS.iter().map(|(n, _)| *n))
        .map(|n| r[n].u64())
        .collect();
    let side = r["white_to_move"].bool();
    (sets, side, r["castling"].u64(), r["ep_square"].int())
}

/// The legal moves a lexed token matches, by python-chess 1.11's `Board.parse_san` (which
/// the token stages follow): castling tokens the castling to that side; a piece letter that
/// piece's non-castling moves to the target, from the token's file and rank; a pawn token
/// pawn moves to the target from the token's file (the target's file if none); a full
/// origin square without piece letter (`Board.find_move`) the move from that square to the
/// target, a castling written as the king taking its rook or, in standard chess only, as the
/// king's move; the promotion piece (or none) as the token's. No move for a null move.
fn parse_san_matches(pos: &Chess, chess960: bool, token: &SanToken) -> Vec<Move> {
    let promotion_of = |p: Option<sqlchess::chess::role::Role>| {
        p.map(|p| Role::from_char(p.char()).expect("role"))
    };
    pos.legal_moves()
        .into_iter()
        .filter(|m| match *token {
            SanToken::Castle { long } => {
                matches!(m, Move::Castle { king, rook } if (rook < king) == long)
            }
            SanToken::Null => false,
            SanToken::FromTo {
                from,
                to,
                promotion,
                ..
            } => {
                m.from() == Some(Square::new(from as u32))
                    && m.promotion() == promotion_of(promotion)
                    && match m {
                        Move::Castle { king, rook } => {
                            *rook as u8 == to
                                || (!chess960
                                    && CastlingSide::from_queen_side(rook < king)
                                        .king_to(pos.turn())
                                        as u8
                                        == to)
                        }
                        m => m.to() as u8 == to,
                    }
            }
            SanToken::Normal {
                role,
                from_file,
                from_rank,
                to,
                promotion,
                ..
            } => {
                let from = m.from().expect("from");
                let pawn = role.char() == 'P';
                let file = if pawn {
                    Some(from_file.unwrap_or(to % 8))
                } else {
                    from_file
                };
                !m.is_castle()
                    && m.role().upper_char() == role.char()
                    && m.to() as u8 == to
                    && file.is_none_or(|f| from as u8 % 8 == f)
                    && from_rank.is_none_or(|r| from as u8 / 8 == r)
                    && m.promotion() == promotion_of(promotion)
            }
        })
        .collect()
}

/// The kinds of `setup_checks` rows a set-up should give, by python-chess 1.11's
/// `Board.status()` rules (over shakmaty's attack tables): `kings_adjacent` /
/// `opposite_check` when the side not to move is in check (by the king / by other pieces),
/// `too_many_checkers` for more than two checkers, `impossible_check` for two checkers on
/// one line with the king, and again for a check that the double step of a valid en passant
/// square cannot have given (more than one checker, or a checker other than the pushed pawn
/// that reaches the king with the pawn back on its start square).
fn status_kinds(fen: &str) -> Vec<&'static str> {
    let setup = Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_setup();
    let b = &setup.board;
    let us = setup.turn;
    let occ = b.occupied();
    let mut kinds = vec![];
    let their_king = b.king_of(!us).expect("king");
    let giving = b.attacks_to(their_king, us, occ);
    if giving.any() {
        kinds.push(if (giving & b.kings()).any() {
            "kings_adjacent"
        } else {
            "opposite_check"
        });
    }
    let king = b.king_of(us).expect("king");
    let checkers = b.attacks_to(king, !us, occ);
    if checkers.count() > 2 {
        kinds.push("too_many_checkers");
    }
    if let (2, Some(a), Some(c)) = (checkers.count(), checkers.first(), checkers.last())
        && attacks::ray(a, c).contains(king)
    {
        kinds.push("impossible_check");
    }
    // python-chess `_valid_ep_square`: on the third rank of the side that moved, its pawn
    // pushed past it, the square and the start square empty
    let valid_ep = setup.ep_square.filter(|&ep| {
        let (rank, pushed, start) = match us {
            Color::White => (5, ep as i32 - 8, ep as i32 + 8),
            Color::Black => (2, ep as i32 + 8, ep as i32 - 8),
        };
        ep.rank() as u32 == rank
            && b.piece_at(Square::new(pushed as u32))
                == Some(shakmaty::Piece {
                    color: !us,
                    role: Role::Pawn,
                })
            && !occ.contains(ep)
            && !occ.contains(Square::new(start as u32))
    });
    if let Some(ep) = valid_ep
        && checkers.any()
    {
        let (pushed, start) = match us {
            Color::White => (Square::new(ep as u32 - 8), Square::new(ep as u32 + 8)),
            Color::Black => (Square::new(ep as u32 + 8), Square::new(ep as u32 - 8)),
        };
        let before = occ.without(pushed).with(start);
        if checkers.count() > 1
            || (checkers.first() != Some(pushed) && b.attacks_to(king, !us, before).any())
        {
            kinds.push("impossible_check");
        }
    }
    kinds.sort();
    kinds
}

/// The square-set columns of each kind of piece, in `Role` order.
const ROLE_SETS: [(&str, Role); 6] = [
    ("pawns", Role::Pawn),
    ("knights", Role::Knight),
    ("bishops", Role::Bishop),
    ("rooks", Role::Rook),
    ("queens", Role::Queen),
    ("kings", Role::King),
];

fn sq(v: &Value) -> Square {
    Square::new(v.int().expect("square") as u32)
}

fn role_letter(r: Role) -> String {
    r.upper_char().to_string()
}

fn color_letter(c: Color) -> &'static str {
    match c {
        Color::White => "w",
        Color::Black => "b",
    }
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// The moves of rows that lead to child positions (`perft_moves`, `checking_moves`): UCI,
/// move code, child id, null move.
fn child_moves(rows: &[Row]) -> BTreeSet<(String, u64, u64, bool)> {
    rows.iter()
        .map(|r| {
            (
                row_uci(r),
                r["move_code"].u64(),
                r["child_id"].u64(),
                r["is_null"].bool(),
            )
        })
        .collect()
}

/// UCI of a row with from_sq, to_sq and promotion.
fn row_uci(r: &Row) -> String {
    format!(
        "{}{}{}",
        square_name(r["from_sq"].int().expect("from") as u8),
        square_name(r["to_sq"].int().expect("to") as u8),
        match (r.get("promotion"), r.get("promotion_code")) {
            (Some(p), _) => p.text().map(|p| p.to_ascii_lowercase()).unwrap_or_default(),
            // replay_moves: the promotion piece's code
            (None, Some(Value::Null) | None) => String::new(),
            (None, Some(code)) => piece_letter(code).to_ascii_lowercase().to_string(),
        }
    )
}

/// Rows by position of the case (`position_id`; `root_id` for the perft nodes, whose roots are
/// the case's positions; the parent of `reply_counts`' child positions).
fn by_position(stage: &str, rows: &[Row], case: &Case) -> Vec<Vec<Row>> {
    let mut out = vec![vec![]; case.fens.len()];
    for r in rows {
        let id = match stage {
            // the nodes of the perft tree: by their root, one of the case's positions
            "perft_children" | "perft_frontier" | "perft_merge" | "perft_counts" => {
                r["root_id"].u64()
            }
            // the positions after a checking move: by the position it was played in
            "reply_counts" => r["child_id"].u64() / CHILD_STRIDE,
            "subfen_matches" | "material_matches" => r["matched_id"].u64(),
            _ => r["position_id"].u64(),
        };
        out[id as usize].push(r.clone());
    }
    out
}

fn uint64s(v: &[u64]) -> datafusion::arrow::array::ArrayRef {
    std::sync::Arc::new(datafusion::arrow::array::UInt64Array::from(v.to_vec()))
}

/// The token's move in shakmaty, if it stands for exactly one legal move.
fn token_move(pos: &Chess, token: &str) -> Option<Move> {
    San::from_ascii(token.as_bytes())
        .ok()
        .and_then(|s| s.to_move(pos).ok())
}

/// Pseudo-legal moves (before king safety, castling left out, promotions not expanded) as
/// (from, to, captured, is_en_passant, cap_sq), from shakmaty's attack tables.
/// A pseudo-legal move: (from, to, captured, is_en_passant, cap_sq).
type Pseudo = (u32, u32, Option<String>, bool, Option<u32>);

fn pseudo_legal(pos: &Chess) -> BTreeSet<Pseudo> {
    let b = pos.board();
    let us = pos.turn();
    let own = b.by_color(us);
    let occ = b.occupied();
    let ep = pos.ep_square(EnPassantMode::Always);
    let mut out = BTreeSet::new();
    for (from, piece) in b.iter().filter(|(_, p)| p.color == us) {
        let mut targets: Vec<(Square, bool)> = vec![];
        if piece.role == Role::Pawn {
            let step: i32 = if us == Color::White { 8 } else { -8 };
            let one = Square::new((from as i32 + step) as u32);
            if !occ.contains(one) {
                targets.push((one, false));
                let start = if us == Color::White { 1 } else { 6 };
                if from.rank() as u32 == start {
                    let two = Square::new((from as i32 + 2 * step) as u32);
                    if !occ.contains(two) {
                        targets.push((two, false));
                    }
                }
            }
            for t in attacks::pawn_attacks(us, from) {
                if b.by_color(!us).contains(t) || Some(t) == ep {
                    targets.push((t, Some(t) == ep && !occ.contains(t)));
                }
            }
        } else {
            for t in attacks::attacks(from, piece, occ) & !own {
                targets.push((t, false));
            }
        }
        for (to, ep) in targets {
            let cap_sq = if ep {
                Some(Square::from_coords(to.file(), from.rank()))
            } else {
                b.role_at(to).map(|_| to)
            };
            let captured = cap_sq.and_then(|c| b.role_at(c)).map(role_letter);
            out.insert((
                from as u32,
                to as u32,
                captured,
                ep,
                cap_sq.map(|c| c as u32),
            ));
        }
    }
    out
}

/// Checks a case's rows against shakmaty, for the stages whose meaning shakmaty states.
fn facts(stage: &str, case: &Case, rows: &[Row]) {
    let per = by_position(stage, rows, case);
    for (i, fen) in case.fens.iter().enumerate() {
        let rows = &per[i];
        let ctx = format!("{stage}, case {:?}, {fen}", case.title);
        if stage == "setup_checks" {
            // set-ups shakmaty may refuse to play: the rules on the board as set up
            let mut got: Vec<&str> = rows
                .iter()
                .map(|r| r["kind"].text().expect("kind"))
                .collect();
            got.sort();
            let want = status_kinds(fen);
            assert_eq!(got, want, "{ctx}");
            // shakmaty's own check: the same opposite checks; the same impossible checks but
            // for its rule that two knights or pawns cannot both give check, which
            // python-chess has not
            let mode = if case.chess960[i] {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            let shakmaty = Fen::from_ascii(fen.as_bytes())
                .expect("fen")
                .into_position::<Chess>(mode)
                .err()
                .map(|e| e.kinds())
                .unwrap_or(PositionErrorKinds::empty());
            let opposite = got
                .iter()
                .any(|k| *k == "kings_adjacent" || *k == "opposite_check");
            assert_eq!(
                shakmaty.contains(PositionErrorKinds::OPPOSITE_CHECK),
                opposite,
                "{ctx}"
            );
            let b = Fen::from_ascii(fen.as_bytes()).expect("fen").into_setup();
            let steppers = b.board.attacks_to(
                b.board.king_of(b.turn).expect("king"),
                !b.turn,
                b.board.occupied(),
            ) & b.board.steppers();
            if !steppers.more_than_one() {
                let impossible = got
                    .iter()
                    .any(|k| *k == "impossible_check" || *k == "too_many_checkers");
                assert_eq!(
                    shakmaty.contains(PositionErrorKinds::IMPOSSIBLE_CHECK),
                    impossible,
                    "{ctx}"
                );
            }
            continue;
        }
        let chess960 = case.chess960[i];
        let pos = position_in(fen, chess960);
        let b = pos.board();
        let us = pos.turn();
        let legal = pos.legal_moves();
        let legal_uci: BTreeSet<String> = legal.iter().map(uci).collect();
        let king = b.king_of(us).expect("king");
        match stage {
            "placed" => {
                let got: BTreeSet<(u32, String, String, bool)> = rows
                    .iter()
                    .map(|r| {
                        (
                            sq(&r["square"]) as u32,
                            side_letter(&r["white"]).to_string(),
                            piece_letter(&r["kind"]).to_string(),
                            r["own"].bool(),
                        )
                    })
                    .collect();
                let want: BTreeSet<(u32, String, String, bool)> = b
                    .iter()
                    .map(|(s, p)| {
                        (
                            s as u32,
                            color_letter(p.color).to_string(),
                            role_letter(p.role),
                            p.color == us,
                        )
                    })
                    .collect();
                assert_eq!(got, want, "{ctx}");
            }
            "boards" => {
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                let set = |n: &str| r[n].u64();
                let them = b.by_color(!us);
                assert_eq!(set("occupied"), b.occupied().0, "{ctx}: occupied");
                assert_eq!(set("own"), b.by_color(us).0, "{ctx}: own");
                assert_eq!(set("enemy"), them.0, "{ctx}: enemy");
                // boards has no kings set
                for &(n, role) in &ROLE_SETS[..5] {
                    assert_eq!(set(n), b.by_role(role).0, "{ctx}: {n}");
                }
                assert_eq!(
                    set("occupied_xray"),
                    (b.occupied() & !Bitboard::from(king)).0,
                    "{ctx}"
                );
                let ep = pos.ep_square(EnPassantMode::Always);
                assert_eq!(
                    set("ep_bit"),
                    ep.map_or(0, |s| Bitboard::from(s).0),
                    "{ctx}: ep_bit"
                );
                assert_eq!(sq(&r["king_sq"]), king, "{ctx}");
                assert_eq!(Some(sq(&r["enemy_king_sq"])), b.king_of(!us), "{ctx}");
            }
            "pseudo_moves" => {
                let got: BTreeSet<Pseudo> = rows
                    .iter()
                    .map(|r| {
                        (
                            sq(&r["from_sq"]) as u32,
                            sq(&r["to_sq"]) as u32,
                            letter_of(&r["captured_code"]),
                            r["is_en_passant"].bool(),
                            r["cap_sq"].int().map(|c| c as u32),
                        )
                    })
                    .collect();
                assert_eq!(got, pseudo_legal(&pos), "{ctx}");
            }
            "threats" => {
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                let occ = b.occupied();
                let xray = occ & !Bitboard::from(king);
                let mut attacked = Bitboard(0);
                let mut pinned = Bitboard(0);
                for (s, p) in b.iter().filter(|(_, p)| p.color != us) {
                    attacked |= attacks::attacks(s, p, xray);
                    let slider = matches!(p.role, Role::Bishop | Role::Rook | Role::Queen);
                    if slider && attacks::attacks(s, p, Bitboard(0)).contains(king) {
                        let between = attacks::between(s, king) & occ;
                        if between.count() == 1 && (between & b.by_color(us)).any() {
                            pinned |= between;
                        }
                    }
                }
                let checkers = pos.checkers();
                assert_eq!(r["attacked"].u64(), attacked.0, "{ctx}: attacked");
                assert_eq!(r["checkers"].u64(), checkers.0, "{ctx}: checkers");
                assert_eq!(
                    r["n_checkers"].int(),
                    Some(checkers.count() as i64),
                    "{ctx}"
                );
                assert_eq!(r["pinned"].u64(), pinned.0, "{ctx}: pinned");
                assert_eq!(sq(&r["king_sq"]), king, "{ctx}");
                if let Some(c) = checkers.single_square() {
                    let evasion = attacks::between(c, king) | Bitboard::from(c);
                    assert_eq!(r["evasion"].u64(), evasion.0, "{ctx}: evasion");
                }
            }
            "castling" => {
                let got: BTreeSet<String> = rows.iter().map(row_uci).collect();
                let want: BTreeSet<String> =
                    legal.iter().filter(|m| m.is_castle()).map(uci).collect();
                assert_eq!(got, want, "{ctx}");
                for r in rows {
                    let side = if sq(&r["to_sq"]).file() > king.file() {
                        CastlingSide::KingSide
                    } else {
                        CastlingSide::QueenSide
                    };
                    assert_eq!(
                        sq(&r["rook_from"]),
                        pos.castles().rook(us, side).expect("rook")
                    );
                    assert_eq!(sq(&r["rook_to"]), side.rook_to(us), "{ctx}");
                }
            }
            "legal_moves" => {
                let got: BTreeSet<String> = rows.iter().map(row_uci).collect();
                assert_eq!(got, legal_uci, "{ctx}");
                for r in rows {
                    let m = legal.iter().find(|m| uci(m) == row_uci(r)).expect("move");
                    let ctx = format!("{ctx} {}", uci(m));
                    assert_eq!(r["is_en_passant"].bool(), m.is_en_passant(), "{ctx}");
                    assert_eq!(r["is_castling"].bool(), m.is_castle(), "{ctx}");
                    assert_eq!(r["is_capture"].bool(), m.is_capture(), "{ctx}");
                    assert_eq!(
                        letter_of(&r["captured_code"]),
                        m.capture().map(role_letter),
                        "{ctx}"
                    );
                    assert_eq!(
                        letter_of(&r["piece_code"]),
                        Some(role_letter(m.role())),
                        "{ctx}"
                    );
                }
            }
            "san" => {
                let got: BTreeSet<(String, String, bool, bool)> = rows
                    .iter()
                    .map(|r| {
                        (
                            r["uci"].text().expect("uci").to_string(),
                            r["san"].text().expect("san").to_string(),
                            r["is_check"].bool(),
                            r["is_mate"].bool(),
                        )
                    })
                    .collect();
                let want: BTreeSet<(String, String, bool, bool)> = legal
                    .iter()
                    .map(|m| {
                        let san = SanPlus::from_move(pos.clone(), *m).to_string();
                        let after = pos.clone().play(*m).expect("play");
                        (uci(m), san, after.is_check(), after.is_checkmate())
                    })
                    .collect();
                assert_eq!(got, want, "{ctx}");
            }
            "position_status" => {
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                let ep = pos.legal_ep_square();
                assert_eq!(r["n_legal"].int(), Some(legal.len() as i64), "{ctx}");
                assert_eq!(r["in_check"].bool(), pos.is_check(), "{ctx}");
                assert_eq!(r["ep_legal"].bool(), ep.is_some(), "{ctx}");
                assert_eq!(
                    r["ep_key"].int(),
                    Some(ep.map_or(-1, |s| s as i64)),
                    "{ctx}"
                );
                assert_eq!(
                    r["white_insufficient"].bool(),
                    pos.has_insufficient_material(Color::White),
                    "{ctx}"
                );
                assert_eq!(
                    r["black_insufficient"].bool(),
                    pos.has_insufficient_material(Color::Black),
                    "{ctx}"
                );
            }
            "next_positions" | "next_pieces" | "replay_next" => {
                let token = case.tokens[i].as_deref().expect("token");
                let Some(m) = token_move(&pos, token) else {
                    assert!(
                        rows.is_empty(),
                        "{ctx}: {token} is no legal move, rows {rows:?}"
                    );
                    continue;
                };
                let after = pos.clone().play(m).expect("play");
                let a = after.board();
                if stage == "next_pieces" {
                    let got: BTreeSet<(u32, String, String)> = rows
                        .iter()
                        .map(|r| {
                            (
                                sq(&r["square"]) as u32,
                                side_letter(&r["white"]).to_string(),
                                piece_letter(&r["piece_code"]).to_string(),
                            )
                        })
                        .collect();
                    let want: BTreeSet<(u32, String, String)> = a
                        .iter()
                        .map(|(s, p)| {
                            (
                                s as u32,
                                color_letter(p.color).to_string(),
                                role_letter(p.role),
                            )
                        })
                        .collect();
                    assert_eq!(got, want, "{ctx} {token}");
                    continue;
                }
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                let ctx = format!("{ctx} {token}");
                assert_eq!(r["white_to_move"].bool(), after.turn().is_white(), "{ctx}");
                // the squares of the rooks that keep a castling right
                let rooks = u64::from(after.castles().castling_rights());
                assert_eq!(r["castling"].u64(), rooks, "{ctx}: castling");
                let ep = after.ep_square(EnPassantMode::Always).map(|s| s as i64);
                assert_eq!(r["ep_square"].int(), ep, "{ctx}: ep_square");
                assert_eq!(
                    r["halfmove_clock"].int(),
                    Some(after.halfmoves() as i64),
                    "{ctx}"
                );
                assert_eq!(
                    r["fullmove_number"].int(),
                    Some(after.fullmoves().get() as i64),
                    "{ctx}"
                );
                if stage == "replay_next" {
                    assert_eq!(r["white"].u64(), a.white().0, "{ctx}");
                    assert_eq!(r["black"].u64(), a.black().0, "{ctx}");
                    for (n, role) in ROLE_SETS {
                        assert_eq!(r[n].u64(), a.by_role(role).0, "{ctx}: {n}");
                    }
                }
            }
            "replay_moves" => {
                let token = case.tokens[i].as_deref().expect("token");
                let lexed = parse_san(token).ok().map(|(t, _)| t);
                // a full origin square without piece letter (UCI): the piece standing there
                let origin_role = match lexed {
                    Some(SanToken::FromTo { from, .. }) => pos
                        .board()
                        .piece_at(Square::new(u32::from(from)))
                        .filter(|p| p.color == pos.turn())
                        .map(|p| p.role),
                    _ => None,
                };
                // the legal moves the token stands for (castling written as a king's move is
                // left to the full stages), and the legal en passant captures
                let wanted: BTreeSet<String> = match (&lexed, San::from_ascii(token.as_bytes())) {
                    (Some(t @ SanToken::FromTo { .. }), _) => parse_san_matches(&pos, chess960, t)
                        .iter()
                        .filter(|m| !m.is_castle())
                        .map(uci)
                        .collect(),
                    (_, Ok(san)) => legal.iter().filter(|m| san.matches(**m)).map(uci).collect(),
                    (_, Err(_)) => BTreeSet::new(),
                };
                let legal_of = |role: &str| -> BTreeSet<String> {
                    rows.iter()
                        .filter(|r| replay_role(&r["role"]) == role && !r["attacked"].bool())
                        .map(row_uci)
                        .collect()
                };
                let moves = legal_of("move");
                let transit_attacked = rows
                    .iter()
                    .any(|r| replay_role(&r["role"]) == "transit" && r["attacked"].bool());
                let accepted: BTreeSet<String> = if transit_attacked {
                    BTreeSet::new()
                } else {
                    moves
                };
                assert_eq!(accepted, wanted, "{ctx} {token}");
                let ep: BTreeSet<String> = legal
                    .iter()
                    .filter(|m| m.is_en_passant())
                    .map(uci)
                    .collect();
                assert_eq!(legal_of("ep_probe"), ep, "{ctx}: en passant probes");
                // rivals: the other legal moves of a piece token's kind to its target that
                // the token's file or rank leaves out
                let kind_to = match (&lexed, San::from_ascii(token.as_bytes())) {
                    (Some(SanToken::FromTo { to, .. }), _) => {
                        origin_role.map(|r| (r, Square::new(u32::from(*to))))
                    }
                    (_, Ok(San::Normal { role, to, .. })) => Some((role, to)),
                    _ => None,
                };
                let rivals: BTreeSet<String> = match kind_to {
                    Some((role, to)) if role != Role::Pawn && role != Role::King => legal
                        .iter()
                        .filter(|m| m.role() == role && m.to() == to && !wanted.contains(&uci(m)))
                        .map(uci)
                        .collect(),
                    _ => BTreeSet::new(),
                };
                assert_eq!(legal_of("rival"), rivals, "{ctx} {token}: rivals");
            }
            "replay_plies" => {
                let token = case.tokens[i].as_deref().expect("token");
                let Some(m) = token_move(&pos, token) else {
                    assert!(
                        rows.is_empty(),
                        "{ctx}: {token} is no legal move, rows {rows:?}"
                    );
                    continue;
                };
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                let after = pos.clone().play(m).expect("play");
                assert_eq!(r["ply_uci"].text(), Some(uci(&m).as_str()), "{ctx}");
                let san = San::from_move(&pos, m).to_string();
                assert_eq!(r["ply_san"].text(), Some(san.as_str()), "{ctx}");
                assert_eq!(r["ply_capture"].bool(), m.is_capture(), "{ctx}");
                assert_eq!(r["ply_castling"].bool(), m.is_castle(), "{ctx}");
                assert_eq!(r["ply_en_passant"].bool(), m.is_en_passant(), "{ctx}");
                assert_eq!(
                    r["ply_promotion"].text(),
                    m.promotion().map(role_letter).as_deref(),
                    "{ctx}"
                );
                assert_eq!(r["gives_check"].bool(), after.is_check(), "{ctx}");
            }
            "perft_frontier" => {
                // one node per legal move: the key of the position after it, the parent's
                // root and multiplicity
                type Key = (Vec<u64>, bool, u64, Option<i64>);
                let mut got: Vec<Key> = rows
                    .iter()
                    .map(|r| {
                        assert_eq!(r["multiplicity"].u64(), i as u64 + 1, "{ctx}");
                        let sets = ["white", "black"]
                            .into_iter()
                            .chain(ROLE_SETS.iter().map(|(n, _)| *n))
                            .map(|n| r[n].u64())
                            .collect();
                        let side = r["white_to_move"].bool();
                        (sets, side, r["castling"].u64(), r["ep_square"].int())
                    })
                    .collect();
                let mut want: Vec<Key> = legal
                    .iter()
                    .map(|m| {
                        let after = pos.clone().play(*m).expect("play");
                        let a = after.board();
                        let sets = [a.white().0, a.black().0]
                            .into_iter()
                            .chain(ROLE_SETS.iter().map(|(_, role)| a.by_role(*role).0))
                            .collect();
                        let side = after.turn().is_white();
                        let rooks = u64::from(after.castles().castling_rights());
                        // perft keys the en passant square only where a pawn could take
                        let ep = after
                            .ep_square(EnPassantMode::PseudoLegal)
                            .map(|s| s as i64);
                        (sets, side, rooks, ep)
                    })
                    .collect();
                got.sort();
                want.sort();
                assert_eq!(got, want, "{ctx}");
            }
            "replay_verdicts" => {
                let token = case.tokens[i].as_deref().expect("token");
                let m = token_move(&pos, token);
                let accepted = rows.first().is_some_and(|r| r["accepted"].bool());
                assert_eq!(accepted, m.is_some(), "{ctx} {token}");
                if let (Some(r), true) = (rows.first(), m.is_some()) {
                    assert_eq!(
                        r["ep_legal"].bool(),
                        pos.legal_ep_square().is_some(),
                        "{ctx}"
                    );
                }
            }
            "king_lines" => {
                // (slider, king, own king, pieces between, lowest square between, and whether
                // that piece is the side to move's when it is the only one)
                type Line = (u32, u32, bool, i64, Option<u32>, Option<bool>);
                let got: BTreeSet<Line> = rows
                    .iter()
                    .map(|r| {
                        let n = r["n_between"].int().expect("n_between");
                        (
                            sq(&r["slider_sq"]) as u32,
                            sq(&r["king_sq"]) as u32,
                            r["own_king"].bool(),
                            n,
                            r["between_sq"].int().map(|s| s as u32),
                            (n == 1).then(|| r["between_own"].bool()),
                        )
                    })
                    .collect();
                assert_eq!(got.len(), rows.len(), "{ctx}: a line twice");
                let occ = b.occupied();
                let mut want: BTreeSet<Line> = BTreeSet::new();
                for kc in Color::ALL {
                    let k = b.king_of(kc).expect("king");
                    let sliders = b.iter().filter(|(_, p)| {
                        p.color != kc && matches!(p.role, Role::Bishop | Role::Rook | Role::Queen)
                    });
                    for (s, p) in sliders {
                        if !attacks::attacks(s, p, Bitboard(0)).contains(k) {
                            continue;
                        }
                        let between = attacks::between(s, k) & occ;
                        let n = between.count();
                        if n > 2 {
                            continue;
                        }
                        let low = between.first();
                        want.insert((
                            s as u32,
                            k as u32,
                            kc == us,
                            n as i64,
                            low.map(|s| s as u32),
                            (n == 1).then(|| b.color_at(low.expect("low")) == Some(us)),
                        ));
                    }
                }
                assert_eq!(got, want, "{ctx}");
            }
            "move_checks" | "checking_moves" | "reply_counts" | "move_flags" => {
                // the legal moves giving check, with the position after each
                let checking: Vec<(Move, Chess)> = legal
                    .iter()
                    .map(|m| (*m, pos.clone().play(*m).expect("play")))
                    .filter(|(_, after)| after.is_check())
                    .collect();
                match stage {
                    "move_checks" => {
                        let got: BTreeSet<u64> =
                            rows.iter().map(|r| r["move_code"].u64()).collect();
                        assert_eq!(got.len(), rows.len(), "{ctx}: a move twice");
                        let want: BTreeSet<u64> =
                            checking.iter().map(|(m, _)| code_of(m)).collect();
                        assert_eq!(got, want, "{ctx}");
                    }
                    "checking_moves" => {
                        let got = child_moves(rows);
                        assert_eq!(got.len(), rows.len(), "{ctx}: a move twice");
                        let want: BTreeSet<(String, u64, u64, bool)> = checking
                            .iter()
                            .map(|(m, _)| (uci(m), code_of(m), child_of(i, m), false))
                            .collect();
                        assert_eq!(got, want, "{ctx}");
                    }
                    "reply_counts" => {
                        // positions with no reply (checkmate) have no row
                        let got: BTreeSet<(u64, i64)> = rows
                            .iter()
                            .map(|r| (r["child_id"].u64(), r["n_replies"].int().expect("n")))
                            .collect();
                        assert_eq!(got.len(), rows.len(), "{ctx}: a child twice");
                        let want: BTreeSet<(u64, i64)> = checking
                            .iter()
                            .map(|(m, after)| (child_of(i, m), after.legal_moves().len() as i64))
                            .filter(|(_, n)| *n > 0)
                            .collect();
                        assert_eq!(got, want, "{ctx}");
                    }
                    _ => {
                        let got: BTreeSet<(u64, bool, bool)> = rows
                            .iter()
                            .map(|r| {
                                (
                                    r["move_code"].u64(),
                                    r["is_check"].bool(),
                                    r["is_mate"].bool(),
                                )
                            })
                            .collect();
                        assert_eq!(got.len(), rows.len(), "{ctx}: a move twice");
                        let want: BTreeSet<(u64, bool, bool)> = checking
                            .iter()
                            .map(|(m, after)| (code_of(m), true, after.is_checkmate()))
                            .collect();
                        assert_eq!(got, want, "{ctx}");
                    }
                }
            }
            "perft_moves" => {
                let got = child_moves(rows);
                assert_eq!(got.len(), rows.len(), "{ctx}: a move twice");
                let want: BTreeSet<(String, u64, u64, bool)> = legal
                    .iter()
                    .map(|m| (uci(m), code_of(m), child_of(i, m), false))
                    .collect();
                assert_eq!(got, want, "{ctx}");
            }
            "perft_children" => {
                // one child node per legal move, with the root's multiplicity
                let got: BTreeSet<(u64, u64)> = rows
                    .iter()
                    .map(|r| (r["position_id"].u64(), r["multiplicity"].u64()))
                    .collect();
                assert_eq!(got.len(), rows.len(), "{ctx}: a child twice");
                let want: BTreeSet<(u64, u64)> = legal
                    .iter()
                    .map(|m| (child_of(i, m), i as u64 + 1))
                    .collect();
                assert_eq!(got, want, "{ctx}");
            }
            "perft_merge" => {
                // the nodes two plies down, one per root and position key, with the number of
                // move pairs reaching it times the root's multiplicity
                let mut want: BTreeMap<PerftKey, u64> = BTreeMap::new();
                for m in &legal {
                    let after = pos.clone().play(*m).expect("play");
                    for reply in after.legal_moves() {
                        let key = perft_key(&after.clone().play(reply).expect("play"));
                        *want.entry(key).or_default() += i as u64 + 1;
                    }
                }
                let got: BTreeMap<PerftKey, u64> = rows
                    .iter()
                    .map(|r| {
                        let n = r["multiplicity"].u64();
                        assert_eq!(r["approx_multiplicity"].float(), n as f64, "{ctx}");
                        (row_perft_key(r), n)
                    })
                    .collect();
                assert_eq!(got.len(), rows.len(), "{ctx}: a key twice");
                assert_eq!(got, want, "{ctx}");
            }
            "perft_counts" => {
                // the leaves three plies down, times the root's multiplicity
                let n = shakmaty::perft(&pos, 3) * (i as u64 + 1);
                let got: Vec<(u64, f64)> = rows
                    .iter()
                    .map(|r| (r["nodes"].u64(), r["approx_nodes"].float()))
                    .collect();
                let want: Vec<(u64, f64)> = if n == 0 { vec![] } else { vec![(n, n as f64)] };
                assert_eq!(got, want, "{ctx}");
            }
            "position_keys" => {
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                assert_eq!(r["white"].u64(), b.white().0, "{ctx}: white");
                assert_eq!(r["black"].u64(), b.black().0, "{ctx}: black");
                for (n, role) in ROLE_SETS {
                    assert_eq!(r[n].u64(), b.by_role(role).0, "{ctx}: {n}");
                }
                assert_eq!(r["white_to_move"].bool(), us.is_white(), "{ctx}");
                let rooks = u64::from(pos.castles().castling_rights());
                assert_eq!(r["castling"].u64(), rooks, "{ctx}: castling");
                let ep = pos.ep_square(EnPassantMode::Always).map(|s| s as i64);
                assert_eq!(r["ep_square"].int(), ep, "{ctx}: ep_square");
            }
            "flipped_positions" => {
                if case.tokens[i].is_none() {
                    assert!(rows.is_empty(), "{ctx}: no token, rows {rows:?}");
                    continue;
                }
                assert_eq!(rows.len(), 1, "{ctx}");
                let r = &rows[0];
                assert_eq!(r["white_to_move"].bool(), (!us).is_white(), "{ctx}");
                let rooks = u64::from(pos.castles().castling_rights());
                assert_eq!(r["castling"].u64(), rooks, "{ctx}: castling");
                assert_eq!(r["chess960"].bool(), chess960, "{ctx}");
                assert_eq!(r["ep_square"], Value::Null, "{ctx}");
                assert_eq!(
                    r["halfmove_clock"].int(),
                    Some(pos.halfmoves() as i64),
                    "{ctx}"
                );
                assert_eq!(
                    r["fullmove_number"].int(),
                    Some(pos.fullmoves().get() as i64),
                    "{ctx}"
                );
            }
            "token_matches" | "token_verdicts" | "token_moves" => {
                let Some(token) = case.tokens[i].as_deref() else {
                    assert!(rows.is_empty(), "{ctx}: no token, rows {rows:?}");
                    continue;
                };
                let ctx = format!("{ctx} {token}");
                let lexed = parse_san(token).expect("token").0;
                let matches = parse_san_matches(&pos, chess960, &lexed);
                match stage {
                    "token_matches" => {
                        // by move code too: in Chess960 a castling and a king step can share
                        // their UCI (f1g1)
                        let got: BTreeSet<(u64, String)> = rows
                            .iter()
                            .map(|r| (r["move_code"].u64(), row_uci(r)))
                            .collect();
                        assert_eq!(got.len(), rows.len(), "{ctx}: a move twice");
                        let want: BTreeSet<(u64, String)> =
                            matches.iter().map(|m| (code_of(m), uci(m))).collect();
                        assert_eq!(got, want, "{ctx}");
                    }
                    "token_verdicts" => {
                        assert_eq!(rows.len(), 1, "{ctx}");
                        let r = &rows[0];
                        assert_eq!(r["n_matches"].int(), Some(matches.len() as i64), "{ctx}");
                        // a piece of the side to move of the token's kind on a square of the
                        // token's file and rank (a pawn token's file: the target's if none),
                        // any piece on a full origin square
                        let own = b.by_color(us);
                        let has_piece = match lexed {
                            SanToken::Normal {
                                role,
                                from_file,
                                from_rank,
                                to,
                                ..
                            } => {
                                let role = Role::from_char(role.char()).expect("role");
                                let file = if role == Role::Pawn {
                                    Some(from_file.unwrap_or(to % 8))
                                } else {
                                    from_file
                                };
                                (own & b.by_role(role)).into_iter().any(|s| {
                                    file.is_none_or(|f| s as u8 % 8 == f)
                                        && from_rank.is_none_or(|r| s as u8 / 8 == r)
                                })
                            }
                            SanToken::FromTo { from, .. } => own.contains(Square::new(from as u32)),
                            SanToken::Castle { .. } | SanToken::Null => false,
                        };
                        assert_eq!(r["has_piece"].bool(), has_piece, "{ctx}: has_piece");
                    }
                    _ => {
                        if matches!(lexed, SanToken::Null) {
                            // the turn passes: a null move of the side to move
                            assert_eq!(rows.len(), 1, "{ctx}");
                            let r = &rows[0];
                            assert!(r["is_null"].bool(), "{ctx}");
                            assert_eq!(r["move_code"].int(), Some(-1), "{ctx}");
                            assert_eq!(r["piece_code"], Value::Null, "{ctx}");
                            assert_eq!(r["child_id"].u64(), i as u64, "{ctx}");
                            continue;
                        }
                        let [m] = matches[..] else {
                            assert!(
                                rows.is_empty(),
                                "{ctx}: {} matches, rows {rows:?}",
                                matches.len()
                            );
                            continue;
                        };
                        assert_eq!(rows.len(), 1, "{ctx}");
                        let r = &rows[0];
                        assert_eq!(row_uci(r), uci(&m), "{ctx}");
                        assert_eq!(r["move_code"].u64(), code_of(&m), "{ctx}");
                        assert_eq!(r["child_id"].u64(), i as u64, "{ctx}");
                        assert!(!r["is_null"].bool(), "{ctx}");
                        assert_eq!(r["is_castling"].bool(), m.is_castle(), "{ctx}");
                        assert_eq!(r["is_en_passant"].bool(), m.is_en_passant(), "{ctx}");
                    }
                }
            }
            "piece_attacks" | "pins" | "checkers" | "hanging" | "material_counts"
            | "imbalances" | "subfen_matches" | "material_matches" => {
                position_facts(stage, &case.patterns[i], fen, rows, &ctx);
            }
            other => panic!("no facts for stage {other} in tests/stages.rs"),
        }
    }
}

/// The facts of the position stages (`plans/position/`) for one position, from shakmaty's
/// board: attacks (`Board::attacks_from`), pins (one own piece between the king and an
/// enemy line piece, `attacks::between`), checkers and hanging pieces (`Board::attacks_to`),
/// piece counts; the pattern stages by matching the patterns here square by square and, for
/// material descriptions, by `PieceConstraint::admits` on shakmaty's counts.
fn position_facts(stage: &str, patterns: &[String], fen: &str, rows: &[Row], ctx: &str) {
    let setup = Fen::from_ascii(fen.as_bytes()).expect("fen").into_setup();
    let b = &setup.board;
    let occ = b.occupied();
    let side = |c: Color| if c == Color::White { "w" } else { "b" };
    let n = |s: Square| i64::from(u32::from(s));
    let text = |r: &Row, c: &str| r[c].text().map(str::to_string);
    let mut counts = [[0u8; 6]; 2];
    for s in occ {
        let p = b.piece_at(s).expect("piece");
        counts[usize::from(p.color == Color::Black)][p.role as usize - 1] += 1;
    }
    let (got, want): (Vec<String>, Vec<String>) = match stage {
        "piece_attacks" => {
            let got = rows
                .iter()
                .map(|r| {
                    let cells = [
                        text(r, "color"),
                        text(r, "piece"),
                        text(r, "target_color"),
                        text(r, "target_piece"),
                    ];
                    format!(
                        "{:?} {:?} {cells:?}",
                        r["square"].int(),
                        r["target_sq"].int()
                    )
                })
                .collect();
            let mut want = vec![];
            for s in occ {
                let p = b.piece_at(s).expect("piece");
                for t in b.attacks_from(s) {
                    let on = b.piece_at(t);
                    let cells = [
                        Some(side(p.color).to_string()),
                        Some(p.role.upper_char().to_string()),
                        on.map(|x| side(x.color).to_string()),
                        on.map(|x| x.role.upper_char().to_string()),
                    ];
                    want.push(format!("{:?} {:?} {cells:?}", Some(n(s)), Some(n(t))));
                }
            }
            (got, want)
        }
        "pins" => {
            let got = rows
                .iter()
                .map(|r| {
                    format!(
                        "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                        r["pinned_sq"].int(),
                        text(r, "pinned_color"),
                        text(r, "pinned_piece"),
                        r["pinner_sq"].int(),
                        text(r, "pinner_color"),
                        text(r, "pinner_piece"),
                        r["king_sq"].int()
                    )
                })
                .collect();
            let mut want = vec![];
            for c in [Color::White, Color::Black] {
                let Some(k) = b.king_of(c) else { continue };
                let snipers = (attacks::rook_attacks(k, Bitboard::EMPTY) & b.rooks_and_queens()
                    | attacks::bishop_attacks(k, Bitboard::EMPTY) & b.bishops_and_queens())
                    & b.by_color(!c);
                for s in snipers {
                    let between = attacks::between(k, s) & occ;
                    let Some(pinned) = between.first() else {
                        continue;
                    };
                    if between.count() != 1 || !b.by_color(c).contains(pinned) {
                        continue;
                    }
                    let role = |q: Square| b.piece_at(q).map(|p| p.role.upper_char().to_string());
                    want.push(format!(
                        "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                        Some(n(pinned)),
                        Some(side(c).to_string()),
                        role(pinned),
                        Some(n(s)),
                        Some(side(!c).to_string()),
                        role(s),
                        Some(n(k))
                    ));
                }
            }
            (got, want)
        }
        "checkers" => {
            let got = rows
                .iter()
                .map(|r| {
                    format!(
                        "{:?} {:?} {:?}",
                        r["checker_sq"].int(),
                        text(r, "checker_color"),
                        text(r, "checker_piece")
                    )
                })
                .collect();
            let k = b.king_of(setup.turn).expect("king");
            let want = b
                .attacks_to(k, !setup.turn, occ)
                .into_iter()
                .map(|s| {
                    let p = b.piece_at(s).expect("piece");
                    format!(
                        "{:?} {:?} {:?}",
                        Some(n(s)),
                        Some(side(p.color).to_string()),
                        Some(p.role.upper_char().to_string())
                    )
                })
                .collect();
            (got, want)
        }
        "hanging" => {
            let got = rows
                .iter()
                .map(|r| {
                    format!(
                        "{:?} {:?} {:?} {:?}",
                        r["hanging_sq"].int(),
                        text(r, "hanging_color"),
                        text(r, "hanging_piece"),
                        r["attackers"].int()
                    )
                })
                .collect();
            let mut want = vec![];
            for s in occ {
                let p = b.piece_at(s).expect("piece");
                let enemy = b.attacks_to(s, !p.color, occ);
                if p.role != Role::King && enemy.any() && b.attacks_to(s, p.color, occ).is_empty() {
                    want.push(format!(
                        "{:?} {:?} {:?} {:?}",
                        Some(n(s)),
                        Some(side(p.color).to_string()),
                        Some(p.role.upper_char().to_string()),
                        Some(enemy.count() as i64)
                    ));
                }
            }
            (got, want)
        }
        "material_counts" | "imbalances" => {
            let names = ["pawns", "knights", "bishops", "rooks", "queens", "kings"];
            assert_eq!(rows.len(), 1, "{ctx}");
            let r = &rows[0];
            if stage == "imbalances" {
                let surplus = |a: usize, o: usize| -> String {
                    [(4, 'Q'), (3, 'R'), (2, 'B'), (1, 'N'), (0, 'P')]
                        .iter()
                        .map(|(k, l)| {
                            l.to_string()
                                .repeat(usize::from(counts[a][*k].saturating_sub(counts[o][*k])))
                        })
                        .collect()
                };
                let want = format!("{}v{}", surplus(0, 1), surplus(1, 0));
                (vec![text(r, "imbalance").unwrap_or_default()], vec![want])
            } else {
                let got = ["white", "black"]
                    .iter()
                    .flat_map(|c| names.iter().map(move |k| format!("{c}_{k}")))
                    .map(|col| r[col.as_str()].int().unwrap_or(-1).to_string())
                    .collect();
                let want = counts.iter().flatten().map(|c| c.to_string()).collect();
                (got, want)
            }
        }
        "subfen_matches" => {
            // each piece of the pattern's board (shakmaty's reading) on its square
            let matching = patterns
                .iter()
                .filter(|text| {
                    let (board, to_move) = text.split_once(' ').unwrap_or((text, ""));
                    let pattern = shakmaty::Board::from_ascii_board_fen(board.as_bytes())
                        .unwrap_or_else(|e| panic!("pattern {text}: {e}"));
                    (to_move.is_empty() || to_move == side(setup.turn))
                        && pattern
                            .iter()
                            .all(|(sq, piece)| b.piece_at(sq) == Some(piece))
                })
                .count();
            (vec![rows.len().to_string()], vec![matching.to_string()])
        }
        "material_matches" => {
            use sqlchess::chess::material_pattern::parse;
            let minors = |c: usize| counts[c][1] + counts[c][2];
            let matching: usize = patterns
                .iter()
                .map(|t| {
                    let p = parse(t).unwrap_or_else(|e| panic!("{t}: {e}"));
                    [(0, 1), (1, 0)]
                        .iter()
                        .filter(|(first, second)| {
                            p.sides.iter().zip([*first, *second]).all(|(m, c)| {
                                let o = 1 - c;
                                (0..5).all(|k| m.kinds[k].admits(counts[c][k], counts[o][k]))
                                    && m.minor.is_none_or(|l| l.admits(minors(c), minors(o)))
                            })
                        })
                        .count()
                })
                .sum();
            (vec![rows.len().to_string()], vec![matching.to_string()])
        }
        other => panic!("no facts for {other}"),
    };
    let (mut got, mut want) = (got, want);
    got.sort();
    want.sort();
    assert_eq!(got, want, "{ctx}");
}

// ---------------------------------------------------------------------------------------
// Rules computed on two paths: the full legal-move stages and replay

/// Positions of seeded random shakmaty games right after each double step (so with an en
/// passant square, the capture legal or not), each with a random legal move's SAN; and as
/// many positions without an en passant square.
fn double_step_positions(seed: u64, n: usize) -> Vec<(String, String)> {
    let mut next = seeded_rng(seed);
    let (mut with_ep, mut without) = (vec![], vec![]);
    while with_ep.len() < n {
        let mut pos = Chess::default();
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[next() % moves.len()];
            let san = San::from_move(&pos, m).to_string();
            let fen = Fen::from_position(&pos, EnPassantMode::Always).to_string();
            if pos.ep_square(EnPassantMode::Always).is_some() {
                with_ep.push((fen, san));
            } else if without.len() < n && next().is_multiple_of(8) {
                without.push((fen, san));
            }
            pos.play_unchecked(m);
        }
    }
    with_ep.truncate(n);
    with_ep.extend(without);
    with_ep
}

fn case_of(title: &str, fens: Vec<String>, tokens: Vec<Option<String>>) -> Case {
    Case {
        title: title.to_string(),
        chess960: vec![false; fens.len()],
        patterns: vec![vec![]; fens.len()],
        fens,
        tokens,
        columns: vec![],
        expected: vec![],
        rows: (0, 0),
    }
}

/// En passant legality is decided on two paths, for speed: the full stages test it in
/// `legal_moves` (the board after the capture against every enemy piece's rays, read by
/// `position_status.ep_legal`), replay in `replay_moves` (an `ep_probe` row per capture with
/// the same attack test as every replayed move, read by `replay_verdicts.ep_legal`). Both
/// must agree with each other and with shakmaty on every position.
#[test]
fn en_passant_legality_agrees_between_full_stages_and_replay() {
    let mut positions = double_step_positions(20261130, 1500);
    // en passant captures that are illegal (rare in random games): rank pins of both colours,
    // the capturing pawn pinned on a diagonal and on a file
    for fen in [
        "7k/8/8/K2pP2r/8/8/8/8 w - d6 0 1",
        "8/8/8/8/1k1Pp2R/8/8/4K3 b - d3 0 1",
        "7b/8/8/3pP3/8/8/8/K6k w - d6 0 1",
        "4r2k/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    ] {
        let pos = position(fen);
        let m = pos.legal_moves()[0];
        positions.push((fen.to_string(), San::from_move(&pos, m).to_string()));
    }
    let fens: Vec<String> = positions.iter().map(|(f, _)| f.clone()).collect();
    let tokens: Vec<Option<String>> = positions.iter().map(|(_, t)| Some(t.clone())).collect();
    let case = case_of("double steps", fens, tokens);
    let (full, replay) = rt().block_on(async {
        let e = engine().await;
        let full = rows_of(&run_stage(&e, "position_status", &case).await);
        let replay = rows_of(&run_stage(&e, "replay_verdicts", &case).await);
        (full, replay)
    });
    let ep_of = |rows: &[Row]| -> Vec<bool> {
        let mut out = vec![false; case.fens.len()];
        for r in rows {
            out[r["position_id"].u64() as usize] = r["ep_legal"].bool();
        }
        out
    };
    let (full, replay) = (ep_of(&full), ep_of(&replay));
    let (mut legal, mut illegal) = (0, 0);
    for (i, fen) in case.fens.iter().enumerate() {
        let want = position(fen).legal_ep_square().is_some();
        assert_eq!(full[i], want, "position_status.ep_legal of {fen}");
        assert_eq!(replay[i], want, "replay_verdicts.ep_legal of {fen}");
        let pseudo = position(fen).pseudo_legal_ep_square().is_some();
        legal += want as usize;
        illegal += (pseudo && !want) as usize;
    }
    assert!(
        legal >= 50,
        "{legal} positions with a legal en passant capture"
    );
    assert!(
        illegal >= 4,
        "{illegal} positions with only illegal en passant captures"
    );
}

/// The repetition key is the columns of `position_keys`; replay holds the same columns in
/// `replay_states` and updates them itself (`replay_next`). After the same move, replay's
/// state and `position_keys` of the position reached must hold equal key columns.
#[test]
fn repetition_key_columns_agree_between_position_keys_and_replay() {
    let positions = double_step_positions(7, 800);
    let before: Vec<String> = positions.iter().map(|(f, _)| f.clone()).collect();
    let tokens: Vec<Option<String>> = positions.iter().map(|(_, t)| Some(t.clone())).collect();
    let after: Vec<String> = positions
        .iter()
        .map(|(f, t)| {
            let pos = position(f);
            let m = token_move(&pos, t).expect("legal");
            Fen::from_position(&pos.play(m).expect("play"), EnPassantMode::Always).to_string()
        })
        .collect();
    let (keys, states) = rt().block_on(async {
        let e = engine().await;
        let keys = rows_of(
            &run_stage(
                &e,
                "position_keys",
                &case_of("after", after.clone(), vec![None; after.len()]),
            )
            .await,
        );
        let states =
            rows_of(&run_stage(&e, "replay_next", &case_of("before", before, tokens)).await);
        (keys, states)
    });
    let mut columns: Vec<String> = tables::SET_COLUMNS.iter().map(|c| c.to_string()).collect();
    columns.extend(["white_to_move", "castling", "ep_square"].map(str::to_string));
    let pick = |rows: &[Row]| -> BTreeMap<u64, Vec<Value>> {
        rows.iter()
            .map(|r| {
                (
                    r["position_id"].u64(),
                    columns.iter().map(|c| r[c].clone()).collect(),
                )
            })
            .collect()
    };
    let (keys, states) = (pick(&keys), pick(&states));
    assert_eq!(keys.len(), after.len());
    for (i, fen) in after.iter().enumerate() {
        assert_eq!(
            keys.get(&(i as u64)),
            states.get(&(i as u64)),
            "key columns of {fen}"
        );
    }
}

/// A move code's squares for reading a `.slt` file (`from_sq + 64 * to_sq + 4096 *
/// promotion_index`, promotion index 1..4 = n, b, r, q; a castling's code names the rook's
/// square): display only, the UCI rule is `plans/rules/uci.sql`.
fn uci_of_code(code: u32) -> String {
    let (from, to) = ((code % 64) as u8, ((code / 64) % 64) as u8);
    let promo = ["", "n", "b", "r", "q"][(code / 4096) as usize % 5];
    format!("{}{}{promo}", square_name(from), square_name(to))
}
