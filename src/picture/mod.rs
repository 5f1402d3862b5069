//! Pictures: board diagrams ([`board`], SVG written with the `svg` crate, PNG by
//! [`raster`] with resvg), and the pages and charts built from them and from the other
//! layers' results: a query's rows as one HTML page ([`page`]), a game's evaluation and
//! clock ([`game_chart`]), the pipeline's profile and a stage's physical plan
//! ([`profile_chart`], [`plan_tree`]), and a validation run's report ([`report_page`]); the
//! shapes they share in [`shapes`].
//! Everything is drawn offline: nothing is fetched from elsewhere, no script runs; boards
//! need no font (their coordinates are strokes), charts' text uses the viewer's sans-serif.

pub mod board;
pub mod game_chart;
pub mod glyphs;
pub mod page;
pub mod pieces;
pub mod plan_tree;
pub mod profile_chart;
pub mod raster;
pub mod report_page;
pub mod shapes;
