//! Each kind of picture opened in a real browser: headless Chromium (Debian's package,
//! which `.ci/run` installs; `SQLCHESS_CHROMIUM` names another binary) takes a screenshot
//! and the test reads its pixels, checking what can only be right if the drawing is: the
//! colours of a8 and h1, a piece on e1 of the start position and none on e4, the last
//! move's squares highlighted, an arrow's colour along its path, a board inside a result
//! page and a report page, a White bar above the axis of a game chart, a bar of the
//! profile chart. Feature `browser` (run by `.ci/run`): without Chromium these tests fail,
//! they never skip. No screenshot is kept.

use std::path::{Path, PathBuf};
use std::process::Command;

use resvg::tiny_skia::Pixmap;

/// A temporary folder for one test's files.
fn folder(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("sqlchess-browser-{name}-"))
        .tempdir()
        .expect("temporary folder")
}

/// The Chromium to run: `SQLCHESS_CHROMIUM`, else `chromium` on the PATH.
fn chromium() -> PathBuf {
    std::env::var_os("SQLCHESS_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("chromium"))
}

/// A screenshot of `file` (an SVG or HTML file) in a window of `width` × `height` CSS
/// pixels at scale 1, read back as pixels.
fn screenshot(file: &Path, (width, height): (u32, u32)) -> Pixmap {
    let dir = folder("profile");
    let png = dir.path().join("shot.png");
    let url = format!("file://{}", file.canonicalize().expect("file").display());
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("user").display()
        ))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run Chromium ({}): {e}; install Debian's chromium package (.ci/run does) \
                 or set SQLCHESS_CHROMIUM",
                chromium().display()
            )
        });
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!(
            "Chromium wrote no screenshot ({e}); it said: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Pixmap::decode_png(&bytes).expect("a PNG screenshot")
}

/// The colour at (x, y) as RGB.
fn rgb(p: &Pixmap, x: f64, y: f64) -> [u8; 3] {
    let c = p
        .pixel(x.round() as u32, y.round() as u32)
        .unwrap_or_else(|| {
            panic!(
                "({x}, {y}) is outside the {}×{} screenshot",
                p.width(),
                p.height()
            )
        });
    [c.red(), c.green(), c.blue()]
}

/// `#rrggbb` as RGB.
fn hex(c: &str) -> [u8; 3] {
    let v = u32::from_str_radix(c.trim_start_matches('#'), 16).expect("hex colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// `over` drawn with `opacity` on `under`.
fn blend(under: [u8; 3], over: [u8; 3], opacity: f64) -> [u8; 3] {
    std::array::from_fn(|i| {
        (f64::from(under[i]) * (1.0 - opacity) + f64::from(over[i]) * opacity).round() as u8
    })
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 6)
}

fn sqlchess(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(args)
        .output()
        .expect("sqlchess runs");
    assert!(
        out.status.success(),
        "sqlchess {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A board found in a screenshot: the bounding box of its margin's colour, and the scale
/// from drawing units to pixels.
struct BoardAt {
    left: f64,
    top: f64,
    scale: f64,
    flipped: bool,
}

impl BoardAt {
    /// The first board of the screenshot (from the top, then the left): its margin's top
    /// left pixel and the run of margin pixels to the right of it, the board's width.
    fn find(p: &Pixmap) -> BoardAt {
        let margin = hex(colors::MARGIN);
        let is_margin = |x: u32, y: u32| rgb(p, f64::from(x), f64::from(y)) == margin;
        let (x0, y0) = (0..p.height())
            .flat_map(|y| (0..p.width()).map(move |x| (x, y)))
            .find(|&(x, y)| is_margin(x, y))
            .expect("no board in the screenshot");
        let width = (x0..p.width()).take_while(|&x| is_margin(x, y0)).count();
        assert!(
            width > 30,
            "no board in the screenshot (a margin run of {width} pixels)"
        );
        BoardAt {
            left: f64::from(x0),
            top: f64::from(y0),
            scale: width as f64 / BOARD_UNITS,
            flipped: false,
        }
    }

    /// The pixel at `(dx, dy)` (fractions of a square) inside square `name`.
    fn at(&self, name: &str, (dx, dy): (f64, f64)) -> (f64, f64) {
        let sq = sqlchess::chess::square::parse_square(name).expect("square");
        let (x, y) = corner(sq, self.flipped);
        (
            self.left + (x + dx * SQUARE) * self.scale,
            self.top + (y + dy * SQUARE) * self.scale,
        )
    }

    fn color(&self, p: &Pixmap, name: &str, d: (f64, f64)) -> [u8; 3] {
        let (x, y) = self.at(name, d);
        rgb(p, x, y)
    }

    /// How many pixels of the middle of square `name` are not `background`.
    fn drawn(&self, p: &Pixmap, name: &str, background: [u8; 3]) -> usize {
        let steps = 20;
        (0..steps * steps)
            .filter(|i| {
                let d = (
                    0.2 + 0.6 * f64::from(i % steps) / f64::from(steps),
                    0.2 + 0.6 * f64::from(i / steps) / f64::from(steps),
                );
                !near(self.color(p, name, d), background)
            })
            .count()
    }
}

use sqlchess::picture::board::{BOARD_UNITS, MARK_OPACITY, SQUARE, colors, corner, mark_color};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// The start position: light a8 and h1, a piece on e1 (the king), none on e4; after 1. e4
/// the last move's squares highlighted and a green arrow b3–d5 along its path.
#[test]
fn board_in_the_browser() {
    let dir = folder("board");
    let start = dir.path().join("start.svg");
    sqlchess(&[
        "board",
        START,
        "--out",
        start.to_str().unwrap(),
        "--size",
        "400",
    ]);
    let shot = screenshot(&start, (500, 450));
    let board = BoardAt::find(&shot);
    assert!(
        (board.scale - 400.0 / BOARD_UNITS).abs() < 0.01,
        "scale {}",
        board.scale
    );
    let (light, dark) = (hex(colors::LIGHT), hex(colors::DARK));
    // a8 and h1 are light squares: their corners (pieces stand in the middle)
    assert!(near(board.color(&shot, "a8", (0.04, 0.04)), light));
    assert!(near(board.color(&shot, "h1", (0.96, 0.96)), light));
    assert!(near(board.color(&shot, "a1", (0.04, 0.96)), dark));
    assert!(board.drawn(&shot, "e1", dark) > 100, "no piece on e1");
    assert_eq!(board.drawn(&shot, "e4", light), 0, "a piece on e4");
    assert_eq!(board.drawn(&shot, "d5", light), 0, "a piece on d5");

    let after = dir.path().join("e4.svg");
    sqlchess(&[
        "board",
        AFTER_E4,
        "--out",
        after.to_str().unwrap(),
        "--size",
        "400",
        "--lastmove",
        "e2e4",
        "--arrows",
        "Gb3d5",
    ]);
    let shot = screenshot(&after, (500, 450));
    let board = BoardAt::find(&shot);
    let highlight = hex(colors::LAST_MOVE);
    let e2 = blend(light, highlight, colors::LAST_MOVE_OPACITY);
    assert!(
        near(board.color(&shot, "e2", (0.1, 0.1)), e2),
        "e2 not highlighted: {:?} (want {e2:?})",
        board.color(&shot, "e2", (0.1, 0.1))
    );
    let e4 = blend(light, highlight, colors::LAST_MOVE_OPACITY);
    assert!(
        near(board.color(&shot, "e4", (0.05, 0.05)), e4),
        "e4 not highlighted"
    );
    assert!(
        near(board.color(&shot, "d2", (0.05, 0.05)), dark),
        "d2 highlighted"
    );
    // the arrow b3–d5, over the empty light square c4 between them
    let green = blend(
        light,
        hex(mark_color(sqlchess::chess::mark::MarkColor::Green)),
        MARK_OPACITY,
    );
    let (bx, by) = board.at("b3", (0.5, 0.5));
    let (dx, dy) = board.at("d5", (0.5, 0.5));
    for t in [0.4, 0.5, 0.6] {
        let c = rgb(&shot, bx + (dx - bx) * t, by + (dy - by) * t);
        assert!(
            near(c, green),
            "arrow at {t} of its path: {c:?}, want {green:?}"
        );
    }
    // beside its path, c4's own colour
    assert!(near(board.color(&shot, "c4", (0.9, 0.9)), light));
    // and none off its path
    assert!(near(board.color(&shot, "h3", (0.5, 0.5)), light));
}

/// A result page (`sql --out page.html`): the board beside a FEN, drawn from the page's
/// shared definitions: light a8, the king on e1, nothing on e4.
#[test]
fn result_page_in_the_browser() {
    let dir = folder("page");
    let page = dir.path().join("page.html");
    sqlchess(&[
        "sql",
        &format!("SELECT 'the start' AS what, '{START}' AS fen"),
        "--out",
        page.to_str().unwrap(),
    ]);
    let shot = screenshot(&page, (900, 500));
    let board = BoardAt::find(&shot);
    let size = f64::from(sqlchess::picture::page::PAGE_BOARD_SIZE);
    assert!(
        (board.scale * BOARD_UNITS - size).abs() < 1.5,
        "board of {} px",
        board.scale * BOARD_UNITS
    );
    let (light, dark) = (hex(colors::LIGHT), hex(colors::DARK));
    assert!(near(board.color(&shot, "a8", (0.08, 0.08)), light));
    assert!(near(board.color(&shot, "h1", (0.92, 0.92)), light));
    assert!(board.drawn(&shot, "e1", dark) > 20, "no piece on e1");
    assert_eq!(board.drawn(&shot, "e4", light), 0, "a piece on e4");
}

/// A validation report page (`validate --html`): the first game with an illegal move,
/// 2. Nd4, drawn on the board before it as a red circle on d4 (no knight attacks it).
#[test]
fn report_page_in_the_browser() {
    let dir = folder("report");
    let page = dir.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "validate",
            "tests/data/pgn/illegal_moves.pgn",
            "--format",
            "csv",
            "--html",
        ])
        .arg(&page)
        .output()
        .expect("sqlchess runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shot = screenshot(&page, (1000, 1400));
    let board = BoardAt::find(&shot);
    let dark = hex(colors::DARK);
    let red = blend(
        dark,
        hex(mark_color(sqlchess::chess::mark::MarkColor::Red)),
        MARK_OPACITY,
    );
    // no knight attacks d4: a red circle on it (its ring near the square's right edge),
    // d4's own colour inside
    let ring = board.color(&shot, "d4", (0.96, 0.5));
    assert!(near(ring, red), "red circle on d4: {ring:?}, want {red:?}");
    assert!(
        near(board.color(&shot, "d4", (0.5, 0.5)), dark),
        "d4 inside the circle"
    );
    // a1's rook, and a3 empty
    assert!(board.drawn(&shot, "a1", dark) > 20);
    assert!(near(board.color(&shot, "a3", (0.5, 0.5)), dark));
}

/// A game chart (`sqlchess chart`): in the time panel White's bar of ply 7 stands above the
/// axis and Black's of ply 8 hangs below it; the evaluation panel's midline is there.
#[test]
fn game_chart_in_the_browser() {
    use sqlchess::picture::game_chart::{TIME_AXIS_Y, ply_span};
    let dir = folder("chart");
    let chart = dir.path().join("game.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "chart",
            "tests/data/pgn/clocks_evals.pgn",
            "--game",
            "0",
            "--out",
        ])
        .arg(&chart)
        .output()
        .expect("sqlchess runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shot = screenshot(&chart, (820, 520));
    // game 0 of the fixture: 13 plies with clocks; ply 7 (White) and 8 (Black) took time
    let (white, black, panel) = (hex("#ffffff"), hex("#404040"), hex("#e8e8e8"));
    let middle = |k| {
        let (from, to) = ply_span(k, 13);
        (from + to) / 2.0
    };
    let above = rgb(&shot, middle(7), TIME_AXIS_Y - 10.0);
    let below = rgb(&shot, middle(7), TIME_AXIS_Y + 10.0);
    assert!(near(above, white), "White's bar above the axis: {above:?}");
    assert!(
        near(below, panel),
        "nothing below the axis under White's move: {below:?}"
    );
    let below = rgb(&shot, middle(8), TIME_AXIS_Y + 10.0);
    let above = rgb(&shot, middle(8), TIME_AXIS_Y - 10.0);
    assert!(near(below, black), "Black's bar below the axis: {below:?}");
    assert!(
        near(above, panel),
        "nothing above the axis over Black's move: {above:?}"
    );
}

/// A profile chart (`sqlchess profile --out profile.svg`): a time bar per stage, the slowest
/// stage's the full width ([`TIME_BAR_MAX`] pixels from [`TIME_BAR_X`]), nothing of the
/// bars' colour left of where they start.
#[test]
fn profile_chart_in_the_browser() {
    use sqlchess::picture::profile_chart::{TIME_BAR_MAX, TIME_BAR_X, TIME_COLOR};
    let dir = folder("profile-chart");
    let chart = dir.path().join("profile.svg");
    sqlchess(&["profile", "--out", chart.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&chart).expect("chart");
    let stages = svg.matches("class=\"stage\"").count();
    assert!(stages >= 10, "{stages} stages drawn");
    let shot = screenshot(&chart, (1000, 1400));
    let bar = hex(TIME_COLOR);
    let is_bar = |x: u32, y: u32| near(rgb(&shot, f64::from(x), f64::from(y)), bar);
    let mut rows_with_bars = 0;
    let mut longest = 0;
    let mut y = 0;
    while y < shot.height() {
        let n = (0..shot.width()).filter(|&x| is_bar(x, y)).count();
        if n > 0 {
            let left = (0..shot.width()).find(|&x| is_bar(x, y)).unwrap_or(0);
            assert!(
                f64::from(left) >= TIME_BAR_X - 1.0,
                "a bar starts at x {left}"
            );
            longest = longest.max(n);
            rows_with_bars += 1;
            // the next stage's row
            while y < shot.height() && (0..shot.width()).any(|x| is_bar(x, y)) {
                y += 1;
            }
        }
        y += 1;
    }
    assert!(
        rows_with_bars >= stages / 2,
        "{rows_with_bars} bars for {stages} stages"
    );
    assert!(
        (longest as f64 - TIME_BAR_MAX).abs() <= 2.0,
        "the slowest stage's bar is {longest} px, not {TIME_BAR_MAX}"
    );
}
