//! The chart of one game, from its `read_plies` rows ([`GameSeries`]): the evaluation as
//! White's winning chances, with the moves lichess judges mistakes and blunders marked, and
//! the time each side spent per move with the clocks. As SVG ([`game_chart_svg`], written
//! with the `svg` crate) or as one self-contained HTML page ([`game_chart_html`]: no script,
//! no file from elsewhere). `sqlchess chart` writes them.
//!
//! # Geometry
//!
//! The SVG is [`WIDTH`] × [`HEIGHT`] pixels, its `viewBox` the same (one unit is one pixel
//! at zoom 1; the HTML page draws it at its top left corner with no margin, so page pixels
//! are chart units). The title is at the top ([`TITLE_BASELINE`]). Two panels share the x
//! axis: the n plies of the game split [`PLOT_LEFT`] … [`PLOT_RIGHT`] into equal spans, the
//! k-th ply (1-based, in order) taking `PLOT_LEFT + (k − 1)·w` … `PLOT_LEFT + k·w` with
//! `w = (PLOT_RIGHT − PLOT_LEFT) / n` ([`ply_span`]); its points are drawn at the span's
//! centre.
//!
//! - The evaluation panel, [`EVAL_TOP`] … [`EVAL_BOTTOM`]: winning chances +1 (White wins)
//!   at `EVAL_TOP`, 0 on the middle line [`EVAL_MID_Y`], −1 at `EVAL_BOTTOM`
//!   ([`eval_y`]). The area between the curve and the middle line is
//!   [`colors::WHITE_AREA`] above it and [`colors::BLACK_AREA`] below it, the curve
//!   [`colors::EVAL_LINE`]; a move judged a blunder, mistake or inaccuracy gets a circle
//!   of radius [`MARKER_RADIUS`] on the curve ([`colors::BLUNDER`], [`colors::MISTAKE`],
//!   [`colors::INACCURACY`]), blunders and mistakes labelled with their SAN.
//! - The time panel, [`TIME_TOP`] … [`TIME_BOTTOM`], around its axis [`TIME_AXIS_Y`]:
//!   White's moves as bars standing on the axis (from `TIME_AXIS_Y − h` to `TIME_AXIS_Y`,
//!   fill [`colors::WHITE_BAR`], outline [`colors::BAR_OUTLINE`]), Black's hanging under
//!   it (from `TIME_AXIS_Y` to `TIME_AXIS_Y + h`, fill [`colors::BLACK_BAR`]); `h` is
//!   `move_time_s / longest move time · BAR_MAX` ([`BAR_MAX`]; at least 1 for a move
//!   timed at 0 s or less). A bar spans its ply's span less [`BAR_INSET`] of its width on
//!   each side (so the span's centre is always inside it). The clocks are two lines:
//!   White's `clock_s` above the axis (`TIME_AXIS_Y − clock / longest clock ·
//!   CLOCK_MAX`, [`colors::WHITE_CLOCK`]), Black's mirrored below it
//!   ([`colors::BLACK_CLOCK`]).
//!
//! Both panels have the background [`colors::PANEL`] (the chart's is
//! [`colors::BACKGROUND`]). A panel without data says so in its middle: "no evaluations in
//! this game", "no clock times in this game" (no `clock_s` at all), "no times per move in
//! this game" (clocks but no `move_time_s`: no usable `TimeControl` tag), "no moves in
//! this game" (both panels). Elements carry classes for tests: `white-bar`, `black-bar`,
//! `white-clock`, `black-clock`, `eval-line`, `blunder`, `mistake`, `inaccuracy`,
//! `note`. The output depends only on the input (the same bytes each time).

use std::fmt::Write as _;

use svg::Document;
use svg::node::element::{Circle, Group, Line, Path, Rectangle, Text};

use super::page::escape;
use super::shapes::{self, rect, round};
use crate::chess::color::Color;

/// The chart's width, in pixels (and drawing units).
pub const WIDTH: f64 = 800.0;
/// The chart's height, in pixels (and drawing units).
pub const HEIGHT: f64 = 500.0;
/// The baseline of the title, centred on the chart.
pub const TITLE_BASELINE: f64 = 22.0;
/// The left edge of both panels' plots (the first ply's span starts here).
pub const PLOT_LEFT: f64 = 50.0;
/// The right edge of both panels' plots (the last ply's span ends here).
pub const PLOT_RIGHT: f64 = 780.0;
/// The top of the evaluation panel: winning chances +1.
pub const EVAL_TOP: f64 = 40.0;
/// The middle line of the evaluation panel: winning chances 0.
pub const EVAL_MID_Y: f64 = 140.0;
/// The bottom of the evaluation panel: winning chances −1.
pub const EVAL_BOTTOM: f64 = 240.0;
/// The top of the time panel.
pub const TIME_TOP: f64 = 270.0;
/// The time panel's axis: White's bars stand on it, Black's hang under it.
pub const TIME_AXIS_Y: f64 = 370.0;
/// The bottom of the time panel.
pub const TIME_BOTTOM: f64 = 470.0;
/// The height of the bar of the longest move.
pub const BAR_MAX: f64 = 90.0;
/// The distance from the axis of the clock line at the longest clock.
pub const CLOCK_MAX: f64 = 90.0;
/// The share of a ply's span left empty on each side of its bar.
pub const BAR_INSET: f64 = 0.15;
/// The radius of a judgement's circle.
pub const MARKER_RADIUS: f64 = 5.0;

// the panels inside the chart, one above the other; each middle line halves its panel, and
// the bars and clock lines stay inside theirs
const _: () = assert!(
    PLOT_LEFT < PLOT_RIGHT
        && PLOT_RIGHT < WIDTH
        && EVAL_BOTTOM < TIME_TOP
        && TIME_BOTTOM < HEIGHT
        && EVAL_MID_Y * 2.0 == EVAL_TOP + EVAL_BOTTOM
        && TIME_AXIS_Y * 2.0 == TIME_TOP + TIME_BOTTOM
        && BAR_MAX <= TIME_AXIS_Y - TIME_TOP
        && CLOCK_MAX <= TIME_AXIS_Y - TIME_TOP
);

/// The chart's colours.
pub mod colors {
    /// Around the panels.
    pub const BACKGROUND: &str = "#ffffff";
    /// The panels' background.
    pub const PANEL: &str = "#e8e8e8";
    /// White's advantage: between the curve and the middle line, above it.
    pub const WHITE_AREA: &str = "#ffffff";
    /// Black's advantage: between the curve and the middle line, below it.
    pub const BLACK_AREA: &str = "#404040";
    /// The winning chances' curve.
    pub const EVAL_LINE: &str = "#1b78d0";
    /// The middle line and the time axis.
    pub const AXIS: &str = "#888888";
    /// A blunder's circle.
    pub const BLUNDER: &str = "#df5353";
    /// A mistake's circle.
    pub const MISTAKE: &str = "#e69f00";
    /// An inaccuracy's circle.
    pub const INACCURACY: &str = "#56b4e9";
    /// White's bars.
    pub const WHITE_BAR: &str = "#ffffff";
    /// Black's bars.
    pub const BLACK_BAR: &str = "#404040";
    /// The outline of every bar.
    pub const BAR_OUTLINE: &str = "#202020";
    /// White's clock line.
    pub const WHITE_CLOCK: &str = "#2e8b57";
    /// Black's clock line.
    pub const BLACK_CLOCK: &str = "#8e44ad";
    /// Text.
    pub const INK: &str = "#222222";
}

/// The font of the chart's text (the browser's; the chart is SVG or HTML, never
/// rasterised by this crate).
const FONT: &str = "sans-serif";

/// lichess's judgement of a move (the `judgement` column of `read_plies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// The mover's winning chances fell by 0.1 or more.
    Inaccuracy,
    /// By 0.2 or more.
    Mistake,
    /// By 0.3 or more.
    Blunder,
}

impl Judgement {
    /// The judgement named `name` as `read_plies` writes it (`inaccuracy`, `mistake`,
    /// `blunder`); `None` for anything else.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Judgement> {
        match name {
            "inaccuracy" => Some(Judgement::Inaccuracy),
            "mistake" => Some(Judgement::Mistake),
            "blunder" => Some(Judgement::Blunder),
            _ => None,
        }
    }

    /// The name, as `read_plies` writes it (also the class of its circle).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    fn color(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => colors::INACCURACY,
            Judgement::Mistake => colors::MISTAKE,
            Judgement::Blunder => colors::BLUNDER,
        }
    }
}

/// One ply of a [`GameSeries`]: the `read_plies` columns of the same names.
#[derive(Debug, Clone, PartialEq)]
pub struct PlyPoint {
    /// 1-based ply.
    pub ply: u32,
    /// The move in SAN.
    pub san: String,
    /// The mover.
    pub color: Color,
    /// White's winning chances after the move, −1 … +1 (values outside are drawn at the
    /// edge; NaN as none).
    pub winning_chances: Option<f64>,
    /// lichess's judgement of the move.
    pub judgement: Option<Judgement>,
    /// Seconds the mover spent on the move.
    pub move_time_s: Option<f64>,
    /// Seconds left on the mover's clock after the move.
    pub clock_s: Option<f64>,
}

/// A game as the chart draws it: its title and its plies in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameSeries {
    /// The chart's title ([`chart_title`]).
    pub title: String,
    /// The plies, in order (empty for a game without moves).
    pub plies: Vec<PlyPoint>,
    /// Why the plies stop early, when they do (`the game stops at ply 3: illegal_move …`),
    /// written under the title.
    pub stop: Option<String>,
}

/// A game's title from its tags: `White – Black, Event, Date`, each part left out when the
/// tag is missing, empty or `?` (PGN's unknown; a date of only `?` and `.` too), the players
/// `?` when unknown. Control characters become spaces.
#[must_use]
pub fn chart_title(
    white: Option<&str>,
    black: Option<&str>,
    event: Option<&str>,
    date: Option<&str>,
) -> String {
    let known = |v: Option<&str>| {
        v.map(str::trim)
            .filter(|v| !v.is_empty() && v.chars().any(|c| c != '?' && c != '.'))
            .map(|v| v.replace(char::is_control, " "))
    };
    let player = |v| known(v).unwrap_or_else(|| "?".into());
    let mut title = format!("{} – {}", player(white), player(black));
    for part in [known(event), known(date)].into_iter().flatten() {
        title.push_str(", ");
        title.push_str(&part);
    }
    title
}

/// The x range (left, right) of the `k`-th of `n` plies (1-based), in drawing units: equal
/// spans from [`PLOT_LEFT`] to [`PLOT_RIGHT`].
#[must_use]
pub fn ply_span(k: usize, n: usize) -> (f64, f64) {
    let w = (PLOT_RIGHT - PLOT_LEFT) / n.max(1) as f64;
    let left = PLOT_LEFT + k.saturating_sub(1) as f64 * w;
    (left, left + w)
}

/// The y of winning chances `chances` (clamped to −1 … +1) in the evaluation panel.
#[must_use]
pub fn eval_y(chances: f64) -> f64 {
    EVAL_MID_Y - chances.clamp(-1.0, 1.0) * (EVAL_MID_Y - EVAL_TOP)
}

/// A finite value, else none.
fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

/// The chart of `game` as an SVG document (see the module's geometry).
#[must_use]
pub fn game_chart_svg(game: &GameSeries) -> String {
    let n = game.plies.len();
    let center = |k: usize| {
        let (l, r) = ply_span(k, n);
        (l + r) / 2.0
    };
    let mut doc = Document::new()
        .set("viewBox", (0, 0, WIDTH, HEIGHT))
        .set("width", WIDTH)
        .set("height", HEIGHT)
        .set("font-family", FONT)
        .add(rect(0.0, 0.0, WIDTH, HEIGHT, colors::BACKGROUND))
        .add(
            text(WIDTH / 2.0, TITLE_BASELINE, &game.title, 16.0)
                .set("text-anchor", "middle")
                .set("font-weight", "bold"),
        )
        .add(panel(EVAL_TOP, EVAL_BOTTOM))
        .add(panel(TIME_TOP, TIME_BOTTOM));
    if let Some(stop) = &game.stop {
        doc = doc.add(
            text(WIDTH / 2.0, EVAL_TOP - 4.0, stop, 11.0)
                .set("class", "stop")
                .set("text-anchor", "middle")
                .set("fill", colors::BLUNDER),
        );
    }

    // the evaluation: areas, middle line, curve, judgements
    let points: Vec<(f64, f64)> = (1..=n)
        .zip(&game.plies)
        .filter_map(|(k, p)| Some((center(k), eval_y(finite(p.winning_chances)?))))
        .collect();
    if !points.is_empty() {
        let (above, below) = areas(&points);
        doc = doc
            .add(Path::new().set("d", above).set("fill", colors::WHITE_AREA))
            .add(Path::new().set("d", below).set("fill", colors::BLACK_AREA));
    }
    doc = doc.add(hline(EVAL_MID_Y, colors::AXIS));
    for (y, label) in [(EVAL_TOP + 12.0, "White"), (EVAL_BOTTOM - 4.0, "Black")] {
        doc = doc.add(text(4.0, y, label, 11.0));
    }
    if points.is_empty() {
        let note = if n == 0 {
            "no moves in this game"
        } else {
            "no evaluations in this game"
        };
        doc = doc.add(note_text(EVAL_MID_Y - 8.0, note));
    } else {
        doc = doc.add(
            Path::new()
                .set("class", "eval-line")
                .set("d", polyline(&points))
                .set("fill", "none")
                .set("stroke", colors::EVAL_LINE)
                .set("stroke-width", 2)
                .set("stroke-linejoin", "round"),
        );
        doc = doc.add(judgements(game, center));
    }

    // the time per move and the clocks
    doc = doc.add(hline(TIME_AXIS_Y, colors::AXIS));
    for (y, label) in [(TIME_TOP + 12.0, "White"), (TIME_BOTTOM - 4.0, "Black")] {
        doc = doc.add(text(4.0, y, label, 11.0));
    }
    let longest = |v: fn(&PlyPoint) -> Option<f64>| {
        game.plies
            .iter()
            .filter_map(|p| finite(v(p)))
            .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
    };
    let longest_move = longest(|p| p.move_time_s);
    let longest_clock = longest(|p| p.clock_s);
    if let Some(longest_move) = longest_move {
        let scale = BAR_MAX / longest_move.max(f64::MIN_POSITIVE);
        let mut bars = Group::new();
        for (k, p) in (1..=n).zip(&game.plies) {
            let Some(t) = finite(p.move_time_s) else {
                continue;
            };
            let h = (t * scale).max(1.0);
            let (l, r) = ply_span(k, n);
            let inset = (r - l) * BAR_INSET;
            let (y, class, fill) = match p.color {
                Color::White => (TIME_AXIS_Y - h, "white-bar", colors::WHITE_BAR),
                Color::Black => (TIME_AXIS_Y, "black-bar", colors::BLACK_BAR),
            };
            bars = bars.add(
                rect(l + inset, y, r - l - 2.0 * inset, h, fill)
                    .set("class", class)
                    .set("stroke", colors::BAR_OUTLINE)
                    .set("stroke-width", round(((r - l) * 0.1).min(1.0))),
            );
        }
        doc = doc.add(bars);
    }
    if let Some(longest_clock) = longest_clock {
        let scale = CLOCK_MAX / longest_clock.max(f64::MIN_POSITIVE);
        for (side, sign, class, color) in [
            (Color::White, -1.0, "white-clock", colors::WHITE_CLOCK),
            (Color::Black, 1.0, "black-clock", colors::BLACK_CLOCK),
        ] {
            let points: Vec<(f64, f64)> = (1..=n)
                .zip(&game.plies)
                .filter(|(_, p)| p.color == side)
                .filter_map(|(k, p)| {
                    let clock = finite(p.clock_s)?.max(0.0);
                    Some((center(k), TIME_AXIS_Y + sign * clock * scale))
                })
                .collect();
            if !points.is_empty() {
                doc = doc.add(
                    Path::new()
                        .set("class", class)
                        .set("d", polyline(&points))
                        .set("fill", "none")
                        .set("stroke", color)
                        .set("stroke-width", 1.5)
                        .set("stroke-linejoin", "round"),
                );
            }
        }
    }
    let legend = match (longest_move, longest_clock) {
        (Some(m), Some(c)) => format!(
            "time per move (bars, longest {}), clock (lines: White green, Black purple, \
             longest {})",
            seconds(m),
            seconds(c)
        ),
        (None, Some(c)) => format!(
            "clock (lines: White green, Black purple, longest {})",
            seconds(c)
        ),
        (Some(m), None) => format!("time per move (bars, longest {})", seconds(m)),
        (None, None) => String::new(),
    };
    if !legend.is_empty() {
        doc = doc.add(text(PLOT_LEFT, TIME_TOP - 6.0, &legend, 11.0));
    }
    let note = match (n, longest_move, longest_clock) {
        (0, _, _) => Some("no moves in this game"),
        (_, _, None) => Some("no clock times in this game"),
        (_, None, Some(_)) => {
            Some("no times per move in this game (no TimeControl tag with its base time)")
        }
        _ => None,
    };
    if let Some(note) = note {
        doc = doc.add(note_text(TIME_AXIS_Y - 8.0, note));
    }
    doc.to_string()
}

/// The circles of the judged moves, blunders and mistakes labelled with their SAN.
fn judgements(game: &GameSeries, center: impl Fn(usize) -> f64) -> Group {
    let mut group = Group::new();
    for (k, p) in (1..=game.plies.len()).zip(&game.plies) {
        let (Some(judgement), Some(chances)) = (p.judgement, finite(p.winning_chances)) else {
            continue;
        };
        let (x, y) = (round(center(k)), round(eval_y(chances)));
        group = group.add(
            Circle::new()
                .set("class", judgement.name())
                .set("cx", x)
                .set("cy", y)
                .set("r", MARKER_RADIUS)
                .set("fill", judgement.color())
                .set("stroke", colors::INK)
                .set("stroke-width", 1),
        );
        if judgement != Judgement::Inaccuracy {
            // above the circle, or below it near the panel's top
            let label_y = if y - 9.0 < EVAL_TOP + 12.0 {
                y + 18.0
            } else {
                y - 9.0
            };
            let label_x = x.clamp(PLOT_LEFT + 20.0, PLOT_RIGHT - 20.0);
            group = group.add(
                text(label_x, label_y, &p.san, 11.0)
                    .set("text-anchor", "middle")
                    .set("font-weight", "bold")
                    .set("stroke", colors::PANEL)
                    .set("stroke-width", 3)
                    .set("paint-order", "stroke"),
            );
        }
    }
    group
}

/// The paths of the area between the curve through `points` (x increasing) and the middle
/// line: (above it, below it), each closed on the middle line, the curve cut where it
/// crosses the line.
fn areas(points: &[(f64, f64)]) -> (String, String) {
    let mut cut = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if let Some(&(px, py)) = i.checked_sub(1).and_then(|j| points.get(j))
            && (py - EVAL_MID_Y) * (y - EVAL_MID_Y) < 0.0
        {
            let t = (EVAL_MID_Y - py) / (y - py);
            cut.push((px + t * (x - px), EVAL_MID_Y));
        }
        cut.push((x, y));
    }
    let side = |keep: fn(f64) -> f64| {
        let mut d = String::new();
        let (first, last) = (cut[0].0, cut[cut.len() - 1].0);
        let _ = write!(d, "M{} {}", round(first), EVAL_MID_Y);
        for &(x, y) in &cut {
            let _ = write!(d, "L{} {}", round(x), round(keep(y)));
        }
        let _ = write!(d, "L{} {}Z", round(last), EVAL_MID_Y);
        d
    };
    (side(|y| y.min(EVAL_MID_Y)), side(|y| y.max(EVAL_MID_Y)))
}

/// A path through `points` (`M x y L x y …`).
fn polyline(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, &(x, y)) in points.iter().enumerate() {
        let command = if i == 0 { 'M' } else { 'L' };
        let _ = write!(d, "{command}{} {}", round(x), round(y));
    }
    d
}

/// Seconds as the legend writes them: `17.1 s`, `3:01`, `1:02:03`.
fn seconds(s: f64) -> String {
    if s < 60.0 {
        return format!("{} s", (s * 10.0).round() / 10.0);
    }
    let whole = s.round() as u64;
    let (h, m, sec) = (whole / 3600, whole / 60 % 60, whole % 60);
    if h > 0 {
        format!("{h}:{m:02}:{sec:02}")
    } else {
        format!("{m}:{sec:02}")
    }
}

/// A panel's background from `top` to `bottom` under the plot.
fn panel(top: f64, bottom: f64) -> Rectangle {
    rect(
        PLOT_LEFT,
        top,
        PLOT_RIGHT - PLOT_LEFT,
        bottom - top,
        colors::PANEL,
    )
}

/// A horizontal line across the plot.
fn hline(y: f64, color: &str) -> Line {
    Line::new()
        .set("x1", PLOT_LEFT)
        .set("x2", PLOT_RIGHT)
        .set("y1", y)
        .set("y2", y)
        .set("stroke", color)
        .set("stroke-width", 1)
}

/// Text at (`x`, baseline `y`), control characters as spaces (XML has no place for them).
fn text(x: f64, y: f64, content: &str, size: f64) -> Text {
    shapes::text(x, y, size, content.replace(char::is_control, " ")).set("fill", colors::INK)
}

/// A panel's note, centred on the plot at baseline `y`.
fn note_text(y: f64, note: &str) -> Text {
    text((PLOT_LEFT + PLOT_RIGHT) / 2.0, y, note, 14.0)
        .set("class", "note")
        .set("text-anchor", "middle")
}

/// The chart of `game` as one self-contained HTML page: the title as the page's title, the
/// SVG of [`game_chart_svg`] as the body's first element at its top left corner (margin 0,
/// so page pixels are the chart's units at zoom 1), then a line saying how to read it. No
/// script, style sheet, font or image from elsewhere.
#[must_use]
pub fn game_chart_html(game: &GameSeries) -> String {
    let title = escape(&game.title.replace(char::is_control, " "));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\nbody {{ margin: 0; font-family: {FONT}; color: {ink}; \
         background: {background}; }}\nsvg {{ display: block; }}\np {{ margin: 8px 16px; \
         font-size: 13px; }}\n</style>\n</head>\n<body>\n{svg}\n<p>Top: White's winning \
         chances after each move (+1 White wins, −1 Black wins), lichess's inaccuracies, \
         mistakes and blunders circled. Bottom: seconds spent per move (White's bars above \
         the axis, Black's below) and the time left on each clock (lines).</p>\n\
         </body>\n</html>\n",
        ink = colors::INK,
        background = colors::BACKGROUND,
        svg = game_chart_svg(game),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ply(
        ply: u32,
        san: &str,
        chances: Option<f64>,
        judgement: Option<Judgement>,
        times: (Option<f64>, Option<f64>),
    ) -> PlyPoint {
        PlyPoint {
            ply,
            san: san.into(),
            color: if ply % 2 == 1 {
                Color::White
            } else {
                Color::Black
            },
            winning_chances: chances,
            judgement,
            move_time_s: times.0,
            clock_s: times.1,
        }
    }

    /// Four plies: evals on all, Black's second move a blunder, White's first a mistake.
    fn game() -> GameSeries {
        GameSeries {
            title: chart_title(
                Some("Alice"),
                Some("Bob <b>&"),
                Some("Test"),
                Some("2024.01.02"),
            ),
            plies: vec![
                ply(1, "e4", Some(0.05), None, (Some(2.0), Some(181.0))),
                ply(2, "e5", Some(0.04), None, (Some(4.0), Some(178.0))),
                ply(
                    3,
                    "Qh5",
                    Some(-0.2),
                    Some(Judgement::Mistake),
                    (Some(8.0), Some(175.0)),
                ),
                ply(
                    4,
                    "g6??",
                    Some(0.9),
                    Some(Judgement::Blunder),
                    (Some(1.0), Some(179.0)),
                ),
            ],
            stop: None,
        }
    }

    fn parses(svg: &str) {
        resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
            .unwrap_or_else(|e| panic!("{e}: {svg}"));
    }

    fn count(svg: &str, class: &str) -> usize {
        svg.matches(&format!("class=\"{class}\"")).count()
    }

    #[test]
    fn bars_markers_and_lines() {
        let svg = game_chart_svg(&game());
        parses(&svg);
        assert_eq!(count(&svg, "white-bar"), 2);
        assert_eq!(count(&svg, "black-bar"), 2);
        assert_eq!(count(&svg, "blunder"), 1);
        assert_eq!(count(&svg, "mistake"), 1);
        assert_eq!(count(&svg, "eval-line"), 1);
        assert_eq!(count(&svg, "white-clock"), 1);
        assert_eq!(count(&svg, "black-clock"), 1);
        assert_eq!(count(&svg, "note"), 0);
        assert!(svg.contains(">\ng6??\n</text>"), "{svg}");
        assert!(
            svg.contains("Alice – Bob &lt;b&gt;&amp;, Test, 2024.01.02"),
            "{svg}"
        );
        // White's longest move (ply 3, 8 s): a full bar standing on the axis in its span
        let (l, r) = ply_span(3, 4);
        let inset = (r - l) * BAR_INSET;
        let bar = format!(
            "class=\"white-bar\" fill=\"{}\" height=\"{BAR_MAX}\" stroke=\"{}\" stroke-width=\"1\" width=\"{}\" x=\"{}\" y=\"{}\"",
            colors::WHITE_BAR,
            colors::BAR_OUTLINE,
            round(r - l - 2.0 * inset),
            round(l + inset),
            TIME_AXIS_Y - BAR_MAX
        );
        assert!(svg.contains(&bar), "{bar}\n{svg}");
        // Black's 4 s under the axis: half of the longest
        assert!(
            svg.contains(&format!("height=\"{}\"", BAR_MAX / 2.0)),
            "{svg}"
        );
        assert!(svg.contains(&format!("y=\"{TIME_AXIS_Y}\"")), "{svg}");
        // the blunder's circle on the curve at ply 4
        let (l, r) = ply_span(4, 4);
        let circle = format!(
            "class=\"blunder\" cx=\"{}\" cy=\"{}\"",
            round((l + r) / 2.0),
            round(eval_y(0.9))
        );
        assert!(svg.contains(&circle), "{circle}\n{svg}");
        assert_eq!(svg, game_chart_svg(&game()), "the same bytes each time");
    }

    #[test]
    fn geometry() {
        assert_eq!(ply_span(1, 10), (PLOT_LEFT, PLOT_LEFT + 73.0));
        assert_eq!(ply_span(10, 10).1, PLOT_RIGHT);
        assert_eq!(eval_y(1.0), EVAL_TOP);
        assert_eq!(eval_y(0.0), EVAL_MID_Y);
        assert_eq!(eval_y(-3.0), EVAL_BOTTOM);
    }

    #[test]
    fn areas_cut_at_the_middle_line() {
        let (above, below) = areas(&[(0.0, 100.0), (10.0, 180.0)]);
        assert_eq!(above, "M0 140L0 100L5 140L10 140L10 140Z");
        assert_eq!(below, "M0 140L0 140L5 140L10 180L10 140Z");
    }

    #[test]
    fn notes_when_a_part_is_missing() {
        let mut no_evals = game();
        for p in &mut no_evals.plies {
            p.winning_chances = None;
            p.judgement = None;
        }
        let svg = game_chart_svg(&no_evals);
        parses(&svg);
        assert!(
            svg.contains(">\nno evaluations in this game\n</text>"),
            "{svg}"
        );
        assert_eq!(count(&svg, "eval-line"), 0);
        assert_eq!(count(&svg, "white-bar"), 2);

        let mut no_clocks = game();
        for p in &mut no_clocks.plies {
            p.move_time_s = None;
            p.clock_s = None;
        }
        let svg = game_chart_svg(&no_clocks);
        parses(&svg);
        assert!(
            svg.contains(">\nno clock times in this game\n</text>"),
            "{svg}"
        );
        assert_eq!(count(&svg, "white-bar") + count(&svg, "white-clock"), 0);
        assert_eq!(count(&svg, "blunder"), 1);

        let mut no_times = game();
        for p in &mut no_times.plies {
            p.move_time_s = None;
        }
        let svg = game_chart_svg(&no_times);
        assert!(
            svg.contains(
                ">\nno times per move in this game (no TimeControl tag with its base time)\n</text>"
            ),
            "{svg}"
        );
        assert_eq!(count(&svg, "white-clock"), 1);

        let empty = GameSeries {
            title: chart_title(None, None, Some("?"), Some("????.??.??")),
            plies: vec![],
            stop: None,
        };
        let svg = game_chart_svg(&empty);
        parses(&svg);
        assert_eq!(
            svg.matches(">\nno moves in this game\n</text>").count(),
            2,
            "{svg}"
        );
        assert!(svg.contains(">\n? – ?\n</text>"), "{svg}");
    }

    #[test]
    fn html_is_one_page_without_scripts() {
        let html = game_chart_html(&game());
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>Alice – Bob &lt;b&gt;&amp;, Test, 2024.01.02</title>"));
        assert!(html.contains("<body>\n<svg "));
        for outside in ["<script", "http://", "https://", "<link", "@import"] {
            let without_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
            assert!(!without_namespace.contains(outside), "{outside}");
        }
    }

    #[test]
    fn legend_seconds() {
        assert_eq!(seconds(17.1), "17.1 s");
        assert_eq!(seconds(181.0), "3:01");
        assert_eq!(seconds(3723.0), "1:02:03");
    }
}
