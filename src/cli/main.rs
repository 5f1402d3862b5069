//! The `sqlchess` command line: validate PGN games, list legal moves, count perft, profile
//! and explain the pipeline's stages. This file parses the arguments and dispatches; each
//! command lives in its own module, with its printing and exit status.

/// Name of standard output in errors.
const STDOUT: &str = "<stdout>";

/// `print!` that returns an error instead of panicking: standard output closed early (e.g.
/// `sqlchess moves FEN | head -1`, a broken pipe) is `Error::Io` on [`STDOUT`], exit 2, as
/// `validate` and `sql` report it.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*).map_err(|source| sqlchess::Error::Io {
            path: crate::STDOUT.into(),
            source,
        })
    }};
}

/// `eprintln!` that never panics: a message to a closed standard error (`sqlchess … 2>&1 |
/// head -1`) is dropped, as command-line tools do, instead of ending the process.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod board;
mod chart;
mod cluster;
mod explore;
mod interrupt;
mod moves;
mod perft;
mod profile;
mod sql;
mod validate;

/// mimalloc as the allocator of the command line (measured in BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use sqlchess::{Engine, Error, PipelineConfig, Result, Setup};

/// A chess rules engine that runs as DataFusion query plans.
#[derive(Parser)]
#[command(name = "sqlchess", version, about)]
struct Cli {
    /// Cores to use (default: all): DataFusion target partitions; `validate` runs this many
    /// pipelines of one partition each side by side instead, on shares of each batch. At most
    /// 256: each one plans its own operators and holds its own buffers.
    #[arg(long, global = true, value_parser = clap::value_parser!(u64).range(0..=MAX_THREADS))]
    threads: Option<u64>,
    /// Memory limit of the run, for all --threads together (e.g. 2GiB, 512MiB; at least
    /// 32MiB, and 24MiB per pipeline that runs side by side; default: half the physical
    /// memory). Each pipeline that runs side by side gets an equal share, reserved up front;
    /// operators spill to disk first (perft its large levels too); a run that cannot stay
    /// within it stops with an error naming the limit and one to try (exit 2). `sql`: the
    /// query's operators and its chess engines together; `cluster executor`: that
    /// executor's tasks.
    #[arg(long, global = true, value_name = "SIZE")]
    memory_limit: Option<String>,
    /// Join the static tables (piece_rays, square_masks, …) with DataFusion's hash joins,
    /// hashed again at every stage run, instead of probing indexes built once: the same
    /// rows; to compare the two (`profile`'s `static ms` column). Not for `cluster
    /// scheduler` or `sql --cluster` (give it to `cluster executor`).
    #[arg(long, global = true)]
    hash_joins: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate PGN games: per game the first illegal ply and why, final position and status.
    ///
    /// Games are read, validated and written --batch at a time (memory does not grow with
    /// the input). Summary on stderr. Exit status: 0 all games legal, 1 some game illegal or
    /// malformed, 2 usage or I/O error, 130 stopped by Ctrl-C (after the batch being
    /// validated; the report written so far is kept as OUT.partial). Report files are
    /// written under a temporary name and renamed when complete.
    Validate(validate::Args),
    /// List the legal moves of a position (SAN and UCI), or of every FEN line of a file.
    Moves(moves::Args),
    /// Count the leaf nodes of the legal move tree (perft).
    Perft(perft::Args),
    /// Draw a position as a board diagram (SVG or PNG): coordinates, the last move, a check
    /// marker, arrows and circled squares.
    Board(board::Args),
    /// Chart one game of a PGN file (SVG or HTML): White's winning chances from the
    /// `[%eval]` comments with lichess's mistakes and blunders marked, and the seconds spent
    /// per move and left on the clocks from the `[%clk]` comments and the TimeControl tag.
    ///
    /// The game is --game N, its 0-based index in the file (read_pgn's game_index). Exit
    /// status 2, and no file written, for a missing FILE, a game past the file's last, or
    /// an --out that is not .svg or .html.
    Chart(chart::Args),
    /// Show an explorer tree (a Parquet file of `explorer(path, max_ply)`) as the lichess
    /// opening explorer does: the moves from a position, most played first, with games,
    /// results, the movers' average Elo and the opening reached; or write it as a Polyglot
    /// opening book (--book).
    ///
    /// Filters (--speeds, --ratings, --since, --until) keep the tree's rows of those
    /// speeds, rating bands and months. Exit status 2 for a file that is not an explorer
    /// tree (naming the missing columns), a bad FEN, a move of --moves that is not legal
    /// (naming it), bad filter values.
    Explore(explore::Args),
    /// Print the logical and physical plan of one stage, or of all.
    Explain(profile::ExplainArgs),
    /// Run a pipeline with DataFusion's metrics and print one row per stage: rows, planning
    /// and execution time, compute time, share, peak memory.
    Profile(profile::ProfileArgs),
    /// Run SQL over PGN files: `read_pgn('games/*.pgn.zst')` is a table, one row per game.
    ///
    /// Several statements (separated by `;`) run in order on one session. Exit status 2
    /// with the SQL error on a bad statement.
    Sql {
        /// The statements (default: read from -f FILE, else standard input).
        query: Option<String>,
        /// Read the statements from this file.
        #[arg(short = 'f', long = "file")]
        file: Option<PathBuf>,
        /// Output format (default: table, or the extension of --out).
        #[arg(long, value_enum)]
        format: Option<sql::SqlFormat>,
        /// Write the rows here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run on a Ballista cluster: its scheduler's URL, df://HOST:PORT (feature
        /// `ballista`; paths in the query must be absolute and readable by every executor).
        #[arg(long, value_name = "URL")]
        cluster: Option<String>,
    },
    /// Run a node of a Ballista cluster (feature `ballista`): a scheduler, or an executor.
    #[command(subcommand)]
    Cluster(cluster::Command),
}

/// Which of the global options the command line gave (some commands refuse one they
/// cannot apply rather than ignore it).
#[derive(Clone, Copy)]
struct Given {
    threads: bool,
    memory_limit: bool,
    hash_joins: bool,
}

/// Exit status of an error that stops a command (usage, I/O, pipeline).
const ERROR_EXIT: u8 = 2;

/// The largest `--threads`: memory grows faster than the thread count (512 took 2.3 GB for
/// one position, 99,999 exhausted 24 GB).
const MAX_THREADS: u64 = 256;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            note!("error: {e}");
            return ExitCode::from(ERROR_EXIT);
        }
    };
    match rt.block_on(run(cli)) {
        Ok(code) => code,
        // the reader of standard output went away (`sqlchess sql … | head -1`): stop
        // quietly, as command-line tools do
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            note!("error: {e}");
            ExitCode::from(ERROR_EXIT)
        }
    }
}

/// Whether `e` is (or was caused by) a write to a closed pipe.
fn broken_pipe(e: &Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return true;
        }
        source = s.source();
    }
    false
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let mut config = PipelineConfig {
        static_lookups: !cli.hash_joins,
        ..PipelineConfig::default()
    };
    if let Some(t) = cli.threads {
        config.target_partitions = usize::try_from(t).unwrap_or(1).max(1);
    }
    if let Some(size) = &cli.memory_limit {
        let limit = sqlchess::session::memory::parse_size(size)?;
        // `validate` runs its pipelines side by side, one per thread
        let side_by_side = match cli.command {
            Command::Validate(_) => config.target_partitions,
            _ => 1,
        };
        config.memory = sqlchess::session::memory::MemoryBudget::for_run(
            limit,
            config.target_partitions,
            side_by_side,
        )?;
    }
    let given = Given {
        threads: cli.threads.is_some(),
        memory_limit: cli.memory_limit.is_some(),
        hash_joins: cli.hash_joins,
    };
    // planned only when awaited: `validate` plans its own pipelines instead
    let engine = Engine::new(config.clone());
    match cli.command {
        Command::Validate(args) => validate::run(args, config).await,
        Command::Moves(args) => moves::run(&engine.await?, args).await,
        Command::Perft(args) => perft::run(&engine.await?, args).await,
        Command::Board(args) => board::run(&engine.await?, args).await,
        Command::Chart(args) => chart::run(args, &config).await,
        Command::Explore(args) => explore::run(args, &config).await,
        Command::Explain(args) => profile::explain_command(&engine.await?, args).await,
        Command::Profile(args) => profile::profile_command(&engine.await?, args).await,
        Command::Sql {
            query,
            file,
            format,
            out,
            cluster,
        } => sql::run(query, file, format, out, cluster, &config, given).await,
        Command::Cluster(command) => cluster::run(command, &config, given).await,
    }
}

/// A value parser for an enum of the library that has names (`strum`): its names as the
/// possible values, each with its line of help.
fn names<T>(help: fn(T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: strum::VariantArray + Into<&'static str> + std::str::FromStr + Copy + Send + Sync,
    T: 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let values = T::VARIANTS
        .iter()
        .map(|&v| PossibleValue::new(v.into()).help(help(v)));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<T>())
}

/// A FEN, parsed ([`Error::Fen`] naming it if it does not parse).
/// A FEN in Chess960 mode when `chess960`, else in the mode its castling rights ask for
/// ([`Setup::from_fen_auto`]); errors are [`Error::Fen`].
fn parse_fen(fen: &str, chess960: bool) -> Result<Setup> {
    read_fen(fen, chess960).map_err(|e| Error::Fen {
        fen: fen.to_string(),
        source: e,
    })
}

/// [`parse_fen`] with the FEN error as it is.
fn read_fen(
    fen: &str,
    chess960: bool,
) -> std::result::Result<Setup, sqlchess::chess::fen::FenError> {
    if chess960 {
        Setup::from_fen_chess960(fen)
    } else {
        Setup::from_fen_auto(fen)
    }
}
