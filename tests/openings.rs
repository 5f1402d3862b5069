//! The named openings: the `openings` table (our replay of lichess-org/chess-openings),
//! `read_pgn`'s classification columns and `opening(fen)`, against python-chess's answers
//! (`tests/data/openings/classified.csv`, written by `classify_games.py` from
//! `../shared/data/oracle`) and against the tables themselves in SQL. With the feature
//! `shared-data`: every row of `oracle/openings.csv` and every shared standard game.

use crate::common;

use std::collections::HashMap;

use common::{data, sql_cells};
use sqlchess::sql;

/// The text of every cell, row by row (NULL as "").
/// A game's classification by python-chess: the ply ("" when none) and the ECO codes and
/// names of the openings at that position.
type Classified = (String, Vec<(String, String)>);

/// python-chess's classification of the shared standard games, by (file, game index).
fn python_chess_classification() -> HashMap<(String, String), Classified> {
    let mut r = csv::Reader::from_path(data("openings/classified.csv")).expect("classified.csv");
    r.records()
        .map(|row| {
            let row = row.expect("row");
            let names: Vec<(String, String)> = row[3]
                .split('|')
                .zip(row[4].split('|'))
                .filter(|(e, _)| !e.is_empty())
                .map(|(e, n)| (e.to_string(), n.to_string()))
                .collect();
            (
                (row[0].to_string(), row[1].to_string()),
                (row[2].to_string(), names),
            )
        })
        .collect()
}

/// Our classification of the games of `path` (file, game index, eco, name, ply), `file`
/// relative to `root`.
async fn classified(path: &str, root: &str) -> Vec<(String, String, String, String, String)> {
    sql_cells(&format!(
        "SELECT file, game_index, classified_eco, classified_opening, classified_ply \
         FROM read_pgn('{path}')"
    ))
    .await
    .into_iter()
    .map(|r| {
        let file = r[0].strip_prefix(root).unwrap_or(&r[0]).to_string();
        (file, r[1].clone(), r[2].clone(), r[3].clone(), r[4].clone())
    })
    .collect()
}

/// Each game's classification is python-chess's: the same ply, a name among those of the
/// position.
fn assert_as_python_chess(ours: &[(String, String, String, String, String)], min: usize) {
    let want = python_chess_classification();
    let mut compared = 0;
    for (file, index, eco, name, ply) in ours {
        let Some((want_ply, names)) = want.get(&(file.clone(), index.clone())) else {
            // games with a FEN tag or of a variant: not classified
            assert_eq!(
                (eco, name, ply),
                (&String::new(), &String::new(), &String::new())
            );
            continue;
        };
        compared += 1;
        assert_eq!(ply, want_ply, "{file} game {index}: classified ply");
        if !want_ply.is_empty() {
            assert!(
                names.contains(&(eco.clone(), name.clone())),
                "{file} game {index}: {eco} {name}, python-chess {names:?}"
            );
        }
    }
    assert!(compared >= min, "{compared} games compared");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openings_table_is_the_lines_replayed() {
    let got = sql_cells(
        "SELECT count(*), count(DISTINCT epd), min(ply), max(ply), \
         sum(CASE WHEN uci LIKE '%e1g1%' THEN 1 ELSE 0 END) > 0 FROM openings",
    )
    .await;
    assert_eq!(got, [["3807", "3807", "1", "36", "true"]]);
    let got = sql_cells("SELECT eco, pgn, uci, epd, ply FROM openings WHERE name = 'Sicilian Defense: Najdorf Variation' AND ply = 10").await;
    assert_eq!(
        got,
        [[
            "B90",
            "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6",
            "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
            "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq -",
            "10"
        ]]
    );
    // every line's position is the one `fen_after` reaches from its moves, as `epd` writes it
    let got = sql_cells(
        "SELECT count(*) FROM openings WHERE epd <> epd(epd || ' 0 1') OR ply <> \
         cardinality(string_to_array(uci, ' '))",
    )
    .await;
    assert_eq!(got, [["0"]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sample_games_are_classified_as_python_chess_does() {
    let path = data("pgn/sample.pgn").display().to_string();
    let ours = classified(&path, &data("pgn/").display().to_string()).await;
    assert_eq!(ours.len(), 20);
    assert_as_python_chess(&ours, 17);
}

/// In SQL over the tables themselves: the classified ply is the deepest of the first 40
/// plies whose position (`epd(fen_after)`) is an `openings` row, and the name that row's;
/// games with a `FEN` tag have none; a game with an illegal move is classified on its
/// legal plies.
#[tokio::test(flavor = "multi_thread")]
async fn the_classified_ply_is_the_deepest_named_one_within_40() {
    for file in [
        "pgn/queries.pgn",
        "pgn/patterns.pgn",
        "pgn/illegal_moves.pgn",
        "pgn/plies.pgn",
    ] {
        let path = data(file).display().to_string();
        let got = sql_cells(&format!(
            "WITH g AS (SELECT game_index, start_fen, classified_eco, classified_opening, \
               classified_ply FROM read_pgn('{path}')), \
             named AS (SELECT p.game_index, max(p.ply) AS ply FROM read_plies('{path}') p \
               JOIN openings o ON epd(p.fen_after) = o.epd WHERE p.ply <= 40 GROUP BY 1), \
             deepest AS (SELECT n.game_index, n.ply, o.eco, o.name FROM named n \
               JOIN read_plies('{path}') p ON p.game_index = n.game_index AND p.ply = n.ply \
               JOIN openings o ON epd(p.fen_after) = o.epd) \
             SELECT g.game_index, g.classified_ply, d.ply, g.classified_eco, d.eco, \
               g.classified_opening, d.name, g.start_fen IS NULL FROM g \
             LEFT JOIN deepest d ON g.game_index = d.game_index ORDER BY 1"
        ))
        .await;
        assert!(!got.is_empty(), "{file}");
        for r in &got {
            if r[7] == "true" {
                assert_eq!(
                    (&r[1], &r[3], &r[5]),
                    (&r[2], &r[4], &r[6]),
                    "{file}: {r:?}"
                );
            } else {
                assert_eq!((&r[1], &r[3], &r[5]), (&"".into(), &"".into(), &"".into()));
            }
        }
    }
    let path = data("pgn/illegal_moves.pgn").display().to_string();
    let got = sql_cells(&format!(
        "SELECT count(*) FROM read_pgn('{path}') WHERE first_illegal_ply > 1 \
         AND classified_ply IS NOT NULL AND classified_ply < first_illegal_ply"
    ))
    .await;
    assert_ne!(
        got,
        [["0"]],
        "games with an illegal move classified on their prefix"
    );
}

/// The classification replays 40 plies of each game: fewer stage runs than the rules'
/// whole replay, and the same classification with the rules columns projected too.
#[tokio::test(flavor = "multi_thread")]
async fn classification_stops_at_ply_40() {
    let path = data("pgn/queries.pgn").display().to_string();
    let runs = async |q: &str| -> (Vec<Vec<String>>, usize) {
        let ctx = sql::context();
        let df = ctx.sql(q).await.expect("plan");
        let plan = df.create_physical_plan().await.expect("plan");
        let batches = datafusion::physical_plan::collect(plan.clone(), ctx.task_ctx())
            .await
            .expect("run");
        let mut runs = 0;
        let mut stack = vec![plan];
        while let Some(p) = stack.pop() {
            if let Some(m) = p.metrics() {
                runs += m.sum_by_name("stage_runs").map_or(0, |v| v.as_usize());
            }
            stack.extend(p.children().into_iter().cloned());
        }
        (common::cells(&batches), runs)
    };
    let (alone, cut) = runs(&format!(
        "SELECT game_index, classified_eco, classified_ply FROM read_pgn('{path}') ORDER BY 1"
    ))
    .await;
    let (with_rules, whole) = runs(&format!(
        "SELECT game_index, classified_eco, classified_ply, plies FROM read_pgn('{path}') ORDER BY 1"
    ))
    .await;
    let without_plies: Vec<Vec<String>> = with_rules.iter().map(|r| r[..3].to_vec()).collect();
    assert_eq!(alone, without_plies);
    assert!(
        with_rules
            .iter()
            .any(|r| r[3].parse::<u32>().expect("plies") > 40)
    );
    assert!(
        cut < whole,
        "{cut} stage runs classifying, {whole} with the rules"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn opening_names_the_position_exactly() {
    let got = sql_cells(
        "SELECT opening(fen) FROM (VALUES \
           ('rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6'), \
           ('rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 7 30'), \
           ('rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R b KQkq - 0 6'), \
           ('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'), \
           ('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'), \
           (NULL), ('not a fen')) t(fen)",
    )
    .await;
    let want = [
        "Sicilian Defense: Najdorf Variation",
        "Sicilian Defense: Najdorf Variation",
        // the other side to move: not that position
        "",
        // an en passant square no capture can use is not part of the position
        "King's Pawn Game",
        "",
        "",
        "",
    ];
    assert_eq!(got, want.map(|w| vec![w.to_string()]));
}

/// Run by `.ci/run` with the heavy checks (`shared_data::`).
#[cfg(feature = "shared-data")]
mod shared_data {
    use super::*;
    use crate::shared_data::shared;

    #[tokio::test(flavor = "multi_thread")]
    async fn the_openings_table_equals_python_chess() {
        let got = sql_cells("SELECT eco, name, pgn, uci, epd FROM openings").await;
        let mut r = csv::Reader::from_path(shared("oracle/openings.csv")).expect("openings.csv");
        let want: Vec<Vec<String>> = r
            .records()
            .map(|row| {
                let row = row.expect("row");
                (2..7).map(|i| row[i].to_string()).collect()
            })
            .collect();
        assert_eq!(want.len(), 3807);
        assert_eq!(got, want);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn every_shared_standard_game_is_classified_as_python_chess_does() {
        let root = format!("{}/", shared("").display()).replace("//", "/");
        let mut ours = classified(&shared("pgn").display().to_string(), &root).await;
        ours.extend(classified(&shared("sample.pgn").display().to_string(), &root).await);
        assert_as_python_chess(&ours, 5_500);
    }
}
