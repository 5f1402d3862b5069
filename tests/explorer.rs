//! `explorer(path, max_ply)`: the moves played from each position of the games' first plies,
//! with their results, against the example query of `examples/queries/`, against
//! `read_plies` and `read_pgn` in SQL, and (feature `shared-data`) against python-chess's
//! counts over the shared standard games (`tests/data/openings/explorer_counts.csv`,
//! written by `explorer_counts.py`): the start position, two deeper ones and one reached by
//! transposition. Bad arguments are planning errors naming the argument.

use crate::common;

use common::{data, sql_cells};
use sqlchess::sql;

fn queries_pgn() -> String {
    data("pgn/queries.pgn").display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn explorer_equals_the_example_query() {
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/queries/next_moves_from_position.sql"),
    )
    .expect("example")
    .replace("tests/data/pgn/queries.pgn", &queries_pgn());
    let want = sql_cells(&example).await;
    assert!(want.len() >= 3, "{want:?}");
    let got = sql_cells(&format!(
        "SELECT san, sum(games), sum(white_wins), sum(black_wins) FROM explorer('{}', 20) \
         WHERE epd = epd('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2') \
         GROUP BY san ORDER BY 2 DESC, san",
        queries_pgn()
    ))
    .await;
    assert_eq!(got, want);
}

/// Every ply of the first `max_ply` of every standard game is counted once, under the
/// position before it; the filters' columns are the games' (`read_pgn`'s `speed`, the
/// band of the mean Elo, the month of the date), and the counts follow the `Result` tag.
#[tokio::test(flavor = "multi_thread")]
async fn explorer_counts_the_plies_of_the_standard_games() {
    let path = queries_pgn();
    for max_ply in [1, 7, 20] {
        let got = sql_cells(&format!(
            "SELECT sum(games) FROM explorer('{path}', {max_ply})"
        ))
        .await;
        let want = sql_cells(&format!(
            "SELECT count(*) FROM (SELECT DISTINCT p.game_index, position_key(p.fen_before), \
             p.uci FROM read_plies('{path}') p JOIN read_pgn('{path}') g \
             ON p.game_index = g.game_index WHERE g.start_fen IS NULL AND p.ply <= {max_ply})"
        ))
        .await;
        assert_eq!(got, want, "max_ply {max_ply}");
    }
    // the first move of each game: its speed, band, month and result are the game's
    let got = sql_cells(&format!(
        "SELECT speed, rating_band, month, sum(games), sum(white_wins), sum(draws), \
         sum(black_wins), sum(mover_elo_sum), sum(mover_elo_games), max(last_date) \
         FROM explorer('{path}', 1) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ))
    .await;
    let want = sql_cells(&format!(
        "SELECT speed, CAST(CASE WHEN white_elo IS NULL OR black_elo IS NULL THEN NULL \
           WHEN (white_elo + black_elo) / 2 >= 2500 THEN 2500 \
           WHEN (white_elo + black_elo) / 2 >= 2200 THEN 2200 \
           WHEN (white_elo + black_elo) / 2 >= 1000 \
             THEN ((white_elo + black_elo) / 2 / 200) * 200 ELSE 0 END AS SMALLINT UNSIGNED), \
         replace(substr(coalesce(utc_date, date), 1, 7), '.', '-'), count(*), \
         sum(CASE WHEN result = '1-0' THEN 1 ELSE 0 END), \
         sum(CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END), \
         sum(CASE WHEN result = '0-1' THEN 1 ELSE 0 END), sum(white_elo), count(white_elo), \
         max(coalesce(utc_date, date)) \
         FROM read_pgn('{path}') WHERE start_fen IS NULL AND plies >= 1 \
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ))
    .await;
    assert!(got.len() > 1, "{got:?}");
    assert_eq!(got, want);
    // the scan replays each game up to max_ply
    let plan = sql_cells(&format!(
        "EXPLAIN SELECT * FROM explorer('{path}', 12) WHERE speed = 'blitz'"
    ))
    .await;
    assert!(
        plan.iter()
            .flatten()
            .any(|c| c.contains("explorer plies") && c.contains("max_ply=12")),
        "{plan:?}"
    );
}

/// `read_pgn`'s games that the explorer reads: no `FEN` tag, standard rules.
const STANDARD: &str = "g.start_fen IS NULL AND (g.tags['Variant'] IS NULL OR \
     lower(trim(g.tags['Variant'])) IN ('', 'standard', 'chess', 'classical', 'normal', \
     'illegal', 'from position'))";

/// The explorer's plies are those of `read_plies` (the standard games', up to `max_ply`):
/// the same position before each move (Polyglot key and EPD), the same move and SAN (its
/// `+` or `#` included), once per game that plays it (a game repeating a position and
/// move counts once), though the explorer replays the plies games share once.
async fn assert_explorer_is_read_plies(path: &str, max_ply: u32) {
    let got = sql_cells(&format!(
        "SELECT position_key, epd, uci, san, sum(games) FROM explorer('{path}', {max_ply}) \
         GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
    ))
    .await;
    let want = sql_cells(&format!(
        "SELECT position_key(p.fen_before), epd(p.fen_before), p.uci, p.san, \
         count(DISTINCT concat(p.file, '#', p.game_index)) \
         FROM read_plies('{path}') p JOIN read_pgn('{path}') g \
         ON p.file = g.file AND p.game_index = g.game_index \
         WHERE {STANDARD} AND p.ply <= {max_ply} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
    ))
    .await;
    assert!(!want.is_empty(), "{path}");
    assert_eq!(got.len(), want.len(), "{path}, max_ply {max_ply}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{path}, max_ply {max_ply}");
    }
}

/// Every fixture, the illegal and malformed games (UCI tokens, en passant marks, ambiguous
/// and illegal moves, mates and checks at the cut) included.
#[tokio::test(flavor = "multi_thread")]
async fn explorer_plies_are_read_plies_plies() {
    for glob in ["pgn/*.pgn", "pgn/malformed/*.pgn"] {
        let path = data(glob).display().to_string();
        for max_ply in [1, 2, 9, 40, 1000] {
            assert_explorer_is_read_plies(&path, max_ply).await;
        }
    }
}

/// A game that comes back to a position and plays the same move again is one game of that
/// move (as the lichess explorer counts); a month that is not one is NULL.
#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_position_counts_its_game_once() {
    let dir = common::scratch("explorer-repetition");
    let file = dir.join("repetition.pgn");
    std::fs::write(
        &file,
        "[Date \"2024.13.45\"]\n[Result \"1/2-1/2\"]\n\n\
         1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 1/2-1/2\n",
    )
    .expect("write");
    let got = sql_cells(&format!(
        "SELECT san, games, draws, month IS NULL FROM explorer('{}', 20) ORDER BY san",
        file.display()
    ))
    .await;
    let row = |san: &str| vec![san.to_string(), "1".into(), "1".into(), "true".into()];
    assert_eq!(
        got,
        [row("Nf3"), row("Nf6"), row("Ng1"), row("Ng8"), row("e4")]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn explorer_arguments_are_checked_at_planning() {
    let ctx = sql::context();
    let path = queries_pgn();
    for (args, message) in [
        (
            format!("'{path}', 0"),
            "argument 2 (max_ply) must be an integer literal of at least 1",
        ),
        (format!("'{path}', -3"), "argument 2 (max_ply)"),
        (format!("'{path}', 'x'"), "argument 2 (max_ply)"),
        (format!("'{path}', 2.5"), "argument 2 (max_ply)"),
        (format!("'{path}'"), "expects 2 arguments"),
        (
            "1, 2".to_string(),
            "argument 1 (path) must be a string literal",
        ),
        ("'no/such.pgn', 2".to_string(), "explorer: no/such.pgn"),
    ] {
        let q = format!("SELECT count(*) FROM explorer({args})");
        let e = match ctx.sql(&q).await {
            Ok(df) => df.collect().await.map(|_| ()).expect_err(&q),
            Err(e) => e,
        };
        assert!(e.to_string().contains(message), "{q}: {e}");
    }
    let dir = common::scratch("explorer-empty");
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "").expect("write");
    let got = sql_cells(&format!(
        "SELECT count(*) FROM explorer('{}', 20)",
        empty.display()
    ))
    .await;
    assert_eq!(got, [["0"]]);
}

/// Run by `.ci/run` with the heavy checks (`shared_data::`).
#[cfg(feature = "shared-data")]
mod shared_data {
    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn explorer_counts_equal_python_chess() {
        use crate::shared_data::shared;
        let mut r = csv::Reader::from_path(data("openings/explorer_counts.csv")).expect("csv");
        let mut want: Vec<Vec<String>> = vec![];
        for row in r.records() {
            let row = row.expect("row");
            want.push((0..7).map(|i| row[i].to_string()).collect());
        }
        for position in ["start", "e4", "sicilian", "transposition"] {
            let want: Vec<Vec<String>> = want
                .iter()
                .filter(|r| r[0] == position)
                .map(|r| r[2..].to_vec())
                .collect();
            let epd = &want_epd(&data("openings/explorer_counts.csv"), position);
            let got = sql_cells(&format!(
                "SELECT uci, sum(games), sum(white_wins), sum(draws), sum(black_wins) \
                 FROM explorer('{}', 20) WHERE epd = '{epd}' GROUP BY uci ORDER BY uci",
                shared("pgn").display()
            ))
            .await;
            assert!(!want.is_empty(), "{position}");
            assert_eq!(got, want, "{position}: {epd}");
        }
    }

    /// The shared games, illegal and malformed ones included: the explorer's plies are
    /// `read_plies`' (see [`assert_explorer_is_read_plies`]).
    #[tokio::test(flavor = "multi_thread")]
    async fn explorer_plies_of_the_shared_games_are_read_plies_plies() {
        use crate::shared_data::shared;
        // bad/malformed holds a binary file, which read_pgn refuses (as explorer does)
        for files in ["pgn", "bad/*.pgn"] {
            let path = shared(files).display().to_string();
            for max_ply in [20, 400] {
                assert_explorer_is_read_plies(&path, max_ply).await;
            }
        }
    }

    /// The EPD of one of the positions of the python-chess counts.
    fn want_epd(path: &std::path::Path, position: &str) -> String {
        let mut r = csv::Reader::from_path(path).expect("csv");
        r.records()
            .map(|row| row.expect("row"))
            .find(|row| &row[0] == position)
            .map(|row| row[1].to_string())
            .expect("position")
    }
}
