//! The chart of a profile ([`ProfileReport`]): per stage, its execution time and its output
//! rows as horizontal bars, the stages grouped by the rule they implement. As SVG
//! ([`profile_chart_svg`], written with the `svg` crate) or as one self-contained HTML page
//! ([`profile_chart_html`]: the chart, then the report's table; no script, no file from
//! elsewhere). `sqlchess profile --out FILE` and `sqlchess validate --profile-out FILE`
//! write them ([`ChartFile`]).
//!
//! # Groups
//!
//! A stage's rule is its workflow, the folder of `plans/` its SQL file is in
//! ([`crate::stages::Stage::folder`]; each file's header comment names the rule and the
//! FIDE article), one [`RuleGroup`] per folder:
//!
//! | folder | group heading |
//! |---|---|
//! | `legal/` | legal moves: FIDE art. 3.1–3.10 |
//! | `notation/` | notation: SAN, check and mate marks, FIDE Appendix C |
//! | `status/` | position status and game end: FIDE art. 5, 9 |
//! | `tokens/` | move tokens read as moves: PGN §8.2.3 |
//! | `apply/` | moves applied: FIDE art. 3, 3.8.2.1 |
//! | `perft/` | perft: move paths counted |
//! | `replay/` | replay: a game's moves checked and played |
//! | `position/` | position queries: FIDE art. 3.2–3.9, material |
//! | `static/` | static tables: board geometry |
//! | `seed/` | the seed replica: the SAP statement's CTEs |
//!
//! Every stage of the seed pipeline's profile is in the seed group; a name that is no stage
//! of `plans/` in `other stages`. The groups come in the order of their first stage in the
//! report, the stages of a group in the report's (pipeline) order; so the chart's order is
//! the report's wherever a workflow's stages run together, which they do but for
//! `perft_moves` (run among the notation stages) and the status stages around `tokens/`.
//!
//! # Geometry
//!
//! In the drawing's units, which are CSS pixels at zoom 1 (the SVG's `width` and `height`
//! equal its `viewBox`; in the HTML page the chart is the body's first element, at its top
//! left corner, the body's margin 0): [`WIDTH`] wide; a header of [`HEADER_HEIGHT`]
//! (title, input, totals, column captions); then per group a heading row of
//! [`GROUP_HEIGHT`] and one row of [`ROW_HEIGHT`] per stage; a footer of [`FOOTER_HEIGHT`].
//! So the row of the `i`-th stage drawn (0-based over the whole chart) in the `g`-th group
//! has its top at `HEADER_HEIGHT + (g + 1) * GROUP_HEIGHT + i * ROW_HEIGHT`
//! ([`chart_rows`] gives it as [`ChartRow::top`]). In that row:
//! - the stage's name at [`NAME_X`];
//! - its time bar, a rectangle filled with [`TIME_COLOR`]: from x = [`TIME_BAR_X`], width
//!   its execution time over the largest stage's times [`TIME_BAR_MAX`] (at least
//!   [`MIN_BAR`] when the time is not zero), from `top + (ROW_HEIGHT - BAR_HEIGHT) / 2`,
//!   [`BAR_HEIGHT`] high; its figures (`12.3 ms 45.6%`: milliseconds, share of the summed
//!   execution time) after it;
//! - its rows bar, filled with [`ROWS_COLOR`]: from x = [`ROWS_BAR_X`], width its output
//!   rows over the largest stage's rows times [`ROWS_BAR_MAX`] (at least [`MIN_BAR`] when
//!   not zero), at the same height; its figures (`32,869 rows, 2 runs`) after it.
//!
//! The background is [`BACKGROUND`]. Each stage's row is a `<g class="stage">` whose
//! `<title>` (a tooltip) holds the stage's SQL file and every figure of the report's row.
//! The output depends on the report alone.

use std::fmt::Write as _;
use std::path::Path;

use svg::Document;
use svg::node::element::{Group, Line, Title};

use super::page::escape;
use super::shapes::{rect, round, text};
use crate::error::{Error, Result};
use crate::profile::{PipelineKind, ProfileReport, ProfileRow, format_bytes};
use crate::stages::{Stage, StaticTable};

/// The chart's width, in drawing units (CSS pixels).
pub const WIDTH: f64 = 1000.0;
/// The header's height: title, input, totals and column captions. The first group's
/// heading row starts here.
pub const HEADER_HEIGHT: f64 = 76.0;
/// A group heading's row height.
pub const GROUP_HEIGHT: f64 = 26.0;
/// A stage's row height.
pub const ROW_HEIGHT: f64 = 22.0;
/// The footer's height (a note on the scales), after the last row.
pub const FOOTER_HEIGHT: f64 = 30.0;
/// The height of a bar, centred in its row.
pub const BAR_HEIGHT: f64 = 14.0;
/// Where group headings start (left margin).
pub const MARGIN: f64 = 16.0;
/// Where the stage names start.
pub const NAME_X: f64 = 32.0;
/// Where the time bars start.
pub const TIME_BAR_X: f64 = 190.0;
/// The longest time bar's width (the slowest stage's).
pub const TIME_BAR_MAX: f64 = 340.0;
/// Where the rows bars start.
pub const ROWS_BAR_X: f64 = 660.0;
/// The longest rows bar's width (the stage with the most rows).
pub const ROWS_BAR_MAX: f64 = 140.0;
/// The narrowest bar of a figure that is not zero.
pub const MIN_BAR: f64 = 1.0;
/// The time bars' fill colour.
pub const TIME_COLOR: &str = "#2f6fb5";
/// The rows bars' fill colour.
pub const ROWS_COLOR: &str = "#e0892b";
/// The background's colour.
pub const BACKGROUND: &str = "#ffffff";
/// The text's colour.
const INK: &str = "#1d1d1d";
/// The figures' and notes' colour.
const MUTED: &str = "#555555";
/// Where the figures start after the end of a bar.
const LABEL_GAP: f64 = 6.0;
/// The fonts: monospace, so that names and figures line up.
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";

/// The rule a stage implements: its workflow, the folder of `plans/` its SQL file is in
/// (see the module's docs for the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleGroup {
    /// `plans/legal/`: moves by the rules of each piece, castling, en passant, promotion,
    /// the king not left attacked (FIDE art. 3.1–3.10).
    Legal,
    /// `plans/notation/`: SAN with its check and mate marks (FIDE Appendix C, art. 5.1.1).
    Notation,
    /// `plans/status/`: position keys, legal move counts, check, material; set-up checks
    /// (FIDE art. 5, 9).
    Status,
    /// `plans/tokens/`: move tokens read as legal moves (PGN standard §8.2.3).
    Tokens,
    /// `plans/apply/`: the positions after moves (FIDE art. 3, castling rights art. 3.8.2.1).
    Apply,
    /// `plans/perft/`: perft's levels of move paths.
    Perft,
    /// `plans/replay/`: one move per game per ply, checked and played.
    Replay,
    /// `plans/position/`: the position queries (attacks, pins, checkers, hanging pieces,
    /// sub-FEN and material).
    Position,
    /// `plans/static/`: the static tables (board geometry, piece rays).
    Static,
    /// `plans/seed/`: the seed replica's stages.
    Seed,
    /// A stage name that is none of `plans/`.
    Other,
}

impl RuleGroup {
    /// The group of stage `stage` of a profile of `pipeline`: [`RuleGroup::Seed`] for every
    /// stage of the seed's, else by the folder of the stage's (or static table's) SQL file,
    /// [`RuleGroup::Other`] for a name that is neither.
    #[must_use]
    pub fn of(pipeline: PipelineKind, stage: &str) -> RuleGroup {
        if pipeline == PipelineKind::Seed {
            return RuleGroup::Seed;
        }
        let folder = match (stage.parse::<Stage>(), stage.parse::<StaticTable>()) {
            (Ok(s), _) => s.folder(),
            (_, Ok(t)) => t.folder(),
            _ => return RuleGroup::Other,
        };
        RuleGroup::of_folder(folder)
    }

    /// The group of a folder of `plans/` (`legal`, `notation`, …); [`RuleGroup::Other`] for
    /// one that is none.
    #[must_use]
    pub fn of_folder(folder: &str) -> RuleGroup {
        match folder {
            "legal" => RuleGroup::Legal,
            "notation" => RuleGroup::Notation,
            "status" => RuleGroup::Status,
            "tokens" => RuleGroup::Tokens,
            "apply" => RuleGroup::Apply,
            "perft" => RuleGroup::Perft,
            "replay" => RuleGroup::Replay,
            "position" => RuleGroup::Position,
            "static" => RuleGroup::Static,
            "seed" => RuleGroup::Seed,
            _ => RuleGroup::Other,
        }
    }

    /// The folder of `plans/` whose stages are in the group (`None` for
    /// [`RuleGroup::Other`]).
    #[must_use]
    pub fn folder(self) -> Option<&'static str> {
        Some(match self {
            RuleGroup::Legal => "legal",
            RuleGroup::Notation => "notation",
            RuleGroup::Status => "status",
            RuleGroup::Tokens => "tokens",
            RuleGroup::Apply => "apply",
            RuleGroup::Perft => "perft",
            RuleGroup::Replay => "replay",
            RuleGroup::Position => "position",
            RuleGroup::Static => "static",
            RuleGroup::Seed => "seed",
            RuleGroup::Other => return None,
        })
    }

    /// The group's heading on the chart: the rule and its FIDE articles, then the folder.
    #[must_use]
    pub fn heading(self) -> &'static str {
        match self {
            RuleGroup::Legal => {
                "legal moves: FIDE art. 3.1–3.10 (pieces, castling, en passant, promotion, \
                 king safety) · plans/legal"
            }
            RuleGroup::Notation => {
                "notation: SAN, check and mate marks (FIDE Appendix C, art. 5.1.1) · \
                 plans/notation"
            }
            RuleGroup::Status => {
                "position status and game end: FIDE art. 5, 9 (mate, stalemate, repetition \
                 keys, material) · plans/status"
            }
            RuleGroup::Tokens => "move tokens read as legal moves: PGN §8.2.3 · plans/tokens",
            RuleGroup::Apply => {
                "moves applied: the position after a move (FIDE art. 3, 3.8.2.1) · plans/apply"
            }
            RuleGroup::Perft => "perft: move paths counted level by level · plans/perft",
            RuleGroup::Replay => {
                "replay: each game's move checked and played, ply by ply (FIDE art. 3) · \
                 plans/replay"
            }
            RuleGroup::Position => {
                "position queries: attacks, pins, checkers, hanging (FIDE art. 3.2–3.9), \
                 material · plans/position"
            }
            RuleGroup::Static => "static tables: board geometry (FIDE art. 2, 3) · plans/static",
            RuleGroup::Seed => {
                "the seed replica: the SAP statement's CTEs (its rules of art. 3) · plans/seed"
            }
            RuleGroup::Other => "other stages",
        }
    }
}

/// Where one stage is drawn (see the module's docs).
#[derive(Debug, Clone, PartialEq)]
pub struct ChartRow {
    /// The stage.
    pub stage: String,
    /// Its group.
    pub group: RuleGroup,
    /// The group's index, in the chart's order of groups.
    pub group_index: usize,
    /// The top of its row, in drawing units.
    pub top: f64,
    /// Its time bar's width, in drawing units.
    pub time_width: f64,
    /// Its rows bar's width, in drawing units.
    pub rows_width: f64,
    /// Its index in the report's rows.
    pub report_index: usize,
}

/// The report's stages grouped: the groups in the order of their first stage in the
/// report, each with the indices of its rows of `report.rows` in the report's order.
#[must_use]
pub fn groups(report: &ProfileReport) -> Vec<(RuleGroup, Vec<usize>)> {
    let mut out: Vec<(RuleGroup, Vec<usize>)> = vec![];
    for (i, r) in report.rows.iter().enumerate() {
        let g = RuleGroup::of(report.pipeline, &r.stage);
        match out.iter_mut().find(|(h, _)| *h == g) {
            Some((_, rows)) => rows.push(i),
            None => out.push((g, vec![i])),
        }
    }
    out
}

/// Where each stage of the report is drawn, in the chart's order (see the module's docs).
#[must_use]
pub fn chart_rows(report: &ProfileReport) -> Vec<ChartRow> {
    let max_ms = report.rows.iter().map(exec_ms).fold(0.0_f64, f64::max);
    let max_rows = report.rows.iter().map(|r| r.rows).max().unwrap_or(0);
    let mut out = vec![];
    for (g, (group, rows)) in groups(report).into_iter().enumerate() {
        for i in rows {
            let r = &report.rows[i];
            let top = HEADER_HEIGHT + (g + 1) as f64 * GROUP_HEIGHT + out.len() as f64 * ROW_HEIGHT;
            out.push(ChartRow {
                stage: r.stage.clone(),
                group,
                group_index: g,
                top,
                time_width: bar(exec_ms(r), max_ms, TIME_BAR_MAX),
                rows_width: bar(r.rows as f64, max_rows as f64, ROWS_BAR_MAX),
                report_index: i,
            });
        }
    }
    out
}

/// The chart's height for `report`, in drawing units.
#[must_use]
pub fn chart_height(report: &ProfileReport) -> f64 {
    let groups = groups(report).len().max(1);
    HEADER_HEIGHT
        + groups as f64 * GROUP_HEIGHT
        + report.rows.len() as f64 * ROW_HEIGHT
        + FOOTER_HEIGHT
}

fn exec_ms(r: &ProfileRow) -> f64 {
    r.execution.as_secs_f64() * 1e3
}

/// A bar's width: `value` of `max` in `full` units, at least [`MIN_BAR`] when not zero.
fn bar(value: f64, max: f64, full: f64) -> f64 {
    if value <= 0.0 || max <= 0.0 {
        0.0
    } else {
        round((value / max * full).max(MIN_BAR))
    }
}

/// `32869` as `32,869`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The report's title: `sqlchess profile · pipeline fide`.
fn title(report: &ProfileReport) -> String {
    format!("sqlchess profile · pipeline {}", report.pipeline)
}

/// The line of totals: execution, planning, compute and wall time.
fn totals(report: &ProfileReport) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mut s = format!(
        "{} stages, {} runs · execution {:.1} ms, planning {:.1} ms, DataFusion compute {:.1} ms",
        report.rows.len(),
        thousands(report.rows.iter().map(|r| r.runs).sum()),
        ms(report.execution()),
        ms(report.planning()),
        ms(report.compute())
    );
    if let Some(w) = report.wall {
        let _ = write!(s, ", wall {:.1} ms", ms(w));
    }
    s
}

/// The SQL file of a stage of the report's pipeline, when it has one.
fn sql_file(pipeline: PipelineKind, stage: &str) -> Option<String> {
    match pipeline {
        PipelineKind::Seed => Some(format!("plans/seed/{stage}.sql")),
        PipelineKind::Fide => match (stage.parse::<Stage>(), stage.parse::<StaticTable>()) {
            (Ok(s), _) => Some(s.path().to_string()),
            (_, Ok(t)) => Some(t.path().to_string()),
            _ => None,
        },
    }
}

/// A stage's tooltip: its SQL file and every figure of its row.
fn tooltip(pipeline: PipelineKind, r: &ProfileRow) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    format!(
        "{}{}: {} runs, {} rows; execution {:.1} ms ({:.1}%), planning {:.1} ms, compute \
         {:.1} ms, static joins {:.1} ms, peak memory {}",
        r.named(),
        sql_file(pipeline, &r.stage).map_or_else(String::new, |f| format!(" ({f})")),
        thousands(r.runs),
        thousands(r.rows),
        ms(r.execution),
        r.share,
        ms(r.planning),
        ms(r.compute),
        ms(r.static_join),
        r.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
    )
}

/// The chart of `report` as an SVG document (see the module's docs for the layout).
#[must_use]
pub fn profile_chart_svg(report: &ProfileReport) -> String {
    let height = chart_height(report);
    let mut doc = Document::new()
        .set("viewBox", (0, 0, WIDTH, height))
        .set("width", WIDTH)
        .set("height", height)
        .set("font-family", FONT)
        .set("fill", INK)
        .add(rect(0.0, 0.0, WIDTH, height, BACKGROUND));
    doc = doc
        .add(Title::new(title(report)))
        .add(text(MARGIN, 22.0, 16.0, title(report)).set("font-weight", "bold"));
    let input = if report.input.is_empty() {
        "the stages the run used".to_string()
    } else {
        report.input.clone()
    };
    doc = doc
        .add(text(MARGIN, 40.0, 11.0, input).set("fill", MUTED))
        .add(text(MARGIN, 55.0, 11.0, totals(report)).set("fill", MUTED));
    let caption_y = HEADER_HEIGHT - 6.0;
    doc = doc
        .add(text(NAME_X, caption_y, 11.0, "stage").set("font-weight", "bold"))
        .add(
            text(TIME_BAR_X, caption_y, 11.0, "execution time (ms, share)")
                .set("font-weight", "bold"),
        )
        .add(text(ROWS_BAR_X, caption_y, 11.0, "output rows (runs)").set("font-weight", "bold"))
        .add(
            Line::new()
                .set("x1", MARGIN)
                .set("x2", WIDTH - MARGIN)
                .set("y1", HEADER_HEIGHT - 0.5)
                .set("y2", HEADER_HEIGHT - 0.5)
                .set("stroke", "#bbbbbb")
                .set("stroke-width", 1),
        );
    let rows = chart_rows(report);
    if rows.is_empty() {
        doc = doc.add(
            text(
                NAME_X,
                HEADER_HEIGHT + GROUP_HEIGHT - 8.0,
                12.0,
                "no stage ran",
            )
            .set("fill", MUTED),
        );
    }
    let mut last_group = None;
    for row in &rows {
        if last_group != Some(row.group_index) {
            last_group = Some(row.group_index);
            let top = row.top - GROUP_HEIGHT;
            doc = doc.add(
                Group::new()
                    .set("class", "group")
                    .add(rect(0.0, top + 4.0, WIDTH, GROUP_HEIGHT - 4.0, "#eef2f7"))
                    .add(
                        text(MARGIN, top + GROUP_HEIGHT - 8.0, 12.0, row.group.heading())
                            .set("font-weight", "bold"),
                    ),
            );
        }
        let r = &report.rows[row.report_index];
        let bar_y = row.top + (ROW_HEIGHT - BAR_HEIGHT) / 2.0;
        let baseline = row.top + ROW_HEIGHT / 2.0 + 4.0;
        let g = Group::new()
            .set("class", "stage")
            .set("data-stage", r.stage.as_str())
            .add(Title::new(tooltip(report.pipeline, r)))
            .add(text(NAME_X, baseline, 12.0, r.stage.as_str()))
            .add(
                rect(TIME_BAR_X, bar_y, row.time_width, BAR_HEIGHT, TIME_COLOR)
                    .set("class", "time"),
            )
            .add(
                text(
                    TIME_BAR_X + row.time_width + LABEL_GAP,
                    baseline,
                    11.0,
                    format!("{:.1} ms {:.1}%", exec_ms(r), r.share),
                )
                .set("fill", MUTED),
            )
            .add(
                rect(ROWS_BAR_X, bar_y, row.rows_width, BAR_HEIGHT, ROWS_COLOR)
                    .set("class", "rows"),
            )
            .add(
                text(
                    ROWS_BAR_X + row.rows_width + LABEL_GAP,
                    baseline,
                    11.0,
                    format!(
                        "{} rows, {} run{}",
                        thousands(r.rows),
                        thousands(r.runs),
                        if r.runs == 1 { "" } else { "s" }
                    ),
                )
                .set("fill", MUTED),
            );
        doc = doc.add(g);
    }
    doc = doc.add(
        text(
            MARGIN,
            height - FOOTER_HEIGHT / 2.0 + 4.0,
            10.0,
            "bars: linear, the longest = the slowest stage (time) and the stage with the most \
             rows (rows); execution = wall time of the stage's runs",
        )
        .set("fill", MUTED),
    );
    doc.to_string()
}

/// The chart of `report` as one self-contained HTML page: the SVG of
/// [`profile_chart_svg`] as the body's first element at its top left corner (margin 0, so
/// page pixels are the chart's units at zoom 1), then the report's figures as a table in
/// the chart's order, with the group headings. No script, style sheet, font or image from
/// elsewhere.
#[must_use]
pub fn profile_chart_html(report: &ProfileReport) -> String {
    let ms = |d: std::time::Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>\nbody {{ margin: 0; font-family: {FONT}; color: {INK}; \
         background: {BACKGROUND}; }}\nsvg {{ display: block; }}\n\
         table {{ margin: 16px; border-collapse: collapse; font-size: 13px; }}\n\
         th, td {{ padding: 2px 10px; text-align: right; }}\n\
         th:first-child, td:first-child {{ text-align: left; }}\n\
         tr.group th {{ text-align: left; background: #eef2f7; padding-top: 6px; }}\n\
         thead th {{ border-bottom: 1px solid #bbbbbb; }}\n</style>\n</head>\n<body>\n",
        escape(&title(report))
    );
    page.push_str(&profile_chart_svg(report));
    page.push_str(
        "\n<table>\n<thead><tr><th>stage</th><th>runs</th><th>rows</th><th>plan ms</th>\
         <th>exec ms</th><th>compute ms</th><th>static ms</th><th>share</th>\
         <th>peak mem</th></tr></thead>\n<tbody>\n",
    );
    let mut last_group = None;
    for row in chart_rows(report) {
        if last_group != Some(row.group_index) {
            last_group = Some(row.group_index);
            let _ = writeln!(
                page,
                "<tr class=\"group\"><th colspan=\"9\">{}</th></tr>",
                escape(row.group.heading())
            );
        }
        let r = &report.rows[row.report_index];
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{:.1}%</td><td>{}</td></tr>",
            escape(&r.stage),
            thousands(r.runs),
            thousands(r.rows),
            ms(r.planning),
            ms(r.execution),
            ms(r.compute),
            ms(r.static_join),
            r.share,
            r.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
        );
    }
    let _ = write!(
        page,
        "</tbody>\n</table>\n<p style=\"margin: 16px; font-size: 13px\">{}</p>\n</body>\n</html>\n",
        escape(&totals(report))
    );
    page
}

/// The kind of chart file an output path asks for, by its extension (case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartFile {
    /// `.svg`: [`profile_chart_svg`].
    Svg,
    /// `.html` or `.htm`: [`profile_chart_html`].
    Html,
}

/// The extensions [`ChartFile::from_path`] takes, for messages.
pub const CHART_EXTENSIONS: &str = ".svg, .html or .htm";

impl ChartFile {
    /// The chart kind `path`'s extension names.
    ///
    /// Errors: [`Error::Usage`] naming the path and [`CHART_EXTENSIONS`] for any other
    /// extension, or none.
    pub fn from_path(path: &Path) -> Result<ChartFile> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(ChartFile::Svg),
            Some("html" | "htm") => Ok(ChartFile::Html),
            _ => Err(Error::Usage(format!(
                "{}: a profile chart is written as {CHART_EXTENSIONS}",
                path.display()
            ))),
        }
    }

    /// [`ChartFile::from_path`], and a check that a file can be written in `path`'s folder
    /// (a temporary file is made there and removed), so that a run that will write the
    /// chart fails before it starts, not after. Nothing is left behind.
    ///
    /// Errors: as [`ChartFile::from_path`]; [`Error::Io`] naming `path` when its folder does
    /// not exist or cannot be written.
    pub fn prepare(path: &Path) -> Result<ChartFile> {
        let kind = ChartFile::from_path(path)?;
        let (file, temp) = crate::io::whole_file::temp_beside(path)?;
        drop(file);
        temp.close().map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(kind)
    }

    /// The chart of `report` in this kind.
    #[must_use]
    pub fn render(self, report: &ProfileReport) -> String {
        match self {
            ChartFile::Svg => profile_chart_svg(report),
            ChartFile::Html => profile_chart_html(report),
        }
    }

    /// Writes the chart of `report` to `path` whole (temporary file, then renamed:
    /// [`crate::io::whole_file::write_whole`]).
    ///
    /// Errors: [`Error::Io`] naming `path`.
    pub fn write(self, path: &Path, report: &ProfileReport) -> Result<()> {
        crate::io::whole_file::write_whole(path, self.render(report).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn row(stage: &str, ms: u64, rows: u64) -> (String, crate::session::StageProfile) {
        let p = crate::session::StageProfile {
            runs: 2,
            rows,
            execution: Duration::from_millis(ms),
            compute: Duration::from_millis(ms / 2),
            ..Default::default()
        };
        (stage.to_string(), p)
    }

    fn fide() -> ProfileReport {
        ProfileReport::from_stages(
            PipelineKind::Fide,
            "3 positions".into(),
            Some(Duration::from_millis(90)),
            &[
                row("placed", 10, 100),
                row("legal_moves", 40, 1000),
                row("king_lines", 5, 10),
                row("perft_moves", 20, 1000),
                row("san", 8, 1000),
                row("no_such_stage", 0, 0),
            ],
        )
    }

    #[test]
    fn groups_follow_the_folders_in_first_appearance_order() {
        let report = fide();
        let g = groups(&report);
        assert_eq!(
            g,
            vec![
                (RuleGroup::Legal, vec![0, 1]),
                (RuleGroup::Notation, vec![2, 4]),
                (RuleGroup::Perft, vec![3]),
                (RuleGroup::Other, vec![5]),
            ]
        );
        assert_eq!(
            RuleGroup::of(PipelineKind::Seed, "stage13"),
            RuleGroup::Seed
        );
        assert_eq!(
            RuleGroup::of(PipelineKind::Fide, "piece_rays"),
            RuleGroup::Static
        );
        for st in Stage::ALL {
            let g = RuleGroup::of(PipelineKind::Fide, st.name());
            assert_eq!(g.folder(), Some(st.folder()), "{st}");
            assert_ne!(g, RuleGroup::Other);
        }
    }

    #[test]
    fn geometry_is_as_documented() {
        let report = fide();
        let rows = chart_rows(&report);
        let names: Vec<&str> = rows.iter().map(|r| r.stage.as_str()).collect();
        assert_eq!(
            names,
            [
                "placed",
                "legal_moves",
                "king_lines",
                "san",
                "perft_moves",
                "no_such_stage"
            ]
        );
        for (i, r) in rows.iter().enumerate() {
            let want =
                HEADER_HEIGHT + (r.group_index + 1) as f64 * GROUP_HEIGHT + i as f64 * ROW_HEIGHT;
            assert_eq!(r.top, want, "{}", r.stage);
        }
        // the slowest stage's bar is full, the one with the most rows too; zero is no bar
        assert_eq!(rows[1].time_width, TIME_BAR_MAX);
        assert_eq!(rows[1].rows_width, ROWS_BAR_MAX);
        assert_eq!(rows[0].time_width, TIME_BAR_MAX / 4.0);
        assert_eq!(rows[5].time_width, 0.0);
        assert_eq!(
            chart_height(&report),
            HEADER_HEIGHT + 4.0 * GROUP_HEIGHT + 6.0 * ROW_HEIGHT + FOOTER_HEIGHT
        );
        let svg = profile_chart_svg(&report);
        let bar = format!(
            r#"<rect class="time" fill="{TIME_COLOR}" height="{BAR_HEIGHT}" width="{TIME_BAR_MAX}" x="{TIME_BAR_X}" y="{}"/>"#,
            rows[1].top + (ROW_HEIGHT - BAR_HEIGHT) / 2.0
        );
        assert!(svg.contains(&bar), "{bar}\n{svg}");
    }

    #[test]
    fn svg_parses_and_holds_every_stage_and_heading_once_in_order() {
        let report = fide();
        let svg = profile_chart_svg(&report);
        resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
        assert_eq!(svg.matches(r#"class="stage""#).count(), 6);
        assert_eq!(svg.matches(r#"class="group""#).count(), 4);
        let mut at = 0;
        for st in ["placed", "legal_moves", "king_lines", "san", "perft_moves"] {
            let found = svg[at..]
                .find(&format!(r#"data-stage="{st}""#))
                .unwrap_or_else(|| panic!("{st} after {at}"));
            at += found;
        }
        assert!(svg.contains("40.0 ms 48.2%"), "{svg}");
        assert!(svg.contains("1,000 rows, 2 runs"));
        assert!(svg.contains("(plans/legal/legal_moves.sql)"));
        // deterministic
        assert_eq!(svg, profile_chart_svg(&report));
    }

    #[test]
    fn html_is_one_page_without_scripts() {
        let mut report = fide();
        report.rows[0].stage = "<b>&".into();
        let html = profile_chart_html(&report);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<body>\n<svg "));
        for outside in ["<script", "src=", "href=", "url(", "@import", "<link"] {
            assert!(!html.contains(outside), "{outside}");
        }
        assert!(html.contains("&lt;b&gt;&amp;"));
        assert!(!html.contains("<b>&"));
        assert_eq!(html.matches("<tr class=\"group\">").count(), 4);
    }

    #[test]
    fn seed_and_empty_reports_draw() {
        let seed = ProfileReport::from_stages(
            PipelineKind::Seed,
            String::new(),
            None,
            &[row("positions", 3, 40), row("stage13", 9, 400)],
        );
        let svg = profile_chart_svg(&seed);
        assert_eq!(svg.matches(r#"class="group""#).count(), 1);
        assert!(svg.contains(RuleGroup::Seed.heading().split(" · ").next().unwrap()));
        assert!(svg.contains("(plans/seed/stage13.sql)"));
        let empty = ProfileReport::from_stages(PipelineKind::Fide, String::new(), None, &[]);
        let svg = profile_chart_svg(&empty);
        resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
        assert!(svg.contains("no stage ran"));
    }

    #[test]
    fn chart_files_by_extension() {
        assert_eq!(
            ChartFile::from_path(Path::new("a/p.SVG")).unwrap(),
            ChartFile::Svg
        );
        assert_eq!(
            ChartFile::from_path(Path::new("p.htm")).unwrap(),
            ChartFile::Html
        );
        for bad in ["p.png", "p", "p.svg.txt"] {
            match ChartFile::from_path(Path::new(bad)) {
                Err(Error::Usage(m)) => assert!(m.contains(bad) && m.contains(".svg"), "{m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(32_869_123), "32,869,123");
    }
}
