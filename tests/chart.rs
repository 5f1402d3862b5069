//! `sqlchess chart FILE --game N --out OUT`: the chart of one game of
//! `tests/data/pgn/clocks_evals.pgn` as SVG and as HTML (the bars, circles, lines and
//! notes the game's rows call for, see `tests/clocks_evals.rs` for its values), and the
//! errors: exit status 2 with a message naming the argument, and no file left behind.

use std::path::Path;

use crate::common::cli::{path, show, sqlchess};
use crate::common::{data, scratch};

const FIXTURE: &str = "tests/data/pgn/clocks_evals.pgn";

/// The chart of game `game` as written to `dir/name`.
fn chart(dir: &Path, game: &str, name: &str) -> String {
    let out = dir.join(name);
    let run = sqlchess(&["chart", FIXTURE, "--game", game, "--out", path(&out)]);
    assert_eq!(run.status.code(), Some(0), "{}", show(&run));
    std::fs::read_to_string(&out).expect("chart written")
}

fn count(svg: &str, class: &str) -> usize {
    svg.matches(&format!("class=\"{class}\"")).count()
}

fn parses(svg: &str) {
    resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .unwrap_or_else(|e| panic!("{e}: {svg}"));
}

/// Game 0 (13 plies, clocks and evals on each): 7 White and 6 Black bars, Black's mistake
/// (`g6`) and blunder (`Bxd1`) circled and labelled, both clock lines, no note; the HTML
/// page holds the same SVG under the game's title.
#[test]
fn svg_and_html_of_a_game() {
    let dir = scratch("chart");
    let svg = chart(&dir, "0", "game.svg");
    parses(&svg);
    assert!(svg.starts_with("<svg "), "{svg}");
    assert_eq!(count(&svg, "white-bar"), 7, "{svg}");
    assert_eq!(count(&svg, "black-bar"), 6, "{svg}");
    assert_eq!(count(&svg, "mistake"), 1, "{svg}");
    assert_eq!(count(&svg, "blunder"), 1, "{svg}");
    assert_eq!(count(&svg, "white-clock") + count(&svg, "black-clock"), 2);
    assert_eq!(count(&svg, "note"), 0, "{svg}");
    assert!(
        svg.contains(">\ng6\n</text>") && svg.contains(">\nBxd1\n</text>"),
        "{svg}"
    );
    assert!(
        svg.contains(">\nAlice – Bob, Clock test blitz, 2024.01.02\n</text>"),
        "{svg}"
    );
    let html = chart(&dir, "0", "game.html");
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<title>Alice – Bob, Clock test blitz, 2024.01.02</title>"));
    assert!(html.contains(&format!("<body>\n{svg}\n")), "{html}");
    assert!(!html.contains("<script"));
    // the same bytes each time
    assert_eq!(chart(&dir, "0", "again.svg"), svg);
}

/// Games with a part missing get the part they have and a note; a game without moves an
/// empty chart (exit 0).
#[test]
fn games_with_a_part_missing() {
    let dir = scratch("chart-missing");
    // no TimeControl: clocks but no time per move
    let svg = chart(&dir, "1", "g1.svg");
    assert!(
        svg.contains(
            ">\nno times per move in this game (no TimeControl tag with its base time)\n</text>"
        ),
        "{svg}"
    );
    assert_eq!(count(&svg, "white-bar") + count(&svg, "black-bar"), 0);
    assert_eq!(count(&svg, "white-clock") + count(&svg, "black-clock"), 2);
    assert_eq!(count(&svg, "blunder"), 1, "{svg}");
    // no moves
    let svg = chart(&dir, "3", "g3.svg");
    parses(&svg);
    assert_eq!(
        svg.matches(">\nno moves in this game\n</text>").count(),
        2,
        "{svg}"
    );
    assert!(
        svg.contains(">\nGina – Hugo, No moves, 2024.01.05\n</text>"),
        "{svg}"
    );
    // evals only
    let svg = chart(&dir, "4", "g4.svg");
    assert!(
        svg.contains(">\nno clock times in this game\n</text>"),
        "{svg}"
    );
    assert_eq!(count(&svg, "eval-line"), 1);
    assert_eq!(count(&svg, "inaccuracy"), 1);
    // clocks only
    let svg = chart(&dir, "5", "g5.svg");
    assert!(
        svg.contains(">\nno evaluations in this game\n</text>"),
        "{svg}"
    );
    assert_eq!(count(&svg, "white-bar"), 1, "{svg}");
    assert_eq!(count(&svg, "black-bar"), 3, "{svg}");
}

/// A path with a single quote and glob characters is read as that one file.
#[test]
fn a_path_sql_would_misread() {
    let dir = scratch("chart-quote");
    let pgn = dir.join("it's [1] *.pgn");
    std::fs::copy(data("pgn/clocks_evals.pgn"), &pgn).expect("copy");
    let out = dir.join("g.svg");
    let run = sqlchess(&["chart", path(&pgn), "--game", "2", "--out", path(&out)]);
    assert_eq!(run.status.code(), Some(0), "{}", show(&run));
    let svg = std::fs::read_to_string(&out).expect("chart");
    assert!(
        svg.contains(">\nErin – Frank, Fool's mate, 2024.01.04\n</text>"),
        "{svg}"
    );
}

/// Each error: exit status 2, the message naming the argument, nothing written (not even a
/// temporary file).
#[test]
fn errors_leave_no_file() {
    let dir = scratch("chart-errors");
    let svg = dir.join("g.svg");
    let png = dir.join("g.png");
    let nowhere = dir.join("no/such/folder/g.svg");
    let cases: [(Vec<&str>, &str); 6] = [
        (
            vec!["chart", "tests/data/pgn/missing.pgn", "--out", path(&svg)],
            "tests/data/pgn/missing.pgn: No such file",
        ),
        (
            vec!["chart", FIXTURE, "--game", "57", "--out", path(&svg)],
            "--game 57: game 57 not found: tests/data/pgn/clocks_evals.pgn has 6 games (0–5)",
        ),
        (vec!["chart", FIXTURE, "--out", path(&png)], ".svg or .html"),
        (
            vec!["chart", "tests/data/pgn", "--out", path(&svg)],
            "FILE tests/data/pgn: not a file",
        ),
        (
            vec!["chart", FIXTURE, "--out", path(&nowhere)],
            "no/such/folder/g.svg",
        ),
        // a file that is not PGN (text): its game 0 stops before a first move
        (
            vec!["chart", "tests/data/README.md", "--out", path(&svg)],
            "has no legal move to chart",
        ),
    ];
    for (args, message) in cases {
        let out = sqlchess(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {}", show(&out));
        assert!(!stderr.contains("panicked"), "{}", show(&out));
        let left: Vec<_> = std::fs::read_dir(&*dir).expect("dir").collect();
        assert!(left.is_empty(), "{args:?}: left {left:?}");
    }
    // --help says what N is
    let help = sqlchess(&["chart", "--help"]);
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("0-based index in the file"),
        "{}",
        show(&help)
    );
}

/// A game read up to an illegal move: its legal plies charted, the error said in the chart
/// and on stderr, exit status 0.
#[test]
fn a_game_with_an_illegal_move_is_charted_up_to_it() {
    let dir = scratch("chart-illegal");
    let out = dir.join("g.htm");
    let run = sqlchess(&[
        "chart",
        "tests/data/pgn/illegal_moves.pgn",
        "--game",
        "1",
        "--out",
        path(&out),
    ]);
    assert!(run.status.success(), "{}", show(&run));
    assert!(String::from_utf8_lossy(&run.stderr).contains("stops at ply 3 (illegal_move)"));
    let html = std::fs::read_to_string(&out).expect("chart written");
    assert!(html.contains("class=\"stop\""), "{html}");
    assert!(html.contains("the game stops at ply 3: illegal_move"));
}
