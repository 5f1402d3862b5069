//! `sqlchess explore`: an explorer tree of tests/data/pgn/queries.pgn (written by `sqlchess
//! sql "SELECT * FROM explorer(…, 20)" --out tree.parquet`) shown from a position, the moves
//! and counts equal to SQL over the same tree and to
//! examples/queries/next_moves_from_position.sql; filters; each input error's exit status
//! and message; the Polyglot book read back by a reader of the format written here (the
//! python-chess check is in `shared_data.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::prelude::{ParquetReadOptions, SessionContext};

use crate::common::cli::{path, show, sqlchess};
use crate::common::{data, query, scratch};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// After 1. e4 e5 2. Nf3.
const AFTER_E4_E5_NF3: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";

/// queries.pgn's explorer tree, 20 plies, written into `dir` by `sqlchess sql --out`.
pub(crate) fn write_tree(dir: &Path) -> PathBuf {
    let tree = dir.join("tree.parquet");
    let pgn = data("pgn/queries.pgn");
    let sql = format!("SELECT * FROM explorer('{}', 20)", path(&pgn));
    let out = sqlchess(&["sql", &sql, "--out", path(&tree)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    tree
}

/// A session with the tree as table `tree`.
async fn tree_session(tree: &Path) -> SessionContext {
    let ctx = sqlchess::sql::context();
    ctx.register_parquet("tree", path(tree), ParquetReadOptions::default())
        .await
        .expect("register tree");
    ctx
}

/// A move line of the view: SAN and games.
type Shown = Vec<(String, i64)>;

/// `sqlchess explore TREE ARGS…`: the moves shown and the total's games; fails unless it
/// exits with 0.
fn explore(tree: &Path, args: &[&str]) -> (Shown, i64) {
    let mut all = vec!["explore", path(tree)];
    all.extend_from_slice(args);
    let out = sqlchess(&all);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = stdout.lines();
    lines.next().expect("FEN line");
    let header = lines.next().expect("header line");
    assert!(header.starts_with("move"), "{stdout}");
    let mut moves = vec![];
    for line in lines {
        let mut fields = line.split_whitespace();
        let san = fields.next().expect("move").to_string();
        let games: i64 = fields.next().expect("games").parse().expect("games number");
        if san == "total" {
            return (moves, games);
        }
        moves.push((san, games));
    }
    panic!("no total line: {stdout}")
}

/// The moves from `fen` in the tree, by SQL: games per SAN where `condition` holds, most
/// played first, then by SAN.
async fn sql_moves(ctx: &SessionContext, fen: &str, condition: &str) -> Shown {
    let q = format!(
        "SELECT arrow_cast(san, 'Utf8') AS san, sum(games) AS games FROM tree
         WHERE position_key = position_key('{fen}') AND {condition}
         GROUP BY san ORDER BY games DESC, san"
    );
    let mut out = vec![];
    for b in query(ctx, &q).await {
        let san = b.column(0).as_string::<i32>();
        let games = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            out.push((san.value(i).to_string(), games.value(i)));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn moves_from_the_start_and_after_e4_e5_nf3_equal_sql_over_the_tree() {
    let dir = scratch("explore");
    let tree = write_tree(&dir);
    let ctx = tree_session(&tree).await;
    let (start, total) = explore(&tree, &[]);
    assert_eq!(start, sql_moves(&ctx, START, "TRUE").await);
    assert_eq!(start[0], ("e4".to_string(), 49));
    assert_eq!(total, start.iter().map(|m| m.1).sum::<i64>());
    // the same position by --fen, and by UCI moves
    assert_eq!(explore(&tree, &["--fen", START]).0, start);
    let (after, _) = explore(&tree, &["--moves", "e4 e5 Nf3"]);
    assert_eq!(after, sql_moves(&ctx, AFTER_E4_E5_NF3, "TRUE").await);
    assert_eq!(explore(&tree, &["--moves", "e2e4 e7e5 g1f3"]).0, after);
    // the example query's counts, over the PGN file itself
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/queries/next_moves_from_position.sql"),
    )
    .expect("example query");
    let pgn = data("pgn/queries.pgn");
    let example = example.replace("'tests/data/pgn/queries.pgn'", &format!("'{}'", path(&pgn)));
    let mut times = vec![];
    for b in query(&ctx, example.trim().trim_end_matches(';')).await {
        let b = cast_columns(&b);
        let san = b.column(0).as_string::<i32>();
        let n = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            times.push((san.value(i).to_string(), n.value(i)));
        }
    }
    assert_eq!(after, times);
    assert_eq!(
        after.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        ["Nc6", "Nf6", "d6", "Bc5", "d5"]
    );
    // --limit shows the first moves; the total still counts all
    let (limited, limited_total) = explore(&tree, &["--limit", "2"]);
    assert_eq!(limited, start[..2]);
    assert_eq!(limited_total, total);
}

/// A batch's first two columns as Utf8 and Int64.
fn cast_columns(b: &RecordBatch) -> RecordBatch {
    RecordBatch::try_from_iter([
        ("san", cast(b.column(0), &DataType::Utf8).expect("san")),
        ("n", cast(b.column(1), &DataType::Int64).expect("n")),
    ])
    .expect("batch")
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_narrow_the_moves_as_sql_does() {
    let dir = scratch("explore-filters");
    let tree = write_tree(&dir);
    let ctx = tree_session(&tree).await;
    let (_, all) = explore(&tree, &[]);
    for (args, condition) in [
        (vec!["--speeds", "blitz"], "speed = 'blitz'"),
        (
            vec!["--speeds", "bullet,rapid"],
            "speed IN ('bullet', 'rapid')",
        ),
        (
            vec!["--ratings", "1600,1800"],
            "rating_band IN (1600, 1800)",
        ),
        (vec!["--since", "2025-06"], "month >= '2025-06'"),
        (vec!["--until", "2025-05"], "month <= '2025-05'"),
        (
            vec![
                "--speeds",
                "blitz",
                "--ratings",
                "1400",
                "--since",
                "2025-01",
                "--until",
                "2025-05",
            ],
            "speed = 'blitz' AND rating_band = 1400 AND month BETWEEN '2025-01' AND '2025-05'",
        ),
    ] {
        let (moves, total) = explore(&tree, &args);
        assert_eq!(moves, sql_moves(&ctx, START, condition).await, "{args:?}");
        assert!(total > 0 && total < all, "{args:?}: {total} of {all}");
    }
    // a month without games: nothing shown, a total of 0
    assert_eq!(explore(&tree, &["--since", "2030-01"]), (vec![], 0));
    // after 1. e4 e5 2. Nf3, blitz only
    let (moves, _) = explore(&tree, &["--moves", "e4 e5 Nf3", "--speeds", "blitz"]);
    assert_eq!(
        moves,
        sql_moves(&ctx, AFTER_E4_E5_NF3, "speed = 'blitz'").await
    );
}

/// `sqlchess explore ARGS…` fails with exit status 2 and a message holding `wants`.
fn refused(args: &[&str], wants: &[&str]) {
    let out = sqlchess(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
    for w in wants {
        assert!(stderr.contains(w), "{args:?}: {w:?} not in {stderr}");
    }
    assert!(out.stdout.is_empty(), "{args:?}: {}", show(&out));
}

#[test]
fn bad_inputs_refused_with_exit_status_2_naming_them() {
    let dir = scratch("explore-errors");
    let tree = write_tree(&dir);
    let t = path(&tree);
    // files that are not explorer trees
    let text = dir.join("games.pgn");
    std::fs::write(&text, "[Event \"x\"]\n\n1. e4 *\n").expect("write");
    refused(
        &["explore", path(&text)],
        &["games.pgn: not an explorer tree: not a Parquet file"],
    );
    let empty = dir.join("empty.parquet");
    std::fs::write(&empty, "").expect("write");
    refused(&["explore", path(&empty)], &["empty.parquet: empty file"]);
    refused(
        &["explore", path(&dir.join("nope.parquet"))],
        &["nope.parquet"],
    );
    let narrow = dir.join("narrow.parquet");
    let pgn = data("pgn/queries.pgn");
    let sql = format!(
        "SELECT position_key, epd, uci, games FROM explorer('{}', 4)",
        path(&pgn)
    );
    let out = sqlchess(&["sql", &sql, "--out", path(&narrow)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    refused(
        &["explore", path(&narrow)],
        &[
            "narrow.parquet: not an explorer tree: no columns san, speed, rating_band, month, \
             white_wins, draws, black_wins, mover_elo_sum, mover_elo_games",
        ],
    );
    // the position
    refused(
        &["explore", t, "--fen", "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1"],
        &["invalid FEN \"rnbqkbnr/pppppppp/8/8 w KQkq - 0 1\""],
    );
    // a FEN that parses but no game reaches (kings side by side): the attack rules
    refused(
        &["explore", t, "--fen", "8/8/8/8/8/8/k7/K7 w - - 0 1"],
        &[
            "--fen: invalid FEN \"8/8/8/8/8/8/k7/K7 w - - 0 1\"",
            "adjacent",
        ],
    );
    refused(
        &["explore", t, "--moves", "e4 e5 Ke3"],
        &["--moves: move 3 (\"Ke3\") is not a legal move"],
    );
    refused(
        &["explore", t, "--moves", "e4 zz"],
        &["--moves: move 2 (\"zz\")"],
    );
    // each kind of refusal named: two rooks reach d3
    refused(
        &["explore", t, "--moves", "a4 a5 h4 h5 Ra3 Ra6 Rhh3 Rhh6 Rd3"],
        &["--moves: move 9 (\"Rd3\") is ambiguous"],
    );
    refused(
        &["explore", t, "--moves", "Nf3 --"],
        &["--moves: move 2 (\"--\") is a null move"],
    );
    refused(
        &["explore", t, "--moves", "e4 e5 e5"],
        &["--moves: move 3 (\"e5\") is "],
    );
    // filters
    refused(
        &["explore", t, "--speeds", "blitz,hyper"],
        &["hyper", "--speeds"],
    );
    refused(
        &["explore", t, "--ratings", "1600,1500"],
        &["\"1500\" is not a rating band", "--ratings"],
    );
    refused(
        &["explore", t, "--since", "2025-13"],
        &["\"2025-13\" is not a month YYYY-MM", "--since"],
    );
    refused(
        &["explore", t, "--until", "2025/06"],
        &["\"2025/06\" is not a month YYYY-MM", "--until"],
    );
    refused(
        &["explore", t, "--since", "2025-06", "--until", "2025-01"],
        &["--since 2025-06 is after --until 2025-01"],
    );
    // the book takes every position: no --fen, --moves or --limit with it
    let book = dir.join("book.bin");
    refused(
        &["explore", t, "--book", path(&book), "--moves", "e4"],
        &["--moves"],
    );
    refused(&["explore", t, "--min-games", "2"], &["--book"]);
    // a book that cannot be written is named, not the temporary file beside it
    let out = sqlchess(&["explore", t, "--book", "/proc/sqlchess-book.bin"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        stderr.contains("/proc/sqlchess-book.bin") && !stderr.contains(".tmp"),
        "{stderr}"
    );
    assert!(!book.exists());
}

/// One entry of a Polyglot book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: u64,
    /// The move in UCI, as the book codes it (castling: the king takes its rook).
    pub uci: String,
    pub weight: u16,
    pub learn: u32,
}

/// Reads a Polyglot book: 16-byte big-endian entries (key u64, move u16, weight u16, learn
/// u32), moves decoded by the format's bit fields.
pub(crate) fn read_book(book: &Path) -> Vec<Entry> {
    let bytes = std::fs::read(book).expect("read book");
    assert_eq!(bytes.len() % 16, 0, "{} bytes", bytes.len());
    bytes
        .chunks_exact(16)
        .map(|e| {
            let mv = u16::from_be_bytes([e[8], e[9]]);
            let square = |bits: u16| {
                let (file, rank) = (bits & 7, (bits >> 3) & 7);
                format!("{}{}", char::from(b'a' + file as u8), rank + 1)
            };
            let promotion = ["", "n", "b", "r", "q"][usize::from((mv >> 12) & 7)];
            Entry {
                key: u64::from_be_bytes(e[0..8].try_into().expect("8 bytes")),
                uci: format!("{}{}{promotion}", square(mv >> 6), square(mv)),
                weight: u16::from_be_bytes([e[10], e[11]]),
                learn: u32::from_be_bytes(e[12..16].try_into().expect("4 bytes")),
            }
        })
        .collect()
}

/// The book's entries of the position `fen`, as (UCI, weight).
pub(crate) fn book_moves(entries: &[Entry], fen: &str) -> Vec<(String, u16)> {
    let key = sqlchess::chess::polyglot::polyglot_key(&crate::common::setup(fen));
    entries
        .iter()
        .filter(|e| e.key == key)
        .map(|e| (e.uci.clone(), e.weight))
        .collect()
}

/// `sqlchess explore TREE --book BOOK ARGS…` into `dir`; fails unless it exits with 0.
pub(crate) fn write_book(tree: &Path, dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let book = dir.join(name);
    let mut all = vec!["explore", path(tree), "--book", path(&book)];
    all.extend_from_slice(args);
    let out = sqlchess(&all);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    book
}

/// The documented weights of the moves from `fen` in the tree, by SQL: 2 × the mover's
/// wins + draws, moves of weight 0 or under `min_games` games left out, heaviest first
/// (then by UCI).
async fn sql_weights(ctx: &SessionContext, fen: &str, min_games: i64) -> Vec<(String, u16)> {
    let wins = if fen.split(' ').nth(1) == Some("w") {
        "white_wins"
    } else {
        "black_wins"
    };
    let q = format!(
        "SELECT arrow_cast(uci, 'Utf8') AS uci, 2 * sum({wins}) + sum(draws) AS weight
         FROM tree WHERE position_key = position_key('{fen}')
         GROUP BY uci HAVING sum(games) >= {min_games} AND 2 * sum({wins}) + sum(draws) > 0
         ORDER BY weight DESC, uci"
    );
    let mut out = vec![];
    for b in query(ctx, &q).await {
        let uci = b.column(0).as_string::<i32>();
        let w = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            out.push((
                uci.value(i).to_string(),
                u16::try_from(w.value(i)).expect("u16"),
            ));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn book_holds_every_position_with_the_documented_weights() {
    let dir = scratch("explore-book");
    let tree = write_tree(&dir);
    let ctx = tree_session(&tree).await;
    let book = write_book(&tree, &dir, "book.bin", &[]);
    let entries = read_book(&book);
    assert!(!entries.is_empty());
    // sorted by key, then weight descending; learn 0
    for pair in entries.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            a.key < b.key || (a.key == b.key && a.weight >= b.weight),
            "{a:?} before {b:?}"
        );
    }
    assert!(entries.iter().all(|e| e.learn == 0 && e.weight > 0));
    // the keys: the tree's positions with a move of weight above 0
    let keys: BTreeSet<u64> = entries.iter().map(|e| e.key).collect();
    let q = "SELECT DISTINCT position_key FROM tree WHERE uci <> '0000'
             AND CASE split_part(epd, ' ', 2) WHEN 'w' THEN white_wins ELSE black_wins END * 2
                 + draws > 0";
    let mut want = BTreeSet::new();
    for b in query(&ctx, q).await {
        want.extend(
            b.column(0)
                .as_primitive::<UInt64Type>()
                .values()
                .iter()
                .copied(),
        );
    }
    assert_eq!(keys, want);
    // the start position's moves and weights, and Black's after 1. e4 e5 2. Nf3
    let start = book_moves(&entries, START);
    assert_eq!(start, sql_weights(&ctx, START, 1).await);
    assert_eq!(start[0], ("e2e4".to_string(), 44));
    let after = book_moves(&entries, AFTER_E4_E5_NF3);
    assert_eq!(after, sql_weights(&ctx, AFTER_E4_E5_NF3, 1).await);
    assert_eq!(after[0], ("b8c6".to_string(), 11));
    // castling is written as the king taking its rook
    let castles: Vec<&Entry> = entries
        .iter()
        .filter(|e| matches!(e.uci.as_str(), "e1g1" | "e1c1" | "e8g8" | "e8c8"))
        .collect();
    assert!(castles.is_empty(), "{castles:?}");
    assert!(entries.iter().any(|e| e.uci == "e1h1"));
    // --min-games and the filters leave moves out
    let two = read_book(&write_book(&tree, &dir, "two.bin", &["--min-games", "2"]));
    assert!(two.len() < entries.len());
    assert_eq!(book_moves(&two, START), sql_weights(&ctx, START, 2).await);
    let blitz = read_book(&write_book(
        &tree,
        &dir,
        "blitz.bin",
        &["--speeds", "blitz"],
    ));
    assert!(!blitz.is_empty() && blitz.len() < entries.len());
}
