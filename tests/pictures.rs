//! Board diagrams, result pages and the validation report page (`src/picture/`): the
//! golden boards of `data/sample.pgn`'s final positions, `board_svg` in SQL, `sqlchess
//! board` (SVG and PNG), `sql --format html` and `validate --html`, and their bad input.
//! The same pictures in a real browser: tests/browser.rs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use datafusion::arrow::array::AsArray;
use resvg::tiny_skia::Pixmap;

use crate::common::{query, rt};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sqlchess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("sqlchess runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Parses as an SVG document (usvg reads it as XML, then as SVG).
fn parses(svg: &str) {
    resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .unwrap_or_else(|e| panic!("not an SVG document ({e}): {}", &svg[..svg.len().min(300)]));
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

/// Every file left in `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const GOLDEN: &str = "tests/data/boards";

/// `board_svg` of the final positions of the 20 games of `data/sample.pgn` equals the
/// golden file of each (`tests/data/boards/sample_NN.svg`), and each parses as SVG. The
/// files are written again only by `SQLCHESS_BLESS_BOARDS=1 cargo test --release --test
/// tests -- pictures::golden_boards` (then read the diff).
#[test]
fn golden_boards() {
    let rt = rt();
    let batches = rt.block_on(async {
        let ctx = sqlchess::sql::context();
        query(
            &ctx,
            "SELECT game_index, board_svg(final_fen) AS svg FROM read_pgn('data/sample.pgn') \
             ORDER BY game_index",
        )
        .await
    });
    let bless = std::env::var_os("SQLCHESS_BLESS_BOARDS").is_some();
    let mut n = 0;
    for b in &batches {
        let index = b
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
        let svg = datafusion::arrow::compute::cast(
            b.column(1),
            &datafusion::arrow::datatypes::DataType::Utf8,
        )
        .expect("text");
        let svg = svg.as_string::<i32>();
        for r in 0..b.num_rows() {
            let text = svg.value(r);
            parses(text);
            let path = root()
                .join(GOLDEN)
                .join(format!("sample_{:02}.svg", index.value(r)));
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, text).unwrap();
            }
            let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!("{}: {e} (bless: see this test's docs)", path.display())
            });
            assert!(
                golden == text,
                "{} differs from board_svg's",
                path.display()
            );
            n += 1;
        }
    }
    assert_eq!(n, 20);
}

/// `board_svg` in SQL: options, the check marker from stage `checkers`, NULL for a bad
/// FEN in a column, errors naming the argument or the row for bad options.
#[test]
fn board_svg_in_sql() {
    let rt = rt();
    rt.block_on(async {
        let ctx = sqlchess::sql::context();
        let fools_mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        let b = query(
            &ctx,
            &format!(
                "SELECT board_svg('{fools_mate}') AS a, \
                 board_svg('{fools_mate}', 'flip lastmove=d8h4 arrows=Rd8h4,Ge1 size=200') AS b, \
                 board_svg(x) AS c FROM (VALUES ('not a fen'), (NULL)) t(x)"
            ),
        )
        .await;
        let col = |c: usize| {
            let a = datafusion::arrow::compute::cast(
                b[0].column(c),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .unwrap();
            a.as_string::<i32>()
                .iter()
                .map(|v| v.map(str::to_string))
                .collect::<Vec<_>>()
        };
        let a = col(0)[0].clone().unwrap();
        parses(&a);
        assert_eq!(
            a.matches("url(#check)").count(),
            1,
            "the king in check is marked"
        );
        assert!(a.contains(r#"width="390""#));
        let flipped = col(1)[0].clone().unwrap();
        parses(&flipped);
        assert!(flipped.contains(r#"width="200""#));
        assert_eq!(
            flipped.matches(r#"stroke-opacity="0.8""#).count(),
            1,
            "one circle"
        );
        assert_eq!(
            flipped.matches("fill-opacity=\"0.41\"").count(),
            2,
            "last move squares"
        );
        assert_eq!(col(2), [None, None]);
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let calm = query(&ctx, &format!("SELECT board_svg('{start}') AS s")).await;
        let s = datafusion::arrow::compute::cast(
            calm[0].column(0),
            &datafusion::arrow::datatypes::DataType::Utf8,
        )
        .unwrap();
        assert!(!s.as_string::<i32>().value(0).contains("url(#check)"));

        let err = ctx
            .sql(&format!("SELECT board_svg('{start}', 'flop')"))
            .await
            .expect_err("unknown option refused");
        let msg = err.to_string();
        assert!(
            msg.contains("board_svg: argument 2") && msg.contains("flop"),
            "{msg}"
        );
        let err = match ctx
            .sql(&format!(
                "SELECT board_svg('{start}', o) FROM (VALUES ('flip'), ('arrows=Xe2e4')) t(o)"
            ))
            .await
        {
            Ok(df) => df.collect().await.expect_err("bad arrow refused"),
            Err(e) => e,
        };
        let msg = err.to_string();
        assert!(msg.contains("of a row") && msg.contains("Xe2e4"), "{msg}");
        // types and counts: the function's own errors
        for (q, says) in [
            (
                "SELECT board_svg(42)".to_string(),
                "argument 1 (fen) must be a string",
            ),
            (
                format!("SELECT board_svg('{start}', 42)"),
                "argument 2 (options) must be a string",
            ),
            ("SELECT board_svg()".to_string(), "takes 1 or 2 arguments"),
        ] {
            let msg = ctx.sql(&q).await.expect_err(&q).to_string();
            assert!(msg.contains(says) && !msg.contains("bug"), "{q}: {msg}");
        }
        // a board is drawn whatever the attack rules say, as a literal as in a column
        let not_to_move_in_check = "4k2R/8/8/8/8/8/8/4K3 w - - 0 1";
        let b = query(
            &ctx,
            &format!("SELECT board_svg('{not_to_move_in_check}') AS s"),
        )
        .await;
        assert!(b[0].column(0).is_valid(0));
        let msg = ctx
            .sql("SELECT board_svg('8/8/8 w - - 0 1')")
            .await
            .expect_err("a FEN breaking the FEN rules")
            .to_string();
        assert!(msg.contains("argument 1, the FEN"), "{msg}");
    });
}

/// `sqlchess board`: SVG on standard output or in a file, PNG of the asked size; bad
/// input is an error with exit status 2 and leaves no file.
#[test]
fn board_command() {
    let dir = temp();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let out = sqlchess(&["board", start]);
    assert!(out.status.success(), "{}", stderr(&out));
    parses(&String::from_utf8_lossy(&out.stdout));
    let png = dir.path().join("b.png");
    let out = sqlchess(&[
        "board",
        start,
        "--out",
        png.to_str().unwrap(),
        "--size",
        "256",
        "--flip",
        "--arrows",
        "Ge2e4 Rd4",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pixels = Pixmap::decode_png(&std::fs::read(&png).unwrap()).expect("a PNG");
    assert_eq!((pixels.width(), pixels.height()), (256, 256));
    // flipped: h1 is the top left square, a light one
    let scale = 256.0 / sqlchess::picture::board::BOARD_UNITS;
    let (x, y) = sqlchess::picture::board::corner(7, true);
    let c = pixels
        .pixel(((x + 2.0) * scale) as u32, ((y + 2.0) * scale) as u32)
        .unwrap();
    let light = [0xf0, 0xd9, 0xb5];
    assert_eq!([c.red(), c.green(), c.blue()], light);
    // Chess960: drawn as any board
    let out = sqlchess(&[
        "board",
        "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    let svg = dir.path().join("x.svg");
    let s = svg.to_str().unwrap();
    for (args, says) in [
        (vec!["board", "8/8/8 w - - 0 1", "--out", s], "invalid FEN"),
        (
            vec!["board", start, "--arrows", "Ge2e4 Xd4", "--out", s],
            "Xd4",
        ),
        (
            vec!["board", start, "--lastmove", "e2", "--out", s],
            "lastmove",
        ),
        (vec!["board", start, "--size", "9", "--out", s], "size"),
        (vec!["board", start, "--out", "x.gif"], ".svg or .png"),
        (
            vec!["board", start, "--colour", "red", "--out", s],
            "--colour",
        ),
    ] {
        let out = sqlchess(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"));
    }
    let missing = dir.path().join("no/such/folder/b.svg");
    let out = sqlchess(&["board", start, "--out", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(files(dir.path()), ["b.png"], "no file left behind");
}

/// `sql --format html`: one page with the query, the count, a board beside each FEN and
/// each board_svg value, pieces defined once; cut at 10,000 rows with the count stated.
#[test]
fn result_page() {
    let dir = temp();
    let page = dir.path().join("r.html");
    let out = sqlchess(&[
        "sql",
        "SELECT game_index, white, final_fen, board_svg(final_fen, 'size=100') AS drawn \
         FROM read_pgn('data/sample.pgn') ORDER BY game_index LIMIT 3",
        "--out",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("3 rows"));
    assert!(html.contains("SELECT game_index"));
    assert_eq!(
        html.matches(r#"<symbol id="wK""#).count(),
        1,
        "pieces defined once"
    );
    assert_eq!(
        html.matches("<div class=\"board\">").count(),
        6,
        "two boards a row"
    );
    assert!(
        !html.contains("http://")
            || html.matches("http://").count()
                == html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
        "no link out of the page"
    );
    assert!(!html.contains("<script"));

    let big = dir.path().join("big.html");
    let out = sqlchess(&[
        "sql",
        "SELECT value, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' AS fen \
         FROM generate_series(1, 10005)",
        "--out",
        big.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&big).unwrap();
    assert!(
        html.contains("10005 rows; the first 10000 are shown"),
        "count stated"
    );
    assert_eq!(html.matches("<div class=\"board\">").count(), 10_000);
    assert!(html.len() < 50_000_000, "{} bytes", html.len());

    // text from a PGN or a query is text, whatever it starts with; only board drawings
    // are drawn
    let injected = dir.path().join("injected.html");
    let out = sqlchess(&[
        "sql",
        "SELECT * FROM (VALUES (1, '<svg onload=\"alert(1)\"></svg>'), \
         (2, '<img src=x onerror=alert(1)>'), \
         (3, '<svg xmlns=\"http://www.w3.org/2000/svg\"><use href=\"http://x/y#a\"/></svg>')) t(i, c)",
        "--out",
        injected.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&injected).unwrap();
    assert!(!html.contains("<img") && !html.contains("onload=\"") && !html.contains("href=\"http"));
    assert!(html.contains("&lt;svg onload="));
    let out = sqlchess(&[
        "sql",
        "SELEC 1",
        "--out",
        dir.path().join("bad.html").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        files(dir.path()),
        ["big.html", "injected.html", "r.html"],
        "no file left behind"
    );
}

/// `validate --html`: counts by status and kind, each game with an illegal or unreadable
/// move with its board, the move drawn, the token and the error; tags escaped.
#[test]
fn report_page() {
    let dir = temp();
    let page = dir.path().join("report.html");
    let out = sqlchess(&[
        "validate",
        "tests/data/pgn/illegal_moves.pgn",
        "--html",
        page.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<p>5 games</p>"));
    assert!(html.contains("<td>illegal_move</td><td>2</td>"), "{html}");
    assert!(html.contains("<td>setup</td><td>1</td>"));
    assert!(html.contains("<td>checkmate</td><td>1</td>"));
    assert!(html.contains("<p>4 games</p>"), "games with an error");
    assert_eq!(html.matches("<div class=\"game\">").count(), 4);
    assert!(html.contains("<code>Nd4</code>") && html.contains("<code>Zz9</code>"));
    assert!(html.contains("Token &lt;b&gt;"), "tags escaped");
    assert!(html.contains("FEN tag: <code>8/8/8/8/8/8/8/8 w - - 0 1</code>"));
    // Nd4: no knight attacks d4, a red circle; Bh3: the pinned bishop's arrow (stage
    // piece_attacks), none from f8
    assert_eq!(html.matches("fill=\"#882020\"").count(), 1, "one red arrow");
    assert_eq!(
        html.matches("stroke=\"#882020\"").count(),
        1,
        "one red circle"
    );
    let out = sqlchess(&["validate", "data/sample.pgn", "--html", "r.pdf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(".html"));
}
