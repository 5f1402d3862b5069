//! Report tables: game reports as Arrow record batches, and writing any record batches as
//! CSV, JSON lines, Parquet or Arrow IPC (chosen by file extension or explicitly), at once
//! ([`write_batches`]) or batch by batch as they are produced ([`ReportWriter`]).
//!
//! A report file is written under a temporary name in its folder (`.NAME.XXXXXX.tmp`) and
//! renamed to its name only by [`ReportWriter::finish`]: a run that fails or is killed never
//! leaves a file under the report's name that looks complete (an older file of that name
//! stays as it was until the new one replaces it in one rename). An interrupted run keeps
//! what it wrote under `NAME.partial` ([`ReportWriter::finish_partial`]).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;

use crate::chess::outcome::FinalStatus;
use crate::error::{Error, Result};
use crate::validate::{ErrorKind, GameReport, PlyRow};
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Output formats of report files, named `csv`, `json`, `parquet`, `arrow`
/// ([`Format::as_str`], `Display`; `FromStr` reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase")]
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
    /// The name: `csv`, `json`, `parquet` or `arrow`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The format named by a file extension (`.csv`, `.json`/`.jsonl`/`.ndjson`, `.parquet`,
    /// `.arrow`/`.ipc`/`.feather`). Errors: [`Error::Usage`] for anything else.
    pub fn from_path(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
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
    let s = |g: fn(&GameReport) -> &str| {
        Arc::new(StringArray::from_iter_values(reports.iter().map(g))) as ArrayRef
    };
    let o = |g: fn(&GameReport) -> Option<&str>| {
        Arc::new(reports.iter().map(g).collect::<StringArray>()) as ArrayRef
    };
    Ok(RecordBatch::try_new(
        report_schema(),
        vec![
            s(|r| &r.file),
            Arc::new(UInt64Array::from_iter_values(
                reports.iter().map(|r| r.game_index),
            )),
            Arc::new(UInt32Array::from_iter_values(
                reports.iter().map(|r| r.plies),
            )),
            Arc::new(
                reports
                    .iter()
                    .map(|r| r.first_illegal_ply)
                    .collect::<UInt32Array>(),
            ),
            o(|r| r.error_kind.map(ErrorKind::as_str)),
            o(|r| r.error_message.as_deref()),
            o(|r| r.final_fen.as_deref()),
            o(|r| r.final_status.map(FinalStatus::as_str)),
            s(|r| &r.white),
            s(|r| &r.black),
            s(|r| &r.event),
            s(|r| &r.date),
            s(|r| &r.result),
            o(|r| r.start_fen.as_deref()),
            Arc::new(
                reports
                    .iter()
                    .map(|r| Some(r.result_consistent))
                    .collect::<BooleanArray>(),
            ),
        ],
    )?)
}

/// Schema of the per-ply table (`validate --plies`): see [`PlyRow`] for the columns. Its
/// columns are the one definition of theirs: `read_plies` (`sqlchess::sql`) has them all,
/// in this order, with columns of its own between them.
pub fn plies_schema() -> SchemaRef {
    use DataType::*;
    let f = |n: &str, t: DataType, null: bool| Field::new(n, t, null);
    Arc::new(Schema::new(vec![
        f("game_index", UInt64, false),
        f("ply", UInt32, false),
        f("color", Utf8, false),
        f("move_number", UInt32, false),
        f("fen_before", Utf8, false),
        f("uci", Utf8, false),
        f("san", Utf8, false),
        f("promotion", Utf8, true),
        f("is_capture", Boolean, false),
        f("is_check", Boolean, false),
        f("is_castling", Boolean, false),
        f("is_en_passant", Boolean, false),
    ]))
}

/// The ply rows as one record batch of [`plies_schema`].
pub fn plies_to_batch<'a>(rows: impl IntoIterator<Item = &'a PlyRow>) -> Result<RecordBatch> {
    let rows: Vec<&PlyRow> = rows.into_iter().collect();
    let s = |g: fn(&PlyRow) -> &str| {
        Arc::new(StringArray::from_iter_values(rows.iter().copied().map(g))) as ArrayRef
    };
    let b = |g: fn(&PlyRow) -> bool| {
        Arc::new(
            rows.iter()
                .copied()
                .map(|r| Some(g(r)))
                .collect::<BooleanArray>(),
        ) as ArrayRef
    };
    Ok(RecordBatch::try_new(
        plies_schema(),
        vec![
            Arc::new(UInt64Array::from_iter_values(
                rows.iter().copied().map(|r| r.game_index),
            )),
            Arc::new(UInt32Array::from_iter_values(
                rows.iter().copied().map(|r| r.ply),
            )),
            s(|r| r.color().name()),
            Arc::new(UInt32Array::from_iter_values(
                rows.iter().copied().map(PlyRow::move_number),
            )),
            Arc::new(StringArray::from_iter_values(
                rows.iter().copied().map(PlyRow::fen_before),
            )),
            s(|r| &r.uci),
            s(|r| &r.san),
            Arc::new(
                rows.iter()
                    .copied()
                    .map(|r| r.promotion.as_deref())
                    .collect::<StringArray>(),
            ),
            b(|r| r.is_capture),
            b(|r| r.is_check),
            b(|r| r.is_castling),
            b(|r| r.is_en_passant),
        ],
    )?)
}

/// Writes batches (all of one schema) to `path` in `format` (a [`ReportWriter`] created,
/// fed and finished).
///
/// Errors: [`Error::Io`] naming the path, [`Error::Arrow`] / [`Error::Parquet`] from the
/// writers.
pub fn write_batches(
    path: &Path,
    format: Format,
    schema: SchemaRef,
    batches: &[RecordBatch],
) -> Result<()> {
    let mut w = ReportWriter::create(path, format, schema)?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()
}

/// Rows per Parquet row group: bounds the memory the Parquet writer buffers.
const PARQUET_ROW_GROUP: usize = 128 * 1024;

type Sink = BufWriter<Recording>;

/// The byte sink of a report, which keeps the kind of its first write error: the CSV writer
/// hands I/O errors on as text only (`ArrowError::CsvError`), and a closed pipe
/// (`sqlchess validate … | head`) must stay an [`Error::Io`] of kind `BrokenPipe`.
struct Recording {
    inner: Box<dyn Write + Send>,
    failed: Arc<OnceLock<std::io::ErrorKind>>,
}

impl Write for Recording {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            let _ = self.failed.set(e.kind());
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|e| {
            let _ = self.failed.set(e.kind());
        })
    }
}

/// A writer's error: the sink's own I/O error when it had one ([`Recording`]), else as
/// [`arrow_error`] makes it.
fn sink_error(name: &str, failed: &OnceLock<std::io::ErrorKind>, e: ArrowError) -> Error {
    match failed.get() {
        Some(&kind) => Error::Io {
            path: name.to_string(),
            source: std::io::Error::new(kind, e.to_string()),
        },
        None => arrow_error(name, e),
    }
}

enum Inner {
    Csv(datafusion::arrow::csv::Writer<Sink>),
    Json(datafusion::arrow::json::LineDelimitedWriter<Sink>),
    Parquet(Box<parquet::arrow::ArrowWriter<Sink>>),
    Arrow(datafusion::arrow::ipc::writer::FileWriter<Sink>),
}

/// An open report file: record batches are written as they come (streaming), so memory does
/// not grow with the number of rows. CSV has a header line (also when no row is written)
/// and writes list, map and struct columns as JSON text (`["e4","e5"]`),
/// JSON lines write nulls explicitly (every row has every column), Parquet is
/// zstd-compressed in row groups of at most 131,072 rows, Arrow is an IPC file.
///
/// Call [`ReportWriter::finish`] at the end: it writes the format's footer, flushes and (for
/// a file) renames the temporary file to the report's name; a writer dropped without it
/// deletes its temporary file.
pub struct ReportWriter {
    inner: Inner,
    schema: SchemaRef,
    name: String,
    rows: u64,
    /// The sink's first write error ([`Recording`]).
    failed: Arc<OnceLock<std::io::ErrorKind>>,
    /// For a file: the temporary file being written (deleted on drop) and the report's path.
    target: Option<(tempfile::TempPath, PathBuf)>,
}

impl ReportWriter {
    /// Opens a writer of `format` for the file `path`: it writes a temporary file in the
    /// same folder, which [`ReportWriter::finish`] renames to `path` (replacing a file of
    /// that name).
    ///
    /// Errors: [`Error::Io`] naming the path (e.g. its folder does not exist or is not
    /// writable), [`Error::Arrow`] / [`Error::Parquet`] from the writers.
    pub fn create(path: &Path, format: Format, schema: SchemaRef) -> Result<ReportWriter> {
        let name = path.display().to_string();
        let (file, temp_path) = super::whole_file::temp_beside(path)?;
        let mut w = ReportWriter::new(Box::new(file), &name, format, schema)?;
        w.target = Some((temp_path, path.to_path_buf()));
        Ok(w)
    }

    /// Opens a writer of `format` on any byte sink (e.g. standard output); `name` names it
    /// in errors.
    ///
    /// Errors: [`Error::Arrow`] / [`Error::Parquet`] from the writers.
    pub fn new(
        sink: Box<dyn Write + Send>,
        name: &str,
        format: Format,
        schema: SchemaRef,
    ) -> Result<ReportWriter> {
        let failed = Arc::new(OnceLock::new());
        let sink = BufWriter::with_capacity(
            256 * 1024,
            Recording {
                inner: sink,
                failed: failed.clone(),
            },
        );
        let name = name.to_string();
        let inner = match format {
            Format::Csv => Inner::Csv(
                datafusion::arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(sink),
            ),
            Format::Json => Inner::Json(
                datafusion::arrow::json::WriterBuilder::new()
                    .with_explicit_nulls(true)
                    .build::<_, datafusion::arrow::json::writer::LineDelimited>(sink),
            ),
            Format::Parquet => {
                let props = parquet::file::properties::WriterProperties::builder()
                    .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                    .set_max_row_group_row_count(Some(PARQUET_ROW_GROUP))
                    .build();
                let w = parquet::arrow::ArrowWriter::try_new(sink, schema.clone(), Some(props))
                    .map_err(|e| parquet_error(&name, e))?;
                Inner::Parquet(Box::new(w))
            }
            Format::Arrow => Inner::Arrow(
                datafusion::arrow::ipc::writer::FileWriter::try_new(sink, &schema)
                    .map_err(|e| arrow_error(&name, e))?,
            ),
        };
        Ok(ReportWriter {
            inner,
            schema,
            name,
            rows: 0,
            failed,
            target: None,
        })
    }

    /// Writes one batch of the writer's columns, in order. A query's batches may name or
    /// type a column otherwise than its schema does (DataFusion passes a `UNION ALL`
    /// branch's batches through with that branch's own names and types): each column is
    /// written under the writer's name, cast to the writer's type.
    ///
    /// Errors: [`Error::Io`] naming the file when writing fails, [`Error::Schema`] for a batch
    /// with another number of columns or a column that does not cast to the writer's type
    /// (naming it and both types), [`Error::Arrow`] / [`Error::Parquet`] from the writers.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let conformed = self.conform(batch)?;
        let batch = &conformed;
        let (name, failed) = (&self.name, &self.failed);
        let written = |e| sink_error(name, failed, e);
        match &mut self.inner {
            Inner::Csv(w) => w
                .write(&csv_cells(batch).map_err(|e| arrow_error(name, e))?)
                .map_err(written)?,
            Inner::Json(w) => w.write(batch).map_err(written)?,
            Inner::Parquet(w) => w.write(batch).map_err(|e| parquet_error(name, e))?,
            Inner::Arrow(w) => w.write(batch).map_err(written)?,
        }
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// `batch` under the writer's schema: its columns in order, each cast to the writer's
    /// type where it differs. Errors: [`Error::Schema`] as [`ReportWriter::write`].
    fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let fields = self.schema.fields();
        let theirs = batch.schema();
        if theirs.fields().len() == fields.len()
            && theirs
                .fields()
                .iter()
                .zip(fields.iter())
                .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type())
        {
            return Ok(batch.clone());
        }
        if batch.num_columns() != fields.len() {
            return Err(Error::Schema(format!(
                "{}: a batch of {} columns for a report of {}",
                self.name,
                batch.num_columns(),
                fields.len()
            )));
        }
        let columns = batch
            .columns()
            .iter()
            .zip(fields.iter())
            .map(|(column, field)| {
                if column.data_type() == field.data_type() {
                    return Ok(column.clone());
                }
                datafusion::arrow::compute::cast(column, field.data_type()).map_err(|e| {
                    Error::Schema(format!(
                        "{}: column {} is {} in a batch, {} in the report: {e}",
                        self.name,
                        field.name(),
                        column.data_type(),
                        field.data_type()
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let options = datafusion::arrow::array::RecordBatchOptions::new()
            .with_row_count(Some(batch.num_rows()));
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
            .map_err(|e| Error::Schema(format!("{}: {e}", self.name)))
    }

    /// Rows written so far.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer (Parquet, Arrow), the CSV header if no row was written, flushes,
    /// and renames the temporary file to the report's path.
    ///
    /// Errors: as [`ReportWriter::write`]; [`Error::Io`] naming the path when the rename
    /// fails (the temporary file is deleted then).
    pub fn finish(self) -> Result<()> {
        self.finish_as(|path| path.to_path_buf()).map(|_| ())
    }

    /// For a run that stops early (interrupted): completes the file as
    /// [`ReportWriter::finish`] does, with the rows written so far, but under the name
    /// `NAME.partial` instead of the report's name. Returns that path (`None` for a writer
    /// on standard output, which is only flushed).
    ///
    /// Errors: as [`ReportWriter::finish`].
    pub fn finish_partial(self) -> Result<Option<PathBuf>> {
        self.finish_as(|path| {
            let mut name = path.as_os_str().to_owned();
            name.push(".partial");
            PathBuf::from(name)
        })
    }

    /// Completes the format and renames the temporary file to `to(report path)`.
    fn finish_as(self, to: impl Fn(&Path) -> PathBuf) -> Result<Option<PathBuf>> {
        let ReportWriter {
            inner,
            schema,
            name,
            rows,
            failed,
            target,
        } = self;
        complete(inner, &schema, &name, rows).map_err(|e| match (e, failed.get()) {
            (Error::Arrow(e), Some(_)) => sink_error(&name, &failed, e),
            (e, _) => e,
        })?;
        let Some((temp, path)) = target else {
            return Ok(None);
        };
        let dest = to(&path);
        temp.persist(&dest).map_err(|e| Error::Io {
            path: dest.display().to_string(),
            source: e.error,
        })?;
        Ok(Some(dest))
    }
}

/// Writes the footer (Parquet, Arrow), the CSV header if no row was written, and flushes.
fn complete(inner: Inner, schema: &SchemaRef, name: &str, rows: u64) -> Result<()> {
    let io = |e: std::io::Error| Error::Io {
        path: name.to_string(),
        source: e,
    };
    let mut sink = match inner {
        Inner::Csv(mut w) => {
            if rows == 0 {
                // the header only: the writer writes it with the first batch
                let empty = csv_cells(&RecordBatch::new_empty(schema.clone()))
                    .map_err(|e| arrow_error(name, e))?;
                w.write(&empty).map_err(|e| arrow_error(name, e))?;
            }
            w.into_inner()
        }
        Inner::Json(mut w) => {
            w.finish().map_err(|e| arrow_error(name, e))?;
            w.into_inner()
        }
        Inner::Parquet(w) => (*w).into_inner().map_err(|e| parquet_error(name, e))?,
        Inner::Arrow(w) => w.into_inner().map_err(|e| arrow_error(name, e))?,
    };
    sink.flush().map_err(io)
}

/// Arrow errors of a writer, I/O failures as [`Error::Io`] naming the file.
/// Whether CSV cannot hold a value of type `t` as it is: lists, maps, structs, unions.
fn is_nested(t: &DataType) -> bool {
    matches!(
        t,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(..)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::Map(..)
            | DataType::Struct(_)
            | DataType::Union(..)
    )
}

/// `batch` with each nested column (lists, maps, structs: what CSV has no cell for) as a
/// Utf8 column of the values in JSON (`["e4","e5"]`, `{"Event":"x"}`; arrow's JSON
/// writer, nulls inside kept), a NULL value staying NULL (an empty cell).
fn csv_cells(batch: &RecordBatch) -> std::result::Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    if !schema.fields().iter().any(|f| is_nested(f.data_type())) {
        return Ok(batch.clone());
    }
    let options =
        datafusion::arrow::json::writer::EncoderOptions::default().with_explicit_nulls(true);
    let mut fields = vec![];
    let mut columns = vec![];
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        if !is_nested(field.data_type()) {
            fields.push(field.clone());
            columns.push(column.clone());
            continue;
        }
        let mut encoder =
            datafusion::arrow::json::writer::make_encoder(field, column.as_ref(), &options)
                .map_err(|e| {
                    ArrowError::InvalidArgumentError(format!("CSV: column {}: {e}", field.name()))
                })?;
        let mut text = datafusion::arrow::array::StringBuilder::new();
        let mut buf = Vec::new();
        for i in 0..column.len() {
            if column.is_null(i) {
                text.append_null();
                continue;
            }
            buf.clear();
            encoder.encode(i, &mut buf);
            text.append_value(String::from_utf8_lossy(&buf));
        }
        fields.push(Arc::new(Field::new(field.name(), DataType::Utf8, true)));
        columns.push(Arc::new(text.finish()) as ArrayRef);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

fn arrow_error(name: &str, e: ArrowError) -> Error {
    match e {
        ArrowError::IoError(_, source) => Error::Io {
            path: name.to_string(),
            source,
        },
        e => Error::Arrow(e),
    }
}

/// Parquet errors of a writer, I/O failures as [`Error::Io`] naming the file.
fn parquet_error(name: &str, e: parquet::errors::ParquetError) -> Error {
    match e {
        parquet::errors::ParquetError::External(b) => match b.downcast::<std::io::Error>() {
            Ok(source) => Error::Io {
                path: name.to_string(),
                source: *source,
            },
            Err(b) => Error::Parquet(parquet::errors::ParquetError::External(b)),
        },
        e => Error::Parquet(e),
    }
}
