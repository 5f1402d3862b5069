//! `sqlchess sql`: SQL over PGN files (`read_pgn`) from the command line.
//!
//! Statements come from the QUERY argument, a file (`-f`), or standard input (with a
//! one-line hint on stderr when it is a terminal); several
//! statements separated by `;` run in order on one session ([`sqlchess::sql::context`], or
//! with `--cluster df://HOST:PORT` a client of a Ballista cluster, `sqlchess::cluster`), so
//! `CREATE VIEW` / `CREATE TABLE AS` are seen by the statements after them. In table format
//! the rows of every statement that returns columns are printed (arrow's pretty printer);
//! in the file formats (csv, json, parquet, arrow) the last statement's rows are written,
//! batch by batch; in html one page of them ([`sqlchess::picture::page`]); in pgn the games
//! of their `pgn` column ([`sqlchess::io::pgn_out`]). `COPY (query)
//! TO 'x.parquet'` is run by our Parquet writer (the one of
//! `validate`'s reports, zstd; on a cluster the rows come back and are written here); other
//! COPY targets by DataFusion.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{CopyToSource, DFParser, Statement};
use futures::StreamExt;
use sqlchess::io::pgn_out::{PgnWriter, pgn_column};
use sqlchess::io::report::{Format, ReportWriter};
use sqlchess::session::SessionError;
use sqlchess::{Error, PipelineConfig, Result};

/// Output formats of `sqlchess sql`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SqlFormat {
    /// A readable table (arrow's pretty printer).
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// JSON lines.
    Json,
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC file.
    Arrow,
    /// One self-contained HTML page: the query, the row count and the rows, with a board
    /// beside every FEN (columns fen, fen_before, fen_after, final_fen, start_fen) and
    /// every board_svg value; at most 10,000 rows shown.
    Html,
    /// PGN: the games of the result's `pgn` column (`read_pgn`'s), one after another with
    /// one blank line between two, as pgn-extract writes them; NULLs skipped.
    Pgn,
}

impl SqlFormat {
    fn report(self) -> Option<Format> {
        match self {
            SqlFormat::Table | SqlFormat::Html | SqlFormat::Pgn => None,
            SqlFormat::Csv => Some(Format::Csv),
            SqlFormat::Json => Some(Format::Json),
            SqlFormat::Parquet => Some(Format::Parquet),
            SqlFormat::Arrow => Some(Format::Arrow),
        }
    }
}

/// Runs `sqlchess sql` on a session of `config` ([`sqlchess::sql::context_with`]: its
/// `--threads` and `--memory-limit`). Errors: a statement that does not parse, plan or run
/// gives [`Error::DataFusion`] (exit status 2 from `main`), one that runs out of the memory
/// limit [`sqlchess::session::SessionError::MemoryLimit`]; no statement at all, or
/// `--memory-limit` with `--cluster` (the limit of a cluster is each executor's),
/// [`Error::Usage`]; output errors [`Error::Io`].
pub async fn run(
    query: Option<String>,
    file: Option<PathBuf>,
    format: Option<SqlFormat>,
    out: Option<PathBuf>,
    cluster: Option<String>,
    config: &PipelineConfig,
    given: crate::Given,
) -> Result<ExitCode> {
    let text = match (query, &file) {
        (Some(q), None) => q,
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e,
        })?,
        (None, None) => {
            if std::io::stdin().is_terminal() {
                // not silent while it waits for a query typed at the terminal
                note!(
                    "sqlchess sql: reading SQL from standard input (end with Ctrl-D); or give \
                     it as an argument: sqlchess sql \"SELECT …\", or -f FILE.sql"
                );
            }
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Error::Io {
                    path: "<stdin>".into(),
                    source: e,
                })?;
            s
        }
        (Some(_), Some(_)) => return Err(Error::Usage("give a QUERY or -f FILE, not both".into())),
    };
    let format = match (format, &out) {
        (Some(f), _) => f,
        (None, Some(p)) if is_html(p) => SqlFormat::Html,
        (None, Some(p)) if is_pgn(p) => SqlFormat::Pgn,
        (None, Some(p)) => match Format::from_path(p).map_err(|_| {
            Error::Usage(format!(
                "{}: unknown output format (use .csv, .json, .parquet, .arrow, .html or .pgn, \
                 or --format)",
                p.display()
            ))
        })? {
            Format::Csv => SqlFormat::Csv,
            Format::Json => SqlFormat::Json,
            Format::Parquet => SqlFormat::Parquet,
            Format::Arrow => SqlFormat::Arrow,
        },
        (None, None) => SqlFormat::Table,
    };
    let statements = DFParser::parse_sql(&text).map_err(Error::DataFusion)?;
    if statements.is_empty() {
        return Err(Error::Usage(
            "no SQL statement given: the query is empty (e.g. sqlchess sql \"SELECT count(*) \
             FROM read_pgn('games.pgn')\")"
                .into(),
        ));
    }
    if cluster.is_some() && given.memory_limit {
        return Err(Error::Usage(
            "--memory-limit applies to a query run here; on a cluster each executor has its \
             own: sqlchess cluster executor --memory-limit SIZE"
                .into(),
        ));
    }
    if cluster.is_some() && given.hash_joins {
        return Err(Error::Usage(
            "--hash-joins applies to a query run here; on a cluster the executors' engines \
             run the stages: sqlchess cluster executor --hash-joins"
                .into(),
        ));
    }
    let ctx = match cluster {
        // file paths as tables: SELECT … FROM 'games.parquet'
        None => sqlchess::sql::context_with(config).enable_url_table(),
        #[cfg(feature = "ballista")]
        Some(url) => sqlchess::cluster::connect(&url).await?,
        #[cfg(not(feature = "ballista"))]
        Some(_) => return Err(crate::cluster::without_ballista()),
    };
    if given.threads {
        // on a cluster: the partitions the scheduler plans the query with
        let state = ctx.state_ref();
        state
            .write()
            .config_mut()
            .options_mut()
            .execution
            .target_partitions = config.target_partitions.max(1);
    }
    let last = statements.len().saturating_sub(1);
    for (i, statement) in statements.into_iter().enumerate() {
        let ran = run_statement(&ctx, statement, format, &out, i == last, config).await;
        ran.map_err(|e| match e {
            Error::DataFusion(e) => query_error(config, e),
            other => other,
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs one statement; `last`: its rows are the output of the file formats.
async fn run_statement(
    ctx: &SessionContext,
    statement: Statement,
    format: SqlFormat,
    out: &Option<PathBuf>,
    last: bool,
    config: &PipelineConfig,
) -> Result<()> {
    if let Some(()) = copy_to_parquet(ctx, &statement).await? {
        return Ok(());
    }
    let text = statement.to_string();
    let plan = ctx.state().statement_to_plan(statement).await?;
    let df = ctx.execute_logical_plan(plan).await?;
    match format.report() {
        None if format == SqlFormat::Html && last => {
            write_page(df, &text, out, config).await?;
        }
        None if format == SqlFormat::Pgn && last => {
            write_pgn(df, out).await?;
        }
        None if matches!(format, SqlFormat::Html | SqlFormat::Pgn) => {
            df.collect().await?;
        }
        None => {
            let batches = df.collect().await?;
            if batches.first().is_some_and(|b| b.num_columns() > 0) {
                let table = pretty_format_batches(&batches)?;
                write_out(out, &format!("{table}\n"))?;
            }
        }
        Some(f) if last => {
            let schema = df.schema().inner().clone();
            let mut stream = df.execute_stream().await?;
            let mut w = match out {
                Some(path) => ReportWriter::create(path, f, schema)?,
                None => ReportWriter::new(Box::new(std::io::stdout()), crate::STDOUT, f, schema)?,
            };
            while let Some(b) = stream.next().await {
                w.write(&b?)?;
            }
            w.finish()?;
        }
        Some(_) => {
            df.collect().await?;
        }
    }
    Ok(())
}

/// Whether `path` names an HTML file (`.html`, `.htm`).
fn is_html(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
}

/// Whether `path` names a PGN file (`.pgn`).
fn is_pgn(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
}

/// `--format pgn`: the games of the result's `pgn` column, batch by batch as the query
/// produces them ([`PgnWriter`]), to `--out` (written whole: a temporary file renamed at
/// the end) or standard output. Errors: [`Error::Usage`] before the query runs when it has
/// no text column `pgn`; [`Error::Io`] naming the output.
async fn write_pgn(df: datafusion::prelude::DataFrame, out: &Option<PathBuf>) -> Result<()> {
    pgn_column(df.schema().inner(), "--format pgn")?;
    let mut stream = df.execute_stream().await?;
    match out {
        Some(path) => {
            let name = path.display().to_string();
            let (file, temp) = sqlchess::io::whole_file::temp_beside(path)?;
            let mut w = PgnWriter::new(std::io::BufWriter::new(file), &name);
            while let Some(b) = stream.next().await {
                w.write(&b?)?;
            }
            drop(w.finish()?);
            temp.persist(path).map_err(|e| Error::Io {
                path: name,
                source: e.error,
            })?;
        }
        None => {
            let mut w = PgnWriter::new(std::io::BufWriter::new(std::io::stdout()), crate::STDOUT);
            while let Some(b) = stream.next().await {
                w.write(&b?)?;
            }
            w.finish()?;
        }
    }
    Ok(())
}

/// `--format html`: the rows of `df` as one page ([`sqlchess::picture::page`]), written
/// whole to `--out` (or standard output); its boards' checks found by an engine of
/// `config` made here. The query runs for the rows shown; when there are more, once more
/// as `count(*)` for the count the page states.
async fn write_page(
    df: datafusion::prelude::DataFrame,
    query: &str,
    out: &Option<PathBuf>,
    config: &PipelineConfig,
) -> Result<()> {
    use sqlchess::picture::page::{DEFAULT_MAX_ROWS, ResultPage};
    let engine = sqlchess::Engine::new(config.clone()).await?;
    let mut page = ResultPage::new(query, df.schema().inner().clone(), DEFAULT_MAX_ROWS);
    // the rows shown, and the count of all rows only when there are more: `count(*)`
    // computes none of the columns (a board_svg of millions of rows is not drawn)
    let mut stream = df
        .clone()
        .limit(0, Some(DEFAULT_MAX_ROWS + 1))?
        .execute_stream()
        .await?;
    let mut shown = 0;
    while let Some(b) = stream.next().await {
        let b = b?;
        shown += b.num_rows();
        page.add(&engine, &b).await?;
    }
    if shown > DEFAULT_MAX_ROWS {
        page.set_total_rows(df.count().await? as u64);
    }
    let html = page.finish();
    match out {
        Some(path) => sqlchess::io::whole_file::write_whole(path, html.as_bytes()),
        None => write_out(out, &html),
    }
}

/// A query's error as the user should read it: the memory limit's error (of a chess engine
/// inside the scan or a function, or of the query's own operators:
/// [`sqlchess::session::memory::MemoryBudget::query_error`]) when the limit stopped it,
/// else DataFusion's.
fn query_error(config: &PipelineConfig, e: DataFusionError) -> Error {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(c) = cause {
        let session = c
            .downcast_ref::<SessionError>()
            .or(match c.downcast_ref::<Error>() {
                Some(Error::Session(s)) => Some(s),
                _ => None,
            });
        if let Some(SessionError::MemoryLimit { limit, what }) = session {
            return Error::Session(SessionError::MemoryLimit {
                limit: *limit,
                what: what.clone(),
            });
        }
        cause = c.source();
    }
    match config.memory.query_error("the query", e) {
        SessionError::DataFusion(e) => Error::DataFusion(e),
        limit => Error::Session(limit),
    }
}

/// Appends `text` to `--out` (or writes it on standard output).
fn write_out(out: &Option<PathBuf>, text: &str) -> Result<()> {
    let io = |p: &Path, e| Error::Io {
        path: p.display().to_string(),
        source: e,
    };
    match out {
        Some(p) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| io(p, e)),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| io(Path::new(crate::STDOUT), e)),
    }
}

/// `COPY (query) TO '….parquet'`: runs the query and writes it with our Parquet writer.
/// `None` for any other statement.
async fn copy_to_parquet(ctx: &SessionContext, statement: &Statement) -> Result<Option<()>> {
    let Statement::CopyTo(copy) = statement else {
        return Ok(None);
    };
    let is_parquet = copy
        .stored_as
        .as_deref()
        .map(|s| s.eq_ignore_ascii_case("parquet"))
        .unwrap_or_else(|| copy.target.to_ascii_lowercase().ends_with(".parquet"));
    if !is_parquet {
        return Ok(None);
    }
    let df = match &copy.source {
        CopyToSource::Relation(name) => ctx.table(name.to_string()).await?,
        CopyToSource::Query(q) => ctx.sql(&q.to_string()).await?,
    };
    let schema = df.schema().inner().clone();
    let mut stream = df.execute_stream().await?;
    let mut w = ReportWriter::create(Path::new(&copy.target), Format::Parquet, schema)?;
    while let Some(b) = stream.next().await {
        w.write(&b?)?;
    }
    w.finish()?;
    Ok(Some(()))
}
