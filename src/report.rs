//! Report tables: game reports as Arrow record batches, and writing any record batches as
//! CSV, JSON lines, Parquet or Arrow IPC (chosen by file extension or explicitly).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, StringArray, UInt32Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::validate::GameReport;

/// Output formats of report files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line.
    Csv,
    /// JSON lines: one object per row.
    Json,
    /// Apache Parquet (zstd-compressed).
    Parquet,
    /// Arrow IPC file.
    Arrow,
}

impl Format {
    /// The format named by a file extension (`.csv`, `.json`/`.jsonl`/`.ndjson`, `.parquet`,
    /// `.arrow`/`.ipc`/`.feather`). Errors: [`Error::Usage`] for anything else.
    pub fn from_path(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("csv") => Ok(Format::Csv),
            Some("json" | "jsonl" | "ndjson") => Ok(Format::Json),
            Some("parquet") => Ok(Format::Parquet),
            Some("arrow" | "ipc" | "feather") => Ok(Format::Arrow),
            _ => Err(Error::Usage(format!(
                "{}: unknown report format (use .csv, .json, .parquet or .arrow, or --format)",
                path.display()
            ))),
        }
    }
}

/// Schema of the game report: see [`GameReport`] for the columns.
pub fn report_schema() -> SchemaRef {
    use DataType::*;
    let f = |n: &str, t: DataType, null: bool| Field::new(n, t, null);
    Arc::new(Schema::new(vec![
        f("file", Utf8, false),
        f("game_index", UInt64, false),
        f("plies", UInt32, false),
        f("first_illegal_ply", UInt32, true),
        f("error_kind", Utf8, true),
        f("error_message", Utf8, true),
        f("final_fen", Utf8, true),
        f("final_status", Utf8, true),
        f("white", Utf8, false),
        f("black", Utf8, false),
        f("event", Utf8, false),
        f("date", Utf8, false),
        f("result", Utf8, false),
        f("start_fen", Utf8, true),
        f("result_consistent", Boolean, false),
    ]))
}

/// The reports as one record batch of [`report_schema`].
pub fn reports_to_batch(reports: &[GameReport]) -> Result<RecordBatch> {
    let s = |g: fn(&GameReport) -> &str| Arc::new(StringArray::from_iter_values(reports.iter().map(g))) as ArrayRef;
    let o = |g: fn(&GameReport) -> Option<&str>| Arc::new(reports.iter().map(g).collect::<StringArray>()) as ArrayRef;
    Ok(RecordBatch::try_new(
        report_schema(),
        vec![
            s(|r| &r.file),
            Arc::new(UInt64Array::from_iter_values(reports.iter().map(|r| r.game_index))),
            Arc::new(UInt32Array::from_iter_values(reports.iter().map(|r| r.plies))),
            Arc::new(reports.iter().map(|r| r.first_illegal_ply).collect::<UInt32Array>()),
            o(|r| r.error_kind.as_deref()),
            o(|r| r.error_message.as_deref()),
            o(|r| r.final_fen.as_deref()),
            o(|r| r.final_status.as_deref()),
            s(|r| &r.white),
            s(|r| &r.black),
            s(|r| &r.event),
            s(|r| &r.date),
            s(|r| &r.result),
            o(|r| r.start_fen.as_deref()),
            Arc::new(reports.iter().map(|r| Some(r.result_consistent)).collect::<BooleanArray>()),
        ],
    )?)
}

/// Writes batches (all of one schema) to `path` in `format`.
///
/// Errors: [`Error::Io`] naming the path, [`Error::Arrow`] / [`Error::Parquet`] from the
/// writers.
pub fn write_batches(path: &Path, format: Format, schema: SchemaRef, batches: &[RecordBatch]) -> Result<()> {
    let io = |e: std::io::Error| Error::Io { path: path.display().to_string(), source: e };
    let file = BufWriter::new(File::create(path).map_err(io)?);
    match format {
        Format::Csv => {
            let mut w = datafusion::arrow::csv::WriterBuilder::new().with_header(true).build(file);
            for b in batches {
                w.write(b)?;
            }
        }
        Format::Json => {
            let mut w = datafusion::arrow::json::LineDelimitedWriter::new(file);
            for b in batches {
                w.write(b)?;
            }
            w.finish()?;
        }
        Format::Parquet => {
            let props = parquet::file::properties::WriterProperties::builder()
                .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                .build();
            let mut w = parquet::arrow::ArrowWriter::try_new(file, schema, Some(props))?;
            for b in batches {
                w.write(b)?;
            }
            w.close()?;
        }
        Format::Arrow => {
            let mut w = datafusion::arrow::ipc::writer::FileWriter::try_new(file, &schema)?;
            for b in batches {
                w.write(b)?;
            }
            w.finish()?;
        }
    }
    Ok(())
}
