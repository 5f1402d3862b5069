//! A query's result as one self-contained HTML page (`sqlchess sql --format html`): the
//! query, the row count and the rows as a table, where every column that holds positions
//! shows the board beside the text. No scripts, styles or fonts from elsewhere.
//!
//! A column holds positions when its name is one of [`FEN_COLUMNS`] (its values are FENs:
//! each valid one gets a board, the check marker from stage `checkers`); a value that is a
//! `board_svg` drawing is drawn (checked to be one: see [`drawn_board`]; any other text,
//! however it starts, is shown as text, escaped). The pieces, squares and
//! coordinates are defined once per page ([`board::page_defs`]) and every board `<use>`s
//! them. At most `max_rows` rows are written (the count of all rows is stated), so a large
//! result gives a page of bounded size: about 2.5 kB per board.

use std::fmt::Write as _;

use datafusion::arrow::array::{Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};

use super::board::{self, BoardOptions, Defs, board_svg, in_check};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::error::Result;

/// The column names whose values are FENs.
pub const FEN_COLUMNS: [&str; 5] = ["fen", "fen_before", "fen_after", "final_fen", "start_fen"];

/// The rows a page shows by default.
pub const DEFAULT_MAX_ROWS: usize = 10_000;

/// The width and height of a board in a result page, in pixels.
pub const PAGE_BOARD_SIZE: u32 = 160;

/// A result page being written: [`ResultPage::add`] each batch, then [`ResultPage::finish`].
pub struct ResultPage {
    query: String,
    schema: SchemaRef,
    max_rows: usize,
    /// The rows seen, shown or not.
    rows: u64,
    /// The table's rows written so far.
    body: String,
}

impl ResultPage {
    /// A page for the rows of `query` (shown at the top) with columns `schema`, showing at
    /// most `max_rows` rows.
    #[must_use]
    pub fn new(query: &str, schema: SchemaRef, max_rows: usize) -> ResultPage {
        ResultPage {
            query: query.trim().to_string(),
            schema,
            max_rows,
            rows: 0,
            body: String::new(),
        }
    }

    /// Adds a batch's rows (those within `max_rows`; the others are only counted). The
    /// boards of its FEN columns are drawn together, their checks found by one run of the
    /// `checkers` stage on `engine`.
    ///
    /// Errors: pipeline failures; Arrow's, formatting a value.
    pub async fn add(&mut self, engine: &Engine, batch: &RecordBatch) -> Result<()> {
        let shown = usize::try_from(self.rows)
            .map_or(0, |r| self.max_rows.saturating_sub(r))
            .min(batch.num_rows());
        self.rows += batch.num_rows() as u64;
        if shown == 0 {
            return Ok(());
        }
        let batch = batch.slice(0, shown);
        let options = FormatOptions::default();
        let mut cells: Vec<Vec<String>> = vec![Vec::with_capacity(shown); batch.num_columns()];
        for (c, column) in batch.columns().iter().enumerate() {
            let name = self.schema.field(c).name().as_str();
            let text = text_column(column.as_ref());
            let is_fen = FEN_COLUMNS.contains(&name);
            let boards: Vec<Option<String>> = match &text {
                Some(t) if is_fen => fen_boards(engine, t).await?,
                Some(t) => (0..t.len())
                    .map(|r| t.is_valid(r).then(|| t.value(r)).and_then(drawn_board))
                    .collect(),
                None => vec![None; shown],
            };
            let formatter = ArrayFormatter::try_new(column.as_ref(), &options)?;
            for (r, board) in boards.iter().enumerate().take(shown) {
                let cell = match board {
                    // a board_svg value is shown as its board only
                    Some(svg) if !is_fen => format!(r#"<div class="board">{svg}</div>"#),
                    _ if column.is_null(r) => NULL_CELL.to_string(),
                    Some(svg) => format!(
                        r#"<div class="board">{svg}</div>{}"#,
                        escape(&formatter.value(r).to_string())
                    ),
                    None => escape(&formatter.value(r).to_string()),
                };
                cells[c].push(cell);
            }
        }
        for r in 0..shown {
            self.body.push_str("<tr>");
            for column in &cells {
                let _ = write!(self.body, "<td>{}</td>", column[r]);
            }
            self.body.push_str("</tr>\n");
        }
        Ok(())
    }

    /// Sets the count of the result's rows the page states, when it was given only the
    /// first rows (`total` at least those added).
    pub fn set_total_rows(&mut self, total: u64) {
        self.rows = self.rows.max(total);
    }

    /// The page.
    #[must_use]
    pub fn finish(self) -> String {
        let mut page = String::with_capacity(self.body.len() + 20_000);
        let shown = self.rows.min(self.max_rows as u64);
        let count = if shown < self.rows {
            format!(
                "{} rows; the first {shown} are shown (the page is cut there so that it stays \
                 small)",
                self.rows
            )
        } else {
            format!("{} row{}", self.rows, if self.rows == 1 { "" } else { "s" })
        };
        let _ = write!(
            page,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>sqlchess result</title><style>{STYLE}</style></head><body>\n{}\n\
             <pre class=\"query\">{}</pre>\n<p class=\"count\">{count}</p>\n<table>\n<tr>",
            board::page_defs(),
            escape(&self.query)
        );
        for field in self.schema.fields() {
            let _ = write!(page, "<th>{}</th>", escape(field.name()));
        }
        page.push_str("</tr>\n");
        page.push_str(&self.body);
        page.push_str("</table>\n</body></html>\n");
        page
    }
}

/// The page's style sheet.
const STYLE: &str = "body{font-family:sans-serif;margin:16px;background:#fff;color:#222}\
    .query{background:#f4f4f4;padding:8px;white-space:pre-wrap}\
    table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;vertical-align:top;\
    text-align:left;font-size:13px}.board{margin-bottom:2px}.null{color:#999;font-style:italic}";

/// A string column's values (any string type, or a dictionary of strings), or `None` for
/// another type.
fn text_column(column: &dyn Array) -> Option<StringArray> {
    let is_text =
        |t: &DataType| matches!(t, DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8);
    let text = match column.data_type() {
        DataType::Dictionary(_, value) => is_text(value),
        t => is_text(t),
    };
    text.then(|| cast(column, &DataType::Utf8).ok())
        .flatten()
        .and_then(|a| a.as_any().downcast_ref::<StringArray>().cloned())
}

/// How a NULL cell is shown (unlike the text `NULL`).
const NULL_CELL: &str = r#"<span class="null">NULL</span>"#;

/// The elements a board of `board_svg` is made of.
const BOARD_ELEMENTS: [&str; 11] = [
    "svg",
    "defs",
    "symbol",
    "g",
    "path",
    "rect",
    "circle",
    "use",
    "radialGradient",
    "stop",
    "title",
];

/// The attributes a board of `board_svg` has (a `href` only to an id of the page).
const BOARD_ATTRIBUTES: [&str; 26] = [
    "xmlns",
    "width",
    "height",
    "viewBox",
    "id",
    "class",
    "x",
    "y",
    "cx",
    "cy",
    "r",
    "d",
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-linecap",
    "stroke-linejoin",
    "style",
    "href",
    "offset",
    "stop-color",
    "stop-opacity",
    "transform",
];

/// A `board_svg` drawing as the page shows it, without its own `<defs>` (the page has
/// them): only when `value` is an SVG document of the elements and attributes boards are
/// made of (no script, no event attribute, no link out of the page, no style beyond the
/// pieces' own), else `None` (the value is shown as escaped text). This keeps text from a
/// PGN file (`<svg onload=…>` in a comment) from running in the page.
fn drawn_board(value: &str) -> Option<String> {
    if !value.starts_with("<svg") {
        return None;
    }
    let doc = resvg::usvg::roxmltree::Document::parse(value).ok()?;
    let allowed = doc.descendants().filter(|n| n.is_element()).all(|n| {
        BOARD_ELEMENTS.contains(&n.tag_name().name())
            && n.attributes().all(|a| {
                BOARD_ATTRIBUTES.contains(&a.name())
                    && (a.name() != "href" || a.value().starts_with('#'))
                    && (a.name() != "style" || !a.value().contains(['(', '@', '\\']))
                    && a.value()
                        .split("url(")
                        .skip(1)
                        .all(|rest| rest.starts_with('#'))
            })
    });
    if !allowed {
        return None;
    }
    Some(match (value.find("<defs>"), value.find("</defs>")) {
        (Some(from), Some(to)) if from < to => {
            format!("{}{}", &value[..from], &value[to + "</defs>".len()..])
        }
        _ => value.to_string(),
    })
}

/// The board of each FEN ([`Defs::Page`]); `None` for NULL and bad FENs.
async fn fen_boards(engine: &Engine, fens: &StringArray) -> Result<Vec<Option<String>>> {
    let setups: Vec<Option<Setup>> = fens
        .iter()
        .map(|f| f.and_then(|f| Setup::from_fen_auto(f).ok()))
        .collect();
    let good: Vec<Setup> = setups.iter().flatten().copied().collect();
    let checks = in_check(engine, &good).await?;
    let options = BoardOptions {
        size: PAGE_BOARD_SIZE,
        ..BoardOptions::default()
    };
    let mut next = 0;
    Ok(setups
        .iter()
        .map(|s| {
            s.as_ref().map(|s| {
                next += 1;
                board_svg(s, &options, checks[next - 1], Defs::Page)
            })
        })
        .collect())
}

/// Text as HTML writes it: `&`, `<`, `>` and `"` escaped.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
