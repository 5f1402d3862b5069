//! The SQL surface pinned in files: every `tests/sql/*.slt` run by the `sqllogictest` crate
//! (the runner DataFusion pins its own SQL with), one test per file, each over a fresh
//! session of [`sqlchess::sql::context`].
//!
//! The files are sqllogictest scripts (`statement ok`, `query <types>`, `query error
//! <regex>`, `statement error <regex>`): column types are checked (`B` boolean, `I`
//! integer, `R` float, `T` text, `D` date or time, `P` timestamp, `?` anything else), and
//! cells are written as datafusion-sqllogictest writes them: NULL as `NULL`, an empty string
//! as `(empty)`, booleans `true`/`false`, everything else (floats, lists, maps, structs) as
//! DataFusion prints it; a newline inside a cell as `\n`. Rows compare as whole lines
//! (trailing spaces ignored), so spaces inside a cell count.
//!
//! Relative paths in the files resolve from the crate root (`tests/data/…`,
//! `data/sample.pgn`). Files that need inputs which cannot be committed as they are
//! (compressed copies of fixtures, a directory without PGN files; see [`fixtures`]) say
//! `control substitution on` and name them as `${FIXTURES}/…`.
//!
//! `SQLCHESS_BLESS=1 cargo test --release --test sql_files [name]` rewrites the expected
//! rows and errors of the files (sqllogictest's `update_test_file`) instead of checking
//! them: read the diff before committing it, and carry over only what you checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Fields};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;
use sqllogictest::harness::{Arguments, Failed, Trial, run};
use sqllogictest::{ColumnType, DBOutput, Normalizer};

/// The column types of a `query` record (the letters after `query`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum SqlType {
    Boolean,
    Integer,
    Float,
    Text,
    DateTime,
    Timestamp,
    Other,
}

impl ColumnType for SqlType {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            'B' => Self::Boolean,
            'I' => Self::Integer,
            'R' => Self::Float,
            'T' => Self::Text,
            'D' => Self::DateTime,
            'P' => Self::Timestamp,
            _ => Self::Other,
        })
    }

    fn to_char(&self) -> char {
        match self {
            Self::Boolean => 'B',
            Self::Integer => 'I',
            Self::Float => 'R',
            Self::Text => 'T',
            Self::DateTime => 'D',
            Self::Timestamp => 'P',
            Self::Other => '?',
        }
    }
}

fn sql_type(t: &DataType) -> SqlType {
    match t {
        DataType::Boolean => SqlType::Boolean,
        t if t.is_integer() => SqlType::Integer,
        t if t.is_floating()
            || matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) =>
        {
            SqlType::Float
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => SqlType::Text,
        DataType::Dictionary(_, v) if sql_type(v) == SqlType::Text => SqlType::Text,
        DataType::Date32 | DataType::Date64 | DataType::Time32(_) | DataType::Time64(_) => {
            SqlType::DateTime
        }
        DataType::Timestamp(..) => SqlType::Timestamp,
        _ => SqlType::Other,
    }
}

/// One cell as the files write it.
fn cell(col: &ArrayRef, row: usize, format: &ArrayFormatter) -> String {
    if col.is_null(row) {
        return "NULL".into();
    }
    let text = match col.data_type() {
        DataType::Boolean => col.as_boolean().value(row).to_string(),
        _ => format.value(row).to_string(),
    };
    let text = match col.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View if text.is_empty() => {
            "(empty)".into()
        }
        _ => text,
    };
    text.replace('\n', "\\n")
}

fn rows(fields: &Fields, batches: &[RecordBatch]) -> Result<Vec<Vec<String>>, DataFusionError> {
    let options = FormatOptions::default().with_null("NULL");
    let mut out = vec![];
    for b in batches {
        let formats = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()?;
        debug_assert_eq!(b.num_columns(), fields.len());
        for i in 0..b.num_rows() {
            out.push(
                b.columns()
                    .iter()
                    .zip(&formats)
                    .map(|(c, f)| cell(c, i, f))
                    .collect(),
            );
        }
    }
    Ok(out)
}

/// A session of [`sqlchess::sql::context`] as sqllogictest's database.
struct Chess {
    ctx: SessionContext,
}

#[async_trait]
impl sqllogictest::AsyncDB for Chess {
    type Error = DataFusionError;
    type ColumnType = SqlType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<SqlType>, DataFusionError> {
        let df = self.ctx.sql(sql).await?;
        let schema = Arc::new(df.schema().as_arrow().clone());
        let batches = df.collect().await?;
        let types: Vec<SqlType> = schema
            .fields()
            .iter()
            .map(|f| sql_type(f.data_type()))
            .collect();
        let rows = rows(schema.fields(), &batches)?;
        if rows.is_empty() && types.is_empty() {
            Ok(DBOutput::StatementComplete(0))
        } else {
            Ok(DBOutput::Rows { types, rows })
        }
    }

    async fn shutdown(&mut self) {}

    fn engine_name(&self) -> &str {
        "sqlchess"
    }

    async fn sleep(dur: std::time::Duration) {
        tokio::time::sleep(dur).await;
    }
}

/// datafusion-sqllogictest's normalizer: trailing spaces do not count.
#[allow(clippy::ptr_arg)]
fn normalizer(s: &String) -> String {
    s.trim_end().to_string()
}

/// datafusion-sqllogictest's validator: a row is its cells joined by one space, compared
/// whole (spaces inside a cell count).
fn validator(normalizer: Normalizer, actual: &[Vec<String>], expected: &[String]) -> bool {
    let expected: Vec<String> = expected.iter().map(normalizer).collect();
    let actual: Vec<String> = actual
        .iter()
        .map(|r| r.join(" ").trim_end().to_string())
        .collect();
    actual == expected
}

/// Inputs made at each run under a temporary directory, `${FIXTURES}` in the files:
/// - `files/`: `a.pgn` and `sub/b.pgn` (copies of `tests/data/pgn/sample.pgn`), `c.pgn.zst`
///   (its zstd copy), `notes.txt` (not PGN);
/// - `sniff/`: `sample.pgn` compressed as `gzip.pgn`, `zstd.pgn`, `bzip2.pgn`, and the plain
///   text as `plain.pgn.gz` (names that lie about what the bytes are);
/// - `xz/games.pgn`: the first bytes of an xz file;
/// - `plies/`: `a.pgn` (a copy of `tests/data/pgn/queries.pgn`) and `b.pgn.zst` (its zstd copy);
/// - `empty/`: a directory without files.
fn fixtures(root: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let sample = std::fs::read("tests/data/pgn/sample.pgn")?;
    let queries = std::fs::read("tests/data/pgn/queries.pgn")?;
    let zstd = |b: &[u8]| zstd::encode_all(b, 3);
    for d in ["files/sub", "sniff", "xz", "plies", "empty"] {
        std::fs::create_dir_all(root.join(d))?;
    }
    std::fs::write(root.join("files/a.pgn"), &sample)?;
    std::fs::write(root.join("files/sub/b.pgn"), &sample)?;
    std::fs::write(root.join("files/c.pgn.zst"), zstd(&sample)?)?;
    std::fs::write(root.join("files/notes.txt"), "not pgn")?;
    let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
    gz.write_all(&sample)?;
    std::fs::write(root.join("sniff/gzip.pgn"), gz.finish()?)?;
    std::fs::write(root.join("sniff/zstd.pgn"), zstd(&sample)?)?;
    let mut bz = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
    bz.write_all(&sample)?;
    std::fs::write(root.join("sniff/bzip2.pgn"), bz.finish()?)?;
    std::fs::write(root.join("sniff/plain.pgn.gz"), &sample)?;
    std::fs::write(
        root.join("xz/games.pgn"),
        b"\xfd7zXZ\0\0\x04\xe6\xd6\xb4F\x02\0!\x01",
    )?;
    std::fs::write(root.join("plies/a.pgn"), &queries)?;
    std::fs::write(root.join("plies/b.pgn.zst"), zstd(&queries)?)?;
    Ok(())
}

/// Runs (or, under `SQLCHESS_BLESS=1`, rewrites) one file.
fn run_file(path: &Path, fixtures: &Path, bless: bool) -> Result<(), Failed> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let mut runner = sqllogictest::Runner::new(|| async {
            Ok(Chess {
                ctx: sqlchess::sql::context(),
            })
        });
        runner.set_var("FIXTURES".into(), fixtures.display().to_string());
        runner.with_column_validator(sqllogictest::strict_column_validator);
        runner.with_normalizer(normalizer);
        runner.with_validator(validator);
        if bless {
            runner
                .update_test_file(
                    path,
                    " ",
                    validator,
                    normalizer,
                    sqllogictest::strict_column_validator,
                )
                .await
                .map_err(|e| Failed::from(e.to_string()))
        } else {
            runner
                .run_file_async(path)
                .await
                .map_err(|e| Failed::from(e.display(false).to_string()))
        }
    })
}

fn main() {
    let args = Arguments::from_args();
    // the files' relative paths are the crate root's (cargo runs tests there too)
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("crate root");
    let bless = std::env::var("SQLCHESS_BLESS").is_ok_and(|v| v == "1");
    let dir = tempfile::Builder::new()
        .prefix("sqlchess-slt-")
        .tempdir()
        .expect("temp dir");
    fixtures(dir.path()).expect("fixtures");
    let root: Arc<PathBuf> = Arc::new(dir.path().to_path_buf());
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/sql")
        .expect("tests/sql")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "slt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tests/sql/*.slt");
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("file name")
                .to_string();
            let root = root.clone();
            Trial::test(name, move || run_file(&path, &root, bless))
        })
        .collect();
    let conclusion = run(&args, trials);
    drop(dir);
    conclusion.exit();
}
