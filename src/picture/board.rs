//! Board diagrams as SVG: the squares, coordinates, the last move's squares highlighted, a
//! marker on a king in check, arrows and circled squares (as lichess and ChessBase draw
//! `[%cal]`/`[%csl]`), and Colin M.L. Burnett's pieces ([`super::pieces`]). Written with
//! the `svg` crate; PNG from it by [`super::raster`].
//!
//! The geometry, in the drawing's own units (its `viewBox`): squares of [`SQUARE`], a
//! margin of [`MARGIN`] for the coordinates, so the whole board is [`BOARD_UNITS`] wide and
//! high; `size` sets its width and height in pixels.

use std::fmt::Write as _;

use datafusion::arrow::datatypes::UInt64Type;
use svg::Document;
use svg::node::Blob;
use svg::node::element::{Circle, Definitions, Group, Path, Use};

use super::glyphs::{self, GLYPH_HEIGHT, GLYPH_STROKE, GLYPH_WIDTH};
use super::pieces;
use super::shapes::{rect, round};
use crate::chess::mark::{Mark, MarkColor, MarkError};
use crate::chess::role::Role;
use crate::chess::setup::Setup;
use crate::chess::square::parse_square;
use crate::engine::Engine;
use crate::error::Result;
use crate::session::read;
use crate::stages::Stage;

/// The side of a square, in drawing units (the pieces' own box).
pub const SQUARE: f64 = pieces::PIECE_BOX;
/// The margin around the squares that holds the coordinates, in drawing units.
pub const MARGIN: f64 = 15.0;
/// The board's width and height, in drawing units.
pub const BOARD_UNITS: f64 = 8.0 * SQUARE + 2.0 * MARGIN;
/// The default width and height in pixels.
pub const DEFAULT_SIZE: u32 = 390;
/// The smallest and largest `size`, in pixels.
pub const SIZES: std::ops::RangeInclusive<u32> = 32..=4096;

/// The colours (lichess's brown board).
pub mod colors {
    /// Light squares.
    pub const LIGHT: &str = "#f0d9b5";
    /// Dark squares.
    pub const DARK: &str = "#b58863";
    /// The margin.
    pub const MARGIN: &str = "#302e2c";
    /// The coordinates.
    pub const COORDINATES: &str = "#d9d9d9";
    /// The last move's squares, drawn over the square with [`LAST_MOVE_OPACITY`].
    pub const LAST_MOVE: &str = "#9bc700";
    /// The opacity of the last move's highlight.
    pub const LAST_MOVE_OPACITY: f64 = 0.41;
}

/// How to draw a board. `Default`: White at the bottom, coordinates, no marks, 390 pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardOptions {
    /// Black at the bottom.
    pub flipped: bool,
    /// The last move's from and to squares (a1 = 0 … h8 = 63), highlighted.
    pub last_move: Option<(u8, u8)>,
    /// Arrows and circled squares.
    pub marks: Vec<Mark>,
    /// Width and height in pixels (within [`SIZES`]).
    pub size: u32,
    /// Whether to draw the coordinates in the margin (without them the margin stays).
    pub coordinates: bool,
}

impl Default for BoardOptions {
    fn default() -> BoardOptions {
        BoardOptions {
            flipped: false,
            last_move: None,
            marks: vec![],
            size: DEFAULT_SIZE,
            coordinates: true,
        }
    }
}

/// Bad board options: what, as the user wrote it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// An option name that is not one.
    #[error(
        "unknown board option {0:?} (options: flip, lastmove=e2e4, arrows=Ge2e4,Rd4, \
         size=N, coordinates=no)"
    )]
    Unknown(String),
    /// A value that does not fit its option.
    #[error("bad value for board option {option}: {value:?} ({expected})")]
    Value {
        /// The option.
        option: &'static str,
        /// Its value as given.
        value: String,
        /// What it takes.
        expected: &'static str,
    },
    /// A bad arrow or circle token.
    #[error(transparent)]
    Mark(#[from] MarkError),
}

impl BoardOptions {
    /// Reads options written as words separated by spaces (`board_svg`'s second argument):
    /// `flip` (or `flip=yes`/`no`), `lastmove=e2e4` (a move in UCI: from and to square, a
    /// promotion letter allowed), `arrows=Ge2e4,Rd8d1,Gd4` (marks, [`Mark::parse_list`]),
    /// `size=N` (pixels, 32 to 4096), `coordinates=no` (or `yes`). Names are read in any
    /// case; a later word overrides an earlier one (arrows add up). An empty text is the
    /// default.
    ///
    /// Errors: [`OptionError`] naming the option or token.
    pub fn parse(text: &str) -> Result<BoardOptions, OptionError> {
        let mut options = BoardOptions::default();
        for word in text.split_whitespace() {
            let (name, value) = match word.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (word, None),
            };
            match (name.to_ascii_lowercase().as_str(), value) {
                ("flip" | "flipped", None) => options.flipped = true,
                ("flip" | "flipped", Some(v)) => options.flipped = yes_or_no("flip", v)?,
                ("lastmove", Some(v)) => options.last_move = Some(parse_last_move(v)?),
                ("arrows", Some(v)) => options.marks.extend(Mark::parse_list(v)?),
                ("size", Some(v)) => options.size = parse_size(v)?,
                ("coordinates", Some(v)) => options.coordinates = yes_or_no("coordinates", v)?,
                _ => return Err(OptionError::Unknown(word.to_string())),
            }
        }
        Ok(options)
    }
}

/// `yes`/`true`/`on` or `no`/`false`/`off` (any case). Errors: [`OptionError::Value`].
fn yes_or_no(option: &'static str, value: &str) -> Result<bool, OptionError> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(true),
        "no" | "false" | "off" => Ok(false),
        _ => Err(OptionError::Value {
            option,
            value: value.into(),
            expected: "yes or no",
        }),
    }
}

/// A last move in UCI (`e2e4`, `e7e8q`, `e1h1`). Errors: [`OptionError::Value`].
pub fn parse_last_move(uci: &str) -> Result<(u8, u8), OptionError> {
    let bad = || OptionError::Value {
        option: "lastmove",
        value: uci.into(),
        expected: "a move in UCI: from and to square, as e2e4 or e7e8q",
    };
    if !(4..=5).contains(&uci.len()) || !uci.is_ascii() {
        return Err(bad());
    }
    let from = parse_square(&uci[..2]).ok_or_else(bad)?;
    let to = parse_square(&uci[2..4]).ok_or_else(bad)?;
    if from == to || (uci.len() == 5 && !"qrbnQRBN".contains(&uci[4..])) {
        return Err(bad());
    }
    Ok((from, to))
}

/// A size in pixels within [`SIZES`]. Errors: [`OptionError::Value`].
pub fn parse_size(text: &str) -> Result<u32, OptionError> {
    text.parse::<u32>()
        .ok()
        .filter(|s| SIZES.contains(s))
        .ok_or_else(|| OptionError::Value {
            option: "size",
            value: text.into(),
            expected: "pixels, 32 to 4096",
        })
}

/// Where the drawings a board is made of (pieces, squares and coordinates) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defs {
    /// In the board itself (a file, a `board_svg` value): pieces in its own `<defs>`.
    Own,
    /// Once in the page that holds the board ([`page_defs`]): the board only `<use>`s them
    /// (about 2 kB a board instead of 12).
    Page,
}

/// The `<defs>` a page of boards drawn with [`Defs::Page`] holds once: every piece's
/// `<symbol>`, the boards' squares and coordinates in both orientations, and the check
/// marker's gradient, in an SVG element of no size.
#[must_use]
pub fn page_defs() -> String {
    let mut defs = String::from(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute"><defs>"#,
    );
    for symbol in SYMBOLS.iter() {
        defs.push_str(symbol);
    }
    for (flipped, coordinates) in [(false, true), (true, true), (false, false), (true, false)] {
        let _ = write!(
            defs,
            r#"<symbol id="{}" viewBox="0 0 {BOARD_UNITS} {BOARD_UNITS}">{}</symbol>"#,
            background_id(flipped, coordinates),
            background(flipped, coordinates)
        );
    }
    defs.push_str(CHECK_GRADIENT);
    defs.push_str("</defs></svg>");
    defs
}

/// The check marker: a red glow under the king (as lichess and python-chess draw it).
const CHECK_GRADIENT: &str = r##"<radialGradient id="check"><stop offset="0%" stop-color="#ff0000"/><stop offset="25%" stop-color="#e70000"/><stop offset="89%" stop-color="#a90000" stop-opacity="0"/><stop offset="100%" stop-color="#9e0000" stop-opacity="0"/></radialGradient>"##;

/// The SVG of the board of `setup` drawn with `options`; `in_check`: the side to move's
/// king is in check (FIDE art. 3.9; the caller asks the `checkers` stage), marked under it.
/// Chess960 positions are drawn the same way (the board is the board).
#[must_use]
pub fn board_svg(setup: &Setup, options: &BoardOptions, in_check: bool, defs: Defs) -> String {
    let size = options.size;
    let mut doc = Document::new()
        .set("viewBox", (0, 0, BOARD_UNITS, BOARD_UNITS))
        .set("width", size)
        .set("height", size);
    if defs == Defs::Own {
        let mut blob = String::new();
        for (piece, symbol) in pieces::all().zip(SYMBOLS.iter()) {
            if setup.board.contains(&Some(piece)) {
                blob.push_str(symbol);
            }
        }
        if in_check {
            blob.push_str(CHECK_GRADIENT);
        }
        doc = doc.add(Definitions::new().add(Blob::new(blob)));
    }
    doc = match defs {
        Defs::Own => doc.add(Blob::new(
            BACKGROUNDS[usize::from(options.flipped) * 2 + usize::from(options.coordinates)]
                .as_str(),
        )),
        Defs::Page => doc.add(
            Use::new()
                .set(
                    "href",
                    format!("#{}", background_id(options.flipped, options.coordinates)),
                )
                .set("width", BOARD_UNITS)
                .set("height", BOARD_UNITS),
        ),
    };
    if let Some((from, to)) = options.last_move {
        for sq in [from, to] {
            let (x, y) = corner(sq, options.flipped);
            doc = doc.add(
                rect(x, y, SQUARE, SQUARE, colors::LAST_MOVE)
                    .set("fill-opacity", colors::LAST_MOVE_OPACITY),
            );
        }
    }
    if in_check && let Some(king) = king_square(setup) {
        let (x, y) = corner(king, options.flipped);
        doc = doc.add(rect(x, y, SQUARE, SQUARE, "url(#check)"));
    }
    let mut pieces_group = Group::new();
    for (sq, piece) in setup.board.iter().enumerate() {
        if let Some(piece) = piece {
            let (x, y) = corner(sq as u8, options.flipped);
            pieces_group = pieces_group.add(
                Use::new()
                    .set("href", format!("#{}", pieces::symbol_id(*piece)))
                    .set("x", round(x))
                    .set("y", round(y))
                    .set("width", SQUARE)
                    .set("height", SQUARE),
            );
        }
    }
    doc = doc.add(pieces_group);
    for mark in &options.marks {
        doc = match *mark {
            Mark::Circle(color, sq) => {
                let (x, y) = center(sq, options.flipped);
                doc.add(
                    Circle::new()
                        .set("cx", round(x))
                        .set("cy", round(y))
                        .set("r", SQUARE * 0.46)
                        .set("fill", "none")
                        .set("stroke", mark_color(color))
                        .set("stroke-opacity", MARK_OPACITY)
                        .set("stroke-width", SQUARE * 0.08),
                )
            }
            Mark::Arrow(color, from, to) => doc.add(
                Path::new()
                    .set(
                        "d",
                        arrow(center(from, options.flipped), center(to, options.flipped)),
                    )
                    .set("fill", mark_color(color))
                    .set("fill-opacity", MARK_OPACITY),
            ),
        };
    }
    doc.to_string()
}

/// Whether the side to move is in check in each of `setups` (FIDE art. 3.9), by the
/// `checkers` stage of `plans/position/` (after `placed` and `boards`): the positions with
/// a checker.
///
/// Errors: pipeline failures, a stage's columns not as documented.
pub async fn in_check(engine: &Engine, setups: &[Setup]) -> Result<Vec<bool>> {
    let mut checked = vec![false; setups.len()];
    if setups.is_empty() {
        return Ok(checked);
    }
    engine.load(setups).await?;
    let p = engine.pipeline();
    p.run_stages(&[Stage::Placed, Stage::Boards]).await?;
    for batch in p.run(Stage::Checkers).await? {
        let ids = read::primitive::<UInt64Type>(&batch, "position_id")?;
        for id in ids.values() {
            if let Some(c) = usize::try_from(*id).ok().and_then(|i| checked.get_mut(i)) {
                *c = true;
            }
        }
    }
    Ok(checked)
}

/// The opacity of arrows and circles (lichess draws them translucent).
pub const MARK_OPACITY: f64 = 0.8;

/// A mark colour as lichess draws it.
#[must_use]
pub fn mark_color(color: MarkColor) -> &'static str {
    match color {
        MarkColor::Green => "#15781b",
        MarkColor::Red => "#882020",
        MarkColor::Yellow => "#e68f00",
        MarkColor::Blue => "#003088",
    }
}

/// The squares, the margin and (with `coordinates`) the coordinates: what every board with
/// that orientation draws under its pieces.
fn background(flipped: bool, coordinates: bool) -> Group {
    let mut g = Group::new()
        .add(rect(0.0, 0.0, BOARD_UNITS, BOARD_UNITS, colors::MARGIN))
        .add(rect(
            MARGIN,
            MARGIN,
            8.0 * SQUARE,
            8.0 * SQUARE,
            colors::LIGHT,
        ))
        .add(
            Path::new()
                .set("fill", colors::DARK)
                .set("d", dark_squares()),
        );
    if coordinates {
        g = g.add(coordinates_path(flipped));
    }
    g
}

/// Every piece's `<symbol>`, in [`pieces::all`]'s order, written once per process.
static SYMBOLS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| pieces::all().map(pieces::symbol).collect());

/// [`background`] as text, by `flipped * 2 + coordinates`, written once per process.
static BACKGROUNDS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    [(false, false), (false, true), (true, false), (true, true)]
        .into_iter()
        .map(|(flipped, coordinates)| background(flipped, coordinates).to_string())
        .collect()
});

/// The id of [`background`]'s `<symbol>` in a page ([`page_defs`]).
fn background_id(flipped: bool, coordinates: bool) -> &'static str {
    match (flipped, coordinates) {
        (false, true) => "board-w",
        (true, true) => "board-b",
        (false, false) => "board-w-plain",
        (true, false) => "board-b-plain",
    }
}

/// The side to move's king square (the first, should a FEN hold several).
fn king_square(setup: &Setup) -> Option<u8> {
    let side = setup.side_to_move;
    (0..64u8).find(|&sq| {
        setup
            .piece_at(sq)
            .is_some_and(|p| p.role == Role::King && p.color == side)
    })
}

/// The top left corner of square `sq` in drawing units.
#[must_use]
pub fn corner(sq: u8, flipped: bool) -> (f64, f64) {
    let (file, rank) = (f64::from(sq % 8), f64::from(sq / 8));
    let (col, row) = if flipped {
        (7.0 - file, rank)
    } else {
        (file, 7.0 - rank)
    };
    (MARGIN + col * SQUARE, MARGIN + row * SQUARE)
}

/// The centre of square `sq` in drawing units.
#[must_use]
pub fn center(sq: u8, flipped: bool) -> (f64, f64) {
    let (x, y) = corner(sq, flipped);
    (x + SQUARE / 2.0, y + SQUARE / 2.0)
}

/// The 32 dark squares as one path (a1 is dark; the same whichever side is at the bottom).
fn dark_squares() -> String {
    let mut d = String::new();
    for sq in (0..64u8).filter(|sq| (sq % 8 + sq / 8) % 2 == 0) {
        let (x, y) = corner(sq, false);
        let _ = write!(d, "M{x} {y}h{SQUARE}v{SQUARE}h-{SQUARE}z");
    }
    d
}

/// The file letters under the board and the rank digits left of it, as one stroked path.
fn coordinates_path(flipped: bool) -> Path {
    let scale = 1.6;
    let (w, h) = (GLYPH_WIDTH * scale, GLYPH_HEIGHT * scale);
    let mut d = String::new();
    for i in 0..8u8 {
        let file = char::from(b'a' + i);
        let rank = char::from(b'1' + i);
        let (fx, _) = center(i, flipped);
        let bottom = MARGIN + 8.0 * SQUARE;
        glyphs::push_glyph(
            &mut d,
            file,
            (fx - w / 2.0, bottom + (MARGIN - h) / 2.0 - 1.0),
            scale,
        );
        let (_, ry) = center(i * 8, flipped);
        glyphs::push_glyph(&mut d, rank, ((MARGIN - w) / 2.0, ry - h / 2.0), scale);
    }
    Path::new()
        .set("d", d)
        .set("fill", "none")
        .set("stroke", colors::COORDINATES)
        .set("stroke-width", GLYPH_STROKE * scale)
        .set("stroke-linecap", "round")
        .set("stroke-linejoin", "round")
}

/// An arrow from `from` to `to` (centres of squares) as a closed path: a shaft and a head
/// whose tip is at `to`.
fn arrow(from: (f64, f64), to: (f64, f64)) -> String {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let (shaft, head_w, head_l) = (SQUARE * 0.2 / 2.0, SQUARE * 0.6 / 2.0, SQUARE * 0.45);
    let base = (to.0 - ux * head_l, to.1 - uy * head_l);
    let p = |x: f64, y: f64, k: f64| (round(x + nx * k), round(y + ny * k));
    let points = [
        p(from.0, from.1, shaft),
        p(base.0, base.1, shaft),
        p(base.0, base.1, head_w),
        (round(to.0), round(to.1)),
        p(base.0, base.1, -head_w),
        p(base.0, base.1, -shaft),
        p(from.0, from.1, -shaft),
    ];
    let mut d = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        let _ = write!(d, "{}{x} {y}", if i == 0 { 'M' } else { 'L' });
    }
    d.push('z');
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::color::Color;

    #[test]
    fn options() {
        let o = BoardOptions::parse("flip lastmove=e2e4 arrows=Ge2e4,Rd4 size=200 coordinates=no")
            .unwrap();
        assert!(o.flipped && !o.coordinates);
        assert_eq!(o.last_move, Some((12, 28)));
        assert_eq!(o.marks.len(), 2);
        assert_eq!(o.size, 200);
        assert_eq!(BoardOptions::parse("").unwrap(), BoardOptions::default());
        assert_eq!(
            BoardOptions::parse("flop"),
            Err(OptionError::Unknown("flop".into()))
        );
        assert!(matches!(
            BoardOptions::parse("size=10"),
            Err(OptionError::Value { .. })
        ));
        assert!(matches!(
            BoardOptions::parse("lastmove=e2e2"),
            Err(OptionError::Value { .. })
        ));
        assert!(BoardOptions::parse("arrows=Ge2").is_ok());
        assert!(matches!(
            BoardOptions::parse("arrows=Xe2e4"),
            Err(OptionError::Mark(_))
        ));
    }

    #[test]
    fn squares_and_orientation() {
        assert_eq!(corner(56, false), (MARGIN, MARGIN)); // a8 top left
        assert_eq!(
            corner(7, false),
            (MARGIN + 7.0 * SQUARE, MARGIN + 7.0 * SQUARE)
        ); // h1
        assert_eq!(corner(7, true), (MARGIN, MARGIN)); // flipped: h1 top left
    }

    #[test]
    fn start_position_draws_every_piece_once_and_defines_what_it_uses() {
        let svg = board_svg(
            &Setup::standard(),
            &BoardOptions::default(),
            false,
            Defs::Own,
        );
        assert_eq!(svg.matches("<use ").count(), 32);
        assert_eq!(svg.matches("<symbol ").count(), 12);
        assert!(!svg.contains("url(#check)"));
        let mut kings = Setup::empty();
        kings.board[4] = Some(crate::chess::role::Piece {
            color: Color::White,
            role: Role::King,
        });
        let svg = board_svg(&kings, &BoardOptions::default(), true, Defs::Page);
        // the board's background and the king, both defined by the page
        assert_eq!(svg.matches("<use ").count(), 2);
        assert!(svg.contains(r##"href="#board-w""##));
        assert_eq!(svg.matches("<symbol ").count(), 0);
        assert_eq!(svg.matches("url(#check)").count(), 1);
    }
}
