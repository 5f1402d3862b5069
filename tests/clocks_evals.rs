//! The `read_plies` columns made from the comments and the plies around them:
//! `move_time_s`, `winning_chances`, `judgement` and `arrows`, on
//! `tests/data/pgn/clocks_evals.pgn` (six games written for these tests: a `180+2` blitz
//! game with clocks, evals and marks on every ply where Black makes a mistake and then
//! blunders into mate, `#0` on the mate; a game without `TimeControl` and with evals on some
//! plies, White blundering, an eval beyond 10 pawns; the fool's mate under `600` with
//! `#-1` and `#0`; a game without moves; a `40/7200:3600` game with evals only, Black's
//! inaccuracy; a `300+3` game with clocks only, one missing).
//!
//! How the expected values were computed: by hand, and by a short python-chess 1.11.2 script
//! reading the same file (`node.clock()`, `node.eval().white()`, the winning-chances
//! formula written out: 2 / (1 + exp(−0.00368208 · cp)) − 1, cp clamped to ±1000, mates
//! ±1, `#0` the mover's win as python-chess reads it; the time as the mover's clock two
//! plies before, or the base time, − the clock + the increment).

use crate::common;

use common::{data, query};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use std::sync::Arc;

use datafusion::arrow::datatypes::{
    DataType, Field, Float64Type, Int64Type, UInt32Type, UInt64Type,
};
use sqlchess::session::read;
use sqlchess::sql;

/// One expected row: game, ply, SAN, move_time_s, winning_chances, judgement, arrows
/// (space-separated).
type Row = (
    u64,
    u32,
    &'static str,
    Option<f64>,
    Option<f64>,
    Option<&'static str>,
    &'static str,
);

const EXPECTED: &[Row] = &[
    (0, 1, "e4", Some(1.0), Some(0.055175107785008226), None, ""),
    (
        0,
        2,
        "e5",
        Some(2.5),
        Some(0.045993527135398615),
        None,
        "Ge7e5 Rd8h4",
    ),
    (
        0,
        3,
        "Nf3",
        Some(5.0),
        Some(0.036804168824387196),
        None,
        "Gd4 Gf3e5",
    ),
    (0, 4, "d6", Some(11.2), Some(0.08265777671584673), None, ""),
    (0, 5, "Bc4", Some(5.0), Some(0.06434736682123421), None, ""),
    // `Gx9` is not a mark (left out), `Ye1e1` a circle
    (
        0,
        6,
        "Bg4",
        Some(7.2),
        Some(0.1100152968249073),
        None,
        "Ye1 Bg4d1",
    ),
    (0, 7, "Nc3", Some(7.0), Some(0.09179287520599799), None, ""),
    (
        0,
        8,
        "g6",
        Some(17.1),
        Some(0.31976668654666396),
        Some("mistake"),
        "",
    ),
    (0, 9, "Nxe5", Some(3.0), Some(0.2693436522900694), None, ""),
    (0, 10, "Bxd1", Some(11.3), Some(1.0), Some("blunder"), ""),
    (0, 11, "Bxf7+", Some(1.0), Some(1.0), None, ""),
    (0, 12, "Ke7", Some(3.7), Some(1.0), None, ""),
    (0, 13, "Nd5#", Some(1.0), Some(1.0), None, ""),
    // no TimeControl: no times, though every ply has a clock
    (1, 1, "d4", None, Some(0.036804168824387196), None, ""),
    (1, 2, "d5", None, None, None, ""),
    (1, 3, "c4", None, None, None, ""),
    (1, 4, "e6", None, Some(0.055175107785008226), None, ""),
    (1, 5, "Nc3", None, Some(0.045993527135398615), None, ""),
    (1, 6, "Nf6", None, None, None, ""),
    (1, 7, "Bg5", None, None, None, ""),
    (1, 8, "Nbd7", None, Some(0.06434736682123421), None, ""),
    (1, 9, "cxd5", None, Some(0.055175107785008226), None, ""),
    (1, 10, "exd5", None, Some(0.055175107785008226), None, ""),
    (
        1,
        11,
        "Nxd5",
        None,
        Some(-0.43029609487248055),
        Some("blunder"),
        "",
    ),
    (1, 12, "Nxd5", None, Some(-0.41517639862618305), None, ""),
    (1, 13, "Bxd8", None, Some(-0.44517814642481524), None, ""),
    // -11.0 clamped to -10.0
    (1, 14, "Bb4+", None, Some(-0.9508948726828644), None, ""),
    (2, 1, "f3", Some(2.0), Some(-0.09179287520599799), None, ""),
    (2, 2, "e5", Some(5.0), Some(-0.055175107785008226), None, ""),
    (2, 3, "g4", Some(8.0), Some(-1.0), Some("blunder"), ""),
    // #0 after Black's mate: Black has won
    (2, 4, "Qh4#", Some(5.1), Some(-1.0), None, ""),
    (4, 1, "e4", None, Some(0.055175107785008226), None, ""),
    (4, 2, "c5", None, Some(0.06434736682123421), None, ""),
    (4, 3, "Nf3", None, Some(0.055175107785008226), None, ""),
    (
        4,
        4,
        "d6",
        None,
        Some(0.16419373127944925),
        Some("inaccuracy"),
        "",
    ),
    (5, 1, "d4", Some(1.0), None, None, ""),
    (5, 2, "Nf6", Some(2.0), None, None, ""),
    // no clock on ply 3: no time for it, nor for White's next move
    (5, 3, "c4", None, None, None, ""),
    (5, 4, "e6", Some(14.0), None, None, ""),
    (5, 5, "Nc3", None, None, None, ""),
    (5, 6, "Bb4", Some(7.5), None, None, ""),
];

fn fixture() -> String {
    data("pgn/clocks_evals.pgn").display().to_string()
}

/// A Float64 column's values (NULL as None).
fn floats(b: &RecordBatch, name: &str) -> Vec<Option<f64>> {
    let a = read::primitive::<Float64Type>(b, name).expect(name);
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i)))
        .collect()
}

/// A Utf8 column's values (NULL as None).
fn strings(b: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let a = read::strings(b, name).expect(name);
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i).to_string()))
        .collect()
}

/// The rows of the columns under test, ordered by game and ply.
async fn got(ctx: &datafusion::prelude::SessionContext) -> Vec<Row2> {
    let q = format!(
        "SELECT game_index, ply, san, move_time_s, winning_chances, judgement, \
         array_to_string(arrows, ' ') AS arrows FROM read_plies('{}') ORDER BY game_index, ply",
        fixture()
    );
    let mut out = vec![];
    for b in query(ctx, &q).await {
        let game = read::primitive::<UInt64Type>(&b, "game_index").expect("game_index");
        let ply = read::primitive::<UInt32Type>(&b, "ply").expect("ply");
        let san = strings(&b, "san");
        let (times, chances) = (floats(&b, "move_time_s"), floats(&b, "winning_chances"));
        let (judgements, arrows) = (strings(&b, "judgement"), strings(&b, "arrows"));
        for i in 0..b.num_rows() {
            out.push((
                game.value(i),
                ply.value(i),
                san[i].clone().unwrap_or_default(),
                times[i],
                chances[i],
                judgements[i].clone(),
                arrows[i].clone().unwrap_or_default(),
            ));
        }
    }
    out
}

/// [`Row`] as read.
type Row2 = (
    u64,
    u32,
    String,
    Option<f64>,
    Option<f64>,
    Option<String>,
    String,
);

/// Winning chances agree to 1e-12 (the same formula; `exp` of two libms).
fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-12,
        (None, None) => true,
        _ => false,
    }
}

fn check(got: &[Row2], what: &str) {
    assert_eq!(got.len(), EXPECTED.len(), "{what}: rows");
    for (g, e) in got.iter().zip(EXPECTED) {
        let at = format!("{what}: game {} ply {}", e.0, e.1);
        assert_eq!((g.0, g.1, g.2.as_str()), (e.0, e.1, e.2), "{at}");
        assert_eq!(g.3, e.3, "{at}: move_time_s (rounded to the millisecond)");
        assert!(
            close(g.4, e.4),
            "{at}: winning_chances {:?}, want {:?}",
            g.4,
            e.4
        );
        assert_eq!(g.5.as_deref(), e.5, "{at}: judgement");
        assert_eq!(g.6, e.6, "{at}: arrows");
    }
}

/// Every value of the four columns, in batches of the default size and of 1 and 3 rows
/// (batches that start inside games: the previous plies' clocks and evals are looked up in
/// the game, not in the batch).
#[tokio::test(flavor = "multi_thread")]
async fn time_chances_judgement_and_arrows_per_ply() {
    let ctx = sql::context();
    check(&got(&ctx).await, "default batches");
    for rows in [1, 3] {
        query(
            &ctx,
            &format!("SET datafusion.execution.batch_size = {rows}"),
        )
        .await;
        check(&got(&ctx).await, &format!("batches of {rows}"));
    }
}

/// A query that selects only one of the new columns builds it alone (the others it reads
/// are not projected) and gets the same values; `count(*)` and a filter on `judgement`.
#[tokio::test(flavor = "multi_thread")]
async fn each_column_alone() {
    let ctx = sql::context();
    let f = fixture();
    let one = async |column: &str| {
        let q = format!("SELECT {column} FROM read_plies('{f}') ORDER BY game_index, ply");
        let batches = query(&ctx, &q).await;
        assert!(batches.iter().all(|b| b.num_columns() == 1), "{q}");
        batches
    };
    let times: Vec<_> = one("move_time_s")
        .await
        .iter()
        .flat_map(|b| floats(b, "move_time_s"))
        .collect();
    assert_eq!(times, EXPECTED.iter().map(|e| e.3).collect::<Vec<_>>());
    let chances: Vec<_> = one("winning_chances")
        .await
        .iter()
        .flat_map(|b| floats(b, "winning_chances"))
        .collect();
    assert_eq!(chances.len(), EXPECTED.len());
    for (g, e) in chances.iter().zip(EXPECTED) {
        assert!(close(*g, e.4), "game {} ply {}: {g:?}", e.0, e.1);
    }
    let judgements: Vec<_> = one("judgement")
        .await
        .iter()
        .flat_map(|b| strings(b, "judgement"))
        .collect();
    let want: Vec<_> = EXPECTED.iter().map(|e| e.5.map(String::from)).collect();
    assert_eq!(judgements, want);
    let arrows = query(
        &ctx,
        &format!("SELECT arrows FROM read_plies('{f}') WHERE game_index = 0 AND ply = 2"),
    )
    .await;
    let want = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    assert_eq!(arrows[0].column(0).data_type(), &want);
    let marks = arrows[0].column(0).as_list::<i32>().value(0);
    let marks = marks.as_string::<i32>();
    assert_eq!(
        marks.iter().collect::<Vec<_>>(),
        [Some("Ge7e5"), Some("Rd8h4")]
    );
    let q = format!(
        "SELECT count(*) AS n, count(judgement) AS judged, \
         sum(cardinality(arrows)) AS marks FROM read_plies('{f}')"
    );
    let b = &query(&ctx, &q).await[0];
    let int = |name: &str| read::primitive::<Int64Type>(b, name).expect(name).value(0);
    assert_eq!((int("n"), int("judged"), int("marks")), (41, 5, 6));
    let q = format!(
        "SELECT game_index, ply FROM read_plies('{f}') WHERE judgement = 'blunder' \
         ORDER BY game_index, ply"
    );
    let b = &query(&ctx, &q).await[0];
    let game = read::primitive::<UInt64Type>(b, "game_index").expect("game_index");
    let ply = read::primitive::<UInt32Type>(b, "ply").expect("ply");
    let blunders: Vec<(u64, u32)> = (0..b.num_rows())
        .map(|i| (game.value(i), ply.value(i)))
        .collect();
    assert_eq!(blunders, [(0, 10), (1, 11), (2, 3)]);
}

/// The file read as up to 4 byte ranges (`sqlchess.split_bytes` 1: one game per range)
/// gives the rows of one partition, every column of `read_plies` included.
#[tokio::test(flavor = "multi_thread")]
async fn split_reads_agree() {
    let path = data("pgn/clocks_evals.pgn");
    let cut = common::split_reads_agree(&[path], |_| true, |_| true, 4).await;
    assert_eq!(cut, 1);
}
