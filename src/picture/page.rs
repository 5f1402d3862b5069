//! A query's result as one self-contained HTML page (`sqlchess sql --format html`): the
//! query, the row count and the rows as a table, where every column that holds positions
//! shows the board beside the text. No scripts, styles or fonts from elsewhere.
//!
//! A column holds positions when its name is one of [`FEN_COLUMNS`] (its values are FENs:
//! each valid one gets a board, the check marker from stage `checkers`), or when its values
//! are SVG documents (a `board_svg` result: drawn as they are). The pieces, squares and
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
        let options = FormatOptions::default().with_null("NULL");
        let mut cells: Vec<Vec<String>> = vec![Vec::with_capacity(shown); batch.num_columns()];
        for (c, column) in batch.columns().iter().enumerate() {
            let name = self.schema.field(c).name().as_str();
            let text = text_column(column.as_ref());
            let boards = match &text {
                Some(t) if FEN_COLUMNS.contains(&name) => Some(fen_boards(engine, t).await?),
                Some(t) if is_svg_column(t) => Some(
                    (0..t.len())
                        .map(|r| t.is_valid(r).then(|| without_defs(t.value(r))))
                        .collect(),
                ),
                _ => None,
            };
            let formatter = ArrayFormatter::try_new(column.as_ref(), &options)?;
            for r in 0..shown {
                let mut cell = String::new();
                if let Some(Some(svg)) = boards.as_ref().map(|b| &b[r]) {
                    let _ = write!(cell, r#"<div class="board">{svg}</div>"#);
                }
                // an SVG value is shown as its board only
                if boards.is_none() || FEN_COLUMNS.contains(&name) {
                    cell.push_str(&escape(&formatter.value(r).to_string()));
                }
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
    text-align:left;font-size:13px}.board{margin-bottom:2px}";

/// A string column's values (any string type), or `None` for another type.
fn text_column(column: &dyn Array) -> Option<StringArray> {
    match column.data_type() {
        DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8 => cast(column, &DataType::Utf8)
            .ok()
            .and_then(|a| a.as_any().downcast_ref::<StringArray>().cloned()),
        _ => None,
    }
}

/// Whether a string column holds SVG documents (its first non-NULL value is one).
fn is_svg_column(values: &StringArray) -> bool {
    values
        .iter()
        .flatten()
        .next()
        .is_some_and(|v| v.starts_with("<svg"))
}

/// A board drawn by `board_svg` without its own `<defs>` (the page has them).
fn without_defs(svg: &str) -> String {
    match (svg.find("<defs>"), svg.find("</defs>")) {
        (Some(from), Some(to)) if from < to => {
            format!("{}{}", &svg[..from], &svg[to + "</defs>".len()..])
        }
        _ => svg.to_string(),
    }
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
