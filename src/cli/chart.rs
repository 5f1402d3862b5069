//! `sqlchess chart FILE --game N --out OUT`: the chart of one game of a PGN file
//! ([`sqlchess::picture::game_chart`]): its evaluation and its clock, from the columns of
//! `read_plies` (`winning_chances`, `judgement`, `move_time_s`, `clock_s`) and the tags of
//! `read_pgn`, both run as SQL on a session of the command line's `--threads` and
//! `--memory-limit` ([`sqlchess::sql::context_with`]). The file is read whole (the rules
//! run on every game of it). The chart is written whole or not at all
//! ([`sqlchess::io::whole_file::write_whole`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use datafusion::arrow::array::{Array, Float64Array, RecordBatch};
use datafusion::arrow::datatypes::{Float64Type, Int64Type, UInt32Type};
use datafusion::prelude::SessionContext;
use sqlchess::chess::color::Color;
use sqlchess::picture::game_chart::{
    GameSeries, Judgement, PlyPoint, chart_title, game_chart_html, game_chart_svg,
};
use sqlchess::session::read;
use sqlchess::{Error, PipelineConfig, Result};

/// The arguments of `sqlchess chart`.
#[derive(clap::Args)]
pub struct Args {
    /// The PGN file (plain, or compressed: .zst, .gz, .bz2).
    file: PathBuf,
    /// The game: its 0-based index in the file (`read_pgn`'s `game_index`: 0 is the first
    /// game).
    #[arg(long, value_name = "N", default_value_t = 0)]
    game: u64,
    /// Where to write the chart: FILE.svg (the chart) or FILE.html (a page holding it).
    #[arg(long, value_name = "OUT")]
    out: PathBuf,
}

/// What `--out` asks for, by its extension.
#[derive(Clone, Copy)]
enum Kind {
    Svg,
    Html,
}

/// Runs `sqlchess chart`. Errors ([`Error::Usage`], [`Error::Io`]; exit status 2 from
/// `main`, no file written): an `--out` that is not `.svg` or `.html` (`.htm`) or whose
/// folder cannot be written, a FILE that does not exist or is not a file, a `--game` past
/// the file's last game, a game that stops before its first legal move (not PGN, a bad
/// `FEN` tag, an illegal first move); a query's failure. A game that stops later is charted
/// up to its error, which the chart and a warning on stderr name.
pub async fn run(args: Args, config: &PipelineConfig) -> Result<ExitCode> {
    let kind = match extension(&args.out).as_deref() {
        Some("svg") => Kind::Svg,
        Some("html" | "htm") => Kind::Html,
        _ => {
            return Err(Error::Usage(format!(
                "--out {}: a chart is written as .svg or .html (.htm)",
                args.out.display()
            )));
        }
    };
    let meta = std::fs::metadata(&args.file).map_err(|source| Error::Io {
        path: args.file.display().to_string(),
        source,
    })?;
    if !meta.is_file() {
        return Err(Error::Usage(format!(
            "FILE {}: not a file (a chart is of one game of one PGN file)",
            args.file.display()
        )));
    }
    let path = sql_path(&args.file)?;
    // a folder that cannot take --out fails now, not after the queries
    let (file, temp) = sqlchess::io::whole_file::temp_beside(&args.out)?;
    drop(file);
    temp.close().map_err(|source| Error::Io {
        path: args.out.display().to_string(),
        source,
    })?;
    let ctx = sqlchess::sql::context_with(config);
    let n = args.game;
    let tags = collect(
        &ctx,
        &format!(
            "SELECT white, black, event, date, plies, first_illegal_ply, error_kind, \
             error_message FROM read_pgn({path}) WHERE game_index = {n}"
        ),
    )
    .await?;
    let Some(batch) = tags.iter().find(|b| b.num_rows() > 0) else {
        return Err(not_found(&ctx, &path, &args.file, n).await?);
    };
    let tag = |name: &str| -> Result<Option<String>> {
        let column = read::strings(batch, name)?;
        Ok((!column.is_null(0)).then(|| column.value(0).to_string()))
    };
    let title = chart_title(
        tag("white")?.as_deref(),
        tag("black")?.as_deref(),
        tag("event")?.as_deref(),
        tag("date")?.as_deref(),
    );
    // a game read only up to an error: its legal plies are charted, the error said; one
    // that stops before its first move has nothing to chart
    let legal = read::primitive::<UInt32Type>(batch, "plies")?.value(0);
    let stop = match tag("error_kind")? {
        Some(kind) => {
            let ply = read::primitive::<UInt32Type>(batch, "first_illegal_ply")?;
            let at = if ply.is_null(0) { 0 } else { ply.value(0) };
            let message = tag("error_message")?.unwrap_or_default();
            if legal == 0 {
                return Err(Error::Usage(format!(
                    "--game {n}: game {n} of {} has no legal move to chart ({kind}: {message})",
                    args.file.display()
                )));
            }
            note!(
                "warning: game {n} stops at ply {at} ({kind}): the chart shows its {legal} legal plies"
            );
            Some(format!("the game stops at ply {at}: {kind}: {message}"))
        }
        None => None,
    };
    let rows = collect(
        &ctx,
        &format!(
            "SELECT ply, san, color, winning_chances, judgement, move_time_s, clock_s \
             FROM read_plies({path}) WHERE game_index = {n} ORDER BY ply"
        ),
    )
    .await?;
    let mut game = GameSeries {
        title,
        plies: vec![],
        stop,
    };
    for batch in &rows {
        game.plies.extend(plies(batch)?);
    }
    let text = match kind {
        Kind::Svg => game_chart_svg(&game),
        Kind::Html => game_chart_html(&game),
    };
    sqlchess::io::whole_file::write_whole(&args.out, text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The error of a `--game n` past the last game of `file` (SQL literal `path`): how many
/// games the file has. Errors: the count's query's.
async fn not_found(ctx: &SessionContext, path: &str, file: &Path, n: u64) -> Result<Error> {
    let counted = collect(
        ctx,
        &format!("SELECT count(*) AS games FROM read_pgn({path})"),
    )
    .await?;
    let games = match counted.iter().find(|b| b.num_rows() > 0) {
        Some(b) => read::primitive::<Int64Type>(b, "games")?.value(0),
        None => 0,
    };
    let range = match games {
        0 => String::new(),
        1 => " (0)".to_string(),
        g => format!(" (0–{})", g - 1),
    };
    let plural = if games == 1 { "" } else { "s" };
    Ok(Error::Usage(format!(
        "--game {n}: game {n} not found: {} has {games} game{plural}{range}",
        file.display()
    )))
}

/// The extension of `path`, lower case.
fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// `file` as a SQL string literal naming exactly that file for `read_pgn`: glob characters
/// escaped (`read_pgn` expands `*`, `?` and `[`), single quotes doubled.
///
/// Errors: [`Error::Usage`] for a path that is not UTF-8.
fn sql_path(file: &Path) -> Result<String> {
    let text = file.to_str().ok_or_else(|| {
        Error::Usage(format!(
            "FILE {}: the path is not UTF-8, which SQL cannot name",
            file.display()
        ))
    })?;
    let literal = if text.contains(['*', '?', '[']) {
        glob::Pattern::escape(text)
    } else {
        text.to_string()
    };
    Ok(format!("'{}'", literal.replace('\'', "''")))
}

/// The rows of query `q`.
async fn collect(ctx: &SessionContext, q: &str) -> Result<Vec<RecordBatch>> {
    Ok(ctx.sql(q).await?.collect().await?)
}

/// The plies of a batch of the plies query.
fn plies(batch: &RecordBatch) -> Result<Vec<PlyPoint>> {
    let ply = read::primitive::<UInt32Type>(batch, "ply")?;
    let san = read::strings(batch, "san")?;
    let color = read::strings(batch, "color")?;
    let chances = read::primitive::<Float64Type>(batch, "winning_chances")?;
    let judgement = read::strings(batch, "judgement")?;
    let move_time = read::primitive::<Float64Type>(batch, "move_time_s")?;
    let clock = read::primitive::<Float64Type>(batch, "clock_s")?;
    let float = |a: &Float64Array, i: usize| (!a.is_null(i)).then(|| a.value(i));
    Ok((0..batch.num_rows())
        .map(|i| PlyPoint {
            ply: ply.value(i),
            san: san.value(i).to_string(),
            color: if color.value(i) == "black" {
                Color::Black
            } else {
                Color::White
            },
            winning_chances: float(&chances, i),
            judgement: (!judgement.is_null(i))
                .then(|| Judgement::from_name(judgement.value(i)))
                .flatten(),
            move_time_s: float(&move_time, i),
            clock_s: float(&clock, i),
        })
        .collect())
}
