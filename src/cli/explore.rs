//! `sqlchess explore TREE.parquet`: an explorer tree (the rows of the table function
//! `explorer(path, max_ply)` written as Parquet, [`sqlchess::sql::explorer::Explorer`]) seen
//! as the lichess opening explorer shows one: the moves played from a position, most played
//! first, with their games, results, the movers' average Elo and the opening they lead to;
//! or, with `--book`, written as a Polyglot opening book
//! ([`sqlchess::chess::polyglot_book`]).
//!
//! All of it is SQL on a session of the command line's `--threads` and `--memory-limit`
//! ([`sqlchess::sql::context_with`]): the tree is a Parquet table of it, the position is
//! found by `position_key(fen)` (so positions reached by transposition are one), the moves
//! of `--moves` are played by `validate_moves(moves, fen)`, the opening after each move is
//! `opening(fen_after(fen, uci))`. Rust only formats the rows, and codes the book's moves.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use sqlchess::chess::polyglot_book::{BookEntry, book_bytes, encode_move, scale_weights};
use sqlchess::pgn::time_control::Speed;
use sqlchess::session::read::Row;
use sqlchess::sql::explorer::plies::RATING_BANDS;
use sqlchess::{Error, PipelineConfig, Result};

/// The standard start position, the default `--fen`.
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The tree's table on the command's session.
const TREE: &str = "explorer_tree";

/// Cells of the white / draw / black bar.
const BAR_CELLS: u64 = 10;

/// The arguments of `sqlchess explore`.
#[derive(clap::Args)]
pub struct Args {
    /// The explorer tree: a Parquet file of the rows of `explorer(path, max_ply)`, e.g.
    /// written by sqlchess sql "SELECT * FROM explorer('games.pgn', 20)" --out tree.parquet.
    tree: PathBuf,
    /// The position to start from (default: the standard start position).
    #[arg(long, value_name = "FEN", conflicts_with = "book")]
    fen: Option<String>,
    /// Moves played from --fen, SAN or UCI, separated by spaces (e.g. "e4 c5 Nf3" or
    /// "e2e4 c7c5"); the explorer shows the position after them.
    #[arg(long, value_name = "MOVES", conflicts_with = "book")]
    moves: Option<String>,
    /// Only games of these speeds (lichess's names, separated by commas).
    #[arg(long, value_name = "SPEEDS", value_delimiter = ',', value_parser = speed_names())]
    speeds: Vec<String>,
    /// Only games of these rating bands (the bands' lower bounds, separated by commas).
    #[arg(long, value_name = "BANDS", value_delimiter = ',', value_parser = band)]
    ratings: Vec<u16>,
    /// Only games of this month or later (YYYY-MM).
    #[arg(long, value_name = "YYYY-MM", value_parser = month)]
    since: Option<String>,
    /// Only games of this month or earlier (YYYY-MM).
    #[arg(long, value_name = "YYYY-MM", value_parser = month)]
    until: Option<String>,
    /// Show at most N moves (the total line still counts them all).
    #[arg(long, value_name = "N", conflicts_with = "book")]
    limit: Option<usize>,
    /// Write every position of the (filtered) tree as a Polyglot opening book to this file
    /// instead of showing one position (--fen, --moves and --limit are refused with it).
    #[arg(long, value_name = "BOOK.bin")]
    book: Option<PathBuf>,
    /// With --book: leave out moves played in fewer than N games.
    #[arg(long, value_name = "N", requires = "book")]
    min_games: Option<u64>,
}

/// Every lichess speed, in their order.
const SPEEDS: [Speed; 6] = [
    Speed::UltraBullet,
    Speed::Bullet,
    Speed::Blitz,
    Speed::Rapid,
    Speed::Classical,
    Speed::Correspondence,
];

/// `--speeds`: lichess's speed names only.
fn speed_names() -> PossibleValuesParser {
    PossibleValuesParser::new(SPEEDS.map(Speed::as_str))
}

/// `--ratings`: one of the explorer's rating bands (its lower bound).
fn band(s: &str) -> std::result::Result<u16, String> {
    s.parse::<u16>()
        .ok()
        .filter(|b| RATING_BANDS.contains(b))
        .ok_or_else(|| {
            let bands: Vec<String> = RATING_BANDS.iter().map(u16::to_string).collect();
            format!(
                "{s:?} is not a rating band (the bands: {})",
                bands.join(", ")
            )
        })
}

/// `--since`, `--until`: a month `YYYY-MM` (month 01 to 12), as the tree's `month` column.
fn month(s: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let ok = b.len() == 7
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && (1..=12).contains(&((b[5] - b'0') * 10 + (b[6] - b'0')));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("{s:?} is not a month YYYY-MM (e.g. 2025-01)"))
    }
}

/// The columns the command reads, with the types `explorer` gives them (strings may be
/// read back as Utf8View).
const COLUMNS: [(&str, Kind); 13] = [
    ("position_key", Kind::Key),
    ("epd", Kind::Text),
    ("uci", Kind::Text),
    ("san", Kind::Text),
    ("speed", Kind::Text),
    ("rating_band", Kind::Integer),
    ("month", Kind::Text),
    ("games", Kind::Integer),
    ("white_wins", Kind::Integer),
    ("draws", Kind::Integer),
    ("black_wins", Kind::Integer),
    ("mover_elo_sum", Kind::Integer),
    ("mover_elo_games", Kind::Integer),
];

/// The type a tree's column must have.
#[derive(Clone, Copy)]
enum Kind {
    /// UInt64 (the Polyglot key).
    Key,
    /// Any string type.
    Text,
    /// Any integer type.
    Integer,
}

impl Kind {
    fn accepts(self, t: &DataType) -> bool {
        match self {
            Kind::Key => *t == DataType::UInt64,
            Kind::Text => matches!(t, DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8),
            Kind::Integer => t.is_integer(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Key => "UInt64",
            Kind::Text => "a string",
            Kind::Integer => "an integer",
        }
    }
}

/// Runs `sqlchess explore`. Errors (exit status 2 from `main`): [`Error::Io`] for a TREE
/// that cannot be read; [`Error::Usage`] for a TREE that is not a file, is empty, is not
/// Parquet or lacks a column the command reads (naming them), for `--since` after
/// `--until`, for a move of `--moves` that is not one legal move (naming it and its index,
/// from 1); [`Error::Fen`] for a bad `--fen`; [`Error::Io`] for a book that cannot be
/// written. Bad `--speeds`, `--ratings`, `--since`, `--until` values, and `--fen`, `--moves`
/// or `--limit` with `--book`, are refused by the argument parser (exit status 2).
pub async fn run(args: Args, config: &PipelineConfig) -> Result<ExitCode> {
    if let (Some(since), Some(until)) = (&args.since, &args.until)
        && since > until
    {
        return Err(Error::Usage(format!(
            "--since {since} is after --until {until}: no month is in between"
        )));
    }
    let ctx = sqlchess::sql::context_with(config);
    register_tree(&ctx, &args.tree).await?;
    let filters = filters(&args);
    match &args.book {
        Some(book) => {
            write_book(
                &ctx,
                &args.tree,
                &filters,
                args.min_games.unwrap_or(1),
                book,
            )
            .await
        }
        None => show_moves(&ctx, &args, &filters).await,
    }
}

/// Registers the Parquet file `path` as [`TREE`], checked to be an explorer tree.
async fn register_tree(ctx: &SessionContext, path: &Path) -> Result<()> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: name.clone(),
        source,
    })?;
    if !meta.is_file() {
        return Err(Error::Usage(format!(
            "{name}: not a file (an explorer tree is one Parquet file)"
        )));
    }
    if meta.len() == 0 {
        return Err(Error::Usage(format!(
            "{name}: empty file, not an explorer tree (write one with sqlchess sql \"SELECT * \
             FROM explorer('games.pgn', 20)\" --out tree.parquet)"
        )));
    }
    let absolute = std::fs::canonicalize(path).map_err(|source| Error::Io {
        path: name.clone(),
        source,
    })?;
    // the file itself, whatever its extension
    let options = ParquetReadOptions::default().file_extension("");
    ctx.register_parquet(TREE, absolute.display().to_string(), options)
        .await
        .map_err(|e| {
            Error::Usage(format!(
                "{name}: not an explorer tree: not a Parquet file ({e})"
            ))
        })?;
    let schema = ctx.table(TREE).await?.schema().inner().clone();
    check_columns(&name, &schema)
}

/// [`Error::Usage`] naming the columns of [`COLUMNS`] that `schema` lacks or has with
/// another type.
fn check_columns(name: &str, schema: &Schema) -> Result<()> {
    let mut missing = vec![];
    let mut wrong = vec![];
    for (column, kind) in COLUMNS {
        match schema.field_with_name(column) {
            Err(_) => missing.push(column),
            Ok(f) if !kind.accepts(f.data_type()) => wrong.push(format!(
                "{column} is {}, not {}",
                f.data_type(),
                kind.name()
            )),
            Ok(_) => {}
        }
    }
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "{name}: not an explorer tree: no column{} {} (explorer(path, max_ply) writes them)",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )));
    }
    if !wrong.is_empty() {
        return Err(Error::Usage(format!(
            "{name}: not an explorer tree: {}",
            wrong.join(", ")
        )));
    }
    Ok(())
}

/// A string as a SQL literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The SQL condition of the filters (`TRUE` without any): rows whose speed, rating band and
/// month are among those asked for (a NULL value is not, once its filter is given).
fn filters(args: &Args) -> String {
    let mut out = vec!["TRUE".to_string()];
    if !args.speeds.is_empty() {
        let names: Vec<String> = args.speeds.iter().map(|s| literal(s)).collect();
        out.push(format!("speed IN ({})", names.join(", ")));
    }
    if !args.ratings.is_empty() {
        let bands: Vec<String> = args.ratings.iter().map(u16::to_string).collect();
        out.push(format!("rating_band IN ({})", bands.join(", ")));
    }
    if let Some(since) = &args.since {
        out.push(format!("month >= {}", literal(since)));
    }
    if let Some(until) = &args.until {
        out.push(format!("month <= {}", literal(until)));
    }
    out.join(" AND ")
}

/// The rows of a query on `ctx`.
async fn rows<R: Row>(ctx: &SessionContext, sql: &str) -> Result<Vec<R>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(R::read_rows(&batches)?)
}

sqlchess::table_row! {
    /// A FEN computed by SQL.
    struct FenRow {
        fen: Option<String>,
    }
}

sqlchess::table_row! {
    /// One move of the explorer's view.
    struct MoveRow {
        san: String,
        games: i64,
        white_wins: i64,
        draws: i64,
        black_wins: i64,
        elo_sum: i64,
        elo_games: i64,
        opening: Option<String>,
    }
}

/// The position of `--fen` and `--moves`: the moves played from it by `validate_moves`.
async fn position(ctx: &SessionContext, args: &Args) -> Result<String> {
    let fen = args.fen.as_deref().unwrap_or(START).trim().to_string();
    crate::parse_fen(&fen, false)?;
    // the attack rules too (stage setup_checks): a position no game reaches is refused here
    let sql = format!("SELECT fen_error({}) AS fen", literal(&fen));
    if let Some(e) = rows::<FenRow>(ctx, &sql).await?.pop().and_then(|r| r.fen) {
        return Err(Error::Usage(format!("--fen: invalid FEN {fen:?}: {e}")));
    }
    let tokens: Vec<&str> = args
        .moves
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    if tokens.is_empty() {
        return Ok(fen);
    }
    // a null move passes the turn in a game's record, but is no move a player can play here
    if let Some((i, token)) = tokens.iter().enumerate().find(|(_, t)| {
        matches!(
            sqlchess::chess::san::parse_san(t),
            Ok((sqlchess::chess::san::SanToken::Null, _))
        )
    }) {
        return Err(Error::Usage(format!(
            "--moves: move {} ({token:?}) is a null move, not a move a player can play",
            i + 1
        )));
    }
    // the rules of a game from that position: the first move that is not one legal move,
    // and why (read_pgn's error kinds)
    let list: Vec<String> = tokens.iter().map(|t| literal(t)).collect();
    let sql = format!(
        "SELECT v['final_fen'] AS fen, v['first_illegal_ply'] AS ply, v['error_kind'] AS kind \
         FROM (SELECT validate_moves(make_array({}), {}) AS v)",
        list.join(", "),
        literal(&fen)
    );
    let verdict = rows::<MovesRow>(ctx, &sql).await?.pop();
    match verdict {
        Some(MovesRow {
            fen: Some(after),
            ply: None,
            ..
        }) => Ok(after),
        Some(MovesRow { fen, ply, kind, .. }) => {
            let n = ply.unwrap_or(0).max(1);
            let token = usize::try_from(n - 1)
                .ok()
                .and_then(|i| tokens.get(i))
                .copied()
                .unwrap_or_default();
            let why = match kind.as_deref() {
                Some("ambiguous_move") => "ambiguous: several legal moves match it",
                Some("syntax") => "not a move (SAN, UCI or castling)",
                Some("wrong_side") => "a move of the side not to move",
                _ => "not a legal move",
            };
            let before = fen.unwrap_or_default();
            Err(Error::Usage(format!(
                "--moves: move {n} ({token:?}) is {why} in {before}"
            )))
        }
        None => Err(Error::Internal("validate_moves gave no row".into())),
    }
}

sqlchess::table_row! {
    /// What `validate_moves` says of `--moves` from the `--fen` position.
    struct MovesRow {
        fen: Option<String>,
        ply: Option<i64>,
        kind: Option<String>,
    }
}

/// Prints the moves from the position of `--fen` and `--moves`.
async fn show_moves(ctx: &SessionContext, args: &Args, filters: &str) -> Result<ExitCode> {
    let fen = position(ctx, args).await?;
    let sql = format!(
        "SELECT san, games, white_wins, draws, black_wins, elo_sum, elo_games,
                opening(fen_after({fen}, uci)) AS opening
         FROM (SELECT uci, min(san) AS san, sum(games) AS games,
                      coalesce(sum(white_wins), 0) AS white_wins,
                      coalesce(sum(draws), 0) AS draws,
                      coalesce(sum(black_wins), 0) AS black_wins,
                      coalesce(sum(mover_elo_sum), 0) AS elo_sum,
                      coalesce(sum(mover_elo_games), 0) AS elo_games
               FROM {TREE}
               WHERE position_key = position_key({fen}) AND {filters}
               GROUP BY uci)
         ORDER BY games DESC, san",
        fen = literal(&fen),
    );
    let moves: Vec<MoveRow> = rows(ctx, &sql).await?;
    let mut total = MoveRow {
        san: "total".into(),
        games: 0,
        white_wins: 0,
        draws: 0,
        black_wins: 0,
        elo_sum: 0,
        elo_games: 0,
        opening: None,
    };
    for m in &moves {
        total.games += m.games;
        total.white_wins += m.white_wins;
        total.draws += m.draws;
        total.black_wins += m.black_wins;
        total.elo_sum += m.elo_sum;
        total.elo_games += m.elo_games;
    }
    let shown = &moves[..args.limit.unwrap_or(moves.len()).min(moves.len())];
    let san_width = shown
        .iter()
        .map(|m| m.san.chars().count())
        .chain([total.san.len()])
        .max()
        .unwrap_or(0);
    let games_width = total.games.to_string().len().max("games".len());
    let mut text = format!("{fen}\n");
    text += &format!(
        "{:<san_width$}  {:>games_width$}  {:<26}  {:>4}  opening\n",
        "move", "games", "white / draw / black", "elo"
    );
    for m in shown.iter().chain([&total]) {
        text += &line(m, san_width, games_width);
    }
    out!("{text}")?;
    Ok(ExitCode::SUCCESS)
}

/// One line of the view: move, games, bar and percentages, average Elo, opening.
fn line(m: &MoveRow, san_width: usize, games_width: usize) -> String {
    let elo = if m.elo_games > 0 {
        // rounded to the nearest
        ((m.elo_sum + m.elo_games / 2).div_euclid(m.elo_games)).to_string()
    } else {
        String::new()
    };
    let opening = m.opening.as_deref().unwrap_or("");
    let line = format!(
        "{:<san_width$}  {:>games_width$}  {}  {elo:>4}  {opening}",
        m.san,
        m.games,
        results(m)
    );
    format!("{}\n", line.trim_end())
}

/// The results bar and percentages of a move: white wins `█`, draws `▒`, black wins `░`,
/// of the games with a result (cumulative rounding, so that the cells make 10 and the
/// percentages 100); blank when no game has one.
fn results(m: &MoveRow) -> String {
    let (w, d, b) = (
        m.white_wins.max(0) as u64,
        m.draws.max(0) as u64,
        m.black_wins.max(0) as u64,
    );
    let n = w + d + b;
    if n == 0 {
        return format!("{:26}", "");
    }
    // the nearest integer of part × scale / n
    let share = |part: u64, scale: u64| (2 * part * scale + n) / (2 * n);
    let (cw, cwd) = (share(w, BAR_CELLS), share(w + d, BAR_CELLS));
    let (pw, pwd) = (share(w, 100), share(w + d, 100));
    let bar: String = "█".repeat(cw as usize)
        + &"▒".repeat((cwd - cw) as usize)
        + &"░".repeat((BAR_CELLS - cwd) as usize);
    format!("{bar}  {pw:>3}% {:>3}% {:>3}%", pwd - pw, 100 - pwd)
}

sqlchess::table_row! {
    /// One move of the book, before its weight is brought within a u16.
    struct BookRow {
        position_key: u64,
        uci: String,
        castling: bool,
        weight: i64,
    }
}

/// Writes the Polyglot book of every position of the filtered tree to `book`: per position
/// and move, weight 2 × the mover's wins + draws (the mover: the side to move of `epd`),
/// moves of weight 0, with fewer than `min_games` games, or null (`0000`) left out; a
/// position's weights scaled down together when one is over 65535
/// ([`scale_weights`]). The file is written whole.
async fn write_book(
    ctx: &SessionContext,
    tree: &Path,
    filters: &str,
    min_games: u64,
    book: &Path,
) -> Result<ExitCode> {
    let sql = format!(
        "SELECT position_key, uci, castling, weight
         FROM (SELECT position_key, uci, castling, games,
                      2 * CASE side WHEN 'w' THEN white_wins ELSE black_wins END + draws AS weight
               FROM (SELECT position_key, split_part(epd, ' ', 2) AS side, uci,
                            bool_or(san LIKE 'O-O%') AS castling, sum(games) AS games,
                            coalesce(sum(white_wins), 0) AS white_wins,
                            coalesce(sum(draws), 0) AS draws,
                            coalesce(sum(black_wins), 0) AS black_wins
                     FROM {TREE}
                     WHERE uci <> '0000' AND {filters}
                     GROUP BY position_key, side, uci))
         WHERE weight > 0 AND games >= {min_games}
         ORDER BY position_key, weight DESC, uci"
    );
    let moves: Vec<BookRow> = rows(ctx, &sql).await?;
    let name = book.display().to_string();
    let mut entries = Vec::with_capacity(moves.len());
    let mut positions = 0;
    for group in moves.chunk_by(|a, b| a.position_key == b.position_key) {
        positions += 1;
        let weights: Vec<u64> = group.iter().map(|m| m.weight.max(0) as u64).collect();
        for (m, weight) in group.iter().zip(scale_weights(&weights)) {
            let mv = encode_move(&m.uci, m.castling).map_err(|e| {
                Error::Usage(format!("{}: not an explorer tree: uci {e}", tree.display()))
            })?;
            entries.push(BookEntry {
                key: m.position_key,
                mv,
                weight,
                learn: 0,
            });
        }
    }
    let count = entries.len();
    sqlchess::io::whole_file::write_whole(book, &book_bytes(entries))?;
    note!("{name}: {count} entries, {positions} positions");
    Ok(ExitCode::SUCCESS)
}
